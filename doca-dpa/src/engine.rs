//! Waiting without burning a core: a progress engine (`doca_pe`) that completion
//! events are connected to, wait tasks on those events, and the engine's
//! notification handle (a file descriptor on Linux).
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
//! a multi-threaded runtime (`tokio::spawn`). The engine's DOCA calls are
//! serialised by the DOCA lock (see `doca_dpa::serialized`'s notes, in
//! `error.rs`); the handle is registered with the runtime of the task that polls
//! it, and again when a task of another runtime polls it.
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
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use doca_dpa_sys as sys;

use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};

/// What watches an [`Engine`]'s notification handle for an async runtime.
///
/// `poll_readable` registers `cx`'s waker for readability of `fd` (it is always the
/// same descriptor) and returns `Ready` once it is readable; before clearing the
/// runtime's readiness it must call `drain`, which consumes the notification (so an
/// edge-triggered runtime sees the next one).
///
/// **Safe to implement, and meant to be implemented**: the library relies on
/// nothing a reactor does for soundness, so the trait is neither sealed nor
/// `unsafe`. A reactor that never wakes, wakes too often, panics or never calls
/// `drain` only delays or fails the futures that use it. What it is given cannot
/// be misused from safe code: `fd` is a raw descriptor (closing or replacing it
/// takes `unsafe`); `drain` is borrowed for the one call and is not `Send`, so it
/// runs on the polling thread only, and it is a DOCA call under the DOCA lock; and
/// no lock of the engine is held while the reactor runs or is dropped (a reactor
/// may poll, replace itself or wake futures re-entrantly). What a pending launch
/// uses is kept alive by the launcher, not by the future the reactor wakes.
pub trait Reactor: Send + Sync + 'static {
    /// Polls readability of the engine's notification handle.
    fn poll_readable(
        &self,
        fd: std::os::fd::RawFd,
        cx: &mut Context<'_>,
        drain: &dyn Fn(),
    ) -> Poll<std::io::Result<()>>;
}

/// Wakes every future waiting on an engine when its handle becomes readable: each
/// looks at its own event again.
struct Broadcast {
    wakers: Mutex<Vec<Waker>>,
    spare: Mutex<Vec<Waker>>,
}

impl Broadcast {
    fn register(&self, waker: &Waker) {
        let mut wakers = self.wakers.lock().unwrap_or_else(|p| p.into_inner());
        if !wakers.iter().any(|w| w.will_wake(waker)) {
            wakers.push(waker.clone());
        }
    }

    /// Wakes every registered waker but `keep`, which stays registered (as
    /// `wake_by_ref`: no lock held while they run, no allocation).
    fn wake_except(&self, keep: &Waker) {
        let mut woken = std::mem::take(&mut *self.spare.lock().unwrap_or_else(|p| p.into_inner()));
        std::mem::swap(
            &mut woken,
            &mut *self.wakers.lock().unwrap_or_else(|p| p.into_inner()),
        );
        self.register(keep);
        for w in woken.drain(..) {
            if !w.will_wake(keep) {
                w.wake();
            }
        }
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        if spare.capacity() < woken.capacity() {
            *spare = woken;
        }
    }
}

impl Wake for Broadcast {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // Swap the list with a spare one of kept capacity: no allocation in the
        // steady state, and no lock held while the wakers run (a waker may poll
        // a future of this engine at once, which registers again, or wake the
        // broadcast again: a nested call finds an empty spare and does the same).
        let mut woken = std::mem::take(&mut *self.spare.lock().unwrap_or_else(|p| p.into_inner()));
        std::mem::swap(
            &mut woken,
            &mut *self.wakers.lock().unwrap_or_else(|p| p.into_inner()),
        );
        for w in woken.drain(..) {
            w.wake();
        }
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        if spare.capacity() < woken.capacity() {
            *spare = woken;
        }
    }
}

pub(crate) struct EngineInner {
    pe: NonNull<sys::doca_pe>,
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
        // SAFETY: our engine, destroyed once, after every event connected to it (they
        // hold this inner).
        if let Err(e) = unsafe { doca_call!(doca_pe_destroy(self.pe.as_ptr())) } {
            tracing::warn!(target: "doca_dpa::engine", error = %e, "doca_pe_destroy failed during drop");
        }
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

// SAFETY: the engine's DOCA calls are made under the DOCA lock
// (`crate::error::serialized`); its reactor is behind a mutex and its waker list is
// `Sync`; the notification handle is a plain descriptor.
unsafe impl Send for EngineInner {}
// SAFETY: as for `Send`: every DOCA call on the engine is serialised by the DOCA
// lock, and the rest of its state is behind mutexes.
unsafe impl Sync for EngineInner {}

impl EngineInner {
    /// The reactor slot. Never held while the reactor (user code) runs or is
    /// dropped: callers clone or take the `Arc` out first.
    fn reactor(&self) -> MutexGuard<'_, Option<Arc<Watcher>>> {
        self.reactor.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why the installed DOCA cannot serve an engine.
fn unavailable(reason: impl Into<String>) -> Error {
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
        let pe = NonNull::new(raw)
            .ok_or_else(|| Error::invalid("doca_pe_create", "DOCA returned NULL"))?;
        let broadcast = Arc::new(Broadcast {
            wakers: Mutex::new(Vec::with_capacity(8)),
            spare: Mutex::new(Vec::with_capacity(8)),
        });
        let mut inner = EngineInner {
            pe,
            fd: -1,
            reactor: Mutex::new(None),
            broadcast_waker: Waker::from(broadcast.clone()),
            broadcast,
        };
        // SAFETY: our engine; valid out-pointer. On failure `inner` destroys it.
        unsafe { doca_call!(doca_pe_get_notification_handle(pe.as_ptr(), &mut inner.fd)) }?;
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
        // SAFETY: our engine.
        crate::error::serialized(|| unsafe { sys::doca_pe_progress(self.inner.pe.as_ptr()) != 0 })
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::doca_pe {
        self.inner.pe.as_ptr()
    }

    /// Arms the handle (`doca_pe_request_notification`).
    fn request_notification(&self) -> Result<()> {
        // SAFETY: our engine.
        unsafe { doca_call!(doca_pe_request_notification(self.as_ptr())) }
    }

    /// Consumes a notification (`doca_pe_clear_notification`).
    fn clear_notification(&self) {
        let (pe, fd) = (self.as_ptr(), self.inner.fd);
        // SAFETY: our engine and its own handle.
        let cleared = unsafe { doca_call!(doca_pe_clear_notification(pe, fd)) };
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
                // Deregister from the runtime it was made in before registering
                // with the current one; the futures that registered through the
                // old one are woken to register again.
                let replaced = stale.is_some();
                drop(stale);
                let old = self.inner.reactor().take();
                drop(old);
                let fresh = default_watcher(self.inner.fd).map(Arc::new);
                let raced = std::mem::replace(&mut *self.inner.reactor(), fresh.clone());
                drop(raced);
                if replaced {
                    self.wake_waiting();
                }
                fresh.ok_or_else(|| {
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

/// What watches an engine's handle.
enum Watcher {
    /// Given with [`Engine::set_reactor`]: used for good.
    Set(Box<dyn Reactor>),
    /// The `tokio` feature's, registered with the I/O driver of the runtime that
    /// was current when it was made. An engine awaited later in another runtime
    /// (the first one dropped, or idle while another runs) registers again there:
    /// a registration with a runtime nobody drives would never wake the future.
    #[cfg(feature = "tokio")]
    Tokio(crate::tokio_reactor::TokioReactor),
}

impl Watcher {
    fn reactor(&self) -> &dyn Reactor {
        match self {
            Watcher::Set(r) => r.as_ref(),
            #[cfg(feature = "tokio")]
            Watcher::Tokio(r) => r,
        }
    }

    /// Whether it can wake a future polled now, on this thread.
    fn serves_this_runtime(&self) -> bool {
        match self {
            Watcher::Set(_) => true,
            #[cfg(feature = "tokio")]
            Watcher::Tokio(r) => r.is_current(),
        }
    }
}

/// The watcher used when no reactor was set: tokio's, inside a tokio runtime.
fn default_watcher(fd: std::os::fd::RawFd) -> Option<Watcher> {
    #[cfg(feature = "tokio")]
    {
        crate::tokio_reactor::TokioReactor::current(fd).map(Watcher::Tokio)
    }
    #[cfg(not(feature = "tokio"))]
    {
        let _ = fd;
        None
    }
}

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
    ctx: NonNull<sys::doca_ctx>,
    started: bool,
    task: Option<NonNull<sys::doca_sync_event_task_wait_neq>>,
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

// SAFETY: the waiter's DOCA calls (on its event's context and task) are made under
// the DOCA lock; the task is armed by one thread at a time (the `in_flight`
// compare-exchange); teardown takes `&mut self`.
unsafe impl Send for Waiter {}
// SAFETY: as for `Send`; its shared methods (`arm`, `sleep`, `poll_until`) touch
// only the atomic flag and make DOCA calls under the DOCA lock.
unsafe impl Sync for Waiter {}

impl Waiter {
    /// Connects the configured, not started event `event` of `dpa` to `engine` and
    /// starts it as a context with one wait task (`doca_sync_event_cap_task_wait_neq_is_supported`,
    /// `doca_sync_event_as_ctx`, `doca_pe_connect_ctx`,
    /// `doca_sync_event_task_wait_neq_set_conf`, `doca_ctx_start`,
    /// `doca_sync_event_task_wait_neq_alloc_init`). Returns the waiter as far as it
    /// got, for the event's teardown, with the error.
    #[cfg(doca_dpa_wait_tasks)]
    pub(crate) fn start(
        event: *mut sys::doca_sync_event,
        dpa: &Dpa,
        engine: &Engine,
    ) -> std::result::Result<Waiter, (Option<Waiter>, Error)> {
        // SAFETY: the device's devinfo, valid while the device is open.
        let info =
            crate::error::serialized(|| unsafe { sys::doca_dev_as_devinfo(dpa.device().as_ptr()) });
        // SAFETY: a live devinfo.
        let cap = unsafe { doca_call!(doca_sync_event_cap_task_wait_neq_is_supported(info)) };
        if let Err(e) = cap {
            return Err((
                None,
                unavailable(format!(
                    "{} cannot wait on sync events with tasks: {e}",
                    dpa.device().info()
                )),
            ));
        }
        // SAFETY: our live, idle event.
        let ctx = crate::error::serialized(|| unsafe { sys::doca_sync_event_as_ctx(event) });
        let Some(ctx) = NonNull::new(ctx) else {
            return Err((
                None,
                Error::invalid("doca_sync_event_as_ctx", "DOCA returned no context"),
            ));
        };
        let mut w = Waiter {
            engine: engine.clone(),
            ctx,
            started: false,
            task: None,
            cell: None,
        };
        match w.configure(event) {
            Ok(()) => Ok(w),
            Err(e) => Err((Some(w), e)),
        }
    }

    #[cfg(doca_dpa_wait_tasks)]
    fn configure(&mut self, event: *mut sys::doca_sync_event) -> Result<()> {
        // SAFETY: our engine and the event's idle context.
        unsafe { doca_call!(doca_pe_connect_ctx(self.engine.as_ptr(), self.ctx.as_ptr())) }?;
        let done: sys::doca_sync_event_task_wait_neq_completion_cb_t = Some(task_done);
        // SAFETY: the event's idle context; the callbacks are ours.
        unsafe { doca_call!(doca_sync_event_task_wait_neq_set_conf(event, done, done, 1)) }?;
        // SAFETY: a connected, configured context.
        unsafe { doca_call!(doca_ctx_start(self.ctx.as_ptr())) }?;
        self.started = true;
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
        self.task = Some(NonNull::new(task).ok_or_else(|| {
            Error::invalid(
                "doca_sync_event_task_wait_neq_alloc_init",
                "DOCA returned NULL",
            )
        })?);
        Ok(())
    }

    #[cfg(not(doca_dpa_wait_tasks))]
    pub(crate) fn start(
        _event: *mut sys::doca_sync_event,
        _dpa: &Dpa,
        _engine: &Engine,
    ) -> std::result::Result<Waiter, (Option<Waiter>, Error)> {
        Err((
            None,
            unavailable("this build of DOCA lacks the sync-event wait tasks"),
        ))
    }

    /// Makes sure the wait task is in flight, waiting for the value to leave `seen`
    /// (`doca_sync_event_task_wait_neq_set_wait_val`, `doca_task_submit`).
    pub(crate) fn arm(&self, seen: u64) -> Result<()> {
        let (Some(task), Some(cell)) = (self.task, self.cell.as_ref()) else {
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
        // callback ran, or it was never submitted), and only this thread arms it.
        let t = crate::error::serialized(|| unsafe {
            sys::doca_sync_event_task_wait_neq_set_wait_val(task.as_ptr(), seen);
            sys::doca_sync_event_task_wait_neq_as_doca_task(task.as_ptr())
        });
        // SAFETY: our allocated task, of the running context.
        if let Err(e) = unsafe { doca_call!(doca_task_submit(t)) } {
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
        if self.started {
            if !self.stop() {
                if let Some(cell) = self.cell.take() {
                    crate::keep::bury(cell);
                }
                return false;
            }
            self.started = false;
        }
        if let Some(task) = self.task.take() {
            // SAFETY: our task, not in flight (its context is idle).
            crate::error::serialized(|| unsafe {
                let t = sys::doca_sync_event_task_wait_neq_as_doca_task(task.as_ptr());
                sys::doca_task_free(t);
            });
        }
        true
    }

    #[cfg(doca_dpa_wait_tasks)]
    fn stop(&self) -> bool {
        // SAFETY: our running context.
        match unsafe { doca_call!(doca_ctx_stop(self.ctx.as_ptr())) } {
            Ok(()) => return true,
            Err(e) if e.code() == Some(crate::ErrorCode::IN_PROGRESS) => {}
            Err(e) => {
                tracing::warn!(target: "doca_dpa::engine", error = %e, "doca_ctx_stop of a sync event failed");
                return false;
            }
        }
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        while std::time::Instant::now() < deadline {
            self.engine.progress();
            let mut state = 0 as _;
            // SAFETY: our context; valid out-pointer.
            let ok = unsafe { doca_call!(doca_ctx_get_state(self.ctx.as_ptr(), &mut state)) };
            if ok.is_ok() && state == sys::DOCA_CTX_STATE_IDLE as _ {
                return true;
            }
            std::thread::yield_now();
        }
        tracing::warn!(target: "doca_dpa::engine", "a sync event's context did not stop in time; leaking it");
        false
    }

    #[cfg(not(doca_dpa_wait_tasks))]
    fn stop(&self) -> bool {
        false
    }
}
