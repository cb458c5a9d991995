//! Tests of the parent module.

use super::*;

// What the crate's tests ask a reader about the names it read.
impl EnvReader {
    /// Every name read so far, sorted.
    pub(crate) fn read_names(&self) -> Vec<String> {
        self.read.borrow().iter().cloned().collect()
    }

    /// Whether `name` has been read.
    pub(crate) fn was_read(&self, name: &str) -> bool {
        self.read.borrow().contains(name)
    }
}

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
    let mut expected = Directives::new();
    for name in ["A", "B", "C"] {
        expected.push(format!("cargo::rerun-if-env-changed={name}"));
    }
    assert_eq!(env.declarations(), expected);
}

#[test]
fn a_deferred_process_reader_prints_nothing_until_asked() {
    let env = EnvReader::from_process_deferred();
    assert!(!env.prints_directives());
    env.get_os("DOCA_RS_ENV_TEST_UNSET");
    assert_eq!(
        env.declarations().lines(),
        ["cargo::rerun-if-env-changed=DOCA_RS_ENV_TEST_UNSET"]
    );
}

#[test]
fn empty_value_is_set() {
    let env = EnvReader::fixed([("DOCS_RS", "")]);
    assert!(env.is_set("DOCS_RS"));
    assert!(!env.flag("DOCS_RS"));
}
