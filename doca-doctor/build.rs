//! Passes the backend doca was built for on as the `doca_backend` cfg (from doca's
//! links metadata, `DEP_DOCA_BACKEND`), so the sim-only report is compiled only where
//! doca-sim is in the build.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(doca_backend, values(\"hardware\", \"sim\", \"docs\"))");
    println!("cargo::rerun-if-env-changed=DEP_DOCA_BACKEND");
    if let Ok(backend) = std::env::var("DEP_DOCA_BACKEND") {
        println!("cargo::rustc-cfg=doca_backend=\"{}\"", backend.trim());
    }
}
