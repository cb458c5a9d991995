//! DOCA devices: listing, opening by PCI address or IB device name, and
//! representors.

use std::ffi::c_char;
use std::fmt;
use std::sync::Arc;

use doca_dpa_sys as sys;

use crate::core::{Anytime, Domain, Held, Kind, Owned};
use crate::error::{doca_call, Error, ErrorCode, Result};

/// Proof that this thread holds a device's lock (a device is outside any DPA
/// context family: its own lock domain, with its representors): made by
/// [`Device::lock`] or [`Representor::lock`], released when dropped; not `Send`.
/// [`Device::as_ptr`] and [`Representor::as_ptr`] need it. See
/// `docs/concurrency.md`.
pub type DeviceGuard<'a> = Held<'a>;

crate::__doca_object!(
    /// `doca_dev`, closed by `doca_dev_close`.
    RawDev: doca_dpa_sys::doca_dev,
    destroy doca_dev_close
);
crate::__doca_object!(
    /// `doca_dev_rep`, closed by `doca_dev_rep_close`.
    RawRep: doca_dpa_sys::doca_dev_rep,
    destroy doca_dev_rep_close
);

/// A snapshot of one device in DOCA's device list.
///
/// Made by [`devices`] (`doca_devinfo_create_list` + the
/// `doca_devinfo_get_*` queries); [`DeviceInfo::open`] opens it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceInfo {
    /// PCI address, `dddd:bb:dd.f` (`doca_devinfo_get_pci_addr_str`).
    pub pci_addr: String,
    /// InfiniBand device name, e.g. `mlx5_0` (`doca_devinfo_get_ibdev_name`).
    pub ibdev_name: String,
    /// Network interface name (`doca_devinfo_get_iface_name`).
    pub iface_name: String,
    /// Whether the device has a DPA (`doca_dpa_cap_is_supported`,
    /// EXPERIMENTAL). Always false in builds without the symbol.
    pub has_dpa: bool,
}

/// `mlx5_0 (0000:03:00.0)`: how errors name a device.
impl fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.ibdev_name, self.pci_addr)
    }
}

/// Owns a device list for the duration of a lookup.
struct DevList {
    head: *mut *mut sys::doca_devinfo,
    len: usize,
}

impl DevList {
    fn new() -> Result<DevList> {
        let mut head = std::ptr::null_mut();
        let mut len = 0u32;
        // SAFETY: valid out-pointers.
        unsafe { doca_call!(doca_devinfo_create_list(&mut head, &mut len)) }?;
        Ok(DevList {
            head,
            len: len as usize,
        })
    }

    fn iter(&self) -> impl Iterator<Item = *mut sys::doca_devinfo> + '_ {
        // SAFETY: DOCA returned an array of `len` devinfo pointers, alive
        // until the list is destroyed in Drop.
        (0..self.len).map(move |i| unsafe { *self.head.add(i) })
    }
}

impl Drop for DevList {
    fn drop(&mut self) {
        // SAFETY: `head` came from doca_devinfo_create_list and is destroyed once.
        if let Err(e) = unsafe { doca_call!(doca_devinfo_destroy_list(self.head)) } {
            tracing::warn!(target: "doca_dpa::device", error = %e, "destroying the device list failed");
        }
    }
}

fn fixed_str(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn describe(info: *mut sys::doca_devinfo) -> Result<DeviceInfo> {
    let mut pci = [0 as c_char; sys::DOCA_DEVINFO_PCI_ADDR_SIZE as usize];
    let mut ib = [0 as c_char; sys::DOCA_DEVINFO_IBDEV_NAME_SIZE as usize];
    let mut iface = [0 as c_char; sys::DOCA_DEVINFO_IFACE_NAME_SIZE as usize];
    // SAFETY: `info` is a live devinfo of the list; buffers have the
    // documented sizes.
    unsafe { doca_call!(doca_devinfo_get_pci_addr_str(info, pci.as_mut_ptr())) }?;
    // SAFETY: as above: `info` is a live devinfo of the list; buffers have the documented sizes.
    unsafe {
        doca_call!(doca_devinfo_get_ibdev_name(
            info,
            ib.as_mut_ptr(),
            ib.len() as u32
        ))
    }?;
    // SAFETY: as above: `info` is a live devinfo of the list; buffers have the documented sizes.
    unsafe {
        doca_call!(doca_devinfo_get_iface_name(
            info,
            iface.as_mut_ptr(),
            iface.len() as u32
        ))
    }?;
    Ok(DeviceInfo {
        pci_addr: fixed_str(&pci),
        ibdev_name: fixed_str(&ib),
        iface_name: fixed_str(&iface),
        has_dpa: has_dpa(info)?,
    })
}

/// NOT_SUPPORTED means "no DPA"; any other failure is an error of its own
/// (it must not read as "no device has a DPA").
#[cfg(doca_sym = "doca_dpa_cap_is_supported")]
fn has_dpa(info: *mut sys::doca_devinfo) -> Result<bool> {
    // SAFETY: `info` is a live devinfo.
    match unsafe { doca_call!(doca_dpa_cap_is_supported(info)) } {
        Ok(()) => Ok(true),
        Err(e) if e.code() == Some(crate::ErrorCode::NOT_SUPPORTED) => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(not(doca_sym = "doca_dpa_cap_is_supported"))]
fn has_dpa(_info: *mut sys::doca_devinfo) -> Result<bool> {
    Ok(false)
}

/// Lists the devices DOCA sees.
///
/// Calls `doca_devinfo_create_list` (STABLE), the `doca_devinfo_get_*`
/// queries (STABLE) and `doca_dpa_cap_is_supported` (EXPERIMENTAL), then
/// `doca_devinfo_destroy_list`.
pub fn devices() -> Result<Vec<DeviceInfo>> {
    let list = DevList::new()?;
    list.iter().map(describe).collect()
}

/// Validates a PCI address before asking DOCA: `dddd:bb:dd.f` or `bb:dd.f`,
/// hexadecimal.
fn parse_pci(addr: &str) -> Result<()> {
    let bad = || {
        Error::invalid(
            "doca_devinfo_is_equal_pci_addr",
            format!("`{addr}` is not a PCI address like 0000:03:00.0"),
        )
    };
    let (bus_part, function) = addr.rsplit_once('.').ok_or_else(bad)?;
    let fields: Vec<&str> = bus_part.split(':').collect();
    let widths: &[usize] = match fields.len() {
        3 => &[4, 2, 2],
        2 => &[2, 2],
        _ => return Err(bad()),
    };
    let hex = |s: &str, w: usize| s.len() == w && s.chars().all(|c| c.is_ascii_hexdigit());
    if !fields.iter().zip(widths).all(|(f, w)| hex(f, *w))
        || function.len() != 1
        || !function.chars().all(|c| ('0'..='7').contains(&c))
    {
        return Err(bad());
    }
    Ok(())
}

/// Closed (its handle's `Drop`) once every child, which holds an `Arc` of this, is
/// gone.
pub(crate) struct DeviceInner {
    /// The device, in its own lock domain (shared with its representors).
    raw: Owned<RawDev, Anytime>,
    info: DeviceInfo,
}

/// An open device (`doca_dev`). Cheap to clone; the device is closed with
/// `doca_dev_close` when the last clone and every object made from it are
/// gone.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("info", &self.inner.info)
            .finish()
    }
}

impl DeviceInfo {
    /// Opens this device (a fresh `doca_devinfo_create_list`, the entry with
    /// this PCI address and IB device name, `doca_dev_open`, then
    /// `doca_devinfo_destroy_list`). Both: a scalable function reports its
    /// PF's PCI address.
    pub fn open(&self) -> Result<Device> {
        Device::open_described(
            "DeviceInfo::open",
            || {
                format!(
                    "PCI address {} and name {} any more",
                    self.pci_addr, self.ibdev_name
                )
            },
            |d| d.pci_addr == self.pci_addr && d.ibdev_name == self.ibdev_name,
        )
    }
}

impl Device {
    /// Opens the first listed device `want` accepts; `Err(seen)` lists every
    /// device looked at when none was.
    fn open_matching(
        want: impl Fn(&DeviceInfo) -> bool,
    ) -> Result<std::result::Result<Device, Vec<String>>> {
        let list = DevList::new()?;
        let mut seen = Vec::new();
        for raw in list.iter() {
            let info = describe(raw)?;
            if want(&info) {
                let mut dev = std::ptr::null_mut();
                // SAFETY: `raw` is a live devinfo of our list (which nothing else
                // uses); valid out-pointer.
                unsafe { doca_call!(doca_dev_open(raw, &mut dev)) }?;
                let domain = Domain::new(Kind::Device);
                // Owned before the event (user code that may panic) is emitted.
                let device = Device {
                    inner: Arc::new(DeviceInner {
                        // SAFETY: what doca_dev_open just returned: NULL or a new object that
                        // nothing else owns, handed over here, in its own domain.
                        raw: unsafe { Owned::new("doca_dev_open", dev, &domain) }?,
                        info,
                    }),
                };
                tracing::debug!(target: "doca_dpa::device", pci = %device.inner.info.pci_addr, name = %device.inner.info.ibdev_name, "device opened");
                return Ok(Ok(device));
            }
            seen.push(info.to_string());
        }
        Ok(Err(seen))
    }

    /// Opens the device `want` accepts, or [`Error::NoSuchDevice`] for `wanted`.
    fn open_described(
        call: &'static str,
        wanted: impl FnOnce() -> String,
        want: impl Fn(&DeviceInfo) -> bool,
    ) -> Result<Device> {
        Device::open_matching(want)?.map_err(|seen| Error::NoSuchDevice {
            call,
            wanted: wanted(),
            seen,
        })
    }

    /// Opens the device with this PCI address (`0000:03:00.0` or `03:00.0`)
    /// (`doca_devinfo_create_list`, the `doca_devinfo_get_*` queries,
    /// `doca_dev_open`, `doca_devinfo_destroy_list`).
    ///
    /// Malformed addresses are refused before any DOCA call; an address no
    /// device has gives [`Error::NoSuchDevice`] naming it and the devices seen.
    pub fn open_by_pci(addr: &str) -> Result<Device> {
        parse_pci(addr)?;
        let full = |d: &DeviceInfo| {
            d.pci_addr.eq_ignore_ascii_case(addr)
                || d.pci_addr
                    .split_once(':')
                    .is_some_and(|(_, bdf)| bdf.eq_ignore_ascii_case(addr))
        };
        Device::open_described(
            "Device::open_by_pci",
            || format!("PCI address {addr}"),
            full,
        )
    }

    /// Opens the device with this InfiniBand device name (e.g. `mlx5_0`), as
    /// [`Device::open_by_pci`] does.
    pub fn open_by_ibdev_name(name: &str) -> Result<Device> {
        if name.is_empty() || name.len() >= sys::DOCA_DEVINFO_IBDEV_NAME_SIZE as usize {
            return Err(Error::invalid(
                "doca_devinfo_get_ibdev_name",
                format!("`{name}` is not a valid IB device name"),
            ));
        }
        Device::open_described(
            "Device::open_by_ibdev_name",
            || format!("IB device name {name}"),
            |d| d.ibdev_name == name,
        )
    }

    /// The first device that has a DPA, for programs that do not care which
    /// (the listing calls of [`Device::open_by_pci`] and
    /// `doca_dpa_cap_is_supported`). When none has one: [`Error::NoDpa`]
    /// listing the devices seen.
    pub fn open_first_with_dpa() -> Result<Device> {
        Device::open_matching(|d| d.has_dpa)?.map_err(|seen| Error::NoDpa {
            device: devices_seen(&seen),
            call: "doca_dpa_cap_is_supported",
            code: None,
        })
    }

    /// The device a program's user named, or the first with a DPA when they named none:
    /// `name` is a PCI address when it has a `:` ([`Device::open_by_pci`]), else an
    /// InfiniBand device name ([`Device::open_by_ibdev_name`]); `None` is
    /// [`Device::open_first_with_dpa`] (their DOCA calls). The examples take it from
    /// `DOCA_DEVICE`:
    ///
    /// ```no_run
    /// # fn main() -> doca_dpa::Result<()> {
    /// let name = std::env::var("DOCA_DEVICE").ok();
    /// let device = doca_dpa::Device::open_named_or_first_with_dpa(name.as_deref())?;
    /// # Ok(()) }
    /// ```
    pub fn open_named_or_first_with_dpa(name: Option<&str>) -> Result<Device> {
        match name {
            Some(pci) if pci.contains(':') => Device::open_by_pci(pci),
            Some(ibdev) => Device::open_by_ibdev_name(ibdev),
            None => Device::open_first_with_dpa(),
        }
    }

    /// Whether this is the only handle of the device (no clone, nothing made from it).
    pub(crate) fn is_unshared(&self) -> bool {
        Arc::strong_count(&self.inner) == 1 && Arc::weak_count(&self.inner) == 0
    }

    /// What DOCA said about the device when it was opened.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The device's lock, held until the guard drops: what a raw call with
    /// [`Device::as_ptr`] is made under. The device is outside any DPA context
    /// family (contexts of several families are made on one device); the
    /// library's own calls with it take this lock, after a family's when both
    /// are held (`docs/concurrency.md`). Reentrant.
    pub fn lock(&self) -> DeviceGuard<'_> {
        self.inner.raw.domain().lock()
    }

    /// The raw `doca_dev`, for calls this crate does not wrap, made while `guard`
    /// ([`Device::lock`]) lives. Valid while this `Device` (or any clone) lives.
    pub fn as_ptr(&self, guard: &DeviceGuard<'_>) -> *mut sys::doca_dev {
        self.inner.raw.as_ptr(guard)
    }

    /// The device's `doca_devinfo` (`doca_dev_as_devinfo`, STABLE), for calls
    /// made while `guard` lives (it is the device's).
    pub fn devinfo(&self, guard: &DeviceGuard<'_>) -> *mut sys::doca_devinfo {
        // SAFETY: an open device, under its lock.
        unsafe { sys::doca_dev_as_devinfo(self.as_ptr(guard)) }
    }

    /// Which kind of PCI function the device is
    /// (`doca_devinfo_get_pci_func_type`, EXPERIMENTAL, DOCA 3.1 and later):
    /// NVIDIA's samples from 3.1 on pick a physical function for DPA work.
    ///
    /// # Errors
    ///
    /// What DOCA answers for the device.
    #[cfg(all(doca_ge_3_1, doca_sym = "doca_devinfo_get_pci_func_type"))]
    #[cfg_attr(docsrs, doc(cfg(all(doca_ge_3_1, feature = "experimental"))))]
    pub fn pci_func_type(&self) -> Result<PciFuncType> {
        let guard = self.lock();
        let mut raw: sys::doca_pci_func_type = 0;
        // SAFETY: the devinfo of this open device, under its lock (`guard`);
        // a valid out-pointer of the enum's type.
        unsafe {
            doca_call!(doca_devinfo_get_pci_func_type(
                self.devinfo(&guard),
                &mut raw
            ))
        }?;
        Ok(PciFuncType::from_raw(raw))
    }

    /// The device's lock domain, for objects made on it by other crates.
    #[doc(hidden)]
    pub fn domain(&self) -> &Domain {
        self.inner.raw.domain()
    }
}

/// The kind of PCI function a device is (`enum doca_pci_func_type`), as
/// [`Device::pci_func_type`] reports it (DOCA 3.1 and later).
#[cfg(all(doca_ge_3_1, doca_sym = "doca_devinfo_get_pci_func_type"))]
#[cfg_attr(docsrs, doc(cfg(all(doca_ge_3_1, feature = "experimental"))))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PciFuncType {
    /// A physical function (`DOCA_PCI_FUNC_TYPE_PF`).
    Physical,
    /// A virtual function (`DOCA_PCI_FUNC_TYPE_VF`).
    Virtual,
    /// A scalable function (`DOCA_PCI_FUNC_TYPE_SF`).
    Scalable,
    /// A value this crate does not know (a newer DOCA's), kept as DOCA gave it.
    Other(u32),
}

#[cfg(all(doca_ge_3_1, doca_sym = "doca_devinfo_get_pci_func_type"))]
impl PciFuncType {
    fn from_raw(raw: sys::doca_pci_func_type) -> Self {
        match raw {
            sys::DOCA_PCI_FUNC_TYPE_PF => PciFuncType::Physical,
            sys::DOCA_PCI_FUNC_TYPE_VF => PciFuncType::Virtual,
            sys::DOCA_PCI_FUNC_TYPE_SF => PciFuncType::Scalable,
            other => PciFuncType::Other(other as u32),
        }
    }
}

/// The subject of [`Error::NoDpa`]'s "… has no DPA" when no device has one.
fn devices_seen(seen: &[String]) -> String {
    if seen.is_empty() {
        "this machine (DOCA sees no device)".to_owned()
    } else {
        format!("each device DOCA sees ({})", seen.join(", "))
    }
}

// DOCA objects are not thread-safe (facts: DPA guide note): clones share one
// `doca_dev`, whose calls are made under its lock (`Device::lock`).
static_assertions::assert_impl_all!(Device: Clone, Send, Sync);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_dpa_among_the_devices_reads_without_a_double_negative() {
        let error = |seen: &[String]| Error::NoDpa {
            device: devices_seen(seen),
            call: "doca_dpa_cap_is_supported",
            code: None,
        };
        let none = error(&[]).to_string();
        assert!(
            none.starts_with("this machine (DOCA sees no device) has no DPA"),
            "{none}"
        );
        let seen = [
            "mlx5_2 (0000:81:00.0)".to_owned(),
            "mlx5_3 (0000:03:00.0)".to_owned(),
        ];
        let two = error(&seen).to_string();
        assert!(
            two.starts_with(
                "each device DOCA sees (mlx5_2 (0000:81:00.0), mlx5_3 (0000:03:00.0)) has no DPA"
            ),
            "{two}"
        );
        for message in [none, two] {
            assert!(!message.contains("none"), "{message}");
        }
    }

    #[test]
    fn pci_addresses_are_validated() {
        assert!(parse_pci("0000:03:00.0").is_ok());
        assert!(parse_pci("03:00.1").is_ok());
        for bad in [
            "",
            "03:00",
            "zz:00.0",
            "0000:03:00.9",
            "0000:03:00:00.0",
            "3:0.0",
        ] {
            assert!(parse_pci(bad).unwrap_err().is_invalid_argument(), "{bad}");
        }
    }
}

bitflags::bitflags! {
    /// Which representors to list (`enum doca_devinfo_rep_filter`). The empty
    /// set means every kind (`DOCA_DEVINFO_REP_FILTER_ALL`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct RepresentorFilter: u32 {
        /// Network representors (`DOCA_DEVINFO_REP_FILTER_NET`).
        const NET = sys::DOCA_DEVINFO_REP_FILTER_NET as u32;
        /// Emulated PCI functions (`DOCA_DEVINFO_REP_FILTER_EMULATED`).
        const EMULATED = sys::DOCA_DEVINFO_REP_FILTER_EMULATED as u32;
    }
}

/// Closed (its handle's `Drop`) after its users, which hold an `Arc` of this, and
/// before its device (a later field).
struct RepresentorInner {
    /// In its device's lock domain.
    raw: Owned<RawRep, Anytime>,
    _device: Device,
    index: usize,
}

/// An open representor of a device (`doca_dev_rep`), e.g. the one an RDMI
/// connection serves. Closed with `doca_dev_rep_close` when the last clone
/// and every object made from it are gone; keeps its device open.
#[derive(Clone)]
pub struct Representor {
    inner: Arc<RepresentorInner>,
}

impl fmt::Debug for Representor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Representor")
            .field("index", &self.inner.index)
            .finish()
    }
}

impl Representor {
    /// Position in the device's representor list when it was opened.
    pub fn index(&self) -> usize {
        self.inner.index
    }

    /// Its device's lock ([`Device::lock`]): what a raw call with
    /// [`Representor::as_ptr`] is made under.
    pub fn lock(&self) -> DeviceGuard<'_> {
        self.inner.raw.domain().lock()
    }

    /// The raw `doca_dev_rep`, for calls made while `guard`
    /// ([`Representor::lock`]) lives; valid while this `Representor` lives.
    pub fn as_ptr(&self, guard: &DeviceGuard<'_>) -> *mut sys::doca_dev_rep {
        self.inner.raw.as_ptr(guard)
    }
}

static_assertions::assert_impl_all!(Representor: Clone, Send, Sync);

impl Device {
    /// Opens every representor of this device that matches `filter`
    /// (`doca_devinfo_rep_create_list`, `doca_dev_rep_open` for each,
    /// `doca_devinfo_rep_destroy_list`; all STABLE).
    ///
    /// Representors exist only where the device is opened on a BlueField's Arm
    /// side (DPU mode), not on its host. Network representors (`NET`, or every
    /// kind) asked of a device that cannot list them — the listing answers
    /// NOT_SUPPORTED or finds none, and `doca_devinfo_rep_cap_is_filter_net_supported`
    /// (STABLE) says the device has none to list — are [`Error::Unavailable`],
    /// which says so. On the software DPA the default profile is the host's
    /// view, and the error says how to select the Arm side's
    /// (`doca::sim::Profile::dpu_view()`). An empty list means the device can
    /// have representors and none matches `filter`.
    pub fn open_representors(&self, filter: RepresentorFilter) -> Result<Vec<Representor>> {
        let wants_net = filter.is_empty() || filter.contains(RepresentorFilter::NET);
        let mut head = std::ptr::null_mut();
        let mut len = 0u32;
        let dev = self.lock();
        // SAFETY: an open device, under its lock; valid out-pointers.
        let listed = unsafe {
            doca_call!(doca_devinfo_rep_create_list(
                self.as_ptr(&dev),
                filter.bits() as _,
                &mut head,
                &mut len
            ))
        };
        match listed {
            // Only where the device says it has none to list: a device that can
            // list them answering NOT_SUPPORTED is that error, as it is.
            Err(e)
                if wants_net
                    && e.code() == Some(ErrorCode::NOT_SUPPORTED)
                    && !self.can_list_net_representors() =>
            {
                return Err(self.no_representors(&e.to_string()));
            }
            other => other?,
        }
        let mut out = Vec::with_capacity(len as usize);
        let mut result = Ok(());
        for index in 0..len as usize {
            // SAFETY: the list holds `len` entries until destroyed below.
            let info = unsafe { *head.add(index) };
            let mut rep = std::ptr::null_mut();
            // SAFETY: a live representor devinfo; valid out-pointer.
            if let Err(e) = unsafe { doca_call!(doca_dev_rep_open(info, &mut rep)) } {
                result = Err(e);
                break;
            }
            // A NULL representor is skipped.
            // SAFETY: what doca_dev_rep_open just returned: NULL or a new object that
            // nothing else owns, handed over here.
            if let Ok(raw) = unsafe { Owned::new("doca_dev_rep_open", rep, self.domain()) } {
                out.push(Representor {
                    inner: Arc::new(RepresentorInner {
                        raw,
                        _device: self.clone(),
                        index,
                    }),
                });
            }
        }
        // SAFETY: the list from doca_devinfo_rep_create_list, destroyed once;
        // opened representors stay valid.
        let destroyed = unsafe { doca_call!(doca_devinfo_rep_destroy_list(head)) };
        // Released before the report (user code) and before `out` could drop.
        drop(dev);
        if let Err(e) = destroyed {
            tracing::warn!(target: "doca_dpa::device", error = %e, "destroying the representor list failed");
        }
        result?;
        if out.is_empty() && wants_net && !self.can_list_net_representors() {
            return Err(self.no_representors(
                "doca_devinfo_rep_cap_is_filter_net_supported says it has none to list",
            ));
        }
        Ok(out)
    }

    /// Whether the device can list network representors
    /// (`doca_devinfo_rep_cap_is_filter_net_supported`, STABLE). A failed query
    /// counts as yes: the empty list it was asked about then stands.
    fn can_list_net_representors(&self) -> bool {
        let dev = self.lock();
        let info = self.devinfo(&dev);
        let mut supported = 0u8;
        // SAFETY: a live devinfo, under its device's lock; a valid out-pointer.
        let asked = unsafe {
            doca_call!(doca_devinfo_rep_cap_is_filter_net_supported(
                info,
                &mut supported
            ))
        };
        asked.map_or(true, |()| supported != 0)
    }

    /// [`Error::Unavailable`] for network representors of a device that has
    /// none to list (`why`: what DOCA said).
    fn no_representors(&self, why: &str) -> Error {
        Error::Unavailable {
            what: "a network representor",
            reason: format!(
                "{} has none ({why}): representors exist only where the device is opened on a \
                 BlueField's Arm side (DPU mode), not on its host; run the program on the Arm side{}",
                self.info(),
                NO_REPRESENTORS_ON_THE_SIM
            ),
        }
    }
}

/// The end of [`Device::no_representors`]'s text: how to get representors on
/// the software DPA.
#[cfg(doca_backend = "sim")]
const NO_REPRESENTORS_ON_THE_SIM: &str = ". The software DPA's default profile is a \
    BlueField-3 as its host sees it, without representors; `doca::sim::Profile::dpu_view()` \
    is its Arm side, whose mlx5_0 has network representors (and an SF). Select it before \
    opening the device: `doca::sim::set_global_profile(doca::sim::Profile::dpu_view())`, \
    or `set_profile` on a test's `doca::sim::Scope`, or a profile file with representors \
    named by DOCA_SIM_PROFILE";
#[cfg(not(doca_backend = "sim"))]
const NO_REPRESENTORS_ON_THE_SIM: &str = "";
