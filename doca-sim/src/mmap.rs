//! `doca_mmap.h`: memory maps, including the DPA bits (a map of DPA heap
//! memory, and an mmap handle a kernel can receive).

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::abi;
use crate::dev::{obj, Dev};
use crate::dpa::{dpa, DpaCore};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, not_modelled, out};
use crate::registry::{self, SimObject};

#[derive(Default)]
struct MmapState {
    started: bool,
    devices: Vec<usize>,
    /// `doca_mmap_set_max_num_devices`; no limit until set.
    max_devices: Option<u32>,
    host_range: Option<(usize, usize)>,
    dpa_range: Option<(Arc<DpaCore>, u64, usize)>,
    permissions: u32,
    handle: Option<u32>,
    user_data: abi::doca_data,
    /// Called with the host range when the map is destroyed.
    free_cb: Option<(unsafe extern "C" fn(*mut c_void, usize, *mut c_void), usize)>,
    /// The descriptor of `doca_mmap_export_rdma`, valid while the map is.
    rdma_export: Option<Box<[u8]>>,
    /// The key its RDMA export carries (one per map, so that a descriptor handed
    /// out stays valid), live while the map runs ([`live_exports`]).
    export_key: Option<u64>,
    from_export: bool,
    /// For a map made from an RDMA export: the exporter's key.
    source_key: Option<u64>,
}

impl MmapState {
    /// Whether `dev` is a device of the map: one added to it, or for a map
    /// of DPA memory (which takes no `doca_mmap_add_dev`, as DOCA documents)
    /// the device its DPA context runs on (the device it was extended onto
    /// for an extended context).
    ///
    /// Model choice: DOCA documents that `doca_mmap_export_rdma` and
    /// `doca_mmap_dev_get_dpa_handle` take a device added to the map and that a
    /// map of DPA memory takes none; NVIDIA's DPA samples that export DPA
    /// memory for RDMA (`dpa_basic_initiator_target`, `dpa_initiator_target`,
    /// `dpa_ping_pong`, through their shared `doca_mmap_obj_init`) pass the
    /// device of the DPA context the range was set with, so that device counts
    /// as the map's.
    fn has_device(&self, dev: *const abi::doca_dev, device: &Dev) -> bool {
        match &self.dpa_range {
            // Device lists made at different times hold different models
            // of the same device: its position in the profile names it.
            Some((core, _, _)) => {
                core.device.index == device.model.index
                    && core.device.profile.ibdev_name == device.model.profile.ibdev_name
            }
            None => self.devices.contains(&(dev as usize)),
        }
    }
}

// SAFETY: the raw parts are plain values: device handles and the free
// callback's opaque pointer are kept as addresses and only handed back to C,
// and `doca_data` is user data the sim never dereferences.
unsafe impl Send for MmapState {}

/// Marks an RDMA export descriptor of this sim; the host range (address,
/// length), the permissions and the export's key follow, little-endian.
const RDMA_EXPORT_MAGIC: &[u8; 16] = b"doca-sim:mm-rdma";

/// The keys of the RDMA exports whose maps still run: a map made from an
/// export reaches its memory only while its key is here.
///
/// Model choice: a one-sided operation through a remote map whose exporting
/// map stopped (or was destroyed, its memory perhaps freed) fails at the
/// initiator with an error completion, as an RDMA access to a deregistered
/// memory region does; it never touches the memory. The facts say nothing of
/// it; doca-rs's soundness and fuzz tests drop an exporter under a peer's
/// kernel.
fn live_exports() -> MutexGuard<'static, std::collections::HashSet<u64>> {
    static KEYS: std::sync::OnceLock<Mutex<std::collections::HashSet<u64>>> =
        std::sync::OnceLock::new();
    KEYS.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// The next RDMA export key (never 0).
fn next_export_key() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

fn rdma_export(addr: usize, len: usize, permissions: u32, key: u64) -> Box<[u8]> {
    let mut blob = RDMA_EXPORT_MAGIC.to_vec();
    blob.extend_from_slice(&(addr as u64).to_le_bytes());
    blob.extend_from_slice(&(len as u64).to_le_bytes());
    blob.extend_from_slice(&permissions.to_le_bytes());
    blob.extend_from_slice(&key.to_le_bytes());
    blob.into_boxed_slice()
}

/// (address, length, permissions, key) of an RDMA export descriptor.
fn parse_rdma_export(blob: &[u8]) -> Option<(usize, usize, u32, u64)> {
    let rest = blob.strip_prefix(RDMA_EXPORT_MAGIC.as_slice())?;
    if rest.len() != 28 {
        return None;
    }
    let word = |at: usize| u64::from_le_bytes(rest[at..at + 8].try_into().unwrap_or_default());
    let permissions = u32::from_le_bytes(rest[16..20].try_into().unwrap_or_default());
    Some((
        usize::try_from(word(0)).ok()?,
        usize::try_from(word(8)).ok()?,
        permissions,
        word(20),
    ))
}

/// `struct doca_mmap`.
pub(crate) struct Mmap {
    state: Mutex<MmapState>,
}
impl SimObject for Mmap {
    const KIND: &'static str = "doca_mmap";
}

impl Mmap {
    fn state(&self) -> MutexGuard<'_, MmapState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What stopping does: the DPA handle is given up, and maps made from the
    /// map's RDMA export no longer reach its memory.
    fn stop(&self) {
        let mut st = self.state();
        st.started = false;
        if let Some(handle) = st.handle.take() {
            handle_ranges().remove(&handle);
        }
        if let Some(key) = st.export_key {
            live_exports().remove(&key);
        }
    }
}

fn mmap<'a>(ptr: *const abi::doca_mmap) -> SimResult<&'a Mmap> {
    obj::<Mmap, _>(ptr)
}

fn configure(ptr: *mut abi::doca_mmap, f: impl FnOnce(&mut MmapState) -> SimResult) -> SimResult {
    let m = mmap(ptr)?;
    let mut st = m.state();
    if st.started {
        return Err(fail(codes::BAD_STATE, "the mmap is already started"));
    }
    f(&mut st)
}

/// Model choice: DPA mmap handles (32-bit, as `doca_dpa_dev_mmap_t` is) are
/// numbered from 1 in creation order.
static NEXT_MMAP_HANDLE: AtomicU32 = AtomicU32::new(1);

/// What a live DPA mmap handle designates.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HandleRange {
    /// The first address of the map's memory (host or DPA heap).
    pub(crate) start: u64,
    /// Its length in bytes.
    pub(crate) len: u64,
    /// The map's `doca_access_flag` permissions.
    pub(crate) permissions: u32,
    /// For a map made from an RDMA export: the exporter's key.
    source: Option<u64>,
}

impl HandleRange {
    /// Whether `[addr, addr + len)` lies inside the map.
    pub(crate) fn holds(&self, addr: u64, len: u64) -> bool {
        addr >= self.start && len <= self.len && addr - self.start <= self.len - len
    }

    /// Whether an RDMA operation reaches the memory: always for a map of this
    /// side; for a map made from an export, while the exporting map runs
    /// ([`live_exports`]).
    pub(crate) fn reachable(&self) -> bool {
        self.source.is_none_or(|key| live_exports().contains(&key))
    }
}

/// The memory range of each live DPA mmap handle, for the device calls that
/// name one (`doca_dpa_dev_mmap_get_external_ptr`, the DPA RDMA posts). A
/// handle lives from `doca_mmap_dev_get_dpa_handle` until its map stops.
fn handle_ranges() -> MutexGuard<'static, std::collections::HashMap<u32, HandleRange>> {
    static RANGES: std::sync::OnceLock<Mutex<std::collections::HashMap<u32, HandleRange>>> =
        std::sync::OnceLock::new();
    RANGES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// What a live DPA mmap handle designates.
pub(crate) fn handle_info(handle: u32) -> Option<HandleRange> {
    handle_ranges().get(&handle).copied()
}

/// Runs `f` with the map of `handle` if it is live, reachable and holds
/// `[addr, addr + len)`, and keeps it so until `f` returns: a map stops (its
/// handle and export given up, and then its memory may go) only under the
/// locks held here, so a copy `f` makes cannot outlive the memory. For the
/// device's copies through a map long after it was named (a receive filled
/// when a message arrives, a work request run at its commit).
pub(crate) fn with_range<R>(
    handle: u32,
    addr: u64,
    len: u64,
    f: impl FnOnce(&HandleRange) -> R,
) -> Option<R> {
    let ranges = handle_ranges();
    let range = ranges.get(&handle).filter(|r| r.holds(addr, len))?;
    // Lock order: handle table, then exports (`stop` takes each alone).
    let exports = range.source.map(|_| live_exports());
    match (range.source, &exports) {
        (Some(key), Some(live)) if !live.contains(&key) => None,
        _ => Some(f(range)),
    }
}

doca_api! {
    /// Creates an empty memory map.
    fn doca_mmap_create(mmap: *mut *mut abi::doca_mmap) {
        if mmap.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        out(mmap, registry::register(Mmap { state: Mutex::default() }).cast())
    }

    /// Destroys a memory map, stopping it first if it is started; a map
    /// that owns its range (`doca_mmap_set_free_cb`) frees it.
    ///
    /// Model choice: NVIDIA's DPA samples destroy started maps without
    /// stopping them; destroy is stop-then-destroy (docs/sim-model.md).
    fn doca_mmap_destroy(mmap: *mut abi::doca_mmap) {
        self::mmap(mmap)?.stop();
        // SAFETY: checked above; only this call frees it.
        let m = unsafe { registry::unregister::<Mmap, _>(mmap) }?;
        let st = m.state.into_inner().unwrap_or_else(|p| p.into_inner());
        if let (Some((free_cb, opaque)), Some((addr, len))) = (st.free_cb, st.host_range) {
            // SAFETY: the callback and its argument are the caller's, given
            // to be called once with the range when the map goes.
            unsafe { free_cb(addr as *mut c_void, len, opaque as *mut c_void) };
        }
        Ok(())
    }

    /// Starts a map that has a memory range.
    fn doca_mmap_start(mmap: *mut abi::doca_mmap) {
        configure(mmap, |st| {
            if st.host_range.is_none() && st.dpa_range.is_none() {
                return Err(fail(codes::BAD_STATE, "set a memory range before starting the mmap"));
            }
            st.started = true;
            if let Some(key) = st.export_key {
                live_exports().insert(key);
            }
            Ok(())
        })
    }

    /// Stops a started map.
    fn doca_mmap_stop(mmap: *mut abi::doca_mmap) {
        let m = self::mmap(mmap)?;
        if !m.state().started {
            return Err(fail(codes::BAD_STATE, "the mmap is not started"));
        }
        m.stop();
        Ok(())
    }

    /// Adds a device that may access the map (not for DPA-memory maps).
    fn doca_mmap_add_dev(mmap: *mut abi::doca_mmap, dev: *mut abi::doca_dev) {
        obj::<Dev, _>(dev)?;
        configure(mmap, |st| {
            if st.dpa_range.is_some() {
                return Err(fail(codes::NOT_PERMITTED, "a map of DPA memory takes no devices"));
            }
            if st.max_devices.is_some_and(|max| st.devices.len() >= max as usize) {
                return Err(fail(codes::NO_MEMORY, "the map already has its maximum number of devices"));
            }
            st.devices.push(dev as usize);
            Ok(())
        })
    }

    /// Removes an added device.
    fn doca_mmap_rm_dev(mmap: *mut abi::doca_mmap, dev: *mut abi::doca_dev) {
        obj::<Dev, _>(dev)?;
        configure(mmap, |st| {
            let at = st.devices.iter().position(|d| *d == dev as usize)
                .ok_or(fail(codes::NOT_FOUND, "the device was not added to this mmap"))?;
            st.devices.remove(at);
            Ok(())
        })
    }

    /// Limits the number of devices.
    fn doca_mmap_set_max_num_devices(mmap: *mut abi::doca_mmap, max_num_devices: u32) {
        configure(mmap, |st| {
            if max_num_devices == 0 || (max_num_devices as usize) < st.devices.len() {
                return Err(fail(codes::INVALID_VALUE, "the limit is 0 or below the devices already added"));
            }
            st.max_devices = Some(max_num_devices);
            Ok(())
        })
    }

    /// Model choice: without a limit set, `UINT32_MAX`.
    fn doca_mmap_get_max_num_devices(mmap: *const abi::doca_mmap, max_num_devices: *mut u32) {
        let max = self::mmap(mmap)?.state().max_devices.unwrap_or(u32::MAX);
        out(max_num_devices, max)
    }

    /// Stores the user data.
    fn doca_mmap_set_user_data(mmap: *mut abi::doca_mmap, user_data: abi::doca_data) {
        configure(mmap, |st| {
            st.user_data = user_data;
            Ok(())
        })
    }

    /// Reads the user data.
    fn doca_mmap_get_user_data(mmap: *const abi::doca_mmap, user_data: *mut abi::doca_data) {
        let data = self::mmap(mmap)?.state().user_data;
        out(user_data, data)
    }

    /// Makes the map own its range: `free_cb` runs when it is destroyed.
    fn doca_mmap_set_free_cb(mmap: *mut abi::doca_mmap, free_cb: abi::doca_mmap_memrange_free_cb_t, opaque: *mut c_void) {
        let cb = free_cb.ok_or(fail(codes::INVALID_VALUE, "NULL free callback"))?;
        configure(mmap, |st| {
            st.free_cb = Some((cb, opaque as usize));
            Ok(())
        })
    }

    /// The host range; BAD_STATE when none was set.
    fn doca_mmap_get_memrange(mmap: *const abi::doca_mmap, addr: *mut *mut c_void, len: *mut usize) {
        let (start, length) = self::mmap(mmap)?.state().host_range
            .ok_or(fail(codes::BAD_STATE, "the mmap has no host memory range"))?;
        out(addr, start as *mut c_void)?;
        out(len, length)
    }

    /// Model choice: buffer inventories are not modelled, so 0.
    fn doca_mmap_get_num_bufs(mmap: *const abi::doca_mmap, num_bufs: *mut u32) {
        self::mmap(mmap)?;
        out(num_bufs, 0)
    }

    /// 1 once exported.
    fn doca_mmap_get_exported(mmap: *const abi::doca_mmap, exported: *mut u8) {
        let done = self::mmap(mmap)?.state().rdma_export.is_some();
        out(exported, u8::from(done))
    }

    /// 1 for a map made by `doca_mmap_create_from_export`.
    fn doca_mmap_get_from_export(mmap: *const abi::doca_mmap, from_export: *mut u8) {
        let made = self::mmap(mmap)?.state().from_export;
        out(from_export, u8::from(made))
    }

    /// Maps are always safe to share in the sim; only the state is checked.
    fn doca_mmap_enable_thread_safety(mmap: *mut abi::doca_mmap) {
        configure(mmap, |_| Ok(()))
    }

    /// Model choice: PCI exports are not modelled, so 0.
    fn doca_mmap_cap_is_export_pci_supported(devinfo: *const abi::doca_devinfo, mmap_export: *mut u8) {
        obj::<crate::dev::DevInfo, _>(devinfo)?;
        out(mmap_export, 0)
    }

    /// Model choice: PCI exports are not modelled, so 0.
    fn doca_mmap_cap_is_create_from_export_pci_supported(devinfo: *const abi::doca_devinfo, from_export: *mut u8) {
        obj::<crate::dev::DevInfo, _>(devinfo)?;
        out(from_export, 0)
    }

    /// Exports a started map for RDMA peers: a map of host memory for a
    /// device that was added, a map of DPA memory for the device of its DPA
    /// context (see [`MmapState::has_device`]).
    ///
    /// Model choice: the descriptor carries the range (for DPA memory, the
    /// heap address, which is a host address in the sim) and permissions for
    /// this process (RDMA in the sim is a loopback) and stays valid until the
    /// map is destroyed.
    fn doca_mmap_export_rdma(mmap: *mut abi::doca_mmap, dev: *const abi::doca_dev, export_desc: *mut *const c_void, export_desc_len: *mut usize) {
        let m = self::mmap(mmap)?;
        let device = obj::<Dev, _>(dev)?;
        if export_desc.is_null() || export_desc_len.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let mut st = m.state();
        if !st.started {
            return Err(fail(codes::BAD_STATE, "the mmap is not started"));
        }
        if !st.has_device(dev, device) {
            return Err(fail(codes::NOT_FOUND, "the device is not a device of this mmap"));
        }
        let (addr, len) = match (&st.host_range, &st.dpa_range) {
            (Some(range), _) => *range,
            (None, Some((_, addr, len))) => (usize::try_from(*addr).map_err(|_| fail(codes::INVALID_VALUE, "DPA address out of range"))?, *len),
            (None, None) => return Err(fail(codes::BAD_STATE, "the mmap has no memory range")),
        };
        let permissions = st.permissions;
        if st.export_key.is_none() {
            let key = next_export_key();
            live_exports().insert(key);
            st.export_key = Some(key);
        }
        let key = st.export_key.unwrap_or_default();
        let blob = st.rdma_export.get_or_insert_with(|| rdma_export(addr, len, permissions, key));
        out(export_desc, blob.as_ptr().cast())?;
        out(export_desc_len, blob.len())
    }

    /// A started map of the memory an RDMA export of this process describes.
    fn doca_mmap_create_from_export(user_data: *const abi::doca_data, export_desc: *const c_void, export_desc_len: usize, dev: *mut abi::doca_dev, mmap: *mut *mut abi::doca_mmap) {
        obj::<Dev, _>(dev)?;
        if export_desc.is_null() || mmap.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL argument"));
        }
        // SAFETY: the caller passes `export_desc_len` readable bytes.
        let blob = unsafe { std::slice::from_raw_parts(export_desc.cast::<u8>(), export_desc_len) };
        let (addr, len, permissions, key) = parse_rdma_export(blob)
            .ok_or(fail(codes::INVALID_VALUE, "not an RDMA export of doca-sim"))?;
        let user_data = if user_data.is_null() {
            abi::doca_data::default()
        } else {
            // SAFETY: a non-NULL input pointer is readable (the C contract).
            unsafe { user_data.read() }
        };
        let state = MmapState {
            started: true,
            devices: vec![dev as usize],
            host_range: Some((addr, len)),
            permissions,
            user_data,
            from_export: true,
            source_key: Some(key),
            ..MmapState::default()
        };
        out(mmap, registry::register(Mmap { state: Mutex::new(state) }).cast())
    }

    /// Sets the host memory range.
    fn doca_mmap_set_memrange(mmap: *mut abi::doca_mmap, addr: *mut c_void, len: usize) {
        if addr.is_null() || len == 0 {
            return Err(fail(codes::INVALID_VALUE, "empty memory range"));
        }
        configure(mmap, |st| {
            st.host_range = Some((addr as usize, len));
            Ok(())
        })
    }

    /// Sets the access permissions.
    fn doca_mmap_set_permissions(mmap: *mut abi::doca_mmap, access_mask: u32) {
        configure(mmap, |st| {
            st.permissions = access_mask;
            Ok(())
        })
    }

    /// The 32-bit DPA handle of a started map for a device that was added.
    fn doca_mmap_dev_get_dpa_handle(mmap: *mut abi::doca_mmap, dev: *const abi::doca_dev, dpa_mmap_handle: *mut abi::doca_dpa_dev_mmap_t) {
        let m = self::mmap(mmap)?;
        obj::<Dev, _>(dev)?;
        let mut st = m.state();
        if !st.started {
            return Err(fail(codes::NOT_PERMITTED, "the mmap is not started"));
        }
        if !st.has_device(dev, obj::<Dev, _>(dev)?) {
            return Err(fail(codes::NOT_FOUND, "the device is not a device of this mmap"));
        }
        let (start, len) = match (&st.host_range, &st.dpa_range) {
            (Some((addr, len)), _) => (*addr as u64, *len as u64),
            (None, Some((_, addr, len))) => (*addr, *len as u64),
            (None, None) => (0, 0),
        };
        let range = HandleRange { start, len, permissions: st.permissions, source: st.source_key };
        let handle = *st.handle.get_or_insert_with(|| {
            let handle = NEXT_MMAP_HANDLE.fetch_add(1, Ordering::Relaxed);
            handle_ranges().insert(handle, range);
            handle
        });
        out(dpa_mmap_handle, handle)
    }

    /// Makes the map describe DPA heap memory (before start, once).
    fn doca_mmap_set_dpa_memrange(mmap: *mut abi::doca_mmap, dpa: *mut abi::doca_dpa, dpa_addr: u64, len: usize) {
        let core = self::dpa(dpa)?.core.clone();
        core.require_running()?;
        core.heap.lock().unwrap_or_else(|p| p.into_inner()).check_range(dpa_addr, len)?;
        configure(mmap, |st| {
            if st.dpa_range.is_some() {
                return Err(fail(codes::BAD_STATE, "the DPA memory range was already set"));
            }
            if !st.devices.is_empty() {
                return Err(fail(codes::NOT_PERMITTED, "devices were added; a DPA range is exclusive"));
            }
            st.dpa_range = Some((core, dpa_addr, len));
            Ok(())
        })
    }
}

not_modelled! {
    /// Exports over PCI (see `doca_mmap_cap_is_export_pci_supported`).
    fn doca_mmap_export_pci(mmap: *mut abi::doca_mmap, dev: *const abi::doca_dev, export_desc: *mut *const c_void, export_desc_len: *mut usize);
    /// dma-buf memory.
    fn doca_mmap_set_dmabuf_memrange(mmap: *mut abi::doca_mmap, dmabuf_fd: std::ffi::c_int, addr: *mut c_void, dmabuf_offset: usize, len: usize);
}
