//! # doca-rdma-sys: raw bindings to DOCA RDMA's DPA datapath
//!
//! Types and `extern "C"` functions of `doca_rdma.h` that a host program needs to
//! put a DOCA RDMA context on the DPA datapath: create and configure the context,
//! attach its DPA completion context, export and connect its connections, and read
//! the DPA handle (`doca_dpa_dev_rdma_t`) kernels post with. DOCA Core and DPA
//! types (`doca_dev`, `doca_ctx`, `doca_error_t`, `doca_dpa_completion`, ...) are
//! not redefined: they are the ones of [`doca_dpa_sys`], so values move between
//! the crates without casts. The memory maps and remote-net sync events RDMA
//! uses (`doca_mmap_export_rdma`, `doca_mmap_create_from_export`,
//! `doca_sync_event_remote_net_*`) are DOCA Core's, in [`doca_dpa_sys`].
//!
//! The backend is chosen as for `doca-dpa-sys` (see its documentation). On a
//! DOCA install without `doca-rdma.pc` this crate still builds, with no RDMA
//! items; [`build_info::RDMA_ABSENT_REASON`] says why, and the
//! `doca_rdma_absent` cfg is set for this crate.
//!
//! ```
//! match doca_rdma_sys::build_info::RDMA_ABSENT_REASON {
//!     None => println!("DOCA RDMA bindings present"),
//!     Some(why) => println!("no DOCA RDMA in this build: {why}"),
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

// Without doca-rdma.pc the generated file holds no item, and a glob re-export of
// nothing is an unused import.
#[cfg(all(doca_backend = "hardware", not(doca_rdma_absent)))]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}
#[cfg(all(doca_backend = "hardware", not(doca_rdma_absent)))]
pub use generated::*;

// The committed bindings (`bundled/rdma.rs`): in a sim build as doca-sim compiles
// them (shared types with the sim), in a docs build compiled here, where the file's
// `use super::dpa::*;` finds doca-dpa-sys.
#[cfg(doca_backend = "docs")]
use doca_dpa_sys as dpa;
#[cfg(doca_backend = "sim")]
pub use doca_dpa_sys::doca_sim::abi::rdma::*;
#[cfg(doca_backend = "docs")]
#[path = "../bundled/rdma.rs"]
mod bundled;
#[cfg(doca_backend = "docs")]
pub use bundled::*;

/// What this build of the bindings was made for, including why DOCA RDMA is
/// absent when it is.
#[allow(missing_docs)]
pub mod build_info {
    include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
}
