//! Kernel parameter types of RDMI handles: the generated declarations of a kernel
//! whose C parameter is a `doca_dpa_dev_rdmi_connection_t` or a
//! `doca_rdmi_dev_poster_t` name these (re-exported from
//! [`doca_dpa::param`]); the arguments for them are a started
//! [`Connection`](crate::Connection) or [`Poster`](crate::Poster), which the launch
//! keeps alive.

pub use doca_dpa::param::{RdmiConnection, RdmiPoster};
