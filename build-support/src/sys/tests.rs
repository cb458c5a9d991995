//! Tests of the parent module.

use super::*;
use crate::testutil::TempDir;
use std::collections::BTreeMap;

const VERSION_H: &str = "#define DOCA_VERSION_MAJOR 3\n#define DOCA_VERSION_MINOR 0\n\
                             #define DOCA_VERSION_PATCH 58\n#define DOCA_VERSION_STRING \"3.0.0058\"\n";

/// A small reference-header directory.
fn reference() -> TempDir {
    let dir = TempDir::new("reference");
    dir.write("doca_version.h", VERSION_H);
    dir.write(
        "doca_error.h",
        "typedef enum doca_error { DOCA_SUCCESS = 0 } doca_error_t;\n\
             DOCA_STABLE const char *doca_error_get_name(doca_error_t error);\n",
    );
    dir.write(
            "doca_dpa.h",
            "struct doca_dev;\nstruct doca_dpa;\n\
             DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);\n",
        );
    dir.write(
            "doca_rdmi_connection.h",
            "struct doca_rdmi_connection;\n\
             DOCA_EXPERIMENTAL\ndoca_error_t doca_rdmi_connection_destroy(struct doca_rdmi_connection *c);\n",
        );
    dir.write(
        "doca_rdma.h",
        "struct doca_rdma;\n\
         DOCA_EXPERIMENTAL\ndoca_error_t doca_rdma_destroy(struct doca_rdma *r);\n",
    );
    dir
}

fn env(vars: &[(&str, &str)], out: &TempDir, reference: &TempDir) -> EnvReader {
    let mut all: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    all.push(("OUT_DIR".into(), out.path().display().to_string()));
    all.push((
        "DEP_DOCA_SIM_INCLUDE".into(),
        reference.path().display().to_string(),
    ));
    EnvReader::fixed(all)
}

fn no_probe(_: &ProbeInputs) -> Result<Install, DiscoveryError> {
    panic!("the probe must not run")
}

#[test]
fn sim_dpa() {
    let (out, r) = (TempDir::new("out"), reference());
    let e = env(
        &[("DOCA_BACKEND", "sim"), ("CARGO_FEATURE_SIM", "1")],
        &out,
        &r,
    );
    let o = run(BindingSet::Dpa, &e, no_probe).unwrap();
    assert_eq!(o.backend, Backend::Sim);
    assert_eq!(o.version, DocaVersion::new(3, 0, 58));
    let d = &o.directives;
    assert!(d.contains("cargo::rustc-cfg=doca_backend=\"sim\""));
    assert!(d.contains("cargo::rustc-cfg=doca_ge_3_0"));
    assert!(!d.contains("cargo::rustc-cfg=doca_ge_3_1"));
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_create\""));
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_error_get_name\""));
    // Not in the Dpa set: only in the universe.
    assert!(!d.contains("cargo::rustc-cfg=doca_sym=\"doca_rdmi_connection_destroy\""));
    let check = d
        .lines()
        .iter()
        .find(|l| l.contains("cfg(doca_sym,"))
        .unwrap();
    assert!(check.contains("\"doca_rdmi_connection_destroy\""));
    assert!(!d.lines().iter().any(|l| l.contains("rustc-link")));
    assert!(d.contains("cargo::metadata=backend=sim"));
    assert!(d.contains("cargo::metadata=version=3.0.0058"));
    assert!(d.contains("cargo::metadata=rdmi=present"));
    assert!(!d
        .lines()
        .iter()
        .any(|l| l.starts_with("cargo::metadata=libdir=")
            || l.starts_with("cargo::metadata=prefix=")));
    assert!(d.contains(&format!("cargo::metadata=include={}", r.path().display())));
    assert!(d
        .lines()
        .iter()
        .any(|l| l.starts_with("cargo::metadata=audit=") && l.ends_with("audit.tsv")));
    // Files.
    let tsv = std::fs::read_to_string(out.path().join("audit.tsv")).unwrap();
    let audit = Audit::parse_tsv(&tsv).unwrap();
    assert_eq!(audit, o.audit);
    assert_eq!(audit.get("doca_dpa_create").unwrap().exported, Some(true));
    let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
    assert!(info.contains("pub const BACKEND: &str = \"sim\";"));
    assert!(info.contains("pub const DOCA_VERSION: &str = \"3.0.0058\";"));
    assert!(info.contains("pub const PKG_CONFIG_VERSIONS: &[(&str, &str)] = &[];"));
    assert!(info.contains("pub const RDMI_ABSENT_REASON: Option<&str> = None;"));
    assert!(info.contains("pub static SYMBOLS: &[SymbolInfo]"));
    assert!(!out.path().join("bindings.rs").exists());
    for v in [
        "DOCA_BACKEND",
        "DOCS_RS",
        "DOCA_PREFIX",
        "PKG_CONFIG_PATH",
        "DOCA_ALLOW_VERSION_MISMATCH",
        "CARGO_FEATURE_SIM",
        "OUT_DIR",
        "DEP_DOCA_SIM_INCLUDE",
    ] {
        assert!(e.was_read(v), "{v} not read");
    }
}

/// A sim build claiming DOCA 3.0 (`DOCA_SIM_VERSION=3.0`: doca-sim's headers copied
/// with that version): the 3.0 cfgs only, the 3.1 function absent from the audit but
/// still in the check-cfg universe (read from the -sys crate's committed
/// `reference/`), so its wrapper's cfg is known and off.
#[test]
fn a_sim_claiming_3_0_hides_the_newer_functions_but_knows_their_names() {
    let (include, root) = shipped();
    let out = TempDir::new("out");
    let copy = TempDir::new("claim");
    let claimed = crate::sim_version::claimed_headers(
        &include,
        &root.join("doca-sim/device-include"),
        copy.path(),
        DocaVersion::new(3, 0, 1),
    )
    .unwrap();
    let e = EnvReader::fixed([
        ("DOCA_BACKEND".to_owned(), "sim".to_owned()),
        ("CARGO_FEATURE_SIM".to_owned(), "1".to_owned()),
        ("OUT_DIR".to_owned(), out.path().display().to_string()),
        (
            "DEP_DOCA_SIM_INCLUDE".to_owned(),
            claimed.include.display().to_string(),
        ),
        (
            "CARGO_MANIFEST_DIR".to_owned(),
            sys_dir(&root, BindingSet::Dpa).display().to_string(),
        ),
    ]);
    let o = run(BindingSet::Dpa, &e, no_probe).unwrap();
    assert_eq!(o.version, DocaVersion::new(3, 0, 1));
    let d = &o.directives;
    assert!(d.contains("cargo::rustc-cfg=doca_ge_3_0"));
    assert!(!d.contains("cargo::rustc-cfg=doca_ge_3_1"));
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_devinfo_rep_get_pci_func_type\""));
    assert!(!d.contains("cargo::rustc-cfg=doca_sym=\"doca_devinfo_get_pci_func_type\""));
    let check = d
        .lines()
        .iter()
        .find(|l| l.starts_with("cargo::rustc-check-cfg=cfg(doca_sym,"))
        .unwrap();
    assert!(
        check.contains("\"doca_devinfo_get_pci_func_type\""),
        "{check}"
    );
    assert!(d.contains("cargo::metadata=version=3.0.0001"));
}

#[test]
fn sim_rdmi_hand_declares_as_ctx() {
    let (out, r) = (TempDir::new("out"), reference());
    // No DOCA_BACKEND, but the `sim` feature.
    let e = env(&[("CARGO_FEATURE_SIM", "1")], &out, &r);
    let o = run(BindingSet::Rdmi, &e, no_probe).unwrap();
    assert_eq!(o.backend, Backend::Sim);
    let d = &o.directives;
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_rdmi_connection_destroy\""));
    assert!(d.contains("cargo::rustc-cfg=doca_hand_declared=\"doca_rdmi_connection_as_ctx\""));
    assert!(!d.contains("cargo::rustc-cfg=doca_hand_declared=\"doca_rdmi_poster_as_ctx\""));
    assert!(!d.contains("cargo::rustc-cfg=doca_rdmi_absent"));
    let row = o.audit.get("doca_rdmi_connection_as_ctx").unwrap();
    assert!(!row.declared && row.exported == Some(true));
}

#[test]
fn sim_rdma_follows_the_dpa_crate() {
    let (out, r) = (TempDir::new("out"), reference());
    // No `sim` feature of its own: doca-dpa-sys's backend puts it on the sim.
    let e = env(&[("DEP_DOCA_DPA_BACKEND", "sim")], &out, &r);
    let o = run(BindingSet::Rdma, &e, no_probe).unwrap();
    assert_eq!(o.backend, Backend::Sim);
    assert_eq!(o.absent_reason, None);
    let d = &o.directives;
    assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_rdma_destroy\""));
    assert!(!d.contains("cargo::rustc-cfg=doca_sym=\"doca_rdmi_connection_destroy\""));
    assert!(!d.contains("cargo::rustc-cfg=doca_rdma_absent"));
    assert!(d.contains("cargo::metadata=rdma=present"));
    let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
    assert!(info.contains("pub const RDMA_ABSENT_REASON: Option<&str> = None;"));
}

#[test]
fn rdmi_follows_the_dpa_sys_sim() {
    let (out, r) = (TempDir::new("out"), reference());
    // No DOCA_BACKEND, no `sim` feature of doca-rdmi-sys: doca-dpa-sys chose the sim.
    let e = env(&[("DEP_DOCA_DPA_BACKEND", "sim")], &out, &r);
    let o = run(BindingSet::Rdmi, &e, no_probe).unwrap();
    assert_eq!(o.backend, Backend::Sim);
    assert!(o
        .directives
        .contains("cargo::rustc-cfg=doca_backend=\"sim\""));
}

#[test]
fn docs_rs_path() {
    let (out, r) = (TempDir::new("out"), reference());
    let e = env(&[("DOCS_RS", "1"), ("DOCA_BACKEND", "hardware")], &out, &r);
    let o = run(BindingSet::Dpa, &e, no_probe).unwrap();
    assert_eq!(o.backend, Backend::Docs);
    assert!(o
        .directives
        .contains("cargo::rustc-cfg=doca_backend=\"docs\""));
    assert!(!o
        .directives
        .lines()
        .iter()
        .any(|l| l.contains("rustc-link")));
    assert!(o.directives.contains("cargo::metadata=backend=docs"));
    assert!(std::fs::read_to_string(out.path().join("build_info.rs"))
        .unwrap()
        .contains("\"docs\""));
}

#[test]
fn hardware_failure_is_the_discovery_message() {
    let (out, r) = (TempDir::new("out"), reference());
    let e = env(&[("DOCA_BACKEND", "hardware")], &out, &r);
    let err = run(BindingSet::Dpa, &e, |inputs| {
        Err(DiscoveryError::NotFound {
            searched: vec!["doca-common".into(), "doca-dpa".into()],
            missing: vec!["doca-common".into(), "doca-dpa".into()],
            pkg_config_path: None,
            dirs_tried: inputs.dirs_tried(),
            details: vec![],
        })
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("DOCA was not found"), "{text}");
    assert!(text.contains("/opt/mellanox/doca/lib/pkgconfig"), "{text}");
    assert!(text.contains("features = [\"sim\"]"), "{text}");
}

#[test]
fn missing_reference_headers_are_reported() {
    let out = TempDir::new("out");
    let empty = TempDir::new("noref");
    let e = env(
        &[("DOCA_BACKEND", "sim"), ("CARGO_FEATURE_SIM", "1")],
        &out,
        &empty,
    );
    let err = run(BindingSet::Dpa, &e, no_probe).unwrap_err();
    assert!(err.to_string().contains("doca_version.h"), "{err}");
    let e = EnvReader::fixed([("DOCA_BACKEND", "sim"), ("CARGO_FEATURE_SIM", "1")]);
    assert!(matches!(
        run(BindingSet::Dpa, &e, no_probe),
        Err(SysError::MissingEnv("OUT_DIR"))
    ));
}

/// A DOCA install in `prefix`; `with_optional` adds the optional modules (doca-rdmi,
/// doca-rdma, doca-comch).
fn fake_install(prefix: &TempDir, with_optional: bool) -> Install {
    let module = |name: &str, libs: &[&str]| crate::discovery::Module {
        name: name.into(),
        version_text: "3.0.0058".into(),
        version: Some(DocaVersion::new(3, 0, 58)),
        pc_dir: None,
        prefix: Some(prefix.path().to_owned()),
        include_dirs: vec![prefix.path().join("include")],
        link_dirs: vec![prefix.path().join("lib")],
        libs: libs.iter().map(|s| (*s).to_owned()).collect(),
    };
    let mut modules = BTreeMap::new();
    modules.insert(
        "doca-common".into(),
        module("doca-common", &["doca_common"]),
    );
    modules.insert(
        "doca-dpa".into(),
        module("doca-dpa", &["doca_dpa", "doca_common"]),
    );
    if with_optional {
        modules.insert("doca-verbs".into(), module("doca-verbs", &["doca_verbs"]));
        modules.insert("doca-rdmi".into(), module("doca-rdmi", &["doca_rdmi"]));
        modules.insert("doca-rdma".into(), module("doca-rdma", &["doca_rdma"]));
        modules.insert("doca-comch".into(), module("doca-comch", &["doca_comch"]));
    }
    Install {
        modules,
        version: DocaVersion::new(3, 0, 58),
        version_header: None,
        pkg_config_path: "/fake/pkgconfig".into(),
        warnings: vec!["a warning".into()],
    }
}

#[test]
fn hardware_without_rdmi_module() {
    let (out, r) = (TempDir::new("out"), reference());
    let prefix = TempDir::new("hwprefix");
    prefix.write(
        "include/doca_rdmi_connection.h",
        "DOCA_EXPERIMENTAL int doca_rdmi_x(void);\n",
    );
    let e = env(&[("DOCA_BACKEND", "hardware")], &out, &r);
    let o = run(BindingSet::Rdmi, &e, |_| Ok(fake_install(&prefix, false))).unwrap();
    assert_eq!(o.backend, Backend::Hardware);
    let reason = o.absent_reason.clone().unwrap();
    assert!(reason.contains("doca-rdmi"));
    let d = &o.directives;
    assert!(d.contains("cargo::rustc-cfg=doca_rdmi_absent"));
    assert!(d.contains("cargo::metadata=rdmi=absent"));
    assert!(d.contains(&format!(
        "cargo::metadata=libdir={}",
        prefix.path().join("lib").display()
    )));
    // Where dpacc's install is, for the DPA app builds and doca-doctor.
    assert!(d.contains(&format!(
        "cargo::metadata=prefix={}",
        prefix.path().display()
    )));
    assert!(d.contains("cargo::warning=a warning"));
    assert!(!d.lines().iter().any(|l| l.contains("rustc-link")));
    assert!(!d
        .lines()
        .iter()
        .any(|l| l.starts_with("cargo::rustc-cfg=doca_sym=")));
    let bindings = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
    assert!(bindings.contains("No RDMI bindings"));
    let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
    assert!(info.contains("RDMI_ABSENT_REASON: Option<&str> = Some("));
    assert!(info.contains("BINDINGS: &str = \"none (this DOCA install has no RDMI)\""));
    assert!(info.contains("(\"doca-dpa\", \"3.0.0058\")"));
    assert!(info.contains(&format!(
        "DOCA_PREFIX: Option<&str> = Some({:?})",
        prefix.path().display().to_string()
    )));
    assert_eq!(o.audit.get("doca_rdmi_x").unwrap().exported, Some(false));
}

#[test]
fn hardware_without_rdma_or_comch_module() {
    // The install of the test above (no doca-rdma.pc nor doca-comch.pc either):
    // doca-rdma-sys and doca-comch-sys build, empty, and say why, even where the set's
    // header does not compile (the real doca_rdma.h includes rdma-core's rdma_cma.h).
    for (krate, header, module, what) in [
        (BindingSet::Rdma, "doca_rdma.h", "doca-rdma", "RDMA"),
        (
            BindingSet::Comch,
            "doca_comch_msgq.h",
            "doca-comch",
            "Comch",
        ),
        (BindingSet::Verbs, "doca_verbs.h", "doca-verbs", "Verbs"),
    ] {
        let (out, r) = (TempDir::new("out"), reference());
        let prefix = TempDir::new("hwprefix");
        prefix.write(
            &format!("include/{header}"),
            "#include <rdma/doca_rs_nowhere.h>\nDOCA_EXPERIMENTAL int doca_x(void);\n",
        );
        let e = env(&[("DOCA_BACKEND", "hardware")], &out, &r);
        let o = run(krate, &e, |_| Ok(fake_install(&prefix, false))).unwrap();
        let reason = o.absent_reason.clone().unwrap();
        assert!(reason.contains(&format!("no {module} module")), "{reason}");
        assert!(reason.contains(&format!("no {what}")), "{reason}");
        let d = &o.directives;
        let cfg = format!("doca_{}_absent", what.to_lowercase());
        assert!(d.contains(&format!("cargo::rustc-cfg={cfg}")));
        assert!(!d.contains("cargo::rustc-cfg=doca_rdmi_absent"));
        assert!(d.contains(&format!("cargo::metadata={}=absent", what.to_lowercase())));
        assert!(!d.lines().iter().any(|l| l.contains("rustc-link")));
        let bindings = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
        assert!(bindings.contains(&format!("No {what} bindings")));
        let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
        assert!(info.contains(&format!(
            "pub const {}_ABSENT_REASON: Option<&str> = Some(",
            what.to_uppercase()
        )));
        assert!(info.contains(&format!(
            "BINDINGS: &str = \"none (this DOCA install has no {what})\""
        )));
    }
}

/// Hardware with bindgen over a fake prefix (no libraries, so exports are unknown and
/// assumed). Skipped where libclang is missing.
#[cfg(feature = "bindgen")]
#[test]
fn hardware_dpa_bindgen_and_links() {
    let (out, r) = (TempDir::new("out"), reference());
    let prefix = TempDir::new("hwprefix");
    prefix.write(
        "include/doca_error.h",
        "#pragma once\ntypedef enum doca_error { DOCA_SUCCESS = 0 } doca_error_t;\n",
    );
    prefix.write(
            "include/doca_dpa.h",
            "#pragma once\n#include \"doca_error.h\"\n#define DOCA_EXPERIMENTAL\nstruct doca_dev; struct doca_dpa;\n\
             DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);\n",
        );
    let e = env(
        &[("DOCA_BACKEND", "hardware"), ("CARGO_FEATURE_BINDGEN", "1")],
        &out,
        &r,
    );
    let _env = crate::testutil::env_lock();
    match run(BindingSet::Dpa, &e, |_| Ok(fake_install(&prefix, true))) {
        Err(SysError::Bindgen(b)) if b.is_libclang_missing() => {
            eprintln!("skipping: {b}");
        }
        Err(other) => panic!("{other}"),
        Ok(o) => {
            let d = &o.directives;
            assert!(d.contains(&format!(
                "cargo::rustc-link-search=native={}",
                prefix.path().join("lib").display()
            )));
            assert!(d.contains("cargo::rustc-link-lib=dylib=doca_dpa"));
            assert!(d.contains("cargo::rustc-link-lib=dylib=doca_common"));
            assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_create\""));
            assert!(d
                .lines()
                .iter()
                .any(|l| l.starts_with("cargo::warning=could not check")));
            assert_eq!(o.audit.get("doca_dpa_create").unwrap().exported, None);
            let b = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
            assert!(b.contains("doca_dpa_create"));
            assert!(d.contains("cargo::metadata=backend=hardware"));
            let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
            assert!(info.contains("BINDINGS: &str = \"bindgen over the installed headers\""));
        }
    }
}

/// The functions of the reference headers that DOCA 3.0 does not declare: each is
/// behind `DOCA_VERSION_LTE_CURRENT` for the release that added it.
const NEWER_THAN_3_0: &[&str] = &[
    "doca_devinfo_get_pci_func_type",
    "doca_verbs_qp_get_dpa_handle",
    "doca_umem_dpa_create",
    "doca_umem_destroy",
    "doca_uar_dpa_create",
    "doca_uar_destroy",
];

/// doca-sim's reference headers, and the workspace root (whose -sys crates hold the
/// committed bindings and check files), as a -sys build sees them.
fn shipped() -> (PathBuf, PathBuf) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    (root.join("doca-sim/include"), root)
}

/// The manifest directory of `krate` in the workspace `root`.
fn sys_dir(root: &Path, krate: BindingSet) -> PathBuf {
    root.join(krate.sys_crate_dir())
}

/// A fake install whose headers are the reference headers, edited by `edit`
/// (file name, text) and with a DOCA 3.0.0058 doca_version.h.
fn install_of_reference(edit: impl Fn(&str, String) -> String) -> TempDir {
    let prefix = TempDir::new("bundled");
    let (include, _) = shipped();
    for entry in std::fs::read_dir(&include).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "h") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            prefix.write(&format!("include/{name}"), &edit(&name, text));
        }
    }
    let version = std::fs::read_to_string(include.join("doca_version.h")).unwrap();
    let version = version
        .lines()
        .map(|l| match l.split_whitespace().nth(1) {
            Some("DOCA_VERSION_MINOR") => "#define DOCA_VERSION_MINOR 0".to_owned(),
            Some("DOCA_VERSION_PATCH") => "#define DOCA_VERSION_PATCH 58".to_owned(),
            Some("DOCA_VERSION_STRING") => "#define DOCA_VERSION_STRING \"3.0.0058\"".to_owned(),
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    prefix.write("include/doca_version.h", &version);
    prefix
}

fn run_bundled(krate: BindingSet, prefix: &TempDir, out: &TempDir) -> Result<SysOutput, SysError> {
    run_bundled_from(krate, prefix, out, &sys_dir(&shipped().1, krate))
}

/// [`run_bundled`] with the committed bindings and check file read from
/// `manifest/bundled`.
fn run_bundled_from(
    krate: BindingSet,
    prefix: &TempDir,
    out: &TempDir,
    manifest: &Path,
) -> Result<SysOutput, SysError> {
    let (include, _) = shipped();
    let e = EnvReader::fixed([
        ("DOCA_BACKEND".to_owned(), "hardware".to_owned()),
        ("OUT_DIR".to_owned(), out.path().display().to_string()),
        (
            "DEP_DOCA_SIM_INCLUDE".to_owned(),
            include.display().to_string(),
        ),
        (
            "CARGO_MANIFEST_DIR".to_owned(),
            manifest.display().to_string(),
        ),
    ]);
    let _env = crate::testutil::env_lock();
    run(krate, &e, |_| Ok(fake_install(prefix, true)))
}

#[test]
fn hardware_uses_the_bundled_bindings_of_a_conforming_install() {
    let prefix = install_of_reference(|_, t| t);
    for krate in [
        BindingSet::Dpa,
        BindingSet::Verbs,
        BindingSet::Rdmi,
        BindingSet::Rdma,
        BindingSet::Comch,
    ] {
        let out = TempDir::new("out");
        let o = run_bundled(krate, &prefix, &out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.backend, Backend::Hardware);
        let b = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
        let committed_path = krate.committed_path(&sys_dir(&shipped().1, krate));
        let committed = std::fs::read_to_string(&committed_path).unwrap();
        // Every function of the committed file but those newer than the install's
        // DOCA 3.0 (behind DOCA_VERSION_LTE_CURRENT in the headers).
        let newer: Vec<&str> = NEWER_THAN_3_0
            .iter()
            .copied()
            .filter(|f| committed.contains(&format!("pub fn {f}(")))
            .collect();
        assert_eq!(
            b.matches("    pub fn ").count() + newer.len(),
            committed.matches("    pub fn ").count()
        );
        for f in &newer {
            assert!(!b.contains(&format!("pub fn {f}(")), "{f}");
        }
        let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
        assert!(info.contains("BINDINGS: &str = \"bundled, "), "{info}");
        match newer.len() {
            0 => assert!(!info.contains("left out"), "{info}"),
            1 => assert!(
                info.contains("1 function this DOCA does not declare left out"),
                "{info}"
            ),
            n => assert!(info.contains(&format!("{n} functions this DOCA")), "{info}"),
        }
        match krate {
            BindingSet::Dpa => {
                assert!(b.contains("pub fn doca_dpa_create("));
                // The installed release, not the reference headers' one.
                assert!(b.contains("pub const DOCA_VERSION_STRING: &[u8; 9] = b\"3.0.0058\\0\";"));
                assert!(b.contains("pub const DOCA_VERSION_MINOR: u32 = 0;"));
            }
            BindingSet::Rdmi => {
                assert!(b.contains("\nuse doca_dpa_sys::*;\nuse doca_verbs_sys::*;\n"));
                assert!(b.contains("pub fn doca_rdmi_connection_create("));
                assert!(!b.contains("pub fn doca_verbs_context_create("));
            }
            BindingSet::Verbs => {
                assert!(b.contains("\nuse doca_dpa_sys::*;\n"));
                assert!(b.contains("pub fn doca_verbs_qp_create("));
                assert!(!b.contains("pub fn doca_dpa_create("));
            }
            BindingSet::Rdma => {
                assert!(b.contains("\nuse doca_dpa_sys::*;\n"));
                assert!(b.contains("pub fn doca_rdma_get_dpa_handle("));
                assert!(!b.contains("pub fn doca_dpa_create("));
            }
            BindingSet::Comch => {
                assert!(b.contains("\nuse doca_dpa_sys::*;\n"));
                assert!(b.contains("pub fn doca_comch_consumer_get_dpa_handle("));
                assert!(!b.contains("pub fn doca_dpa_create("));
            }
        }
        // The installed headers and the committed file rerun the build when changed.
        assert!(o.directives.contains(&format!(
            "cargo::rerun-if-changed={}",
            committed_path.display()
        )));
    }
}

#[test]
fn hardware_refuses_an_install_that_declares_a_bound_item_differently() {
    let prefix = install_of_reference(|name, t| {
        if name == "doca_dpa.h" {
            let changed = t.replace(
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa, uint32_t flags);",
            );
            assert_ne!(
                changed, t,
                "the reference prototype of doca_dpa_destroy moved"
            );
            changed
        } else {
            t
        }
    });
    let out = TempDir::new("out");
    let err = run_bundled(BindingSet::Dpa, &prefix, &out).unwrap_err();
    assert!(
        matches!(
            err,
            SysError::NotConforming {
                set: BindingSet::Dpa,
                ..
            }
        ),
        "{err:?}"
    );
    assert_refused(
        &err,
        &out,
        &[
            "doca-rs check: doca_dpa_destroy: its type is not the reference type \
                 doca_error_t (struct doca_dpa *)",
            "`bindgen` feature",
            "libclang",
        ],
    );
    // One clean message: the item, what the bindings expect and what the install
    // declares come first, and the check's own macros warn of nothing.
    let text = err.to_string();
    let first = text.lines().nth(1).unwrap_or_default();
    assert_eq!(
        first,
        "  - doca_dpa_destroy: its type is not the reference type doca_error_t (struct \
         doca_dpa *); the install declares `doca_error_t (struct doca_dpa *, uint32_t)` \
         (aka `enum doca_error (struct doca_dpa *, unsigned int)`)",
        "{text}"
    );
    assert!(!text.contains("warning:"), "{text}");
}

#[test]
fn a_committed_item_the_check_does_not_cover_refuses_the_file() {
    let prefix = install_of_reference(|_, t| t);
    let (_, root) = shipped();
    let stale = TempDir::new("stale-abi");
    let set = BindingSet::Dpa;
    let shipped_dir = sys_dir(&root, BindingSet::Dpa);
    for (from, to) in [
        (
            set.committed_path(&shipped_dir),
            set.committed_path(stale.path()),
        ),
        (set.check_path(&shipped_dir), set.check_path(stale.path())),
    ] {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
    let dpa = set.committed_path(stale.path());
    let mut text = std::fs::read_to_string(&dpa).unwrap();
    text.push_str("pub static DOCA_UNCHECKED: u32 = 1;\nunsafe extern \"C\" {\n    pub fn doca_nowhere(x: u32) -> u32;\n}\n");
    std::fs::write(&dpa, text).unwrap();
    let out = TempDir::new("out");
    let err = run_bundled_from(BindingSet::Dpa, &prefix, &out, stale.path()).unwrap_err();
    assert_refused(
        &err,
        &out,
        &[
            "pub static DOCA_UNCHECKED",
            "doca_nowhere",
            "cannot be checked",
        ],
    );
}

/// `err` names every needle and no bindings file was written.
fn assert_refused(err: &SysError, out: &TempDir, needles: &[&str]) {
    let text = err.to_string();
    for needle in needles {
        assert!(text.contains(needle), "{needle} not in: {text}");
    }
    assert!(
        !out.path().join("bindings.rs").exists(),
        "nothing half-built"
    );
}

#[test]
fn an_older_install_gets_the_bindings_without_the_functions_it_lacks() {
    let prefix = install_of_reference(|name, t| {
        if name == "doca_dpa.h" {
            t.lines()
                .filter(|l| !l.contains("doca_dpa_get_kernel_max_run_time"))
                .collect::<Vec<_>>()
                .join("\n")
        } else {
            t
        }
    });
    let out = TempDir::new("out");
    let o = run_bundled(BindingSet::Dpa, &prefix, &out).unwrap_or_else(|e| panic!("{e}"));
    let b = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
    assert!(!b.contains("doca_dpa_get_kernel_max_run_time"));
    assert!(b.contains("pub fn doca_dpa_create("));
    assert!(o
        .audit
        .get("doca_dpa_get_kernel_max_run_time")
        .is_none_or(|r| !r.declared));
    let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
    // The other: the DOCA 3.1 function the 3.0 headers hide.
    assert!(!b.contains("pub fn doca_devinfo_get_pci_func_type("));
    assert!(
        info.contains("2 functions this DOCA does not declare left out"),
        "{info}"
    );
}

/// Bindgen as the judge: each install below is the reference headers with one change;
/// the bundled path must refuse it naming the item, or give bindgen's items exactly
/// (docs aside). Each case was a way through the check once. Skipped where libclang
/// is missing, unless `DOCA_REQUIRE_LIBCLANG` is set.
#[cfg(feature = "bindgen")]
mod against_bindgen {
    use super::*;
    use crate::bindgen_config::{self, BindgenOptions};

    /// Lines of a bindings text without docs, blank lines and comments, for comparing
    /// two outputs item by item.
    fn significant(text: &str) -> Vec<String> {
        text.lines()
            .map(str::trim_end)
            .filter(|l| {
                let t = l.trim_start();
                !t.is_empty() && !t.starts_with("#[doc") && !t.starts_with("//")
            })
            .map(str::to_owned)
            .collect()
    }

    /// What bindgen (formatted as the committed copy is) makes of the install.
    fn bindgen_of(set: BindingSet, prefix: &TempDir) -> Option<String> {
        let opts = BindgenOptions {
            rustfmt: true,
            ..BindgenOptions::for_sys(set)
        };
        match bindgen_config::generate(set, &[prefix.path().join("include")], &opts) {
            Ok(text) => Some(text),
            Err(e)
                if e.is_libclang_missing()
                    && std::env::var_os("DOCA_REQUIRE_LIBCLANG").is_none() =>
            {
                eprintln!("skipped: {e}");
                None
            }
            Err(e) => panic!("bindgen over the mutated install: {e}"),
        }
    }

    /// The significant statements as Rust sees them: `::std::os::raw` integers as the
    /// fixed-width types they are on this (LP64) target and every type alias resolved to
    /// what it names, so `c_ulong` and `c_ulonglong`, or `doca_be64_t = __be64` and
    /// `doca_be64_t = u64`, read alike; definitions of aliases that the other side does
    /// not define are left out (no item of either side uses them any more).
    fn rust_view(text: &str, other: &str) -> Vec<String> {
        const RAW: &[(&str, &str)] = &[
            ("::std::os::raw::c_char", "i8"),
            ("::std::os::raw::c_schar", "i8"),
            ("::std::os::raw::c_uchar", "u8"),
            ("::std::os::raw::c_short", "i16"),
            ("::std::os::raw::c_ushort", "u16"),
            ("::std::os::raw::c_int", "i32"),
            ("::std::os::raw::c_uint", "u32"),
            ("::std::os::raw::c_longlong", "i64"),
            ("::std::os::raw::c_ulonglong", "u64"),
            ("::std::os::raw::c_long", "i64"),
            ("::std::os::raw::c_ulong", "u64"),
        ];
        let alias_of = |line: &str| -> Option<(String, String)> {
            let rest = line.trim().strip_prefix("pub type ")?;
            let (name, target) = rest.split_once(" = ")?;
            Some((name.to_owned(), target.trim_end_matches(';').to_owned()))
        };
        let raw = |line: &str| {
            RAW.iter()
                .fold(line.to_owned(), |l, (from, to)| l.replace(from, to))
        };
        // Statements, not lines: rustfmt wraps a signature once a type name is longer.
        let statements = |text: &str| -> Vec<String> {
            let joined = raw(&significant(text).join(" "));
            let squeezed = joined
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .replace("( ", "(")
                .replace(", )", ")")
                .replace(",)", ")")
                .replace(" )", ")");
            let mut out = Vec::new();
            let mut current = String::new();
            for c in squeezed.chars() {
                current.push(c);
                if matches!(c, ';' | '{' | '}') {
                    out.push(current.trim().to_owned());
                    current.clear();
                }
            }
            out
        };
        let lines: Vec<String> = statements(text);
        let aliases: BTreeMap<String, String> = lines.iter().filter_map(|l| alias_of(l)).collect();
        let other_aliases: BTreeSet<String> = statements(other)
            .iter()
            .filter_map(|l| alias_of(l).map(|(n, _)| n))
            .collect();
        let resolve_word = |w: &str| {
            let mut w = w.to_owned();
            for _ in 0..16 {
                match aliases.get(&w) {
                    Some(t) if t.chars().all(|c| c.is_alphanumeric() || c == '_') => w = t.clone(),
                    _ => break,
                }
            }
            w
        };
        lines
            .iter()
            .filter(|l| alias_of(l).is_none_or(|(n, _)| other_aliases.contains(&n)))
            .map(|l| {
                // Resolve the words after the `=` of an alias, and every word elsewhere.
                let (head, body) = match alias_of(l) {
                    Some((n, t)) => (format!("pub type {n} = "), format!("{t};")),
                    None => (String::new(), l.clone()),
                };
                let mut out = head;
                let mut word = String::new();
                for c in body.chars().chain(std::iter::once('\0')) {
                    if c.is_alphanumeric() || c == '_' {
                        word.push(c);
                    } else {
                        out.push_str(&resolve_word(&word));
                        word.clear();
                        if c != '\0' {
                            out.push(c);
                        }
                    }
                }
                out
            })
            .collect()
    }

    /// The lines only one side has, as Rust sees them: (bundled only, bindgen only).
    fn line_difference(bundled: &str, bindgen: &str) -> (Vec<String>, Vec<String>) {
        let a = rust_view(bundled, bindgen);
        let b = rust_view(bindgen, bundled);
        let only = |x: &[String], y: &[String]| {
            let mut rest: Vec<String> = y.to_vec();
            x.iter()
                .filter(|l| match rest.iter().position(|r| r == *l) {
                    Some(i) => {
                        rest.remove(i);
                        false
                    }
                    None => true,
                })
                .cloned()
                .collect::<Vec<_>>()
        };
        (only(&a, &b), only(&b, &a))
    }

    /// The claim for one mutated install: the bundled build either fails (the
    /// message naming `item`) or gives bindgen's lines exactly, as Rust sees them.
    fn check_claim(krate: BindingSet, prefix: &TempDir, item: &str, bindgen_must_contain: &str) {
        let Some(oracle) = bindgen_of(krate, prefix) else {
            return;
        };
        let squeezed: String = oracle.split_whitespace().collect();
        assert!(
            squeezed.contains(bindgen_must_contain),
            "precondition: bindgen's output lacks {bindgen_must_contain:?}:\n{oracle}"
        );
        let out = TempDir::new("vs-bindgen-out");
        match run_bundled(krate, prefix, &out) {
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains(item), "refused without naming {item}: {text}");
            }
            Ok(_) => {
                let bundled = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
                let (only_bundled, only_bindgen) = line_difference(&bundled, &oracle);
                assert!(
                    only_bundled.is_empty() && only_bindgen.is_empty(),
                    "the bundled bindings were accepted but differ from bindgen's \
                         over the same install.\nonly in the bundled ones:\n{}\n\
                         only in bindgen's:\n{}",
                    only_bundled.join("\n"),
                    only_bindgen.join("\n")
                );
            }
        }
    }

    /// The claim for an install that differs from the reference headers the way real
    /// DOCA headers do: the bundled build accepts it, and what Rust sees of the bundled
    /// bindings is bindgen's over the same install; bindgen's may have more (items of a
    /// newer release that the bundled bindings do not bind) when `newer` is set.
    fn check_accepted(krate: BindingSet, prefix: &TempDir, newer: bool) {
        let Some(oracle) = bindgen_of(krate, prefix) else {
            return;
        };
        let out = TempDir::new("vs-bindgen-out");
        if let Err(e) = run_bundled(krate, prefix, &out) {
            panic!("refused an install bindgen binds as the bundled bindings: {e}");
        }
        let bundled = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
        let (only_bundled, only_bindgen) = line_difference(&bundled, &oracle);
        let bound = rust_view(&bundled, &oracle).join("\n");
        let unexplained: Vec<&String> = only_bindgen
            .iter()
            .filter(|l| {
                !newer || !l.contains("pub fn ") || {
                    let name = l.split("pub fn ").nth(1).and_then(|r| r.split('(').next());
                    name.is_some_and(|n| bound.contains(&format!("pub fn {n}(")))
                }
            })
            .collect();
        assert!(
            only_bundled.is_empty() && unexplained.is_empty(),
            "accepted, but Rust sees other bindings than bindgen's over the same \
             install.\nonly in the bundled ones:\n{only_bundled:#?}\nonly in bindgen's:\n\
             {only_bindgen:#?}"
        );
    }

    /// The Windows branch of `doca_types.h` (`uint64_t` where Linux has `__be64`):
    /// `u64` either way.
    #[test]
    fn vs_bindgen_accepts_big_endian_types_of_the_standard_integers() {
        let prefix = install_of_reference(|name, t| {
            if name == "doca_types.h" {
                t.replace("#ifdef __linux__\n/**", "#ifndef __linux__\n/**")
            } else {
                t
            }
        });
        check_accepted(BindingSet::Dpa, &prefix, false);
    }

    /// A 64-bit typedef spelled `unsigned long long` (`uint64_t` is `unsigned long`
    /// here): every function taking it compiles either spelling, and Rust sees `u64`.
    #[test]
    fn vs_bindgen_accepts_unsigned_long_long_for_a_64_bit_typedef() {
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "typedef uint64_t doca_dpa_dev_t;",
            "typedef unsigned long long doca_dpa_dev_t;",
        ));
        check_accepted(BindingSet::Dpa, &prefix, false);
    }

    /// A parameter spelled `unsigned long long *` where the reference has `uint64_t *`.
    #[test]
    fn vs_bindgen_accepts_unsigned_long_long_for_a_64_bit_parameter() {
        let prefix = install_of_reference(|name, t| {
            if name == "doca_sync_event.h" {
                let changed = t.replacen("uint64_t *value", "unsigned long long *value", 1);
                assert_ne!(changed, t, "no `uint64_t *value` parameter left to change");
                changed
            } else {
                t
            }
        });
        check_accepted(BindingSet::Dpa, &prefix, false);
    }

    /// A function a newer release adds: not in the bundled bindings, which are accepted.
    #[test]
    fn vs_bindgen_accepts_a_function_of_a_newer_release() {
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);\n\
             DOCA_EXPERIMENTAL doca_error_t doca_dpa_future_call(struct doca_dpa *dpa, uint64_t x);",
        ));
        check_accepted(BindingSet::Dpa, &prefix, true);
    }

    /// A 64-bit typedef narrowed to 32 bits, and one made signed: refused, naming it.
    #[test]
    fn a_typedef_of_another_width_or_signedness_is_refused_with_one_clean_message() {
        for to in [
            "typedef uint32_t doca_dpa_dev_t;",
            "typedef int64_t doca_dpa_dev_t;",
        ] {
            let prefix = install_of_reference(edit_one(
                "doca_dpa.h",
                "typedef uint64_t doca_dpa_dev_t;",
                to,
            ));
            let out = TempDir::new("out");
            let err = run_bundled(BindingSet::Dpa, &prefix, &out).unwrap_err();
            let text = err.to_string();
            assert!(
                text.lines().nth(1).is_some_and(|l| l.starts_with(
                    "  - doca_dpa_dev_t: it is not the reference type uint64_t; the install \
                     declares `doca_dpa_dev_t` (aka `"
                )),
                "{to}: {text}"
            );
            assert!(!text.contains("warning:"), "{text}");
        }
    }

    /// The claim for an install whose doca_dpa_dev_sync_event_t is 32 bits wide.
    fn check_sync_event_handle_is_u32(prefix: &TempDir) {
        check_claim(
            BindingSet::Dpa,
            prefix,
            "doca_dpa_dev_sync_event_t",
            "pubtypedoca_dpa_dev_sync_event_t=u32;",
        );
    }

    /// The claim for an install whose doca_dpa_destroy the compiler sees renamed.
    fn check_destroy_renamed_to_v2(prefix: &TempDir) {
        check_claim(
            BindingSet::Dpa,
            prefix,
            "doca_dpa_destroy",
            "pubfndoca_dpa_destroy_v2(",
        );
    }

    /// The claim for an install whose doca_dpa_destroy is `ms_abi` (`extern "win64"`).
    fn check_destroy_is_win64(prefix: &TempDir) {
        check_claim(
            BindingSet::Dpa,
            prefix,
            "doca_dpa_destroy",
            "extern\"win64\"",
        );
    }

    fn edit_one(
        file: &'static str,
        from: &'static str,
        to: &'static str,
    ) -> impl Fn(&str, String) -> String {
        move |name, text| {
            if name == file {
                assert!(text.contains(from), "{file} lacks {from:?}");
                text.replacen(from, to, 1)
            } else {
                text
            }
        }
    }

    /// The oracle itself: over the unmodified reference headers, bindgen and the
    /// bundled bindings agree line for line (docs aside).
    #[test]
    fn vs_bindgen_control_unmodified_install_agrees_with_bindgen() {
        for krate in [
            BindingSet::Dpa,
            BindingSet::Verbs,
            BindingSet::Rdmi,
            BindingSet::Rdma,
        ] {
            let prefix = install_of_reference(|_, t| t);
            let Some(oracle) = bindgen_of(krate, &prefix) else {
                return;
            };
            let out = TempDir::new("vs-bindgen-out");
            run_bundled(krate, &prefix, &out).unwrap_or_else(|e| panic!("{e}"));
            let bundled = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
            let (a, b) = line_difference(&bundled, &oracle);
            assert!(a.is_empty() && b.is_empty(), "{krate:?}: {a:#?}\n{b:#?}");
        }
    }

    /// A `#pragma pack(push, 1)` left open at the end of doca_error.h (the first
    /// header bindgen reads) packs every struct of the later headers: refused.
    #[test]
    fn vs_bindgen_pragma_pack_left_open_in_an_earlier_header() {
        let prefix = install_of_reference(|name, text| {
            if name == "doca_error.h" {
                format!("{text}\n#pragma pack(push, 1)\n")
            } else {
                text
            }
        });
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "doca_gather_list",
            "#[repr(C,packed)]",
        );
    }

    /// `__attribute__((packed))` on an enum makes its integer type `unsigned char`
    /// (bindgen: `c_uchar`): refused.
    #[test]
    fn vs_bindgen_packed_enum_changes_its_integer_type() {
        let prefix = install_of_reference(edit_one(
            "doca_dev.h",
            "enum doca_devinfo_rep_filter {",
            "enum __attribute__((packed)) doca_devinfo_rep_filter {",
        ));
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "doca_devinfo_rep_filter",
            "pubtypedoca_devinfo_rep_filter=::std::os::raw::c_uchar;",
        );
    }

    /// A calling-convention attribute on a function: bindgen binds it
    /// `extern "win64"`: refused.
    #[test]
    fn vs_bindgen_calling_convention_attribute_on_a_function() {
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa) __attribute__((ms_abi));",
        ));
        check_destroy_is_win64(&prefix);
    }

    /// `__attribute__((noreturn))`: bindgen binds the function `-> !`.
    #[test]
    fn vs_bindgen_noreturn_attribute_on_a_function() {
        let prefix = install_of_reference(edit_one(
            "doca_pe.h",
            "void doca_task_free(struct doca_task *task);",
            "void doca_task_free(struct doca_task *task) __attribute__((noreturn));",
        ));
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "doca_task_free",
            "pubfndoca_task_free(task:*mutdoca_task)->!;",
        );
    }

    /// `__attribute__((mode(SI)))` on a typedef makes it 32 bits wide (the functions
    /// taking `doca_dpa_dev_t *` would write 4 bytes where the bundled bindings have
    /// 8): refused.
    #[test]
    fn vs_bindgen_mode_attribute_narrows_a_typedef() {
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "typedef uint64_t doca_dpa_dev_t;",
            "typedef uint64_t doca_dpa_dev_t __attribute__((mode(SI)));",
        ));
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "doca_dpa_dev_t",
            "pubtypedoca_dpa_dev_t=",
        );
    }

    /// A bound typedef declared in a header whose name does not start with `doca_`
    /// (bindgen binds the installed `u32`): the check reads it too, and refuses.
    #[test]
    fn vs_bindgen_typedef_in_a_header_the_check_does_not_follow() {
        let prefix = install_of_reference(edit_one(
            "doca_sync_event.h",
            "typedef uint64_t doca_dpa_dev_sync_event_t;",
            "#include \"dpa_handle_types.h\"",
        ));
        prefix.write(
            "include/dpa_handle_types.h",
            "#include <stdint.h>\ntypedef uint32_t doca_dpa_dev_sync_event_t;\n",
        );
        check_sync_event_handle_is_u32(&prefix);
    }

    /// A bound typedef made by a macro with token pasting (the statement does not
    /// name it): refused, not taken as absent.
    #[test]
    fn vs_bindgen_typedef_made_by_a_token_pasting_macro() {
        let prefix = install_of_reference(edit_one(
            "doca_sync_event.h",
            "typedef uint64_t doca_dpa_dev_sync_event_t;",
            "#define DOCA_DEV_HANDLE(name) typedef uint32_t doca_dpa_dev_##name##_t\n\
                 DOCA_DEV_HANDLE(sync_event);",
        ));
        check_sync_event_handle_is_u32(&prefix);
    }

    /// An `#undef` of a macro bindgen defines (`-DDOCA_ALLOW_EXPERIMENTAL_API`) in an
    /// earlier header changes the headers after it: refused, naming the item the
    /// compiler then sees declared differently.
    #[test]
    fn vs_bindgen_undef_of_a_bindgen_define_in_an_earlier_header() {
        let prefix = install_of_reference(|name, text| match name {
            "doca_error.h" => format!("{text}\n#undef DOCA_ALLOW_EXPERIMENTAL_API\n"),
            "doca_sync_event.h" => {
                let from = "typedef uint64_t doca_dpa_dev_sync_event_t;";
                assert!(text.contains(from));
                text.replacen(
                    from,
                    "#ifdef DOCA_ALLOW_EXPERIMENTAL_API\n\
                         typedef uint64_t doca_dpa_dev_sync_event_t;\n#else\n\
                         typedef uint32_t doca_dpa_dev_sync_event_t;\n#endif",
                    1,
                )
            }
            _ => text,
        });
        check_sync_event_handle_is_u32(&prefix);
    }

    /// An `#undef` under a condition the check cannot decide, then a redefinition:
    /// refused (either value may be the compiler's).
    #[test]
    fn vs_bindgen_undef_under_an_undecidable_condition_macro_value() {
        let prefix = install_of_reference(edit_one(
            "doca_dev.h",
            "#define DOCA_DEVINFO_VUID_SIZE 128",
            "#define DOCA_DEVINFO_VUID_SIZE 256\n#ifdef DOCA_SOMETHING_NOT_DEFINED\n\
                 #undef DOCA_DEVINFO_VUID_SIZE\n#define DOCA_DEVINFO_VUID_SIZE 128\n#endif",
        ));
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "DOCA_DEVINFO_VUID_SIZE",
            "pubconstDOCA_DEVINFO_VUID_SIZE:u32=256;",
        );
    }

    /// The same with a symbol-renaming macro: `#define doca_dpa_destroy
    /// doca_dpa_destroy_v2` may stay in force (bindgen binds doca_dpa_destroy_v2):
    /// refused.
    #[test]
    fn vs_bindgen_undef_under_an_undecidable_condition_symbol_rename() {
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
            "#define doca_dpa_destroy doca_dpa_destroy_v2\n\
                 #ifdef DOCA_SOMETHING_NOT_DEFINED\n#undef doca_dpa_destroy\n#endif\n\
                 doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
        ));
        check_destroy_renamed_to_v2(&prefix);
    }

    /// A bound macro whose installed value the evaluator does not model (a cast;
    /// bindgen binds no constant at all): refused, not kept at the reference's `24`.
    #[test]
    fn vs_bindgen_macro_with_an_unmodelled_value_keeps_the_reference_value() {
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA (24)",
            "#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA ((uint32_t)32)",
        ));
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA",
            "pubtypedoca_dpa_dev_t=u64;",
        );
    }

    /// A function moved to another header that a set header includes: bindgen's
    /// allowlist (`allowlist_file` of the set's headers) does not bind it, and the
    /// bundled bindings leave it out too.
    #[test]
    fn vs_bindgen_function_moved_to_an_included_header() {
        let decl =
            "doca_error_t doca_dpa_get_uar_id(const struct doca_dpa *dpa, uint32_t *uar_id);";
        let prefix = install_of_reference(move |name, text| {
            if name == "doca_dpa.h" {
                assert!(text.contains(decl));
                text.replacen(decl, "", 1).replacen(
                    "#include <doca_error.h>",
                    "#include <doca_error.h>\n#include \"doca_dpa_extra.h\"",
                    1,
                )
            } else {
                text
            }
        });
        prefix.write(
            "include/doca_dpa_extra.h",
            &format!("#include <doca_types.h>\nstruct doca_dpa;\nDOCA_EXPERIMENTAL\n{decl}\n"),
        );
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "doca_dpa_get_uar_id",
            "pubfndoca_dpa_create(",
        );
    }

    /// doca-rdmi.pc present but none of the RDMI headers installed: bindgen refuses
    /// (none of the set's headers found), and so does the bundled path.
    #[test]
    fn vs_bindgen_rdmi_module_without_its_headers() {
        let prefix = install_of_reference(|_, t| t);
        for h in crate::binding_set::RDMI_HEADERS {
            std::fs::remove_file(prefix.path().join("include").join(h)).unwrap();
        }
        let oracle = bindgen_config::generate(
            BindingSet::Rdmi,
            &[prefix.path().join("include")],
            &BindgenOptions::for_sys(BindingSet::Rdmi),
        );
        assert!(
            matches!(oracle, Err(bindgen_config::Error::NoHeaders { .. })),
            "precondition: {oracle:?}"
        );
        let out = TempDir::new("vs-bindgen-out");
        let result = run_bundled(BindingSet::Rdmi, &prefix, &out);
        let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap_or_default();
        assert!(
            result.is_err(),
            "accepted an install with none of the RDMI headers; build_info: {}",
            info.lines()
                .find(|l| l.contains("BINDINGS"))
                .unwrap_or_default()
        );
    }

    /// A renaming macro in doca_compat.h, undone at the end of doca_dpa.h, renames
    /// the declarations between them for the compiler: refused.
    #[test]
    fn vs_bindgen_rename_macro_undefined_after_the_declaration() {
        let prefix = install_of_reference(|name, text| match name {
            "doca_error.h" => {
                format!("{text}\n#define doca_dpa_destroy doca_dpa_destroy_v2\n")
            }
            "doca_dpa.h" => format!("{text}\n#undef doca_dpa_destroy\n"),
            _ => text,
        });
        check_destroy_renamed_to_v2(&prefix);
    }

    /// An asm label and a calling convention hidden behind a macro both make the
    /// statement unparseable: refused, naming the item.
    #[test]
    fn vs_bindgen_sound_asm_label_and_attribute_macro() {
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa) __asm__(\"doca_dpa_destroy_v2\");",
        ));
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "doca_dpa_destroy",
            "doca_dpa_destroy_v2",
        );
        let prefix = install_of_reference(edit_one(
            "doca_dpa.h",
            "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
            "#define DOCA_MS __attribute__((ms_abi))\n\
                 DOCA_MS doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
        ));
        check_destroy_is_win64(&prefix);
    }

    /// A `#define DOCA_VERSION_MINOR` under `#if 0` ahead of the real one: the
    /// version constants come from the lines the preprocessor keeps, as bindgen's.
    #[test]
    fn vs_bindgen_version_macro_taken_from_an_inactive_branch() {
        let prefix = install_of_reference(|_, t| t);
        let path = prefix.path().join("include/doca_version.h");
        let text = std::fs::read_to_string(&path).unwrap();
        let from = "#define DOCA_VERSION_MINOR 0";
        assert!(text.contains(from));
        let text = text.replacen(
            from,
            "#if 0 /* the next release */\n#define DOCA_VERSION_MINOR 9\n#endif\n\
                 #define DOCA_VERSION_MINOR 0",
            1,
        );
        std::fs::write(&path, text).unwrap();
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "DOCA_VERSION_MINOR",
            "pubconstDOCA_VERSION_MINOR:u32=0;",
        );
    }

    /// `packed` on a forward declaration of a struct applies to its later definition.
    #[test]
    fn vs_bindgen_packed_on_a_forward_declaration() {
        let prefix = install_of_reference(edit_one(
            "doca_types.h",
            "struct doca_gather_list {",
            "struct __attribute__((packed)) doca_gather_list;\nstruct doca_gather_list {",
        ));
        check_claim(
            BindingSet::Dpa,
            &prefix,
            "doca_gather_list",
            "pubstructdoca_gather_list",
        );
    }
}

#[test]
fn an_older_install_without_a_bound_constant_keeps_it_unchecked() {
    let prefix = install_of_reference(|name, t| {
        if name == "doca_dpa.h" {
            let changed = t.replace("#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA (24)", "");
            assert_ne!(changed, t, "the reference macro moved");
            changed
        } else {
            t
        }
    });
    let out = TempDir::new("out");
    run_bundled(BindingSet::Dpa, &prefix, &out).unwrap_or_else(|e| panic!("{e}"));
    let b = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
    assert!(b.contains("pub const DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA: u32 = 24;"));
    // Present but different is still refused.
    let prefix = install_of_reference(|name, t| {
        if name == "doca_dpa.h" {
            t.replace(
                "#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA (24)",
                "#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA (25)",
            )
        } else {
            t
        }
    });
    let out = TempDir::new("out");
    let err = run_bundled(BindingSet::Dpa, &prefix, &out).unwrap_err();
    assert_refused(&err, &out, &["DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA"]);
}

#[test]
fn a_backend_error_is_the_source_of_the_build_error() {
    let backend = BackendError::InvalidValue {
        value: "nonsense".into(),
    };
    let err = SysError::from(backend.clone());
    let source = std::error::Error::source(&err).expect("a source");
    assert_eq!(source.downcast_ref::<BackendError>(), Some(&backend));
    assert!(std::error::Error::source(&SysError::MissingEnv("OUT_DIR")).is_none());
}
