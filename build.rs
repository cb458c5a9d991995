//! Passes the backend and the DOCA audit on as cfgs, so the examples and tests can
//! tell the sim from hardware, and passes doca-dpa-sys's links metadata on to
//! dependants (`links = "doca"`: `DEP_DOCA_BACKEND`, `DEP_DOCA_INCLUDE`, …), so a
//! crate that depends on `doca` alone can build its DPA apps with
//! `doca_build_support::dpa_app::DpaApp`. It builds no DPA kernel: the examples' and
//! tests' kernels come from `doca-test-kernels` (a dev-dependency), so nothing of ours
//! is linked into a dependant.
fn main() {
    doca_build_support::safe::emit_cfgs("DOCA_DPA");
    let mut metadata: Vec<(String, String)> = std::env::vars()
        .filter_map(|(name, value)| {
            let key = name.strip_prefix("DEP_DOCA_DPA_")?;
            Some((key.to_ascii_lowercase(), value))
        })
        .collect();
    metadata.sort();
    for (key, value) in metadata {
        // Metadata values are one line; paths lists and versions are.
        println!("cargo::metadata={key}={value}");
    }
}
