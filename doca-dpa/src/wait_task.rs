//! The sync-event wait task (`doca_sync_event_task_wait_neq`): what makes an event
//! awaitable on an [`Engine`]. The event is driven as a DOCA context
//! (`doca_sync_event_as_ctx`, the core layer's [`Ctx`]) connected to the engine,
//! with one wait-not-equal task, allocated once and re-armed with the last value
//! seen (see `engine.rs`).
//!
//! The context and the task are the engine's (its progress drives them): their
//! calls are made under the engine's lock. The calls that name the event itself
//! (configuring the task, allocating it) are made under the event's family's lock
//! too, taken first (lock order: family, then engine).

use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use doca_dpa_sys as sys;

use crate::core::{Anytime, Raw};
#[cfg(doca_dpa_wait_tasks)]
use crate::core::{Ctx, OnQueryError};
use crate::dpa::Dpa;
use crate::engine::{unavailable, Engine};
use crate::error::{doca_call, Error, Result};

/// The flag a wait task's callback clears; boxed so its address, given to DOCA as
/// the task's user data, stays put.
struct WaitCell {
    /// Set by the thread that arms the task (a compare-exchange, so one thread
    /// submits it), cleared by its completion callback.
    in_flight: AtomicBool,
}

/// The awaitable side of an event connected to an [`Engine`]: its context and its
/// one wait-not-equal task.
pub(crate) struct Waiter {
    engine: Engine,
    /// The event's context (absent where DOCA lacks the wait tasks: then no
    /// waiter is ever made).
    #[cfg(doca_dpa_wait_tasks)]
    ctx: Ctx,
    /// The task, in the engine's domain.
    task: Option<Raw<sys::doca_sync_event_task_wait_neq, Anytime>>,
    cell: Option<Box<WaitCell>>,
}

impl fmt::Debug for Waiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Waiter")
            .field(
                "in_flight",
                &self
                    .cell
                    .as_ref()
                    .map(|c| c.in_flight.load(Ordering::Relaxed)),
            )
            .finish_non_exhaustive()
    }
}

/// The task callback (completion and error alike): the task is no longer in flight.
#[cfg(doca_dpa_wait_tasks)]
unsafe extern "C" fn task_done(
    _task: *mut sys::doca_sync_event_task_wait_neq,
    task_user_data: sys::doca_data,
    _ctx_user_data: sys::doca_data,
) {
    // SAFETY: the user data is the address of the waiter's boxed cell, which lives
    // until the task was freed after its context stopped (or is leaked).
    let cell = unsafe { &*task_user_data.ptr.cast::<WaitCell>() };
    cell.in_flight.store(false, Ordering::Release);
}

// The waiter's DOCA calls (on its event's context and task) are made under the
// engine's lock (its `Raw`s); the task is armed by one thread at a time (the
// `in_flight` compare-exchange); teardown takes `&mut self`.
static_assertions::assert_impl_all!(Waiter: Send, Sync);

impl Waiter {
    /// Connects the configured, not started event `event` of `dpa` to `engine` and
    /// starts it as a context with one wait task (`doca_sync_event_cap_task_wait_neq_is_supported`,
    /// `doca_sync_event_as_ctx`, `doca_pe_connect_ctx`,
    /// `doca_sync_event_task_wait_neq_set_conf`, `doca_ctx_start`,
    /// `doca_sync_event_task_wait_neq_alloc_init`). Returns the waiter as far as it
    /// got, for the event's teardown, with the error.
    #[cfg(doca_dpa_wait_tasks)]
    pub(crate) fn start(
        event: &Raw<sys::doca_sync_event, Anytime>,
        dpa: &Dpa,
        engine: &Engine,
    ) -> std::result::Result<Waiter, (Option<Box<Waiter>>, Error)> {
        let cap = {
            let device = dpa.device().lock();
            let info = dpa.device().devinfo(&device);
            // SAFETY: a live devinfo, under its device's lock.
            unsafe { doca_call!(doca_sync_event_cap_task_wait_neq_is_supported(info)) }
        };
        if let Err(e) = cap {
            return Err((
                None,
                unavailable(format!(
                    "{} cannot wait on sync events with tasks: {e}",
                    dpa.device().info()
                )),
            ));
        }
        // The event's family first, then the engine (the lock order).
        let family = event.domain().lock();
        let engine_held = engine.domain().lock();
        let e = event.get(&family);
        // SAFETY: our live, idle event, under its family's lock.
        let ctx = unsafe { sys::doca_sync_event_as_ctx(e) };
        // SAFETY: the context of a live object that owns it and outlives the
        // `Ctx` (dropped with the object); connected to the engine below, so its
        // calls are the engine's.
        let ctx = match unsafe { Ctx::new("doca_sync_event_as_ctx", ctx, engine.domain()) } {
            Ok(ctx) => ctx,
            Err(e) => return Err((None, e)),
        };
        let mut w = Waiter {
            engine: engine.clone(),
            ctx,
            task: None,
            cell: None,
        };
        let configured = w.configure(e, &engine_held);
        drop(engine_held);
        drop(family);
        match configured {
            Ok(()) => Ok(w),
            Err(e) => Err((Some(Box::new(w)), e)),
        }
    }

    /// Connects the event's context to the engine, configures and starts it, and
    /// allocates the task: `event` under its family's lock, `held` the engine's.
    #[cfg(doca_dpa_wait_tasks)]
    fn configure(
        &mut self,
        event: *mut sys::doca_sync_event,
        held: &crate::core::Held<'_>,
    ) -> Result<()> {
        // SAFETY: our engine and the event's idle context, under the engine's lock.
        unsafe {
            doca_call!(doca_pe_connect_ctx(
                self.engine.as_ptr(held),
                self.ctx.as_ptr(held)
            ))
        }?;
        let done: sys::doca_sync_event_task_wait_neq_completion_cb_t = Some(task_done);
        // SAFETY: the event's idle context, under the family's lock (the caller's)
        // and the engine's; the callbacks are ours.
        unsafe { doca_call!(doca_sync_event_task_wait_neq_set_conf(event, done, done, 1)) }?;
        self.ctx.start()?;
        let cell = self.cell.insert(Box::new(WaitCell {
            in_flight: AtomicBool::new(false),
        }));
        let user = sys::doca_data {
            ptr: (&**cell as *const WaitCell).cast_mut().cast(),
        };
        let mut task = std::ptr::null_mut();
        // SAFETY: the running context; the user data is the boxed cell, which lives
        // as long as the task; valid out-pointer.
        unsafe {
            doca_call!(doca_sync_event_task_wait_neq_alloc_init(
                event,
                0,
                u64::MAX,
                user,
                &mut task
            ))
        }?;
        let task = NonNull::new(task).ok_or_else(|| {
            Error::invalid(
                "doca_sync_event_task_wait_neq_alloc_init",
                "DOCA returned NULL",
            )
        })?;
        // SAFETY: the new task of the event's context, connected to the engine:
        // its calls are the engine's.
        self.task = Some(unsafe { self.engine.domain().raw(task) });
        Ok(())
    }

    #[cfg(not(doca_dpa_wait_tasks))]
    pub(crate) fn start(
        _event: &Raw<sys::doca_sync_event, Anytime>,
        _dpa: &Dpa,
        _engine: &Engine,
    ) -> std::result::Result<Waiter, (Option<Box<Waiter>>, Error)> {
        Err((
            None,
            unavailable("this build of DOCA lacks the sync-event wait tasks"),
        ))
    }

    /// Makes sure the wait task is in flight, waiting for the value to leave `seen`
    /// (`doca_sync_event_task_wait_neq_set_wait_val`, `doca_task_submit`).
    pub(crate) fn arm(&self, seen: u64) -> Result<()> {
        let (Some(task), Some(cell)) = (self.task.as_ref(), self.cell.as_ref()) else {
            return Err(unavailable("the event's wait task was not allocated"));
        };
        // Only the thread that flips the flag arms the task: two threads polling
        // futures of one event never submit it twice.
        if cell
            .in_flight
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Ok(());
        }
        // SAFETY: our allocated task, not in flight (the flag was clear: its
        // callback ran, or it was never submitted), and only this thread arms it;
        // under the engine's lock; submitted to the running context.
        let submitted = task.with(|task, _| unsafe {
            sys::doca_sync_event_task_wait_neq_set_wait_val(task, seen);
            let t = sys::doca_sync_event_task_wait_neq_as_doca_task(task);
            doca_call!(doca_task_submit(t))
        });
        if let Err(e) = submitted.and_then(|r| r) {
            cell.in_flight.store(false, Ordering::Release);
            return Err(e);
        }
        Ok(())
    }

    /// Waits (blocking, in `poll(2)`) for at most `slice` for the value to leave
    /// `seen`.
    pub(crate) fn sleep(&self, seen: u64, slice: Duration) -> Result<()> {
        self.arm(seen)?;
        self.engine.sleep(slice)
    }

    /// The engine it is connected to.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// One step of a future: progress, look at `value()`, and if `done` does not
    /// accept it, arm the task and register `cx`.
    pub(crate) fn poll_until<T>(
        &self,
        cx: &Context<'_>,
        value: impl Fn() -> Result<u64>,
        mut done: impl FnMut(u64) -> Result<Option<T>>,
    ) -> Poll<Result<T>> {
        self.engine.poll_until(cx, || {
            let v = value()?;
            if let Some(t) = done(v)? {
                return Ok(Some(t));
            }
            self.arm(v)?;
            Ok(None)
        })
    }

    /// Stops the context (`doca_ctx_stop`; when a task is in flight DOCA flushes it
    /// on the next `doca_pe_progress`, which is driven here for a bounded time) and
    /// frees the task (`doca_task_free`). False when the context could not be seen
    /// idle: the event must then not be destroyed, and the cell is leaked, since the
    /// task may still complete into it.
    pub(crate) fn teardown(&mut self) -> bool {
        if !self.stop() {
            if let Some(cell) = self.cell.take() {
                crate::keep::bury(cell);
            }
            return false;
        }
        if let Some(task) = self.task.take() {
            // SAFETY: our task, not in flight (its context is idle), freed once,
            // under the engine's lock.
            let _ = task.with(|task, _| unsafe {
                let t = sys::doca_sync_event_task_wait_neq_as_doca_task(task);
                sys::doca_task_free(t);
            });
        }
        true
    }

    /// The core layer's stop of the context (nothing to do unless it runs), driving
    /// the engine while it drains; a failed state query is asked again until the
    /// time is up, since giving up leaks the event.
    #[cfg(doca_dpa_wait_tasks)]
    fn stop(&self) -> bool {
        let progress = || {
            self.engine.progress();
        };
        match self
            .ctx
            .stop(Duration::from_secs(1), OnQueryError::Retry, progress)
        {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(target: "doca_dpa::engine", error = %e, "a sync event's context did not stop; leaking it");
                false
            }
        }
    }

    /// Without the wait tasks no waiter is made, so no context was started.
    #[cfg(not(doca_dpa_wait_tasks))]
    fn stop(&self) -> bool {
        true
    }
}
