//! Tests of the parent module.

use super::*;
use crate::version::DocaVersion;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn install() -> Install {
    Install {
        modules: BTreeMap::new(),
        version: DocaVersion::new(3, 0, 58),
        version_header: None,
        pkg_config_path: Default::default(),
        warnings: vec![],
    }
}

fn not_found() -> DiscoveryError {
    DiscoveryError::NotFound {
        searched: vec!["doca-common".into()],
        missing: vec!["doca-common".into()],
        pkg_config_path: None,
        dirs_tried: vec![PathBuf::from("/opt/mellanox/doca/lib/pkgconfig")],
        details: vec![],
    }
}

fn mismatch() -> DiscoveryError {
    DiscoveryError::VersionMismatch {
        found: vec![
            ("doca-common".into(), "3.0.0058".into()),
            ("doca-dpa".into(), "2.10.0078".into()),
        ],
    }
}

fn old() -> DiscoveryError {
    DiscoveryError::OldInstall {
        found: "the umbrella module `doca`".into(),
        version: Some(DocaVersion::new(2, 5, 108)),
        location: "/opt/mellanox/doca/lib/x86_64-linux-gnu/pkgconfig/doca.pc".into(),
        reason: "only doca.pc".into(),
    }
}

/// Runs `choose` with `vars`, the feature flag and a probe result; returns the choice
/// and whether the probe ran.
fn run(
    vars: &[(&str, &str)],
    sim_feature: bool,
    result: Result<Install, DiscoveryError>,
) -> (Result<Choice, BackendError>, bool) {
    let env = EnvReader::fixed(vars.iter().copied());
    let probed = Cell::new(false);
    let choice = choose(&env, sim_feature, || {
        probed.set(true);
        result
    });
    (choice, probed.get())
}

#[test]
fn docs_rs_wins_and_never_probes() {
    for vars in [
        &[("DOCS_RS", "1")][..],
        &[("DOCS_RS", "true"), ("DOCA_BACKEND", "hardware")][..],
        &[("DOCS_RS", "1"), ("DOCA_BACKEND", "nonsense")][..],
    ] {
        let (c, probed) = run(vars, false, Err(not_found()));
        let c = c.unwrap();
        assert_eq!(c.backend, Backend::Docs);
        assert!(c.install.is_none());
        assert!(!probed);
    }
}

/// `DOCS_RS` set to `0`, empty or `false` is not a documentation build (red team
/// round 5: it chose one over `DOCA_BACKEND=sim`, linking nothing).
#[test]
fn docs_rs_off_is_not_a_documentation_build() {
    for value in ["0", "", "false", "no"] {
        let (c, _) = run(
            &[("DOCS_RS", value), ("DOCA_BACKEND", "sim")],
            true,
            Err(not_found()),
        );
        assert_eq!(c.unwrap().backend, Backend::Sim, "DOCS_RS={value:?}");
    }
}

#[test]
fn explicit_hardware() {
    let (c, probed) = run(&[("DOCA_BACKEND", "hardware")], true, Ok(install()));
    assert!(probed);
    let c = c.unwrap();
    assert_eq!(c.backend, Backend::Hardware);
    assert!(c.install.is_some());
    for e in [not_found(), mismatch(), old()] {
        let (c, _) = run(&[("DOCA_BACKEND", "hardware")], true, Err(e.clone()));
        let err = c.unwrap_err();
        assert_eq!(
            err,
            BackendError::Discovery {
                requested: "DOCA_BACKEND=hardware".into(),
                error: Box::new(e.clone())
            }
        );
        // The full actionable message is in the error text.
        assert!(err.to_string().contains(&e.to_string()));
        // And the discovery error is its source, for code that walks the chain.
        let source = std::error::Error::source(&err).expect("a source");
        let source = source.downcast_ref::<Box<DiscoveryError>>();
        assert_eq!(source.map(|b| &**b), Some(&e));
    }
}

#[test]
fn explicit_sim_never_probes() {
    let (c, probed) = run(&[("DOCA_BACKEND", "sim")], true, Ok(install()));
    assert_eq!(c.unwrap().backend, Backend::Sim);
    assert!(!probed);
}

#[test]
fn sim_without_the_feature_says_what_to_add() {
    let (c, probed) = run(&[("DOCA_BACKEND", "sim")], false, Ok(install()));
    assert!(!probed);
    let err = c.unwrap_err();
    assert_eq!(
        err,
        BackendError::SimNotBuilt {
            requested: "DOCA_BACKEND=sim".into()
        }
    );
    let text = err.to_string();
    assert!(text.contains("features = [\"sim\"]"), "{text}");
    assert!(text.contains("doca-dpa-sys/sim"), "{text}");
}

#[test]
fn auto() {
    let (c, _) = run(&[("DOCA_BACKEND", "auto")], false, Ok(install()));
    assert_eq!(c.unwrap().backend, Backend::Hardware);
    let (c, _) = run(&[("DOCA_BACKEND", "auto")], true, Err(not_found()));
    let c = c.unwrap();
    assert_eq!(c.backend, Backend::Sim);
    assert!(c.install.is_none());
    // Without the feature there is no sim to fall back on.
    let (c, _) = run(&[("DOCA_BACKEND", "auto")], false, Err(not_found()));
    let text = c.unwrap_err().to_string();
    assert!(text.contains("features = [\"sim\"]"), "{text}");
    assert!(text.contains("PKG_CONFIG_PATH"), "{text}");
    for e in [mismatch(), old()] {
        let (c, _) = run(&[("DOCA_BACKEND", " auto ")], true, Err(e));
        let text = c.unwrap_err().to_string();
        assert!(text.contains("unusable"), "{text}");
    }
}

#[test]
fn unset_depends_on_feature() {
    let (c, probed) = run(&[], true, Err(not_found()));
    assert_eq!(c.unwrap().backend, Backend::Sim);
    assert!(!probed);
    let (c, probed) = run(&[], false, Ok(install()));
    assert_eq!(c.unwrap().backend, Backend::Hardware);
    assert!(probed);
    let (c, _) = run(&[("DOCA_BACKEND", "")], false, Err(not_found()));
    let text = c.unwrap_err().to_string();
    assert!(text.contains("features = [\"sim\"]"), "{text}");
    assert!(text.contains("PKG_CONFIG_PATH"), "{text}");
}

#[test]
fn values_are_case_insensitive() {
    for v in ["SIM", "Sim", " sIm "] {
        let (c, probed) = run(&[("DOCA_BACKEND", v)], true, Ok(install()));
        assert_eq!(c.unwrap().backend, Backend::Sim, "{v}");
        assert!(!probed);
    }
    let (c, _) = run(&[("DOCA_BACKEND", "HardWare")], false, Ok(install()));
    assert_eq!(c.unwrap().backend, Backend::Hardware);
    let (c, _) = run(&[("DOCA_BACKEND", "AUTO")], true, Err(not_found()));
    assert_eq!(c.unwrap().backend, Backend::Sim);
}

#[test]
fn the_not_found_message_names_the_one_switch() {
    let (c, _) = run(&[], false, Err(not_found()));
    let text = c.unwrap_err().to_string();
    for needle in [
        "the `sim` feature of `doca`",
        "features = [\"sim\"]",
        "DOCA_BACKEND=sim alone cannot",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
}

#[test]
fn invalid_value_lists_valid_ones() {
    let (c, probed) = run(&[("DOCA_BACKEND", "gpu")], true, Ok(install()));
    assert!(!probed);
    let text = c.unwrap_err().to_string();
    for v in ["\"gpu\"", "hardware", "sim", "auto"] {
        assert!(text.contains(v), "{v} missing: {text}");
    }
}

#[test]
fn reads_are_recorded() {
    let env = EnvReader::fixed([("DOCA_BACKEND", "sim")]);
    let _ = choose(&env, false, || Ok(install()));
    assert!(env.was_read("DOCS_RS") && env.was_read("DOCA_BACKEND"));
}

#[test]
fn backend_strings() {
    for b in Backend::ALL {
        assert_eq!(Backend::parse(b.as_str()), Some(b));
        assert_eq!(b.to_string(), b.as_str());
    }
    assert_eq!(Backend::parse("auto"), None);
}
