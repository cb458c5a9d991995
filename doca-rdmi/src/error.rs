//! The checked layer of this crate is doca-dpa's DOCA core layer
//! (`doca_dpa::core`): every raw call goes through its one call helper, here spelled
//! [`rdmi_call!`] (for `doca-rdmi-sys`) and [`core_call!`] (for the DOCA Core
//! functions of `doca-dpa-sys`), which turns a `doca_error_t` into doca-dpa's
//! [`Error`](crate::Error), naming the call; the object pointers it is given come
//! from their domain's guard (`docs/concurrency.md`).
//! The errors are doca-dpa's, built by its constructors; this module adds only the
//! conversions RDMI's inferred parameter types need.

use std::fmt::Display;

pub(crate) use doca_dpa::core::invalid;
use doca_dpa::Result;

/// Converts `value` to `T`, or refuses it (an [`Error::InvalidArgument`](crate::Error::InvalidArgument) of `call`
/// that `why` words) instead of truncating it.
fn convert<T, U>(call: &'static str, value: U, why: impl FnOnce(U) -> String) -> Result<T>
where
    U: TryInto<T> + Copy,
{
    value.try_into().map_err(|_| invalid(call, why(value)))
}

/// Converts `value` to whatever integer type the installed header gives the
/// parameter `what` of `call` (RDMI parameter types are inferred, so widths
/// differ between headers); a value that does not fit is an
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) instead of a silent truncation.
pub(crate) fn fit<T, U>(call: &'static str, what: &str, value: U) -> Result<T>
where
    U: TryInto<T> + Copy + Display,
{
    convert(call, value, |v| {
        format!("{what} = {v} does not fit the parameter type of the installed header")
    })
}

/// Converts a value DOCA returned through an out-parameter of any integer
/// width to `T`, failing (instead of truncating) when it does not fit.
pub(crate) fn widen<T, U>(call: &'static str, what: &str, value: U) -> Result<T>
where
    U: TryInto<T> + Copy + Display,
{
    convert(call, value, |v| {
        format!("DOCA returned {what} = {v}, which does not fit in this crate's type")
    })
}

/// Calls a `doca-rdmi-sys` function through the core layer's call helper
/// (`doca_dpa::__doca_core_call!`) and checks its code. It adds no `unsafe` of its
/// own: each call site writes the block and its SAFETY comment,
/// `unsafe { rdmi_call!(doca_rdmi_poster_destroy(ptr)) }?`.
macro_rules! rdmi_call {
    ($($call:tt)*) => {
        ::doca_dpa::__doca_core_call!(doca_rdmi_sys::$($call)*)
    };
}
pub(crate) use rdmi_call;

/// Calls a DOCA Core function of `doca-dpa-sys` through the core layer's call
/// helper, with the `unsafe` block at the call site:
/// `unsafe { core_call!(doca_ctx_set_datapath_on_dpa(ctx, dpa)) }?`.
macro_rules! core_call {
    ($($call:tt)*) => {
        ::doca_dpa::__doca_core_call!(doca_dpa_sys::$($call)*)
    };
}
pub(crate) use core_call;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_refuse_to_truncate() {
        let ok: Result<u16> = fit("doca_rdmi_connection_recv_ack", "num_acked", 7u32);
        assert_eq!(ok.unwrap(), 7);
        let too_big: Result<u16> = fit("doca_rdmi_connection_recv_ack", "num_acked", 70_000u32);
        let e = too_big.unwrap_err();
        assert!(e.is_invalid_argument());
        assert!(e.to_string().contains("num_acked = 70000"));
        let back: Result<u32> = widen("doca_rdmi_connection_get_app_rq_info", "size", 1u64 << 40);
        let e = back.unwrap_err();
        assert!(e.is_invalid_argument());
        assert!(e.to_string().contains("DOCA returned size = 1099511627776"));
    }
}
