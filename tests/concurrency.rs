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

/// An RPC waits on the device for an event; a second thread makes a call with the
/// same context (it waits at the context's RPC gate until the RPC returns); a third
/// sets the event. The set must not wait for the second thread: a call waiting at
/// the gate holds no process-wide lock (an argument like `dpa.as_ptr()` is
/// evaluated before the DOCA lock is taken). Before that, the three stalled until
/// the run-time limit stopped the RPC.
#[test]
fn a_call_waiting_for_an_rpc_does_not_stop_the_event_that_releases_it() {
    use doca::dpa::{Export, WaitEvent};
    let dpa = common::dpa();
    let limit = dpa.limits().kernel_max_run_time;
    let go = std::sync::Arc::new(WaitEvent::new(&dpa, Export::ToDpa).unwrap());
    let data = std::sync::Arc::new(DpaBuffer::<u64>::new(&dpa, 8).unwrap());
    let rpc = {
        let (dpa, go, data) = (dpa.clone(), go.clone(), data.clone());
        std::thread::spawn(move || dpa.rpc(&doca_tests::sound_hung_rpc, (&*go, &*data), limit))
    };
    // Time for the RPC to reach its wait on the device.
    std::thread::sleep(Duration::from_millis(100));
    let user = {
        let dpa = dpa.clone();
        std::thread::spawn(move || DpaBuffer::<u64>::new(&dpa, 1).map(drop))
    };
    // Time for the second thread to reach the gate.
    std::thread::sleep(Duration::from_millis(100));
    let started = std::time::Instant::now();
    go.set(1).unwrap();
    let took = started.elapsed();
    assert_eq!(rpc.join().unwrap().unwrap(), 8);
    user.join().unwrap().unwrap();
    assert!(
        took < limit / 4,
        "setting the event waited {took:?} for a call at the RPC gate (run-time limit {limit:?})"
    );
    assert_eq!(data.to_vec().unwrap(), (1..=8).collect::<Vec<u64>>());
}
