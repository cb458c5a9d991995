//! What waiting costs: the CPU time of the waiting thread while a kernel is held
//! for 50 ms, and the added latency of a no-op launch, for the spinning wait, the
//! wait that sleeps on a progress engine's notification handle, and a tokio await.
//! Every figure is printed as a ratio against the spin wait measured in the same
//! run, then as absolute values.
//!
//! `cargo bench --bench wait` (`BENCH_QUICK=1` shortens it).

use std::time::{Duration, Instant};

use doca::dpa::{Engine, Export, Gate, Launcher, WaitEvent};

#[path = "../tests/common/mod.rs"]
mod common;
use common::doca_tests;

/// How long the gated kernel is held.
const HOLD: Duration = Duration::from_millis(50);
const LONG: Duration = Duration::from_secs(20);

/// CPU time consumed so far by the calling thread.
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer for the calling thread's CPU clock.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[derive(Clone, Copy, PartialEq)]
enum How {
    Spin,
    Fd,
    Async,
}

impl How {
    fn name(self) -> &'static str {
        match self {
            How::Spin => "spin wait",
            How::Fd => "fd wait",
            How::Async => "tokio await",
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .unwrap()
}

/// A launcher for `how` (the engine kept alive by the launcher's event).
fn launcher(dpa: &doca::dpa::Dpa, how: How) -> Launcher {
    match how {
        How::Spin => Launcher::new(dpa).unwrap(),
        How::Fd | How::Async => Launcher::with_engine(dpa, &Engine::new().unwrap()).unwrap(),
    }
}

/// Share of one core the waiting thread used while a kernel was held for `HOLD`.
fn held_wait_cpu(dpa: &doca::dpa::Dpa, how: How, rounds: u32) -> f64 {
    let l = launcher(dpa, how);
    let rt = runtime();
    let mut cpu = Duration::ZERO;
    let mut wall = Duration::ZERO;
    for round in 1..=rounds {
        let gate = WaitEvent::new(dpa, Export::No).unwrap();
        let launch = l
            .launch_gated(Gate::new(&gate, 1).unwrap(), &doca_tests::noop, 1, ())
            .unwrap();
        // Taken under the family's guard; the thread below makes the one call a
        // host publisher makes, which DOCA takes while the launcher waits.
        let raw = {
            let guard = dpa.enter().unwrap();
            gate.as_ptr(&guard) as usize
        };
        let releaser = std::thread::spawn(move || {
            std::thread::sleep(HOLD);
            // SAFETY: the started event outlives this thread (joined below, before
            // `gate` is dropped); DOCA's update_set is the host publisher's call.
            let rc = unsafe { doca::sys::doca_sync_event_update_set(raw as *mut _, 1) };
            assert_eq!(rc, doca::sys::DOCA_SUCCESS as doca::sys::doca_error_t);
        });
        let (c0, t0) = (thread_cpu(), Instant::now());
        match how {
            How::Spin | How::Fd => launch.wait(LONG).unwrap(),
            How::Async => tokio::task::LocalSet::new()
                .block_on(&rt, async { launch.await })
                .unwrap(),
        }
        cpu += thread_cpu() - c0;
        wall += t0.elapsed();
        releaser.join().unwrap();
        assert_eq!(l.retired(), u64::from(round));
    }
    cpu.as_secs_f64() / wall.as_secs_f64()
}

/// Mean launch-to-return time of a no-op kernel.
fn noop_latency(dpa: &doca::dpa::Dpa, how: How, n: u32) -> Duration {
    let l = launcher(dpa, how);
    let rt = runtime();
    let local = tokio::task::LocalSet::new();
    let start = Instant::now();
    for _ in 0..n {
        let launch = l.launch(&doca_tests::noop, 1, ()).unwrap();
        match how {
            How::Spin | How::Fd => launch.wait(LONG).unwrap(),
            How::Async => local.block_on(&rt, async { launch.await }).unwrap(),
        }
    }
    start.elapsed() / n
}

fn main() {
    let quick = std::env::var_os("BENCH_QUICK").is_some();
    let (held_rounds, noops) = if quick { (2, 200) } else { (10, 2000) };
    let dpa = common::dpa();
    println!("backend: {}", doca::dpa::build_info::BACKEND);

    let ways = [How::Spin, How::Fd, How::Async];
    let cpu: Vec<f64> = ways
        .iter()
        .map(|h| held_wait_cpu(&dpa, *h, held_rounds))
        .collect();
    let lat: Vec<Duration> = ways.iter().map(|h| noop_latency(&dpa, *h, noops)).collect();

    println!("\n== ratios against the spin wait, same run");
    for (i, h) in ways.iter().enumerate().skip(1) {
        println!(
            "{:12} waiting-thread CPU over a {} ms kernel: {:.3}x the spin wait's; no-op launch latency {:.2}x",
            h.name(),
            HOLD.as_millis(),
            cpu[i] / cpu[0].max(f64::EPSILON),
            lat[i].as_secs_f64() / lat[0].as_secs_f64()
        );
    }
    println!("\n== absolute (context only; noisy on a shared machine)");
    for (i, h) in ways.iter().enumerate() {
        println!(
            "{:12} {:6.2} % of one core while held; no-op launch {:8.1} µs",
            h.name(),
            cpu[i] * 100.0,
            lat[i].as_secs_f64() * 1e6
        );
    }
    let target = 0.05;
    for (i, h) in ways.iter().enumerate().skip(1) {
        println!(
            "{} uses {} 5 % of one core over the wait (target: under)",
            h.name(),
            if cpu[i] < target { "under" } else { "OVER" }
        );
    }
}
