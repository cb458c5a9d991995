//! The device-side API as kernels see it, beyond launches and threads: the
//! device log and trace (levels, log file, extended contexts), the cycle
//! counter, DPA handles, and a device-side event wait that gives up once its
//! context is fatal.

mod common;

use std::ffi::{c_char, c_int};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::time::Duration;

use common::*;

extern "C" {
    fn doca_dpa_dev_log(level: u32, format: *const c_char, ...);
    fn doca_dpa_dev_trace(a1: u64, a2: u64, a3: u64, a4: u64, a5: u64);
    fn doca_dpa_dev_trace_flush();
    fn doca_sim_dev_cycles() -> u64;
}

unsafe extern "C" fn chatty(_: *const u64) -> u64 {
    // SAFETY: device API of the sim, called from a kernel instance; the
    // format arguments match the format strings.
    unsafe {
        doca_dpa_dev_log(
            abi::DOCA_DPA_DEV_LOG_LEVEL_INFO,
            c"info %d %s\n".as_ptr(),
            42 as c_int,
            c"x".as_ptr(),
        );
        doca_dpa_dev_log(abi::DOCA_DPA_DEV_LOG_LEVEL_DEBUG, c"debug\n".as_ptr());
        doca_dpa_dev_log(abi::DOCA_DPA_DEV_LOG_LEVEL_ERROR, c"error\n".as_ptr());
        doca_dpa_dev_trace(1, 2, 3, 4, 5);
        doca_dpa_dev_trace_flush();
    }
    0
}

/// Runs `chatty` once on `dpa` (with `app` set) and returns the log file.
fn run_chatty(ctx: &Ctx, launch_on: *mut abi::doca_dpa, k: Func, log: &std::path::Path) -> String {
    let comp = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_dpa(
        comp, launch_on
    ));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(
        comp, ctx.dev
    ));
    ok!(abi::doca_sync_event_start(comp));
    ok!(abi::doca_dpa_kernel_launch_update_set(
        launch_on,
        null_mut(),
        0,
        comp,
        1,
        1,
        f(k)
    ));
    wait_value(comp, 1);
    drop_event(comp);
    std::fs::read_to_string(log).unwrap()
}

#[test]
fn the_device_log_follows_the_level_and_the_file() {
    let scope = Scope::new();
    let k = entry!();
    let app = app(c"logs", vec![global(c"chatty", k, chatty)]);
    let dir = std::env::temp_dir().join(format!("doca-sim-devlog-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (level, name, want, unwanted) in [
        (
            abi::DOCA_DPA_DEV_LOG_LEVEL_INFO,
            "info.log",
            &["info 42 x\nerror\n"][..],
            &["debug", "trace"][..],
        ),
        (
            abi::DOCA_DPA_DEV_LOG_LEVEL_DEBUG,
            "debug.log",
            // Exactly the kernel's text, in order: no prefix, no added newline.
            &["info 42 x\ndebug\nerror\ntrace 0x1 0x2 0x3 0x4 0x5\n"][..],
            &[][..],
        ),
        (
            abi::DOCA_DPA_DEV_LOG_LEVEL_ERROR,
            "error.log",
            &["error\n"][..],
            &["info", "debug", "trace"][..],
        ),
        (
            abi::DOCA_DPA_DEV_LOG_LEVEL_DISABLE,
            "disabled.log",
            &[][..],
            &["error", "info"][..],
        ),
    ] {
        let log = dir.join(name);
        let path = std::ffi::CString::new(log.to_str().unwrap()).unwrap();
        let ctx = Ctx::created();
        ok!(abi::doca_dpa_set_log_level(ctx.dpa, level));
        ok!(abi::doca_dpa_log_file_set_path(ctx.dpa, path.as_ptr()));
        ok!(abi::doca_dpa_set_app(ctx.dpa, app));
        ok!(abi::doca_dpa_start(ctx.dpa));
        let text = run_chatty(&ctx, ctx.dpa, k, &log);
        for line in want {
            assert!(
                text.contains(line),
                "{name}: {line:?} missing from {text:?}"
            );
        }
        for word in unwanted {
            assert!(!text.contains(word), "{name}: {word:?} in {text:?}");
        }
        ctx.teardown();
    }

    // An extended context logs with its base's level and file.
    let log = dir.join("extended.log");
    let path = std::ffi::CString::new(log.to_str().unwrap()).unwrap();
    let base = Ctx::created();
    ok!(abi::doca_dpa_set_log_level(
        base.dpa,
        abi::DOCA_DPA_DEV_LOG_LEVEL_ERROR
    ));
    ok!(abi::doca_dpa_log_file_set_path(base.dpa, path.as_ptr()));
    ok!(abi::doca_dpa_set_app(base.dpa, app));
    ok!(abi::doca_dpa_start(base.dpa));
    let other = open_dev(BF3);
    let mut ext = null_mut();
    ok!(abi::doca_dpa_device_extend(base.dpa, other, &mut ext));
    let mut level = 0;
    ok!(abi::doca_dpa_get_log_level(ext, &mut level));
    let text = run_chatty(&base, ext, k, &log);
    assert_eq!(text, "error\n");
    assert!(!text.contains("info"), "{text:?}");
    ok!(abi::doca_dpa_destroy(ext));
    close_dev(other);
    base.teardown();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_no_leaks(&scope);
}

#[test]
fn cycles_count_up() {
    let _scope = Scope::new();
    let a = ffi!(doca_sim_dev_cycles());
    std::thread::sleep(Duration::from_millis(2));
    let b = ffi!(doca_sim_dev_cycles());
    // Model choice: nanoseconds of the host's monotonic clock.
    assert!(b >= a + 2_000_000, "{a} then {b}");
}

#[test]
fn dpa_handles_are_tagged_numbers() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let ev = ctx.comp_event();
    let mut comp = null_mut();
    ok!(abi::doca_dpa_completion_create(ctx.dpa, 2, &mut comp));
    ok!(abi::doca_dpa_completion_start(comp));
    let mut handles = [0u64; 3];
    ok!(abi::doca_dpa_get_dpa_handle(ctx.dpa, &mut handles[0]));
    handles[1] = ctx.event_handle(ev);
    ok!(abi::doca_dpa_completion_get_dpa_handle(
        comp,
        &mut handles[2]
    ));
    // Model choice: opaque non-zero numbers with a recognisable high half.
    for h in handles {
        assert_eq!(h >> 48, 0xD0CA, "{h:#x}");
    }
    assert!(handles[0] != handles[1] && handles[1] != handles[2]);
    ok!(abi::doca_dpa_completion_stop(comp));
    ok!(abi::doca_dpa_completion_destroy(comp));
    drop_event(ev);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_device_wait_gives_up_when_the_context_turns_fatal() {
    let scope = Scope::new();
    // Without memory checking, a block freed while kernels run stays
    // allocated (quarantined) until none runs: the test sees the waiting
    // instance end through it. (A checked heap fences it at once instead.)
    scope.set_profile(Profile {
        memcheck: false,
        ..Profile::default()
    });
    static WAIT: AtomicU64 = AtomicU64::new(0);
    static AFTER: AtomicU32 = AtomicU32::new(0);
    static GO: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn wait_or_fault(_: *const u64) -> u64 {
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe {
            if doca_dpa_dev_thread_rank() == 0 {
                // Never satisfied: only the fatal context ends this wait.
                doca_dpa_dev_sync_event_wait_gt(WAIT.load(SeqCst), 1000, u64::MAX);
                AFTER.store(1, SeqCst);
            } else {
                while GO.load(SeqCst) == 0 {
                    doca_dpa_dev_yield();
                }
                doca_sim_dev_fault(c"the other instance faults".as_ptr());
            }
        }
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"wait_fatal", vec![global(c"k", k, wait_or_fault)]));
    let wait = ctx.wait_event();
    WAIT.store(ctx.event_handle(wait), SeqCst);
    ok!(ctx.launch(null_mut(), 0, 2, k));
    // A block freed while the launch runs is quarantined until it ends.
    let mut block = 0;
    ok!(abi::doca_dpa_mem_alloc(ctx.dpa, 64, &mut block));
    ok!(abi::doca_dpa_mem_free(ctx.dpa, block));
    assert_eq!(scope.live_objects().get("dpa_heap_block"), Some(&1));
    GO.store(1, SeqCst);
    assert!(poll(PATIENCE, || ctx.peek() == BAD_STATE));
    assert!(
        poll(PATIENCE, || !scope
            .live_objects()
            .contains_key("dpa_heap_block")),
        "the waiting instance never ended"
    );
    assert_eq!(AFTER.load(SeqCst), 0, "the wait returned normally");
    drop_event(wait);
    ctx.teardown();
    assert_no_leaks(&scope);
}
