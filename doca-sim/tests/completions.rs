//! DPA completion contexts, async ops and hash tables: their
//! create/configure/start rules (facts §4.4, §4.8, §4.9, §8.3), a DPA
//! thread woken by a completion, element contents, user-data limits, queue
//! sizes and overruns.

mod common;

use common::*;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering::SeqCst};

unsafe extern "C" fn nothing(_: *const u64) -> u64 {
    0
}

fn new_completion(dpa: *mut abi::doca_dpa, size: u32) -> *mut abi::doca_dpa_completion {
    let mut c = null_mut();
    ok!(abi::doca_dpa_completion_create(dpa, size, &mut c));
    c
}

fn queue_size(c: *mut abi::doca_dpa_completion) -> u32 {
    let mut n = 0;
    ok!(abi::doca_dpa_completion_get_queue_size(c, &mut n));
    n
}

#[test]
fn completion_rules_and_queue_sizes() {
    let scope = Scope::new();
    let t = entry!();
    let app = app(c"completion_rules", vec![thread_fn(c"t", t, nothing)]);
    let ctx = Ctx::created();
    ok!(abi::doca_dpa_set_app(ctx.dpa, app));
    let mut c = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_completion_create(ctx.dpa, 0, &mut c)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_completion_create(ctx.dpa, 4, null_mut())
    );
    // Created before start; sizes rounded up to a power of two.
    for (asked, got) in [(1, 1), (3, 4), (5, 8), (8, 8), (1000, 1024)] {
        let c = new_completion(ctx.dpa, asked);
        assert_eq!(queue_size(c), got);
        ok!(abi::doca_dpa_completion_destroy(c));
    }
    let comp = new_completion(ctx.dpa, 4);
    // Starting needs a started context.
    fails!(BAD_STATE, abi::doca_dpa_completion_start(comp));
    ok!(abi::doca_dpa_start(ctx.dpa));
    let mut h = 0;
    fails!(
        BAD_STATE,
        abi::doca_dpa_completion_get_dpa_handle(comp, &mut h)
    );
    fails!(BAD_STATE, abi::doca_dpa_completion_stop(comp));
    // A bound thread must be started first.
    let thread = {
        let mut th = null_mut();
        ok!(abi::doca_dpa_thread_create(ctx.dpa, &mut th));
        ok!(abi::doca_dpa_thread_set_func_arg(th, f(t), 0));
        th
    };
    ok!(abi::doca_dpa_completion_set_thread(comp, thread));
    fails!(BAD_STATE, abi::doca_dpa_completion_start(comp));
    ok!(abi::doca_dpa_thread_start(thread));
    ok!(abi::doca_dpa_completion_start(comp));
    fails!(BAD_STATE, abi::doca_dpa_completion_start(comp));
    // Binding a thread after start: BAD_STATE.
    fails!(BAD_STATE, abi::doca_dpa_completion_set_thread(comp, thread));
    let mut bound = null_mut();
    // Model choice: the bound thread is not returned.
    fails!(
        NOT_SUPPORTED,
        abi::doca_dpa_completion_get_thread(comp, &mut bound)
    );
    ok!(abi::doca_dpa_completion_get_dpa_handle(comp, &mut h));
    let mut h2 = 0;
    ok!(abi::doca_dpa_completion_get_dpa_handle(comp, &mut h2));
    assert_eq!(h, h2);
    // The thread now has an attached completion and may run.
    ok!(abi::doca_dpa_thread_run(thread));
    // Model choice: destroying a started completion stops it first, as
    // NVIDIA's samples expect; so does destroying a started thread.
    ok!(abi::doca_dpa_completion_destroy(comp));
    fails!(INVALID_VALUE, abi::doca_dpa_completion_stop(comp));
    ok!(abi::doca_dpa_thread_destroy(thread));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_completion_wakes_its_thread() {
    let scope = Scope::new();
    static COMP: AtomicU64 = AtomicU64::new(0);
    static SEEN: AtomicU64 = AtomicU64::new(0);
    static WAKES: AtomicU32 = AtomicU32::new(0);
    static POSTED: AtomicI32 = AtomicI32::new(-1);
    static TOO_BIG: AtomicI32 = AtomicI32::new(-1);
    unsafe extern "C" fn on_completion(_: *const u64) -> u64 {
        let h = COMP.load(SeqCst);
        let mut e = 0u64;
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe {
            while doca_dpa_dev_get_completion(h, &mut e) != 0 {
                let kind = u64::from(doca_dpa_dev_get_completion_type(e));
                let user = u64::from(doca_dpa_dev_get_completion_user_data(e));
                let imm = u64::from(doca_dpa_dev_get_completion_immediate(e));
                SEEN.store(kind << 56 | user << 32 | imm, SeqCst);
                doca_dpa_dev_completion_ack(h, 1);
            }
            doca_dpa_dev_completion_request_notification(h);
        }
        WAKES.fetch_add(1, SeqCst);
        0
    }
    unsafe extern "C" fn producer(_: *const u64) -> u64 {
        let h = COMP.load(SeqCst);
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe {
            TOO_BIG.store(
                doca_sim_dev_completion_post(h, COMP_SEND, 1 << 24, 0),
                SeqCst,
            );
            POSTED.store(
                doca_sim_dev_completion_post(h, COMP_RECV_SEND, 0xff_ffff, 77),
                SeqCst,
            );
        }
        0
    }
    let t = entry!();
    let k = entry!();
    let ctx = Ctx::started(app(
        c"wake",
        vec![
            thread_fn(c"on_completion", t, on_completion),
            global(c"producer", k, producer),
        ],
    ));
    let mut thread = null_mut();
    ok!(abi::doca_dpa_thread_create(ctx.dpa, &mut thread));
    ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 0));
    ok!(abi::doca_dpa_thread_start(thread));
    let comp = new_completion(ctx.dpa, 2);
    ok!(abi::doca_dpa_completion_set_thread(comp, thread));
    ok!(abi::doca_dpa_completion_start(comp));
    let mut h = 0;
    ok!(abi::doca_dpa_completion_get_dpa_handle(comp, &mut h));
    COMP.store(h, SeqCst);
    ok!(abi::doca_dpa_thread_run(thread));

    let ev = ctx.comp_event();
    ok!(ctx.launch(ev, 1, 1, k));
    wait_value(ev, 1);
    // User data must be below 2^24.
    assert_eq!(TOO_BIG.load(SeqCst), INVALID_VALUE as i32);
    assert_eq!(POSTED.load(SeqCst), 0);
    assert!(poll(PATIENCE, || WAKES.load(SeqCst) == 1));
    assert_eq!(
        SEEN.load(SeqCst),
        u64::from(COMP_RECV_SEND) << 56 | 0xff_ffff << 32 | 77
    );
    // Read and acknowledged: the queue of 2 takes more, and each re-arms.
    for n in 2..=4 {
        ok!(ctx.launch(ev, n, 1, k));
        wait_value(ev, n);
        assert!(poll(PATIENCE, || WAKES.load(SeqCst) == n as u32));
    }
    ok!(ctx.peek());
    ok!(abi::doca_dpa_completion_stop(comp));
    // Posting to a stopped completion: BAD_STATE.
    ok!(ctx.launch(ev, 5, 1, k));
    wait_value(ev, 5);
    assert_eq!(POSTED.load(SeqCst), BAD_STATE as i32);
    ok!(abi::doca_dpa_completion_destroy(comp));
    ok!(abi::doca_dpa_thread_stop(thread));
    ok!(abi::doca_dpa_thread_destroy(thread));
    drop_event(ev);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn unread_and_unacknowledged_elements_fill_the_queue() {
    let scope = Scope::new();
    static COMP: AtomicU64 = AtomicU64::new(0);
    static CODES: [AtomicI32; 8] = [const { AtomicI32::new(-1) }; 8];
    unsafe extern "C" fn script(_: *const u64) -> u64 {
        let h = COMP.load(SeqCst);
        let mut e = 0u64;
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe {
            // Queue of 2, polled by the kernel itself (no thread).
            CODES[0].store(doca_sim_dev_completion_post(h, COMP_SEND, 1, 0), SeqCst);
            CODES[1].store(doca_sim_dev_completion_post(h, COMP_SEND, 2, 0), SeqCst);
            // Read one, do not acknowledge it: still no room.
            CODES[2].store(doca_dpa_dev_get_completion(h, &mut e), SeqCst);
            CODES[3].store(doca_dpa_dev_get_completion_user_data(e) as i32, SeqCst);
            doca_dpa_dev_completion_ack(h, 1);
            // One slot free again.
            CODES[4].store(doca_sim_dev_completion_post(h, COMP_SEND, 3, 0), SeqCst);
            // Full: an overrun, which makes the context fatal.
            CODES[5].store(doca_sim_dev_completion_post(h, COMP_SEND, 4, 0), SeqCst);
        }
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"overrun", vec![global(c"script", k, script)]));
    let comp = new_completion(ctx.dpa, 2);
    ok!(abi::doca_dpa_completion_start(comp));
    let mut h = 0;
    ok!(abi::doca_dpa_completion_get_dpa_handle(comp, &mut h));
    COMP.store(h, SeqCst);
    ok!(ctx.launch(null_mut(), 0, 1, k));
    assert!(poll(PATIENCE, || CODES[5].load(SeqCst) != -1));
    let codes: Vec<i32> = CODES[..6].iter().map(|c| c.load(SeqCst)).collect();
    assert_eq!(codes, vec![0, 0, 1, 1, 0, FULL as i32]);
    fails!(BAD_STATE, ctx.peek());
    ok!(abi::doca_dpa_completion_stop(comp));
    ok!(abi::doca_dpa_completion_destroy(comp));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn async_ops_rules() {
    let scope = Scope::new();
    let ctx = Ctx::created();
    ok!(abi::doca_dpa_set_app(ctx.dpa, noop_app()));
    let mut ops = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_async_ops_create(ctx.dpa, 0, 1, &mut ops)
    );
    ok!(abi::doca_dpa_async_ops_create(ctx.dpa, 3, 0xfeed, &mut ops));
    let mut n = 0;
    ok!(abi::doca_dpa_async_ops_get_queue_size(ops, &mut n));
    assert_eq!(n, 4);
    let mut ud = 0;
    ok!(abi::doca_dpa_async_ops_get_user_data(ops, &mut ud));
    assert_eq!(ud, 0xfeed);
    // Needs a started context, then a started completion.
    fails!(BAD_STATE, abi::doca_dpa_async_ops_start(ops));
    ok!(abi::doca_dpa_start(ctx.dpa));
    fails!(BAD_STATE, abi::doca_dpa_async_ops_start(ops));
    let comp = new_completion(ctx.dpa, 8);
    ok!(abi::doca_dpa_async_ops_attach(ops, comp));
    fails!(BAD_STATE, abi::doca_dpa_async_ops_start(ops));
    ok!(abi::doca_dpa_completion_start(comp));
    let mut h = 0;
    fails!(
        BAD_STATE,
        abi::doca_dpa_async_ops_get_dpa_handle(ops, &mut h)
    );
    fails!(BAD_STATE, abi::doca_dpa_async_ops_stop(ops));
    ok!(abi::doca_dpa_async_ops_start(ops));
    fails!(BAD_STATE, abi::doca_dpa_async_ops_start(ops));
    // Attaching after start: BAD_STATE.
    fails!(BAD_STATE, abi::doca_dpa_async_ops_attach(ops, comp));
    ok!(abi::doca_dpa_async_ops_get_dpa_handle(ops, &mut h));
    assert_ne!(h, 0);
    ok!(abi::doca_dpa_async_ops_stop(ops));
    fails!(BAD_STATE, abi::doca_dpa_async_ops_stop(ops));
    ok!(abi::doca_dpa_async_ops_start(ops));
    // Started, destroyed without a stop (stop-then-destroy).
    ok!(abi::doca_dpa_async_ops_destroy(ops));
    ok!(abi::doca_dpa_completion_stop(comp));
    ok!(abi::doca_dpa_completion_destroy(comp));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn hash_tables() {
    let scope = Scope::new();
    static TABLE: AtomicU64 = AtomicU64::new(0);
    static FOUND: [AtomicU64; 6] = [const { AtomicU64::new(u64::MAX) }; 6];
    unsafe extern "C" fn fill(_: *const u64) -> u64 {
        let h = TABLE.load(SeqCst);
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe {
            // Capacity 3 rounds up to 4.
            for key in 1..=4u32 {
                doca_dpa_dev_hash_table_add(h, key, u64::from(key) * 10);
            }
            doca_dpa_dev_hash_table_add(h, 2, 21);
            doca_dpa_dev_hash_table_remove(h, 3);
            for key in 1..=5u32 {
                let mut v = 0;
                let found = doca_dpa_dev_hash_table_find(h, key, &mut v);
                FOUND[key as usize].store(if found != 0 { v } else { 0 }, SeqCst);
            }
            FOUND[0].store(1, SeqCst);
        }
        0
    }
    unsafe extern "C" fn overfill(_: *const u64) -> u64 {
        let h = TABLE.load(SeqCst);
        // SAFETY: as above.
        unsafe {
            doca_dpa_dev_hash_table_add(h, 3, 30);
            doca_dpa_dev_hash_table_add(h, 9, 90);
        }
        0
    }
    let k = entry!();
    let o = entry!();
    let ctx = Ctx::started(app(
        c"hash",
        vec![global(c"fill", k, fill), global(c"overfill", o, overfill)],
    ));
    let mut ht = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_hash_table_create(ctx.dpa, 0, &mut ht)
    );
    ok!(abi::doca_dpa_hash_table_create(ctx.dpa, 3, &mut ht));
    let mut h = 0;
    ok!(abi::doca_dpa_hash_table_get_dpa_handle(ht, &mut h));
    TABLE.store(h, SeqCst);
    ok!(ctx.launch(null_mut(), 0, 1, k));
    assert!(poll(PATIENCE, || FOUND[0].load(SeqCst) == 1));
    let found: Vec<u64> = FOUND[1..].iter().map(|v| v.load(SeqCst)).collect();
    assert_eq!(found, vec![10, 21, 0, 40, 0]);
    ok!(ctx.peek());
    // Model choice: inserting into a full table is a device fault.
    ok!(ctx.launch(null_mut(), 0, 1, o));
    assert!(poll(PATIENCE, || ctx.peek() == BAD_STATE));
    // Destroying the table needs a started context; a fatal one still is
    // (model choice), so teardown can release it and then stop.
    fails!(IN_USE, abi::doca_dpa_stop(ctx.dpa));
    ok!(abi::doca_dpa_hash_table_destroy(ht));
    fails!(INVALID_VALUE, abi::doca_dpa_hash_table_destroy(ht));
    ctx.teardown();
    assert_no_leaks(&scope);
}
