//! Memory maps of DPA heap memory (`doca_mmap.h`'s DPA part): a [`DpaMmap`]
//! describes a range of a [`DpaBuffer`], and its 32-bit DPA handle is passed
//! to kernels as a [`param::Mmap`] argument.

use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg};
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::memory::{DeviceCopy, DpaBuffer};

/// The DPA-side handle of a [`DpaMmap`] (`doca_dpa_dev_mmap_t`: a `uint32_t`,
/// the one 32-bit DPA handle), borrowed from the map so it cannot outlive it:
///
/// ```compile_fail
/// # fn f(dpa: &doca_dpa::Dpa, buf: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<()> {
/// let handle = {
///     let map = doca_dpa::DpaMmap::new(dpa, buf)?;
///     map.handle()
/// }; // the map is destroyed here, so its handle cannot be used below
/// let _ = handle;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmapHandle<'a> {
    raw: u32,
    _map: PhantomData<&'a ()>,
}

impl MmapHandle<'_> {
    /// The raw handle value.
    pub fn raw(&self) -> u32 {
        self.raw
    }
}

impl<'a> KernelArg<'a, param::Mmap> for MmapHandle<'a> {
    fn to_abi(&self) -> u32 {
        self.raw
    }
}

/// A started memory map of DPA heap memory: `doca_mmap_create` (STABLE),
/// `doca_mmap_set_dpa_memrange` (EXPERIMENTAL), `doca_mmap_start` (STABLE)
/// and `doca_mmap_dev_get_dpa_handle` (EXPERIMENTAL) for the context's
/// device; `doca_mmap_stop` and `doca_mmap_destroy` (STABLE) on drop.
///
/// The map borrows the buffer it describes (`'b`), so the buffer cannot be
/// freed while the map exists, and holds the context. DOCA allows the DPA
/// range once per map and no `doca_mmap_add_dev` on such a map, so this type
/// offers neither.
pub struct DpaMmap<'b> {
    ptr: NonNull<sys::doca_mmap>,
    dpa: Dpa,
    started: bool,
    handle: u32,
    addr: u64,
    len: usize,
    _buffer: PhantomData<&'b ()>,
}

impl fmt::Debug for DpaMmap<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaMmap")
            .field("addr", &format_args!("{:#x}", self.addr))
            .field("len", &self.len)
            .field("handle", &self.handle)
            .finish()
    }
}

impl<'b> DpaMmap<'b> {
    /// Maps the whole of `buffer`, which must be memory of `dpa` (DOCA refuses
    /// a range outside the context's heap).
    pub fn new<T: DeviceCopy>(dpa: &Dpa, buffer: &'b DpaBuffer<T>) -> Result<DpaMmap<'b>> {
        Self::with_range(dpa, buffer, 0, buffer.len())
    }

    /// Maps `count` elements of `buffer` from element `offset`. The range is
    /// checked against the buffer before DOCA is called; an empty range is
    /// refused.
    pub fn with_range<T: DeviceCopy>(
        dpa: &Dpa,
        buffer: &'b DpaBuffer<T>,
        offset: usize,
        count: usize,
    ) -> Result<DpaMmap<'b>> {
        const CALL: &str = "doca_mmap_set_dpa_memrange";
        let end = offset.checked_add(count).filter(|e| *e <= buffer.len());
        if end.is_none() {
            return Err(Error::invalid(
                CALL,
                format!(
                    "elements {offset}..{} are outside a buffer of {}",
                    offset.saturating_add(count),
                    buffer.len()
                ),
            ));
        }
        if count == 0 {
            return Err(Error::invalid(CALL, "the mapped range must not be empty"));
        }
        let size = std::mem::size_of::<T>();
        let addr = buffer.dev_ptr().0 + (offset * size) as u64;
        let len = count * size;

        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        doca_call!(doca_mmap_create(&mut raw))?;
        let ptr = NonNull::new(raw)
            .ok_or_else(|| Error::invalid("doca_mmap_create", "DOCA returned NULL"))?;
        // From here the map is owned: an early return destroys it.
        let mut map = DpaMmap {
            ptr,
            dpa: dpa.clone(),
            started: false,
            handle: 0,
            addr,
            len,
            _buffer: PhantomData,
        };
        // SAFETY: an unstarted map, a started context and a range of its heap
        // (borrowed for 'b).
        doca_call!(doca_mmap_set_dpa_memrange(raw, dpa.as_ptr(), addr, len))?;
        // SAFETY: a configured map.
        doca_call!(doca_mmap_start(raw))?;
        map.started = true;
        let mut h = 0;
        // SAFETY: a started map; the context's open device; valid out-pointer.
        doca_call!(doca_mmap_dev_get_dpa_handle(
            raw,
            dpa.device().as_ptr(),
            &mut h
        ))?;
        map.handle = h as u32;
        tracing::debug!(target: "doca_dpa::mmap", addr, len, handle = map.handle, "DPA memory map started");
        Ok(map)
    }

    /// The handle for kernels (a [`param::Mmap`] argument).
    pub fn handle(&self) -> MmapHandle<'_> {
        MmapHandle {
            raw: self.handle,
            _map: PhantomData,
        }
    }

    /// The DPA address of the first mapped byte.
    pub fn dpa_addr(&self) -> u64 {
        self.addr
    }

    /// The mapped length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map is empty (never: empty ranges are refused).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The context whose memory is mapped.
    pub fn dpa(&self) -> &Dpa {
        &self.dpa
    }

    /// The raw `doca_mmap`, for calls this crate does not wrap. Valid while
    /// this map lives; do not stop or destroy it.
    pub fn as_ptr(&self) -> *mut sys::doca_mmap {
        self.ptr.as_ptr()
    }
}

impl<'a> KernelArg<'a, param::Mmap> for &'a DpaMmap<'_> {
    fn to_abi(&self) -> u32 {
        self.handle
    }
}

impl Drop for DpaMmap<'_> {
    fn drop(&mut self) {
        let p = self.ptr.as_ptr();
        if self.started {
            // SAFETY: our started map, stopped once.
            if let Err(e) = doca_call!(doca_mmap_stop(p)) {
                tracing::warn!(target: "doca_dpa::mmap", error = %e, "doca_mmap_stop failed during drop");
            }
        }
        // SAFETY: our map, destroyed once.
        if let Err(e) = doca_call!(doca_mmap_destroy(p)) {
            tracing::warn!(target: "doca_dpa::mmap", error = %e, "doca_mmap_destroy failed during drop");
        }
    }
}
