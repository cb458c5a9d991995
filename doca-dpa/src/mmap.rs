//! Memory maps of DPA heap memory (`doca_mmap.h`'s DPA part): a [`DpaMmap`]
//! describes a range of a [`DpaBuffer`], and its 32-bit DPA handle is passed
//! to kernels as a [`param::Mmap`] argument. A map made with RDMA access
//! ([`AccessFlags`]) is also exported for an RDMA peer ([`DpaMmap::export_rdma`]),
//! whose remote map (doca-rdma) names it in one-sided operations.

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

bitflags::bitflags! {
    /// Who may access a memory map, and how (`enum doca_access_flag`, given to
    /// `doca_mmap_set_permissions`). The empty set is
    /// `DOCA_ACCESS_FLAG_LOCAL_READ_ONLY`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct AccessFlags: u32 {
        /// Local reads and writes (`DOCA_ACCESS_FLAG_LOCAL_READ_WRITE`).
        const LOCAL_READ_WRITE = sys::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE as u32;
        /// RDMA reads by a peer (`DOCA_ACCESS_FLAG_RDMA_READ`).
        const RDMA_READ = sys::DOCA_ACCESS_FLAG_RDMA_READ as u32;
        /// RDMA writes by a peer (`DOCA_ACCESS_FLAG_RDMA_WRITE`).
        const RDMA_WRITE = sys::DOCA_ACCESS_FLAG_RDMA_WRITE as u32;
        /// RDMA atomics by a peer (`DOCA_ACCESS_FLAG_RDMA_ATOMIC`).
        const RDMA_ATOMIC = sys::DOCA_ACCESS_FLAG_RDMA_ATOMIC as u32;
    }
}

impl AccessFlags {
    /// What NVIDIA's DPA RDMA samples give their maps: local read/write and every
    /// RDMA access.
    pub const RDMA_ALL: AccessFlags = AccessFlags::LOCAL_READ_WRITE
        .union(AccessFlags::RDMA_READ)
        .union(AccessFlags::RDMA_WRITE)
        .union(AccessFlags::RDMA_ATOMIC);
}

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
    /// The mapped range's DPA address and length.
    addr: u64,
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
        Self::map(dpa, buffer, offset, count, None)
    }

    /// Like [`DpaMmap::with_range`], with the access rights `access`
    /// (`doca_mmap_set_permissions`, STABLE, before the start): a map an RDMA peer
    /// reads, writes or updates atomically needs the RDMA rights, and a map RDMA
    /// receives land in needs [`AccessFlags::LOCAL_READ_WRITE`].
    pub fn with_access<T: DeviceCopy>(
        dpa: &Dpa,
        buffer: &DpaBuffer<T>,
        offset: usize,
        count: usize,
        access: AccessFlags,
    ) -> Result<DpaMmap> {
        Self::map(dpa, buffer, offset, count, Some(access))
    }

    fn map<T: DeviceCopy>(
        dpa: &Dpa,
        buffer: &DpaBuffer<T>,
        offset: usize,
        count: usize,
        access: Option<AccessFlags>,
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
            addr,
            len,
            _memory: buffer.allocation().clone(),
        });
        if let Some(access) = access {
            // SAFETY: our unstarted map; flags of `enum doca_access_flag`.
            unsafe { doca_call!(doca_mmap_set_permissions(raw, access.bits())) }?;
        }
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

    /// The map's RDMA export (`doca_mmap_export_rdma`, STABLE, for the context's
    /// device, with the mapped range): what a service sends its peer over its own
    /// channel ([`RdmaExport::to_bytes`]), from which the peer makes a remote map
    /// (doca-rdma's `RemoteMmap`) to read, write or update this memory with
    /// one-sided RDMA operations, as far as the map's [`AccessFlags`] allow. The
    /// peer's remote map does not keep this map alive: once this map is gone, the
    /// peer's operations on it fail at the peer.
    #[cfg(doca_sym = "doca_mmap_export_rdma")]
    pub fn export_rdma(&self) -> Result<RdmaExport> {
        let device = self.inner.dpa.device();
        // Under the family's guard, as the map's start and teardown (a map over
        // DPA memory is the context's), and the device's lock.
        let descriptor = self.inner.dpa.with_ctx(|_, g| {
            let dev_held = device.lock();
            let (raw, dev) = (self.as_ptr(g), device.as_ptr(&dev_held));
            let mut desc = std::ptr::null();
            let mut len = 0usize;
            // SAFETY: a started map of the context's device; valid out-pointers.
            unsafe { doca_call!(doca_mmap_export_rdma(raw, dev, &mut desc, &mut len)) }?;
            // SAFETY: DOCA hands back `len` bytes it owns and keeps while the map
            // lives (it lives: `self` holds it); they are copied at once.
            unsafe { crate::core::copy_out("doca_mmap_export_rdma", desc.cast(), len) }
        })?;
        Ok(RdmaExport {
            descriptor,
            addr: self.inner.addr,
            len: self.inner.len as u64,
        })
    }
}

/// A memory map exported for an RDMA peer ([`DpaMmap::export_rdma`]): DOCA's
/// export descriptor and the range it maps, as the peer needs them to name the
/// memory in one-sided operations (the remote address of a write, a read, an
/// atomic).
///
/// [`to_bytes`](Self::to_bytes) and [`from_bytes`](Self::from_bytes) are its wire
/// form, doca-rs's own (DOCA's descriptor does not say the range): a tag, the
/// version, the address and length, then the descriptor. No DOCA call.
#[derive(Clone, PartialEq, Eq)]
pub struct RdmaExport {
    descriptor: Vec<u8>,
    addr: u64,
    len: u64,
}

impl fmt::Debug for RdmaExport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RdmaExport")
            .field("len", &self.len)
            .field("descriptor", &self.descriptor.len())
            .finish_non_exhaustive()
    }
}

impl RdmaExport {
    /// The tag the wire form starts with, then its version byte.
    const TAG: &'static [u8; 15] = b"doca-rs/rdmamap";
    const VERSION: u8 = 1;
    /// Tag, version, address, length, descriptor length.
    const HEAD: usize = 15 + 1 + 8 + 8 + 4;

    /// DOCA's export descriptor (`doca_mmap_export_rdma`'s bytes).
    pub fn descriptor(&self) -> &[u8] {
        &self.descriptor
    }

    /// Where the exported range starts, in the exporter's address space: the
    /// remote address a peer's kernel gives one-sided operations (with the
    /// remote map, which the device checks every access against). A plain value:
    /// it names the peer's memory, which this process cannot reach through it.
    pub fn addr(&self) -> u64 {
        self.addr
    }

    /// The exported range's length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the range is empty (never: empty maps are refused).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The wire form, for the service to send its peer.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(Self::HEAD + self.descriptor.len());
        out.extend_from_slice(Self::TAG);
        out.push(Self::VERSION);
        out.extend_from_slice(&self.addr.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        // The descriptor's length fits: DOCA's are a few hundred bytes, and
        // `from_bytes` refuses longer ones.
        out.extend_from_slice(&(self.descriptor.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.descriptor);
        out
    }

    /// Reads a peer's wire form ([`RdmaExport::to_bytes`]). Bytes that are not one
    /// (another tag or version, a truncated or overlong descriptor, an empty or
    /// wrapping range) are an [`Error::InvalidArgument`] that says which, naming
    /// `doca_mmap_create_from_export`, the call they were meant for.
    pub fn from_bytes(bytes: &[u8]) -> Result<RdmaExport> {
        const CALL: &str = "doca_mmap_create_from_export";
        let bad = |why: String| Error::invalid(CALL, format!("the peer's memory export {why}"));
        if bytes.len() < Self::HEAD || !bytes.starts_with(Self::TAG) {
            return Err(bad(format!(
                "is not one of doca-rs ({} bytes, not starting with {:?})",
                bytes.len(),
                std::str::from_utf8(Self::TAG).unwrap_or_default()
            )));
        }
        let version = bytes[Self::TAG.len()];
        if version != Self::VERSION {
            return Err(bad(format!(
                "has version {version}; this doca-rs reads version {}",
                Self::VERSION
            )));
        }
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let addr = word(16);
        let len = word(24);
        let mut n = [0u8; 4];
        n.copy_from_slice(&bytes[32..36]);
        let desc_len = u32::from_le_bytes(n) as usize;
        let descriptor = &bytes[Self::HEAD..];
        if desc_len == 0 || desc_len != descriptor.len() {
            return Err(bad(format!(
                "says its DOCA descriptor has {desc_len} bytes, and {} follow",
                descriptor.len()
            )));
        }
        if len == 0 || addr.checked_add(len).is_none() {
            return Err(bad(format!(
                "maps an impossible range ({len} bytes at {addr:#x})"
            )));
        }
        Ok(RdmaExport {
            descriptor: descriptor.to_vec(),
            addr,
            len,
        })
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
