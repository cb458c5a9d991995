//! Protection domains (`struct doca_verbs_pd`).

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{Anytime, Owned};
use doca_dpa::Result;
use doca_verbs_sys as sys;

use crate::context::{destroy_sole, VerbsContext, VerbsGuard};
use crate::error::verbs_call;

doca_dpa::__doca_object!(
    /// `doca_verbs_pd`.
    RawPd: doca_verbs_sys::doca_verbs_pd,
    destroy doca_verbs_pd_destroy
);

/// Destroyed (its handle's `Drop`) once every user, which holds an `Arc` of this,
/// is gone, and before its verbs context (a later field).
struct PdInner {
    /// In its verbs context's domain.
    raw: Owned<RawPd, Anytime>,
    context: VerbsContext,
}

/// A protection domain (`struct doca_verbs_pd`). Objects that work together
/// (a QP and the memory it reaches; RDMI connections and posters) must use the
/// same one (DOCA answers INVALID_VALUE otherwise).
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
            unsafe { verbs_call!(doca_verbs_pd_create(context.as_ptr(&held), &mut raw)) }?;
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
