//! DPA threads, notification completions, thread groups and EU affinities:
//! the configure-before-start rules of facts §4.5–4.7 / §4.10 and §8.3, and
//! DPA threads woken by `doca_dpa_dev_thread_notify` from a kernel.

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use common::*;

unsafe extern "C" fn nothing(_: *const u64) -> u64 {
    0
}

fn new_thread(dpa: *mut abi::doca_dpa) -> *mut abi::doca_dpa_thread {
    let mut t = null_mut();
    ok!(abi::doca_dpa_thread_create(dpa, &mut t));
    t
}

#[test]
fn thread_configuration_and_start_rules() {
    let scope = Scope::new();
    let t = entry!();
    let k = entry!();
    let two = entry!();
    let stranger = entry!();
    let app = app(
        c"thread_rules",
        vec![
            thread_fn(c"t", t, nothing),
            global(c"k", k, nothing),
            kernel(c"two", two, KIND_GLOBAL, 2, nothing),
        ],
    );
    let ctx = Ctx::created();
    let thread = new_thread(ctx.dpa);
    // Model choice: the function is looked up in the context's app.
    fails!(
        BAD_STATE,
        abi::doca_dpa_thread_set_func_arg(thread, f(t), 1)
    );
    ok!(abi::doca_dpa_set_app(ctx.dpa, app));
    // Model choice: a thread function takes one u64 or nothing (NVIDIA's
    // nvqual sample declares `void f(void)` thread functions); two is too many.
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_thread_set_func_arg(thread, f(two), 1)
    );
    let no_param = new_thread(ctx.dpa);
    ok!(abi::doca_dpa_thread_set_func_arg(no_param, f(k), 1));
    ok!(abi::doca_dpa_thread_destroy(no_param));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_thread_set_func_arg(thread, f(stranger), 1)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_thread_set_func_arg(thread, None, 1)
    );
    // Without a function: BAD_STATE; with one but the context idle: BAD_STATE.
    ok!(abi::doca_dpa_start(ctx.dpa));
    fails!(BAD_STATE, abi::doca_dpa_thread_start(thread));
    ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 42));
    ok!(abi::doca_dpa_thread_set_local_storage(thread, 0x1000));
    let mut func = None;
    let mut arg = 0;
    ok!(abi::doca_dpa_thread_get_func_arg(
        thread, &mut func, &mut arg
    ));
    assert_eq!(func.map(|p| p as usize), Some(t as usize));
    assert_eq!(arg, 42);
    let mut ls = 0;
    ok!(abi::doca_dpa_thread_get_local_storage(thread, &mut ls));
    assert_eq!(ls, 0x1000);
    let mut aff_out = std::ptr::null();
    // Model choice: the affinity is not returned.
    fails!(
        NOT_SUPPORTED,
        abi::doca_dpa_thread_get_affinity(thread, &mut aff_out)
    );
    let mut id = 0;
    fails!(BAD_STATE, abi::doca_dpa_thread_get_id(thread, &mut id));
    fails!(BAD_STATE, abi::doca_dpa_thread_run(thread));
    fails!(BAD_STATE, abi::doca_dpa_thread_stop(thread));

    ok!(abi::doca_dpa_thread_start(thread));
    ok!(abi::doca_dpa_thread_get_id(thread, &mut id));
    assert_ne!(id, 0);
    let other = new_thread(ctx.dpa);
    ok!(abi::doca_dpa_thread_set_func_arg(other, f(t), 0));
    ok!(abi::doca_dpa_thread_start(other));
    let mut id2 = 0;
    ok!(abi::doca_dpa_thread_get_id(other, &mut id2));
    assert_ne!(id, id2);

    // Everything configurable is BAD_STATE after start.
    let mut aff = null_mut();
    ok!(abi::doca_dpa_eu_affinity_create(ctx.dpa, &mut aff));
    ok!(abi::doca_dpa_eu_affinity_set(aff, 3));
    fails!(
        BAD_STATE,
        abi::doca_dpa_thread_set_func_arg(thread, f(t), 1)
    );
    fails!(BAD_STATE, abi::doca_dpa_thread_set_local_storage(thread, 0));
    fails!(BAD_STATE, abi::doca_dpa_thread_set_affinity(thread, aff));
    fails!(BAD_STATE, abi::doca_dpa_thread_start(thread));
    // Running needs an attached completion or notification completion.
    fails!(BAD_STATE, abi::doca_dpa_thread_run(thread));
    ok!(abi::doca_dpa_thread_stop(thread));
    fails!(BAD_STATE, abi::doca_dpa_thread_run(thread));
    ok!(abi::doca_dpa_thread_destroy(thread));
    // Model choice: a started thread is stopped, then destroyed.
    ok!(abi::doca_dpa_thread_destroy(other));
    fails!(INVALID_VALUE, abi::doca_dpa_thread_destroy(thread));
    ok!(abi::doca_dpa_eu_affinity_destroy(aff));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_thread_create(ctx.dpa, null_mut())
    );
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn eu_affinities() {
    let scope = Scope::new();
    let t = entry!();
    let ctx = Ctx::started(app(c"affinity", vec![thread_fn(c"t", t, nothing)]));
    let mut aff = null_mut();
    ok!(abi::doca_dpa_eu_affinity_create(ctx.dpa, &mut aff));
    let mut eu = 0;
    // Model choice: reading an affinity with no EU is INVALID_VALUE.
    fails!(INVALID_VALUE, abi::doca_dpa_eu_affinity_get(aff, &mut eu));
    let thread = new_thread(ctx.dpa);
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_thread_set_affinity(thread, aff)
    );
    // EU ids run below cores × EUs per core (16 × 16).
    fails!(INVALID_VALUE, abi::doca_dpa_eu_affinity_set(aff, 256));
    ok!(abi::doca_dpa_eu_affinity_set(aff, 255));
    ok!(abi::doca_dpa_eu_affinity_get(aff, &mut eu));
    assert_eq!(eu, 255);
    ok!(abi::doca_dpa_thread_set_affinity(thread, aff));
    ok!(abi::doca_dpa_eu_affinity_clear(aff));
    fails!(INVALID_VALUE, abi::doca_dpa_eu_affinity_get(aff, &mut eu));
    ok!(abi::doca_dpa_thread_destroy(thread));
    ok!(abi::doca_dpa_eu_affinity_destroy(aff));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_eu_affinity_create(ctx.dpa, null_mut())
    );
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_kernel_notification_runs_the_thread() {
    let scope = Scope::new();
    static HANDLE: AtomicU64 = AtomicU64::new(0);
    static COUNT: AtomicU32 = AtomicU32::new(0);
    static ARG: AtomicU64 = AtomicU64::new(0);
    static STORAGE: AtomicU64 = AtomicU64::new(0);
    static SHAPE: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn on_notify(args: *const u64) -> u64 {
        // SAFETY: the sim passes the thread's argument in args[0]; the rest
        // is the device API of the sim.
        unsafe {
            ARG.store(*args, SeqCst);
            STORAGE.store(doca_dpa_dev_thread_get_local_storage(), SeqCst);
            SHAPE.store(
                doca_dpa_dev_thread_rank() * 100 + doca_dpa_dev_num_threads(),
                SeqCst,
            );
        }
        COUNT.fetch_add(1, SeqCst);
        0
    }
    unsafe extern "C" fn notifier(_: *const u64) -> u64 {
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe { doca_dpa_dev_thread_notify(HANDLE.load(SeqCst)) };
        0
    }
    let t = entry!();
    let k = entry!();
    let ctx = Ctx::started(app(
        c"notify",
        vec![
            thread_fn(c"on_notify", t, on_notify),
            global(c"notifier", k, notifier),
        ],
    ));
    let mut storage = 0;
    ok!(abi::doca_dpa_mem_alloc(ctx.dpa, 64, &mut storage));
    let thread = new_thread(ctx.dpa);
    ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 0xabc));
    ok!(abi::doca_dpa_thread_set_local_storage(thread, storage));
    let mut notify = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_notification_completion_create(ctx.dpa, thread, null_mut())
    );
    ok!(abi::doca_dpa_notification_completion_create(
        ctx.dpa,
        thread,
        &mut notify
    ));
    let mut got = null_mut();
    ok!(abi::doca_dpa_notification_completion_get_thread(
        notify, &mut got
    ));
    assert_eq!(got, thread);
    let mut h = 0;
    fails!(
        BAD_STATE,
        abi::doca_dpa_notification_completion_get_dpa_handle(notify, &mut h)
    );
    // Starting it needs a started thread.
    fails!(
        BAD_STATE,
        abi::doca_dpa_notification_completion_start(notify)
    );
    ok!(abi::doca_dpa_thread_start(thread));
    ok!(abi::doca_dpa_notification_completion_start(notify));
    fails!(
        BAD_STATE,
        abi::doca_dpa_notification_completion_start(notify)
    );
    ok!(abi::doca_dpa_notification_completion_get_dpa_handle(
        notify, &mut h
    ));
    HANDLE.store(h, SeqCst);
    ok!(abi::doca_dpa_thread_run(thread));

    let comp = ctx.comp_event();
    for n in 1..=3 {
        ok!(ctx.launch(comp, n, 1, k));
        wait_value(comp, n);
        assert!(
            poll(PATIENCE, || COUNT.load(SeqCst) == n as u32),
            "activation {n} did not run"
        );
    }
    assert_eq!(ARG.load(SeqCst), 0xabc);
    assert_eq!(STORAGE.load(SeqCst), storage);
    assert_eq!(SHAPE.load(SeqCst), 1, "rank 0 of 1 outside a group");

    // A stopped thread is not activated any more.
    ok!(abi::doca_dpa_notification_completion_stop(notify));
    fails!(
        BAD_STATE,
        abi::doca_dpa_notification_completion_stop(notify)
    );
    ok!(abi::doca_dpa_thread_stop(thread));
    ok!(ctx.launch(comp, 4, 1, k));
    wait_value(comp, 4);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(COUNT.load(SeqCst), 3);
    ok!(ctx.peek());

    ok!(abi::doca_dpa_notification_completion_destroy(notify));
    ok!(abi::doca_dpa_thread_destroy(thread));
    ok!(abi::doca_dpa_mem_free(ctx.dpa, storage));
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn notifications_before_run_are_held_and_finish_ends_the_thread() {
    let scope = Scope::new();
    static HANDLE: AtomicU64 = AtomicU64::new(0);
    static COUNT: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn on_notify(_: *const u64) -> u64 {
        let n = COUNT.fetch_add(1, SeqCst) + 1;
        if n == 2 {
            // SAFETY: device API of the sim; ends the thread for good
            // (only integers are alive here).
            unsafe { doca_dpa_dev_thread_finish() };
        }
        // Returning is a reschedule (model choice).
        0
    }
    unsafe extern "C" fn notifier(_: *const u64) -> u64 {
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe { doca_dpa_dev_thread_notify(HANDLE.load(SeqCst)) };
        0
    }
    let t = entry!();
    let k = entry!();
    let ctx = Ctx::started(app(
        c"held",
        vec![
            thread_fn(c"on_notify", t, on_notify),
            global(c"notifier", k, notifier),
        ],
    ));
    let thread = new_thread(ctx.dpa);
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
    let comp = ctx.comp_event();
    // Model choice: a notification before thread_run waits for it.
    ok!(ctx.launch(comp, 1, 1, k));
    wait_value(comp, 1);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(COUNT.load(SeqCst), 0);
    ok!(abi::doca_dpa_thread_run(thread));
    assert!(poll(PATIENCE, || COUNT.load(SeqCst) == 1));
    ok!(ctx.launch(comp, 2, 1, k));
    assert!(poll(PATIENCE, || COUNT.load(SeqCst) == 2));
    // Finished: later notifications do nothing.
    ok!(ctx.launch(comp, 3, 1, k));
    wait_value(comp, 3);
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(COUNT.load(SeqCst), 2);
    ok!(ctx.peek());
    ok!(abi::doca_dpa_notification_completion_stop(notify));
    ok!(abi::doca_dpa_notification_completion_destroy(notify));
    ok!(abi::doca_dpa_thread_stop(thread));
    ok!(abi::doca_dpa_thread_destroy(thread));
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_bad_notification_handle_is_a_device_fault() {
    let scope = Scope::new();
    unsafe extern "C" fn notifier(_: *const u64) -> u64 {
        // SAFETY: device API of the sim; the handle is bogus on purpose.
        unsafe { doca_dpa_dev_thread_notify(0x1234) };
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"bad_notify", vec![global(c"n", k, notifier)]));
    ok!(ctx.launch(null_mut(), 0, 1, k));
    assert!(poll(PATIENCE, || ctx.peek() == BAD_STATE));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn notification_completion_needs_a_started_context() {
    let scope = Scope::new();
    let t = entry!();
    let ctx = Ctx::created();
    ok!(abi::doca_dpa_set_app(
        ctx.dpa,
        app(c"idle_notify", vec![thread_fn(c"t", t, nothing)])
    ));
    let thread = new_thread(ctx.dpa);
    let mut notify = null_mut();
    ok!(abi::doca_dpa_notification_completion_create(
        ctx.dpa,
        thread,
        &mut notify
    ));
    fails!(
        BAD_STATE,
        abi::doca_dpa_notification_completion_start(notify)
    );
    ok!(abi::doca_dpa_notification_completion_destroy(notify));
    ok!(abi::doca_dpa_thread_destroy(thread));
    ctx.destroy();
    assert_no_leaks(&scope);
}

#[test]
fn thread_group_rules_and_ranks() {
    let scope = Scope::new();
    static HANDLE: AtomicU64 = AtomicU64::new(0);
    static SHAPE: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn member(_: *const u64) -> u64 {
        // SAFETY: device API of the sim.
        let shape = unsafe { doca_dpa_dev_thread_rank() * 100 + doca_dpa_dev_num_threads() };
        SHAPE.store(shape, SeqCst);
        0
    }
    unsafe extern "C" fn notifier(_: *const u64) -> u64 {
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe { doca_dpa_dev_thread_notify(HANDLE.load(SeqCst)) };
        0
    }
    let t = entry!();
    let k = entry!();
    let app = app(
        c"groups",
        vec![
            thread_fn(c"member", t, member),
            global(c"notifier", k, notifier),
        ],
    );

    // Placing threads needs a started context.
    let idle = Ctx::created();
    ok!(abi::doca_dpa_set_app(idle.dpa, app));
    let mut tg = null_mut();
    ok!(abi::doca_dpa_thread_group_create(idle.dpa, 2, &mut tg));
    let th = new_thread(idle.dpa);
    fails!(BAD_STATE, abi::doca_dpa_thread_group_set_thread(tg, th, 0));
    ok!(abi::doca_dpa_thread_group_destroy(tg));
    ok!(abi::doca_dpa_thread_destroy(th));
    idle.destroy();

    let ctx = Ctx::started(app);
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_thread_group_create(ctx.dpa, 0, &mut tg)
    );
    ok!(abi::doca_dpa_thread_group_create(ctx.dpa, 2, &mut tg));
    let mut n = 0;
    ok!(abi::doca_dpa_thread_group_get_num_threads(tg, &mut n));
    assert_eq!(n, 2);
    let threads = [new_thread(ctx.dpa), new_thread(ctx.dpa)];
    for th in threads {
        ok!(abi::doca_dpa_thread_set_func_arg(th, f(t), 0));
    }
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_thread_group_set_thread(tg, threads[0], 2)
    );
    ok!(abi::doca_dpa_thread_group_set_thread(tg, threads[0], 0));
    // A thread belongs to one group at most.
    fails!(
        BAD_STATE,
        abi::doca_dpa_thread_group_set_thread(tg, threads[0], 1)
    );
    let mut tg2 = null_mut();
    ok!(abi::doca_dpa_thread_group_create(ctx.dpa, 1, &mut tg2));
    fails!(
        BAD_STATE,
        abi::doca_dpa_thread_group_set_thread(tg2, threads[0], 0)
    );
    // A started thread cannot join.
    let started = new_thread(ctx.dpa);
    ok!(abi::doca_dpa_thread_set_func_arg(started, f(t), 0));
    ok!(abi::doca_dpa_thread_start(started));
    fails!(
        BAD_STATE,
        abi::doca_dpa_thread_group_set_thread(tg2, started, 0)
    );
    ok!(abi::doca_dpa_thread_stop(started));
    ok!(abi::doca_dpa_thread_destroy(started));
    ok!(abi::doca_dpa_thread_group_destroy(tg2));
    // Every rank needs a started thread.
    fails!(BAD_STATE, abi::doca_dpa_thread_group_start(tg));
    ok!(abi::doca_dpa_thread_group_set_thread(tg, threads[1], 1));
    fails!(BAD_STATE, abi::doca_dpa_thread_group_start(tg));
    ok!(abi::doca_dpa_thread_start(threads[0]));
    fails!(BAD_STATE, abi::doca_dpa_thread_group_start(tg));
    ok!(abi::doca_dpa_thread_start(threads[1]));
    fails!(BAD_STATE, abi::doca_dpa_thread_group_stop(tg));
    ok!(abi::doca_dpa_thread_group_start(tg));
    fails!(BAD_STATE, abi::doca_dpa_thread_group_start(tg));
    fails!(
        BAD_STATE,
        abi::doca_dpa_thread_group_set_thread(tg, threads[1], 1)
    );

    // The member at rank 1 sees its group rank and size.
    let mut notify = null_mut();
    ok!(abi::doca_dpa_notification_completion_create(
        ctx.dpa,
        threads[1],
        &mut notify
    ));
    ok!(abi::doca_dpa_notification_completion_start(notify));
    let mut h = 0;
    ok!(abi::doca_dpa_notification_completion_get_dpa_handle(
        notify, &mut h
    ));
    HANDLE.store(h, SeqCst);
    ok!(abi::doca_dpa_thread_run(threads[1]));
    ok!(ctx.launch(null_mut(), 0, 1, k));
    assert!(poll(PATIENCE, || SHAPE.load(SeqCst) == 102));

    // Model choice: started objects are stopped, then destroyed, as the
    // samples' teardown expects.
    ok!(abi::doca_dpa_notification_completion_destroy(notify));
    ok!(abi::doca_dpa_thread_group_destroy(tg));
    // The group's threads left it when it went.
    let mut rank_of_other = null_mut();
    ok!(abi::doca_dpa_thread_group_create(
        ctx.dpa,
        1,
        &mut rank_of_other
    ));
    ok!(abi::doca_dpa_thread_stop(threads[1]));
    ok!(abi::doca_dpa_thread_group_set_thread(
        rank_of_other,
        threads[1],
        0
    ));
    ok!(abi::doca_dpa_thread_group_destroy(rank_of_other));
    ok!(abi::doca_dpa_thread_start(threads[1]));
    for th in threads {
        ok!(abi::doca_dpa_thread_stop(th));
        ok!(abi::doca_dpa_thread_destroy(th));
    }
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn an_over_time_thread_activation_makes_the_context_fatal() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.kernel_max_run_time_ms = 200));
    static HANDLE: AtomicU64 = AtomicU64::new(0);
    static STARTED: AtomicU32 = AtomicU32::new(0);
    static ENDED: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn stuck(_: *const u64) -> u64 {
        STARTED.fetch_add(1, SeqCst);
        loop {
            // SAFETY: device API of the sim; once the context is fatal the
            // sim ends the activation here (nothing with a destructor lives).
            unsafe { doca_dpa_dev_yield() };
            if ENDED.load(SeqCst) == u32::MAX {
                break;
            }
        }
        ENDED.fetch_add(1, SeqCst);
        0
    }
    unsafe extern "C" fn notifier(_: *const u64) -> u64 {
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe { doca_dpa_dev_thread_notify(HANDLE.load(SeqCst)) };
        0
    }
    let t = entry!();
    let k = entry!();
    let ctx = Ctx::started(app(
        c"stuck_thread",
        vec![
            thread_fn(c"stuck", t, stuck),
            global(c"notifier", k, notifier),
        ],
    ));
    let thread = new_thread(ctx.dpa);
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
    ok!(ctx.launch(null_mut(), 0, 1, k));
    assert!(poll(PATIENCE, || STARTED.load(SeqCst) == 1));
    assert!(
        poll_cpu(RUN_TIME_PATIENCE, || ctx.peek() == BAD_STATE),
        "a stuck DPA thread activation never made the context fatal"
    );
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(ENDED.load(SeqCst), 0, "the activation was ended");
    ok!(abi::doca_dpa_notification_completion_stop(notify));
    ok!(abi::doca_dpa_notification_completion_destroy(notify));
    ok!(abi::doca_dpa_thread_stop(thread));
    ok!(abi::doca_dpa_thread_destroy(thread));
    ctx.teardown();
    assert_no_leaks(&scope);
}
