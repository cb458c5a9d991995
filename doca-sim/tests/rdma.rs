//! DOCA RDMA on the DPA datapath (`doca_rdma.h`, `doca_dpa_dev_rdma.h`): the
//! host-side lifecycle and its errors, and the loopback between two contexts
//! of one process that NVIDIA's RDMA samples rely on (model choices of
//! `src/rdma.rs`, listed in docs/sim-model.md): data moves when posted,
//! a send waits for a receive, completions carry the receive index and the
//! byte count or immediate, OPTIMIZE_REPORTS reports nothing, errors are
//! always reported, signals report nothing, and bad posts are device faults.

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::Mutex;

use common::*;
use doca_sim::{FaultKind, QueueKind};

extern "C" {
    fn doca_dpa_dev_rdma_post_send(
        rdma: u64,
        conn: u32,
        mmap: u32,
        addr: u64,
        len: usize,
        flags: u32,
    );
    fn doca_dpa_dev_rdma_post_send_imm(
        rdma: u64,
        conn: u32,
        mmap: u32,
        addr: u64,
        len: usize,
        immediate: u32,
        flags: u32,
    );
    fn doca_dpa_dev_rdma_post_receive(rdma: u64, mmap: u32, addr: u64, len: usize);
    fn doca_dpa_dev_rdma_post_write(
        rdma: u64,
        conn: u32,
        dst_mmap: u32,
        dst: u64,
        src_mmap: u32,
        src: u64,
        len: usize,
        flags: u32,
    );
    fn doca_dpa_dev_rdma_post_write_imm(
        rdma: u64,
        conn: u32,
        dst_mmap: u32,
        dst: u64,
        src_mmap: u32,
        src: u64,
        len: usize,
        immediate: u32,
        flags: u32,
    );
    fn doca_dpa_dev_rdma_post_read(
        rdma: u64,
        conn: u32,
        dst_mmap: u32,
        dst: u64,
        src_mmap: u32,
        src: u64,
        len: usize,
        flags: u32,
    );
    fn doca_dpa_dev_rdma_post_atomic_fetch_add(
        rdma: u64,
        conn: u32,
        dst_mmap: u32,
        dst: u64,
        value: u64,
        flags: u32,
    );
    fn doca_dpa_dev_rdma_signal_set(rdma: u64, conn: u32, remote_event: u64, count: u64);
    fn doca_dpa_dev_rdma_signal_add(rdma: u64, conn: u32, remote_event: u64, count: u64);
}

/// `DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS`.
const OPTIMIZE_REPORTS: u64 = 1 << 1;
const CONNECTION_ABORTED: Code = abi::DOCA_ERROR_CONNECTION_ABORTED;
const ALL_RDMA: u32 = abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE
    | abi::DOCA_ACCESS_FLAG_RDMA_READ
    | abi::DOCA_ACCESS_FLAG_RDMA_WRITE
    | abi::DOCA_ACCESS_FLAG_RDMA_ATOMIC;

/// The kernel below works from these statics, so the tests take turns.
static SERIAL: Mutex<()> = Mutex::new(());
/// What `step` does, on which context, with which arguments.
static OP: AtomicU32 = AtomicU32::new(0);
static RDMA: AtomicU64 = AtomicU64::new(0);
static ARGS: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];
/// Elements `step` read: (type, user data, immediate).
static SEEN: Mutex<Vec<(u32, u32, u32)>> = Mutex::new(Vec::new());

const RECEIVE: u32 = 1;
const SEND: u32 = 2;
const SEND_IMM: u32 = 3;
const DRAIN: u32 = 4;
const WRITE: u32 = 5;
const WRITE_IMM: u32 = 6;
const READ: u32 = 7;
const ATOMIC_ADD: u32 = 8;
const SIGNAL_SET: u32 = 9;
const SIGNAL_ADD: u32 = 10;

fn arg(i: usize) -> u64 {
    ARGS[i].load(SeqCst)
}

/// One DPA RDMA call (or a drain of a completion context), chosen by `OP`.
unsafe extern "C" fn step(_: *const u64) -> u64 {
    let r = RDMA.load(SeqCst);
    let (a0, a1, a2, a3, a4, a5, a6) = (arg(0), arg(1), arg(2), arg(3), arg(4), arg(5), arg(6));
    // SAFETY: device API of the sim with the handles and map ranges the test
    // set up (or, in the fault tests, deliberately bad ones, which end this
    // run: nothing here has a destructor pending at a device call).
    unsafe {
        match OP.load(SeqCst) {
            RECEIVE => doca_dpa_dev_rdma_post_receive(r, a0 as u32, a1, a2 as usize),
            SEND => {
                doca_dpa_dev_rdma_post_send(r, a3 as u32, a0 as u32, a1, a2 as usize, a4 as u32)
            }
            SEND_IMM => doca_dpa_dev_rdma_post_send_imm(
                r,
                a3 as u32,
                a0 as u32,
                a1,
                a2 as usize,
                a5 as u32,
                a4 as u32,
            ),
            DRAIN => {
                let mut e = 0u64;
                while doca_dpa_dev_get_completion(a0, &mut e) != 0 {
                    let seen = (
                        doca_dpa_dev_get_completion_type(e),
                        doca_dpa_dev_get_completion_user_data(e),
                        doca_dpa_dev_get_completion_immediate(e),
                    );
                    SEEN.lock().unwrap().push(seen);
                    doca_dpa_dev_completion_ack(a0, 1);
                }
            }
            WRITE => doca_dpa_dev_rdma_post_write(
                r,
                0,
                a0 as u32,
                a1,
                a2 as u32,
                a3,
                a4 as usize,
                a5 as u32,
            ),
            WRITE_IMM => doca_dpa_dev_rdma_post_write_imm(
                r,
                0,
                a0 as u32,
                a1,
                a2 as u32,
                a3,
                a4 as usize,
                a6 as u32,
                a5 as u32,
            ),
            READ => doca_dpa_dev_rdma_post_read(
                r,
                0,
                a0 as u32,
                a1,
                a2 as u32,
                a3,
                a4 as usize,
                a5 as u32,
            ),
            ATOMIC_ADD => {
                doca_dpa_dev_rdma_post_atomic_fetch_add(r, 0, a0 as u32, a1, a2, a5 as u32)
            }
            SIGNAL_SET => doca_dpa_dev_rdma_signal_set(r, 0, a0, a1),
            SIGNAL_ADD => doca_dpa_dev_rdma_signal_add(r, 0, a0, a1),
            _ => {}
        }
    }
    0
}

/// A started DPA context running `step`, and the event its launches complete.
struct Fixture {
    ctx: Ctx,
    step: Func,
    done: *mut abi::doca_sync_event,
    launches: u64,
}

impl Fixture {
    fn new() -> Fixture {
        let k = entry!();
        Fixture::on(
            Ctx::started(app(c"rdma_steps", vec![global(c"step", k, step)])),
            k,
        )
    }

    /// A fixture on `ctx`, whose app has `step` as `k`.
    fn on(ctx: Ctx, k: Func) -> Fixture {
        let done = ctx.comp_event();
        Fixture {
            ctx,
            step: k,
            done,
            launches: 0,
        }
    }

    /// Runs `op` on `rdma` with `args` in a kernel and waits for it.
    fn run(&mut self, rdma: u64, op: u32, args: &[u64]) {
        RDMA.store(rdma, SeqCst);
        OP.store(op, SeqCst);
        for (slot, value) in ARGS.iter().zip(args.iter().chain(std::iter::repeat(&0))) {
            slot.store(*value, SeqCst);
        }
        self.launches += 1;
        ok!(self.ctx.launch(self.done, self.launches, 1, self.step));
        wait_value(self.done, self.launches);
    }

    /// Runs `op` expecting it to fault the context.
    fn run_faulting(&mut self, rdma: u64, op: u32, args: &[u64]) -> doca_sim::FaultReport {
        RDMA.store(rdma, SeqCst);
        OP.store(op, SeqCst);
        for (slot, value) in ARGS.iter().zip(args.iter().chain(std::iter::repeat(&0))) {
            slot.store(*value, SeqCst);
        }
        ok!(self.ctx.launch(self.done, self.launches + 1, 1, self.step));
        assert!(poll(PATIENCE, || self.ctx.peek() == BAD_STATE), "no fault");
        doca_sim::fault_report(self.ctx.dpa).expect("a fault report")
    }

    /// The elements of `comp` (read and acknowledged by a kernel).
    fn drain(&mut self, comp: &Side) -> Vec<(u32, u32, u32)> {
        SEEN.lock().unwrap().clear();
        self.run(0, DRAIN, &[comp.comp_handle]);
        std::mem::take(&mut *SEEN.lock().unwrap())
    }
}

/// A started DOCA RDMA context on the fixture's DPA, with its completion
/// context and `connections` exported connections.
struct Side {
    rdma: *mut abi::doca_rdma,
    ctx: *mut abi::doca_ctx,
    comp: *mut abi::doca_dpa_completion,
    comp_handle: u64,
    handle: u64,
    conns: Vec<*mut abi::doca_rdma_connection>,
    details: Vec<(*const c_void, usize)>,
}

fn configured(fx: &Fixture, connections: u16, recv_queue: u32) -> Side {
    let mut rdma = null_mut();
    ok!(abi::doca_rdma_create(fx.ctx.dev, &mut rdma));
    let ctx = ffi!(abi::doca_rdma_as_ctx(rdma));
    assert!(!ctx.is_null());
    ok!(abi::doca_rdma_set_permissions(rdma, ALL_RDMA));
    ok!(abi::doca_rdma_set_grh_enabled(rdma, 1));
    ok!(abi::doca_rdma_set_recv_queue_size(rdma, recv_queue));
    ok!(abi::doca_rdma_set_max_num_connections(rdma, connections));
    ok!(abi::doca_ctx_set_datapath_on_dpa(ctx, fx.ctx.dpa));
    let mut comp = null_mut();
    ok!(abi::doca_dpa_completion_create(fx.ctx.dpa, 8, &mut comp));
    ok!(abi::doca_dpa_completion_start(comp));
    let mut comp_handle = 0;
    ok!(abi::doca_dpa_completion_get_dpa_handle(
        comp,
        &mut comp_handle
    ));
    ok!(abi::doca_rdma_dpa_completion_attach(rdma, comp));
    Side {
        rdma,
        ctx,
        comp,
        comp_handle,
        handle: 0,
        conns: Vec::new(),
        details: Vec::new(),
    }
}

fn started(fx: &Fixture, connections: u16, recv_queue: u32) -> Side {
    let mut side = configured(fx, connections, recv_queue);
    ok!(abi::doca_ctx_start(side.ctx));
    ok!(abi::doca_rdma_get_dpa_handle(side.rdma, &mut side.handle));
    for i in 0..connections {
        let (mut details, mut len, mut conn) = (null(), 0, null_mut());
        ok!(abi::doca_rdma_export(
            side.rdma,
            &mut details,
            &mut len,
            &mut conn
        ));
        let mut id = 99;
        ok!(abi::doca_rdma_connection_get_id(conn, &mut id));
        assert_eq!(id, u32::from(i), "connection ids count exports");
        side.conns.push(conn);
        side.details.push((details, len));
    }
    side
}

/// Connects connection `i` of each side to the other's.
fn connect(a: &Side, b: &Side, i: usize) {
    ok!(abi::doca_rdma_connect(
        a.rdma,
        b.details[i].0,
        b.details[i].1,
        a.conns[i]
    ));
    ok!(abi::doca_rdma_connect(
        b.rdma,
        a.details[i].0,
        a.details[i].1,
        b.conns[i]
    ));
}

fn teardown(side: Side) {
    ok!(abi::doca_ctx_stop(side.ctx));
    ok!(abi::doca_rdma_destroy(side.rdma));
    ok!(abi::doca_dpa_completion_destroy(side.comp));
}

/// A started map of host memory on the fixture's device and its DPA handle.
fn host_map(fx: &Fixture, mem: &[AtomicU64], permissions: u32) -> (*mut abi::doca_mmap, u32) {
    let mut m = null_mut();
    ok!(abi::doca_mmap_create(&mut m));
    ok!(abi::doca_mmap_set_permissions(m, permissions));
    ok!(abi::doca_mmap_set_memrange(
        m,
        mem.as_ptr().cast_mut().cast(),
        mem.len() * 8
    ));
    ok!(abi::doca_mmap_add_dev(m, fx.ctx.dev));
    ok!(abi::doca_mmap_start(m));
    let mut h = 0;
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, fx.ctx.dev, &mut h));
    (m, h)
}

/// The initiator's view of a map exported for RDMA: a map made from the
/// export, and its DPA handle.
fn remote_map(fx: &Fixture, exported: *mut abi::doca_mmap) -> (*mut abi::doca_mmap, u32) {
    let (mut desc, mut len) = (null(), 0);
    ok!(abi::doca_mmap_export_rdma(
        exported, fx.ctx.dev, &mut desc, &mut len
    ));
    let mut m = null_mut();
    ok!(abi::doca_mmap_create_from_export(
        null(),
        desc,
        len,
        fx.ctx.dev,
        &mut m
    ));
    let mut h = 0;
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, fx.ctx.dev, &mut h));
    (m, h)
}

/// Host memory the DPA reaches through maps: words the test and the sim
/// may both touch.
fn words(n: usize) -> Box<[AtomicU64]> {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}

/// The address of a word, as kernels name it.
fn at(word: &AtomicU64) -> u64 {
    word.as_ptr() as u64
}

const RECV_RDMA_WRITE_IMM: u32 = 0x1;
const RECV_SEND: u32 = 0x2;
const RECV_SEND_IMM: u32 = 0x3;
const SEND_DONE: u32 = 0x0;
const SEND_ERR: u32 = 0xD;
const RECV_ERR: u32 = 0xE;

#[test]
fn the_host_lifecycle_and_its_errors() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let fx = Fixture::new();
    let mut info_ok = 0;
    let (list, items) = dev_list();
    for info in &items {
        ok!(abi::doca_rdma_cap_task_send_is_supported(*info));
        info_ok += 1;
    }
    assert_eq!(info_ok, items.len(), "every simulated device can send");
    ok!(abi::doca_devinfo_destroy_list(list));
    fails!(
        INVALID_VALUE,
        abi::doca_rdma_cap_task_send_is_supported(null())
    );
    fails!(INVALID_VALUE, abi::doca_rdma_create(fx.ctx.dev, null_mut()));
    fails!(
        INVALID_VALUE,
        abi::doca_rdma_create(null_mut(), &mut null_mut())
    );

    let mut rdma = null_mut();
    ok!(abi::doca_rdma_create(fx.ctx.dev, &mut rdma));
    let ctx = ffi!(abi::doca_rdma_as_ctx(rdma));
    // The device is in use while the context exists.
    fails!(IN_USE, abi::doca_dev_close(fx.ctx.dev));
    // Defaults (model choices): local read/write, one connection, 64 receives.
    let (mut perms, mut conns, mut rq) = (0, 0, 0);
    ok!(abi::doca_rdma_get_permissions(rdma, &mut perms));
    assert_eq!(perms, abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    ok!(abi::doca_rdma_get_max_num_connections(rdma, &mut conns));
    assert_eq!(conns, 1);
    ok!(abi::doca_rdma_get_recv_queue_size(rdma, &mut rq));
    assert_eq!(rq, 64);
    fails!(
        INVALID_VALUE,
        abi::doca_rdma_set_permissions(rdma, abi::DOCA_ACCESS_FLAG_PCI_READ_WRITE)
    );
    fails!(INVALID_VALUE, abi::doca_rdma_set_recv_queue_size(rdma, 0));
    fails!(
        NOT_SUPPORTED,
        abi::doca_rdma_set_recv_queue_size(rdma, 1 << 20)
    );
    fails!(INVALID_VALUE, abi::doca_rdma_set_send_queue_size(rdma, 0));
    fails!(
        NOT_SUPPORTED,
        abi::doca_rdma_set_max_num_connections(rdma, 0)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_rdma_task_receive_set_dst_buf_list_len(rdma, 0)
    );
    ok!(abi::doca_rdma_set_recv_queue_size(rdma, 3));
    ok!(abi::doca_rdma_get_recv_queue_size(rdma, &mut rq));
    assert_eq!(rq, 4, "rounded up to a power of two");

    // Only the DPA datapath is modelled; a DPA completion needs it first.
    let mut comp = null_mut();
    ok!(abi::doca_dpa_completion_create(fx.ctx.dpa, 8, &mut comp));
    fails!(
        INVALID_VALUE,
        abi::doca_rdma_dpa_completion_attach(rdma, comp)
    );
    let pe = new_pe();
    ok!(abi::doca_pe_connect_ctx(pe, ctx));
    fails!(NOT_SUPPORTED, abi::doca_ctx_start(ctx));
    ok!(abi::doca_ctx_set_datapath_on_dpa(ctx, fx.ctx.dpa));
    // No completion attached.
    fails!(BAD_STATE, abi::doca_ctx_start(ctx));
    ok!(abi::doca_rdma_dpa_completion_attach(rdma, comp));
    // The completion is not started.
    fails!(BAD_STATE, abi::doca_ctx_start(ctx));
    ok!(abi::doca_dpa_completion_start(comp));
    let (mut details, mut len, mut conn) = (null(), 0, null_mut());
    fails!(
        BAD_STATE,
        abi::doca_rdma_export(rdma, &mut details, &mut len, &mut conn)
    );
    let mut handle = 0;
    fails!(BAD_STATE, abi::doca_rdma_get_dpa_handle(rdma, &mut handle));
    ok!(abi::doca_ctx_start(ctx));

    // Started: configuration is over; one connection may be exported.
    fails!(BAD_STATE, abi::doca_rdma_set_permissions(rdma, ALL_RDMA));
    fails!(BAD_STATE, abi::doca_rdma_set_gid_index(rdma, 1));
    fails!(BAD_STATE, abi::doca_rdma_dpa_completion_attach(rdma, comp));
    fails!(BAD_STATE, abi::doca_rdma_destroy(rdma));
    ok!(abi::doca_rdma_get_dpa_handle(rdma, &mut handle));
    let mut again = 0;
    ok!(abi::doca_rdma_get_dpa_handle(rdma, &mut again));
    assert_eq!(handle, again);
    fails!(
        INVALID_VALUE,
        abi::doca_rdma_export(rdma, null_mut(), &mut len, &mut conn)
    );
    ok!(abi::doca_rdma_export(
        rdma,
        &mut details,
        &mut len,
        &mut conn
    ));
    let (mut d2, mut l2, mut c2) = (null(), 0, null_mut());
    fails!(FULL, abi::doca_rdma_export(rdma, &mut d2, &mut l2, &mut c2));
    assert_eq!(scope.live_objects().get("doca_rdma_connection"), Some(&1));

    // Connection details: garbage is refused; a connection connects once.
    let junk = [0u8; 24];
    fails!(
        CONNECTION_ABORTED,
        abi::doca_rdma_connect(rdma, junk.as_ptr().cast(), junk.len(), conn)
    );
    fails!(INVALID_VALUE, abi::doca_rdma_connect(rdma, null(), 0, conn));
    let other = started(&fx, 1, 4);
    fails!(
        INVALID_VALUE,
        abi::doca_rdma_connect(rdma, other.details[0].0, other.details[0].1, other.conns[0])
    );
    ok!(abi::doca_rdma_connect(
        rdma,
        other.details[0].0,
        other.details[0].1,
        conn
    ));
    fails!(
        BAD_STATE,
        abi::doca_rdma_connect(rdma, other.details[0].0, other.details[0].1, conn)
    );

    // Stopping drops the connections: their objects go, their details no
    // longer resolve, and the DPA handle is withdrawn.
    ok!(abi::doca_ctx_stop(ctx));
    assert_eq!(
        scope.live_objects().get("doca_rdma_connection"),
        Some(&1),
        "only the other side's"
    );
    fails!(
        CONNECTION_ABORTED,
        abi::doca_rdma_connect(other.rdma, details, len, other.conns[0])
    );
    fails!(BAD_STATE, abi::doca_rdma_get_dpa_handle(rdma, &mut handle));
    ok!(abi::doca_rdma_destroy(rdma));
    ok!(abi::doca_pe_destroy(pe));
    ok!(abi::doca_dpa_completion_destroy(comp));
    teardown(other);
    drop_event(fx.done);
    fx.ctx.teardown();
    assert_no_leaks(&scope);
}

/// The datapath must be a DPA context on the RDMA context's own device: on a
/// BlueField's Arm side, the PF's context extended onto the SF.
#[test]
fn the_datapath_is_a_dpa_context_on_the_rdma_device() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    scope.set_profile(Profile::dpu_view());
    let ctx = Ctx::started(noop_app());
    let sf = open_dev(SF);
    let mut rdma = null_mut();
    ok!(abi::doca_rdma_create(sf, &mut rdma));
    let rctx = ffi!(abi::doca_rdma_as_ctx(rdma));
    ok!(abi::doca_ctx_set_datapath_on_dpa(rctx, ctx.dpa));
    let mut comp = null_mut();
    ok!(abi::doca_dpa_completion_create(ctx.dpa, 8, &mut comp));
    ok!(abi::doca_dpa_completion_start(comp));
    ok!(abi::doca_rdma_dpa_completion_attach(rdma, comp));
    // The PF's own context does not run on the SF.
    fails!(INVALID_VALUE, abi::doca_ctx_start(rctx));
    let mut extended = null_mut();
    ok!(abi::doca_dpa_device_extend(ctx.dpa, sf, &mut extended));
    ok!(abi::doca_ctx_set_datapath_on_dpa(rctx, extended));
    // A completion of the base context serves its extension too.
    ok!(abi::doca_ctx_start(rctx));
    let mut handle = 0;
    ok!(abi::doca_rdma_get_dpa_handle(rdma, &mut handle));
    ok!(abi::doca_ctx_stop(rctx));
    ok!(abi::doca_rdma_destroy(rdma));
    ok!(abi::doca_dpa_completion_destroy(comp));
    ok!(abi::doca_dpa_destroy(extended));
    close_dev(sf);
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn sends_wait_for_receives_and_report_as_asked() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let mut fx = Fixture::new();
    let a = started(&fx, 2, 4);
    let b = started(&fx, 2, 4);
    connect(&a, &b, 0);
    connect(&a, &b, 1);
    let src = words(4);
    let dst = words(4);
    let (sm, sh) = host_map(&fx, &src, ALL_RDMA);
    let (dm, dh) = host_map(&fx, &dst, ALL_RDMA);
    let (s0, d0) = (at(&src[0]), at(&dst[0]));

    // A posted receive takes a send at once: the target reports the receive's
    // index and the byte count; the initiator a SEND.
    src[0].store(0x1111, SeqCst);
    fx.run(b.handle, RECEIVE, &[u64::from(dh), d0, 16]);
    fx.run(a.handle, SEND, &[u64::from(sh), s0, 8, 0, 0]);
    assert_eq!(dst[0].load(SeqCst), 0x1111);
    assert_eq!(fx.drain(&b), [(RECV_SEND, 0, 8)]);
    assert_eq!(fx.drain(&a), [(SEND_DONE, 0, 0)]);

    // Sends on either connection reach the target's one receive queue; with
    // no receive posted they wait, in order, with the payload they had when
    // posted. OPTIMIZE_REPORTS: the initiator hears nothing.
    src[0].store(2, SeqCst);
    fx.run(
        a.handle,
        SEND_IMM,
        &[u64::from(sh), s0, 8, 1, OPTIMIZE_REPORTS, 12],
    );
    src[0].store(3, SeqCst);
    fx.run(
        a.handle,
        SEND_IMM,
        &[u64::from(sh), s0, 8, 0, OPTIMIZE_REPORTS, 13],
    );
    src[0].store(99, SeqCst);
    assert_eq!(fx.drain(&b), []);
    assert_eq!(dst[0].load(SeqCst), 0x1111);
    fx.run(b.handle, RECEIVE, &[u64::from(dh), d0, 8]);
    assert_eq!(dst[0].load(SeqCst), 2);
    assert_eq!(fx.drain(&b), [(RECV_SEND_IMM, 1, 12)]);
    fx.run(b.handle, RECEIVE, &[u64::from(dh), d0, 8]);
    assert_eq!(dst[0].load(SeqCst), 3);
    assert_eq!(fx.drain(&b), [(RECV_SEND_IMM, 2, 13)]);
    assert_eq!(fx.drain(&a), []);

    // A message longer than the receive: errors on both sides, reported even
    // with OPTIMIZE_REPORTS; the receive buffer is untouched.
    fx.run(b.handle, RECEIVE, &[u64::from(dh), d0, 4]);
    fx.run(a.handle, SEND, &[u64::from(sh), s0, 8, 0, OPTIMIZE_REPORTS]);
    assert_eq!(dst[0].load(SeqCst), 3);
    assert_eq!(fx.drain(&b), [(RECV_ERR, 3, 0)]);
    assert_eq!(fx.drain(&a), [(SEND_ERR, 3, 0)]);

    // A receive whose map was destroyed after the post: nothing is written
    // there, errors on both sides.
    let gone = words(1);
    let (gm, gh) = host_map(&fx, &gone, ALL_RDMA);
    fx.run(b.handle, RECEIVE, &[u64::from(gh), at(&gone[0]), 8]);
    ok!(abi::doca_mmap_destroy(gm));
    fx.run(a.handle, SEND, &[u64::from(sh), s0, 8, 0, 0]);
    assert_eq!(gone[0].load(SeqCst), 0);
    assert_eq!(fx.drain(&b), [(RECV_ERR, 4, 0)]);
    assert_eq!(fx.drain(&a), [(SEND_ERR, 4, 0)]);

    // A target that stopped: the initiator's send fails.
    let b_ctx = b.ctx;
    ok!(abi::doca_ctx_stop(b_ctx));
    fx.run(a.handle, SEND, &[u64::from(sh), s0, 8, 0, OPTIMIZE_REPORTS]);
    assert_eq!(fx.drain(&a), [(SEND_ERR, 5, 0)]);
    ok!(fx.ctx.peek());
    ok!(abi::doca_rdma_destroy(b.rdma));
    ok!(abi::doca_dpa_completion_destroy(b.comp));

    ok!(abi::doca_mmap_destroy(sm));
    ok!(abi::doca_mmap_destroy(dm));
    teardown(a);
    drop_event(fx.done);
    fx.ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn writes_reads_atomics_and_signals_reach_exported_memory() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let mut fx = Fixture::new();
    let a = started(&fx, 1, 4);
    let b = started(&fx, 1, 4);
    connect(&a, &b, 0);
    let local = words(2);
    let target = words(2);
    let closed = words(1);
    let (lm, lh) = host_map(&fx, &local, ALL_RDMA);
    let (tm, _) = host_map(&fx, &target, ALL_RDMA);
    let (cm, _) = host_map(&fx, &closed, abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE);
    let (rm, rh) = remote_map(&fx, tm);
    let (rcm, rch) = remote_map(&fx, cm);
    let (l0, l1, t0, t1) = (at(&local[0]), at(&local[1]), at(&target[0]), at(&target[1]));

    // Write, reported; read back into the other local word.
    local[0].store(0xabc, SeqCst);
    fx.run(
        a.handle,
        WRITE,
        &[u64::from(rh), t0, u64::from(lh), l0, 8, 0],
    );
    assert_eq!(target[0].load(SeqCst), 0xabc);
    target[1].store(0xdef, SeqCst);
    fx.run(
        a.handle,
        READ,
        &[u64::from(lh), l1, u64::from(rh), t1, 8, OPTIMIZE_REPORTS],
    );
    assert_eq!(local[1].load(SeqCst), 0xdef);
    fx.run(a.handle, ATOMIC_ADD, &[u64::from(rh), t0, 5, 0, 0, 0]);
    assert_eq!(target[0].load(SeqCst), 0xabc + 5);
    assert_eq!(fx.drain(&a), [(SEND_DONE, 0, 0), (SEND_DONE, 2, 0)]);

    // A write with immediate consumes a receive of the target (waiting for
    // one), which reports the immediate.
    local[0].store(7, SeqCst);
    fx.run(
        a.handle,
        WRITE_IMM,
        &[
            u64::from(rh),
            t1,
            u64::from(lh),
            l0,
            8,
            OPTIMIZE_REPORTS,
            77,
        ],
    );
    assert_eq!(target[1].load(SeqCst), 7, "the data lands with the post");
    assert_eq!(fx.drain(&b), []);
    fx.run(b.handle, RECEIVE, &[u64::from(lh), l1, 8]);
    assert_eq!(fx.drain(&b), [(RECV_RDMA_WRITE_IMM, 0, 77)]);

    // A map that permits no RDMA: write, read and atomic fail, untouched.
    closed[0].store(1, SeqCst);
    fx.run(
        a.handle,
        WRITE,
        &[
            u64::from(rch),
            at(&closed[0]),
            u64::from(lh),
            l0,
            8,
            OPTIMIZE_REPORTS,
        ],
    );
    fx.run(
        a.handle,
        READ,
        &[
            u64::from(lh),
            l0,
            u64::from(rch),
            at(&closed[0]),
            8,
            OPTIMIZE_REPORTS,
        ],
    );
    fx.run(
        a.handle,
        ATOMIC_ADD,
        &[u64::from(rch), at(&closed[0]), 5, 0, 0, OPTIMIZE_REPORTS],
    );
    assert_eq!(closed[0].load(SeqCst), 1);
    assert_eq!(local[0].load(SeqCst), 7);
    assert_eq!(
        fx.drain(&a),
        [(SEND_ERR, 4, 0), (SEND_ERR, 5, 0), (SEND_ERR, 6, 0)]
    );

    // Signals set and add to a remote-net event, reporting nothing.
    let ev = new_event();
    ok!(abi::doca_sync_event_add_publisher_location_remote_net(ev));
    ok!(abi::doca_sync_event_add_subscriber_location_cpu(
        ev, fx.ctx.dev
    ));
    ok!(abi::doca_sync_event_start(ev));
    let (mut blob, mut size) = (null(), 0);
    ok!(abi::doca_sync_event_export_to_remote_net(
        ev, &mut blob, &mut size
    ));
    let mut remote = null_mut();
    ok!(abi::doca_sync_event_remote_net_create_from_export(
        fx.ctx.dev,
        blob,
        size,
        &mut remote
    ));
    let mut remote_handle = 0;
    ok!(abi::doca_sync_event_remote_net_get_dpa_handle(
        remote,
        fx.ctx.dpa,
        &mut remote_handle
    ));
    fx.run(a.handle, SIGNAL_SET, &[remote_handle, 40]);
    fx.run(a.handle, SIGNAL_ADD, &[remote_handle, 2]);
    assert_eq!(get(ev), 42);
    assert_eq!(fx.drain(&a), []);
    ok!(abi::doca_sync_event_remote_net_destroy(remote));
    drop_event(ev);

    for m in [rm, rcm, lm, tm, cm] {
        ok!(abi::doca_mmap_destroy(m));
    }
    teardown(a);
    teardown(b);
    drop_event(fx.done);
    fx.ctx.teardown();
    assert_no_leaks(&scope);
}

/// The target's completion context wakes its DPA thread, as in NVIDIA's
/// basic initiator-target sample: the thread reads the element and the
/// received value and reports them through an event.
#[test]
fn a_receive_wakes_the_thread_of_the_targets_completion() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    static COMP: AtomicU64 = AtomicU64::new(0);
    static BUF: AtomicU64 = AtomicU64::new(0);
    static EVENT: AtomicU64 = AtomicU64::new(0);
    unsafe extern "C" fn woken(_: *const u64) -> u64 {
        let mut e = 0;
        // SAFETY: device API of the sim with the test's handles; BUF is the
        // test's live receive buffer.
        unsafe {
            if doca_dpa_dev_get_completion(COMP.load(SeqCst), &mut e) != 0 {
                let value = *(BUF.load(SeqCst) as *const u64);
                let kind = u64::from(doca_dpa_dev_get_completion_type(e));
                doca_dpa_dev_sync_event_update_set(EVENT.load(SeqCst), kind << 32 | value);
            }
            doca_dpa_dev_thread_finish();
        }
        0
    }
    let scope = Scope::new();
    let k = entry!();
    let s = entry!();
    let ctx = Ctx::started(app(
        c"rdma_thread",
        vec![thread_fn(c"woken", k, woken), global(c"step", s, step)],
    ));
    let mut fx = Fixture::on(ctx, s);
    let mut thread = null_mut();
    ok!(abi::doca_dpa_thread_create(fx.ctx.dpa, &mut thread));
    ok!(abi::doca_dpa_thread_set_func_arg(thread, f(k), 0));
    ok!(abi::doca_dpa_thread_start(thread));
    let a = started(&fx, 1, 4);
    // The target's completion is bound to the thread.
    let mut b = configured(&fx, 1, 4);
    ok!(abi::doca_dpa_completion_destroy(b.comp));
    ok!(abi::doca_dpa_completion_create(fx.ctx.dpa, 2, &mut b.comp));
    ok!(abi::doca_dpa_completion_set_thread(b.comp, thread));
    ok!(abi::doca_dpa_completion_start(b.comp));
    ok!(abi::doca_dpa_completion_get_dpa_handle(
        b.comp,
        &mut b.comp_handle
    ));
    ok!(abi::doca_rdma_dpa_completion_attach(b.rdma, b.comp));
    ok!(abi::doca_ctx_start(b.ctx));
    ok!(abi::doca_rdma_get_dpa_handle(b.rdma, &mut b.handle));
    let (mut details, mut len, mut conn) = (null(), 0, null_mut());
    ok!(abi::doca_rdma_export(
        b.rdma,
        &mut details,
        &mut len,
        &mut conn
    ));
    b.conns.push(conn);
    b.details.push((details, len));
    connect(&a, &b, 0);
    ok!(abi::doca_dpa_thread_run(thread));

    let report = fx.ctx.comp_event();
    EVENT.store(fx.ctx.event_handle(report), SeqCst);
    COMP.store(b.comp_handle, SeqCst);
    let src = words(1);
    src[0].store(10, SeqCst);
    let dst = words(1);
    BUF.store(at(&dst[0]), SeqCst);
    let (sm, sh) = host_map(&fx, &src, ALL_RDMA);
    let (dm, dh) = host_map(&fx, &dst, ALL_RDMA);
    fx.run(b.handle, RECEIVE, &[u64::from(dh), at(&dst[0]), 8]);
    fx.run(
        a.handle,
        SEND,
        &[u64::from(sh), at(&src[0]), 8, 0, OPTIMIZE_REPORTS],
    );
    wait_value(report, u64::from(RECV_SEND) << 32 | 10);

    ok!(abi::doca_mmap_destroy(sm));
    ok!(abi::doca_mmap_destroy(dm));
    teardown(a);
    teardown(b);
    ok!(abi::doca_dpa_thread_destroy(thread));
    drop_event(report);
    drop_event(fx.done);
    fx.ctx.teardown();
    assert_no_leaks(&scope);
}

/// Bad posts end the posting kernel with a device fault (model choice): a
/// handle that names no started context, a connection that was not
/// connected, an address outside the named map, more receives than the
/// queue holds.
#[test]
fn bad_posts_are_device_faults() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let buf = words(2);
    type Case = (&'static str, FaultKind);
    let cases: [Case; 4] = [
        (
            "not a live started DOCA RDMA context",
            FaultKind::InvalidDeviceCall,
        ),
        ("is not connected", FaultKind::InvalidDeviceCall),
        ("outside the memory map", FaultKind::InvalidDeviceCall),
        (
            "the receive queue is full",
            FaultKind::QueueOverrun(QueueKind::Receive),
        ),
    ];
    for (i, (needle, kind)) in cases.into_iter().enumerate() {
        let mut fx = Fixture::new();
        let a = started(&fx, 1, 1);
        let (m, h) = host_map(&fx, &buf, ALL_RDMA);
        let b0 = at(&buf[0]);
        let report = match i {
            0 => fx.run_faulting(0xD0CA_0000_0000_0001, RECEIVE, &[u64::from(h), b0, 8]),
            1 => fx.run_faulting(a.handle, SEND, &[u64::from(h), b0, 8, 0, 0]),
            2 => fx.run_faulting(a.handle, RECEIVE, &[u64::from(h), b0, 24]),
            _ => {
                fx.run(a.handle, RECEIVE, &[u64::from(h), b0, 8]);
                fx.run_faulting(a.handle, RECEIVE, &[u64::from(h), b0, 8])
            }
        };
        assert_eq!(report.kind, kind, "{report:?}");
        assert!(report.reason.contains(needle), "{needle}: {report:?}");
        ok!(abi::doca_mmap_destroy(m));
        teardown(a);
        drop_event(fx.done);
        fx.ctx.destroy();
    }
    assert_no_leaks(&scope);
}
