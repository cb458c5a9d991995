//! # doca-rdmi: safe Rust bindings for NVIDIA DOCA RDMI
//!
//! RDMI lets DPA kernels drive one-sided RDMA through a *connection* and a
//! *poster* configured on the host. This crate is being written; for now it
//! answers whether RDMI is available in this build, and why not.

/// Whether this build can use RDMI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Availability {
    /// The installed DOCA (or the sim) provides RDMI.
    Available,
    /// RDMI is absent, with the reason the build found.
    Absent(String),
}

/// Says whether RDMI is present in the DOCA this build uses, and why not
/// (no `doca-rdmi.pc`, or functions missing from the headers or library).
/// Makes no DOCA call.
pub fn availability() -> Availability {
    match doca_rdmi_sys::build_info::RDMI_ABSENT_REASON {
        Some(reason) => Availability::Absent(reason.to_owned()),
        None => Availability::Available,
    }
}
