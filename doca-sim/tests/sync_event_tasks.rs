//! Sync events driven as DOCA contexts: the five task types configured,
//! allocated, submitted and completed by `doca_pe_progress`, the pool bound,
//! the lifecycle rules, flushing on stop, the notification handle (an eventfd
//! readable once armed and a task can complete), and the capability switch of
//! the profile.
//!
//! Each task type is described once in [`TYPES`] (its configuration,
//! allocation, accessors, capability query and what completing it does); the
//! same assertions run for every type, in one module of tests per type.

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

/// Configures one task type (its `*_set_conf`) with `on_done` / `on_error`
/// and a pool of `n` tasks.
fn configure<F>(
    set_conf: unsafe extern "C" fn(*mut abi::doca_sync_event, F, F, u32) -> Code,
    ev: *mut abi::doca_sync_event,
    n: u32,
) -> Code {
    ffi!(set_conf(ev, cb(on_done), cb(on_error), n))
}

fn data(v: u64) -> abi::doca_data {
    abi::doca_data { u64_: v }
}

/// What a destination holds until a task writes it.
const UNWRITTEN: u64 = 0xdead;

/// A task's pair of accessors for one of its parameters.
struct Accessors<T> {
    set: fn(*mut abi::doca_task, T),
    get: fn(*mut abi::doca_task) -> T,
}

/// What completing a task does.
enum Effect {
    /// It completes on the next progress call; the event then holds
    /// `event(v, arg)`, where `v` is the value it held before, and the task
    /// wrote `written(v)` to its destination, if it has one.
    AtOnce {
        event: fn(u64, u64) -> u64,
        written: Option<fn(u64) -> u64>,
    },
    /// It completes on the first progress call once the event holds
    /// `until(arg)`, a value above the one the task was given `arg` for.
    Waits { until: fn(u64) -> u64 },
}

/// One task type of `doca_sync_event.h`, through its own functions. A task is
/// given a value `arg` (the value set, the increment, the value waited for;
/// get has none) and, for get and notify-add, a destination `out` (the value
/// read, the value before the add).
struct TaskType {
    name: &'static str,
    /// `*_set_conf` with `on_done` / `on_error` and a pool of this many tasks.
    configure: fn(*mut abi::doca_sync_event, u32) -> Code,
    /// `*_alloc_init` (the waits with a mask of all ones), and the task as a
    /// `doca_task` (`*_as_doca_task`).
    allocate: fn(*mut abi::doca_sync_event, u64, *mut u64, u64) -> (Code, *mut abi::doca_task),
    /// `doca_sync_event_cap_task_*_is_supported`.
    cap: fn(*const abi::doca_devinfo) -> Code,
    /// The `arg` a task is given while the event holds `v`: for a wait, one
    /// it does not complete at.
    arg_for: fn(u64) -> u64,
    arg: Option<Accessors<u64>>,
    out: Option<Accessors<*mut u64>>,
    effect: Effect,
}

/// The five task types, in the order of their configurations.
const TYPES: [&TaskType; 5] = [&GET, &NOTIFY_SET, &NOTIFY_ADD, &WAIT_EQ, &WAIT_NEQ];

const GET: TaskType = TaskType {
    name: "get",
    configure: |ev, n| configure(abi::doca_sync_event_task_get_set_conf, ev, n),
    allocate: |ev, _, out, user| {
        let mut t = null_mut();
        let err = ffi!(abi::doca_sync_event_task_get_alloc_init(
            ev,
            out,
            data(user),
            &mut t
        ));
        (err, ffi!(abi::doca_sync_event_task_get_as_doca_task(t)))
    },
    cap: |info| ffi!(abi::doca_sync_event_cap_task_get_is_supported(info)),
    arg_for: |_| 0,
    arg: None,
    out: Some(Accessors {
        set: |t, p| ffi!(abi::doca_sync_event_task_get_set_ret_val_ptr(t.cast(), p)),
        get: |t| ffi!(abi::doca_sync_event_task_get_get_ret_val_ptr(t.cast())),
    }),
    effect: Effect::AtOnce {
        event: |v, _| v,
        written: Some(|v| v),
    },
};

const NOTIFY_SET: TaskType = TaskType {
    name: "notify_set",
    configure: |ev, n| configure(abi::doca_sync_event_task_notify_set_set_conf, ev, n),
    allocate: |ev, arg, _, user| {
        let mut t = null_mut();
        let err = ffi!(abi::doca_sync_event_task_notify_set_alloc_init(
            ev,
            arg,
            data(user),
            &mut t
        ));
        (
            err,
            ffi!(abi::doca_sync_event_task_notify_set_as_doca_task(t)),
        )
    },
    cap: |info| ffi!(abi::doca_sync_event_cap_task_notify_set_is_supported(info)),
    arg_for: |v| v + 10,
    arg: Some(Accessors {
        set: |t, v| {
            ffi!(abi::doca_sync_event_task_notify_set_set_set_val(
                t.cast(),
                v
            ))
        },
        get: |t| ffi!(abi::doca_sync_event_task_notify_set_get_set_val(t.cast())),
    }),
    out: None,
    effect: Effect::AtOnce {
        event: |_, arg| arg,
        written: None,
    },
};

const NOTIFY_ADD: TaskType = TaskType {
    name: "notify_add",
    configure: |ev, n| configure(abi::doca_sync_event_task_notify_add_set_conf, ev, n),
    allocate: |ev, arg, out, user| {
        let mut t = null_mut();
        let err = ffi!(abi::doca_sync_event_task_notify_add_alloc_init(
            ev,
            arg,
            out,
            data(user),
            &mut t
        ));
        (
            err,
            ffi!(abi::doca_sync_event_task_notify_add_as_doca_task(t)),
        )
    },
    cap: |info| ffi!(abi::doca_sync_event_cap_task_notify_add_is_supported(info)),
    arg_for: |v| v % 10 + 1,
    arg: Some(Accessors {
        set: |t, v| {
            ffi!(abi::doca_sync_event_task_notify_add_set_inc_val(
                t.cast(),
                v
            ))
        },
        get: |t| ffi!(abi::doca_sync_event_task_notify_add_get_inc_val(t.cast())),
    }),
    out: Some(Accessors {
        set: |t, p| {
            ffi!(abi::doca_sync_event_task_notify_add_set_fetched_val_ptr(
                t.cast(),
                p
            ))
        },
        get: |t| {
            ffi!(abi::doca_sync_event_task_notify_add_get_fetched_val_ptr(
                t.cast()
            ))
        },
    }),
    effect: Effect::AtOnce {
        event: |v, arg| v + arg,
        written: Some(|v| v),
    },
};

const WAIT_EQ: TaskType = TaskType {
    name: "wait_eq",
    configure: |ev, n| configure(abi::doca_sync_event_task_wait_eq_set_conf, ev, n),
    allocate: |ev, arg, _, user| {
        let mut t = null_mut();
        let err = ffi!(abi::doca_sync_event_task_wait_eq_alloc_init(
            ev,
            arg,
            u64::MAX,
            data(user),
            &mut t
        ));
        (err, ffi!(abi::doca_sync_event_task_wait_eq_as_doca_task(t)))
    },
    cap: |info| ffi!(abi::doca_sync_event_cap_task_wait_eq_is_supported(info)),
    arg_for: |v| v + 5,
    arg: Some(Accessors {
        set: |t, v| ffi!(abi::doca_sync_event_task_wait_eq_set_wait_val(t.cast(), v)),
        get: |t| ffi!(abi::doca_sync_event_task_wait_eq_get_wait_val(t.cast())),
    }),
    out: None,
    effect: Effect::Waits { until: |arg| arg },
};

const WAIT_NEQ: TaskType = TaskType {
    name: "wait_neq",
    configure: |ev, n| configure(abi::doca_sync_event_task_wait_neq_set_conf, ev, n),
    allocate: |ev, arg, _, user| {
        let mut t = null_mut();
        let err = ffi!(abi::doca_sync_event_task_wait_neq_alloc_init(
            ev,
            arg,
            u64::MAX,
            data(user),
            &mut t
        ));
        (
            err,
            ffi!(abi::doca_sync_event_task_wait_neq_as_doca_task(t)),
        )
    },
    cap: |info| ffi!(abi::doca_sync_event_cap_task_wait_neq_is_supported(info)),
    arg_for: |v| v,
    arg: Some(Accessors {
        set: |t, v| ffi!(abi::doca_sync_event_task_wait_neq_set_wait_val(t.cast(), v)),
        get: |t| ffi!(abi::doca_sync_event_task_wait_neq_get_wait_val(t.cast())),
    }),
    out: None,
    effect: Effect::Waits {
        until: |arg| arg + 1,
    },
};

impl TaskType {
    /// Allocates a task, asserting that `*_alloc_init` answers `want`.
    fn alloc(
        &self,
        fx: &Fx,
        arg: u64,
        out: *mut u64,
        user: u64,
        want: Code,
    ) -> *mut abi::doca_task {
        let (err, task) = (self.allocate)(fx.ev, arg, out, user);
        expect(err, want, &format!("{} alloc_init", self.name));
        task
    }

    /// The task's `arg` as its getter reads it (0 for get, which has none).
    fn arg_of(&self, task: *mut abi::doca_task) -> u64 {
        self.arg.as_ref().map_or(0, |a| (a.get)(task))
    }
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
        for ty in TYPES {
            expect(
                (ty.configure)(ev, 2),
                SUCCESS,
                &format!("{} set_conf", ty.name),
            );
        }
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

    fn in_flight(&self) -> (usize, usize) {
        let (mut pe, mut ctx) = (0, 0);
        ok!(abi::doca_pe_get_num_inflight_tasks(self.pe, &mut pe));
        ok!(abi::doca_ctx_get_num_inflight_tasks(self.ctx, &mut ctx));
        (pe, ctx)
    }

    fn teardown(self) {
        ok!(abi::doca_ctx_stop(self.ctx));
        ok!(abi::doca_sync_event_destroy(self.ev));
        ok!(abi::doca_pe_destroy(self.pe));
        close_dev(self.dev);
    }
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

/// A task completes through `doca_pe_progress` with its effect, its user data
/// and its context; once completed it can be submitted again with a new value
/// (through its setter) and a new destination.
fn completes_through_progress(ty: &TaskType) {
    let scope = Scope::new();
    let fx = Fx::new();
    ok!(abi::doca_ctx_start(fx.ctx));
    ok!(abi::doca_sync_event_update_set(fx.ev, 40));
    let mut outs = [UNWRITTEN; 2];
    let task = ty.alloc(&fx, (ty.arg_for)(40), &raw mut outs[0], 7, SUCCESS);
    assert_eq!(ty.arg_of(task), (ty.arg_for)(40));
    if let Some(out) = &ty.out {
        assert_eq!((out.get)(task), &raw mut outs[0]);
    }

    let mut want_outs = [UNWRITTEN; 2];
    for round in 0..2 {
        let before = fx.value();
        if round == 1 {
            if let Some(arg) = &ty.arg {
                (arg.set)(task, (ty.arg_for)(before));
                assert_eq!((arg.get)(task), (ty.arg_for)(before));
            }
            if let Some(out) = &ty.out {
                (out.set)(task, &raw mut outs[1]);
                assert_eq!((out.get)(task), &raw mut outs[1]);
            }
        }
        let arg = ty.arg_of(task);
        ok!(abi::doca_task_submit(task));
        fails!(BAD_STATE, abi::doca_task_submit(task));
        let (value, written) = match ty.effect {
            Effect::AtOnce { event, written } => (event(before, arg), written.map(|w| w(before))),
            Effect::Waits { until } => {
                // Waits complete only once their condition holds.
                assert_eq!(fx.progress(), 0);
                assert_eq!(fx.in_flight(), (1, 1));
                let target = until(arg);
                let mut fetched = 0;
                ok!(abi::doca_sync_event_update_add(
                    fx.ev,
                    target - before,
                    &mut fetched
                ));
                assert_eq!(fetched, before);
                (target, None)
            }
        };
        assert_eq!(fx.progress(), 1);
        assert_eq!(seen(), [(7, SUCCESS, false)]);
        assert_eq!(fx.value(), value);
        if let Some(w) = written {
            want_outs[round] = w;
        }
        assert_eq!(outs, want_outs, "what the task wrote, where");
        assert_eq!(fx.progress(), 0, "nothing left to complete");
        assert_eq!(fx.in_flight(), (0, 0));
    }
    assert_eq!(ffi!(abi::doca_task_get_ctx(task)), fx.ctx);
    assert_eq!(ffi!(abi::doca_task_get_user_data(task).u64_), 7);

    free(task);
    fx.teardown();
    assert_no_leaks(&scope);
}

/// The pool bound, the context states allocation and configuration need, and
/// stopping with a task in flight: IN_PROGRESS, then the next progress flushes
/// it through the error callback, without its effect, and the context is idle.
fn pools_and_lifecycle_rules(ty: &TaskType) {
    let scope = Scope::new();
    let fx = Fx::new();
    let mut out = UNWRITTEN;
    let arg = (ty.arg_for)(0);
    // Allocation needs a running context.
    ty.alloc(&fx, arg, &mut out, 0, BAD_STATE);
    expect((ty.configure)(fx.ev, 0), INVALID_VALUE, "a pool of 0");
    // The event is started through its context, not on its own as well.
    ok!(abi::doca_ctx_start(fx.ctx));
    fails!(BAD_STATE, abi::doca_sync_event_start(fx.ev));
    expect(
        (ty.configure)(fx.ev, 4),
        BAD_STATE,
        "set_conf while running",
    );
    let a = ty.alloc(&fx, arg, &mut out, 1, SUCCESS);
    let b = ty.alloc(&fx, arg, &mut out, 2, SUCCESS);
    ty.alloc(&fx, arg, &mut out, 3, NO_MEMORY);
    free(b);
    let b = ty.alloc(&fx, arg, &mut out, 2, SUCCESS);

    ok!(abi::doca_task_submit(a));
    fails!(IN_PROGRESS, abi::doca_ctx_stop(fx.ctx));
    fails!(BAD_STATE, abi::doca_task_submit(b));
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(1, abi::DOCA_ERROR_IO_FAILED, true)]);
    let mut st = 0;
    ok!(abi::doca_ctx_get_state(fx.ctx, &mut st));
    assert_eq!(st, abi::DOCA_CTX_STATE_IDLE);
    fails!(abi::DOCA_ERROR_IO_FAILED, abi::doca_task_get_status(a));
    // The event is read while its context runs: started again.
    ok!(abi::doca_ctx_start(fx.ctx));
    assert_eq!(
        (fx.value(), out),
        (0, UNWRITTEN),
        "a flushed task does nothing"
    );
    free(a);
    free(b);
    fx.teardown();
    assert_no_leaks(&scope);
}

/// The profile's `sync_event_tasks` switch is the type's capability.
fn the_profile_can_turn_it_off(ty: &TaskType) {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    expect((ty.cap)(devinfo(dev)), SUCCESS, "cap by default");
    close_dev(dev);
    scope.set_profile(bf3_profile(|d| d.sync_event_tasks = false));
    let dev = open_dev(BF3);
    expect(
        (ty.cap)(devinfo(dev)),
        NOT_SUPPORTED,
        "cap with sync_event_tasks = false",
    );
    close_dev(dev);
    assert_no_leaks(&scope);
}

/// One module of tests per task type, each running the assertions above.
macro_rules! tests_per_type {
    ($($module:ident: $ty:ident),* $(,)?) => {$(
        mod $module {
            #[test]
            fn completes_through_progress() {
                super::completes_through_progress(&super::$ty);
            }

            #[test]
            fn pools_and_lifecycle_rules() {
                super::pools_and_lifecycle_rules(&super::$ty);
            }

            #[test]
            fn the_profile_can_turn_it_off() {
                super::the_profile_can_turn_it_off(&super::$ty);
            }
        }
    )*};
}

tests_per_type! {
    get: GET,
    notify_set: NOTIFY_SET,
    notify_add: NOTIFY_ADD,
    wait_eq: WAIT_EQ,
    wait_neq: WAIT_NEQ,
}

#[test]
fn ready_tasks_of_every_type_complete_in_one_progress_in_submission_order() {
    let scope = Scope::new();
    let fx = Fx::new();
    ok!(abi::doca_ctx_start(fx.ctx));
    ok!(abi::doca_sync_event_update_set(fx.ev, 40));
    let at_once: Vec<&TaskType> = TYPES
        .into_iter()
        .filter(|t| matches!(t.effect, Effect::AtOnce { .. }))
        .collect();
    let mut outs = vec![UNWRITTEN; at_once.len()];
    let tasks: Vec<_> = at_once
        .iter()
        .zip(outs.iter_mut())
        .enumerate()
        .map(|(i, (ty, out))| ty.alloc(&fx, (ty.arg_for)(40), out, i as u64, SUCCESS))
        .collect();
    for &t in &tasks {
        ok!(abi::doca_task_submit(t));
    }
    assert_eq!(fx.in_flight(), (tasks.len(), tasks.len()));
    assert_eq!(fx.progress(), 1);
    assert_eq!(fx.in_flight(), (0, 0));
    // Each saw the value the ones before it left.
    let mut value = 40;
    let mut want_outs = vec![UNWRITTEN; at_once.len()];
    for (i, ty) in at_once.iter().enumerate() {
        let Effect::AtOnce { event, written } = ty.effect else {
            unreachable!("filtered above")
        };
        if let Some(w) = written {
            want_outs[i] = w(value);
        }
        value = event(value, (ty.arg_for)(40));
    }
    assert_eq!(fx.value(), value);
    assert_eq!(outs, want_outs);
    let want_seen: Vec<_> = (0..tasks.len() as u64)
        .map(|i| (i, SUCCESS, false))
        .collect();
    assert_eq!(seen(), want_seen);
    for t in tasks {
        free(t);
    }
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn each_wait_completes_only_when_its_own_condition_holds() {
    let scope = Scope::new();
    let fx = Fx::new();
    ok!(abi::doca_ctx_start(fx.ctx));
    ok!(abi::doca_sync_event_update_set(fx.ev, 42));
    let eq = WAIT_EQ.alloc(&fx, 50, null_mut(), 4, SUCCESS);
    let neq = WAIT_NEQ.alloc(&fx, 42, null_mut(), 5, SUCCESS);
    ok!(abi::doca_task_submit(eq));
    ok!(abi::doca_task_submit(neq));
    assert_eq!(fx.in_flight(), (2, 2));
    assert_eq!(fx.progress(), 0);
    ok!(abi::doca_sync_event_update_set(fx.ev, 43));
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(5, SUCCESS, false)]);
    ok!(abi::doca_sync_event_update_set(fx.ev, 50));
    assert_eq!(fx.progress(), 1);
    assert_eq!(seen(), [(4, SUCCESS, false)]);
    assert_eq!(fx.in_flight(), (0, 0));
    free(eq);
    free(neq);
    fx.teardown();
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
    let task = WAIT_NEQ.alloc(&fx, 0, null_mut(), 7, SUCCESS);
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
