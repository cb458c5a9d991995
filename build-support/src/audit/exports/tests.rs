//! Tests of the parent module.

use super::*;

#[test]
fn unreadable_library_is_an_error_not_a_panic() {
    let dir = crate::testutil::TempDir::new("exports");
    let missing = dir.path().join("libnope.so");
    assert!(matches!(exports_of(&missing), Err(ExportsError::Io { .. })));
    let script = dir.path().join("libscript.so");
    std::fs::write(&script, "/* GNU ld script */\nINPUT(libscript.so.1)\n").unwrap();
    let err = exports_of(&script).unwrap_err();
    assert!(matches!(err, ExportsError::Parse { .. }));
    assert!(err.to_string().contains("libscript.so"));
}

#[test]
fn reads_a_real_shared_library() {
    // libc is on every Linux machine that runs these tests; find it through the same
    // search the audit uses (following the libc.so.6 name, since libc.so may be a
    // linker script).
    let dirs = system_library_dirs(std::env::consts::ARCH);
    let Some(libc) = dirs
        .iter()
        .map(|d| d.join("libc.so.6"))
        .find(|p| p.exists())
    else {
        eprintln!("skipping: no libc.so.6 in the usual directories");
        return;
    };
    let names = exports_of(&libc).unwrap();
    assert!(names.contains("malloc"), "malloc not exported by {libc:?}");
    assert!(names.contains("printf"));
    assert!(!names.iter().any(|n| n.contains('@')));
}

#[test]
fn follows_symlinks_and_versioned_names() {
    let dirs = system_library_dirs(std::env::consts::ARCH);
    let Some(real) = dirs
        .iter()
        .map(|d| d.join("libc.so.6"))
        .find(|p| p.exists())
    else {
        eprintln!("skipping: no libc.so.6 in the usual directories");
        return;
    };
    let dir = crate::testutil::TempDir::new("symlink");
    std::os::unix::fs::symlink(&real, dir.path().join("libdoca_fake.so.3")).unwrap();
    let found = find_shared_library("doca_fake", &[dir.path().to_owned()]).unwrap();
    assert!(found.ends_with("libdoca_fake.so.3"));
    std::os::unix::fs::symlink(
        dir.path().join("libdoca_fake.so.3"),
        dir.path().join("libdoca_fake.so"),
    )
    .unwrap();
    let found = find_shared_library("doca_fake", &[dir.path().to_owned()]).unwrap();
    assert!(found.ends_with("libdoca_fake.so"));
    assert!(exports_of(&found).unwrap().contains("malloc"));

    let all = Exports::of_libraries(
        &["doca_fake".to_owned(), "doca_missing".to_owned()],
        &[dir.path().to_owned()],
    );
    assert!(!all.complete);
    assert_eq!(all.status("malloc"), Some(true));
    assert_eq!(all.status("doca_nothing"), None);
    assert_eq!(all.problems.len(), 1);
    assert!(all.problems[0].contains("libdoca_missing.so"));
}

#[test]
fn known_exports_are_complete() {
    let e = Exports::known(["a", "b"]);
    assert_eq!(e.status("a"), Some(true));
    assert_eq!(e.status("c"), Some(false));
}
