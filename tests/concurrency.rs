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
/// same context (it waits for the family's guard until the RPC returns); a third
/// sets the event. The set must not wait for the second thread: a call waiting for
/// the guard holds no lock (an event's `set` takes the family's lock while the RPC
/// runs). Before that, the three stalled until the run-time limit stopped the RPC.
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

/// A user argument whose `lower` launches on the launcher it is being launched
/// with, waits for that launch, and passes what it wrote on.
struct LaunchesWhileLowered<'a> {
    launcher: &'a Launcher,
    out: &'a DpaBuffer<u64>,
    base: u64,
}

// SAFETY: lowers to a plain integer, valid for the `uint64_t` parameter it is
// passed for (`N` names that parameter); the device reaches no object through it.
unsafe impl<N: 'static> doca::dpa::KernelArg<doca::dpa::param::Scalar<u64, N>>
    for LaunchesWhileLowered<'_>
{
    fn lower(&self, _: &mut doca::dpa::Keep<'_>) -> doca::dpa::Result<u64> {
        self.launcher
            .launch(&doca_tests::write_ranks, 2, (self.out, self.base))?
            .wait(Duration::from_secs(20))?;
        Ok(self.out.to_vec()?[1] + 100)
    }
}

/// [`common::within`] with the suite's 60 s.
fn within<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    common::within(Duration::from_secs(60), what, f)
}

/// A `KernelArg` whose `lower` launches on the same launcher: the arguments are
/// lowered before the launcher's state is locked, so the inner launch and wait go
/// through (they deadlocked while lowering ran under the launcher's mutex), and
/// the outer launch gets the value the inner one produced.
#[test]
fn an_argument_that_launches_on_the_same_launcher_while_lowered() {
    within("a launch whose argument launches on its launcher", || {
        let dpa = Dpa::start(&common::device(), doca_tests::app()).unwrap();
        let (inner, outer) = (
            DpaBuffer::<u64>::new(&dpa, 2).unwrap(),
            DpaBuffer::<u64>::new(&dpa, 2).unwrap(),
        );
        let launcher = Launcher::new(&dpa).unwrap();
        let arg = LaunchesWhileLowered {
            launcher: &launcher,
            out: &inner,
            base: 7,
        };
        launcher
            .launch(&doca_tests::write_ranks, 2, (&outer, arg))
            .unwrap()
            .wait(Duration::from_secs(20))
            .unwrap();
        assert_eq!(inner.to_vec().unwrap(), [7, 8]);
        assert_eq!(outer.to_vec().unwrap(), [108, 109]);
        assert_eq!(launcher.submitted(), 2);
        assert_eq!(launcher.completed().unwrap(), 2);
    });
}

/// The launcher's state is guarded by its context family's lock; a thread that
/// holds that lock already (inside a `FamilyGuard`, where raw DOCA calls on the
/// family are made) gets a typed error from the launcher, not a second borrow of
/// its state or a deadlock, and the launcher works again once the guard is
/// dropped.
#[test]
fn a_launcher_used_under_its_family_guard_refuses_with_an_error() {
    within("a launch under the family's guard", || {
        let dpa = Dpa::start(&common::device(), doca_tests::app()).unwrap();
        let launcher = Launcher::new(&dpa).unwrap();
        let guard = dpa.enter().unwrap();
        let refused = launcher
            .launch(&doca_tests::noop, 1, ())
            .map(|_| ())
            .unwrap_err();
        drop(guard);
        assert!(
            refused.is_not_supported() && refused.to_string().contains("family's lock"),
            "{refused}"
        );
        assert_eq!(launcher.submitted(), 0);
        launcher
            .launch(&doca_tests::noop, 1, ())
            .unwrap()
            .wait(Duration::from_secs(20))
            .unwrap();
        assert_eq!(launcher.completed().unwrap(), 1);
    });
}

/// Independence (#33): one context family's DOCA call is held inside DOCA (the
/// sim's `Scope::hold`: the call stops in the sim with the family's guard held),
/// while another family — its own context, on the same device — launches, waits,
/// makes an RPC and drops objects to completion. With one process-wide DOCA lock
/// every call of every context queued behind the held one. The held family's
/// other calls do wait for it: its guard is held.
#[cfg(doca_backend = "sim")]
#[test]
fn a_family_held_inside_doca_does_not_stop_another() {
    use doca::dpa::{CompletionEvent, Export, NotificationCompletion, ThreadBuilder};
    within("independence", || {
        let device = common::device();
        let held = Dpa::start(&device, doca_tests::app()).unwrap();
        let free = Dpa::start(&device, doca_tests::app()).unwrap();
        let scope = doca::sim::Scope::new();
        let hold = scope.hold("doca_dpa_mem_alloc").unwrap();
        // A: an allocation of the held family, stopped inside DOCA.
        let stuck = {
            let (dpa, handle) = (held.clone(), scope.handle());
            std::thread::spawn(move || {
                let _in = handle.enter();
                DpaBuffer::<u64>::new(&dpa, 4).map(drop)
            })
        };
        assert!(
            hold.wait_stopped(Duration::from_secs(20)),
            "the held call never reached the sim"
        );
        // Another call of the held family waits for its guard.
        let waiting = {
            let dpa = held.clone();
            std::thread::spawn(move || dpa.health())
        };
        // B: the other family, start to finish, on a thread outside the scope.
        let (tx, rx) = std::sync::mpsc::channel();
        let other = {
            let dpa = free.clone();
            std::thread::spawn(move || {
                let run = || -> doca::dpa::Result<u64> {
                    let out = DpaBuffer::<u64>::new(&dpa, 2)?;
                    let launcher = Launcher::new(&dpa)?;
                    launcher
                        .launch(&doca_tests::write_ranks, 2, (&out, 40u64))?
                        .wait(Duration::from_secs(20))?;
                    let event = CompletionEvent::new(&dpa, Export::ToDpa)?;
                    launcher
                        .launch(&doca_tests::set_event, 1, (&event, 7u64))?
                        .wait(Duration::from_secs(20))?;
                    let thread = ThreadBuilder::new(&dpa, &doca_tests::noop, ())?.start()?;
                    let notify = NotificationCompletion::new(&thread)?;
                    let sum = dpa.rpc(&doca_tests::add, (1u64, 1u64), Duration::from_secs(20))?;
                    let written = out.to_vec()?;
                    drop((notify, thread, launcher, out));
                    Ok(sum + written[0] + written[1] + event.get()?)
                };
                let _ = tx.send(run());
            })
        };
        let result = rx.recv_timeout(Duration::from_secs(20));
        let waited_meanwhile = !waiting.is_finished();
        hold.release();
        assert_eq!(
            result
                .expect("the other family's calls queued behind the held one")
                .map_err(|e| e.to_string()),
            Ok(2 + 40 + 41 + 7)
        );
        assert!(
            waited_meanwhile,
            "a call of the held family ran while the family's guard was held inside DOCA"
        );
        other.join().unwrap();
        stuck.join().unwrap().unwrap();
        assert_eq!(waiting.join().unwrap().unwrap(), doca::dpa::Health::Ok);
        assert!(hold.stopped() >= 1);
        assert_eq!(doca::dpa::core::order_violations(), 0);
    });
}

/// A `CompletionEvent::reached` future first polled while a timed-out RPC's call
/// still runs on the family's RPC thread returns `Pending` at once (its poll
/// asks the context's health without waiting for the RPC, and reads the event,
/// which an RPC does not keep from being read), whether the RPC's function
/// waits on another event or on this one.
#[cfg(doca_backend = "sim")]
#[test]
fn a_reached_future_does_not_wait_for_a_timed_out_rpc() {
    for rpc_waits_on_it in [false, true] {
        within("reached during a timed-out rpc", move || {
            reached_during_a_timed_out_rpc(rpc_waits_on_it)
        });
    }
}

/// The case above: the RPC's function waits on `go`, or on the awaited event.
#[cfg(doca_backend = "sim")]
fn reached_during_a_timed_out_rpc(rpc_waits_on_it: bool) {
    use doca::dpa::{CompletionEvent, Engine, Export, WaitEvent};
    // Waiting on the awaited event, which nothing sets, the RPC's function runs until
    // the run-time limit stops it and the context turns fatal: what it holds is
    // buried (leaked on purpose, never freed), which memcheck's leak count would call
    // a leak. This case is about the first poll's timing, which valgrind's slowdown
    // does not measure anyway.
    if rpc_waits_on_it && common::under_valgrind() {
        return;
    }
    use std::future::Future;
    use std::task::{Context, Wake, Waker};
    struct Noop;
    impl Wake for Noop {
        fn wake(self: std::sync::Arc<Self>) {}
    }
    let dpa = Dpa::start(&common::device(), doca_tests::app()).unwrap();
    let engine = Engine::new().unwrap();
    let event = CompletionEvent::with_engine(&dpa, Export::ToDpa, &engine).unwrap();
    let go = WaitEvent::new(&dpa, Export::ToDpa).unwrap();
    let data = DpaBuffer::<u64>::new(&dpa, 8).unwrap();
    let short = Duration::from_millis(20);
    let timed_out = if rpc_waits_on_it {
        dpa.rpc(&doca_tests::sound_hung_rpc, (&event, &data), short)
    } else {
        dpa.rpc(&doca_tests::sound_hung_rpc, (&go, &data), short)
    };
    assert!(
        matches!(timed_out, Err(doca::dpa::Error::RpcTimeout(_))),
        "{timed_out:?}"
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (pending, took) = rt.block_on(async {
        let mut reached = std::pin::pin!(event.reached(1));
        let waker = Waker::from(std::sync::Arc::new(Noop));
        let started = std::time::Instant::now();
        let first = reached.as_mut().poll(&mut Context::from_waker(&waker));
        (first.is_pending(), started.elapsed())
    });
    go.set(1).unwrap();
    assert!(pending, "the first poll completed before the event was set");
    assert!(
        took < Duration::from_secs(1),
        "the first poll waited {took:?} (for the timed-out RPC's call?)"
    );
}
