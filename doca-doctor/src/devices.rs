//! The devices DOCA lists and, for those with a DPA, the DPA limits.
//!
//! Limits need a DPA context: the doctor creates one per DPA device
//! (`doca_dpa_create`), reads the limits without starting it (the five
//! `doca_dpa_get_*` queries) and destroys it (`doca_dpa_destroy`). No
//! application is needed. The calls are made by `loaded` or `linked`; this
//! module holds what they found and the checks.

use super::check::{Check, Verdict};
use serde::{Serialize, Serializer};

/// The limits of one DPA (JSON: `limits` of a device, these fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct Limits {
    /// `doca_dpa_get_max_threads_per_kernel`.
    pub(crate) max_threads_per_kernel: u32,
    /// `doca_dpa_get_kernel_max_run_time`, in seconds.
    pub(crate) kernel_max_run_time_s: u64,
    /// `doca_dpa_get_core_num`.
    pub(crate) cores: u32,
    /// `doca_dpa_get_num_eus_per_core`.
    pub(crate) eus_per_core: u32,
    /// `doca_dpa_get_total_num_eus_available`.
    pub(crate) eus_available: u32,
}

/// One device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DeviceEntry {
    /// PCI address.
    pub(crate) pci_addr: String,
    /// IB device name (`mlx5_0`).
    pub(crate) ibdev_name: String,
    /// Network interface name.
    pub(crate) iface_name: String,
    /// `doca_dpa_cap_is_supported`.
    pub(crate) has_dpa: bool,
    /// The limits (`None` without a DPA), or why they could not be read.
    pub(crate) limits: Option<Result<Limits, String>>,
}

impl DeviceEntry {
    /// A short name: `mlx5_0 (0000:03:00.0)`.
    pub(crate) fn label(&self) -> String {
        format!("{} ({})", self.ibdev_name, self.pci_addr)
    }
}

/// One element of the `devices` array of the JSON report: the limits, or `null`
/// and the reason in `limits_error`.
impl Serialize for DeviceEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Device<'a> {
            pci_addr: &'a str,
            ibdev_name: &'a str,
            iface_name: &'a str,
            has_dpa: bool,
            limits: Option<&'a Limits>,
            limits_error: Option<&'a str>,
        }
        Device {
            pci_addr: &self.pci_addr,
            ibdev_name: &self.ibdev_name,
            iface_name: &self.iface_name,
            has_dpa: self.has_dpa,
            limits: self.limits.as_ref().and_then(|l| l.as_ref().ok()),
            limits_error: self
                .limits
                .as_ref()
                .and_then(|l| l.as_ref().err())
                .map(String::as_str),
        }
        .serialize(s)
    }
}

const DRIVER_FIX: &str = "check that the mlx5 driver is loaded and the NIC is visible \
                          (`doca_caps --list-devs`, `ibv_devices`)";

/// The `devices` check: the list could be made and is not empty.
pub(crate) fn evaluate_devices(list: &Result<Vec<DeviceEntry>, String>, sim: bool) -> Check {
    const ID: &str = "devices";
    match list {
        Err(e) => Check::with(
            ID,
            Verdict::Fail,
            true,
            format!("listing failed: {e}"),
            DRIVER_FIX,
        ),
        Ok(l) if l.is_empty() => Check::with(
            ID,
            Verdict::Warn,
            true,
            "DOCA lists no device",
            if sim {
                "add a [device] section to the DOCA_SIM_PROFILE file, or unset it for the default \
                 devices"
            } else {
                DRIVER_FIX
            },
        ),
        Ok(l) => {
            let with_dpa = l.iter().filter(|d| d.has_dpa).count();
            let names: Vec<String> = l.iter().map(DeviceEntry::label).collect();
            Check::ok(
                ID,
                true,
                format!(
                    "{} device{}, {with_dpa} with a DPA: {}",
                    l.len(),
                    if l.len() == 1 { "" } else { "s" },
                    names.join(", ")
                ),
            )
        }
    }
}

/// The `dpa` check: a device with a DPA exists and its limits can be read.
/// Required by `--require dpa`; otherwise problems only warn.
pub(crate) fn evaluate_dpa(
    list: &Result<Vec<DeviceEntry>, String>,
    required: bool,
    sim: bool,
) -> Check {
    const ID: &str = "dpa";
    let devices = match list {
        Err(_) => {
            return Check::problem(ID, required, "the devices could not be listed", DRIVER_FIX)
        }
        Ok(l) => l,
    };
    let with_dpa: Vec<&DeviceEntry> = devices.iter().filter(|d| d.has_dpa).collect();
    if with_dpa.is_empty() {
        return Check::problem(
            ID,
            required,
            "no device has a DPA",
            if sim {
                "set `dpa = true` on a [device] of the DOCA_SIM_PROFILE file (or unset it: the \
                 default profile has a BlueField-3)"
            } else {
                "run on a host with a BlueField-3 or ConnectX-7+ (BlueField-2 has no DPA), with \
                 the DPA enabled in its firmware"
            },
        );
    }
    let failed: Vec<String> = with_dpa
        .iter()
        .filter_map(|d| match &d.limits {
            Some(Err(e)) => Some(format!("{}: {e}", d.label())),
            _ => None,
        })
        .collect();
    let readable: Vec<&&DeviceEntry> = with_dpa
        .iter()
        .filter(|d| matches!(d.limits, Some(Ok(_))))
        .collect();
    let fix = "check the DPA firmware and driver (`doca_caps --list-devs`, DOCA_LOG_LEVEL=trace); \
               creating a DPA context must work for this user";
    if readable.is_empty() {
        return Check::problem(
            ID,
            required,
            format!("DPA limits could not be read: {}", failed.join("; ")),
            fix,
        );
    }
    let summary = readable
        .iter()
        .filter_map(|d| match d.limits {
            Some(Ok(l)) => Some(format!(
                "{}: {} threads/kernel, {} s max run time, {} cores x {} EUs, {} EUs available",
                d.label(),
                l.max_threads_per_kernel,
                l.kernel_max_run_time_s,
                l.cores,
                l.eus_per_core,
                l.eus_available
            )),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("; ");
    if failed.is_empty() {
        Check::ok(ID, required, summary)
    } else {
        Check::with(
            ID,
            Verdict::Warn,
            required,
            format!("{summary}; limits unreadable on {}", failed.join("; ")),
            fix,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(name: &str, limits: Option<Result<Limits, String>>) -> DeviceEntry {
        DeviceEntry {
            pci_addr: format!("0000:{name}:00.0"),
            ibdev_name: format!("mlx5_{name}"),
            iface_name: "p0".into(),
            has_dpa: limits.is_some(),
            limits,
        }
    }

    const L: Limits = Limits {
        max_threads_per_kernel: 190,
        kernel_max_run_time_s: 12,
        cores: 12,
        eus_per_core: 16,
        eus_available: 190,
    };

    #[test]
    fn devices_check() {
        let ok = Ok(vec![dev("03", Some(Ok(L))), dev("81", None)]);
        let c = evaluate_devices(&ok, true);
        assert_eq!(c.verdict, Verdict::Ok);
        assert!(c.summary.contains("2 devices, 1 with a DPA"));
        assert!(c.summary.contains("mlx5_81 (0000:81:00.0)"));
        assert_eq!(evaluate_devices(&Ok(vec![]), true).verdict, Verdict::Warn);
        assert_eq!(
            evaluate_devices(&Err("boom".into()), false).verdict,
            Verdict::Fail
        );
    }

    #[test]
    fn dpa_check_by_requirement() {
        let none = Ok(vec![dev("81", None)]);
        assert_eq!(evaluate_dpa(&none, false, true).verdict, Verdict::Warn);
        let c = evaluate_dpa(&none, true, true);
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c.fix.unwrap_or_default().contains("dpa = true"));
        let good = Ok(vec![dev("03", Some(Ok(L)))]);
        let c = evaluate_dpa(&good, true, false);
        assert_eq!(c.verdict, Verdict::Ok);
        assert!(c.summary.contains("190 threads/kernel"));
        let broken = Ok(vec![dev("03", Some(Err("doca_dpa_create failed".into())))]);
        assert_eq!(evaluate_dpa(&broken, true, false).verdict, Verdict::Fail);
        assert_eq!(evaluate_dpa(&broken, false, false).verdict, Verdict::Warn);
        let mixed = Ok(vec![
            dev("03", Some(Ok(L))),
            dev("04", Some(Err("no".into()))),
        ]);
        assert_eq!(evaluate_dpa(&mixed, true, false).verdict, Verdict::Warn);
        assert_eq!(
            evaluate_dpa(&Err("x".into()), true, false).verdict,
            Verdict::Fail
        );
    }

    #[test]
    fn device_json() {
        let json = |d: DeviceEntry| serde_json::to_value(d).unwrap();
        let v = json(dev("03", Some(Ok(L))));
        assert_eq!(v["limits"]["kernel_max_run_time_s"], 12);
        assert_eq!(v["limits_error"], serde_json::Value::Null);
        let v = json(dev("81", None));
        assert_eq!(v["limits"], serde_json::Value::Null);
        assert_eq!(v["limits_error"], serde_json::Value::Null);
        let v = json(dev("04", Some(Err("e".into()))));
        assert_eq!(v["limits"], serde_json::Value::Null);
        assert_eq!(v["limits_error"], "e");
    }
}
