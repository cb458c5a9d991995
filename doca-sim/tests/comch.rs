//! DPA Comms message queues (`src/comch.rs`) beyond the exchange of the
//! `comch_msgq` C program: a send to a consumer with no receive posted waits
//! for one (and the producer sees the consumer empty), a full send queue and
//! the other bad posts are device faults with a report, and everything is
//! torn down without leaks.

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::Mutex;

use common::*;
use doca_sim::{FaultKind, FaultReport, QueueKind};

extern "C" {
    fn doca_dpa_dev_comch_consumer_ack(consumer: u64, num_msg: u32);
    fn doca_dpa_dev_comch_consumer_get_completion(cc: u64, element: *mut u64) -> i32;
    fn doca_dpa_dev_comch_consumer_get_completion_imm(element: u64, len: *mut u32) -> *const u8;
    fn doca_dpa_dev_comch_consumer_completion_ack(cc: u64, n: u64);
    fn doca_dpa_dev_comch_producer_is_consumer_empty(producer: u64, consumer_id: u32) -> i32;
    fn doca_dpa_dev_comch_producer_post_send_imm_only(
        producer: u64,
        consumer_id: u32,
        imm: *const u8,
        len: u32,
        flags: u32,
    );
}

static OP: AtomicU32 = AtomicU32::new(0);
static ARG: AtomicU64 = AtomicU64::new(0);
static HANDLES: [AtomicU64; 3] = [const { AtomicU64::new(0) }; 3];
static OUT: Mutex<Vec<u64>> = Mutex::new(Vec::new());
static SERIAL: Mutex<()> = Mutex::new(());

const ACK: u32 = 1;
const SEND: u32 = 2;
const EMPTY: u32 = 3;
const DRAIN: u32 = 4;

/// One device call chosen by `OP` (producer, consumer, completion handles in
/// `HANDLES`; a length, count or consumer id in `ARG`).
unsafe extern "C" fn step(_: *const u64) -> u64 {
    let [p, c, cc] = [0, 1, 2].map(|i| HANDLES[i].load(SeqCst));
    let arg = ARG.load(SeqCst);
    let word = 0x1122_3344_5566_7788u64.to_le_bytes();
    // SAFETY: device API of the sim with the handles the test set up (or, in
    // the fault cases, bad arguments, which end this run); `word` outlives
    // the calls.
    unsafe {
        match OP.load(SeqCst) {
            ACK => doca_dpa_dev_comch_consumer_ack(c, arg as u32),
            SEND => doca_dpa_dev_comch_producer_post_send_imm_only(
                p,
                (arg >> 32) as u32,
                word.as_ptr(),
                arg as u32,
                0,
            ),
            EMPTY => {
                let empty = doca_dpa_dev_comch_producer_is_consumer_empty(p, arg as u32);
                OUT.lock().unwrap().push(empty as u64);
            }
            DRAIN => {
                let mut e = 0u64;
                while doca_dpa_dev_comch_consumer_get_completion(cc, &mut e) != 0 {
                    let mut len = 0u32;
                    let imm = doca_dpa_dev_comch_consumer_get_completion_imm(e, &mut len);
                    let mut bytes = [0u8; 8];
                    std::ptr::copy_nonoverlapping(imm, bytes.as_mut_ptr(), (len as usize).min(8));
                    OUT.lock().unwrap().push(u64::from_le_bytes(bytes));
                    doca_dpa_dev_comch_consumer_completion_ack(cc, 1);
                }
            }
            _ => {}
        }
    }
    0
}

unsafe extern "C" fn idle(_: *const u64) -> u64 {
    0
}

/// A started queue with one consumer (on a completion context bound to a
/// thread that does nothing) and one producer, all on one DPA context.
struct Fixture {
    ctx: Ctx,
    step: Func,
    done: *mut abi::doca_sync_event,
    launches: u64,
    thread: *mut abi::doca_dpa_thread,
    cc: *mut abi::doca_comch_consumer_completion,
    msgq: *mut abi::doca_comch_msgq,
    consumer: *mut abi::doca_comch_consumer,
    producer: *mut abi::doca_comch_producer,
    sends: *mut abi::doca_dpa_completion,
    consumer_id: u32,
}

fn ctx_of_consumer(c: *mut abi::doca_comch_consumer) -> *mut abi::doca_ctx {
    ffi!(abi::doca_comch_consumer_as_ctx(c))
}

fn ctx_of_producer(p: *mut abi::doca_comch_producer) -> *mut abi::doca_ctx {
    ffi!(abi::doca_comch_producer_as_ctx(p))
}

impl Fixture {
    fn new(max_send: u32, max_recv: u32) -> Fixture {
        let (k, t) = (entry!(), entry!());
        let ctx = Ctx::started(app(
            c"comch",
            vec![global(c"step", k, step), thread_fn(c"idle", t, idle)],
        ));
        let dpa = ctx.dpa;
        let mut thread = null_mut();
        ok!(abi::doca_dpa_thread_create(dpa, &mut thread));
        ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 0));
        ok!(abi::doca_dpa_thread_start(thread));
        let mut cc = null_mut();
        ok!(abi::doca_comch_consumer_completion_create(&mut cc));
        ok!(abi::doca_comch_consumer_completion_set_dpa_thread(
            cc, thread
        ));
        ok!(abi::doca_comch_consumer_completion_start(cc));
        let mut msgq = null_mut();
        ok!(abi::doca_comch_msgq_create(ctx.dev, &mut msgq));
        ok!(abi::doca_comch_msgq_set_dpa_consumer(msgq, dpa));
        ok!(abi::doca_comch_msgq_set_dpa_producer(msgq, dpa));
        ok!(abi::doca_comch_msgq_start(msgq));
        let mut consumer = null_mut();
        ok!(abi::doca_comch_msgq_consumer_create(msgq, &mut consumer));
        ok!(abi::doca_ctx_set_datapath_on_dpa(
            ctx_of_consumer(consumer),
            dpa
        ));
        ok!(abi::doca_comch_consumer_set_imm_data_len(consumer, 8));
        ok!(abi::doca_comch_consumer_set_dev_max_num_recv(
            consumer, max_recv
        ));
        ok!(abi::doca_comch_consumer_set_completion(consumer, cc, 0));
        ok!(abi::doca_ctx_start(ctx_of_consumer(consumer)));
        let mut producer = null_mut();
        ok!(abi::doca_comch_msgq_producer_create(msgq, &mut producer));
        ok!(abi::doca_ctx_set_datapath_on_dpa(
            ctx_of_producer(producer),
            dpa
        ));
        ok!(abi::doca_comch_producer_set_dev_max_num_send(
            producer, max_send
        ));
        let mut sends = null_mut();
        ok!(abi::doca_dpa_completion_create(dpa, 16, &mut sends));
        ok!(abi::doca_dpa_completion_start(sends));
        ok!(abi::doca_comch_producer_dpa_completion_attach(
            producer, sends
        ));
        ok!(abi::doca_ctx_start(ctx_of_producer(producer)));
        let (mut hp, mut hc, mut hcc, mut id) = (0, 0, 0, 0);
        ok!(abi::doca_comch_producer_get_dpa_handle(producer, &mut hp));
        ok!(abi::doca_comch_consumer_get_dpa_handle(consumer, &mut hc));
        ok!(abi::doca_comch_consumer_completion_get_dpa_handle(
            cc, &mut hcc
        ));
        ok!(abi::doca_comch_consumer_get_id(consumer, &mut id));
        for (slot, h) in HANDLES.iter().zip([hp, hc, hcc]) {
            slot.store(h, SeqCst);
        }
        OUT.lock().unwrap().clear();
        let done = ctx.comp_event();
        Fixture {
            ctx,
            step: k,
            done,
            launches: 0,
            thread,
            cc,
            msgq,
            consumer,
            producer,
            sends,
            consumer_id: id,
        }
    }

    fn launch(&mut self, op: u32, arg: u64) {
        OP.store(op, SeqCst);
        ARG.store(arg, SeqCst);
        self.launches += 1;
        ok!(self.ctx.launch(self.done, self.launches, 1, self.step));
    }

    fn run(&mut self, op: u32, arg: u64) {
        self.launch(op, arg);
        wait_value(self.done, self.launches);
        ok!(self.ctx.peek());
    }

    fn run_faulting(&mut self, op: u32, arg: u64) -> FaultReport {
        self.launch(op, arg);
        self.ctx.awaited_fault()
    }

    /// A send of `len` bytes to consumer `id`.
    fn send(id: u32, len: u32) -> u64 {
        (u64::from(id) << 32) | u64::from(len)
    }

    fn teardown(self) {
        ok!(abi::doca_ctx_stop(ctx_of_producer(self.producer)));
        ok!(abi::doca_comch_producer_destroy(self.producer));
        ok!(abi::doca_ctx_stop(ctx_of_consumer(self.consumer)));
        ok!(abi::doca_comch_consumer_destroy(self.consumer));
        ok!(abi::doca_comch_msgq_stop(self.msgq));
        ok!(abi::doca_comch_msgq_destroy(self.msgq));
        ok!(abi::doca_dpa_completion_destroy(self.sends));
        ok!(abi::doca_comch_consumer_completion_destroy(self.cc));
        ok!(abi::doca_dpa_thread_destroy(self.thread));
        drop_event(self.done);
        self.ctx.destroy();
    }
}

#[test]
fn a_send_waits_for_a_receive_and_the_producer_sees_the_consumer_empty() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let mut fx = Fixture::new(4, 2);
    let id = fx.consumer_id;
    assert_eq!(id, 1, "consumer ids count from 1");
    fx.run(EMPTY, id.into());
    fx.run(SEND, Fixture::send(id, 8));
    fx.run(DRAIN, 0);
    assert_eq!(
        *OUT.lock().unwrap(),
        [1],
        "nothing arrives before a receive is posted"
    );
    fx.run(ACK, 1);
    fx.run(EMPTY, id.into());
    fx.run(DRAIN, 0);
    assert_eq!(
        *OUT.lock().unwrap(),
        [1, 1, 0x1122_3344_5566_7788],
        "the waiting send filled the receive (the consumer is empty again)"
    );
    fx.run(ACK, 2);
    fx.run(EMPTY, id.into());
    fx.run(SEND, Fixture::send(id, 4));
    fx.run(DRAIN, 0);
    assert_eq!(OUT.lock().unwrap()[3..], [0, 0x5566_7788]);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn bad_posts_are_device_faults() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let cases: &[(&str, FaultKind)] = &[
        (
            "the producer's send queue is full",
            FaultKind::QueueOverrun(QueueKind::Send),
        ),
        (
            "more than the consumer's 2",
            FaultKind::QueueOverrun(QueueKind::Receive),
        ),
        ("the queue has no consumer 9", FaultKind::InvalidDeviceCall),
        ("more than consumer 1's 8", FaultKind::InvalidDeviceCall),
        (
            "producer handle 0xd0ca7ffffffffff1 is not live",
            FaultKind::InvalidDeviceCall,
        ),
    ];
    for (i, (needle, kind)) in cases.iter().enumerate() {
        let mut fx = Fixture::new(1, 2);
        let id = fx.consumer_id;
        let report = match i {
            0 => {
                fx.run(SEND, Fixture::send(id, 8));
                fx.run_faulting(SEND, Fixture::send(id, 8))
            }
            1 => fx.run_faulting(ACK, 3),
            2 => fx.run_faulting(SEND, Fixture::send(9, 8)),
            3 => fx.run_faulting(SEND, Fixture::send(id, 9)),
            _ => {
                HANDLES[0].store(0xD0CA_7FFF_FFFF_FFF1, SeqCst);
                fx.run_faulting(SEND, Fixture::send(id, 8))
            }
        };
        assert_eq!(report.kind, *kind, "{needle}: {report:?}");
        assert!(report.reason.contains(needle), "{needle}: {report:?}");
        fx.teardown();
    }
    assert_no_leaks(&scope);
}
