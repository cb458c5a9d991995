//! The whole report: gathers every fact, runs every check, and writes the JSON
//! document of schema version [`SCHEMA_VERSION`].

use serde::{Serialize, Serializer};

use doca_build_support::discovery::{self, ProbeInputs};

use super::backend::{evaluate_backend, evaluate_libraries, RdmiReport, SimConfig};
use super::bindings::{self, BindingsCheck};
use super::check::{exit_code, worst, Check, Verdict};
use super::devices::{self, DeviceEntry};
use super::dpacc::{self, DpaccReport};
use super::facts::{environment, Facts, Libraries};
use super::symbols::{self, SymbolsReport};
use super::versions::{self, VersionsReport};
use super::Options;

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
    /// `dpa`, `symbols`, `rdmi`, `bindings`.
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
    /// What a hardware build will say of the installed headers.
    pub(crate) bindings_check: BindingsCheck,
}

impl Report {
    /// Finds the install (pkg-config, as the build scripts do), gathers the facts
    /// (`loaded::gather` or, with the `sim` feature, `linked::gather`: the DOCA calls
    /// are theirs), runs the bindings check against the install's headers and every
    /// other check.
    pub(crate) fn collect(opts: &Options) -> Report {
        let env = environment();
        let probed = discovery::probe(&ProbeInputs::from_env(&env));
        #[cfg(feature = "sim")]
        let facts = super::linked::gather();
        #[cfg(not(feature = "sim"))]
        let facts = super::loaded::gather(&env, probed.as_ref());
        let bindings_check = bindings::run(&env, probed.as_ref());
        Report::check(facts, bindings_check, opts)
    }

    /// Runs every check over `facts` and `bindings_check`.
    pub(crate) fn check(facts: Facts, bindings_check: BindingsCheck, opts: &Options) -> Report {
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
        let (versions, versions_check) =
            versions::evaluate(facts.versions, sim, facts.refusal.as_deref());
        let (dpacc, dpacc_check) = dpacc::evaluate(
            dpacc::probe(sim, facts.prefix.as_deref()),
            &facts.doca_version,
            facts.prefix.as_deref(),
        );
        let devices_check = devices::evaluate_devices(&facts.devices, sim);
        let dpa_check = devices::evaluate_dpa(&facts.devices, req.dpa, sim);
        let (symbols, symbols_check) =
            symbols::evaluate(facts.symbols, facts.rdmi.absent_reason.is_none());
        let rdmi_check = facts.rdmi.evaluate(req.rdmi);
        // A hardware doctor is about hardware builds; a sim one only when asked.
        let bindings_required = !sim || req.hardware;
        let bindings = bindings_check.evaluate(bindings_required, sim);

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
                bindings,
            ],
            versions,
            dpacc,
            devices: facts.devices,
            symbols,
            rdmi: facts.rdmi,
            bindings_check,
        }
    }

    /// 1 when a check failed, else 0.
    pub(crate) fn exit_code(&self) -> i32 {
        exit_code(&self.checks)
    }
}

/// The JSON document: schema version [`SCHEMA_VERSION`], the fields in the order the
/// crate documentation shows them.
impl Serialize for Report {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Bindings<'a> {
            dpa: &'a str,
            rdmi: &'a str,
        }
        #[derive(Serialize)]
        struct Document<'a> {
            schema_version: u32,
            tool: &'static str,
            tool_version: &'static str,
            backend: &'static str,
            bindings: Bindings<'a>,
            sim_profile: Option<&'a str>,
            sim: Option<&'a SimConfig>,
            libraries: Option<&'a Libraries>,
            required: &'a [&'static str],
            verdict: Verdict,
            exit_code: u32,
            checks: &'a [Check],
            versions: &'a VersionsReport,
            dpacc: &'a DpaccReport,
            devices: &'a [DeviceEntry],
            devices_error: Option<&'a str>,
            symbols: &'a SymbolsReport,
            rdmi: &'a RdmiReport,
            bindings_check: &'a BindingsCheck,
        }
        let (devices, devices_error) = match &self.devices {
            Ok(list) => (list.as_slice(), None),
            Err(e) => (&[][..], Some(e.as_str())),
        };
        Document {
            schema_version: SCHEMA_VERSION,
            tool: "doca-doctor",
            tool_version: env!("CARGO_PKG_VERSION"),
            backend: self.backend,
            bindings: Bindings {
                dpa: &self.bindings[0],
                rdmi: &self.bindings[1],
            },
            sim_profile: self.sim_profile.as_deref(),
            sim: self.sim.as_ref(),
            libraries: self.libraries.as_ref(),
            required: &self.required,
            verdict: worst(&self.checks),
            exit_code: u32::from(self.exit_code() != 0),
            checks: &self.checks,
            versions: &self.versions,
            dpacc: &self.dpacc,
            devices,
            devices_error,
            symbols: &self.symbols,
            rdmi: &self.rdmi,
            bindings_check: &self.bindings_check,
        }
        .serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use serde_json::Value;

    use super::super::bindings::{NoInstall, Outcome, SetResult};
    use super::super::devices::Limits;
    use super::super::facts::{Loaded, Searched};
    use super::super::symbols::Row;
    use super::super::versions::Versions;
    use super::*;

    /// A report with every optional part present: a device with limits and one
    /// whose limits failed, the sim's configuration, the libraries.
    fn full() -> Report {
        let limits = Limits {
            max_threads_per_kernel: 190,
            kernel_max_run_time_s: 12,
            cores: 12,
            eus_per_core: 16,
            eus_available: 190,
        };
        let device = |limits| DeviceEntry {
            pci_addr: "0000:03:00.0".into(),
            ibdev_name: "mlx5_0".into(),
            iface_name: "p0".into(),
            has_dpa: true,
            limits: Some(limits),
        };
        Report {
            backend: "sim",
            bindings: ["committed".into(), "committed".into()],
            sim_profile: Some("/p".into()),
            sim: Some(SimConfig {
                profile_source: "DOCA_SIM_PROFILE=/p".into(),
                config_error: Some("bad".into()),
            }),
            libraries: Some(Libraries {
                loaded: vec![Loaded {
                    name: "libdoca_common.so".into(),
                    path: "/l/libdoca_common.so".into(),
                }],
                missing: vec!["libdoca_dpa.so".into()],
                optional_missing: vec!["libdoca_rdmi.so".into()],
                searched: vec![Searched {
                    dir: "/l".into(),
                    from: "LD_LIBRARY_PATH",
                }],
                errors: vec!["/x: not an ELF file".into()],
                pkg_config_error: Some("not found".into()),
            }),
            required: vec!["dpa"],
            checks: vec![
                Check::ok("backend", true, "s"),
                Check::problem("dpa", true, "s", "f"),
            ],
            versions: VersionsReport {
                versions: Versions {
                    header: "3.3.0001".into(),
                    build: vec![("doca-dpa-sys".into(), "3.3.0001".into())],
                    pkg_config: vec![("doca-dpa".into(), "3.3.0001".into())],
                    runtime: Some("3.3.0001".into()),
                },
                matched: Some(true),
            },
            dpacc: DpaccReport {
                needed: true,
                path: Some("/d/dpacc".into()),
                found_by: Some("PATH"),
                version: Some("1.12.0.26".into()),
                doca_version: "3.3.0001".into(),
                doca_release: Some("3.3".into()),
                pairing: Some("known"),
                known_dpacc: Some("1.12.0.26"),
                install_dpacc: Some("/opt/mellanox/doca/tools/dpacc".into()),
                error: Some("e".into()),
            },
            devices: Ok(vec![device(Ok(limits)), device(Err("e".into()))]),
            symbols: SymbolsReport {
                rows: vec![Row {
                    source: "doca-dpa",
                    name: "doca_dpa_create",
                    header: "doca_dpa.h",
                    marker: "EXPERIMENTAL",
                    declared: true,
                    exported: Some(true),
                    usable: true,
                }],
                missing: vec!["doca_dpa_destroy"],
                unchecked: vec!["doca_dpa_start"],
            },
            rdmi: RdmiReport {
                absent_reason: Some("no doca-rdmi.pc".into()),
            },
            bindings_check: BindingsCheck {
                include_dirs: vec!["/opt/mellanox/doca/include".into()],
                no_install: None,
                sets: vec![
                    SetResult {
                        set: "dpa",
                        result: Outcome::Accepted,
                        checked: Some(456),
                        message: None,
                    },
                    SetResult {
                        set: "rdmi",
                        result: Outcome::Refused,
                        checked: None,
                        message: Some("differing items: doca_rdmi_x".into()),
                    },
                ],
            },
        }
    }

    /// The same with every optional part absent.
    fn bare() -> Report {
        let mut r = full();
        r.sim_profile = None;
        r.sim = None;
        r.libraries = None;
        r.versions.versions.runtime = None;
        r.versions.matched = None;
        r.dpacc = DpaccReport {
            needed: false,
            path: None,
            found_by: None,
            version: None,
            doca_version: String::new(),
            doca_release: None,
            pairing: None,
            known_dpacc: None,
            install_dpacc: None,
            error: None,
        };
        r.devices = Err("no list".into());
        r.symbols.rows[0].exported = None;
        r.rdmi.absent_reason = None;
        r.bindings_check = BindingsCheck {
            include_dirs: Vec::new(),
            no_install: Some(NoInstall::NotFound("DOCA was not found".into())),
            sets: Vec::new(),
        };
        r
    }

    /// Every path of `v` (`a.b`, `a[].b` for the elements of an array) with the JSON
    /// types seen there.
    fn shape(v: &Value, path: &str, out: &mut BTreeMap<String, BTreeSet<&'static str>>) {
        let kind = match v {
            Value::Null => "null",
            Value::Bool(_) => "bool",
            Value::Number(n) if n.is_u64() => "uint",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(items) => {
                for item in items {
                    shape(item, &format!("{path}[]"), out);
                }
                "array"
            }
            Value::Object(fields) => {
                for (k, item) in fields {
                    let sub = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    shape(item, &sub, out);
                }
                "object"
            }
        };
        out.entry(path.to_owned()).or_default().insert(kind);
    }

    /// Schema version 3, pinned: every field's name and JSON type (and order, at the
    /// top level). A change here is a change of the schema: add fields freely, raise
    /// SCHEMA_VERSION for anything else, and update README.md.
    #[test]
    fn the_schema_is_pinned() {
        let mut types = BTreeMap::new();
        let mut top_order = Vec::new();
        // The sim and libraries objects with their own optional fields absent.
        let mut partial = full();
        if let Some(sim) = &mut partial.sim {
            sim.config_error = None;
        }
        if let Some(libs) = &mut partial.libraries {
            libs.pkg_config_error = None;
        }
        for r in [full(), partial, bare()] {
            let v = serde_json::to_value(&r).unwrap();
            shape(&v, "", &mut types);
            // serde_json's Value sorts its keys: the order is read from the text.
            let text = serde_json::to_string_pretty(&r).unwrap();
            top_order = text
                .lines()
                .filter_map(|l| l.strip_prefix("  \""))
                .filter_map(|l| l.split('"').next())
                .map(str::to_owned)
                .collect::<Vec<_>>();
        }
        let mut got: Vec<String> = types
            .iter()
            .filter(|(path, _)| !path.is_empty())
            .map(|(path, kinds)| {
                let kinds: Vec<&str> = kinds.iter().copied().collect();
                format!("{path}: {}", kinds.join("|"))
            })
            .collect();
        got.sort();
        let pinned = [
            "backend: string",
            "bindings.dpa: string",
            "bindings.rdmi: string",
            "bindings: object",
            "bindings_check.include_dirs: array",
            "bindings_check.include_dirs[]: string",
            "bindings_check.install_error: null|string",
            "bindings_check.sets: array",
            "bindings_check.sets[].checked: null|uint",
            "bindings_check.sets[].message: null|string",
            "bindings_check.sets[].result: string",
            "bindings_check.sets[].set: string",
            "bindings_check.sets[]: object",
            "bindings_check: object",
            "checks: array",
            "checks[].fix: null|string",
            "checks[].id: string",
            "checks[].required: bool",
            "checks[].summary: string",
            "checks[].verdict: string",
            "checks[]: object",
            "devices: array",
            "devices[].has_dpa: bool",
            "devices[].ibdev_name: string",
            "devices[].iface_name: string",
            "devices[].limits.cores: uint",
            "devices[].limits.eus_available: uint",
            "devices[].limits.eus_per_core: uint",
            "devices[].limits.kernel_max_run_time_s: uint",
            "devices[].limits.max_threads_per_kernel: uint",
            "devices[].limits: null|object",
            "devices[].limits_error: null|string",
            "devices[].pci_addr: string",
            "devices[]: object",
            "devices_error: null|string",
            "dpacc.doca_release: null|string",
            "dpacc.doca_version: string",
            "dpacc.error: null|string",
            "dpacc.found_by: null|string",
            "dpacc.install_dpacc: null|string",
            "dpacc.known_dpacc: null|string",
            "dpacc.needed: bool",
            "dpacc.pairing: null|string",
            "dpacc.path: null|string",
            "dpacc.version: null|string",
            "dpacc: object",
            "exit_code: uint",
            "libraries.errors: array",
            "libraries.errors[]: string",
            "libraries.loaded: array",
            "libraries.loaded[].name: string",
            "libraries.loaded[].path: string",
            "libraries.loaded[]: object",
            "libraries.missing: array",
            "libraries.missing[]: string",
            "libraries.optional_missing: array",
            "libraries.optional_missing[]: string",
            "libraries.pkg_config_error: null|string",
            "libraries.searched: array",
            "libraries.searched[].dir: string",
            "libraries.searched[].from: string",
            "libraries.searched[]: object",
            "libraries: null|object",
            "rdmi.available: bool",
            "rdmi.reason: null|string",
            "rdmi: object",
            "required: array",
            "required[]: string",
            "schema_version: uint",
            "sim.config_error: null|string",
            "sim.profile_source: string",
            "sim: null|object",
            "sim_profile: null|string",
            "symbols.declared: uint",
            "symbols.experimental: uint",
            "symbols.exported: uint",
            "symbols.missing: array",
            "symbols.missing[]: string",
            "symbols.rows: array",
            "symbols.rows[].crate: string",
            "symbols.rows[].declared: bool",
            "symbols.rows[].exported: bool|null",
            "symbols.rows[].header: string",
            "symbols.rows[].marker: string",
            "symbols.rows[].name: string",
            "symbols.rows[].usable: bool",
            "symbols.rows[]: object",
            "symbols.stable: uint",
            "symbols.total: uint",
            "symbols.unchecked: array",
            "symbols.unchecked[]: string",
            "symbols.usable: uint",
            "symbols: object",
            "tool: string",
            "tool_version: string",
            "verdict: string",
            "versions.build: array",
            "versions.build[].crate: string",
            "versions.build[].version: string",
            "versions.build[]: object",
            "versions.doca_version_h: string",
            "versions.match: bool|null",
            "versions.pkg_config: array",
            "versions.pkg_config[].module: string",
            "versions.pkg_config[].version: string",
            "versions.pkg_config[]: object",
            "versions.runtime: null|string",
            "versions: object",
        ];
        assert_eq!(got, pinned, "the JSON schema changed");
        assert_eq!(
            top_order,
            [
                "schema_version",
                "tool",
                "tool_version",
                "backend",
                "bindings",
                "sim_profile",
                "sim",
                "libraries",
                "required",
                "verdict",
                "exit_code",
                "checks",
                "versions",
                "dpacc",
                "devices",
                "devices_error",
                "symbols",
                "rdmi",
                "bindings_check",
            ]
        );
    }

    #[test]
    fn values_follow_the_report() {
        let v = serde_json::to_value(full()).unwrap();
        assert_eq!(v["schema_version"], SCHEMA_VERSION);
        assert_eq!(v["verdict"], "fail");
        assert_eq!(v["exit_code"], 1);
        assert_eq!(v["symbols"]["total"], 1);
        assert_eq!(v["symbols"]["experimental"], 1);
        assert_eq!(v["symbols"]["stable"], 0);
        assert_eq!(v["devices"][1]["limits_error"], "e");
        let v = serde_json::to_value(bare()).unwrap();
        assert_eq!(v["devices"], Value::Array(vec![]));
        assert_eq!(v["devices_error"], "no list");
        assert_eq!(v["symbols"]["exported"], 0);
    }
}
