//! Builds the DPA applications of the examples and the integration tests (dpacc on
//! hardware, the host compiler against doca-sim's device headers on the sim).
fn main() {
    doca_build_support::dpa_app::DpaApp::new("doca_examples")
        .sources_in("../../examples/kernels")
        .build_or_exit();
    doca_build_support::dpa_app::DpaApp::new("doca_tests")
        .sources_in("../../tests/kernels")
        .build_or_exit();
}
