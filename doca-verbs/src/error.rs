//! The checked layer of this crate is doca-dpa's DOCA core layer
//! (`doca_dpa::core`): every raw call goes through its one call helper, here spelled
//! [`verbs_call!`] (for `doca-verbs-sys`), which turns a `doca_error_t` into
//! doca-dpa's [`Error`](crate::Error), naming the call; the object pointers it is
//! given come from their domain's guard (`docs/concurrency.md`).

pub(crate) use doca_dpa::core::invalid;

/// Calls a `doca-verbs-sys` function through the core layer's call helper
/// (`doca_dpa::__doca_core_call!`) and checks its code. It adds no `unsafe` of its
/// own: each call site writes the block and its SAFETY comment,
/// `unsafe { verbs_call!(doca_verbs_pd_destroy(ptr)) }?`.
macro_rules! verbs_call {
    ($($call:tt)*) => {
        ::doca_dpa::__doca_core_call!(doca_verbs_sys::$($call)*)
    };
}
pub(crate) use verbs_call;
