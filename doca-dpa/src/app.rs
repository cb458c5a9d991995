//! DPA applications and their kernels, declared once with [`dpa_app!`](crate::dpa_app) with
//! the C types of their parameters, so launches cannot drift from the
//! kernel's signature.

use std::marker::PhantomData;

use doca_dpa_sys as sys;

/// A DPA application: the image `dpacc --app-name=NAME` embedded in this
/// program (the global `struct doca_dpa_app *NAME`). Made by the `app()`
/// function that [`dpa_app!`](crate::dpa_app) generates.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct App {
    ptr: *mut sys::doca_dpa_app,
    name: &'static str,
}

// SAFETY: the app is an immutable image registered at load time; DOCA only
// reads it.
unsafe impl Send for App {}
// SAFETY: as above.
unsafe impl Sync for App {}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App").field("name", &self.name).finish()
    }
}

impl App {
    /// Wraps the value of an app symbol.
    ///
    /// # Safety
    /// `ptr` must be the value of a `struct doca_dpa_app *` symbol produced
    /// by dpacc (or by doca-build-support for the sim) for this program.
    #[doc(hidden)]
    pub unsafe fn from_symbol(ptr: *mut sys::doca_dpa_app, name: &'static str) -> App {
        App { ptr, name }
    }

    /// The `--app-name` it was built with.
    pub fn name(&self) -> &'static str {
        self.name
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::doca_dpa_app {
        self.ptr
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u32 {}
    impl Sealed for i64 {}
    impl Sealed for i32 {}
}

/// A C type a kernel parameter can have and a variadic call can pass
/// unchanged: `uint64_t`, `uint32_t`, `int64_t`, `int32_t` (types narrower
/// than `int` cannot be passed through `...`).
pub trait AbiScalar: sealed::Sealed + Copy + Send + 'static {}
impl AbiScalar for u64 {}
impl AbiScalar for u32 {}
impl AbiScalar for i64 {}
impl AbiScalar for i32 {}

/// The type of one kernel parameter, as written in [`dpa_app!`](crate::dpa_app).
///
/// # Safety
/// `Abi` must be exactly the C type of the parameter in the kernel's source:
/// DOCA forwards the variadic launch arguments by the kernel's declared types.
pub unsafe trait KernelParam: 'static {
    /// The C type passed through the variadic call.
    type Abi: AbiScalar;
}

// SAFETY: the C types of the same names.
unsafe impl KernelParam for u64 {
    type Abi = u64;
}
// SAFETY: as above.
unsafe impl KernelParam for u32 {
    type Abi = u32;
}
// SAFETY: as above.
unsafe impl KernelParam for i64 {
    type Abi = i64;
}
// SAFETY: as above.
unsafe impl KernelParam for i32 {
    type Abi = i32;
}

/// Marker types for kernel parameters whose C type is a DOCA handle, for use
/// in [`dpa_app!`](crate::dpa_app) signatures.
pub mod param {
    use super::KernelParam;

    macro_rules! params {
        ($($(#[$m:meta])* $name:ident: $abi:ty;)*) => {
            $(
                $(#[$m])*
                #[derive(Debug, Clone, Copy)]
                pub enum $name {}
                // SAFETY: the C typedef named in the doc comment is this type.
                unsafe impl KernelParam for $name {
                    type Abi = $abi;
                }
            )*
        };
    }

    params! {
        /// `doca_dpa_dev_uintptr_t` (uint64_t): a DPA heap address.
        DevPtr: u64;
        /// `doca_dpa_dev_t` (uint64_t): a DPA context handle.
        Dpa: u64;
        /// `doca_dpa_dev_sync_event_t` (uint64_t).
        SyncEvent: u64;
        /// `doca_dpa_dev_completion_t` (uint64_t).
        Completion: u64;
        /// `doca_dpa_dev_notification_completion_t` (uint64_t).
        Notification: u64;
        /// `doca_dpa_dev_async_ops_t` (uint64_t).
        AsyncOps: u64;
        /// `doca_dpa_dev_hash_table_t` (uint64_t).
        HashTable: u64;
        /// `doca_dpa_dev_mmap_t` (uint32_t: the one 32-bit DPA handle).
        Mmap: u32;
    }
}

/// A value that can be passed for a kernel parameter of type `P`, borrowed
/// for `'a` (the launch keeps the borrow until it completes).
pub trait KernelArg<'a, P: KernelParam> {
    /// The value as the kernel's C type.
    fn to_abi(&self) -> P::Abi;
}

macro_rules! scalar_args {
    ($($t:ty),*) => {$(
        impl KernelArg<'_, $t> for $t {
            fn to_abi(&self) -> $t {
                *self
            }
        }
    )*};
}
scalar_args!(u64, u32, i64, i32);

/// A kernel: a `__dpa_global__` function of an app, with parameter types `S`
/// (a tuple). Launched with [`Launcher`](crate::Launcher).
pub struct Kernel<S> {
    name: &'static str,
    func: unsafe extern "C" fn(),
    _sig: PhantomData<fn(S)>,
}

/// An RPC function: a `__dpa_rpc__` function returning `uint64_t`, with
/// parameter types `S`. Called with [`Dpa::rpc`](crate::Dpa::rpc).
pub struct Rpc<S> {
    name: &'static str,
    func: unsafe extern "C" fn(),
    _sig: PhantomData<fn(S)>,
}

/// A DPA thread entry point: `__dpa_global__ void f(uint64_t arg)`.
#[derive(Clone, Copy)]
pub struct ThreadFn {
    name: &'static str,
    func: unsafe extern "C" fn(),
}

macro_rules! device_fn_common {
    ($($ty:ident<$($g:ident)?>),*) => {$(
        impl<$($g)?> $ty<$($g)?> {
            /// The function's C name.
            pub fn name(&self) -> &'static str {
                self.name
            }

            /// The host stub's address, passed to DOCA as `doca_dpa_func_t *`.
            pub(crate) fn func_ptr(&self) -> sys::doca_dpa_func_t {
                Some(self.func)
            }
        }

        impl<$($g)?> Clone for $ty<$($g)?> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($g)?> Copy for $ty<$($g)?> {}

        impl<$($g)?> std::fmt::Debug for $ty<$($g)?> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($ty)).field(&self.name).finish()
            }
        }
    )*};
}

impl<S> Kernel<S> {
    #[doc(hidden)]
    pub const fn new(name: &'static str, func: unsafe extern "C" fn()) -> Self {
        Kernel {
            name,
            func,
            _sig: PhantomData,
        }
    }
}

impl<S> Rpc<S> {
    #[doc(hidden)]
    pub const fn new(name: &'static str, func: unsafe extern "C" fn()) -> Self {
        Rpc {
            name,
            func,
            _sig: PhantomData,
        }
    }
}

impl ThreadFn {
    #[doc(hidden)]
    pub const fn new(name: &'static str, func: unsafe extern "C" fn()) -> Self {
        ThreadFn { name, func }
    }

    /// The function's C name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The host stub's address, passed to DOCA as `doca_dpa_func_t *`.
    pub(crate) fn func_ptr(&self) -> sys::doca_dpa_func_t {
        Some(self.func)
    }
}

impl std::fmt::Debug for ThreadFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ThreadFn").field(&self.name).finish()
    }
}

device_fn_common!(Kernel<S>, Rpc<S>);

/// The fixed arguments of `doca_dpa_kernel_launch_update_set/_add`.
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct RawLaunch {
    pub dpa: *mut sys::doca_dpa,
    pub wait_event: *mut sys::doca_sync_event,
    pub wait_threshold: u64,
    pub comp_event: *mut sys::doca_sync_event,
    pub comp_count: u64,
    pub num_threads: u32,
    pub func: sys::doca_dpa_func_t,
}

/// A tuple of arguments matching the parameter tuple `S` element by element.
///
/// Implemented for tuples of up to 16 [`KernelArg`]s; the variadic call
/// passes each with its parameter's exact C type.
pub trait KernelArgs<'a, S> {
    /// Calls `doca_dpa_kernel_launch_update_add` with these arguments.
    ///
    /// # Safety
    /// `raw` must hold a started context, events valid for it (or NULL) and a
    /// kernel of its app whose parameters are `S`.
    #[doc(hidden)]
    unsafe fn launch_add(&self, raw: RawLaunch) -> sys::doca_error_t;

    /// Calls `doca_dpa_rpc` with these arguments.
    ///
    /// # Safety
    /// `dpa` must be a started context and `func` an RPC of its app whose
    /// parameters are `S`.
    #[doc(hidden)]
    unsafe fn rpc(
        &self,
        dpa: *mut sys::doca_dpa,
        func: sys::doca_dpa_func_t,
        ret: *mut u64,
    ) -> sys::doca_error_t;
}

macro_rules! tuple_args {
    ($( ($($p:ident $a:ident $v:ident),*) )*) => {$(
        impl<'a, $($p: KernelParam,)* $($a: KernelArg<'a, $p>,)*> KernelArgs<'a, ($($p,)*)> for ($($a,)*) {
            #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
            unsafe fn launch_add(&self, raw: RawLaunch) -> sys::doca_error_t {
                let ($($v,)*) = self;
                // SAFETY: per the trait contract; each value has its
                // parameter's exact C type.
                unsafe {
                    sys::doca_dpa_kernel_launch_update_add(
                        raw.dpa, raw.wait_event, raw.wait_threshold, raw.comp_event, raw.comp_count,
                        raw.num_threads as _, raw.func $(, KernelArg::<$p>::to_abi($v))*
                    )
                }
            }

            #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
            unsafe fn rpc(&self, dpa: *mut sys::doca_dpa, func: sys::doca_dpa_func_t, ret: *mut u64) -> sys::doca_error_t {
                let ($($v,)*) = self;
                // SAFETY: per the trait contract.
                unsafe { sys::doca_dpa_rpc(dpa, func, ret $(, KernelArg::<$p>::to_abi($v))*) }
            }
        }
    )*};
}

tuple_args! {
    ()
    (P0 A0 v0)
    (P0 A0 v0, P1 A1 v1)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8, P9 A9 v9)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8, P9 A9 v9, P10 A10 v10)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8, P9 A9 v9, P10 A10 v10, P11 A11 v11)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8, P9 A9 v9, P10 A10 v10, P11 A11 v11, P12 A12 v12)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8, P9 A9 v9, P10 A10 v10, P11 A11 v11, P12 A12 v12, P13 A13 v13)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8, P9 A9 v9, P10 A10 v10, P11 A11 v11, P12 A12 v12, P13 A13 v13, P14 A14 v14)
    (P0 A0 v0, P1 A1 v1, P2 A2 v2, P3 A3 v3, P4 A4 v4, P5 A5 v5, P6 A6 v6, P7 A7 v7, P8 A8 v8, P9 A9 v9, P10 A10 v10, P11 A11 v11, P12 A12 v12, P13 A13 v13, P14 A14 v14, P15 A15 v15)
}

/// Declares a DPA application built by dpacc (or by doca-build-support for
/// the sim) and its device functions, with the C types of their parameters.
///
/// ```ignore
/// doca_dpa::dpa_app! {
///     /// Kernels of `kernels/hello.c`, built with `--app-name=hello_app`.
///     pub mod hello_app {
///         /// `__dpa_global__ void fill(doca_dpa_dev_uintptr_t out, uint32_t n)`
///         kernel fill(param::DevPtr, u32);
///         /// `__dpa_rpc__ uint64_t add(uint64_t a, uint64_t b)`
///         rpc add(u64, u64);
///         /// `__dpa_global__ void worker(uint64_t arg)`
///         thread worker;
///     }
/// }
/// let dpa = Dpa::start(&device, hello_app::app())?;
/// ```
///
/// The module gets `app()` and one constant per function (a [`Kernel`],
/// [`Rpc`] or [`ThreadFn`]). `param` refers to [`doca_dpa::param`](crate::param).
#[macro_export]
macro_rules! dpa_app {
    (
        $(#[$meta:meta])*
        $vis:vis mod $app:ident {
            $($body:tt)*
        }
    ) => {
        $(#[$meta])*
        // A program need not use every function of its DPA image.
        #[allow(non_upper_case_globals, dead_code)]
        $vis mod $app {
            #[allow(unused_imports)]
            use $crate::param;
            mod ffi {
                extern "C" {
                    pub static $app: *mut $crate::sys::doca_dpa_app;
                }
                $crate::dpa_app!(@stubs $($body)*);
            }

            /// The application (`struct doca_dpa_app *` from dpacc's `--app-name`).
            pub fn app() -> $crate::App {
                // SAFETY: the symbol is defined by the DPA image linked into
                // this program, filled in at load time.
                unsafe { $crate::App::from_symbol(ffi::$app, stringify!($app)) }
            }

            $crate::dpa_app!(@consts $($body)*);
        }
    };
    (@stubs) => {};
    (@stubs $(#[$m:meta])* kernel $name:ident($($p:ty),* $(,)?); $($rest:tt)*) => {
        extern "C" { pub fn $name(); }
        $crate::dpa_app!(@stubs $($rest)*);
    };
    (@stubs $(#[$m:meta])* rpc $name:ident($($p:ty),* $(,)?); $($rest:tt)*) => {
        extern "C" { pub fn $name(); }
        $crate::dpa_app!(@stubs $($rest)*);
    };
    (@stubs $(#[$m:meta])* thread $name:ident; $($rest:tt)*) => {
        extern "C" { pub fn $name(); }
        $crate::dpa_app!(@stubs $($rest)*);
    };
    (@consts) => {};
    (@consts $(#[$m:meta])* kernel $name:ident($($p:ty),* $(,)?); $($rest:tt)*) => {
        $(#[$m])*
        pub const $name: $crate::Kernel<($($p,)*)> = $crate::Kernel::new(stringify!($name), ffi::$name);
        $crate::dpa_app!(@consts $($rest)*);
    };
    (@consts $(#[$m:meta])* rpc $name:ident($($p:ty),* $(,)?); $($rest:tt)*) => {
        $(#[$m])*
        pub const $name: $crate::Rpc<($($p,)*)> = $crate::Rpc::new(stringify!($name), ffi::$name);
        $crate::dpa_app!(@consts $($rest)*);
    };
    (@consts $(#[$m:meta])* thread $name:ident; $($rest:tt)*) => {
        $(#[$m])*
        pub const $name: $crate::ThreadFn = $crate::ThreadFn::new(stringify!($name), ffi::$name);
        $crate::dpa_app!(@consts $($rest)*);
    };
}
