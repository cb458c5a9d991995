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
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use doca_dpa_sys as sys;

use crate::app::{
    foreign_function, Kernel, KernelArgs, KernelFn, KernelSig, RawLaunch, RpcFn, RpcSig,
};
use crate::core::{Borrowed, Guarded};
use crate::dpa::Dpa;
use crate::error::{Error, ErrorCode, LaunchDiagnosis, Result, RpcDiagnosis};
use crate::keep::{KeepAlive, KeepQueue, Staged};
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
/// (the epochs below, what the launches keep alive) is guarded by its context
/// family's lock (`docs/concurrency.md`), held for one submission or one look at
/// the events together with its DOCA call, never while user code runs: a
/// launch's arguments are lowered before it is taken, so a
/// [`KernelArg`](crate::KernelArg) whose `lower` launches on the same launcher
/// (or waits, or looks at it) works:
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
    /// The epochs and what the launches keep alive, under the family's lock for
    /// one submission or one look at the events (with its DOCA calls); never
    /// while user code runs: argument lowering, wakers, reactors and the drops of
    /// released references run with it released.
    state: Guarded<State>,
    /// `State::submitted` and `State::retired`, stored under the lock after them,
    /// so that reading them takes no lock.
    submitted: AtomicU64,
    retired: AtomicU64,
    /// The app-symbol reader (`Kernel`'s) of the last kernel found to belong to
    /// the context's application, as an address: a kernel with the same reader
    /// reads the same symbol, so the check needs no call (a reader at another
    /// address is only checked again).
    checked_app: std::sync::atomic::AtomicUsize,
}

/// What a launcher tracks, under the family's lock.
struct State {
    /// The fixed arguments of the next launch, kept filled in: the context, the
    /// current event (the only thing a submission reads of the epochs: it changes
    /// only in `State::switch`, off the submission path), one count, `_add`. A
    /// submission writes its thread count and gate into it and hands it to the
    /// kernel's generated launcher. Its pointers (taken under the family's guard
    /// when the launcher was made) are reached under the family's lock only:
    /// they live in this state.
    raw: RawLaunch,
    /// The two events' pointers, for `State::switch`.
    event_ptrs: [*mut sys::doca_sync_event; 2],
    submitted: u64,
    /// Launches up to this ticket are known to have finished; their references
    /// are dropped by `Launcher::release`.
    retired: u64,
    epochs: Epochs,
    keep: KeepQueue,
}

// SAFETY: `raw` and `event_ptrs` hold the pointers of the launcher's context and of
// its own events (all of one family) and of a gate event of that family the
// submission keeps alive, only read under the family's lock (the state is a
// `Guarded` of the family); the rest is plain data and `Send` references.
unsafe impl Send for State {}

impl State {
    /// `doca_sync_event_get` of `events[event]`, by a thread that borrowed the
    /// state (so holds the family's lock).
    #[inline(always)]
    fn read(&self, event: usize) -> Result<u64> {
        let mut v = 0;
        // SAFETY: one of the launcher's started events, which live as long as it;
        // their pointers are in this state, which is reached under the family's
        // lock only (the event's own domain: `Launcher::on`); valid out-pointer.
        let rc = unsafe { sys::doca_sync_event_get(self.event_ptrs[event], &mut v) };
        crate::error::check("doca_sync_event_get", rc)?;
        Ok(v)
    }

    /// Closes the current epoch: later launches count on the other event. Only once
    /// the closed epoch has finished (`closed_pending` is `None`), so an event is
    /// given new launches only when none of its earlier ones still runs, and two
    /// epochs are all there is to track.
    #[inline(never)]
    fn switch(&mut self) {
        let (through, submitted) = (self.epochs.closed_through, self.submitted);
        debug_assert!(self.retired >= through);
        let current = usize::from(self.epochs.second_current);
        self.epochs.assigned[current] += submitted - through;
        self.epochs.closed_through = submitted;
        let next = usize::from(!self.epochs.second_current);
        self.epochs.second_current = next == 1;
        self.raw.comp_event = self.event_ptrs[next];
    }
}

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
        // A `Debug` from a thread that holds the family's lock finds it in use.
        let mut d = f.debug_struct("Launcher");
        let look = self.state.with(|s| {
            (
                s.submitted,
                s.retired,
                s.epochs.closed_through,
                usize::from(s.epochs.second_current),
            )
        });
        match look {
            Some((submitted, retired, closed_through, current)) => d
                .field("submitted", &submitted)
                .field("retired", &retired)
                .field("closed_through", &closed_through)
                .field("current_event", &current),
            None => d.field("state", &"<in use>"),
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
        Launcher::on([Event::completion(dpa, None)?, Event::completion(dpa, None)?])
    }

    /// Like [`Launcher::new`], with both completion events driven by `engine`, so
    /// that launches can be awaited ([`Launch::completion`],
    /// [`Launcher::all_completed`]) and [`Launch::wait`] sleeps on the engine's
    /// handle instead of spinning (see
    /// [`CompletionEvent::with_engine`](crate::CompletionEvent::with_engine) for the
    /// DOCA calls).
    pub fn with_engine(dpa: &Dpa, engine: &crate::Engine) -> Result<Launcher> {
        Launcher::on([
            Event::completion(dpa, Some(engine))?,
            Event::completion(dpa, Some(engine))?,
        ])
    }

    fn on(events: [Event; 2]) -> Result<Launcher> {
        let dpa = events[0].dpa();
        // The pointers the state keeps, taken under the family's guard.
        let (ctx, event_ptrs) = {
            let guard = dpa.enter()?;
            (
                dpa.as_ptr(&guard),
                [events[0].as_ptr(&guard), events[1].as_ptr(&guard)],
            )
        };
        Ok(Launcher {
            state: Guarded::new(
                dpa.domain(),
                State {
                    raw: RawLaunch {
                        dpa: ctx,
                        wait_event: std::ptr::null_mut(),
                        wait_threshold: 0,
                        comp_event: event_ptrs[0],
                        comp_count: 1,
                        num_threads: 1,
                        add: 1,
                    },
                    event_ptrs,
                    submitted: 0,
                    retired: 0,
                    epochs: Epochs {
                        second_current: false,
                        closed_through: 0,
                        assigned: [0, 0],
                        seen: [0, 0],
                    },
                    keep: KeepQueue::with_capacity(64),
                },
            ),
            submitted: AtomicU64::new(0),
            retired: AtomicU64::new(0),
            checked_app: std::sync::atomic::AtomicUsize::new(0),
            events: ManuallyDrop::new(events),
        })
    }

    /// The state, with the family's lock held until the result drops (see
    /// `Guarded`). Fails only on a thread that holds that lock already: inside a
    /// [`FamilyGuard`](crate::FamilyGuard), or inside the launcher's own
    /// bookkeeping, which runs no user code but may allocate (a global allocator
    /// that uses the launcher gets an error, not a second borrow of the state).
    #[inline(always)]
    fn lock(&self) -> Result<Locked<'_>> {
        match self.state.lock() {
            Some(s) => Ok(Locked { l: self, s }),
            None => Err(reentered()),
        }
    }

    /// Drops the references of retired launches, a batch at a time with the lock
    /// released: a last reference's drop runs `tracing` (user code), which may
    /// use this launcher.
    #[inline(never)]
    fn release(&self) {
        const BATCH: usize = 16;
        loop {
            let mut batch: [Option<KeepAlive>; BATCH] = Default::default();
            let full = self.state.with(|s| {
                for slot in &mut batch {
                    match s.keep.pop_through(s.retired) {
                        Some(k) => *slot = Some(k),
                        None => return false,
                    }
                }
                true
            });
            drop(batch);
            // Not full (or from inside the bookkeeping: released by a later call).
            if full != Some(true) {
                return;
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
    pub fn launch<K: KernelFn, A: KernelArgs<<K::Sig as KernelSig>::Params, K::Sig>>(
        &self,
        kernel: &K,
        threads: u32,
        args: A,
    ) -> Result<Launch<'_>> {
        self.submit(None, kernel.kernel(), threads, &args)
    }

    /// Like [`Launcher::launch`], held until `gate`'s event reaches its
    /// threshold.
    pub fn launch_gated<K: KernelFn, A: KernelArgs<<K::Sig as KernelSig>::Params, K::Sig>>(
        &self,
        gate: Gate<'_>,
        kernel: &K,
        threads: u32,
        args: A,
    ) -> Result<Launch<'_>> {
        self.submit(Some(gate), kernel.kernel(), threads, &args)
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
        if kernel.app_reader() != self.checked_app.load(Ordering::Relaxed) {
            if !kernel.belongs_to(dpa.app()) {
                return Err(foreign_function(CALL, kernel.name(), dpa.app()));
            }
            self.checked_app
                .store(kernel.app_reader(), Ordering::Relaxed);
        }
        if let Some(g) = gate {
            if !g.event.0.dpa().same_context(dpa) {
                return Err(foreign_gate(CALL));
            }
        }
        // Lowered before the family's lock is taken: `KernelArg::lower` is user code
        // (it may make DOCA calls, wait at the RPC gate, or launch on this
        // launcher). What the values reference is recorded in `staged`, which the
        // launcher adopts once DOCA accepted the launch; if it is refused, or a
        // value fails to lower, `staged` releases them when it drops, here, with
        // no lock held.
        let mut staged = Staged::default();
        let abi = args.lower_all(&mut staged.recorder(Some(crate::keep::CtxId::of(dpa)), CALL))?;
        if let Some(g) = gate {
            staged.recorder(None, CALL).keep(KeepAlive::new(&g.event.0));
        }
        // Known here, before any call the compiler cannot see through: a launch
        // whose arguments reference nothing (most of them) skips the adoption and
        // the drop below altogether.
        let kept = !staged.is_empty();
        // Under the family's guard, as every call on the context: an RPC of the
        // family in progress is waited for with the lock released (the context's
        // pointer is in `raw`).
        let mut s = loop {
            let Some(s) = self.state.lock() else {
                return Err(reentered());
            };
            if s.held().guard().is_some() {
                break s;
            }
            drop(s);
            dpa.domain().wait_idle();
        };
        let (held, st) = s.parts();
        let (wait_event, wait_threshold) = match gate {
            Some(g) => (g.event.0.as_ptr(held), u64::from(g.threshold)),
            None => (std::ptr::null_mut(), 0),
        };
        st.raw.num_threads = threads;
        st.raw.wait_event = wait_event;
        st.raw.wait_threshold = wait_threshold;
        // SAFETY: under the family's guard (`s`, not busy); a started context; a started
        // completion event it publishes (`raw.comp_event`, one of `events`, which
        // live as long as the launcher); a gate event of the same context (checked
        // above) that it subscribes to, kept alive in `staged`; a kernel of its
        // application (checked above, or a kernel reading the same application
        // symbol as one that was) whose generated launcher passes the lowered
        // arguments with the C parameter types. The values come from the sealed
        // `KernelArgs`, so from `KernelArg` impls (unsafe to implement), each of
        // which checked its object's context against this one and recorded what
        // it references in `staged`, adopted below for this ticket before the lock
        // is released (so before any look can retire it).
        let rc = unsafe { S::launch(&st.raw, abi) };
        if rc != sys::DOCA_SUCCESS as sys::doca_error_t {
            drop(s);
            return Err(self.explain(crate::core::doca_error(CALL, ErrorCode(rc))));
        }
        let ticket = st.submitted + 1;
        st.submitted = ticket;
        self.submitted.store(ticket, Ordering::Release);
        if kept {
            st.keep.adopt(&mut staged, ticket);
        }
        let poll = st.keep.len() >= RETIRE_AT;
        drop(s);
        if kept {
            drop(staged);
        } else {
            // Nothing recorded: no storage either, nothing for a drop to do.
            std::mem::forget(staged);
        }
        if poll {
            self.poll_retired();
        }
        Ok(Launch {
            launcher: self,
            kernel: kernel.name(),
            ticket,
        })
    }

    /// A look at the events after a submission whose queue has grown: retires
    /// what has finished and closes the current epoch when it can, so that a
    /// program that launches and never waits has its arguments released.
    #[cold]
    #[inline(never)]
    fn poll_retired(&self) {
        // A failed look releases nothing; the next submission looks again.
        let _ = self.look(self.submitted(), true);
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
        self.submitted.load(Ordering::Acquire)
    }

    /// Launches completed so far: the values of the two completion events, added
    /// (`doca_sync_event_get` on each).
    pub fn completed(&self) -> Result<u64> {
        let values = {
            let mut l = self.lock()?;
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
        self.retired.load(Ordering::Acquire)
    }

    /// References to argument objects the launcher holds for launches not yet
    /// retired (no DOCA call). For tests: it stays bounded while launches retire.
    /// (0 on a thread that holds the family's lock.)
    #[doc(hidden)]
    pub fn kept(&self) -> usize {
        self.state.with(|s| s.keep.len()).unwrap_or(0)
    }

    /// Waits until every launch submitted so far has completed.
    pub fn wait_all(&self, timeout: Duration) -> Result<()> {
        self.wait_until(self.submitted(), true, "all launches", timeout)
    }

    #[inline(never)]
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
        let first = self.lock()?.last_seen();
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
                let expected = self.lock()?.expected(ticket, whole);
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

    /// A wait whose first look (`Launch::wait`'s) did not settle it, with the
    /// state still locked (`held`): released, then the full wait.
    #[inline(never)]
    fn wait_unsettled(
        &self,
        held: Borrowed<'_, State>,
        ticket: u64,
        kernel: &'static str,
        timeout: Duration,
    ) -> Result<()> {
        drop(held);
        self.wait_until(ticket, false, kernel, timeout)
    }

    /// A wait that retired launches whose arguments are kept (`held`, the state,
    /// locked): releases them once unlocked.
    #[inline(never)]
    fn finish_with_release(&self, held: Borrowed<'_, State>) -> Result<()> {
        drop(held);
        self.release();
        Ok(())
    }

    /// Where a wait for `ticket` stands (see `Locked::look`); the references it
    /// retired are dropped with the lock released (and only then is the lock
    /// taken again: a launch that references nothing releases nothing).
    #[inline(always)]
    fn look(&self, ticket: u64, whole: bool) -> Result<Look> {
        let (look, due) = {
            let mut l = self.lock()?;
            let look = l.look(ticket, whole);
            (look, l.s.keep.due(l.s.retired))
        };
        if due {
            self.release();
        }
        look
    }

    /// Waits for every launch, bounded by the kernel run-time limit. Used by drop.
    ///
    /// The wait may run user code (wakers woken by the engine's progress); the
    /// caller guards against its unwinding.
    fn settle(&mut self) -> Result<()> {
        let s = self.state.get_mut();
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
        self.state.get_mut().keep.bury_all();
        // SAFETY: taken once (drop calls this at most once, and then never touches
        // `events` again), to be leaked.
        crate::keep::bury(unsafe { ManuallyDrop::take(&mut self.events) });
    }
}

/// The launcher's state, under the family's lock, with the launcher (its events
/// and the counts readable without the lock): what a submission, a look or a
/// wait works on.
struct Locked<'a> {
    l: &'a Launcher,
    s: Borrowed<'a, State>,
}

impl Locked<'_> {
    /// `doca_sync_event_get` of `events[event]`, remembered.
    #[inline(always)]
    fn read(&mut self, event: usize) -> Result<u64> {
        let value = self.s.read(event)?;
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
            self.l.retired.store(ticket, Ordering::Release);
        }
    }

    /// The closed event's value while launches of the closed epoch still run;
    /// `None` once every one has (then it, and every older epoch, is retired).
    #[inline(always)]
    fn closed_pending(&mut self) -> Result<Option<u64>> {
        if self.s.retired >= self.s.epochs.closed_through {
            return Ok(None);
        }
        self.read_closed()
    }

    /// `closed_pending` when the closed epoch is not known to have finished: a
    /// look at its event.
    #[inline(never)]
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

    /// `State::switch`.
    fn switch(&mut self) {
        self.s.switch();
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
    #[inline(always)]
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
                let s = self.state.get_mut();
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
fn reentered() -> Error {
    Error::Unavailable {
        what: "the launcher",
        reason: "it was used by a thread that holds its context family's lock: inside \
                 a FamilyGuard, or from the launcher's own bookkeeping (which \
                 runs no user code but may allocate: a global allocator must not use a \
                 launcher)"
            .to_owned(),
    }
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
        // The first look, inline for the two common cases: the launch is known
        // finished, or it is in the current epoch behind a closed one that has
        // finished (one `doca_sync_event_get`). What `Locked::look` does in those
        // cases, with one lock and nothing moved around: a wait that finds its
        // launch finished (a wait that comes late) costs the lock and the DOCA
        // call and little else. A failed DOCA call is the wait's error, as in
        // the full wait, where every other case goes (before any DOCA call).
        let (l, ticket) = (self.launcher, self.ticket);
        let Some(mut s) = l.state.lock() else {
            return l.wait_until(ticket, false, self.kernel, timeout);
        };
        if s.retired >= ticket {
            return Ok(());
        }
        let through = s.epochs.closed_through;
        if ticket <= through || s.retired < through {
            return l.wait_unsettled(s, ticket, self.kernel, timeout);
        }
        // Done once the current event has counted every launch it was given
        // (`Locked::has_counted_all`).
        let current = usize::from(s.epochs.second_current);
        let given = s.epochs.assigned[current] + (s.submitted - through);
        let seen = match s.read(current) {
            Ok(seen) => seen,
            Err(e) => {
                drop(s);
                return Err(e);
            }
        };
        if seen >= given {
            // Every launch through the last submitted has finished
            // (`Locked::retire`; `retired` is below `ticket`, so below it).
            let submitted = s.submitted;
            s.retired = submitted;
            l.retired.store(submitted, Ordering::Release);
            if s.keep.len() != 0 {
                return l.finish_with_release(s);
            }
            return Ok(());
        }
        s.epochs.seen[current] = seen;
        // Launches submitted from now on count on the other event: the wait is
        // for this event's count.
        s.switch();
        drop(s);
        l.wait_timed(ticket, false, self.kernel, timeout, (current, seen), None)
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
        if let Ok(mut l) = self.lock() {
            let _ = l.close_epoch_of(ticket);
        }
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
        let engine = match l.events[0].waiter(crate::sync_event::Awaited::Launch) {
            Ok(w) => w.engine(),
            Err(e) => return std::task::Poll::Ready(Err(e)),
        };
        engine.poll_until(cx, || match l.look(ticket, whole)? {
            Look::Done => Ok(Some(())),
            Look::Pending { closed, current } => {
                l.dpa().poll_fatal(cx, "doca_dpa_peek_at_last_error")?;
                l.events[closed.0].watch(closed.1)?;
                if let Some((event, seen)) = current {
                    l.events[event].watch(seen)?;
                }
                Ok(None)
            }
        })
    }
}

/// The context pointer handed to the context's RPC thread with one call.
struct RpcTarget(*mut sys::doca_dpa);

// SAFETY: the pointer was taken under the family's guard, which `Dpa::rpc` turned
// into the family's busy mark (`Domain::begin_busy`) before handing it over: until
// the call returned no guard of the family can be made, so no other thread makes
// a DOCA call on the context or on an object made on it meanwhile, and the RPC
// thread uses it only for the one `doca_dpa_rpc` call it came with. The `Dpa`
// outlives the call (what the caller's or the deferred arguments hold keeps it;
// the RPC thread is joined by the family's drop).
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
    /// on the context's RPC thread (a host thread started by its first RPC and
    /// kept for the next ones) while this thread waits for its result, with the
    /// family marked busy: no [`FamilyGuard`](crate::FamilyGuard) of the family can
    /// be had until the call returned, so no other DOCA call on its contexts or on
    /// the objects made on them overlaps it (they wait), while other families'
    /// calls go on. Objects that DOCA calls by their own handle (an event's `set`,
    /// say) do not wait: that is how a host releases a function waiting on an
    /// event. If the result does not come within `timeout`, the error is
    /// [`Error::RpcTimeout`] with an [`RpcDiagnosis`] instead of blocking until the
    /// device's kernel run-time limit stops the function. The function may still
    /// run then:
    ///
    /// - what the arguments keep alive (DPA memory, events, completions) is held
    ///   until the kernel run-time limit has passed with the context healthy, and
    ///   leaked, never freed, if the context turned fatal (a function that overran
    ///   the limit was stopped) or the device has no limit (nothing stops it);
    /// - the family stays busy until the `doca_dpa_rpc` call returns: the next use
    ///   of the family's contexts (anything that calls DOCA with them, and their
    ///   teardown) waits for it, a future's poll does not (it is woken).
    ///
    /// If DOCA reports a failure on a context that is no longer healthy, the RPC
    /// may still be running on the DPA, so what the arguments keep alive is leaked
    /// rather than released. Fails with [`Error::Unavailable`] if the RPC thread
    /// cannot be started, or on a thread that holds the family's lock (inside a
    /// [`FamilyGuard`](crate::FamilyGuard)): the call would keep the lock through
    /// the RPC, which may be waiting for the host to take it (an event's `set`).
    pub fn rpc<R: RpcFn, A: KernelArgs<<R::Sig as RpcSig>::Params, R::Sig>>(
        &self,
        rpc: &R,
        args: A,
        timeout: Duration,
    ) -> Result<u64> {
        const CALL: &str = "doca_dpa_rpc";
        let rpc = rpc.rpc();
        if !rpc.belongs_to(self.app()) {
            return Err(foreign_function(CALL, rpc.name(), self.app()));
        }
        let family = self.domain();
        if family.held_here() {
            return Err(crate::sync_event::held_while_waiting("doca_dpa_rpc"));
        }
        let mut keep = KeepQueue::default();
        let abi =
            args.lower_all(&mut keep.recorder(0, Some(crate::keep::CtxId::of(self)), CALL))?;
        // One RPC of the family at a time: waits for one in progress on another
        // thread, and collects the outcome of a timed-out one (reported with no
        // lock held, below).
        // Said before the gate's mutex is taken (a subscriber may make an RPC).
        family.report_ended();
        let mut state = self.family().gate.enter();
        let started = Instant::now();
        let worker = match state.worker(family) {
            Ok(w) => w,
            Err(e) => {
                return Err(Error::Unavailable {
                    what: "a host thread for doca_dpa_rpc",
                    reason: e.to_string(),
                })
            }
        };
        // The context's pointer under the family's guard, which then becomes the
        // family's busy mark: the call is made outside the lock (holding it would
        // stop every call of the family, the event update the function may wait
        // for included), and no guard of the family is had until it returned.
        let guard = family.enter_quietly()?;
        let target = RpcTarget(self.as_ptr(&guard));
        family.begin_busy(guard)?;
        let call: crate::rpc_gate::RpcJob = Box::new(move || {
            let mut ret = 0u64;
            // SAFETY: a started context (no other thread calls DOCA with it while
            // this call may run: `RpcTarget`) and an RPC of its application
            // (checked above) whose generated launcher passes the lowered
            // arguments with the C parameter types; the values come from the
            // sealed `KernelArgs` (so from `KernelArg` impls, context-checked) and
            // `keep` holds what they reference until the call is known to have
            // returned (or for ever, when it may still run on a fatal context).
            let rc = unsafe { <R::Sig as RpcSig>::call(target.get(), &mut ret, abi) };
            (rc, ret)
        });
        let outcome = match worker.send(call) {
            Some(call) => worker.outcome(&call, timeout),
            None => Err(std::sync::mpsc::RecvTimeoutError::Disconnected),
        };
        let rc = match outcome {
            Ok((rc, ret)) => {
                drop(state);
                family.end_busy(crate::core::WakeFrom::Here);
                crate::error::check(CALL, rc).map(|()| ret)
            }
            // The thread is gone without an outcome (it cannot panic; the call
            // was not made or ended with it): the next RPC starts another.
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                state.lost_worker();
                drop(state);
                family.end_busy(crate::core::WakeFrom::Here);
                Err(Error::Unavailable {
                    what: "the result of doca_dpa_rpc",
                    reason: "its host thread ended without one".into(),
                })
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                // The RPC thread ends the busy mark when the call returns.
                state.owe();
                drop(state);
                crate::family::defer(self, keep).report();
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
