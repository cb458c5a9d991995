//! # doca-comch-sys: raw bindings to the DPA part of DOCA Comch
//!
//! Types and `extern "C"` functions of `doca_comch_msgq.h` and the DPA parts of
//! `doca_comch_consumer.h` and `doca_comch_producer.h` that a host program needs
//! for DPA Comms: message queues whose consumers and producers run on a DPA
//! context, consumer completion contexts bound to DPA threads, and the DPA handles
//! (`doca_dpa_dev_comch_consumer_t`, `doca_dpa_dev_comch_producer_t`,
//! `doca_dpa_dev_comch_consumer_completion_t`) kernels use with the calls of
//! `doca_dpa_dev_comch_msgq.h`. DOCA Core and DPA types (`doca_dev`, `doca_ctx`,
//! `doca_error_t`, `doca_dpa`, `doca_dpa_thread`, `doca_dpa_completion`, ...) are
//! not redefined: they are the ones of [`doca_dpa_sys`], so values move between the
//! crates without casts. The CPU side of DOCA Comch (connections, progress-engine
//! tasks) is not bound.
//!
//! The backend is chosen as for `doca-dpa-sys` (see its documentation). On a DOCA
//! install without `doca-comch.pc` this crate still builds, with no Comch items;
//! [`build_info::COMCH_ABSENT_REASON`] says why, and the `doca_comch_absent` cfg is
//! set for this crate.
//!
//! ```
//! match doca_comch_sys::build_info::COMCH_ABSENT_REASON {
//!     None => println!("DOCA Comch bindings present"),
//!     Some(why) => println!("no DOCA Comch in this build: {why}"),
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

// Without doca-comch.pc the generated file holds no item, and a glob re-export of
// nothing is an unused import.
#[cfg(all(doca_backend = "hardware", not(doca_comch_absent)))]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}
#[cfg(all(doca_backend = "hardware", not(doca_comch_absent)))]
pub use generated::*;

// The committed bindings (`bundled/comch.rs`): in a sim build as doca-sim compiles
// them (shared types with the sim), in a docs build compiled here, where the file's
// `use super::dpa::*;` finds doca-dpa-sys.
#[cfg(doca_backend = "docs")]
use doca_dpa_sys as dpa;
#[cfg(doca_backend = "sim")]
pub use doca_dpa_sys::doca_sim::abi::comch::*;
#[cfg(doca_backend = "docs")]
#[path = "../bundled/comch.rs"]
mod bundled;
#[cfg(doca_backend = "docs")]
pub use bundled::*;

/// What this build of the bindings was made for, including why DOCA Comch is
/// absent when it is.
#[allow(missing_docs)]
pub mod build_info {
    include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
}
