//! The one call helper: every raw DOCA call of doca-dpa and doca-rdmi goes through
//! [`__doca_core_call!`](crate::__doca_core_call) (doca-dpa's `doca_call!`,
//! doca-rdmi's `rdmi_call!` and `core_call!` are spellings of it), which makes the
//! call and turns the `doca_error_t` into a [`Result`] naming the call
//! ([`check`]).
//!
//! It takes no lock: the object pointers a call is given are reachable only with
//! their domain's lock held ([`Raw`](super::Raw), `guard.rs`), so a call on an
//! object is made under that object's lock by construction, and a call that names
//! no object (a create, `doca_error_get_name`) needs none (`docs/concurrency.md`).

use doca_dpa_sys as sys;

use crate::error::{Error, ErrorCode, Result};

/// Turns the return code of the DOCA call `call` into a `Result`: the one place a
/// raw code becomes an [`Error`].
#[inline]
pub fn check(call: &'static str, rc: sys::doca_error_t) -> Result<()> {
    if rc == sys::DOCA_SUCCESS as sys::doca_error_t {
        Ok(())
    } else {
        Err(doca_error(call, ErrorCode(rc)))
    }
}

/// The error of the DOCA call `call` that returned `code`, with DOCA's name and
/// description of the code ([`Error::Doca`]).
#[cold]
#[inline(never)]
pub fn doca_error(call: &'static str, code: ErrorCode) -> Error {
    Error::Doca {
        call,
        code,
        name: code.name(),
        description: code.description(),
    }
}

/// An argument refused before calling `call`, because a documented rule forbids
/// it, or a value DOCA returned that breaks its contract
/// ([`Error::InvalidArgument`]).
#[cold]
pub fn invalid(call: &'static str, reason: impl Into<String>) -> Error {
    Error::InvalidArgument {
        call,
        reason: reason.into(),
    }
}

/// Copies the `len` bytes DOCA handed back through an out-parameter of `call` (an
/// export's descriptor, a connection's details: memory DOCA owns and may change or
/// free later) into a vector. NULL, or no bytes, breaks the call's contract: an
/// error naming it.
///
/// # Safety
/// `ptr` is NULL or points at `len` readable bytes that nothing writes during the
/// copy (DOCA's, for as long as the object they describe lives).
pub unsafe fn copy_out(call: &'static str, ptr: *const u8, len: usize) -> Result<Vec<u8>> {
    if ptr.is_null() || len == 0 {
        return Err(invalid(call, "DOCA returned no bytes"));
    }
    // SAFETY: the caller's: `len` readable bytes at `ptr`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec())
}

/// Calls the function `func` of the bindings crate (or module) `sys` and checks its
/// code, naming the call in the error: `__doca_core_call!(doca_rdmi_sys::f(a, b))`.
/// It adds no `unsafe` of its own: each call site writes the `unsafe` block and
/// its SAFETY comment around the macro (doca-dpa's `doca_call!` and doca-rdmi's
/// `rdmi_call!`/`core_call!` name `sys` for it). The object pointers among the
/// arguments come from [`Raw::get`](crate::core::Raw::get), under their domain's
/// lock, which the caller holds across the call.
#[doc(hidden)]
#[macro_export]
macro_rules! __doca_core_call {
    ($sys:ident :: $func:ident($($arg:expr),* $(,)?)) => {
        $crate::core::check(stringify!($func), $sys::$func($($arg),*))
    };
}

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

    /// Stands in for a bindings crate.
    mod fake_sys {
        pub(super) unsafe fn probe(_: u8) -> super::sys::doca_error_t {
            super::ErrorCode::NOT_FOUND.0
        }
    }

    #[test]
    fn the_error_names_the_call() {
        // SAFETY: `probe` is a plain Rust function.
        let e = unsafe { crate::__doca_core_call!(fake_sys::probe(1)) }.unwrap_err();
        assert_eq!(e.call(), Some("probe"));
        assert_eq!(e.code(), Some(ErrorCode::NOT_FOUND));
    }
}
