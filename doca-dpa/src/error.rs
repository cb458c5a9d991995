//! Errors: the raw DOCA code, and what went wrong in terms a DPA user acts on.

use std::ffi::CStr;
use std::fmt;
use std::time::Duration;

use doca_dpa_sys as sys;

/// A raw `doca_error_t`, kept as the integer DOCA returned.
///
/// Never a Rust enum: a newer DOCA may return codes this crate does not know,
/// and they stay representable. [`ErrorCode::name`] and
/// [`ErrorCode::description`] ask DOCA itself (`doca_error_get_name`,
/// `doca_error_get_descr`, both STABLE).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct ErrorCode(pub sys::doca_error_t);

macro_rules! codes {
    ($($(#[$m:meta])* $name:ident = $sys:ident;)*) => {
        impl ErrorCode {
            $($(#[$m])* pub const $name: ErrorCode = ErrorCode(sys::$sys as sys::doca_error_t);)*
        }
    };
}

codes! {
    /// `DOCA_SUCCESS`.
    SUCCESS = DOCA_SUCCESS;
    /// `DOCA_ERROR_UNKNOWN`.
    UNKNOWN = DOCA_ERROR_UNKNOWN;
    /// `DOCA_ERROR_NOT_PERMITTED`.
    NOT_PERMITTED = DOCA_ERROR_NOT_PERMITTED;
    /// `DOCA_ERROR_IN_USE`.
    IN_USE = DOCA_ERROR_IN_USE;
    /// `DOCA_ERROR_NOT_SUPPORTED`.
    NOT_SUPPORTED = DOCA_ERROR_NOT_SUPPORTED;
    /// `DOCA_ERROR_AGAIN`.
    AGAIN = DOCA_ERROR_AGAIN;
    /// `DOCA_ERROR_INVALID_VALUE`.
    INVALID_VALUE = DOCA_ERROR_INVALID_VALUE;
    /// `DOCA_ERROR_NO_MEMORY`.
    NO_MEMORY = DOCA_ERROR_NO_MEMORY;
    /// `DOCA_ERROR_INITIALIZATION`.
    INITIALIZATION = DOCA_ERROR_INITIALIZATION;
    /// `DOCA_ERROR_TIME_OUT`.
    TIME_OUT = DOCA_ERROR_TIME_OUT;
    /// `DOCA_ERROR_NOT_CONNECTED`.
    NOT_CONNECTED = DOCA_ERROR_NOT_CONNECTED;
    /// `DOCA_ERROR_NOT_FOUND`.
    NOT_FOUND = DOCA_ERROR_NOT_FOUND;
    /// `DOCA_ERROR_IO_FAILED`.
    IO_FAILED = DOCA_ERROR_IO_FAILED;
    /// `DOCA_ERROR_BAD_STATE`.
    BAD_STATE = DOCA_ERROR_BAD_STATE;
    /// `DOCA_ERROR_UNSUPPORTED_VERSION`.
    UNSUPPORTED_VERSION = DOCA_ERROR_UNSUPPORTED_VERSION;
    /// `DOCA_ERROR_OPERATING_SYSTEM`.
    OPERATING_SYSTEM = DOCA_ERROR_OPERATING_SYSTEM;
    /// `DOCA_ERROR_DRIVER`.
    DRIVER = DOCA_ERROR_DRIVER;
    /// `DOCA_ERROR_FULL`.
    FULL = DOCA_ERROR_FULL;
    /// `DOCA_ERROR_IN_PROGRESS`.
    IN_PROGRESS = DOCA_ERROR_IN_PROGRESS;
    /// `DOCA_ERROR_TOO_BIG`.
    TOO_BIG = DOCA_ERROR_TOO_BIG;
    /// `DOCA_ERROR_SHUTDOWN`.
    SHUTDOWN = DOCA_ERROR_SHUTDOWN;
    /// `DOCA_ERROR_CONNECTION_RESET`.
    CONNECTION_RESET = DOCA_ERROR_CONNECTION_RESET;
    /// `DOCA_ERROR_CONNECTION_ABORTED`.
    CONNECTION_ABORTED = DOCA_ERROR_CONNECTION_ABORTED;
    /// `DOCA_ERROR_CONNECTION_INPROGRESS`.
    CONNECTION_INPROGRESS = DOCA_ERROR_CONNECTION_INPROGRESS;
    /// `DOCA_ERROR_NO_LOCK`.
    NO_LOCK = DOCA_ERROR_NO_LOCK;
    /// `DOCA_ERROR_UNEXPECTED`.
    UNEXPECTED = DOCA_ERROR_UNEXPECTED;
    /// `DOCA_ERROR_ALREADY_EXIST`.
    ALREADY_EXIST = DOCA_ERROR_ALREADY_EXIST;
    /// `DOCA_ERROR_EMPTY`.
    EMPTY = DOCA_ERROR_EMPTY;
    /// `DOCA_ERROR_AUTHENTICATION`.
    AUTHENTICATION = DOCA_ERROR_AUTHENTICATION;
    /// `DOCA_ERROR_BAD_CONFIG`.
    BAD_CONFIG = DOCA_ERROR_BAD_CONFIG;
    /// `DOCA_ERROR_SKIPPED`.
    SKIPPED = DOCA_ERROR_SKIPPED;
}

impl ErrorCode {
    /// DOCA's name for the code (`doca_error_get_name`), e.g.
    /// `DOCA_ERROR_BAD_STATE`; DOCA answers for unknown codes too.
    pub fn name(self) -> String {
        // SAFETY: DOCA returns a static NUL-terminated string (or NULL, handled);
        // the call names no object, so it takes no lock (`core/guard.rs`).
        unsafe { static_str(sys::doca_error_get_name(self.0)) }
    }

    /// DOCA's description of the code (`doca_error_get_descr`).
    pub fn description(self) -> String {
        // SAFETY: as above.
        unsafe { static_str(sys::doca_error_get_descr(self.0)) }
    }
}

/// The text of a C string DOCA returned; empty for NULL.
///
/// # Safety
/// `ptr` is NULL or a NUL-terminated string valid for the call.
pub(crate) unsafe fn static_str(ptr: *const std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: per the function contract.
    unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

impl From<ErrorCode> for sys::doca_error_t {
    fn from(code: ErrorCode) -> Self {
        code.0
    }
}

impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name(), self.0)
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// What a failed wait for a kernel launch observed, so "my kernel hangs" can
/// be told apart from "my kernel crashed the DPA" without a debugger.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LaunchDiagnosis {
    /// The kernel's C name.
    pub kernel: &'static str,
    /// How long the wait lasted.
    pub waited: Duration,
    /// The last launch the wait needed to see counted: the end of the launch's
    /// epoch (see [`Launcher`](crate::Launcher)), or the last launch of a wait for
    /// all of them.
    pub expected: u64,
    /// Launches completed (the launcher's two completion events, added, each as
    /// last read) when the wait found the launch still running.
    pub value_at_submit: u64,
    /// Launches completed when the wait gave up.
    pub value_at_timeout: u64,
    /// Whether `doca_dpa_peek_at_last_error` reported a device-side error.
    pub context_fatal: bool,
    /// What the device reported about the fault, when it says: on the software DPA,
    /// its fault report (kernel, thread, address, allocation, or the watchdog).
    pub fault: Option<String>,
    /// The device's kernel run-time limit (`doca_dpa_get_kernel_max_run_time`).
    pub kernel_max_run_time: Duration,
}

impl LaunchDiagnosis {
    /// Whether the completion events moved at all while waiting.
    pub fn event_moved(&self) -> bool {
        self.value_at_timeout != self.value_at_submit
    }
}

impl fmt::Display for LaunchDiagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}` did not complete within {:?}: {} launches completed (the wait needed launch {} counted, {} had completed when it began); ",
            self.kernel, self.waited, self.value_at_timeout, self.expected, self.value_at_submit
        )?;
        if let Some(fault) = &self.fault {
            write!(f, "the DPA context is fatal after a device fault:\n{fault}")
        } else if self.context_fatal {
            write!(
                f,
                "the DPA context hit a device-side error (fatal; destroy it)"
            )
        } else if self.event_moved() {
            write!(
                f,
                "the completion events moved, so other launches completed but this one has not"
            )
        } else {
            // What was seen, not what the limit promises: the limit counts the
            // kernel's time on its execution unit, which on a loaded software
            // DPA (or behind other device work) is less than the wall time.
            write!(
                f,
                "the completion events never moved: the kernel was still running when the wait gave \
                 up, {:?} after the wait began, and its context was healthy (the kernel run-time \
                 limit of {:?}, counted on the kernel's execution unit, had not stopped it). It may \
                 not terminate, may wait on an event nobody updates, or the DOCA/dpacc versions may \
                 not match",
                self.waited, self.kernel_max_run_time
            )
        }
    }
}

/// What [`Dpa::rpc`](crate::Dpa::rpc) knew when it gave up waiting.
///
/// The context's health is not asked: the `doca_dpa_rpc` call may still run, and
/// DOCA DPA objects are not thread-safe (the next use of the context waits for the
/// call to return, then [`Dpa::health`](crate::Dpa::health) answers).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RpcDiagnosis {
    /// The RPC function's C name.
    pub function: &'static str,
    /// How long the wait lasted.
    pub waited: Duration,
    /// The device's kernel run-time limit (`doca_dpa_get_kernel_max_run_time`),
    /// after which a function still running is stopped and the context turns fatal.
    pub kernel_max_run_time: Duration,
}

impl fmt::Display for RpcDiagnosis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "RPC `{}` did not return within {:?}: it may loop, wait on an event or memory nobody updates, \
             or wait for an execution unit busy with other device code. It still runs: its arguments are \
             held, and the next use of this DPA context waits for the call to return; a function still \
             running after the kernel run-time limit of {:?} is stopped and the context turns fatal",
            self.function, self.waited, self.kernel_max_run_time
        )
    }
}

/// The ways a DOCA DPA operation fails.
///
/// Every variant says which DOCA call (or which check before it) failed;
/// [`Error::kind`] sorts them into the cases a user acts on differently.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A DOCA call returned an error code.
    #[error("{call} failed: {name}: {description}")]
    Doca {
        /// The DOCA function that failed.
        call: &'static str,
        /// The code it returned.
        code: ErrorCode,
        /// `doca_error_get_name` of the code.
        name: String,
        /// `doca_error_get_descr` of the code, verbatim.
        description: String,
    },
    /// An argument was refused before calling DOCA, because a documented rule
    /// forbids it.
    #[error("{call}: invalid argument: {reason}")]
    InvalidArgument {
        /// The DOCA function that would have been called.
        call: &'static str,
        /// The rule that was broken.
        reason: String,
    },
    /// A device-side error made the DPA context fatal
    /// (`doca_dpa_peek_at_last_error` returned BAD_STATE); the context must be
    /// destroyed.
    #[error(
        "{call}: the DPA context hit a device-side error and is unusable; destroy it{}",
        fault_text(.fault)
    )]
    ContextFatal {
        /// The operation that found out.
        call: &'static str,
        /// What the device reported about the fault, when it says (the software DPA's
        /// fault report).
        fault: Option<String>,
    },
    /// A kernel launch did not complete in time.
    #[error("{0}")]
    LaunchTimeout(Box<LaunchDiagnosis>),
    /// An RPC did not return in time ([`Dpa::rpc`](crate::Dpa::rpc)).
    #[error("{0}")]
    RpcTimeout(Box<RpcDiagnosis>),
    /// A host-side wait (not a DOCA call) gave up.
    #[error("the wait gave up after {waited:?}: {reason}")]
    WaitTimeout {
        /// How long it waited.
        waited: Duration,
        /// What it saw.
        reason: String,
    },
    /// An explicit teardown was asked for while other objects still use the
    /// resource (they keep it alive; drop them first).
    #[error("{call}: {users} other object(s) still use this resource; drop them first")]
    InUse {
        /// The teardown call that was not made.
        call: &'static str,
        /// How many other owners were alive.
        users: usize,
    },
    /// The device has no DPA (`doca_dpa_cap_is_supported` said so, or
    /// `doca_dpa_create` answered NOT_SUPPORTED), or no device DOCA sees has one.
    #[error(
        "{device} has no DPA ({}); pick a device that has one (`doca-doctor` lists the \
         devices and their DPAs)",
        code_text(.call, .code)
    )]
    NoDpa {
        /// The device asked for (`mlx5_2 (0000:03:00.0)`), or which devices were
        /// looked at when none had a DPA.
        device: String,
        /// The call or lookup that found out.
        call: &'static str,
        /// DOCA's code, when a DOCA call said so.
        code: Option<ErrorCode>,
    },
    /// No device DOCA sees matches what was asked for.
    #[error("{call}: no DOCA device has {wanted}; devices seen: {}", seen_text(.seen))]
    NoSuchDevice {
        /// The lookup.
        call: &'static str,
        /// What was looked for (`PCI address 0000:99:00.0`).
        wanted: String,
        /// Every device DOCA listed (`mlx5_0 (0000:03:00.0)`).
        seen: Vec<String>,
    },
    /// The installed DOCA lacks the function or the information.
    #[error("{what} is not available: {reason}")]
    Unavailable {
        /// What was asked for.
        what: &'static str,
        /// Why it is not there.
        reason: String,
    },
}

/// The text of [`Error::ContextFatal`] after its first sentence.
fn fault_text(fault: &Option<String>) -> String {
    match fault {
        Some(fault) => format!(":\n{fault}"),
        None => " (look for doca_dpa_fatal.* crash files in /tmp or the log path)".to_owned(),
    }
}

/// The code part of [`Error::NoDpa`]'s text.
fn code_text(call: &str, code: &Option<ErrorCode>) -> String {
    match code {
        Some(c) => format!("{call} returned {c}"),
        None => call.to_owned(),
    }
}

/// The device list of [`Error::NoSuchDevice`]'s text.
fn seen_text(seen: &[String]) -> String {
    if seen.is_empty() {
        "none".to_owned()
    } else {
        seen.join(", ")
    }
}

/// The broad cases of [`Error`], for deciding what to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Not supported on this device or DOCA version (no DPA, feature missing).
    NotSupported,
    /// What was looked for does not exist (no such device).
    NotFound,
    /// Called in the wrong lifecycle state.
    BadState,
    /// An argument was invalid.
    InvalidArgument,
    /// Out of memory (host or DPA heap).
    NoMemory,
    /// Driver or firmware failure; often DOCA/dpacc version skew.
    Driver,
    /// The DPA context is fatal after a device-side error.
    ContextFatal,
    /// The header and library versions do not match.
    VersionMismatch,
    /// The resource is still in use by something that must go first.
    InUse,
    /// A wait timed out.
    Timeout,
    /// A queue is full; drain and retry (the only retryable case).
    Again,
    /// Anything else.
    Other,
}

impl Error {
    /// Builds an [`Error::InvalidArgument`] (the core layer's
    /// [`invalid`](crate::core::invalid)).
    pub(crate) fn invalid(call: &'static str, reason: impl Into<String>) -> Error {
        crate::core::invalid(call, reason)
    }

    /// The raw DOCA code, when a DOCA call failed.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Error::Doca { code, .. } => Some(*code),
            Error::NoDpa { code, .. } => *code,
            _ => None,
        }
    }

    /// The DOCA function involved.
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Doca { call, .. }
            | Error::InvalidArgument { call, .. }
            | Error::ContextFatal { call, .. }
            | Error::InUse { call, .. }
            | Error::NoDpa { call, .. }
            | Error::NoSuchDevice { call, .. } => Some(call),
            Error::RpcTimeout(_) => Some("doca_dpa_rpc"),
            Error::LaunchTimeout(_) | Error::WaitTimeout { .. } => None,
            Error::Unavailable { .. } => None,
        }
    }

    /// Which case this is.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Doca { code, .. } => match *code {
                ErrorCode::NOT_SUPPORTED => ErrorKind::NotSupported,
                ErrorCode::BAD_STATE => ErrorKind::BadState,
                ErrorCode::INVALID_VALUE | ErrorCode::TOO_BIG => ErrorKind::InvalidArgument,
                ErrorCode::NO_MEMORY => ErrorKind::NoMemory,
                ErrorCode::DRIVER => ErrorKind::Driver,
                ErrorCode::UNSUPPORTED_VERSION => ErrorKind::VersionMismatch,
                ErrorCode::IN_USE => ErrorKind::InUse,
                ErrorCode::NOT_FOUND => ErrorKind::NotFound,
                ErrorCode::TIME_OUT => ErrorKind::Timeout,
                ErrorCode::AGAIN | ErrorCode::FULL => ErrorKind::Again,
                _ => ErrorKind::Other,
            },
            Error::InvalidArgument { .. } => ErrorKind::InvalidArgument,
            Error::ContextFatal { .. } => ErrorKind::ContextFatal,
            Error::LaunchTimeout(d) if d.context_fatal => ErrorKind::ContextFatal,
            Error::LaunchTimeout(_) | Error::RpcTimeout(_) | Error::WaitTimeout { .. } => {
                ErrorKind::Timeout
            }
            Error::Unavailable { .. } | Error::NoDpa { .. } => ErrorKind::NotSupported,
            Error::NoSuchDevice { .. } => ErrorKind::NotFound,
            Error::InUse { .. } => ErrorKind::InUse,
        }
    }

    /// The device has no DPA, or no device has one ([`Error::NoDpa`], or
    /// `doca_dpa_cap_is_supported` / `doca_dpa_create` said NOT_SUPPORTED).
    pub fn is_no_dpa(&self) -> bool {
        matches!(self, Error::NoDpa { .. })
            || matches!(self, Error::Doca { call: "doca_dpa_cap_is_supported" | "doca_dpa_create", code, .. } if *code == ErrorCode::NOT_SUPPORTED)
    }

    /// No device matches what was asked for ([`Error::NoSuchDevice`]).
    pub fn is_not_found(&self) -> bool {
        self.kind() == ErrorKind::NotFound
    }

    /// Not supported by this hardware generation or DOCA version.
    pub fn is_not_supported(&self) -> bool {
        self.kind() == ErrorKind::NotSupported
    }

    /// Called in the wrong lifecycle state.
    pub fn is_bad_state(&self) -> bool {
        self.kind() == ErrorKind::BadState
    }

    /// An argument was invalid (refused by this crate or by DOCA).
    pub fn is_invalid_argument(&self) -> bool {
        self.kind() == ErrorKind::InvalidArgument
    }

    /// Out of memory.
    pub fn is_no_memory(&self) -> bool {
        self.kind() == ErrorKind::NoMemory
    }

    /// Driver or firmware failure (DOCA_ERROR_DRIVER). DOCA returns it for
    /// several causes: an RPC whose device function never returned (it hung or
    /// crashed; check [`Dpa::health`](crate::Dpa::health)), a firmware command
    /// the device refused, and — at the first launch or RPC — a DPA image
    /// built with a dpacc that does not match the installed DOCA (`doca-doctor`
    /// reports the pairing).
    pub fn is_driver(&self) -> bool {
        self.kind() == ErrorKind::Driver
    }

    /// The DPA context is fatal after a device-side error.
    pub fn is_context_fatal(&self) -> bool {
        self.kind() == ErrorKind::ContextFatal
    }

    /// DOCA and dpacc (or headers and library) versions do not match.
    pub fn is_version_mismatch(&self) -> bool {
        self.kind() == ErrorKind::VersionMismatch
    }
}

/// Result of this crate's operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) use crate::core::check;

/// Calls a function of `doca-dpa-sys` and checks its code, naming the call in the
/// error: the core layer's one call helper,
/// [`__doca_core_call!`](crate::__doca_core_call), for this crate's bindings (the
/// object pointers among its arguments come from their domain's guard). It adds
/// no `unsafe` of its own: each call site writes the `unsafe` block and its SAFETY comment,
/// `unsafe { doca_call!(doca_dpa_start(ptr)) }?`.
macro_rules! doca_call {
    ($($call:tt)*) => {
        $crate::__doca_core_call!(doca_dpa_sys::$($call)*)
    };
}
pub(crate) use doca_call;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_codes_stay_representable() {
        let e = crate::core::doca_error("doca_dpa_start", ErrorCode(9999));
        assert_eq!(e.code(), Some(ErrorCode(9999)));
        assert_eq!(e.kind(), ErrorKind::Other);
        assert!(!e.to_string().is_empty());
    }

    #[test]
    fn kinds_follow_codes() {
        let e = crate::core::doca_error("doca_dpa_create", ErrorCode::NOT_SUPPORTED);
        assert!(e.is_no_dpa() && e.is_not_supported());
        assert!(crate::core::doca_error("doca_dpa_set_app", ErrorCode::BAD_STATE).is_bad_state());
        assert!(
            crate::core::doca_error("doca_dpa_kernel_launch_update_add", ErrorCode::DRIVER)
                .is_driver()
        );
        assert!(Error::invalid("doca_dpa_mem_alloc", "zero size").is_invalid_argument());
        assert!(!crate::core::doca_error("doca_dpa_start", ErrorCode::NOT_SUPPORTED).is_no_dpa());
    }

    #[test]
    fn description_comes_from_doca_verbatim() {
        let e = crate::core::doca_error("doca_dpa_start", ErrorCode::BAD_STATE);
        match &e {
            Error::Doca {
                description, name, ..
            } => {
                assert_eq!(*description, ErrorCode::BAD_STATE.description());
                assert_eq!(name, "DOCA_ERROR_BAD_STATE");
                assert!(e.to_string().contains(description.as_str()));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
