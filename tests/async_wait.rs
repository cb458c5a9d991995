//! Awaiting launches and events on a progress engine (doca::dpa::Engine): under
//! tokio, many at once, dropped mid-wait, an event past a value, the blocking wait
//! that sleeps on the engine's handle, and the typed error where the device's sync
//! events take no tasks.

mod common;

use std::future::Future;
use std::os::fd::RawFd;
use std::pin::{pin, Pin};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use common::{doca_tests, dpa};
use doca::dpa::{
    CompletionEvent, DpaBuffer, Engine, Export, Gate, KernelEvent, Launcher, Reactor, WaitEvent,
};

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

#[cfg(doca_backend = "sim")]
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
    let objects = common::LiveObjects::new();
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
        // The no-op's epoch may finish before the spinning launch's: it retires
        // once both have.
        launcher.wait_all(LONG).unwrap();
        assert_eq!(launcher.retired(), 2);
    }
    if let Some(total) = objects.total() {
        assert_eq!(total, 0, "left {:?}", objects.all());
    }
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn without_wait_tasks_the_async_api_says_so_and_blocking_waits_work() {
    if !sim() {
        eprintln!("skipped: needs a sim profile without sync-event tasks");
        return;
    }
    let scope = doca::sim::Scope::new();
    let mut profile = doca::sim::Profile::default();
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
    assert!(
        err.to_string()
            .contains("`Launcher::with_engine(&dpa, &engine)`"),
        "names the constructor to use: {err}"
    );
    launch.wait(LONG).unwrap();
    drop((launcher, engine, dpa));
    assert_eq!(scope.live_total(), 0, "left {:?}", scope.live_objects());
}

/// Awaiting what was made without an engine names what was awaited (the launch,
/// or the event) and says how to make it with one.
#[test]
fn awaiting_without_an_engine_names_the_launch_or_the_event_and_how_to_get_an_engine() {
    let dpa = dpa();
    let launcher = Launcher::new(&dpa).unwrap();
    let launch = launcher.launch(&doca_tests::noop, 1, ()).unwrap();
    let err = run(async { launch.await }).unwrap_err();
    assert!(err.is_not_supported(), "{err}");
    let text = err.to_string();
    for part in [
        "awaiting this launch is not available: its launcher was made without an engine",
        "`Launcher::with_engine(&dpa, &engine)`",
        "`let engine = Engine::new()?;`",
        "`launch.wait(timeout)`",
    ] {
        assert!(text.contains(part), "{part:?} is not in: {text}");
    }
    let event = CompletionEvent::new(&dpa, Export::No).unwrap();
    let err = run(event.reached(1)).unwrap_err();
    let text = err.to_string();
    for part in [
        "awaiting this event is not available: it was made without an engine",
        "`CompletionEvent::with_engine(&dpa, export, &engine)`",
    ] {
        assert!(text.contains(part), "{part:?} is not in: {text}");
    }
    launcher
        .launch(&doca_tests::noop, 1, ())
        .unwrap()
        .wait(LONG)
        .unwrap();
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

/// A waker that counts its wakes.
struct Counter(std::sync::atomic::AtomicUsize);

impl std::task::Wake for Counter {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

fn counting_waker() -> (std::sync::Arc<Counter>, Waker) {
    let c = std::sync::Arc::new(Counter(0.into()));
    (c.clone(), Waker::from(c))
}

fn wakes(c: &Counter) -> usize {
    c.0.load(std::sync::atomic::Ordering::SeqCst)
}

/// A reactor that behaves as a test needs, counting its calls.
#[derive(Clone, Copy)]
enum Scripted {
    /// Never ready and never wakes: futures on it wake only through the engine.
    Silent,
    /// Wakes the task at once and says not ready (a yield).
    Yields,
    /// Always says the handle is readable: spurious readiness, which readiness
    /// APIs allow.
    AlwaysReady,
}

/// A [`Scripted`] reactor and its call count.
struct Script(Scripted, std::sync::Arc<std::sync::atomic::AtomicU32>);

impl Script {
    fn new(how: Scripted) -> Script {
        Script(how, Default::default())
    }
}

impl Reactor for Script {
    fn poll_readable(
        &self,
        _: RawFd,
        cx: &mut Context<'_>,
        _: &dyn Fn(),
    ) -> Poll<std::io::Result<()>> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match self.0 {
            Scripted::Silent => Poll::Pending,
            Scripted::Yields => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Scripted::AlwaysReady => Poll::Ready(Ok(())),
        }
    }
}

#[test]
fn a_blocking_wait_on_the_engine_wakes_the_futures_whose_notification_it_consumed() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    engine.set_reactor(Script::new(Scripted::Silent));
    let l1 = Launcher::with_engine(&dpa, &engine).unwrap();
    let l2 = Launcher::with_engine(&dpa, &engine).unwrap();
    let stop1 = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let stop2 = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let a = l1.launch(&doca_tests::spin_until, 1, (&stop1,)).unwrap();
    let mut fa = pin!(a.completion());
    let (count, waker) = counting_waker();
    assert!(fa
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    let b = l2.launch(&doca_tests::spin_until, 1, (&stop2,)).unwrap();
    stop1.write(0, &[1]).unwrap();
    while l1.completed().unwrap() < 1 {
        std::thread::yield_now();
    }
    // B still spins: this wait sleeps on the engine's handle, whose notification
    // is A's, and times out.
    assert!(b.wait(Duration::from_millis(50)).is_err());
    assert!(wakes(&count) > 0, "A's future was not woken");
    assert!(fa
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_ready());
    stop2.write(0, &[1]).unwrap();
    l2.wait_all(LONG).unwrap();
}

#[test]
fn setting_a_reactor_wakes_the_futures_waiting_on_the_old_one() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    engine.set_reactor(Script::new(Scripted::Silent));
    let event = CompletionEvent::with_engine(&dpa, Export::No, &engine).unwrap();
    let mut reached = pin!(event.reached(1));
    let (count, waker) = counting_waker();
    assert!(reached
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    assert_eq!(wakes(&count), 0);
    engine.set_reactor(Script::new(Scripted::Silent));
    assert!(
        wakes(&count) > 0,
        "the future still waits on the reactor that was replaced"
    );
}

#[test]
fn spurious_readiness_does_not_spin_inside_a_poll() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let script = Script::new(Scripted::AlwaysReady);
    let calls = script.1.clone();
    engine.set_reactor(script);
    let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
    let stop = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let launch = launcher
        .launch(&doca_tests::spin_until, 1, (&stop,))
        .unwrap();
    let mut done = pin!(launch.completion());
    let (count, waker) = counting_waker();
    // One poll returns, asking to be polled again, instead of looping for as
    // long as the kernel runs.
    assert!(done
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    assert!(
        calls.load(std::sync::atomic::Ordering::Relaxed) <= 2,
        "{} reactor calls in one poll",
        calls.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert_eq!(wakes(&count), 1);
    stop.write(0, &[1]).unwrap();
    launcher.wait_all(LONG).unwrap();
}

/// A future of the engine that a waker polls.
type Inner = Pin<Box<dyn Future<Output = doca::dpa::Result<u64>>>>;

std::thread_local! {
    static INLINE: std::cell::RefCell<Option<Inner>> = const { std::cell::RefCell::new(None) };
}

/// Polls another future of the same engine inside `wake`, as an executor may.
struct PollsInline;

impl std::task::Wake for PollsInline {
    fn wake(self: std::sync::Arc<Self>) {
        INLINE.with(|f| {
            if let Some(f) = f.borrow_mut().as_mut() {
                let _ = f.as_mut().poll(&mut Context::from_waker(Waker::noop()));
            }
        });
    }
}

#[test]
fn a_waker_may_poll_another_future_of_the_engine_inline() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    engine.set_reactor(Script::new(Scripted::Yields));
    let first = CompletionEvent::with_engine(&dpa, Export::No, &engine).unwrap();
    let second = CompletionEvent::with_engine(&dpa, Export::No, &engine).unwrap();
    INLINE.with(|f| *f.borrow_mut() = Some(Box::pin(second.reached(1))));
    let waker = Waker::from(std::sync::Arc::new(PollsInline));
    let mut outer = pin!(first.reached(1));
    assert!(outer
        .as_mut()
        .poll(&mut Context::from_waker(&waker))
        .is_pending());
    INLINE.with(|f| *f.borrow_mut() = None);
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn an_event_whose_context_cannot_stop_keeps_its_dpa_and_engine() {
    if !sim() {
        return;
    }
    let scope = doca::sim::Scope::new();
    {
        let dpa = dpa();
        let engine = Engine::new().unwrap();
        engine.set_reactor(Script::new(Scripted::Silent));
        let event = CompletionEvent::with_engine(&dpa, Export::No, &engine).unwrap();
        {
            let mut reached = pin!(event.reached(1));
            assert!(reached
                .as_mut()
                .poll(&mut Context::from_waker(Waker::noop()))
                .is_pending());
        }
        scope
            .inject(
                "doca_ctx_stop",
                doca::sim::Nth::At(1),
                doca::dpa::ErrorCode::DRIVER.0,
            )
            .unwrap();
        let buried = doca::dpa::buried_count();
        drop(event);
        assert!(
            doca::dpa::buried_count() > buried,
            "the event was not leaked"
        );
        drop((engine, dpa));
    }
    // The leaked event still has the DPA context as a location and its context
    // is connected to the engine: both must outlive it.
    let live = scope.live_objects();
    assert!(live.contains_key("doca_sync_event"), "{live:?}");
    assert!(
        live.contains_key("doca_dpa") && live.contains_key("doca_pe"),
        "{live:?}"
    );
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn a_launcher_drop_waits_through_a_failing_engine() {
    if !sim() {
        return;
    }
    let scope = doca::sim::Scope::new();
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
    // The launch stays in flight, its arguments owned by the launcher.
    drop(
        launcher
            .launch(&doca_tests::busy, 1, (2_000_000u64,))
            .unwrap(),
    );
    scope
        .inject(
            "doca_pe_request_notification",
            doca::sim::Nth::Every,
            doca::dpa::ErrorCode::DRIVER.0,
        )
        .unwrap();
    let buried = doca::dpa::buried_count();
    // The engine fails, the kernel still completes: the drop backs off and frees.
    drop(launcher);
    assert_eq!(doca::dpa::buried_count(), buried);
}

#[test]
fn an_engine_never_progresses_a_context_connected_to_another() {
    let dpa = dpa();
    let first = Engine::new().unwrap();
    let second = Engine::new().unwrap();
    second.set_reactor(Script::new(Scripted::Silent));
    // Contexts connected to `first` and destroyed: their memory is reused by
    // the next ones made.
    for _ in 0..16 {
        drop(CompletionEvent::with_engine(&dpa, Export::ToDpa, &first).unwrap());
    }
    let event = CompletionEvent::with_engine(&dpa, Export::ToDpa, &second).unwrap();
    let mut reached = pin!(event.reached(5));
    assert!(reached
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
        .is_pending());
    Launcher::new(&dpa)
        .unwrap()
        .launch(&doca_tests::set_event, 1, (&event, 5u64))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert!(
        !first.progress(),
        "an engine completed a task of another's context"
    );
    assert!(second.progress());
}

/// Both futures' outputs, polled together on one task.
async fn join<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let (mut a, mut b) = (pin!(a), pin!(b));
    let (mut out_a, mut out_b) = (None, None);
    std::future::poll_fn(|cx| {
        if out_a.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                out_a = Some(v);
            }
        }
        if out_b.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                out_b = Some(v);
            }
        }
        if out_a.is_some() && out_b.is_some() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
    (out_a.unwrap(), out_b.unwrap())
}

/// How a test waits for a launch.
#[derive(Debug, Clone, Copy)]
enum WaitBy {
    Future,
    Blocking,
    IsComplete,
}

#[test]
fn a_finished_launch_resolves_while_a_later_one_still_spins() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    for by in [WaitBy::Future, WaitBy::Blocking, WaitBy::IsComplete] {
        let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
        let stop = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
        let a = launcher.launch(&doca_tests::noop, 1, ()).unwrap();
        // The future is made, or the launch looked at, before the spinning launch
        // is submitted: from then on later launches count apart from it.
        let (a, future) = match by {
            WaitBy::Future => (None, Some(a.completion())),
            WaitBy::Blocking | WaitBy::IsComplete => {
                let _ = a.is_complete().unwrap();
                (Some(a), None)
            }
        };
        let b = launcher
            .launch(&doca_tests::spin_until, 1, (&stop,))
            .unwrap();
        match (by, a, future) {
            (WaitBy::Future, _, Some(f)) => run(f).unwrap(),
            (WaitBy::Blocking, Some(a), _) => a.wait(LONG).unwrap(),
            (WaitBy::IsComplete, Some(a), _) => {
                let deadline = std::time::Instant::now() + LONG;
                while !a.is_complete().unwrap() {
                    assert!(
                        std::time::Instant::now() < deadline,
                        "{by:?}: never complete"
                    );
                    std::thread::yield_now();
                }
            }
            _ => unreachable!(),
        }
        assert!(
            !b.is_complete().unwrap(),
            "{by:?}: the spinning launch finished"
        );
        assert_eq!(launcher.retired(), 1, "{by:?}");
        assert_eq!(launcher.completed().unwrap(), 1, "{by:?}");
        stop.write(0, &[1]).unwrap();
        b.wait(LONG).unwrap();
        assert_eq!(launcher.retired(), 2, "{by:?}");
    }
}

#[test]
fn a_launcher_that_never_runs_dry_retires_as_it_goes() {
    let objects = common::LiveObjects::new();
    let live = |kind: &str| objects.all().map(|all| all.get(kind).copied().unwrap_or(0));
    let n: u64 = if common::under_valgrind() { 100 } else { 1_000 };
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let launcher = Launcher::with_engine(&dpa, &engine).unwrap();
    let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    // One buffer for the quick launches (the sim's memory checker reserves
    // address space for every block freed, which valgrind cannot give thousands
    // of): what the launcher holds for them shows in `kept`.
    let out = DpaBuffer::<u64>::new(&dpa, 1).unwrap();
    let quick = |value: u64| {
        launcher
            .launch(&doca_tests::write_ranks, 1, (&out, value))
            .unwrap()
            .completion()
    };
    run(async {
        // A service awaits a slow request alongside quick ones; the host lets go
        // of what the slow one uses.
        let slow = {
            let data = DpaBuffer::<u64>::new(&dpa, 4).unwrap();
            let event = KernelEvent::new(&dpa).unwrap();
            launcher
                .launch(
                    &doca_tests::sound_hold_then_write,
                    1,
                    (&go, &data, 4u32, &event),
                )
                .unwrap()
                .completion()
        };
        let quick_ones = async {
            // Always one in flight: the next is submitted before the previous is
            // awaited.
            let mut previous = quick(0);
            for i in 1..=2 * n {
                let next = quick(i);
                previous.await.unwrap();
                previous = next;
                let behind = launcher.submitted() - launcher.retired();
                if i == n {
                    // Nothing retired past the slow launch, which still holds its
                    // memory and event (with `go` and `out`), and a reference to
                    // `out` per quick launch.
                    assert_eq!(launcher.retired(), 0);
                    assert!(launcher.kept() as u64 >= behind, "{launcher:?}");
                    assert_eq!(live("dpa_heap_block").unwrap_or(3), 3);
                    assert_eq!(live("doca_sync_event").unwrap_or(3), 3);
                    go.write(0, &[1]).unwrap();
                } else if i > n && launcher.retired() > 0 {
                    assert!(behind <= 3, "{i}: {launcher:?}");
                    assert!(launcher.kept() as u64 <= behind, "{i}: {launcher:?}");
                }
            }
            previous.await.unwrap();
        };
        let (slow, ()) = join(slow, quick_ones).await;
        slow.unwrap();
    });
    assert_eq!(dpa.health().unwrap(), doca::dpa::Health::Ok);
    assert!(
        launcher.retired() > n,
        "retired only {} before running dry: {launcher:?}",
        launcher.retired()
    );
    launcher.wait_all(LONG).unwrap();
    assert_eq!(launcher.retired(), 2 * n + 2);
    assert_eq!(launcher.kept(), 0);
    assert_eq!(
        live("dpa_heap_block").unwrap_or(2),
        2,
        "only `go` and `out` are left"
    );
}

/// Tasks spawned on a multi-threaded runtime launch on one shared launcher and
/// await each launch, batch after batch (the shape of `cargo bench --bench launch`
/// row 8 and of a service): every await must be woken, however the tasks' polls,
/// progress calls and notifications interleave across the worker threads.
#[test]
fn tasks_on_a_multi_threaded_runtime_awaiting_one_launcher_are_all_woken() {
    let dpa = dpa();
    let engine = Engine::new().unwrap();
    let launcher = std::sync::Arc::new(Launcher::with_engine(&dpa, &engine).unwrap());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (tasks, batches, per_task) = if common::under_valgrind() {
        (4, 2, 10)
    } else {
        (4, 40, 100)
    };
    for batch in 0..batches {
        rt.block_on(async {
            let spawned: Vec<_> = (0..tasks)
                .map(|_| {
                    let l = launcher.clone();
                    tokio::spawn(async move {
                        for _ in 0..per_task {
                            l.launch(&doca_tests::noop, 1, ()).unwrap().await.unwrap();
                        }
                    })
                })
                .collect();
            let all = async {
                for t in spawned {
                    t.await.unwrap();
                }
            };
            tokio::time::timeout(LONG, all)
                .await
                .unwrap_or_else(|_| panic!("batch {batch}: an await was never woken"));
        });
    }
    assert_eq!(launcher.submitted(), (tasks * batches * per_task) as u64);
}
