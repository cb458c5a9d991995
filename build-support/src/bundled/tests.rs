//! Tests of the parent module.

use super::*;

fn committed(set: BindingSet) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = set.committed_path(&root.join(set.sys_crate_dir()));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const VERSION_30: &str = "#define DOCA_VERSION_MAJOR 3\n#define DOCA_VERSION_MINOR 0\n\
        #define DOCA_VERSION_PATCH 58\n#define DOCA_VERSION_STRING \"3.0.0058\"\n";

#[test]
fn lists_every_kind_of_item() {
    let items = committed_items(&committed(BindingSet::Dpa));
    let has = |kind, name: &str| items.iter().any(|i| i.kind == kind && i.name == name);
    assert!(has(CommittedKind::Function, "doca_dpa_create"));
    assert!(has(CommittedKind::Constant, "DOCA_ERROR_SKIPPED"));
    assert!(has(CommittedKind::Type, "doca_error"));
    assert!(has(CommittedKind::Alias, "doca_error_t"));
    assert!(has(CommittedKind::Union, "doca_data"));
    assert!(has(CommittedKind::OpaqueStruct, "doca_dpa"));
    assert!(
        !items.iter().any(|i| i.kind == CommittedKind::Other),
        "{items:?}"
    );
    let odd = committed_items("pub static DOCA_X: u32 = 1;\n");
    assert_eq!(odd[0].kind, CommittedKind::Other);
    let fns = items
        .iter()
        .filter(|i| i.kind == CommittedKind::Function)
        .count();
    let text = committed(BindingSet::Dpa);
    assert_eq!(fns, text.matches("    pub fn ").count());
    assert!(fns > 200, "{fns}");
}

#[test]
fn drops_absent_functions_with_their_docs() {
    let text = committed(BindingSet::Dpa);
    let absent: BTreeSet<String> = ["doca_dpa_create", "doca_dpa_kernel_launch_update_set"]
        .map(str::to_owned)
        .into();
    let out = render(BindingSet::Dpa, &text, &absent, Some(VERSION_30), "/x").unwrap();
    assert!(!out.contains("pub fn doca_dpa_create("), "still declared");
    assert!(!out.contains("pub fn doca_dpa_kernel_launch_update_set("));
    assert!(
        !out.contains("Creates a DPA context on an opened device."),
        "doc kept"
    );
    assert!(out.contains("pub fn doca_dpa_destroy("));
    let before = committed_items(&text).len();
    assert_eq!(committed_items(&out).len(), before - 2);
    // Nothing half-dropped: every line of a multi-line prototype went.
    assert_eq!(
        out.matches("    pub fn ").count(),
        text.matches("    pub fn ").count() - 2
    );
    assert_eq!(
        out.matches(") -> ").count() + 2,
        text.matches(") -> ").count()
    );
}

#[test]
fn version_constants_follow_the_installed_header() {
    let text = committed(BindingSet::Dpa);
    let out = render(
        BindingSet::Dpa,
        &text,
        &BTreeSet::new(),
        Some(VERSION_30),
        "/x",
    )
    .unwrap();
    assert!(
        out.contains("pub const DOCA_VERSION_MINOR: u32 = 0;"),
        "{out}"
    );
    assert!(out.contains("pub const DOCA_VERSION_PATCH: u32 = 58;"));
    assert!(out.contains("pub const DOCA_VERSION_STRING: &[u8; 9] = b\"3.0.0058\\0\";"));
    let no_patch = VERSION_30.replace("#define DOCA_VERSION_PATCH 58\n", "");
    let err = render(
        BindingSet::Dpa,
        &text,
        &BTreeSet::new(),
        Some(&no_patch),
        "/x",
    )
    .unwrap_err();
    assert_eq!(
        err,
        BundledError::VersionMacro {
            name: "DOCA_VERSION_PATCH",
            found: None
        }
    );
    assert!(
        err.to_string()
            .contains("does not define DOCA_VERSION_PATCH"),
        "{err}"
    );
    let hex = VERSION_30.replace("MINOR 0", "MINOR (0x0)");
    let err = render(BindingSet::Dpa, &text, &BTreeSet::new(), Some(&hex), "/x").unwrap_err();
    assert!(err.to_string().contains("`(0x0)`"), "{err}");
}

#[test]
fn rdmi_reaches_the_dpa_items_through_the_sys_crate() {
    let text = committed(BindingSet::Rdmi);
    let out = render(BindingSet::Rdmi, &text, &BTreeSet::new(), None, "/x").unwrap();
    assert!(out.contains("\nuse doca_dpa_sys::*;\n"), "{out}");
    assert!(!out.contains("use super::dpa::*;"));
    let stale = text.replace("use super::dpa::*;", "");
    let err = render(BindingSet::Rdmi, &stale, &BTreeSet::new(), None, "/x").unwrap_err();
    assert!(matches!(err, BundledError::Missing(_)), "{err:?}");
}

#[test]
fn a_file_without_version_constants_is_refused() {
    let err = render(
        BindingSet::Dpa,
        "pub const X: u32 = 1;\n",
        &BTreeSet::new(),
        Some(VERSION_30),
        "/x",
    )
    .unwrap_err();
    assert_eq!(
        err,
        BundledError::Missing("the constant DOCA_VERSION_MAJOR".into())
    );
}
