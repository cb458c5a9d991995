//! Tests of the parent module.

use super::*;
use crate::testutil::TempDir;

fn setup() -> (TempDir, Vec<(String, String)>) {
    let dir = TempDir::new("safe");
    let audit = format!(
        "{}\n\
             doca_dpa_create\tdoca_dpa.h\tEXPERIMENTAL\tyes\tyes\n\
             doca_error_get_name\tdoca_error.h\tSTABLE\tyes\tyes\n\
             doca_dpa_gone\tdoca_dpa.h\tSTABLE\tyes\tno\n\
             doca_dpa_unknown\tdoca_dpa.h\tSTABLE\tyes\tunknown\n\
             doca_rdmi_connection_as_ctx\t-\tUNMARKED\tno\tyes\n",
        crate::audit::TSV_HEADER
    );
    let audit_path = dir.write("audit.tsv", &audit);
    let universe = dir.write("universe.txt", "doca_future_fn\ndoca_dpa_create\n");
    let vars = vec![
        ("DEP_DOCA_DPA_BACKEND".to_owned(), "sim".to_owned()),
        ("DEP_DOCA_DPA_VERSION".to_owned(), "3.0.0058".to_owned()),
        (
            "DEP_DOCA_DPA_AUDIT".to_owned(),
            audit_path.display().to_string(),
        ),
        (
            "DEP_DOCA_DPA_UNIVERSE".to_owned(),
            universe.display().to_string(),
        ),
        ("DEP_DOCA_DPA_RDMI".to_owned(), "absent".to_owned()),
    ];
    (dir, vars)
}

#[test]
fn experimental_on() {
    let (_dir, mut vars) = setup();
    vars.push(("CARGO_FEATURE_EXPERIMENTAL".into(), "1".into()));
    let env = EnvReader::fixed(vars);
    let p = plan(&env, &["DOCA_DPA"]).unwrap();
    let d = &p.directives;
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_create\""));
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_error_get_name\""));
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_unknown\""));
    assert!(!d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_gone\""));
    assert!(d.contains("cargo::rustc-cfg=doca_hand_declared=\"doca_rdmi_connection_as_ctx\""));
    assert!(d.contains("cargo::rustc-cfg=doca_backend=\"sim\""));
    assert!(d.contains("cargo::rustc-cfg=doca_ge_3_0"));
    assert!(d.contains("cargo::rustc-cfg=doca_rdmi_absent"));
    let check = d
        .lines()
        .iter()
        .find(|l| l.contains("cfg(doca_sym,"))
        .unwrap();
    assert!(check.contains("\"doca_future_fn\""));
    assert!(p.audit_rs.contains("pub usable: bool"));
    assert!(p.audit_rs.contains("name: \"doca_dpa_create\", header: \"doca_dpa.h\", marker: \"EXPERIMENTAL\", declared: true, exported: Some(true), usable: true"));
    assert!(env.was_read("CARGO_FEATURE_EXPERIMENTAL"));
}

#[test]
fn stable_only() {
    let (_dir, vars) = setup();
    let env = EnvReader::fixed(vars);
    let p = plan(&env, &["DOCA_DPA"]).unwrap();
    let d = &p.directives;
    assert!(!d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_create\""));
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_error_get_name\""));
    assert!(!d
        .lines()
        .iter()
        .any(|l| l.starts_with("cargo::rustc-cfg=doca_hand_declared")));
    assert!(p.audit_rs.contains("name: \"doca_dpa_create\", header: \"doca_dpa.h\", marker: \"EXPERIMENTAL\", declared: true, exported: Some(true), usable: false"));
}

#[test]
fn missing_and_bad_metadata() {
    let env = EnvReader::fixed(Vec::<(String, String)>::new());
    let err = plan(&env, &["DOCA_DPA"]).unwrap_err();
    assert!(err.to_string().contains("DEP_DOCA_DPA_BACKEND"));
    let (_dir, mut vars) = setup();
    vars[0].1 = "gpu".into();
    let err = plan(&EnvReader::fixed(vars), &["DOCA_DPA"]).unwrap_err();
    assert!(matches!(err, SafeError::BadMetadata { .. }));
    let (_dir, mut vars) = setup();
    vars[2].1 = "/nonexistent/audit.tsv".into();
    let err = plan(&EnvReader::fixed(vars), &["DOCA_DPA"]).unwrap_err();
    assert!(err.to_string().contains("/nonexistent/audit.tsv"));
    assert!(plan(&EnvReader::fixed(Vec::<(String, String)>::new()), &[]).is_err());
}
