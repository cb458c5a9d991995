//! Completion queues (`struct doca_verbs_cq`) and their attributes.

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{Anytime, Domain, Outcome, Owned};
use doca_dpa::{KeepAlive, Result};
use doca_verbs_sys as sys;

use crate::context::{destroy_sole, VerbsContext, VerbsGuard};
use crate::error::{invalid, verbs_call};

doca_dpa::__doca_object!(
    /// `doca_verbs_cq`.
    RawCq: doca_verbs_sys::doca_verbs_cq,
    destroy doca_verbs_cq_destroy
);

doca_dpa::__doca_object!(
    /// `doca_verbs_cq_attr`, owned while a CQ is being created.
    RawCqAttr: doca_verbs_sys::doca_verbs_cq_attr,
    destroy doca_verbs_cq_attr_destroy
);

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
        unsafe { verbs_call!(doca_verbs_cq_attr_create(&mut raw)) }?;
        // SAFETY: what doca_verbs_cq_attr_create just returned: NULL or a new object that
        // nothing else owns, handed over here, in the verbs context's domain
        // (`held` is its lock).
        let a =
            unsafe { Owned::<RawCqAttr, Anytime>::new("doca_verbs_cq_attr_create", raw, domain) }?;
        let p = a.as_ptr(held);
        // SAFETY: `p` is our live attribute object.
        unsafe { verbs_call!(doca_verbs_cq_attr_set_cq_size(p, attrs.size as _)) }?;
        #[cfg(doca_sym = "doca_verbs_cq_attr_set_entry_size")]
        if let Some(size) = attrs.entry_size {
            let raw = match size {
                CqEntrySize::Bytes64 => sys::DOCA_VERBS_CQ_ENTRY_SIZE_64,
                CqEntrySize::Bytes128 => sys::DOCA_VERBS_CQ_ENTRY_SIZE_128,
            };
            // SAFETY: `p` is our live attribute object.
            unsafe { verbs_call!(doca_verbs_cq_attr_set_entry_size(p, raw as _)) }?;
        }
        #[cfg(doca_sym = "doca_verbs_cq_attr_set_cq_overrun")]
        if let Some(overrun) = attrs.overrun {
            // SAFETY: `p` is our live attribute object.
            unsafe { verbs_call!(doca_verbs_cq_attr_set_cq_overrun(p, u8::from(overrun) as _)) }?;
        }
        #[cfg(doca_sym = "doca_verbs_cq_attr_set_dpa_thread_id")]
        if let Some(bound) = &attrs.dpa_thread {
            // SAFETY: `p` is our live attribute object; the thread stays alive
            // as long as the CQ (its KeepAlive is in the CQ's attributes).
            unsafe { verbs_call!(doca_verbs_cq_attr_set_dpa_thread_id(p, bound.id as _)) }?;
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

/// A verbs completion queue (`struct doca_verbs_cq`): a completion source the
/// host reads (doca-rdmi's `CompletionSource::Cq`), or one bound to a DPA thread.
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
                verbs_call!(doca_verbs_cq_create(
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
