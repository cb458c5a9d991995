//! # doca-verbs-sys: raw bindings to DOCA Verbs
//!
//! Types, constants and `extern "C"` functions of `doca_verbs.h`: verbs contexts,
//! protection domains, completion queues, queue pairs with their attributes and
//! state changes, address handles, and the external memory (UMEM, UAR) a queue on
//! the DPA datapath is made with. DOCA RDMI (`doca-rdmi-sys`) and DPA Verbs are
//! built on these objects. DOCA Core and DPA types (`doca_dev`, `doca_devinfo`,
//! `doca_error_t`, `doca_dpa`, `doca_dpa_completion`, ...) are not redefined:
//! they are the ones of [`doca_dpa_sys`], so values move between the crates
//! without casts.
//!
//! The backend is chosen as for `doca-dpa-sys` (see its documentation). On a
//! DOCA install without `doca-verbs.pc` (DOCA 3.0 has no `doca_verbs.h`) this
//! crate still builds, with no Verbs items; [`build_info::VERBS_ABSENT_REASON`]
//! says why, and the `doca_verbs_absent` cfg is set for this crate.
//!
//! ```
//! match doca_verbs_sys::build_info::VERBS_ABSENT_REASON {
//!     None => println!("DOCA Verbs bindings present"),
//!     Some(why) => println!("no DOCA Verbs in this build: {why}"),
//! }
//! ```
#![allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    missing_docs,
    unreachable_pub,
    missing_debug_implementations,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    rustdoc::all
)]

pub use doca_dpa_sys;

// Without doca-verbs.pc the generated file holds no item, and a glob re-export of
// nothing is an unused import.
#[cfg(all(doca_backend = "hardware", not(doca_verbs_absent)))]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}
#[cfg(all(doca_backend = "hardware", not(doca_verbs_absent)))]
pub use generated::*;

// The committed bindings (`bundled/verbs.rs`): in a sim build as doca-sim compiles
// them (shared types with the sim), in a docs build compiled here, where the file's
// `use super::dpa::*;` finds doca-dpa-sys.
#[cfg(doca_backend = "docs")]
use doca_dpa_sys as dpa;
#[cfg(doca_backend = "sim")]
pub use doca_dpa_sys::doca_sim::abi::verbs::*;
#[cfg(doca_backend = "docs")]
#[path = "../bundled/verbs.rs"]
mod bundled;
#[cfg(doca_backend = "docs")]
pub use bundled::*;

/// What this build of the bindings was made for, including why DOCA Verbs is
/// absent when it is.
#[allow(missing_docs)]
pub mod build_info {
    include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
}
