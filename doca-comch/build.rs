//! Turns the symbol audits of doca-dpa-sys (DOCA Core, DPA) and doca-comch-sys
//! (DOCA Comch's DPA part) into `doca_sym` cfgs filtered by the `experimental`
//! feature, writes the run-time audit table, and sets `doca_comch_api` when every
//! function the crate calls is usable.

#[path = "src/requirements.rs"]
mod requirements;

fn main() {
    doca_build_support::safe::emit_cfgs_with(&["DOCA_DPA", "DOCA_COMCH"], requirements::PARTS);
}
