//! Soak: `cargo run --release --example soak -- N` launches N kernels through
//! one launcher and, every N/10 launches, prints the live sim objects (on the
//! software DPA) and the process RSS. Exits non-zero if either grew beyond a
//! small tolerance after the first tenth.

use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};

include!("common_app.rs.in");

/// RSS growth allowed after the first tenth (allocator noise).
const RSS_TOLERANCE_KIB: u64 = 4096;

fn rss_kib() -> u64 {
    // /proc/self/statm: size resident shared ... (in pages).
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

#[cfg(doca_backend = "sim")]
struct Live(doca::sim::Scope);
#[cfg(doca_backend = "sim")]
impl Live {
    fn new() -> Live {
        let scope = doca::sim::Scope::new();
        Live(scope)
    }
    fn count(&self) -> Option<i64> {
        Some(self.0.live_total())
    }
    /// The scope logs every call (for fault sweeps): forget it, or the log
    /// itself grows the RSS.
    fn forget_calls(&self) {
        self.0.reset_calls();
    }
}

#[cfg(not(doca_backend = "sim"))]
struct Live;
#[cfg(not(doca_backend = "sim"))]
impl Live {
    fn new() -> Live {
        Live
    }
    fn count(&self) -> Option<i64> {
        None
    }
    fn forget_calls(&self) {}
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u64 = std::env::args()
        .nth(1)
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(100_000);
    let step = (n / 10).max(1);
    let live = Live::new();
    let device = Device::open_first_with_dpa()?;
    let dpa = Dpa::start(&device, doca_examples::app())?;
    // fill_ranks writes out[rank] and, from rank 0, out[num_threads]: two
    // slots for one thread (the sim's memory checker caught the one-slot
    // buffer this used to have).
    let out = DpaBuffer::<u64>::new(&dpa, 2)?;
    let launcher = Launcher::new(&dpa)?;
    let mut baseline: Option<(Option<i64>, u64)> = None;
    let mut grew = false;
    for i in 1..=n {
        launcher
            .launch(
                &doca_examples::fill_ranks,
                1,
                (&out, 1u64, (i % 1_000_000) as u32),
            )?
            .wait(Duration::from_secs(20))?;
        if i % 1000 == 0 {
            live.forget_calls();
        }
        if i % step == 0 || i == n {
            let (objects, rss) = (live.count(), rss_kib());
            let shown = objects.map_or("n/a (hardware)".to_owned(), |o| o.to_string());
            println!("soak: {i} launches, live sim objects {shown}, RSS {rss} KiB");
            match baseline {
                None => baseline = Some((objects, rss)),
                Some((o0, r0)) => {
                    if objects > o0 || rss > r0 + RSS_TOLERANCE_KIB {
                        eprintln!(
                            "soak: growth after the first tenth: objects {o0:?} -> {objects:?}, RSS {r0} -> {rss} KiB"
                        );
                        grew = true;
                    }
                }
            }
        }
    }
    assert_eq!(out.to_vec()?, [n % 1_000_000, 1]);
    if grew {
        std::process::exit(1);
    }
    println!("soak: {n} launches, flat");
    Ok(())
}
