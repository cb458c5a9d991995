//! Argument wrappers: the device values that kernel arguments and the fields of
//! structs in DPA memory carry. [`Dev`] holds a value together with what keeps its
//! object alive; [`Handle`] is a value read back from DPA memory, keeping nothing;
//! [`Untyped`] is DPA memory for an untyped address parameter, whose contents the
//! caller vouches for; [`DevPtr`] is a raw DPA address for code that manages DPA
//! memory itself;
//! [`ByValue`] and [`StructAbi`] pass a struct by value. None of them makes a DOCA
//! call.

use std::fmt;
use std::marker::PhantomData;

use crate::app::{param, KernelArg, KernelParam};
use crate::error::Result;
use crate::keep::{CtxId, Keep, KeepQueue};
use crate::memory::{DeviceStruct, DpaMemory};

/// A DPA heap address (`doca_dpa_dev_uintptr_t`) that nothing keeps alive.
///
/// Safe code never sees one: DPA addresses reach kernels through the objects that own
/// the memory ([`DpaBuffer`](crate::DpaBuffer), [`DpaSlice`](crate::DpaSlice), [`DpaBox`](crate::DpaBox),
/// and [`Untyped`] for an untyped parameter). A `DevPtr` exists for code
/// that manages DPA memory itself, so making one and reading its value are `unsafe`:
///
/// ```compile_fail
/// let p = doca_dpa::DevPtr(0x10); // the field is private
/// ```
///
/// ```
/// // SAFETY: this address is never given to a kernel.
/// let p = unsafe { doca_dpa::DevPtr::from_raw(0x10) };
/// // SAFETY: only printed.
/// assert_eq!(unsafe { p.raw() }, 0x10);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DevPtr(pub(crate) u64);

impl DevPtr {
    /// Wraps a DPA address.
    ///
    /// # Safety
    /// If the pointer is passed to a kernel, the memory it designates must stay
    /// allocated, and be as large as the kernel uses it, until the device is done with
    /// it: nothing in this crate keeps it alive.
    pub unsafe fn from_raw(addr: u64) -> DevPtr {
        DevPtr(addr)
    }

    /// The address.
    ///
    /// # Safety
    /// Writing the value where the DPA reads it (DPA memory, a kernel argument) hands
    /// the device an address whose lifetime nothing tracks; the caller must keep the
    /// memory alive as [`DevPtr::from_raw`] requires.
    pub unsafe fn raw(&self) -> u64 {
        self.0
    }
}

// SAFETY: `DevPtr` can only be made by `from_raw`, whose caller promised that the
// memory outlives the device's use of it.
unsafe impl KernelArg<param::DevPtr> for DevPtr {
    fn lower(&self, _keep: &mut Keep<'_>) -> Result<u64> {
        Ok(self.0)
    }
}

/// DPA memory given to an untyped address parameter: a `void *` or
/// `doca_dpa_dev_uintptr_t` parameter of a kernel, DPA thread or RPC
/// ([`param::DevPtr`]), such a field of a struct (`Dev<param::DevPtr>`), or a
/// thread's local storage.
///
/// An untyped address does not say what the device function reads there, and the
/// function may read it as anything: as a struct of handles and addresses, say,
/// which it then uses. Memory that safe code filled (a `DpaBuffer<u64>` holding a
/// made-up handle, a host address) would then give the device values the library
/// never wrote. So making one is `unsafe`, and the caller says what the function
/// reads. Declare the parameter with its pointee instead (`uint64_t *out`,
/// `struct state *st`: [`param::Ptr`]) and safe code passes `&buffer` or `&boxed`.
///
/// ```
/// # fn f(dpa: &doca_dpa::Dpa) -> doca_dpa::Result<()> {
/// let words = doca_dpa::DpaBuffer::<u64>::new(dpa, 8)?;
/// // SAFETY: the device function only writes integers into the 8 words.
/// let out = unsafe { doca_dpa::Untyped::new(&words) };
/// # let _ = out; Ok(()) }
/// ```
///
/// Like any argument it keeps the memory (and what a box's fields reference) alive
/// for as long as the launch, thread or struct that holds it can use it.
#[derive(Debug, Clone, Copy)]
pub struct Untyped<M>(M);

impl<M: DpaMemory> Untyped<M> {
    /// `memory`, for an untyped address parameter.
    ///
    /// # Safety
    /// Every device function that reaches the memory through this value (the kernel,
    /// DPA thread or RPC it is passed to, one that reads the struct field it is
    /// stored in) reads and writes it only as what it holds, and within its size:
    /// the elements of a `DpaBuffer<T>` or `DpaSlice<T>` as `T`s, a `DpaBox<S>` as
    /// `struct S`. In particular it uses no value read there as a handle or an
    /// address unless the library wrote that value as one (a `Dev` field of a
    /// `DpaBox`).
    pub unsafe fn new(memory: M) -> Untyped<M> {
        Untyped(memory)
    }
}

// SAFETY: the address of live memory of the launch's context, recorded as kept
// (`sealed::Memory`); `Untyped::new`'s caller promised that the device function
// reads it as what it holds.
unsafe impl<M: DpaMemory> KernelArg<param::DevPtr> for Untyped<M> {
    #[inline]
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        crate::memory::sealed::Memory::address(&self.0, keep)
    }
}

/// A device value for a field of a struct in DPA memory, or for a kernel argument: a
/// handle or DPA address of type `P` together with what keeps its object alive.
///
/// Made from any argument for `P` (`Dev::new(&event)?`, `Dev::new(&buffer)?`).
pub struct Dev<P: KernelParam> {
    abi: P::Abi,
    keep: KeepQueue,
    /// The context of the object the value came from (`None` for a plain value).
    ctx: Option<CtxId>,
}

impl<P: KernelParam> fmt::Debug for Dev<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dev").finish_non_exhaustive()
    }
}

impl<P: KernelParam> Dev<P> {
    /// Takes `arg`'s device value and keeps what it references alive for as long as
    /// this `Dev` (and anything it is moved into) lives.
    pub fn new(arg: impl KernelArg<P>) -> Result<Dev<P>> {
        let mut keep = KeepQueue::default();
        let mut recorder = keep.recorder(0, None, "doca_dpa_kernel_launch_update_add");
        let abi = arg.lower(&mut recorder)?;
        let ctx = recorder.context();
        Ok(Dev { abi, keep, ctx })
    }
}

impl<P: KernelParam> Dev<P> {
    /// Takes `arg`'s device value *without* keeping its object alive: for breaking a
    /// reference cycle, such as a thread's state that names the completion waking
    /// that thread (the completion holds the thread, which holds its state). A cycle
    /// of kept objects is never freed: it leaks, soundly.
    ///
    /// # Safety
    /// The caller keeps the object alive for as long as the device may use the
    /// value.
    pub unsafe fn unkept(arg: impl KernelArg<P>) -> Result<Dev<P>> {
        let mut keep = KeepQueue::default();
        let mut recorder = keep.recorder(0, None, "doca_dpa_kernel_launch_update_add");
        let abi = arg.lower(&mut recorder)?;
        let ctx = recorder.context();
        Ok(Dev {
            abi,
            keep: KeepQueue::default(),
            ctx,
        })
    }

    /// The C value 0 for a field not set yet (a handle filled in once its object
    /// exists, as NVIDIA's thread samples do), keeping nothing alive.
    ///
    /// # Safety
    /// The kernel must not use the value as a handle or address: it must test it for
    /// 0 first.
    pub unsafe fn null() -> Dev<P>
    where
        P::Abi: Default,
    {
        Dev {
            abi: P::Abi::default(),
            keep: KeepQueue::default(),
            ctx: None,
        }
    }
}

// SAFETY: the value came from a `KernelArg` (which checked its object's context
// against `self.ctx`, checked here against the new record's), and what it
// references is held by `self.keep`, which the new record now also holds.
unsafe impl<P: KernelParam> KernelArg<P> for Dev<P> {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<P::Abi> {
        if let Some(ctx) = self.ctx {
            keep.check_id(ctx, "the object of a `Dev` value")?;
        }
        self.keep.for_each(|k| keep.keep(k.clone()));
        Ok(self.abi)
    }
}

/// A handle or DPA address as stored in DPA memory, read back from a [`DpaBox`](crate::DpaBox).
///
/// It keeps nothing alive, so its value is readable only with `unsafe`, and it is not
/// [`DeviceCopy`](crate::DeviceCopy): it cannot be written to DPA memory again.
#[repr(transparent)]
pub struct Handle<P: KernelParam> {
    raw: P::Abi,
    _p: PhantomData<P>,
}

impl<P: KernelParam> Clone for Handle<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: KernelParam> Copy for Handle<P> {}

impl<P: KernelParam> fmt::Debug for Handle<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Handle(..)")
    }
}

impl<P: KernelParam> Handle<P> {
    /// The device value of `dev`, recording what it keeps alive (used by generated
    /// struct declarations).
    #[doc(hidden)]
    pub fn lowered(dev: &Dev<P>, keep: &mut Keep<'_>) -> Result<Handle<P>> {
        Ok(Handle {
            raw: dev.lower(keep)?,
            _p: PhantomData,
        })
    }

    /// The stored value.
    ///
    /// # Safety
    /// As [`DevPtr::raw`]: handing the value to the device again is only sound while
    /// its object is kept alive by other means.
    pub unsafe fn raw(&self) -> P::Abi {
        self.raw
    }
}

/// `struct NAME` passed by value to a device function whose C prototype takes it
/// so. Argument: the generated host struct `NAME` (its handle and address fields keep
/// their objects alive for the launch, as other arguments do).
pub struct ByValue<T>(std::marker::PhantomData<fn() -> T>);

impl<T> fmt::Debug for ByValue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ByValue<{}>", std::any::type_name::<T>())
    }
}

// SAFETY: the generated launcher takes a struct parameter as the address of its
// device layout (`T::Repr`, checked against the C definition) and copies it into a
// C value of the struct type for the variadic call.
unsafe impl<T: DeviceStruct> crate::KernelParam for ByValue<T>
where
    T::Repr: Send,
{
    type Abi = StructAbi<T::Repr>;
}

/// The device layout of a struct argument, as a generated launcher takes it (by
/// address: its C side copies it into the struct type, so the struct's C calling
/// convention is the C compiler's business, not Rust's).
#[repr(transparent)]
#[derive(Clone, Copy, Debug)]
pub struct StructAbi<R>(pub R);

impl<R: Copy + Send + 'static> crate::app::sealed::Sealed for StructAbi<R> {}
impl<R: Copy + Send + 'static> crate::AbiScalar for StructAbi<R> {}

// SAFETY: `DevPtr` can only be made by `from_raw`, whose caller promised that the
// memory outlives the device's use of it and is as large as the kernel uses it.
unsafe impl<T: 'static, N: 'static> KernelArg<param::Ptr<T, N>> for DevPtr {
    fn lower(&self, _keep: &mut Keep<'_>) -> Result<u64> {
        Ok(self.0)
    }
}
