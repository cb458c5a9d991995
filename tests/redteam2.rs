//! Red-team attacks, second round (issue #27's review): each test does what a
//! program may do with safe code only, through the public API of `doca`, and
//! asserts that the library stays sound (no device use of freed memory, no call on
//! a context during its RPC, no object destroyed under its owner), leaks nothing it
//! need not, and does not hang. A test FAILS when its attack succeeds.
//!
//! The first comment line of each test says ATTACK SUCCEEDS (the test fails on
//! `main` as of this branch: a finding) or HOLDS (the library resists it: a
//! regression test).
//!
//! Every case runs under a watchdog and one at a time, on a sim profile whose
//! kernel run-time limit is 300 ms.

mod common;

use std::any::Any;
use std::cell::RefCell;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::doca_tests;
use doca::dpa::{
    DpaBuffer, Error, Export, Launcher, NotificationCompletion, ThreadBuilder, WaitEvent,
};

const LONG: Duration = Duration::from_secs(20);

/// One case at a time: some depend on timing, and the sim's profile is per scope.
fn serial() -> MutexGuard<'static, ()> {
    static ONE: Mutex<()> = Mutex::new(());
    ONE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `case` on a thread of its own and fails if it does not finish within
/// `limit` (a deadlock or hang: the thread is left behind, the test fails).
fn within<T: Send + 'static>(
    limit: Duration,
    what: &str,
    case: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(format!("redteam2: {what}"))
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(case));
            let _ = tx.send(r);
        })
        .expect("spawning the case's thread");
    match rx.recv_timeout(limit) {
        Ok(Ok(v)) => v,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("HANG: `{what}` did not finish within {limit:?} (deadlock?)"),
    }
}

/// A sim scope with a 300 ms kernel run-time limit (sim builds), entered on the
/// calling thread.
fn scope() -> common::LiveObjects {
    let objects = common::LiveObjects::new();
    #[cfg(doca_backend = "sim")]
    {
        let mut profile = doca::sim::Profile::default();
        for d in &mut profile.devices {
            if d.dpa {
                d.kernel_max_run_time_ms = 300;
            }
        }
        objects.scope().set_profile(profile);
    }
    objects
}

fn e(e: Error) -> String {
    e.to_string()
}

fn heap_blocks(live: &common::LiveObjects) -> Option<i64> {
    live.all()
        .map(|a| a.get("dpa_heap_block").copied().unwrap_or(0))
}

/// Starts `builder`, binds a notification completion, makes the thread runnable
/// and notifies it once (an activation starts).
fn start_and_notify(
    dpa: &doca::dpa::Dpa,
    builder: ThreadBuilder,
) -> Result<(doca::dpa::DpaThread, NotificationCompletion), String> {
    let thread = builder.start().map_err(e)?;
    let notify = NotificationCompletion::new(&thread).map_err(e)?;
    notify.run_thread().map_err(e)?;
    dpa.rpc(&doca_tests::notify, (&notify,), LONG).map_err(e)?;
    Ok((thread, notify))
}

// ---------------------------------------------------------------------------
// Attack 1: a DPA thread that ran is dropped by a thread-local destructor, after
// the library's own thread-local list of deferred records (`keep::DEFERRED`) was
// destroyed on that thread. `keep::defer` hands its record to
// `DEFERRED.try_with(closure)`; when the list is gone, `try_with` fails and drops
// the closure, and with it the record: the thread's local storage is freed at
// once, while the activation still runs.
// ---------------------------------------------------------------------------

thread_local! {
    /// Values a host thread parks until it exits (a user's thread-local cache).
    static PARKED: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// ATTACK SUCCEEDS (device use-after-free): see attack 1 above. Root cause:
/// doca-dpa/src/keep.rs `defer` (`Err(_) => {}`: the entry moved into the closure
/// is dropped, i.e. released, not buried).
#[test]
fn a_thread_dropped_by_a_thread_local_destructor_frees_its_storage_under_its_activation() {
    let _one = serial();
    let r = within(Duration::from_secs(20), "tls destructor", || {
        let live = scope();
        let dpa = common::dpa();
        let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(e)?;
        let storage = DpaBuffer::<u64>::new(&dpa, 8).map_err(e)?;
        let builder = ThreadBuilder::new(&dpa, &doca_tests::sound_slow_thread, (&go,))
            .and_then(|b| b.local_storage(&storage))
            .map_err(e)?;
        let (thread, notify) = start_and_notify(&dpa, builder)?;
        // The activation starts and spins on `go`.
        std::thread::sleep(Duration::from_millis(20));
        drop(storage);
        let worker = std::thread::spawn(move || {
            // Registered first: its destructor runs last, after the library's.
            PARKED.with(|p| p.borrow_mut().push(Box::new((thread, notify))));
            // The library's thread-local list, first touched now: destroyed first.
            doca::dpa::release_deferred();
        });
        worker
            .join()
            .map_err(|_| "the worker panicked".to_string())?;
        let blocks = heap_blocks(&live);
        // Releases the activation, which now writes its local storage.
        go.write(0, &[1]).map_err(e)?;
        std::thread::sleep(Duration::from_millis(100));
        let report = dpa.fault_report();
        Ok::<_, String>((blocks, report))
    });
    let (blocks, report) = r.expect("the case failed to run");
    eprintln!("heap blocks after the worker exited: {blocks:?}; fault: {report:?}");
    let report = report.unwrap_or_default();
    assert!(
        !report.contains("freed") && !report.contains("not allocated"),
        "UNSOUND: the activation wrote local storage freed under it: {report}"
    );
    assert!(
        matches!(blocks, None | Some(2)),
        "UNSOUND: the local storage was freed while the thread's activation ran ({blocks:?} heap blocks)"
    );
}

// ---------------------------------------------------------------------------
// Attack 2: a DPA thread that ran is dropped on another host thread (a worker
// of a pool, a scoped thread). Its record waits in THAT thread's deferred list:
// no other thread can release it, `Dpa::destroy` on the owning thread fails with
// InUse long after the run-time limit passed (its documentation says: until the
// limit has passed), and once the worker exits the record is buried: the context,
// its memory and the thread's objects leak for good.
// ---------------------------------------------------------------------------

/// ATTACK SUCCEEDS (leak, broken contract of `Dpa::destroy`). Root cause:
/// doca-dpa/src/keep.rs, `DEFERRED` is thread-local (`reap` only sees the
/// calling thread's records; `DeferredList::drop` buries at thread exit).
#[test]
fn a_thread_dropped_on_a_worker_thread_leaks_the_context() {
    let _one = serial();
    let r = within(Duration::from_secs(20), "thread dropped elsewhere", || {
        let live = scope();
        let dpa = common::dpa();
        let count = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(e)?;
        let builder =
            ThreadBuilder::new(&dpa, &doca_tests::count_activations, (&count,)).map_err(e)?;
        let (thread, notify) = start_and_notify(&dpa, builder)?;
        let started = Instant::now();
        while count.to_vec().map_err(e)?[0] == 0 {
            if started.elapsed() > Duration::from_secs(5) {
                return Err("the thread never ran".into());
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let (stay_tx, stay_rx) = std::sync::mpsc::channel::<()>();
        let (dropped_tx, dropped_rx) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::spawn(move || {
            drop((thread, notify, count));
            let _ = dropped_tx.send(());
            // Stays alive until told to exit.
            let _ = stay_rx.recv();
        });
        dropped_rx.recv().map_err(|e| e.to_string())?;
        // Well past the limit (300 ms) and the 50 ms margin.
        std::thread::sleep(dpa.limits().kernel_max_run_time + Duration::from_millis(300));
        doca::dpa::release_deferred();
        let destroyed = dpa.destroy().map_err(e);
        let _ = stay_tx.send(());
        worker
            .join()
            .map_err(|_| "the worker panicked".to_string())?;
        // The context, if destroy refused it, is now only held by the record
        // buried at the worker's exit.
        let left = live.all();
        Ok::<_, String>((destroyed, left))
    });
    let (destroyed, left) = r.expect("the case failed to run");
    eprintln!("destroy: {destroyed:?}; live objects at the end: {left:?}");
    assert!(
        destroyed.is_ok(),
        "Dpa::destroy still refused after the run-time limit passed since the thread's stop: {destroyed:?}"
    );
    let total: i64 = left.as_ref().map_or(0, |m| m.values().sum());
    assert_eq!(total, 0, "LEAK: objects left for good: {left:?}");
}

// ---------------------------------------------------------------------------
// Attack 3: the core layer (`doca::dpa::core`, public and `#[doc(hidden)]`) has
// safe constructors over raw pointers: `Owned::new` takes any pointer, and the
// exported `__doca_object!` macro writes the `unsafe impl DocaObject` for the
// caller. So safe code can own (and destroy on drop) an object that a safe
// wrapper still uses, given the raw pointer that the wrapper's safe `as_ptr`
// hands out: a use-after-free / double destroy on real DOCA.
// ---------------------------------------------------------------------------

use doca::sys as dsys;

doca::dpa::__doca_object!(
    /// A DPA hash table, owned by safe code.
    ForgedTable: dsys::doca_dpa_hash_table,
    destroy doca_dpa_hash_table_destroy
);

/// ATTACK SUCCEEDS (use-after-free from safe code). Root cause:
/// doca-dpa/src/core/owned.rs `Owned::new` (safe, any pointer) and the
/// `__doca_object!` macro (owned.rs, emits `unsafe impl` for its caller);
/// likewise doca-dpa/src/core/ctx.rs `Ctx::new` (safe, any pointer, then safe
/// `start`/`stop`).
#[test]
fn safe_code_destroys_a_live_hash_table_through_the_core_layer() {
    let _one = serial();
    let r = within(Duration::from_secs(20), "forged owner", || {
        let live = scope();
        let dpa = common::dpa();
        let table = doca::dpa::HashTable::new(&dpa, 8).map_err(e)?;
        let before = live.total();
        // Safe code only: the pointer comes from a safe method, the owner from a
        // safe constructor.
        let forged =
            doca::dpa::core::Owned::<ForgedTable>::new("forged", table.as_ptr()).map_err(e)?;
        drop(forged);
        let after = live.total();
        // The table is still usable as far as the safe API is concerned.
        let launcher = Launcher::new(&dpa).map_err(e)?;
        let launched = launcher
            .launch(&doca_tests::i4_hash_put, 1, (&table, 1u32, 2u32))
            .and_then(|l| l.wait(LONG))
            .map_err(e);
        drop((launcher, table));
        let report = dpa.fault_report();
        Ok::<_, String>((before, after, launched, report))
    });
    let (before, after, launched, report) = r.expect("the case failed to run");
    eprintln!(
        "live objects with the table: {before:?}, after the forged owner's drop: {after:?}; \
         launch with the table: {launched:?}; fault: {report:?}"
    );
    assert_eq!(
        before, after,
        "UNSOUND: safe code destroyed the hash table a live HashTable owns"
    );
}

// ---------------------------------------------------------------------------
// Attack 4: futures of an engine polled by a tokio runtime while an RPC of the
// same context is in progress on another thread. A pending future's poll asks the
// context's health (`Dpa::health` → `Dpa::with_ctx`), which BLOCKS the runtime's
// worker thread at the RPC gate until the RPC returns. If the RPC's device
// function waits for an event that another task of the same runtime sets (the
// host releasing a function, as `Dpa::rpc`'s docs describe), that task never
// runs: the RPC runs into the kernel run-time limit and the context turns fatal.
// ---------------------------------------------------------------------------

/// ATTACK SUCCEEDS (host stall turned into a fatal context). Root cause:
/// doca-dpa/src/sync_event.rs `Reached::poll` (`ensure_healthy`) and launch.rs
/// `LaunchCompletion::poll` (`l.dpa().health()`) wait at the RPC gate (dpa.rs
/// `Dpa::with_ctx` → `RpcGate::settle` → `RpcGate::enter`, a blocking mutex and
/// channel wait) inside `Future::poll`.
#[test]
fn a_pending_future_blocks_the_runtime_that_would_release_an_rpc() {
    let _one = serial();
    // Control: the same program without the awaiting task works.
    let control = within(Duration::from_secs(20), "control", || {
        rpc_released_by_a_task(false)
    })
    .expect("the control case failed to run");
    assert_eq!(control.0, Ok(8), "control: {control:?}");
    let (rpc, health) = within(Duration::from_secs(20), "future blocks the runtime", || {
        rpc_released_by_a_task(true)
    })
    .expect("the case failed to run");
    eprintln!("control: {control:?}; with an awaiting task: rpc {rpc:?}, health {health:?}");
    assert_eq!(
        rpc,
        Ok(8),
        "the RPC did not return its result: a future's poll blocked the runtime whose task releases it"
    );
    assert_eq!(health, doca::dpa::Health::Ok, "the context turned fatal");
}

/// An RPC on its own thread whose function waits for `go`, which a task of a
/// one-worker tokio runtime sets 20 ms after the RPC began; with `awaiting`, a
/// second task of that runtime awaits an engine-driven event of the same context
/// (made before the RPC). The RPC's result and the context's health.
fn rpc_released_by_a_task(
    awaiting: bool,
) -> Result<(Result<u64, String>, doca::dpa::Health), String> {
    let _live = scope();
    let dpa = Arc::new(common::dpa());
    let engine = doca::dpa::Engine::new().map_err(e)?;
    let event = doca::dpa::CompletionEvent::with_engine(&dpa, Export::ToDpa, &engine).map_err(e)?;
    let reached = event.reached(1);
    let go = Arc::new(WaitEvent::new(&dpa, Export::ToDpa).map_err(e)?);
    let data = DpaBuffer::<u64>::new(&dpa, 8).map_err(e)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let rpc = {
        let (dpa, go) = (dpa.clone(), go.clone());
        std::thread::spawn(move || {
            dpa.rpc(&doca_tests::sound_hung_rpc, (&*go, &data), LONG)
                .map_err(e)
        })
    };
    // The RPC is in progress from here on.
    std::thread::sleep(Duration::from_millis(30));
    let setter = {
        let go = go.clone();
        rt.spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            go.set(1).map_err(e)
        })
    };
    let waiter = awaiting.then(|| {
        rt.spawn(async move {
            let _ = tokio::time::timeout(Duration::from_millis(500), reached).await;
        })
    });
    let rpc = rpc.join().map_err(|_| "the RPC thread panicked")?;
    rt.block_on(async {
        let _ = tokio::time::timeout(Duration::from_secs(5), setter).await;
        if let Some(w) = waiter {
            let _ = tokio::time::timeout(Duration::from_secs(5), w).await;
        }
    });
    drop(rt);
    drop(event);
    let health = dpa.health().map_err(e)?;
    Ok((rpc, health))
}

// ---------------------------------------------------------------------------
// Attack 5: an RPC times out at once (timeout 0) on one thread while its function
// still runs; other threads then drop the last handles of everything the
// function and the context use (buffers, the event it waits on, the context
// itself) in every order, and one sets the event from its own clone. Nothing may
// run during the RPC, nothing may be freed under it, and the context's teardown
// must wait for the call, not hang.
// ---------------------------------------------------------------------------

/// HOLDS: the gate settles the owed outcome before any teardown.
#[test]
fn a_zero_timeout_rpc_then_everything_dropped_elsewhere() {
    let _one = serial();
    #[cfg(doca_backend = "sim")]
    let before = doca::sim::concurrent_context_uses();
    for round in 0..4u32 {
        let r = within(Duration::from_secs(20), "zero-timeout rpc", move || {
            let live = scope();
            let dpa = common::dpa();
            let go = Arc::new(WaitEvent::new(&dpa, Export::ToDpa).map_err(e)?);
            let data = DpaBuffer::<u64>::new(&dpa, 8).map_err(e)?;
            let rpc = dpa.rpc(&doca_tests::sound_hung_rpc, (&*go, &data), Duration::ZERO);
            if !matches!(rpc, Err(Error::RpcTimeout(_)) | Ok(8)) {
                return Err(format!("rpc: {rpc:?}"));
            }
            let setter = {
                let go = go.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(20 * u64::from(round % 2)));
                    go.set(1)
                })
            };
            let dropper = std::thread::spawn(move || {
                if round >= 2 {
                    drop(data);
                    drop(go);
                    dpa.destroy().map_err(e)
                } else {
                    drop(dpa);
                    drop(go);
                    drop(data);
                    Ok(())
                }
            });
            setter
                .join()
                .map_err(|_| "the setter panicked")?
                .map_err(e)?;
            let dropped = dropper.join().map_err(|_| "the dropper panicked")?;
            doca::dpa::release_deferred();
            // What the timed-out RPC kept is released once the limit passed.
            std::thread::sleep(Duration::from_millis(400));
            doca::dpa::release_deferred();
            Ok::<_, String>((dropped, live.all()))
        });
        let (dropped, left) = r.unwrap_or_else(|e| panic!("round {round}: {e}"));
        eprintln!("round {round}: teardown {dropped:?}; left {left:?}");
    }
    #[cfg(doca_backend = "sim")]
    {
        let during = doca::sim::concurrent_context_uses() - before;
        assert_eq!(during, 0, "UNSOUND: {during} calls ran during the RPC");
    }
}

// ---------------------------------------------------------------------------
// Attack 6: calls on objects of the context (a thread's id and run, a hash
// table's and a completion's creation and teardown, a DPA memory map) from a
// tokio multi-thread runtime's tasks while RPCs on the context run from other
// tasks (timing out and not), with the last handles dropped inside tasks. The
// sim counts any call of the context made during its RPC.
// ---------------------------------------------------------------------------

/// HOLDS: every call on the context or its objects waits at the gate.
#[test]
fn object_calls_from_tokio_tasks_during_rpcs() {
    let _one = serial();
    #[cfg(doca_backend = "sim")]
    let before = doca::sim::concurrent_context_uses();
    let r = within(Duration::from_secs(30), "tokio object calls", || {
        let _live = scope();
        let dpa = Arc::new(common::dpa());
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(3)
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        let go = Arc::new(WaitEvent::new(&dpa, Export::ToDpa).map_err(e)?);
        let mut tasks = Vec::new();
        for i in 0..3u64 {
            let (dpa, go) = (dpa.clone(), go.clone());
            tasks.push(rt.spawn_blocking(move || -> Result<(), String> {
                for j in 0..6u64 {
                    if i == 0 && j % 3 == 0 {
                        let data = DpaBuffer::<u64>::new(&dpa, 8).map_err(e)?;
                        match dpa.rpc(
                            &doca_tests::sound_hung_rpc,
                            (&*go, &data),
                            Duration::from_millis(3),
                        ) {
                            Ok(8) | Err(Error::RpcTimeout(_)) => {}
                            other => return Err(format!("hung rpc: {other:?}")),
                        }
                    } else {
                        let s = dpa.rpc(&doca_tests::add, (i, j), LONG).map_err(e)?;
                        if s != i + j {
                            return Err(format!("{i} + {j} = {s}"));
                        }
                    }
                }
                Ok(())
            }));
        }
        for k in 0..4u64 {
            let dpa = dpa.clone();
            tasks.push(rt.spawn(async move {
                for _ in 0..10 {
                    let count = DpaBuffer::<u64>::from_slice(&dpa, &[k]).map_err(e)?;
                    let thread =
                        ThreadBuilder::new(&dpa, &doca_tests::count_activations, (&count,))
                            .and_then(|b| b.affinity(0))
                            .and_then(|b| b.start())
                            .map_err(e)?;
                    let notify = NotificationCompletion::new(&thread).map_err(e)?;
                    notify.run_thread().map_err(e)?;
                    thread.id().map_err(e)?;
                    let completion = doca::dpa::CompletionBuilder::new(&dpa, 4)
                        .and_then(|b| b.start())
                        .map_err(e)?;
                    let ops = doca::dpa::AsyncOps::new(&dpa, 4, 1, &completion).map_err(e)?;
                    let table = doca::dpa::HashTable::new(&dpa, 4).map_err(e)?;
                    let map = doca::dpa::DpaMmap::with_range(&dpa, &count, 0, 1).map_err(e)?;
                    tokio::task::yield_now().await;
                    drop((ops, completion, table, map, notify, thread, count));
                }
                Ok(())
            }));
        }
        std::thread::sleep(Duration::from_millis(40));
        go.set(1).map_err(e)?;
        let results: Vec<Result<(), String>> = rt.block_on(async {
            let mut out = Vec::new();
            for t in tasks {
                out.push(
                    match tokio::time::timeout(Duration::from_secs(15), t).await {
                        Ok(Ok(r)) => r,
                        Ok(Err(j)) => Err(j.to_string()),
                        Err(_) => Err("timed out".into()),
                    },
                );
            }
            out
        });
        drop(rt);
        std::thread::sleep(Duration::from_millis(400));
        doca::dpa::release_deferred();
        let health = dpa.health().map_err(e)?;
        Ok::<_, String>((results, health))
    });
    let (results, health) = r.expect("the case failed to run");
    assert!(results.iter().all(|r| r.is_ok()), "{results:?}");
    assert_eq!(health, doca::dpa::Health::Ok);
    #[cfg(doca_backend = "sim")]
    {
        let during = doca::sim::concurrent_context_uses() - before;
        assert_eq!(during, 0, "UNSOUND: {during} calls ran during an RPC");
    }
}

// ---------------------------------------------------------------------------
// Attack 7: as attack 1, for an RPC that times out inside a thread-local
// destructor that runs after the library's deferred list was destroyed: the
// RPC's arguments are handed to `keep::defer`, whose failed `try_with` drops
// them. DPA memory then waits at the RPC gate before it is freed, but a sync
// event does not (its teardown names no context): the function's event is
// destroyed while the function still polls it.
// ---------------------------------------------------------------------------

/// Runs a timed-out RPC when dropped, then drops its own handles of the RPC's
/// arguments (the event first), and records what happened.
struct RpcOnExit {
    dpa: Option<doca::dpa::Dpa>,
    out: Arc<Mutex<Option<Result<String, String>>>>,
}

impl Drop for RpcOnExit {
    fn drop(&mut self) {
        let Some(dpa) = self.dpa.take() else { return };
        let run = || -> Result<String, String> {
            let go = WaitEvent::new(&dpa, Export::ToDpa).map_err(e)?;
            let data = DpaBuffer::<u64>::new(&dpa, 8).map_err(e)?;
            let rpc = dpa.rpc(
                &doca_tests::redteam_poll_rpc,
                (&go, &data),
                Duration::from_millis(20),
            );
            drop(go);
            std::thread::sleep(Duration::from_millis(20));
            // DPA memory waits at the gate for the call to return.
            drop(data);
            Ok(format!("{rpc:?}"))
        };
        *self.out.lock().unwrap_or_else(|p| p.into_inner()) = Some(run());
    }
}

thread_local! {
    static ON_EXIT: RefCell<Option<RpcOnExit>> = const { RefCell::new(None) };
}

/// ATTACK SUCCEEDS: the fault report names the event (device use of a destroyed sync
/// event). Root cause: doca-dpa/src/keep.rs `defer` (`Err(_) => {}` drops the
/// record), reached from launch.rs `Dpa::rpc`'s timeout path.
#[test]
fn an_rpc_timed_out_in_a_thread_local_destructor_loses_its_event() {
    let _one = serial();
    // Control: the same drop on a live thread keeps the event until the call returns.
    let (ran, report) = within(Duration::from_secs(20), "control", || rpc_on_exit(false))
        .expect("the control failed to run");
    eprintln!("control: {ran:?}; fault: {report:?}");
    assert!(
        !report.unwrap_or_default().contains("not a live"),
        "control: the event was lost outside a destructor"
    );
    let (ran, report) = within(Duration::from_secs(20), "rpc in tls destructor", || {
        rpc_on_exit(true)
    })
    .expect("the case failed to run");
    eprintln!("in the destructor: {ran:?}; fault: {report:?}");
    let report = report.unwrap_or_default();
    assert!(
        !report.contains("not a live"),
        "UNSOUND: the RPC's function used its sync event after it was destroyed: {report}"
    );
}

/// What an `RpcOnExit` recorded, and the context's fault report.
type OnExit = (Option<Result<String, String>>, Option<String>);

/// Drops an `RpcOnExit` on a worker thread: from a thread-local destructor that
/// runs after the library's (`in_tls`), or plainly. What the drop recorded and the
/// context's fault report.
fn rpc_on_exit(in_tls: bool) -> Result<OnExit, String> {
    let _live = scope();
    let dpa = common::dpa();
    let out = Arc::new(Mutex::new(None));
    let worker = {
        let (dpa, out) = (dpa.clone(), out.clone());
        std::thread::spawn(move || {
            let hook = RpcOnExit {
                dpa: Some(dpa),
                out,
            };
            if in_tls {
                ON_EXIT.with(|o| *o.borrow_mut() = Some(hook));
                doca::dpa::release_deferred();
            } else {
                doca::dpa::release_deferred();
                drop(hook);
            }
        })
    };
    worker
        .join()
        .map_err(|_| "the worker panicked".to_string())?;
    let ran = out.lock().unwrap().clone();
    Ok((ran, dpa.fault_report()))
}
