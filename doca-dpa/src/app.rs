//! DPA applications and their device functions.
//!
//! The C source is the single truth about a kernel: `doca-build-support` reads every
//! `__dpa_global__` / `__dpa_rpc__` prototype of an application and generates its Rust
//! declarations, which [`include_app!`](crate::include_app) includes with one line, and
//! one C launcher per function that makes DOCA's variadic call with the exact C
//! parameter types. Each declaration is a [`Kernel`] or [`Rpc`] whose signature type
//! implements [`KernelSig`] / [`RpcSig`]; those traits are `unsafe` to implement, so a
//! hand-written declaration needs `unsafe`.

use std::marker::PhantomData;

use doca_dpa_sys as sys;

use crate::error::Result;
use crate::keep::Keep;

/// A DPA application: the image `dpacc --app-name=NAME` embedded in this
/// program (the global `struct doca_dpa_app *NAME`). Made by the `app()`
/// function of the declarations [`include_app!`](crate::include_app) includes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct App {
    ptr: *mut sys::doca_dpa_app,
    name: &'static str,
}

// SAFETY: an app is an image registered when the program loads; DOCA only reads it
// (`doca_dpa_set_app` takes it as the source of the context's code), so sharing the
// pointer between threads shares immutable data.
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

pub(crate) mod sealed {
    /// Implemented by this crate only: the supertrait of the sealed traits
    /// ([`AbiScalar`](super::AbiScalar)).
    pub trait Sealed {}
    /// The supertrait of [`ParamList`](super::ParamList) and
    /// [`ThreadParams`](crate::ThreadParams): implemented for tuples of parameter
    /// types, by this crate only.
    pub trait SealedParams {}
    /// The supertrait of [`KernelArgs`](super::KernelArgs): implemented for tuples
    /// of arguments, by this crate only.
    pub trait SealedArgs<Ps, F> {}
    impl Sealed for u64 {}
    impl Sealed for u32 {}
    impl Sealed for i64 {}
    impl Sealed for i32 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A C type a generated launcher takes for a parameter: `uint64_t`, `uint32_t`,
/// `int64_t`, `int32_t`, `float`, `double`, or a struct's device layout
/// ([`StructAbi`](crate::StructAbi), handed to the launcher by address).
///
/// **Sealed**: the launch path hands these values to C as the types named above, so
/// only this crate implements it.
pub trait AbiScalar: sealed::Sealed + Copy + Send + 'static {}
impl AbiScalar for u64 {}
impl AbiScalar for u32 {}
impl AbiScalar for i64 {}
impl AbiScalar for i32 {}
impl AbiScalar for f32 {}
impl AbiScalar for f64 {}

/// The type of one device-function parameter, as the generated declarations name it.
///
/// **Unsafe to implement** (not sealed: a hand-written declaration may need its own
/// marker type).
///
/// # Safety
/// `Abi` must be the C type the generated launcher takes for parameters of this type,
/// and every [`KernelArg`] for the type must produce values valid for that C
/// parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device-function parameter type",
    label = "not the Rust form of a C parameter type",
    note = "parameter types come from the kernel's C prototype (`include_app!`): integers \
            (`u64`, `u32`, `i64`, `i32`, `f32`, `f64`), the markers of `doca::dpa::param` for DOCA \
            handles and DPA addresses, `param::Ptr<T, _>` for `T *`, `param::ByValue<S>` for a struct"
)]
pub unsafe trait KernelParam: 'static {
    /// The value handed to the launcher.
    type Abi: AbiScalar;
}

macro_rules! scalar_params {
    ($($t:ty),*) => {$(
        // SAFETY: the C type of the same width and kind (`uint64_t` for u64, …).
        unsafe impl KernelParam for $t {
            type Abi = $t;
        }

        // SAFETY: a plain value: the device cannot reach anything through it.
        unsafe impl KernelArg<$t> for $t {
            #[inline]
            fn lower(&self, _keep: &mut Keep<'_>) -> Result<$t> {
                Ok(*self)
            }
        }

        // SAFETY: as above; the generated declarations' named form of the parameter.
        unsafe impl<N: 'static> KernelArg<param::Scalar<$t, N>> for $t {
            #[inline]
            fn lower(&self, _keep: &mut Keep<'_>) -> Result<$t> {
                Ok(*self)
            }
        }
    )*};
}
scalar_params!(u64, u32, i64, i32, f32, f64);

/// Marker types for parameters whose C type is a DOCA device handle or a DPA
/// address. Only values that keep their object alive are arguments for them.
pub mod param {
    use super::KernelParam;

    macro_rules! params {
        ($($(#[$m:meta])* $name:ident: $abi:ty;)*) => {
            $(
                $(#[$m])*
                #[derive(Debug, Clone, Copy)]
                pub enum $name {}
                // SAFETY: the C typedef named in the doc comment is this width, and
                // the generated launcher takes it as this type.
                unsafe impl KernelParam for $name {
                    type Abi = $abi;
                }
            )*
        };
    }

    params! {
        /// `doca_dpa_dev_uintptr_t` or `void *`: a DPA address whose C type does not
        /// say what the device function reads there. Arguments: DPA memory as an
        /// [`Untyped`](crate::Untyped) (`unsafe`: the caller says what the function
        /// reads), or a [`DevPtr`](crate::DevPtr). A parameter declared with its
        /// pointee (`uint64_t *`, `struct state *`) is a [`Ptr`], which safe code
        /// passes buffers and boxes to.
        DevPtr: u64;
        /// `doca_dpa_dev_t`: a DPA context handle. Argument: `&Dpa`.
        Dpa: u64;
        /// `doca_dpa_dev_sync_event_t`. Arguments: events made with `Export::ToDpa`,
        /// and `KernelEvent`s.
        SyncEvent: u64;
        /// `doca_dpa_dev_completion_t`. Argument: `&Completion`.
        Completion: u64;
        /// `doca_dpa_dev_notification_completion_t`. Argument: `&NotificationCompletion`.
        Notification: u64;
        /// `doca_dpa_dev_async_ops_t`. Argument: `&AsyncOps`.
        AsyncOps: u64;
        /// `doca_dpa_dev_hash_table_t`. Argument: `&HashTable`.
        HashTable: u64;
        /// `doca_dpa_dev_mmap_t` (uint32_t: the one 32-bit DPA handle). Argument: `&DpaMmap`.
        Mmap: u32;
        /// `doca_dpa_dev_rdmi_connection_t`. Argument: a started RDMI connection (doca-rdmi).
        RdmiConnection: u64;
        /// `doca_rdmi_dev_poster_t`. Argument: a started RDMI poster (doca-rdmi).
        RdmiPoster: u64;
        /// `doca_dpa_dev_rdma_t`: the DPA handle of a DOCA RDMA context. Arguments: a
        /// started RDMA context or one of its connections (doca-rdma).
        Rdma: u64;
        /// `doca_dpa_dev_sync_event_remote_net_t`: a peer's sync event, signalled over
        /// RDMA. Argument: a remote event made from the peer's export (doca-rdma).
        RemoteEvent: u64;
        /// `doca_dpa_dev_comch_producer_t`: a DPA Comms producer. Argument: a started
        /// producer (doca-comch).
        ComchProducer: u64;
        /// `doca_dpa_dev_comch_consumer_t`: a DPA Comms consumer. Argument: a started
        /// consumer (doca-comch).
        ComchConsumer: u64;
        /// `doca_dpa_dev_comch_consumer_completion_t`: a DPA Comms consumer
        /// completion context. Argument: a started consumer completion context
        /// (doca-comch).
        ComchConsumerCompletion: u64;
    }

    #[cfg(doca_sym = "doca_dpa_mem_alloc")]
    pub use crate::args::ByValue;

    /// `T *` (a C pointer to `T` elements): a DPA address of `T`s. Arguments:
    /// `&DpaBuffer<T>` and `&DpaSlice<T>` of the same element type, `&DpaBox<T>`
    /// for a pointer to a struct of the application; never memory of another
    /// element type (a 1-byte buffer for `uint64_t *` would let the kernel write
    /// past its end). `void *` and `doca_dpa_dev_uintptr_t` are [`DevPtr`], which
    /// takes DPA memory only as an `unsafe` [`Untyped`](crate::Untyped).
    ///
    /// `N` names the C parameter in compiler messages: the generated declarations
    /// give every pointer parameter a marker type `__param::FUNCTION::PARAMETER`.
    pub struct Ptr<T: 'static, N: 'static = ()>(
        std::convert::Infallible,
        std::marker::PhantomData<fn() -> (T, N)>,
    );

    impl<T: 'static, N: 'static> std::fmt::Debug for Ptr<T, N> {
        fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self.0 {}
        }
    }

    // SAFETY: a pointer parameter; the generated launcher takes every pointer as a
    // `uint64_t` DPA address (the DPA is LP64).
    unsafe impl<T: 'static, N: 'static> KernelParam for Ptr<T, N> {
        type Abi = u64;
    }

    /// A C number parameter (`uint32_t n`): takes exactly `R`, its Rust form (`u32`).
    ///
    /// `N` names the C parameter and its C type in compiler messages: the generated
    /// declarations give every number parameter a marker type
    /// `__param::FUNCTION::PARAMETER::CTYPE` (`__param::saxpy::n::uint32_t`).
    pub struct Scalar<R: 'static, N: 'static>(
        std::convert::Infallible,
        std::marker::PhantomData<fn() -> (R, N)>,
    );

    impl<R: 'static, N: 'static> std::fmt::Debug for Scalar<R, N> {
        fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self.0 {}
        }
    }

    // SAFETY: `R` is one of the number types whose own `KernelParam` is the C type of
    // that width and kind (`Abi = R` holds only for those); `N` only names it.
    unsafe impl<R: KernelParam<Abi = R> + crate::app::AbiScalar, N: 'static> KernelParam
        for Scalar<R, N>
    {
        type Abi = R;
    }
}

/// A value that can be passed for a parameter of type `P`.
///
/// **Unsafe to implement**: the value goes to the device as is.
///
/// `lower` runs before the launch takes any lock of this library (the family's
/// lock, which guards a launcher's state, included): it may make DOCA calls, and even
/// launch on, wait on or look at the launcher it is being launched with.
///
/// # Safety
/// The value `lower` returns must be valid for the parameter's C type, and every object
/// the device can reach through it must be recorded in `keep` (so it lives until the
/// device is done with it) unless it is kept alive for the rest of the program.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for the kernel parameter `{P}`",
    label = "the kernel's C prototype makes this `{P}`",
    note = "a C number parameter is `param::Scalar<R, __param::FUNCTION::PARAMETER::CTYPE>`: \
            parameter PARAMETER of FUNCTION, of C type CTYPE, takes exactly the Rust `R` \
            (`uint32_t` and `unsigned` a `u32`, `uint64_t` and `size_t` a `u64`, `int` an `i32`, \
            `long` an `i64`, `float` an `f32`, `double` an `f64`): convert another integer with \
            `R::try_from(n)?` (`u32::try_from(v.len())?`, which refuses a value that does not fit) \
            and round a float explicitly (`x.round() as u32`)",
    note = "a C pointer parameter `T *NAME` of FUNCTION is `param::Ptr<T, __param::FUNCTION::NAME>`: \
            it takes DPA memory of `T`s, a `&DpaBuffer<T>`, `&DpaSlice<T>` or `&DpaBox<T>`; host \
            memory (`&Vec<T>`, `&[T]`) is out of the DPA's reach: copy it into DPA memory first, \
            `let buf = DpaBuffer::from_slice(&dpa, &v)?;`, and pass `&buf`",
    note = "a C handle parameter takes the object, which the launch keeps alive, never an integer: \
            `doca_dpa_dev_sync_event_t` (`param::SyncEvent`) a `&KernelEvent`, or a `&WaitEvent` or \
            `&CompletionEvent` made with `Export::ToDpa`, `doca_dpa_dev_completion_t` \
            (`param::Completion`) a `&Completion`, …; an untyped address (`void *`, \
            `doca_dpa_dev_uintptr_t`: `param::DevPtr`) says nothing of what the kernel reads there, \
            so it takes DPA memory only as `unsafe {{ Untyped::new(&buffer) }}`: declare it `T *`",
    note = "a C integer parameter takes no DPA object: to pass one, declare the parameter in the \
            kernel as a pointer to what the memory holds (`uint64_t *out`, `struct state *st`) or as \
            the object's handle type (DOCA's samples write a thread's argument as `uint64_t arg`)"
)]
pub unsafe trait KernelArg<P: KernelParam> {
    /// The value for the C parameter, recording in `keep` what it keeps alive.
    fn lower(&self, keep: &mut Keep<'_>) -> Result<P::Abi>;
}

// SAFETY: forwards to the referenced value.
unsafe impl<P: KernelParam, A: KernelArg<P> + ?Sized> KernelArg<P> for &A {
    #[inline]
    fn lower(&self, keep: &mut Keep<'_>) -> Result<P::Abi> {
        (**self).lower(keep)
    }
}

/// A tuple of parameter types (the `Params` of a [`KernelSig`]).
///
/// **Sealed**: implemented for tuples of [`KernelParam`]s (up to 12) by this crate
/// only, so `Abi` is always the tuple of the parameters' `Abi`s that the generated
/// launchers take.
pub trait ParamList: sealed::SealedParams + 'static {
    /// The tuple of the values handed to the launcher (plain values: an RPC's
    /// are handed to its host thread).
    type Abi: Copy + Send + 'static;
}

/// A tuple of arguments matching the parameter tuple `Ps` element by element.
///
/// **Sealed**: implemented for tuples of [`KernelArg`]s by this crate only (its
/// `lower_all` produces the values handed to DOCA's launch and records what they
/// reference), so a launch, a thread or an RPC only ever receives values that
/// `KernelArg` implementations produced. Write `(arg,)` for one argument.
///
/// `F` is the device function's generated signature type (named after the
/// function): it only serves the compiler's message when the arguments do not
/// match, so that the message names the function.
#[diagnostic::on_unimplemented(
    message = "these arguments do not match the parameters `{Ps}` of `{F}`",
    label = "expected a tuple with one argument per C parameter of `{F}`, in order",
    note = "the parameters come from the function's C prototype; see its documentation"
)]
pub trait KernelArgs<Ps: ParamList, F = ()>: sealed::SealedArgs<Ps, F> {
    /// Lowers every argument, recording what they keep alive.
    #[doc(hidden)]
    fn lower_all(&self, keep: &mut Keep<'_>) -> Result<Ps::Abi>;
}

macro_rules! tuples {
    ($( ($($p:ident $a:ident $v:ident),*) )*) => {$(
        impl<$($p: KernelParam,)*> sealed::SealedParams for ($($p,)*) {}
        impl<$($p: KernelParam,)*> ParamList for ($($p,)*) {
            type Abi = ($($p::Abi,)*);
        }

        impl<F, $($p: KernelParam,)* $($a: KernelArg<$p>,)*> sealed::SealedArgs<($($p,)*), F> for ($($a,)*) {}

        impl<F, $($p: KernelParam,)* $($a: KernelArg<$p>,)*> KernelArgs<($($p,)*), F> for ($($a,)*) {
            #[inline]
            #[allow(non_snake_case, unused_variables, clippy::unused_unit)]
            fn lower_all(&self, keep: &mut Keep<'_>) -> Result<($($p::Abi,)*)> {
                let ($($v,)*) = self;
                Ok(($($v.lower(keep)?,)*))
            }
        }
    )*};
}

tuples! {
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
}

/// The fixed arguments of `doca_dpa_kernel_launch_update_set/_add`, as the generated C
/// launchers take them (`struct doca_gen_launch`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
#[doc(hidden)]
pub struct RawLaunch {
    pub dpa: *mut sys::doca_dpa,
    pub wait_event: *mut sys::doca_sync_event,
    pub wait_threshold: u64,
    pub comp_event: *mut sys::doca_sync_event,
    pub comp_count: u64,
    pub num_threads: u32,
    /// 1 for `_add`, 0 for `_set`.
    pub add: u32,
}

/// The signature of a `__dpa_global__` function: its parameter types and the C
/// launcher that passes them. Generated from the C prototype.
///
/// # Safety
/// `Params` must be the function's C parameter types, and `launch` must call
/// `doca_dpa_kernel_launch_update_add` (or `_set`, per `l.add`) for exactly this
/// function, passing each value with its parameter's C type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the signature of a `__dpa_global__` function",
    label = "launches and DPA threads run `__dpa_global__` functions",
    note = "an RPC (`__dpa_rpc__`) is called with `Dpa::rpc`; the signatures are generated from \
            the C prototypes by `include_app!`"
)]
pub unsafe trait KernelSig: 'static {
    /// The parameter types, in order.
    type Params: ParamList;
    /// The function's C name.
    const NAME: &'static str;
    /// Makes the launch call.
    ///
    /// # Safety
    /// `l` must hold a started context, events valid for it (or NULL), and the
    /// function must belong to the context's application.
    #[doc(hidden)]
    unsafe fn launch(l: &RawLaunch, args: <Self::Params as ParamList>::Abi) -> sys::doca_error_t;
}

/// The signature of a `__dpa_rpc__` function. Generated from the C prototype.
///
/// # Safety
/// As [`KernelSig`], for `doca_dpa_rpc`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the signature of a `__dpa_rpc__` function",
    label = "`Dpa::rpc` calls `__dpa_rpc__` functions (which return `uint64_t`)",
    note = "a `__dpa_global__` function is launched with `Launcher::launch` or run by a \
            `ThreadBuilder`; the signatures are generated from the C prototypes by `include_app!`"
)]
pub unsafe trait RpcSig: 'static {
    /// The parameter types, in order.
    type Params: ParamList;
    /// The function's C name.
    const NAME: &'static str;
    /// Makes the RPC call.
    ///
    /// # Safety
    /// `dpa` must be a started context whose application holds this function, and
    /// `ret` writable.
    #[doc(hidden)]
    unsafe fn call(
        dpa: *mut sys::doca_dpa,
        ret: *mut u64,
        args: <Self::Params as ParamList>::Abi,
    ) -> sys::doca_error_t;
}

/// A `__dpa_global__` function of an application: launched with
/// [`Launcher`](crate::Launcher), or run by a [`DpaThread`](crate::DpaThread).
pub struct Kernel<S> {
    app: fn() -> *mut sys::doca_dpa_app,
    name: &'static str,
    func: unsafe extern "C" fn(),
    _sig: PhantomData<fn(S)>,
}

/// A `__dpa_rpc__` function returning `uint64_t`. Called with
/// [`Dpa::rpc`](crate::Dpa::rpc).
pub struct Rpc<S> {
    app: fn() -> *mut sys::doca_dpa_app,
    name: &'static str,
    _sig: PhantomData<fn(S)>,
}

impl<S> Kernel<S> {
    /// The address of the function that reads its application's symbol: kernels
    /// with the same reader belong to the same application.
    pub(crate) fn app_reader(&self) -> usize {
        self.app as usize
    }

    /// A kernel of the application whose symbol `app` reads, with the host symbol
    /// `func`. Used by the generated declarations.
    ///
    /// # Safety
    /// `func` must be the host symbol of the `__dpa_global__` function called `name`
    /// in the application `app` returns, and `S` its signature.
    #[doc(hidden)]
    pub const unsafe fn generated(
        app: fn() -> *mut sys::doca_dpa_app,
        name: &'static str,
        func: unsafe extern "C" fn(),
    ) -> Self {
        Kernel {
            app,
            name,
            func,
            _sig: PhantomData,
        }
    }

    /// The host symbol, passed to DOCA as `doca_dpa_func_t *`.
    pub(crate) fn func_ptr(&self) -> sys::doca_dpa_func_t {
        Some(self.func)
    }
}

impl<S> Rpc<S> {
    /// An RPC of the application whose symbol `app` reads. Used by the generated
    /// declarations.
    ///
    /// # Safety
    /// `S` must be the signature of the `__dpa_rpc__` function called `name` in the
    /// application `app` returns.
    #[doc(hidden)]
    pub const unsafe fn generated(app: fn() -> *mut sys::doca_dpa_app, name: &'static str) -> Self {
        Rpc {
            app,
            name,
            _sig: PhantomData,
        }
    }
}

/// What launches and DPA threads run: a [`Kernel`]. A trait, rather than `&Kernel<S>`
/// in the signatures, so that an [`Rpc`] passed there is named as such in the error.
///
/// **Sealed**: implemented for [`Kernel`] only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `__dpa_global__` function: launches and DPA threads run kernels",
    label = "expected a `Kernel` (a `__dpa_global__` function of the app)",
    note = "an `Rpc` (a `__dpa_rpc__` function, which returns `uint64_t`) is called with \
            `dpa.rpc(&my_app::FUNCTION, args, timeout)`, not launched"
)]
pub trait KernelFn: sealed::Sealed {
    /// The kernel's generated signature.
    type Sig: KernelSig;
    /// The kernel.
    #[doc(hidden)]
    fn kernel(&self) -> &Kernel<Self::Sig>;
}

impl<S: KernelSig> sealed::Sealed for Kernel<S> {}
impl<S: KernelSig> KernelFn for Kernel<S> {
    type Sig = S;
    fn kernel(&self) -> &Kernel<S> {
        self
    }
}

/// What [`Dpa::rpc`](crate::Dpa::rpc) calls: an [`Rpc`]. A trait, rather than
/// `&Rpc<S>` in the signature, so that a [`Kernel`] passed there is named as such in
/// the error.
///
/// **Sealed**: implemented for [`Rpc`] only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `__dpa_rpc__` function: `Dpa::rpc` calls RPCs",
    label = "expected an `Rpc` (a `__dpa_rpc__` function of the app, returning `uint64_t`)",
    note = "a `Kernel` (a `__dpa_global__` function) is launched with \
            `Launcher::launch(&my_app::FUNCTION, threads, args)` or run by a `DpaThread`"
)]
pub trait RpcFn: sealed::Sealed {
    /// The RPC's generated signature.
    type Sig: RpcSig;
    /// The RPC.
    #[doc(hidden)]
    fn rpc(&self) -> &Rpc<Self::Sig>;
}

impl<S: RpcSig> sealed::Sealed for Rpc<S> {}
impl<S: RpcSig> RpcFn for Rpc<S> {
    type Sig = S;
    fn rpc(&self) -> &Rpc<S> {
        self
    }
}

macro_rules! device_fn_common {
    ($($ty:ident),*) => {$(
        impl<S> $ty<S> {
            /// The function's C name.
            pub fn name(&self) -> &'static str {
                self.name
            }

            /// Whether it belongs to `app`.
            pub(crate) fn belongs_to(&self, app: App) -> bool {
                (self.app)() == app.as_ptr()
            }
        }

        impl<S> Clone for $ty<S> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<S> Copy for $ty<S> {}

        impl<S> std::fmt::Debug for $ty<S> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_tuple(stringify!($ty)).field(&self.name).finish()
            }
        }
    )*};
}
device_fn_common!(Kernel, Rpc);

/// The error for a device function used with a context of another application.
#[cold]
pub(crate) fn foreign_function(call: &'static str, name: &str, dpa_app: App) -> crate::Error {
    crate::Error::invalid(
        call,
        format!(
            "`{name}` is not a function of application `{}`, which this context runs",
            dpa_app.name()
        ),
    )
}

/// Includes the Rust declarations that `doca-build-support` generated from the C
/// sources of a DPA application (in this package's build script), as a module named
/// like the application: `app()` (for [`Dpa::start`](crate::Dpa::start)), `APP_NAME`,
/// and one [`Kernel`] or [`Rpc`] constant per `__dpa_global__` / `__dpa_rpc__`
/// function, documented with its C prototype. An argument of the wrong type or count
/// does not compile.
///
/// ```
/// # // A doctest has no build script: the app comes from doca-rs's kernels package,
/// # // whose build script and `include_app!` are what the comments below show.
/// # use doca_test_kernels::doca_examples;
/// # use doca_dpa::{Device, Dpa, DpaBuffer, Launcher};
/// # let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_examples::app())?;
/// // build.rs:
/// //     doca_build_support::dpa_app::DpaApp::new("doca_examples")
/// //         .sources_in("examples/kernels")
/// //         .build_or_exit();
/// // src/lib.rs:
/// //     doca_dpa::include_app!(pub doca_examples);
/// assert_eq!(doca_examples::APP_NAME, "doca_examples");
/// assert_eq!(doca_examples::fill_ranks.name(), "fill_ranks");
/// let out = DpaBuffer::<u64>::new(&dpa, 3)?;
/// Launcher::new(&dpa)?
///     .launch(&doca_examples::fill_ranks, 2, (&out, 1u64, 5u32))?
///     .wait(std::time::Duration::from_secs(10))?;
/// assert_eq!(out.to_vec()?, [5, 6, 2]);
/// # Ok::<(), doca_dpa::Error>(())
/// ```
///
/// A wrong argument type or count is a compile error:
///
/// ```compile_fail
/// # use doca_test_kernels::doca_examples;
/// # use doca_dpa::{Device, Dpa, DpaBuffer, Launcher};
/// # let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_examples::app())?;
/// let out = DpaBuffer::<u64>::new(&dpa, 3)?;
/// // fill_ranks takes (out, uint64_t scale, uint32_t offset): one argument is missing.
/// Launcher::new(&dpa)?.launch(&doca_examples::fill_ranks, 2, (&out, 1u64))?;
/// # Ok::<(), doca_dpa::Error>(())
/// ```
///
/// # Usage
///
/// * Invoke it in the package whose build script built the app: the declarations are
///   read from that package's `OUT_DIR`. A name the build script did not build is a
///   compile error listing the apps it did build.
/// * To share an app between crates, include it once with `pub` in a library
///   (`doca_dpa::include_app!(pub my_app);`) and use `the_lib::my_app::…` elsewhere.
/// * Linking needs nothing more: the declarations carry the `#[link]` attributes of the
///   app's archives, so any crate that includes them — a library, a binary, a test —
///   links the app, and a program that never declares an app does not contain it.
///   Device function names are global C symbols: two apps in one program cannot have
///   functions of the same name.
///
/// # Safety
///
/// The macro expands to safe items only; the `unsafe` blocks inside the generated
/// declarations rely on the declarations having been generated from the very sources
/// that were compiled into the linked archives, which `doca-build-support` guarantees by
/// writing both in one build-script run. Do not edit or hand-write the included file: a
/// declaration whose parameter types differ from the C prototype makes DOCA read launch
/// arguments with the wrong types (undefined behaviour on hardware). Writing such a
/// declaration by hand means implementing the `unsafe` traits [`KernelSig`] /
/// [`RpcSig`].
#[macro_export]
macro_rules! include_app {
    ($(#[$meta:meta])* $vis:vis $app:ident) => {
        #[doc = concat!("DPA application `", stringify!($app), "`: the declarations generated from its C sources.")]
        $(#[$meta])*
        #[allow(non_upper_case_globals, unreachable_pub)]
        $vis mod $app {
            #[allow(unused_imports)]
            use $crate::__private as __dpa;
            include!(concat!(
                env!(
                    "OUT_DIR",
                    "include_app! reads the declarations a build script wrote: build the app in \
                     this package's build.rs with doca_build_support::dpa_app::DpaApp"
                ),
                "/doca_dpa_apps.rs"
            ));
            __doca_dpa_app!($app);
        }
    };
}
