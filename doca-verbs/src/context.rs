//! Verbs contexts (`struct doca_verbs_context`): DOCA Verbs' own instance of a
//! device, and the lock domain of everything made on it.
//!
//! Each verbs object holds an `Arc` of its parent, so whatever order values are
//! dropped in, a PD, CQ or QP is destroyed before its verbs context, and the
//! verbs context before the device is closed. Each is held by the core layer's
//! owned handle (`doca_dpa::core::Owned`), which destroys it once (or leaves it
//! alive, counted, when DOCA refuses); like every DOCA object of these crates,
//! they are `Send + Sync`. A verbs context is outside any DPA context family: it
//! and the objects made on it are one lock domain of their own, whose lock
//! ([`VerbsContext::lock`]) every DOCA call on them is made under
//! (`docs/concurrency.md`).

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{sole, Anytime, Domain, Held, Kind, Outcome, Owned};
use doca_dpa::{Device, Result};
use doca_verbs_sys as sys;

use crate::error::{invalid, verbs_call};

/// Proof that this thread holds a verbs context's lock (it and every object made
/// on it are one lock domain): made by [`VerbsContext::lock`], released when
/// dropped; not `Send`. The raw pointers of those objects need it.
pub type VerbsGuard<'a> = Held<'a>;

doca_dpa::__doca_object!(
    /// `doca_verbs_context`.
    RawVerbs: doca_verbs_sys::doca_verbs_context,
    destroy doca_verbs_context_destroy
);

/// Destroys `raw` now, for an explicit `destroy()`, once `shared` (what holds it)
/// had no other owner: [`Error::InUse`](crate::Error::InUse) otherwise, and nothing changes.
pub(crate) fn destroy_sole<T>(
    shared: Arc<T>,
    call: &'static str,
    teardown: impl FnOnce(&mut T) -> Outcome,
) -> Result<()> {
    let mut inner = sole(shared, call).map_err(|(e, _)| e)?;
    teardown(&mut inner).into_result()
}

bitflags::bitflags! {
    /// Flags of `doca_verbs_context_create`. The public header defines none
    /// besides `DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE` (the empty set); the
    /// type exists so that flags of newer releases are never raw integers
    /// (build them with [`VerbsContextFlags::from_bits_retain`]).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct VerbsContextFlags: u32 {
        // Every bit may be passed through to DOCA.
        const _ = !0;
    }
}

/// Destroyed (its handle's `Drop`) once every object made on it, which holds an
/// `Arc` of this, is gone, and before its device (a later field).
struct VerbsInner {
    /// In its own lock domain, shared with its PDs and CQs.
    raw: Owned<RawVerbs, Anytime>,
    device: Device,
}

/// A verbs context (`struct doca_verbs_context`): DOCA Verbs' own instance of
/// a device, on which protection domains, completion queues, queue pairs (and
/// doca-rdmi's connections and posters) are made.
///
/// Cheap to clone; destroyed (`doca_verbs_context_destroy`, EXPERIMENTAL)
/// when the last clone and every object made on it are gone. Keeps its
/// [`Device`] open.
#[derive(Clone)]
pub struct VerbsContext {
    inner: Arc<VerbsInner>,
}

static_assertions::assert_impl_all!(VerbsContext: Clone);

impl fmt::Debug for VerbsContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerbsContext")
            .field("device", &self.inner.device.info().pci_addr)
            .finish()
    }
}

impl VerbsContext {
    /// Opens a verbs context on `device` (`doca_dev_as_devinfo`, STABLE,
    /// then `doca_verbs_context_create` with
    /// `DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE`, EXPERIMENTAL).
    pub fn new(device: &Device) -> Result<VerbsContext> {
        VerbsContext::with_flags(device, VerbsContextFlags::empty())
    }

    /// Like [`VerbsContext::new`], with creation flags.
    pub fn with_flags(device: &Device, flags: VerbsContextFlags) -> Result<VerbsContext> {
        let mut raw = std::ptr::null_mut();
        let created = {
            let dev = device.lock();
            let info = device.devinfo(&dev);
            if info.is_null() {
                return Err(invalid(
                    "doca_dev_as_devinfo",
                    "DOCA returned no device information",
                ));
            }
            // SAFETY: a live devinfo, under its device's lock; valid out-pointer.
            unsafe {
                verbs_call!(doca_verbs_context_create(
                    info.cast(),
                    flags.bits() as _,
                    &mut raw
                ))
            }
        };
        created?;
        // Owned before the event (user code that may panic) is emitted.
        let verbs = VerbsContext {
            inner: Arc::new(VerbsInner {
                // SAFETY: what doca_verbs_context_create just returned: NULL or a new object that
                // nothing else owns, handed over here, in a domain of its own.
                raw: unsafe {
                    Owned::new("doca_verbs_context_create", raw, &Domain::new(Kind::Verbs))
                }?,
                device: device.clone(),
            }),
        };
        tracing::debug!(target: "doca_verbs::context", device = %device.info().pci_addr, "verbs context created");
        Ok(verbs)
    }

    /// The device it was opened on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The context's lock (that of every object made on it too), held until the
    /// guard drops: what raw calls with [`VerbsContext::as_ptr`] and those objects'
    /// pointers are made under. Reentrant.
    pub fn lock(&self) -> VerbsGuard<'_> {
        self.domain().lock()
    }

    /// The context's lock domain.
    #[doc(hidden)]
    pub fn domain(&self) -> &Domain {
        self.inner.raw.domain()
    }

    /// The raw `doca_verbs_context`, for calls this crate does not wrap, made
    /// while `guard` ([`VerbsContext::lock`]) lives. Valid while this value (or
    /// a clone) lives; do not destroy it.
    pub fn as_ptr(&self, guard: &VerbsGuard<'_>) -> *mut sys::doca_verbs_context {
        self.inner.raw.as_ptr(guard)
    }

    /// Destroys the context now (`doca_verbs_context_destroy`,
    /// EXPERIMENTAL), reporting what `Drop` could only log.
    ///
    /// Fails with [`Error::InUse`](crate::Error::InUse) (and changes nothing) while clones or
    /// objects made on it are alive.
    pub fn destroy(self) -> Result<()> {
        destroy_sole(self.inner, "doca_verbs_context_destroy", |v| {
            v.raw.teardown()
        })
    }

    /// The device's verbs limits (`doca_verbs_query_device`, the
    /// `doca_verbs_device_attr_get_*` getters, `doca_verbs_device_attr_free`;
    /// EXPERIMENTAL).
    #[cfg(all(
        doca_sym = "doca_verbs_query_device",
        doca_sym = "doca_verbs_device_attr_free",
        doca_sym = "doca_verbs_device_attr_get_max_qp",
        doca_sym = "doca_verbs_device_attr_get_max_cq",
        doca_sym = "doca_verbs_device_attr_get_max_cqe",
        doca_sym = "doca_verbs_device_attr_get_max_pd",
        doca_sym = "doca_verbs_device_attr_get_is_dpa_external_datapath_supported"
    ))]
    pub fn query_device(&self) -> Result<DeviceAttributes> {
        let mut raw = std::ptr::null_mut();
        let held = self.lock();
        // SAFETY: a live verbs context, under its lock; valid out-pointer.
        unsafe { verbs_call!(doca_verbs_query_device(self.as_ptr(&held), &mut raw)) }?;
        if raw.is_null() {
            return Err(invalid("doca_verbs_query_device", "DOCA returned NULL"));
        }
        // SAFETY: `raw` is the live attribute object just returned (this call's
        // alone); the getters only read it.
        let attrs = unsafe {
            DeviceAttributes {
                max_qp: sys::doca_verbs_device_attr_get_max_qp(raw) as u64,
                max_cq: sys::doca_verbs_device_attr_get_max_cq(raw) as u64,
                max_cqe: sys::doca_verbs_device_attr_get_max_cqe(raw) as u64,
                max_pd: sys::doca_verbs_device_attr_get_max_pd(raw) as u64,
                dpa_external_datapath:
                    sys::doca_verbs_device_attr_get_is_dpa_external_datapath_supported(raw) != 0,
            }
        };
        // SAFETY: freed once.
        unsafe { verbs_call!(doca_verbs_device_attr_free(raw)) }?;
        drop(held);
        Ok(attrs)
    }
}

/// Limits and capabilities of a device as DOCA Verbs reports them
/// ([`VerbsContext::query_device`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceAttributes {
    /// Most queue pairs (`doca_verbs_device_attr_get_max_qp`).
    pub max_qp: u64,
    /// Most completion queues (`_get_max_cq`).
    pub max_cq: u64,
    /// Most entries per completion queue (`_get_max_cqe`).
    pub max_cqe: u64,
    /// Most protection domains (`_get_max_pd`).
    pub max_pd: u64,
    /// Whether DPA kernels can drive the device's queues
    /// (`_get_is_dpa_external_datapath_supported`): the capability RDMI's
    /// DPA datapath and DPA Verbs need.
    pub dpa_external_datapath: bool,
}
