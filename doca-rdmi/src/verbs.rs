//! DOCA Verbs, the part RDMI needs: a verbs context on a device, protection
//! domains and completion queues. All of `doca_verbs.h` is EXPERIMENTAL.
//!
//! Each object holds an `Arc` of its parent, so whatever order values are
//! dropped in, a PD or CQ is destroyed before its verbs context, and the
//! verbs context before the device is closed. Each is held by the core layer's
//! owned handle (`doca_dpa::core::Owned`), which destroys it once (or leaves it
//! alive, counted, when DOCA refuses); like every DOCA object of these crates,
//! they are `Send + Sync`. A verbs context is outside any DPA context family: it
//! and the PDs and CQs made on it are one lock domain of their own, whose lock
//! ([`VerbsContext::lock`]) every DOCA call on them is made under
//! (`docs/concurrency.md`).

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{sole, Anytime, Domain, Held, Kind, Outcome, Owned};
use doca_dpa::{Device, KeepAlive, Result};

/// Proof that this thread holds a verbs context's lock (it, its PDs and CQs are
/// one lock domain): made by [`VerbsContext::lock`], released when dropped; not
/// `Send`. The raw pointers of those objects need it.
pub type VerbsGuard<'a> = Held<'a>;
use doca_rdmi_sys as sys;

use crate::error::{invalid, rdmi_call};

doca_dpa::__doca_object!(
    /// `doca_verbs_context`.
    RawVerbs: doca_rdmi_sys::doca_verbs_context,
    destroy doca_verbs_context_destroy
);
doca_dpa::__doca_object!(
    /// `doca_verbs_pd`.
    RawPd: doca_rdmi_sys::doca_verbs_pd,
    destroy doca_verbs_pd_destroy
);
doca_dpa::__doca_object!(
    /// `doca_verbs_cq`.
    RawCq: doca_rdmi_sys::doca_verbs_cq,
    destroy doca_verbs_cq_destroy
);
doca_dpa::__doca_object!(
    /// `doca_verbs_cq_attr`, owned while a CQ is being created.
    RawCqAttr: doca_rdmi_sys::doca_verbs_cq_attr,
    destroy doca_verbs_cq_attr_destroy
);

/// Destroys `raw` now, for an explicit `destroy()`, once `shared` (what holds it)
/// had no other owner: [`Error::InUse`](crate::Error::InUse) otherwise, and nothing changes.
fn destroy_sole<T>(
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
/// a device, on which protection domains, completion queues and RDMI
/// connections and posters are made.
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
                rdmi_call!(doca_verbs_context_create(
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
        tracing::debug!(target: "doca_rdmi::verbs", device = %device.info().pci_addr, "verbs context created");
        Ok(verbs)
    }

    /// The device it was opened on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The context's lock (its PDs' and CQs' too), held until the guard drops:
    /// what raw calls with [`VerbsContext::as_ptr`] and the PDs' and CQs'
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
        unsafe { rdmi_call!(doca_verbs_query_device(self.as_ptr(&held), &mut raw)) }?;
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
        unsafe { rdmi_call!(doca_verbs_device_attr_free(raw)) }?;
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
    /// DPA datapath needs.
    pub dpa_external_datapath: bool,
}

/// Destroyed (its handle's `Drop`) once every user, which holds an `Arc` of this,
/// is gone, and before its verbs context (a later field).
struct PdInner {
    /// In its verbs context's domain.
    raw: Owned<RawPd, Anytime>,
    context: VerbsContext,
}

/// A protection domain (`struct doca_verbs_pd`). Connections and posters
/// that work together must use the same one (DOCA answers INVALID_VALUE
/// otherwise).
///
/// Cheap to clone; destroyed (`doca_verbs_pd_destroy`, EXPERIMENTAL) when
/// the last clone and every user are gone; keeps its verbs context alive.
#[derive(Clone)]
pub struct ProtectionDomain {
    inner: Arc<PdInner>,
}

impl fmt::Debug for ProtectionDomain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtectionDomain").finish_non_exhaustive()
    }
}

impl ProtectionDomain {
    /// Creates a protection domain (`doca_verbs_pd_create`, EXPERIMENTAL).
    pub fn new(context: &VerbsContext) -> Result<ProtectionDomain> {
        let mut raw = std::ptr::null_mut();
        {
            let held = context.lock();
            // SAFETY: a live verbs context, under its lock; valid out-pointer.
            unsafe { rdmi_call!(doca_verbs_pd_create(context.as_ptr(&held), &mut raw)) }?;
        }
        Ok(ProtectionDomain {
            inner: Arc::new(PdInner {
                // SAFETY: what doca_verbs_pd_create just returned: NULL or a new object that
                // nothing else owns, handed over here, in its context's domain.
                raw: unsafe { Owned::new("doca_verbs_pd_create", raw, context.domain()) }?,
                context: context.clone(),
            }),
        })
    }

    /// The verbs context it was made on.
    pub fn context(&self) -> &VerbsContext {
        &self.inner.context
    }

    /// The raw `doca_verbs_pd`, for calls made while `guard` (its verbs
    /// context's lock: [`VerbsContext::lock`]) lives; valid while this value (or
    /// a clone) lives.
    pub fn as_ptr(&self, guard: &VerbsGuard<'_>) -> *mut sys::doca_verbs_pd {
        self.inner.raw.as_ptr(guard)
    }

    /// Whether `self` and `other` are the same protection domain.
    pub fn same_as(&self, other: &ProtectionDomain) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Destroys the PD now (`doca_verbs_pd_destroy`, EXPERIMENTAL), reporting what `Drop`
    /// could only log; [`Error::InUse`](crate::Error::InUse) while clones or users are alive.
    pub fn destroy(self) -> Result<()> {
        destroy_sole(self.inner, "doca_verbs_pd_destroy", |pd| pd.raw.teardown())
    }
}

/// Size of one completion queue entry (`enum doca_verbs_cq_entry_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CqEntrySize {
    /// 64-byte entries (`DOCA_VERBS_CQ_ENTRY_SIZE_64`), DOCA's default.
    #[default]
    Bytes64,
    /// 128-byte entries (`DOCA_VERBS_CQ_ENTRY_SIZE_128`).
    Bytes128,
}

/// What a [`CompletionQueue`] is made with (the setters of
/// `struct doca_verbs_cq_attr`), checked and applied by
/// [`CompletionQueue::new`]. A CQ bound to a DPA thread holds that thread
/// alive until the CQ is destroyed.
#[derive(Debug, Clone)]
pub struct CqAttributes {
    size: u32,
    entry_size: Option<CqEntrySize>,
    overrun: Option<bool>,
    dpa_thread: Option<BoundThread>,
}

/// The DPA thread a CQ delivers to: its id, and what keeps it from being
/// destroyed while the CQ may still wake it.
#[derive(Clone)]
struct BoundThread {
    id: u32,
    /// PCI address of the device the thread's DPA context runs on: a thread id
    /// means something only on that device's DPA.
    device: String,
    _thread: KeepAlive,
}

impl std::fmt::Debug for BoundThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BoundThread")
            .field("id", &self.id)
            .field("device", &self.device)
            .finish()
    }
}

impl CqAttributes {
    /// At least `size` entries (`doca_verbs_cq_attr_set_cq_size`,
    /// EXPERIMENTAL, called by [`CompletionQueue::new`] like every setter
    /// here); must not be 0.
    pub fn new(size: u32) -> CqAttributes {
        CqAttributes {
            size,
            entry_size: None,
            overrun: None,
            dpa_thread: None,
        }
    }

    /// The entry size (`doca_verbs_cq_attr_set_entry_size`, EXPERIMENTAL).
    #[cfg(doca_sym = "doca_verbs_cq_attr_set_entry_size")]
    pub fn entry_size(mut self, entry_size: CqEntrySize) -> Self {
        self.entry_size = Some(entry_size);
        self
    }

    /// Whether the CQ may overrun instead of failing when full
    /// (`doca_verbs_cq_attr_set_cq_overrun`, EXPERIMENTAL).
    #[cfg(doca_sym = "doca_verbs_cq_attr_set_cq_overrun")]
    pub fn overrun(mut self, overrun: bool) -> Self {
        self.overrun = Some(overrun);
        self
    }

    /// Binds the CQ to `thread` (`doca_dpa_thread_get_id`, then
    /// `doca_verbs_cq_attr_set_dpa_thread_id`, EXPERIMENTAL, at
    /// [`CompletionQueue::new`]). The CQ keeps the thread alive: the DPA
    /// thread cannot be stopped and destroyed while a CQ may still wake it.
    #[cfg(doca_sym = "doca_verbs_cq_attr_set_dpa_thread_id")]
    pub fn dpa_thread(mut self, thread: &doca_dpa::DpaThread) -> Result<Self> {
        self.dpa_thread = Some(BoundThread {
            id: thread.id()?,
            device: thread.dpa().device().info().pci_addr.clone(),
            _thread: thread.keep_alive(),
        });
        Ok(self)
    }

    /// The requested size.
    pub fn size(&self) -> u32 {
        self.size
    }

    /// The id of the DPA thread the CQ is bound to, if any.
    pub fn bound_thread_id(&self) -> Option<u32> {
        self.dpa_thread.as_ref().map(|bound| bound.id)
    }
}

impl CqAttributes {
    /// A `doca_verbs_cq_attr` with these attributes set (destroyed when the handle
    /// goes).
    fn apply(&self, held: &VerbsGuard<'_>, domain: &Domain) -> Result<Owned<RawCqAttr, Anytime>> {
        let attrs = self;
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { rdmi_call!(doca_verbs_cq_attr_create(&mut raw)) }?;
        // SAFETY: what doca_verbs_cq_attr_create just returned: NULL or a new object that
        // nothing else owns, handed over here, in the verbs context's domain
        // (`held` is its lock).
        let a =
            unsafe { Owned::<RawCqAttr, Anytime>::new("doca_verbs_cq_attr_create", raw, domain) }?;
        let p = a.as_ptr(held);
        // SAFETY: `p` is our live attribute object.
        unsafe { rdmi_call!(doca_verbs_cq_attr_set_cq_size(p, attrs.size as _)) }?;
        #[cfg(doca_sym = "doca_verbs_cq_attr_set_entry_size")]
        if let Some(size) = attrs.entry_size {
            let raw = match size {
                CqEntrySize::Bytes64 => sys::DOCA_VERBS_CQ_ENTRY_SIZE_64,
                CqEntrySize::Bytes128 => sys::DOCA_VERBS_CQ_ENTRY_SIZE_128,
            };
            // SAFETY: `p` is our live attribute object.
            unsafe { rdmi_call!(doca_verbs_cq_attr_set_entry_size(p, raw as _)) }?;
        }
        #[cfg(doca_sym = "doca_verbs_cq_attr_set_cq_overrun")]
        if let Some(overrun) = attrs.overrun {
            // SAFETY: `p` is our live attribute object.
            unsafe { rdmi_call!(doca_verbs_cq_attr_set_cq_overrun(p, u8::from(overrun) as _)) }?;
        }
        #[cfg(doca_sym = "doca_verbs_cq_attr_set_dpa_thread_id")]
        if let Some(bound) = &attrs.dpa_thread {
            // SAFETY: `p` is our live attribute object; the thread stays alive
            // as long as the CQ (its KeepAlive is in the CQ's attributes).
            unsafe { rdmi_call!(doca_verbs_cq_attr_set_dpa_thread_id(p, bound.id as _)) }?;
        }
        Ok(a)
    }
}

struct CqInner {
    /// In its verbs context's domain.
    raw: Owned<RawCq, Anytime>,
    attrs: CqAttributes,
    context: VerbsContext,
}

impl CqInner {
    /// `doca_verbs_cq_destroy`, once. When it fails the CQ may still wake its bound
    /// DPA thread, so the thread and the verbs context are buried with it (before
    /// the caller reports, which runs user code).
    fn teardown(&mut self) -> Outcome {
        let outcome = self.raw.teardown();
        if !matches!(outcome, Outcome::Done) {
            if let Some(bound) = self.attrs.dpa_thread.take() {
                doca_dpa::core::bury(bound);
            }
            doca_dpa::core::bury(self.context.clone());
        }
        outcome
    }
}

impl Drop for CqInner {
    fn drop(&mut self) {
        self.teardown().report();
    }
}

/// A verbs completion queue (`struct doca_verbs_cq`): the host-read
/// completion source of an RDMI object ([`CompletionSource::Cq`](crate::CompletionSource::Cq)).
///
/// Cheap to clone; destroyed (`doca_verbs_cq_destroy`, EXPERIMENTAL) when
/// the last clone and every object it is attached to are gone.
#[derive(Clone)]
pub struct CompletionQueue {
    inner: Arc<CqInner>,
}

impl fmt::Debug for CompletionQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionQueue")
            .field("attributes", &self.inner.attrs)
            .finish()
    }
}

impl CompletionQueue {
    /// Creates a CQ (`doca_verbs_cq_attr_create`, the attribute setters
    /// `attrs` asks for, `doca_verbs_cq_create`, `doca_verbs_cq_attr_destroy`;
    /// all EXPERIMENTAL). A size of 0, and a DPA thread of another device than
    /// `context`'s (its id would name some other thread, or none, of this
    /// device's DPA), are refused before any DOCA call.
    pub fn new(context: &VerbsContext, attrs: &CqAttributes) -> Result<CompletionQueue> {
        if attrs.size == 0 {
            return Err(invalid(
                "doca_verbs_cq_attr_set_cq_size",
                "a CQ needs at least one entry",
            ));
        }
        if let Some(bound) = &attrs.dpa_thread {
            let here = &context.device().info().pci_addr;
            if &bound.device != here {
                return Err(invalid(
                    "doca_verbs_cq_attr_set_dpa_thread_id",
                    format!(
                        "DPA thread {} runs on the DPA of device {}, but the CQ's verbs \
                         context is on device {here}",
                        bound.id, bound.device
                    ),
                ));
            }
        }
        let mut raw = std::ptr::null_mut();
        {
            let held = context.lock();
            let attr = attrs.apply(&held, context.domain())?;
            // SAFETY: a live verbs context and attribute object, under the
            // context's lock; valid out-pointer.
            unsafe {
                rdmi_call!(doca_verbs_cq_create(
                    context.as_ptr(&held),
                    attr.as_ptr(&held),
                    &mut raw
                ))
            }?;
        }
        Ok(CompletionQueue {
            inner: Arc::new(CqInner {
                // SAFETY: what doca_verbs_cq_create just returned: NULL or a new object that
                // nothing else owns, handed over here, in its context's domain.
                raw: unsafe { Owned::new("doca_verbs_cq_create", raw, context.domain()) }?,
                attrs: attrs.clone(),
                context: context.clone(),
            }),
        })
    }

    /// The attributes it was made with.
    pub fn attributes(&self) -> &CqAttributes {
        &self.inner.attrs
    }

    /// The verbs context it was made on.
    pub fn context(&self) -> &VerbsContext {
        &self.inner.context
    }

    /// The CQ number (`doca_verbs_cq_get_cqn`, EXPERIMENTAL).
    #[cfg(doca_sym = "doca_verbs_cq_get_cqn")]
    pub fn number(&self) -> u32 {
        let held = self.inner.context.lock();
        // SAFETY: a live CQ, under its verbs context's lock.
        unsafe { sys::doca_verbs_cq_get_cqn(self.as_ptr(&held)) as u32 }
    }

    /// The raw `doca_verbs_cq`, for calls made while `guard` (its verbs context's
    /// lock: [`VerbsContext::lock`]) lives; valid while this value (or a clone)
    /// lives.
    pub fn as_ptr(&self, guard: &VerbsGuard<'_>) -> *mut sys::doca_verbs_cq {
        self.inner.raw.as_ptr(guard)
    }

    /// Destroys the CQ now (`doca_verbs_cq_destroy`, EXPERIMENTAL), reporting what `Drop`
    /// could only log; [`Error::InUse`](crate::Error::InUse) while clones or users are alive.
    pub fn destroy(self) -> Result<()> {
        destroy_sole(self.inner, "doca_verbs_cq_destroy", CqInner::teardown)
    }
}
