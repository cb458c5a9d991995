//! The facts of a linked build (the `sim` feature): what the `doca` crates this
//! program was built with say. Makes DOCA calls: `doca_version_runtime`, the
//! device list, a DPA context per DPA device (created, never started).

use doca::dpa::{DeviceInfo, DpaBuilder};
use doca::rdmi::Availability;

use super::backend::{RdmiReport, SimConfig};
use super::devices::{DeviceEntry, Limits};
use super::facts::Facts;
use super::symbols::Row;
use super::versions::{c_constant, Versions};

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

fn read_limits(info: &DeviceInfo) -> Result<Limits, String> {
    let device = info.open().map_err(|e| e.to_string())?;
    let builder = DpaBuilder::new(&device).map_err(|e| e.to_string())?;
    let l = builder.limits().map_err(|e| e.to_string())?;
    Ok(Limits {
        max_threads_per_kernel: l.max_threads_per_kernel,
        // Whole seconds, rounded up, as `doca_dpa_get_kernel_max_run_time` reports
        // them (the software DPA gives doca-dpa the exact limit).
        kernel_max_run_time_s: l.kernel_max_run_time.as_secs()
            + u64::from(l.kernel_max_run_time.subsec_nanos() > 0),
        cores: l.cores,
        eus_per_core: l.eus_per_core,
        eus_available: l.eus_available,
    })
}

/// Lists the devices (`doca::dpa::devices`) and reads the limits of each DPA.
fn devices() -> Result<Vec<DeviceEntry>, String> {
    let infos = doca::dpa::devices().map_err(|e| e.to_string())?;
    Ok(infos
        .iter()
        .map(|info| DeviceEntry {
            pci_addr: info.pci_addr.clone(),
            ibdev_name: info.ibdev_name.clone(),
            iface_name: info.iface_name.clone(),
            has_dpa: info.has_dpa,
            limits: info.has_dpa.then(|| read_limits(info)),
        })
        .collect())
}

/// The audit rows of this build: `doca::dpa::build_info::SYMBOLS` and the rows of
/// `doca::rdmi::build_info::SYMBOLS` that it lacks.
fn symbols() -> Vec<Row> {
    let mut rows: Vec<Row> = doca::dpa::build_info::SYMBOLS
        .iter()
        .map(|s| Row {
            source: "doca-dpa",
            name: s.name,
            header: s.header,
            marker: s.marker,
            declared: s.declared,
            exported: s.exported,
            usable: s.usable,
        })
        .collect();
    for s in doca::rdmi::build_info::SYMBOLS {
        if rows.iter().any(|r| r.name == s.name) {
            continue;
        }
        rows.push(Row {
            source: "doca-rdmi",
            name: s.name,
            header: s.header,
            marker: s.marker,
            declared: s.declared,
            exported: s.exported,
            usable: s.usable,
        });
    }
    rows
}

/// What the sim linked into this program says (sim builds only: elsewhere doca-sim
/// is not in the build).
#[cfg(doca_backend = "sim")]
fn sim_config() -> Option<SimConfig> {
    Some(SimConfig {
        profile_source: doca::sim::profile_source().to_string(),
        config_error: doca::sim::config_error(),
    })
}

#[cfg(not(doca_backend = "sim"))]
fn sim_config() -> Option<SimConfig> {
    None
}

/// Gathers the facts of this build.
pub(crate) fn gather() -> Facts {
    let backend = doca::dpa::build_info::BACKEND;
    let sim = backend == "sim";
    let runtime = doca::dpa::runtime_version();
    Facts {
        backend,
        bindings: [
            doca::sys::build_info::BINDINGS.to_owned(),
            doca::rdmi::sys::build_info::BINDINGS.to_owned(),
        ],
        sim_profile: std::env::var_os("DOCA_SIM_PROFILE")
            .filter(|_| sim)
            .map(|p| p.to_string_lossy().into_owned()),
        sim: if sim { sim_config() } else { None },
        libraries: None,
        refusal: None,
        versions: Versions {
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
        doca_version: doca::dpa::build_info::DOCA_VERSION.to_owned(),
        prefix: doca::sys::build_info::DOCA_PREFIX.map(str::to_owned),
        devices: devices(),
        symbols: symbols(),
        rdmi: RdmiReport {
            absent_reason: match doca::rdmi::availability() {
                Availability::Available => None,
                Availability::Absent(reason) => Some(reason),
                // A state added after this doctor was written is not `Available`.
                other => Some(format!("{other:?}")),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn this_build_has_rows() {
        let rows = super::symbols();
        assert!(rows.iter().any(|r| r.name == "doca_dpa_create"));
        assert!(rows.iter().any(|r| r.source == "doca-rdmi"));
    }
}
