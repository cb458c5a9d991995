//! The version cfgs of the DOCA the -sys crate found, as a user's build script gets
//! them.
fn main() {
    doca_build_support::safe::emit_cfgs("DOCA_DPA");
}
