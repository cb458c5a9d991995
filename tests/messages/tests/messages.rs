//! The compiler's messages for what users get wrong: each `tests/ui/*.rs` must fail
//! to compile, and rustc's output must match its `.stderr` (regenerate with
//! `TRYBUILD=overwrite cargo test -p doca-compile-messages` and review the diff).

#[test]
fn misuse_gets_a_message_that_names_the_fix() {
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
