//! Builds the probe's DPA application in hardware mode: with the fake prefix,
//! `DPACC` is the fake dpacc, which records its command line.
fn main() {
    doca_build_support::dpa_app::DpaApp::new("kprobe_app")
        .source("kernels/kprobe.c")
        .build_or_exit();
}
