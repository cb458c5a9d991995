//! Launch-path benchmarks: each figure is printed as a ratio against a
//! baseline measured in the same run (in alternating rounds where both sides
//! are timed), then the absolute times as context.
//!
//! `cargo bench --bench launch` (sim by default; on a BlueField runner the
//! real device). `BENCH_QUICK=1` shortens every measurement;
//! `scripts/benchmarks.sh` runs it and writes `BENCHMARKS.md`.
//!
//! 1. safe launch + wait vs the same sequence through raw -sys calls;
//! 2. heap allocations per steady-state safe launch (counting allocator);
//! 3. the launch round trip vs the floor of its shape: a host thread that
//!    wakes a parked thread with `unpark` and spins until it answers (with a
//!    spin-spin ping-pong and a mutex + condvar ping-pong as context);
//! 4. a 190-thread launch vs a 1-thread launch, and the rows between;
//! 5. the sim's memory checking, checked vs unchecked: round trip and a
//!    kernel writing 1 MiB (sim only);
//! 6. the CPU the waiting thread uses while a 50 ms kernel runs;
//! 7. launches per second, one reused completion event vs a fresh event per
//!    launch;
//! 8. launches per second from 4 tasks on a multi-threaded tokio runtime
//!    sharing one launcher vs 1 task (and with a launcher per task);
//! 9. an RPC's round trip (`Dpa::rpc`) vs a launch's;
//! 10. launches per second from N contexts (N context families) driven from
//!     N threads vs 1 context from 1 thread, with the CPU time per launch.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use doca::dpa::{CompletionEvent, Dpa, DpaBuffer, Engine, Launcher};
use doca::sys;

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../doca-sim/benches/harness/mod.rs"]
mod harness;
use common::doca_tests;
use harness::{iters, per_iter, per_iter_pair, quick, ratio, ratio_row, row};

// ------------------------------------------------------------ allocations

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}
static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(Cell::get) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Heap allocations made by this thread while `f` runs.
fn allocations_during(f: impl FnOnce()) -> u64 {
    let before = ALLOCS.load(Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCS.load(Ordering::Relaxed) - before
}

const WAIT: Duration = Duration::from_secs(30);

// ------------------------------------------------------------ raw path

extern "C" {
    // The tests' no-op kernel (tests/kernels/launch.c), by its C symbol.
    fn noop();
}

/// A completion event made and driven with raw calls only.
struct RawEvent(*mut sys::doca_sync_event);

impl RawEvent {
    fn new(dpa: &Dpa) -> RawEvent {
        let mut e = std::ptr::null_mut();
        let guard = dpa.enter().unwrap();
        let device = dpa.device().lock();
        // SAFETY: the kernel→host recipe on a started context, under its family's
        // guard and its device's lock.
        unsafe {
            assert_eq!(sys::doca_sync_event_create(&mut e), 0);
            assert_eq!(
                sys::doca_sync_event_add_publisher_location_dpa(e, dpa.as_ptr(&guard)),
                0
            );
            assert_eq!(
                sys::doca_sync_event_add_subscriber_location_cpu(e, dpa.device().as_ptr(&device)),
                0
            );
            assert_eq!(sys::doca_sync_event_start(e), 0);
        }
        RawEvent(e)
    }
}

/// The raw context, for the raw side of the figures, as a program on the -sys
/// bindings holds it: taken under the family's guard, then used with no lock
/// (the raw side makes its calls on this thread while no other thread uses the
/// family, as such a program must ensure itself).
fn raw_dpa(dpa: &Dpa) -> *mut sys::doca_dpa {
    let guard = dpa.enter().unwrap();
    dpa.as_ptr(&guard)
}

impl Drop for RawEvent {
    fn drop(&mut self) {
        // SAFETY: our started event.
        unsafe {
            sys::doca_sync_event_stop(self.0);
            sys::doca_sync_event_destroy(self.0);
        }
    }
}

/// One raw submission of the no-op kernel, as a program on the -sys
/// bindings makes it (out of line, so that `scripts/callgrind-launch.sh`
/// counts it whole, argument passing included, as it counts the safe
/// `Launcher::launch`).
#[inline(never)]
fn raw_submit(dpa: *mut sys::doca_dpa, event: *mut sys::doca_sync_event) -> sys::doca_error_t {
    // SAFETY: a started context, its completion event, a kernel of its app.
    unsafe {
        sys::doca_dpa_kernel_launch_update_add(
            dpa,
            std::ptr::null_mut(),
            0,
            event,
            1,
            1,
            Some(noop),
        )
    }
}

/// Spins on the event until it reaches `target` (out of line, as
/// [`raw_submit`]).
#[inline(never)]
fn raw_wait(event: *mut sys::doca_sync_event, target: u64) {
    let mut v = 0;
    loop {
        // SAFETY: started event; valid out-pointer.
        unsafe { sys::doca_sync_event_get(event, &mut v) };
        if v >= target {
            break;
        }
        std::hint::spin_loop();
    }
}

/// One raw launch of the no-op kernel and a spin on the event.
fn raw_launch_wait(dpa: *mut sys::doca_dpa, event: *mut sys::doca_sync_event, target: u64) {
    let rc = raw_submit(dpa, event);
    assert_eq!(rc, 0);
    raw_wait(event, target);
}

// ------------------------------------------------------------ anchors

/// Round trip of a bare two-thread ping-pong over a mutex + condvar (context
/// only: it flatters anything faster than two futex sleeps).
fn condvar_round_trip() -> Duration {
    let state = Arc::new((Mutex::new(0u64), Condvar::new()));
    let peer = state.clone();
    let worker = std::thread::spawn(move || {
        let (lock, cv) = &*peer;
        loop {
            let mut v = lock.lock().unwrap();
            // Odd values are pings; u64::MAX says stop.
            while *v % 2 == 0 {
                v = cv.wait(v).unwrap();
            }
            if *v == u64::MAX {
                return;
            }
            *v += 1;
            cv.notify_one();
        }
    });
    let (lock, cv) = &*state;
    let mut next = 0u64;
    let result = per_iter(iters(20_000), || {
        let mut v = lock.lock().unwrap();
        *v = next + 1;
        cv.notify_one();
        while *v != next + 2 {
            v = cv.wait(v).unwrap();
        }
        next += 2;
    });
    *lock.lock().unwrap() = u64::MAX;
    cv.notify_one();
    let _ = worker.join();
    result
}

/// How the peer of a [`Peer`] waits for the next ping.
#[derive(Clone, Copy, PartialEq)]
enum Idle {
    /// `thread::park`: the host wakes it with `unpark` (a futex wake).
    Parks,
    /// Spins on the flag.
    Spins,
}

/// A second thread that answers pings through one atomic: the shapes of a
/// software DPA's hand-off with nothing else in it. The host writes a ping
/// (odd), wakes the peer if it parks, and spins until the peer answers.
struct Peer {
    flag: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
    idle: Idle,
    next: u64,
}

const STOP: u64 = u64::MAX;

impl Peer {
    fn new(idle: Idle) -> Peer {
        let flag = Arc::new(AtomicU64::new(0));
        let theirs = flag.clone();
        let thread = std::thread::spawn(move || loop {
            let v = theirs.load(Ordering::Acquire);
            if v == STOP {
                return;
            }
            if v % 2 == 1 {
                theirs.store(v + 1, Ordering::Release);
            } else if idle == Idle::Parks {
                std::thread::park();
            } else {
                std::hint::spin_loop();
            }
        });
        Peer {
            flag,
            thread: Some(thread),
            idle,
            next: 0,
        }
    }

    fn round_trip(&mut self) {
        let ping = self.next + 1;
        self.flag.store(ping, Ordering::Release);
        if self.idle == Idle::Parks {
            if let Some(t) = &self.thread {
                t.thread().unpark();
            }
        }
        while self.flag.load(Ordering::Acquire) != ping + 1 {
            std::hint::spin_loop();
        }
        self.next = ping + 1;
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.flag.store(STOP, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

// ------------------------------------------------------------ waiting CPU

/// CPU time the calling thread has used.
fn thread_cpu() -> Duration {
    cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// The CPU-time clock `clock`.
fn cpu_clock(clock: libc::clockid_t) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and out-pointer.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    assert_eq!(rc, 0);
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// The share of one core the waiting thread uses while a kernel that runs
/// about `run` (calibrated here) completes, waited for with `Launch::wait`.
fn waiting_cpu(launcher: &Launcher, run: Duration) -> (f64, Duration) {
    let count = 1u64 << 20;
    let start = Instant::now();
    launcher
        .launch(&doca_tests::busy, 1, (count,))
        .unwrap()
        .wait(WAIT)
        .unwrap();
    let per_count = start.elapsed().as_secs_f64() / count as f64;
    let n = (run.as_secs_f64() / per_count) as u64;
    let (cpu, wall) = (thread_cpu(), Instant::now());
    launcher
        .launch(&doca_tests::busy, 1, (n,))
        .unwrap()
        .wait(WAIT)
        .unwrap();
    let (cpu, wall) = (thread_cpu() - cpu, wall.elapsed());
    (ratio(cpu, wall), wall)
}

// ------------------------------------------------------------ memory checking

/// Round trip and a kernel writing 1 MiB on a context whose heap is
/// checked vs one whose heap is not (the sim's `memcheck` profile key), in
/// alternating rounds. Each context holds 8 small live blocks besides, whose
/// canaries a checked launch looks at when it ends.
#[cfg(doca_backend = "sim")]
fn memcheck_cost() -> [(Duration, Duration); 2] {
    let context = |memcheck: bool| {
        let scope = doca::sim::Scope::new();
        scope.set_profile(doca::sim::Profile {
            memcheck,
            ..doca::sim::Profile::default()
        });
        let dpa = common::dpa();
        drop(scope);
        dpa
    };
    let (checked, plain) = (context(true), context(false));
    let blocks = |dpa: &Dpa| -> Vec<DpaBuffer<u64>> {
        (0..8).map(|_| DpaBuffer::new(dpa, 32).unwrap()).collect()
    };
    let _live = (blocks(&checked), blocks(&plain));
    let (lc, lp) = (
        Launcher::new(&checked).unwrap(),
        Launcher::new(&plain).unwrap(),
    );
    let noop = |l: &Launcher| {
        l.launch(&doca_tests::noop, 1, ())
            .unwrap()
            .wait(WAIT)
            .unwrap()
    };
    let round_trip = per_iter_pair(iters(5_000), || noop(&lc), || noop(&lp));
    const WORDS: usize = (1 << 20) / 8;
    let (bc, bp) = (
        DpaBuffer::<u64>::new(&checked, WORDS).unwrap(),
        DpaBuffer::<u64>::new(&plain, WORDS).unwrap(),
    );
    let fill = |l: &Launcher, b: &DpaBuffer<u64>| {
        l.launch(&doca_tests::fill_words, 1, (b, WORDS as u64))
            .unwrap()
            .wait(WAIT)
            .unwrap()
    };
    let heavy = per_iter_pair(iters(200), || fill(&lc, &bc), || fill(&lp, &bp));
    [round_trip, heavy]
}

// ------------------------------------------------------------ tasks

/// Launches each task makes (and awaits, one after the other) in one batch.
const TASK_LAUNCHES: u32 = 100;

/// One batch: `launchers.len()` tasks spawned on `rt`, task `i` launching the
/// no-op kernel on `launchers[i]` and awaiting it, `TASK_LAUNCHES` times.
fn task_batch(rt: &tokio::runtime::Runtime, launchers: &[Arc<Launcher>]) {
    rt.block_on(async {
        let tasks: Vec<_> = launchers
            .iter()
            .map(|l| {
                let l = l.clone();
                tokio::spawn(async move {
                    for _ in 0..TASK_LAUNCHES {
                        l.launch(&doca_tests::noop, 1, ()).unwrap().await.unwrap();
                    }
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
    });
}

/// Time per launch of a batch of `many` tasks and of a batch of one task on
/// the first of them, in alternating rounds.
fn tasks_vs_one(rt: &tokio::runtime::Runtime, many: &[Arc<Launcher>]) -> (Duration, Duration) {
    let (m, one) = per_iter_pair(
        iters(20),
        || task_batch(rt, many),
        || task_batch(rt, &many[..1]),
    );
    (m / (TASK_LAUNCHES * many.len() as u32), one / TASK_LAUNCHES)
}

// ------------------------------------------------------------ contexts

/// Launches each context's thread makes (and waits for) in one batch.
const CONTEXT_LAUNCHES: u32 = 1000;

/// One batch: a thread per launcher, each launching the no-op kernel on its
/// own context and waiting for it, `CONTEXT_LAUNCHES` times.
fn contexts_batch(launchers: &[Launcher]) {
    std::thread::scope(|s| {
        for l in launchers {
            s.spawn(move || {
                for _ in 0..CONTEXT_LAUNCHES {
                    l.launch(&doca_tests::noop, 1, ())
                        .unwrap()
                        .wait(WAIT)
                        .unwrap();
                }
            });
        }
    });
}

/// CPU time the whole process has used (the sim's workers included).
fn process_cpu() -> Duration {
    cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

/// Wall time and process CPU time per launch of batches on `many` launchers
/// (one thread each) and on the first of them alone, in alternating rounds.
fn contexts_vs_one(many: &[Launcher]) -> [(Duration, Duration); 2] {
    // CPU time and batches, per side.
    let spent = [
        Cell::new((Duration::ZERO, 0u32)),
        Cell::new((Duration::ZERO, 0u32)),
    ];
    let timed = |side: usize, launchers: &[Launcher]| {
        let before = process_cpu();
        contexts_batch(launchers);
        let (cpu, batches) = spent[side].get();
        spent[side].set((cpu + (process_cpu() - before), batches + 1));
    };
    let (m, one) = per_iter_pair(iters(10), || timed(0, many), || timed(1, &many[..1]));
    let per = |side: usize, launches: usize| {
        let (cpu, batches) = spent[side].get();
        cpu / (batches * launches as u32 * CONTEXT_LAUNCHES)
    };
    [
        (
            m / (CONTEXT_LAUNCHES * many.len() as u32),
            per(0, many.len()),
        ),
        (one / CONTEXT_LAUNCHES, per(1, 1)),
    ]
}

// ------------------------------------------------------------ the run

fn main() {
    // `cargo bench` passes --bench; nothing else is accepted.
    let dpa = common::dpa();
    println!(
        "doca-rs launch benchmarks — backend {}, {} launches per round{}",
        doca::dpa::build_info::BACKEND,
        iters(5_000),
        if quick() { " (quick)" } else { "" }
    );
    let launcher = Launcher::new(&dpa).unwrap();
    let safe_launch = |threads: u32| {
        launcher
            .launch(&doca_tests::noop, threads, ())
            .unwrap()
            .wait(WAIT)
            .unwrap()
    };

    // A fixed workload for external tools (valgrind, perf): only N launches
    // of one path (of DOCA_BENCH_THREADS threads on the safe path), no
    // timing. With DOCA_BENCH_SETTLE_US, the host sleeps that long between
    // submitting and waiting, so that the wait finds the launch complete and
    // polls once: a deterministic count of the wait path.
    if let Ok(mode) = std::env::var("DOCA_BENCH_MODE") {
        let number = |var: &str, default: u64| -> u64 {
            std::env::var(var)
                .ok()
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|_| panic!("{var}={v}: not a number"))
                })
                .unwrap_or(default)
        };
        let n = number("DOCA_BENCH_LAUNCHES", 1000);
        let threads = number("DOCA_BENCH_THREADS", 1) as u32;
        let settle = Duration::from_micros(number("DOCA_BENCH_SETTLE_US", 0));
        let raw_event = RawEvent::new(&dpa);
        let raw_ctx = raw_dpa(&dpa);
        // Warm-up (the pool starts its threads) outside the functions the
        // wait is counted in: `Launcher::wait_all`, an inline poll.
        const WARM_UP: u64 = 20;
        for i in 1..=WARM_UP {
            match mode.as_str() {
                "raw" => {
                    assert_eq!(raw_submit(raw_ctx, raw_event.0), 0);
                    let mut v = 0;
                    while v < i {
                        // SAFETY: started event; valid out-pointer.
                        unsafe { sys::doca_sync_event_get(raw_event.0, &mut v) };
                    }
                }
                _ => {
                    let _launch = launcher.launch(&doca_tests::noop, threads, ()).unwrap();
                    launcher.wait_all(WAIT).unwrap();
                }
            }
        }
        for i in WARM_UP + 1..=WARM_UP + n {
            match mode.as_str() {
                "raw" => {
                    assert_eq!(raw_submit(raw_ctx, raw_event.0), 0);
                    std::thread::sleep(settle);
                    raw_wait(raw_event.0, i);
                }
                "safe" => {
                    let launch = launcher.launch(&doca_tests::noop, threads, ()).unwrap();
                    std::thread::sleep(settle);
                    launch.wait(WAIT).unwrap();
                }
                other => panic!("DOCA_BENCH_MODE={other}: expected safe or raw"),
            }
        }
        println!("{mode}: {n} launches done");
        return;
    }

    // 1. safe vs raw
    let raw_event = RawEvent::new(&dpa);
    let raw_ctx = raw_dpa(&dpa);
    let mut target = 0u64;
    let (safe, raw) = per_iter_pair(
        iters(5_000),
        || safe_launch(1),
        || {
            target += 1;
            raw_launch_wait(raw_ctx, raw_event.0, target);
        },
    );
    ratio_row(
        "1. safe launch+wait / raw launch+wait",
        safe,
        raw,
        format!("target <= 1.05; safe {safe:?}, raw {raw:?}"),
    );

    // 2. allocations
    let n = 1_000;
    let allocs = allocations_during(|| {
        for _ in 0..n {
            safe_launch(1);
        }
    });
    row(
        "2. heap allocations per safe launch",
        format!("{:.3}", allocs as f64 / n as f64),
        format!("target 0; {allocs} in {n} launches, submitting thread"),
    );
    // A launch whose argument the launcher keeps alive (an `Arc` clone per
    // launch, recorded, adopted and released), after a warm-up that lets the
    // queues grow to what is in flight.
    let out = DpaBuffer::<u64>::new(&dpa, 1).unwrap();
    let buffer_launch = || {
        launcher
            .launch(&doca_tests::write_ranks, 1, (&out, 7u64))
            .unwrap()
            .wait(WAIT)
            .unwrap()
    };
    for _ in 0..100 {
        buffer_launch();
    }
    let allocs = allocations_during(|| {
        for _ in 0..n {
            buffer_launch();
        }
    });
    row(
        "   heap allocations per launch with a buffer argument",
        format!("{:.3}", allocs as f64 / n as f64),
        format!("target 0; {allocs} in {n} launches, the buffer kept alive by each"),
    );

    // 3. round trip vs the hand-off floor
    let mut parked = Peer::new(Idle::Parks);
    let (round_trip, floor) =
        per_iter_pair(iters(5_000), || safe_launch(1), || parked.round_trip());
    drop(parked);
    let mut spinning = Peer::new(Idle::Spins);
    let spin_spin = per_iter(iters(20_000), || spinning.round_trip());
    drop(spinning);
    let condvar = condvar_round_trip();
    ratio_row(
        "3. round trip / unpark+spin hand-off floor",
        round_trip,
        floor,
        format!("target <= 3; round trip {round_trip:?}, floor {floor:?}"),
    );
    ratio_row(
        "   round trip / spin-spin ping-pong",
        round_trip,
        spin_spin,
        format!("context; spin-spin {spin_spin:?}"),
    );
    ratio_row(
        "   round trip / mutex+condvar ping-pong",
        round_trip,
        condvar,
        format!("context; condvar {condvar:?}"),
    );

    // 4. scaling
    let max = dpa.limits().max_threads_per_kernel;
    let wide = max.min(190);
    let (wide_latency, one) = per_iter_pair(iters(500), || safe_launch(wide), || safe_launch(1));
    ratio_row(
        &format!("4. {wide}-thread / 1-thread launch latency"),
        wide_latency,
        one,
        format!("target <= 20; {wide} threads {wide_latency:?}, 1 thread {one:?}"),
    );
    for threads in [16u32, 64].into_iter().filter(|t| *t < wide) {
        let latency = per_iter(iters(500), || safe_launch(threads));
        ratio_row(
            &format!("   {threads}-thread / 1-thread launch latency"),
            latency,
            one,
            format!("context; {latency:?}"),
        );
    }
    const IN_FLIGHT: usize = 8;
    let pipelined = per_iter(iters(100), || {
        let launches: [_; IN_FLIGHT] =
            std::array::from_fn(|_| launcher.launch(&doca_tests::noop, wide, ()).unwrap());
        let [.., last] = launches;
        // No wait between them: the eight share an epoch, and waiting on the
        // last waits for all of them.
        last.wait(WAIT).unwrap();
    }) / IN_FLIGHT as u32;
    ratio_row(
        &format!("   {wide} threads, {IN_FLIGHT} in flight / one at a time"),
        pipelined,
        wide_latency,
        format!("context; {pipelined:?} per launch"),
    );

    // 5. memory checking
    #[cfg(doca_backend = "sim")]
    {
        let [(rc, ru), (hc, hu)] = memcheck_cost();
        ratio_row(
            "5. checked / unchecked round trip",
            rc,
            ru,
            format!("checked {rc:?}, unchecked {ru:?}"),
        );
        ratio_row(
            "   checked / unchecked kernel writing 1 MiB",
            hc,
            hu,
            format!("checked {hc:?}, unchecked {hu:?}"),
        );
    }

    // 6. waiting CPU
    let (share, wall) = waiting_cpu(&launcher, Duration::from_millis(50));
    row(
        "6. waiting-thread CPU / wall, Launch::wait",
        format!("{share:.3}"),
        format!("a kernel of {wall:?}; the spin-then-sleep wait"),
    );

    // 7. event reuse vs fresh event
    let fresh = per_iter(iters(1_000), || {
        let event = CompletionEvent::new(&dpa, doca::dpa::Export::No).unwrap();
        let mut v = 0;
        let guard = dpa.enter().unwrap();
        // SAFETY: started context/event, under their family's guard; kernel of the app.
        let rc = unsafe {
            sys::doca_dpa_kernel_launch_update_add(
                dpa.as_ptr(&guard),
                std::ptr::null_mut(),
                0,
                event.as_ptr(&guard),
                1,
                1,
                Some(noop),
            )
        };
        drop(guard);
        assert_eq!(rc, 0);
        while v < 1 {
            v = event.get().unwrap();
        }
    });
    ratio_row(
        "7. launches/s, reused event / fresh event",
        fresh,
        round_trip,
        format!(
            "higher is better; reused {:.0}/s, fresh {:.0}/s",
            1.0 / round_trip.as_secs_f64(),
            1.0 / fresh.as_secs_f64()
        ),
    );

    // 8. tasks on a multi-threaded runtime (its default worker count, one per
    // core), awaiting their launches through one engine.
    const TASKS: usize = 4;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let workers = rt.metrics().num_workers();
    let engine = Engine::new().unwrap();
    let shared = Arc::new(Launcher::with_engine(&dpa, &engine).unwrap());
    let shared: Vec<_> = (0..TASKS).map(|_| shared.clone()).collect();
    let (many, one) = tasks_vs_one(&rt, &shared);
    ratio_row(
        &format!("8. launches/s, {TASKS} tasks / 1 task, one launcher"),
        one,
        many,
        format!(
            "target >= 1.0; {TASKS} tasks {:.0}/s, 1 task {:.0}/s, multi-thread runtime, {workers} workers",
            rate(many),
            rate(one)
        ),
    );
    // A launcher per task, each on a context (a family) and an engine of its
    // own: nothing is shared between the tasks but the runtime.
    let own: Vec<_> = (0..TASKS)
        .map(|_| Arc::new(Launcher::with_engine(&common::dpa(), &Engine::new().unwrap()).unwrap()))
        .collect();
    let (many, one) = tasks_vs_one(&rt, &own);
    ratio_row(
        &format!("   {TASKS} tasks / 1 task, a launcher per task"),
        one,
        many,
        format!(
            "target >= 1.0; {TASKS} tasks {:.0}/s, 1 task {:.0}/s, each launcher on its own \
             context and engine",
            rate(many),
            rate(one)
        ),
    );
    // The same on one context and one engine: one family's lock and one
    // engine's for every task.
    let shared_context: Vec<_> = (0..TASKS)
        .map(|_| Arc::new(Launcher::with_engine(&dpa, &engine).unwrap()))
        .collect();
    let (many, one) = tasks_vs_one(&rt, &shared_context);
    ratio_row(
        &format!("   {TASKS} tasks / 1 task, a launcher per task, one context"),
        one,
        many,
        format!(
            "context; {TASKS} tasks {:.0}/s, 1 task {:.0}/s",
            rate(many),
            rate(one)
        ),
    );

    // 9. RPC round trip
    let (rpc, launch) = per_iter_pair(
        iters(1_000),
        || {
            let sum = dpa.rpc(&doca_tests::add, (40u64, 2u64), WAIT).unwrap();
            assert_eq!(sum, 42);
        },
        || safe_launch(1),
    );
    ratio_row(
        "9. RPC round trip / launch round trip",
        rpc,
        launch,
        format!("context; rpc {rpc:?}, launch {launch:?}"),
    );

    // 10. N contexts (N families) from N threads vs 1 context from 1 thread.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    for (first, n) in [(true, 4usize), (false, cores.max(2))] {
        let contexts: Vec<_> = (0..n)
            .map(|_| Launcher::new(&common::dpa()).unwrap())
            .collect();
        let [(many, many_cpu), (one, one_cpu)] = contexts_vs_one(&contexts);
        let label = if first {
            format!("10. launches/s, {n} contexts on {n} threads / 1 on 1")
        } else {
            format!("   {n} contexts on {n} threads / 1 on 1")
        };
        ratio_row(
            &label,
            one,
            many,
            format!(
                "context ({cores} cores, shared with the sim's workers); {n} contexts {:.0}/s, \
                 1 context {:.0}/s; CPU per launch {many_cpu:?} and {one_cpu:?}",
                rate(many),
                rate(one)
            ),
        );
    }
}

/// Launches per second of `per_launch`.
fn rate(per_launch: Duration) -> f64 {
    1.0 / per_launch.as_secs_f64()
}
