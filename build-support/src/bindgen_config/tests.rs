//! Tests of the parent module.

use super::*;
use crate::testutil::TempDir;

#[test]
fn resolves_and_skips_headers() {
    let a = TempDir::new("inc-a");
    let b = TempDir::new("inc-b");
    a.write("doca_dpa.h", "");
    b.write("doca_dpa.h", "");
    b.write("doca_error.h", "");
    let dirs = [a.path().to_owned(), b.path().to_owned()];
    let sel = resolve_headers(BindingSet::Dpa, &dirs, &[]);
    assert_eq!(
        sel.used,
        [b.path().join("doca_error.h"), a.path().join("doca_dpa.h")]
    );
    assert_eq!(sel.missing.len(), DPA_HEADERS.len() - 2);
    let opts = BindgenOptions {
        skip_headers: vec!["doca_dpa.h".into()],
        ..Default::default()
    };
    let sel = resolve_headers(BindingSet::Dpa, &dirs, &opts.skip_headers);
    assert_eq!(sel.used, [b.path().join("doca_error.h")]);
    let err = generate(BindingSet::Rdmi, &dirs, &BindgenOptions::default()).unwrap_err();
    assert!(matches!(err, Error::NoHeaders { .. }));
    assert!(err.to_string().contains("doca_rdmi_poster.h"));
}

#[test]
fn options() {
    assert_eq!(
        BindgenOptions::for_committed(BindingSet::Rdmi).raw_lines,
        ["use super::dpa::*;", "use super::verbs::*;"]
    );
    assert_eq!(
        BindgenOptions::for_sys(BindingSet::Rdmi).raw_lines,
        ["use doca_dpa_sys::*;", "use doca_verbs_sys::*;"]
    );
    assert_eq!(
        BindgenOptions::for_sys(BindingSet::Verbs).raw_lines,
        ["use doca_dpa_sys::*;"]
    );
    assert!(BindgenOptions::for_sys(BindingSet::Dpa)
        .raw_lines
        .is_empty());
    assert!(BindgenOptions::for_committed(BindingSet::Dpa).rustfmt);
}

#[test]
fn callbacks() {
    let cb = Callbacks;
    assert!(matches!(
        cb.will_parse_macro("DOCA_VERSION_STRING"),
        MacroParsingBehavior::Default
    ));
    assert!(matches!(
        cb.will_parse_macro("__STDC_VERSION__"),
        MacroParsingBehavior::Ignore
    ));
}

/// Generation over small fixture headers; skipped where libclang is not installed.
#[test]
fn generates_consts_and_reuses_dpa_items() {
    let dir = TempDir::new("bindgen");
    dir.write(
        "doca_error.h",
        "#ifndef DOCA_ERROR_H_\n#define DOCA_ERROR_H_\n\
             /** @brief Error codes. */\n\
             typedef enum doca_error {\n\
               DOCA_SUCCESS = 0, /**< Success */\n\
               DOCA_ERROR_UNKNOWN = 1,\n\
             } doca_error_t;\n#endif\n",
    );
    dir.write(
            "doca_dev.h",
            "#include <stdint.h>\n#include \"doca_error.h\"\n\
             struct doca_dev;\n\
             #define DOCA_DEVINFO_IBDEV_NAME_SIZE 64\n\
             #define NOT_OURS 3\n\
             /**\n * @brief Open.\n *\n * @param [in] n\n * A [count].\n * @return\n * DOCA_SUCCESS.\n */\n\
             doca_error_t doca_dev_open(uint32_t n, struct doca_dev **dev);\n",
        );
    dir.write(
            "doca_verbs.h",
            "#include \"doca_dev.h\"\nstruct doca_dev;\nstruct doca_verbs_context;\n\
             /** @mystery keep me raw */\n\
             doca_error_t doca_verbs_context_create(struct doca_dev *dev, struct doca_verbs_context **ctx);\n",
        );
    dir.write(
        "doca_rdmi_poster.h",
        "#include \"doca_verbs.h\"\nstruct doca_rdmi_poster;\n\
         doca_error_t doca_rdmi_poster_create(struct doca_verbs_context *ctx, struct doca_rdmi_poster **p);\n",
    );
    let dirs = [dir.path().to_owned()];
    let _env = crate::testutil::env_lock();
    let fmt = |set| BindgenOptions {
        rustfmt: true,
        ..BindgenOptions::for_sys(set)
    };
    let dpa = match generate(BindingSet::Dpa, &dirs, &fmt(BindingSet::Dpa)) {
        Err(e) if e.is_libclang_missing() => {
            eprintln!("skipping: {e}");
            return;
        }
        other => other.unwrap(),
    };
    assert!(dpa.starts_with(GENERATED_HEADER), "{dpa}");
    assert!(
        dpa.contains("pub const DOCA_SUCCESS: doca_error = 0;"),
        "{dpa}"
    );
    assert!(
        dpa.contains("pub use self::doca_error as doca_error_t;"),
        "{dpa}"
    );
    assert!(
        !dpa.contains("enum doca_error {"),
        "a Rust enum was generated: {dpa}"
    );
    assert!(dpa.contains("pub fn doca_dev_open"), "{dpa}");
    assert!(dpa.contains("DOCA_DEVINFO_IBDEV_NAME_SIZE"), "{dpa}");
    assert!(!dpa.contains("NOT_OURS"), "{dpa}");
    // Raw bindings: no doc comments.
    assert!(!dpa.contains("///") && !dpa.contains("#[doc"), "{dpa}");

    let verbs = generate(BindingSet::Verbs, &dirs, &fmt(BindingSet::Verbs)).unwrap();
    assert!(verbs.contains("use doca_dpa_sys::*;"), "{verbs}");
    assert!(
        verbs.contains("pub fn doca_verbs_context_create"),
        "{verbs}"
    );
    assert!(verbs.contains("pub struct doca_verbs_context"), "{verbs}");
    assert!(!verbs.contains("pub struct doca_dev {"), "{verbs}");

    // RDMI reuses both: the verbs context is the Verbs set's, not defined again.
    let rdmi = generate(BindingSet::Rdmi, &dirs, &fmt(BindingSet::Rdmi)).unwrap();
    assert!(rdmi.contains("use doca_dpa_sys::*;"), "{rdmi}");
    assert!(rdmi.contains("use doca_verbs_sys::*;"), "{rdmi}");
    assert!(rdmi.contains("pub fn doca_rdmi_poster_create"), "{rdmi}");
    assert!(!rdmi.contains("pub struct doca_verbs_context"), "{rdmi}");
    assert!(!rdmi.contains("pub fn doca_verbs_context_create"), "{rdmi}");
    assert!(
        !rdmi.contains("pub struct doca_dev "),
        "doca_dev defined twice: {rdmi}"
    );
    assert!(
        !rdmi.contains("pub struct doca_dev {"),
        "doca_dev defined twice: {rdmi}"
    );
    assert!(!rdmi.contains("as doca_error_t;"), "{rdmi}");
    assert!(!rdmi.contains("DOCA_SUCCESS"), "{rdmi}");
}
