//! The timing harness of the workspace's benchmarks (`doca-sim/benches/*.rs`
//! and `benches/launch.rs` include this file): medians of rounds, and pairs
//! of measurements taken in alternating rounds so that drift in the
//! machine's load affects both sides of a ratio alike.
#![allow(dead_code)]

use std::time::{Duration, Instant};

/// Whether `BENCH_QUICK` asks for a short run.
pub(crate) fn quick() -> bool {
    std::env::var_os("BENCH_QUICK").is_some()
}

/// Iterations per round: `full`, or a tenth of it (at least 5) when quick.
pub(crate) fn iters(full: u32) -> u32 {
    if quick() {
        (full / 10).max(5)
    } else {
        full
    }
}

fn rounds() -> usize {
    if quick() {
        5
    } else {
        11
    }
}

fn time_round(iters: u32, f: &mut dyn FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        f();
    }
    start.elapsed() / iters
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Median time per iteration of `f` over several rounds of `iters`
/// iterations, after a warm-up.
pub(crate) fn per_iter(iters: u32, mut f: impl FnMut()) -> Duration {
    for _ in 0..iters / 10 + 1 {
        f();
    }
    median((0..rounds()).map(|_| time_round(iters, &mut f)).collect())
}

/// Like [`per_iter`] for two closures, alternating their rounds.
pub(crate) fn per_iter_pair(
    iters: u32,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (Duration, Duration) {
    for _ in 0..iters / 10 + 1 {
        a();
        b();
    }
    let (sa, sb) = (0..rounds())
        .map(|_| (time_round(iters, &mut a), time_round(iters, &mut b)))
        .unzip();
    (median(sa), median(sb))
}

/// Prints one figure as `label = value  (note)`, the line format
/// `scripts/benchmarks.sh` turns into a table row. A label that starts with
/// a number opens a figure; one that starts with spaces adds to it.
pub(crate) fn row(label: &str, value: impl std::fmt::Display, note: impl std::fmt::Display) {
    println!("{label:<46} = {value}  ({note})");
}

/// [`row`] for the ratio `a / b`.
pub(crate) fn ratio_row(label: &str, a: Duration, b: Duration, note: impl std::fmt::Display) {
    row(label, format!("{:.3}", ratio(a, b)), note);
}

/// `a / b`.
pub(crate) fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}
