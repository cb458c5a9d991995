//! The one call helper: every raw DOCA call of doca-dpa and doca-rdmi goes through
//! [`__doca_core_call!`](crate::__doca_core_call) (doca-dpa's `doca_call!`,
//! doca-rdmi's `rdmi_call!` and `core_call!` are spellings of it), which evaluates
//! the arguments, makes the call under the DOCA lock ([`serialized`]) and turns the
//! `doca_error_t` into a [`Result`] naming the call ([`check`]).

use doca_dpa_sys as sys;

use crate::error::{Error, ErrorCode, Result};

/// The DOCA lock: held for the duration of every DOCA call this crate (and
/// doca-rdmi) makes, and for nothing else. See [`serialized`].
static DOCA_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs one DOCA call (`f`) under the DOCA lock.
///
/// # The lock's scope (the one place it is stated)
///
/// DOCA DPA objects are not thread-safe: one thread at a time (facts:
/// `doca-dpa-host-api.md` §9, the DPA guide's note). Every public type of doca-dpa
/// and doca-rdmi is nevertheless `Send + Sync`, because every call into DOCA —
/// [`__doca_core_call!`](crate::__doca_core_call) (doca-dpa's `doca_call!`,
/// doca-rdmi's `rdmi_call!`/`core_call!`), the owned handles' destroy and stop calls
/// ([`Owned`](super::Owned)), the generated kernel and RPC launchers, and the few
/// direct `sys::` calls — runs inside this function, under one process-wide mutex.
/// So no two DOCA calls ever overlap, on one context or across contexts, whatever
/// threads the values are on.
///
/// - Held for one DOCA call only. It is never held while user code runs: DOCA
///   calls no user code (the only callback, the wait task's completion in
///   `doca_pe_progress`, sets an atomic flag), wakers are woken and `tracing`
///   events emitted after the call returns. It is reentrant on one thread (a
///   thread-local flag): a wrapper that makes its DOCA calls through
///   `doca_call!` may itself run inside `serialized` without deadlocking.
/// - The arguments of a call are evaluated before it is taken (see
///   [`__doca_core_call!`](crate::__doca_core_call)).
/// - The one call that blocks on the device, `doca_dpa_rpc`, is made outside it
///   (a blocking RPC under it would stop every DOCA call of the process): the
///   context's RPC gate (`Dpa::rpc`) keeps other calls naming that context waiting
///   until the RPC returned, and a call waiting at the gate holds no lock, since
///   its arguments (`dpa.as_ptr()` waits there) are evaluated first.
/// - Process-wide, not per context: simpler and still correct; a per-context lock
///   would let two contexts' calls run in parallel (a refinement that changes no
///   type).
/// - Uncontended, it is two atomic operations and allocates nothing.
///
/// State the library keeps itself (a launcher's epochs and what it keeps alive, an
/// engine's reactor) is behind each object's own mutex, taken before this one
/// and never while user code runs.
#[inline]
pub fn serialized<R>(f: impl FnOnce() -> R) -> R {
    /// Clears the flag when the call returns (FFI calls do not unwind, but a
    /// closure of Rust code may).
    struct Release;
    impl Drop for Release {
        fn drop(&mut self) {
            HELD.with(|h| h.set(false));
        }
    }
    if held_here() {
        // This thread holds the lock already: no other thread can be in DOCA.
        return f();
    }
    let _held = DOCA_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    HELD.with(|h| h.set(true));
    let _release = Release;
    f()
}

thread_local! {
    /// Whether this thread holds the DOCA lock (what makes [`serialized`] reentrant).
    static HELD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread holds the DOCA lock.
fn held_here() -> bool {
    HELD.with(|h| h.get())
}

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

/// Calls the function `func` of the bindings crate (or module) `sys` and checks its
/// code, naming the call in the error: `__doca_core_call!(doca_rdmi_sys::f(a, b))`.
/// It adds no `unsafe` of its own: each call site writes the `unsafe` block and
/// its SAFETY comment around the macro (doca-dpa's `doca_call!` and doca-rdmi's
/// `rdmi_call!`/`core_call!` name `sys` for it).
///
/// The arguments are evaluated before the DOCA lock is taken, one `let` each, in
/// order: an argument such as `dpa.as_ptr()` may wait at the context's RPC gate
/// for a `doca_dpa_rpc` call that runs outside the lock, and waiting for it while
/// holding the lock would stop every other thread's DOCA calls, among them the
/// `doca_sync_event_update_*` that the RPC itself may be waiting for
/// (`tests/concurrency.rs`).
#[doc(hidden)]
#[macro_export]
macro_rules! __doca_core_call {
    ($sys:ident :: $func:ident($($arg:expr),* $(,)?)) => {
        $crate::__doca_core_call!(@bind $sys $func [] $($arg,)*)
    };
    // Binds the next argument to a fresh (hygienic) name, then recurses.
    (@bind $sys:ident $func:ident [$($bound:ident)*] $next:expr, $($rest:expr,)*) => {{
        let arg = $next;
        $crate::__doca_core_call!(@bind $sys $func [$($bound)* arg] $($rest,)*)
    }};
    (@bind $sys:ident $func:ident [$($bound:ident)*]) => {
        $crate::core::check(
            stringify!($func),
            $crate::core::serialized(|| $sys::$func($($bound),*)),
        )
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

    /// Stands in for a bindings crate: records whether the lock was held.
    mod fake_sys {
        pub(super) unsafe fn probe(held_for_argument: bool) -> super::sys::doca_error_t {
            assert!(
                !held_for_argument,
                "an argument was evaluated under the lock"
            );
            assert!(super::held_here(), "the call ran without the lock");
            super::ErrorCode::NOT_FOUND.0
        }
    }

    /// The arguments are evaluated with the lock free (a call waiting at a
    /// context's RPC gate in an argument holds nothing), the call under it, and
    /// the error names the call.
    #[test]
    fn arguments_are_evaluated_before_the_lock_is_taken() {
        // SAFETY: `probe` is a plain Rust function.
        let e = unsafe { crate::__doca_core_call!(fake_sys::probe(held_here())) }.unwrap_err();
        assert_eq!(e.call(), Some("probe"));
        assert_eq!(e.code(), Some(ErrorCode::NOT_FOUND));
        assert!(!held_here());
    }
}
