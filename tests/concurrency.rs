//! Several host threads, each with its own device, DPA context and launcher,
//! launch concurrently; every result is checked. (Sharing one context and one
//! launcher between threads is `tests/soundness.rs`'s and `examples/service.rs`'s.)

mod common;

use std::time::Duration;

use common::doca_tests;
use doca::dpa::{Dpa, DpaBuffer, Launcher};

const THREADS: u64 = 4;

fn launches() -> u64 {
    // Fewer launches under valgrind, which is ~50x slower.
    if common::under_valgrind() {
        20
    } else {
        200
    }
}

#[test]
fn host_threads_with_their_own_contexts_launch_concurrently() {
    let n = launches();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(THREADS as usize));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let dpa = Dpa::start(&common::device(), doca_tests::app()).unwrap();
                let out = DpaBuffer::<u64>::new(&dpa, 2).unwrap();
                let launcher = Launcher::new(&dpa).unwrap();
                barrier.wait();
                for i in 0..n {
                    let base = t * 1_000_000 + i * 10;
                    launcher
                        .launch(&doca_tests::write_ranks, 2, (&out, base))
                        .unwrap()
                        .wait(Duration::from_secs(20))
                        .unwrap();
                    assert_eq!(
                        out.to_vec().unwrap(),
                        [base, base + 1],
                        "thread {t}, launch {i}"
                    );
                }
                assert_eq!(launcher.completed().unwrap(), n);
                n
            })
        })
        .collect();
    let total: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
    assert_eq!(total, THREADS * n);
}
