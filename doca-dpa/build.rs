//! Turns the -sys crate's symbol audit into `doca_sym` cfgs (filtered by the
//! `experimental` feature) and the run-time audit table.
fn main() {
    doca_build_support::safe::emit_cfgs("DOCA_DPA");
}
