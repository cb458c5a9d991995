//! The RPC side of a context family's guard: `doca_dpa_rpc` blocks until the
//! device function returns, so it runs outside the family's lock, on the
//! family's RPC thread, while the family is marked **busy**
//! ([`Domain::begin_busy`]): no [`Guard`](crate::core::Guard) of the family can
//! be made until the call returned, so no other DOCA call on the family's
//! contexts, or on objects made on them, overlaps it. Calls on objects DOCA
//! calls by their own handle (a sync event's `set`: how a host releases a
//! function waiting on an event) take the lock without waiting for the RPC
//! ([`Anytime`](crate::core::Anytime)). See `docs/concurrency.md`.
//!
//! [`RpcGate`] serialises the family's RPCs (one call at a time on its thread)
//! and owns that thread. An RPC whose caller gave up (a timeout) leaves the
//! family busy; the RPC thread ends it when the call returns, and wakes the
//! futures waiting for the family on a thread of their own (a waker is user
//! code, and may make an RPC: on the RPC thread it would wait on its own
//! queue).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use doca_dpa_sys as sys;

use crate::core::{Domain, WakeFrom};

/// The end of a `doca_dpa_rpc` call made on the RPC thread: DOCA's code and the
/// function's result.
pub(crate) type RpcOutcome = (sys::doca_error_t, u64);

/// One `doca_dpa_rpc` call, for the RPC thread to make.
pub(crate) type RpcJob = Box<dyn FnOnce() -> RpcOutcome + Send>;

/// Where the call in progress stands, between its caller and the RPC thread.
const RUNNING: u8 = 0;
/// The caller stopped waiting: the RPC thread ends the family's busy mark.
const ABANDONED: u8 = 1;
/// The call returned.
const RETURNED: u8 = 2;

/// The host thread that makes the family's `doca_dpa_rpc` calls: started by the
/// first RPC and kept for the next ones (a thread per call cost tens of
/// microseconds, more than the call). Calls reach it one at a time (the gate's
/// mutex is held from before each call until its outcome came back, or is
/// owed), so its outcomes come back in call order. It holds nothing of DOCA's;
/// it ends when its job channel closes (the gate's drop) and is joined there.
#[derive(Debug)]
pub(crate) struct RpcWorker {
    jobs: Option<std::sync::mpsc::Sender<(RpcJob, Arc<AtomicU8>)>>,
    outcomes: std::sync::mpsc::Receiver<RpcOutcome>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// Where one call stands: [`RUNNING`], [`ABANDONED`] or [`RETURNED`] (its own,
/// so that the thread's look at one call never meets the next).
pub(crate) type CallState = Arc<AtomicU8>;

impl RpcWorker {
    /// Starts the thread; a call whose caller gave up ends `family`'s busy mark
    /// when it returns.
    fn start(family: Domain) -> std::io::Result<RpcWorker> {
        let (jobs, inbox) = std::sync::mpsc::channel::<(RpcJob, CallState)>();
        let (outbox, outcomes) = std::sync::mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("doca-dpa-rpc".into())
            .spawn(move || {
                for (job, call) in inbox {
                    // The gate may be gone (its drop waited for the call): the
                    // outcome has no reader, and that is all.
                    let _ = outbox.send(job());
                    // Sent first: a caller that gives up after this finds the
                    // outcome there.
                    if call.swap(RETURNED, Ordering::AcqRel) == ABANDONED {
                        family.end_busy(WakeFrom::LibraryThread);
                    }
                }
            })?;
        Ok(RpcWorker {
            jobs: Some(jobs),
            outcomes,
            thread: Some(thread),
        })
    }

    /// Hands a call to the thread: where it stands, or `None` if the thread is
    /// gone.
    pub(crate) fn send(&self, job: RpcJob) -> Option<CallState> {
        let call = Arc::new(AtomicU8::new(RUNNING));
        let jobs = self.jobs.as_ref()?;
        jobs.send((job, call.clone())).ok()?;
        Some(call)
    }

    /// Waits at most `timeout` for the outcome of `call`. On a timeout the call
    /// is marked abandoned, unless it returned meanwhile (then its outcome).
    pub(crate) fn outcome(
        &self,
        call: &CallState,
        timeout: std::time::Duration,
    ) -> Result<RpcOutcome, std::sync::mpsc::RecvTimeoutError> {
        use std::sync::mpsc::RecvTimeoutError;
        match self.outcomes.recv_timeout(timeout) {
            Err(RecvTimeoutError::Timeout) => {
                match call.compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire)
                {
                    Ok(_) => Err(RecvTimeoutError::Timeout),
                    // It returned as the wait ended: the outcome was sent first.
                    Err(_) => self
                        .outcomes
                        .recv()
                        .map_err(|_| RecvTimeoutError::Disconnected),
                }
            }
            other => other,
        }
    }
}

impl Drop for RpcWorker {
    fn drop(&mut self) {
        // Closing the channel ends the thread once it is idle; the call it may
        // still make (an abandoned one) returns within the kernel run-time limit.
        drop(self.jobs.take());
        if let Some(t) = self.thread.take() {
            // It cannot panic: nothing to report.
            let _ = t.join();
        }
    }
}

/// The RPC gate of a family: its RPC thread, and whether an abandoned call's
/// outcome is still in the thread's channel. Its mutex is held for the whole of
/// an RPC (and by a new RPC while it collects an owed outcome), so RPCs of the
/// family run one at a time. Lock order: the gate's mutex, then the family's
/// lock; the family's lock is never held while the gate's mutex is waited for
/// (`Dpa::rpc` refuses a caller that holds it).
#[derive(Debug, Default)]
pub(crate) struct RpcGate {
    state: Mutex<RpcState>,
}

#[derive(Debug, Default)]
pub(crate) struct RpcState {
    /// An abandoned call's outcome is owed: it comes on the worker's channel
    /// before any other.
    owed: bool,
    worker: Option<RpcWorker>,
}

impl RpcGate {
    /// The gate for one RPC: waits for an RPC in progress on another thread,
    /// then collects an owed outcome (its call has returned once the family is
    /// not busy; this waits for it otherwise, within the kernel run-time limit).
    pub(crate) fn enter(&self) -> MutexGuard<'_, RpcState> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if state.owed {
            // A closed channel: the thread is gone, and the call with it.
            let returned = state.worker.as_ref().map(|w| w.outcomes.recv().is_ok());
            if returned != Some(true) {
                state.worker = None;
            }
            state.owed = false;
        }
        state
    }

    /// The id of the RPC thread, once an RPC started it (waits for an RPC in
    /// progress).
    pub(crate) fn worker_id(&self) -> Option<std::thread::ThreadId> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state
            .worker
            .as_ref()
            .and_then(|w| w.thread.as_ref())
            .map(|t| t.thread().id())
    }
}

impl RpcState {
    /// The RPC thread, started now if this is the family's first RPC (or the
    /// last one's thread is gone).
    pub(crate) fn worker(&mut self, family: &Domain) -> std::io::Result<&RpcWorker> {
        match &mut self.worker {
            Some(w) => Ok(w),
            none => Ok(none.insert(RpcWorker::start(family.clone())?)),
        }
    }

    /// The call in progress was abandoned: its outcome is owed.
    pub(crate) fn owe(&mut self) {
        self.owed = true;
    }

    /// Forgets a worker that ended without an outcome (it cannot panic; a
    /// closed channel says the thread is gone all the same).
    pub(crate) fn lost_worker(&mut self) {
        self.worker = None;
    }
}
