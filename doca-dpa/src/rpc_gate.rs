//! The RPC gate of a DPA context family (a context and the contexts that extend
//! it): `doca_dpa_rpc` runs outside the process-wide DOCA lock, on the family's
//! RPC thread, and the gate keeps every other DOCA call of the family from
//! overlapping it.
//!
//! DOCA DPA objects are not thread-safe (facts §9), and a blocking RPC under the
//! DOCA lock (`crate::core::serialized`) would stop every DOCA call of the process
//! until it returns. So the gate serialises the family instead: [`Dpa::rpc`]
//! holds it from before the call until the call returned, or, after a timeout,
//! marks the call's outcome as owed. The call is marked in flight
//! ([`RpcGate::begin`]) under the DOCA lock, and every other DOCA call of the
//! family looks at that mark under the DOCA lock too ([`RpcGate::outside_rpc`]):
//! so it runs either wholly before the RPC began or after the RPC's call returned,
//! never while it runs. Waiting for that return is done with the DOCA lock
//! released.
//!
//! Futures must not wait at the gate (a runtime's thread held up there may be
//! what the RPC waits for): they register with it instead ([`RpcGate::wake_on_free`])
//! and are woken whenever the gate's state is released and when a timed-out
//! call returns.
//!
//! A waker is user code, and may use the family (make an RPC, even): it is never
//! woken on the RPC thread (whose queue such an RPC would wait on) nor by a
//! thread that holds the DOCA lock. Where a wake-up comes from one of those — a
//! timed-out call's return, a release inside `serialized` — the wakers are woken
//! on a short-lived thread of their own ([`Waiting::wake_all`]). Wakers are
//! cloned and dropped with the list's lock released. See `docs/concurrency.md`.
//!
//! [`Dpa::rpc`]: crate::Dpa::rpc

use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Waker;
use std::time::Duration;

use doca_dpa_sys as sys;

use crate::error::{Error, Result};

/// The end of a `doca_dpa_rpc` call made on the RPC thread: DOCA's code and the
/// function's result.
pub(crate) type RpcOutcome = (sys::doca_error_t, u64);

/// One `doca_dpa_rpc` call, for the RPC thread to make.
pub(crate) type RpcJob = Box<dyn FnOnce() -> RpcOutcome + Send>;

/// The host thread that makes the family's `doca_dpa_rpc` calls: started by the
/// first RPC and kept for the next ones (a thread per call cost tens of
/// microseconds, more than the call). Calls reach it one at a time (the gate
/// holds the family from before each call until its outcome came back, or owes
/// it), so its outcomes come back in call order. It holds nothing of DOCA's; it
/// ends when its job channel closes (the gate's drop) and is joined there.
#[derive(Debug)]
pub(crate) struct RpcWorker {
    jobs: Option<std::sync::mpsc::Sender<RpcJob>>,
    pub(crate) outcomes: std::sync::mpsc::Receiver<RpcOutcome>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl RpcWorker {
    /// Starts the thread; each call's return wakes `waiting` (after its outcome
    /// is sent).
    fn start(waiting: Arc<Waiting>) -> std::io::Result<RpcWorker> {
        let (jobs, inbox) = std::sync::mpsc::channel::<RpcJob>();
        let (outbox, outcomes) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("doca-dpa-rpc".into())
            .spawn(move || {
                ON_RPC_THREAD.with(|on| on.set(true));
                for job in inbox {
                    // The gate may be gone (its drop settled it): nothing to do.
                    if outbox.send(job()).is_err() {
                        return;
                    }
                    // A call whose caller stopped waiting (it timed out): the
                    // futures waiting for the gate learn that it returned from
                    // here (on another thread: `Waiting::wake_all`). A call whose
                    // caller got the outcome is woken for by the caller, once it
                    // released the gate. Looked at after the send: a caller that
                    // gave up before the outcome was sent marked it first, and
                    // one that gave up after it finds the outcome there when its
                    // release wakes the futures.
                    if waiting.abandoned.swap(false, Ordering::SeqCst) {
                        waiting.wake_all();
                    }
                }
            })?;
        Ok(RpcWorker {
            jobs: Some(jobs),
            outcomes,
            thread: Some(thread),
        })
    }

    /// Hands a call to the thread; false if it is gone.
    pub(crate) fn send(&self, job: RpcJob) -> bool {
        self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok())
    }
}

impl Drop for RpcWorker {
    fn drop(&mut self) {
        // Closing the channel ends the thread once it is idle; every call it
        // was given has returned by now (the gate settles before it drops).
        drop(self.jobs.take());
        if let Some(t) = self.thread.take() {
            // It cannot panic: nothing to report.
            let _ = t.join();
        }
    }
}

thread_local! {
    /// Set on the RPC threads: no user code runs there.
    static ON_RPC_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Wakers of futures waiting for the gate to be free.
#[derive(Debug, Default)]
struct Waiting {
    list: Mutex<Vec<Waker>>,
    /// The call in progress timed out (its caller no longer waits for it): the
    /// RPC thread has the waiting futures woken when it returns.
    abandoned: AtomicBool,
}

impl Waiting {
    fn list(&self) -> MutexGuard<'_, Vec<Waker>> {
        self.list.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn add(&self, waker: &Waker) {
        // Cloned, and a clone not needed dropped, with the list unlocked (a
        // waker's clone and drop are user code).
        let clone = waker.clone();
        let unused = {
            let mut list = self.list();
            if list.iter().any(|w| w.will_wake(waker)) {
                Some(clone)
            } else {
                list.push(clone);
                None
            }
        };
        drop(unused);
    }

    fn remove(&self, waker: &Waker) {
        let removed: Vec<Waker> = {
            let mut list = self.list();
            let (removed, kept) = std::mem::take(&mut *list)
                .into_iter()
                .partition(|w| w.will_wake(waker));
            *list = kept;
            removed
        };
        drop(removed);
    }

    /// Wakes them (user code) with the list unlocked; a waker that panics is
    /// caught. Here, unless this thread is the RPC thread (a waker that makes an
    /// RPC would wait for the thread that runs it) or holds the DOCA lock (no user
    /// code runs under a library lock): then on a thread started for them. If
    /// that thread cannot be started, they stay registered and are woken at the
    /// next release of the gate.
    fn wake_all(&self) {
        let woken = std::mem::take(&mut *self.list());
        if woken.is_empty() {
            return;
        }
        if !(crate::core::held_here() || ON_RPC_THREAD.with(std::cell::Cell::get)) {
            return wake(woken);
        }
        // Handed over through a slot the list takes back from if the thread
        // cannot be started (moved back: no waker is cloned or dropped here).
        let parcel = Arc::new(Mutex::new(Some(woken)));
        let theirs = parcel.clone();
        let spawned = std::thread::Builder::new()
            .name("doca-dpa-wake".into())
            .spawn(move || {
                let woken = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
                wake(woken.unwrap_or_default());
            });
        if spawned.is_err() {
            let back = parcel.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(back) = back {
                self.list().extend(back);
            }
        }
    }
}

/// Wakes `wakers` on this thread, catching a waker that panics.
fn wake(wakers: Vec<Waker>) {
    for w in wakers {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.wake()));
    }
}

/// The gate of a DPA context family (see the module's docs).
#[derive(Debug)]
pub(crate) struct RpcGate {
    /// Whether a call may not have returned (checked on every use without taking
    /// the mutex).
    in_flight: AtomicBool,
    /// The RPC thread, and whether it owes the outcome of a timed-out call.
    /// Locked for the whole of an RPC in progress; only through [`GateGuard`].
    state: Mutex<RpcState>,
    /// Futures waiting for the gate to be free.
    waiting: Arc<Waiting>,
}

impl Default for RpcGate {
    fn default() -> Self {
        let waiting = Arc::<Waiting>::default();
        RpcGate {
            in_flight: AtomicBool::new(false),
            state: Mutex::new(RpcState {
                owed: false,
                worker: None,
                waiting: waiting.clone(),
            }),
            waiting,
        }
    }
}

/// What [`RpcGate`] guards.
#[derive(Debug)]
pub(crate) struct RpcState {
    /// A timed-out call has not returned yet: its outcome comes on the worker's
    /// channel before any other.
    owed: bool,
    worker: Option<RpcWorker>,
    /// The gate's [`Waiting`], for the RPC thread.
    waiting: Arc<Waiting>,
}

impl RpcState {
    /// The RPC thread, started now if this is the family's first RPC (or the
    /// last one's thread is gone).
    pub(crate) fn worker(&mut self) -> std::io::Result<&RpcWorker> {
        match &mut self.worker {
            Some(w) => Ok(w),
            none => Ok(none.insert(RpcWorker::start(self.waiting.clone())?)),
        }
    }

    /// Forgets a worker that ended without an outcome (it cannot panic; a
    /// closed channel says the thread is gone all the same).
    pub(crate) fn lost_worker(&mut self) {
        self.worker = None;
    }
}

/// The gate's state, locked. Its release wakes the futures waiting for the gate:
/// whatever the holder did (ended a call, marked one owed, only looked), they
/// look again, so none misses the moment the gate became free.
pub(crate) struct GateGuard<'a> {
    state: ManuallyDrop<MutexGuard<'a, RpcState>>,
    waiting: &'a Waiting,
}

impl std::ops::Deref for GateGuard<'_> {
    type Target = RpcState;
    fn deref(&self) -> &RpcState {
        &self.state
    }
}

impl std::ops::DerefMut for GateGuard<'_> {
    fn deref_mut(&mut self) -> &mut RpcState {
        &mut self.state
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: dropped once, here; `state` is not used again.
        unsafe { ManuallyDrop::drop(&mut self.state) };
        self.waiting.wake_all();
    }
}

impl RpcGate {
    fn guard<'a>(&'a self, state: MutexGuard<'a, RpcState>) -> GateGuard<'a> {
        GateGuard {
            state: ManuallyDrop::new(state),
            waiting: &self.waiting,
        }
    }

    /// Locks the state. A poisoned gate still guards the family: nothing panics
    /// while holding it with the state half-changed (see `settle_locked`).
    fn lock(&self) -> GateGuard<'_> {
        self.guard(self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Locks the gate for a new call, after any owed outcome has come.
    pub(crate) fn enter(&self) -> GateGuard<'_> {
        loop {
            let mut guard = self.lock();
            match self.settle_locked(&mut guard, true) {
                None => return guard,
                Some(settled) => {
                    // Reported with the gate released: a `tracing` subscriber is user
                    // code, which may use the family (an RPC locks the gate again).
                    // Then the gate is looked at anew.
                    drop(guard);
                    settled.report();
                }
            }
        }
    }

    /// Marks a call in progress under the guard of [`RpcGate::enter`]: other
    /// threads' [`RpcGate::settle`] now wait for the guard. Marked under the DOCA
    /// lock, so a DOCA call of the family that looks at the mark under the lock
    /// ([`RpcGate::outside_rpc`]) has either returned already or sees it.
    pub(crate) fn begin(&self) {
        crate::core::serialized(|| self.in_flight.store(true, Ordering::Release));
    }

    /// Whether a call may be in progress (or owed).
    #[inline]
    pub(crate) fn in_flight(&self) -> bool {
        self.in_flight.load(Ordering::Acquire)
    }

    /// The call in progress returned: releases the gate.
    pub(crate) fn end(&self, guard: GateGuard<'_>) {
        self.in_flight.store(false, Ordering::Release);
        drop(guard);
    }

    /// The call in progress (the guard of [`RpcGate::enter`], after
    /// [`RpcGate::begin`]) may still run: its outcome is owed, and settled before
    /// the next use.
    pub(crate) fn hold(&self, mut guard: GateGuard<'_>) {
        guard.owed = true;
        // Before the guard's release wakes the futures (see `RpcWorker::start`).
        self.waiting.abandoned.store(true, Ordering::SeqCst);
    }

    /// Waits until a timed-out RPC's call has returned, and until an RPC in
    /// progress on another thread has ended (at once if there is neither).
    #[inline]
    pub(crate) fn settle(&self) {
        if self.in_flight() {
            drop(self.enter());
        }
    }

    /// Settles an owed outcome if the state is free and the call has returned
    /// already, without waiting for either.
    fn try_settle(&self) {
        let Ok(state) = self.state.try_lock() else {
            return;
        };
        let mut guard = self.guard(state);
        if let Some(settled) = self.settle_locked(&mut guard, false) {
            drop(guard);
            // A `tracing` event is user code: left out under the DOCA lock (a
            // call nested in `serialized`).
            if !crate::core::held_here() {
                settled.report();
            }
        }
    }

    /// Runs `f` under the DOCA lock when no call of the family is in progress:
    /// every DOCA call naming a context of the family, or an object made on one,
    /// goes through here. A call in progress is waited for with the DOCA lock
    /// released.
    ///
    /// A thread that holds the DOCA lock already (a call nested in
    /// [`serialized`](crate::serialized)) cannot wait for a call in progress: the
    /// RPC's function may wait for something the host does under that lock (an
    /// event's `set`), and the gate's holder may be waiting for it to mark its
    /// call. Such a thread settles an owed outcome that has come, and otherwise
    /// gets [`Error::Unavailable`] at once, as [`Dpa::rpc`](crate::Dpa::rpc) and
    /// the launcher do there.
    pub(crate) fn outside_rpc<R>(&self, f: impl FnOnce() -> R) -> Result<R> {
        let mut f = Some(f);
        loop {
            let nested = crate::core::held_here();
            if nested {
                self.try_settle();
            } else {
                self.settle();
            }
            let done = crate::core::serialized(|| {
                if self.in_flight() {
                    None
                } else {
                    f.take().map(|f| f())
                }
            });
            match done {
                Some(r) => return Ok(r),
                None if nested => return Err(nested_during_rpc()),
                None => {}
            }
        }
    }

    /// [`RpcGate::outside_rpc`] without waiting: `None` while a call may be in
    /// progress (an owed outcome that has come is settled first).
    pub(crate) fn try_outside_rpc<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        if self.in_flight() {
            self.try_settle();
        }
        crate::core::serialized(|| (!self.in_flight()).then(f))
    }

    /// Has `waker` woken the next time the gate's state is released or a call
    /// returns (see [`GateGuard`]).
    pub(crate) fn wake_on_free(&self, waker: &Waker) {
        self.waiting.add(waker);
    }

    /// Takes back a [`RpcGate::wake_on_free`] that is no longer needed (so that
    /// the list does not keep the waker, and what it holds, until the next wake).
    pub(crate) fn forget(&self, waker: &Waker) {
        self.waiting.remove(waker);
    }

    /// The id of the RPC thread, once an RPC started it (waits for an RPC in
    /// progress).
    pub(crate) fn worker_id(&self) -> Option<std::thread::ThreadId> {
        let state = self.lock();
        state
            .worker
            .as_ref()
            .and_then(|w| w.thread.as_ref())
            .map(|t| t.thread().id())
    }

    /// Settles an owed call under the state's lock: waits for it to return, or
    /// (not `wait`) settles it only if its outcome has come. What to report of
    /// it, once the lock is released.
    #[cold]
    fn settle_locked(&self, state: &mut RpcState, wait: bool) -> Option<Settled> {
        if !state.owed {
            return None;
        }
        let started = std::time::Instant::now();
        // What bounds the wait is the device's kernel run-time limit (a device
        // function that overruns it is stopped and the context turns fatal). A
        // closed channel: the thread is gone, and the call with it.
        let outcome = match &state.worker {
            Some(w) if wait => w.outcomes.recv().ok(),
            Some(w) => match w.outcomes.try_recv() {
                Ok(outcome) => Some(outcome),
                Err(std::sync::mpsc::TryRecvError::Empty) => return None,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
            },
            None => None,
        };
        state.owed = false;
        if outcome.is_none() {
            state.lost_worker();
        }
        self.in_flight.store(false, Ordering::Release);
        Some(Settled {
            waited: started.elapsed(),
            returned: outcome.map(|(rc, _)| rc),
        })
    }
}

#[cold]
fn nested_during_rpc() -> Error {
    Error::Unavailable {
        what: "the DPA context",
        reason: "an RPC of its context family is in progress, and this thread holds the \
                 DOCA lock (inside `doca_dpa::serialized`): waiting for the RPC there could \
                 deadlock (its function may wait for the host, which needs the lock)"
            .to_owned(),
    }
}

/// A timed-out RPC's call seen to return, to report with the gate released.
struct Settled {
    waited: Duration,
    returned: Option<sys::doca_error_t>,
}

impl Settled {
    fn report(self) {
        tracing::debug!(target: "doca_dpa::dpa", waited = ?self.waited, returned = ?self.returned, "a timed-out RPC's call returned");
    }
}
