//! DPA heap memory: typed buffers with bounds-checked copies, views of them as kernel
//! arguments, and typed structs whose handle fields keep their objects alive. (The
//! device values those fields and arguments carry are in `args.rs`.)
//!
//! Host copies (`read`, `write`, `fill_bytes`) of memory a running kernel also uses
//! are allowed: they are copies made by DOCA, like DMA, and may observe values the
//! kernel is half-way through writing (torn values), never undefined behaviour on the
//! host. They do not wait for launches; wait for the launch first to see its results.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::app::{param, KernelArg};
use crate::args::DevPtr;
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::family::{FamilyMember, Member};
use crate::keep::{CtxId, Keep, KeepAlive, KeepQueue};

/// Plain data that can be copied byte for byte between host and DPA.
///
/// # Safety
/// Every bit pattern of `size_of::<T>()` bytes must be a valid `T`, and `T`
/// must have no padding.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not plain data that DPA memory can hold",
    label = "DPA memory holds plain data only",
    note = "`DpaBuffer<T>` and `DpaSlice<T>` hold integers, floats and arrays of them \
            (`T: DeviceCopy`); a C struct of your kernels is a `DpaBox<S>` of its generated form, \
            whose handle and address fields keep their objects alive; a pointer or a Rust \
            allocation (`String`, `Vec`, `Box`) means nothing on the DPA"
)]
pub unsafe trait DeviceCopy: Copy + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => {$(
        // SAFETY: primitive integers and floats: any bits are valid, no padding.
        unsafe impl DeviceCopy for $t {}
    )*};
}
device_copy!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64);
// SAFETY: arrays of such types have no padding either.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

/// One DPA allocation, freed when the last owner goes.
pub(crate) struct Allocation {
    dpa: Dpa,
    addr: u64,
    bytes: usize,
}

/// How an allocation is shared: a member of its context's family, so that a drop
/// under the family's lock during an RPC frees it later (`family.rs`).
pub(crate) type SharedAllocation = Arc<Member<Allocation>>;

impl FamilyMember for Allocation {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // SAFETY: our allocation of this started context, freed once. Only
        // `KernelArg` impls hand its address to the device (the argument traits are
        // sealed or unsafe), each recording an `Arc` of it in a keep record, and
        // only for this context (checked): a launcher releases its records once
        // a completion event showed the launch finished, a thread once no
        // activation can run (`family::defer`), a `DpaBox` with its memory; whatever
        // could not be observed done was buried. So the device is done with it.
        let freed = self.dpa.with_ctx(|ctx, _| {
            // SAFETY: as above: memory of this context the device is done with.
            unsafe { doca_call!(doca_dpa_mem_free(ctx, self.addr)) }
        });
        if let Err(e) = freed {
            tracing::warn!(target: "doca_dpa::memory", error = %e, "doca_dpa_mem_free failed during drop");
        }
    }
}

impl Allocation {
    fn new(dpa: &Dpa, bytes: usize) -> Result<SharedAllocation> {
        const CALL: &str = "doca_dpa_mem_alloc";
        if bytes == 0 {
            return Err(Error::invalid(CALL, "a DPA buffer must not be empty"));
        }
        let mut addr = 0;
        dpa.or_fatal(dpa.with_ctx(|ctx, _| {
            // SAFETY: a started context; valid out-pointer.
            unsafe { doca_call!(doca_dpa_mem_alloc(ctx, bytes, &mut addr)) }
        }))?;
        // A success without an address (a DOCA that did not write it) must not
        // reach a kernel as a null pointer; nothing was allocated to free.
        if addr == 0 {
            return Err(Error::invalid(CALL, "DOCA reported success but no address"));
        }
        // Owned before the event (user code that may panic) is emitted.
        let alloc = Arc::new(Member::new(Allocation {
            dpa: dpa.clone(),
            addr,
            bytes,
        }));
        tracing::trace!(target: "doca_dpa::memory", addr, bytes, "DPA memory allocated");
        Ok(alloc)
    }

    /// Checks `[offset, offset + len)` (bytes) against the allocation.
    fn check(&self, call: &'static str, offset: usize, len: usize) -> Result<u64> {
        match offset.checked_add(len) {
            Some(end) if end <= self.bytes => Ok(self.addr + offset as u64),
            _ => Err(Error::invalid(
                call,
                format!(
                    "bytes {offset}..{} are outside an allocation of {} bytes",
                    offset.saturating_add(len),
                    self.bytes
                ),
            )),
        }
    }

    fn write_bytes(&self, offset: usize, data: &[u8]) -> Result<()> {
        let dst = self.check("doca_dpa_h2d_memcpy", offset, data.len())?;
        if data.is_empty() {
            return Ok(());
        }
        // SAFETY: in bounds (checked); DOCA reads `data.len()` bytes from `data` (its
        // non-const pointer parameter is not written through).
        self.dpa.or_fatal(self.dpa.with_ctx(|ctx, _| unsafe {
            doca_call!(doca_dpa_h2d_memcpy(
                ctx,
                dst,
                data.as_ptr().cast_mut().cast(),
                data.len()
            ))
        }))
    }

    /// Copies `data` to the start of the allocation, then runs `then` under the
    /// same hold of the family's guard, whether the copy succeeded or not (a
    /// failed copy may have written part of `data`). `then` runs no user code. If
    /// the call cannot be made (an RPC of the family in progress, on a thread
    /// that holds the family's lock), neither runs.
    fn write_bytes_then(&self, data: &[u8], then: impl FnOnce()) -> Result<()> {
        let dst = self.check("doca_dpa_h2d_memcpy", 0, data.len())?;
        let copied = self.dpa.with_ctx(|ctx, _| {
            // SAFETY: in bounds (checked); DOCA reads `data.len()` bytes from
            // `data` (its non-const pointer parameter is not written through).
            let copied = unsafe {
                doca_call!(doca_dpa_h2d_memcpy(
                    ctx,
                    dst,
                    data.as_ptr().cast_mut().cast(),
                    data.len()
                ))
            };
            then();
            Ok(copied)
        });
        self.dpa.or_fatal(copied.and_then(|c| c))
    }

    fn read_bytes(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let src = self.check("doca_dpa_d2h_memcpy", offset, out.len())?;
        if out.is_empty() {
            return Ok(());
        }
        // SAFETY: in bounds (checked); `out` is writable for its length.
        self.dpa.or_fatal(self.dpa.with_ctx(|ctx, _| unsafe {
            doca_call!(doca_dpa_d2h_memcpy(
                ctx,
                out.as_mut_ptr().cast(),
                src,
                out.len()
            ))
        }))
    }
}

fn as_bytes<T: DeviceCopy>(data: &[T]) -> &[u8] {
    // SAFETY: `T` has no padding (DeviceCopy), so every byte of the slice is
    // initialised; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast(), std::mem::size_of_val(data)) }
}

fn as_bytes_mut<T: DeviceCopy>(data: &mut [T]) -> &mut [u8] {
    // SAFETY: any bit pattern is a valid `T` (DeviceCopy), so bytes written here leave
    // valid values; the length is the slice's size in bytes.
    unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast(), std::mem::size_of_val(data)) }
}

fn zeroed_vec<T: DeviceCopy>(len: usize) -> Vec<T> {
    // SAFETY: all-zero bits are a valid `T` (DeviceCopy).
    let zero: T = unsafe { std::mem::zeroed() };
    vec![zero; len]
}

/// `len` elements of `T` in DPA heap memory (`doca_dpa_mem_alloc`),
/// freed with `doca_dpa_mem_free` once nothing uses it. Not zeroed on allocation.
///
/// Copies are checked against the buffer's length before DOCA is called.
/// Passed by reference to a device function whose C parameter is `T *` (a
/// [`param::Ptr<T>`](param::Ptr)); the launch keeps the memory alive until it has
/// finished, whatever happens to the buffer. An untyped parameter (`void *`,
/// `doca_dpa_dev_uintptr_t`) takes it only as an [`Untyped`](crate::Untyped).
pub struct DpaBuffer<T: DeviceCopy> {
    alloc: SharedAllocation,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: DeviceCopy> fmt::Debug for DpaBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaBuffer").field("len", &self.len).finish()
    }
}

impl<T: DeviceCopy> DpaBuffer<T> {
    /// Allocates `len` elements (`doca_dpa_mem_alloc`, EXPERIMENTAL).
    /// Zero or overflowing sizes are refused before the call.
    pub fn new(dpa: &Dpa, len: usize) -> Result<DpaBuffer<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::invalid(
                "doca_dpa_mem_alloc",
                format!("{len} elements overflow the address space"),
            )
        })?;
        Ok(DpaBuffer {
            alloc: Allocation::new(dpa, bytes)?,
            len,
            _t: PhantomData,
        })
    }

    /// Allocates a buffer holding a copy of `data`.
    pub fn from_slice(dpa: &Dpa, data: &[T]) -> Result<DpaBuffer<T>> {
        let buf = DpaBuffer::new(dpa, data.len())?;
        buf.write(0, data)?;
        Ok(buf)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements (never: empty buffers are refused).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The context whose heap holds it.
    pub fn dpa(&self) -> &Dpa {
        &self.alloc.dpa
    }

    fn byte_range(
        &self,
        call: &'static str,
        offset: usize,
        count: usize,
    ) -> Result<(usize, usize)> {
        let size = std::mem::size_of::<T>();
        offset
            .checked_add(count)
            .filter(|e| *e <= self.len)
            .map(|_| (offset * size, count * size))
            .ok_or_else(|| {
                Error::invalid(
                    call,
                    format!(
                        "elements {offset}..{} are outside a buffer of {}",
                        offset.saturating_add(count),
                        self.len
                    ),
                )
            })
    }

    /// Copies `data` to the buffer at element `offset` (`doca_dpa_h2d_memcpy`).
    pub fn write(&self, offset: usize, data: &[T]) -> Result<()> {
        let (at, _) = self.byte_range("doca_dpa_h2d_memcpy", offset, data.len())?;
        self.alloc.write_bytes(at, as_bytes(data))
    }

    /// Copies elements from `offset` into `out` (`doca_dpa_d2h_memcpy`).
    pub fn read(&self, offset: usize, out: &mut [T]) -> Result<()> {
        let (at, _) = self.byte_range("doca_dpa_d2h_memcpy", offset, out.len())?;
        self.alloc.read_bytes(at, as_bytes_mut(out))
    }

    /// Reads the whole buffer into a vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = zeroed_vec(self.len);
        self.read(0, &mut out)?;
        Ok(out)
    }

    /// Sets every byte of the buffer to `byte` (`doca_dpa_memset`).
    pub fn fill_bytes(&self, byte: u8) -> Result<()> {
        // SAFETY: the whole allocation, which this buffer keeps alive.
        self.alloc
            .dpa
            .or_fatal(self.alloc.dpa.with_ctx(|ctx, _| unsafe {
                doca_call!(doca_dpa_memset(
                    ctx,
                    self.alloc.addr,
                    byte as i32,
                    self.alloc.bytes
                ))
            }))
    }

    /// A view of `count` elements from element `offset`, for passing part of the
    /// buffer to a kernel. The view keeps the memory alive.
    pub fn slice(&self, offset: usize, count: usize) -> Result<DpaSlice<T>> {
        let (at, bytes) = self.byte_range("doca_dpa_kernel_launch_update_add", offset, count)?;
        if bytes == 0 {
            return Err(Error::invalid(
                "doca_dpa_kernel_launch_update_add",
                "an empty view of DPA memory",
            ));
        }
        Ok(DpaSlice {
            alloc: self.alloc.clone(),
            byte_offset: at,
            len: count,
            _t: PhantomData,
        })
    }

    /// The DPA address of the first element, with nothing keeping it alive.
    ///
    /// # Safety
    /// As [`DevPtr::raw`]: the caller keeps the buffer alive for as long as the device
    /// may use the address.
    pub unsafe fn dev_ptr(&self) -> DevPtr {
        DevPtr(self.alloc.addr)
    }

    pub(crate) fn allocation(&self) -> &SharedAllocation {
        &self.alloc
    }
}

impl Allocation {
    pub(crate) fn addr(&self) -> u64 {
        self.addr
    }
}

/// DPA memory this crate allocated and keeps alive while a device function may use
/// it: [`DpaBuffer`], [`DpaSlice`] and [`DpaBox`] (and references to them). What an
/// untyped address parameter takes, wrapped in an [`Untyped`](crate::Untyped).
///
/// **Sealed**: implemented by this crate only (the address it hands over is that of
/// a live allocation of the argument's context, recorded as kept).
pub trait DpaMemory: sealed::Memory {}

pub(crate) mod sealed {
    use crate::error::Result;
    use crate::keep::Keep;

    /// The supertrait of [`DpaMemory`](super::DpaMemory).
    pub trait Memory {
        /// The memory's DPA address, after checking its context against `keep`'s
        /// and recording in `keep` what keeps the memory (and, for a box, what its
        /// fields reference) alive.
        fn address(&self, keep: &mut Keep<'_>) -> Result<u64>;
    }

    impl<M: Memory + ?Sized> Memory for &M {
        #[inline]
        fn address(&self, keep: &mut Keep<'_>) -> Result<u64> {
            (**self).address(keep)
        }
    }
}

impl<M: DpaMemory + ?Sized> DpaMemory for &M {}

impl<T: DeviceCopy> sealed::Memory for DpaBuffer<T> {
    #[inline]
    fn address(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&self.alloc.dpa, "the DPA buffer")?;
        keep.keep(KeepAlive::new(&self.alloc));
        Ok(self.alloc.addr)
    }
}
impl<T: DeviceCopy> DpaMemory for DpaBuffer<T> {}

/// `len` elements of a [`DpaBuffer`] from some offset: a kernel argument for a `T *`
/// parameter (a [`param::Ptr<T>`](param::Ptr)) that keeps the whole buffer's memory
/// alive.
#[derive(Clone)]
pub struct DpaSlice<T: DeviceCopy> {
    alloc: SharedAllocation,
    byte_offset: usize,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: DeviceCopy> fmt::Debug for DpaSlice<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaSlice")
            .field("byte_offset", &self.byte_offset)
            .field("len", &self.len)
            .finish()
    }
}

impl<T: DeviceCopy> DpaSlice<T> {
    /// Number of elements in view.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view is empty (never: empty views are refused).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Reads the viewed elements into a vector (`doca_dpa_d2h_memcpy`).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = zeroed_vec(self.len);
        self.alloc
            .read_bytes(self.byte_offset, as_bytes_mut(&mut out))?;
        Ok(out)
    }
}

impl<T: DeviceCopy> sealed::Memory for DpaSlice<T> {
    /// An address inside the live allocation (checked when the view was made).
    #[inline]
    fn address(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&self.alloc.dpa, "the DPA buffer slice")?;
        keep.keep(KeepAlive::new(&self.alloc));
        Ok(self.alloc.addr + self.byte_offset as u64)
    }
}
impl<T: DeviceCopy> DpaMemory for DpaSlice<T> {}

/// A struct that lives in DPA memory, generated from its C definition: its host
/// form (fields of plain types and [`Dev`](crate::Dev) values) and its device layout (`Repr`).
///
/// # Safety
/// `Repr` must have the layout of the C struct with no implicit padding, every bit
/// pattern must be a valid `Repr`, and `lower` must record every object its handle
/// and address fields reference.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a struct generated from a C definition of your kernels",
    label = "a `DpaBox` or a by-value struct argument holds a generated struct",
    note = "define the struct in your kernel sources and use the form `include_app!` generates \
            (`my_app::my_struct`); plain data arrays go in a `DpaBuffer` instead"
)]
pub unsafe trait DeviceStruct: 'static {
    /// The C layout (no padding: the generator makes it explicit).
    type Repr: Copy + 'static;
    /// The C struct's name.
    const NAME: &'static str;
    /// The device layout of `self`, recording what its fields keep alive.
    fn lower(&self, keep: &mut Keep<'_>) -> Result<Self::Repr>;
}

struct BoxInner {
    // Field order is drop order: the memory goes before what its fields reference.
    alloc: SharedAllocation,
    /// The value the memory holds: what its fields reference. Replaced by `set`
    /// under the family's guard together with the copy, so the memory and this always
    /// agree; only locked for a moment (no user code, no DOCA call).
    current: std::sync::Mutex<Arc<BoxValue>>,
}

impl BoxInner {
    fn current(&self) -> Arc<BoxValue> {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// What one value written to a [`DpaBox`] references, and the values written
/// after it.
///
/// A launch or thread given the box holds the value current then; since its
/// kernel reads the memory while it runs (and a thread keeps what one activation
/// read for the next ones), it may see every value written after that too, so
/// each value holds the next one. A replaced value is released once nothing
/// given it or an earlier one can still run, and the box no longer holds it:
/// a box that is set over and over while no launch holds an old value keeps one
/// value alive.
#[derive(Default)]
struct BoxValue {
    /// Held, never read.
    _keep: KeepQueue,
    /// The value written after this one, once there is one.
    next: std::sync::OnceLock<Arc<BoxValue>>,
}

impl Drop for BoxValue {
    fn drop(&mut self) {
        // The values after this one, released in a loop rather than by recursion:
        // a chain of replaced values a thread held may be long.
        let mut next = self.next.take();
        while let Some(value) = next {
            next = match Arc::try_unwrap(value) {
                Ok(mut v) => v.next.take(),
                Err(_) => None,
            };
        }
    }
}

/// A typed struct in DPA memory (the "state struct" of persistent DPA threads): its
/// handle and address fields keep their objects alive for as long as the memory
/// holds them, and a launch or thread given the box keeps the memory alive.
///
/// A field that names an object which (through a thread) keeps this box alive
/// makes a reference cycle that is never freed; [`Dev::unkept`](crate::Dev::unkept) breaks it.
///
/// `doca_dpa_mem_alloc` and `doca_dpa_h2d_memcpy` on creation, `doca_dpa_d2h_memcpy`
/// to read, `doca_dpa_mem_free` once nothing uses it.
pub struct DpaBox<T: DeviceStruct> {
    inner: Arc<BoxInner>,
    _t: PhantomData<T>,
}

impl<T: DeviceStruct> fmt::Debug for DpaBox<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaBox").field("struct", &T::NAME).finish()
    }
}

impl<T: DeviceStruct> DpaBox<T> {
    /// Allocates the struct in `dpa`'s heap and writes `value` into it.
    pub fn new(dpa: &Dpa, value: &T) -> Result<DpaBox<T>> {
        let alloc = Allocation::new(dpa, std::mem::size_of::<T::Repr>())?;
        let boxed = DpaBox {
            inner: Arc::new(BoxInner {
                alloc,
                current: std::sync::Mutex::default(),
            }),
            _t: PhantomData,
        };
        boxed.set(value)?;
        Ok(boxed)
    }

    /// Overwrites the struct with `value` (`doca_dpa_h2d_memcpy`).
    ///
    /// What the previous value referenced is released once no launch or DPA
    /// thread given the box while it (or an earlier value) was in it can still
    /// run: a launch given it holds it until the launch is known finished, a
    /// thread until no activation of it can run. So a box set over and over holds
    /// one value while no launch or thread holds an older one; while a started
    /// thread holds the box, every value written is kept (an activation may keep
    /// what it read for the next one) — give such a thread new state through a new
    /// box, or through plain data fields.
    pub fn set(&self, value: &T) -> Result<()> {
        // Lowered with no lock held (the generated `lower` makes DOCA calls).
        let mut keep = KeepQueue::default();
        let ctx = CtxId::of(&self.inner.alloc.dpa);
        let repr = value.lower(&mut keep.recorder(0, Some(ctx), "doca_dpa_h2d_memcpy"))?;
        // SAFETY: `Repr` has no padding (DeviceStruct), so all its bytes are
        // initialised.
        let bytes = unsafe {
            std::slice::from_raw_parts(
                (&repr as *const T::Repr).cast::<u8>(),
                std::mem::size_of::<T::Repr>(),
            )
        };
        let value = Arc::new(BoxValue {
            _keep: keep,
            next: std::sync::OnceLock::new(),
        });
        let mut replaced = None;
        // The copy and the switch to the new value under the family's guard together:
        // two `set`s of one box switch in the order their copies landed. The
        // replaced value is dropped after (its drop may free memory and emit
        // `tracing` events), with no lock held.
        let written = self.inner.alloc.write_bytes_then(bytes, || {
            let mut current = self.inner.current.lock().unwrap_or_else(|p| p.into_inner());
            let old = std::mem::replace(&mut *current, value.clone());
            // A launch or thread that holds the old value holds this one too.
            let _ = old.next.set(value.clone());
            replaced = Some(old);
        });
        drop(replaced);
        written
    }
    /// Reads the struct's device layout back (`doca_dpa_d2h_memcpy`); its handle
    /// fields come back as [`Handle`](crate::Handle)s.
    pub fn get(&self) -> Result<T::Repr> {
        let mut out = std::mem::MaybeUninit::<T::Repr>::zeroed();
        // SAFETY: the buffer is the value's own storage, `size_of::<Repr>()` bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<u8>(),
                std::mem::size_of::<T::Repr>(),
            )
        };
        self.inner.alloc.read_bytes(0, bytes)?;
        // SAFETY: every bit pattern is a valid `Repr` (DeviceStruct), and all bytes
        // were written (zeroed, then copied).
        Ok(unsafe { out.assume_init() })
    }
}

impl<T: DeviceStruct> sealed::Memory for DpaBox<T> {
    /// The address of the allocation holding the struct; the record holds the box
    /// (so the allocation) and the value current now, which holds every value
    /// written after it and so everything the memory's fields reference while the
    /// launch or thread runs (`BoxValue`).
    #[inline]
    fn address(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&self.inner.alloc.dpa, "the DPA box")?;
        keep.keep(KeepAlive::new(&self.inner));
        keep.keep(KeepAlive::new(&self.inner.current()));
        Ok(self.inner.alloc.addr)
    }
}
impl<T: DeviceStruct> DpaMemory for DpaBox<T> {}

// Typed pointer parameters (`param::Ptr<T>`, a C `T *`): memory of `T`s only. What
// the kernel reads there is what the C type says, and the memory holds exactly
// that: plain data of type `T` (any bits are a valid `T`, `DeviceCopy`), or the
// struct `T` whose handle and address fields only a `Dev` (a value the library
// wrote, keeping its object alive) can fill.

// SAFETY: the address of a live allocation of `T`s of the launch's context, which
// the keep record holds (`sealed::Memory`); the element type is the C pointee's.
unsafe impl<T: DeviceCopy, N: 'static> KernelArg<param::Ptr<T, N>> for DpaBuffer<T> {
    #[inline]
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        sealed::Memory::address(self, keep)
    }
}

// SAFETY: as for `DpaBuffer`, with the element type of the C pointee.
unsafe impl<T: DeviceCopy, N: 'static> KernelArg<param::Ptr<T, N>> for DpaSlice<T> {
    #[inline]
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        sealed::Memory::address(self, keep)
    }
}

// SAFETY: as for `DpaBuffer`: the struct `T`'s memory, for a `struct T *`, with what
// its fields reference kept (`sealed::Memory`).
unsafe impl<T: DeviceStruct, N: 'static> KernelArg<param::Ptr<T, N>> for DpaBox<T> {
    #[inline]
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        sealed::Memory::address(self, keep)
    }
}
