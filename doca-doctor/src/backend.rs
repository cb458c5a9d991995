//! What the build chose: the backend, the sim's configuration, and whether RDMI
//! is in it.

use super::check::Check;
use super::facts::Libraries;
use serde::{Serialize, Serializer};

/// The software DPA's view of its configuration (sim builds only; JSON: the `sim`
/// object, these fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SimConfig {
    /// Where the device profile came from (`doca_sim::profile_source`).
    pub(crate) profile_source: String,
    /// Why `DOCA_SIM_PROFILE` / `DOCA_SIM_FAULTS` / `DOCA_SIM_MEMCHECK` were refused
    /// (`doca_sim::config_error`); while refused, every DOCA call fails with
    /// `DOCA_ERROR_BAD_CONFIG`.
    pub(crate) config_error: Option<String>,
}

/// The `backend` check. `profile` is `DOCA_SIM_PROFILE` and `sim` the sim's
/// configuration (both used on the sim only). With `--require hardware`, a sim
/// build fails; a refused sim configuration always fails.
pub(crate) fn evaluate_backend(
    backend: &str,
    profile: Option<&str>,
    sim: Option<&SimConfig>,
    require_hw: bool,
) -> Check {
    const ID: &str = "backend";
    if let Some(reason) = sim.and_then(|s| s.config_error.as_deref()) {
        return Check::problem(
            ID,
            true,
            format!("sim: the configuration is refused ({reason}); every DOCA call fails"),
            "fix or unset DOCA_SIM_PROFILE, DOCA_SIM_FAULTS and DOCA_SIM_MEMCHECK",
        );
    }
    match backend {
        "hardware" => Check::ok(
            ID,
            true,
            "hardware: the installed DOCA, found by pkg-config",
        ),
        "sim" => {
            let devices = match profile {
                Some(p) => format!("devices from DOCA_SIM_PROFILE={p}"),
                None => "the default devices".to_owned(),
            };
            let summary = format!("sim: the software DPA (doca-sim), {devices}");
            if require_hw {
                Check::problem(
                    ID,
                    true,
                    summary,
                    "rebuild with DOCA_BACKEND=hardware on a machine where pkg-config finds DOCA \
                     (set PKG_CONFIG_PATH or DOCA_PREFIX)",
                )
            } else {
                Check::ok(ID, false, summary)
            }
        }
        other => Check::problem(
            ID,
            true,
            format!("{other}: nothing is linked, DOCA cannot be called"),
            "rebuild without DOCS_RS set, with DOCA_BACKEND=hardware or sim",
        ),
    }
}

/// The `backend` check of a loaded build: always required; a failure when a
/// required DOCA library could not be loaded (nothing else can be asked then).
pub(crate) fn evaluate_libraries(libs: &Libraries) -> Check {
    if libs.missing.is_empty() {
        let paths: Vec<&str> = libs.loaded.iter().map(|l| l.path.as_str()).collect();
        return Check::ok(
            "backend",
            true,
            format!(
                "hardware: the installed DOCA, loaded at run time ({})",
                paths.join(", ")
            ),
        );
    }
    let mut summary = format!(
        "hardware: DOCA's libraries were not found or not loadable ({}); looked in {}",
        libs.missing.join(", "),
        if libs.searched.is_empty() {
            "no directory".to_owned()
        } else {
            libs.searched_list()
        }
    );
    summary.push_str(" and the dynamic loader's default search");
    if !libs.errors.is_empty() {
        summary.push_str(&format!("; {}", libs.errors.join("; ")));
    }
    Check::problem(
        "backend",
        true,
        summary,
        "install DOCA (its libdoca_common and libdoca_dpa), or point PKG_CONFIG_PATH, \
         DOCA_PREFIX or LD_LIBRARY_PATH at the install",
    )
}

/// RDMI availability (`doca::rdmi::availability` in a linked build; whether
/// `libdoca_rdmi.so` loaded in a loaded one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RdmiReport {
    /// Why RDMI is absent, `None` when available.
    pub(crate) absent_reason: Option<String>,
}

/// The `rdmi` object of the JSON report.
impl Serialize for RdmiReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Rdmi<'a> {
            available: bool,
            reason: Option<&'a str>,
        }
        Rdmi {
            available: self.absent_reason.is_none(),
            reason: self.absent_reason.as_deref(),
        }
        .serialize(s)
    }
}

impl RdmiReport {
    /// The `rdmi` check; required by `--require rdmi`.
    pub(crate) fn evaluate(&self, required: bool) -> Check {
        const ID: &str = "rdmi";
        match &self.absent_reason {
            None => Check::ok(ID, required, "available"),
            Some(reason) => Check::problem(
                ID,
                required,
                format!("absent: {reason}"),
                "install a DOCA release that ships RDMI (doca-rdmi.pc and doca-verbs.pc), then \
                 rebuild (cargo clean -p doca-rdmi-sys)",
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::Verdict;
    use super::*;

    #[test]
    fn backends() {
        let fine = SimConfig {
            profile_source: "the default profile".into(),
            config_error: None,
        };
        assert_eq!(
            evaluate_backend("hardware", None, None, true).verdict,
            Verdict::Ok
        );
        let c = evaluate_backend("sim", Some("/tmp/p"), Some(&fine), false);
        assert_eq!(c.verdict, Verdict::Ok);
        assert!(c.summary.contains("DOCA_SIM_PROFILE=/tmp/p"));
        let c = evaluate_backend("sim", None, Some(&fine), true);
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c.fix.unwrap_or_default().contains("DOCA_BACKEND=hardware"));
        assert_eq!(
            evaluate_backend("docs", None, None, false).verdict,
            Verdict::Fail
        );
        let refused = SimConfig {
            config_error: Some("DOCA_SIM_FAULTS: unknown function `doca_nope`".into()),
            ..fine
        };
        let c = evaluate_backend("sim", None, Some(&refused), false);
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c.required);
        assert!(c.summary.contains("doca_nope"), "{}", c.summary);
        assert!(c.fix.unwrap_or_default().contains("DOCA_SIM_FAULTS"));
        let json = serde_json::to_value(&refused).unwrap();
        assert!(json["config_error"].as_str().unwrap().contains("doca_nope"));
    }

    #[test]
    fn rdmi() {
        let yes = RdmiReport {
            absent_reason: None,
        };
        assert_eq!(yes.evaluate(true).verdict, Verdict::Ok);
        let no = RdmiReport {
            absent_reason: Some("no doca-rdmi.pc".into()),
        };
        assert_eq!(no.evaluate(false).verdict, Verdict::Warn);
        let c = no.evaluate(true);
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c.summary.contains("no doca-rdmi.pc"));
        assert_eq!(
            serde_json::to_value(&no).unwrap(),
            serde_json::json!({"available": false, "reason": "no doca-rdmi.pc"})
        );
        assert_eq!(
            serde_json::to_value(&yes).unwrap(),
            serde_json::json!({"available": true, "reason": null})
        );
    }
}
