//! Builds the DPA applications of the examples and the integration tests (dpacc on
//! hardware, the host compiler against doca-sim's device headers on the sim).
//!
//! The kernels that take RDMI device types (`examples/kernels/rdmi/`,
//! `tests/kernels/rdmi/`) are part of the apps only where the DOCA this build uses
//! has RDMI (`DEP_DOCA_DPA_RDMI=present`; the sim always has it). No public DOCA
//! release ships RDMI headers, so on such an install (DOCA 3.0, say) neither the
//! device compiler nor the host launchers could name those types. The Rust code
//! that launches them is inside `doca::rdmi::if_rdmi!`, which is only expanded where
//! RDMI is present too; elsewhere the RDMI example and tests say why they are
//! skipped.
fn main() {
    println!("cargo::rerun-if-env-changed=DEP_DOCA_DPA_RDMI");
    let rdmi = std::env::var("DEP_DOCA_DPA_RDMI").is_ok_and(|v| v.trim() == "present");
    let mut examples = doca_build_support::dpa_app::DpaApp::new("doca_examples")
        .sources_in("../../examples/kernels");
    let mut tests =
        doca_build_support::dpa_app::DpaApp::new("doca_tests").sources_in("../../tests/kernels");
    if rdmi {
        examples = examples.sources_in("../../examples/kernels/rdmi");
        tests = tests.sources_in("../../tests/kernels/rdmi");
    }
    examples.build_or_exit();
    tests.build_or_exit();
}
