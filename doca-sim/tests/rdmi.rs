//! DOCA RDMI connections and posters: the lifecycle rows of doca-rdmi.md
//! §4.3 as the sim implements them, the objects they keep in use, and the
//! sim's loopback device functions (`doca_sim_dev_rdmi_send/consume`)
//! delivering data into the receive buffer and completions on the attached
//! DPA completions.

mod common;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering::SeqCst};

use common::*;

/// A test scope on the DPU view: RDMI connections are made for representors,
/// which only a BlueField's Arm side lists.
fn dpu_scope() -> Scope {
    let scope = Scope::new();
    scope.set_profile(Profile::dpu_view());
    scope
}

/// A started DPA context with `app`, a verbs context and PD on its device,
/// and an open representor.
struct Fixture {
    ctx: Ctx,
    vctx: *mut abi::doca_verbs_context,
    pd: *mut abi::doca_verbs_pd,
    rep: *mut abi::doca_dev_rep,
}

impl Fixture {
    fn new(app: *mut abi::doca_dpa_app) -> Fixture {
        let ctx = Ctx::started(app);
        let vctx = verbs_ctx(ctx.dev);
        let pd = pd(vctx);
        let rep = open_rep(ctx.dev);
        Fixture { ctx, vctx, pd, rep }
    }

    /// A started completion context without a thread.
    fn completion(&self) -> *mut abi::doca_dpa_completion {
        let mut c = null_mut();
        ok!(abi::doca_dpa_completion_create(self.ctx.dpa, 16, &mut c));
        ok!(abi::doca_dpa_completion_start(c));
        c
    }

    fn teardown(self) {
        ok!(abi::doca_dev_rep_close(self.rep));
        ok!(abi::doca_verbs_pd_destroy(self.pd));
        ok!(abi::doca_verbs_context_destroy(self.vctx));
        self.ctx.teardown();
    }
}

fn drop_completion(c: *mut abi::doca_dpa_completion) {
    ok!(abi::doca_dpa_completion_stop(c));
    ok!(abi::doca_dpa_completion_destroy(c));
}

fn completion_handle(c: *mut abi::doca_dpa_completion) -> u64 {
    let mut h = 0;
    ok!(abi::doca_dpa_completion_get_dpa_handle(c, &mut h));
    h
}

#[test]
fn configuration_after_start_is_bad_state() {
    let scope = dpu_scope();
    let fx = Fixture::new(noop_app());
    let comp = fx.completion();
    let spare = fx.completion();
    let cq = cq(fx.vctx, 16);
    let mut buf = vec![0u8; 256];
    let input = [1u8; 8];
    let conn = connection(fx.vctx, fx.rep);
    let cctx = connection_ctx(conn);
    ok!(abi::doca_rdmi_connection_set_pd(conn, fx.pd));
    ok!(abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_connection_dpa_completion_attach(conn, comp));
    ok!(abi::doca_rdmi_connection_init_receive(
        conn,
        buf.as_mut_ptr().cast(),
        buf.len()
    ));
    ok!(abi::doca_rdmi_connection_set_input(
        conn,
        1,
        input.as_ptr().cast(),
        input.len()
    ));
    ok!(abi::doca_ctx_start(cctx));
    fails!(
        BAD_STATE,
        abi::doca_rdmi_connection_init_receive(conn, buf.as_mut_ptr().cast(), 64)
    );
    fails!(
        BAD_STATE,
        abi::doca_rdmi_connection_dpa_completion_attach(conn, spare)
    );
    fails!(BAD_STATE, abi::doca_rdmi_connection_cq_attach(conn, cq));
    fails!(
        BAD_STATE,
        abi::doca_rdmi_connection_set_input(conn, 1, input.as_ptr().cast(), 8)
    );
    fails!(BAD_STATE, abi::doca_rdmi_connection_set_pd(conn, fx.pd));
    fails!(
        BAD_STATE,
        abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa)
    );
    fails!(BAD_STATE, abi::doca_ctx_start(cctx));
    // Model choice: destroy before stop is BAD_STATE.
    fails!(BAD_STATE, abi::doca_rdmi_connection_destroy(conn));

    let p = poster(fx.vctx);
    let pctx = poster_ctx(p);
    ok!(abi::doca_rdmi_poster_set_pd(p, fx.pd));
    ok!(abi::doca_rdmi_poster_cq_attach(p, cq));
    ok!(abi::doca_rdmi_poster_set_input(
        p,
        2,
        input.as_ptr().cast(),
        input.len()
    ));
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, pctx));
    ok!(abi::doca_ctx_start(pctx));
    fails!(BAD_STATE, abi::doca_rdmi_poster_cq_attach(p, cq));
    fails!(
        BAD_STATE,
        abi::doca_rdmi_poster_dpa_completion_attach(p, spare)
    );
    fails!(
        BAD_STATE,
        abi::doca_rdmi_poster_set_input(p, 2, input.as_ptr().cast(), 8)
    );
    fails!(BAD_STATE, abi::doca_rdmi_poster_set_pd(p, fx.pd));
    fails!(BAD_STATE, abi::doca_rdmi_poster_destroy(p));

    ok!(abi::doca_ctx_stop(pctx));
    ok!(abi::doca_rdmi_poster_destroy(p));
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_ctx_stop(cctx));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    ok!(abi::doca_verbs_cq_destroy(cq));
    drop_completion(comp);
    drop_completion(spare);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn dpa_handles_need_a_started_context_on_the_dpa_datapath() {
    let scope = dpu_scope();
    let fx = Fixture::new(noop_app());
    let cq = cq(fx.vctx, 16);
    let mut buf = vec![0u8; 128];
    let mut h = 0;

    // Poster: before start, then started through a PE only.
    let p = poster(fx.vctx);
    let pctx = poster_ctx(p);
    ok!(abi::doca_rdmi_poster_cq_attach(p, cq));
    fails!(BAD_STATE, abi::doca_rdmi_poster_get_dpa_handle(p, &mut h));
    fails!(NOT_CONNECTED, abi::doca_ctx_start(pctx));
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, pctx));
    ok!(abi::doca_ctx_start(pctx));
    fails!(BAD_STATE, abi::doca_rdmi_poster_get_dpa_handle(p, &mut h));
    ok!(abi::doca_ctx_stop(pctx));
    // On the DPA datapath (the PE may stay connected) it works.
    ok!(abi::doca_ctx_set_datapath_on_dpa(pctx, fx.ctx.dpa));
    ok!(abi::doca_ctx_start(pctx));
    ok!(abi::doca_rdmi_poster_get_dpa_handle(p, &mut h));
    assert_ne!(h, 0);

    // Connection: same rules; a CQ source is fine on the DPA datapath.
    let conn = connection(fx.vctx, fx.rep);
    let cctx = connection_ctx(conn);
    ok!(abi::doca_rdmi_connection_cq_attach(conn, cq));
    ok!(abi::doca_rdmi_connection_init_receive(
        conn,
        buf.as_mut_ptr().cast(),
        buf.len()
    ));
    fails!(
        BAD_STATE,
        abi::doca_rdmi_connection_get_dpa_handle(conn, &mut h)
    );
    fails!(NOT_CONNECTED, abi::doca_ctx_start(cctx));
    ok!(abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa));
    ok!(abi::doca_ctx_start(cctx));
    let mut hc = 0;
    ok!(abi::doca_rdmi_connection_get_dpa_handle(conn, &mut hc));
    assert_ne!(hc, h);

    ok!(abi::doca_ctx_stop(cctx));
    ok!(abi::doca_ctx_stop(pctx));
    fails!(
        BAD_STATE,
        abi::doca_rdmi_connection_get_dpa_handle(conn, &mut hc)
    );
    ok!(abi::doca_rdmi_connection_destroy(conn));
    ok!(abi::doca_rdmi_poster_destroy(p));
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_verbs_cq_destroy(cq));
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn exactly_one_completion_source() {
    let scope = dpu_scope();
    let fx = Fixture::new(noop_app());
    let comp = fx.completion();
    let cq = cq(fx.vctx, 16);
    let mut buf = vec![0u8; 128];

    let conn = connection(fx.vctx, fx.rep);
    let cctx = connection_ctx(conn);
    ok!(abi::doca_rdmi_connection_init_receive(
        conn,
        buf.as_mut_ptr().cast(),
        buf.len()
    ));
    // Model choice: a DPA completion needs the DPA datapath first.
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_dpa_completion_attach(conn, comp)
    );
    ok!(abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa));
    // Model choice: starting with no completion source is BAD_STATE.
    fails!(BAD_STATE, abi::doca_ctx_start(cctx));
    ok!(abi::doca_rdmi_connection_dpa_completion_attach(conn, comp));
    // Model choice: a second source is NOT_PERMITTED, of either kind.
    fails!(
        NOT_PERMITTED,
        abi::doca_rdmi_connection_dpa_completion_attach(conn, comp)
    );
    fails!(NOT_PERMITTED, abi::doca_rdmi_connection_cq_attach(conn, cq));

    let p = poster(fx.vctx);
    let pctx = poster_ctx(p);
    fails!(
        INVALID_VALUE,
        abi::doca_ctx_set_datapath_on_dpa(null_mut(), fx.ctx.dpa)
    );
    ok!(abi::doca_ctx_set_datapath_on_dpa(pctx, fx.ctx.dpa));
    fails!(BAD_STATE, abi::doca_ctx_start(pctx));
    ok!(abi::doca_rdmi_poster_cq_attach(p, cq));
    fails!(NOT_PERMITTED, abi::doca_rdmi_poster_cq_attach(p, cq));
    fails!(
        NOT_PERMITTED,
        abi::doca_rdmi_poster_dpa_completion_attach(p, comp)
    );
    // The attached CQ stays in use.
    fails!(IN_USE, abi::doca_verbs_cq_destroy(cq));

    ok!(abi::doca_rdmi_poster_destroy(p));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    ok!(abi::doca_verbs_cq_destroy(cq));
    drop_completion(comp);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn start_checks_of_the_model() {
    let scope = dpu_scope();
    let fx = Fixture::new(noop_app());
    let mut buf = vec![0u8; 128];
    // A DPA completion that is not started: BAD_STATE at ctx start.
    let mut idle_comp = null_mut();
    ok!(abi::doca_dpa_completion_create(
        fx.ctx.dpa,
        4,
        &mut idle_comp
    ));
    let p = poster(fx.vctx);
    let pctx = poster_ctx(p);
    ok!(abi::doca_ctx_set_datapath_on_dpa(pctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_poster_dpa_completion_attach(p, idle_comp));
    fails!(BAD_STATE, abi::doca_ctx_start(pctx));
    ok!(abi::doca_dpa_completion_start(idle_comp));
    ok!(abi::doca_ctx_start(pctx));
    ok!(abi::doca_ctx_stop(pctx));
    ok!(abi::doca_rdmi_poster_destroy(p));

    // A connection without a receive buffer: BAD_STATE.
    let conn = connection(fx.vctx, fx.rep);
    let cctx = connection_ctx(conn);
    ok!(abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_connection_dpa_completion_attach(
        conn, idle_comp
    ));
    fails!(BAD_STATE, abi::doca_ctx_start(cctx));
    let (mut mkey, mut offset, mut size) = (0u32, 9u64, 0usize);
    fails!(
        BAD_STATE,
        abi::doca_rdmi_connection_get_app_rq_info(conn, &mut mkey, &mut offset, &mut size)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_init_receive(conn, buf.as_mut_ptr().cast(), 0)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_init_receive(conn, null_mut(), 64)
    );
    ok!(abi::doca_rdmi_connection_init_receive(
        conn,
        buf.as_mut_ptr().cast(),
        buf.len()
    ));
    ok!(abi::doca_rdmi_connection_get_app_rq_info(
        conn,
        &mut mkey,
        &mut offset,
        &mut size
    ));
    assert_ne!(mkey, 0);
    assert_eq!((offset, size), (0, 128));
    // Model choice: acknowledging before start is BAD_STATE.
    fails!(BAD_STATE, abi::doca_rdmi_connection_recv_ack(conn, 0));
    ok!(abi::doca_ctx_start(cctx));
    ok!(abi::doca_rdmi_connection_recv_ack(conn, 0));
    fails!(INVALID_VALUE, abi::doca_rdmi_connection_recv_ack(conn, 1));
    ok!(abi::doca_ctx_stop(cctx));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    drop_completion(idle_comp);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn bad_arguments_are_invalid_value() {
    let scope = dpu_scope();
    let fx = Fixture::new(noop_app());
    let mut conn = null_mut();
    let mut p = null_mut();
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_create(null_mut(), fx.rep, &mut conn)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_create(fx.vctx, null_mut(), &mut conn)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_create(fx.vctx, fx.rep, null_mut())
    );
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_poster_create(null_mut(), &mut p)
    );
    fails!(INVALID_VALUE, abi::doca_rdmi_connection_destroy(null_mut()));
    assert!(ffi!(abi::doca_rdmi_poster_as_ctx(null_mut())).is_null());
    assert!(ffi!(doca_rdmi_connection_as_ctx(null_mut())).is_null());
    // A PD of another verbs context.
    let other = verbs_ctx(fx.ctx.dev);
    let foreign = pd(other);
    let conn = connection(fx.vctx, fx.rep);
    let p = poster(fx.vctx);
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_set_pd(conn, foreign)
    );
    fails!(INVALID_VALUE, abi::doca_rdmi_poster_set_pd(p, foreign));
    // Empty inputs.
    let input = [0u8; 4];
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_connection_set_input(conn, 1, input.as_ptr().cast(), 0)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_poster_set_input(p, 1, std::ptr::null(), 4)
    );
    // A DPA completion of another DPA context.
    let stranger = Ctx::started(noop_app());
    let mut foreign_comp = null_mut();
    ok!(abi::doca_dpa_completion_create(
        stranger.dpa,
        4,
        &mut foreign_comp
    ));
    ok!(abi::doca_ctx_set_datapath_on_dpa(poster_ctx(p), fx.ctx.dpa));
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_poster_dpa_completion_attach(p, foreign_comp)
    );
    // Not modelled: the on-behalf QP outputs.
    for f in [
        abi::doca_rdmi_connection_set_qp_create_out,
        abi::doca_rdmi_connection_set_qp_modify_out,
        abi::doca_rdmi_connection_set_qp_query_out,
    ] {
        fails!(NOT_SUPPORTED, f(conn, input.as_ptr().cast(), 4));
    }
    ok!(abi::doca_dpa_completion_destroy(foreign_comp));
    stranger.teardown();
    ok!(abi::doca_rdmi_poster_destroy(p));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    ok!(abi::doca_verbs_pd_destroy(foreign));
    ok!(abi::doca_verbs_context_destroy(other));
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn rdmi_objects_keep_what_they_use_in_use() {
    let scope = dpu_scope();
    let fx = Fixture::new(noop_app());
    let conn = connection(fx.vctx, fx.rep);
    ok!(abi::doca_rdmi_connection_set_pd(conn, fx.pd));
    ok!(abi::doca_ctx_set_datapath_on_dpa(
        connection_ctx(conn),
        fx.ctx.dpa
    ));
    fails!(IN_USE, abi::doca_dev_rep_close(fx.rep));
    fails!(IN_USE, abi::doca_verbs_pd_destroy(fx.pd));
    fails!(IN_USE, abi::doca_verbs_context_destroy(fx.vctx));
    fails!(IN_USE, abi::doca_dpa_destroy(fx.ctx.dpa));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    fails!(INVALID_VALUE, abi::doca_rdmi_connection_destroy(conn));
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn host_posts_complete_on_the_attached_dpa_completion() {
    let scope = dpu_scope();
    static COMP: AtomicU64 = AtomicU64::new(0);
    static SEEN: AtomicU32 = AtomicU32::new(0);
    unsafe extern "C" fn drain(_: *const u64) -> u64 {
        let h = COMP.load(SeqCst);
        let mut e = 0u64;
        // SAFETY: device API of the sim with a handle the host exported.
        unsafe {
            while doca_dpa_dev_get_completion(h, &mut e) != 0 {
                if doca_dpa_dev_get_completion_type(e) == COMP_SEND {
                    SEEN.fetch_add(1, SeqCst);
                }
                doca_dpa_dev_completion_ack(h, 1);
            }
        }
        0
    }
    let k = entry!();
    let fx = Fixture::new(app(c"posts", vec![global(c"drain", k, drain)]));
    let comp = fx.completion();
    COMP.store(completion_handle(comp), SeqCst);
    let p = poster(fx.vctx);
    let pctx = poster_ctx(p);
    ok!(abi::doca_ctx_set_datapath_on_dpa(pctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_poster_dpa_completion_attach(p, comp));
    let mut cqes = [0u8; 64];
    let cqe_buf: *mut c_void = cqes.as_mut_ptr().cast();
    fails!(BAD_STATE, abi::doca_rdmi_poster_post(p, cqe_buf, 1, 0));
    ok!(abi::doca_ctx_start(pctx));
    fails!(INVALID_VALUE, abi::doca_rdmi_poster_post(p, cqe_buf, 0, 0));
    fails!(
        INVALID_VALUE,
        abi::doca_rdmi_poster_post(p, null_mut(), 1, 0)
    );
    ok!(abi::doca_rdmi_poster_post(p, cqe_buf, 3, 0x77));
    let ev = fx.ctx.comp_event();
    ok!(fx.ctx.launch(ev, 1, 1, k));
    wait_value(ev, 1);
    assert_eq!(SEEN.load(SeqCst), 3);
    ok!(abi::doca_ctx_stop(pctx));
    ok!(abi::doca_rdmi_poster_destroy(p));
    drop_completion(comp);
    drop_event(ev);
    fx.teardown();
    assert_no_leaks(&scope);
}

/// Handles a loopback kernel works with, and what it saw.
static POSTER: AtomicU64 = AtomicU64::new(0);
static CONN: AtomicU64 = AtomicU64::new(0);
static POSTER_COMP: AtomicU64 = AtomicU64::new(0);
static CONN_COMP: AtomicU64 = AtomicU64::new(0);
static LEN: AtomicU32 = AtomicU32::new(0);
static SEND_CODE: AtomicI32 = AtomicI32::new(-1);
static CONSUME: AtomicU32 = AtomicU32::new(0);
static CONSUME_CODE: AtomicI32 = AtomicI32::new(-1);
static RQ_ADDR: AtomicU64 = AtomicU64::new(0);
/// Last element of each completion: type << 56 | user data << 32 | imm.
static CONN_SEEN: AtomicU64 = AtomicU64::new(0);
static POSTER_SEEN: AtomicU64 = AtomicU64::new(0);

/// Sends LEN bytes (0, 1, 2, ...) with user data 9.
unsafe extern "C" fn send(_: *const u64) -> u64 {
    let mut data = [0u8; 80];
    let mut i = 0;
    while i < data.len() {
        data[i] = i as u8 + 1;
        i += 1;
    }
    // SAFETY: device API of the sim with handles the host exported.
    let code = unsafe {
        doca_sim_dev_rdmi_send(
            POSTER.load(SeqCst),
            CONN.load(SeqCst),
            data.as_ptr().cast(),
            LEN.load(SeqCst),
            9,
        )
    };
    SEND_CODE.store(code, SeqCst);
    0
}

/// Reads both completions and consumes CONSUME receives.
unsafe extern "C" fn drain_and_consume(_: *const u64) -> u64 {
    let mut e = 0u64;
    // SAFETY: device API of the sim with handles the host exported.
    unsafe {
        for (comp, seen) in [
            (CONN_COMP.load(SeqCst), &CONN_SEEN),
            (POSTER_COMP.load(SeqCst), &POSTER_SEEN),
        ] {
            while doca_dpa_dev_get_completion(comp, &mut e) != 0 {
                let kind = u64::from(doca_dpa_dev_get_completion_type(e));
                let user = u64::from(doca_dpa_dev_get_completion_user_data(e));
                let imm = u64::from(doca_dpa_dev_get_completion_immediate(e));
                seen.store(kind << 56 | user << 32 | imm, SeqCst);
                doca_dpa_dev_completion_ack(comp, 1);
            }
        }
        let conn = CONN.load(SeqCst);
        RQ_ADDR.store(doca_sim_dev_rdmi_rq_addr(conn), SeqCst);
        CONSUME_CODE.store(
            doca_sim_dev_rdmi_consume(conn, CONSUME.load(SeqCst)),
            SeqCst,
        );
    }
    0
}

#[test]
fn loopback_send_consume_ack_and_asynchronous_stop() {
    let scope = dpu_scope();
    let s = entry!();
    let d = entry!();
    let fx = Fixture::new(app(
        c"loopback",
        vec![
            global(c"send", s, send),
            global(c"drain", d, drain_and_consume),
        ],
    ));
    let ev = fx.ctx.comp_event();
    let mut launches = 0;
    let mut run = |k| {
        launches += 1;
        ok!(fx.ctx.launch(ev, launches, 1, k));
        wait_value(ev, launches);
    };

    let pcomp = fx.completion();
    let ccomp = fx.completion();
    POSTER_COMP.store(completion_handle(pcomp), SeqCst);
    CONN_COMP.store(completion_handle(ccomp), SeqCst);
    // A receive buffer of two 64-byte slots.
    let mut rq = vec![0u8; 128];
    let conn = connection(fx.vctx, fx.rep);
    let cctx = connection_ctx(conn);
    ok!(abi::doca_rdmi_connection_set_pd(conn, fx.pd));
    ok!(abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_connection_dpa_completion_attach(conn, ccomp));
    ok!(abi::doca_rdmi_connection_init_receive(
        conn,
        rq.as_mut_ptr().cast(),
        rq.len()
    ));
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, cctx));
    ok!(abi::doca_ctx_start(cctx));
    let p = poster(fx.vctx);
    let pctx = poster_ctx(p);
    ok!(abi::doca_rdmi_poster_set_pd(p, fx.pd));
    ok!(abi::doca_ctx_set_datapath_on_dpa(pctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_poster_dpa_completion_attach(p, pcomp));
    ok!(abi::doca_ctx_start(pctx));
    let mut h = 0;
    ok!(abi::doca_rdmi_poster_get_dpa_handle(p, &mut h));
    POSTER.store(h, SeqCst);
    ok!(abi::doca_rdmi_connection_get_dpa_handle(conn, &mut h));
    CONN.store(h, SeqCst);

    // A message lands in slot 0; each side gets its completion.
    LEN.store(5, SeqCst);
    run(s);
    assert_eq!(SEND_CODE.load(SeqCst), 0);
    assert_eq!(&rq[..6], &[1, 2, 3, 4, 5, 0]);
    CONSUME.store(0, SeqCst);
    run(d);
    assert_eq!(RQ_ADDR.load(SeqCst), rq.as_ptr() as u64);
    assert_eq!(
        CONN_SEEN.load(SeqCst),
        u64::from(COMP_RECV_SEND) << 56 | 5,
        "RECV_SEND, slot 0, 5 bytes"
    );
    assert_eq!(
        POSTER_SEEN.load(SeqCst),
        u64::from(COMP_SEND) << 56 | 9 << 32 | 5,
        "SEND, user data 9, 5 bytes"
    );
    // Nothing consumed yet: the host cannot acknowledge.
    fails!(INVALID_VALUE, abi::doca_rdmi_connection_recv_ack(conn, 1));

    // The second message goes to slot 1; the window (2 slots) is then full.
    LEN.store(64, SeqCst);
    run(s);
    assert_eq!(SEND_CODE.load(SeqCst), 0);
    assert_eq!(&rq[64..128], &(1..=64).collect::<Vec<u8>>()[..]);
    run(s);
    assert_eq!(SEND_CODE.load(SeqCst), AGAIN as i32);
    // Model choice: longer than a slot is INVALID_VALUE.
    LEN.store(65, SeqCst);
    run(s);
    assert_eq!(SEND_CODE.load(SeqCst), INVALID_VALUE as i32);

    // Consume one; consuming more than received is refused.
    CONSUME.store(3, SeqCst);
    run(d);
    assert_eq!(CONSUME_CODE.load(SeqCst), INVALID_VALUE as i32);
    CONSUME.store(1, SeqCst);
    run(d);
    assert_eq!(CONSUME_CODE.load(SeqCst), 0);
    assert_eq!(
        CONN_SEEN.load(SeqCst),
        u64::from(COMP_RECV_SEND) << 56 | 1 << 32 | 64,
        "RECV_SEND, slot 1, 64 bytes"
    );
    fails!(INVALID_VALUE, abi::doca_rdmi_connection_recv_ack(conn, 2));
    ok!(abi::doca_rdmi_connection_recv_ack(conn, 1));
    // One slot free again: the next message wraps to slot 0.
    LEN.store(3, SeqCst);
    run(s);
    assert_eq!(SEND_CODE.load(SeqCst), 0);
    assert_eq!(&rq[..6], &[1, 2, 3, 4, 5, 0]);

    // The kernel consumes the two outstanding messages; the host has not
    // acknowledged them: the stop is asynchronous.
    CONSUME.store(2, SeqCst);
    run(d);
    assert_eq!(CONSUME_CODE.load(SeqCst), 0);
    fails!(IN_PROGRESS, abi::doca_ctx_stop(cctx));
    assert_eq!(state(cctx), abi::DOCA_CTX_STATE_STOPPING);
    fails!(IN_PROGRESS, abi::doca_ctx_stop(cctx));
    fails!(BAD_STATE, abi::doca_rdmi_connection_destroy(conn));
    assert_eq!(ffi!(abi::doca_pe_progress(pe)), 0);
    // The host acknowledges; the PE finishes the stop once all are.
    ok!(abi::doca_rdmi_connection_recv_ack(conn, 1));
    assert_eq!(ffi!(abi::doca_pe_progress(pe)), 0);
    assert_eq!(state(cctx), abi::DOCA_CTX_STATE_STOPPING);
    ok!(abi::doca_rdmi_connection_recv_ack(conn, 1));
    assert_eq!(ffi!(abi::doca_pe_progress(pe)), 1);
    assert_eq!(state(cctx), abi::DOCA_CTX_STATE_IDLE);
    fails!(BAD_STATE, abi::doca_rdmi_connection_recv_ack(conn, 0));

    // The stopped connection's handle is retracted.
    LEN.store(1, SeqCst);
    run(s);
    assert_eq!(SEND_CODE.load(SeqCst), INVALID_VALUE as i32);
    ok!(fx.ctx.peek());

    ok!(abi::doca_ctx_stop(pctx));
    ok!(abi::doca_rdmi_poster_destroy(p));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    ok!(abi::doca_pe_destroy(pe));
    drop_completion(pcomp);
    drop_completion(ccomp);
    drop_event(ev);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn an_asynchronous_stop_also_finishes_on_get_state() {
    let scope = dpu_scope();
    static P: AtomicU64 = AtomicU64::new(0);
    static C: AtomicU64 = AtomicU64::new(0);
    static CODES: AtomicI32 = AtomicI32::new(-1);
    unsafe extern "C" fn send_and_consume(_: *const u64) -> u64 {
        let byte = 7u8;
        // SAFETY: device API of the sim with handles the host exported.
        let code = unsafe {
            doca_sim_dev_rdmi_send(
                P.load(SeqCst),
                C.load(SeqCst),
                (&byte as *const u8).cast(),
                1,
                0,
            ) | doca_sim_dev_rdmi_consume(C.load(SeqCst), 1)
        };
        CODES.store(code, SeqCst);
        0
    }
    let k = entry!();
    let fx = Fixture::new(app(c"async_stop", vec![global(c"k", k, send_and_consume)]));
    let cq = cq(fx.vctx, 16);
    let mut rq = vec![0u8; 64];
    let conn = connection(fx.vctx, fx.rep);
    let cctx = connection_ctx(conn);
    ok!(abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_connection_cq_attach(conn, cq));
    ok!(abi::doca_rdmi_connection_init_receive(
        conn,
        rq.as_mut_ptr().cast(),
        rq.len()
    ));
    ok!(abi::doca_ctx_start(cctx));
    let p = poster(fx.vctx);
    let pctx = poster_ctx(p);
    ok!(abi::doca_ctx_set_datapath_on_dpa(pctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_poster_cq_attach(p, cq));
    ok!(abi::doca_ctx_start(pctx));
    let mut h = 0;
    ok!(abi::doca_rdmi_poster_get_dpa_handle(p, &mut h));
    P.store(h, SeqCst);
    ok!(abi::doca_rdmi_connection_get_dpa_handle(conn, &mut h));
    C.store(h, SeqCst);
    let ev = fx.ctx.comp_event();
    ok!(fx.ctx.launch(ev, 1, 1, k));
    wait_value(ev, 1);
    assert_eq!(CODES.load(SeqCst), 0);
    assert_eq!(rq[0], 7);
    fails!(IN_PROGRESS, abi::doca_ctx_stop(cctx));
    ok!(abi::doca_rdmi_connection_recv_ack(conn, 1));
    // No PE: reading the state finishes the stop.
    assert_eq!(state(cctx), abi::DOCA_CTX_STATE_IDLE);
    ok!(abi::doca_ctx_stop(pctx));
    ok!(abi::doca_rdmi_poster_destroy(p));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    ok!(abi::doca_verbs_cq_destroy(cq));
    drop_event(ev);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn rdmi_needs_a_device_with_a_dpa() {
    let scope = dpu_scope();
    let bf2 = open_dev(BF2);
    let vctx = verbs_ctx(bf2);
    let cq = cq(vctx, 16);
    let p = poster(vctx);
    let pctx = poster_ctx(p);
    ok!(abi::doca_rdmi_poster_cq_attach(p, cq));
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, pctx));
    fails!(NOT_SUPPORTED, abi::doca_ctx_start(pctx));
    assert_eq!(state(pctx), abi::DOCA_CTX_STATE_IDLE);
    ok!(abi::doca_rdmi_poster_destroy(p));
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_verbs_cq_destroy(cq));
    ok!(abi::doca_verbs_context_destroy(vctx));
    close_dev(bf2);
    assert_no_leaks(&scope);
}

#[test]
fn a_poster_and_a_connection_of_different_verbs_contexts_do_not_pair() {
    let scope = dpu_scope();
    static P: AtomicU64 = AtomicU64::new(0);
    static C: AtomicU64 = AtomicU64::new(0);
    static CODE: AtomicI32 = AtomicI32::new(-1);
    unsafe extern "C" fn send_one(_: *const u64) -> u64 {
        let byte = 1u8;
        // SAFETY: device API of the sim with handles the host exported.
        let code = unsafe {
            doca_sim_dev_rdmi_send(
                P.load(SeqCst),
                C.load(SeqCst),
                (&byte as *const u8).cast(),
                1,
                0,
            )
        };
        CODE.store(code, SeqCst);
        0
    }
    let k = entry!();
    let fx = Fixture::new(app(c"mismatch", vec![global(c"k", k, send_one)]));
    let other_vctx = verbs_ctx(fx.ctx.dev);
    let other_pd = pd(fx.vctx);
    let cq = cq(fx.vctx, 16);
    let other_cq = cq_on(other_vctx);
    let mut rq = vec![0u8; 64];
    let conn = connection(fx.vctx, fx.rep);
    let cctx = connection_ctx(conn);
    ok!(abi::doca_rdmi_connection_set_pd(conn, fx.pd));
    ok!(abi::doca_ctx_set_datapath_on_dpa(cctx, fx.ctx.dpa));
    ok!(abi::doca_rdmi_connection_cq_attach(conn, cq));
    ok!(abi::doca_rdmi_connection_init_receive(
        conn,
        rq.as_mut_ptr().cast(),
        rq.len()
    ));
    ok!(abi::doca_ctx_start(cctx));
    let mut h = 0;
    ok!(abi::doca_rdmi_connection_get_dpa_handle(conn, &mut h));
    C.store(h, SeqCst);
    let ev = fx.ctx.comp_event();
    let mut launches = 0;
    // Model choice: a poster of another verbs context, or with another PD,
    // cannot send to the connection (INVALID_VALUE from the device call).
    for (vctx, pd, cq) in [(other_vctx, None, other_cq), (fx.vctx, Some(other_pd), cq)] {
        let p = poster(vctx);
        let pctx = poster_ctx(p);
        if let Some(pd) = pd {
            ok!(abi::doca_rdmi_poster_set_pd(p, pd));
        }
        ok!(abi::doca_ctx_set_datapath_on_dpa(pctx, fx.ctx.dpa));
        ok!(abi::doca_rdmi_poster_cq_attach(p, cq));
        ok!(abi::doca_ctx_start(pctx));
        ok!(abi::doca_rdmi_poster_get_dpa_handle(p, &mut h));
        P.store(h, SeqCst);
        launches += 1;
        ok!(fx.ctx.launch(ev, launches, 1, k));
        wait_value(ev, launches);
        assert_eq!(CODE.load(SeqCst), INVALID_VALUE as i32);
        assert_eq!(rq[0], 0, "nothing was delivered");
        ok!(abi::doca_ctx_stop(pctx));
        ok!(abi::doca_rdmi_poster_destroy(p));
    }
    ok!(abi::doca_ctx_stop(cctx));
    ok!(abi::doca_rdmi_connection_destroy(conn));
    ok!(abi::doca_verbs_cq_destroy(cq));
    ok!(abi::doca_verbs_cq_destroy(other_cq));
    ok!(abi::doca_verbs_pd_destroy(other_pd));
    ok!(abi::doca_verbs_context_destroy(other_vctx));
    drop_event(ev);
    fx.teardown();
    assert_no_leaks(&scope);
}

fn cq_on(vctx: *mut abi::doca_verbs_context) -> *mut abi::doca_verbs_cq {
    cq(vctx, 16)
}
