//! Copies the reference headers with the DOCA release this build claims
//! (`DOCA_SIM_VERSION`, doca_build_support::sim_version), compiles the sim's
//! C shim (variadic entry points, the device API, the traps that end a kernel
//! instance) and the kernels of the device-fault test against that copy, and
//! tells dependants where it is.

use std::path::PathBuf;

use doca_build_support::env::EnvReader;
use doca_build_support::sim_version;

fn main() {
    let root = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    for dir in ["csrc", "include", "device-include"] {
        println!("cargo::rerun-if-changed={dir}");
    }
    // The claimed release, everywhere from here on: the headers' copy, the
    // run-time version (doca_version_runtime) and, through the headers, the
    // -sys crates' audit and version cfgs.
    let env = EnvReader::from_process();
    let fail = |message: String| -> ! {
        eprintln!("\nerror: {message}\n");
        std::process::exit(1)
    };
    let version = sim_version::claim(&env).unwrap_or_else(|e| fail(e.to_string()));
    let headers = sim_version::claimed_headers(
        &root.join("include"),
        &root.join("device-include"),
        std::path::Path::new(&out),
        version,
    )
    .unwrap_or_else(|e| fail(format!("copying the reference headers: {e}")));
    println!("cargo::rustc-env=DOCA_SIM_CLAIMED_VERSION={version}");
    let constants = format!(
        "pub const DOCA_VERSION_MAJOR: u32 = {};\n\
         pub const DOCA_VERSION_MINOR: u32 = {};\n\
         pub const DOCA_VERSION_PATCH: u32 = {};\n\
         pub const DOCA_VERSION_STRING: &[u8; {}] = b\"{version}\\0\";\n",
        version.major,
        version.minor,
        version.patch,
        version.to_string().len() + 1
    );
    let constants_path = std::path::Path::new(&out).join("claimed_version.rs");
    std::fs::write(&constants_path, constants)
        .unwrap_or_else(|e| fail(format!("{}: {e}", constants_path.display())));
    let include = headers.include;
    let device_include = headers.device_include;
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
    // `sim` feature is what brings this crate into a build: the claimed copy.
    println!("cargo::metadata=include={}", include.display());
    println!(
        "cargo::metadata=device_include={}",
        device_include.display()
    );
}
