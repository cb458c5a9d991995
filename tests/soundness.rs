//! "Safe" is a property: no sequence of safe calls lets the DPA use memory or objects
//! that were freed, stopped or destroyed. Each case below does what a careless (or
//! adversarial) program may do with safe code only — time out and drop everything,
//! forget a launch, complete out of order, destroy the context under a running
//! kernel, drop a persistent thread's state, stop an RDMI connection or a DOCA RDMA
//! context a kernel is using, drop a peer's remote map under a kernel — while a kernel holds on to the objects, and then lets the kernel use
//! them. The case passes when the objects stayed alive (or were leaked) until the
//! device was done, and the process is unharmed.
//!
//! On the software DPA the live-object accounting of `doca::sim::Scope` shows what
//! is still alive, and its memory checker turns any device access to freed memory
//! into a reported fault (which these cases assert never happens). On hardware the
//! same flows run without the accounting.
//!
//! The binary prints `soundness: N cases, 0 unsound`.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::doca_tests;
use doca::dpa::{
    CompletionEvent, Dev, Dpa, DpaBox, DpaBuffer, Error, Export, Gate, KernelEvent, Launcher,
    NotificationCompletion, ThreadBuilder, WaitEvent,
};

const LONG: Duration = Duration::from_secs(20);

type CaseResult = Result<(), String>;

fn check(ok: bool, what: impl FnOnce() -> String) -> CaseResult {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

/// Live sim objects of the case's scope (none known on hardware).
struct Live<'s> {
    objects: &'s common::LiveObjects,
}

impl Live<'_> {
    fn count(&self, kind: &str) -> i64 {
        self.objects
            .all()
            .map_or(0, |all| all.get(kind).copied().unwrap_or(0))
    }

    fn all(&self) -> BTreeMap<&'static str, i64> {
        self.objects.all().unwrap_or_default()
    }

    /// On the sim: `kind` has exactly `n` live objects.
    fn expect(&self, kind: &str, n: i64, when: &str) -> CaseResult {
        if self.objects.all().is_none() {
            return Ok(());
        }
        let got = self.count(kind);
        check(got == n, || {
            format!("{when}: {got} live {kind}, expected {n} ({:?})", self.all())
        })
    }
}

/// The context must not have seen a device fault (a use of freed memory would be
/// one on the sim's checked heap).
fn no_fault(dpa: &Dpa, when: &str) -> CaseResult {
    match dpa.health() {
        Ok(doca::dpa::Health::Ok) => Ok(()),
        other => Err(format!(
            "{when}: the context is {other:?}: {}",
            dpa.fault_report().unwrap_or_default()
        )),
    }
}

fn release(go: &DpaBuffer<u64>) -> CaseResult {
    go.write(0, &[1]).map_err(|e| e.to_string())
}

fn err(e: Error) -> String {
    e.to_string()
}

/// What a held launch of `sound_hold_then_write` uses: it waits for `go`, then
/// writes every word of `data` and adds to `event`.
struct Held {
    go: DpaBuffer<u64>,
    data: DpaBuffer<u64>,
    event: KernelEvent,
}

impl Held {
    fn new(dpa: &Dpa, words: usize) -> Result<Held, String> {
        Ok(Held {
            go: DpaBuffer::from_slice(dpa, &[0]).map_err(err)?,
            data: DpaBuffer::new(dpa, words).map_err(err)?,
            event: KernelEvent::new(dpa).map_err(err)?,
        })
    }

    /// Submits the launch, held until `go` is released.
    fn launch<'l>(&self, launcher: &'l Launcher) -> Result<doca::dpa::Launch<'l>, String> {
        let words = u32::try_from(self.data.len()).map_err(|e| e.to_string())?;
        launcher
            .launch(
                &doca_tests::sound_hold_then_write,
                1,
                (&self.go, &self.data, words, &self.event),
            )
            .map_err(err)
    }
}

/// A launch times out; the host then drops every argument (DPA memory, a kernel
/// event, the gate's wait event) and the launch handle. The kernel then writes the
/// memory and updates the event: both must still exist.
fn timeout_then_drop_every_argument(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
    let data = DpaBuffer::<u64>::new(&dpa, 64).map_err(err)?;
    let event = KernelEvent::new(&dpa).map_err(err)?;
    let gate_event = WaitEvent::new(&dpa, Export::No).map_err(err)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    let gate = Gate::new(&gate_event, 1).map_err(err)?;
    let launch = launcher
        .launch_gated(
            gate,
            &doca_tests::sound_hold_then_write,
            1,
            (&go, &data, 64u32, &event),
        )
        .map_err(err)?;
    gate_event.set(1).map_err(err)?;
    match launch.wait(Duration::from_millis(20)) {
        Err(Error::LaunchTimeout(_)) => {}
        other => return Err(format!("expected a timeout, got {other:?}")),
    }
    drop((data, event, gate_event));
    live.expect("dpa_heap_block", 2, "after the timeout and the drops")?;
    live.expect("doca_sync_event", 4, "after the timeout and the drops")?;
    release(&go)?;
    launcher.wait_all(LONG).map_err(err)?;
    no_fault(&dpa, "after the kernel used the dropped arguments")?;
    live.expect("dpa_heap_block", 1, "once the launch was seen to finish")?;
    live.expect("doca_sync_event", 2, "once the launch was seen to finish")?;
    Ok(())
}

/// Two launches in flight; the slow one's handle and arguments are dropped while a
/// later, fast launch completes first. The slow launch's memory must survive until
/// it finishes.
fn a_later_launch_completing_first_releases_nothing(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let held = Held::new(&dpa, 16)?;
    let fast_data = DpaBuffer::<u64>::new(&dpa, 1).map_err(err)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    let slow = held.launch(&launcher)?;
    drop(slow);
    drop(held.data);
    let fast = launcher
        .launch(&doca_tests::write_ranks, 1, (&fast_data, 5u64))
        .map_err(err)?;
    let deadline = Instant::now() + LONG;
    while launcher.completed().map_err(err)? < 1 {
        check(Instant::now() < deadline, || {
            "the fast launch never completed".into()
        })?;
        std::thread::yield_now();
    }
    check(fast_data.to_vec().map_err(err)? == [5], || {
        "the fast launch did not run".into()
    })?;
    check(!fast.is_complete().map_err(err)?, || {
        "a launch was reported complete while an earlier one still runs".into()
    })?;
    live.expect("dpa_heap_block", 3, "after the fast launch completed")?;
    release(&held.go)?;
    fast.wait(LONG).map_err(err)?;
    no_fault(&dpa, "after the slow launch wrote its dropped buffer")?;
    live.expect("dpa_heap_block", 2, "once both launches finished")?;
    Ok(())
}

/// Quick launches in each part of the epoch case: fewer under valgrind (50x
/// slower).
fn quick_launches() -> usize {
    if common::under_valgrind() {
        200
    } else {
        2_000
    }
}

/// A slow launch in an older epoch, thousands of quick ones in newer epochs, each
/// waited for while the slow one holds its dropped arguments: every quick wait
/// returns, and nothing is released — of the slow launch, nor past it — until it
/// finishes. Then, with a launch always in flight (the launcher never runs dry),
/// the launcher still retires as it goes and holds a bounded number of arguments.
///
/// (On a device whose kernel run-time limit the held kernel outlasts the quick
/// launches by far: the default device's 12 s, or 10 minutes under valgrind,
/// where 200 quick launches, each waited for, take about as long as 12 s. The
/// quick launches share one buffer, so that the memory checker keeps few freed
/// blocks fenced.)
fn a_slow_launch_in_an_older_epoch_outlives_quick_ones(live: &Live<'_>) -> CaseResult {
    #[cfg(doca_backend = "sim")]
    live.objects.scope().set_profile({
        let mut profile = doca::sim::Profile::default();
        if common::under_valgrind() {
            for d in profile.devices.iter_mut().filter(|d| d.dpa) {
                d.kernel_max_run_time_ms = 600_000;
            }
        }
        profile
    });

    let dpa = common::dpa();
    let out = DpaBuffer::<u64>::new(&dpa, 1).map_err(err)?;
    let held = Held::new(&dpa, 8)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    let quick = |value: u64| {
        launcher
            .launch(&doca_tests::write_ranks, 1, (&out, value))
            .map_err(err)
    };
    let slow = held.launch(&launcher)?;
    // A look at it closes its epoch: the quick launches count on the other event.
    check(!slow.is_complete().map_err(err)?, || {
        "the held launch was reported complete".into()
    })?;
    let Held { go, data, event } = held;
    drop((slow, data, event));
    let n = quick_launches();
    for i in 0..n as u64 {
        quick(i)?
            .wait(LONG)
            .map_err(|e| format!("quick launch {i} behind the held one: {e}"))?;
    }
    check(launcher.retired() == 0, || {
        format!(
            "{} launches retired while the first still runs",
            launcher.retired()
        )
    })?;
    // One reference (to `out`) per quick launch, and the slow launch's.
    check(launcher.kept() > n, || {
        format!(
            "{} references kept for {n} quick launches and a held one",
            launcher.kept()
        )
    })?;
    live.expect("dpa_heap_block", 3, "while the slow launch runs")?;
    live.expect("doca_sync_event", 3, "while the slow launch runs")?;
    release(&go)?;
    // Never dry: the next launch is submitted before the previous one is waited for.
    let deadline = Instant::now() + LONG;
    let mut previous = quick(0)?;
    let (mut i, mut checked) = (0u64, 0);
    while checked < n {
        i += 1;
        let next = quick(i)?;
        previous.wait(LONG).map_err(err)?;
        previous = next;
        if launcher.retired() == 0 {
            // The slow launch has not seen `go` yet.
            check(Instant::now() < deadline, || {
                "the released launch never finished".into()
            })?;
            continue;
        }
        checked += 1;
        let behind = launcher.submitted() - launcher.retired();
        check(behind <= 2, || {
            format!("{i} launches after the release, always one in flight: {behind} not retired")
        })?;
        check(launcher.kept() <= behind as usize, || {
            format!(
                "{i}: {} references kept for {behind} launches not retired",
                launcher.kept()
            )
        })?;
    }
    no_fault(&dpa, "after the slow launch wrote its dropped buffer")?;
    live.expect(
        "dpa_heap_block",
        2,
        "once the slow launch was seen to finish",
    )?;
    live.expect(
        "doca_sync_event",
        2,
        "once the slow launch was seen to finish",
    )?;
    previous.wait(LONG).map_err(err)?;
    launcher.wait_all(LONG).map_err(err)?;
    check(launcher.retired() == launcher.submitted(), || {
        format!("{launcher:?} after waiting for all")
    })?;
    check(launcher.kept() == 0, || {
        format!("{} references kept once all retired", launcher.kept())
    })
}

/// `mem::forget` of a launch, then the arguments are dropped: nothing is released
/// until the launcher sees the launch finish.
fn forgetting_a_launch_keeps_its_arguments(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let held = Held::new(&dpa, 8)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    let launch = held.launch(&launcher)?;
    let Held { go, data, event } = held;
    // `Launch` holds nothing the device uses, so this is the same as dropping it:
    // exactly what the case checks.
    #[allow(clippy::forget_non_drop)]
    std::mem::forget(launch);
    drop((data, event));
    live.expect("dpa_heap_block", 2, "after forget and the drops")?;
    live.expect("doca_sync_event", 3, "after forget and the drops")?;
    release(&go)?;
    launcher.wait_all(LONG).map_err(err)?;
    no_fault(&dpa, "after the forgotten launch ran")?;
    live.expect("dpa_heap_block", 1, "once the launch was seen to finish")?;
    Ok(())
}

/// The context is destroyed (and the launcher dropped) while a kernel runs that
/// will not finish before the launcher's bounded wait: `destroy` refuses, the
/// launcher's drop leaks what the launch holds, and nothing is freed under the
/// kernel. (Uses a device with a short kernel run-time limit: `short_limit_profile`.)
fn destroying_the_context_under_a_running_kernel(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let held = Held::new(&dpa, 8)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    let _launch = held.launch(&launcher)?;
    let Held {
        go: _go,
        data,
        event,
    } = held;
    match dpa.clone().destroy() {
        Err(Error::InUse { .. }) => {}
        other => return Err(format!("destroy with a kernel running returned {other:?}")),
    }
    drop((data, event));
    let buried = doca::dpa::buried_count();
    drop(_launch);
    // The kernel never gets `go`: the wait in the launcher's drop runs out (or the
    // watchdog kills the kernel and the context turns fatal) and it leaks.
    drop(launcher);
    check(doca::dpa::buried_count() > buried, || {
        "the launcher was dropped with a kernel running and leaked nothing".into()
    })?;
    live.expect("dpa_heap_block", 2, "after the launcher leaked the launch")?;
    // The kernel's event and both of the launcher's completion events: the DPA
    // may still update any of them.
    live.expect("doca_sync_event", 3, "after the launcher leaked the launch")?;
    match dpa.destroy() {
        Err(Error::InUse { .. }) => Ok(()),
        other => Err(format!(
            "destroy of a context a leaked launch holds returned {other:?}"
        )),
    }
}

/// A persistent thread whose state struct (in DPA memory) references DPA memory and
/// an event; the host drops the state, the memory and the event, then wakes the
/// thread, which uses them all.
fn a_thread_keeps_its_state_and_what_it_references(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let scratch = DpaBuffer::<u64>::new(&dpa, 8).map_err(err)?;
    let done = CompletionEvent::new(&dpa, Export::ToDpa).map_err(err)?;
    let state = DpaBox::new(
        &dpa,
        &doca_tests::sound_thread_state {
            activations: 0,
            scratch: Dev::new(&scratch).map_err(err)?,
            done: Dev::new(&done).map_err(err)?,
        },
    )
    .map_err(err)?;
    let builder = ThreadBuilder::new(&dpa, &doca_tests::sound_thread, (&state,)).map_err(err)?;
    let (thread, notify) = start_and_notify(&dpa, builder)?;
    done.wait_gt(0, LONG).map_err(err)?;
    // The host lets go of everything but the notification.
    drop((state, scratch, done, thread));
    live.expect("dpa_heap_block", 2, "after the host dropped the state")?;
    live.expect("doca_sync_event", 1, "after the host dropped the state")?;
    for _ in 0..3 {
        dpa.rpc(&doca_tests::notify, (&notify,), common::RPC_TIMEOUT)
            .map_err(err)?;
    }
    // Give the activations time to run on the state the host no longer holds.
    std::thread::sleep(Duration::from_millis(50));
    no_fault(&dpa, "after the thread used its dropped state")?;
    let deferred = doca::dpa::deferred_count();
    drop(notify);
    no_fault(&dpa, "after the thread was destroyed")?;
    // An activation may still run after the stop: what the thread used waits for
    // the run-time limit (short here) to pass with the context healthy.
    check(doca::dpa::deferred_count() > deferred, || {
        "a thread that ran was destroyed and its state released at once".into()
    })?;
    live.expect("dpa_heap_block", 2, "right after the thread was destroyed")?;
    settle_deferred(&dpa);
    live.expect("dpa_heap_block", 0, "once the run-time limit passed")?;
    live.expect("doca_sync_event", 0, "once the run-time limit passed")?;
    Ok(())
}

/// Starts the thread, makes it runnable through a notification completion and
/// wakes it once (an RPC).
fn start_and_notify(
    dpa: &Dpa,
    builder: ThreadBuilder,
) -> Result<(doca::dpa::DpaThread, NotificationCompletion), String> {
    let thread = builder.start().map_err(err)?;
    let notify = NotificationCompletion::new(&thread).map_err(err)?;
    notify.run_thread().map_err(err)?;
    dpa.rpc(&doca_tests::notify, (&notify,), common::RPC_TIMEOUT)
        .map_err(err)?;
    Ok((thread, notify))
}

/// Waits until the family's reaper released what stopped threads held, once the
/// run-time limit passed (nothing to call: it runs on its own).
fn settle_deferred(dpa: &Dpa) {
    common::deferred_released(dpa.limits().kernel_max_run_time + Duration::from_secs(10));
}

/// A thread's activation still runs (waiting for `go`) when the host drops the
/// thread, its notification and its local storage: the storage outlives the
/// activation (deferred until the run-time limit passed), and is then released.
fn a_thread_dropped_while_an_activation_runs(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
    let storage = DpaBuffer::<u64>::new(&dpa, 8).map_err(err)?;
    let builder = ThreadBuilder::new(&dpa, &doca_tests::sound_slow_thread, (&go,))
        .and_then(|b| b.local_storage(common::slow_storage(&storage)))
        .map_err(err)?;
    let (thread, notify) = start_and_notify(&dpa, builder)?;
    // Let the activation start and block on `go`.
    std::thread::sleep(Duration::from_millis(20));
    let deferred = doca::dpa::deferred_count();
    drop((thread, notify, storage));
    check(doca::dpa::deferred_count() > deferred, || {
        "the thread's record was released while its activation runs".into()
    })?;
    live.expect("dpa_heap_block", 2, "after the host dropped the thread")?;
    release(&go)?;
    std::thread::sleep(Duration::from_millis(50));
    no_fault(&dpa, "after the activation wrote the dropped local storage")?;
    settle_deferred(&dpa);
    live.expect("dpa_heap_block", 1, "once the run-time limit passed")?;
    Ok(())
}

/// A thread that was never run releases what it holds at once (no activation can
/// have started).
fn a_thread_never_run_releases_at_once(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
    let thread = ThreadBuilder::new(&dpa, &doca_tests::sound_slow_thread, (&go,))
        .map_err(err)?
        .start()
        .map_err(err)?;
    let deferred = doca::dpa::deferred_count();
    drop((thread, go));
    check(doca::dpa::deferred_count() == deferred, || {
        "a thread that never ran deferred its record".into()
    })?;
    live.expect(
        "dpa_heap_block",
        0,
        "after the never-run thread was dropped",
    )
}

/// The launcher is dropped with a kernel running, and the warning it gives panics
/// (a `tracing` subscriber): the panic unwinds out of the drop, but the launch's
/// arguments were buried first, so the kernel later writes live memory.
fn a_panicking_subscriber_in_the_launchers_drop(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let held = Held::new(&dpa, 8)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    let launch = held.launch(&launcher)?;
    drop(launch);
    let Held { go, data, event } = held;
    drop((data, event));
    let buried = doca::dpa::buried_count();
    let unwound = tracing::subscriber::with_default(
        common::PanickingSubscriber::at(tracing::Level::WARN),
        || std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(launcher))).is_err(),
    );
    check(unwound, || {
        "the subscriber's panic did not reach the caller".into()
    })?;
    check(doca::dpa::buried_count() > buried, || {
        "the launcher's drop unwound without burying the running launch's arguments".into()
    })?;
    live.expect("dpa_heap_block", 2, "after the drop unwound")?;
    // The watchdog may have made the context fatal already (the kernel outlived
    // the launcher's bounded wait): then the write is refused, which is fine.
    let _ = release(&go);
    std::thread::sleep(Duration::from_millis(50));
    // The kernel ran past the short run-time limit while the launcher waited: the context
    // may be fatal by the watchdog, but never by a use of freed memory.
    if let Some(report) = dpa.fault_report() {
        check(!report.contains("freed"), || {
            format!("a fault on freed memory: {report}")
        })?;
    }
    Ok(())
}

/// A waker that panics when woken: user code the engine runs while it progresses.
struct PanickingWaker;

impl std::task::Wake for PanickingWaker {
    fn wake(self: std::sync::Arc<Self>) {
        panic!("a waker that panics");
    }
}

/// A completion event driven by an engine has a wait task in flight for a future
/// (polled with a waker that panics) when it is dropped: the drop's stop drives the
/// engine, which wakes the waker, which panics. The event (whose task may still
/// complete into its memory) is buried before the panic goes on.
fn a_panicking_waker_in_an_events_drop(_: &Live<'_>) -> CaseResult {
    use std::future::Future;
    let dpa = common::dpa();
    let engine = doca::dpa::Engine::new().map_err(err)?;
    let event = CompletionEvent::with_engine(&dpa, Export::ToDpa, &engine).map_err(err)?;
    let waker = std::task::Waker::from(std::sync::Arc::new(PanickingWaker));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut reached = Box::pin(event.reached(5));
    // Pending, or an error when no reactor watches the engine: either way the
    // poll armed the event's wait task and registered the waker.
    if let std::task::Poll::Ready(Ok(_)) = reached.as_mut().poll(&mut cx) {
        return Err("the event reached 5 with nothing updating it".into());
    }
    drop(reached);
    let buried = doca::dpa::buried_count();
    let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(event))).is_err();
    check(unwound, || {
        "the stop in the event's drop woke no waker".into()
    })?;
    check(doca::dpa::buried_count() > buried, || {
        "the event's drop unwound without burying its waiter".into()
    })?;
    // Whether or not the stop woke the waker, the engine still works and the
    // context is healthy.
    engine.progress();
    no_fault(&dpa, "after the event's drop")
}

/// What an object of context A, handed to context B, must get: a refusal naming
/// both contexts and the DOCA call it was refused for, before DOCA is called.
fn refused_as_foreign<T: std::fmt::Debug>(
    r: Result<T, Error>,
    a: &Dpa,
    b: &Dpa,
    what: &str,
    call: &str,
) -> CaseResult {
    match r {
        Err(e) => {
            let msg = e.to_string();
            let names = |d: &Dpa| msg.contains(&format!("#{}", d.serial()));
            check(names(a) && names(b), || {
                format!("{what}: the error does not name both contexts: {msg}")
            })?;
            check(msg.starts_with(&format!("{call}: ")), || {
                format!("{what}: the error does not name {call}: {msg}")
            })
        }
        Ok(v) => Err(format!("{what} of another context was accepted: {v:?}")),
    }
}

/// Launches `kernel` with `args` (objects of `a`) on a launcher of `b`: refused.
fn launch_refused<S, A>(
    a: &Dpa,
    b: &Dpa,
    kernel: &doca::dpa::Kernel<S>,
    args: A,
    what: &str,
) -> CaseResult
where
    S: doca::dpa::KernelSig,
    A: doca::dpa::KernelArgs<S::Params, S>,
{
    let launcher = Launcher::new(b).map_err(err)?;
    refused_as_foreign(
        launcher.launch(kernel, 1, args).map(drop),
        a,
        b,
        what,
        "doca_dpa_kernel_launch_update_add",
    )?;
    check(launcher.submitted() == 0, || {
        format!("{what}: the refused launch was submitted")
    })
}

/// A DPA buffer of context A passed to a kernel launched on context B.
fn a_buffer_of_another_context(live: &Live<'_>) -> CaseResult {
    let (a, b) = (common::dpa(), common::dpa());
    let foreign = DpaBuffer::<u64>::new(&a, 1).map_err(err)?;
    launch_refused(
        &a,
        &b,
        &doca_tests::write_ranks,
        (&foreign, 1u64),
        "a buffer",
    )?;
    live.expect("dpa_heap_block", 1, "after the refusal")
}

/// A kernel event of context A passed to a kernel on context B.
fn an_event_of_another_context(_: &Live<'_>) -> CaseResult {
    let (a, b) = (common::dpa(), common::dpa());
    let event = KernelEvent::new(&a).map_err(err)?;
    launch_refused(
        &a,
        &b,
        &doca_tests::set_event,
        (&event, 1u64),
        "a kernel event",
    )
}

/// A notification completion of context A passed to an RPC on context B.
fn a_notification_of_another_context(_: &Live<'_>) -> CaseResult {
    let (a, b) = (common::dpa(), common::dpa());
    let go = DpaBuffer::<u64>::from_slice(&a, &[0]).map_err(err)?;
    let thread = ThreadBuilder::new(&a, &doca_tests::sound_slow_thread, (&go,))
        .map_err(err)?
        .start()
        .map_err(err)?;
    let notify = NotificationCompletion::new(&thread).map_err(err)?;
    refused_as_foreign(
        b.rpc(&doca_tests::notify, (&notify,), common::RPC_TIMEOUT),
        &a,
        &b,
        "a notification",
        "doca_dpa_rpc",
    )
}

/// A completion of context A passed to a kernel on B, and to async ops of B.
fn a_completion_of_another_context(_: &Live<'_>) -> CaseResult {
    use doca::dpa::{AsyncOps, CompletionBuilder};
    let (a, b) = (common::dpa(), common::dpa());
    let comp = CompletionBuilder::new(&a, 16)
        .map_err(err)?
        .start()
        .map_err(err)?;
    let out = DpaBuffer::<u64>::new(&b, 4).map_err(err)?;
    launch_refused(
        &a,
        &b,
        &doca_tests::i4_post_completion,
        (&comp, 1u32, &out),
        "a completion",
    )?;
    refused_as_foreign(
        AsyncOps::new(&b, 16, 1, &comp),
        &a,
        &b,
        "async ops' completion",
        "doca_dpa_async_ops_attach",
    )
}

/// Thread builders of context A grouped on context B.
fn a_thread_group_of_another_context(_: &Live<'_>) -> CaseResult {
    use doca::dpa::ThreadGroup;
    let (a, b) = (common::dpa(), common::dpa());
    let go = DpaBuffer::<u64>::from_slice(&a, &[0]).map_err(err)?;
    let builder = ThreadBuilder::new(&a, &doca_tests::sound_slow_thread, (&go,)).map_err(err)?;
    refused_as_foreign(
        ThreadGroup::new(&b, vec![builder]),
        &a,
        &b,
        "a group's thread",
        "doca_dpa_thread_group_set_thread",
    )
}

/// A `Dev` made from context A's buffer, stored in a struct in context B's memory.
fn a_struct_field_of_another_context(_: &Live<'_>) -> CaseResult {
    let (a, b) = (common::dpa(), common::dpa());
    let scratch = DpaBuffer::<u64>::new(&a, 8).map_err(err)?;
    let done = CompletionEvent::new(&b, Export::ToDpa).map_err(err)?;
    let state = doca_tests::sound_thread_state {
        activations: 0,
        scratch: Dev::new(&scratch).map_err(err)?,
        done: Dev::new(&done).map_err(err)?,
    };
    refused_as_foreign(
        DpaBox::new(&b, &state),
        &a,
        &b,
        "a struct field",
        "doca_dpa_h2d_memcpy",
    )
}

/// A buffer of context A as the local storage of a thread of B.
fn local_storage_of_another_context(_: &Live<'_>) -> CaseResult {
    let (a, b) = (common::dpa(), common::dpa());
    let storage = DpaBuffer::<u64>::new(&a, 8).map_err(err)?;
    let go = DpaBuffer::<u64>::from_slice(&b, &[0]).map_err(err)?;
    let builder = ThreadBuilder::new(&b, &doca_tests::sound_slow_thread, (&go,)).map_err(err)?;
    refused_as_foreign(
        builder.local_storage(common::slow_storage(&storage)),
        &a,
        &b,
        "local storage",
        "doca_dpa_thread_set_local_storage",
    )
}

/// A hash table of context A passed to a kernel on B.
fn a_hash_table_of_another_context(_: &Live<'_>) -> CaseResult {
    let (a, b) = (common::dpa(), common::dpa());
    let table = doca::dpa::HashTable::new(&a, 16).map_err(err)?;
    launch_refused(
        &a,
        &b,
        &doca_tests::i4_hash_put,
        (&table, 1u32, 1u32),
        "a hash table",
    )
}

/// A typed pointer parameter (`uint64_t *out`) takes a buffer of `u64`s (a buffer
/// of bytes does not compile: `doca_dpa::lifecycle_rules`); the kernel writes
/// exactly the buffer.
fn a_typed_pointer_parameter(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let out = DpaBuffer::<u64>::new(&dpa, 4).map_err(err)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    launcher
        .launch(&doca_tests::sound_store_words, 1, (&out, 4u32))
        .map_err(err)?
        .wait(LONG)
        .map_err(err)?;
    check(out.to_vec().map_err(err)? == [1, 2, 3, 4], || {
        "the kernel did not write the words".into()
    })?;
    no_fault(&dpa, "after the typed store")?;
    live.expect("dpa_heap_block", 1, "after the typed store")
}

/// A kernel whose prototype differs between `#if` branches is declared as the
/// compiled branch has it (the app's sources are read after the preprocessor):
/// `sound_branch_store`'s compiled `out` is a DPA address, so it takes a buffer,
/// and a plain integer for it does not compile (`doca_dpa::lifecycle_rules`).
fn the_compiled_preprocessor_branch_declares_the_kernel(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let out = DpaBuffer::<u64>::new(&dpa, 1).map_err(err)?;
    let launcher = Launcher::new(&dpa).map_err(err)?;
    launcher
        .launch(&doca_tests::sound_branch_store, 1, (&out, 42u64))
        .map_err(err)?
        .wait(LONG)
        .map_err(err)?;
    check(out.to_vec().map_err(err)? == [42], || {
        "the kernel did not store through its compiled-branch parameter".into()
    })?;
    no_fault(&dpa, "after the store")?;
    live.expect("dpa_heap_block", 1, "after the store")
}

/// Sizes from user input that cannot be allocated are errors, not aborts.
fn sizes_from_user_input_are_errors(_: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    check(DpaBuffer::<u64>::new(&dpa, usize::MAX / 4).is_err(), || {
        "an overflowing DPA buffer was accepted".into()
    })?;
    check(
        doca::dpa::CompletionBuilder::new(&dpa, u32::MAX)
            .and_then(|b| b.start())
            .is_err(),
        || "a completion queue of 2^32 entries was accepted".into(),
    )?;
    Ok(())
}

doca::rdmi::if_rdmi! {
    /// A started RDMI connection on a context of the tests' app (the sim shows
    /// this test the Arm side of a BlueField: connections are made for
    /// representors). The connection keeps its device objects and completion alive.
    fn started_connection(live: &Live<'_>) -> Result<(Dpa, doca::rdmi::Connection), String> {
        use doca::dpa::{CompletionBuilder, RepresentorFilter};
        use doca::rdmi::{CompletionSource, ConnectionBuilder, ProtectionDomain, ReceiveBuffer, VerbsContext};
        #[cfg(doca_backend = "sim")]
        live.objects
            .scope()
            .set_profile(doca::sim::Profile::dpu_view());
        #[cfg(not(doca_backend = "sim"))]
        let _ = live;
        let dpa = common::dpa();
        let device = dpa.device().clone();
        let rep = device
            .open_representors(RepresentorFilter::NET)
            .map_err(err)?
            .into_iter()
            .next()
            .ok_or("no network representor")?;
        let verbs = VerbsContext::new(&device).map_err(err)?;
        let pd = ProtectionDomain::new(&verbs).map_err(err)?;
        let comp = CompletionBuilder::new(&dpa, 16).map_err(err)?.start().map_err(err)?;
        let conn = ConnectionBuilder::new(
            &verbs,
            &rep,
            &dpa,
            CompletionSource::Dpa(&comp),
            ReceiveBuffer::with_slots(4).map_err(err)?,
        )
        .pd(&pd)
        .start()
        .map_err(err)?;
        Ok((dpa, conn))
    }

    /// An RDMI connection that a running kernel was given: an explicit stop is
    /// refused while the launch holds it, and dropping the host's handle stops
    /// nothing until the kernel is done.
    fn an_rdmi_connection_outlives_the_kernel_using_it(live: &Live<'_>) -> CaseResult {
        let (dpa, conn) = started_connection(live)?;
        let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let out = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let launcher = Launcher::new(&dpa).map_err(err)?;
        let launch = launcher
            .launch(&doca_tests::sound_hold_connection, 1, (&go, &conn, &out))
            .map_err(err)?;
        let conn = match conn.request_stop() {
            Err(e) if matches!(e.error(), Error::InUse { .. }) => e.into_inner(),
            other => return Err(format!("stop of a connection in use returned {:?}", other.map(|_| ()))),
        };
        drop(conn);
        live.expect("doca_rdmi_connection", 1, "after the host dropped the connection")?;
        release(&go)?;
        launch.wait(LONG).map_err(err)?;
        check(out.to_vec().map_err(err)?[0] != 0, || "the kernel saw no connection".into())?;
        no_fault(&dpa, "after the kernel used the dropped connection")?;
        live.expect("doca_rdmi_connection", 0, "once the launch was seen to finish")?;
        Ok(())
    }
}

doca::rdmi::if_rdmi! {
    /// Root cause 2 with an RDMI connection: a DPA thread's argument is a
    /// connection; the host drops the thread, its notification and the connection
    /// while an activation runs. The connection outlives the activation (the
    /// thread's record is deferred until the run-time limit passed), then goes.
    fn a_thread_holding_a_connection_dropped_while_an_activation_runs(live: &Live<'_>) -> CaseResult {
        let (dpa, conn) = started_connection(live)?;
        // Word 0: go; word 1: what the activation learnt from the connection.
        let storage = DpaBuffer::<u64>::from_slice(&dpa, &[0, 0]).map_err(err)?;
        // SAFETY: `sound_thread_connection` (tests/kernels/rdmi/soundness.c) reads
        // word 0 and writes word 1 of its untyped local storage, as `uint64_t`s.
        let storage_arg = unsafe { doca::dpa::Untyped::new(&storage) };
        let builder = ThreadBuilder::new(&dpa, &doca_tests::sound_thread_connection, (&conn,))
            .and_then(|b| b.local_storage(storage_arg))
            .map_err(err)?;
        let (thread, notify) = start_and_notify(&dpa, builder)?;
        // Let the activation start and block on word 0.
        std::thread::sleep(Duration::from_millis(20));
        let deferred = doca::dpa::deferred_count();
        drop((thread, notify, conn));
        check(doca::dpa::deferred_count() > deferred, || {
            "the thread's record was released while its activation runs".into()
        })?;
        live.expect("doca_rdmi_connection", 1, "after the host dropped the thread and the connection")?;
        release(&storage)?;
        std::thread::sleep(Duration::from_millis(50));
        no_fault(&dpa, "after the activation used the dropped connection")?;
        check(storage.to_vec().map_err(err)?[1] != 0, || {
            "the activation found no connection".into()
        })?;
        settle_deferred(&dpa);
        live.expect("doca_rdmi_connection", 0, "once the run-time limit passed")?;
        Ok(())
    }
}

doca::rdmi::if_rdmi! {
    /// A receive buffer far larger than memory: an error, not an abort.
    fn a_huge_receive_buffer_is_an_error(_: &Live<'_>) -> CaseResult {
        match doca::rdmi::ReceiveBuffer::with_slot_bytes(1 << 46, 4096) {
            Err(_) => Ok(()),
            Ok(b) => Err(format!("a {}-byte receive buffer was made", b.len())),
        }
    }
}

doca::rdma::if_rdma! {
    #[path = "rdma/setup.rs"]
    mod rdma_setup;

    /// Two DOCA RDMA contexts of a new DPA context, connected.
    fn connected_rdma(
    ) -> Result<(Dpa, doca::rdma::Rdma, doca::rdma::Rdma, doca::rdma::Connection, doca::rdma::Connection), String> {
        let dpa = common::dpa();
        let a = rdma_setup::rdma(&dpa, 1).map_err(err)?;
        let b = rdma_setup::rdma(&dpa, 1).map_err(err)?;
        let (x, y) = rdma_setup::pair(&a, &b).map_err(err)?;
        Ok((dpa, a, b, x, y))
    }

    /// A running kernel was given a connection: stopping its context is refused,
    /// and dropping the host's context and connections stops nothing until the
    /// kernel is done with the context.
    fn an_rdma_context_outlives_the_kernel_using_it(live: &Live<'_>) -> CaseResult {
        let (dpa, a, b, conn, peer) = connected_rdma()?;
        let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let out = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let launcher = Launcher::new(&dpa).map_err(err)?;
        let launch = launcher
            .launch(&doca_tests::sound_hold_rdma, 1, (&go, &conn, &out))
            .map_err(err)?;
        drop(conn);
        let a = match a.stop() {
            Err(e) if matches!(e.error(), Error::InUse { .. }) => {
                e.into_parts().1.ok_or("a refused stop did not hand the context back")?
            }
            other => return Err(format!("stop of a context in use returned {other:?}")),
        };
        drop((a, peer, b));
        live.expect("doca_rdma", 1, "after the host dropped both contexts and their connections")?;
        release(&go)?;
        launch.wait(LONG).map_err(err)?;
        check(out.to_vec().map_err(err)?[0] == 1, || "the kernel did not run to its end".into())?;
        no_fault(&dpa, "after the kernel used the dropped context")?;
        live.expect("doca_rdma", 0, "once the launch was seen to finish")?;
        Ok(())
    }

    /// A running kernel was given a peer's remote map and remote event and a map
    /// of its own: the host drops all of them (and the context) before the kernel
    /// writes and signals through them.
    fn remote_maps_and_events_outlive_the_kernel_using_them(live: &Live<'_>) -> CaseResult {
        use doca::dpa::{AccessFlags, DpaMmap, RdmaExport, SignalEvent};
        use doca::rdma::{RemoteEvent, RemoteMmap};
        let (dpa, a, b, conn, peer) = connected_rdma()?;
        // The peer's side.
        let landing = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let landing_map =
            DpaMmap::with_access(&dpa, &landing, 0, 1, AccessFlags::RDMA_ALL).map_err(err)?;
        let export = landing_map.export_rdma().map_err(err)?.to_bytes();
        let signal = SignalEvent::new(&dpa).map_err(err)?;
        // This side.
        let remote = RemoteMmap::new(&dpa, &RdmaExport::from_bytes(&export).map_err(err)?)
            .map_err(err)?;
        let remote_signal = RemoteEvent::new(&dpa, &signal.export().map_err(err)?).map_err(err)?;
        let src = DpaBuffer::<u64>::from_slice(&dpa, &[42]).map_err(err)?;
        let src_map =
            DpaMmap::with_access(&dpa, &src, 0, 1, AccessFlags::LOCAL_READ_WRITE).map_err(err)?;
        let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let out = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let launcher = Launcher::new(&dpa).map_err(err)?;
        let addr = remote.addr();
        let launch = launcher
            .launch(
                &doca_tests::sound_hold_remote,
                1,
                (&go, &conn, conn.id(), &remote, addr, &src_map, &src, &remote_signal, &out),
            )
            .map_err(err)?;
        drop((remote, remote_signal, src_map, src, conn, a));
        live.expect("doca_sync_event_remote_net", 1, "after the host dropped the remote event")?;
        live.expect("doca_rdma", 2, "after the host dropped the initiator")?;
        release(&go)?;
        launch.wait(LONG).map_err(err)?;
        check(signal.wait_gt(0, LONG).map_err(err)? == 1, || "the signal did not arrive".into())?;
        check(landing.to_vec().map_err(err)?[0] == 42, || "the write did not arrive".into())?;
        no_fault(&dpa, "after the kernel used the dropped remote map and event")?;
        live.expect("doca_sync_event_remote_net", 0, "once the launch was seen to finish")?;
        drop((peer, b, landing_map));
        live.expect("doca_rdma", 0, "once everything was dropped")?;
        Ok(())
    }

    /// An RDMA context of one DPA context given to a kernel of another, and a
    /// DPA completion of another context for a new RDMA context: refused before
    /// DOCA is called, nothing left behind.
    fn an_rdma_handle_of_another_context_is_refused(live: &Live<'_>) -> CaseResult {
        let (dpa, a, b, conn, peer) = connected_rdma()?;
        let other = common::dpa();
        let go = DpaBuffer::<u64>::from_slice(&other, &[1]).map_err(err)?;
        let out = DpaBuffer::<u64>::from_slice(&other, &[0]).map_err(err)?;
        let launcher = Launcher::new(&other).map_err(err)?;
        match launcher.launch(&doca_tests::sound_hold_rdma, 1, (&go, &conn, &out)) {
            Err(e) if e.is_invalid_argument() => {}
            Err(e) => return Err(format!("a foreign RDMA handle failed with {e}")),
            Ok(_) => return Err("a kernel of another DPA context was given the RDMA handle".into()),
        }
        let foreign = doca::dpa::CompletionBuilder::new(&other, 16)
            .and_then(|c| c.start())
            .map_err(err)?;
        check(doca::rdma::RdmaBuilder::new(&dpa, &foreign).is_err(), || {
            "a completion of another DPA context was accepted".into()
        })?;
        no_fault(&other, "after the refused launch")?;
        drop((conn, peer, a, b));
        live.expect("doca_rdma", 0, "after the host dropped the contexts")?;
        Ok(())
    }

    /// A peer's connection details that are garbage (or empty, or another
    /// connection's twice): errors, the connection back, nothing leaked.
    fn garbage_peer_details_are_errors(live: &Live<'_>) -> CaseResult {
        let dpa = common::dpa();
        let a = rdma_setup::rdma(&dpa, 1).map_err(err)?;
        let b = rdma_setup::rdma(&dpa, 1).map_err(err)?;
        let (x, y) = (a.export().map_err(err)?, b.export().map_err(err)?);
        let mut x = x;
        for garbage in [&b"\xff"[..], &[0u8; 4096][..], &[][..], &y.details()[..3]] {
            x = match x.connect(garbage) {
                Err(e) => e.into_parts().1,
                Ok(_) => return Err(format!("{} bytes of garbage connected a connection", garbage.len())),
            };
        }
        let y_details = y.details().to_vec();
        let x = x.connect(&y_details).map_err(|e| e.to_string())?;
        drop((x, y, a, b));
        no_fault(&dpa, "after garbage details")?;
        live.expect("doca_rdma", 0, "after the host dropped the contexts")?;
        live.expect("doca_rdma_connection", 0, "after the host dropped the contexts")?;
        Ok(())
    }

    fn rdma_cases() -> Vec<(&'static str, Case)> {
        vec![
            ("an RDMA context and connection stopped and dropped while a kernel uses them", an_rdma_context_outlives_the_kernel_using_it),
            ("remote maps, remote events and local maps dropped while a kernel uses them", remote_maps_and_events_outlive_the_kernel_using_them),
            ("an RDMA handle or completion of another DPA context", an_rdma_handle_of_another_context_is_refused),
            ("a peer's connection details that are garbage", garbage_peer_details_are_errors),
        ]
    }
}

doca::rdma::if_no_rdma! {
    fn rdma_cases() -> Vec<(&'static str, Case)> {
        Vec::new()
    }
}

// ---- DPA Verbs queue pairs (issue #35) ------------------------------------------------

doca::verbs::if_dpa_verbs! {
    #[path = "verbs/setup.rs"]
    mod verbs_setup;

    /// The launch of `sound_hold_verbs` on `launcher` with `qp` and fresh buffers of
    /// `dpa`: (go flag, target slot and its map, out flag, launch).
    #[allow(clippy::type_complexity)]
    fn hold_verbs<'l>(
        dpa: &Dpa,
        launcher: &'l Launcher,
        qp: &doca::verbs::ConnectedQp,
    ) -> Result<(DpaBuffer<u64>, DpaBuffer<u64>, doca::dpa::DpaMmap, DpaBuffer<u64>, doca::dpa::Launch<'l>), Error> {
        use doca::dpa::{AccessFlags, DpaMmap};
        let go = DpaBuffer::<u64>::from_slice(dpa, &[0])?;
        let src = DpaBuffer::<u64>::from_slice(dpa, &[42])?;
        let src_map = DpaMmap::with_access(dpa, &src, 0, 1, AccessFlags::RDMA_ALL)?;
        let dst = DpaBuffer::<u64>::from_slice(dpa, &[0])?;
        let dst_map = DpaMmap::with_access(dpa, &dst, 0, 1, AccessFlags::RDMA_ALL)?;
        let out = DpaBuffer::<u64>::from_slice(dpa, &[0])?;
        let launch = launcher.launch(
            &doca_tests::sound_hold_verbs,
            1,
            (&go, qp, qp.completion(), &src, &src_map, &dst, &dst_map, &out),
        )?;
        // The launch holds the source and its map; the test keeps the target.
        drop((src, src_map));
        Ok((go, dst, dst_map, out, launch))
    }

    /// A running kernel was given a queue pair: its explicit destroy is refused
    /// with the queue pair back, and dropping it (and its peer, PD, UAR and
    /// completion) destroys nothing until the kernel has posted on it and the
    /// launch is seen to finish.
    fn a_verbs_qp_outlives_the_kernel_posting_on_it(live: &Live<'_>) -> CaseResult {
        let dpa = common::dpa();
        let (qp, peer) = verbs_setup::pair(&dpa).map_err(err)?;
        let launcher = Launcher::new(&dpa).map_err(err)?;
        let (go, dst, dst_map, out, launch) = hold_verbs(&dpa, &launcher, &qp).map_err(err)?;
        let qp = match qp.destroy() {
            Err(e) if matches!(e.error(), Error::InUse { .. }) => {
                e.into_parts().1.ok_or("a refused destroy did not hand the queue pair back")?
            }
            other => return Err(format!("destroy of a queue pair in use returned {other:?}")),
        };
        drop(qp);
        live.expect("doca_verbs_qp", 2, "after the host dropped the queue pair a kernel holds")?;
        release(&go)?;
        launch.wait(LONG).map_err(err)?;
        check(out.to_vec().map_err(err)?[0] == 1, || "the kernel did not run to its end".into())?;
        check(dst.to_vec().map_err(err)?[0] == 42, || "the write did not arrive".into())?;
        no_fault(&dpa, "after the kernel posted on the dropped queue pair")?;
        live.expect("doca_verbs_qp", 1, "once the launch was seen to finish")?;
        drop((peer, dst_map, dst));
        live.expect("doca_verbs_qp", 0, "after the host dropped the peer")?;
        live.expect("doca_umem", 0, "after the host dropped both queue pairs")?;
        live.expect("doca_uar", 0, "after the host dropped both queue pairs")?;
        Ok(())
    }

    /// A queue pair of one DPA context given to a kernel of another, and a
    /// completion or UAR of another context for a new queue pair: refused before
    /// DOCA is called, nothing left behind.
    fn a_verbs_qp_of_another_context_is_refused(live: &Live<'_>) -> CaseResult {
        use doca::verbs::{DpaUar, ProtectionDomain, QpBuilder, VerbsContext};
        let dpa = common::dpa();
        let (qp, peer) = verbs_setup::pair(&dpa).map_err(err)?;
        let other = common::dpa();
        let launcher = Launcher::new(&other).map_err(err)?;
        match hold_verbs(&other, &launcher, &qp) {
            Err(e) if e.is_invalid_argument() => {}
            Err(e) => return Err(format!("a foreign queue pair failed with {e}")),
            Ok(_) => return Err("a kernel of another DPA context was given the queue pair".into()),
        }
        let verbs = VerbsContext::new(dpa.device()).map_err(err)?;
        let pd = ProtectionDomain::new(&verbs).map_err(err)?;
        let (uar, foreign_uar) = (DpaUar::new(&dpa).map_err(err)?, DpaUar::new(&other).map_err(err)?);
        let completion = doca::dpa::CompletionBuilder::new(&dpa, 16).and_then(|c| c.start()).map_err(err)?;
        let foreign = doca::dpa::CompletionBuilder::new(&other, 16).and_then(|c| c.start()).map_err(err)?;
        for (what, r) in [
            ("a completion", QpBuilder::new(&pd, &dpa, &foreign, &uar).map(drop)),
            ("a UAR", QpBuilder::new(&pd, &dpa, &completion, &foreign_uar).map(drop)),
        ] {
            match r {
                Err(e) if e.is_invalid_argument() => {}
                other => return Err(format!("{what} of another DPA context: {other:?}")),
            }
        }
        no_fault(&other, "after the refused launch")?;
        drop((qp, peer));
        live.expect("doca_verbs_qp", 0, "after the host dropped the queue pairs")?;
        Ok(())
    }

    /// A queue size of 0, and a connect to a peer that is no queue pair of this
    /// device's: errors, the queue pair back (reset), nothing leaked.
    fn bad_verbs_configuration_is_an_error(live: &Live<'_>) -> CaseResult {
        use doca::verbs::{DpaUar, Gid, Peer, ProtectionDomain, QpBuilder, VerbsContext};
        let dpa = common::dpa();
        let verbs = VerbsContext::new(dpa.device()).map_err(err)?;
        let pd = ProtectionDomain::new(&verbs).map_err(err)?;
        let uar = DpaUar::new(&dpa).map_err(err)?;
        let completion = doca::dpa::CompletionBuilder::new(&dpa, 16).and_then(|c| c.start()).map_err(err)?;
        let builder = QpBuilder::new(&pd, &dpa, &completion, &uar).map_err(err)?;
        check(builder.send_queue_size(0).is_err(), || "a send queue of 0 was accepted".into())?;
        let qp = verbs_setup::qp(&dpa, &pd, &uar).map_err(err)?;
        // Its own number: a loopback to itself is a valid RC connection, so the
        // connect's outcome is DOCA's; either way nothing may leak.
        let number = qp.number();
        match qp.connect(&Peer::new(number, Gid::default())) {
            Ok(connected) => drop(connected),
            Err(e) => drop(e.into_parts().1),
        }
        drop((uar, completion, pd, verbs));
        no_fault(&dpa, "after the bad configurations")?;
        live.expect("doca_verbs_qp", 0, "after the host dropped the queue pair")?;
        live.expect("doca_umem", 0, "after the host dropped the queue pair")?;
        Ok(())
    }

    fn verbs_cases() -> Vec<(&'static str, Case)> {
        vec![
            ("a verbs queue pair destroyed and dropped while a kernel posts on it", a_verbs_qp_outlives_the_kernel_posting_on_it),
            ("a verbs queue pair, completion or UAR of another DPA context", a_verbs_qp_of_another_context_is_refused),
            ("a queue size of 0 and a connect to oneself", bad_verbs_configuration_is_an_error),
        ]
    }
}

doca::verbs::if_no_dpa_verbs! {
    fn verbs_cases() -> Vec<(&'static str, Case)> {
        Vec::new()
    }
}

// ---- DPA Comms message queues (issue #35) ---------------------------------------------

doca::comch::if_comch! {
    #[path = "comch/setup.rs"]
    mod comch_setup;

    /// Every explicit stop of an object a kernel holds is refused, with the object
    /// back: (queue, consumer, producer, completion context).
    fn comch_stops_refused(m: comch_setup::Msgq) -> Result<comch_setup::Msgq, String> {
        fn back<T>(r: Result<(), doca::comch::StopError<T>>, what: &str) -> Result<T, String> {
            match r {
                Ok(()) => Err(format!("the {what} was stopped while in use")),
                Err(e) if matches!(e.error(), Error::InUse { .. }) => {
                    e.into_parts().1.ok_or_else(|| format!("a refused stop kept the {what}"))
                }
                Err(e) => Err(format!("stopping the {what}: {e}")),
            }
        }
        let comch_setup::Msgq { queue, consumer, producer, completion, thread, arg } = m;
        Ok(comch_setup::Msgq {
            queue: back(queue.stop(), "message queue")?,
            consumer: back(consumer.stop(), "consumer")?,
            producer: back(producer.stop(), "producer")?,
            completion: back(completion.stop(), "consumer completion context")?,
            thread,
            arg,
        })
    }

    /// A running kernel was given a consumer, a producer and a consumer completion
    /// context: every stop is refused, and dropping every host reference stops
    /// nothing until the kernel, which then posts a receive, sends on the queue and
    /// re-arms the completion context, was seen to finish.
    fn a_message_queue_outlives_the_kernel_posting_on_it(live: &Live<'_>) -> CaseResult {
        let dpa = common::dpa();
        let m = comch_setup::msgq(&dpa, true).map_err(err)?;
        let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let out = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let launcher = Launcher::new(&dpa).map_err(err)?;
        let to = m.consumer.id();
        let launch = launcher
            .launch(
                &doca_tests::comch_hold,
                1,
                (&go, &m.consumer, &m.producer, to, 7u32, &m.completion, &out),
            )
            .map_err(err)?;
        let m = comch_stops_refused(m)?;
        drop(m);
        for kind in ["doca_comch_msgq", "doca_comch_consumer", "doca_comch_producer", "doca_comch_consumer_completion"] {
            live.expect(kind, 1, "after the host dropped every Comch object a kernel holds")?;
        }
        release(&go)?;
        launch.wait(LONG).map_err(err)?;
        check(out.to_vec().map_err(err)?[0] == 1, || "the kernel did not run to its end".into())?;
        no_fault(&dpa, "after the kernel posted on the dropped queue")?;
        settle_deferred(&dpa);
        for kind in ["doca_comch_msgq", "doca_comch_consumer", "doca_comch_producer", "doca_comch_consumer_completion"] {
            live.expect(kind, 0, "once the launch was seen to finish")?;
        }
        Ok(())
    }

    /// A DPA thread's state keeps a producer and a consumer alive (a `Dev` in its
    /// DPA struct): the host drops its own references and the thread, which a
    /// message then wakes; the activation finds them alive.
    fn a_thread_state_keeps_its_queue_objects(live: &Live<'_>) -> CaseResult {
        let dpa = common::dpa();
        let m = comch_setup::msgq(&dpa, true).map_err(err)?;
        let state = DpaBox::new(
            &dpa,
            &doca_tests::comch_pair {
                consumer: Dev::new(&m.consumer).map_err(err)?,
                producer: Dev::new(&m.producer).map_err(err)?,
                to: m.consumer.id(),
                sent: 0,
            },
        )
        .map_err(err)?;
        let thread = ThreadBuilder::new(&dpa, &doca_tests::comch_state_thread, (&state,))
            .and_then(|b| b.start())
            .map_err(err)?;
        let notify = NotificationCompletion::new(&thread).map_err(err)?;
        notify.run_thread().map_err(err)?;
        let to = m.consumer.id();
        drop(m);
        live.expect("doca_comch_consumer", 1, "after the host dropped its consumer")?;
        dpa.rpc(&doca_tests::notify, (&notify,), common::RPC_TIMEOUT).map_err(err)?;
        let until = Instant::now() + LONG;
        while state.get().map_err(err)?.sent == 0 && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        check(state.get().map_err(err)?.sent == to, || "the activation did not send".into())?;
        drop((thread, notify, state));
        no_fault(&dpa, "after the activation used the queue objects the host dropped")?;
        settle_deferred(&dpa);
        for kind in ["doca_comch_msgq", "doca_comch_consumer", "doca_comch_producer"] {
            live.expect(kind, 0, "once the thread's record was released")?;
        }
        Ok(())
    }

    /// Consumers, producers and consumer completion contexts of one DPA context:
    /// refused as kernel arguments of another, and a completion context of
    /// another context refused for a queue's consumer or producer, before any
    /// DOCA call.
    fn comch_handles_of_another_context_are_refused(live: &Live<'_>) -> CaseResult {
        let (dpa, other) = (common::dpa(), common::dpa());
        let m = comch_setup::msgq(&dpa, false).map_err(err)?;
        let launcher = Launcher::new(&other).map_err(err)?;
        let out = DpaBuffer::<u64>::from_slice(&other, &[0]).map_err(err)?;
        let foreign = |r: Result<doca::dpa::Launch<'_>, Error>, what: &str| match r {
            Err(e) if e.is_invalid_argument() && e.to_string().contains("DPA context #") => Ok(()),
            Err(e) => Err(format!("{what} of another context failed with {e}")),
            Ok(_) => Err(format!("a kernel of another DPA context was given {what}")),
        };
        foreign(launcher.launch(&doca_tests::comch_post_receives, 1, (&m.consumer, 1u32)), "a consumer")?;
        foreign(launcher.launch(&doca_tests::comch_is_empty, 1, (&m.producer, 1u32, &out)), "a producer")?;
        foreign(
            launcher.launch(&doca_tests::comch_drain, 1, (&m.completion, &m.consumer, &out)),
            "a consumer completion context",
        )?;
        let (other_thread, _arg) = comch_setup::idle_thread(&other).map_err(err)?;
        let other_completion = comch_setup::completion(&other_thread, false).map_err(err)?;
        check(m.queue.consumer(&other_completion).is_err_and(|e| e.is_invalid_argument()), || {
            "a consumer completion context of another DPA context was accepted".into()
        })?;
        let sends = doca::dpa::CompletionBuilder::new(&other, 16).and_then(|c| c.start()).map_err(err)?;
        check(m.queue.producer(&sends).is_err_and(|e| e.is_invalid_argument()), || {
            "a DPA completion context of another DPA context was accepted".into()
        })?;
        live.expect("doca_comch_consumer", 1, "after the refused consumer")?;
        live.expect("doca_comch_producer", 1, "after the refused producer")?;
        no_fault(&other, "after the refused launches")?;
        no_fault(&dpa, "after the refused launches")?;
        drop((m, other_completion, other_thread));
        for kind in ["doca_comch_msgq", "doca_comch_consumer", "doca_comch_producer", "doca_comch_consumer_completion"] {
            live.expect(kind, 0, "after the host dropped everything")?;
        }
        Ok(())
    }

    /// A full queue: sends to a consumer with no receive posted wait (the
    /// producer sees it empty), and are delivered once receives are posted; one
    /// send more than the producer's send queue holds is a queue overrun, a
    /// device fault the host sees as a fatal context, with the process unharmed
    /// and every object dropped after it without a panic.
    fn a_full_message_queue(live: &Live<'_>) -> CaseResult {
        let dpa = common::dpa();
        let m = comch_setup::msgq(&dpa, false).map_err(err)?;
        let launcher = Launcher::new(&dpa).map_err(err)?;
        let empty = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(err)?;
        let out = DpaBuffer::<u64>::from_slice(&dpa, &[0, 0, 0]).map_err(err)?;
        let to = m.consumer.id();
        let run = |f: Result<doca::dpa::Launch<'_>, Error>| f.and_then(|l| l.wait(LONG)).map_err(err);
        let depth = comch_setup::DEPTH;
        run(launcher.launch(&doca_tests::comch_send, 1, (&m.producer, to, 1u32, depth)))?;
        run(launcher.launch(&doca_tests::comch_is_empty, 1, (&m.producer, to, &empty)))?;
        check(empty.to_vec().map_err(err)?[0] == 1, || "the producer did not see the consumer empty".into())?;
        no_fault(&dpa, "after sends that wait for receives")?;
        run(launcher.launch(&doca_tests::comch_post_receives, 1, (&m.consumer, depth)))?;
        run(launcher.launch(&doca_tests::comch_drain, 1, (&m.completion, &m.consumer, &out)))?;
        let got = out.to_vec().map_err(err)?;
        let sum: u64 = (1..=u64::from(depth)).sum();
        check(got == [u64::from(depth), sum, u64::from(m.producer.id())], || {
            format!("the waiting sends arrived as {got:?}")
        })?;
        // Receives were posted again by the drain: use them up, then overrun.
        run(launcher.launch(&doca_tests::comch_send, 1, (&m.producer, to, 100u32, 2 * depth + 1)))
            .err()
            .ok_or("a send queue overrun went unnoticed")?;
        check(dpa.health().ok() == Some(doca::dpa::Health::Fatal), || {
            "a send queue overrun left the context healthy".into()
        })?;
        check(dpa.fault_report().is_some_and(|r| !r.is_empty()), || "the overrun has no fault report".into())?;
        drop((m, launcher));
        let _ = live;
        Ok(())
    }

    fn comch_cases() -> Vec<(&'static str, Case)> {
        vec![
            ("a message queue stopped and dropped while a kernel posts on it", a_message_queue_outlives_the_kernel_posting_on_it),
            ("a thread's state keeps its consumer and producer alive", a_thread_state_keeps_its_queue_objects),
            ("a Comch handle or completion context of another DPA context", comch_handles_of_another_context_are_refused),
            ("a full message queue, then an overrun", a_full_message_queue),
        ]
    }
}

doca::comch::if_no_comch! {
    fn comch_cases() -> Vec<(&'static str, Case)> {
        Vec::new()
    }
}

// ---- end of DPA Comms ------------------------------------------------------------------

type Case = fn(&Live<'_>) -> CaseResult;

doca::rdmi::if_rdmi! {
    fn rdmi_cases() -> Vec<(&'static str, Case)> {
        vec![
            (
                "an RDMI connection stopped and dropped while a kernel uses it",
                an_rdmi_connection_outlives_the_kernel_using_it,
            ),
            (
                "a thread holding an RDMI connection dropped while an activation runs",
                a_thread_holding_a_connection_dropped_while_an_activation_runs,
            ),
            (
                "a receive buffer of 2^46 bytes (size from user input)",
                a_huge_receive_buffer_is_an_error,
            ),
        ]
    }
}

doca::rdmi::if_no_rdmi! {
    fn rdmi_cases() -> Vec<(&'static str, Case)> {
        Vec::new()
    }
}

/// Starts `sound_hung_rpc` (which waits for `go`, then writes `data`) with a short
/// timeout: the call must give up well before the kernel run-time limit, with the
/// diagnosis.
fn hung_rpc(dpa: &Dpa, go: &WaitEvent, data: &DpaBuffer<u64>) -> CaseResult {
    let limit = dpa.limits().kernel_max_run_time;
    let timeout = Duration::from_millis(30);
    let started = Instant::now();
    let r = dpa.rpc(&doca_tests::sound_hung_rpc, (go, data), timeout);
    let took = started.elapsed();
    match r {
        Err(Error::RpcTimeout(d)) => {
            let said = d.to_string();
            check(
                d.function == "sound_hung_rpc"
                    && d.waited >= timeout
                    && d.kernel_max_run_time == limit
                    && said.starts_with("RPC `sound_hung_rpc` did not return within"),
                || format!("the RPC's diagnosis: {d:?}: {said}"),
            )?
        }
        other => return Err(format!("a hung RPC answered {other:?}")),
    }
    check(took < limit / 2, || {
        format!("a hung RPC with a {timeout:?} timeout returned after {took:?} (limit {limit:?})")
    })
}

/// An RPC times out, the host drops its arguments, then releases it: the function
/// writes the dropped buffer (which must still be there), the next use of the
/// context waits for the call to return, and the arguments are released once the
/// run-time limit has passed with the context healthy.
fn a_timed_out_rpc_keeps_its_arguments(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let go = WaitEvent::new(&dpa, Export::ToDpa).map_err(err)?;
    let data = DpaBuffer::<u64>::new(&dpa, 8).map_err(err)?;
    hung_rpc(&dpa, &go, &data)?;
    drop(data);
    live.expect(
        "dpa_heap_block",
        1,
        "after the host dropped the RPC's buffer",
    )?;
    // Not a call with the context: it does not wait for the RPC.
    go.set(1).map_err(err)?;
    drop(go);
    live.expect(
        "doca_sync_event",
        1,
        "after the host dropped the RPC's event",
    )?;
    // Waits for the call to return, then asks.
    no_fault(&dpa, "after the released RPC wrote its dropped buffer")?;
    live.expect("dpa_heap_block", 1, "right after the RPC returned")?;
    let sum = dpa
        .rpc(&doca_tests::add, (40u64, 2u64), common::RPC_TIMEOUT)
        .map_err(err)?;
    check(sum == 42, || format!("the next RPC returned {sum}"))?;
    settle_deferred(&dpa);
    live.expect("dpa_heap_block", 0, "once the run-time limit passed")?;
    live.expect("doca_sync_event", 0, "once the run-time limit passed")?;
    Ok(())
}

/// An RPC times out and is never released: the run-time limit stops it (the
/// context turns fatal), the next use of the context waits for that, and what the
/// RPC used is leaked, never freed.
fn a_hung_rpc_past_the_run_time_limit(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let go = WaitEvent::new(&dpa, Export::ToDpa).map_err(err)?;
    let data = DpaBuffer::<u64>::new(&dpa, 8).map_err(err)?;
    let buried = doca::dpa::buried_count();
    hung_rpc(&dpa, &go, &data)?;
    drop((go, data));
    live.expect(
        "dpa_heap_block",
        1,
        "after the host dropped the hung RPC's buffer",
    )?;
    live.expect(
        "doca_sync_event",
        1,
        "after the host dropped the hung RPC's event",
    )?;
    let health = dpa.health().map_err(err)?;
    check(health == doca::dpa::Health::Fatal, || {
        format!("a function past the run-time limit left the context {health:?}")
    })?;
    // On the sim: the fault is the watchdog's, not an access to freed memory.
    if let Some(report) = dpa.fault_report() {
        check(report.contains("watchdog"), || {
            format!("the hung RPC's fault: {report}")
        })?;
    }
    settle_deferred(&dpa);
    check(doca::dpa::buried_count() > buried, || {
        "what a stopped RPC used was not buried".into()
    })?;
    live.expect("dpa_heap_block", 1, "after the context turned fatal")?;
    Ok(())
}

// Teardown races (issue #27): the values are `Send + Sync`, so a careless program
// drops them on one thread while another uses them.

/// A held launch is awaited on another thread; this thread drops its `Arc` of the
/// launcher and every argument, then releases the kernel. The waiter's `Arc` is
/// the last: the launcher drops on that thread, after the wait.
fn a_launcher_and_its_arguments_dropped_while_another_thread_waits(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let launcher = std::sync::Arc::new(Launcher::new(&dpa).map_err(err)?);
    let held = Held::new(&dpa, 32)?;
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    let waiter = {
        let their_launcher = launcher.clone();
        let held = std::sync::Arc::new(held);
        let theirs = held.clone();
        let handle = std::thread::spawn(move || -> CaseResult {
            let launch = theirs.launch(&their_launcher)?;
            drop(theirs);
            started_tx.send(()).map_err(|e| e.to_string())?;
            launch.wait(LONG).map_err(err)
        });
        started_rx
            .recv_timeout(LONG)
            .map_err(|e| format!("the waiter did not launch: {e}"))?;
        // This thread's references go while the other waits.
        let held = std::sync::Arc::try_unwrap(held)
            .map_err(|_| "the waiter still holds the arguments".to_string())?;
        drop(launcher);
        let Held { go, data, event } = held;
        drop((data, event));
        live.expect("dpa_heap_block", 2, "after this thread's drops")?;
        release(&go)?;
        handle
    };
    waiter
        .join()
        .map_err(|_| "the waiting thread panicked".to_string())??;
    no_fault(&dpa, "after the kernel used what this thread dropped")?;
    live.expect(
        "dpa_heap_block",
        0,
        "once the last launcher and `go` dropped",
    )?;
    Ok(())
}

/// A runtime's task holds the last `Arc` of a launcher with a launch in flight
/// and drops it on a worker thread; the kernel is released from yet another
/// thread while the drop waits for it.
fn the_last_launcher_dropped_in_a_task_on_a_worker_thread(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    // Built before the kernel is held: starting the runtime's threads is slow under
    // valgrind, and the held kernel's run time counts from its launch.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .map_err(|e| e.to_string())?;
    let held = Held::new(&dpa, 16)?;
    let launcher = std::sync::Arc::new(Launcher::new(&dpa).map_err(err)?);
    let launch = held.launch(&launcher)?;
    drop(launch);
    let Held { go, data, event } = held;
    drop((data, event));
    let go = std::sync::Arc::new(go);
    let releaser = {
        let go = go.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            release(&go)
        })
    };
    let dropped = runtime.block_on(async move {
        tokio::spawn(async move {
            let worker = std::thread::current().id();
            drop(launcher);
            worker
        })
        .await
    });
    let worker = dropped.map_err(|e| e.to_string())?;
    releaser
        .join()
        .map_err(|_| "the releasing thread panicked".to_string())??;
    check(worker != std::thread::current().id(), || {
        "the launcher dropped on the test's thread, not a worker".to_string()
    })?;
    drop(runtime);
    no_fault(&dpa, "after the launcher dropped on a worker")?;
    live.expect("dpa_heap_block", 1, "after the drop on the worker")?;
    live.expect("doca_sync_event", 0, "after the drop on the worker")?;
    Ok(())
}

/// Tasks of a multi-threaded runtime await held launches of one shared launcher
/// and buffer; the runtime is shut down under them (their futures dropped), the
/// host drops its buffer, and only then are the kernels released.
fn a_runtime_shut_down_with_tasks_awaiting_launches(live: &Live<'_>) -> CaseResult {
    const TASKS: usize = 4;
    let dpa = common::dpa();
    let engine = doca::dpa::Engine::new().map_err(err)?;
    let launcher = std::sync::Arc::new(Launcher::with_engine(&dpa, &engine).map_err(err)?);
    let held = std::sync::Arc::new(Held::new(&dpa, 8)?);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (tx, rx) = std::sync::mpsc::channel();
    for _ in 0..TASKS {
        let (launcher, held, tx) = (launcher.clone(), held.clone(), tx.clone());
        runtime.spawn(async move {
            let launch = held.launch(&launcher);
            let _ = tx.send(launch.is_ok());
            if let Ok(launch) = launch {
                let _ = launch.await;
            }
        });
    }
    for _ in 0..TASKS {
        let launched = rx.recv_timeout(LONG).map_err(|e| e.to_string())?;
        check(launched, || "a task's launch was refused".to_string())?;
    }
    runtime.shutdown_timeout(Duration::from_secs(5));
    let held = std::sync::Arc::try_unwrap(held)
        .map_err(|_| "a shut-down task still holds the arguments".to_string())?;
    let Held { go, data, event } = held;
    drop((data, event));
    release(&go)?;
    launcher.wait_all(LONG).map_err(err)?;
    no_fault(
        &dpa,
        "after the kernels used what the tasks and the host dropped",
    )?;
    drop(launcher);
    live.expect("dpa_heap_block", 1, "after the launcher dropped")?;
    Ok(())
}

/// Two threads launch with one shared buffer on one shared launcher while a third
/// drops its reference of the buffer: every launch finds it alive.
fn a_buffer_dropped_while_other_threads_launch_with_it(live: &Live<'_>) -> CaseResult {
    let dpa = common::dpa();
    let launcher = std::sync::Arc::new(Launcher::new(&dpa).map_err(err)?);
    let out = std::sync::Arc::new(DpaBuffer::<u64>::new(&dpa, 2).map_err(err)?);
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(3));
    let launchers: Vec<_> = (0..2)
        .map(|_| {
            let (launcher, out, barrier) = (launcher.clone(), out.clone(), barrier.clone());
            std::thread::spawn(move || -> CaseResult {
                barrier.wait();
                for i in 0..50u64 {
                    // The launch is not waited for here: `wait_all` below.
                    drop(
                        launcher
                            .launch(&doca_tests::write_ranks, 1, (&*out, i))
                            .map_err(err)?,
                    );
                }
                drop(out);
                launcher.wait_all(LONG).map_err(err)
            })
        })
        .collect();
    barrier.wait();
    drop(out);
    for t in launchers {
        t.join()
            .map_err(|_| "a launching thread panicked".to_string())??;
    }
    no_fault(&dpa, "after launches on a buffer dropped meanwhile")?;
    drop(launcher);
    live.expect("dpa_heap_block", 0, "after every launch and the launcher")?;
    Ok(())
}

/// A device with a short kernel run-time limit, so a launcher dropped with a kernel
/// running gives up quickly: 300 ms, or `DOCA_RS_SOUNDNESS_LIMIT_MS`.
///
/// scripts/valgrind.sh sets that variable to a longer limit: under valgrind the
/// host's steps between a held kernel's launch and its release run some 50 times
/// slower (and one thread at a time, which the watchdog's CPU-wait discount cannot
/// see), enough for 300 ms to pass before the release. A value that is not a
/// number of milliseconds fails the suite rather than falling back.
#[cfg(doca_backend = "sim")]
fn short_limit_profile() -> doca::sim::Profile {
    const VAR: &str = "DOCA_RS_SOUNDNESS_LIMIT_MS";
    let limit_ms = match std::env::var(VAR) {
        Err(std::env::VarError::NotPresent) => 300,
        Ok(v) => v
            .parse::<u64>()
            .ok()
            .filter(|&ms| ms > 0)
            .unwrap_or_else(|| panic!("{VAR}={v:?}: expected a positive number of milliseconds")),
        Err(e) => panic!("{VAR}: {e}"),
    };
    let mut profile = doca::sim::Profile::default();
    for d in &mut profile.devices {
        if d.dpa {
            d.kernel_max_run_time_ms = limit_ms;
        }
    }
    profile
}

#[test]
fn no_sequence_of_safe_calls_lets_the_dpa_use_what_was_released() {
    let mut cases: Vec<(&str, Case)> = vec![
        (
            "timeout, then drop of every argument",
            timeout_then_drop_every_argument,
        ),
        (
            "drop of a launch while a later launch completes first",
            a_later_launch_completing_first_releases_nothing,
        ),
        (
            "a slow launch in an older epoch, thousands of quick ones in newer ones",
            a_slow_launch_in_an_older_epoch_outlives_quick_ones,
        ),
        (
            "mem::forget of a launch, then drop of its arguments",
            forgetting_a_launch_keeps_its_arguments,
        ),
        (
            "destroy of the context with a kernel running",
            destroying_the_context_under_a_running_kernel,
        ),
        (
            "a persistent thread whose state and events the host dropped",
            a_thread_keeps_its_state_and_what_it_references,
        ),
        // Root cause 2: a thread's resources outlive every activation.
        (
            "a thread dropped while an activation runs",
            a_thread_dropped_while_an_activation_runs,
        ),
        (
            "a thread never run releases at once",
            a_thread_never_run_releases_at_once,
        ),
        // Root cause 3: teardown is unwind-safe.
        (
            "a panicking tracing subscriber in the launcher's drop",
            a_panicking_subscriber_in_the_launchers_drop,
        ),
        (
            "a panicking waker in an event's drop",
            a_panicking_waker_in_an_events_drop,
        ),
        // Root cause 4: every argument and constructor checks its context.
        ("a buffer of another context", a_buffer_of_another_context),
        (
            "a kernel event of another context",
            an_event_of_another_context,
        ),
        (
            "a notification completion of another context",
            a_notification_of_another_context,
        ),
        (
            "a completion of another context (kernel and async ops)",
            a_completion_of_another_context,
        ),
        (
            "thread builders of another context in a group",
            a_thread_group_of_another_context,
        ),
        (
            "a struct field of another context",
            a_struct_field_of_another_context,
        ),
        (
            "local storage of another context",
            local_storage_of_another_context,
        ),
        (
            "a hash table of another context",
            a_hash_table_of_another_context,
        ),
        // Root cause 5: typed pointer parameters.
        ("a typed pointer parameter", a_typed_pointer_parameter),
        // Root cause 6: declarations follow the compiled preprocessor branch.
        (
            "the compiled preprocessor branch declares the kernel",
            the_compiled_preprocessor_branch_declares_the_kernel,
        ),
        // RPCs that time out.
        (
            "an RPC that timed out, then drop of its arguments",
            a_timed_out_rpc_keeps_its_arguments,
        ),
        (
            "a hung RPC past the run-time limit",
            a_hung_rpc_past_the_run_time_limit,
        ),
        // Sizes from user input.
        (
            "sizes from user input are errors",
            sizes_from_user_input_are_errors,
        ),
    ];
    cases.extend([
        (
            "a launcher and its arguments dropped while another thread waits",
            a_launcher_and_its_arguments_dropped_while_another_thread_waits as Case,
        ),
        (
            "the last launcher dropped in a task on a worker thread",
            the_last_launcher_dropped_in_a_task_on_a_worker_thread,
        ),
        (
            "a runtime shut down with tasks awaiting launches",
            a_runtime_shut_down_with_tasks_awaiting_launches,
        ),
        (
            "a buffer dropped while other threads launch with it",
            a_buffer_dropped_while_other_threads_launch_with_it,
        ),
    ]);
    cases.extend(rdmi_cases());
    cases.extend(rdma_cases());
    cases.extend(comch_cases());
    cases.extend(verbs_cases());
    let mut unsound = Vec::new();
    for (name, case) in &cases {
        let objects = common::LiveObjects::new();
        #[cfg(doca_backend = "sim")]
        objects.scope().set_profile(short_limit_profile());
        let live = Live { objects: &objects };
        if let Err(why) = case(&live) {
            eprintln!("UNSOUND {name}: {why}");
            unsound.push(*name);
        }
    }
    println!(
        "soundness: {} cases, {} unsound",
        cases.len(),
        unsound.len()
    );
    assert!(unsound.is_empty(), "unsound: {unsound:?}");
}
