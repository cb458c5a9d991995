//! `doca_dev.h`: device lists, device open/close, representors and queries.

use std::collections::BTreeMap;
use std::ffi::c_char;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::abi;
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, not_modelled, out, out_str};
use crate::profile::{self, DeviceProfile, PciFuncType, RepresentorProfile};
use crate::registry::{self, SimObject};

/// A device of the current profile, shared by every devinfo and open handle
/// made from it.
#[derive(Debug)]
pub(crate) struct DeviceModel {
    pub(crate) profile: DeviceProfile,
    /// Position in the profile; doubles as the VHCA id.
    pub(crate) index: u16,
    /// Open `doca_dev` handles of this device.
    pub(crate) opens: AtomicU32,
    /// Whether DPA heaps on it are fenced (`crate::memcheck`).
    pub(crate) memcheck: bool,
}

/// `struct doca_devinfo`.
pub(crate) struct DevInfo {
    pub(crate) model: Arc<DeviceModel>,
}
impl SimObject for DevInfo {
    const KIND: &'static str = "doca_devinfo";
}

/// `struct doca_dev`.
///
/// Model choice: every `doca_dev_open` returns a new handle; the device counts
/// its opens, and a handle counts the contexts built on it (DPA contexts,
/// verbs contexts), which make `doca_dev_close` fail with IN_USE.
pub(crate) struct Dev {
    pub(crate) model: Arc<DeviceModel>,
    /// The devinfo returned by `doca_dev_as_devinfo`, alive while the handle is.
    info: usize,
    pub(crate) users: AtomicUsize,
}
impl SimObject for Dev {
    const KIND: &'static str = "doca_dev";
}

/// `struct doca_devinfo_rep`.
pub(crate) struct RepInfo {
    pub(crate) rep: RepresentorProfile,
    pub(crate) parent: Arc<DeviceModel>,
    /// Position among the parent's representors.
    index: u16,
}
impl SimObject for RepInfo {
    const KIND: &'static str = "doca_devinfo_rep";
}

/// `struct doca_dev_rep`.
pub(crate) struct DevRep {
    info: usize,
    pub(crate) users: AtomicUsize,
}
impl SimObject for DevRep {
    const KIND: &'static str = "doca_dev_rep";
}

/// The array handed out by a `*_create_list` call.
struct List<T: SimObject> {
    items: Box<[*mut T]>,
    /// The scope its live-object count is charged to.
    scope: u64,
}
// SAFETY: the raw pointers are registered sim objects, themselves Send + Sync;
// the list only stores them.
unsafe impl<T: SimObject> Send for List<T> {}

/// The live lists of one kind (`doca_devinfo_list`, `doca_devinfo_rep_list`),
/// by the address of their first slot, so the matching `*_destroy_list`
/// finds them.
struct Lists<T: SimObject> {
    kind: &'static str,
    live: Mutex<BTreeMap<usize, List<T>>>,
}

impl<T: SimObject> Lists<T> {
    const fn new(kind: &'static str) -> Self {
        Lists {
            kind,
            live: Mutex::new(BTreeMap::new()),
        }
    }

    fn live(&self) -> MutexGuard<'_, BTreeMap<usize, List<T>>> {
        self.live.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `items` as a C array of pointers; returns its head and length.
    fn publish(&self, items: Vec<*mut T>) -> (*mut *mut T, u32) {
        let count = items.len() as u32;
        // One extra NULL slot: the array stays non-empty (so its address is
        // unique) and ends like a C array of pointers customarily does.
        let mut items = items;
        items.push(std::ptr::null_mut());
        let mut items = items.into_boxed_slice();
        let head = items.as_mut_ptr();
        let scope = registry::account_resource(self.kind);
        self.live().insert(head as usize, List { items, scope });
        (head, count)
    }

    /// Frees a list this published and the objects in it.
    fn destroy(&self, head: *mut *mut T) -> SimResult {
        let list = self.live().remove(&(head as usize)).ok_or(fail(
            codes::INVALID_VALUE,
            "not a list returned by create_list",
        ))?;
        registry::release_resource(list.scope, self.kind);
        for item in list.items.iter().filter(|p| !p.is_null()) {
            // SAFETY: list items were registered by `publish`'s caller and
            // are only unregistered here, once.
            unsafe { registry::unregister::<T, T>(*item) }?;
        }
        Ok(())
    }
}

static DEV_LISTS: Lists<DevInfo> = Lists::new("doca_devinfo_list");
static REP_LISTS: Lists<RepInfo> = Lists::new("doca_devinfo_rep_list");

/// Borrows the live `T` behind a C pointer (see [`registry::get`]).
pub(crate) fn obj<'a, T: SimObject, P>(ptr: *const P) -> SimResult<&'a T> {
    // SAFETY: the sim's C callers use an object from one thread at a time
    // (DOCA objects are not thread-safe), so it is not destroyed while this
    // call runs.
    unsafe { registry::get::<T, P>(ptr) }
}

fn devinfo_model<'a>(devinfo: *const abi::doca_devinfo) -> SimResult<&'a Arc<DeviceModel>> {
    Ok(&obj::<DevInfo, _>(devinfo)?.model)
}

/// Whether `text` names the PCI address `ours` (`dddd:bb:dd.f` or `bb:dd.f`).
fn same_pci_addr(ours: &str, text: &str) -> bool {
    text.eq_ignore_ascii_case(ours)
        || ours
            .split_once(':')
            .is_some_and(|(_, bdf)| bdf.eq_ignore_ascii_case(text))
}

fn func_type_code(kind: PciFuncType) -> abi::doca_pci_func_type {
    match kind {
        PciFuncType::Pf => abi::DOCA_PCI_FUNC_TYPE_PF,
        PciFuncType::Vf => abi::DOCA_PCI_FUNC_TYPE_VF,
        PciFuncType::Sf => abi::DOCA_PCI_FUNC_TYPE_SF,
    }
}

/// Reads a fixed-size output buffer request.
fn check_buf(buf: *mut c_char, size: u32, needed: usize) -> SimResult {
    if buf.is_null() || (size as usize) < needed {
        return Err(fail(
            codes::INVALID_VALUE,
            "output buffer is NULL or smaller than the documented size",
        ));
    }
    Ok(())
}

/// Opens a new handle on `model` (what `doca_dev_open` makes; closed by
/// `doca_dev_close`).
pub(crate) fn open(model: Arc<DeviceModel>) -> *mut Dev {
    model.opens.fetch_add(1, Ordering::Relaxed);
    let info = registry::register(DevInfo {
        model: model.clone(),
    }) as usize;
    registry::register(Dev {
        model,
        info,
        users: AtomicUsize::new(0),
    })
}

doca_api! {
    /// Lists the devices of the current profile.
    fn doca_devinfo_create_list(dev_list: *mut *mut *mut abi::doca_devinfo, nb_devs: *mut u32) {
        if dev_list.is_null() || nb_devs.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let profile = profile::current();
        let items: Vec<*mut DevInfo> = profile
            .devices
            .iter()
            .enumerate()
            .map(|(index, p)| {
                registry::register(DevInfo {
                    model: Arc::new(DeviceModel {
                        profile: p.clone(),
                        index: index as u16,
                        opens: AtomicU32::new(0),
                        memcheck: crate::memcheck::enabled(profile.memcheck),
                    }),
                })
            })
            .collect();
        let (head, count) = DEV_LISTS.publish(items);
        out(dev_list, head.cast())?;
        out(nb_devs, count)
    }

    /// Destroys a device list and the devinfos in it (open devices stay open).
    fn doca_devinfo_destroy_list(dev_list: *mut *mut abi::doca_devinfo) {
        DEV_LISTS.destroy(dev_list.cast())
    }

    /// Opens a device.
    fn doca_dev_open(devinfo: *mut abi::doca_devinfo, dev: *mut *mut abi::doca_dev) {
        let model = devinfo_model(devinfo)?.clone();
        if dev.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        out(dev, open(model).cast())
    }

    /// Closes a device handle; IN_USE while contexts built on it exist.
    fn doca_dev_close(dev: *mut abi::doca_dev) {
        let handle = obj::<Dev, _>(dev)?;
        if handle.users.load(Ordering::Acquire) != 0 {
            return Err(fail(codes::IN_USE, "contexts created on this device still exist"));
        }
        // SAFETY: `dev` was checked just above and nothing else frees it.
        let handle = unsafe { registry::unregister::<Dev, _>(dev) }?;
        handle.model.opens.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: `info` was registered by `doca_dev_open` for this handle only.
        unsafe { registry::unregister::<DevInfo, DevInfo>(handle.info as *mut DevInfo) }?;
        Ok(())
    }

    /// The devinfo of an open device (valid while the device is open).
    fn doca_dev_as_devinfo(dev: *const abi::doca_dev) -> *mut abi::doca_devinfo {
        obj::<Dev, _>(dev).map_or(std::ptr::null_mut(), |d| d.info as *mut abi::doca_devinfo)
    }

    /// PCI address as `dddd:bb:dd.f`.
    fn doca_devinfo_get_pci_addr_str(devinfo: *const abi::doca_devinfo, pci_addr_str: *mut c_char) {
        let model = devinfo_model(devinfo)?;
        out_str(pci_addr_str, abi::DOCA_DEVINFO_PCI_ADDR_SIZE as usize, &model.profile.pci_addr)
    }

    /// Compares the PCI address with a string (`dddd:bb:dd.f` or `bb:dd.f`).
    fn doca_devinfo_is_equal_pci_addr(devinfo: *const abi::doca_devinfo, pci_addr_str: *const c_char, is_equal: *mut u8) {
        let model = devinfo_model(devinfo)?;
        let text = crate::export::in_str(pci_addr_str)?;
        out(is_equal, u8::from(same_pci_addr(&model.profile.pci_addr, text)))
    }

    /// Network interface name.
    fn doca_devinfo_get_iface_name(devinfo: *const abi::doca_devinfo, iface_name: *mut c_char, size: u32) {
        let model = devinfo_model(devinfo)?;
        check_buf(iface_name, size, abi::DOCA_DEVINFO_IFACE_NAME_SIZE as usize)?;
        out_str(iface_name, size as usize, &model.profile.iface_name)
    }

    /// InfiniBand device name.
    fn doca_devinfo_get_ibdev_name(devinfo: *const abi::doca_devinfo, ibdev_name: *mut c_char, size: u32) {
        let model = devinfo_model(devinfo)?;
        check_buf(ibdev_name, size, abi::DOCA_DEVINFO_IBDEV_NAME_SIZE as usize)?;
        out_str(ibdev_name, size as usize, &model.profile.ibdev_name)
    }

    /// MAC address (6 bytes).
    fn doca_devinfo_get_mac_addr(devinfo: *const abi::doca_devinfo, mac_addr: *mut u8, size: u32) {
        let model = devinfo_model(devinfo)?;
        check_buf(mac_addr.cast(), size, abi::DOCA_DEVINFO_MAC_ADDR_SIZE as usize)?;
        // SAFETY: `check_buf` proved a buffer of at least 6 writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(model.profile.mac.as_ptr(), mac_addr, 6) };
        Ok(())
    }

    /// VHCA id: the device's position in the profile.
    fn doca_devinfo_get_vhca_id(devinfo: *const abi::doca_devinfo, vhca_id: *mut u16) {
        out(vhca_id, devinfo_model(devinfo)?.index)
    }

    /// Whether network representors can be listed (devices that have any).
    fn doca_devinfo_rep_cap_is_filter_net_supported(devinfo: *const abi::doca_devinfo, filter_net_supported: *mut u8) {
        let model = devinfo_model(devinfo)?;
        out(filter_net_supported, u8::from(!model.profile.representors.is_empty()))
    }

    /// PF, VF or SF, from the profile.
    fn doca_devinfo_get_pci_func_type(devinfo: *const abi::doca_devinfo, pci_func_type: *mut abi::doca_pci_func_type) {
        out(pci_func_type, func_type_code(devinfo_model(devinfo)?.profile.func_type))
    }

    /// Whether every representor can be listed: as for network ones.
    fn doca_devinfo_rep_cap_is_filter_all_supported(devinfo: *const abi::doca_devinfo, filter_all_supported: *mut u8) {
        let model = devinfo_model(devinfo)?;
        out(filter_all_supported, u8::from(!model.profile.representors.is_empty()))
    }

    /// Model choice: no simulated device emulates PCI functions, so none
    /// lists emulated representors, manages hot-plug, moderates
    /// notifications or reclaims resources faster.
    fn doca_devinfo_rep_cap_is_filter_emulated_supported(devinfo: *const abi::doca_devinfo, filter_emulated_supported: *mut u8) {
        devinfo_model(devinfo)?;
        out(filter_emulated_supported, 0)
    }

    /// 0 (see `doca_devinfo_rep_cap_is_filter_emulated_supported`).
    fn doca_devinfo_cap_is_hotplug_manager_supported(devinfo: *const abi::doca_devinfo, is_hotplug_manager: *mut u8) {
        devinfo_model(devinfo)?;
        out(is_hotplug_manager, 0)
    }

    /// 0 (see `doca_devinfo_rep_cap_is_filter_emulated_supported`).
    fn doca_devinfo_cap_is_notification_moderation_supported(devinfo: *const abi::doca_devinfo, is_notification_moderation_supported: *mut u8) {
        devinfo_model(devinfo)?;
        out(is_notification_moderation_supported, 0)
    }

    /// 0 (see `doca_devinfo_rep_cap_is_filter_emulated_supported`).
    fn doca_devinfo_cap_is_accelerate_resource_reclaim_supported(devinfo: *const abi::doca_devinfo, is_accelerate_resource_reclaim: *mut u8) {
        devinfo_model(devinfo)?;
        out(is_accelerate_resource_reclaim, 0)
    }

    /// Model choice: the parent's InfiniBand name and the representor's
    /// interface name, joined by `-`.
    fn doca_devinfo_rep_get_vuid(devinfo_rep: *const abi::doca_devinfo_rep, rep_vuid: *mut c_char, size: u32) {
        let info = obj::<RepInfo, _>(devinfo_rep)?;
        let vuid = format!("{}-{}", info.parent.profile.ibdev_name, info.rep.iface_name);
        out_str(rep_vuid, size as usize, &vuid)
    }

    /// PCI address of the represented function.
    fn doca_devinfo_rep_get_pci_addr_str(devinfo_rep: *const abi::doca_devinfo_rep, pci_addr_str: *mut c_char) {
        let info = obj::<RepInfo, _>(devinfo_rep)?;
        out_str(pci_addr_str, abi::DOCA_DEVINFO_REP_PCI_ADDR_SIZE as usize, &info.rep.pci_addr)
    }

    /// PF, VF or SF, from the profile.
    fn doca_devinfo_rep_get_pci_func_type(devinfo_rep: *const abi::doca_devinfo_rep, pci_func_type: *mut abi::doca_pci_func_type) {
        out(pci_func_type, func_type_code(obj::<RepInfo, _>(devinfo_rep)?.rep.func_type))
    }

    /// Model choice: no represented function is hot-plugged.
    fn doca_devinfo_rep_get_is_hotplug(devinfo_rep: *const abi::doca_devinfo_rep, is_hotplug: *mut u8) {
        obj::<RepInfo, _>(devinfo_rep)?;
        out(is_hotplug, 0)
    }

    /// The representor's interface name.
    fn doca_devinfo_rep_get_iface_name(devinfo_rep: *const abi::doca_devinfo_rep, iface_name: *mut c_char, size: u32) {
        let info = obj::<RepInfo, _>(devinfo_rep)?;
        check_buf(iface_name, size, abi::DOCA_DEVINFO_IFACE_NAME_SIZE as usize)?;
        out_str(iface_name, size as usize, &info.rep.iface_name)
    }

    /// Model choice: the parent's VHCA id times 256 plus the representor's
    /// position (unique within a profile).
    fn doca_devinfo_rep_get_vhca_id(devinfo_rep: *const abi::doca_devinfo_rep, vhca_id: *mut u16) {
        let info = obj::<RepInfo, _>(devinfo_rep)?;
        out(vhca_id, info.parent.index.wrapping_mul(256).wrapping_add(info.index))
    }

    /// Compares the represented function's PCI address with a string.
    fn doca_devinfo_rep_is_equal_pci_addr(devinfo_rep: *const abi::doca_devinfo_rep, pci_addr_str: *const c_char, is_equal: *mut u8) {
        let info = obj::<RepInfo, _>(devinfo_rep)?;
        let text = crate::export::in_str(pci_addr_str)?;
        out(is_equal, u8::from(same_pci_addr(&info.rep.pci_addr, text)))
    }

    /// Lists the representors of an open device that match `filter`.
    ///
    /// Model choice: every profile representor is a network representor;
    /// `DOCA_DEVINFO_REP_FILTER_EMULATED` alone lists none.
    fn doca_devinfo_rep_create_list(dev: *mut abi::doca_dev, filter: std::ffi::c_int, dev_list_rep: *mut *mut *mut abi::doca_devinfo_rep, nb_devs_rep: *mut u32) {
        let handle = obj::<Dev, _>(dev)?;
        if dev_list_rep.is_null() || nb_devs_rep.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let known = (abi::DOCA_DEVINFO_REP_FILTER_NET | abi::DOCA_DEVINFO_REP_FILTER_EMULATED) as std::ffi::c_int;
        if filter & !known != 0 {
            return Err(fail(codes::INVALID_VALUE, "unknown representor filter bits"));
        }
        let wants_net = filter == abi::DOCA_DEVINFO_REP_FILTER_ALL as std::ffi::c_int
            || filter & abi::DOCA_DEVINFO_REP_FILTER_NET as std::ffi::c_int != 0;
        let items: Vec<*mut RepInfo> = if wants_net {
            handle
                .model
                .profile
                .representors
                .iter()
                .enumerate()
                .map(|(index, rep)| {
                    registry::register(RepInfo { rep: rep.clone(), parent: handle.model.clone(), index: index as u16 })
                })
                .collect()
        } else {
            Vec::new()
        };
        let (head, count) = REP_LISTS.publish(items);
        out(dev_list_rep, head.cast())?;
        out(nb_devs_rep, count)
    }

    /// Destroys a representor list.
    fn doca_devinfo_rep_destroy_list(dev_list_rep: *mut *mut abi::doca_devinfo_rep) {
        REP_LISTS.destroy(dev_list_rep.cast())
    }

    /// Opens a representor.
    fn doca_dev_rep_open(devinfo: *mut abi::doca_devinfo_rep, dev_rep: *mut *mut abi::doca_dev_rep) {
        let info = obj::<RepInfo, _>(devinfo)?;
        if dev_rep.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let own = registry::register(RepInfo { rep: info.rep.clone(), parent: info.parent.clone(), index: info.index }) as usize;
        out(dev_rep, registry::register(DevRep { info: own, users: AtomicUsize::new(0) }).cast())
    }

    /// Closes a representor; IN_USE while an RDMI connection uses it.
    fn doca_dev_rep_close(dev: *mut abi::doca_dev_rep) {
        let handle = obj::<DevRep, _>(dev)?;
        if handle.users.load(Ordering::Acquire) != 0 {
            return Err(fail(codes::IN_USE, "an RDMI connection still uses this representor"));
        }
        // SAFETY: checked above; only this call frees it.
        let handle = unsafe { registry::unregister::<DevRep, _>(dev) }?;
        // SAFETY: registered by `doca_dev_rep_open` for this handle only.
        unsafe { registry::unregister::<RepInfo, RepInfo>(handle.info as *mut RepInfo) }?;
        Ok(())
    }

    /// The devinfo of an open representor.
    fn doca_dev_rep_as_devinfo(dev_rep: *mut abi::doca_dev_rep) -> *mut abi::doca_devinfo_rep {
        obj::<DevRep, _>(dev_rep).map_or(std::ptr::null_mut(), |d| d.info as *mut abi::doca_devinfo_rep)
    }
}

not_modelled! {
    /// IPv4 address of the device.
    fn doca_devinfo_get_ipv4_addr(devinfo: *const abi::doca_devinfo, ipv4_addr: *mut u8, size: u32);
    /// IPv6 address of the device.
    fn doca_devinfo_get_ipv6_addr(devinfo: *const abi::doca_devinfo, ipv6_addr: *mut u8, size: u32);
    /// InfiniBand LID (the simulated devices are Ethernet).
    fn doca_devinfo_get_lid(devinfo: *const abi::doca_devinfo, lid: *mut u16);
    /// Active link rate.
    fn doca_devinfo_get_active_rate(devinfo: *const abi::doca_devinfo, active_rate: *mut u64);
    /// Faster resource reclaim (see `doca_devinfo_cap_is_accelerate_resource_reclaim_supported`).
    fn doca_dev_accelerate_resource_reclaim(dev: *mut abi::doca_dev);
}
