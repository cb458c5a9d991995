//! Tests of the parent module.

use super::*;
use crate::testutil::TempDir;

/// Inputs that search exactly `dirs` (nothing else).
fn isolated(dirs: &[&Path]) -> ProbeInputs {
    ProbeInputs {
        pkg_config_path: Some(std::env::join_paths(dirs).unwrap_or_default()),
        doca_prefix: None,
        default_prefix: None,
        arch: std::env::consts::ARCH.to_owned(),
        allow_version_mismatch: false,
        isolated: true,
    }
}

/// Whether a `pkg-config` (or `pkgconf`) program can be run. Tests that need one skip
/// without it.
fn pkg_config_available() -> bool {
    ["pkg-config", "pkgconf"].iter().any(|exe| {
        std::process::Command::new(exe)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn pc(name: &str, version: &str, libs: &str) -> String {
    format!(
        "prefix=${{pcfiledir}}/../..\nincludedir=${{prefix}}/include\nlibdir=${{prefix}}/lib\n\n\
             Name: {name}\nDescription: fixture\nVersion: {version}\n\
             Libs: -L${{libdir}} {libs}\nCflags: -I${{includedir}}\n"
    )
}

const MODERN_DPA_H: &str = "DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);\n";

/// A modern-shaped prefix; `versions` gives (module, version) for the .pc files.
fn prefix(versions: &[(&str, &str)], header_version: Option<&str>) -> TempDir {
    let dir = TempDir::new("prefix");
    for (m, v) in versions {
        let lib = format!("-l{}", m.replace('-', "_"));
        dir.write(&format!("lib/pkgconfig/{m}.pc"), &pc(m, v, &lib));
    }
    if let Some(v) = header_version {
        let d = DocaVersion::parse(v).unwrap();
        dir.write(
            "include/doca_version.h",
            &format!(
                "#define DOCA_VERSION_MAJOR {}\n#define DOCA_VERSION_MINOR {}\n\
                     #define DOCA_VERSION_PATCH {}\n#define DOCA_VERSION_STRING \"{v}\"\n",
                d.major, d.minor, d.patch
            ),
        );
    }
    dir.write("include/doca_dpa.h", MODERN_DPA_H);
    dir
}

fn inputs(dir: &TempDir) -> ProbeInputs {
    isolated(&[&dir.path().join("lib/pkgconfig")])
}

macro_rules! need_pkg_config {
    () => {
        if !pkg_config_available() {
            eprintln!("skipping: no pkg-config program on this machine");
            return;
        }
    };
}

#[test]
fn finds_a_modern_install() {
    need_pkg_config!();
    let all = [
        ("doca-common", "3.0.0058"),
        ("doca-dpa", "3.0.0058"),
        ("doca-verbs", "3.0.0058"),
        ("doca-rdmi", "3.0.0058"),
    ];
    let dir = prefix(&all, Some("3.0.0058"));
    let install = probe(&inputs(&dir)).unwrap();
    assert_eq!(install.version, DocaVersion::new(3, 0, 58));
    assert!(install.has("doca-rdmi") && !install.has("libflexio"));
    assert_eq!(
        install.libs(&["doca-dpa", "doca-common"]),
        ["doca_dpa", "doca_common"]
    );
    let inc = install.include_dirs(&[]);
    assert_eq!(inc.len(), 1);
    assert!(inc[0].join("doca_dpa.h").is_file());
    assert!(install.link_dirs(&["doca-dpa"])[0].ends_with("lib"));
    let h = install.version_header.as_ref().unwrap();
    assert_eq!(h.version, install.version);
    assert_eq!(install.pkg_config_versions().len(), 4);
    assert!(install.modules.get("doca-dpa").unwrap().pc_dir.is_some());
    assert!(install.warnings.is_empty());
}

#[test]
fn rdmi_is_optional() {
    need_pkg_config!();
    let dir = prefix(
        &[("doca-common", "2.9.0072"), ("doca-dpa", "2.9.0072")],
        None,
    );
    let install = probe(&inputs(&dir)).unwrap();
    assert!(!install.has("doca-rdmi"));
    assert!(install.version_header.is_none());
}

#[test]
fn mismatch_names_every_version() {
    need_pkg_config!();
    let dir = prefix(
        &[
            ("doca-common", "3.0.0058"),
            ("doca-dpa", "2.10.0078"),
            ("doca-verbs", "3.0.0058"),
            ("doca-rdmi", "3.1.0105"),
        ],
        Some("3.2.0118"),
    );
    let err = probe(&inputs(&dir)).unwrap_err();
    let DiscoveryError::VersionMismatch { found } = &err else {
        panic!("expected a mismatch, got {err}");
    };
    assert_eq!(found.len(), 5);
    let text = err.to_string();
    for needle in [
        "doca-common",
        "doca-dpa",
        "doca-verbs",
        "doca-rdmi",
        "doca_version.h",
        "3.0.0058",
        "2.10.0078",
        "3.1.0105",
        "3.2.0118",
        "partial install: reinstall DOCA so that these agree",
        "DOCA_ALLOW_VERSION_MISMATCH",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    assert!(err.is_broken_install());

    let mut allow = inputs(&dir);
    allow.allow_version_mismatch = true;
    let install = probe(&allow).unwrap();
    assert_eq!(install.version, DocaVersion::new(2, 10, 78));
    assert_eq!(install.warnings.len(), 1);
    assert!(install.warnings[0].contains("2.10.0078"));
}

#[test]
fn header_alone_can_mismatch() {
    need_pkg_config!();
    let dir = prefix(
        &[("doca-common", "3.0.0058"), ("doca-dpa", "3.0.0058")],
        Some("2.10.0087"),
    );
    let text = probe(&inputs(&dir)).unwrap_err().to_string();
    assert!(
        text.contains("doca_version.h") && text.contains("2.10.0087"),
        "{text}"
    );
}

#[test]
fn refuses_the_2_5_fixture_prefix() {
    need_pkg_config!();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/prefix-2.5/lib/x86_64-linux-gnu/pkgconfig");
    let err = probe(&isolated(&[&fixture])).unwrap_err();
    assert!(
        matches!(&err, DiscoveryError::OldInstall { version: Some(v), .. } if *v == DocaVersion::new(2, 5, 108)),
        "{err:?}"
    );
    let text = err.to_string();
    for needle in [
        "2.5.0108",
        "doca.pc",
        "umbrella",
        "doca_version.h",
        "2.9",
        "doca_dpa_set_app",
        "DOCA_BACKEND=sim",
        "PKG_CONFIG_PATH",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    assert!(err.is_broken_install());
}

#[test]
fn refuses_old_versions() {
    need_pkg_config!();
    let dir = prefix(
        &[("doca-common", "2.8.0005"), ("doca-dpa", "2.8.0005")],
        None,
    );
    let err = probe(&inputs(&dir)).unwrap_err();
    assert!(matches!(err, DiscoveryError::OldInstall { .. }), "{err:?}");
    assert!(err.to_string().contains("2.8.0005"));
    assert!(err.to_string().contains("minimum supported DOCA is 2.9"));
}

#[test]
fn not_found_message() {
    need_pkg_config!();
    let empty = TempDir::new("empty");
    let mut inp = isolated(&[empty.path()]);
    inp.doca_prefix = Some(PathBuf::from("/nonexistent/doca"));
    let err = probe(&inp).unwrap_err();
    assert!(!err.is_broken_install());
    let text = err.to_string();
    for needle in [
        "doca-common",
        "doca-dpa",
        "doca-verbs",
        "doca-rdmi",
        "libflexio",
        "PKG_CONFIG_PATH: ",
        &empty.path().display().to_string(),
        "/nonexistent/doca/lib/pkgconfig",
        "/nonexistent/doca/infrastructure/lib/pkgconfig",
        &format!(
            "/nonexistent/doca/lib/{}-linux-gnu/pkgconfig",
            std::env::consts::ARCH
        ),
        "install DOCA",
        "DOCA_PREFIX",
        "DOCA_BACKEND=sim",
        "features = [\"sim\"]",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
}

#[test]
fn not_found_message_without_pkg_config_path() {
    let err = DiscoveryError::NotFound {
        searched: vec!["doca-common".into()],
        missing: vec!["doca-common".into()],
        pkg_config_path: None,
        dirs_tried: vec![PathBuf::from("/opt/mellanox/doca/lib/pkgconfig")],
        details: vec!["Package doca-common was not found".into()],
    };
    let text = err.to_string();
    assert!(text.contains("PKG_CONFIG_PATH: (not set)"));
    assert!(text.contains("pkg-config: Package doca-common was not found"));
}

#[test]
fn unresolved_public_requirement_is_not_missing() {
    need_pkg_config!();
    let dir = prefix(&[("doca-common", "3.0.0058")], None);
    dir.write(
        "lib/pkgconfig/doca-dpa.pc",
        &format!(
            "{}Requires: doca-common, libflexio-missing\n",
            pc("doca-dpa", "3.0.0058", "-ldoca_dpa")
        ),
    );
    let err = probe(&inputs(&dir)).unwrap_err();
    assert!(
        matches!(&err, DiscoveryError::UnresolvedRequirements { module, missing, .. }
                if module == "doca-dpa" && missing == &["libflexio-missing"]),
        "{err:?}"
    );
    assert!(err.is_broken_install());
    assert!(err.to_string().contains("libflexio-missing"));
}

/// Writes `module`.pc into `dir` with `extra` lines (requirements).
fn write_pc(dir: &TempDir, module: &str, version: &str, extra: &str) {
    let lib = format!("-l{}", module.replace('-', "_"));
    dir.write(
        &format!("lib/pkgconfig/{module}.pc"),
        &format!("{}{extra}", pc(module, version, &lib)),
    );
}

/// A modern install whose .pc files carry requirement lines as real ones do.
fn modern_with_requirements(with_flexio: bool) -> TempDir {
    let dir = prefix(&[], Some("3.0.0058"));
    write_pc(
        &dir,
        "doca-common",
        "3.0.0058",
        "Requires.private: libibverbs, libmlx5\n",
    );
    write_pc(
        &dir,
        "doca-dpa",
        "3.0.0058",
        "Requires: doca-common\nRequires.private: libflexio\n",
    );
    for m in ["libibverbs", "libmlx5"] {
        write_pc(&dir, m, "1.0", "");
    }
    if with_flexio {
        write_pc(&dir, "libflexio", "25.04", "Requires.private: libibverbs\n");
    }
    dir
}

#[test]
fn modern_install_with_resolvable_private_requirements() {
    need_pkg_config!();
    let dir = modern_with_requirements(true);
    let install = probe(&inputs(&dir)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(install.version, DocaVersion::new(3, 0, 58));
    assert!(install.has("libflexio"));
    assert_eq!(
        install.libs(&["doca-dpa"]),
        ["doca_dpa", "doca_common"],
        "a dynamic link takes Requires, not Requires.private"
    );
    let dpa = install.modules.get("doca-dpa").unwrap();
    assert_eq!(
        dpa.prefix.as_deref(),
        Some(std::fs::canonicalize(dir.path()).unwrap().as_path())
    );
}

#[test]
fn modern_install_with_unresolvable_private_requirement() {
    need_pkg_config!();
    let dir = modern_with_requirements(false);
    let err = probe(&inputs(&dir)).unwrap_err();
    match &err {
        DiscoveryError::UnresolvedRequirements {
            module,
            version,
            missing,
            ..
        } => {
            assert_eq!(module, "doca-dpa");
            assert_eq!(version, "3.0.0058");
            assert_eq!(missing, &["libflexio"]);
        }
        other => panic!("{other:?}"),
    }
    // Never the sim in auto mode, and the way out is named.
    assert!(err.is_broken_install());
    let text = err.to_string();
    for needle in [
        "doca-dpa 3.0.0058",
        "libflexio",
        "Requires.private",
        DEFAULT_FLEXIO_PKGCONFIG,
        "PKG_CONFIG_PATH",
        "DOCA_BACKEND=sim",
    ] {
        assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
    }
    assert!(!text.contains("DOCA was not found"), "{text}");
}

/// The real 2.5 `doca.pc` requirement lines.
const REQUIRES_2_5: &str = "Requires: doca-libs\nRequires.private: libibverbs, libmlx5, \
                                json-c, libflexio, libdpdk, glib-2.0, libcrypto, libzip\n";

/// A 2.5-shaped prefix: umbrella `doca.pc` (with `extra` lines) and `doca-libs.pc`.
fn prefix_2_5(extra: &str, with_doca_libs: bool) -> TempDir {
    let dir = TempDir::new("prefix-2.5");
    dir.write(
        "lib/pkgconfig/doca.pc",
        &format!(
            "{}{extra}",
            pc("doca", "2.5.0108", "-ldoca_common -ldoca_dpa")
        ),
    );
    if with_doca_libs {
        dir.write(
            "lib/pkgconfig/doca-libs.pc",
            &pc("doca-libs", "2.5.0108", "-ldoca_common -ldoca_dpa"),
        );
    }
    dir.write(
        "include/doca_version.h",
        include_str!("../../tests/fixtures/prefix-2.5/include/doca_version.h"),
    );
    dir
}

#[test]
fn old_umbrella_with_unresolvable_requirements_is_too_old() {
    need_pkg_config!();
    // Private requirements missing (the usual case), and the public one missing too.
    for with_doca_libs in [true, false] {
        let dir = prefix_2_5(REQUIRES_2_5, with_doca_libs);
        let err = probe(&inputs(&dir)).unwrap_err();
        assert!(
            matches!(&err, DiscoveryError::OldInstall { version: Some(v), .. }
                    if *v == DocaVersion::new(2, 5, 108)),
            "doca-libs.pc present: {with_doca_libs}: {err:?}"
        );
        let text = err.to_string();
        assert!(text.contains("doca.pc") && text.contains("2.9"), "{text}");
        if with_doca_libs {
            // The include directory was found without resolving anything private.
            assert!(text.contains("doca_version.h says 2.5.0108"), "{text}");
        }
        // In auto mode too: a too-old install is never replaced by the sim.
        let env = EnvReader::fixed([("DOCA_BACKEND", "auto")]);
        let e = crate::backend::choose(&env, false, || probe(&inputs(&dir))).unwrap_err();
        assert!(e.to_string().contains("DOCA install too old"), "{e}");
        let env = EnvReader::fixed([("DOCA_BACKEND", "hardware")]);
        let e = crate::backend::choose(&env, false, || probe(&inputs(&dir))).unwrap_err();
        assert!(e.to_string().contains("DOCA install too old"), "{e}");
    }
}

#[test]
fn requirement_names_from_messages() {
    let pkgconf = "Package libibverbs was not found in the pkg-config search path.\n\
                       Package 'libibverbs', required by 'doca', not found\n\
                       Package 'libflexio', required by 'doca', not found\n\
                       Package 'libflexio', required by 'doca-dpa', not found\n";
    assert_eq!(
        unresolved_requirements(pkgconf, "doca"),
        ["libibverbs", "libflexio"]
    );
    let freedesktop = "Package json-c was not found in the pkg-config search path.\n\
                           Package 'json-c', required by 'doca', not found";
    assert_eq!(unresolved_requirements(freedesktop, "doca"), ["json-c"]);
    assert_eq!(
        unresolved_requirements("No package 'libzip' found", "doca"),
        ["libzip"]
    );
    // The module itself missing is not a requirement of it.
    assert!(unresolved_requirements(
        "Package 'doca-dpa', required by 'virtual:world', not found",
        "doca-dpa"
    )
    .is_empty());
}

#[test]
fn search_order() {
    let inp = ProbeInputs {
        pkg_config_path: Some(OsString::from("/a:/b")),
        doca_prefix: Some(PathBuf::from("/p")),
        default_prefix: Some(PathBuf::from(DEFAULT_PREFIX)),
        arch: "aarch64".into(),
        allow_version_mismatch: false,
        isolated: false,
    };
    let dirs: Vec<String> = inp
        .dirs_tried()
        .iter()
        .map(|d| d.display().to_string())
        .collect();
    assert_eq!(
        dirs,
        [
            "/a",
            "/b",
            "/p/lib/pkgconfig",
            "/p/lib/aarch64-linux-gnu/pkgconfig",
            "/p/infrastructure/lib/pkgconfig",
            "/opt/mellanox/doca/lib/pkgconfig",
            "/opt/mellanox/doca/lib/aarch64-linux-gnu/pkgconfig",
            "/opt/mellanox/doca/infrastructure/lib/pkgconfig",
            DEFAULT_FLEXIO_PKGCONFIG,
        ]
    );
    let env = EnvReader::fixed([
        ("PKG_CONFIG_PATH", "/x"),
        ("DOCA_PREFIX", "/y"),
        ("DOCA_ALLOW_VERSION_MISMATCH", "1"),
        ("CARGO_CFG_TARGET_ARCH", "aarch64"),
    ]);
    let from_env = ProbeInputs::from_env(&env);
    assert!(from_env.allow_version_mismatch);
    assert_eq!(from_env.arch, "aarch64");
    assert_eq!(from_env.doca_prefix, Some(PathBuf::from("/y")));
    // The prefix names the install: a misspelt one is never replaced by the
    // default install (red team round 5).
    assert_eq!(from_env.default_prefix, None);
    assert!(from_env
        .dirs_tried()
        .iter()
        .all(|d| d.starts_with("/x") || d.starts_with("/y")));
    let unset = ProbeInputs::from_env(&EnvReader::fixed([("PKG_CONFIG_PATH", "/x")]));
    assert_eq!(unset.default_prefix, Some(PathBuf::from(DEFAULT_PREFIX)));
    for v in [
        "PKG_CONFIG_PATH",
        "DOCA_PREFIX",
        "DOCA_ALLOW_VERSION_MISMATCH",
    ] {
        assert!(env.was_read(v));
    }
}
