//! Compiles the sim's C shim (variadic entry points, the device API, the
//! traps that end a kernel instance) and the kernels of the device-fault
//! test, and tells dependants where the reference headers are.

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let include = root.join("include");
    let device_include = root.join("device-include");
    for dir in ["csrc", "include", "device-include"] {
        println!("cargo::rerun-if-changed={dir}");
    }
    cc::Build::new()
        .file("csrc/shim.c")
        .file("csrc/device.c")
        .file("csrc/trap.c")
        .include(&include)
        .include(&device_include)
        .define("DOCA_ALLOW_EXPERIMENTAL_API", None)
        .flag_if_supported("-std=gnu11")
        .warnings(true)
        .extra_warnings(true)
        .cargo_metadata(false)
        .compile("doca_sim_c");
    // Whole archive: the device API of csrc/device.c is called only by
    // kernels, never by the sim's Rust code, and must still be in every
    // library built from this crate (the fake install's shared one exports
    // it with csrc/exports.map, so kernels there reach the same trap state
    // as the sim that runs them).
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo::rustc-link-search=native={out}");
    println!("cargo::rustc-link-lib=static:+whole-archive=doca_sim_c");
    // The kernels of tests/device_faults.rs, an archive in OUT_DIR that only
    // that test links (with #[link]); absent from a packaged crate.
    let test_kernels = root.join("tests/kernels/device_faults.c");
    if test_kernels.exists() {
        println!("cargo::rerun-if-changed=tests/kernels");
        cc::Build::new()
            .file(&test_kernels)
            .include(&include)
            .include(&device_include)
            .flag_if_supported("-std=gnu11")
            .warnings(true)
            .cargo_metadata(false)
            .compile("doca_sim_test_kernels");
    }
    // DEP_DOCA_SIM_INCLUDE / DEP_DOCA_SIM_DEVICE_INCLUDE for doca-dpa-sys, whose
    // `sim` feature is what brings this crate into a build.
    println!("cargo::metadata=include={}", include.display());
    println!(
        "cargo::metadata=device_include={}",
        device_include.display()
    );
}
