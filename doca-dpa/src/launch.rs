//! Kernel launches: a [`Launcher`] owns two completion events that take turns, each
//! reused with increasing counts (creating an event per launch is an order of
//! magnitude slower on hardware), and every launch returns a [`Launch`] that is
//! waited on with a timeout and a diagnosis.
//!
//! The launcher, not the [`Launch`], keeps each launch's arguments alive: they are
//! released only once a completion event shows that the launch's whole epoch (and
//! every earlier one) has finished. Dropping or forgetting a `Launch`, timing out,
//! or completing out of order cannot release them early.

use std::fmt;
use std::mem::ManuallyDrop;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use doca_dpa_sys as sys;

use crate::app::{foreign_function, Kernel, KernelArgs, KernelSig, RawLaunch, Rpc, RpcSig};
use crate::dpa::Dpa;
use crate::error::{Error, LaunchDiagnosis, Result, RpcDiagnosis};
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

/// Launches kernels on one DPA context and tracks their completion with two
/// reused completion events.
///
/// The launch path makes one DOCA call (`doca_dpa_kernel_launch_update_add`,
/// EXPERIMENTAL, through the kernel's generated launcher) and allocates nothing in
/// the steady state. A launcher is `Send + Sync` and launching takes `&self`: one
/// launcher in an `Arc` serves every task of a multi-threaded runtime. Its state
/// (the epochs below, what the launches keep alive) is behind a mutex held for
/// one submission or one look at the events, never while user code runs (see
/// `doca_dpa::serialized` for the DOCA lock under it):
///
/// ```
/// fn shared<T: Send + Sync>(_: &T) {}
/// fn f(l: &doca_dpa::Launcher) { shared(l) }
/// ```
///
/// Dropping the launcher waits (up to the kernel run-time limit) for its launches;
/// if it cannot confirm they finished, it leaks their arguments and its completion
/// events rather than free what the DPA may still use.
///
/// # Epochs
///
/// Launches complete in any order, and a completion event only counts them: a
/// count below the number of launches it was given says that some are still
/// running, not which. So the two events take turns. New launches count on the
/// *current* event; an *epoch* is the run of launches counted on one event between
/// two turns. A wait on a launch of the current epoch ([`Launch::wait`],
/// [`Launch::completion`] — made, not only polled —, [`Launch::is_complete`],
/// [`Launcher::all_completed`], [`Launcher::wait_all`]) closes that epoch once the
/// other event has counted all of its own launches, and makes the other event
/// current: launches submitted from then on no longer delay the wait. A launch is
/// known finished when the event of its epoch has counted the whole epoch, so a
/// wait returns without waiting for launches submitted after its epoch closed, and
/// a launcher that always has a launch in flight still sees launches finish and
/// releases their arguments. Launches submitted with no wait between them share an
/// epoch and are known finished together.
///
/// Arguments are released in submission order ([`Launcher::retired`]): an epoch's
/// once every launch of it and of every earlier epoch has finished. A launch of the
/// current epoch can be known finished while the closed epoch still runs (a slow
/// kernel in it); its wait returns, and its arguments are released once the closed
/// epoch finishes too. What two events cannot do: while the closed epoch runs,
/// the current one cannot close, so a wait for a launch of it returns once the
/// current event has counted every launch given to it, those submitted during the
/// wait included.
pub struct Launcher {
    /// The completion events that take turns; `epochs` says which is current.
    events: ManuallyDrop<[Event; 2]>,
    /// The epochs and what the launches keep alive. Locked for one submission or
    /// one look at the events (DOCA calls inside take the DOCA lock after it);
    /// never while user code runs: wakers, reactors and the drops of released
    /// references run with it released.
    state: Mutex<State>,
}

/// What a launcher tracks, behind its mutex.
struct State {
    /// The current event, the only thing a submission reads of the epochs: it
    /// changes only in `Locked::switch`, off the submission path.
    current: *mut sys::doca_sync_event,
    submitted: u64,
    /// Launches up to this ticket are known to have finished; their references
    /// are dropped by `Launcher::release`.
    retired: u64,
    epochs: Epochs,
    keep: KeepQueue,
}

// SAFETY: `current` is the pointer of one of the launcher's own events (which are
// `Send + Sync`), only passed to DOCA under the DOCA lock; the rest is plain data
// and `Send` references.
unsafe impl Send for State {}

/// Where the epochs stand. Tickets `closed_through + 1 ..= submitted` are the
/// current epoch's, counted on `events[current]`; the tickets of the epoch before
/// (the closed one) are counted on the other event, and every older epoch has
/// finished and is retired.
#[derive(Debug)]
struct Epochs {
    /// Which of `Launcher::events` is current: the second when set (a `bool`, so
    /// that indexing the pair needs no bounds check).
    second_current: bool,
    /// The last ticket of the closed epoch.
    closed_through: u64,
    /// Launches each event was given before the current epoch began: for the other
    /// event, every launch it was ever given.
    assigned: [u64; 2],
    /// The value last read of each event, for a diagnosis.
    seen: [u64; 2],
}

/// Where a wait stands after a look at the events.
enum Look {
    Done,
    /// The closed epoch still runs; the events (index, value seen) whose change
    /// the wait needs to see: the closed one, and the current one when the wait
    /// can also end with the current epoch.
    Pending {
        closed: (usize, u64),
        current: Option<(usize, u64)>,
    },
}

impl fmt::Debug for Launcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `try_lock`: a `Debug` from code that holds the lock must not deadlock.
        let mut d = f.debug_struct("Launcher");
        match self.state.try_lock() {
            Ok(s) => d
                .field("submitted", &s.submitted)
                .field("retired", &s.retired)
                .field("closed_through", &s.epochs.closed_through)
                .field("current_event", &usize::from(s.epochs.second_current)),
            Err(_) => d.field("state", &"<locked>"),
        }
        .finish()
    }
}

/// References held before the queue is looked at without a wait: bounds the memory
/// of a program that launches without ever waiting.
const RETIRE_AT: usize = 4096;

impl Launcher {
    /// Creates the launcher and its two completion events (DPA publisher, CPU
    /// subscriber; see [`CompletionEvent`](crate::CompletionEvent)).
    pub fn new(dpa: &Dpa) -> Result<Launcher> {
        Ok(Launcher::on([
            Event::completion(dpa, None)?,
            Event::completion(dpa, None)?,
        ]))
    }

    /// Like [`Launcher::new`], with both completion events driven by `engine`, so
    /// that launches can be awaited ([`Launch::completion`],
    /// [`Launcher::all_completed`]) and [`Launch::wait`] sleeps on the engine's
    /// handle instead of spinning (see
    /// [`CompletionEvent::with_engine`](crate::CompletionEvent::with_engine) for the
    /// DOCA calls).
    pub fn with_engine(dpa: &Dpa, engine: &crate::Engine) -> Result<Launcher> {
        Ok(Launcher::on([
            Event::completion(dpa, Some(engine))?,
            Event::completion(dpa, Some(engine))?,
        ]))
    }

    fn on(events: [Event; 2]) -> Launcher {
        crate::keep::reap();
        Launcher {
            state: Mutex::new(State {
                current: events[0].as_ptr(),
                submitted: 0,
                retired: 0,
                epochs: Epochs {
                    second_current: false,
                    closed_through: 0,
                    assigned: [0, 0],
                    seen: [0, 0],
                },
                keep: KeepQueue::with_capacity(64),
            }),
            events: ManuallyDrop::new(events),
        }
    }

    /// The state, locked. A panic under the lock (in a `KernelArg::lower`) leaves
    /// it consistent for what matters: references recorded for a ticket never
    /// submitted are only held longer.
    #[inline]
    fn lock(&self) -> Locked<'_> {
        Locked {
            events: &self.events,
            s: self.state.lock().unwrap_or_else(|p| p.into_inner()),
        }
    }

    /// Drops the references of retired launches, one at a time with the lock
    /// released: a last reference's drop runs `tracing` (user code), which may
    /// use this launcher.
    fn release(&self) {
        loop {
            let next = {
                let mut l = self.lock();
                let through = l.s.retired;
                l.s.keep.pop_through(through)
            };
            match next {
                Some(k) => drop(k),
                None => return,
            }
        }
    }

    /// The context it launches on.
    pub fn dpa(&self) -> &Dpa {
        self.events[0].dpa()
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
        let mut l = self.lock();
        let ticket = l.s.submitted + 1;
        let polled = l.s.keep.len() >= RETIRE_AT;
        if polled {
            l.poll_retired();
        }
        let keep = &mut l.s.keep;
        let mark = keep.len();
        let mut recorder = keep.recorder(ticket, Some(crate::keep::CtxId::of(dpa)), CALL);
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
        // Read after everything above, any of which may have switched the
        // current event: the ticket is in the current epoch whichever it is
        // (it is above the closed epoch's last), so it counts on this one.
        let comp_event = l.s.current;
        let raw = RawLaunch {
            dpa: dpa.as_ptr(),
            wait_event: gate.map_or(std::ptr::null_mut(), |g| g.event.0.as_ptr()),
            wait_threshold: gate.map_or(0, |g| u64::from(g.threshold)),
            comp_event,
            comp_count: 1,
            num_threads: threads,
            add: 1,
        };
        // SAFETY: a started context; a started completion event it publishes (one
        // of `events`, which live as long as the launcher); a gate event of the same
        // context (checked above) that it subscribes to; a kernel of its application
        // (checked above) whose generated launcher passes the lowered arguments with
        // the C parameter types. The values come from the sealed `KernelArgs`, so
        // from `KernelArg` impls (unsafe to implement), each of which checked its
        // object's context against this one and recorded what it references in
        // `keep` for this ticket.
        let rc = crate::error::serialized(|| unsafe { S::launch(&raw, abi) });
        if let Err(e) = crate::error::check(CALL, rc) {
            l.s.keep.truncate(mark);
            drop(l);
            return Err(self.explain(e));
        }
        l.s.submitted = ticket;
        drop(l);
        if polled {
            self.release();
        }
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
        self.lock().s.submitted
    }

    /// Launches completed so far: the values of the two completion events, added
    /// (`doca_sync_event_get` on each).
    pub fn completed(&self) -> Result<u64> {
        let values = {
            let mut l = self.lock();
            let values = [l.read(0)?, l.read(1)?];
            let (current, closed) = (l.current(), l.closed());
            if l.has_counted_all(closed, values[closed]) {
                let through = l.s.epochs.closed_through;
                l.retire(through);
                if l.has_counted_all(current, values[current]) {
                    let submitted = l.s.submitted;
                    l.retire(submitted);
                }
            }
            values
        };
        self.release();
        Ok(values[0] + values[1])
    }

    /// Launches up to this count are known to have finished and no longer hold their
    /// arguments.
    pub fn retired(&self) -> u64 {
        self.lock().s.retired
    }

    /// References to argument objects the launcher holds for launches not yet
    /// retired (no DOCA call). For tests: it stays bounded while launches retire.
    #[doc(hidden)]
    pub fn kept(&self) -> usize {
        self.lock().s.keep.len()
    }

    /// Waits until every launch submitted so far has completed.
    pub fn wait_all(&self, timeout: Duration) -> Result<()> {
        self.wait_until(self.submitted(), true, "all launches", timeout)
    }

    #[inline]
    fn wait_until(
        &self,
        ticket: u64,
        whole: bool,
        kernel: &'static str,
        timeout: Duration,
    ) -> Result<()> {
        match self.look(ticket, whole)? {
            Look::Done => Ok(()),
            Look::Pending { closed, current } => {
                self.wait_timed(ticket, whole, kernel, timeout, closed, current)
            }
        }
    }

    /// The rest of a wait that was not complete at the first look (out of line:
    /// a wait for a launch that already finished stays short): timed from here.
    #[inline(never)]
    fn wait_timed(
        &self,
        ticket: u64,
        whole: bool,
        kernel: &'static str,
        timeout: Duration,
        mut closed: (usize, u64),
        mut current: Option<(usize, u64)>,
    ) -> Result<()> {
        let start = Instant::now();
        // As last read, not read again: a second look at both events would cost
        // every wait that finds its launch running two more DOCA calls.
        let first = self.lock().last_seen();
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
                // Not in the expression below: the guard would live through
                // `completed`, which locks again.
                let expected = self.lock().expected(ticket, whole);
                return Err(Error::LaunchTimeout(Box::new(LaunchDiagnosis {
                    kernel,
                    waited: start.elapsed(),
                    expected,
                    value_at_submit: first,
                    value_at_timeout: self.completed()?,
                    context_fatal: fatal,
                    fault,
                    kernel_max_run_time: self.dpa().limits().kernel_max_run_time,
                })));
            }
            self.pause(&mut backoff, closed, current)?;
            match self.look(ticket, whole)? {
                Look::Done => return Ok(()),
                Look::Pending {
                    closed: c,
                    current: n,
                } => (closed, current) = (c, n),
            }
        }
    }

    /// One pause of a blocking wait: on the closed event, which must move first,
    /// with the current event's wait task armed too when the wait can also end with
    /// the current epoch (both wake the engine's handle).
    ///
    /// Runs with the state unlocked (the sleep wakes wakers). The events are those
    /// of the look: if another thread switched epochs since, the pause only ends
    /// sooner or later, and the next look sees where things stand.
    fn pause(
        &self,
        backoff: &mut Backoff,
        closed: (usize, u64),
        current: Option<(usize, u64)>,
    ) -> Result<()> {
        if let Some((event, seen)) = current {
            if let Err(e) = self.events[event].watch(seen) {
                // Only wakes sooner: the sleep's slice bounds the delay.
                tracing::debug!(target: "doca_dpa::launch", error = %e, "arming the current event's wait task failed");
            }
        }
        self.events[closed.0].pause(backoff, closed.1)
    }

    /// Where a wait for `ticket` stands (see `Locked::look`); the references it
    /// retired are dropped with the lock released.
    fn look(&self, ticket: u64, whole: bool) -> Result<Look> {
        let look = self.lock().look(ticket, whole);
        self.release();
        look
    }

    /// Waits for every launch, bounded by the kernel run-time limit. Used by drop.
    ///
    /// The wait may run user code (wakers woken by the engine's progress); the
    /// caller guards against its unwinding.
    fn settle(&mut self) -> Result<()> {
        let s = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        let submitted = s.submitted;
        if s.retired >= submitted {
            return Ok(());
        }
        let bound = self.dpa().limits().kernel_max_run_time + Duration::from_secs(1);
        self.wait_until(submitted, true, "all launches", bound)
    }

    /// Leaks what the launches hold and both completion events (the DPA may still
    /// update them). Runs no user code.
    fn bury_in_flight(&mut self) {
        self.state
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .keep
            .bury_all();
        // SAFETY: taken once (drop calls this at most once, and then never touches
        // `events` again), to be leaked.
        crate::keep::bury(unsafe { ManuallyDrop::take(&mut self.events) });
    }
}

/// The launcher's state, locked, with its events: what a submission, a look or a
/// wait works on.
struct Locked<'a> {
    events: &'a [Event; 2],
    s: MutexGuard<'a, State>,
}

impl Locked<'_> {
    /// `doca_sync_event_get` of `events[event]`, remembered.
    #[inline]
    fn read(&mut self, event: usize) -> Result<u64> {
        let value = self.events[event].get()?;
        self.s.epochs.seen[event] = value;
        Ok(value)
    }

    /// Launches completed as last read (the two events' values, added).
    fn last_seen(&self) -> u64 {
        self.s.epochs.seen[0] + self.s.epochs.seen[1]
    }

    /// The index of the current event.
    fn current(&self) -> usize {
        usize::from(self.s.epochs.second_current)
    }

    /// The index of the event that is not current: the closed epoch's.
    fn closed(&self) -> usize {
        usize::from(!self.s.epochs.second_current)
    }

    /// Whether `events[event]`, seen at `value`, has counted every launch it was
    /// given. Each of them adds 1 when it finishes and nothing else updates it
    /// (the launcher exports no DPA handle of it, nor its pointer), so then every one
    /// has finished — whatever their order.
    fn has_counted_all(&self, event: usize, value: u64) -> bool {
        let mut given = self.s.epochs.assigned[event];
        if event == self.current() {
            given += self.s.submitted - self.s.epochs.closed_through;
        }
        value >= given
    }

    /// Records that every launch through `ticket` has finished, and releases their
    /// arguments.
    fn retire(&mut self, ticket: u64) {
        // The references are dropped by `Launcher::release`, with the lock
        // released (a last reference's drop runs `tracing`, user code).
        if ticket > self.s.retired {
            self.s.retired = ticket;
        }
    }

    /// The closed event's value while launches of the closed epoch still run;
    /// `None` once every one has (then it, and every older epoch, is retired).
    #[inline]
    fn closed_pending(&mut self) -> Result<Option<u64>> {
        if self.s.retired >= self.s.epochs.closed_through {
            return Ok(None);
        }
        self.read_closed()
    }

    /// `closed_pending` when the closed epoch is not known to have finished: a
    /// look at its event.
    fn read_closed(&mut self) -> Result<Option<u64>> {
        let through = self.s.epochs.closed_through;
        let closed = self.closed();
        let seen = self.read(closed)?;
        if !self.has_counted_all(closed, seen) {
            return Ok(Some(seen));
        }
        // Its event counted all its launches, and every older epoch is retired
        // (the epoch was closed only once the one before it had finished): every
        // launch through its last ticket has finished.
        self.retire(through);
        Ok(None)
    }

    /// Closes the current epoch: later launches count on the other event. Only once
    /// the closed epoch has finished (`closed_pending` is `None`), so an event is
    /// given new launches only when none of its earlier ones still runs, and two
    /// epochs are all there is to track.
    fn switch(&mut self) {
        let (through, submitted) = (self.s.epochs.closed_through, self.s.submitted);
        debug_assert!(self.s.retired >= through);
        let current = self.current();
        self.s.epochs.assigned[current] += submitted - through;
        self.s.epochs.closed_through = submitted;
        let next = self.closed();
        self.s.epochs.second_current = next == 1;
        self.s.current = self.events[next].as_ptr();
    }

    /// Closes the epoch of `ticket` if it is the current one and the closed one has
    /// finished, so that launches submitted from now on do not delay a wait for
    /// it.
    fn close_epoch_of(&mut self, ticket: u64) -> Result<()> {
        if ticket > self.s.epochs.closed_through && self.closed_pending()?.is_none() {
            self.switch();
        }
        Ok(())
    }

    /// Where a wait for `ticket` stands (a wait for every launch through it when
    /// `whole`), closing its epoch when it is still open and can be closed. One
    /// `doca_sync_event_get` when the launch has finished.
    fn look(&mut self, ticket: u64, whole: bool) -> Result<Look> {
        if self.s.retired >= ticket {
            return Ok(Look::Done);
        }
        let through = self.s.epochs.closed_through;
        let current = self.current();
        match self.closed_pending()? {
            // Retired with the closed epoch.
            None if ticket <= through => Ok(Look::Done),
            None => {
                // In the current epoch, and every launch before it finished.
                let seen = self.read(current)?;
                if self.has_counted_all(current, seen) {
                    self.retire(self.s.submitted);
                    return Ok(Look::Done);
                }
                // Launches submitted from now on count on the other event: the
                // wait is for this event's count.
                self.switch();
                Ok(Look::Pending {
                    closed: (self.closed(), seen),
                    current: None,
                })
            }
            Some(closed) if whole || ticket <= through => Ok(Look::Pending {
                closed: (self.closed(), closed),
                current: None,
            }),
            Some(closed) => {
                // In the current epoch, behind a closed one that still runs:
                // finished when the current event has counted its whole epoch
                // (retired only once the closed epoch has finished too).
                let seen = self.read(current)?;
                if self.has_counted_all(current, seen) {
                    return Ok(Look::Done);
                }
                Ok(Look::Pending {
                    closed: (self.closed(), closed),
                    current: Some((current, seen)),
                })
            }
        }
    }

    /// A look at the events from a submission whose queue has grown: retires what
    /// has finished and closes the current epoch when it can, so that a program
    /// that launches and never waits has its arguments released.
    #[cold]
    fn poll_retired(&mut self) {
        // A failed look releases nothing; the next submission looks again.
        let _ = self.look(self.s.submitted, true);
    }

    /// The last ticket a wait for `ticket` needs to see counted: `ticket` itself
    /// for a wait for every launch through it (`whole`), else the end of its epoch
    /// (so far, for the current one).
    fn expected(&self, ticket: u64, whole: bool) -> u64 {
        let through = self.s.epochs.closed_through;
        if whole {
            ticket
        } else if ticket <= through {
            through
        } else {
            self.s.submitted
        }
    }
}

impl Drop for Launcher {
    fn drop(&mut self) {
        // The wait runs user code (wakers) that may panic: then everything the
        // device may still use is leaked before the panic goes on.
        let settled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.settle()));
        match settled {
            Ok(Ok(())) => {
                // SAFETY: dropped once, here; every launch has completed (both events
                // counted all theirs), so none can update either event.
                unsafe { ManuallyDrop::drop(&mut self.events) };
            }
            Ok(Err(e)) => {
                let s = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
                let in_flight = s.submitted - s.retired;
                self.bury_in_flight();
                // Reported once nothing the device uses is in this frame.
                tracing::warn!(
                    target: "doca_dpa::launch",
                    error = %e,
                    in_flight,
                    "launches did not complete before the launcher was dropped: their \
                     arguments and the completion events are leaked, not freed"
                );
            }
            Err(panic) => {
                self.bury_in_flight();
                std::panic::resume_unwind(panic);
            }
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
/// Waiting returns once the event of the launch's epoch has counted every launch
/// of that epoch (see [`Launcher`]'s epochs): launches on one context may finish
/// out of order, so this is the earliest point at which this one is known to be
/// done. A wait closes the epoch, so launches submitted after the wait began do not
/// delay it.
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
    /// Waits for completion, polling the completion events
    /// (`doca_sync_event_get`) and the context's health
    /// (`doca_dpa_peek_at_last_error`).
    ///
    /// On timeout or a fatal context the error is
    /// [`Error::LaunchTimeout`] with a [`LaunchDiagnosis`]: whether the events
    /// moved, whether the context is fatal (and, on the software DPA, the fault
    /// report), and the kernel run-time limit. The launch's arguments stay alive
    /// either way.
    pub fn wait(self, timeout: Duration) -> Result<()> {
        self.launcher
            .wait_until(self.ticket, false, self.kernel, timeout)
    }

    /// The launch's completion as a `Future`: resolves once the launch is known to
    /// have finished (`doca_pe_progress`, `doca_sync_event_get`,
    /// `doca_dpa_peek_at_last_error`, the events' wait tasks re-armed with
    /// `doca_task_submit`), or with [`Error::ContextFatal`] when the context turned
    /// fatal. Making the future closes the launch's epoch when it can, so launches
    /// submitted after this call do not delay it. The launcher must have been made
    /// with [`Launcher::with_engine`] ([`Error::Unavailable`] otherwise). Dropping
    /// the future is always safe.
    pub fn completion(self) -> LaunchCompletion<'l> {
        self.launcher.completion_of(self.ticket, false)
    }

    /// Whether the launch is known to have finished (`doca_sync_event_get`).
    /// Closes its epoch when it can, as a wait does.
    pub fn is_complete(&self) -> Result<bool> {
        Ok(matches!(
            self.launcher.look(self.ticket, false)?,
            Look::Done
        ))
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
    /// [`Launch::completion`]; launches submitted after this call are not waited
    /// for).
    pub fn all_completed(&self) -> LaunchCompletion<'_> {
        self.completion_of(self.submitted(), true)
    }

    fn completion_of(&self, ticket: u64, whole: bool) -> LaunchCompletion<'_> {
        // Closed now, not at the first poll, so that launches submitted before
        // that poll stay out of the epoch. A failed look changes nothing: the
        // first poll looks again and reports it.
        let _ = self.lock().close_epoch_of(ticket);
        self.release();
        LaunchCompletion {
            launcher: self,
            ticket,
            whole,
        }
    }
}

/// The future of [`Launch::completion`] and [`Launcher::all_completed`]. It borrows
/// the launcher, which keeps the launches' arguments alive.
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct LaunchCompletion<'l> {
    launcher: &'l Launcher,
    ticket: u64,
    /// Waits for every launch through `ticket`, not for `ticket` alone.
    whole: bool,
}

impl std::future::Future for LaunchCompletion<'_> {
    type Output = Result<()>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<()>> {
        let (l, ticket, whole) = (self.launcher, self.ticket, self.whole);
        if l.retired() >= ticket {
            return std::task::Poll::Ready(Ok(()));
        }
        // Both events are on one engine (`Launcher::with_engine`), or neither.
        let engine = match l.events[0].waiter() {
            Ok(w) => w.engine(),
            Err(e) => return std::task::Poll::Ready(Err(e)),
        };
        engine.poll_until(cx, || match l.look(ticket, whole)? {
            Look::Done => Ok(Some(())),
            Look::Pending { closed, current } => {
                if l.dpa().health()? == crate::Health::Fatal {
                    return Err(l.dpa().fatal_error("doca_dpa_peek_at_last_error"));
                }
                l.events[closed.0].watch(closed.1)?;
                if let Some((event, seen)) = current {
                    l.events[event].watch(seen)?;
                }
                Ok(None)
            }
        })
    }
}

/// The context pointer handed to an RPC's host thread.
struct RpcTarget(*mut sys::doca_dpa);

// SAFETY: the pointer is used by the RPC's host thread only for its one
// `doca_dpa_rpc` call, and while that call may run no other thread makes a DOCA
// call with the context: `Dpa::rpc` holds the context's `RpcGate` from before the
// call until it returned (or stores the call in it after a timeout), and every
// use of the context (`Dpa::as_ptr`, the teardown) first waits at the gate. The
// `Dpa` outlives the call (its drop settles the gate too).
unsafe impl Send for RpcTarget {}

impl RpcTarget {
    // A method, so that a closure captures the whole (`Send`) wrapper rather than
    // its raw-pointer field.
    fn get(&self) -> *mut sys::doca_dpa {
        self.0
    }
}

impl Dpa {
    /// Calls an RPC function and returns its `uint64_t` result
    /// (`doca_dpa_rpc`, EXPERIMENTAL, through the function's generated launcher),
    /// waiting at most `timeout` for it.
    ///
    /// `doca_dpa_rpc` blocks until the device function returns, so the call is made
    /// on a host thread of its own (one per RPC, a few tens of microseconds) while
    /// this thread waits for its result. If the result does not come within
    /// `timeout`, the error is [`Error::RpcTimeout`] with an [`RpcDiagnosis`]
    /// instead of blocking until the device's kernel run-time limit stops the
    /// function. The function may still run then:
    ///
    /// - what the arguments keep alive (DPA memory, events, completions) is held
    ///   until the kernel run-time limit has passed with the context healthy, and
    ///   leaked, never freed, if the context turned fatal (a function that overran
    ///   the limit was stopped);
    /// - DOCA DPA objects are not thread-safe, so the next use of this context
    ///   (anything that calls DOCA with it, through [`Dpa::as_ptr`], and its
    ///   teardown) first waits for the `doca_dpa_rpc` call to return. Objects that
    ///   DOCA calls by their own handle (an event's `set`, say) do not wait: that is
    ///   how a host releases a function waiting on an event.
    ///
    /// If DOCA reports a failure on a context that is no longer healthy, the RPC
    /// may still be running on the DPA, so what the arguments keep alive is leaked
    /// rather than released. Fails with [`Error::Unavailable`] if the host thread
    /// cannot be started.
    pub fn rpc<S: RpcSig, A: KernelArgs<S::Params, S>>(
        &self,
        rpc: &Rpc<S>,
        args: A,
        timeout: Duration,
    ) -> Result<u64> {
        const CALL: &str = "doca_dpa_rpc";
        if !rpc.belongs_to(self.app()) {
            return Err(foreign_function(CALL, rpc.name(), self.app()));
        }
        let mut keep = KeepQueue::default();
        let abi =
            args.lower_all(&mut keep.recorder(0, Some(crate::keep::CtxId::of(self)), CALL))?;
        // One call on the context at a time: waits for an earlier timed-out call
        // and for an RPC in progress on another thread, then keeps every other use
        // of the context waiting until this call returned (`RpcGate`). The call is
        // made outside the process-wide DOCA lock, which would otherwise stop every
        // DOCA call of the process while the function runs (an event's `set` that
        // the function waits for, say).
        let gate = self.rpc_gate().enter();
        self.rpc_gate().begin();
        let target = RpcTarget(self.ptr_in_gate());
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let started = Instant::now();
        let thread = std::thread::Builder::new()
            .name("doca-dpa-rpc".into())
            .spawn(move || {
                let mut ret = 0u64;
                // SAFETY: a started context (no other thread calls DOCA with it
                // while this call may run: `RpcTarget`) and an RPC of its
                // application (checked above) whose generated launcher passes the
                // lowered arguments with the C parameter types; the values come
                // from the sealed `KernelArgs` (so from `KernelArg` impls,
                // context-checked) and `keep` holds what they reference until the
                // call is known to have returned (or for ever, when it may still
                // run on a fatal context).
                let rc = unsafe { S::call(target.get(), &mut ret, abi) };
                // The receiver may be gone (a drop settled the gate): nothing to do.
                let _ = tx.send((rc, ret));
            })
            .map_err(|e| Error::Unavailable {
                what: "a host thread for doca_dpa_rpc",
                reason: e.to_string(),
            });
        let thread = match thread {
            Ok(thread) => thread,
            Err(e) => {
                self.rpc_gate().end(gate);
                return Err(e);
            }
        };
        let call = crate::dpa::RpcCall {
            outcome: rx,
            thread,
        };
        let rc = match call.outcome.recv_timeout(timeout) {
            Ok((rc, ret)) => {
                call.join();
                self.rpc_gate().end(gate);
                crate::error::check(CALL, rc).map(|()| ret)
            }
            // The thread ended without a result (it cannot panic before sending).
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                call.join();
                self.rpc_gate().end(gate);
                Err(Error::Unavailable {
                    what: "the result of doca_dpa_rpc",
                    reason: "its host thread ended without one".into(),
                })
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                self.rpc_gate().hold(gate, call);
                crate::keep::defer(self, keep);
                return Err(Error::RpcTimeout(Box::new(RpcDiagnosis {
                    function: rpc.name(),
                    waited: started.elapsed(),
                    kernel_max_run_time: self.limits().kernel_max_run_time,
                })));
            }
        };
        match rc {
            Ok(ret) => Ok(ret),
            // The call has returned: on a healthy context a failed RPC is over.
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
