//! Turns the symbol audits of doca-dpa-sys (DOCA Core, DPA) and doca-rdma-sys
//! (DOCA RDMA) into `doca_sym` cfgs filtered by the `experimental` feature, writes
//! the run-time audit table, and enables each part of the crate whose functions
//! are all usable: `doca_rdma_api` (contexts and connections),
//! `doca_rdma_remote_mmap` (maps made from a peer's export) and
//! `doca_rdma_remote_event` (remote-net sync events made from a peer's export).

#[path = "src/requirements.rs"]
mod requirements;

fn main() {
    doca_build_support::safe::emit_cfgs_with(&["DOCA_DPA", "DOCA_RDMA"], requirements::PARTS);
}
