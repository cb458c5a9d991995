//! The whole report: gathers every fact, runs every check, and writes the JSON
//! document of schema version [`SCHEMA_VERSION`].

use super::backend::{evaluate_backend, evaluate_libraries, RdmiReport, SimConfig};
use super::check::{exit_code, worst, Check};
use super::cli::Options;
use super::devices::{self, DeviceEntry};
use super::dpacc::{self, DpaccReport};
use super::facts::{Facts, Libraries};
use super::json::{Json, ObjectBuilder};
use super::symbols::{self, SymbolsReport};
use super::versions::{self, VersionsReport};

/// The version of the JSON document. Raised when a field changes meaning or
/// disappears; new fields may appear without a raise.
pub(crate) const SCHEMA_VERSION: u32 = 3;

/// Everything doca-doctor found.
#[derive(Debug)]
pub(crate) struct Report {
    /// `hardware`, `sim` or `docs`.
    pub(crate) backend: &'static str,
    /// How the DPA and RDMI calls are made (`build_info::BINDINGS` of each -sys
    /// crate in a linked build).
    pub(crate) bindings: [String; 2],
    /// `DOCA_SIM_PROFILE`, on the sim.
    pub(crate) sim_profile: Option<String>,
    /// The sim's profile source and configuration error, on the sim.
    pub(crate) sim: Option<SimConfig>,
    /// The DOCA libraries found and loaded (a loaded build; `None` in a linked one).
    pub(crate) libraries: Option<Libraries>,
    /// The `--require` names.
    pub(crate) required: Vec<&'static str>,
    /// The verdicts, in the order `backend`, `versions`, `dpacc`, `devices`,
    /// `dpa`, `symbols`, `rdmi`.
    pub(crate) checks: Vec<Check>,
    /// The four-way match.
    pub(crate) versions: VersionsReport,
    /// The DPA compiler.
    pub(crate) dpacc: DpaccReport,
    /// The devices, or why they could not be listed.
    pub(crate) devices: Result<Vec<DeviceEntry>, String>,
    /// The symbol audit.
    pub(crate) symbols: SymbolsReport,
    /// RDMI availability.
    pub(crate) rdmi: RdmiReport,
}

impl Report {
    /// Gathers the facts (`loaded::gather` or, with the `sim` feature,
    /// `linked::gather`: the DOCA calls are theirs) and runs every check.
    pub(crate) fn collect(opts: &Options) -> Report {
        #[cfg(feature = "sim")]
        let facts = super::linked::gather();
        #[cfg(not(feature = "sim"))]
        let facts = super::loaded::gather();
        Report::check(facts, opts)
    }

    /// Runs every check over `facts`.
    pub(crate) fn check(facts: Facts, opts: &Options) -> Report {
        let sim = facts.backend == "sim";
        let req = opts.require;
        let backend_check = match &facts.libraries {
            Some(libs) => evaluate_libraries(libs),
            _ => evaluate_backend(
                facts.backend,
                facts.sim_profile.as_deref(),
                facts.sim.as_ref(),
                req.hardware,
            ),
        };
        let (versions, versions_check) = versions::evaluate(facts.versions, sim);
        let (dpacc, dpacc_check) = dpacc::evaluate(
            dpacc::probe(sim),
            &facts.doca_version,
            facts.prefix.as_deref(),
        );
        let devices_check = devices::evaluate_devices(&facts.devices, sim);
        let dpa_check = devices::evaluate_dpa(&facts.devices, req.dpa, sim);
        let (symbols, symbols_check) =
            symbols::evaluate(facts.symbols, facts.rdmi.absent_reason.is_none());
        let rdmi_check = facts.rdmi.evaluate(req.rdmi);

        Report {
            backend: facts.backend,
            bindings: facts.bindings,
            sim_profile: facts.sim_profile,
            sim: facts.sim,
            libraries: facts.libraries,
            required: req.names(),
            checks: vec![
                backend_check,
                versions_check,
                dpacc_check,
                devices_check,
                dpa_check,
                symbols_check,
                rdmi_check,
            ],
            versions,
            dpacc,
            devices: facts.devices,
            symbols,
            rdmi: facts.rdmi,
        }
    }

    /// 1 when a check failed, else 0.
    pub(crate) fn exit_code(&self) -> i32 {
        exit_code(&self.checks)
    }

    /// The JSON document (see the `doctor` module documentation).
    pub(crate) fn to_json(&self) -> Json {
        let (devices, devices_error) = match &self.devices {
            Ok(list) => (
                Json::Array(list.iter().map(DeviceEntry::to_json).collect()),
                None,
            ),
            Err(e) => (Json::Array(Vec::new()), Some(e.as_str())),
        };
        ObjectBuilder::new()
            .field("schema_version", SCHEMA_VERSION)
            .field("tool", "doca-doctor")
            .field("tool_version", env!("CARGO_PKG_VERSION"))
            .field("backend", self.backend)
            .field(
                "bindings",
                ObjectBuilder::new()
                    .field("dpa", self.bindings[0].as_str())
                    .field("rdmi", self.bindings[1].as_str())
                    .build(),
            )
            .field("sim_profile", self.sim_profile.as_deref())
            .field("sim", self.sim.as_ref().map(SimConfig::to_json))
            .field("libraries", self.libraries.as_ref().map(Libraries::to_json))
            .field("required", self.required.clone())
            .field("verdict", worst(&self.checks).as_str())
            .field("exit_code", u32::from(self.exit_code() != 0))
            .field(
                "checks",
                Json::Array(self.checks.iter().map(Check::to_json).collect()),
            )
            .field("versions", self.versions.to_json())
            .field("dpacc", self.dpacc.to_json())
            .field("devices", devices)
            .field("devices_error", devices_error)
            .field("symbols", self.symbols.to_json())
            .field("rdmi", self.rdmi.to_json())
            .build()
    }
}
