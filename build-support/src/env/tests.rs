//! Tests of the parent module.

use super::*;

#[test]
fn fixed_reader_records_names() {
    let env = EnvReader::fixed([("A", "1"), ("B", "no")]);
    assert_eq!(env.get("A").as_deref(), Some("1"));
    assert!(env.flag("A"));
    assert!(!env.flag("B"));
    assert!(!env.is_set("C"));
    assert_eq!(env.read_names(), vec!["A", "B", "C"]);
    assert!(env.was_read("C"));
    assert!(!env.prints_directives());
}

#[test]
fn empty_value_is_set() {
    let env = EnvReader::fixed([("DOCS_RS", "")]);
    assert!(env.is_set("DOCS_RS"));
    assert!(!env.flag("DOCS_RS"));
}
