//! Async ops: a DPA-side queue of asynchronous operations whose completions
//! land on a DPA completion context.

use std::sync::Arc;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg};
use crate::completion::Completion;
use crate::core::Owned;
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::family::{FamilyMember, Member};
use crate::keep::{Keep, KeepAlive};

crate::__doca_object!(
    /// `doca_dpa_async_ops`.
    RawAsyncOps: doca_dpa_sys::doca_dpa_async_ops,
    destroy doca_dpa_async_ops_destroy,
    stop doca_dpa_async_ops_stop
);

/// Started async ops, attached to a started [`Completion`] (which they keep
/// alive). Made by [`AsyncOps::new`]: `doca_dpa_async_ops_create`,
/// `_attach`, `_start`, `_get_dpa_handle` (EXPERIMENTAL); stopped and
/// destroyed on drop.
pub struct AsyncOps {
    inner: Arc<Member<AsyncOpsInner>>,
}

struct AsyncOpsInner {
    raw: Owned<RawAsyncOps>,
    handle: u64,
    queue_size: u32,
    user_data: u64,
    _dpa: Dpa,
    // Held, so the completion outlives the async ops attached to it.
    _completion: Completion,
}

impl std::fmt::Debug for AsyncOps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncOps")
            .field("queue_size", &self.inner.queue_size)
            .field("user_data", &self.inner.user_data)
            .finish()
    }
}

impl AsyncOps {
    /// Creates async ops with a queue of at least `queue_size` entries (DOCA
    /// rounds up to a power of two), attaches them to `completion` and starts
    /// them. The completion must outlive them (a borrow).
    pub fn new(
        dpa: &Dpa,
        queue_size: u32,
        user_data: u64,
        completion: &Completion,
    ) -> Result<AsyncOps> {
        if queue_size == 0 {
            return Err(Error::invalid("doca_dpa_async_ops_create", "queue size 0"));
        }
        if !completion.dpa().same_context(dpa) {
            return Err(Error::invalid(
                "doca_dpa_async_ops_attach",
                format!(
                    "the completion is of DPA context #{}, the async ops of DPA context #{}",
                    completion.dpa().serial(),
                    dpa.serial()
                ),
            ));
        }
        // The user data travels in completion elements, which hold 24 bits.
        if user_data >= 1 << sys::DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA {
            return Err(Error::invalid(
                "doca_dpa_async_ops_create",
                format!(
                    "user data {user_data:#x} does not fit the 24 bits of a completion element"
                ),
            ));
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context, under its family's guard; valid out-pointer.
        dpa.or_fatal(dpa.with_ctx(|ctx, _| unsafe {
            doca_call!(doca_dpa_async_ops_create(
                ctx, queue_size, user_data, &mut raw
            ))
        }))?;
        let mut ops = Member::new(AsyncOpsInner {
            // SAFETY: what doca_dpa_async_ops_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its context's family.
            raw: unsafe { Owned::new("doca_dpa_async_ops_create", raw, dpa.domain()) }?,
            handle: 0,
            queue_size: 0,
            user_data,
            _dpa: dpa.clone(),
            _completion: completion.clone(),
        });
        let mut size = 0;
        dpa.with_ctx(|_, g| {
            let p = ops.raw.as_ptr(g);
            // SAFETY: our unstarted async ops and a started completion of the same
            // context (checked above), which they hold for their life; under their
            // family's guard.
            unsafe { doca_call!(doca_dpa_async_ops_attach(p, completion.as_ptr(g))) }?;
            // SAFETY: as above: our unstarted async ops and a started completion.
            unsafe { doca_call!(doca_dpa_async_ops_start(p)) }?;
            ops.raw.set_started();
            // SAFETY: started; valid out-pointers.
            unsafe { doca_call!(doca_dpa_async_ops_get_queue_size(p, &mut size)) }?;
            // SAFETY: as above: started; valid out-pointers.
            unsafe { doca_call!(doca_dpa_async_ops_get_dpa_handle(p, &mut ops.handle)) }
        })?;
        ops.queue_size = size as u32;
        Ok(AsyncOps {
            inner: Arc::new(ops),
        })
    }

    /// The queue size after rounding (`doca_dpa_async_ops_get_queue_size`).
    pub fn queue_size(&self) -> u32 {
        self.inner.queue_size
    }

    /// The user data given at creation.
    pub fn user_data(&self) -> u64 {
        self.inner.user_data
    }
}

// SAFETY: the async ops' DPA handle, of the context the values go to (checked); the
// keep record holds them (and so their
// completion).
unsafe impl KernelArg<param::AsyncOps> for AsyncOps {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&self.inner._dpa, "the async ops")?;
        keep.keep(KeepAlive::new(&self.inner));
        Ok(self.inner.handle)
    }
}

impl FamilyMember for AsyncOpsInner {
    fn family_of(&self) -> &Dpa {
        &self._dpa
    }
}

impl Drop for AsyncOpsInner {
    fn drop(&mut self) {
        let outcome = self._dpa.teardown_child(&mut self.raw);
        if !outcome.stopped() {
            // They may still complete into their completion: never release it.
            crate::keep::bury(self._completion.clone());
        }
        outcome.report();
    }
}
