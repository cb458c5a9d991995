//! How every DPA Comms object is owned: its DOCA object (an `Owned` handle in the
//! family's lock domain, reached under the family's guard: [`Dpa::with_ctx`]), the
//! DPA context whose family it belongs to, and what it uses, which it must
//! outlive. Held in a [`Member`] of the family, so that a drop by a thread that
//! holds the family's lock while an RPC of the family runs is handed to the
//! family instead of waiting there.

use std::sync::Arc;

use doca_dpa::core::{Owned, Stoppable};
use doca_dpa::{Dpa, FamilyMember, Keep, KeepAlive, Member, Result};

use crate::StopError;

/// A DOCA object of kind `K` made on `dpa`'s family, and `uses`, what it uses.
pub(crate) struct Part<K: Stoppable, U: Clone + Send + Sync + 'static> {
    pub(crate) raw: Owned<K>,
    pub(crate) dpa: Dpa,
    /// Released only after the object was stopped and destroyed; a clone is buried
    /// with it when it could not be stopped.
    pub(crate) uses: U,
    buried: bool,
}

/// A shared [`Part`]: what the public types hold, and what a launch, DPA thread or
/// DPA struct keeps alive.
pub(crate) type Shared<K, U> = Arc<Member<Part<K, U>>>;

impl<K: Stoppable, U: Clone + Send + Sync + 'static> Part<K, U> {
    pub(crate) fn new(raw: Owned<K>, dpa: &Dpa, uses: U) -> Member<Part<K, U>> {
        Member::new(Part {
            raw,
            dpa: dpa.clone(),
            uses,
            buried: false,
        })
    }

    /// What the object uses.
    pub(crate) fn uses(&self) -> &U {
        &self.uses
    }

    /// Makes the DOCA calls of `f` on the object at its DPA context family's guard (a
    /// builder's setters).
    pub(crate) fn call(&self, f: impl FnOnce(*mut K::Raw) -> Result<()>) -> Result<()> {
        self.dpa.with_ctx(|_, g| f(self.raw.as_ptr(g)))
    }

    /// Stops the object if it was started and destroys it, under its DPA context
    /// family's guard. When it cannot be stopped it may still run: what it uses, and its DPA
    /// context, are buried with it (leaked, never freed). Quiet: the caller reports.
    pub(crate) fn teardown(&mut self) -> Result<()> {
        let outcome = self.raw.teardown();
        if !outcome.stopped() && !self.buried {
            self.buried = true;
            doca_dpa::core::bury((self.uses.clone(), self.dpa.clone()));
        }
        outcome.into_result()
    }
}

impl<K: Stoppable, U: Clone + Send + Sync + 'static> FamilyMember for Part<K, U> {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl<K: Stoppable, U: Clone + Send + Sync + 'static> Drop for Part<K, U> {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            tracing::warn!(
                target: "doca_comch",
                error = %e,
                "tearing a DPA Comms object down during drop failed (it and what it uses are \
                 leaked unless it was destroyed)"
            );
        }
    }
}

/// Takes the only reference to `shared` and tears its object down (`call`, the first
/// DOCA call it makes, names a refusal); while anything else holds it, an
/// [`InUse`](doca_dpa::Error::InUse) error with the object back (`back` rebuilds
/// it from `shared`).
pub(crate) fn stop_shared<K: Stoppable, U: Clone + Send + Sync + 'static, T>(
    shared: Shared<K, U>,
    call: &'static str,
    back: impl FnOnce(Shared<K, U>) -> T,
) -> std::result::Result<(), StopError<T>> {
    let mut part = doca_dpa::core::sole(shared, call)
        .map_err(|(e, shared)| StopError::new(e, Some(back(shared))))?;
    part.teardown().map_err(|e| StopError::new(e, None))
}

/// The DPA handle `handle` of `shared`'s object as a kernel argument: refused for
/// values going to another DPA context (`what` names the object), and the object
/// kept alive by the record.
pub(crate) fn lower<K: Stoppable, U: Clone + Send + Sync + 'static>(
    shared: &Shared<K, U>,
    handle: u64,
    keep: &mut Keep<'_>,
    what: &'static str,
) -> Result<u64> {
    keep.check_context(&shared.dpa, what)?;
    keep.keep(KeepAlive::new(shared));
    Ok(handle)
}
