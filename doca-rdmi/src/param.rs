//! Kernel parameter types of RDMI handles, for [`doca_dpa::dpa_app!`]
//! declarations: a kernel parameter declared as [`RdmiConnection`] accepts
//! only a [`ConnectionHandle`](crate::ConnectionHandle), one declared as
//! [`RdmiPoster`] only a [`PosterHandle`](crate::PosterHandle).
//!
//! ```ignore
//! doca_dpa::dpa_app! {
//!     pub mod my_app {
//!         /// `void drive(uint64_t poster, uint64_t connection, uint32_t n)`
//!         kernel drive(doca_rdmi::param::RdmiPoster, doca_rdmi::param::RdmiConnection, u32);
//!     }
//! }
//! ```

use doca_dpa::KernelParam;

/// `doca_dpa_dev_rdmi_connection_t`: a `uint64_t` in the reference header
/// (INFERRED; every DPA handle typedef DOCA publishes is one).
#[derive(Debug, Clone, Copy)]
pub enum RdmiConnection {}

// SAFETY: the kernel parameter is a 64-bit handle (`uint64_t` or a typedef
// of it), passed through the variadic launch as `uint64_t`.
unsafe impl KernelParam for RdmiConnection {
    type Abi = u64;
}

/// `doca_rdmi_dev_poster_t`: a `uint64_t` in the reference header
/// (INFERRED).
#[derive(Debug, Clone, Copy)]
pub enum RdmiPoster {}

// SAFETY: as for `RdmiConnection`.
unsafe impl KernelParam for RdmiPoster {
    type Abi = u64;
}
