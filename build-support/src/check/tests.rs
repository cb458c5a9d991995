use super::*;

#[test]
fn failed_assertions_are_read_from_error_lines_only() {
    let stderr = "/t/c.c:30:5: error: static assertion failed: \"doca-rs check: doca_dpa_destroy: its type is not the reference type doca_error_t (struct doca_dpa *)\"\n\
        /t/c.c:33:39: note: in expansion of macro 'DOCA_RS_FN_OF'\n\
        \x20  93 | #define DOCA_RS_TYPEDEF(name, type) _Static_assert(x, \"doca-rs check: \" #name \": it is not\");\n";
    let d = failed_assertions(stderr);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].item, "doca_dpa_destroy");
    assert_eq!(
        d[0].expected,
        "its type is not the reference type doca_error_t (struct doca_dpa *)"
    );
}
