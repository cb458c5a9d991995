//! How the sim defines the C functions of the reference headers.
//!
//! [`doca_api!`] wraps each body so that every exported function
//! - has exactly the signature bindgen generated from the reference headers
//!   (a mismatch is a compile error, checked against `crate::abi`),
//! - runs as sim code, not kernel code, for the trap handlers ([`crate::trap`]),
//! - fails with BAD_CONFIG while the environment configuration is refused
//!   ([`crate::config`]),
//! - counts its calls and honours injected faults ([`crate::hooks`]),
//! - turns a [`SimError`] into its code, logging why when `DOCA_SIM_LOG` is
//!   set, and never lets a panic cross into C.

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use crate::abi;
use crate::error::{codes, fail, SimError, SimResult};
use crate::hooks;

fn log_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("DOCA_SIM_LOG").is_some())
}

/// Prints a sim diagnostic when `DOCA_SIM_LOG` is set.
pub(crate) fn log(args: std::fmt::Arguments<'_>) {
    if log_enabled() {
        eprintln!("doca-sim: {args}");
    }
}

/// Runs the body of a fallible exported function.
///
/// The body is a `dyn` closure so that this function is compiled once, not once
/// per exported function (hundreds of them): what every dependant of the sim
/// compiles is measured (BENCHMARKS.md, "A user crate's clean sim build").
pub(crate) fn run(name: &'static str, body: &mut dyn FnMut() -> SimResult) -> abi::doca_error_t {
    let _sim = crate::trap::SimCode::enter();
    if let Some(reason) = crate::config::error() {
        crate::config::announce(reason);
        log(format_args!("{name}: DOCA_ERROR_BAD_CONFIG: {reason}"));
        return codes::BAD_CONFIG as abi::doca_error_t;
    }
    if let Some(code) = hooks::enter(name) {
        log(format_args!("{name}: injected error {code}"));
        return code as abi::doca_error_t;
    }
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => codes::SUCCESS as abi::doca_error_t,
        Ok(Err(SimError { code, why })) => {
            log(format_args!("{name}: error {code}: {why}"));
            code as abi::doca_error_t
        }
        Err(_) => {
            eprintln!("doca-sim: internal panic in {name}; returning DOCA_ERROR_UNEXPECTED");
            codes::UNEXPECTED as abi::doca_error_t
        }
    }
}

/// Turns the result of an internal entry point (one whose call was already
/// counted, like the second half of a variadic call) into its code.
pub(crate) fn result_code(result: SimResult) -> abi::doca_error_t {
    match result {
        Ok(()) => codes::SUCCESS as abi::doca_error_t,
        Err(SimError { code, why }) => {
            log(format_args!("error {code}: {why}"));
            code as abi::doca_error_t
        }
    }
}

/// Defines exported C functions of the reference headers.
///
/// ```text
/// doca_api! {
///     /// doc
///     fn doca_dpa_start(dpa: *mut abi::doca_dpa) { ...; Ok(()) }
///     /// a function that cannot fail returns its own type and is only counted
///     fn doca_dev_as_devinfo(dev: *const abi::doca_dev) -> *mut abi::doca_devinfo { ... }
///     /// `-> ()` is how a C function returning void is written
///     fn doca_ctx_flush_tasks(ctx: *mut abi::doca_ctx) -> () { ... }
/// }
/// ```
macro_rules! doca_api {
    () => {};
    (
        $(#[$meta:meta])*
        fn $name:ident($($arg:ident : $ty:ty),* $(,)?) $body:block
        $($rest:tt)*
    ) => {
        $(#[$meta])*
        #[no_mangle]
        #[allow(unreachable_pub)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $crate::abi::doca_error_t {
            const _: unsafe extern "C" fn($($ty),*) -> $crate::abi::doca_error_t =
                $crate::abi::$name;
            $crate::export::run(stringify!($name), &mut || -> $crate::error::SimResult { $body })
        }
        doca_api! { $($rest)* }
    };
    (
        $(#[$meta:meta])*
        fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> () $body:block
        $($rest:tt)*
    ) => {
        $(#[$meta])*
        #[no_mangle]
        #[allow(unreachable_pub)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) {
            const _: unsafe extern "C" fn($($ty),*) = $crate::abi::$name;
            let _sim = $crate::trap::SimCode::enter();
            $crate::hooks::count(stringify!($name));
            $body
        }
        doca_api! { $($rest)* }
    };
    (
        $(#[$meta:meta])*
        fn $name:ident($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block
        $($rest:tt)*
    ) => {
        $(#[$meta])*
        #[no_mangle]
        #[allow(unreachable_pub)]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            const _: unsafe extern "C" fn($($ty),*) -> $ret = $crate::abi::$name;
            let _sim = $crate::trap::SimCode::enter();
            $crate::hooks::count(stringify!($name));
            $body
        }
        doca_api! { $($rest)* }
    };
}
pub(crate) use doca_api;

/// Defines exported functions the sim does not model: each returns
/// `DOCA_ERROR_NOT_SUPPORTED` (after the usual counting and fault injection).
macro_rules! not_modelled {
    ($( $(#[$meta:meta])* fn $name:ident($($arg:ident : $ty:ty),* $(,)?); )*) => {
        $(
            doca_api! {
                $(#[$meta])*
                ///
                /// Not modelled by the sim: always returns `DOCA_ERROR_NOT_SUPPORTED`.
                fn $name($($arg: $ty),*) {
                    $( let _ = $arg; )*
                    Err($crate::error::fail(
                        $crate::error::codes::NOT_SUPPORTED,
                        concat!(stringify!($name), " is not modelled by doca-sim"),
                    ))
                }
            }
        )*
    };
}
pub(crate) use not_modelled;

/// Writes `value` through a C out-pointer.
///
/// The exported functions' callers promise, as in DOCA, that a non-NULL
/// out-pointer is valid for writes; NULL is refused with INVALID_VALUE.
pub(crate) fn out<T>(ptr: *mut T, value: T) -> SimResult {
    if ptr.is_null() {
        return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
    }
    // SAFETY: non-NULL out-pointers are valid for writes by the C contract.
    unsafe { ptr.write(value) };
    Ok(())
}

/// Copies `text` NUL-terminated into a caller buffer of `len` bytes.
/// INVALID_VALUE when the buffer is NULL or too small.
pub(crate) fn out_str(buf: *mut c_char, len: usize, text: &str) -> SimResult {
    if buf.is_null() {
        return Err(fail(codes::INVALID_VALUE, "NULL string buffer"));
    }
    if text.len() + 1 > len {
        return Err(fail(codes::INVALID_VALUE, "string buffer too small"));
    }
    // SAFETY: the caller gives a writable buffer of `len` bytes; we write
    // `text.len() + 1 <= len` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr(), buf.cast::<u8>(), text.len());
        *buf.add(text.len()) = 0;
    }
    Ok(())
}

/// Reads a C string argument; NULL or non-UTF-8 is INVALID_VALUE.
pub(crate) fn in_str<'a>(ptr: *const c_char) -> SimResult<&'a str> {
    if ptr.is_null() {
        return Err(fail(codes::INVALID_VALUE, "NULL string argument"));
    }
    // SAFETY: non-NULL string arguments are NUL-terminated by the C contract.
    unsafe { std::ffi::CStr::from_ptr(ptr) }
        .to_str()
        .map_err(|_| fail(codes::INVALID_VALUE, "string argument is not UTF-8"))
}
