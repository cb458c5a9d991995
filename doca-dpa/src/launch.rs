//! Kernel launches: a [`Launcher`] owns one completion event and reuses it
//! with increasing counts (creating an event per launch is an order of
//! magnitude slower on hardware), and every launch returns a [`Launch`] that
//! is waited on with a timeout and a diagnosis.

use std::cell::Cell;
use std::fmt;
use std::time::{Duration, Instant};

use crate::app::{Kernel, KernelArgs, RawLaunch, Rpc};
use crate::dpa::Dpa;
use crate::error::{check, Error, LaunchDiagnosis, Result};
use crate::sync_event::{Backoff, Event, WaitEvent};

/// `wait_threshold` must be in 0..=254 (documented range of
/// `doca_dpa_kernel_launch_update_*`).
pub const MAX_WAIT_THRESHOLD: u8 = 254;

/// Holds a launch until a [`WaitEvent`] reaches a value.
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
/// The launch path makes one DOCA call
/// (`doca_dpa_kernel_launch_update_add`, EXPERIMENTAL) and allocates
/// nothing. A launcher belongs to the thread that made it (like its
/// [`Dpa`]); it cannot be shared between threads:
///
/// ```compile_fail
/// fn shared<T: Sync>(_: &T) {}
/// fn f(l: &doca_dpa::Launcher) { shared(l) }
/// ```
pub struct Launcher {
    event: Event,
    submitted: Cell<u64>,
}

impl fmt::Debug for Launcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launcher")
            .field("submitted", &self.submitted.get())
            .finish()
    }
}

static_assertions::assert_not_impl_any!(Launcher: Send, Sync);

impl Launcher {
    /// Creates the launcher and its completion event (DPA publisher, CPU
    /// subscriber; see [`CompletionEvent`](crate::CompletionEvent)).
    pub fn new(dpa: &Dpa) -> Result<Launcher> {
        Ok(Launcher {
            event: crate::CompletionEvent::new(dpa, false)?.0,
            submitted: Cell::new(0),
        })
    }

    /// The context it launches on.
    pub fn dpa(&self) -> &Dpa {
        self.event.dpa()
    }

    /// Launches `kernel` on `threads` DPA threads with `args`, which must
    /// match the kernel's declared parameter types.
    ///
    /// Returns at once; the arguments stay borrowed until the returned
    /// [`Launch`] is waited on or dropped.
    pub fn launch<'a, S, A: KernelArgs<'a, S>>(
        &'a self,
        kernel: &Kernel<S>,
        threads: u32,
        args: A,
    ) -> Result<Launch<'a>> {
        self.submit(None, kernel, threads, args)
    }

    /// Like [`Launcher::launch`], held until `gate`'s event reaches its
    /// threshold.
    pub fn launch_gated<'a, S, A: KernelArgs<'a, S>>(
        &'a self,
        gate: Gate<'a>,
        kernel: &Kernel<S>,
        threads: u32,
        args: A,
    ) -> Result<Launch<'a>> {
        self.submit(Some(gate), kernel, threads, args)
    }

    #[inline]
    fn submit<'a, S, A: KernelArgs<'a, S>>(
        &'a self,
        gate: Option<Gate<'a>>,
        kernel: &Kernel<S>,
        threads: u32,
        args: A,
    ) -> Result<Launch<'a>> {
        const CALL: &str = "doca_dpa_kernel_launch_update_add";
        let max = self.dpa().limits().max_threads_per_kernel;
        if threads == 0 || threads > max {
            return Err(Error::invalid(
                CALL,
                format!("{threads} threads requested; a launch takes 1..={max}"),
            ));
        }
        let raw = RawLaunch {
            dpa: self.dpa().as_ptr(),
            wait_event: gate.map_or(std::ptr::null_mut(), |g| g.event.0.as_ptr()),
            wait_threshold: gate.map_or(0, |g| u64::from(g.threshold)),
            comp_event: self.event.as_ptr(),
            comp_count: 1,
            num_threads: threads,
            func: kernel.func_ptr(),
        };
        // SAFETY: a started context, a started completion event published by
        // it, a gate event subscribed by it, and a kernel of its app whose
        // parameters the type system matched to `args`.
        let rc = unsafe { args.launch_add(raw) };
        if let Err(e) = check(CALL, rc) {
            return Err(self.explain(e));
        }
        let ticket = self.submitted.get() + 1;
        self.submitted.set(ticket);
        tracing::trace!(target: "doca_dpa::launch", kernel = kernel.name(), threads, ticket, "kernel launched");
        Ok(Launch {
            launcher: self,
            kernel: kernel.name(),
            ticket,
            done: false,
            _args: std::marker::PhantomData,
        })
    }

    /// A launch error on a fatal context is reported as such.
    fn explain(&self, e: Error) -> Error {
        match self.dpa().health() {
            Ok(crate::Health::Fatal) => Error::ContextFatal {
                call: "doca_dpa_kernel_launch_update_add",
            },
            _ => e,
        }
    }

    /// Launches submitted so far.
    pub fn submitted(&self) -> u64 {
        self.submitted.get()
    }

    /// Launches completed so far (the completion event's value).
    pub fn completed(&self) -> Result<u64> {
        self.event.get()
    }

    /// Waits until every launch submitted so far has completed.
    pub fn wait_all(&self, timeout: Duration) -> Result<()> {
        self.wait_until(self.submitted.get(), "all launches", timeout)
    }

    fn wait_until(&self, target: u64, kernel: &'static str, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        let first = self.event.get()?;
        if first >= target {
            return Ok(());
        }
        let mut backoff = Backoff::new();
        loop {
            backoff.pause();
            let v = self.event.get()?;
            if v >= target {
                return Ok(());
            }
            let fatal =
                backoff.should_check_health() && self.dpa().health()? == crate::Health::Fatal;
            if fatal || (backoff.should_check_clock() && start.elapsed() >= timeout) {
                let fatal = fatal || self.dpa().health()? == crate::Health::Fatal;
                return Err(Error::LaunchTimeout(Box::new(LaunchDiagnosis {
                    kernel,
                    waited: start.elapsed(),
                    expected: target,
                    value_at_submit: first,
                    value_at_timeout: v,
                    context_fatal: fatal,
                    kernel_max_run_time: self.dpa().limits().kernel_max_run_time,
                })));
            }
        }
    }
}

/// A submitted launch. [`Launch::wait`] returns when it has completed; until
/// then the launch borrows its arguments.
///
/// Waiting returns once the launcher's completion event shows that every
/// launch submitted before the wait has finished (launches on one context
/// may finish out of order, so this is the earliest point at which this one
/// is known to be done).
#[must_use = "a launch completes asynchronously; wait on it"]
pub struct Launch<'a> {
    launcher: &'a Launcher,
    kernel: &'static str,
    ticket: u64,
    done: bool,
    _args: std::marker::PhantomData<&'a ()>,
}

impl fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel)
            .field("ticket", &self.ticket)
            .finish()
    }
}

impl Launch<'_> {
    /// Waits for completion, polling the completion event
    /// (`doca_sync_event_get`) and the context's health
    /// (`doca_dpa_peek_at_last_error`).
    ///
    /// On timeout or a fatal context the error is
    /// [`Error::LaunchTimeout`] with a [`LaunchDiagnosis`]: whether the event
    /// moved, whether the context is fatal, and the kernel run-time limit.
    pub fn wait(mut self, timeout: Duration) -> Result<()> {
        let target = self.launcher.submitted.get().max(self.ticket);
        let result = self.launcher.wait_until(target, self.kernel, timeout);
        // Completed, or timed out with a diagnosis the caller now holds:
        // dropping must not wait again. Any other failure (a DOCA call
        // failed while polling) leaves the kernel's state unknown, so Drop
        // still waits, bounded, before the arguments are released.
        self.done = matches!(result, Ok(()) | Err(Error::LaunchTimeout(_)));
        result
    }

    /// Whether the launch is known to be complete (non-blocking).
    pub fn is_complete(&self) -> Result<bool> {
        Ok(self.launcher.event.get()? >= self.launcher.submitted.get().max(self.ticket))
    }
}

impl Drop for Launch<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        // The arguments are borrowed until the kernel is done with them: wait,
        // bounded by the kernel run-time limit (after which the DPA kills the
        // kernel).
        let bound = self.launcher.dpa().limits().kernel_max_run_time + Duration::from_secs(1);
        if let Err(e) = self.launcher.wait_until(self.ticket, self.kernel, bound) {
            tracing::warn!(target: "doca_dpa::launch", error = %e, "a launch dropped without waiting did not complete");
        }
    }
}

impl Dpa {
    /// Calls an RPC function and returns its `uint64_t` result
    /// (`doca_dpa_rpc`, EXPERIMENTAL; blocking).
    pub fn rpc<'a, S, A: KernelArgs<'a, S>>(&self, rpc: &Rpc<S>, args: A) -> Result<u64> {
        let mut ret = 0u64;
        // SAFETY: a started context and an RPC of its app whose parameters
        // the type system matched to `args`.
        let rc = unsafe { args.rpc(self.as_ptr(), rpc.func_ptr(), &mut ret) };
        check("doca_dpa_rpc", rc)?;
        Ok(ret)
    }
}
