//! Turns the symbol audits of doca-dpa-sys (DOCA Core, DPA) and doca-verbs-sys
//! (DOCA Verbs) into `doca_sym` cfgs filtered by the `experimental` feature,
//! writes the run-time audit table, and enables each part of the crate whose
//! functions are all usable: `doca_verbs_api` (contexts, PDs, CQs) and
//! `doca_verbs_qp` (queue pairs on the DPA datapath, their UMEMs and UAR).

#[path = "src/requirements.rs"]
mod requirements;

fn main() {
    doca_build_support::safe::emit_cfgs_with(&["DOCA_DPA", "DOCA_VERBS"], requirements::PARTS);
}
