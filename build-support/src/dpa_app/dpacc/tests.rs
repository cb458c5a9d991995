//! Tests of the parent module.

use super::*;

fn opts() -> DpaccOptions {
    DpaccOptions {
        app_name: "my_app".into(),
        sources: vec!["/k/a.c".into(), "/k/b.c".into()],
        output: "/out/libdoca_dpa_app_my_app.a".into(),
        host_cc: "gcc".into(),
        doca_include_dirs: vec!["/opt/mellanox/doca/include".into()],
        dpa_lib_dirs: vec!["/opt/mellanox/doca/lib/x86_64-linux-gnu".into()],
        include_dirs: vec!["/k/include".into()],
        defines: vec![("FOO".into(), Some("1".into())), ("BAR".into(), None)],
        proc_attr_blob: Some("/out/my_app.attrs.blob".into()),
    }
}

fn strings(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

const HOST: &str = "-hostcc-options=-fPIC -Wno-deprecated-declarations \
                        -DDOCA_ALLOW_EXPERIMENTAL_API -DFLEXIO_ALLOW_EXPERIMENTAL_API";
const DEVICE: &str = "--devicecc-options=-DDOCA_ALLOW_EXPERIMENTAL_API \
                          -DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API -O2 -DFOO=1 -DBAR -I/k/include";

#[test]
fn doca_2_9() {
    let a = strings(&dpacc_command(DocaVersion::new(2, 9, 72), &opts()));
    assert_eq!(
        a,
        [
            "/k/a.c",
            "/k/b.c",
            "-o",
            "/out/libdoca_dpa_app_my_app.a",
            "-mcpu=nv-dpa-bf3",
            "-hostcc=gcc",
            HOST,
            DEVICE,
            "--app-name=my_app",
            "-I/k/include",
            "-I/opt/mellanox/doca/include",
            "-device-libs=-L/opt/mellanox/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev_comm",
        ]
    );
}

#[test]
fn doca_3_0() {
    let a = strings(&dpacc_command(DocaVersion::new(3, 0, 58), &opts()));
    assert!(a.contains(&"-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8".to_owned()));
    assert!(a.contains(
            &"-device-libs=-L/opt/mellanox/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev -ldoca_dpa_dev_comm"
                .to_owned()
        ));
    assert!(a.contains(&"--app-name=my_app".to_owned()));
    assert!(a.contains(&HOST.to_owned()));
    // A blob is given, but 3.0 takes no --dpa-proc-attr.
    assert!(!a.iter().any(|x| x.starts_with("--dpa-proc-attr")));
    // 2.10 and 3.1 are the same.
    for v in [DocaVersion::new(2, 10, 0), DocaVersion::new(3, 1, 0)] {
        assert_eq!(strings(&dpacc_command(v, &opts())), a);
    }
}

#[test]
fn doca_3_2() {
    let a = strings(&dpacc_command(DocaVersion::new(3, 2, 118), &opts()));
    assert_eq!(a[4], "-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8,nv-dpa-cx9");
    assert!(a.contains(
            &"-device-libs=-L/opt/mellanox/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev -ldoca_dpa_dev_comm -ldoca_dpa_dev_verbs"
                .to_owned()
        ));
    assert_eq!(
        a.last().map(String::as_str),
        Some("--dpa-proc-attr=/out/my_app.attrs.blob")
    );
    assert!(a[6].contains("-fPIC"));
    // Without a blob, no option.
    let mut o = opts();
    o.proc_attr_blob = None;
    let a = strings(&dpacc_command(DocaVersion::new(3, 3, 0), &o));
    assert!(!a.iter().any(|x| x.starts_with("--dpa-proc-attr")));
}

#[test]
fn no_libdir_no_user_options() {
    let mut o = opts();
    o.dpa_lib_dirs.clear();
    o.include_dirs.clear();
    o.defines.clear();
    let a = strings(&dpacc_command(DocaVersion::new(3, 0, 58), &o));
    assert!(a.contains(&"-device-libs=-ldoca_dpa_dev -ldoca_dpa_dev_comm".to_owned()));
    assert!(a.contains(
        &"--devicecc-options=-DDOCA_ALLOW_EXPERIMENTAL_API -DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API -O2"
            .to_owned()
    ));
}

#[test]
fn real_dpacc_output() {
    let real =
        "dpacc: NVIDIA (R)\nCopyright (c) 2021-2025 NVIDIA Corporation\ndpacc version 1.12.0.26\n";
    let v = parse_dpacc_version(real).unwrap();
    assert_eq!(v.text, "1.12.0.26");
    assert_eq!(v.parts, [1, 12, 0, 26]);
    assert_eq!(v.to_string(), "1.12.0.26");
}

#[test]
fn dpacc_version_shapes() {
    let v = |s: &str| parse_dpacc_version(s).map(|v| v.text);
    // The line that says "version" wins over an earlier number.
    assert_eq!(
        v("dpacc 9.9 build tool\nNVIDIA DPACC version 3.0.0058 (clang 17.0.6)"),
        Some("3.0.0058".into())
    );
    assert_eq!(v("dpacc 2.10\n"), Some("2.10".into()));
    assert_eq!(
        v("x86_64 build v2 of dpacc: 3.2.0118."),
        Some("3.2.0118".into())
    );
    assert_eq!(v("1.2.3.4.5"), Some("1.2.3.4".into()));
    // Years, single numbers and glued numbers are no versions.
    assert_eq!(v("Copyright (c) 2021-2025 NVIDIA\nno version here 7"), None);
    assert_eq!(v("dpacc (development build)"), None);
    assert_eq!(v(""), None);
    assert_eq!(v("99999999999.1"), None);
}

fn dv(text: &str) -> DpaccVersion {
    parse_dpacc_version(text).unwrap()
}

#[test]
fn pairings() {
    let doca_3_1 = DocaVersion::new(3, 1, 105);
    let real = dv("dpacc version 1.12.0.26");
    assert_eq!(pair_dpacc(doca_3_1, &real, false), DpaccPairing::Known);
    // The same dpacc on another DOCA release: the table's one source is
    // uncertain, so it is a warning with the evidence, not a refusal...
    assert_eq!(
        pair_dpacc(DocaVersion::new(3, 0, 58), &real, false),
        DpaccPairing::Uncertain {
            dpacc_seen_with: (3, 1),
            evidence: KNOWN_DPACC_PAIRINGS[0].evidence,
        }
    );
    assert!(KNOWN_DPACC_PAIRINGS[0].evidence.contains("DOCA 3.1+"));
    // ...while a certain row refuses it.
    let certain = [KnownPairing {
        certain: true,
        ..KNOWN_DPACC_PAIRINGS[0]
    }];
    assert_eq!(
        pair_dpacc_in(&certain, DocaVersion::new(3, 0, 58), &real, false),
        DpaccPairing::Mismatch {
            dpacc_belongs_to: (3, 1)
        }
    );
    assert_eq!(
        pair_dpacc_in(&certain, DocaVersion::new(3, 0, 58), &real, true),
        DpaccPairing::SameInstall
    );
    // ...unless it is the install's own dpacc.
    assert_eq!(
        pair_dpacc(DocaVersion::new(3, 0, 58), &real, true),
        DpaccPairing::SameInstall
    );
    // Another dpacc on DOCA 3.1: unknown, and the known one is named.
    assert_eq!(
        pair_dpacc(doca_3_1, &dv("1.12.0.30"), false),
        DpaccPairing::Unknown {
            doca_ships: Some("1.12.0.26")
        }
    );
    // A release the table does not know.
    assert_eq!(
        pair_dpacc(DocaVersion::new(3, 2, 118), &dv("1.13.0.4"), false),
        DpaccPairing::Unknown { doca_ships: None }
    );
    // No arithmetic: a dpacc numbered like DOCA is not "the same release".
    assert_eq!(
        pair_dpacc(DocaVersion::new(3, 0, 58), &dv("3.0.0058"), false).as_str(),
        "unknown"
    );
    for k in KNOWN_DPACC_PAIRINGS {
        assert!(parse_dpacc_version(k.dpacc).is_some(), "{}", k.dpacc);
    }
}

#[cfg(unix)]
#[test]
fn dpacc_of_prefix() {
    let dir = crate::testutil::TempDir::new("dpacc-prefix");
    let real = dir.write("doca/tools/dpacc", "");
    std::os::unix::fs::symlink(&real, dir.path().join("dpacc-link")).unwrap();
    let prefix = dir.path().join("doca");
    assert!(is_dpacc_of_prefix(&real, &prefix));
    assert!(is_dpacc_of_prefix(&dir.path().join("dpacc-link"), &prefix));
    // A `..` spelling of the prefix is the same prefix.
    assert!(is_dpacc_of_prefix(&real, &prefix.join("tools/..")));
    let other = dir.write("elsewhere/dpacc", "");
    assert!(!is_dpacc_of_prefix(&other, &prefix));
    assert!(!is_dpacc_of_prefix(&real, &dir.path().join("nonexistent")));
}
