//! The compiler's messages for what users get wrong: each `tests/ui/*.rs` must fail
//! to compile, and rustc's output must match its `.stderr` (regenerate with
//! `TRYBUILD=overwrite cargo test -p doca-compile-messages` and review the diff).

use std::io::IsTerminal;

#[test]
fn misuse_gets_a_message_that_names_the_fix() {
    // trybuild colours its report whenever TERM names a terminal type, even when
    // its output goes to a file or a pipe (a CI log): NO_COLOR (which its
    // terminal library honours) keeps escape codes out of a log. This is the
    // binary's only test, so no other thread reads the environment meanwhile.
    if !std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        std::env::set_var("NO_COLOR", "1");
    }
    trybuild::TestCases::new().compile_fail("tests/ui/*.rs");
}
