//! # doca: safe Rust bindings for NVIDIA DOCA DPA and DOCA RDMI
//!
//! The facade of doca-rs. The safe crates are being written; for now this
//! re-exports the raw bindings as [`sys`].

/// Raw bindings to DOCA DPA and the DOCA Core pieces it needs.
pub use doca_dpa_sys as sys;
