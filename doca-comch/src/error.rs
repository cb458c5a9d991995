//! The calls of this crate go through doca-dpa's DOCA core layer
//! (`doca_dpa::core`): its one call helper, here spelled [`comch_call!`] (for
//! `doca-comch-sys`) and [`core_call!`] (for the DOCA Core functions of
//! `doca-dpa-sys`), whose object pointers come from their family's guard, and which
//! turns a `doca_error_t` into doca-dpa's [`Error`](crate::Error), naming the call.

use std::fmt;

pub(crate) use doca_dpa::core::invalid;

/// Calls a `doca-comch-sys` function through the core layer's call helper and
/// checks its code. It adds no `unsafe` of its own: each call site writes the
/// block and its SAFETY comment, `unsafe { comch_call!(doca_comch_msgq_stop(p)) }?`.
macro_rules! comch_call {
    ($($call:tt)*) => {
        ::doca_dpa::__doca_core_call!(doca_comch_sys::$($call)*)
    };
}
pub(crate) use comch_call;

/// Calls a DOCA Core function of `doca-dpa-sys` through the core layer's call
/// helper, with the `unsafe` block at the call site:
/// `unsafe { core_call!(doca_ctx_start(ctx)) }?`.
macro_rules! core_call {
    ($($call:tt)*) => {
        ::doca_dpa::__doca_core_call!(doca_dpa_sys::$($call)*)
    };
}
pub(crate) use core_call;

/// A failed explicit `stop()`: the error, and the object back when the stop was
/// refused before any DOCA call because something still uses it
/// ([`doca_dpa::Error::InUse`]: a consumer or producer of the queue, a consumer of
/// the completion context, a launch, DPA thread or DPA struct given it).
pub struct StopError<T> {
    error: doca_dpa::Error,
    object: Option<T>,
}

impl<T> StopError<T> {
    pub(crate) fn new(error: doca_dpa::Error, object: Option<T>) -> StopError<T> {
        StopError { error, object }
    }

    /// The error (no DOCA call).
    pub fn error(&self) -> &doca_dpa::Error {
        &self.error
    }

    /// The error and, when the stop was refused, the object, still started (no
    /// DOCA call).
    pub fn into_parts(self) -> (doca_dpa::Error, Option<T>) {
        (self.error, self.object)
    }
}

impl<T> fmt::Debug for StopError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StopError")
            .field("error", &self.error)
            .field("returned", &self.object.is_some())
            .finish()
    }
}

impl<T> fmt::Display for StopError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stopping a DPA Comms object: {}", self.error)
    }
}

impl<T> std::error::Error for StopError<T> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl<T> From<StopError<T>> for doca_dpa::Error {
    fn from(e: StopError<T>) -> doca_dpa::Error {
        e.error
    }
}
