//! The sim's test hooks seen through the C ABI: fault injection by N-th call
//! and on every call (also on the variadic entry points), call counters and
//! the call log, live-object accounting per kind, scope isolation between
//! threads, and a fault sweep over a whole bring-up/teardown flow.

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::time::Duration;

use common::*;

#[test]
fn the_nth_call_fails_once() {
    let scope = Scope::new();
    scope
        .inject("doca_sync_event_create", Nth::At(2), NO_MEMORY)
        .unwrap();
    let a = new_event();
    let mut b = null_mut();
    fails!(NO_MEMORY, abi::doca_sync_event_create(&mut b));
    assert!(b.is_null(), "a failed call creates nothing");
    let c = new_event();
    assert_eq!(scope.injected(), 1);
    assert_eq!(scope.calls("doca_sync_event_create"), 3);
    assert_eq!(scope.live_objects().get("doca_sync_event"), Some(&2));
    ok!(abi::doca_sync_event_destroy(a));
    ok!(abi::doca_sync_event_destroy(c));
    assert_no_leaks(&scope);
}

#[test]
fn every_call_fails_until_the_faults_are_cleared() {
    let scope = Scope::new();
    let ctx = Ctx::created();
    ok!(abi::doca_dpa_set_app(ctx.dpa, noop_app()));
    scope.inject("doca_dpa_start", Nth::Every, DRIVER).unwrap();
    for _ in 0..3 {
        fails!(DRIVER, abi::doca_dpa_start(ctx.dpa));
    }
    // Other functions are untouched.
    let mut level = 0;
    ok!(abi::doca_dpa_get_log_level(ctx.dpa, &mut level));
    assert_eq!(scope.injected(), 3);
    scope.clear_faults();
    ok!(abi::doca_dpa_start(ctx.dpa));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_wildcard_fails_every_fallible_function() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    scope.inject("*", Nth::Every, BAD_STATE).unwrap();
    let mut ev = null_mut();
    fails!(BAD_STATE, abi::doca_sync_event_create(&mut ev));
    fails!(BAD_STATE, abi::doca_dev_close(dev));
    // Functions that cannot fail are only counted.
    assert!(!ffi!(abi::doca_dev_as_devinfo(dev)).is_null());
    assert_eq!(name(SUCCESS), "DOCA_SUCCESS");
    scope.clear_faults();
    close_dev(dev);
    assert_no_leaks(&scope);
}

#[test]
fn the_variadic_entry_points_take_faults_too() {
    let scope = Scope::new();
    static RUNS: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn count(_: *const u64) -> u64 {
        RUNS.fetch_add(1, SeqCst);
        5
    }
    let k = entry!();
    let r = entry!();
    let ctx = Ctx::started(app(
        c"hooked",
        vec![global(c"count", k, count), rpc(c"rpc", r, count)],
    ));
    scope
        .inject("doca_dpa_kernel_launch_update_set", Nth::At(1), DRIVER)
        .unwrap();
    scope
        .inject("doca_dpa_kernel_launch_update_add", Nth::Every, AGAIN)
        .unwrap();
    scope.inject("doca_dpa_rpc", Nth::At(1), DRIVER).unwrap();
    fails!(DRIVER, ctx.launch(null_mut(), 0, 1, k));
    fails!(
        AGAIN,
        abi::doca_dpa_kernel_launch_update_add(ctx.dpa, null_mut(), 0, null_mut(), 0, 1, f(k))
    );
    let mut v = 0;
    fails!(DRIVER, abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(RUNS.load(SeqCst), 0, "a failed launch runs nothing");
    ok!(abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    assert_eq!(v, 5);
    ok!(ctx.launch(null_mut(), 0, 1, k));
    assert!(poll(PATIENCE, || RUNS.load(SeqCst) == 2));
    assert_eq!(scope.calls("doca_dpa_kernel_launch_update_set"), 2);
    assert_eq!(scope.calls("doca_dpa_rpc"), 2);
    assert_eq!(scope.injected(), 3);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn counters_and_the_call_log() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let _ = ffi!(abi::doca_dev_as_devinfo(dev));
    let mut ev = null_mut();
    ok!(abi::doca_sync_event_create(&mut ev));
    fails!(BAD_STATE, abi::doca_sync_event_stop(ev));
    ok!(abi::doca_sync_event_destroy(ev));
    close_dev(dev);
    // The log holds the fallible calls in order; count-only calls are
    // counted but not logged.
    assert_eq!(
        scope.call_log(),
        vec![
            "doca_devinfo_create_list",
            "doca_dev_open",
            "doca_devinfo_destroy_list",
            "doca_sync_event_create",
            "doca_sync_event_stop",
            "doca_sync_event_destroy",
            "doca_dev_close",
        ]
    );
    assert_eq!(scope.calls("doca_dev_as_devinfo"), 1);
    assert_eq!(scope.calls("doca_sync_event_stop"), 1);
    assert_eq!(scope.calls("doca_dpa_start"), 0);
    scope.reset_calls();
    assert!(scope.call_log().is_empty());
    assert_eq!(scope.calls("doca_dev_open"), 0);
    assert_no_leaks(&scope);
}

#[test]
fn scopes_are_per_thread_unless_entered() {
    let scope = Scope::new();
    scope
        .inject("doca_pe_create", Nth::Every, NO_MEMORY)
        .unwrap();
    let mut pe = null_mut();
    fails!(NO_MEMORY, abi::doca_pe_create(&mut pe));
    // A thread outside the scope is not affected and not counted.
    let outside = std::thread::spawn(|| {
        let own = Scope::new();
        let pe = new_pe();
        ok!(abi::doca_pe_destroy(pe));
        own.calls("doca_pe_create")
    })
    .join()
    .unwrap();
    assert_eq!(outside, 1);
    assert_eq!(scope.calls("doca_pe_create"), 1);
    // A thread that enters the scope shares its faults, counters and
    // accounting.
    let handle = scope.handle();
    let created = std::thread::spawn(move || {
        let _in = handle.enter();
        let mut pe = null_mut();
        let failed = ffi!(abi::doca_pe_create(&mut pe));
        let mut ev = null_mut();
        ok!(abi::doca_sync_event_create(&mut ev));
        (failed, SendPtr(ev))
    })
    .join()
    .unwrap();
    assert_eq!(created.0, NO_MEMORY);
    assert_eq!(scope.calls("doca_pe_create"), 2);
    assert_eq!(scope.live_objects().get("doca_sync_event"), Some(&1));
    ok!(abi::doca_sync_event_destroy(created.1.ptr()));
    // A nested scope replaces the outer one on this thread until dropped.
    {
        let inner = Scope::new();
        let pe = new_pe();
        assert_eq!(inner.live_objects().get("doca_pe"), Some(&1));
        assert_eq!(scope.live_total(), 0);
        ok!(abi::doca_pe_destroy(pe));
        assert_no_leaks(&inner);
    }
    fails!(NO_MEMORY, abi::doca_pe_create(&mut pe));
    assert_no_leaks(&scope);
}

#[test]
fn live_objects_are_counted_by_kind() {
    let scope = Scope::new();
    let t = entry!();
    unsafe extern "C" fn nothing(_: *const u64) -> u64 {
        0
    }
    let ctx = Ctx::started(app(c"census", vec![thread_fn(c"t", t, nothing)]));
    let ev = ctx.comp_event();
    let mut thread = null_mut();
    ok!(abi::doca_dpa_thread_create(ctx.dpa, &mut thread));
    let mut comp = null_mut();
    ok!(abi::doca_dpa_completion_create(ctx.dpa, 4, &mut comp));
    let mut a = 0;
    let mut b = 0;
    ok!(abi::doca_dpa_mem_alloc(ctx.dpa, 16, &mut a));
    ok!(abi::doca_dpa_mem_alloc(ctx.dpa, 16, &mut b));
    let pe = new_pe();
    let got: Vec<_> = scope.live_objects().into_iter().collect();
    assert_eq!(
        got,
        vec![
            ("doca_dev", 1),
            ("doca_devinfo", 1),
            ("doca_dpa", 1),
            ("doca_dpa_completion", 1),
            ("doca_dpa_thread", 1),
            ("doca_pe", 1),
            ("doca_sync_event", 1),
            ("dpa_heap_block", 2),
        ]
    );
    assert_eq!(scope.live_total(), 9);
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_dpa_mem_free(ctx.dpa, a));
    ok!(abi::doca_dpa_mem_free(ctx.dpa, b));
    ok!(abi::doca_dpa_completion_destroy(comp));
    ok!(abi::doca_dpa_thread_destroy(thread));
    drop_event(ev);
    ctx.teardown();
    assert_no_leaks(&scope);
}

/// A bring-up and teardown flow that cleans up after the first failure and
/// returns it. Teardown calls are retried once, so a one-off fault there
/// does not leak.
fn flow(app: *mut abi::doca_dpa_app, k: Func) -> Result<(), Code> {
    fn check(code: Code) -> Result<(), Code> {
        if code == SUCCESS {
            Ok(())
        } else {
            Err(code)
        }
    }
    fn retry(first: &mut Option<Code>, call: impl Fn() -> Code) {
        let mut code = call();
        if code != SUCCESS {
            first.get_or_insert(code);
            code = call();
        }
        assert_eq!(code, SUCCESS, "a teardown call failed twice");
    }
    let mut list = null_mut();
    let mut n = 0;
    check(ffi!(abi::doca_devinfo_create_list(&mut list, &mut n)))?;
    // SAFETY: the list has `n >= 1` entries.
    let info = unsafe { *list };
    let mut dev = null_mut();
    let opened = check(ffi!(abi::doca_dev_open(info, &mut dev)));
    let mut first = opened.err();
    retry(&mut first, || ffi!(abi::doca_devinfo_destroy_list(list)));
    if let Some(code) = first.filter(|_| opened.is_err()) {
        return Err(code);
    }
    let mut dpa = null_mut();
    let result = (|| {
        check(ffi!(abi::doca_dpa_create(dev, &mut dpa)))?;
        check(ffi!(abi::doca_dpa_set_app(dpa, app)))?;
        check(ffi!(abi::doca_dpa_start(dpa)))?;
        let mut p = 0;
        check(ffi!(abi::doca_dpa_mem_alloc(dpa, 64, &mut p)))?;
        let freed = check(ffi!(abi::doca_dpa_mem_free(dpa, p)));
        if freed.is_err() {
            // Retried once, like the teardown calls.
            check(ffi!(abi::doca_dpa_mem_free(dpa, p)))?;
            return freed;
        }
        check(ffi!(abi::doca_dpa_kernel_launch_update_set(
            dpa,
            null_mut(),
            0,
            null_mut(),
            0,
            1,
            f(k)
        )))
    })();
    if let Err(code) = result {
        first.get_or_insert(code);
    }
    if !dpa.is_null() {
        retry(&mut first, || ffi!(abi::doca_dpa_destroy(dpa)));
    }
    retry(&mut first, || ffi!(abi::doca_dev_close(dev)));
    first.map_or(Ok(()), Err)
}

#[test]
fn a_fault_sweep_over_a_flow_leaks_nothing() {
    let k = entry!();
    unsafe extern "C" fn nothing(_: *const u64) -> u64 {
        0
    }
    let app = app(c"sweep", vec![global(c"k", k, nothing)]);
    let log = {
        let scope = Scope::new();
        flow(app, k).unwrap();
        assert_no_leaks(&scope);
        scope.call_log()
    };
    assert_eq!(log.len(), 11);
    // Fail each call of the flow in turn, by its occurrence number.
    for (i, function) in log.iter().enumerate() {
        let nth = log[..=i].iter().filter(|f| *f == function).count() as u64;
        let scope = Scope::new();
        scope.inject(function, Nth::At(nth), DRIVER).unwrap();
        assert_eq!(flow(app, k), Err(DRIVER), "fault in {function}#{nth}");
        assert_eq!(scope.injected(), 1, "{function}#{nth}");
        assert_no_leaks(&scope);
    }
}
