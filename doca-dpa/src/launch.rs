//! Kernel launches: a [`Launcher`] owns one completion event and reuses it
//! with increasing counts (creating an event per launch is an order of
//! magnitude slower on hardware), and every launch returns a [`Launch`] that
//! is waited on with a timeout and a diagnosis.
//!
//! The launcher, not the [`Launch`], keeps each launch's arguments alive: they are
//! released only once the completion event shows that every launch submitted so far
//! has finished. Dropping or forgetting a `Launch`, timing out, or completing out of
//! order cannot release them early.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::time::{Duration, Instant};

use crate::app::{foreign_function, Kernel, KernelArgs, KernelSig, RawLaunch, Rpc, RpcSig};
use crate::dpa::Dpa;
use crate::error::{Error, LaunchDiagnosis, Result};
use crate::keep::{KeepAlive, KeepQueue};
use crate::sync_event::{Backoff, Event, WaitEvent};

/// `wait_threshold` must be in 0..=254 (documented range of
/// `doca_dpa_kernel_launch_update_*`).
pub const MAX_WAIT_THRESHOLD: u8 = 254;

/// Holds a launch until a [`WaitEvent`] reaches a value. The launch keeps the event
/// alive until it has completed.
#[derive(Debug, Clone, Copy)]
pub struct Gate<'a> {
    event: &'a WaitEvent,
    threshold: u8,
}

impl<'a> Gate<'a> {
    /// The kernel starts once `event` is at least `threshold` (0..=254).
    pub fn new(event: &'a WaitEvent, threshold: u8) -> Result<Gate<'a>> {
        if threshold > MAX_WAIT_THRESHOLD {
            return Err(Error::invalid(
                "doca_dpa_kernel_launch_update_add",
                format!("wait threshold {threshold} is above {MAX_WAIT_THRESHOLD}"),
            ));
        }
        Ok(Gate { event, threshold })
    }
}

/// Launches kernels on one DPA context and tracks their completion with one
/// reused completion event.
///
/// The launch path makes one DOCA call (`doca_dpa_kernel_launch_update_add`,
/// EXPERIMENTAL, through the kernel's generated launcher) and allocates nothing in
/// the steady state. A launcher belongs to the thread that made it (like its
/// [`Dpa`]); it cannot be shared between threads:
///
/// ```compile_fail
/// fn shared<T: Sync>(_: &T) {}
/// fn f(l: &doca_dpa::Launcher) { shared(l) }
/// ```
///
/// Dropping the launcher waits (up to the kernel run-time limit) for its launches;
/// if it cannot confirm they finished, it leaks their arguments and its completion
/// event rather than free what the DPA may still use.
///
/// One event counts every launch, and launches complete in any order, so a
/// launch is known to have finished only once *every* launch submitted so far has:
/// a [`Launch::wait`], [`Launch::completion`] or [`Launch::is_complete`] also waits
/// for the launches submitted after it, and arguments are released in batches.
/// A launcher that never runs dry (a service that always has a launch in flight
/// on it) therefore resolves no wait and holds its arguments until it does; give
/// each independent stream of requests its own launcher, and let each drain.
pub struct Launcher {
    event: std::mem::ManuallyDrop<Event>,
    submitted: Cell<u64>,
    /// Launches up to this ticket are known to have finished.
    retired: Cell<u64>,
    keep: RefCell<KeepQueue>,
}

impl fmt::Debug for Launcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launcher")
            .field("submitted", &self.submitted.get())
            .field("retired", &self.retired.get())
            .finish()
    }
}

static_assertions::assert_not_impl_any!(Launcher: Send, Sync);

/// References held before the queue is looked at without a wait: bounds the memory
/// of a program that launches without ever waiting.
const RETIRE_AT: usize = 4096;

impl Launcher {
    /// Creates the launcher and its completion event (DPA publisher, CPU
    /// subscriber; see [`CompletionEvent`](crate::CompletionEvent)).
    pub fn new(dpa: &Dpa) -> Result<Launcher> {
        Launcher::on(Event::completion(dpa, None)?)
    }

    /// Like [`Launcher::new`], with its completion event driven by `engine`, so that
    /// launches can be awaited ([`Launch::completion`], [`Launcher::all_completed`])
    /// and [`Launch::wait`] sleeps on the engine's handle instead of spinning (see
    /// [`CompletionEvent::with_engine`](crate::CompletionEvent::with_engine) for the
    /// DOCA calls).
    pub fn with_engine(dpa: &Dpa, engine: &crate::Engine) -> Result<Launcher> {
        Launcher::on(Event::completion(dpa, Some(engine))?)
    }

    fn on(event: Event) -> Result<Launcher> {
        Ok(Launcher {
            event: std::mem::ManuallyDrop::new(event),
            submitted: Cell::new(0),
            retired: Cell::new(0),
            keep: RefCell::new(KeepQueue::with_capacity(64)),
        })
    }

    /// The context it launches on.
    pub fn dpa(&self) -> &Dpa {
        self.event.dpa()
    }

    /// Launches `kernel` on `threads` DPA threads with `args`, one per C parameter
    /// (checked at compile time against the generated declaration).
    ///
    /// Returns at once. Every object the arguments reference is kept alive by the
    /// launcher until the launch is known to have finished.
    pub fn launch<S: KernelSig, A: KernelArgs<S::Params, S>>(
        &self,
        kernel: &Kernel<S>,
        threads: u32,
        args: A,
    ) -> Result<Launch<'_>> {
        self.submit(None, kernel, threads, &args)
    }

    /// Like [`Launcher::launch`], held until `gate`'s event reaches its
    /// threshold.
    pub fn launch_gated<S: KernelSig, A: KernelArgs<S::Params, S>>(
        &self,
        gate: Gate<'_>,
        kernel: &Kernel<S>,
        threads: u32,
        args: A,
    ) -> Result<Launch<'_>> {
        self.submit(Some(gate), kernel, threads, &args)
    }

    #[inline]
    fn submit<S: KernelSig, A: KernelArgs<S::Params, S>>(
        &self,
        gate: Option<Gate<'_>>,
        kernel: &Kernel<S>,
        threads: u32,
        args: &A,
    ) -> Result<Launch<'_>> {
        const CALL: &str = "doca_dpa_kernel_launch_update_add";
        let dpa = self.dpa();
        let max = dpa.limits().max_threads_per_kernel;
        if threads == 0 || threads > max {
            return Err(bad_thread_count(CALL, threads, max));
        }
        if !kernel.belongs_to(dpa.app()) {
            return Err(foreign_function(CALL, kernel.name(), dpa.app()));
        }
        if let Some(g) = gate {
            if !g.event.0.dpa().same_context(dpa) {
                return Err(foreign_gate(CALL));
            }
        }
        let ticket = self.submitted.get() + 1;
        let mut keep = self.keep.borrow_mut();
        if keep.len() >= RETIRE_AT {
            self.poll_retired(&mut keep);
        }
        let mark = keep.len();
        let mut recorder = keep.recorder(ticket);
        let abi = match args.lower_all(&mut recorder) {
            Ok(abi) => abi,
            Err(e) => {
                keep.truncate(mark);
                return Err(e);
            }
        };
        if let Some(g) = gate {
            recorder.keep(KeepAlive::new(&g.event.0));
        }
        let raw = RawLaunch {
            dpa: dpa.as_ptr(),
            wait_event: gate.map_or(std::ptr::null_mut(), |g| g.event.0.as_ptr()),
            wait_threshold: gate.map_or(0, |g| u64::from(g.threshold)),
            comp_event: self.event.as_ptr(),
            comp_count: 1,
            num_threads: threads,
            add: 1,
        };
        // SAFETY: a started context; a started completion event it publishes; a gate
        // event of the same context (checked above) that it subscribes to; a kernel
        // of its application (checked above) whose generated launcher passes the
        // lowered arguments with the C parameter types. Everything they reference is
        // recorded in `keep` for this ticket.
        let rc = unsafe { S::launch(&raw, abi) };
        if let Err(e) = crate::error::check(CALL, rc) {
            keep.truncate(mark);
            return Err(self.explain(e));
        }
        self.submitted.set(ticket);
        Ok(Launch {
            launcher: self,
            kernel: kernel.name(),
            ticket,
        })
    }

    /// A launch error on a fatal context is reported as such.
    fn explain(&self, e: Error) -> Error {
        match self.dpa().health() {
            Ok(crate::Health::Fatal) => self.dpa().fatal_error("doca_dpa_kernel_launch_update_add"),
            _ => e,
        }
    }

    /// Launches submitted so far.
    pub fn submitted(&self) -> u64 {
        self.submitted.get()
    }

    /// Launches completed so far (the completion event's value,
    /// `doca_sync_event_get`).
    pub fn completed(&self) -> Result<u64> {
        let v = self.event.get()?;
        self.observe(v);
        Ok(v)
    }

    /// Launches up to this count are known to have finished and no longer hold their
    /// arguments.
    pub fn retired(&self) -> u64 {
        self.retired.get()
    }

    /// Records that the event was seen at `value`: when every launch submitted so far
    /// has completed, every one of them is done, and their arguments are released.
    /// (Launches complete in any order, so a lower value says nothing about which.)
    fn observe(&self, value: u64) {
        let submitted = self.submitted.get();
        if value >= submitted && self.retired.get() < submitted {
            self.retired.set(submitted);
            if let Ok(mut keep) = self.keep.try_borrow_mut() {
                keep.retire_through(submitted);
            }
        }
    }

    fn poll_retired(&self, keep: &mut KeepQueue) {
        let submitted = self.submitted.get();
        if let Ok(v) = self.event.get() {
            if v >= submitted {
                self.retired.set(submitted);
                keep.retire_through(submitted);
            }
        }
    }

    /// Waits until every launch submitted so far has completed.
    pub fn wait_all(&self, timeout: Duration) -> Result<()> {
        self.wait_until(self.submitted.get(), "all launches", timeout)
    }

    fn wait_until(&self, target: u64, kernel: &'static str, timeout: Duration) -> Result<()> {
        if self.retired.get() >= target {
            return Ok(());
        }
        let first = self.event.get()?;
        self.observe(first);
        if self.retired.get() >= target {
            return Ok(());
        }
        // Not complete at the first look: from here on the wait is timed.
        let start = Instant::now();
        let mut v = first;
        let mut backoff = Backoff::new();
        loop {
            let fatal =
                backoff.should_check_health() && self.dpa().health()? == crate::Health::Fatal;
            if fatal || (backoff.should_check_clock() && start.elapsed() >= timeout) {
                let fatal = fatal || self.dpa().health()? == crate::Health::Fatal;
                let fault = self.dpa().fault_report();
                if fatal && fault.is_some() {
                    // A crash, with its cause: not a timeout.
                    return Err(Error::ContextFatal {
                        call: "doca_dpa_peek_at_last_error",
                        fault,
                    });
                }
                return Err(Error::LaunchTimeout(Box::new(LaunchDiagnosis {
                    kernel,
                    waited: start.elapsed(),
                    expected: self.submitted.get(),
                    value_at_submit: first,
                    value_at_timeout: v,
                    context_fatal: fatal,
                    fault,
                    kernel_max_run_time: self.dpa().limits().kernel_max_run_time,
                })));
            }
            self.event.pause(&mut backoff, v)?;
            v = self.event.get()?;
            self.observe(v);
            if self.retired.get() >= target {
                return Ok(());
            }
        }
    }

    /// Waits for every launch, bounded by the kernel run-time limit; on failure
    /// leaks what the launches hold. Used by drop.
    fn settle(&mut self) -> bool {
        if self.retired.get() >= self.submitted.get() {
            return true;
        }
        let bound = self.dpa().limits().kernel_max_run_time + Duration::from_secs(1);
        match self.wait_until(self.submitted.get(), "all launches", bound) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(
                    target: "doca_dpa::launch",
                    error = %e,
                    in_flight = self.submitted.get() - self.retired.get(),
                    "launches did not complete before the launcher was dropped: their \
                     arguments and the completion event are leaked, not freed"
                );
                false
            }
        }
    }
}

impl Drop for Launcher {
    fn drop(&mut self) {
        if self.settle() {
            // SAFETY: dropped once, here; every launch that could update the event has
            // completed.
            unsafe { std::mem::ManuallyDrop::drop(&mut self.event) };
        } else {
            self.keep.get_mut().bury_all();
            // SAFETY: taken once, here, to be leaked: the DPA may still update it.
            crate::keep::bury(unsafe { std::mem::ManuallyDrop::take(&mut self.event) });
        }
    }
}

// The refusals of `submit`, out of line: the checks stay a few instructions
// on the path every launch takes.
#[cold]
fn bad_thread_count(call: &'static str, threads: u32, max: u32) -> Error {
    Error::invalid(
        call,
        format!("{threads} threads requested; a launch takes 1..={max}"),
    )
}

#[cold]
fn foreign_gate(call: &'static str) -> Error {
    Error::invalid(
        call,
        "the gate's wait event was made for another DPA context",
    )
}

/// A submitted launch. [`Launch::wait`] returns when it has completed.
///
/// A `Launch` holds nothing the device uses (the [`Launcher`] does), so dropping or
/// forgetting it does not block and cannot free anything early.
///
/// Waiting returns once the launcher's completion event shows that every
/// launch submitted before the wait has finished (launches on one context
/// may finish out of order, so this is the earliest point at which this one
/// is known to be done).
#[must_use = "a launch completes asynchronously; wait on it"]
pub struct Launch<'l> {
    launcher: &'l Launcher,
    kernel: &'static str,
    ticket: u64,
}

impl fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel)
            .field("ticket", &self.ticket)
            .finish()
    }
}

impl<'l> Launch<'l> {
    /// Waits for completion, polling the completion event
    /// (`doca_sync_event_get`) and the context's health
    /// (`doca_dpa_peek_at_last_error`).
    ///
    /// On timeout or a fatal context the error is
    /// [`Error::LaunchTimeout`] with a [`LaunchDiagnosis`]: whether the event
    /// moved, whether the context is fatal (and, on the software DPA, the fault
    /// report), and the kernel run-time limit. The launch's arguments stay alive
    /// either way.
    pub fn wait(self, timeout: Duration) -> Result<()> {
        let target = self.launcher.submitted.get().max(self.ticket);
        self.launcher.wait_until(target, self.kernel, timeout)
    }

    /// The launch's completion as a `Future`: resolves once every launch submitted
    /// before this call has completed (`doca_pe_progress`, `doca_sync_event_get`,
    /// `doca_dpa_peek_at_last_error`, the launcher's wait task re-armed with
    /// `doca_task_submit`), or with [`Error::ContextFatal`] when the context turned
    /// fatal. The launcher must have been made with [`Launcher::with_engine`]
    /// ([`Error::Unavailable`] otherwise). Dropping the future is always safe.
    pub fn completion(self) -> LaunchCompletion<'l> {
        let target = self.launcher.submitted.get().max(self.ticket);
        LaunchCompletion {
            launcher: self.launcher,
            target,
        }
    }

    /// Whether the launch is known to have finished (`doca_sync_event_get`).
    pub fn is_complete(&self) -> Result<bool> {
        self.launcher.completed()?;
        Ok(self.launcher.retired.get() >= self.ticket)
    }

    /// The kernel's name.
    pub fn kernel(&self) -> &'static str {
        self.kernel
    }
}

impl<'l> std::future::IntoFuture for Launch<'l> {
    type Output = Result<()>;
    type IntoFuture = LaunchCompletion<'l>;

    /// `launch.await` is [`Launch::completion`].
    fn into_future(self) -> LaunchCompletion<'l> {
        self.completion()
    }
}

impl Launcher {
    /// Every launch submitted so far, completed, as a `Future` (as
    /// [`Launch::completion`] for the last of them).
    pub fn all_completed(&self) -> LaunchCompletion<'_> {
        LaunchCompletion {
            launcher: self,
            target: self.submitted.get(),
        }
    }
}

/// The future of [`Launch::completion`] and [`Launcher::all_completed`]. It borrows
/// the launcher, which keeps the launches' arguments alive.
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct LaunchCompletion<'l> {
    launcher: &'l Launcher,
    target: u64,
}

impl std::future::Future for LaunchCompletion<'_> {
    type Output = Result<()>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<()>> {
        let (l, target) = (self.launcher, self.target);
        if l.retired.get() >= target {
            return std::task::Poll::Ready(Ok(()));
        }
        let waiter = match l.event.waiter() {
            Ok(w) => w,
            Err(e) => return std::task::Poll::Ready(Err(e)),
        };
        waiter.poll_until(
            cx,
            || l.event.get(),
            |v| {
                l.observe(v);
                if l.retired.get() >= target {
                    return Ok(Some(()));
                }
                if l.dpa().health()? == crate::Health::Fatal {
                    return Err(l.dpa().fatal_error("doca_dpa_peek_at_last_error"));
                }
                Ok(None)
            },
        )
    }
}

impl Dpa {
    /// Calls an RPC function and returns its `uint64_t` result
    /// (`doca_dpa_rpc`, EXPERIMENTAL; blocking, through the function's generated
    /// launcher).
    ///
    /// If DOCA reports a failure on a context that is no longer healthy, the RPC may
    /// still be running on the DPA, so what the arguments keep alive is leaked rather
    /// than released.
    pub fn rpc<S: RpcSig, A: KernelArgs<S::Params, S>>(
        &self,
        rpc: &Rpc<S>,
        args: A,
    ) -> Result<u64> {
        const CALL: &str = "doca_dpa_rpc";
        if !rpc.belongs_to(self.app()) {
            return Err(foreign_function(CALL, rpc.name(), self.app()));
        }
        let mut keep = KeepQueue::default();
        let abi = args.lower_all(&mut keep.recorder(0))?;
        let mut ret = 0u64;
        // SAFETY: a started context and an RPC of its application (checked above)
        // whose generated launcher passes the lowered arguments with the C parameter
        // types; `keep` holds what they reference until the call returns.
        let rc = unsafe { S::call(self.as_ptr(), &mut ret, abi) };
        match crate::error::check(CALL, rc) {
            Ok(()) => Ok(ret),
            // The call is blocking: on a healthy context a failed RPC is over.
            Err(e) if self.health().ok() == Some(crate::Health::Ok) => Err(e),
            Err(e) => {
                // A fatal context (or one whose health is unknown) may still run it.
                keep.bury_all();
                match self.health() {
                    Ok(crate::Health::Fatal) => Err(self.fatal_error(CALL)),
                    _ => Err(e),
                }
            }
        }
    }
}
