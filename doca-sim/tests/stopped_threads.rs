//! The run-time limit of an activation whose DPA thread was stopped (model
//! choice, `ThreadStop` in `src/dpa/launch.rs`): from the stop on it counts in
//! wall time, so a host that frees what the thread used once the limit has
//! passed since the stop with the context healthy (doca-dpa's deferred thread
//! records) never frees memory under a running activation, however crowded
//! the host's CPUs are. An activation of a thread that was not stopped keeps
//! the crowding discount (`run_time`: wall time less the EU thread's wait for
//! a CPU), which `dpa_nvqual`'s 189 threads on a loaded host need.
//!
//! Both tests crowd every CPU with busy host threads, one test at a time.

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::*;

/// The run-time limit of the tests' profile.
const LIMIT: Duration = Duration::from_millis(200);
/// How late after the stop's deadline the host may find the context still
/// healthy (doca-dpa checks 50 ms after it).
const MARGIN: Duration = Duration::from_millis(25);

/// One test at a time: both crowd the CPUs and share the kernels' counters.
fn serial() -> MutexGuard<'static, ()> {
    static ONE: Mutex<()> = Mutex::new(());
    ONE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Busy host threads on every CPU until dropped: EU threads then wait for a
/// CPU most of the time, which the watchdog does not count as run time.
struct Crowd {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Crowd {
    fn new(per_cpu: usize) -> Crowd {
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..cpus * per_cpu)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(SeqCst) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        Crowd { stop, threads }
    }
}

impl Drop for Crowd {
    fn drop(&mut self) {
        self.stop.store(true, SeqCst);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

static HANDLE: AtomicU64 = AtomicU64::new(0);
static STARTED: AtomicU32 = AtomicU32::new(0);
static RELEASE: AtomicU32 = AtomicU32::new(0);
static RETURNED: AtomicU32 = AtomicU32::new(0);

/// The thread function: spins (yielding, so its EU thread is always
/// runnable) until the host releases it.
unsafe extern "C" fn spinner(_: *const u64) -> u64 {
    STARTED.fetch_add(1, SeqCst);
    while RELEASE.load(SeqCst) == 0 {
        // SAFETY: device API of the sim; once the context is fatal the sim
        // ends the activation here (nothing with a destructor lives).
        unsafe { doca_dpa_dev_yield() };
    }
    RETURNED.fetch_add(1, SeqCst);
    0
}

unsafe extern "C" fn notifier(_: *const u64) -> u64 {
    // SAFETY: device API of the sim with a handle the host exported.
    unsafe { doca_dpa_dev_thread_notify(HANDLE.load(SeqCst)) };
    0
}

/// A started context with a running DPA thread of [`spinner`], woken by a
/// notification completion that [`notifier`] kernels signal.
struct Rig {
    ctx: Ctx,
    thread: *mut abi::doca_dpa_thread,
    notify: *mut abi::doca_dpa_notification_completion,
    notifier: Func,
}

impl Rig {
    fn new() -> Rig {
        STARTED.store(0, SeqCst);
        RELEASE.store(0, SeqCst);
        RETURNED.store(0, SeqCst);
        let t = entry!();
        let k = entry!();
        let ctx = Ctx::started(app(
            c"stopped_threads",
            vec![
                thread_fn(c"spinner", t, spinner),
                global(c"notifier", k, notifier),
            ],
        ));
        let mut thread = null_mut();
        ok!(abi::doca_dpa_thread_create(ctx.dpa, &mut thread));
        ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 0));
        ok!(abi::doca_dpa_thread_start(thread));
        let mut notify = null_mut();
        ok!(abi::doca_dpa_notification_completion_create(
            ctx.dpa,
            thread,
            &mut notify
        ));
        ok!(abi::doca_dpa_notification_completion_start(notify));
        let mut h = 0;
        ok!(abi::doca_dpa_notification_completion_get_dpa_handle(
            notify, &mut h
        ));
        HANDLE.store(h, SeqCst);
        ok!(abi::doca_dpa_thread_run(thread));
        Rig {
            ctx,
            thread,
            notify,
            notifier: k,
        }
    }

    /// Starts activation number `n` of the thread and waits until it runs.
    fn activate(&self, n: u32) -> Instant {
        ok!(self.ctx.launch(null_mut(), 0, 1, self.notifier));
        assert!(
            poll(Duration::from_secs(10), || STARTED.load(SeqCst) == n),
            "activation {n} did not start"
        );
        Instant::now()
    }
}

fn limit_profile() -> Profile {
    bf3_profile(|d| d.kernel_max_run_time_ms = LIMIT.as_millis() as u64)
}

/// Sleeps until `at` (at once if it has passed).
fn sleep_until(at: Instant) {
    if let Some(left) = at.checked_duration_since(Instant::now()) {
        std::thread::sleep(left);
    }
}

/// Crowds the CPUs, starts an activation and ends its thread with `end`
/// (`doca_dpa_thread_stop` or `_destroy`) while it runs: the context must be
/// healthy until shortly before the stop's deadline (the activation's run
/// time is far below the limit) and fatal by the deadline plus [`MARGIN`],
/// with a report naming the stop, and the activation must not return.
fn stop_while_running(how: &str, end: impl FnOnce(&Rig)) -> Rig {
    let rig = Rig::new();
    let crowd = Crowd::new(4);
    rig.activate(1);
    std::thread::sleep(Duration::from_millis(30));
    let before = Instant::now();
    end(&rig);
    let after = Instant::now();
    // Not killed early: the limit counts from the stop.
    sleep_until(before + LIMIT - Duration::from_millis(60));
    let early = rig.ctx.peek();
    let checked_early = Instant::now() < before + LIMIT;
    sleep_until(after + LIMIT + MARGIN);
    let late = rig.ctx.peek();
    let checked_at = after.elapsed();
    drop(crowd);
    if checked_early {
        expect(
            early,
            SUCCESS,
            &format!("peek shortly before the deadline ({how})"),
        );
    } else {
        eprintln!("{how}: the test thread woke too late to check the context before the deadline");
    }
    assert_eq!(
        late, BAD_STATE,
        "{how}: the context was still healthy {checked_at:?} after the stop (limit {LIMIT:?})"
    );
    let report = doca_sim::fault_report(rig.ctx.dpa).expect("a fault report");
    assert_eq!(report.kind, doca_sim::FaultKind::Watchdog, "{report}");
    assert!(
        report.reason.contains("after its DPA thread was stopped"),
        "{how}: {report}"
    );
    // It was stopped, not merely reported: released now, it does not return.
    RELEASE.store(1, SeqCst);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(RETURNED.load(SeqCst), 0, "{how}: the activation ran on");
    rig
}

/// Model choice (`ThreadStop`): an activation still running when its thread
/// is stopped — by `doca_dpa_thread_stop`, or by `doca_dpa_thread_destroy` of
/// the started thread — has the run-time limit left in wall time from the
/// stop, crowded CPUs or not; past it the watchdog makes the context fatal at
/// once (not at its next look).
#[test]
fn a_stopped_threads_activation_is_held_to_the_limit_in_wall_time_from_the_stop() {
    let _one = serial();
    let scope = Scope::new();
    scope.set_profile(limit_profile());

    let rig = stop_while_running("doca_dpa_thread_stop", |rig| {
        ok!(abi::doca_dpa_thread_stop(rig.thread));
    });
    ok!(abi::doca_dpa_notification_completion_stop(rig.notify));
    ok!(abi::doca_dpa_notification_completion_destroy(rig.notify));
    ok!(abi::doca_dpa_thread_destroy(rig.thread));
    rig.ctx.teardown();

    let rig = stop_while_running("doca_dpa_thread_destroy", |rig| {
        ok!(abi::doca_dpa_notification_completion_destroy(rig.notify));
        ok!(abi::doca_dpa_thread_destroy(rig.thread));
    });
    rig.ctx.teardown();
    assert_no_leaks(&scope);
}

/// An activation that ends before its stopped thread's deadline leaves the
/// context healthy, and a stop that finds no activation running sets none.
#[test]
fn a_stopped_thread_whose_activation_ends_in_time_stays_healthy() {
    let _one = serial();
    let scope = Scope::new();
    scope.set_profile(limit_profile());
    let rig = Rig::new();
    rig.activate(1);
    ok!(abi::doca_dpa_thread_stop(rig.thread));
    std::thread::sleep(LIMIT / 2);
    RELEASE.store(1, SeqCst);
    assert!(poll(PATIENCE, || RETURNED.load(SeqCst) == 1));
    std::thread::sleep(LIMIT + MARGIN);
    ok!(rig.ctx.peek());
    ok!(abi::doca_dpa_notification_completion_stop(rig.notify));
    ok!(abi::doca_dpa_notification_completion_destroy(rig.notify));
    ok!(abi::doca_dpa_thread_destroy(rig.thread));
    rig.ctx.teardown();
    assert_no_leaks(&scope);
}

/// For contrast: an activation of a thread that is not stopped, crowded off
/// the CPUs, runs well past the limit in wall time and is not stopped (its
/// time on the EU stays below the limit), as `dpa_nvqual` needs. Skipped
/// where the kernel keeps no scheduler statistics (the sim then counts wall
/// time).
#[test]
fn a_crowded_activation_of_a_running_thread_is_not_held_to_wall_time() {
    if !std::path::Path::new("/proc/thread-self/schedstat").exists() {
        eprintln!("skipped: no scheduler statistics, the limit counts wall time");
        return;
    }
    let _one = serial();
    let scope = Scope::new();
    scope.set_profile(limit_profile());
    let rig = Rig::new();
    let crowd = Crowd::new(4);
    let started = rig.activate(1);
    sleep_until(started + LIMIT + Duration::from_millis(150));
    let health = rig.ctx.peek();
    let wall = started.elapsed();
    RELEASE.store(1, SeqCst);
    let returned = poll(Duration::from_secs(10), || RETURNED.load(SeqCst) == 1);
    drop(crowd);
    expect(
        health,
        SUCCESS,
        &format!("peek {wall:?} into a crowded activation"),
    );
    assert!(returned, "the crowded activation did not return");
    ok!(rig.ctx.peek());
    ok!(abi::doca_dpa_notification_completion_stop(rig.notify));
    ok!(abi::doca_dpa_notification_completion_destroy(rig.notify));
    ok!(abi::doca_dpa_thread_stop(rig.thread));
    ok!(abi::doca_dpa_thread_destroy(rig.thread));
    rig.ctx.teardown();
    assert_no_leaks(&scope);
}
