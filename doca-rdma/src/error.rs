//! The calls of this crate go through doca-dpa's DOCA core layer
//! (`doca_dpa::core`): its one call helper, here spelled [`rdma_call!`] (for
//! `doca-rdma-sys`) and [`core_call!`] (for the DOCA Core functions of
//! `doca-dpa-sys`), whose object pointers come from their family's guard, and which
//! turns a `doca_error_t` into doca-dpa's [`Error`](crate::Error), naming the call.

pub(crate) use doca_dpa::core::invalid;

/// Calls a `doca-rdma-sys` function through the core layer's call helper and
/// checks its code. It adds no `unsafe` of its own: each call site writes the
/// block and its SAFETY comment, `unsafe { rdma_call!(doca_rdma_destroy(p)) }?`.
#[allow(unused_macros)]
macro_rules! rdma_call {
    ($($call:tt)*) => {
        ::doca_dpa::__doca_core_call!(doca_rdma_sys::$($call)*)
    };
}
#[allow(unused_imports)]
pub(crate) use rdma_call;

/// Calls a DOCA Core function of `doca-dpa-sys` through the core layer's call
/// helper, with the `unsafe` block at the call site:
/// `unsafe { core_call!(doca_ctx_start(ctx)) }?`.
macro_rules! core_call {
    ($($call:tt)*) => {
        ::doca_dpa::__doca_core_call!(doca_dpa_sys::$($call)*)
    };
}
pub(crate) use core_call;
