//! # doca-dpa-sys: raw bindings to DOCA DPA and the DOCA Core pieces it needs
//!
//! Nothing but the C API: types, constants and `extern "C"` functions of
//! `doca_error.h`, `doca_types.h`, `doca_version.h`, `doca_dev.h`,
//! `doca_ctx.h`, `doca_pe.h`, `doca_sync_event.h`, `doca_mmap.h` and
//! `doca_dpa.h`. Use the safe `doca-dpa` crate unless you need a call it
//! does not wrap.
//!
//! ## Backends
//!
//! The build script (from `doca-build-support`) picks one, from
//! `DOCA_BACKEND` (`hardware`, `sim` or `auto`) and the `sim` feature:
//!
//! - **hardware** (the default for consumers): pkg-config finds `doca-common`
//!   and `doca-dpa`, and the DOCA libraries are linked dynamically. The
//!   bindings are the bundled ones (those of the sim, generated from the
//!   reference headers) once the build script has found every bound item
//!   declared the same way by the installed headers; a difference fails the
//!   build and names it. With the `bindgen` feature, bindgen runs over the
//!   installed headers with `-DDOCA_ALLOW_EXPERIMENTAL_API` instead (needs
//!   libclang). A missing or unsupported DOCA fails the build with a message
//!   saying what was searched and how to fix it. `build_info::BINDINGS` says
//!   which way a build went.
//! - **sim** (only with this crate's `sim` feature, which is what brings the
//!   optional `doca-sim` dependency into the build): the committed bindings of
//!   the reference headers (`bundled/dpa.rs`), and `doca-sim` linked: a software
//!   DPA behind the same C ABI. No DOCA and no libclang needed. A hardware build
//!   has no `doca-sim` at all; `DOCA_BACKEND=sim` without the feature fails the
//!   build and says to add it.
//! - **docs** (under `DOCS_RS`): the committed bindings, nothing linked.
//!
//! [`build_info`] says at run time which backend and DOCA version this build
//! has, and lists the symbol audit (each function's EXPERIMENTAL/STABLE
//! marker and whether the library exports it).
//!
//! ```
//! use std::ffi::CStr;
//! // SAFETY: DOCA returns a static NUL-terminated name for any code.
//! let name = unsafe { CStr::from_ptr(doca_dpa_sys::doca_error_get_name(18)) };
//! assert_eq!(name.to_str().unwrap(), "DOCA_ERROR_BAD_STATE");
//! println!("built for {} (DOCA {})", doca_dpa_sys::build_info::BACKEND, doca_dpa_sys::build_info::DOCA_VERSION);
//! ```
//!
//! ## Metadata for dependants (`links = "doca_dpa"`)
//!
//! Build scripts of crates that depend on this one directly read
//! `DEP_DOCA_DPA_BACKEND`, `DEP_DOCA_DPA_VERSION`, `DEP_DOCA_DPA_INCLUDE`,
//! `DEP_DOCA_DPA_AUDIT` (path of the audit table) and, for DPA kernel builds,
//! `DEP_DOCA_DPA_SIM_DEVICE_INCLUDE`.
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

#[cfg(doca_backend = "hardware")]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/bindings.rs"));
}
#[cfg(doca_backend = "hardware")]
pub use generated::*;

// The committed bindings (`bundled/dpa.rs`): in a sim build as doca-sim compiles them,
// so that the sim's functions and these declarations share their types; in a docs
// build (no doca-sim) compiled here.
#[cfg(doca_backend = "sim")]
pub use doca_sim::abi::dpa::*;
#[cfg(doca_backend = "docs")]
#[path = "../bundled/dpa.rs"]
mod bundled;
#[cfg(doca_backend = "docs")]
pub use bundled::*;

/// What only the software DPA can say about a context (sim builds only): its fault
/// report and its exact kernel run-time limit.
#[cfg(doca_backend = "sim")]
pub mod sim {
    pub use doca_sim::{fault_report, max_run_time, FaultReport};
}

/// The software DPA itself, in sim builds only (for doca-rdmi-sys and the facade,
/// which reach it through this crate so that only this crate's `sim` feature decides
/// whether it is in the build). A documentation build with the `sim` feature (as
/// docs.rs makes the facade's) has it too, for the facade's `doca::sim` page.
#[cfg(any(doca_backend = "sim", all(doca_backend = "docs", feature = "sim")))]
#[doc(hidden)]
pub use doca_sim;

/// What this build of the bindings was made for: backend, DOCA version and
/// the symbol audit.
#[allow(missing_docs)]
pub mod build_info {
    include!(concat!(env!("OUT_DIR"), "/build_info.rs"));
}
