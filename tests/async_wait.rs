//! Awaiting launches and events on a progress engine (doca::dpa::Engine): under
//! tokio, many at once, dropped mid-wait, an event past a value, the blocking wait
//! that sleeps on the engine's handle, and the typed error where the device's sync
//! events take no tasks.

mod common;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use common::{doca_tests, dpa};
use doca::dpa::{CompletionEvent, DpaBuffer, Engine, Export, Gate, Launcher, WaitEvent};

const LONG: Duration = Duration::from_secs(20);

/// Runs `f` on a current-thread tokio runtime (the DPA objects stay on this thread).
fn run<F: Future>(f: F) -> F::Output {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .unwrap();
    tokio::task::LocalSet::new().block_on(&rt, async {
        tokio::time::timeout(LONG, f).await.expect("the await hung")
    })
}

fn sim() -> bool {
    doca::dpa::build_info::BACKEND == "sim"
}

#[test]
fn a_launch_is_awaited_under_tokio() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
    let out = DpaBuffer::<u64>::new(&dpa, 8).unwrap();
    run(async {
        launcher
            .launch(&doca_tests::write_ranks, 8, (&out, 7u64))
            .unwrap()
            .await
            .unwrap();
    });
    assert_eq!(out.to_vec().unwrap(), (7..15).collect::<Vec<u64>>());
    assert_eq!(launcher.retired(), 1);
}

#[test]
fn a_hundred_launches_awaited_at_once_all_complete() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
    let counter = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let out = DpaBuffer::<u64>::new(&dpa, 1).unwrap();
    run(async {
        let mut pending = Vec::new();
        for _ in 0..100 {
            pending.push(
                launcher
                    .launch(&doca_tests::barrier, 1, (&counter, &out))
                    .unwrap()
                    .completion(),
            );
        }
        let mut done = 0;
        for p in pending {
            p.await.unwrap();
            done += 1;
        }
        assert_eq!(done, 100);
        launcher.all_completed().await.unwrap();
    });
    assert_eq!(launcher.completed().unwrap(), 100);
    assert_eq!(launcher.retired(), 100);
}

#[test]
fn an_event_is_awaited_past_a_value_and_wakes_once_it_is_reached() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let event = CompletionEvent::with_engine(&dpa, Export::ToDpa, &engine).unwrap();
    let gate = WaitEvent::new(&dpa, Export::No).unwrap();
    let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
    let launch = launcher
        .launch_gated(
            Gate::new(&gate, 1).unwrap(),
            &doca_tests::set_event,
            1,
            (&event, 5u64),
        )
        .unwrap();
    run(async {
        let mut reached = pin!(event.reached(5));
        // Held by the gate: not reached, however often it is polled.
        for _ in 0..3 {
            let poll = std::future::poll_fn(|cx| Poll::Ready(reached.as_mut().poll(cx))).await;
            assert!(poll.is_pending());
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        gate.set(1).unwrap();
        assert_eq!(reached.await.unwrap(), 5);
        launch.await.unwrap();
    });
}

#[test]
fn a_future_dropped_mid_wait_leaves_nothing_behind() {
    let scope = sim().then(doca_sim::Scope::new);
    {
        let dpa = dpa();
        let engine = Engine::new().unwrap();
        let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
        let stop = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
        let launch = launcher
            .launch(&doca_tests::spin_until, 1, (&stop,))
            .unwrap();
        let mut completion = Box::pin(launch.completion());
        let mut cx = Context::from_waker(Waker::noop());
        run(async {
            // Registers with the reactor and arms the wait task, then goes away.
            let _ = std::future::poll_fn(|_| Poll::Ready(completion.as_mut().poll(&mut cx))).await;
        });
        drop(completion);
        stop.write(0, &[1]).unwrap();
        // The blocking wait sleeps on the engine's handle and returns once the
        // kernel completes.
        let launch = launcher.launch(&doca_tests::noop, 1, ()).unwrap();
        launch.wait(LONG).unwrap();
        assert_eq!(launcher.retired(), 2);
    }
    if let Some(scope) = scope {
        assert_eq!(scope.live_total(), 0, "left {:?}", scope.live_objects());
    }
}

#[test]
fn without_wait_tasks_the_async_api_says_so_and_blocking_waits_work() {
    if !sim() {
        eprintln!("skipped: needs a sim profile without sync-event tasks");
        return;
    }
    let scope = doca_sim::Scope::new();
    let mut profile = doca_sim::Profile::default();
    for d in &mut profile.devices {
        d.sync_event_tasks = false;
    }
    scope.set_profile(profile);
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let err = Launcher::with_engine(&dpa, &engine).unwrap_err();
    assert!(err.is_not_supported(), "{err}");
    assert!(err.to_string().contains("tasks"), "{err}");
    let err = CompletionEvent::with_engine(&dpa, Export::No, &engine).unwrap_err();
    assert!(err.is_not_supported(), "{err}");
    // A launcher made without an engine works, and its futures say why they cannot.
    let launcher = Launcher::new(&dpa).unwrap();
    let launch = launcher.launch(&doca_tests::noop, 1, ()).unwrap();
    let err = run(launcher.all_completed()).unwrap_err();
    assert!(err.is_not_supported(), "{err}");
    launch.wait(LONG).unwrap();
    drop((launcher, engine, dpa));
    assert_eq!(scope.live_total(), 0, "left {:?}", scope.live_objects());
}

#[test]
fn an_engine_follows_the_runtime_it_is_awaited_in() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .unwrap()
    };
    let await_one = |rt: &tokio::runtime::Runtime| {
        let launch = launcher.launch(&doca_tests::noop, 1, ()).unwrap();
        tokio::task::LocalSet::new().block_on(rt, async {
            tokio::time::timeout(LONG, launch.completion())
                .await
                .expect("the await hung")
                .unwrap()
        });
    };
    // Registered with `first`, which then stays alive but idle: the await in
    // `second` must not wait for `first`'s driver.
    let first = runtime();
    await_one(&first);
    let second = runtime();
    await_one(&second);
    // The first runtime is gone: its registration must not be used again.
    drop(first);
    await_one(&second);
    let third = runtime();
    drop(second);
    await_one(&third);
    assert_eq!(launcher.retired(), 4);
}
