//! Builds the DPA applications of the examples and the integration tests (dpacc on
//! hardware, the host compiler against doca-sim's device headers on the sim).
//!
//! `kernels/examples` and `kernels/tests` are symbolic links to `examples/kernels`
//! and `tests/kernels`: the sources stay where the examples and tests are, and
//! `cargo package` (which follows the links) puts them in this package's tarball,
//! so its verification build finds them.
fn main() {
    doca_build_support::dpa_app::DpaApp::new("doca_examples")
        .sources_in("kernels/examples")
        .build_or_exit();
    doca_build_support::dpa_app::DpaApp::new("doca_tests")
        .sources_in("kernels/tests")
        .build_or_exit();
}
