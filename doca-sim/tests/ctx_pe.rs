//! The generic DOCA context lifecycle (`doca_ctx_*`) and progress engines
//! (`doca_pe_*`), driven through an RDMI poster's context: NOT_CONNECTED
//! without a PE or DPA datapath, BAD_STATE for configuration after start,
//! NOT_PERMITTED for a second PE, IN_USE for a PE with connected contexts,
//! user data and state-change callbacks, notification handles (sync-event
//! tasks wake them: see `sync_event_tasks.rs`).

mod common;

use std::ptr::null_mut;
use std::sync::Mutex;
use std::time::Duration;

use common::*;

/// An open BlueField-3, a verbs context, a CQ and a poster with the CQ as
/// its completion source.
struct Fixture {
    dev: *mut abi::doca_dev,
    vctx: *mut abi::doca_verbs_context,
    cq: *mut abi::doca_verbs_cq,
    poster: *mut abi::doca_rdmi_poster,
    ctx: *mut abi::doca_ctx,
}

impl Fixture {
    fn new() -> Fixture {
        let dev = open_dev(BF3);
        let vctx = verbs_ctx(dev);
        let cq = cq(vctx, 16);
        let poster = poster(vctx);
        ok!(abi::doca_rdmi_poster_cq_attach(poster, cq));
        let ctx = poster_ctx(poster);
        Fixture {
            dev,
            vctx,
            cq,
            poster,
            ctx,
        }
    }

    fn teardown(self) {
        ok!(abi::doca_rdmi_poster_destroy(self.poster));
        ok!(abi::doca_verbs_cq_destroy(self.cq));
        ok!(abi::doca_verbs_context_destroy(self.vctx));
        close_dev(self.dev);
    }
}

#[test]
fn start_without_pe_or_datapath_is_not_connected() {
    let scope = Scope::new();
    let fx = Fixture::new();
    assert_eq!(state(fx.ctx), abi::DOCA_CTX_STATE_IDLE);
    fails!(NOT_CONNECTED, abi::doca_ctx_start(fx.ctx));
    assert_eq!(state(fx.ctx), abi::DOCA_CTX_STATE_IDLE);
    fails!(BAD_STATE, abi::doca_ctx_stop(fx.ctx));
    fails!(INVALID_VALUE, abi::doca_ctx_start(null_mut()));
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_pe_connects_once_and_not_after_start() {
    let scope = Scope::new();
    let fx = Fixture::new();
    let pe = new_pe();
    let other = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, fx.ctx));
    fails!(NOT_PERMITTED, abi::doca_pe_connect_ctx(pe, fx.ctx));
    fails!(NOT_PERMITTED, abi::doca_pe_connect_ctx(other, fx.ctx));
    ok!(abi::doca_ctx_start(fx.ctx));
    assert_eq!(state(fx.ctx), abi::DOCA_CTX_STATE_RUNNING);
    fails!(BAD_STATE, abi::doca_ctx_start(fx.ctx));
    let fresh = poster(fx.vctx);
    let fresh_ctx = poster_ctx(fresh);
    ok!(abi::doca_pe_connect_ctx(other, fresh_ctx));
    ok!(abi::doca_rdmi_poster_destroy(fresh));
    // Nothing asynchronous to finish.
    assert_eq!(ffi!(abi::doca_pe_progress(pe)), 0);
    assert_eq!(ffi!(abi::doca_pe_progress(null_mut())), 0);
    let mut inflight = 9;
    ok!(abi::doca_ctx_get_num_inflight_tasks(fx.ctx, &mut inflight));
    assert_eq!(inflight, 0);
    // Model choice: destroying a running context is BAD_STATE.
    fails!(BAD_STATE, abi::doca_rdmi_poster_destroy(fx.poster));
    // A PE with a connected context cannot go.
    fails!(IN_USE, abi::doca_pe_destroy(pe));
    ok!(abi::doca_ctx_stop(fx.ctx));
    assert_eq!(state(fx.ctx), abi::DOCA_CTX_STATE_IDLE);
    // The connection ends only when the context is destroyed.
    fails!(IN_USE, abi::doca_pe_destroy(pe));
    fx.teardown();
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_pe_destroy(other));
    fails!(INVALID_VALUE, abi::doca_pe_destroy(pe));
    fails!(INVALID_VALUE, abi::doca_pe_create(null_mut()));
    assert_no_leaks(&scope);
}

#[test]
fn configuration_after_start_is_bad_state() {
    let scope = Scope::new();
    let fx = Fixture::new();
    let dpa = Ctx::started(noop_app());
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, fx.ctx));
    ok!(abi::doca_ctx_start(fx.ctx));
    fails!(
        BAD_STATE,
        abi::doca_ctx_set_datapath_on_dpa(fx.ctx, dpa.dpa)
    );
    let late = new_pe();
    fails!(BAD_STATE, abi::doca_pe_connect_ctx(late, fx.ctx));
    fails!(BAD_STATE, abi::doca_ctx_set_state_changed_cb(fx.ctx, None));
    ok!(abi::doca_ctx_stop(fx.ctx));
    fx.teardown();
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_pe_destroy(late));
    dpa.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn a_dpa_datapath_replaces_the_pe_and_needs_a_started_dpa() {
    let scope = Scope::new();
    let fx = Fixture::new();
    let dpa = Ctx::created();
    ok!(abi::doca_dpa_set_app(dpa.dpa, noop_app()));
    ok!(abi::doca_ctx_set_datapath_on_dpa(fx.ctx, dpa.dpa));
    fails!(BAD_STATE, abi::doca_ctx_start(fx.ctx));
    ok!(abi::doca_dpa_start(dpa.dpa));
    ok!(abi::doca_ctx_start(fx.ctx));
    ok!(abi::doca_ctx_stop(fx.ctx));
    // Rebinding to another DPA releases the first one.
    let second = Ctx::started(noop_app());
    ok!(abi::doca_ctx_set_datapath_on_dpa(fx.ctx, second.dpa));
    ok!(abi::doca_dpa_stop(dpa.dpa));
    dpa.destroy();
    ok!(abi::doca_dpa_stop(second.dpa));
    fails!(IN_USE, abi::doca_dpa_destroy(second.dpa));
    fx.teardown();
    second.destroy();
    assert_no_leaks(&scope);
}

type Transitions = Mutex<Vec<(u32, u32)>>;

unsafe extern "C" fn record(
    user_data: abi::doca_data,
    _ctx: *mut abi::doca_ctx,
    prev: abi::doca_ctx_states,
    next: abi::doca_ctx_states,
) {
    // SAFETY: the tests store a pointer to a live `Transitions` as the
    // context's user data.
    let log = unsafe { &*(user_data.ptr as *const Transitions) };
    log.lock().unwrap().push((prev, next));
}

#[test]
fn user_data_and_state_callbacks() {
    let scope = Scope::new();
    let fx = Fixture::new();
    let log: Transitions = Mutex::new(Vec::new());
    let data = abi::doca_data {
        ptr: (&log as *const Transitions).cast_mut().cast(),
    };
    ok!(abi::doca_ctx_set_user_data(fx.ctx, data));
    let mut back = abi::doca_data { u64_: 0 };
    ok!(abi::doca_ctx_get_user_data(fx.ctx, &mut back));
    // SAFETY: both are plain 8-byte values.
    assert_eq!(unsafe { back.u64_ }, unsafe { data.u64_ });
    ok!(abi::doca_ctx_set_state_changed_cb(fx.ctx, Some(record)));
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, fx.ctx));
    ok!(abi::doca_ctx_start(fx.ctx));
    ok!(abi::doca_ctx_stop(fx.ctx));
    // Model choice: callbacks run synchronously in the changing call.
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            (abi::DOCA_CTX_STATE_IDLE, abi::DOCA_CTX_STATE_RUNNING),
            (abi::DOCA_CTX_STATE_RUNNING, abi::DOCA_CTX_STATE_IDLE)
        ]
    );
    fx.teardown();
    ok!(abi::doca_pe_destroy(pe));
    assert_no_leaks(&scope);
}

#[test]
fn a_state_callback_may_query_its_context() {
    let scope = Scope::new();
    let fx = Fixture::new();
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, fx.ctx));
    unsafe extern "C" fn query(
        user_data: abi::doca_data,
        ctx: *mut abi::doca_ctx,
        _prev: abi::doca_ctx_states,
        next: abi::doca_ctx_states,
    ) {
        let mut now = 99;
        // SAFETY: the sim passes the context whose state changed; the user
        // data points to a live `Transitions`.
        unsafe {
            let code = abi::doca_ctx_get_state(ctx, &mut now);
            let log = &*(user_data.ptr as *const Transitions);
            log.lock().unwrap().push((code, now));
        }
        let _ = next;
    }
    let log: &'static Transitions = Box::leak(Box::new(Mutex::new(Vec::new())));
    let data = abi::doca_data {
        ptr: (log as *const Transitions).cast_mut().cast(),
    };
    ok!(abi::doca_ctx_set_user_data(fx.ctx, data));
    ok!(abi::doca_ctx_set_state_changed_cb(fx.ctx, Some(query)));
    let ctx = SendPtr(fx.ctx);
    let started = with_timeout(Duration::from_secs(2), move || {
        let ctx = ctx.ptr();
        let start = ffi!(abi::doca_ctx_start(ctx));
        let stop = ffi!(abi::doca_ctx_stop(ctx));
        (start, stop)
    });
    assert_eq!(
        started,
        Some((SUCCESS, SUCCESS)),
        "a callback calling doca_ctx_get_state deadlocked"
    );
    // The callback sees the new state.
    assert_eq!(
        *log.lock().unwrap(),
        vec![
            (SUCCESS, abi::DOCA_CTX_STATE_RUNNING),
            (SUCCESS, abi::DOCA_CTX_STATE_IDLE)
        ]
    );
    fx.teardown();
    ok!(abi::doca_pe_destroy(pe));
    assert_no_leaks(&scope);
}

#[test]
fn pe_notification_handles_are_the_engines_own() {
    let scope = Scope::new();
    let pe = new_pe();
    let other = new_pe();
    let (mut handle, mut other_handle) = (-1, -1);
    ok!(abi::doca_pe_get_notification_handle(pe, &mut handle));
    ok!(abi::doca_pe_get_notification_handle(
        other,
        &mut other_handle
    ));
    assert!(handle >= 0 && other_handle >= 0 && handle != other_handle);
    fails!(
        INVALID_VALUE,
        abi::doca_pe_get_notification_handle(pe, null_mut())
    );
    // With no context connected there is nothing to wake for.
    ok!(abi::doca_pe_request_notification(pe));
    ok!(abi::doca_pe_clear_notification(pe, handle));
    fails!(
        INVALID_VALUE,
        abi::doca_pe_clear_notification(pe, other_handle)
    );
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_pe_destroy(other));
    assert_no_leaks(&scope);
}
