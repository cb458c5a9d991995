//! The DPA context (`doca_dpa_create` … `doca_dpa_destroy`): every row of
//! the misuse table of facts §8.3 that concerns the context itself, the
//! application table, log settings, limits, extended contexts and the sticky
//! fatal state seen through `doca_dpa_peek_at_last_error`.

mod common;

use std::ffi::{c_char, CStr};
use std::ptr::null_mut;

use common::*;

#[test]
fn lifecycle_and_model_choices() {
    let scope = Scope::new();
    let ctx = Ctx::created();
    // Model choice: starting without an application is BAD_STATE.
    fails!(BAD_STATE, abi::doca_dpa_start(ctx.dpa));
    // Stopping an idle context is BAD_STATE.
    fails!(BAD_STATE, abi::doca_dpa_stop(ctx.dpa));
    ok!(abi::doca_dpa_set_app(ctx.dpa, noop_app()));
    ok!(abi::doca_dpa_start(ctx.dpa));
    fails!(BAD_STATE, abi::doca_dpa_start(ctx.dpa));
    // Stop, then start again: handles are per start.
    let mut h1 = 0;
    let mut h2 = 0;
    ok!(abi::doca_dpa_get_dpa_handle(ctx.dpa, &mut h1));
    ok!(abi::doca_dpa_get_dpa_handle(ctx.dpa, &mut h2));
    assert_eq!(h1, h2);
    assert_ne!(h1, 0);
    ok!(abi::doca_dpa_stop(ctx.dpa));
    fails!(BAD_STATE, abi::doca_dpa_get_dpa_handle(ctx.dpa, &mut h2));
    ok!(abi::doca_dpa_start(ctx.dpa));
    ok!(abi::doca_dpa_get_dpa_handle(ctx.dpa, &mut h2));
    assert_ne!(h1, h2);
    let mut uar = 99;
    ok!(abi::doca_dpa_get_uar_id(ctx.dpa, &mut uar));
    assert_eq!(uar, 0, "model choice: UAR id 0");
    assert_eq!(scope.live_objects().get("doca_dpa"), Some(&1));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn create_refuses_bad_arguments() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let mut dpa = null_mut();
    fails!(INVALID_VALUE, abi::doca_dpa_create(dev, null_mut()));
    fails!(INVALID_VALUE, abi::doca_dpa_create(null_mut(), &mut dpa));
    close_dev(dev);
    let bf2 = open_dev(BF2);
    fails!(NOT_SUPPORTED, abi::doca_dpa_create(bf2, &mut dpa));
    close_dev(bf2);
    // Destroyed or never-created contexts are refused, and (model choice)
    // so are pointers to objects of another kind.
    fails!(INVALID_VALUE, abi::doca_dpa_destroy(null_mut()));
    let ev = new_event();
    fails!(INVALID_VALUE, abi::doca_dpa_destroy(ev.cast()));
    fails!(INVALID_VALUE, abi::doca_dpa_create(ev.cast(), &mut dpa));
    let live_dev = open_dev(BF3);
    fails!(INVALID_VALUE, abi::doca_sync_event_destroy(live_dev.cast()));
    fails!(INVALID_VALUE, abi::doca_dev_close(ev.cast()));
    close_dev(live_dev);
    ok!(abi::doca_sync_event_destroy(ev));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_peek_at_last_error(std::ptr::null())
    );
    assert_no_leaks(&scope);
}

#[test]
fn application_tables_are_validated() {
    let scope = Scope::new();
    let ctx = Ctx::created();
    fails!(INVALID_VALUE, abi::doca_dpa_set_app(ctx.dpa, null_mut()));
    // Model choice: a table without the sim's magic (e.g. a dpacc app) is
    // INVALID_VALUE, one of another layout version UNSUPPORTED_VERSION.
    let bogus = app_raw(SimApp {
        magic: 0x1234,
        abi_version: APP_ABI,
        num_kernels: 0,
        name: c"bogus".as_ptr(),
        kernels: std::ptr::null(),
    });
    fails!(INVALID_VALUE, abi::doca_dpa_set_app(ctx.dpa, bogus));
    let future = app_raw(SimApp {
        magic: APP_MAGIC,
        abi_version: APP_ABI + 1,
        num_kernels: 0,
        name: c"future".as_ptr(),
        kernels: std::ptr::null(),
    });
    fails!(UNSUPPORTED_VERSION, abi::doca_dpa_set_app(ctx.dpa, future));

    // Model choice: get_app before set_app is BAD_STATE.
    let mut got = null_mut();
    fails!(BAD_STATE, abi::doca_dpa_get_app(ctx.dpa, &mut got));
    let app = noop_app();
    ok!(abi::doca_dpa_set_app(ctx.dpa, app));
    ok!(abi::doca_dpa_get_app(ctx.dpa, &mut got));
    assert_eq!(got, app);

    // The name's length is in/out; a small buffer is INVALID_VALUE and
    // reports the size needed.
    let mut buf = [0 as c_char; 32];
    let mut len = 3u32;
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_app_get_name(app, buf.as_mut_ptr(), &mut len)
    );
    assert_eq!(len, 9, "\"noop_app\" and its NUL");
    len = buf.len() as u32;
    ok!(abi::doca_dpa_app_get_name(app, buf.as_mut_ptr(), &mut len));
    // SAFETY: NUL-terminated by the sim.
    assert_eq!(unsafe { CStr::from_ptr(buf.as_ptr()) }, c"noop_app");
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_app_get_name(app, buf.as_mut_ptr(), null_mut())
    );
    ctx.destroy();
    assert_no_leaks(&scope);
}

fn read_path(
    get: unsafe extern "C" fn(*mut abi::doca_dpa, *mut c_char, *mut u32) -> Code,
    dpa: *mut abi::doca_dpa,
) -> String {
    let mut buf = [0 as c_char; 512];
    let mut len = buf.len() as u32;
    ok!(get(dpa, buf.as_mut_ptr(), &mut len));
    // SAFETY: NUL-terminated by the sim.
    let text = unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy();
    assert_eq!(len as usize, text.len() + 1);
    text.into_owned()
}

#[test]
fn log_settings_before_start() {
    let scope = Scope::new();
    let ctx = Ctx::created();
    let mut level = 0;
    ok!(abi::doca_dpa_get_log_level(ctx.dpa, &mut level));
    assert_eq!(level, abi::DOCA_DPA_DEV_LOG_LEVEL_INFO, "default level");
    ok!(abi::doca_dpa_set_log_level(
        ctx.dpa,
        abi::DOCA_DPA_DEV_LOG_LEVEL_DEBUG
    ));
    ok!(abi::doca_dpa_get_log_level(ctx.dpa, &mut level));
    assert_eq!(level, abi::DOCA_DPA_DEV_LOG_LEVEL_DEBUG);
    fails!(INVALID_VALUE, abi::doca_dpa_set_log_level(ctx.dpa, 12345));

    // Default paths are empty (stdout).
    assert_eq!(read_path(abi::doca_dpa_log_file_get_path, ctx.dpa), "");
    let dir = std::env::temp_dir().join(format!("doca-sim-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("dpa.log");
    let trace = dir.join("dpa.trace");
    let log_c = std::ffi::CString::new(log.to_str().unwrap()).unwrap();
    let trace_c = std::ffi::CString::new(trace.to_str().unwrap()).unwrap();
    ok!(abi::doca_dpa_log_file_set_path(ctx.dpa, log_c.as_ptr()));
    ok!(abi::doca_dpa_trace_file_set_path(ctx.dpa, trace_c.as_ptr()));
    assert!(log.exists(), "DOCA opens the file when the path is set");
    assert_eq!(
        read_path(abi::doca_dpa_log_file_get_path, ctx.dpa),
        log.to_str().unwrap()
    );
    assert_eq!(
        read_path(abi::doca_dpa_trace_file_get_path, ctx.dpa),
        trace.to_str().unwrap()
    );
    let mut small = [0 as c_char; 4];
    let mut len = 4u32;
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_log_file_get_path(ctx.dpa, small.as_mut_ptr(), &mut len)
    );
    assert_eq!(len as usize, log.to_str().unwrap().len() + 1);
    fails!(
        OPERATING_SYSTEM,
        abi::doca_dpa_log_file_set_path(ctx.dpa, c"/nonexistent-doca-sim-dir/x.log".as_ptr())
    );
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_trace_file_set_path(ctx.dpa, std::ptr::null())
    );
    ctx.destroy();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_no_leaks(&scope);
}

#[test]
fn configuration_after_start_is_bad_state() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    fails!(BAD_STATE, abi::doca_dpa_set_app(ctx.dpa, noop_app()));
    fails!(
        BAD_STATE,
        abi::doca_dpa_set_log_level(ctx.dpa, abi::DOCA_DPA_DEV_LOG_LEVEL_ERROR)
    );
    let path = std::env::temp_dir().join("doca-sim-never-written.log");
    let path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    fails!(
        BAD_STATE,
        abi::doca_dpa_log_file_set_path(ctx.dpa, path.as_ptr())
    );
    fails!(
        BAD_STATE,
        abi::doca_dpa_trace_file_set_path(ctx.dpa, path.as_ptr())
    );
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn device_operations_before_start_are_bad_state() {
    let scope = Scope::new();
    unsafe extern "C" fn zero(_: *const u64) -> u64 {
        0
    }
    let k = entry!();
    let r = entry!();
    let app = app(
        c"before_start",
        vec![global(c"k", k, zero), rpc(c"r", r, zero)],
    );
    let ctx = Ctx::created();
    // Without an application even the kernel lookup fails.
    fails!(BAD_STATE, ctx.launch(null_mut(), 0, 1, k));
    ok!(abi::doca_dpa_set_app(ctx.dpa, app));
    let mut v = 0u64;
    let mut byte = 0u8;
    let mut ht = null_mut();
    fails!(BAD_STATE, ctx.launch(null_mut(), 0, 1, k));
    fails!(
        BAD_STATE,
        abi::doca_dpa_kernel_launch_update_add(ctx.dpa, null_mut(), 0, null_mut(), 0, 1, f(k))
    );
    fails!(BAD_STATE, abi::doca_dpa_rpc(ctx.dpa, f(r), &mut v));
    fails!(BAD_STATE, abi::doca_dpa_mem_alloc(ctx.dpa, 64, &mut v));
    fails!(BAD_STATE, abi::doca_dpa_mem_free(ctx.dpa, 0x1000));
    fails!(
        BAD_STATE,
        abi::doca_dpa_h2d_memcpy(ctx.dpa, 0x1000, (&mut byte as *mut u8).cast(), 1)
    );
    fails!(
        BAD_STATE,
        abi::doca_dpa_d2h_memcpy(ctx.dpa, (&mut byte as *mut u8).cast(), 0x1000, 1)
    );
    fails!(BAD_STATE, abi::doca_dpa_memset(ctx.dpa, 0x1000, 0, 1));
    fails!(
        BAD_STATE,
        abi::doca_dpa_hash_table_create(ctx.dpa, 8, &mut ht)
    );
    fails!(BAD_STATE, abi::doca_dpa_get_dpa_handle(ctx.dpa, &mut v));
    let mut uar = 0u32;
    fails!(BAD_STATE, abi::doca_dpa_get_uar_id(ctx.dpa, &mut uar));
    ctx.destroy();
    assert_no_leaks(&scope);
}

#[test]
fn limits_match_the_profile() {
    let scope = Scope::new();
    let read = |dpa: *mut abi::doca_dpa| {
        let (mut threads, mut cores, mut eus, mut total) = (0, 0, 0, 0);
        let mut time = 0;
        ok!(abi::doca_dpa_get_max_threads_per_kernel(dpa, &mut threads));
        ok!(abi::doca_dpa_get_kernel_max_run_time(dpa, &mut time));
        ok!(abi::doca_dpa_get_core_num(dpa, &mut cores));
        ok!(abi::doca_dpa_get_num_eus_per_core(dpa, &mut eus));
        ok!(abi::doca_dpa_get_total_num_eus_available(dpa, &mut total));
        (threads, time, cores, eus, total)
    };
    let ctx = Ctx::created();
    // Limits are readable before start.
    assert_eq!(read(ctx.dpa), (190, 12, 16, 16, 190));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_get_max_threads_per_kernel(ctx.dpa, null_mut())
    );
    ctx.destroy();

    for (ms, seconds) in [(200, 1), (1000, 1), (2500, 3)] {
        scope.set_profile(bf3_profile(|d| {
            d.max_threads_per_kernel = 8;
            d.kernel_max_run_time_ms = ms;
            d.cores = 2;
            d.eus_per_core = 4;
            d.eus_available = 7;
        }));
        let ctx = Ctx::created();
        // Model choice: milliseconds rounded up to whole seconds.
        assert_eq!(read(ctx.dpa), (8, seconds, 2, 4, 7));
        ctx.destroy();
    }
    assert_no_leaks(&scope);
}

#[test]
fn extended_contexts() {
    let scope = Scope::new();
    let base = Ctx::created();
    let other = open_dev(BF3);
    let mut ext = null_mut();
    // Not started: BAD_STATE.
    fails!(
        BAD_STATE,
        abi::doca_dpa_device_extend(base.dpa, other, &mut ext)
    );
    let app = noop_app();
    ok!(abi::doca_dpa_set_app(base.dpa, app));
    ok!(abi::doca_dpa_start(base.dpa));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_device_extend(base.dpa, other, null_mut())
    );
    ok!(abi::doca_dpa_device_extend(base.dpa, other, &mut ext));
    // Already started, sharing the base's application.
    let mut h = 0;
    ok!(abi::doca_dpa_get_dpa_handle(ext, &mut h));
    let mut got = null_mut();
    ok!(abi::doca_dpa_get_app(ext, &mut got));
    assert_eq!(got, app);
    fails!(BAD_STATE, abi::doca_dpa_start(ext));
    // Extending an extended context: BAD_STATE.
    let mut ext2 = null_mut();
    fails!(
        BAD_STATE,
        abi::doca_dpa_device_extend(ext, other, &mut ext2)
    );
    // The log level belongs to the base: NOT_PERMITTED.
    fails!(
        NOT_PERMITTED,
        abi::doca_dpa_set_log_level(ext, abi::DOCA_DPA_DEV_LOG_LEVEL_DEBUG)
    );
    // The base cannot stop while the extension lives; the other device
    // cannot close either.
    fails!(IN_USE, abi::doca_dpa_stop(base.dpa));
    fails!(IN_USE, abi::doca_dev_close(other));
    // Memory of the extended context works.
    let mut ptr = 0;
    ok!(abi::doca_dpa_mem_alloc(ext, 8, &mut ptr));
    ok!(abi::doca_dpa_mem_free(ext, ptr));
    ok!(abi::doca_dpa_stop(ext));
    ok!(abi::doca_dpa_destroy(ext));
    close_dev(other);
    base.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn stop_with_live_children_is_in_use() {
    let scope = Scope::new();
    unsafe extern "C" fn thread_body(_: *const u64) -> u64 {
        0
    }
    let t = entry!();
    let app = app(c"children", vec![thread_fn(c"t", t, thread_body)]);
    let ctx = Ctx::started(app);
    let dpa = ctx.dpa;

    // One child of each kind in turn: stop is IN_USE until it is destroyed.
    let check_in_use = |destroy: &dyn Fn()| {
        fails!(IN_USE, abi::doca_dpa_stop(dpa));
        destroy();
        ok!(abi::doca_dpa_stop(dpa));
        ok!(abi::doca_dpa_start(dpa));
    };

    let mut thread = null_mut();
    ok!(abi::doca_dpa_thread_create(dpa, &mut thread));
    check_in_use(&|| ok!(abi::doca_dpa_thread_destroy(thread)));

    let mut comp = null_mut();
    ok!(abi::doca_dpa_completion_create(dpa, 4, &mut comp));
    check_in_use(&|| ok!(abi::doca_dpa_completion_destroy(comp)));

    let mut ops = null_mut();
    ok!(abi::doca_dpa_async_ops_create(dpa, 4, 0, &mut ops));
    check_in_use(&|| ok!(abi::doca_dpa_async_ops_destroy(ops)));

    let mut tg = null_mut();
    ok!(abi::doca_dpa_thread_group_create(dpa, 2, &mut tg));
    check_in_use(&|| ok!(abi::doca_dpa_thread_group_destroy(tg)));

    let mut aff = null_mut();
    ok!(abi::doca_dpa_eu_affinity_create(dpa, &mut aff));
    check_in_use(&|| ok!(abi::doca_dpa_eu_affinity_destroy(aff)));

    let mut ht = null_mut();
    ok!(abi::doca_dpa_hash_table_create(dpa, 4, &mut ht));
    check_in_use(&|| ok!(abi::doca_dpa_hash_table_destroy(ht)));

    ok!(abi::doca_dpa_thread_create(dpa, &mut thread));
    ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 0));
    ok!(abi::doca_dpa_thread_start(thread));
    let mut notify = null_mut();
    ok!(abi::doca_dpa_notification_completion_create(
        dpa,
        thread,
        &mut notify
    ));
    ok!(abi::doca_dpa_thread_stop(thread));
    ok!(abi::doca_dpa_thread_destroy(thread));
    check_in_use(&|| ok!(abi::doca_dpa_notification_completion_destroy(notify)));

    let other = open_dev(BF3);
    let mut ext = null_mut();
    ok!(abi::doca_dpa_device_extend(dpa, other, &mut ext));
    check_in_use(&|| ok!(abi::doca_dpa_destroy(ext)));
    close_dev(other);

    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn destroy_while_a_bound_context_exists_is_in_use() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let mut vctx = null_mut();
    ok!(abi::doca_verbs_context_create(
        devinfo(ctx.dev),
        0,
        &mut vctx
    ));
    let mut poster = null_mut();
    ok!(abi::doca_rdmi_poster_create(vctx, &mut poster));
    let c = ffi!(abi::doca_rdmi_poster_as_ctx(poster));
    ok!(abi::doca_ctx_set_datapath_on_dpa(c, ctx.dpa));
    fails!(IN_USE, abi::doca_dpa_destroy(ctx.dpa));
    // Stopping is fine: the binding is about destroy.
    ok!(abi::doca_dpa_stop(ctx.dpa));
    fails!(IN_USE, abi::doca_dpa_destroy(ctx.dpa));
    ok!(abi::doca_rdmi_poster_destroy(poster));
    ok!(abi::doca_verbs_context_destroy(vctx));
    ctx.destroy();
    assert_no_leaks(&scope);
}

#[test]
fn destroy_without_stop_frees_the_heap() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let mut p = 0;
    ok!(abi::doca_dpa_mem_alloc(ctx.dpa, 128, &mut p));
    assert_eq!(scope.live_objects().get("dpa_heap_block"), Some(&1));
    // Samples destroy without stopping; the heap goes with the context.
    ctx.destroy();
    assert_no_leaks(&scope);
}

#[test]
fn destroy_and_stop_are_in_use_while_children_exist() {
    let scope = Scope::new();
    unsafe extern "C" fn thread_body(_: *const u64) -> u64 {
        0
    }
    let t = entry!();
    let app = app(c"orphans", vec![thread_fn(c"t", t, thread_body)]);
    let ctx = Ctx::started(app);
    let dpa = ctx.dpa;
    let mut thread = null_mut();
    let mut comp = null_mut();
    let mut ops = null_mut();
    let mut tg = null_mut();
    let mut aff = null_mut();
    let mut ht = null_mut();
    ok!(abi::doca_dpa_thread_create(dpa, &mut thread));
    ok!(abi::doca_dpa_completion_create(dpa, 4, &mut comp));
    ok!(abi::doca_dpa_async_ops_create(dpa, 4, 7, &mut ops));
    ok!(abi::doca_dpa_thread_group_create(dpa, 1, &mut tg));
    ok!(abi::doca_dpa_eu_affinity_create(dpa, &mut aff));
    ok!(abi::doca_dpa_hash_table_create(dpa, 4, &mut ht));
    ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 1));
    ok!(abi::doca_dpa_thread_start(thread));
    // Model choice (facts §8.2): destroy implies stop, and stop is IN_USE
    // while threads, completions and the like exist; so is destroy, for each
    // kind of child until the last one is gone.
    type Destroy = Box<dyn Fn() -> Code>;
    let children: [(&str, Destroy); 6] = [
        (
            "thread",
            Box::new(move || ffi!(abi::doca_dpa_thread_destroy(thread))),
        ),
        (
            "completion",
            Box::new(move || ffi!(abi::doca_dpa_completion_destroy(comp))),
        ),
        (
            "async ops",
            Box::new(move || ffi!(abi::doca_dpa_async_ops_destroy(ops))),
        ),
        (
            "thread group",
            Box::new(move || ffi!(abi::doca_dpa_thread_group_destroy(tg))),
        ),
        (
            "affinity",
            Box::new(move || ffi!(abi::doca_dpa_eu_affinity_destroy(aff))),
        ),
        (
            "hash table",
            Box::new(move || ffi!(abi::doca_dpa_hash_table_destroy(ht))),
        ),
    ];
    for (what, destroy) in &children {
        fails!(IN_USE, abi::doca_dpa_stop(dpa));
        fails!(IN_USE, abi::doca_dpa_destroy(dpa));
        // A started thread is destroyed without being stopped first.
        assert_eq!(destroy(), SUCCESS, "destroying the {what}");
    }
    // The last child gone, the started context is destroyed without a stop.
    ctx.destroy();
    assert_no_leaks(&scope);
}

#[test]
fn a_device_fault_makes_the_context_fatal_for_good() {
    let scope = Scope::new();
    unsafe extern "C" fn fault(_: *const u64) -> u64 {
        // SAFETY: device API of the sim, called from a kernel instance.
        unsafe { doca_sim_dev_fault(c"test fault".as_ptr()) };
        0
    }
    let k = entry!();
    let app = app(c"faulty", vec![global(c"fault", k, fault)]);
    let ctx = Ctx::started(app);
    let other = open_dev(BF3);
    let mut ext = null_mut();
    ok!(abi::doca_dpa_device_extend(ctx.dpa, other, &mut ext));
    let comp = ctx.comp_event();
    ok!(ctx.peek());
    ok!(ctx.launch(comp, 1, 1, k));
    assert!(poll(PATIENCE, || ctx.peek() == BAD_STATE), "never fatal");
    // Sticky, visible on the extension too, and every device operation
    // refuses.
    for _ in 0..3 {
        fails!(BAD_STATE, ctx.peek());
    }
    fails!(BAD_STATE, abi::doca_dpa_peek_at_last_error(ext));
    assert_eq!(get(comp), 0, "a faulted launch never completes");
    fails!(BAD_STATE, ctx.launch(comp, 1, 1, k));
    let mut p = 0;
    fails!(BAD_STATE, abi::doca_dpa_mem_alloc(ctx.dpa, 8, &mut p));
    fails!(BAD_STATE, abi::doca_dpa_get_dpa_handle(ctx.dpa, &mut p));
    // Teardown still works.
    ok!(abi::doca_dpa_destroy(ext));
    close_dev(other);
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn an_extended_context_is_a_child_of_its_base() {
    let scope = Scope::new();
    let base = Ctx::started(noop_app());
    let other = open_dev(BF3);
    let mut ext = null_mut();
    ok!(abi::doca_dpa_device_extend(base.dpa, other, &mut ext));
    // Extended contexts are destroyed before their base (facts §8.2): the
    // base's stop and destroy are IN_USE while one exists.
    fails!(IN_USE, abi::doca_dpa_stop(base.dpa));
    fails!(IN_USE, abi::doca_dpa_destroy(base.dpa));
    let mut p = 0;
    ok!(abi::doca_dpa_get_dpa_handle(ext, &mut p));
    ok!(abi::doca_dpa_destroy(ext));
    close_dev(other);
    base.destroy();
    assert_no_leaks(&scope);
}
