//! Passes the backend and the DOCA audit on as cfgs, so the examples and tests can
//! tell the sim from hardware. It builds no DPA kernel: the examples' and tests'
//! kernels come from `doca-test-kernels` (a dev-dependency), so nothing of ours is
//! linked into a dependant.
fn main() {
    doca_build_support::safe::emit_cfgs("DOCA_DPA");
}
