//! `doca_dpa_rpc`: blocking, returns the function's value, refuses kernels
//! that are not RPCs, and (model choice) turns an overrunning or faulting RPC
//! into DOCA_ERROR_DRIVER with a fatal context.

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
use std::time::{Duration, Instant};

use common::*;

#[test]
fn rpc_blocks_and_returns_the_value() {
    let scope = Scope::new();
    static DONE: AtomicU32 = AtomicU32::new(0);
    static SHAPE: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn answer(_: *const u64) -> u64 {
        std::thread::sleep(Duration::from_millis(60));
        // SAFETY: device API of the sim, called from the RPC.
        let (rank, n) = unsafe { (doca_dpa_dev_thread_rank(), doca_dpa_dev_num_threads()) };
        SHAPE.store(rank * 100 + n, SeqCst);
        DONE.store(1, SeqCst);
        0x1234_5678_9abc_def0
    }
    let r = entry!();
    let ctx = Ctx::started(app(c"rpc", vec![rpc(c"answer", r, answer)]));
    let mut value = 0u64;
    let start = Instant::now();
    ok!(abi::doca_dpa_rpc(ctx.dpa, f(r), &mut value));
    assert!(
        start.elapsed() >= Duration::from_millis(60),
        "did not block"
    );
    assert_eq!(DONE.load(SeqCst), 1, "returned before the function ended");
    assert_eq!(value, 0x1234_5678_9abc_def0);
    assert_eq!(SHAPE.load(SeqCst), 1, "rank 0 of 1 thread");
    assert_eq!(scope.calls("doca_dpa_rpc"), 1);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn rpc_arguments_are_validated() {
    let scope = Scope::new();
    unsafe extern "C" fn one(_: *const u64) -> u64 {
        1
    }
    let r = entry!();
    let k = entry!();
    let stranger = entry!();
    let ctx = Ctx::started(app(
        c"rpc_checks",
        vec![rpc(c"one", r, one), global(c"kernel", k, one)],
    ));
    let mut v = 0;
    fails!(INVALID_VALUE, abi::doca_dpa_rpc(ctx.dpa, f(k), &mut v));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_rpc(ctx.dpa, f(stranger), &mut v)
    );
    fails!(INVALID_VALUE, abi::doca_dpa_rpc(ctx.dpa, None, &mut v));
    fails!(INVALID_VALUE, abi::doca_dpa_rpc(ctx.dpa, f(r), null_mut()));
    fails!(INVALID_VALUE, abi::doca_dpa_rpc(null_mut(), f(r), &mut v));
    ok!(abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    assert_eq!(v, 1);
    ok!(abi::doca_dpa_stop(ctx.dpa));
    fails!(BAD_STATE, abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    ctx.destroy();
    assert_no_leaks(&scope);
}

#[test]
fn an_rpc_that_overruns_is_a_driver_error_and_fatal() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.kernel_max_run_time_ms = 150));
    static AFTER: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn spin(_: *const u64) -> u64 {
        loop {
            // SAFETY: device API of the sim; ends the RPC once fatal.
            unsafe { doca_dpa_dev_yield() };
            if AFTER.load(SeqCst) == u32::MAX {
                break;
            }
        }
        AFTER.store(1, SeqCst);
        0
    }
    let r = entry!();
    let ctx = Ctx::started(app(c"rpc_spin", vec![rpc(c"spin", r, spin)]));
    let mut v = 0;
    let cpu = cpu_time();
    fails!(DRIVER, abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    // The limit counts time on the EU, which a loaded host hands a yielding
    // thread slowly: the bound is on the CPU the RPC used, not on wall time.
    assert!(cpu_time() - cpu < RUN_TIME_PATIENCE);
    fails!(BAD_STATE, ctx.peek());
    fails!(BAD_STATE, abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    std::thread::sleep(Duration::from_millis(30));
    assert_eq!(AFTER.load(SeqCst), 0, "the RPC was ended");
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn an_rpc_that_faults_is_a_driver_error() {
    let scope = Scope::new();
    unsafe extern "C" fn fault(_: *const u64) -> u64 {
        // SAFETY: device API of the sim, called from the RPC.
        unsafe { doca_sim_dev_fault(c"rpc fault".as_ptr()) };
        7
    }
    let r = entry!();
    let ctx = Ctx::started(app(c"rpc_fault", vec![rpc(c"fault", r, fault)]));
    let mut v = 0;
    fails!(DRIVER, abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    assert_eq!(v, 0, "no value from a faulted RPC");
    fails!(BAD_STATE, ctx.peek());
    ctx.teardown();
    assert_no_leaks(&scope);
}

/// Model choice (`doca_sim::concurrent_context_uses`): a host call on the
/// context, on an object made on it, or on a context extending it, from another
/// thread while its RPC runs is counted; the same calls before and after the
/// RPC, and from the RPC's own thread, are not.
#[test]
fn calls_on_the_context_or_its_objects_during_an_rpc_are_counted() {
    let scope = Scope::new();
    static STARTED: AtomicU32 = AtomicU32::new(0);
    static RELEASE: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn hold(_: *const u64) -> u64 {
        STARTED.store(1, SeqCst);
        while RELEASE.load(SeqCst) == 0 {
            // SAFETY: device API of the sim, called from the RPC.
            unsafe { doca_dpa_dev_yield() };
        }
        0
    }
    let r = entry!();
    let ctx = Ctx::started(app(c"rpc_hold", vec![rpc(c"hold", r, hold)]));
    let mut thread = null_mut();
    ok!(abi::doca_dpa_thread_create(ctx.dpa, &mut thread));
    let other = open_dev(BF3);
    let mut extended = null_mut();
    ok!(abi::doca_dpa_device_extend(ctx.dpa, other, &mut extended));
    // A call on the context, one on its extension and one on its thread; raw
    // pointers as integers, to cross threads.
    let (dpa, extended, thread) = (ctx.dpa as usize, extended as usize, thread as usize);
    let use_all = move || {
        let mut limit = 0;
        for context in [dpa, extended] {
            ok!(abi::doca_dpa_get_kernel_max_run_time(
                context as *mut abi::doca_dpa,
                &mut limit
            ));
        }
        let (mut func, mut arg) = (None, 0);
        ok!(abi::doca_dpa_thread_get_func_arg(
            thread as *mut abi::doca_dpa_thread,
            &mut func,
            &mut arg
        ));
    };
    let before = doca_sim::concurrent_context_uses();
    use_all();
    assert_eq!(doca_sim::concurrent_context_uses(), before, "no RPC yet");
    std::thread::scope(|s| {
        s.spawn(|| {
            while STARTED.load(SeqCst) == 0 {
                std::thread::yield_now();
            }
            use_all();
            RELEASE.store(1, SeqCst);
        });
        let mut v = 0;
        ok!(abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    });
    assert_eq!(
        doca_sim::concurrent_context_uses(),
        before + 3,
        "the calls on the context, its extension and its thread, made during the RPC"
    );
    use_all();
    assert_eq!(
        doca_sim::concurrent_context_uses(),
        before + 3,
        "after the RPC"
    );
    ok!(abi::doca_dpa_thread_destroy(
        thread as *mut abi::doca_dpa_thread
    ));
    ok!(abi::doca_dpa_destroy(extended as *mut abi::doca_dpa));
    close_dev(other);
    ctx.teardown();
    assert_no_leaks(&scope);
}
