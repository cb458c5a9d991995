//! What the doctor learns from DOCA before any check runs, gathered one of two
//! ways:
//!
//! * `loaded` (the default build): the doctor links no DOCA; it finds the
//!   install with pkg-config as the build scripts do, loads DOCA's libraries
//!   at run time (`dlopen` through libloading) and asks them. It builds and
//!   starts on a machine without DOCA, or with broken libraries, and says so.
//! * `linked` (the `sim` feature): the doctor is built with `doca`, on the
//!   software DPA (or, with `DOCA_BACKEND=hardware`, the installed DOCA), and
//!   reports what that build says.

use super::backend::{RdmiReport, SimConfig};
use super::devices::DeviceEntry;
use super::json::{Json, ObjectBuilder};
use super::symbols::Row;
use super::versions::Versions;

/// Everything the checks need.
#[derive(Debug)]
pub(crate) struct Facts {
    /// `hardware`, `sim` or `docs`.
    pub(crate) backend: &'static str,
    /// How the DPA and RDMI calls are made (`build_info::BINDINGS` in a linked
    /// build; "loaded at run time" otherwise).
    pub(crate) bindings: [String; 2],
    /// `DOCA_SIM_PROFILE`, on the sim.
    pub(crate) sim_profile: Option<String>,
    /// The sim's profile source and configuration error, on the sim.
    pub(crate) sim: Option<SimConfig>,
    /// The libraries the doctor looked for (loaded builds only).
    pub(crate) libraries: Option<Libraries>,
    /// The versions to match.
    pub(crate) versions: Versions,
    /// The DOCA version dpacc is paired with.
    pub(crate) doca_version: String,
    /// The install's prefix, when known (where its `tools/dpacc` is).
    pub(crate) prefix: Option<String>,
    /// The devices, or why they could not be listed.
    pub(crate) devices: Result<Vec<DeviceEntry>, String>,
    /// The symbol rows.
    pub(crate) symbols: Vec<Row>,
    /// RDMI availability.
    pub(crate) rdmi: RdmiReport,
}

/// One library found and loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loaded {
    /// `libdoca_common.so`.
    pub(crate) name: String,
    /// Where it was found (or the bare name, when the dynamic loader's own search
    /// found it).
    pub(crate) path: String,
}

/// The DOCA libraries as a loaded build found them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Libraries {
    /// Loaded, in load order.
    pub(crate) loaded: Vec<Loaded>,
    /// Required (`libdoca_common.so`, `libdoca_dpa.so`) and not loaded.
    pub(crate) missing: Vec<String>,
    /// Optional (`libdoca_verbs.so`, `libdoca_rdmi.so`) and not loaded.
    pub(crate) optional_missing: Vec<String>,
    /// The directories searched, in order, each with why
    /// (`pkg-config libdir`, `LD_LIBRARY_PATH`, `standard location`).
    pub(crate) searched: Vec<(String, &'static str)>,
    /// Files found but not loadable, with the dynamic loader's message.
    pub(crate) errors: Vec<String>,
    /// Why pkg-config did not give the install, when it did not.
    pub(crate) pkg_config_error: Option<String>,
}

impl Libraries {
    /// The `libraries` object of the JSON report.
    pub(crate) fn to_json(&self) -> Json {
        ObjectBuilder::new()
            .field(
                "loaded",
                Json::Array(
                    self.loaded
                        .iter()
                        .map(|l| {
                            ObjectBuilder::new()
                                .field("name", l.name.as_str())
                                .field("path", l.path.as_str())
                                .build()
                        })
                        .collect(),
                ),
            )
            .field("missing", self.missing.clone())
            .field("optional_missing", self.optional_missing.clone())
            .field(
                "searched",
                Json::Array(
                    self.searched
                        .iter()
                        .map(|(dir, why)| {
                            ObjectBuilder::new()
                                .field("dir", dir.as_str())
                                .field("from", *why)
                                .build()
                        })
                        .collect(),
                ),
            )
            .field("errors", self.errors.clone())
            .field("pkg_config_error", self.pkg_config_error.as_deref())
            .build()
    }

    /// The directories searched, for messages: `a, b, c`.
    pub(crate) fn searched_list(&self) -> String {
        self.searched
            .iter()
            .map(|(d, _)| d.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
