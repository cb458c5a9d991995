//! Async ops: a DPA-side queue of asynchronous operations whose completions
//! land on a DPA completion context.

use std::ptr::NonNull;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg};
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::thread::Completion;

/// The DPA handle of async ops (`doca_dpa_dev_async_ops_t`), borrowed from
/// them.
#[derive(Debug, Clone, Copy)]
pub struct AsyncOpsHandle<'a> {
    raw: u64,
    _owner: std::marker::PhantomData<&'a ()>,
}

impl AsyncOpsHandle<'_> {
    /// The raw handle value.
    pub fn raw(&self) -> u64 {
        self.raw
    }
}

impl<'a> KernelArg<'a, param::AsyncOps> for AsyncOpsHandle<'a> {
    fn to_abi(&self) -> u64 {
        self.raw
    }
}

/// Started async ops, attached to a started [`Completion`] (which they keep
/// alive). Made by [`AsyncOps::new`]: `doca_dpa_async_ops_create`,
/// `_attach`, `_start`, `_get_dpa_handle` (EXPERIMENTAL); stopped and
/// destroyed on drop.
pub struct AsyncOps<'c> {
    ptr: NonNull<sys::doca_dpa_async_ops>,
    started: bool,
    handle: u64,
    queue_size: u32,
    user_data: u64,
    _dpa: Dpa,
    _completion: std::marker::PhantomData<&'c Completion>,
}

impl std::fmt::Debug for AsyncOps<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncOps")
            .field("queue_size", &self.queue_size)
            .field("user_data", &self.user_data)
            .finish()
    }
}

impl<'c> AsyncOps<'c> {
    /// Creates async ops with a queue of at least `queue_size` entries (DOCA
    /// rounds up to a power of two), attaches them to `completion` and starts
    /// them. The completion must outlive them (a borrow).
    pub fn new(
        dpa: &Dpa,
        queue_size: u32,
        user_data: u64,
        completion: &'c Completion,
    ) -> Result<AsyncOps<'c>> {
        if queue_size == 0 {
            return Err(Error::invalid("doca_dpa_async_ops_create", "queue size 0"));
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
        // SAFETY: a started context; valid out-pointer.
        doca_call!(doca_dpa_async_ops_create(
            dpa.as_ptr(),
            queue_size,
            user_data,
            &mut raw
        ))?;
        let ptr = NonNull::new(raw)
            .ok_or_else(|| Error::invalid("doca_dpa_async_ops_create", "DOCA returned NULL"))?;
        let mut ops = AsyncOps {
            ptr,
            started: false,
            handle: 0,
            queue_size: 0,
            user_data,
            _dpa: dpa.clone(),
            _completion: std::marker::PhantomData,
        };
        let p = ops.ptr.as_ptr();
        // SAFETY: our unstarted async ops and a started completion.
        doca_call!(doca_dpa_async_ops_attach(p, completion.as_ptr()))?;
        doca_call!(doca_dpa_async_ops_start(p))?;
        ops.started = true;
        let mut size = 0;
        // SAFETY: started; valid out-pointers.
        doca_call!(doca_dpa_async_ops_get_queue_size(p, &mut size))?;
        doca_call!(doca_dpa_async_ops_get_dpa_handle(p, &mut ops.handle))?;
        ops.queue_size = size as u32;
        Ok(ops)
    }

    /// The handle to pass to kernels.
    pub fn handle(&self) -> AsyncOpsHandle<'_> {
        AsyncOpsHandle {
            raw: self.handle,
            _owner: std::marker::PhantomData,
        }
    }

    /// The queue size after rounding (`doca_dpa_async_ops_get_queue_size`).
    pub fn queue_size(&self) -> u32 {
        self.queue_size
    }

    /// The user data given at creation.
    pub fn user_data(&self) -> u64 {
        self.user_data
    }
}

impl Drop for AsyncOps<'_> {
    fn drop(&mut self) {
        let p = self.ptr.as_ptr();
        if self.started {
            // SAFETY: our started async ops, stopped once.
            if let Err(e) = doca_call!(doca_dpa_async_ops_stop(p)) {
                tracing::warn!(target: "doca_dpa::async_ops", error = %e, "doca_dpa_async_ops_stop failed during drop");
            }
        }
        // SAFETY: our async ops, destroyed once.
        if let Err(e) = doca_call!(doca_dpa_async_ops_destroy(p)) {
            tracing::warn!(target: "doca_dpa::async_ops", error = %e, "doca_dpa_async_ops_destroy failed during drop");
        }
    }
}
