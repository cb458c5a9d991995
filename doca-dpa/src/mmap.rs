//! Memory maps of DPA heap memory (`doca_mmap.h`'s DPA part): a [`DpaMmap`]
//! describes a range of a [`DpaBuffer`], and its 32-bit DPA handle is passed
//! to kernels as a [`param::Mmap`] argument.

use std::fmt;
use std::sync::Arc;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg};
use crate::core::Owned;
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::family::{FamilyMember, Member};
use crate::keep::{Keep, KeepAlive};
use crate::memory::{DeviceCopy, DpaBuffer, SharedAllocation};

crate::__doca_object!(
    /// `doca_mmap`.
    RawMmap: doca_dpa_sys::doca_mmap,
    destroy doca_mmap_destroy,
    stop doca_mmap_stop
);

/// A started memory map of DPA heap memory: `doca_mmap_create` (STABLE),
/// `doca_mmap_set_dpa_memrange` (EXPERIMENTAL), `doca_mmap_start` (STABLE)
/// and `doca_mmap_dev_get_dpa_handle` (EXPERIMENTAL) for the context's
/// device; `doca_mmap_stop` and `doca_mmap_destroy` (STABLE) on drop.
///
/// The map keeps the memory it describes alive (and the context); a kernel given the
/// map keeps the map alive. DOCA allows the DPA
/// range once per map and no `doca_mmap_add_dev` on such a map, so this type
/// offers neither.
pub struct DpaMmap {
    inner: Arc<Member<MmapInner>>,
}

struct MmapInner {
    raw: Owned<RawMmap>,
    dpa: Dpa,
    handle: u32,
    len: usize,
    // Dropped after the map is destroyed (Drop runs before fields).
    _memory: SharedAllocation,
}

impl fmt::Debug for DpaMmap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaMmap")
            .field("len", &self.inner.len)
            .finish()
    }
}

impl DpaMmap {
    /// Maps the whole of `buffer`, which must be memory of `dpa` (DOCA refuses
    /// a range outside the context's heap).
    pub fn new<T: DeviceCopy>(dpa: &Dpa, buffer: &DpaBuffer<T>) -> Result<DpaMmap> {
        Self::with_range(dpa, buffer, 0, buffer.len())
    }

    /// Maps `count` elements of `buffer` from element `offset`. The range is
    /// checked against the buffer before DOCA is called; an empty range is
    /// refused.
    pub fn with_range<T: DeviceCopy>(
        dpa: &Dpa,
        buffer: &DpaBuffer<T>,
        offset: usize,
        count: usize,
    ) -> Result<DpaMmap> {
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
        if !buffer.dpa().same_context(dpa) {
            return Err(Error::invalid(
                CALL,
                format!(
                    "the buffer is memory of DPA context #{}, not of DPA context #{} it would be mapped for",
                    buffer.dpa().serial(),
                    dpa.serial()
                ),
            ));
        }
        let size = std::mem::size_of::<T>();
        let addr = buffer.allocation().addr() + (offset * size) as u64;
        let len = count * size;

        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer (a create names no object: no lock).
        unsafe { doca_call!(doca_mmap_create(&mut raw)) }?;
        // From here the map is owned: an early return destroys it.
        let mut map = Member::new(MmapInner {
            // SAFETY: what doca_mmap_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in the context's family (a map
            // over DPA memory is the context's: its start registers that memory).
            raw: unsafe { Owned::new("doca_mmap_create", raw, dpa.domain()) }?,
            dpa: dpa.clone(),
            handle: 0,
            len,
            _memory: buffer.allocation().clone(),
        });
        // SAFETY: an unstarted map, a started context and a range of its heap: the
        // buffer is memory of this context (checked above) and the range lies
        // inside it (checked above); the map keeps the memory alive. Under the
        // family's guard.
        dpa.or_fatal(dpa.with_ctx(|ctx, g| unsafe {
            doca_call!(doca_mmap_set_dpa_memrange(
                map.raw.as_ptr(g),
                ctx,
                addr,
                len
            ))
        }))?;
        let mut h = 0;
        dpa.with_ctx(|_, g| {
            let raw = map.raw.as_ptr(g);
            // SAFETY: a configured map, under its family's guard.
            unsafe { doca_call!(doca_mmap_start(raw)) }?;
            map.raw.set_started();
            let device = dpa.device().lock();
            // SAFETY: a started map; the context's open device, under its lock;
            // valid out-pointer.
            unsafe {
                doca_call!(doca_mmap_dev_get_dpa_handle(
                    raw,
                    dpa.device().as_ptr(&device),
                    &mut h
                ))
            }
        })?;
        map.handle = h as u32;
        tracing::debug!(target: "doca_dpa::mmap", len, "DPA memory map started");
        Ok(DpaMmap {
            inner: Arc::new(map),
        })
    }

    /// The mapped length in bytes.
    pub fn len(&self) -> usize {
        self.inner.len
    }

    /// Whether the map is empty (never: empty ranges are refused).
    pub fn is_empty(&self) -> bool {
        self.inner.len == 0
    }

    /// The context whose memory is mapped.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }

    /// The raw `doca_mmap`, for calls this crate does not wrap, made while
    /// `guard` (of its context's family: [`Dpa::enter`]) lives. Valid while this
    /// map lives; do not stop or destroy it.
    pub fn as_ptr(&self, guard: &crate::FamilyGuard<'_>) -> *mut sys::doca_mmap {
        self.inner.raw.as_ptr(guard)
    }
}

// SAFETY: the map's DPA handle, of the context the values go to (checked); the keep
// record holds the map (and so its memory).
unsafe impl KernelArg<param::Mmap> for DpaMmap {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u32> {
        keep.check_context(&self.inner.dpa, "the memory map")?;
        keep.keep(KeepAlive::new(&self.inner));
        Ok(self.inner.handle)
    }
}

impl FamilyMember for MmapInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for MmapInner {
    fn drop(&mut self) {
        let outcome = self.dpa.teardown_child(&mut self.raw);
        if !outcome.stopped() {
            // The device may still reach the memory through the map: never free it.
            crate::keep::bury(self._memory.clone());
        }
        outcome.report();
    }
}
