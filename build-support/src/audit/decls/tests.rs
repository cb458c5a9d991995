//! Tests of the parent module: declarations as the compiler sees them.

use super::*;
use crate::testutil::TempDir;

/// What a compiler for the host target makes of `header` (with a doca_compat.h that
/// defines the markers as DOCA's does).
fn declared(header: &str) -> Vec<(String, Marker, String)> {
    let dir = TempDir::new("audit-decls");
    dir.write(
        "doca_compat.h",
        "#pragma once\n#define DOCA_STABLE __attribute__((visibility(\"default\")))\n\
         #define DOCA_EXPERIMENTAL __attribute__((deprecated)) DOCA_STABLE\n\
         #define DOCA_DEPRECATED __attribute__((deprecated))\n",
    );
    let h = dir.write("doca_fx.h", header);
    let work = TempDir::new("audit-decls-work");
    declarations(
        &EnvReader::fixed(Vec::<(String, String)>::new()),
        &[h],
        &[dir.path().to_owned()],
        work.path(),
    )
    .unwrap()
    .into_iter()
    .map(|d| (d.name, d.marker, d.header))
    .collect()
}

#[test]
fn markers_branches_and_what_is_not_a_declaration() {
    let got = declared(
        "#include <doca_compat.h>\n\
         struct doca_x; typedef int doca_err;\n\
         /* DOCA_STABLE doca_err doca_in_a_comment(void); */\n\
         DOCA_EXPERIMENTAL\ndoca_err doca_a(struct doca_x *x, void (*cb)(int));\n\
         DOCA_STABLE __attribute__((nonnull)) doca_err doca_b(int);\n\
         DOCA_DEPRECATED doca_err doca_c(void);\n\
         doca_err doca_d(void);\n\
         #ifdef _WIN32\nDOCA_STABLE doca_err doca_windows_only(void);\n#endif\n\
         #if 0\nDOCA_STABLE doca_err doca_never(void);\n#endif\n\
         static inline int doca_helper(void) { return doca_d(); }\n\
         typedef void (*doca_cb_t)(struct doca_x *);\n\
         struct doca_y { void (*f)(int); doca_err (*g)(void); };\n\
         #define DOCA_RENAME(n) doca_##n\nDOCA_STABLE doca_err DOCA_RENAME(e)(void);\n",
    );
    let expected = [
        ("doca_a", Marker::Experimental),
        ("doca_b", Marker::Stable),
        ("doca_c", Marker::Deprecated),
        ("doca_d", Marker::Unmarked),
        ("doca_e", Marker::Stable),
    ];
    let got: Vec<(&str, Marker)> = got.iter().map(|(n, m, _)| (n.as_str(), *m)).collect();
    assert_eq!(got, expected);
}

#[test]
fn marker_names_round_trip() {
    for m in [
        Marker::Experimental,
        Marker::Stable,
        Marker::Deprecated,
        Marker::Unmarked,
    ] {
        assert_eq!(Marker::parse(&m.to_string().to_lowercase()), Some(m));
    }
    assert_eq!(Marker::from_token("DOCA_EXPORTED"), Some(Marker::Stable));
    assert_eq!(Marker::parse("sometimes"), None);
}
