//! Tests of the parent module.

use super::*;

#[test]
fn directive_syntax() {
    let mut d = Directives::new();
    d.check_cfg("doca_rdmi_absent");
    d.check_cfg_values("doca_sym", ["b", "a\"x"]);
    d.check_cfg_values("empty", Vec::<String>::new());
    d.cfg("doca_ge_3_0");
    d.cfg_value("doca_backend", "sim");
    d.metadata("include", "/a:/b\nc");
    d.warning("two\nlines");
    d.link_search(std::path::Path::new("/opt/x"));
    d.link_dylib("doca_dpa");
    assert_eq!(
        d.lines(),
        [
            "cargo::rustc-check-cfg=cfg(doca_rdmi_absent)",
            "cargo::rustc-check-cfg=cfg(doca_sym, values(\"b\", \"a\\\"x\"))",
            "cargo::rustc-check-cfg=cfg(empty, values(any()))",
            "cargo::rustc-cfg=doca_ge_3_0",
            "cargo::rustc-cfg=doca_backend=\"sim\"",
            "cargo::metadata=include=/a:/b c",
            "cargo::warning=two lines",
            "cargo::rustc-link-search=native=/opt/x",
            "cargo::rustc-link-lib=dylib=doca_dpa",
        ]
    );
}

#[test]
fn declare_all_covers_every_cfg() {
    let mut d = Directives::new();
    d.declare_all(["doca_dpa_create", "doca_dev_open"]);
    assert!(d.contains(
        "cargo::rustc-check-cfg=cfg(doca_backend, values(\"hardware\", \"sim\", \"docs\"))"
    ));
    assert!(d.contains("cargo::rustc-check-cfg=cfg(doca_ge_2_9)"));
    assert!(d.contains("cargo::rustc-check-cfg=cfg(doca_ge_3_5)"));
    assert!(d.contains("cargo::rustc-check-cfg=cfg(doca_rdmi_absent)"));
    let sym = d
        .lines()
        .iter()
        .find(|l| l.contains("cfg(doca_sym,"))
        .unwrap();
    assert!(sym.contains("\"doca_dev_open\", \"doca_dpa_create\""));
    assert!(sym.contains("\"doca_rdmi_connection_as_ctx\""));
    assert!(d.contains(
            "cargo::rustc-check-cfg=cfg(doca_hand_declared, values(\"doca_rdmi_connection_as_ctx\", \"doca_rdmi_poster_as_ctx\"))"
        ));
}

#[test]
fn version_and_backend() {
    let mut d = Directives::new();
    d.backend(Backend::Hardware);
    d.version_cfgs(DocaVersion::new(2, 10, 78));
    assert_eq!(
        d.lines(),
        [
            "cargo::rustc-cfg=doca_backend=\"hardware\"",
            "cargo::rustc-cfg=doca_ge_2_9",
            "cargo::rustc-cfg=doca_ge_2_10",
        ]
    );
}
