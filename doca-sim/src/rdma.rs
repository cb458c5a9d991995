//! DOCA RDMA on the DPA datapath (`doca_rdma.h`, `doca_dpa_dev_rdma.h`): the
//! host-side contexts and connections, and the device calls that post work on
//! them.
//!
//! The sim models RDMA as a loopback inside one process, which is how NVIDIA's
//! DPA samples run both sides of a connection (`dpa_basic_initiator_target`,
//! `dpa_initiator_target`, `dpa_ping_pong`: one initiator and one target
//! context in the same program, connected with each other's export). A
//! connection's details name the exported connection in this process; an
//! operation posted on a connection reaches the context of the connection it
//! was connected to, at once: data moves with the post, and completions land
//! in the DPA completion contexts attached to the two sides.
//!
//! Model choices (docs/sim-model.md, "DOCA RDMA"):
//! - only the DPA datapath is modelled: starting a context without
//!   `doca_ctx_set_datapath_on_dpa` is NOT_SUPPORTED, one without an attached
//!   DPA completion context BAD_STATE, one whose DPA context is not on the
//!   RDMA context's device INVALID_VALUE (the facts: RDMA resources come from
//!   the DPA context extended onto the RDMA device);
//! - a started context is connectable at once (no progress engine moves it on
//!   to running, as none drives the DPA datapath); connections are dropped
//!   when it stops (DOCA asks for a new export and connect after a restart);
//! - defaults: one connection, queues of 64 entries, local read/write
//!   permission;
//! - a send's payload is read when it is posted; a send (or write with
//!   immediate) that finds no receive posted at its target waits for one, in
//!   order (RC's receiver-not-ready retry, without a retry limit);
//! - completions: the receiver's element has the receive's work-request index
//!   (a 16-bit counter) as user data and the byte count (RECV_SEND) or the
//!   immediate (RECV_SEND_IMM, RECV_RDMA_WRITE_IMM) as immediate; the
//!   initiator gets a SEND element per operation unless it was posted with
//!   `DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS`, which reports nothing
//!   (NVIDIA's ping-pong counts every element of its completion context as a
//!   receive, and the all-to-all application never drains the one its writes
//!   report to); errors (a message longer than the receive, a remote access
//!   the remote map does not permit, a target that stopped) are always
//!   reported, as SEND_ERR / RECV_ERR (a receive whose map stopped after it
//!   was posted is filled through nothing: the copy into a receive is made
//!   while its map is live and held so; an operation on a connection whose
//!   peer context stopped fails so, as RC does when the peer stops answering,
//!   and so does one through a remote map whose exporting map stopped or was
//!   destroyed, as an access to a deregistered region does);
//! - signals (`doca_dpa_dev_rdma_signal_set/_add`) report no completion (the
//!   all-to-all application posts one per write and never drains them);
//! - posting on a handle that is not live, on a connection id the context has
//!   not exported or not connected, with an address outside the named map, or
//!   more receives than the receive queue holds is a device fault of the
//!   posting kernel.

// Functions called from C (`csrc/device.c`) are `pub` for `#[no_mangle]`
// export, not for Rust callers.
#![allow(unreachable_pub)]

use std::collections::VecDeque;
use std::ffi::{c_int, c_void};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use crate::abi;
use crate::ctx::{self, destroy_ctx, new_ctx, CtxOwner};
use crate::dev::{obj, Dev, DevInfo, DeviceModel};
use crate::dpa::fault::{Access, FaultKind, QueueKind};
use crate::dpa::launch::{bad_address, raise, with_device};
use crate::dpa::threads::{comp, completion_core, CompletionCore};
use crate::dpa::DpaCore;
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, out};
use crate::mmap::{handle_info, with_range, HandleRange};
use crate::registry::{self, SimObject};
use crate::trap::{self, SimCode};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS`.
const OPTIMIZE_REPORTS: u32 = 1 << 1;
/// The RDMA flags of `enum doca_access_flag` (local read/write, RDMA read,
/// write, atomic): what `doca_rdma_set_permissions` accepts.
const RDMA_PERMISSIONS: u32 = abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE
    | abi::DOCA_ACCESS_FLAG_RDMA_READ
    | abi::DOCA_ACCESS_FLAG_RDMA_WRITE
    | abi::DOCA_ACCESS_FLAG_RDMA_ATOMIC;
/// The receive queue size of a context that sets none (model choice), and the
/// largest accepted.
const DEFAULT_QUEUE: u32 = 64;
const MAX_QUEUE: u32 = 1 << 15;

/// A posted receive.
struct Receive {
    /// The map it was posted in (a receive is filled only while it is live).
    mmap: u32,
    addr: u64,
    len: u64,
    /// Its work-request index.
    index: u32,
}

/// What an operation delivers into a receive of its target.
enum Payload {
    /// A send's bytes, with its immediate if it has one.
    Send {
        data: Vec<u8>,
        immediate: Option<u32>,
    },
    /// The immediate of a write (whose data was already written).
    WriteImmediate(u32),
}

/// An operation that reached its target and consumes a receive there.
struct Arrival {
    payload: Payload,
    /// The initiator's completion context and the operation's index; posted
    /// to only when the operation asked for a report (errors always are).
    initiator: Option<(Arc<CompletionCore>, u32)>,
    report: bool,
}

struct RdmaState {
    permissions: u32,
    recv_queue_size: u32,
    max_connections: u16,
    completion: Option<Arc<CompletionCore>>,
    handle: Option<u64>,
    /// Exported connections (index = connection id) and their C objects.
    connections: Vec<(Arc<ConnectionCore>, usize)>,
    receives: VecDeque<Receive>,
    /// Operations that found no receive posted, oldest first.
    waiting: VecDeque<Arrival>,
    /// Work-request counters.
    posted_receives: u32,
    posted_sends: u32,
}

impl Default for RdmaState {
    fn default() -> Self {
        RdmaState {
            permissions: abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE,
            recv_queue_size: DEFAULT_QUEUE,
            max_connections: 1,
            completion: None,
            handle: None,
            connections: Vec::new(),
            receives: VecDeque::new(),
            waiting: VecDeque::new(),
            posted_receives: 0,
            posted_sends: 0,
        }
    }
}

/// The state of a DOCA RDMA context, shared with its ctx, its connections and
/// the device calls (through its DPA handle).
pub(crate) struct RdmaCore {
    device: Arc<DeviceModel>,
    /// The `doca_dev` it was created on (kept in use until it is destroyed).
    dev: usize,
    /// The `doca_ctx` (set once at creation).
    ctx: OnceLock<usize>,
    state: Mutex<RdmaState>,
}

/// One exported connection.
pub(crate) struct ConnectionCore {
    id: u32,
    rdma: Weak<RdmaCore>,
    /// The key its details carry (a handle-table entry while the context runs).
    key: u64,
    details: Box<[u8]>,
    peer: Mutex<Option<Weak<ConnectionCore>>>,
}

/// `struct doca_rdma`.
pub(crate) struct Rdma {
    core: Arc<RdmaCore>,
}
impl SimObject for Rdma {
    const KIND: &'static str = "doca_rdma";
}

/// `struct doca_rdma_connection`.
pub(crate) struct RdmaConnection {
    core: Arc<ConnectionCore>,
}
impl SimObject for RdmaConnection {
    const KIND: &'static str = "doca_rdma_connection";
}

/// Marks the connection details of this sim; the connection's key follows.
const DETAILS_MAGIC: &[u8; 16] = b"doca-sim:rdma-cn";

fn details_key(blob: &[u8]) -> Option<u64> {
    let key = blob.strip_prefix(DETAILS_MAGIC.as_slice())?;
    Some(u64::from_le_bytes(key.try_into().ok()?))
}

fn same_device(a: &DeviceModel, b: &DeviceModel) -> bool {
    a.index == b.index && a.profile.ibdev_name == b.profile.ibdev_name
}

impl RdmaCore {
    fn ctx(&self) -> usize {
        self.ctx.get().copied().unwrap_or(0)
    }

    fn phase(&self) -> u32 {
        ctx::ctx_ref(self.ctx()).map_or(ctx::states::IDLE, |c| c.phase())
    }

    /// Runs `f` on the configuration of an idle context (BAD_STATE once
    /// started).
    fn configure<R>(&self, f: impl FnOnce(&mut RdmaState) -> SimResult<R>) -> SimResult<R> {
        if self.phase() != ctx::states::IDLE {
            return Err(fail(codes::BAD_STATE, "the RDMA context is started"));
        }
        f(&mut lock(&self.state))
    }

    /// Delivers `arrival` into the oldest posted receive, or keeps it until
    /// one is posted.
    fn arrive(&self, arrival: Arrival) {
        let mut st = lock(&self.state);
        if st.handle.is_none() {
            // The target stopped: the initiator learns it from an error.
            drop(st);
            if let Some((completion, index)) = &arrival.initiator {
                let _ = completion.post(comp::SEND_ERR, *index, 0);
            }
            return;
        }
        match st.receives.pop_front() {
            Some(receive) => {
                let target = st.completion.clone();
                drop(st);
                deliver(receive, arrival, target);
            }
            None => st.waiting.push_back(arrival),
        }
    }
}

/// Fills `receive` with `arrival` and posts the completions: the target's
/// (to `target`) and the initiator's when it asked for one or failed.
fn deliver(receive: Receive, arrival: Arrival, target: Option<Arc<CompletionCore>>) {
    let index = receive.index & 0xffff;
    let (kind, immediate, ok) = match &arrival.payload {
        Payload::Send { data, immediate } => {
            let copied = (data.len() as u64 <= receive.len)
                .then(|| {
                    with_range(receive.mmap, receive.addr, data.len() as u64, |_| {
                        // SAFETY: `data` holds its bytes; the receive's memory lies
                        // in its map, live and held so, and is probed.
                        unsafe {
                            trap::probe_copy(receive.addr as *mut u8, data.as_ptr(), data.len())
                        }
                    })
                })
                .flatten();
            match copied {
                // Longer than the receive, or its map stopped since it was posted.
                None => (comp::RECV_ERR, 0, false),
                Some(Err(bad)) => {
                    bad_address(
                        "doca_dpa_dev_rdma_post_send (the target's receive buffer)",
                        bad,
                        Access::Write,
                    );
                    return;
                }
                Some(Ok(())) => match immediate {
                    Some(imm) => (comp::RECV_SEND_IMM, *imm, true),
                    None => (comp::RECV_SEND, data.len() as u32, true),
                },
            }
        }
        Payload::WriteImmediate(imm) => (comp::RECV_RDMA_WRITE_IMM, *imm, true),
    };
    if let Some(c) = target {
        let _ = c.post(kind, index, immediate);
    }
    if let Some((completion, op)) = arrival.initiator {
        if !ok {
            let _ = completion.post(comp::SEND_ERR, op, 0);
        } else if arrival.report {
            let _ = completion.post(comp::SEND, op, 0);
        }
    }
}

impl CtxOwner for RdmaCore {
    fn check_start(&self, dpa: Option<&Arc<DpaCore>>) -> SimResult {
        let Some(dpa) = dpa else {
            return Err(fail(
                codes::NOT_SUPPORTED,
                "doca-sim models DOCA RDMA on the DPA datapath only (set one with doca_ctx_set_datapath_on_dpa)",
            ));
        };
        if !same_device(&dpa.device, &self.device) {
            return Err(fail(
                codes::INVALID_VALUE,
                "the DPA datapath runs on another device than the RDMA context (extend the DPA context onto it)",
            ));
        }
        let st = lock(&self.state);
        match &st.completion {
            None => Err(fail(
                codes::BAD_STATE,
                "attach a DPA completion context (doca_rdma_dpa_completion_attach) before starting",
            )),
            Some(c) if !c.dpa().shares_device_context(dpa) => Err(fail(
                codes::INVALID_VALUE,
                "the DPA completion context belongs to another DPA context",
            )),
            Some(c) if !c.is_started() => Err(fail(
                codes::BAD_STATE,
                "start the DPA completion context before the RDMA context",
            )),
            Some(_) => Ok(()),
        }
    }

    fn stopped(&self) {
        let dropped = {
            let mut st = lock(&self.state);
            if let Some(h) = st.handle.take() {
                registry::retract(h);
            }
            st.receives.clear();
            st.waiting.clear();
            std::mem::take(&mut st.connections)
        };
        release_connections(dropped);
    }
}

/// Gives up connections: their details stop resolving and their C objects
/// are freed.
fn release_connections(connections: Vec<(Arc<ConnectionCore>, usize)>) {
    for (conn, object) in connections {
        registry::retract(conn.key);
        // SAFETY: the pointer was registered by `doca_rdma_export` for this
        // connection and is unregistered only here, once.
        let _ = unsafe {
            registry::unregister::<RdmaConnection, RdmaConnection>(object as *mut RdmaConnection)
        };
    }
}

fn rdma<'a>(ptr: *const abi::doca_rdma) -> SimResult<&'a Rdma> {
    obj::<Rdma, _>(ptr)
}

/// A queue size rounded up to a power of two (INVALID_VALUE for 0,
/// NOT_SUPPORTED beyond the largest).
fn queue_size(size: u32) -> SimResult<u32> {
    match size {
        0 => Err(fail(codes::INVALID_VALUE, "a queue size of 0")),
        s if s > MAX_QUEUE => Err(fail(codes::NOT_SUPPORTED, "queue size too large")),
        s => Ok(s.next_power_of_two()),
    }
}

doca_api! {
    /// SUCCESS for every device.
    ///
    /// Model choice: every simulated device is an RDMA-capable NIC (NVIDIA's
    /// DPA samples look for one that can send to put their RDMA contexts on).
    fn doca_rdma_cap_task_send_is_supported(devinfo: *const abi::doca_devinfo) {
        obj::<DevInfo, _>(devinfo)?;
        Ok(())
    }

    /// The largest send queue size: what `doca_rdma_set_send_queue_size` accepts.
    ///
    /// Model choice: one bound, 2^15, for every device and both queues (NVIDIA's
    /// RDMA samples size their queues far below it and query nothing).
    fn doca_rdma_cap_get_max_send_queue_size(devinfo: *const abi::doca_devinfo, max_send_queue_size: *mut u32) {
        obj::<DevInfo, _>(devinfo)?;
        out(max_send_queue_size, MAX_QUEUE)
    }

    /// The largest receive queue size: what `doca_rdma_set_recv_queue_size`
    /// accepts (the same model choice as the send queue's).
    fn doca_rdma_cap_get_max_recv_queue_size(devinfo: *const abi::doca_devinfo, max_recv_queue_size: *mut u32) {
        obj::<DevInfo, _>(devinfo)?;
        out(max_recv_queue_size, MAX_QUEUE)
    }

    /// Creates an idle DOCA RDMA context on an open device.
    fn doca_rdma_create(dev: *mut abi::doca_dev, rdma: *mut *mut abi::doca_rdma) {
        let d = obj::<Dev, _>(dev)?;
        if rdma.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        d.users.fetch_add(1, Ordering::AcqRel);
        let core = Arc::new(RdmaCore {
            device: d.model.clone(),
            dev: dev as usize,
            ctx: OnceLock::new(),
            state: Mutex::default(),
        });
        let _ = core.ctx.set(new_ctx(core.clone()));
        out(rdma, registry::register(Rdma { core }).cast())
    }

    /// Destroys a stopped context.
    fn doca_rdma_destroy(rdma: *mut abi::doca_rdma) {
        let r = self::rdma(rdma)?;
        destroy_ctx(r.core.ctx())?;
        // SAFETY: checked above; only this call frees it.
        let r = unsafe { registry::unregister::<Rdma, _>(rdma) }?;
        if let Ok(d) = obj::<Dev, Dev>(r.core.dev as *const Dev) {
            d.users.fetch_sub(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// The context's DOCA context (always the same pointer).
    fn doca_rdma_as_ctx(rdma: *mut abi::doca_rdma) -> *mut abi::doca_ctx {
        self::rdma(rdma).map_or(std::ptr::null_mut(), |r| r.core.ctx() as *mut abi::doca_ctx)
    }

    /// Sets the permissions: RDMA flags of `doca_access_flag` only.
    fn doca_rdma_set_permissions(rdma: *mut abi::doca_rdma, permissions: u32) {
        let r = self::rdma(rdma)?;
        if permissions & !RDMA_PERMISSIONS != 0 {
            return Err(fail(codes::INVALID_VALUE, "non-RDMA access flags"));
        }
        r.core.configure(|st| {
            st.permissions = permissions;
            Ok(())
        })
    }

    /// The permissions.
    fn doca_rdma_get_permissions(rdma: *mut abi::doca_rdma, permissions: *mut u32) {
        let p = lock(&self::rdma(rdma)?.core.state).permissions;
        out(permissions, p)
    }

    /// Accepts whether connections use a GRH (before start).
    ///
    /// Model choice: the loopback has no packet headers, so the setting
    /// changes nothing.
    fn doca_rdma_set_grh_enabled(rdma: *mut abi::doca_rdma, grh_enabled: u8) {
        let _ = grh_enabled;
        self::rdma(rdma)?.core.configure(|_| Ok(()))
    }

    /// Accepts a GID index (before start).
    ///
    /// Model choice: the loopback has no addresses, so the index changes
    /// nothing.
    fn doca_rdma_set_gid_index(rdma: *mut abi::doca_rdma, gid_index: u32) {
        let _ = gid_index;
        self::rdma(rdma)?.core.configure(|_| Ok(()))
    }

    /// Checks a send queue size (before start).
    ///
    /// Model choice: operations leave the initiator when posted (a send that
    /// waits for a receive waits at its target), so no send queue fills.
    fn doca_rdma_set_send_queue_size(rdma: *mut abi::doca_rdma, send_queue_size: u32) {
        queue_size(send_queue_size)?;
        self::rdma(rdma)?.core.configure(|_| Ok(()))
    }

    /// Sets the receive queue size, rounded up to a power of two: how many
    /// receives may be posted and not yet filled.
    fn doca_rdma_set_recv_queue_size(rdma: *mut abi::doca_rdma, recv_queue_size: u32) {
        let size = queue_size(recv_queue_size)?;
        self::rdma(rdma)?.core.configure(|st| {
            st.recv_queue_size = size;
            Ok(())
        })
    }

    /// The rounded receive queue size.
    fn doca_rdma_get_recv_queue_size(rdma: *const abi::doca_rdma, recv_queue_size: *mut u32) {
        let size = lock(&self::rdma(rdma)?.core.state).recv_queue_size;
        out(recv_queue_size, size)
    }

    /// Sets how many connections may be exported (at least one).
    fn doca_rdma_set_max_num_connections(rdma: *mut abi::doca_rdma, max_num_connections: u16) {
        let r = self::rdma(rdma)?;
        if max_num_connections == 0 {
            return Err(fail(codes::NOT_SUPPORTED, "at least one connection"));
        }
        r.core.configure(|st| {
            st.max_connections = max_num_connections;
            Ok(())
        })
    }

    /// How many connections may be exported.
    fn doca_rdma_get_max_num_connections(rdma: *mut abi::doca_rdma, max_num_connections: *mut u16) {
        let n = lock(&self::rdma(rdma)?.core.state).max_connections;
        out(max_num_connections, n)
    }

    /// Checks a receive buffer list length (at least one, before start).
    ///
    /// Model choice: the DPA posts one buffer per receive, so the length
    /// changes nothing.
    fn doca_rdma_task_receive_set_dst_buf_list_len(rdma: *mut abi::doca_rdma, buf_list_len: u32) {
        let r = self::rdma(rdma)?;
        if buf_list_len == 0 {
            return Err(fail(codes::INVALID_VALUE, "a buffer list length of 0"));
        }
        r.core.configure(|_| Ok(()))
    }

    /// Attaches the DPA completion context the context reports to: idle,
    /// on the DPA datapath, a completion of that DPA context (or of its base
    /// or another extension of it).
    ///
    /// Model choice: attaching again replaces the first (DOCA documents
    /// no error for it).
    fn doca_rdma_dpa_completion_attach(rdma: *mut abi::doca_rdma, dpa_comp: *mut abi::doca_dpa_completion) {
        let r = self::rdma(rdma)?;
        let completion = completion_core(dpa_comp)?;
        let datapath = ctx::ctx_ref(r.core.ctx())?.datapath();
        r.core.configure(|st| {
            match datapath {
                Some(d) if completion.dpa().shares_device_context(&d) => completion.attach_producer()?,
                Some(_) => return Err(fail(codes::INVALID_VALUE, "the DPA completion context belongs to another DPA context")),
                None => return Err(fail(codes::INVALID_VALUE, "set the DPA datapath (doca_ctx_set_datapath_on_dpa) before attaching a DPA completion")),
            }
            st.completion = Some(completion);
            Ok(())
        })
    }

    /// The DPA handle of a started context on the DPA datapath.
    fn doca_rdma_get_dpa_handle(rdma: *mut abi::doca_rdma, dpa_rdma: *mut abi::doca_dpa_dev_rdma_t) {
        let r = self::rdma(rdma)?;
        if r.core.phase() != ctx::states::RUNNING {
            return Err(fail(codes::BAD_STATE, "the RDMA context is not started"));
        }
        let core = r.core.clone();
        let h = *lock(&r.core.state).handle.get_or_insert_with(|| registry::publish(core));
        out(dpa_rdma, h)
    }

    /// Exports a new connection of a started context. FULL once
    /// `max_num_connections` are exported.
    ///
    /// Model choice: the details name the connection in this process (the
    /// loopback NVIDIA's RDMA samples run in) and stay valid until the
    /// context stops; connection ids count exports from 0.
    fn doca_rdma_export(rdma: *mut abi::doca_rdma, local_rdma_conn_details: *mut *const c_void, local_rdma_conn_details_size: *mut usize, rdma_connection: *mut *mut abi::doca_rdma_connection) {
        let r = self::rdma(rdma)?;
        if local_rdma_conn_details.is_null() || local_rdma_conn_details_size.is_null() || rdma_connection.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        if r.core.phase() != ctx::states::RUNNING {
            return Err(fail(codes::BAD_STATE, "export after doca_ctx_start"));
        }
        let mut st = lock(&r.core.state);
        if st.connections.len() >= usize::from(st.max_connections) {
            return Err(fail(codes::FULL, "every connection is in use (doca_rdma_set_max_num_connections)"));
        }
        let conn = Arc::new_cyclic(|me: &Weak<ConnectionCore>| {
            let key = registry::publish(Arc::new(me.clone()));
            let mut details = DETAILS_MAGIC.to_vec();
            details.extend_from_slice(&key.to_le_bytes());
            ConnectionCore {
                id: st.connections.len() as u32,
                rdma: Arc::downgrade(&r.core),
                key,
                details: details.into_boxed_slice(),
                peer: Mutex::new(None),
            }
        });
        let object = registry::register(RdmaConnection { core: conn.clone() });
        st.connections.push((conn.clone(), object as usize));
        out(local_rdma_conn_details, conn.details.as_ptr().cast())?;
        out(local_rdma_conn_details_size, conn.details.len())?;
        out(rdma_connection, object.cast())
    }

    /// Connects a connection the context exported to the peer connection its
    /// details name.
    ///
    /// Model choice: allowed as soon as the context is started (the samples
    /// connect right after `doca_ctx_start`, with no progress engine to move
    /// the context on); each side connects its own connection, and an
    /// operation needs only its own side connected.
    fn doca_rdma_connect(rdma: *mut abi::doca_rdma, remote_rdma_conn_details: *const c_void, remote_rdma_conn_details_size: usize, rdma_connection: *mut abi::doca_rdma_connection) {
        let r = self::rdma(rdma)?;
        let conn = obj::<RdmaConnection, _>(rdma_connection)?;
        if remote_rdma_conn_details.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL connection details"));
        }
        if !conn.core.rdma.upgrade().is_some_and(|owner| Arc::ptr_eq(&owner, &r.core)) {
            return Err(fail(codes::INVALID_VALUE, "the connection was exported by another RDMA context"));
        }
        if r.core.phase() != ctx::states::RUNNING {
            return Err(fail(codes::BAD_STATE, "the RDMA context is not started"));
        }
        // SAFETY: the caller passes `remote_rdma_conn_details_size` readable
        // bytes (the C contract).
        let blob = unsafe { std::slice::from_raw_parts(remote_rdma_conn_details.cast::<u8>(), remote_rdma_conn_details_size) };
        let peer = details_key(blob)
            .and_then(registry::resolve::<Weak<ConnectionCore>>)
            .and_then(|weak| weak.upgrade())
            .ok_or(fail(codes::CONNECTION_ABORTED, "the connection details name no exported connection of this process"))?;
        let mut slot = lock(&conn.core.peer);
        if slot.is_some() {
            return Err(fail(codes::BAD_STATE, "the connection is already connected"));
        }
        *slot = Some(Arc::downgrade(&peer));
        Ok(())
    }

    /// The ID kernels name the connection by (its export order, from 0).
    fn doca_rdma_connection_get_id(rdma_connection: *const abi::doca_rdma_connection, connection_id: *mut u32) {
        let id = obj::<RdmaConnection, _>(rdma_connection)?.core.id;
        out(connection_id, id)
    }
}

// ---------------------------------------------------------------- device side

/// A device call's fault: the context of the running code turns fatal.
fn fault(reason: String) {
    raise(FaultKind::InvalidDeviceCall, reason);
}

/// The context behind a DPA handle, if the running code may use it: live
/// (the context runs) and on the running code's DPA context, its base or an
/// extension of it.
fn rdma_of(call: &str, handle: u64) -> Option<Arc<RdmaCore>> {
    let Some(core) = registry::resolve::<RdmaCore>(handle) else {
        fault(format!(
            "{call}: RDMA handle {handle:#x} is not a live started DOCA RDMA context"
        ));
        return None;
    };
    let datapath = ctx::ctx_ref(core.ctx()).ok().and_then(|c| c.datapath());
    let related = with_device(|ctx| match (ctx, &datapath) {
        (Some(ctx), Some(d)) => ctx.core.shares_device_context(d),
        // Called outside device code (a host thread): nothing to compare.
        (None, _) => true,
        (Some(_), None) => false,
    });
    if !related {
        fault(format!(
            "{call}: RDMA handle {handle:#x} is on the datapath of another DPA context"
        ));
        return None;
    }
    Some(core)
}

/// Where connection `id` of `rdma` leads: `Some(Some(target))`, the context
/// of the connection it was connected to; `Some(None)` when that context
/// stopped (its connections are gone: the operation fails, as RC does when
/// the peer stops answering); `None` after a device fault (no such
/// connection, or one never connected).
fn peer_of(call: &str, rdma: &RdmaCore, id: u32) -> Option<Option<Arc<RdmaCore>>> {
    let conn = lock(&rdma.state)
        .connections
        .get(id as usize)
        .map(|(c, _)| c.clone());
    let Some(conn) = conn else {
        fault(format!(
            "{call}: connection {id} was not exported by this RDMA context"
        ));
        return None;
    };
    let peer = lock(&conn.peer).clone();
    match peer {
        Some(weak) => Some(weak.upgrade().and_then(|p| p.rdma.upgrade())),
        None => {
            fault(format!(
                "{call}: connection {id} is not connected (doca_rdma_connect)"
            ));
            None
        }
    }
}

/// The map behind `mmap` when it holds `[addr, addr + len)`.
fn range_of(call: &str, mmap: u32, addr: u64, len: u64) -> Option<HandleRange> {
    match handle_info(mmap) {
        Some(r) if r.holds(addr, len) => Some(r),
        Some(_) => {
            fault(format!(
                "{call}: [{addr:#x}, +{len}) is outside the memory map of handle {mmap}"
            ));
            None
        }
        None => {
            fault(format!("{call}: mmap handle {mmap} is not live"));
            None
        }
    }
}

/// Reads `len` bytes a kernel named (a bad address is its fault).
fn read_bytes(call: &str, addr: u64, len: u64) -> Option<Vec<u8>> {
    let mut data = vec![0u8; len as usize];
    // SAFETY: `data` holds `len` bytes; the kernel's side is probed.
    match unsafe { trap::probe_copy(data.as_mut_ptr(), addr as *const u8, data.len()) } {
        Ok(()) => Some(data),
        Err(bad) => {
            bad_address(call, bad, Access::Read);
            None
        }
    }
}

/// Writes `data` where a kernel named (a bad address is its fault).
fn write_bytes(call: &str, addr: u64, data: &[u8]) -> bool {
    // SAFETY: `data` holds its bytes; the kernel's side is probed.
    match unsafe { trap::probe_copy(addr as *mut u8, data.as_ptr(), data.len()) } {
        Ok(()) => true,
        Err(bad) => {
            bad_address(call, bad, Access::Write);
            false
        }
    }
}

/// The initiator's completion context and the next send work-request index.
fn next_send(rdma: &RdmaCore) -> Option<(Arc<CompletionCore>, u32)> {
    let mut st = lock(&rdma.state);
    let index = st.posted_sends & 0xffff;
    st.posted_sends = st.posted_sends.wrapping_add(1);
    st.completion.clone().map(|c| (c, index))
}

/// Posts the initiator's completion of an operation finished at once: SEND
/// when reported, SEND_ERR when it failed.
fn finish(rdma: &RdmaCore, ok: bool, flags: u32) {
    if let Some((completion, index)) = next_send(rdma) {
        if !ok {
            let _ = completion.post(comp::SEND_ERR, index, 0);
        } else if flags & OPTIMIZE_REPORTS == 0 {
            let _ = completion.post(comp::SEND, index, 0);
        }
    }
}

/// `doca_dpa_dev_rdma_post_send` / `_send_imm` (and their buffer forms).
///
/// Model choice (see the module): the payload is read now and delivered into
/// the peer's next receive, waiting for one if none is posted
/// (`dpa_initiator_target`, `dpa_ping_pong`).
#[no_mangle]
pub extern "C" fn doca_sim_impl_rdma_send(
    handle: u64,
    connection_id: u32,
    mmap: u32,
    addr: u64,
    length: u64,
    has_immediate: c_int,
    immediate: u32,
    flags: u32,
) {
    let _sim = SimCode::enter();
    const CALL: &str = "doca_dpa_dev_rdma_post_send";
    let Some(rdma) = rdma_of(CALL, handle) else {
        return;
    };
    let Some(target) = peer_of(CALL, &rdma, connection_id) else {
        return;
    };
    if range_of(CALL, mmap, addr, length).is_none() {
        return;
    }
    let Some(target) = target else {
        return finish(&rdma, false, flags);
    };
    let Some(data) = read_bytes(CALL, addr, length) else {
        return;
    };
    let immediate = (has_immediate != 0).then_some(immediate);
    target.arrive(Arrival {
        payload: Payload::Send { data, immediate },
        initiator: next_send(&rdma),
        report: flags & OPTIMIZE_REPORTS == 0,
    });
}

/// `doca_dpa_dev_rdma_post_receive` (and its buffer form): a receive the next
/// operation that arrives fills (at once when one is waiting).
#[no_mangle]
pub extern "C" fn doca_sim_impl_rdma_receive(handle: u64, mmap: u32, addr: u64, length: u64) {
    let _sim = SimCode::enter();
    const CALL: &str = "doca_dpa_dev_rdma_post_receive";
    let Some(rdma) = rdma_of(CALL, handle) else {
        return;
    };
    if range_of(CALL, mmap, addr, length).is_none() {
        return;
    }
    let mut st = lock(&rdma.state);
    if st.receives.len() >= st.recv_queue_size as usize {
        drop(st);
        return raise(
            FaultKind::QueueOverrun(QueueKind::Receive),
            format!("{CALL}: the receive queue is full (doca_rdma_set_recv_queue_size)"),
        );
    }
    let receive = Receive {
        mmap,
        addr,
        len: length,
        index: st.posted_receives,
    };
    st.posted_receives = st.posted_receives.wrapping_add(1);
    match st.waiting.pop_front() {
        Some(arrival) => {
            let target = st.completion.clone();
            drop(st);
            deliver(receive, arrival, target);
        }
        None => st.receives.push_back(receive),
    }
}

/// `doca_dpa_dev_rdma_receive_ack`: checks the handle.
///
/// Model choice: a receive's slot is free once it is filled, so there is
/// nothing to release (NVIDIA's samples repost receives without acknowledging
/// them).
#[no_mangle]
pub extern "C" fn doca_sim_impl_rdma_receive_ack(handle: u64, num_acked: u32) {
    let _sim = SimCode::enter();
    let _ = num_acked;
    let _ = rdma_of("doca_dpa_dev_rdma_receive_ack", handle);
}

/// A range of a one-sided operation: the mmap handle and the address in it.
type Side = (u32, u64);

/// Which range of a one-sided operation is the peer's.
#[derive(Clone, Copy)]
enum Remote {
    /// A write: the destination, whose map must permit RDMA writes.
    Destination,
    /// A read: the source, whose map must permit RDMA reads.
    Source,
}

/// What a one-sided write and a one-sided read share: resolves the handle and
/// the connection, checks the local range then the remote one, refuses (a
/// completion with an error) when the connection has no peer or the remote map
/// does not permit the access, then copies `src` into `dst`. The context and the
/// peer once copied; `None` when the operation is over (refused, or a device
/// fault reported).
#[allow(clippy::too_many_arguments)]
fn copy_one_sided(
    call: &str,
    handle: u64,
    connection_id: u32,
    dst: Side,
    src: Side,
    length: u64,
    remote: Remote,
    flags: u32,
) -> Option<(Arc<RdmaCore>, Arc<RdmaCore>)> {
    let rdma = rdma_of(call, handle)?;
    let target = peer_of(call, &rdma, connection_id)?;
    let (local, peer, access) = match remote {
        Remote::Destination => (src, dst, abi::DOCA_ACCESS_FLAG_RDMA_WRITE),
        Remote::Source => (dst, src, abi::DOCA_ACCESS_FLAG_RDMA_READ),
    };
    range_of(call, local.0, local.1, length)?;
    let peer_range = range_of(call, peer.0, peer.1, length)?;
    let Some(target) =
        target.filter(|_| peer_range.permissions & access != 0 && peer_range.reachable())
    else {
        finish(&rdma, false, flags);
        return None;
    };
    let data = read_bytes(call, src.1, length)?;
    write_bytes(call, dst.1, &data).then_some((rdma, target))
}

/// `doca_dpa_dev_rdma_post_write` / `_write_imm` (and buffer forms): copies
/// the local range into the remote map (which must permit RDMA writes); with
/// an immediate, also consumes a receive of the peer.
#[no_mangle]
pub extern "C" fn doca_sim_impl_rdma_write(
    handle: u64,
    connection_id: u32,
    dst_mmap: u32,
    dst_addr: u64,
    src_mmap: u32,
    src_addr: u64,
    length: u64,
    has_immediate: c_int,
    immediate: u32,
    flags: u32,
) {
    let _sim = SimCode::enter();
    let Some((rdma, target)) = copy_one_sided(
        "doca_dpa_dev_rdma_post_write",
        handle,
        connection_id,
        (dst_mmap, dst_addr),
        (src_mmap, src_addr),
        length,
        Remote::Destination,
        flags,
    ) else {
        return;
    };
    if has_immediate == 0 {
        return finish(&rdma, true, flags);
    }
    target.arrive(Arrival {
        payload: Payload::WriteImmediate(immediate),
        initiator: next_send(&rdma),
        report: flags & OPTIMIZE_REPORTS == 0,
    });
}

/// `doca_dpa_dev_rdma_post_read` (and its buffer form): copies the remote
/// range (its map must permit RDMA reads) into the local one.
#[no_mangle]
pub extern "C" fn doca_sim_impl_rdma_read(
    handle: u64,
    connection_id: u32,
    dst_mmap: u32,
    dst_addr: u64,
    src_mmap: u32,
    src_addr: u64,
    length: u64,
    flags: u32,
) {
    let _sim = SimCode::enter();
    if let Some((rdma, _)) = copy_one_sided(
        "doca_dpa_dev_rdma_post_read",
        handle,
        connection_id,
        (dst_mmap, dst_addr),
        (src_mmap, src_addr),
        length,
        Remote::Source,
        flags,
    ) {
        finish(&rdma, true, flags);
    }
}

/// Serialises the sim's RDMA atomics (RDMA atomics are atomic with respect
/// to each other).
static ATOMICS: Mutex<()> = Mutex::new(());

/// `doca_dpa_dev_rdma_post_atomic_fetch_add` (and its buffer form): adds
/// `value` to the remote 8-byte word (its map must permit RDMA atomics).
#[no_mangle]
pub extern "C" fn doca_sim_impl_rdma_atomic_add(
    handle: u64,
    connection_id: u32,
    dst_mmap: u32,
    dst_addr: u64,
    value: u64,
    flags: u32,
) {
    let _sim = SimCode::enter();
    const CALL: &str = "doca_dpa_dev_rdma_post_atomic_fetch_add";
    let Some(rdma) = rdma_of(CALL, handle) else {
        return;
    };
    let Some(target) = peer_of(CALL, &rdma, connection_id) else {
        return;
    };
    let Some(dst) = range_of(CALL, dst_mmap, dst_addr, 8) else {
        return;
    };
    if target.is_none()
        || !dst.reachable()
        || dst.permissions & abi::DOCA_ACCESS_FLAG_RDMA_ATOMIC == 0
        || dst_addr % 8 != 0
    {
        return finish(&rdma, false, flags);
    }
    let _atomic = lock(&ATOMICS);
    let Some(old) = read_bytes(CALL, dst_addr, 8) else {
        return;
    };
    let old = u64::from_ne_bytes(old.try_into().unwrap_or_default());
    if write_bytes(CALL, dst_addr, &old.wrapping_add(value).to_ne_bytes()) {
        finish(&rdma, true, flags);
    }
}

/// `doca_dpa_dev_rdma_signal_set` / `_add`: sets or adds to the remote event
/// (a `doca_dpa_dev_sync_event_remote_net_t`).
///
/// Model choice: no completion is reported (the all-to-all application posts
/// one signal per write and never drains its completion context).
#[no_mangle]
pub extern "C" fn doca_sim_impl_rdma_signal(
    handle: u64,
    connection_id: u32,
    remote_event: u64,
    count: u64,
    add: c_int,
) {
    let _sim = SimCode::enter();
    const CALL: &str = "doca_dpa_dev_rdma_signal_set";
    let Some(rdma) = rdma_of(CALL, handle) else {
        return;
    };
    let Some(target) = peer_of(CALL, &rdma, connection_id) else {
        return;
    };
    if target.is_none() {
        // Errors are always reported, even for signals.
        return finish(&rdma, false, 0);
    }
    match crate::sync_event::remote_net_event(remote_event) {
        Some(event) if add != 0 => {
            event.add(count);
        }
        Some(event) => event.set(count),
        None => fault(format!(
            "{CALL}: remote sync event handle {remote_event:#x} is not live"
        )),
    }
}
