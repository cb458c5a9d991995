//! Waiting without burning a core: a progress engine (`doca_pe`) that completion
//! events are connected to, wait tasks on those events (`wait_task.rs`), and the
//! engine's notification handle (a file descriptor on Linux), which a [`Reactor`]
//! watches for futures (`reactor.rs`).
//!
//! An event made with an [`Engine`] is driven as a DOCA context
//! (`doca_sync_event_as_ctx`) and owns one wait-not-equal task
//! (`doca_sync_event_task_wait_neq`), allocated once and re-armed with the last
//! value seen after every completion: a counter that passes a target between two
//! looks is never missed (a wait-equal task would be), and nothing is allocated per
//! wait. The engine's handle becomes readable when an armed task can complete;
//! then `doca_pe_progress` runs the task's callback.
//!
//! Two ways to wait on it:
//! - blocking: [`Launch::wait`](crate::Launch::wait) and
//!   [`CompletionEvent::wait_gt`](crate::CompletionEvent::wait_gt) sleep in
//!   `poll(2)` on the handle instead of spinning;
//! - async: [`Launch::completion`](crate::Launch::completion),
//!   [`Launcher::all_completed`](crate::Launcher::all_completed) and
//!   [`CompletionEvent::reached`](crate::CompletionEvent::reached) are `Future`s.
//!   They need a [`Reactor`] to watch the handle: the `tokio` feature provides
//!   one (used automatically inside a tokio runtime), any other runtime can
//!   implement the trait.
//!
//! Everything here is `Send + Sync`: the futures can be awaited from any task of
//! a multi-threaded runtime (`tokio::spawn`). An engine is outside any DPA
//! context family (events of several families may be connected to it): it is a
//! lock domain of its own, and its calls — and those on the contexts and wait
//! tasks of the events connected to it, which its progress drives — are made
//! under its lock (`docs/concurrency.md`); the handle is registered with the
//! runtime of the task that polls it, and again when a task of another runtime
//! polls it.
//!
//! A kernel that crashes never completes its launch, and no notification says
//! so: each poll checks the context's health, but bound an await with your
//! runtime's timeout; [`Launch::wait`](crate::Launch::wait) then diagnoses it.
//!
//! On hardware this relies on the PE contract as the facts state it: once armed
//! with `doca_pe_request_notification`, the handle becomes readable when a task of
//! a connected context can complete. The software DPA models exactly that; it has
//! not yet been observed on a BlueField by this project's CI. Were the handle to
//! stay silent there, the blocking waits would still finish (they sleep in 10 ms
//! slices and look at the value between them), but a future would wake only when
//! something else polls it: bound awaits with a timeout until the BlueField CI
//! recipe (`ci/bluefield/`) has run `tests/async_wait.rs` on the device.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use doca_dpa_sys as sys;

use crate::core::{Anytime, Domain, Kind, Owned};
use crate::error::{doca_call, Error, Result};
use crate::reactor::{default_watcher, Broadcast, Reactor, Watcher};

crate::__doca_object!(
    /// `doca_pe`.
    RawPe: doca_dpa_sys::doca_pe,
    destroy doca_pe_destroy
);

/// The engine: destroyed (its handle's `Drop`) after the reactor's registration of
/// its handle went (`Drop` below) and after every event connected to it (they hold
/// this).
pub(crate) struct EngineInner {
    /// The engine, in its own lock domain.
    pe: Owned<RawPe, Anytime>,
    fd: std::os::fd::RawFd,
    /// Shared so that a poll can call the reactor with no borrow held (a reactor or
    /// a waker may poll another future of this engine, or set a reactor, inside).
    reactor: Mutex<Option<Arc<Watcher>>>,
    broadcast: Arc<Broadcast>,
    broadcast_waker: Waker,
}

impl Drop for EngineInner {
    fn drop(&mut self) {
        // The reactor's registration of the handle goes before the handle does.
        drop(
            self.reactor
                .get_mut()
                .unwrap_or_else(|p| p.into_inner())
                .take(),
        );
    }
}

/// A DOCA progress engine (`doca_pe`) for awaiting launches and events. Cheap to
/// clone; destroyed (`doca_pe_destroy`) once every event connected to it is gone.
#[derive(Clone)]
pub struct Engine {
    pub(crate) inner: Arc<EngineInner>,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("fd", &self.inner.fd)
            .finish_non_exhaustive()
    }
}

impl EngineInner {
    /// The reactor slot. Never held while the reactor (user code) runs or is
    /// dropped: callers clone or take the `Arc` out first.
    fn reactor(&self) -> MutexGuard<'_, Option<Arc<Watcher>>> {
        self.reactor.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why the installed DOCA cannot serve an engine.
pub(crate) fn unavailable(reason: impl Into<String>) -> Error {
    Error::Unavailable {
        what: "waiting on a progress engine",
        reason: reason.into(),
    }
}

impl Engine {
    /// Creates a progress engine (`doca_pe_create`, `doca_pe_get_notification_handle`).
    ///
    /// Fails with [`Error::Unavailable`] when this build of DOCA lacks progress
    /// engines or sync-event wait tasks (the blocking waits still work without one).
    pub fn new() -> Result<Engine> {
        Engine::create()
    }

    #[cfg(doca_dpa_wait_tasks)]
    fn create() -> Result<Engine> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { doca_call!(doca_pe_create(&mut raw)) }?;
        let broadcast = Arc::new(Broadcast::new());
        let domain = Domain::new(Kind::Engine);
        let mut inner = EngineInner {
            // SAFETY: what doca_pe_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its own domain.
            pe: unsafe { Owned::new("doca_pe_create", raw, &domain) }?,
            fd: -1,
            reactor: Mutex::new(None),
            broadcast_waker: Waker::from(broadcast.clone()),
            broadcast,
        };
        let mut fd = -1;
        inner.pe.raw().with(|pe, _| {
            // SAFETY: our engine, under its lock; valid out-pointer. On failure
            // `inner` destroys it.
            unsafe { doca_call!(doca_pe_get_notification_handle(pe, &mut fd)) }
        })??;
        inner.fd = fd;
        Ok(Engine {
            inner: Arc::new(inner),
        })
    }

    #[cfg(not(doca_dpa_wait_tasks))]
    fn create() -> Result<Engine> {
        Err(unavailable(
            "this build of DOCA lacks a progress-engine or sync-event task function \
             (see doca_dpa::build_info::SYMBOLS)",
        ))
    }

    /// Uses `reactor` to watch the notification handle for futures (instead of the
    /// `tokio` feature's, or where there is none).
    ///
    /// Futures already waiting are woken, so that they register with it.
    pub fn set_reactor(&self, reactor: impl Reactor) {
        let old = self.inner.reactor().take();
        // The old registration goes first (dropped with the lock released: it is
        // user code).
        drop(old);
        let new = Some(Arc::new(Watcher::Set(Box::new(reactor))));
        let replaced = std::mem::replace(&mut *self.inner.reactor(), new);
        drop(replaced);
        self.wake_waiting();
    }

    /// Wakes every future waiting on this engine: each looks at its event again
    /// and registers anew. Needed wherever a notification is consumed, or the
    /// watcher replaced, outside the reactor that the futures registered with.
    fn wake_waiting(&self) {
        self.inner.broadcast_waker.wake_by_ref();
    }

    /// Completes what is due: runs the callbacks of tasks that can complete
    /// (`doca_pe_progress`). Whether anything progressed; if so, the futures
    /// waiting on this engine are woken to look at their events.
    pub fn progress(&self) -> bool {
        let progressed = self.progress_quietly();
        if progressed {
            self.wake_waiting();
        }
        progressed
    }

    /// `doca_pe_progress`, waking no one: for a blocking wait, which looks at its
    /// event right after (and whose sleep is bounded), and for a future's poll,
    /// which wakes the others itself.
    fn progress_quietly(&self) -> bool {
        // SAFETY: our engine, under its lock (the callbacks it runs set an
        // atomic flag: no user code).
        let progressed = (self.inner.pe.raw()).with(|pe, _| unsafe { sys::doca_pe_progress(pe) });
        progressed.is_ok_and(|n| n != 0)
    }

    /// The engine's lock domain: that of the contexts and tasks connected to it.
    pub(crate) fn domain(&self) -> &Domain {
        self.inner.pe.domain()
    }

    /// The engine, for DOCA calls made while `held` (of its domain) lives.
    pub(crate) fn as_ptr(&self, held: &crate::core::Held<'_>) -> *mut sys::doca_pe {
        self.inner.pe.as_ptr(held)
    }

    /// Arms the handle (`doca_pe_request_notification`).
    fn request_notification(&self) -> Result<()> {
        self.inner.pe.raw().with(|pe, _| {
            // SAFETY: our engine, under its lock.
            unsafe { doca_call!(doca_pe_request_notification(pe)) }
        })?
    }

    /// Consumes a notification (`doca_pe_clear_notification`).
    fn clear_notification(&self) {
        let fd = self.inner.fd;
        // SAFETY: our engine, under its lock, and its own handle.
        let cleared = (self.inner.pe.raw())
            .with(|pe, _| unsafe { doca_call!(doca_pe_clear_notification(pe, fd)) })
            .and_then(|r| r);
        if let Err(e) = cleared {
            tracing::warn!(target: "doca_dpa::engine", error = %e, "doca_pe_clear_notification failed");
        }
    }

    /// Sleeps in `poll(2)` until the armed handle is readable or `timeout` passed,
    /// then consumes the notification and progresses. A notification consumed
    /// here is one the futures' reactor will not see: they are woken.
    pub(crate) fn sleep(&self, timeout: Duration) -> Result<()> {
        self.request_notification()?;
        let mut pfd = libc::pollfd {
            fd: self.inner.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
        // SAFETY: one valid pollfd for the duration of the call.
        let n = unsafe { libc::poll(&mut pfd, 1, ms) };
        if n > 0 {
            self.clear_notification();
        }
        if self.progress_quietly() || n > 0 {
            self.wake_waiting();
        }
        Ok(())
    }

    /// One step of a future waiting on events of this engine: progress, then
    /// `look`, which either finishes (`Some`) or arms the wait tasks of every event
    /// whose change it needs to see (`None`); then register `cx`.
    pub(crate) fn poll_until<T>(
        &self,
        cx: &Context<'_>,
        mut look: impl FnMut() -> Result<Option<T>>,
    ) -> Poll<Result<T>> {
        // Registered before the look, and every future but this one woken when
        // this poll's progress completes a task: futures of one event share its
        // wait task (`Waiter::arm` leaves one in flight alone), so the task this
        // future's look relies on may be one another future armed, completed
        // here or on another thread by any future's poll. Each such completion
        // wakes the registered futures, which look again and re-arm; with the
        // progress quiet, a future that found the task in flight and then saw it
        // completed elsewhere was never woken (tasks on a multi-threaded runtime
        // sharing a launcher hung).
        self.inner.broadcast.register(cx.waker());
        let mut retried = false;
        loop {
            if self.progress_quietly() {
                self.inner.broadcast.wake_except(cx.waker());
            }
            match look() {
                Ok(Some(t)) => return Poll::Ready(Ok(t)),
                Ok(None) => {}
                Err(e) => return Poll::Ready(Err(e)),
            }
            match self.poll_readable(cx) {
                // Readiness may be spurious (any readiness API allows it): look
                // once more, then let the executor run others before the next.
                Ok(true) if !retried => retried = true,
                Ok(true) => {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                Ok(false) => return Poll::Pending,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }

    /// Registers `cx` to be woken when the handle becomes readable; whether it
    /// already is (then the caller looks again at once).
    fn poll_readable(&self, cx: &Context<'_>) -> Result<bool> {
        self.inner.broadcast.register(cx.waker());
        self.request_notification()?;
        let current = self.inner.reactor().clone();
        let watcher = match current {
            Some(w) if w.serves_this_runtime() => w,
            stale => {
                drop(stale);
                // Looked at again and replaced in one step, under the slot's lock:
                // first polls of one engine on several threads of a runtime must
                // not each register the handle (tokio refuses a second
                // registration) nor overwrite each other's watcher. Registering
                // runs no user code; what it replaces (a registration with another
                // runtime) is dropped, and a refusal reported, once the lock is
                // released.
                let (installed, old, refused) = {
                    let mut slot = self.inner.reactor();
                    match &*slot {
                        Some(w) if w.serves_this_runtime() => (Some(w.clone()), None, None),
                        _ => {
                            let old = slot.take();
                            match default_watcher(self.inner.fd) {
                                Some(Ok(w)) => {
                                    let w = Arc::new(w);
                                    *slot = Some(w.clone());
                                    (Some(w), old, None)
                                }
                                Some(Err(e)) => (None, old, Some(e)),
                                None => (None, old, None),
                            }
                        }
                    }
                };
                // The futures that registered through the old one are woken to
                // register again.
                if old.is_some() {
                    drop(old);
                    self.wake_waiting();
                }
                if let Some(e) = &refused {
                    tracing::warn!(target: "doca_dpa::engine", error = %e, "tokio refused to watch the engine's notification handle");
                }
                installed.ok_or_else(|| {
                    unavailable(
                        "no reactor watches the engine: await inside a tokio runtime with \
                         the `tokio` feature, or give one with Engine::set_reactor",
                    )
                })?
            }
        };
        let mut bcx = Context::from_waker(&self.inner.broadcast_waker);
        let drain = || self.clear_notification();
        match watcher
            .reactor()
            .poll_readable(self.inner.fd, &mut bcx, &drain)
        {
            Poll::Ready(Ok(())) => Ok(true),
            Poll::Ready(Err(e)) => Err(unavailable(format!(
                "watching the notification handle failed: {e}"
            ))),
            Poll::Pending => Ok(false),
        }
    }
}
