//! Tests of the parent module.

use super::*;

#[test]
fn includable_paths() {
    assert!(includable(Path::new("/a/b.c")).is_ok());
    assert!(matches!(
        includable(Path::new("/a/\"b.c")),
        Err(DpaAppError::UnusablePath { .. })
    ));
    assert!(includable(Path::new("/a\n/b.c")).is_err());
}
