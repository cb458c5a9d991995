//! Kernel launches and RPCs, and the host threads that play the DPA's EUs.
//!
//! A launch returns as soon as it is queued. One pool worker coordinates it:
//! it waits for the wait event to reach the threshold, runs the instances of
//! the kernel (with helpers, as a [`Gang`], when there are several), and then
//! sets or adds to the completion event. A watchdog makes the context fatal
//! when an instance runs past the device's kernel run-time limit and stops it
//! (a signal makes the instance's thread leave the kernel, see
//! `crate::trap`); that launch then never completes, as on hardware. The
//! same signal stops every instance still running in a context that turned
//! fatal for another reason.
//!
//! The signal stops kernel code only at a safe point: never inside the C
//! library, where it may hold a lock the host needs next. A run that does
//! not reach one within [`ABANDON_AFTER`] of stop requests is abandoned (see
//! [`Watch::tick`]): its thread is left to finish on its own, counted by
//! [`abandoned_eu_threads`], and replaced in the pool.
//!
//! The submitting thread allocates nothing in the steady state: jobs are
//! moved into an idle worker's slot, and idle workers are reused (the most
//! recently idle first; it spins briefly before it parks, so back-to-back
//! launches are handed over without waking a sleeping thread).

// Functions called from C (kernels, the shim) are `pub` for `#[no_mangle]`
// export, not for Rust callers.
#![allow(unreachable_pub)]

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use super::app::{Kernel, KernelDesc, KIND_GLOBAL, KIND_RPC, MAX_KERNEL_ARGS};
use super::fault::{Access, DeviceCode, FaultKind, FaultReport, Site};
use super::{dpa, DpaCore, ThreadStop};
use crate::abi;
use crate::dev::obj;
use crate::error::{codes, fail, SimResult};
use crate::export::{out, run};
use crate::sync_event::value::{Compare, EventCore};
use crate::sync_event::SyncEvent;
use crate::trap::{self, ended, Target, TrapRecord};

/// `wait_threshold` must be in 0..=254.
const MAX_WAIT_THRESHOLD: u64 = 254;

/// What the current worker thread is running, for the device-side API.
#[derive(Clone)]
pub(crate) struct DeviceContext {
    pub(crate) core: Arc<DpaCore>,
    /// The function running.
    pub(crate) kernel: Kernel,
    /// What kind of device code it runs as.
    pub(crate) code: DeviceCode,
    pub(crate) rank: u32,
    pub(crate) num_threads: u32,
    /// The local storage of the DPA thread the code runs as, read when its
    /// activation starts (a started thread's configuration cannot change);
    /// 0 in a launched kernel or an RPC.
    pub(crate) local_storage: u64,
}

impl DeviceContext {
    /// The running code, as fault reports name it.
    pub(crate) fn site(&self) -> Site {
        Site {
            function: self.kernel.name(),
            code: self.code,
            rank: self.rank,
            num_threads: self.num_threads,
        }
    }
}

thread_local! {
    static DEVICE: RefCell<Option<DeviceContext>> = const { RefCell::new(None) };
}

/// The device context of the calling thread, if it runs DPA code.
pub(crate) fn current_device() -> Option<DeviceContext> {
    DEVICE.with(|d| d.borrow().clone())
}

/// Runs `f` with the device context of the calling thread.
pub(crate) fn with_device<R>(f: impl FnOnce(Option<&DeviceContext>) -> R) -> R {
    DEVICE.with(|d| f(d.borrow().as_ref()))
}

/// Records a device fault of the running code; its C wrapper then ends it.
pub(crate) fn raise(kind: FaultKind, reason: String) {
    with_device(|ctx| match ctx {
        Some(ctx) => {
            ctx.core
                .make_fatal(FaultReport::device(kind, Some(&ctx.site()), reason));
            trap::request_end();
        }
        None => eprintln!("doca-sim: device call outside a kernel: {reason}"),
    });
}

/// A device call was given an address it cannot access.
pub(crate) fn bad_address(call: &str, addr: u64, access: Access) {
    with_device(|ctx| match ctx {
        Some(ctx) => {
            ctx.core.make_fatal(FaultReport::bad_address(
                Some(&ctx.site()),
                call,
                addr,
                access,
            ));
            trap::request_end();
        }
        None => eprintln!("doca-sim: {call} outside a kernel was given a bad address {addr:#x}"),
    });
}

/// How a device function run ended (the jump codes of `csrc/trap.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ended {
    Returned,
    /// Ended because its context is fatal.
    Aborted,
    Rescheduled,
    Finished,
    /// A trap in device code (a bad access, abort()...).
    Faulted,
    /// Stopped by the watchdog.
    Killed,
}

impl Ended {
    /// Whether the run ended with a device-side error.
    pub(crate) fn is_error(self) -> bool {
        matches!(self, Ended::Aborted | Ended::Faulted | Ended::Killed)
    }
}

/// Runs one kernel instance or RPC on this thread.
///
/// A trap in the kernel ends the run with [`Ended::Faulted`] and makes the
/// context fatal with a report of what the handler saw.
pub(crate) fn run_device_code(
    ctx: DeviceContext,
    args: &[u64; MAX_KERNEL_ARGS],
    watch: &Watch,
) -> (u64, Ended) {
    run_watched(ctx, args, watch, None, None)
}

/// [`run_device_code`] for an activation of a DPA thread: once `stop`
/// records the thread's stop, the watchdog holds the run to the run-time
/// limit in wall time from there (see [`ThreadStop`]).
pub(crate) fn run_activation(
    ctx: DeviceContext,
    args: &[u64; MAX_KERNEL_ARGS],
    watch: &Watch,
    stop: Arc<ThreadStop>,
) -> (u64, Ended) {
    run_watched(ctx, args, watch, None, Some(stop))
}

/// [`run_device_code`] for an instance of `gang`, which the watchdog
/// counts as ended if it abandons the run, or for an activation of a DPA
/// thread whose stop `stop` records.
fn run_watched(
    ctx: DeviceContext,
    args: &[u64; MAX_KERNEL_ARGS],
    watch: &Watch,
    gang: Option<&Arc<Gang>>,
    stop: Option<Arc<ThreadStop>>,
) -> (u64, Ended) {
    let limit = ctx.core.max_run_time_ms();
    let invoke = ctx.kernel.0.invoke;
    let run = watch.arm(&ctx, limit, gang, stop);
    ctx.core.active.fetch_add(1, Ordering::AcqRel);
    DEVICE.with(|d| *d.borrow_mut() = Some(ctx));
    let mut ended: c_int = 0;
    let mut record = TrapRecord::default();
    // SAFETY: `invoke` is the generated trampoline of a kernel of a validated
    // app table; it reads `num_params <= MAX_KERNEL_ARGS` entries of `args`.
    // Only C (kernel) frames lie between this call and the jumps that end it.
    let value =
        unsafe { trap::doca_sim_run_instance(invoke, args.as_ptr(), run, &mut record, &mut ended) };
    watch.disarm();
    let Some(ctx) = DEVICE.with(|d| d.borrow_mut().take()) else {
        // Only this function sets and clears the slot.
        return (value, Ended::Aborted);
    };
    let ended = match ended {
        ended::RETURNED => Ended::Returned,
        ended::RESCHEDULED => Ended::Rescheduled,
        ended::FINISHED => Ended::Finished,
        ended::FAULTED => Ended::Faulted,
        ended::KILLED => Ended::Killed,
        _ => Ended::Aborted,
    };
    match ended {
        Ended::Faulted => ctx
            .core
            .make_fatal(FaultReport::from_trap(&ctx.site(), &record)),
        // The watchdog made the context fatal before asking; this only
        // guards the invariant.
        Ended::Killed => ctx
            .core
            .make_fatal(FaultReport::watchdog(&ctx.site(), limit)),
        _ => {}
    }
    ctx.core.active.fetch_sub(1, Ordering::AcqRel);
    ctx.core.device_code_finished();
    (value, ended)
}

/// A kernel launch, moved into a worker.
pub(crate) struct LaunchJob {
    core: Arc<DpaCore>,
    kernel: Kernel,
    args: [u64; MAX_KERNEL_ARGS],
    num_threads: u32,
    wait: Option<(Arc<EventCore>, u64)>,
    completion: Option<(Arc<EventCore>, u64, bool)>,
}

/// The instances of a launch of several threads.
///
/// Ranks are claimed in order by the threads working on the launch: the
/// coordinator, the helpers woken with it, and more helpers whenever the
/// watchdog sees no instance end for a tick while ranks are unclaimed (see
/// [`grow_stalled_gangs`]). A thread runs each instance it claims to its end,
/// so instances that wait for each other (a barrier through DPA memory) all
/// end up on threads of their own and make progress, while a launch of short
/// instances costs a few hand-offs, not one per instance.
///
/// Model choice: on the DPA every thread of a kernel has its own hardware
/// thread from the start; the sim gives an instance its own host thread only
/// once the instances already running stop ending (a host thread per
/// instance costs a hand-off each, ~5 µs here, and two cores run no more
/// than two at once anyway). Programs cannot tell the difference except by
/// timing: every instance runs, instances that wait for each other all run
/// at the same time, and the launch completes once all have ended.
struct Gang {
    job: LaunchJob,
    /// The next rank no thread has claimed.
    next: AtomicU32,
    /// Instances that ended (or were skipped because the context is fatal).
    ended: AtomicU32,
    /// Instances whose runs the watchdog abandoned: they count as ended
    /// (their context is fatal, so the launch never completes either way).
    abandoned: AtomicU32,
    /// Threads working on the gang, the coordinator included.
    threads: AtomicU32,
    /// `ended` when the watchdog last looked (the watchdog's own;
    /// [`NOT_SEEN`] before its first look).
    seen: AtomicU32,
    /// Woken when the last instance ends.
    coordinator: Thread,
}

impl Gang {
    /// The next unclaimed rank, if any is left.
    fn claim(&self) -> Option<u32> {
        let rank = self.next.fetch_add(1, Ordering::AcqRel);
        (rank < self.job.num_threads).then_some(rank)
    }

    /// Runs claimed instances until none is left. `last` runs before the
    /// end of this thread's last instance is visible (so a helper is idle
    /// again before the launch can complete).
    fn work(self: &Arc<Self>, watch: &Watch, mut last: impl FnMut()) {
        let mut rank = self.claim();
        while let Some(r) = rank {
            // A fatal context runs nothing more: the unclaimed instances
            // never start.
            if !self.job.core.is_fatal() {
                run_instance(&self.job, r, watch, Some(self));
            }
            rank = self.claim();
            if rank.is_none() {
                last();
            }
            self.ended.fetch_add(1, Ordering::AcqRel);
            if self.all_ended() {
                self.coordinator.unpark();
            }
        }
    }

    /// Whether every instance ended or was abandoned. An abandoned run that
    /// ends after all is counted twice, hence `>=`.
    fn all_ended(&self) -> bool {
        self.ended.load(Ordering::Acquire) + self.abandoned.load(Ordering::Acquire)
            >= self.job.num_threads
    }

    /// The watchdog gave up on one of the instances.
    fn abandon_instance(&self) {
        self.abandoned.fetch_add(1, Ordering::AcqRel);
        if self.all_ended() {
            self.coordinator.unpark();
        }
    }

    /// Wakes `count` more helpers, never more threads than instances in
    /// all (helpers woken earlier may not have claimed theirs yet). A host
    /// that cannot start the threads makes the context fatal.
    fn add_helpers(self: &Arc<Self>, count: u32) {
        let n = self.job.num_threads;
        let unclaimed = n.saturating_sub(self.next.load(Ordering::Acquire));
        let room = n.saturating_sub(self.threads.load(Ordering::Acquire));
        for _ in 0..count.min(unclaimed).min(room) {
            self.threads.fetch_add(1, Ordering::AcqRel);
            if dispatch(Task::Helper(self.clone())).is_err() {
                self.threads.fetch_sub(1, Ordering::AcqRel);
                self.job.core.make_fatal(FaultReport::device(
                    FaultKind::HostLimit,
                    None,
                    "the host could not start enough threads for the launch".into(),
                ));
                return;
            }
        }
    }
}

/// Work a pool thread can be given.
// Launch jobs are moved into a waiting worker's slot; boxing them would cost
// a heap allocation per launch on the submitting thread.
#[allow(clippy::large_enum_variant)]
enum Task {
    Launch(LaunchJob),
    /// Claim and run instances of a gang.
    Helper(Arc<Gang>),
    /// A DPA thread activation or an RPC, given the worker's watchdog slot.
    Call(Box<dyn FnOnce(&Watch) + Send>),
}

/// What one worker runs, as the watchdog sees it.
struct Armed {
    /// The run-time limit; 0 for none.
    limit_ms: u64,
    /// When the watchdog first saw the run, and how long the worker's thread
    /// had waited for a CPU by then ([`cpu_wait_ns`]): it counts the limit from
    /// there (so it never stops a run early, and arming reads no clock).
    seen_at: Option<(Instant, Option<u64>)>,
    /// No sooner than this can the run have reached its limit (its run time
    /// grows no faster than wall time), so the watchdog reads no statistics
    /// before.
    next_check: Option<Instant>,
    core: Arc<DpaCore>,
    kernel: Kernel,
    code: DeviceCode,
    rank: u32,
    num_threads: u32,
    run: u64,
    expired: bool,
    /// When the first stop request was sent for this run.
    first_kill: Option<Instant>,
    /// The gang the run is an instance of.
    gang: Option<Arc<Gang>>,
    /// The stop of the DPA thread the run is an activation of.
    stop: Option<Arc<ThreadStop>>,
}

impl Armed {
    fn site(&self) -> Site {
        Site {
            function: self.kernel.name(),
            code: self.code,
            rank: self.rank,
            num_threads: self.num_threads,
        }
    }
}

/// The watchdog's view of what one worker runs.
#[derive(Default)]
pub(crate) struct Watch {
    slot: Mutex<Option<Armed>>,
    /// Numbers the runs of device code on this worker, so a stop request
    /// meant for one run never stops the next one on the same thread.
    runs: AtomicU64,
    /// How to signal the worker's thread (set when the thread starts).
    target: OnceLock<Target>,
    /// Whether the watchdog abandoned the run in progress.
    abandoned: AtomicBool,
    /// The kernel thread id of the worker's thread (set when the thread
    /// starts), whose scheduler statistics tell how long it waited for a CPU.
    tid: OnceLock<libc::pid_t>,
}

/// Nanoseconds the thread `tid` of this process has spent runnable but
/// waiting for a CPU (the second field of its `schedstat`), or `None` when
/// the kernel does not keep the statistic.
fn cpu_wait_ns(tid: libc::pid_t) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    text.split_whitespace().nth(1)?.parse().ok()
}

/// How long a run has been on its EU: the wall time since the watchdog first
/// saw it, less the time its host thread spent waiting for a CPU meanwhile
/// (`waited`, when known).
///
/// Model choice: a DPA thread has an EU of its own, so the kernel run-time
/// limit counts the time it stays scheduled. The host thread that plays it
/// shares the host's few cores with every other EU thread; the time it waits
/// for one is not time the kernel ran. Time it blocks (in a device-side wait,
/// or in a host call) counts, as a DPA thread blocked in a call stays on its
/// EU. Where the wait is unknown (no scheduler statistics) the limit counts
/// wall time. An activation whose thread was stopped is also held to wall
/// time from the stop (see [`ThreadStop`]).
fn run_time(wall: Duration, waited: Option<Duration>) -> Duration {
    wall.saturating_sub(waited.unwrap_or_default())
}

/// Instants at which the watchdog must look at the runs whatever its tick
/// (the deadlines of [`ThreadStop`]s), in no order.
static WAKE_AT: Mutex<Vec<Instant>> = Mutex::new(Vec::new());
/// The watchdog's thread, to wake it early.
static WATCHDOG: OnceLock<Thread> = OnceLock::new();

/// Has the watchdog look at every run at `at` (and not up to a tick later):
/// the deadline of a stopped thread's activation (see [`ThreadStop`]).
pub(crate) fn wake_watchdog_at(at: Instant) {
    lock(&WAKE_AT).push(at);
    // It recomputes how long to sleep.
    if let Some(t) = WATCHDOG.get() {
        t.unpark();
    }
}

/// The next wake-up asked for, if any (maybe past: then it is due).
fn next_wake_up() -> Option<Instant> {
    lock(&WAKE_AT).iter().min().copied()
}

/// Forgets the wake-ups due by `now`; whether there were any.
fn due_wake_ups(now: Instant) -> bool {
    let mut at = lock(&WAKE_AT);
    let before = at.len();
    at.retain(|&t| t > now);
    at.len() != before
}

/// How long stop requests go unheeded before the watchdog abandons a run.
/// It sends them every [`KILL_TICK`] meanwhile, and every [`WATCHDOG_TICK`]
/// after.
pub(crate) const ABANDON_AFTER: Duration = Duration::from_millis(200);

/// EU threads abandoned and still running device code.
static ABANDONED_NOW: AtomicUsize = AtomicUsize::new(0);
/// EU threads abandoned since the process started.
static ABANDONED_EVER: AtomicUsize = AtomicUsize::new(0);

/// How many EU threads the watchdog abandoned: `(still running, in all)`.
///
/// A run of device code past its limit (or in a fatal context) that stays
/// inside the C library for 200 ms of stop requests — blocked in
/// a call, or spinning in one so that no request lands in the kernel's own
/// code — is not stopped by a jump, which could leave a lock of the C library
/// held for good. Its thread is abandoned: it no longer counts as a pool
/// worker (a launch that needs one starts a new thread), the context stays
/// fatal, and whatever the run may still touch (the context's DPA memory)
/// stays allocated until the run ends. A run that ends after all (it
/// returns, or a later stop request lands in kernel code) gives its thread
/// back to the pool. Makes no DOCA call.
pub fn abandoned_eu_threads() -> (usize, usize) {
    (
        ABANDONED_NOW.load(Ordering::Acquire),
        ABANDONED_EVER.load(Ordering::Acquire),
    )
}

impl Watch {
    /// How long the worker's thread has waited for a CPU, if known.
    fn cpu_wait(&self) -> Option<u64> {
        cpu_wait_ns(*self.tid.get()?)
    }

    /// Returns the new run's number.
    fn arm(
        &self,
        ctx: &DeviceContext,
        limit_ms: u64,
        gang: Option<&Arc<Gang>>,
        stop: Option<Arc<ThreadStop>>,
    ) -> u64 {
        let run = self.runs.fetch_add(1, Ordering::Relaxed) + 1;
        *lock(&self.slot) = Some(Armed {
            limit_ms,
            seen_at: None,
            next_check: None,
            core: ctx.core.clone(),
            kernel: ctx.kernel,
            code: ctx.code,
            rank: ctx.rank,
            num_threads: ctx.num_threads,
            run,
            expired: false,
            first_kill: None,
            gang: gang.cloned(),
            stop,
        });
        run
    }

    /// After this returns the watchdog sends no more stop requests for the
    /// run (it signals only while holding the slot). A run the watchdog had
    /// abandoned gives its thread back to the pool.
    fn disarm(&self) {
        let armed = lock(&self.slot).take();
        drop(armed);
        if self.abandoned.swap(false, Ordering::AcqRel) {
            ABANDONED_NOW.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Makes an over-time run's context fatal — one past its run-time limit
    /// (see [`run_time`]), or an activation still running at its stopped
    /// thread's deadline (see [`ThreadStop`]) — and asks the thread to stop
    /// a run whose context is fatal (repeated every tick until it does: a
    /// thread inside the sim's own code or libc defers the request).
    /// Returns whether it sent a stop request that calls for a quick repeat
    /// (to a run not abandoned yet).
    ///
    /// Model choice: once a context is fatal, for whatever reason, every run
    /// of its device code still in kernel code is stopped, as a fatal DPA
    /// context runs nothing more (DOCA documents only that it must be
    /// destroyed).
    fn tick(&self, now: Instant) -> bool {
        let mut slot = lock(&self.slot);
        let Some(armed) = slot.as_mut() else {
            return false;
        };
        let (since, waited_then) = match armed.seen_at {
            Some(seen) => seen,
            None => *armed.seen_at.insert((now, self.cpu_wait())),
        };
        // Wall time from its thread's stop, whatever its run time.
        let stopped_over = armed
            .stop
            .as_ref()
            .and_then(|stop| stop.deadline())
            .is_some_and(|deadline| now >= deadline);
        let limit = Duration::from_millis(armed.limit_ms);
        let due = !stopped_over
            && armed.limit_ms > 0
            && now - since >= limit
            && armed.next_check.is_none_or(|at| now >= at);
        let over = due && {
            let waited = waited_then
                .zip(self.cpu_wait())
                .map(|(then, waited)| Duration::from_nanos(waited.saturating_sub(then)));
            let ran = run_time(now - since, waited);
            if ran < limit {
                armed.next_check = Some(now + (limit - ran));
            }
            ran >= limit
        };
        if !armed.expired && (over || stopped_over) {
            armed.expired = true;
            let report = if let Some(stop) = armed.stop.as_ref().filter(|_| stopped_over) {
                stop.report()
            } else {
                FaultReport::watchdog(&armed.site(), armed.limit_ms)
            };
            armed.core.make_fatal(report);
        }
        if armed.expired || armed.core.is_fatal() {
            if let Some(target) = self.target.get() {
                target.kill(armed.run);
            }
            let first = *armed.first_kill.get_or_insert(now);
            if self.abandoned.load(Ordering::Acquire) {
                // Its requests go on at the watchdog's usual pace.
                return false;
            }
            if now - first >= ABANDON_AFTER {
                self.abandon(armed);
            }
            return true;
        }
        false
    }

    /// Gives up on stopping `armed` (see [`abandoned_eu_threads`]); stop
    /// requests continue, so the run still ends at the first safe point.
    ///
    /// Model choice: hardware stops a DPA thread anywhere; a host thread
    /// cannot be stopped inside the C library without risking the host's
    /// own locks, so the sim leaves it running instead. Programs see the
    /// same fatal context and a launch that never completes.
    fn abandon(&self, armed: &Armed) {
        self.abandoned.store(true, Ordering::Release);
        ABANDONED_NOW.fetch_add(1, Ordering::AcqRel);
        ABANDONED_EVER.fetch_add(1, Ordering::AcqRel);
        crate::export::log(format_args!(
            "abandoned the EU thread running `{}` (rank {} of {}): it stayed inside the C \
             library, where it cannot be stopped safely, for {:?} of stop requests; its \
             context's memory stays allocated while it runs",
            armed.kernel.name(),
            armed.rank,
            armed.num_threads,
            ABANDON_AFTER
        ));
        if let Some(gang) = &armed.gang {
            gang.abandon_instance();
        }
    }
}

struct Worker {
    thread: OnceLock<Thread>,
    task: Mutex<Option<Task>>,
    /// Whether `task` holds a task: an idle worker spins on this, not on
    /// the lock the submitting thread takes.
    ready: AtomicBool,
    /// Whether it spins for its next task (see [`Worker::spin_for_task`]).
    spinning: AtomicBool,
    watch: Watch,
}

impl Worker {
    fn take(&self) -> Option<Task> {
        if !self.ready.load(Ordering::Acquire) {
            return None;
        }
        let mut slot = self.task.lock().unwrap_or_else(|p| p.into_inner());
        self.ready.store(false, Ordering::Relaxed);
        slot.take()
    }

    fn give(&self, task: Task) {
        *self.task.lock().unwrap_or_else(|p| p.into_inner()) = Some(task);
        self.ready.store(true, Ordering::Release);
        // Costs a system call only if the worker is parked, not while it
        // spins.
        if let Some(t) = self.thread.get() {
            t.unpark();
        }
    }

    /// Spins for a task for [`IDLE_SPIN`] if no other idle worker spins;
    /// whether one arrived.
    ///
    /// Launches that follow each other closely (a host that submits as soon
    /// as it sees the previous one complete) then reach a worker that is
    /// still awake: the hand-off is a store and a load, not a futex wake of
    /// a sleeping thread (several µs on a virtual machine). One spinner at a
    /// time bounds the CPU an idle pool burns to one core for
    /// [`IDLE_SPIN`] after the last launch.
    fn spin_for_task(&self) -> bool {
        static SPINNING: AtomicBool = AtomicBool::new(false);
        if SPINNING.swap(true, Ordering::AcqRel) {
            return false;
        }
        self.spinning.store(true, Ordering::Release);
        let start = Instant::now();
        let found = 'spin: loop {
            for _ in 0..64 {
                if self.ready.load(Ordering::Acquire) {
                    break 'spin true;
                }
                std::hint::spin_loop();
            }
            if start.elapsed() >= IDLE_SPIN {
                break false;
            }
            // Other workers may be runnable on this core (a gang, launches
            // in flight): they run first.
            thread::yield_now();
        };
        self.spinning.store(false, Ordering::Release);
        SPINNING.store(false, Ordering::Release);
        found
    }
}

/// How long the one spinning idle worker waits for a task before it parks.
const IDLE_SPIN: Duration = Duration::from_micros(50);

struct Pool {
    idle: Mutex<Vec<Arc<Worker>>>,
    all: Mutex<Vec<Arc<Worker>>>,
    /// Gangs that may still have unclaimed instances, for the watchdog.
    gangs: Mutex<Vec<Arc<Gang>>>,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        trap::install();
        start_watchdog();
        Pool {
            idle: Mutex::new(Vec::with_capacity(256)),
            all: Mutex::new(Vec::with_capacity(256)),
            gangs: Mutex::new(Vec::with_capacity(16)),
        }
    })
}

/// How often the watchdog looks at running kernels.
const WATCHDOG_TICK: Duration = Duration::from_millis(5);
/// How often it looks at gangs with unclaimed instances: a launch whose
/// instances wait for each other doubles its threads at this pace.
const GANG_TICK: Duration = Duration::from_millis(1);
/// How often it repeats a stop request that was not heeded yet: each one
/// is a chance to find the run outside the C library.
const KILL_TICK: Duration = Duration::from_millis(1);

/// Whether the watchdog thread runs.
static WATCHDOG_RUNNING: AtomicBool = AtomicBool::new(false);

fn start_watchdog() {
    let spawned = thread::Builder::new()
        .name("doca-sim-watchdog".into())
        .spawn(|| {
            let mut last_watch = Instant::now();
            let mut last_gangs = last_watch;
            let mut killing = false;
            loop {
                let gangs = !lock(&pool().gangs).is_empty();
                let tick = match (killing, gangs) {
                    (true, _) => KILL_TICK,
                    (false, true) => GANG_TICK,
                    (false, false) => WATCHDOG_TICK,
                };
                // A stopped thread's deadline is kept to the moment, not to
                // the next tick: its host may check the context right after.
                let sleep = next_wake_up().map_or(tick, |at| {
                    tick.min(at.saturating_duration_since(Instant::now()))
                });
                // Woken early by `wake_watchdog_at` (or spuriously), it
                // goes round again with a new sleep.
                thread::park_timeout(sleep);
                let now = Instant::now();
                // An early wake-up does not make a gang look stalled.
                if now - last_gangs >= GANG_TICK {
                    last_gangs = now;
                    grow_stalled_gangs();
                }
                let deadline = due_wake_ups(now);
                if killing || deadline || now - last_watch >= WATCHDOG_TICK {
                    last_watch = now;
                    killing = false;
                    let workers = lock(&pool().all).clone();
                    for w in workers {
                        killing |= w.watch.tick(now);
                    }
                }
            }
        });
    match spawned {
        Ok(handle) => {
            let _ = WATCHDOG.set(handle.thread().clone());
            WATCHDOG_RUNNING.store(true, Ordering::Release);
        }
        Err(_) => {
            eprintln!("doca-sim: cannot start the watchdog; kernel run-time limit is not enforced")
        }
    }
}

/// Gives every gang in which no instance ended since the last look, and
/// which still has unclaimed instances, as many more helpers as it has
/// threads: the instances running may be waiting for ones not yet started.
fn grow_stalled_gangs() {
    let stalled: Vec<Arc<Gang>> = {
        let mut gangs = lock(&pool().gangs);
        gangs.retain(|g| g.next.load(Ordering::Acquire) < g.job.num_threads);
        gangs
            .iter()
            .filter(|g| {
                let ended = g.ended.load(Ordering::Acquire);
                g.seen.swap(ended, Ordering::AcqRel) == ended
            })
            .cloned()
            .collect()
    };
    for gang in stalled {
        gang.add_helpers(gang.threads.load(Ordering::Acquire).max(1));
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Stack of each simulated EU. Kernels written for an 8 KiB DPA stack fit
/// with room for the host compiler's larger frames.
const WORKER_STACK: usize = 512 * 1024;

fn spawn_worker() -> SimResult<Arc<Worker>> {
    let worker = Arc::new(Worker {
        thread: OnceLock::new(),
        task: Mutex::new(None),
        ready: AtomicBool::new(false),
        spinning: AtomicBool::new(false),
        watch: Watch::default(),
    });
    let mine = worker.clone();
    let handle = thread::Builder::new()
        .name("doca-sim-eu".into())
        .stack_size(WORKER_STACK)
        .spawn(move || worker_loop(mine))
        .map_err(|_| fail(codes::NO_MEMORY, "cannot start a host thread for a DPA EU"))?;
    let _ = worker.thread.set(handle.thread().clone());
    lock(&pool().all).push(worker.clone());
    Ok(worker)
}

fn worker_loop(me: Arc<Worker>) {
    if let Some(target) = trap::thread_init() {
        let _ = me.watch.target.set(target);
    }
    // SAFETY: always safe to call.
    let _ = me.watch.tid.set(unsafe { libc::gettid() });
    loop {
        match me.take() {
            Some(task) => execute(task, &me.watch, Idle::new(&me)),
            None => {
                if !me.spin_for_task() {
                    thread::park();
                }
            }
        }
    }
}

/// How far down the idle list [`dispatch`] looks for the spinning worker.
const HOT_SEARCH: usize = 8;

fn dispatch(task: Task) -> SimResult {
    let worker = {
        let mut idle = lock(&pool().idle);
        // The spinning worker takes the task without being woken; it is
        // usually the last one back.
        let top = idle.len();
        match idle
            .iter()
            .rev()
            .take(HOT_SEARCH)
            .position(|w| w.spinning.load(Ordering::Acquire))
        {
            Some(i) => Some(idle.remove(top - 1 - i)),
            None => idle.pop(),
        }
    };
    let worker = match worker {
        Some(w) => w,
        None => spawn_worker()?,
    };
    worker.give(task);
    Ok(())
}

/// Runs `f` on a pool worker (used for DPA thread activations and RPCs).
/// `f` runs its device code under the worker's [`Watch`], so the watchdog
/// enforces the kernel run-time limit on it as on launched kernels.
pub(crate) fn spawn_call(f: impl FnOnce(&Watch) + Send + 'static) -> SimResult {
    dispatch(Task::Call(Box::new(f)))
}

/// Puts a worker back in the idle list once (at the latest when dropped).
///
/// A worker becomes idle before the end of its work is visible (a gang
/// helper's last instance, a launch's completion), so a launch that the host
/// submits as soon as it sees the previous one complete finds the same
/// workers idle and the pool does not grow. A worker given a task while it
/// is still finishing runs it next.
struct Idle<'a> {
    worker: &'a Arc<Worker>,
    done: bool,
}

impl<'a> Idle<'a> {
    fn new(worker: &'a Arc<Worker>) -> Self {
        Idle {
            worker,
            done: false,
        }
    }

    fn now(&mut self) {
        if !self.done {
            self.done = true;
            pool()
                .idle
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(self.worker.clone());
        }
    }
}

impl Drop for Idle<'_> {
    fn drop(&mut self) {
        self.now();
    }
}

fn execute(task: Task, watch: &Watch, mut idle: Idle<'_>) {
    match task {
        Task::Launch(job) => coordinate(job, watch, &mut idle),
        Task::Helper(gang) => gang.work(watch, || idle.now()),
        Task::Call(f) => f(watch),
    }
}

fn run_instance(job: &LaunchJob, rank: u32, watch: &Watch, gang: Option<&Arc<Gang>>) {
    let ctx = DeviceContext {
        core: job.core.clone(),
        kernel: job.kernel,
        code: DeviceCode::Kernel,
        rank,
        num_threads: job.num_threads,
        local_storage: 0,
    };
    run_watched(ctx, &job.args, watch, gang, None);
}

fn coordinate(job: LaunchJob, watch: &Watch, idle: &mut Idle<'_>) {
    let core = job.core.clone();
    let gate_open = match &job.wait {
        Some((event, threshold)) => event.wait(Compare::Ge, *threshold, u64::MAX, || {
            core.is_fatal() || core.require_alive().is_err()
        }),
        None => true,
    };
    if gate_open {
        if job.num_threads == 1 {
            run_instance(&job, 0, watch, None);
            finish(&job, idle);
        } else {
            run_gang(job, watch, idle);
        }
    }
    core.in_flight.fetch_sub(1, Ordering::AcqRel);
    core.device_code_finished();
}

/// [`Gang::seen`] of a gang the watchdog has not looked at yet (no gang
/// has that many instances).
const NOT_SEEN: u32 = u32::MAX;

/// How many threads start on a gang: one per core of the host, less the one
/// the submitting thread usually spins on while it waits.
fn first_threads() -> u32 {
    static THREADS: OnceLock<u32> = OnceLock::new();
    *THREADS.get_or_init(|| {
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        u32::try_from(cores.saturating_sub(1).max(1)).unwrap_or(u32::MAX)
    })
}

fn run_gang(job: LaunchJob, watch: &Watch, idle: &mut Idle<'_>) {
    let n = job.num_threads;
    let gang = Arc::new(Gang {
        job,
        next: AtomicU32::new(0),
        ended: AtomicU32::new(0),
        abandoned: AtomicU32::new(0),
        threads: AtomicU32::new(1),
        seen: AtomicU32::new(NOT_SEEN),
        coordinator: thread::current(),
    });
    gang.add_helpers(first_threads().min(n) - 1);
    lock(&pool().gangs).push(gang.clone());
    gang.work(watch, || {});
    // The last instances may still run on helpers.
    let mut spins = 0u32;
    while !gang.all_ended() {
        if spins < 1 << 12 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            thread::park();
        }
    }
    finish(&gang.job, idle);
}

fn finish(job: &LaunchJob, idle: &mut Idle<'_>) {
    // A fatal context never reports completion: the host sees the event
    // stall and `doca_dpa_peek_at_last_error` return BAD_STATE.
    if job.core.is_fatal() {
        return;
    }
    let damage = job.core.heap().check_canaries();
    if let Some(damage) = damage {
        job.core
            .report_damage(damage, Some(job.kernel.name()), "the end of its launch");
        return;
    }
    idle.now();
    if let Some((event, count, add)) = &job.completion {
        if *add {
            event.add(*count);
        } else {
            event.set(*count);
        }
    }
}

/// The API name the shim reports, as a static string for the hooks.
fn api_name(api: *const c_char) -> &'static str {
    // SAFETY: the shim passes one of its string literals.
    let name = unsafe { CStr::from_ptr(api) }.to_bytes();
    match name {
        b"doca_dpa_kernel_launch_update_set" => "doca_dpa_kernel_launch_update_set",
        b"doca_dpa_kernel_launch_update_add" => "doca_dpa_kernel_launch_update_add",
        b"doca_dpa_rpc" => "doca_dpa_rpc",
        _ => "doca_sim_unknown_variadic",
    }
}

/// First half of a variadic call (from `csrc/shim.c`): counts the call,
/// applies injected faults, and finds the kernel so the shim can read the
/// variadic arguments with the kernel's parameter types.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_kernel_lookup(
    api: *const c_char,
    dpa_ptr: *mut abi::doca_dpa,
    func: *const c_void,
    kernel: *mut *const KernelDesc,
) -> abi::doca_error_t {
    run(api_name(api), &mut || {
        let this = dpa(dpa_ptr)?;
        if func.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL kernel function"));
        }
        let app = this.core.app().ok_or(fail(
            codes::BAD_STATE,
            "no application set on the DPA context",
        ))?;
        out(kernel, app.kernel(func)?.0 as *const KernelDesc)
    })
}

fn event_core(
    ptr: *mut abi::doca_sync_event,
    check: impl FnOnce(&SyncEvent) -> SimResult,
) -> SimResult<Option<Arc<EventCore>>> {
    if ptr.is_null() {
        return Ok(None);
    }
    let ev = obj::<SyncEvent, _>(ptr)?;
    check(ev)?;
    Ok(Some(ev.core.clone()))
}

/// Second half of `doca_dpa_kernel_launch_update_set/_add`: validates and
/// queues the launch. `args` holds the kernel's `num_params` arguments.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_kernel_launch(
    dpa_ptr: *mut abi::doca_dpa,
    wait_event: *mut abi::doca_sync_event,
    wait_threshold: u64,
    comp_event: *mut abi::doca_sync_event,
    comp_count: u64,
    num_threads: c_uint,
    kernel: *const KernelDesc,
    args: *const u64,
    add: c_int,
) -> abi::doca_error_t {
    crate::export::result_code(launch(
        dpa_ptr,
        wait_event,
        wait_threshold,
        comp_event,
        comp_count,
        num_threads,
        kernel,
        args,
        add != 0,
    ))
}

#[allow(clippy::too_many_arguments)]
fn launch(
    dpa_ptr: *mut abi::doca_dpa,
    wait_event: *mut abi::doca_sync_event,
    wait_threshold: u64,
    comp_event: *mut abi::doca_sync_event,
    comp_count: u64,
    num_threads: c_uint,
    kernel: *const KernelDesc,
    args: *const u64,
    add: bool,
) -> SimResult {
    let this = dpa(dpa_ptr)?;
    this.core.require_running()?;
    // SAFETY: the shim passes the descriptor `doca_sim_kernel_lookup` found.
    let kernel = Kernel(unsafe { &*kernel });
    if kernel.0.kind != KIND_GLOBAL {
        return Err(fail(
            codes::INVALID_VALUE,
            "an RPC function cannot be launched as a kernel",
        ));
    }
    let max = this.core.device.profile.max_threads_per_kernel;
    if num_threads == 0 || num_threads > max {
        return Err(fail(
            codes::INVALID_VALUE,
            "num_threads is 0 or above the max threads per kernel",
        ));
    }
    if wait_threshold > MAX_WAIT_THRESHOLD {
        return Err(fail(codes::INVALID_VALUE, "wait_threshold is above 254"));
    }
    let wait = event_core(wait_event, |ev| ev.dpa_may_wait(&this.core))?;
    let completion = event_core(comp_event, |ev| ev.dpa_may_publish(&this.core))?;
    let mut job = LaunchJob {
        core: this.core.clone(),
        kernel,
        args: [0; MAX_KERNEL_ARGS],
        num_threads,
        wait: wait.map(|e| (e, wait_threshold)),
        completion: completion.map(|e| (e, comp_count, add)),
    };
    let n = (kernel.0.num_params as usize).min(MAX_KERNEL_ARGS);
    if n > 0 {
        // SAFETY: the shim filled `num_params` values.
        job.args[..n].copy_from_slice(unsafe { std::slice::from_raw_parts(args, n) });
    }
    this.core.in_flight.fetch_add(1, Ordering::AcqRel);
    dispatch(Task::Launch(job)).inspect_err(|_| {
        this.core.in_flight.fetch_sub(1, Ordering::AcqRel);
    })
}

/// Second half of `doca_dpa_rpc`: runs the function on a worker and blocks
/// for its result.
///
/// Model choice: an RPC still running after the kernel run-time limit makes
/// the context fatal and returns DOCA_ERROR_DRIVER (a busy DPA cannot answer
/// RPCs on hardware either).
#[no_mangle]
pub unsafe extern "C" fn doca_sim_rpc(
    dpa_ptr: *mut abi::doca_dpa,
    kernel: *const KernelDesc,
    args: *const u64,
    retval: *mut u64,
) -> abi::doca_error_t {
    crate::export::result_code(rpc(dpa_ptr, kernel, args, retval))
}

fn rpc(
    dpa_ptr: *mut abi::doca_dpa,
    kernel: *const KernelDesc,
    args: *const u64,
    retval: *mut u64,
) -> SimResult {
    let this = dpa(dpa_ptr)?;
    let _rpc = crate::dpa::RpcInProgress::begin(&this.core);
    this.core.require_running()?;
    if retval.is_null() {
        return Err(fail(codes::INVALID_VALUE, "NULL retval"));
    }
    // SAFETY: the shim passes the descriptor `doca_sim_kernel_lookup` found.
    let kernel = Kernel(unsafe { &*kernel });
    if kernel.0.kind != KIND_RPC {
        return Err(fail(
            codes::INVALID_VALUE,
            "not an RPC (__dpa_rpc__) function",
        ));
    }
    let mut copied = [0u64; MAX_KERNEL_ARGS];
    let n = (kernel.0.num_params as usize).min(MAX_KERNEL_ARGS);
    if n > 0 {
        // SAFETY: the shim filled `num_params` values.
        copied[..n].copy_from_slice(unsafe { std::slice::from_raw_parts(args, n) });
    }
    let result = Arc::new((Mutex::new(None::<(u64, Ended)>), Condvar::new()));
    let done = result.clone();
    let core = this.core.clone();
    spawn_call(move |watch| {
        let ctx = DeviceContext {
            core,
            kernel,
            code: DeviceCode::Rpc,
            rank: 0,
            num_threads: 1,
            local_storage: 0,
        };
        let r = run_device_code(ctx, &copied, watch);
        *done.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
        done.1.notify_all();
    })?;
    // The watchdog stops an RPC that overruns, as it stops kernels (by its
    // time on the EU, see `run_time`); this wall-clock deadline is only a
    // backstop for a process whose watchdog could not start.
    let limit_ms = this.core.max_run_time_ms();
    let limit = match limit_ms {
        ms if ms > 0 && !WATCHDOG_RUNNING.load(Ordering::Acquire) => {
            Duration::from_millis(ms) + 20 * WATCHDOG_TICK
        }
        _ => Duration::from_secs(24 * 3600),
    };
    let deadline = Instant::now() + limit;
    let mut slot = result.0.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if let Some((value, ended)) = *slot {
            if ended.is_error() || this.core.is_fatal() {
                return Err(fail(
                    codes::DRIVER,
                    "the RPC ended with a device-side error",
                ));
            }
            return out(retval, value);
        }
        if this.core.is_fatal() {
            return Err(fail(
                codes::DRIVER,
                "the DPA context turned fatal during the RPC",
            ));
        }
        let now = Instant::now();
        if now >= deadline {
            let site = Site {
                function: kernel.name(),
                code: DeviceCode::Rpc,
                rank: 0,
                num_threads: 1,
            };
            this.core.make_fatal(FaultReport::watchdog(&site, limit_ms));
            return Err(fail(codes::DRIVER, "RPC timed out"));
        }
        slot = result
            .1
            .wait_timeout(slot, (deadline - now).min(WATCHDOG_TICK))
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
}

/// Count of live EU threads (for tests).
#[allow(dead_code)]
pub(crate) fn worker_count() -> usize {
    lock(&pool().all).len()
}
