//! Tests of the parent module.

use super::*;

#[test]
fn args() {
    let p = |v: &[&str]| Args::parse(v.iter().map(|s| (*s).to_owned()));
    assert_eq!(p(&[]).unwrap(), Args::default());
    let a = p(&["--check", "--headers", "/h", "--out=/o"]).unwrap();
    assert!(a.check);
    assert_eq!(a.headers, Some(PathBuf::from("/h")));
    assert_eq!(a.out, Some(PathBuf::from("/o")));
    assert!(p(&["--headers"]).is_err());
    assert!(p(&["--bogus"]).unwrap_err().contains("usage"));
}

#[test]
fn diff() {
    assert!(diff_summary("a\nb\n", "a\nc\nd\n").contains("first at line 2"));
    let s = diff_summary("a\n", "a\nb\n");
    assert!(s.contains("<end of file>") && s.contains("1 differ"));
}

#[test]
fn defaults_point_into_the_workspace() {
    assert!(default_headers_dir().ends_with("doca-sim/include"));
    assert!(default_committed_path(BindingSet::Dpa).ends_with("doca-dpa-sys/bundled/dpa.rs"));
    assert!(default_committed_path(BindingSet::Rdmi).ends_with("doca-rdmi-sys/bundled/rdmi.rs"));
    assert!(default_committed_path(BindingSet::Comch).ends_with("doca-comch-sys/bundled/comch.rs"));
}
