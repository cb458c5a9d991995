//! DPA heap memory: a typed buffer with bounds-checked copies.

use std::fmt;
use std::marker::PhantomData;

use crate::app::{param, KernelArg};
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};

/// Plain data that can be copied byte for byte between host and DPA.
///
/// # Safety
/// Every bit pattern of `size_of::<T>()` bytes must be a valid `T`, and `T`
/// must have no padding.
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

/// A DPA heap address (`doca_dpa_dev_uintptr_t`), for kernel arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DevPtr(pub u64);

impl KernelArg<'_, param::DevPtr> for DevPtr {
    fn to_abi(&self) -> u64 {
        self.0
    }
}

/// `len` elements of `T` in DPA heap memory (`doca_dpa_mem_alloc`),
/// freed with `doca_dpa_mem_free` on drop. Not zeroed on allocation.
///
/// Copies are checked against the buffer's length before DOCA is called.
/// Passed to a kernel (a [`param::DevPtr`] parameter) by reference, which
/// keeps it alive until the launch completes.
pub struct DpaBuffer<T: DeviceCopy> {
    dpa: Dpa,
    addr: u64,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: DeviceCopy> fmt::Debug for DpaBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaBuffer")
            .field("addr", &format_args!("{:#x}", self.addr))
            .field("len", &self.len)
            .finish()
    }
}

impl<T: DeviceCopy> DpaBuffer<T> {
    /// Allocates `len` elements (`doca_dpa_mem_alloc`, EXPERIMENTAL).
    /// Zero or overflowing sizes are refused before the call.
    pub fn new(dpa: &Dpa, len: usize) -> Result<DpaBuffer<T>> {
        const CALL: &str = "doca_dpa_mem_alloc";
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            Error::invalid(CALL, format!("{len} elements overflow the address space"))
        })?;
        if bytes == 0 {
            return Err(Error::invalid(CALL, "a DPA buffer must not be empty"));
        }
        let mut addr = 0;
        // SAFETY: a started context; valid out-pointer.
        doca_call!(doca_dpa_mem_alloc(dpa.as_ptr(), bytes, &mut addr))?;
        tracing::trace!(target: "doca_dpa::memory", addr, bytes, "DPA memory allocated");
        Ok(DpaBuffer {
            dpa: dpa.clone(),
            addr,
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

    /// The DPA address of the first element.
    pub fn dev_ptr(&self) -> DevPtr {
        DevPtr(self.addr)
    }

    fn range(&self, call: &'static str, offset: usize, count: usize) -> Result<(u64, usize)> {
        offset
            .checked_add(count)
            .filter(|e| *e <= self.len)
            .ok_or_else(|| {
                Error::invalid(
                    call,
                    format!(
                        "elements {offset}..{} are outside a buffer of {}",
                        offset.saturating_add(count),
                        self.len
                    ),
                )
            })?;
        let size = std::mem::size_of::<T>();
        Ok((self.addr + (offset * size) as u64, count * size))
    }

    /// Copies `data` to the buffer at element `offset` (`doca_dpa_h2d_memcpy`).
    pub fn write(&self, offset: usize, data: &[T]) -> Result<()> {
        let (dst, bytes) = self.range("doca_dpa_h2d_memcpy", offset, data.len())?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: in bounds (checked); DOCA reads `bytes` from `data` (its
        // non-const pointer parameter is not written through).
        doca_call!(doca_dpa_h2d_memcpy(
            self.dpa.as_ptr(),
            dst,
            data.as_ptr().cast_mut().cast(),
            bytes
        ))
    }

    /// Copies elements from `offset` into `out` (`doca_dpa_d2h_memcpy`).
    pub fn read(&self, offset: usize, out: &mut [T]) -> Result<()> {
        let (src, bytes) = self.range("doca_dpa_d2h_memcpy", offset, out.len())?;
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: in bounds (checked); `out` is writable for `bytes` and any
        // bit pattern is a valid `T` (DeviceCopy).
        doca_call!(doca_dpa_d2h_memcpy(
            self.dpa.as_ptr(),
            out.as_mut_ptr().cast(),
            src,
            bytes
        ))
    }

    /// Reads the whole buffer into a vector.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        // SAFETY: all-zero bits are a valid `T` (DeviceCopy).
        let zero: T = unsafe { std::mem::zeroed() };
        let mut out = vec![zero; self.len];
        self.read(0, &mut out)?;
        Ok(out)
    }

    /// Sets every byte of the buffer to `byte` (`doca_dpa_memset`).
    pub fn fill_bytes(&self, byte: u8) -> Result<()> {
        // SAFETY: the whole allocation.
        doca_call!(doca_dpa_memset(
            self.dpa.as_ptr(),
            self.addr,
            byte as i32,
            self.len * std::mem::size_of::<T>()
        ))
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, param::DevPtr> for &'a DpaBuffer<T> {
    fn to_abi(&self) -> u64 {
        self.addr
    }
}

impl<T: DeviceCopy> Drop for DpaBuffer<T> {
    fn drop(&mut self) {
        // SAFETY: our allocation, freed once.
        if let Err(e) = doca_call!(doca_dpa_mem_free(self.dpa.as_ptr(), self.addr)) {
            tracing::warn!(target: "doca_dpa::memory", error = %e, "doca_dpa_mem_free failed during drop");
        }
    }
}
