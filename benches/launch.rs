//! Launch-path benchmarks: each figure is printed as a ratio against a
//! baseline measured in the same run, then the absolute times as context.
//!
//! `cargo bench --bench launch` (sim by default; on a BlueField runner the
//! real device). `BENCH_QUICK=1` shortens every measurement.
//!
//! 1. safe launch + wait vs the same sequence through raw -sys calls;
//! 2. heap allocations per steady-state safe launch (counting allocator);
//! 3. sim launch→completion latency vs a bare two-thread ping-pong;
//! 4. launches per second, one reused completion event vs a fresh event per
//!    launch;
//! 5. scaling with the thread count: completion time per launch, and
//!    pipelined throughput with several launches in flight.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use doca::dpa::{CompletionEvent, Dpa, Launcher};
use doca::sys;

#[path = "../tests/common/mod.rs"]
mod common;
use common::doca_tests;

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

// ------------------------------------------------------------ measurement

fn quick() -> bool {
    std::env::var_os("BENCH_QUICK").is_some()
}

/// Median time per iteration over several rounds of `iters` iterations.
fn per_iter(iters: u32, mut f: impl FnMut()) -> Duration {
    let rounds = if quick() { 3 } else { 7 };
    for _ in 0..iters / 10 + 1 {
        f(); // warm up
    }
    let mut samples: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iters {
                f();
            }
            start.elapsed() / iters
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

/// Like [`per_iter`] for two closures, alternating their rounds so that
/// drift in the machine's load affects both alike.
fn per_iter_pair(iters: u32, mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration) {
    let rounds = if quick() { 5 } else { 11 };
    for _ in 0..iters / 10 + 1 {
        a();
        b();
    }
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed() / iters
    };
    let (mut sa, mut sb): (Vec<Duration>, Vec<Duration>) =
        (0..rounds).map(|_| (time(&mut a), time(&mut b))).unzip();
    sa.sort();
    sb.sort();
    (sa[rounds / 2], sb[rounds / 2])
}

fn iters(full: u32) -> u32 {
    if quick() {
        (full / 10).max(10)
    } else {
        full
    }
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
        // SAFETY: the kernel→host recipe on a started context.
        unsafe {
            assert_eq!(sys::doca_sync_event_create(&mut e), 0);
            assert_eq!(
                sys::doca_sync_event_add_publisher_location_dpa(e, dpa.as_ptr()),
                0
            );
            assert_eq!(
                sys::doca_sync_event_add_subscriber_location_cpu(e, dpa.device().as_ptr()),
                0
            );
            assert_eq!(sys::doca_sync_event_start(e), 0);
        }
        RawEvent(e)
    }
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

/// One raw launch of the no-op kernel and a spin on the event.
fn raw_launch_wait(dpa: *mut sys::doca_dpa, event: *mut sys::doca_sync_event, target: u64) {
    // SAFETY: a started context, its completion event, a kernel of its app.
    let rc = unsafe {
        sys::doca_dpa_kernel_launch_update_add(
            dpa,
            std::ptr::null_mut(),
            0,
            event,
            1,
            1,
            Some(noop),
        )
    };
    assert_eq!(rc, 0);
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

// ------------------------------------------------------------ ping-pong

/// Round trip of a bare two-thread ping-pong over a mutex + condvar: the
/// cost of the two cross-thread hand-offs any software DPA needs.
fn ping_pong_round_trip() -> Duration {
    let state = Arc::new((Mutex::new(0u64), Condvar::new()));
    let peer = state.clone();
    let n = iters(20_000) as u64;
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
    let round = |next: &mut u64| {
        let mut v = lock.lock().unwrap();
        *v = *next + 1;
        cv.notify_one();
        while *v != *next + 2 {
            v = cv.wait(v).unwrap();
        }
        *next += 2;
    };
    let mut next = 0u64;
    let result = per_iter(n as u32, || round(&mut next));
    *lock.lock().unwrap() = u64::MAX;
    cv.notify_one();
    let _ = worker.join();
    result
}

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

    // A fixed workload for external tools (valgrind, perf): only N launches
    // of one path, no timing.
    if let Ok(mode) = std::env::var("DOCA_BENCH_MODE") {
        let n: u64 = std::env::var("DOCA_BENCH_LAUNCHES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(1000);
        let raw_event = RawEvent::new(&dpa);
        for i in 1..=n {
            match mode.as_str() {
                "raw" => raw_launch_wait(dpa.as_ptr(), raw_event.0, i),
                _ => launcher
                    .launch(&doca_tests::noop, 1, ())
                    .unwrap()
                    .wait(WAIT)
                    .unwrap(),
            }
        }
        println!("{mode}: {n} launches done");
        return;
    }

    // 1. safe vs raw
    let raw_event = RawEvent::new(&dpa);
    let mut target = 0u64;
    let (safe, raw) = per_iter_pair(
        iters(5_000),
        || {
            launcher
                .launch(&doca_tests::noop, 1, ())
                .unwrap()
                .wait(WAIT)
                .unwrap()
        },
        || {
            target += 1;
            raw_launch_wait(dpa.as_ptr(), raw_event.0, target);
        },
    );
    println!("1. safe launch+wait / raw launch+wait      = {:.3}  (target <= 1.05; safe {safe:?}, raw {raw:?})", ratio(safe, raw));

    // 2. allocations
    let n = 1_000;
    let allocs = allocations_during(|| {
        for _ in 0..n {
            launcher
                .launch(&doca_tests::noop, 1, ())
                .unwrap()
                .wait(WAIT)
                .unwrap();
        }
    });
    println!("2. heap allocations per safe launch         = {:.3}  (target 0; {allocs} in {n} launches, submitting thread)", allocs as f64 / n as f64);

    // 3. sim round trip vs ping-pong
    let pp = ping_pong_round_trip();
    println!("3. launch->completion / thread ping-pong    = {:.3}  (target <= 2; launch {safe:?}, ping-pong {pp:?})", ratio(safe, pp));

    // 4. event reuse vs fresh event
    let fresh = per_iter(iters(1_000), || {
        let event = CompletionEvent::new(&dpa, doca::dpa::Export::No).unwrap();
        let mut v = 0;
        // SAFETY: started context/event, kernel of the app.
        let rc = unsafe {
            sys::doca_dpa_kernel_launch_update_add(
                dpa.as_ptr(),
                std::ptr::null_mut(),
                0,
                event_ptr(&event),
                1,
                1,
                Some(noop),
            )
        };
        assert_eq!(rc, 0);
        while v < 1 {
            v = event.get().unwrap();
        }
    });
    println!("4. launches/s reused event / fresh event    = {:.3}  (higher is better; reused {:.0}/s, fresh {:.0}/s)", ratio(fresh, safe), 1.0 / safe.as_secs_f64(), 1.0 / fresh.as_secs_f64());

    // 5. scaling
    let max = dpa.limits().max_threads_per_kernel;
    let mut base = None;
    for threads in [1u32, 16, 64, 190].into_iter().filter(|t| *t <= max) {
        let latency = per_iter(iters(500), || {
            launcher
                .launch(&doca_tests::noop, threads, ())
                .unwrap()
                .wait(WAIT)
                .unwrap();
        });
        const IN_FLIGHT: usize = 8;
        let in_flight = IN_FLIGHT as u32;
        let pipelined = per_iter(iters(100), || {
            let launches: [_; IN_FLIGHT] =
                std::array::from_fn(|_| launcher.launch(&doca_tests::noop, threads, ()).unwrap());
            let [.., last] = launches;
            // Waiting on the last launch waits for every earlier one too.
            last.wait(WAIT).unwrap();
        }) / in_flight;
        let b = *base.get_or_insert(latency);
        println!("5. N={threads:3}: latency / N=1 latency         = {:.2}  (latency {latency:?}; pipelined, {in_flight} in flight: {pipelined:?} per launch)", ratio(latency, b));
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// The raw event behind a safe completion event, for the fresh-event figure
/// (which must launch on it without a Launcher).
fn event_ptr(event: &CompletionEvent) -> *mut sys::doca_sync_event {
    event.as_ptr()
}
