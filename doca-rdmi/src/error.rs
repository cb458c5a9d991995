//! The checked layer: every raw call of this crate goes through [`check`]
//! (via [`rdmi_call!`] for `doca-rdmi-sys` and [`core_call!`] for DOCA Core
//! functions of `doca-dpa-sys`), which turns a `doca_error_t` into the
//! [`Error`] of `doca-dpa`, naming the call.

use std::fmt::Display;

use doca_dpa::{Error, ErrorCode, Result};
use doca_dpa_sys as sys;

/// The error of a DOCA call that returned `code`, with DOCA's name and
/// description of the code.
pub(crate) fn doca_error(call: &'static str, code: ErrorCode) -> Error {
    Error::Doca {
        call,
        code,
        name: code.name(),
        description: code.description(),
    }
}

/// An argument refused before calling `call`.
pub(crate) fn invalid(call: &'static str, reason: impl Into<String>) -> Error {
    Error::InvalidArgument {
        call,
        reason: reason.into(),
    }
}

/// Turns the return code of `call` into a `Result`.
#[inline]
pub(crate) fn check(call: &'static str, rc: sys::doca_error_t) -> Result<()> {
    if rc == sys::DOCA_SUCCESS as sys::doca_error_t {
        Ok(())
    } else {
        Err(doca_error(call, ErrorCode(rc)))
    }
}

/// Converts `value` to whatever integer type the installed header gives the
/// parameter `what` of `call` (RDMI parameter types are inferred, so widths
/// differ between headers); a value that does not fit is an
/// [`Error::InvalidArgument`] instead of a silent truncation.
pub(crate) fn fit<T, U>(call: &'static str, what: &str, value: U) -> Result<T>
where
    U: TryInto<T> + Copy + Display,
{
    value.try_into().map_err(|_| {
        invalid(
            call,
            format!("{what} = {value} does not fit the parameter type of the installed header"),
        )
    })
}

/// Converts a value DOCA returned through an out-parameter of any integer
/// width to `T`, failing (instead of truncating) when it does not fit.
pub(crate) fn widen<T, U>(call: &'static str, what: &str, value: U) -> Result<T>
where
    U: TryInto<T> + Copy + Display,
{
    value.try_into().map_err(|_| {
        invalid(
            call,
            format!("DOCA returned {what} = {value}, which does not fit in this crate's type"),
        )
    })
}

/// Calls a `doca-rdmi-sys` function and checks its code. It adds no `unsafe` of its
/// own: each call site writes the block and its SAFETY comment,
/// `unsafe { rdmi_call!(doca_rdmi_poster_destroy(ptr)) }?`.
macro_rules! rdmi_call {
    ($func:ident($($arg:expr),* $(,)?)) => {
        $crate::error::check(
            stringify!($func),
            ::doca_dpa::serialized(|| ::doca_rdmi_sys::$func($($arg),*)),
        )
    };
}
pub(crate) use rdmi_call;

/// Calls a DOCA Core function of `doca-dpa-sys` and checks its code, with the
/// `unsafe` block at the call site: `unsafe { core_call!(doca_ctx_start(ctx)) }?`.
macro_rules! core_call {
    ($func:ident($($arg:expr),* $(,)?)) => {
        $crate::error::check(
            stringify!($func),
            ::doca_dpa::serialized(|| ::doca_dpa_sys::$func($($arg),*)),
        )
    };
}
pub(crate) use core_call;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_become_errors_naming_the_call() {
        assert!(check("doca_ctx_start", sys::DOCA_SUCCESS as sys::doca_error_t).is_ok());
        let e = check("doca_ctx_start", ErrorCode::BAD_STATE.0).unwrap_err();
        assert!(e.is_bad_state());
        assert_eq!(e.call(), Some("doca_ctx_start"));
        assert_eq!(e.code(), Some(ErrorCode::BAD_STATE));
    }

    #[test]
    fn conversions_refuse_to_truncate() {
        let ok: Result<u16> = fit("doca_rdmi_connection_recv_ack", "num_acked", 7u32);
        assert_eq!(ok.unwrap(), 7);
        let too_big: Result<u16> = fit("doca_rdmi_connection_recv_ack", "num_acked", 70_000u32);
        let e = too_big.unwrap_err();
        assert!(e.is_invalid_argument());
        assert!(e.to_string().contains("num_acked = 70000"));
        let back: Result<u32> = widen("doca_rdmi_connection_get_app_rq_info", "size", 1u64 << 40);
        assert!(back.unwrap_err().is_invalid_argument());
    }
}
