//! # doca-rdmi-sys: raw bindings to DOCA RDMI
//!
//! Types, constants and `extern "C"` functions of `doca_rdmi_connection.h` and
//! `doca_rdmi_poster.h`. DOCA Core and DPA types (`doca_dev`, `doca_ctx`,
//! `doca_error_t`, `doca_dpa_completion`, ...) are not redefined: they are the
//! ones of [`doca_dpa_sys`]; nor are the DOCA Verbs objects RDMI is made on
//! (`doca_verbs_context`, `doca_verbs_pd`, `doca_verbs_cq`): they are the ones
//! of [`doca_verbs_sys`], re-exported here. Values move between the crates
//! without casts.
//!
//! The backend is chosen as for `doca-dpa-sys` (see its documentation). On a
//! DOCA install without `doca-rdmi.pc` this crate still builds, with no RDMI
//! items; [`build_info::RDMI_ABSENT_REASON`] says why, and the
//! `doca_rdmi_absent` cfg is set for this crate.
//!
//! ```
//! match doca_rdmi_sys::build_info::RDMI_ABSENT_REASON {
//!     None => println!("RDMI bindings present"),
//!     Some(why) => println!("no RDMI in this build: {why}"),
//! }
//! ```
//!
//! `doca_rdmi_connection_as_ctx` is exported by the library but absent from
//! its public header; it is declared here by hand when the build found it in
//! the library and not in the header.
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
pub use doca_verbs_sys;

// Without doca-rdmi.pc the generated file holds no item, and a glob re-export of
// nothing is an unused import.
#[cfg(all(doca_backend = "hardware", not(doca_rdmi_absent)))]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}
#[cfg(all(doca_backend = "hardware", not(doca_rdmi_absent)))]
pub use generated::*;

// The committed bindings (`bundled/rdmi.rs`): in a sim build as doca-sim compiles
// them (shared types with the sim), in a docs build compiled here, where the file's
// `use super::dpa::*;` and `use super::verbs::*;` find doca-dpa-sys and
// doca-verbs-sys.
#[cfg(doca_backend = "docs")]
use doca_dpa_sys as dpa;
#[cfg(doca_backend = "sim")]
pub use doca_dpa_sys::doca_sim::abi::rdmi::*;
#[cfg(doca_backend = "docs")]
use doca_verbs_sys as verbs;
#[cfg(doca_backend = "docs")]
#[path = "../bundled/rdmi.rs"]
mod bundled;
#[cfg(doca_backend = "docs")]
pub use bundled::*;

/// What only the software DPA can say about RDMI (sim builds only).
#[cfg(doca_backend = "sim")]
pub mod sim {
    /// Bytes per receive slot of a connection's receive buffer: a model choice
    /// of the sim (DOCA does not publish its receive layout).
    pub use doca_dpa_sys::doca_sim::RDMI_SLOT_BYTES as RECEIVE_SLOT_BYTES;
}

#[cfg(doca_hand_declared = "doca_rdmi_connection_as_ctx")]
extern "C" {
    /// The DOCA context of an RDMI connection (declared by hand: the library
    /// exports it, the public header does not declare it).
    pub fn doca_rdmi_connection_as_ctx(
        conn: *mut doca_rdmi_connection,
    ) -> *mut doca_dpa_sys::doca_ctx;
}

/// What this build of the bindings was made for, including why RDMI is
/// absent when it is.
#[allow(missing_docs)]
pub mod build_info {
    include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
}
