//! Kernel launches (`doca_dpa_kernel_launch_update_set/_add`): instances
//! meeting at a barrier, the wait-event gate, set vs add on the completion
//! event, argument validation, the events' locations, device-side event
//! calls, and the watchdog that makes an over-time kernel's context fatal.

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use common::*;

#[test]
fn sixty_four_instances_meet_at_a_barrier() {
    let scope = Scope::new();
    static ARRIVED: AtomicU32 = AtomicU32::new(0);
    static LEFT: AtomicU32 = AtomicU32::new(0);
    static RANKS: AtomicU64 = AtomicU64::new(0);
    static WRONG_COUNT: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn barrier(_: *const u64) -> u64 {
        // SAFETY: device API of the sim, called from a kernel instance.
        let (rank, n) = unsafe { (doca_dpa_dev_thread_rank(), doca_dpa_dev_num_threads()) };
        if n != 64 {
            WRONG_COUNT.fetch_add(1, SeqCst);
        }
        RANKS.fetch_or(1 << rank, SeqCst);
        ARRIVED.fetch_add(1, SeqCst);
        // Every instance waits for all the others: only possible if they
        // all run at once.
        while ARRIVED.load(SeqCst) < n {
            // SAFETY: as above; nothing with a destructor is alive here.
            unsafe { doca_dpa_dev_yield() };
        }
        LEFT.fetch_add(1, SeqCst);
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"barrier", vec![global(c"barrier", k, barrier)]));
    let comp = ctx.comp_event();
    ok!(ctx.launch(comp, 1, 64, k));
    wait_value(comp, 1);
    assert_eq!(LEFT.load(SeqCst), 64);
    assert_eq!(RANKS.load(SeqCst), u64::MAX, "ranks 0..64, each once");
    assert_eq!(WRONG_COUNT.load(SeqCst), 0);
    ok!(ctx.peek());
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_gated_launch_waits_for_the_host() {
    let scope = Scope::new();
    static RUNS: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn count(_: *const u64) -> u64 {
        RUNS.fetch_add(1, SeqCst);
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"gated", vec![global(c"count", k, count)]));
    let wait = ctx.wait_event();
    let comp = ctx.comp_event();
    ok!(abi::doca_dpa_kernel_launch_update_set(
        ctx.dpa,
        wait,
        3,
        comp,
        1,
        2,
        f(k)
    ));
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(RUNS.load(SeqCst), 0, "ran before the wait event was set");
    ok!(abi::doca_sync_event_update_set(wait, 2));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(RUNS.load(SeqCst), 0, "ran below the threshold");
    assert_eq!(get(comp), 0);
    // The gate opens at value >= threshold.
    ok!(abi::doca_sync_event_update_set(wait, 3));
    wait_value(comp, 1);
    assert_eq!(RUNS.load(SeqCst), 2);

    // A threshold the event already passed does not wait.
    ok!(abi::doca_dpa_kernel_launch_update_set(
        ctx.dpa,
        wait,
        1,
        comp,
        2,
        1,
        f(k)
    ));
    wait_value(comp, 2);
    assert_eq!(RUNS.load(SeqCst), 3);
    drop_event(wait);
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_pending_launch_is_dropped_when_its_context_goes() {
    let scope = Scope::new();
    static RUNS: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn count(_: *const u64) -> u64 {
        RUNS.fetch_add(1, SeqCst);
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"pending", vec![global(c"count", k, count)]));
    let wait = ctx.wait_event();
    ok!(abi::doca_dpa_kernel_launch_update_add(
        ctx.dpa,
        wait,
        200,
        null_mut(),
        0,
        4,
        f(k)
    ));
    // Teardown with the launch still gated completes.
    drop_event(wait);
    ctx.teardown();
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(RUNS.load(SeqCst), 0);
    assert_no_leaks(&scope);
}

#[test]
fn update_set_sets_and_update_add_adds() {
    let scope = Scope::new();
    unsafe extern "C" fn noop(_: *const u64) -> u64 {
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"set_add", vec![global(c"noop", k, noop)]));
    let comp = ctx.comp_event();
    ok!(abi::doca_sync_event_update_set(comp, 10));
    let add = |count| {
        ok!(abi::doca_dpa_kernel_launch_update_add(
            ctx.dpa,
            null_mut(),
            0,
            comp,
            count,
            1,
            f(k)
        ))
    };
    add(5);
    wait_value(comp, 15);
    add(5);
    add(7);
    wait_value(comp, 27);
    ok!(ctx.launch(comp, 3, 1, k));
    wait_value(comp, 3);
    // Completion values are full 64-bit.
    ok!(ctx.launch(comp, u64::MAX - 1, 1, k));
    wait_value(comp, u64::MAX - 1);
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_launch_without_events_still_runs() {
    let scope = Scope::new();
    static RUNS: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn count(_: *const u64) -> u64 {
        RUNS.fetch_add(1, SeqCst);
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"blind", vec![global(c"count", k, count)]));
    ok!(ctx.launch(null_mut(), 0, 3, k));
    assert!(poll(PATIENCE, || RUNS.load(SeqCst) == 3));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn launch_arguments_are_validated() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.max_threads_per_kernel = 8));
    static RUNS: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn count(_: *const u64) -> u64 {
        RUNS.fetch_add(1, SeqCst);
        0
    }
    let k = entry!();
    let r = entry!();
    let stranger = entry!();
    let ctx = Ctx::started(app(
        c"validate",
        vec![global(c"count", k, count), rpc(c"an_rpc", r, count)],
    ));
    fails!(INVALID_VALUE, ctx.launch(null_mut(), 0, 0, k));
    fails!(INVALID_VALUE, ctx.launch(null_mut(), 0, 9, k));
    fails!(INVALID_VALUE, ctx.launch(null_mut(), 0, 1, stranger));
    fails!(INVALID_VALUE, ctx.launch(null_mut(), 0, 1, r));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_kernel_launch_update_set(ctx.dpa, null_mut(), 0, null_mut(), 0, 1, None)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_kernel_launch_update_add(null_mut(), null_mut(), 0, null_mut(), 0, 1, f(k))
    );
    // The wait threshold is 0..=254.
    let wait = ctx.wait_event();
    for add in [false, true] {
        let launch = if add {
            abi::doca_dpa_kernel_launch_update_add
        } else {
            abi::doca_dpa_kernel_launch_update_set
        };
        fails!(
            INVALID_VALUE,
            launch(ctx.dpa, wait, 255, null_mut(), 0, 1, f(k))
        );
        fails!(
            INVALID_VALUE,
            launch(ctx.dpa, wait, u64::MAX, null_mut(), 0, 1, f(k))
        );
    }
    ok!(abi::doca_sync_event_update_set(wait, 254));
    ok!(abi::doca_dpa_kernel_launch_update_set(
        ctx.dpa,
        wait,
        254,
        null_mut(),
        0,
        8,
        f(k)
    ));
    assert!(poll(PATIENCE, || RUNS.load(SeqCst) == 8));
    assert_eq!(scope.calls("doca_dpa_kernel_launch_update_set"), 8);
    assert_eq!(scope.calls("doca_dpa_kernel_launch_update_add"), 3);
    drop_event(wait);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn launch_events_need_the_dpa_as_their_location() {
    let scope = Scope::new();
    unsafe extern "C" fn noop(_: *const u64) -> u64 {
        0
    }
    let k = entry!();
    let app = app(c"locations", vec![global(c"noop", k, noop)]);
    let ctx = Ctx::started(app);
    let launch = |wait, comp| {
        ffi!(abi::doca_dpa_kernel_launch_update_set(
            ctx.dpa,
            wait,
            0,
            comp,
            1,
            1,
            f(k)
        ))
    };
    // Model choice: a completion event the DPA does not publish, or a wait
    // event it does not subscribe to, is INVALID_VALUE; an unstarted one is
    // BAD_STATE.
    let host_only = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_cpu(
        host_only, ctx.dev
    ));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(
        host_only, ctx.dev
    ));
    fails!(BAD_STATE, launch(null_mut(), host_only));
    ok!(abi::doca_sync_event_start(host_only));
    fails!(INVALID_VALUE, launch(null_mut(), host_only));
    fails!(INVALID_VALUE, launch(host_only, null_mut()));
    let wait = ctx.wait_event();
    let comp = ctx.comp_event();
    // The roles are not interchangeable.
    fails!(INVALID_VALUE, launch(comp, wait));
    ok!(launch(wait, comp));
    wait_value(comp, 1);

    // An event of another context is refused; one of an extension of this
    // context is accepted.
    let other = Ctx::started(noop_app());
    let foreign = other.comp_event();
    fails!(INVALID_VALUE, launch(null_mut(), foreign));
    let second = open_dev(BF3);
    let mut ext = null_mut();
    ok!(abi::doca_dpa_device_extend(ctx.dpa, second, &mut ext));
    let shared = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_dpa(shared, ext));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(
        shared, ctx.dev
    ));
    ok!(abi::doca_sync_event_start(shared));
    ok!(launch(null_mut(), shared));
    wait_value(shared, 1);

    for ev in [host_only, wait, comp, foreign, shared] {
        drop_event(ev);
    }
    ok!(abi::doca_dpa_destroy(ext));
    close_dev(second);
    other.teardown();
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn kernels_update_and_wait_on_events_through_handles() {
    let scope = Scope::new();
    static WAIT: AtomicU64 = AtomicU64::new(0);
    static COMP: AtomicU64 = AtomicU64::new(0);
    static SEEN: AtomicU64 = AtomicU64::new(0);
    unsafe extern "C" fn waiter(_: *const u64) -> u64 {
        let (wait, comp) = (WAIT.load(SeqCst), COMP.load(SeqCst));
        let mut seen = 0u64;
        // SAFETY: device API of the sim with handles the host exported.
        unsafe {
            // Waits until (value & 0xff) > 4.
            doca_dpa_dev_sync_event_wait_gt(wait, 4, 0xff);
            doca_dpa_dev_sync_event_get(wait, &mut seen);
            doca_dpa_dev_sync_event_update_add(comp, 40);
            doca_dpa_dev_sync_event_update_add(comp, 2);
        }
        SEEN.store(seen, SeqCst);
        0
    }
    unsafe extern "C" fn setter(_: *const u64) -> u64 {
        // SAFETY: as above.
        unsafe { doca_dpa_dev_sync_event_update_set(COMP.load(SeqCst), 7) };
        0
    }
    let k = entry!();
    let s = entry!();
    let ctx = Ctx::started(app(
        c"device_events",
        vec![global(c"waiter", k, waiter), global(c"setter", s, setter)],
    ));
    let wait = ctx.wait_event();
    let comp = ctx.comp_event();
    WAIT.store(ctx.event_handle(wait), SeqCst);
    COMP.store(ctx.event_handle(comp), SeqCst);
    ok!(ctx.launch(null_mut(), 0, 1, k));
    // 0x104 & 0xff = 4: not yet.
    ok!(abi::doca_sync_event_update_set(wait, 0x104));
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(get(comp), 0);
    ok!(abi::doca_sync_event_update_set(wait, 0x105));
    wait_value(comp, 42);
    assert_eq!(SEEN.load(SeqCst), 0x105);
    ok!(ctx.launch(null_mut(), 0, 1, s));
    wait_value(comp, 7);
    ok!(ctx.peek());
    drop_event(wait);
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_dead_event_handle_is_a_device_fault() {
    let scope = Scope::new();
    static HANDLE: AtomicU64 = AtomicU64::new(0);
    unsafe extern "C" fn touch(_: *const u64) -> u64 {
        // SAFETY: device API of the sim; the handle is stale on purpose.
        unsafe { doca_dpa_dev_sync_event_update_add(HANDLE.load(SeqCst), 1) };
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"stale", vec![global(c"touch", k, touch)]));
    let ev = ctx.comp_event();
    HANDLE.store(ctx.event_handle(ev), SeqCst);
    // Destroying the event retracts its handle.
    drop_event(ev);
    ok!(ctx.launch(null_mut(), 0, 1, k));
    assert!(poll(PATIENCE, || ctx.peek() == BAD_STATE));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn an_over_time_kernel_makes_the_context_fatal() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.kernel_max_run_time_ms = 200));
    static STARTED: AtomicU32 = AtomicU32::new(0);
    static FINISHED: AtomicU32 = AtomicU32::new(0);
    static QUICK: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn forever(_: *const u64) -> u64 {
        STARTED.fetch_add(1, SeqCst);
        loop {
            // SAFETY: device API of the sim; once the context is fatal the
            // sim ends the instance here (nothing with a destructor lives).
            unsafe { doca_dpa_dev_yield() };
            if FINISHED.load(SeqCst) == u32::MAX {
                break;
            }
        }
        FINISHED.fetch_add(1, SeqCst);
        0
    }
    unsafe extern "C" fn quick(_: *const u64) -> u64 {
        QUICK.fetch_add(1, SeqCst);
        0
    }
    let k = entry!();
    let q = entry!();
    let ctx = Ctx::started(app(
        c"watchdog",
        vec![global(c"forever", k, forever), global(c"quick", q, quick)],
    ));
    let mut seconds = 0;
    ok!(abi::doca_dpa_get_kernel_max_run_time(ctx.dpa, &mut seconds));
    assert_eq!(seconds, 1);
    let comp = ctx.comp_event();
    // A quick kernel is fine.
    ok!(ctx.launch(comp, 1, 1, q));
    wait_value(comp, 1);
    ok!(ctx.launch(comp, 2, 4, k));
    std::thread::sleep(Duration::from_millis(50));
    ok!(ctx.peek());
    // The limit counts time on the EU, which a loaded host hands four
    // yielding threads slowly.
    assert!(
        poll_cpu(RUN_TIME_PATIENCE, || ctx.peek() == BAD_STATE),
        "the watchdog never fired"
    );
    // The instances were ended, the completion event never updated, and the
    // context stays fatal.
    assert!(poll(PATIENCE, || STARTED.load(SeqCst) == 4));
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(FINISHED.load(SeqCst), 0);
    assert_eq!(get(comp), 1);
    fails!(BAD_STATE, ctx.peek());
    fails!(BAD_STATE, ctx.launch(comp, 3, 1, q));
    fails!(
        BAD_STATE,
        abi::doca_dpa_kernel_launch_update_add(ctx.dpa, null_mut(), 0, comp, 1, 1, f(q))
    );
    assert_eq!(QUICK.load(SeqCst), 1);
    fails!(BAD_STATE, ctx.peek());
    // Teardown completes.
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

/// Pins the calling thread to `cpu` (all CPUs when `None`).
fn pin(cpu: Option<usize>) {
    // SAFETY: a zeroed cpu_set_t is an empty set; the CPU_* helpers and
    // sched_setaffinity take valid pointers to it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        match cpu {
            Some(c) => libc::CPU_SET(c, &mut set),
            None => (0..libc::CPU_SETSIZE as usize).for_each(|c| libc::CPU_SET(c, &mut set)),
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// CPU time of the calling thread.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and out-pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Model choice (`run_time` in `src/dpa/launch.rs`): the run-time limit
/// counts the time a kernel is on its EU, not the time its host thread waits
/// for a CPU. A kernel that needs 300 ms of CPU, sharing one CPU with three
/// spinning host threads, takes far longer than its 500 ms limit in wall
/// time and still completes; one that waits on a sync event nobody sets is
/// stopped at its limit (a DPA thread waiting in a device call stays on its
/// EU).
#[test]
fn the_run_time_limit_counts_time_on_the_eu_not_time_waiting_for_a_cpu() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.kernel_max_run_time_ms = 500));
    static CPU: AtomicU64 = AtomicU64::new(0);
    static PINNED: AtomicU32 = AtomicU32::new(0);
    static STOP: AtomicU32 = AtomicU32::new(0);
    static EVENT: AtomicU64 = AtomicU64::new(0);
    static WOKE: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn crowded(_: *const u64) -> u64 {
        // SAFETY: plain libc query.
        let cpu = unsafe { libc::sched_getcpu() }.max(0) as usize;
        pin(Some(cpu));
        CPU.store(cpu as u64, SeqCst);
        PINNED.store(1, SeqCst);
        let start = thread_cpu_time();
        while thread_cpu_time() - start < Duration::from_millis(300) {
            std::hint::spin_loop();
        }
        pin(None);
        0
    }
    unsafe extern "C" fn waiter(_: *const u64) -> u64 {
        // SAFETY: device API of the sim with a live exported event; the sim
        // ends the instance in the wait once the context is fatal.
        unsafe { doca_dpa_dev_sync_event_wait_gt(EVENT.load(SeqCst), 0, u64::MAX) };
        WOKE.store(1, SeqCst);
        0
    }
    let c = entry!();
    let w = entry!();
    let ctx = Ctx::started(app(
        c"run_time",
        vec![global(c"crowded", c, crowded), global(c"waiter", w, waiter)],
    ));
    let comp = ctx.comp_event();
    let start = Instant::now();
    ok!(ctx.launch(comp, 1, 1, c));
    assert!(poll(PATIENCE, || PINNED.load(SeqCst) == 1));
    let hogs: Vec<_> = (0..3)
        .map(|_| {
            std::thread::spawn(|| {
                pin(Some(CPU.load(SeqCst) as usize));
                while STOP.load(SeqCst) == 0 {
                    std::hint::spin_loop();
                }
            })
        })
        .collect();
    let done = poll(Duration::from_secs(30), || get(comp) == 1);
    STOP.store(1, SeqCst);
    hogs.into_iter().for_each(|h| h.join().unwrap());
    assert!(done, "the crowded kernel never completed");
    ok!(ctx.peek());
    assert!(
        start.elapsed() > Duration::from_millis(500),
        "the kernel was not crowded past its limit ({:?})",
        start.elapsed()
    );

    let never = ctx.wait_event();
    EVENT.store(ctx.event_handle(never), SeqCst);
    ok!(ctx.launch(comp, 2, 1, w));
    assert!(
        poll(Duration::from_secs(5), || ctx.peek() == BAD_STATE),
        "a kernel waiting past its limit was not stopped"
    );
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(WOKE.load(SeqCst), 0);
    assert_eq!(get(comp), 1);
    drop_event(never);
    drop_event(comp);
    ctx.destroy();
    assert_no_leaks(&scope);
}
