//! Sync events driven as DOCA contexts: the five task types configured,
//! allocated, submitted and completed by `doca_pe_progress`, the pool bound,
//! the lifecycle rules, flushing on stop, the notification handle (an eventfd
//! readable once armed and a task can complete), and the capability switch of
//! the profile.

mod common;

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::Duration;

use common::*;

thread_local! {
    /// Completions seen by the callbacks, which run in the thread that calls
    /// `doca_pe_progress`: (task user data, status, is error).
    static SEEN: RefCell<Vec<(u64, Code, bool)>> = const { RefCell::new(Vec::new()) };
}

fn seen() -> Vec<(u64, Code, bool)> {
    SEEN.with(|s| s.take())
}

unsafe extern "C" fn on_done(task: *mut c_void, user: abi::doca_data, _ctx: abi::doca_data) {
    // SAFETY: the sim passes the task and its user data.
    let (user, status) = unsafe { (user.u64_, abi::doca_task_get_status(task.cast())) };
    SEEN.with(|s| s.borrow_mut().push((user, status, false)));
}

unsafe extern "C" fn on_error(task: *mut c_void, user: abi::doca_data, _ctx: abi::doca_data) {
    // SAFETY: as above.
    let (user, status) = unsafe { (user.u64_, abi::doca_task_get_status(task.cast())) };
    SEEN.with(|s| s.borrow_mut().push((user, status, true)));
}

/// `on_done` / `on_error` as the callback type `F` of one task type.
fn cb<F>(f: unsafe extern "C" fn(*mut c_void, abi::doca_data, abi::doca_data)) -> F {
    assert_eq!(size_of::<F>(), size_of::<usize>());
    // SAFETY: every task callback type is `Option<extern "C" fn(*mut Task,
    // doca_data, doca_data)>`; task pointers are ABI-compatible with `*mut c_void`.
    unsafe { std::mem::transmute_copy(&Some(f)) }
}

fn data(v: u64) -> abi::doca_data {
    abi::doca_data { u64_: v }
}

/// An event with CPU publisher and subscriber, as a context on a new PE, with
/// every task type configured (pool of 2) but not started.
struct Fx {
    dev: *mut abi::doca_dev,
    ev: *mut abi::doca_sync_event,
    ctx: *mut abi::doca_ctx,
    pe: *mut abi::doca_pe,
}

impl Fx {
    fn new() -> Fx {
        let dev = open_dev(BF3);
        let ev = new_event();
        ok!(abi::doca_sync_event_add_publisher_location_cpu(ev, dev));
        ok!(abi::doca_sync_event_add_subscriber_location_cpu(ev, dev));
        let ctx = ffi!(abi::doca_sync_event_as_ctx(ev));
        assert!(!ctx.is_null());
        assert_eq!(
            ctx,
            ffi!(abi::doca_sync_event_as_ctx(ev)),
            "always the same context"
        );
        let mut pe = null_mut();
        ok!(abi::doca_pe_create(&mut pe));
        ok!(abi::doca_pe_connect_ctx(pe, ctx));
        ok!(abi::doca_sync_event_task_get_set_conf(
            ev,
            cb(on_done),
            cb(on_error),
            2
        ));
        ok!(abi::doca_sync_event_task_notify_set_set_conf(
            ev,
            cb(on_done),
            cb(on_error),
            2
        ));
        ok!(abi::doca_sync_event_task_notify_add_set_conf(
            ev,
            cb(on_done),
            cb(on_error),
            2
        ));
        ok!(abi::doca_sync_event_task_wait_eq_set_conf(
            ev,
            cb(on_done),
            cb(on_error),
            2
        ));
        ok!(abi::doca_sync_event_task_wait_neq_set_conf(
            ev,
            cb(on_done),
            cb(on_error),
            2
        ));
        Fx { dev, ev, ctx, pe }
    }

    fn progress(&self) -> u8 {
        ffi!(abi::doca_pe_progress(self.pe))
    }

    fn value(&self) -> u64 {
        let mut v = 0;
        ok!(abi::doca_sync_event_get(self.ev, &mut v));
        v
    }

    fn teardown(self) {
        ok!(abi::doca_ctx_stop(self.ctx));
        ok!(abi::doca_sync_event_destroy(self.ev));
        ok!(abi::doca_pe_destroy(self.pe));
        close_dev(self.dev);
    }
}

fn wait_neq(ev: *mut abi::doca_sync_event, value: u64, user: u64) -> *mut abi::doca_task {
    let mut t = null_mut();
    ok!(abi::doca_sync_event_task_wait_neq_alloc_init(
        ev,
        value,
        u64::MAX,
        data(user),
        &mut t
    ));
    ffi!(abi::doca_sync_event_task_wait_neq_as_doca_task(t))
}

fn free(task: *mut abi::doca_task) {
    ffi!(abi::doca_task_free(task));
}

/// Whether `fd` is readable within `ms` milliseconds.
fn readable(fd: i32, ms: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, ms) == 1 }
}

#[test]
fn every_task_type_completes_through_progress() {
    let scope = Scope::new();
    let fx = Fx::new();
    ok!(abi::doca_ctx_start(fx.ctx));

    let mut got = 0u64;
    let mut get = null_mut();
    ok!(abi::doca_sync_event_task_get_alloc_init(
        fx.ev,
        &mut got,
        data(1),
        &mut get
    ));
    let mut set = null_mut();
    ok!(abi::doca_sync_event_task_notify_set_alloc_init(
        fx.ev,
        40,
        data(2),
        &mut set
    ));
    let mut fetched = 0u64;
    let mut add = null_mut();
    ok!(abi::doca_sync_event_task_notify_add_alloc_init(
        fx.ev,
        2,
        &mut fetched,
        data(3),
        &mut add
    ));
    assert_eq!(
        ffi!(abi::doca_sync_event_task_notify_add_get_inc_val(add)),
        2
    );

    let set_task = ffi!(abi::doca_sync_event_task_notify_set_as_doca_task(set));
    ok!(abi::doca_task_submit(set_task));
    assert_eq!(fx.progress(), 1);
    assert_eq!(fx.value(), 40);
    let add_task = ffi!(abi::doca_sync_event_task_notify_add_as_doca_task(add));
    ok!(abi::doca_task_submit(add_task));
    assert_eq!(fx.progress(), 1);
    assert_eq!((fx.value(), fetched), (42, 40));
    let get_task = ffi!(abi::doca_sync_event_task_get_as_doca_task(get));
    ok!(abi::doca_task_submit(get_task));
    fails!(BAD_STATE, abi::doca_task_submit(get_task));
    assert_eq!(fx.progress(), 1);
    assert_eq!(got, 42);
    assert_eq!(fx.progress(), 0, "nothing left to complete");
    assert_eq!(
        seen(),
        [
            (2, SUCCESS, false),
            (3, SUCCESS, false),
            (1, SUCCESS, false)
        ]
    );

    // Waits complete only once their condition holds.
    let mut eq = null_mut();
    ok!(abi::doca_sync_event_task_wait_eq_alloc_init(
        fx.ev,
        50,
        u64::MAX,
        data(4),
        &mut eq
    ));
    let eq_task = ffi!(abi::doca_sync_event_task_wait_eq_as_doca_task(eq));
    let neq = wait_neq(fx.ev, 42, 5);
    ok!(abi::doca_task_submit(eq_task));
    ok!(abi::doca_task_submit(neq));
    let mut n = 0;
    ok!(abi::doca_pe_get_num_inflight_tasks(fx.pe, &mut n));
    assert_eq!(n, 2);
    assert_eq!(fx.progress(), 0);
    ok!(abi::doca_sync_event_update_set(fx.ev, 43));
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(5, SUCCESS, false)]);
    ok!(abi::doca_sync_event_update_set(fx.ev, 50));
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(4, SUCCESS, false)]);
    ok!(abi::doca_ctx_get_num_inflight_tasks(fx.ctx, &mut n));
    assert_eq!(n, 0);

    // A completed task can be submitted again, with new values.
    ffi!(abi::doca_sync_event_task_wait_eq_set_wait_val(eq, 51));
    assert_eq!(ffi!(abi::doca_sync_event_task_wait_eq_get_wait_val(eq)), 51);
    ok!(abi::doca_task_submit(eq_task));
    ok!(abi::doca_sync_event_update_add(fx.ev, 1, &mut fetched));
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(4, SUCCESS, false)]);
    assert_eq!(ffi!(abi::doca_task_get_ctx(eq_task)), fx.ctx);
    assert_eq!(ffi!(abi::doca_task_get_user_data(eq_task).u64_), 4);

    for t in [get_task, set_task, add_task, eq_task, neq] {
        free(t);
    }
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn pools_and_lifecycle_rules() {
    let scope = Scope::new();
    let fx = Fx::new();
    let mut t = null_mut();
    // Allocation needs a running context.
    fails!(
        BAD_STATE,
        abi::doca_sync_event_task_wait_neq_alloc_init(fx.ev, 0, u64::MAX, data(0), &mut t)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_sync_event_task_wait_neq_set_conf(fx.ev, cb(on_done), cb(on_error), 0)
    );
    // The event is started through its context, not on its own as well.
    ok!(abi::doca_ctx_start(fx.ctx));
    fails!(BAD_STATE, abi::doca_sync_event_start(fx.ev));
    fails!(
        BAD_STATE,
        abi::doca_sync_event_task_wait_neq_set_conf(fx.ev, cb(on_done), cb(on_error), 4)
    );
    let a = wait_neq(fx.ev, 0, 1);
    let b = wait_neq(fx.ev, 0, 2);
    fails!(
        NO_MEMORY,
        abi::doca_sync_event_task_wait_neq_alloc_init(fx.ev, 0, u64::MAX, data(3), &mut t)
    );
    free(b);
    let b = wait_neq(fx.ev, 0, 2);

    // Stopping with tasks in flight: IN_PROGRESS, then the next progress
    // flushes them through the error callback and the context is idle.
    ok!(abi::doca_task_submit(a));
    fails!(IN_PROGRESS, abi::doca_ctx_stop(fx.ctx));
    fails!(BAD_STATE, abi::doca_task_submit(b));
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(1, abi::DOCA_ERROR_IO_FAILED, true)]);
    let mut st = 0;
    ok!(abi::doca_ctx_get_state(fx.ctx, &mut st));
    assert_eq!(st, abi::DOCA_CTX_STATE_IDLE);
    fails!(abi::DOCA_ERROR_IO_FAILED, abi::doca_task_get_status(a));
    free(a);
    free(b);
    ok!(abi::doca_sync_event_destroy(fx.ev));
    ok!(abi::doca_pe_destroy(fx.pe));
    close_dev(fx.dev);
    assert_no_leaks(&scope);
}

#[test]
fn the_notification_handle_wakes_a_sleeper_when_a_task_can_complete() {
    let scope = Scope::new();
    let fx = Fx::new();
    ok!(abi::doca_ctx_start(fx.ctx));
    let mut fd = -1;
    ok!(abi::doca_pe_get_notification_handle(fx.pe, &mut fd));
    assert!(fd >= 0);
    let task = wait_neq(fx.ev, 0, 7);
    ok!(abi::doca_task_submit(task));

    ok!(abi::doca_pe_request_notification(fx.pe));
    assert!(!readable(fd, 20), "nothing to complete yet");
    let ev = fx.ev as usize;
    let writer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        ok!(abi::doca_sync_event_update_set(
            ev as *mut abi::doca_sync_event,
            1
        ));
    });
    assert!(readable(fd, 5000), "the change did not wake the sleeper");
    writer.join().unwrap();
    ok!(abi::doca_pe_clear_notification(fx.pe, fd));
    assert!(!readable(fd, 0), "cleared");
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(7, SUCCESS, false)]);

    // Arming while a task is already ready fires at once.
    ffi!(abi::doca_sync_event_task_wait_neq_set_wait_val(
        task.cast(),
        0
    ));
    ok!(abi::doca_task_submit(task));
    ok!(abi::doca_pe_request_notification(fx.pe));
    assert!(readable(fd, 0));
    ok!(abi::doca_pe_clear_notification(fx.pe, fd));
    fails!(
        INVALID_VALUE,
        abi::doca_pe_clear_notification(fx.pe, fd + 1000)
    );
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(7, SUCCESS, false)]);
    free(task);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn the_profile_can_turn_tasks_off() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let info = devinfo(dev);
    ok!(abi::doca_sync_event_cap_task_wait_neq_is_supported(info));
    close_dev(dev);
    scope.set_profile(bf3_profile(|d| d.sync_event_tasks = false));
    let dev = open_dev(BF3);
    let info = devinfo(dev);
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_cap_task_wait_neq_is_supported(info)
    );
    fails!(
        NOT_SUPPORTED,
        abi::doca_sync_event_cap_task_get_is_supported(info)
    );
    close_dev(dev);
    assert_no_leaks(&scope);
}
