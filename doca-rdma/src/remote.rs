//! What a peer exports for RDMA, made usable by this side's kernels: a memory map
//! ([`RemoteMmap`], from the peer's `doca_mmap_export_rdma`, whose DPA handle names
//! the peer's memory in one-sided operations) and a remote-net sync event
//! ([`RemoteEvent`], from the peer's `doca_sync_event_export_to_remote_net`, which
//! kernels signal with `doca_dpa_dev_rdma_signal_set` / `_add`).
//!
//! Both are made from bytes the peer sent over the service's own channel; bytes
//! that are empty are refused before DOCA is called, and bytes DOCA cannot use are
//! its error. Both keep their DPA context alive, and a kernel, DPA thread or DPA
//! struct given one keeps it alive until the device is known to be done. Neither
//! keeps the peer's object alive (a peer is usually on another machine): once the
//! peer destroyed it, operations that name it fail with an error completion.

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{DocaObject, Owned};
#[cfg(doca_rdma_remote_mmap)]
use doca_dpa::RdmaExport;
use doca_dpa::{param, Dpa, FamilyMember, Keep, KeepAlive, KernelArg, Member, Result};

use crate::error::{core_call, invalid};

/// Refuses empty export bytes before `call`.
fn check_export(call: &'static str, what: &str, export: &[u8]) -> Result<()> {
    if export.is_empty() {
        return Err(invalid(call, format!("the peer's {what} export is empty")));
    }
    Ok(())
}

/// An object made from a peer's export on a DPA context, with its DPA handle.
struct Imported<O: DocaObject> {
    raw: Owned<O>,
    handle: u64,
    dpa: Dpa,
}

// Held in a `Member`: a drop by a thread that holds the family's lock while an
// RPC of the family runs is handed to the family, which tears the object down
// once the RPC ended.
impl<O: DocaObject> FamilyMember for Imported<O> {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl<O: DocaObject> Drop for Imported<O> {
    fn drop(&mut self) {
        // Under the family's guard (`Owned::teardown`): its handle is the
        // context's. An object that could not be torn down is left alive with the
        // context it names.
        let outcome = self.raw.teardown();
        if !outcome.stopped() {
            doca_dpa::core::bury(self.dpa.clone());
        }
        outcome.report();
    }
}

impl<O: DocaObject> Imported<O> {
    /// Owns what the create call `call` returned (`raw`), for `dpa`.
    ///
    /// # Safety
    /// `raw` is NULL or a new object nobody else owns (what the create call
    /// returned); its calls are `dpa`'s family's.
    unsafe fn own(dpa: &Dpa, call: &'static str, raw: *mut O::Raw) -> Result<Imported<O>> {
        Ok(Imported {
            // SAFETY: the caller's.
            raw: unsafe { Owned::new(call, raw, dpa.domain()) }?,
            handle: 0,
            dpa: dpa.clone(),
        })
    }

    /// Records a launch, thread or DPA struct that uses the object (`what` names it
    /// in a foreign-context error), and hands its DPA handle.
    fn lower(this: &Arc<Member<Self>>, keep: &mut Keep<'_>, what: &'static str) -> Result<u64> {
        keep.check_context(&this.dpa, what)?;
        keep.keep(KeepAlive::new(this));
        Ok(this.handle)
    }
}

#[cfg(doca_rdma_remote_mmap)]
doca_dpa::__doca_object!(
    /// `doca_mmap` made from a peer's export.
    RawRemoteMmap: doca_dpa_sys::doca_mmap,
    destroy doca_mmap_destroy
);

/// A peer's memory, as its RDMA export describes it
/// (`doca_mmap_create_from_export` for the DPA context's device, then
/// `doca_mmap_dev_get_dpa_handle`, EXPERIMENTAL; `doca_mmap_destroy` on drop).
///
/// Its DPA handle is a kernel argument for a `doca_dpa_dev_mmap_t` parameter: the
/// remote side (`dst` of a write, `src` of a read, the target of an atomic) of a
/// one-sided operation on a connection to that peer. Which addresses are valid is
/// the peer's business (it sends them with the export); the device reports an
/// operation outside the peer's map, or beyond its permissions, as an error.
#[cfg(doca_rdma_remote_mmap)]
pub struct RemoteMmap {
    inner: Arc<Member<Imported<RawRemoteMmap>>>,
    /// The peer's range: address and length.
    range: (u64, u64),
}

#[cfg(doca_rdma_remote_mmap)]
impl fmt::Debug for RemoteMmap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteMmap")
            .field("dpa", &self.inner.dpa.serial())
            .field("len", &self.range.1)
            .finish_non_exhaustive()
    }
}

#[cfg(doca_rdma_remote_mmap)]
impl RemoteMmap {
    /// Makes the remote map from `export`, a peer's
    /// [`DpaMmap::export_rdma`](doca_dpa::DpaMmap::export_rdma) (read from its bytes
    /// with [`RdmaExport::from_bytes`], which refuses garbage), for the kernels of
    /// `dpa`. A descriptor DOCA cannot read is its error.
    pub fn new(dpa: &Dpa, export: &RdmaExport) -> Result<RemoteMmap> {
        const CALL: &str = "doca_mmap_create_from_export";
        let (range, export) = ((export.addr(), export.len()), export.descriptor());
        check_export(CALL, "memory map", export)?;
        let device = dpa.device();
        let mut raw = std::ptr::null_mut();
        dpa.with_ctx(|_, _| {
            let dev = device.lock();
            // SAFETY: `export.len()` readable bytes, read during the call; no user
            // data; an open device (the context keeps it open), under its lock;
            // valid out-pointer.
            unsafe {
                core_call!(doca_mmap_create_from_export(
                    std::ptr::null(),
                    export.as_ptr().cast(),
                    export.len(),
                    device.as_ptr(&dev),
                    &mut raw
                ))
            }
        })?;
        // SAFETY: what doca_mmap_create_from_export just returned.
        let mut inner = Member::new(unsafe { Imported::<RawRemoteMmap>::own(dpa, CALL, raw) }?);
        let mut handle = 0;
        dpa.with_ctx(|_, g| {
            let dev = device.lock();
            // SAFETY: our map, made for this device, under the family's guard and
            // the device's lock; valid out-pointer.
            unsafe {
                core_call!(doca_mmap_dev_get_dpa_handle(
                    inner.raw.as_ptr(g),
                    device.as_ptr(&dev),
                    &mut handle
                ))
            }
        })?;
        inner.handle = u64::from(handle);
        Ok(RemoteMmap {
            inner: Arc::new(inner),
            range,
        })
    }

    /// Where the peer's range starts, in the peer's address space: the remote
    /// address one-sided operations name (a plain value for a `uint64_t`
    /// parameter; the device checks each access against the remote map).
    pub fn addr(&self) -> u64 {
        self.range.0
    }

    /// The peer's range's length in bytes.
    pub fn len(&self) -> u64 {
        self.range.1
    }

    /// Whether the range is empty (never: exports of empty maps are refused).
    pub fn is_empty(&self) -> bool {
        self.range.1 == 0
    }

    /// The DPA context whose kernels may use it.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }
}

#[cfg(doca_rdma_remote_mmap)]
// SAFETY: the map's DPA handle (`doca_mmap_dev_get_dpa_handle`, a
// `doca_dpa_dev_mmap_t`, 32 bits), for kernels of its DPA context (checked); the
// keep record holds the map.
unsafe impl KernelArg<param::Mmap> for RemoteMmap {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u32> {
        let h = Imported::lower(&self.inner, keep, "the remote memory map")?;
        u32::try_from(h).map_err(|_| {
            invalid(
                "doca_mmap_dev_get_dpa_handle",
                "a handle wider than 32 bits",
            )
        })
    }
}

#[cfg(doca_rdma_remote_event)]
doca_dpa::__doca_object!(
    /// `doca_sync_event_remote_net`.
    RawRemoteEvent: doca_dpa_sys::doca_sync_event_remote_net,
    destroy doca_sync_event_remote_net_destroy
);

/// A peer's sync event, signalled over RDMA: made from the bytes of the peer's
/// `doca_sync_event_export_to_remote_net` (a
/// [`SignalEvent::export`](doca_dpa::SignalEvent::export), say) with
/// `doca_sync_event_remote_net_create_from_export` for the DPA context's device and
/// `doca_sync_event_remote_net_get_dpa_handle` (EXPERIMENTAL;
/// `doca_sync_event_remote_net_destroy` on drop).
///
/// Its DPA handle is a kernel argument for a `doca_dpa_dev_sync_event_remote_net_t`
/// parameter, which `doca_dpa_dev_rdma_signal_set` / `_add` update on a connection to
/// that peer.
#[cfg(doca_rdma_remote_event)]
pub struct RemoteEvent {
    inner: Arc<Member<Imported<RawRemoteEvent>>>,
}

#[cfg(doca_rdma_remote_event)]
impl fmt::Debug for RemoteEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteEvent")
            .field("dpa", &self.inner.dpa.serial())
            .finish_non_exhaustive()
    }
}

#[cfg(doca_rdma_remote_event)]
impl RemoteEvent {
    /// Makes the remote event from `export`, a peer's export, for the kernels of
    /// `dpa`. Empty bytes are refused before DOCA is called; bytes DOCA cannot read
    /// are its error.
    pub fn new(dpa: &Dpa, export: &[u8]) -> Result<RemoteEvent> {
        const CALL: &str = "doca_sync_event_remote_net_create_from_export";
        check_export(CALL, "sync event", export)?;
        let device = dpa.device();
        let mut raw = std::ptr::null_mut();
        dpa.with_ctx(|_, _| {
            let dev = device.lock();
            // SAFETY: an open device (the context keeps it open), under its lock;
            // `export.len()` readable bytes, read during the call; valid out-pointer.
            unsafe {
                core_call!(doca_sync_event_remote_net_create_from_export(
                    device.as_ptr(&dev),
                    export.as_ptr(),
                    export.len(),
                    &mut raw
                ))
            }
        })?;
        // SAFETY: what doca_sync_event_remote_net_create_from_export just returned.
        let mut inner = Member::new(unsafe { Imported::<RawRemoteEvent>::own(dpa, CALL, raw) }?);
        let mut handle = 0;
        dpa.with_ctx(|d, g| {
            let p = inner.raw.as_ptr(g);
            // SAFETY: our remote event and a started DPA context (which the event
            // keeps alive), under their family's guard; valid out-pointer.
            unsafe { core_call!(doca_sync_event_remote_net_get_dpa_handle(p, d, &mut handle)) }
        })?;
        inner.handle = handle as u64;
        Ok(RemoteEvent {
            inner: Arc::new(inner),
        })
    }

    /// The DPA context whose kernels may use it.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }
}

#[cfg(doca_rdma_remote_event)]
// SAFETY: the event's DPA handle (`doca_sync_event_remote_net_get_dpa_handle`), for
// kernels of its DPA context (checked); the keep record holds the event.
unsafe impl KernelArg<param::RemoteEvent> for RemoteEvent {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        Imported::lower(&self.inner, keep, "the remote sync event")
    }
}
