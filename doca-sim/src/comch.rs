//! DPA Comms: DOCA Comch message queues whose producers and consumers run on
//! the DPA (`doca_comch_msgq.h`, the DPA parts of `doca_comch_consumer.h` and
//! `doca_comch_producer.h`, and the device calls of `doca_dpa_dev_comch_msgq.h`).
//!
//! What DOCA documents: a queue is made on a device, given its largest numbers
//! of consumers and producers and the DPA context of each side while stopped,
//! started, and only then makes consumers and producers; it cannot stop while
//! any exists. Consumers and producers are DOCA contexts put on the DPA
//! datapath (`doca_ctx_set_datapath_on_dpa`) before their completion is set. A
//! consumer posts receives of immediate data (`doca_dpa_dev_comch_consumer_ack`),
//! each message becomes an element of its consumer completion context, which
//! wakes the context's DPA thread; an element's immediate data lives until the
//! element is acknowledged; a producer tells an empty consumer (no receive
//! posted) with `doca_dpa_dev_comch_producer_is_consumer_empty`; immediate data
//! is at most 32 bytes (DOCA Comch guide); sizes are rounded up to powers of
//! two; the completion context's immediate-data length is at least its
//! consumers'; it cannot stop while consumers are associated with it.
//!
//! The rest are model choices, listed in docs/sim-model.md ("DPA Comms message
//! queues") and said where each is made. The main one: only queues whose two
//! sides are on the DPA, in one DPA application, are modelled, as a loopback
//! inside the process; CPU-side consumers and producers (progress-engine tasks)
//! are not.

// Functions called from C (`csrc/device.c`) are `pub` for `#[no_mangle]`
// export, not for Rust callers.
#![allow(unreachable_pub)]

use std::cell::UnsafeCell;
use std::collections::{HashMap, VecDeque};
use std::ffi::c_int;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use crate::abi;
use crate::ctx::{self, destroy_ctx, new_ctx, CtxOwner};
use crate::dev::{obj, Dev, DevInfo, DeviceModel};
use crate::dpa::async_ops::{copy_between_maps, KNOWN_FLAGS, OPTIMIZE_REPORTS};
use crate::dpa::fault::{Access, FaultKind, FaultReport, QueueKind};
use crate::dpa::launch::{bad_address, current_device, raise, with_device};
use crate::dpa::threads::{comp, completion_core, thread_core, CompletionCore, ThreadCore};
use crate::dpa::{dpa, DpaCore};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, out};
use crate::registry::{self, SimObject};
use crate::trap::{self, SimCode};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The longest immediate data: 32 bytes (the DOCA Comch guide's DPA section),
/// what `doca_comch_consumer_cap_get_max_imm_data_len` answers.
const MAX_IMM: u32 = 32;
/// Model choice: what a queue, consumer, producer or completion context has
/// until set: one consumer and one producer per queue and per completion
/// context (as `nvme_emulation` sets them), 64 receives and sends, and the
/// longest immediate data.
const DEFAULT_COUNT: u32 = 1;
const DEFAULT_QUEUE: u32 = 64;
/// The largest queue size accepted.
const MAX_QUEUE: u32 = 1 << 15;

fn queue_size(size: u32) -> SimResult<u32> {
    match size {
        0 => Err(fail(codes::INVALID_VALUE, "a size of 0")),
        s if s > MAX_QUEUE => Err(fail(codes::INVALID_VALUE, "size too large")),
        s => Ok(s.next_power_of_two()),
    }
}

fn same_device(a: &DeviceModel, b: &DeviceModel) -> bool {
    a.index == b.index && a.profile.ibdev_name == b.profile.ibdev_name
}

// -------------------------------------------------------------------- queues

struct MsgqState {
    max_consumers: u32,
    max_producers: u32,
    dpa_consumer: Option<Arc<DpaCore>>,
    dpa_producer: Option<Arc<DpaCore>>,
    started: bool,
    /// Live consumers by id, and the producers' count.
    consumers: HashMap<u32, Weak<ConsumerCore>>,
    producers: u32,
    /// Ids handed out so far (consumers and producers each count from 1).
    made_consumers: u32,
    made_producers: u32,
}

/// The state of a message queue, shared with its consumers and producers.
pub(crate) struct MsgqCore {
    device: Arc<DeviceModel>,
    /// The `doca_dev` it was made on (kept in use until it is destroyed).
    dev: usize,
    state: Mutex<MsgqState>,
}

impl MsgqCore {
    /// The started consumer `id` of the queue, if there is one.
    fn consumer(&self, id: u32) -> Option<Arc<ConsumerCore>> {
        lock(&self.state).consumers.get(&id).and_then(Weak::upgrade)
    }

    /// The DPA contexts of the two sides, for a check against a datapath.
    fn side(&self, consumer: bool) -> Option<Arc<DpaCore>> {
        let st = lock(&self.state);
        if consumer {
            st.dpa_consumer.clone()
        } else {
            st.dpa_producer.clone()
        }
    }
}

/// `struct doca_comch_msgq`.
pub(crate) struct Msgq {
    core: Arc<MsgqCore>,
}
impl SimObject for Msgq {
    const KIND: &'static str = "doca_comch_msgq";
}

fn msgq<'a>(ptr: *const abi::doca_comch_msgq) -> SimResult<&'a Msgq> {
    obj::<Msgq, _>(ptr)
}

/// Runs `f` on the state of a stopped queue.
fn configure_msgq(
    ptr: *mut abi::doca_comch_msgq,
    f: impl FnOnce(&mut MsgqState) -> SimResult,
) -> SimResult {
    let q = msgq(ptr)?;
    let mut st = lock(&q.core.state);
    if st.started {
        return Err(fail(codes::BAD_STATE, "the message queue is started"));
    }
    f(&mut st)
}

/// Puts one side of a stopped queue on a DPA context of its device.
fn set_side(
    ptr: *mut abi::doca_comch_msgq,
    dpa_ptr: *mut abi::doca_dpa,
    consumer: bool,
) -> SimResult {
    let core = dpa(dpa_ptr)?.core.clone();
    let device = msgq(ptr)?.core.device.clone();
    if !same_device(&core.device, &device) {
        return Err(fail(
            codes::INVALID_VALUE,
            "the DPA context is on another device than the message queue",
        ));
    }
    configure_msgq(ptr, |st| {
        let side = if consumer {
            &mut st.dpa_consumer
        } else {
            &mut st.dpa_producer
        };
        *side = Some(core);
        Ok(())
    })
}

// ------------------------------------------------------ consumer completions

/// One message as a consumer completion element designates it: the element
/// is the slot's address, and the immediate data its first bytes (what
/// `doca_dpa_dev_comch_consumer_get_completion_imm` returns).
#[repr(C)]
#[derive(Clone, Copy)]
struct Slot {
    imm: [u8; MAX_IMM as usize],
    len: u32,
    producer_id: u32,
    user_data: u32,
    reserved: u32,
}

const EMPTY_SLOT: Slot = Slot {
    imm: [0; MAX_IMM as usize],
    len: 0,
    producer_id: 0,
    user_data: 0,
    reserved: 0,
};

/// The slots of a started completion context, at fixed addresses kernels
/// read through element values.
struct Ring(Box<[UnsafeCell<Slot>]>);

// SAFETY: the sim writes a slot only while it is free (its element was
// acknowledged, or never handed out) and reads and writes slots only through
// `trap::probe_copy`, whose accesses are relaxed atomics; kernels read a slot
// while its element is theirs, as DOCA allows.
unsafe impl Sync for Ring {}
// SAFETY: as above; the slots are plain bytes.
unsafe impl Send for Ring {}

impl Ring {
    fn new(size: u32) -> Ring {
        Ring((0..size).map(|_| UnsafeCell::new(EMPTY_SLOT)).collect())
    }

    /// The address of slot `n` (counting every message, wrapping).
    fn slot(&self, n: u64) -> *mut Slot {
        self.0[(n % self.0.len() as u64) as usize].get()
    }
}

struct CcState {
    thread: Option<Arc<ThreadCore>>,
    max_consumers: u32,
    max_recv: u32,
    imm_data_len: u32,
    started: bool,
    handle: Option<u64>,
    /// Consumers started on it, and the receives they may post together.
    consumers: u32,
    reserved_recv: u32,
    ring: Option<Ring>,
    /// Messages written, read and acknowledged, counted from the start.
    written: u64,
    read: u64,
    acked: u64,
    armed: bool,
}

/// The state of a consumer completion context, shared with its consumers and
/// with kernels (through its DPA handle).
pub(crate) struct CcCore {
    state: Mutex<CcState>,
}

impl CcCore {
    /// The DPA context of its thread.
    fn dpa(&self) -> Option<Arc<DpaCore>> {
        lock(&self.state).thread.as_ref().map(|t| t.dpa().clone())
    }

    /// Writes a message into the next slot; the thread to wake, if the
    /// context was armed.
    ///
    /// Model choice: a message that finds every slot unread or unacknowledged
    /// overruns the completion context, which turns its DPA context fatal, as
    /// a DPA completion context's overrun does.
    fn push(&self, slot: Slot) -> Option<Arc<ThreadCore>> {
        let mut st = lock(&self.state);
        let size = u64::from(st.max_recv);
        let ring = st.ring.as_ref()?;
        if st.written - st.acked >= size {
            let dpa = st.thread.as_ref().map(|t| t.dpa().clone());
            drop(st);
            if let Some(d) = dpa {
                let site = current_device().map(|c| c.site());
                d.make_fatal(FaultReport::device(
                    FaultKind::QueueOverrun(QueueKind::Completion),
                    site.as_ref(),
                    "Comch consumer completion context overrun".into(),
                ));
            }
            return None;
        }
        let dst = ring.slot(st.written);
        // SAFETY: a slot of the ring, free (fewer than `size` messages are
        // unacknowledged), written as `Ring` says.
        let _ = unsafe {
            trap::probe_copy(
                dst.cast(),
                (&slot as *const Slot).cast(),
                std::mem::size_of::<Slot>(),
            )
        };
        st.written += 1;
        if st.armed {
            st.armed = false;
            st.thread.clone()
        } else {
            None
        }
    }
}

/// `struct doca_comch_consumer_completion`.
pub(crate) struct ConsumerCompletion {
    core: Arc<CcCore>,
}
impl SimObject for ConsumerCompletion {
    const KIND: &'static str = "doca_comch_consumer_completion";
}

fn cc<'a>(ptr: *const abi::doca_comch_consumer_completion) -> SimResult<&'a ConsumerCompletion> {
    obj::<ConsumerCompletion, _>(ptr)
}

/// Runs `f` on the state of a stopped consumer completion context.
fn configure_cc(
    ptr: *mut abi::doca_comch_consumer_completion,
    f: impl FnOnce(&mut CcState) -> SimResult,
) -> SimResult {
    let c = cc(ptr)?;
    let mut st = lock(&c.core.state);
    if st.started {
        return Err(fail(
            codes::BAD_STATE,
            "the consumer completion context is started",
        ));
    }
    f(&mut st)
}

/// Stops a consumer completion context (BAD_STATE while consumers run on it).
fn stop_cc(core: &CcCore) -> SimResult {
    let mut st = lock(&core.state);
    if !st.started {
        return Err(fail(
            codes::BAD_STATE,
            "the consumer completion context is not started",
        ));
    }
    if st.consumers > 0 {
        return Err(fail(
            codes::BAD_STATE,
            "consumers are still associated with the completion context",
        ));
    }
    st.started = false;
    st.ring = None;
    if let Some(h) = st.handle.take() {
        registry::retract(h);
    }
    Ok(())
}

// ----------------------------------------------------------------- consumers

/// A send that found no receive posted, waiting for one.
struct PendingSend {
    imm: Vec<u8>,
    producer: Arc<ProducerCore>,
    index: u32,
    report: bool,
}

struct ConsumerState {
    imm_data_len: u32,
    dev_max_num_recv: u32,
    completion: Option<(Arc<CcCore>, u32)>,
    handle: Option<u64>,
    running: bool,
    /// Receives posted and not yet filled.
    posted: u32,
    waiting: VecDeque<PendingSend>,
}

/// The state of a consumer, shared with its ctx, its queue and kernels.
pub(crate) struct ConsumerCore {
    msgq: Arc<MsgqCore>,
    id: u32,
    ctx: OnceLock<usize>,
    state: Mutex<ConsumerState>,
}

impl ConsumerCore {
    fn ctx(&self) -> usize {
        self.ctx.get().copied().unwrap_or(0)
    }

    fn configure(&self, f: impl FnOnce(&mut ConsumerState) -> SimResult) -> SimResult {
        let phase = ctx::ctx_ref(self.ctx()).map_or(ctx::states::IDLE, |c| c.phase());
        if phase != ctx::states::IDLE {
            return Err(fail(codes::BAD_STATE, "the consumer is started"));
        }
        f(&mut lock(&self.state))
    }

    /// Fills posted receives with waiting sends, in order; returns the
    /// threads to wake and the sends to report.
    fn deliver(st: &mut ConsumerState) -> (Vec<Arc<ThreadCore>>, Vec<PendingSend>) {
        let mut wake = Vec::new();
        let mut done = Vec::new();
        let Some((cc, user_data)) = st.completion.clone() else {
            return (wake, done);
        };
        while st.posted > 0 {
            let Some(send) = st.waiting.pop_front() else {
                break;
            };
            st.posted -= 1;
            let mut slot = Slot {
                len: send.imm.len() as u32,
                producer_id: send.producer.id,
                user_data,
                ..EMPTY_SLOT
            };
            slot.imm[..send.imm.len()].copy_from_slice(&send.imm);
            wake.extend(cc.push(slot));
            done.push(send);
        }
        (wake, done)
    }
}

/// Wakes threads and reports delivered sends, with no lock held.
fn finish(wake: Vec<Arc<ThreadCore>>, done: Vec<PendingSend>, ok: bool) {
    for t in wake {
        t.activate();
    }
    for send in done {
        send.producer.sent(send.index, send.report, ok);
    }
}

impl CtxOwner for ConsumerCore {
    /// Model choice: a consumer starts on the DPA datapath of its queue's
    /// consumer side (NOT_SUPPORTED off the DPA: CPU consumers take
    /// progress-engine tasks the sim does not model), with a started
    /// consumer completion context of the same DPA application that has room
    /// for one more consumer, its receives and its immediate data.
    fn check_start(&self, dpa: Option<&Arc<DpaCore>>) -> SimResult {
        let Some(dpa) = dpa else {
            return Err(fail(
                codes::NOT_SUPPORTED,
                "doca-sim models consumers on the DPA datapath only (doca_ctx_set_datapath_on_dpa)",
            ));
        };
        match self.msgq.side(true) {
            Some(side) if side.shares_device_context(dpa) => {}
            _ => return Err(fail(codes::INVALID_VALUE, "the datapath is not the DPA context of the queue's consumers (doca_comch_msgq_set_dpa_consumer)")),
        }
        let mut st = lock(&self.state);
        let Some((cc, _)) = st.completion.clone() else {
            return Err(fail(codes::BAD_STATE, "set a consumer completion context (doca_comch_consumer_set_completion) before starting"));
        };
        let mut c = lock(&cc.state);
        if !c.started {
            return Err(fail(
                codes::BAD_STATE,
                "start the consumer completion context before the consumer",
            ));
        }
        if !c
            .thread
            .as_ref()
            .is_some_and(|t| t.dpa().shares_device_context(dpa))
        {
            return Err(fail(
                codes::INVALID_VALUE,
                "the consumer completion context's thread runs on another DPA context",
            ));
        }
        if c.consumers >= c.max_consumers {
            return Err(fail(
                codes::FULL,
                "the consumer completion context has its largest number of consumers",
            ));
        }
        if st.imm_data_len > c.imm_data_len {
            return Err(fail(
                codes::INVALID_VALUE,
                "the consumer's immediate data is longer than its completion context's",
            ));
        }
        if c.reserved_recv + st.dev_max_num_recv > c.max_recv {
            return Err(fail(
                codes::FULL,
                "the consumer's receives exceed what its completion context has left",
            ));
        }
        c.consumers += 1;
        c.reserved_recv += st.dev_max_num_recv;
        st.running = true;
        Ok(())
    }

    /// Model choice: the sends still waiting for a receive fail (SEND_ERR on
    /// their producers' completion contexts); the posted receives are gone.
    fn stopped(&self) {
        let failed = {
            let mut st = lock(&self.state);
            st.running = false;
            st.posted = 0;
            if let Some(h) = st.handle.take() {
                registry::retract(h);
            }
            if let Some((cc, _)) = &st.completion {
                let mut c = lock(&cc.state);
                c.consumers = c.consumers.saturating_sub(1);
                c.reserved_recv = c.reserved_recv.saturating_sub(st.dev_max_num_recv);
            }
            std::mem::take(&mut st.waiting)
        };
        finish(Vec::new(), failed.into(), false);
    }
}

/// `struct doca_comch_consumer`.
pub(crate) struct Consumer {
    core: Arc<ConsumerCore>,
}
impl SimObject for Consumer {
    const KIND: &'static str = "doca_comch_consumer";
}

fn consumer<'a>(ptr: *const abi::doca_comch_consumer) -> SimResult<&'a Consumer> {
    obj::<Consumer, _>(ptr)
}

// ----------------------------------------------------------------- producers

struct ProducerState {
    dev_max_num_send: u32,
    completion: Option<Arc<CompletionCore>>,
    handle: Option<u64>,
    /// Sends posted and not yet delivered.
    outstanding: u32,
    /// Sends posted so far (numbers them).
    posted: u32,
}

/// The state of a producer, shared with its ctx, the consumers its sends wait
/// at, and kernels.
pub(crate) struct ProducerCore {
    msgq: Arc<MsgqCore>,
    id: u32,
    ctx: OnceLock<usize>,
    state: Mutex<ProducerState>,
}

impl ProducerCore {
    fn ctx(&self) -> usize {
        self.ctx.get().copied().unwrap_or(0)
    }

    fn configure(&self, f: impl FnOnce(&mut ProducerState) -> SimResult) -> SimResult {
        let phase = ctx::ctx_ref(self.ctx()).map_or(ctx::states::IDLE, |c| c.phase());
        if phase != ctx::states::IDLE {
            return Err(fail(codes::BAD_STATE, "the producer is started"));
        }
        f(&mut lock(&self.state))
    }

    /// A send left the producer's queue: delivered (`ok`) or failed.
    ///
    /// Model choice: reported as the sim's DPA RDMA sends are, a SEND element
    /// (user data = the send's number, 16 bits) unless posted with
    /// `DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS`, a SEND_ERR element always.
    fn sent(&self, index: u32, report: bool, ok: bool) {
        let completion = {
            let mut st = lock(&self.state);
            st.outstanding = st.outstanding.saturating_sub(1);
            st.completion.clone()
        };
        if let Some(c) = completion {
            if !ok {
                let _ = c.post(comp::SEND_ERR, index & 0xffff, 0);
            } else if report {
                let _ = c.post(comp::SEND, index & 0xffff, 0);
            }
        }
    }
}

impl CtxOwner for ProducerCore {
    /// Model choice: a producer starts on the DPA datapath of its queue's
    /// producer side (NOT_SUPPORTED off the DPA) with a started DPA completion
    /// context of the same DPA application attached.
    fn check_start(&self, dpa: Option<&Arc<DpaCore>>) -> SimResult {
        let Some(dpa) = dpa else {
            return Err(fail(
                codes::NOT_SUPPORTED,
                "doca-sim models producers on the DPA datapath only (doca_ctx_set_datapath_on_dpa)",
            ));
        };
        match self.msgq.side(false) {
            Some(side) if side.shares_device_context(dpa) => {}
            _ => return Err(fail(codes::INVALID_VALUE, "the datapath is not the DPA context of the queue's producers (doca_comch_msgq_set_dpa_producer)")),
        }
        match &lock(&self.state).completion {
            None => Err(fail(codes::BAD_STATE, "attach a DPA completion context (doca_comch_producer_dpa_completion_attach) before starting")),
            Some(c) if !c.dpa().shares_device_context(dpa) => Err(fail(codes::INVALID_VALUE, "the DPA completion context belongs to another DPA context")),
            Some(c) if !c.is_started() => Err(fail(codes::BAD_STATE, "start the DPA completion context before the producer")),
            Some(_) => Ok(()),
        }
    }

    fn stopped(&self) {
        if let Some(h) = lock(&self.state).handle.take() {
            registry::retract(h);
        }
    }
}

/// `struct doca_comch_producer`.
pub(crate) struct Producer {
    core: Arc<ProducerCore>,
}
impl SimObject for Producer {
    const KIND: &'static str = "doca_comch_producer";
}

fn producer<'a>(ptr: *const abi::doca_comch_producer) -> SimResult<&'a Producer> {
    obj::<Producer, _>(ptr)
}

/// A handle for `slot` (made on first use, retracted when its object stops).
fn publish_once<T: Send + Sync + 'static>(slot: &mut Option<u64>, core: Arc<T>) -> u64 {
    *slot.get_or_insert_with(|| registry::publish(core))
}

doca_api! {
    // ---- queues

    /// Makes a stopped message queue on an open device.
    fn doca_comch_msgq_create(dev: *mut abi::doca_dev, msgq: *mut *mut abi::doca_comch_msgq) {
        let d = obj::<Dev, _>(dev)?;
        if msgq.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        d.users.fetch_add(1, Ordering::AcqRel);
        let core = Arc::new(MsgqCore {
            device: d.model.clone(),
            dev: dev as usize,
            state: Mutex::new(MsgqState {
                max_consumers: DEFAULT_COUNT,
                max_producers: DEFAULT_COUNT,
                dpa_consumer: None,
                dpa_producer: None,
                started: false,
                consumers: HashMap::new(),
                producers: 0,
                made_consumers: 0,
                made_producers: 0,
            }),
        });
        out(msgq, registry::register(Msgq { core }).cast())
    }

    /// Destroys a stopped queue.
    ///
    /// Model choice: BAD_STATE while started (the queue stops only once its
    /// consumers and producers are gone, which `nvme_emulation` destroys
    /// first).
    fn doca_comch_msgq_destroy(msgq: *mut abi::doca_comch_msgq) {
        if lock(&self::msgq(msgq)?.core.state).started {
            return Err(fail(codes::BAD_STATE, "stop the message queue before destroying it"));
        }
        // SAFETY: checked above; only this call frees it.
        let q = unsafe { registry::unregister::<Msgq, _>(msgq) }?;
        if let Ok(d) = obj::<Dev, Dev>(q.core.dev as *const Dev) {
            d.users.fetch_sub(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Puts the queue's consumers on a DPA context of its device.
    fn doca_comch_msgq_set_dpa_consumer(msgq: *mut abi::doca_comch_msgq, dpa: *mut abi::doca_dpa) {
        set_side(msgq, dpa, true)
    }

    /// The largest number of consumers (not 0).
    fn doca_comch_msgq_set_max_num_consumers(msgq: *mut abi::doca_comch_msgq, max_num_consumers: u32) {
        if max_num_consumers == 0 {
            return Err(fail(codes::INVALID_VALUE, "a message queue needs at least one consumer"));
        }
        configure_msgq(msgq, |st| {
            st.max_consumers = max_num_consumers;
            Ok(())
        })
    }

    /// Puts the queue's producers on a DPA context of its device.
    fn doca_comch_msgq_set_dpa_producer(msgq: *mut abi::doca_comch_msgq, dpa: *mut abi::doca_dpa) {
        set_side(msgq, dpa, false)
    }

    /// The largest number of producers (not 0).
    fn doca_comch_msgq_set_max_num_producers(msgq: *mut abi::doca_comch_msgq, max_num_producers: u32) {
        if max_num_producers == 0 {
            return Err(fail(codes::INVALID_VALUE, "a message queue needs at least one producer"));
        }
        configure_msgq(msgq, |st| {
            st.max_producers = max_num_producers;
            Ok(())
        })
    }

    /// Starts the queue.
    ///
    /// Model choice: both sides must be on DPA contexts of one DPA
    /// application (a base context and its extensions): NOT_SUPPORTED for a
    /// side left on the CPU, INVALID_VALUE for two applications.
    fn doca_comch_msgq_start(msgq: *mut abi::doca_comch_msgq) {
        configure_msgq(msgq, |st| {
            let (Some(c), Some(p)) = (&st.dpa_consumer, &st.dpa_producer) else {
                return Err(fail(codes::NOT_SUPPORTED, "doca-sim models message queues whose consumers and producers are on the DPA (doca_comch_msgq_set_dpa_consumer / _producer)"));
            };
            if !c.shares_device_context(p) {
                return Err(fail(codes::INVALID_VALUE, "the consumers and producers are on DPA contexts of two applications"));
            }
            c.require_running()?;
            p.require_running()?;
            st.started = true;
            Ok(())
        })
    }

    /// Stops the queue (BAD_STATE while it has consumers or producers).
    fn doca_comch_msgq_stop(msgq: *mut abi::doca_comch_msgq) {
        let q = self::msgq(msgq)?;
        let mut st = lock(&q.core.state);
        if !st.started {
            return Err(fail(codes::BAD_STATE, "the message queue is not started"));
        }
        if !st.consumers.is_empty() || st.producers > 0 {
            return Err(fail(codes::BAD_STATE, "destroy the queue's consumers and producers first"));
        }
        st.started = false;
        Ok(())
    }

    /// Makes a consumer of a started queue; NO_MEMORY once it has its largest
    /// number (DOCA's error for an id it cannot allocate).
    ///
    /// Model choice: consumer ids count from 1 in each queue (`nvme_emulation`
    /// sends to consumer 1 of a queue with one consumer); ids are not reused.
    fn doca_comch_msgq_consumer_create(msgq: *mut abi::doca_comch_msgq, consumer: *mut *mut abi::doca_comch_consumer) {
        let q = self::msgq(msgq)?;
        if consumer.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let mut st = lock(&q.core.state);
        if !st.started {
            return Err(fail(codes::BAD_STATE, "start the message queue before making consumers"));
        }
        if st.consumers.len() as u32 >= st.max_consumers {
            return Err(fail(codes::NO_MEMORY, "the message queue has its largest number of consumers"));
        }
        st.made_consumers += 1;
        let core = Arc::new(ConsumerCore {
            msgq: q.core.clone(),
            id: st.made_consumers,
            ctx: OnceLock::new(),
            state: Mutex::new(ConsumerState {
                imm_data_len: MAX_IMM,
                dev_max_num_recv: DEFAULT_QUEUE,
                completion: None,
                handle: None,
                running: false,
                posted: 0,
                waiting: VecDeque::new(),
            }),
        });
        let _ = core.ctx.set(new_ctx(core.clone()));
        st.consumers.insert(core.id, Arc::downgrade(&core));
        out(consumer, registry::register(Consumer { core }).cast())
    }

    /// Makes a producer of a started queue; NO_MEMORY once it has its largest
    /// number. Model choice: producer ids count from 1 in each queue.
    fn doca_comch_msgq_producer_create(msgq: *mut abi::doca_comch_msgq, producer: *mut *mut abi::doca_comch_producer) {
        let q = self::msgq(msgq)?;
        if producer.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let mut st = lock(&q.core.state);
        if !st.started {
            return Err(fail(codes::BAD_STATE, "start the message queue before making producers"));
        }
        if st.producers >= st.max_producers {
            return Err(fail(codes::NO_MEMORY, "the message queue has its largest number of producers"));
        }
        st.producers += 1;
        st.made_producers += 1;
        let core = Arc::new(ProducerCore {
            msgq: q.core.clone(),
            id: st.made_producers,
            ctx: OnceLock::new(),
            state: Mutex::new(ProducerState {
                dev_max_num_send: DEFAULT_QUEUE,
                completion: None,
                handle: None,
                outstanding: 0,
                posted: 0,
            }),
        });
        let _ = core.ctx.set(new_ctx(core.clone()));
        out(producer, registry::register(Producer { core }).cast())
    }

    // ---- consumers

    /// Destroys an idle consumer; its id leaves the queue.
    fn doca_comch_consumer_destroy(consumer: *mut abi::doca_comch_consumer) {
        let c = self::consumer(consumer)?;
        destroy_ctx(c.core.ctx())?;
        // SAFETY: checked above; only this call frees it.
        let c = unsafe { registry::unregister::<Consumer, _>(consumer) }?;
        lock(&c.core.msgq.state).consumers.remove(&c.core.id);
        Ok(())
    }

    /// The consumer's id in its queue.
    fn doca_comch_consumer_get_id(consumer: *const abi::doca_comch_consumer, id: *mut u32) {
        out(id, self::consumer(consumer)?.core.id)
    }

    /// 32 bytes on a device with a DPA; NOT_SUPPORTED elsewhere.
    fn doca_comch_consumer_cap_get_max_imm_data_len(devinfo: *const abi::doca_devinfo, max_imm_data_len: *mut u32) {
        let info = obj::<DevInfo, _>(devinfo)?;
        if !info.model.profile.dpa {
            return Err(fail(codes::NOT_SUPPORTED, "doca-sim models Comch consumers on the DPA only"));
        }
        out(max_imm_data_len, MAX_IMM)
    }

    /// The consumer's immediate-data length.
    fn doca_comch_consumer_get_imm_data_len(consumer: *const abi::doca_comch_consumer, imm_data_len: *mut u32) {
        let len = lock(&self::consumer(consumer)?.core.state).imm_data_len;
        out(imm_data_len, len)
    }

    /// Sets the immediate-data length (1 to 32 bytes) of an idle consumer.
    fn doca_comch_consumer_set_imm_data_len(consumer: *mut abi::doca_comch_consumer, imm_data_len: u32) {
        if imm_data_len == 0 || imm_data_len > MAX_IMM {
            return Err(fail(codes::INVALID_VALUE, "immediate data is 1 to 32 bytes"));
        }
        self::consumer(consumer)?.core.configure(|st| {
            st.imm_data_len = imm_data_len;
            Ok(())
        })
    }

    /// The consumer's DOCA context (always the same pointer).
    fn doca_comch_consumer_as_ctx(consumer: *mut abi::doca_comch_consumer) -> *mut abi::doca_ctx {
        self::consumer(consumer).map_or(std::ptr::null_mut(), |c| c.core.ctx() as *mut abi::doca_ctx)
    }

    /// Sets how many receives the idle consumer may have posted (rounded up
    /// to a power of two).
    fn doca_comch_consumer_set_dev_max_num_recv(consumer: *mut abi::doca_comch_consumer, dev_num_recv: u32) {
        let n = queue_size(dev_num_recv)?;
        self::consumer(consumer)?.core.configure(|st| {
            st.dev_max_num_recv = n;
            Ok(())
        })
    }

    /// Associates an idle consumer on the DPA datapath with a consumer
    /// completion context. Model choice: associating again replaces the
    /// first.
    fn doca_comch_consumer_set_completion(consumer: *mut abi::doca_comch_consumer, consumer_comp: *mut abi::doca_comch_consumer_completion, user_data: u32) {
        let c = self::consumer(consumer)?;
        let completion = cc(consumer_comp)?.core.clone();
        if ctx::ctx_ref(c.core.ctx())?.datapath().is_none() {
            return Err(fail(codes::BAD_STATE, "set the DPA datapath (doca_ctx_set_datapath_on_dpa) before the completion context"));
        }
        c.core.configure(|st| {
            st.completion = Some((completion, user_data));
            Ok(())
        })
    }

    /// The DPA handle of a started consumer.
    fn doca_comch_consumer_get_dpa_handle(consumer: *mut abi::doca_comch_consumer, dpa_consumer: *mut abi::doca_dpa_dev_comch_consumer_t) {
        let c = self::consumer(consumer)?;
        let mut st = lock(&c.core.state);
        if !st.running {
            return Err(fail(codes::BAD_STATE, "the consumer is not started on the DPA datapath"));
        }
        let h = publish_once(&mut st.handle, c.core.clone());
        out(dpa_consumer, h)
    }

    // ---- consumer completion contexts

    /// Makes a stopped consumer completion context.
    fn doca_comch_consumer_completion_create(consumer_comp: *mut *mut abi::doca_comch_consumer_completion) {
        if consumer_comp.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let core = Arc::new(CcCore {
            state: Mutex::new(CcState {
                thread: None,
                max_consumers: DEFAULT_COUNT,
                max_recv: DEFAULT_QUEUE,
                imm_data_len: MAX_IMM,
                started: false,
                handle: None,
                consumers: 0,
                reserved_recv: 0,
                ring: None,
                written: 0,
                read: 0,
                acked: 0,
                armed: false,
            }),
        });
        out(consumer_comp, registry::register(ConsumerCompletion { core }).cast())
    }

    /// Binds the DPA thread its messages wake; the thread's DPA context
    /// counts it as a child (IN_USE on stop) until it is destroyed.
    fn doca_comch_consumer_completion_set_dpa_thread(consumer_comp: *mut abi::doca_comch_consumer_completion, dpa_thread: *mut abi::doca_dpa_thread) {
        let thread = thread_core(dpa_thread)?;
        configure_cc(consumer_comp, |st| {
            thread.dpa().children.fetch_add(1, Ordering::AcqRel);
            if let Some(old) = st.thread.replace(thread) {
                old.dpa().children.fetch_sub(1, Ordering::AcqRel);
            }
            Ok(())
        })
    }

    /// Destroys a consumer completion context, stopping it first if it is
    /// started (BAD_STATE while consumers run on it).
    ///
    /// Model choice: as the DPA completion contexts of the DPA samples'
    /// teardown, destroy does not need a stop first.
    fn doca_comch_consumer_completion_destroy(consumer_comp: *mut abi::doca_comch_consumer_completion) {
        let c = cc(consumer_comp)?;
        if lock(&c.core.state).started {
            stop_cc(&c.core)?;
        }
        // SAFETY: checked above; only this call frees it.
        let c = unsafe { registry::unregister::<ConsumerCompletion, _>(consumer_comp) }?;
        if let Some(t) = lock(&c.core.state).thread.take() {
            t.dpa().children.fetch_sub(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Starts it: its thread must be set and started (which `doca_dpa_thread_run`
    /// then accepts). Model choice: it starts armed, so the first message
    /// wakes the thread, as a DPA completion context does.
    fn doca_comch_consumer_completion_start(consumer_comp: *mut abi::doca_comch_consumer_completion) {
        configure_cc(consumer_comp, |st| {
            let thread = st.thread.clone().ok_or(fail(codes::BAD_STATE, "set the DPA thread before starting"))?;
            thread.dpa().require_running()?;
            thread.attach_source()?;
            st.ring = Some(Ring::new(st.max_recv));
            st.started = true;
            st.armed = true;
            (st.written, st.read, st.acked) = (0, 0, 0);
            Ok(())
        })
    }

    /// Stops it (BAD_STATE while consumers run on it); its handle goes.
    fn doca_comch_consumer_completion_stop(consumer_comp: *mut abi::doca_comch_consumer_completion) {
        stop_cc(&cc(consumer_comp)?.core)
    }

    /// The DPA handle of a started consumer completion context.
    fn doca_comch_consumer_completion_get_dpa_handle(consumer_comp: *mut abi::doca_comch_consumer_completion, consumer_comp_handle: *mut abi::doca_dpa_dev_comch_consumer_completion_t) {
        let c = cc(consumer_comp)?;
        let mut st = lock(&c.core.state);
        if !st.started {
            return Err(fail(codes::BAD_STATE, "the consumer completion context is not started"));
        }
        let h = publish_once(&mut st.handle, c.core.clone());
        out(consumer_comp_handle, h)
    }

    /// Sets the largest number of consumers (rounded up to a power of two).
    fn doca_comch_consumer_completion_set_max_num_consumers(consumer_comp: *mut abi::doca_comch_consumer_completion, max_num_consumers: u32) {
        let n = queue_size(max_num_consumers)?;
        configure_cc(consumer_comp, |st| {
            st.max_consumers = n;
            Ok(())
        })
    }

    /// The largest number of consumers.
    fn doca_comch_consumer_completion_get_max_num_consumers(consumer_comp: *const abi::doca_comch_consumer_completion, max_num_consumers: *mut u32) {
        let n = lock(&cc(consumer_comp)?.core.state).max_consumers;
        out(max_num_consumers, n)
    }

    /// Sets how many receives its consumers may post together (rounded up
    /// to a power of two): the number of its slots.
    fn doca_comch_consumer_completion_set_max_num_recv(consumer_comp: *mut abi::doca_comch_consumer_completion, max_num_recv: u32) {
        let n = queue_size(max_num_recv)?;
        configure_cc(consumer_comp, |st| {
            st.max_recv = n;
            Ok(())
        })
    }

    /// How many receives its consumers may post together.
    fn doca_comch_consumer_completion_get_max_num_recv(consumer_comp: *const abi::doca_comch_consumer_completion, max_num_recv: *mut u32) {
        let n = lock(&cc(consumer_comp)?.core.state).max_recv;
        out(max_num_recv, n)
    }

    /// Sets the immediate-data length it holds (1 to 32 bytes).
    fn doca_comch_consumer_completion_set_imm_data_len(consumer_comp: *mut abi::doca_comch_consumer_completion, imm_data_len: u32) {
        if imm_data_len == 0 || imm_data_len > MAX_IMM {
            return Err(fail(codes::INVALID_VALUE, "immediate data is 1 to 32 bytes"));
        }
        configure_cc(consumer_comp, |st| {
            st.imm_data_len = imm_data_len;
            Ok(())
        })
    }

    /// The immediate-data length it holds.
    fn doca_comch_consumer_completion_get_imm_data_len(consumer_comp: *const abi::doca_comch_consumer_completion, imm_data_len: *mut u32) {
        let n = lock(&cc(consumer_comp)?.core.state).imm_data_len;
        out(imm_data_len, n)
    }

    // ---- producers

    /// Destroys an idle producer.
    fn doca_comch_producer_destroy(producer: *mut abi::doca_comch_producer) {
        let p = self::producer(producer)?;
        destroy_ctx(p.core.ctx())?;
        // SAFETY: checked above; only this call frees it.
        let p = unsafe { registry::unregister::<Producer, _>(producer) }?;
        let mut st = lock(&p.core.msgq.state);
        st.producers = st.producers.saturating_sub(1);
        Ok(())
    }

    /// The producer's id in its queue.
    fn doca_comch_producer_get_id(producer: *const abi::doca_comch_producer, id: *mut u32) {
        out(id, self::producer(producer)?.core.id)
    }

    /// The producer's DOCA context (always the same pointer).
    fn doca_comch_producer_as_ctx(producer: *mut abi::doca_comch_producer) -> *mut abi::doca_ctx {
        self::producer(producer).map_or(std::ptr::null_mut(), |p| p.core.ctx() as *mut abi::doca_ctx)
    }

    /// Sets how many sends the idle producer may have outstanding (rounded
    /// up to a power of two).
    fn doca_comch_producer_set_dev_max_num_send(producer: *mut abi::doca_comch_producer, dev_num_send: u32) {
        let n = queue_size(dev_num_send)?;
        self::producer(producer)?.core.configure(|st| {
            st.dev_max_num_send = n;
            Ok(())
        })
    }

    /// Attaches the DPA completion context of its sends (the producer idle,
    /// on the DPA datapath, the completion of the same DPA application).
    /// Model choice: attaching again replaces the first.
    fn doca_comch_producer_dpa_completion_attach(producer: *mut abi::doca_comch_producer, dpa_comp: *mut abi::doca_dpa_completion) {
        let p = self::producer(producer)?;
        let completion = completion_core(dpa_comp)?;
        match ctx::ctx_ref(p.core.ctx())?.datapath() {
            Some(d) if completion.dpa().shares_device_context(&d) => completion.attach_producer()?,
            Some(_) => return Err(fail(codes::INVALID_VALUE, "the DPA completion context belongs to another DPA context")),
            None => return Err(fail(codes::BAD_STATE, "set the DPA datapath (doca_ctx_set_datapath_on_dpa) before attaching a DPA completion")),
        }
        p.core.configure(|st| {
            st.completion = Some(completion);
            Ok(())
        })
    }

    /// The DPA handle of a started producer.
    fn doca_comch_producer_get_dpa_handle(producer: *mut abi::doca_comch_producer, dpa_producer: *mut abi::doca_dpa_dev_comch_producer_t) {
        let p = self::producer(producer)?;
        if ctx::ctx_ref(p.core.ctx())?.phase() != ctx::states::RUNNING {
            return Err(fail(codes::BAD_STATE, "the producer is not started on the DPA datapath"));
        }
        let core = p.core.clone();
        let h = publish_once(&mut lock(&p.core.state).handle, core);
        out(dpa_producer, h)
    }
}

// ---------------------------------------------------------------- device side

fn fault(reason: String) {
    raise(FaultKind::InvalidDeviceCall, reason);
}

/// The object behind a DPA handle of type `T`, if the running code may use it:
/// live, and on the running code's DPA application (`dpa` is the object's DPA
/// context).
fn live<T: Send + Sync + 'static>(
    call: &str,
    what: &str,
    handle: u64,
    dpa: impl FnOnce(&T) -> Option<Arc<DpaCore>>,
) -> Option<Arc<T>> {
    let Some(object) = registry::resolve::<T>(handle) else {
        fault(format!("{call}: {what} handle {handle:#x} is not live"));
        return None;
    };
    let own = dpa(&object);
    let related = with_device(|ctx| match (ctx, &own) {
        (Some(ctx), Some(d)) => ctx.core.shares_device_context(d),
        (None, _) => true,
        (Some(_), None) => false,
    });
    if !related {
        fault(format!(
            "{call}: {what} handle {handle:#x} belongs to another DPA application"
        ));
        return None;
    }
    Some(object)
}

fn live_consumer(call: &str, handle: u64) -> Option<Arc<ConsumerCore>> {
    live(call, "consumer", handle, |c: &ConsumerCore| {
        c.msgq.side(true)
    })
}

fn live_cc(call: &str, handle: u64) -> Option<Arc<CcCore>> {
    live(call, "consumer completion", handle, CcCore::dpa)
}

fn live_producer(call: &str, handle: u64) -> Option<Arc<ProducerCore>> {
    live(call, "producer", handle, |p: &ProducerCore| {
        p.msgq.side(false)
    })
}

/// `doca_dpa_dev_comch_consumer_ack`: posts receives, which the sends
/// waiting at the consumer fill at once.
#[no_mangle]
pub extern "C" fn doca_sim_impl_comch_consumer_ack(handle: u64, num_msg: u32) {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_comch_consumer_ack";
    let Some(consumer) = live_consumer(call, handle) else {
        return;
    };
    let (wake, done) = {
        let mut st = lock(&consumer.state);
        let posted = u64::from(st.posted) + u64::from(num_msg);
        if posted > u64::from(st.dev_max_num_recv) {
            let max = st.dev_max_num_recv;
            drop(st);
            return raise(
                FaultKind::QueueOverrun(QueueKind::Receive),
                format!("{call}: {posted} receives posted, more than the consumer's {max} (doca_comch_consumer_set_dev_max_num_recv)"),
            );
        }
        st.posted = posted as u32;
        ConsumerCore::deliver(&mut st)
    };
    finish(wake, done, true);
}

/// `doca_dpa_dev_comch_producer_is_consumer_empty`: 1 when consumer `id`
/// has no receive posted.
#[no_mangle]
pub extern "C" fn doca_sim_impl_comch_is_consumer_empty(handle: u64, consumer_id: u32) -> c_int {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_comch_producer_is_consumer_empty";
    let Some(producer) = live_producer(call, handle) else {
        return 1;
    };
    match producer.msgq.consumer(consumer_id) {
        Some(c) => c_int::from(lock(&c.state).posted == 0),
        None => {
            fault(format!("{call}: the queue has no consumer {consumer_id}"));
            1
        }
    }
}

/// `doca_dpa_dev_comch_producer_post_send_imm_only`, and the send of
/// `doca_dpa_dev_comch_producer_dma_copy` (which copied first).
///
/// Model choices: the immediate data is read when posted; a send to a
/// consumer with no receive posted waits for one, in order (the consumer's
/// "empty", which a producer checks with `_is_consumer_empty` and then
/// yields: the queue-full case a kernel meets, since these calls return
/// nothing); a send holds a slot of the producer's send queue until it is
/// delivered, and a send into a full send queue is a queue overrun (device
/// fault); a consumer that is not started, immediate data longer than the
/// consumer's or flags DOCA does not define are device faults.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_comch_send(
    handle: u64,
    consumer_id: u32,
    imm: *const u8,
    imm_length: u32,
    flags: u32,
) {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_comch_producer_post_send_imm_only";
    let Some(producer) = live_producer(call, handle) else {
        return;
    };
    if flags & !KNOWN_FLAGS != 0 {
        return fault(format!("{call}: unknown flags {flags:#x}"));
    }
    let Some(consumer) = producer.msgq.consumer(consumer_id) else {
        return fault(format!("{call}: the queue has no consumer {consumer_id}"));
    };
    let limit = {
        let st = lock(&consumer.state);
        if !st.running {
            return fault(format!("{call}: consumer {consumer_id} is not started"));
        }
        st.imm_data_len
    };
    if imm_length > limit {
        return fault(format!(
            "{call}: {imm_length} bytes of immediate data, more than consumer {consumer_id}'s {limit}"
        ));
    }
    let mut data = vec![0u8; imm_length as usize];
    // SAFETY: `data` holds `imm_length` bytes; the kernel's side is probed.
    if let Err(bad) = unsafe { trap::probe_copy(data.as_mut_ptr(), imm, data.len()) } {
        return bad_address(call, bad, Access::Read);
    }
    let index = {
        let mut st = lock(&producer.state);
        if st.outstanding >= st.dev_max_num_send {
            let max = st.dev_max_num_send;
            drop(st);
            return raise(
                FaultKind::QueueOverrun(QueueKind::Send),
                format!("{call}: the producer's send queue is full ({max} sends waiting for receives; check doca_dpa_dev_comch_producer_is_consumer_empty and yield)"),
            );
        }
        st.outstanding += 1;
        let index = st.posted;
        st.posted = st.posted.wrapping_add(1);
        index
    };
    let (wake, done) = {
        let mut st = lock(&consumer.state);
        st.waiting.push_back(PendingSend {
            imm: data,
            producer: producer.clone(),
            index,
            report: flags & OPTIMIZE_REPORTS == 0,
        });
        ConsumerCore::deliver(&mut st)
    };
    finish(wake, done, true);
}

/// `doca_dpa_dev_comch_producer_dma_copy`: copies between two maps (as
/// `doca_dpa_dev_post_memcpy` does, when posted), then sends the immediate
/// data.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_comch_dma_copy(
    handle: u64,
    consumer_id: u32,
    dst_mmap: u32,
    dst_addr: u64,
    src_mmap: u32,
    src_addr: u64,
    length: u64,
    imm: *const u8,
    imm_length: u32,
    flags: u32,
) {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_comch_producer_dma_copy";
    if live_producer(call, handle).is_none()
        || !copy_between_maps(call, (dst_mmap, dst_addr), (src_mmap, src_addr), length)
    {
        return;
    }
    // SAFETY: the kernel's arguments, passed on (probed there).
    unsafe { doca_sim_impl_comch_send(handle, consumer_id, imm, imm_length, flags) };
}

/// `doca_dpa_dev_comch_consumer_get_completion`: the next element (a slot's
/// address), 1 when there was one.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_comch_get_completion(
    handle: u64,
    element: *mut u64,
) -> c_int {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_comch_consumer_get_completion";
    let Some(cc) = live_cc(call, handle) else {
        return 0;
    };
    let slot = {
        let mut st = lock(&cc.state);
        let Some(ring) = st.ring.as_ref().filter(|_| st.read < st.written) else {
            return 0;
        };
        let slot = ring.slot(st.read) as u64;
        st.read += 1;
        slot
    };
    // SAFETY: the out-pointer the kernel gave; the probe catches bad ones.
    if let Err(bad) = unsafe { trap::probe_write(element, slot) } {
        bad_address(call, bad, Access::Write);
    }
    1
}

/// Reads the slot an element designates (a bad element is the kernel's
/// fault).
fn read_slot(call: &str, element: u64) -> Option<Slot> {
    let mut slot = EMPTY_SLOT;
    // SAFETY: `slot` is a local Slot; the kernel's side is probed.
    let read = unsafe {
        trap::probe_copy(
            (&mut slot as *mut Slot).cast(),
            element as *const u8,
            std::mem::size_of::<Slot>(),
        )
    };
    match read {
        Ok(()) if slot.len <= MAX_IMM => Some(slot),
        Ok(()) => {
            fault(format!(
                "{call}: {element:#x} is not a consumer completion element"
            ));
            None
        }
        Err(bad) => {
            bad_address(call, bad, Access::Read);
            None
        }
    }
}

/// `doca_dpa_dev_comch_consumer_get_completion_imm`: the element's immediate
/// data (its slot's first bytes) and length.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_comch_completion_imm(
    element: u64,
    imm_length: *mut u32,
) -> u64 {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_comch_consumer_get_completion_imm";
    let Some(slot) = read_slot(call, element) else {
        return 0;
    };
    // SAFETY: the out-pointer the kernel gave; the probe catches bad ones.
    if let Err(bad) = unsafe { trap::probe_write(imm_length, slot.len) } {
        bad_address(call, bad, Access::Write);
    }
    element
}

/// `doca_dpa_dev_comch_consumer_get_completion_producer_id`.
#[no_mangle]
pub extern "C" fn doca_sim_impl_comch_completion_producer_id(element: u64) -> u32 {
    let _sim = SimCode::enter();
    read_slot(
        "doca_dpa_dev_comch_consumer_get_completion_producer_id",
        element,
    )
    .map_or(0, |s| s.producer_id)
}

/// `doca_dpa_dev_comch_consumer_completion_ack`: frees the slots of `n`
/// elements read (at most those read).
#[no_mangle]
pub extern "C" fn doca_sim_impl_comch_completion_ack(handle: u64, num_comp: u64) {
    let _sim = SimCode::enter();
    if let Some(cc) = live_cc("doca_dpa_dev_comch_consumer_completion_ack", handle) {
        let mut st = lock(&cc.state);
        st.acked = (st.acked + num_comp).min(st.read);
    }
}

/// `doca_dpa_dev_comch_consumer_completion_request_notification`: the next
/// element (or one already unread, at once) wakes the thread.
#[no_mangle]
pub extern "C" fn doca_sim_impl_comch_request_notification(handle: u64) {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_comch_consumer_completion_request_notification";
    let Some(cc) = live_cc(call, handle) else {
        return;
    };
    let wake = {
        let mut st = lock(&cc.state);
        if st.read < st.written {
            st.thread.clone()
        } else {
            st.armed = true;
            None
        }
    };
    if let Some(t) = wake {
        t.activate();
    }
}
