//! Builds the crate's DPA application from kernels/*.c (dpacc on hardware, the host
//! compiler on the sim) and generates its Rust declarations.
fn main() {
    doca_build_support::dpa_app::DpaApp::new("user_kernels")
        .sources_in("kernels")
        .build_or_exit();
}
