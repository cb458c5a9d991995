//! The whole report: gathers every fact, runs every check, and writes the JSON
//! document of schema version [`SCHEMA_VERSION`].

use super::backend::{evaluate_backend, RdmiReport, SimConfig};
use super::check::{exit_code, worst, Check};
use super::cli::Options;
use super::devices::{self, DeviceEntry};
use super::dpacc::{self, DpaccReport};
use super::json::{Json, ObjectBuilder};
use super::symbols::{self, SymbolsReport};
use super::versions::{self, c_constant, Versions, VersionsReport};

/// The version of the JSON document. Raised when a field changes meaning or
/// disappears; new fields may appear without a raise.
pub(crate) const SCHEMA_VERSION: u32 = 2;

/// Everything doca-doctor found.
#[derive(Debug)]
pub(crate) struct Report {
    /// `hardware`, `sim` or `docs`.
    pub(crate) backend: &'static str,
    /// How each -sys crate's bindings were made (`build_info::BINDINGS`): DPA, RDMI.
    pub(crate) bindings: [&'static str; 2],
    /// `DOCA_SIM_PROFILE`, on the sim.
    pub(crate) sim_profile: Option<String>,
    /// The sim's profile source and configuration error, on the sim.
    pub(crate) sim: Option<SimConfig>,
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

/// The pkg-config modules both -sys builds saw, each `(module, version)` once.
fn pkg_config_versions() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let all = doca::sys::build_info::PKG_CONFIG_VERSIONS
        .iter()
        .chain(doca::rdmi::sys::build_info::PKG_CONFIG_VERSIONS);
    for (module, version) in all {
        let pair = ((*module).to_owned(), (*version).to_owned());
        if !out.contains(&pair) {
            out.push(pair);
        }
    }
    out
}

impl Report {
    /// Gathers and checks. Makes DOCA calls: the device list, a DPA context
    /// per DPA device (created, never started), `doca_version_runtime`.
    pub(crate) fn collect(opts: &Options) -> Report {
        let backend = doca::dpa::build_info::BACKEND;
        let sim = backend == "sim";
        let sim_profile = std::env::var_os("DOCA_SIM_PROFILE")
            .filter(|_| sim)
            .map(|p| p.to_string_lossy().into_owned());
        #[cfg(doca_backend = "sim")]
        let sim_config = sim.then(SimConfig::gather);
        #[cfg(not(doca_backend = "sim"))]
        let sim_config: Option<SimConfig> = None;
        let req = opts.require;

        let backend_check = evaluate_backend(
            backend,
            sim_profile.as_deref(),
            sim_config.as_ref(),
            req.hardware,
        );
        let runtime = doca::dpa::runtime_version();
        let (versions, versions_check) = versions::evaluate(
            Versions {
                header: c_constant(&doca::sys::DOCA_VERSION_STRING[..]),
                build: vec![
                    (
                        "doca-dpa-sys".to_owned(),
                        doca::sys::build_info::DOCA_VERSION.to_owned(),
                    ),
                    (
                        "doca-rdmi-sys".to_owned(),
                        doca::rdmi::sys::build_info::DOCA_VERSION.to_owned(),
                    ),
                ],
                pkg_config: pkg_config_versions(),
                runtime: (!runtime.trim().is_empty()).then_some(runtime),
            },
            sim,
        );
        let (dpacc, dpacc_check) = dpacc::evaluate(
            dpacc::probe(sim),
            doca::dpa::build_info::DOCA_VERSION,
            doca::sys::build_info::DOCA_PREFIX,
        );
        let device_list = devices::gather();
        let devices_check = devices::evaluate_devices(&device_list, sim);
        let dpa_check = devices::evaluate_dpa(&device_list, req.dpa, sim);
        let rdmi = RdmiReport::gather();
        let (symbols, symbols_check) =
            symbols::evaluate(symbols::gather(), rdmi.absent_reason.is_none());
        let rdmi_check = rdmi.evaluate(req.rdmi);

        Report {
            backend,
            bindings: [
                doca::sys::build_info::BINDINGS,
                doca::rdmi::sys::build_info::BINDINGS,
            ],
            sim_profile,
            sim: sim_config,
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
            devices: device_list,
            symbols,
            rdmi,
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
                    .field("dpa", self.bindings[0])
                    .field("rdmi", self.bindings[1])
                    .build(),
            )
            .field("sim_profile", self.sim_profile.as_deref())
            .field("sim", self.sim.as_ref().map(SimConfig::to_json))
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
