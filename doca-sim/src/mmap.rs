//! `doca_mmap.h`: memory maps, including the DPA bits (a map of DPA heap
//! memory, and an mmap handle a kernel can receive).

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::abi;
use crate::dev::{obj, Dev};
use crate::dpa::{dpa, DpaCore};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, out};
use crate::registry::{self, SimObject};

#[derive(Default)]
struct MmapState {
    started: bool,
    devices: Vec<usize>,
    host_range: Option<(usize, usize)>,
    dpa_range: Option<(Arc<DpaCore>, u64, usize)>,
    permissions: u32,
    handle: Option<u32>,
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

    /// What stopping does: the DPA handle is given up.
    fn stop(&self) {
        let mut st = self.state();
        st.started = false;
        st.handle = None;
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

doca_api! {
    /// Creates an empty memory map.
    fn doca_mmap_create(mmap: *mut *mut abi::doca_mmap) {
        if mmap.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        out(mmap, registry::register(Mmap { state: Mutex::default() }).cast())
    }

    /// Destroys a memory map, stopping it first if it is started.
    ///
    /// Model choice: NVIDIA's DPA samples destroy started maps without
    /// stopping them; destroy is stop-then-destroy (docs/sim-model.md).
    fn doca_mmap_destroy(mmap: *mut abi::doca_mmap) {
        self::mmap(mmap)?.stop();
        // SAFETY: checked above; only this call frees it.
        unsafe { registry::unregister::<Mmap, _>(mmap) }?;
        Ok(())
    }

    /// Starts a map that has a memory range.
    fn doca_mmap_start(mmap: *mut abi::doca_mmap) {
        configure(mmap, |st| {
            if st.host_range.is_none() && st.dpa_range.is_none() {
                return Err(fail(codes::BAD_STATE, "set a memory range before starting the mmap"));
            }
            st.started = true;
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
            st.devices.push(dev as usize);
            Ok(())
        })
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
        if !st.devices.contains(&(dev as usize)) && st.dpa_range.is_none() {
            return Err(fail(codes::NOT_FOUND, "the device was not added to this mmap"));
        }
        let handle = *st.handle.get_or_insert_with(|| NEXT_MMAP_HANDLE.fetch_add(1, Ordering::Relaxed));
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
