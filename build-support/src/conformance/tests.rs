use super::*;

use crate::binding_set::{DPA_HEADERS as DPA_SET, RDMI_HEADERS as RDMI_SET};

use crate::bundled::VERSION_MACROS;

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../doca-sim/include")
}

fn reference_texts(set: &[&str]) -> Vec<HeaderText> {
    set.iter()
        .map(|name| HeaderText {
            file_name: (*name).to_owned(),
            text: std::fs::read_to_string(include_dir().join(name))
                .unwrap_or_else(|e| panic!("{name}: {e}")),
        })
        .collect()
}

fn linux() -> Conditions {
    Conditions::for_target_os("linux")
}

/// The DPA reference items, read once for all tests.
fn dpa_reference() -> &'static Items {
    static ITEMS: std::sync::OnceLock<Items> = std::sync::OnceLock::new();
    ITEMS.get_or_init(|| reference(DPA_SET))
}

fn reference(set: &[&str]) -> Items {
    Items::from_headers(&reference_texts(set), &linux())
}

/// The names of the `pub fn`s of a committed bindings file.
fn committed_functions(set: crate::binding_set::BindingSet) -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let path = set.committed_path(&root.join(set.sys_crate_dir()));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub fn "))
        .map(|rest| rest[..rest.find('(').unwrap_or(rest.len())].to_owned())
        .collect()
}

/// The DPA reference set compared with itself with `file`'s text changed by `edit`.
fn mutated(file: &str, edit: impl Fn(&str) -> String) -> Conformance {
    let mut texts = reference_texts(DPA_SET);
    let h = texts
        .iter_mut()
        .find(|h| h.file_name == file)
        .unwrap_or_else(|| panic!("{file} is not in the set"));
    let before = h.text.clone();
    h.text = edit(&before);
    assert_ne!(h.text, before, "the edit of {file} changed nothing");
    compare(
        dpa_reference(),
        &Items::from_headers(&texts, &linux()),
        VERSION_MACROS,
    )
}

/// `mutated` with one text replacement, which must occur in the header.
fn replaced(file: &str, from: &str, to: &str) -> Conformance {
    mutated(file, |text| {
        assert!(text.contains(from), "{file} does not contain {from:?}");
        text.replacen(from, to, 1)
    })
}

fn keys(c: &Conformance) -> Vec<ItemKey> {
    c.differences.iter().map(|d| d.key.clone()).collect()
}

/// The one difference of `c`, which must be `key`'s: (reference, installed).
fn only_difference(c: &Conformance, key: ItemKey) -> (&str, &str) {
    assert_eq!(keys(c), [key], "{c}");
    (&c.differences[0].reference, &c.differences[0].installed)
}

fn assert_same(c: &Conformance) {
    assert!(c.conforms(), "{c}");
    assert!(
        c.absent_functions.is_empty() && c.absent_other.is_empty(),
        "{c:?}"
    );
}

#[test]
fn reference_dpa_set_against_itself() {
    let items = dpa_reference();
    assert!(items.unparsed().is_empty(), "{:#?}", items.unparsed());
    let functions = items.function_names();
    let committed = committed_functions(crate::binding_set::BindingSet::Dpa);
    assert!(committed.len() > 200, "{}", committed.len());
    let missing: Vec<_> = committed.difference(&functions).collect();
    assert!(
        missing.is_empty(),
        "committed functions not found as items: {missing:?}"
    );
    let c = compare(items, items, &[]);
    assert_same(&c);
    assert_eq!(c.matched, items.len());
    assert!(c.matched > functions.len() + 100, "{}", c.matched);
    // Exempt macros are not compared at all.
    let c = compare(items, items, VERSION_MACROS);
    assert_eq!(c.matched, items.len() - VERSION_MACROS.len());
}

#[test]
fn reference_rdmi_set_against_its_installed_form() {
    // As on hardware: the RDMI headers and the doca_*.h they include (doca_types.h, which
    // defines the size of doca_verbs_gid::raw, is in the other binding set).
    let items = reference(RDMI_SET);
    assert!(items.unparsed().is_empty(), "{:#?}", items.unparsed());
    let committed = committed_functions(crate::binding_set::BindingSet::Rdmi);
    assert!(committed.len() > 50, "{}", committed.len());
    let functions = items.function_names();
    let missing: Vec<_> = committed.difference(&functions).collect();
    assert!(
        missing.is_empty(),
        "committed functions not found as items: {missing:?}"
    );
    let set: Vec<PathBuf> = RDMI_SET.iter().map(|n| include_dir().join(n)).collect();
    let (texts, read) = installed_headers(&set, &[include_dir()]);
    for name in [
        "doca_verbs.h",
        "doca_types.h",
        "doca_error.h",
        "doca_compat.h",
    ] {
        assert!(
            read.iter().any(|p| p.ends_with(name)),
            "{name} not read: {read:?}"
        );
    }
    let installed = Items::from_headers(&texts, &linux());
    let gid = ItemKey::Struct("doca_verbs_gid".into());
    assert_eq!(installed.get(&gid).unwrap().canonical, "{ [16] u8 raw; }");
    let c = compare(&items, &installed, &[]);
    assert_same(&c);
    assert_eq!(c.matched, items.len());
    // A different size in the installed doca_types.h is caught through the struct too.
    let bigger: Vec<HeaderText> = texts
        .iter()
        .map(|h| HeaderText {
            file_name: h.file_name.clone(),
            text: h.text.replace(
                "#define DOCA_GID_BYTE_LENGTH 16",
                "#define DOCA_GID_BYTE_LENGTH 32",
            ),
        })
        .collect();
    let bigger = Items::from_headers(&bigger, &linux());
    let with_context = Items::from_headers_with_context(
        &reference_texts(RDMI_SET),
        &reference_texts(DPA_SET),
        &linux(),
    );
    assert_same(&compare(&with_context, &installed, &[]));
    let c = compare(&with_context, &bigger, &[]);
    assert_eq!(
        only_difference(&c, gid),
        ("{ [16] u8 raw; }", "{ [32] u8 raw; }")
    );
    // Without the context the size is the installed one's on both sides: only the DPA
    // set's check (macro DOCA_GID_BYTE_LENGTH) sees the change.
    assert_same(&compare(&items, &bigger, &[]));
}

#[test]
fn a_parameter_type_changed() {
    let c = replaced("doca_dpa.h", "uint32_t *uar_id", "uint64_t *uar_id");
    assert_eq!(keys(&c), [ItemKey::Function("doca_dpa_get_uar_id".into())]);
    assert_eq!(
        c.differences[0].to_string(),
        "fn doca_dpa_get_uar_id: doca-rs binds `doca_error_t (ptr const struct doca_dpa, ptr u32)`, \
         doca_dpa.h declares `doca_error_t (ptr const struct doca_dpa, ptr u64)`"
    );
    assert!(c.absent_functions.is_empty());
    assert_eq!(c.matched + 1, dpa_reference().len() - VERSION_MACROS.len());
}

#[test]
fn spellings_that_change_nothing() {
    for (file, from, to) in [
        // A parameter renamed.
        ("doca_dpa.h", "uint32_t *uar_id", "uint32_t *the_id"),
        // `const` moved.
        (
            "doca_dpa.h",
            "const struct doca_dpa *dpa, uint32_t *uar_id",
            "struct doca_dpa const *dpa, uint32_t *uar_id",
        ),
        // Another spelling of the same primitive.
        ("doca_dpa.h", "uint32_t *uar_id", "unsigned int *uar_id"),
        // Markers, attributes, `extern`, `(void)` and a by-value `const`.
        (
            "doca_dpa.h",
            "DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_get_uar_id",
            "extern DOCA_STABLE __attribute__((nonnull))\ndoca_error_t doca_dpa_get_uar_id",
        ),
        (
            "doca_version.h",
            "doca_version_runtime(void)",
            "doca_version_runtime()",
        ),
        (
            "doca_dpa.h",
            "doca_dpa_dev_uintptr_t dev_ptr, int value",
            "const doca_dpa_dev_uintptr_t dev_ptr, int value",
        ),
        // The same macro value written another way.
        ("doca_dpa.h", "MAX_USER_DATA (24)", "MAX_USER_DATA 0x18U"),
        // An enumerator added.
        (
            "doca_ctx.h",
            "DOCA_CTX_STATE_STOPPING = 3,",
            "DOCA_CTX_STATE_STOPPING = 3, DOCA_CTX_STATE_EXTRA = 7,",
        ),
        // An implicit value written out.
        (
            "doca_pe.h",
            "DOCA_PE_EVENT_MODE_PROGRESS_ALL,",
            "DOCA_PE_EVENT_MODE_PROGRESS_ALL = 0x1,",
        ),
        // A comment with a different declaration in it.
        (
            "doca_dpa.h",
            "doca_error_t doca_dpa_get_uar_id",
            "/* int doca_dpa_get_uar_id(void); */ doca_error_t doca_dpa_get_uar_id",
        ),
        // Array parameters are pointers.
        (
            "doca_dev.h",
            "const struct doca_devinfo *devinfo, char *pci_addr_str)",
            "const struct doca_devinfo *devinfo, char pci_addr_str[13])",
        ),
    ] {
        let c = replaced(file, from, to);
        assert_same(&c);
    }
}

#[test]
fn an_enumerator_value_changed() {
    let c = replaced(
        "doca_ctx.h",
        "DOCA_CTX_STATE_STOPPING = 3",
        "DOCA_CTX_STATE_STOPPING = 4",
    );
    assert_eq!(
        only_difference(&c, ItemKey::Enumerator("DOCA_CTX_STATE_STOPPING".into())),
        ("3 (enum doca_ctx_states)", "4 (enum doca_ctx_states)")
    );
}

#[test]
fn a_negative_enumerator_changes_the_enum() {
    let c = replaced(
        "doca_ctx.h",
        "DOCA_CTX_STATE_STOPPING = 3,",
        "DOCA_CTX_STATE_STOPPING = 3, DOCA_CTX_STATE_BAD = -1,",
    );
    assert_eq!(
        only_difference(&c, ItemKey::Enum("doca_ctx_states".into())),
        ("u32", "i32")
    );
}

#[test]
fn a_union_field_added_or_reordered() {
    let added = replaced(
        "doca_types.h",
        "uint64_t u64;",
        "uint64_t u64; uint32_t u32;",
    );
    let swapped = mutated("doca_types.h", |t| {
        t.replacen("void *ptr;", "@", 1)
            .replacen("uint64_t u64;", "void *ptr;", 1)
            .replacen('@', "uint64_t u64;", 1)
    });
    for c in [added, swapped] {
        assert_eq!(keys(&c), [ItemKey::Union("doca_data".into())], "{c}");
    }
}

#[test]
fn a_struct_field_added_or_renamed() {
    let items = reference(RDMI_SET);
    let edit = |from: &str, to: &str| {
        let texts: Vec<HeaderText> = reference_texts(RDMI_SET)
            .into_iter()
            .map(|mut h| {
                h.text = h.text.replacen(from, to, 1);
                h
            })
            .collect();
        compare(&items, &Items::from_headers(&texts, &linux()), &[])
    };
    let gid = ItemKey::Struct("doca_verbs_gid".into());
    let added = edit(
        "uint8_t raw[DOCA_GID_BYTE_LENGTH];",
        "uint8_t raw[DOCA_GID_BYTE_LENGTH]; uint32_t pad : 4;",
    );
    assert_eq!(keys(&added), std::slice::from_ref(&gid));
    assert_eq!(
        added.differences[0].installed,
        "{ [DOCA_GID_BYTE_LENGTH] u8 raw; u32 pad : 4; }"
    );
    assert_eq!(keys(&edit("raw[", "bytes[")), std::slice::from_ref(&gid));
    // A body only declared (`struct doca_verbs_gid;`): bindgen would make the struct
    // opaque, the bundled bindings would keep its fields, so it is a difference.
    let opaque = edit(
        "struct doca_verbs_gid {",
        "struct doca_verbs_gid; struct doca_verbs_gid_unused {",
    );
    let (_, installed) = only_difference(&opaque, gid);
    assert!(
        installed.contains("not declared in a form this check compares"),
        "{installed}"
    );
}

#[test]
fn a_macro_value_changed() {
    let c = replaced("doca_dpa.h", "MAX_USER_DATA (24)", "MAX_USER_DATA (1 << 5)");
    let key = ItemKey::Macro("DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA".into());
    assert_eq!(only_difference(&c, key), ("24", "32"));
    // The version macros are exempt; without the exemption they differ.
    let edit = |t: &str| t.replacen("DOCA_VERSION_MINOR 3", "DOCA_VERSION_MINOR 0", 1);
    assert_same(&mutated("doca_version.h", edit));
    let mut texts = reference_texts(DPA_SET);
    for h in &mut texts {
        h.text = edit(&h.text);
    }
    let c = compare(dpa_reference(), &Items::from_headers(&texts, &linux()), &[]);
    assert_eq!(keys(&c), [ItemKey::Macro("DOCA_VERSION_MINOR".into())]);
}

#[test]
fn a_function_removed_is_absent() {
    let c = replaced(
        "doca_dpa.h",
        "doca_error_t doca_dpa_get_uar_id(const struct doca_dpa *dpa, uint32_t *uar_id);",
        "",
    );
    assert!(c.conforms(), "{c}");
    assert_eq!(
        c.absent_functions,
        BTreeSet::from(["doca_dpa_get_uar_id".to_owned()])
    );
    assert!(c.absent_other.is_empty());
}

#[test]
fn a_callback_typedef_changed() {
    let c = replaced(
        "doca_pe.h",
        "(*doca_task_completion_cb_t)(struct doca_task *task",
        "(*doca_task_completion_cb_t)(struct doca_task_batch *task",
    );
    let key = ItemKey::Typedef("doca_task_completion_cb_t".into());
    assert_eq!(
        only_difference(&c, key).1,
        "ptr (void (ptr struct doca_task_batch, union doca_data, union doca_data))"
    );
}

#[test]
fn an_unparseable_statement_naming_an_item_fails_closed() {
    let c = replaced(
        "doca_dpa.h",
        "doca_error_t doca_dpa_get_uar_id(const struct doca_dpa *dpa, uint32_t *uar_id);",
        "DOCA_DECLARE(doca_dpa_get_uar_id, const struct doca_dpa *dpa, uint32_t *uar_id);",
    );
    let key = ItemKey::Function("doca_dpa_get_uar_id".into());
    assert!(only_difference(&c, key).1.contains("cannot parse"), "{c}");
    assert!(c.absent_functions.is_empty());
    // One that names nothing of the reference is ignored.
    assert_same(&replaced(
        "doca_dpa.h",
        "#define DOCA_DPA_COMPLETION",
        "DOCA_STATIC_ASSERT(sizeof(int) == 4);\n#define DOCA_DPA_COMPLETION",
    ));
}

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("doca-conformance-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn functions_moved_into_included_headers() {
    let tmp = TempDir::new("moved");
    let main = tmp.0.join("main");
    let other = tmp.0.join("other");
    std::fs::create_dir_all(&main).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    for h in reference_texts(DPA_SET) {
        std::fs::write(main.join(&h.file_name), &h.text).unwrap();
    }
    let uar = "DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_get_uar_id(const struct doca_dpa *dpa, uint32_t *uar_id);";
    let thread_id = "DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_thread_get_id(struct doca_dpa_thread *dpa_thread, uint32_t *dpa_thread_id);";
    let dpa = std::fs::read_to_string(main.join("doca_dpa.h")).unwrap();
    assert!(dpa.contains(uar) && dpa.contains(thread_id));
    let dpa = dpa
        .replacen(uar, "", 1)
        .replacen(thread_id, "", 1)
        .replacen(
            "#include <doca_error.h>",
            "#include <doca_error.h>\n#include \"doca_dpa_extra.h\"",
            1,
        );
    std::fs::write(main.join("doca_dpa.h"), dpa).unwrap();
    // One in a header next to doca_dpa.h, included in quotes; that one includes another,
    // found in the second include directory.
    std::fs::write(
        main.join("doca_dpa_extra.h"),
        format!("#include <doca_dpa_more.h>\n{uar}\n"),
    )
    .unwrap();
    std::fs::write(
        other.join("doca_dpa_more.h"),
        format!("#include <doca_dpa_extra.h>\n{thread_id}\n"),
    )
    .unwrap();
    let set: Vec<PathBuf> = DPA_SET.iter().map(|n| main.join(n)).collect();
    let (texts, read) = installed_headers(&set, &[main.clone(), other.clone()]);
    assert!(read.contains(&main.join("doca_dpa_extra.h")), "{read:?}");
    assert!(read.contains(&other.join("doca_dpa_more.h")), "{read:?}");
    // Included twice (and in a cycle): read once. (doca_compat.h, included by all, was
    // not copied: an include that is not found is skipped.)
    assert_eq!(read.len(), DPA_SET.len() + 2, "{read:?}");
    let installed = Items::from_headers(&texts, &linux());
    assert_same(&compare(dpa_reference(), &installed, VERSION_MACROS));
    assert_eq!(
        installed
            .get(&ItemKey::Function("doca_dpa_get_uar_id".into()))
            .unwrap()
            .file,
        "doca_dpa_extra.h"
    );
    // Without the second directory, that function is absent.
    let (texts, _) = installed_headers(&set, std::slice::from_ref(&main));
    let c = compare(
        dpa_reference(),
        &Items::from_headers(&texts, &linux()),
        VERSION_MACROS,
    );
    assert!(c.conforms(), "{c}");
    assert_eq!(
        c.absent_functions,
        BTreeSet::from(["doca_dpa_thread_get_id".to_owned()])
    );
    // A set header that does not exist is left out.
    let (texts, read) = installed_headers(&[main.join("doca_nothing.h")], &[main]);
    assert!(texts.is_empty() && read.is_empty());
}

fn items_of(text: &str) -> Items {
    Items::from_headers(
        &[HeaderText {
            file_name: "doca_x.h".into(),
            text: text.into(),
        }],
        &linux(),
    )
}

fn canonical(items: &Items, key: ItemKey) -> String {
    items
        .get(&key)
        .unwrap_or_else(|| panic!("{key} missing"))
        .canonical
        .clone()
}

#[test]
fn record_bodies() {
    let base =
        "struct doca_s { uint32_t a; uint8_t b[16]; unsigned c : 3; struct doca_s *next; };\n";
    let reference = items_of(base);
    let key = ItemKey::Struct("doca_s".into());
    assert_eq!(
        canonical(&reference, key.clone()),
        "{ u32 a; [16] u8 b; u32 c : 3; ptr struct doca_s next; }"
    );
    for (from, to, differs) in [
        (
            "uint32_t a; uint8_t b[16];",
            "uint8_t b[16]; uint32_t a;",
            true,
        ),
        ("c : 3", "c : 4", true),
        ("b[16]", "b[15]", true),
        ("uint32_t a;", "uint32_t a; uint32_t pad;", true),
        ("b[16]", "b[0x10]", false),
        ("uint32_t a;", "unsigned int a;", false),
        ("uint32_t a;", "const uint32_t a;", false),
        // Layout attributes count for a record.
        ("};", "} __attribute__((packed));", true),
        (
            "struct doca_s {",
            "#pragma pack(push, 1)\nstruct doca_s {",
            true,
        ),
        (
            "struct doca_s {",
            "struct __attribute__((aligned(8))) doca_s {",
            true,
        ),
    ] {
        let c = compare(&reference, &items_of(&base.replacen(from, to, 1)), &[]);
        assert_eq!(
            keys(&c),
            if differs { vec![key.clone()] } else { vec![] },
            "{from} -> {to}"
        );
    }
}

#[test]
fn an_anonymous_typedef_record_keeps_its_layout() {
    let plain = items_of("typedef struct { uint32_t a; uint64_t b; } doca_t;\n");
    let key = ItemKey::Typedef("doca_t".into());
    assert_eq!(canonical(&plain, key.clone()), "struct { u32 a; u64 b; }");
    let packed =
        items_of("typedef struct { uint32_t a; uint64_t b; } __attribute__((packed)) doca_t;\n");
    assert_eq!(keys(&compare(&plain, &packed, &[])), [key]);
}

#[test]
fn an_enumerator_removed_is_absent() {
    let c = replaced("doca_ctx.h", "DOCA_CTX_STATE_STOPPING = 3,", "");
    assert!(c.conforms(), "{c}");
    assert_eq!(
        c.absent_other,
        [ItemKey::Enumerator("DOCA_CTX_STATE_STOPPING".into())]
    );
    assert!(c.absent_functions.is_empty());
}

#[test]
fn values_and_enum_types() {
    let items = items_of(
        "#define DOCA_A 13\n#define DOCA_B 0xd\n#define DOCA_C 13U\n#define DOCA_S \"a b\"\n\
         #define DOCA_F(x) (x)\n#define DOCA_E\n#define DOCA_CAST ((uint32_t)1)\n#define OTHER 5\n\
         #define DOCA_NEXT (DOCA_LATER + 1)\n#define DOCA_LATER 2\n#define DOCA_GONE 1\n#undef DOCA_GONE\n\
         #ifdef _WIN32\n#define DOCA_WIN 1\n#endif\n\
         enum doca_big { DOCA_BIG_A = 0x100000000, DOCA_BIG_B };\n\
         enum doca_neg_big { DOCA_NB_A = -1, DOCA_NB_B = 0x80000000 };\n\
         enum doca_hi { DOCA_HI = 0xFFFFFFFF };\n\
         enum { DOCA_ANON_A = OTHER, DOCA_ANON_B = DOCA_ANON_A << 2 | 1 };\n\
         typedef enum { DOCA_T_A = ~0U } doca_t_e;\n\
         enum doca_odd { DOCA_ODD_A = sizeof(int), DOCA_ODD_B };\n",
    );
    for (m, v) in [
        ("DOCA_A", "13"),
        ("DOCA_B", "13"),
        ("DOCA_C", "13"),
        ("DOCA_S", "\"a b\""),
        ("DOCA_NEXT", "3"),
    ] {
        assert_eq!(canonical(&items, ItemKey::Macro(m.into())), v, "{m}");
    }
    for m in [
        "DOCA_F",
        "DOCA_E",
        "DOCA_CAST",
        "OTHER",
        "DOCA_GONE",
        "DOCA_WIN",
    ] {
        assert!(items.get(&ItemKey::Macro(m.into())).is_none(), "{m}");
    }
    let e = |n: &str| canonical(&items, ItemKey::Enum(n.into()));
    let v = |n: &str| canonical(&items, ItemKey::Enumerator(n.into()));
    assert_eq!(e("doca_big"), "u64");
    assert_eq!(v("DOCA_BIG_B"), "4294967297 (enum doca_big)");
    assert_eq!(e("doca_neg_big"), "i64");
    assert_eq!(e("doca_hi"), "u32");
    assert_eq!(v("DOCA_ANON_B"), "21 (anonymous enum, u32)");
    assert_eq!(e("doca_t_e"), "u32");
    assert_eq!(v("DOCA_T_A"), "4294967295 (enum doca_t_e)");
    assert_eq!(
        canonical(&items, ItemKey::Typedef("doca_t_e".into())),
        "enum"
    );
    // Values that are not integer constants are compared as text, never dropped.
    assert_eq!(v("DOCA_ODD_A"), "`sizeof ( int )` (enum doca_odd)");
    assert_eq!(v("DOCA_ODD_B"), "`(sizeof ( int )) + 1` (enum doca_odd)");
    assert!(e("doca_odd").starts_with("not evaluated"));
}

#[test]
fn odd_input_never_panics() {
    for text in [
        "",
        "{",
        "}",
        "struct {",
        "enum e {",
        "typedef",
        "typedef ;",
        "int (*)(;",
        "#define DOCA_X (",
        "#define DOCA_X 1 <<",
        "#define DOCA_A DOCA_B\n#define DOCA_B DOCA_A\n",
        "#define\n#undef\n#",
        "enum e { A = , B };",
        "struct s { int a : ; };",
        "struct s { int a[; };",
        "int f(int a[)];",
        "é(ü);",
        "\"unterminated",
        "typedef struct { struct { union { int x; }; }; } deep;",
    ] {
        let items = items_of(text);
        let _ = compare(&items, &items, &[]);
    }
    // Self-reference ends as an unevaluated macro (compared as text), not a stack
    // overflow.
    let items = items_of("#define DOCA_A DOCA_B\n#define DOCA_B DOCA_A\n");
    assert_eq!(canonical(&items, ItemKey::Macro("DOCA_A".into())), "DOCA_B");
}

#[test]
fn the_report_is_sorted_one_line_each() {
    let c = mutated("doca_dpa.h", |t| {
        t.replacen("uint32_t *uar_id", "uint64_t *uar_id", 1)
            .replacen("MAX_USER_DATA (24)", "MAX_USER_DATA (25)", 1)
    });
    let text = c.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("fn doca_dpa_get_uar_id: "), "{text}");
    assert!(
        lines[1].starts_with("macro DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA: doca-rs binds `24`"),
        "{text}"
    );
}

/// The DPA reference set against real DOCA headers, when `DOCA_REAL_HEADERS` names a
/// directory of them (they are NVIDIA's text and are not in this repository).
#[test]
fn real_doca_headers() {
    let Some(dir) = std::env::var_os("DOCA_REAL_HEADERS") else {
        eprintln!("skipped: set DOCA_REAL_HEADERS to a directory of real DOCA headers to run it");
        return;
    };
    let dir = PathBuf::from(dir);
    let set: Vec<PathBuf> = DPA_SET.iter().map(|n| dir.join(n)).collect();
    let (texts, read) = installed_headers(&set, std::slice::from_ref(&dir));
    assert!(read.len() >= DPA_SET.len(), "{read:?}");
    let installed = Items::from_headers(&texts, &linux());
    let result = compare(dpa_reference(), &installed, VERSION_MACROS);
    eprintln!(
        "{} items matched; absent functions {:?}; absent others {:?}",
        result.matched, result.absent_functions, result.absent_other
    );
    assert!(result.conforms(), "{result}");
    assert!(result.matched > 300, "{}", result.matched);
}

#[test]
fn a_macro_that_renames_a_bound_function_fails_closed() {
    // Symbol versioning by macro: the compiler (and bindgen) would call
    // doca_dpa_destroy_v2, the bundled bindings doca_dpa_destroy.
    let c = mutated("doca_dpa.h", |t| {
        t.replacen(
            "#include <doca_error.h>",
            "#include <doca_error.h>\n#define doca_dpa_destroy doca_dpa_destroy_v2\n",
            1,
        )
    });
    let (_, installed) = only_difference(&c, ItemKey::Function("doca_dpa_destroy".into()));
    assert!(
        installed.contains("a macro of the same name"),
        "{installed}"
    );
    assert!(c.absent_functions.is_empty());
}

#[test]
fn a_macro_that_replaces_a_bound_type_fails_closed() {
    let c = replaced(
        "doca_types.h",
        "typedef int doca_event_handle_t;",
        "typedef int doca_event_handle_t;\n#define doca_event_handle_t long",
    );
    let (_, installed) = only_difference(&c, ItemKey::Typedef("doca_event_handle_t".into()));
    assert!(installed.contains("replaces it"), "{installed}");
}

#[test]
fn two_ways_under_an_undecidable_condition_fail_closed() {
    let c = replaced(
        "doca_dpa.h",
        "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
        "#ifdef SOMETHING_THIS_CHECK_CANNOT_KNOW\n\
         doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);\n#else\n\
         doca_error_t doca_dpa_destroy(struct doca_dpa *dpa, int flags);\n#endif",
    );
    let (_, installed) = only_difference(&c, ItemKey::Function("doca_dpa_destroy".into()));
    assert!(installed.contains("declared more than once"), "{installed}");
    assert!(
        installed.contains("(ptr struct doca_dpa, i32)"),
        "{installed}"
    );
    // The same declaration twice is no conflict.
    let same = replaced(
        "doca_dpa.h",
        "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
        "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);\n\
         doca_error_t doca_dpa_destroy(struct doca_dpa *ctx);",
    );
    assert_same(&same);
}

#[test]
fn a_macro_defined_two_ways_fails_closed() {
    let c = replaced(
        "doca_types.h",
        "typedef int doca_event_handle_t;",
        "typedef int doca_event_handle_t;\n#ifdef UNKNOWABLE\n#define DOCA_GID_BYTE_LENGTH 32\n#endif",
    );
    let (_, installed) = only_difference(&c, ItemKey::Macro("DOCA_GID_BYTE_LENGTH".into()));
    assert!(installed.contains("more than once"), "{installed}");
    // An #undef between two definitions is the preprocessor's way to change one.
    let undone = replaced(
        "doca_types.h",
        "typedef int doca_event_handle_t;",
        "typedef int doca_event_handle_t;\n#undef DOCA_GID_BYTE_LENGTH\n#define DOCA_GID_BYTE_LENGTH 16",
    );
    assert_same(&undone);
}
