//! # doca: safe Rust bindings for NVIDIA DOCA DPA and DOCA RDMI
//!
//! The facade of doca-rs: [`dpa`] is the `doca-dpa` crate (devices, DPA
//! contexts, kernel launches, events, memory, threads) and [`sys`] its raw
//! bindings. The examples and integration tests of the project live in this
//! package.

pub use doca_dpa as dpa;
/// Raw bindings to DOCA DPA and the DOCA Core pieces it needs.
pub use doca_dpa_sys as sys;
