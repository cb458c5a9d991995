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
use super::symbols::Row;
use super::versions::Versions;
use doca_build_support::env::EnvReader;
use serde::Serialize;

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
    /// What a hardware build says of the install it refuses (too old, versions that
    /// disagree, broken modules): the discovery's message (loaded builds only).
    pub(crate) refusal: Option<String>,
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

/// One library found and loaded (JSON: an element of `libraries.loaded`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Loaded {
    /// `libdoca_common.so`.
    pub(crate) name: String,
    /// Where it was found (or the bare name, when the dynamic loader's own search
    /// found it).
    pub(crate) path: String,
}

/// One directory searched for the libraries (JSON: an element of
/// `libraries.searched`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Searched {
    /// The directory.
    pub(crate) dir: String,
    /// Why it was searched: `pkg-config libdir`, `DOCA_PREFIX`, `LD_LIBRARY_PATH` or
    /// `standard location`.
    pub(crate) from: &'static str,
}

/// The DOCA libraries as a loaded build found them (JSON: the `libraries` object,
/// these fields).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Libraries {
    /// Loaded, in load order.
    pub(crate) loaded: Vec<Loaded>,
    /// Required (`libdoca_common.so`, `libdoca_dpa.so`) and not loaded.
    pub(crate) missing: Vec<String>,
    /// Optional (`libdoca_verbs.so`, `libdoca_rdmi.so`) and not loaded.
    pub(crate) optional_missing: Vec<String>,
    /// The directories searched, in order, each with why.
    pub(crate) searched: Vec<Searched>,
    /// Files found but not loadable, with the dynamic loader's message.
    pub(crate) errors: Vec<String>,
    /// Why pkg-config did not give the install, when it did not.
    pub(crate) pkg_config_error: Option<String>,
}

impl Libraries {
    /// The directories searched, for messages: `a, b, c`.
    pub(crate) fn searched_list(&self) -> String {
        self.searched
            .iter()
            .map(|s| s.dir.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The process environment as doca-build-support's discovery and bindings check
/// read it (a fixed copy: the reader of a build script prints cargo directives for
/// each read).
pub(crate) fn environment() -> EnvReader {
    EnvReader::fixed(std::env::vars_os().filter_map(|(k, v)| k.into_string().ok().map(|k| (k, v))))
}
