//! User access regions on the DPA (`struct doca_uar`, made by
//! `doca_uar_dpa_create`): the doorbell page through which a DPA Verbs kernel
//! rings a queue pair it posts on. DOCA 3.2+.

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{Outcome, Owned};
use doca_dpa::{Dpa, FamilyMember, Member, Result};

use crate::error::verbs_call;

doca_dpa::__doca_object!(
    /// `doca_uar`.
    RawUar: doca_verbs_sys::doca_uar,
    destroy doca_uar_destroy
);

/// Destroyed (its handle's `Drop`) once every queue pair made with it, which
/// holds an `Arc` of this, is gone.
pub(crate) struct UarInner {
    /// In its DPA context's family.
    raw: Owned<RawUar>,
    pub(crate) dpa: Dpa,
}

impl UarInner {
    /// The raw `doca_uar`, for calls made while `guard` (of its DPA context's family)
    /// lives.
    pub(crate) fn as_ptr(
        &self,
        guard: &doca_dpa::FamilyGuard<'_>,
    ) -> *mut doca_verbs_sys::doca_uar {
        self.raw.as_ptr(guard)
    }
}

impl FamilyMember for UarInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for UarInner {
    fn drop(&mut self) {
        let outcome = self.raw.teardown();
        if !matches!(outcome, Outcome::Done | Outcome::Left) {
            // The region stays mapped for the device: its DPA context too.
            doca_dpa::core::bury(self.dpa.clone());
        }
        outcome.report();
    }
}

/// A user access region of a DPA context (`doca_uar_dpa_create`, EXPERIMENTAL):
/// what a queue pair on the DPA datapath rings its doorbell through
/// ([`QpBuilder::new`](crate::QpBuilder::new) takes one; several queue pairs may
/// share it).
///
/// Cheap to clone; destroyed (`doca_uar_destroy`) at its DPA context family's
/// guard when the last clone and every queue pair made with it are gone. Keeps
/// its DPA context alive.
#[derive(Clone)]
pub struct DpaUar {
    pub(crate) inner: Arc<Member<UarInner>>,
}

impl fmt::Debug for DpaUar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaUar")
            .field("dpa", &self.inner.dpa.serial())
            .finish_non_exhaustive()
    }
}

impl DpaUar {
    /// Creates a user access region for `dpa` (`doca_uar_dpa_create`, EXPERIMENTAL,
    /// at the DPA context family's guard).
    pub fn new(dpa: &Dpa) -> Result<DpaUar> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started DPA context, under its family's guard; valid out-pointer.
        dpa.with_ctx(|ctx, _| unsafe { verbs_call!(doca_uar_dpa_create(ctx.cast(), &mut raw)) })?;
        Ok(DpaUar {
            inner: Arc::new(Member::new(UarInner {
                // SAFETY: what doca_uar_dpa_create just returned: NULL or a new object
                // that nothing else owns, handed over here, in its DPA context's family.
                raw: unsafe { Owned::new("doca_uar_dpa_create", raw, dpa.domain()) }?,
                dpa: dpa.clone(),
            })),
        })
    }

    /// The DPA context it was made for.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }

    /// Whether `self` and `other` are the same region.
    pub fn same_as(&self, other: &DpaUar) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
