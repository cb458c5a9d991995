//! The C ABI of the reference headers, as bindgen renders it.
//!
//! `dpa.rs` (DOCA Core + DPA) and `rdmi.rs` (DOCA Verbs + RDMI) are generated
//! by `cargo regen-bindings` from `doca-sim/include` and committed; a test
//! fails when they are stale. The -sys crates re-export them in the sim and
//! docs.rs builds, and every function the sim defines is checked against them
//! at compile time.
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

pub mod dpa;
pub mod rdmi;

pub use dpa::*;
pub use rdmi::*;
