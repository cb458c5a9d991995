//! DPA Verbs (DOCA 3.2+): UMEMs and UARs on the DPA (`doca_umem.h`,
//! `doca_uar.h`), the traffic state of a verbs queue pair on the DPA datapath,
//! and the device calls of `doca_dpa_dev_verbs.h` that post on it.
//!
//! Model choices (docs/sim-model.md, "DPA Verbs"), following NVIDIA's
//! `dpa_verbs_initiator_target`:
//! - memory keys are DOCA mmap DPA handles: an SGE's `lkey` and a work
//!   request's `rkey` name a `doca_mmap` exported to the DPA, whose range and
//!   permissions are checked (the sample passes its maps' DPA handles as both);
//! - a queue pair reaches its peer (the `dest_qp_num` of its RTR transition)
//!   through the sim's fabric (`fabric`), in this process or in another
//!   process of the same user on the machine; GIDs and address handles are
//!   accepted and play no part;
//! - posted work requests are staged and run at the commit (the doorbell),
//!   in order, on the committing kernel's thread: data moves with the commit,
//!   and the completions land in the DPA completion contexts of the two
//!   sides (send: SEND when signalled, SEND_ERR always, user data the work
//!   request's count as `doca_dpa_dev_verbs_qp_post_send_wr` returned it;
//!   receive: RECV_SEND with the byte count as immediate, RECV_SEND_IMM and
//!   RECV_RDMA_WRITE_IMM with the immediate, user data the receive's count);
//! - every copy through a key is made while the key's map is live (held so
//!   by `mmap::with_range`): a receive or staged work request whose map
//!   stopped since it was posted copies nothing and fails;
//! - a local key used as a destination (a receive, an RDMA read's result, an
//!   atomic's old value) needs `DOCA_ACCESS_FLAG_LOCAL_READ_WRITE`, checked
//!   when the data lands (and, for a read or an atomic, before the request
//!   goes): otherwise nothing is written and the work request fails, as
//!   InfiniBand's local protection error (RECV_ERR for a receive, the sender
//!   then SEND_ERR; SEND_ERR for a read or an atomic, which is not applied).
//!   A source (a send's or write's gather) needs only a live key;
//! - an unreliable-connected (UC) queue pair sends and writes; an RDMA read or
//!   atomic posted on one fails at the commit with SEND_ERR (InfiniBand's
//!   local QP operation error), nothing sent or copied, and one arriving at a
//!   UC queue pair is a remote invalid request;
//! - a peer in another process that does not answer within the transport
//!   timeout (4.096 µs × 2^`ack_timeout` × (`retry_cnt` + 1), within
//!   0.1–2 s; 2 s for `ack_timeout` 0) fails the work request with SEND_ERR
//!   (transport retries exceeded); the context stays usable;
//! - a failed work request moves its queue pair to the error state, as on
//!   hardware: the work requests committed after it are flushed (SEND_ERR,
//!   immediate `Status::Flushed`), its receives too (RECV_ERR, same
//!   immediate), until the host resets it (`doca_verbs_qp_modify` to RST;
//!   to RTS is BAD_STATE). A receive that completes in error (RECV_ERR) moves
//!   the receiving queue pair to the error state too, and so does a remote
//!   access error at a reliable connection's responder (an unreliable one
//!   drops the request and stays in RTS);
//! - a send (or write with immediate) that finds no committed receive at its
//!   target is retried every millisecond, without limit when the queue pair's
//!   `rnr_retry` is 7 (InfiniBand's "infinite") and `rnr_retry` times
//!   otherwise, then fails (SEND_ERR);
//! - remote errors (a key that does not cover the range or permit the access,
//!   a queue pair that does not permit remote writes or reads, a peer that is
//!   not connected to this queue pair or not in RTR/RTS, a message longer than
//!   the receive) give the initiator a SEND_ERR whose immediate is the fabric
//!   status (`fabric::Status`, which numbers the sender's own failures too);
//!   a work request committed on a queue pair that is not in RTS is flushed
//!   with SEND_ERR;
//! - an atomic fetch-and-add needs a remote map that permits RDMA atomics and
//!   an 8-byte aligned remote word, and 8 bytes of local SGEs for the old value;
//!   the sim's atomics are atomic with respect to each other in the target's
//!   process (the queue pair's own remote write and read permissions do not
//!   govern them);
//! - a local key that does not cover its SGE, an unknown opcode, an atomic
//!   whose local SGEs are not 8 bytes, more SGEs than the queue pair was made
//!   for, or more outstanding work requests than its queue holds are device
//!   faults of the posting kernel.

// Functions called from C (`csrc/device.c`) are `pub` for `#[no_mangle]`
// export, not for Rust callers.
#![allow(unreachable_pub)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use crate::abi;
use crate::dpa::fault::{Access, FaultKind, QueueKind};
use crate::dpa::launch::{bad_address, raise, with_device};
use crate::dpa::threads::{comp, CompletionCore};
use crate::dpa::{dpa, DpaCore};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, out};
use crate::fabric::{Fabric, Op, Packet, Reply, Status};
use crate::mmap::{handle_info, with_range, HandleRange};
use crate::registry::{self, SimObject};
use crate::trap::{self, SimCode};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

// ------------------------------------------------------------ UMEM and UAR

/// `struct doca_umem`: DPA heap memory registered for a queue pair's rings or
/// doorbell record.
///
/// Model choice: a UMEM (and a UAR) may be destroyed while a queue pair made
/// with it lives, as NVIDIA's `dpa_verbs_initiator_target` destroys them (and
/// frees their memory) before its queue pair; the sim's queue pairs keep
/// their rings in the sim, so nothing reaches the memory afterwards.
pub(crate) struct Umem {
    pub(crate) dpa: Arc<DpaCore>,
}
impl SimObject for Umem {
    const KIND: &'static str = "doca_umem";
}

/// `struct doca_uar`: a doorbell region of a DPA context.
pub(crate) struct Uar {
    pub(crate) dpa: Arc<DpaCore>,
}
impl SimObject for Uar {
    const KIND: &'static str = "doca_uar";
}

doca_api! {
    /// Registers DPA heap memory as a UMEM: the context must be started and
    /// the range inside one of its live allocations.
    fn doca_umem_dpa_create(dpa: *mut abi::doca_dpa, address: u64, size: usize, access_flags: u32, umem: *mut *mut abi::doca_umem) {
        let core = self::dpa(dpa)?.core.clone();
        if umem.is_null() || size == 0 {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer or an empty range"));
        }
        let _ = access_flags;
        core.require_started()?;
        core.heap().check_range(address, size)?;
        out(umem, registry::register(Umem { dpa: core }).cast())
    }

    /// Deregisters a UMEM (see [`Umem`] for one a queue pair was made with).
    fn doca_umem_destroy(umem: *mut abi::doca_umem) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        unsafe { registry::unregister::<Umem, _>(umem) }?;
        Ok(())
    }

    /// Allocates a UAR of a started DPA context.
    fn doca_uar_dpa_create(dpa: *mut abi::doca_dpa, uar: *mut *mut abi::doca_uar) {
        let core = self::dpa(dpa)?.core.clone();
        if uar.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        core.require_started()?;
        out(uar, registry::register(Uar { dpa: core }).cast())
    }

    /// Frees a UAR (see [`Umem`] for one a queue pair was made with).
    fn doca_uar_destroy(uar: *mut abi::doca_uar) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        unsafe { registry::unregister::<Uar, _>(uar) }?;
        Ok(())
    }
}

// ------------------------------------------------------- queue pair traffic

/// `DOCA_VERBS_QP_STATE_*` the traffic checks.
const RTR: abi::doca_verbs_qp_state = abi::DOCA_VERBS_QP_STATE_RTR;
const RTS: abi::doca_verbs_qp_state = abi::DOCA_VERBS_QP_STATE_RTS;
const ERR: abi::doca_verbs_qp_state = abi::DOCA_VERBS_QP_STATE_ERR;
/// `rnr_retry` that means "retry without limit".
const RNR_INFINITE: u16 = 7;
/// The access a local SGE needs to be written: the destination of a receive,
/// of an RDMA read's result or of an atomic's old value (a source needs only
/// a live key: local reads are always allowed, as on hardware).
const LOCAL_WRITE: u32 = abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE;

/// One scatter/gather element, as a kernel posted it.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct Sge {
    addr: u64,
    length: u32,
    lkey: u32,
}

/// The sim's layout of `struct doca_dpa_dev_verbs_send_wr` (64 bytes, opaque
/// to kernels; `device-include/doca_dpa_dev_verbs.h` writes it).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C)]
pub struct SendWr {
    sg_list: u64,
    remote_addr: u64,
    compare_add: u64,
    swap: u64,
    num_sge: u32,
    opcode: u32,
    flags: u32,
    fence: u32,
    imm: u32,
    rkey: u32,
    invalidate_rkey: u32,
    reserved: u32,
}

/// The sim's layout of `struct doca_dpa_dev_verbs_recv_wr` (12 bytes).
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, packed)]
pub struct RecvWr {
    sg_list: u64,
    num_sge: u32,
}

/// `enum doca_dpa_dev_verbs_send_wr_opcode` and flags.
mod wr {
    pub(super) const WRITE: u32 = 0x8;
    pub(super) const WRITE_WITH_IMM: u32 = 0x9;
    pub(super) const SEND: u32 = 0xA;
    pub(super) const SEND_WITH_IMM: u32 = 0xB;
    pub(super) const READ: u32 = 0x10;
    pub(super) const ATOMIC_FETCH_ADD: u32 = 0x12;
    pub(super) const SIGNALED: u32 = 1 << 1;
}

/// A send work request taken from the kernel: its SGEs copied.
struct StagedSend {
    wr: SendWr,
    sges: Vec<Sge>,
    count: u32,
}

/// A receive: where an arriving message goes.
struct Receive {
    sges: Vec<Sge>,
    count: u32,
}

/// The attributes `doca_verbs_qp_modify` applies that traffic uses.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TrafficAttrs {
    pub(crate) dest_qpn: Option<u32>,
    pub(crate) remote_write: Option<bool>,
    pub(crate) remote_read: Option<bool>,
    pub(crate) rnr_retry: Option<u16>,
    pub(crate) ack_timeout: Option<u16>,
    pub(crate) retry_cnt: Option<u16>,
}

struct Wire {
    state: abi::doca_verbs_qp_state,
    dest_qpn: Option<u32>,
    remote_write: bool,
    remote_read: bool,
    rnr_retry: u16,
    ack_timeout: u16,
    retry_cnt: u16,
    staged_sends: Vec<StagedSend>,
    sends_posted: u32,
    staged_receives: Vec<Receive>,
    receives: VecDeque<Receive>,
    receives_posted: u32,
}

/// How a queue pair on the DPA datapath was made.
pub(crate) struct QpShape {
    pub(crate) dpa: Arc<DpaCore>,
    /// `DOCA_VERBS_QP_TYPE_RC` or `_UC` (`doca_verbs_qp_init_attr_set_qp_type`).
    pub(crate) qp_type: u32,
    pub(crate) send_completion: Option<Arc<CompletionCore>>,
    pub(crate) receive_completion: Option<Arc<CompletionCore>>,
    pub(crate) sq_wr: u32,
    pub(crate) rq_wr: u32,
    pub(crate) send_sges: u32,
    pub(crate) receive_sges: u32,
}

/// The traffic side of a queue pair on the DPA datapath: what its DPA handle
/// resolves to, and what the fabric delivers to.
pub(crate) struct QpCore {
    pub(crate) qpn: u32,
    shape: QpShape,
    wire: Mutex<Wire>,
}

impl QpCore {
    /// A queue pair in RST with a machine-wide number from the fabric.
    pub(crate) fn new(shape: QpShape) -> SimResult<Arc<QpCore>> {
        let mut claim_error = None;
        let core = Arc::new_cyclic(|weak: &Weak<QpCore>| {
            let weak = weak.clone();
            let qpn = Fabric::global()
                .claim(Arc::new(move |p: Packet| match weak.upgrade() {
                    Some(qp) => qp.arrive(p),
                    None => Reply::status(Status::Unreachable),
                }))
                .unwrap_or_else(|e| {
                    claim_error = Some(e);
                    0
                });
            QpCore {
                qpn,
                shape,
                wire: Mutex::new(Wire {
                    state: abi::DOCA_VERBS_QP_STATE_RST,
                    dest_qpn: None,
                    remote_write: false,
                    remote_read: false,
                    rnr_retry: 0,
                    ack_timeout: 0,
                    retry_cnt: 0,
                    staged_sends: Vec::new(),
                    sends_posted: 0,
                    staged_receives: Vec::new(),
                    receives: VecDeque::new(),
                    receives_posted: 0,
                }),
            }
        });
        match claim_error {
            None => Ok(core),
            Some(e) if e.kind() == std::io::ErrorKind::PermissionDenied => Err(fail(
                codes::OPERATING_SYSTEM,
                "the sim's fabric directory is not the user's own or is open to others (mode 0700 wanted; set DOCA_SIM_FABRIC_DIR to another)",
            )),
            Some(_) => Err(fail(
                codes::OPERATING_SYSTEM,
                "the sim's fabric could not claim a queue pair number (its directory, DOCA_SIM_FABRIC_DIR, must be writable)",
            )),
        }
    }

    pub(crate) fn dpa(&self) -> &Arc<DpaCore> {
        &self.shape.dpa
    }

    /// Whether the queue pair's transport has RDMA reads and atomics: a
    /// reliable connection does, an unreliable one only sends and writes.
    fn reads_and_atomics(&self) -> bool {
        self.shape.qp_type == abi::DOCA_VERBS_QP_TYPE_RC
    }

    /// Whether the queue pair is in the error state, which a failed work
    /// request moves it to ([`QpCore::fail`]) as well as `doca_verbs_qp_modify`.
    pub(crate) fn in_error(&self) -> bool {
        lock(&self.wire).state == ERR
    }

    /// Moves to the error state, as a failed work request does on hardware:
    /// every committed receive is flushed (RECV_ERR, immediate
    /// [`Status::Flushed`]), and so will be every work request committed
    /// until the host resets the queue pair.
    fn fail(&self) {
        let flushed = {
            let mut w = lock(&self.wire);
            w.state = ERR;
            std::mem::take(&mut w.receives)
        };
        self.flush(flushed);
    }

    /// Reports `receives` flushed.
    fn flush(&self, receives: impl IntoIterator<Item = Receive>) {
        if let Some(c) = &self.shape.receive_completion {
            for r in receives {
                let _ = c.post(comp::RECV_ERR, r.count & 0xffff, Status::Flushed as u32);
            }
        }
    }

    /// Moves to `state` with `attrs` applied (the transition was checked).
    pub(crate) fn apply(&self, state: abi::doca_verbs_qp_state, attrs: TrafficAttrs) {
        if state == ERR {
            self.fail();
        }
        let mut w = lock(&self.wire);
        w.state = state;
        if let Some(d) = attrs.dest_qpn {
            w.dest_qpn = Some(d);
        }
        if let Some(v) = attrs.remote_write {
            w.remote_write = v;
        }
        if let Some(v) = attrs.remote_read {
            w.remote_read = v;
        }
        if let Some(v) = attrs.rnr_retry {
            w.rnr_retry = v;
        }
        if let Some(v) = attrs.ack_timeout {
            w.ack_timeout = v;
        }
        if let Some(v) = attrs.retry_cnt {
            w.retry_cnt = v;
        }
        if state == abi::DOCA_VERBS_QP_STATE_RST {
            w.staged_sends.clear();
            w.staged_receives.clear();
            w.receives.clear();
        }
    }

    /// What the fabric delivers: `packet` from the peer.
    fn arrive(&self, packet: Packet) -> Reply {
        let mut w = lock(&self.wire);
        if !matches!(w.state, RTR | RTS) || w.dest_qpn != Some(packet.src_qpn) {
            return Reply::status(Status::RemoteInvalidRequest);
        }
        let len = match packet.op {
            Op::Read => u64::from(packet.len),
            _ => packet.data.len() as u64,
        };
        if matches!(packet.op, Op::Read | Op::FetchAdd) && !self.reads_and_atomics() {
            // An unreliable connection has no responder for them.
            return Reply::status(Status::RemoteInvalidRequest);
        }
        let (allowed, access) = match packet.op {
            Op::Write | Op::WriteImm => (w.remote_write, abi::DOCA_ACCESS_FLAG_RDMA_WRITE),
            Op::Read => (w.remote_read, abi::DOCA_ACCESS_FLAG_RDMA_READ),
            Op::FetchAdd => (
                len == 8 && packet.remote_addr % 8 == 0,
                abi::DOCA_ACCESS_FLAG_RDMA_ATOMIC,
            ),
            Op::Send | Op::SendImm => (true, 0),
        };
        if !allowed {
            drop(w);
            return self.remote_access_error();
        }
        let consumes = matches!(packet.op, Op::Send | Op::SendImm | Op::WriteImm);
        if consumes && w.receives.is_empty() {
            return Reply::status(Status::ReceiverNotReady);
        }
        if access != 0 {
            // The remote access, while the map named by the key is live.
            let addr = packet.remote_addr;
            let done = with_range(packet.rkey, addr, len, |r| {
                if r.permissions & access == 0 {
                    return None;
                }
                match packet.op {
                    Op::Read => {
                        let mut data = vec![0u8; len as usize];
                        // SAFETY: `data` holds `len` bytes; the source lies in
                        // a live map (held so) and is probed.
                        let read = unsafe {
                            trap::probe_copy(data.as_mut_ptr(), addr as *const u8, data.len())
                        };
                        read.ok().map(|()| data)
                    }
                    Op::FetchAdd => fetch_add(addr, &packet.data),
                    _ => {
                        // SAFETY: as for a read, for the destination.
                        let written = unsafe {
                            trap::probe_copy(
                                addr as *mut u8,
                                packet.data.as_ptr(),
                                packet.data.len(),
                            )
                        };
                        written.ok().map(|()| Vec::new())
                    }
                }
            });
            let Some(data) = done.flatten() else {
                drop(w);
                return self.remote_access_error();
            };
            if matches!(packet.op, Op::Read | Op::FetchAdd) {
                return Reply {
                    status: Status::Ok,
                    data,
                };
            }
        }
        let Some(receive) = w.receives.pop_front() else {
            return Reply::status(Status::Ok);
        };
        drop(w);
        let (kind, immediate) = match packet.op {
            Op::Send => (comp::RECV_SEND, packet.data.len() as u32),
            Op::SendImm => (comp::RECV_SEND_IMM, packet.imm),
            _ => (comp::RECV_RDMA_WRITE_IMM, packet.imm),
        };
        let fits =
            !matches!(packet.op, Op::Send | Op::SendImm) || scatter(&receive.sges, &packet.data);
        let completion = self.shape.receive_completion.as_ref();
        let index = receive.count & 0xffff;
        if !fits {
            if let Some(c) = completion {
                let _ = c.post(comp::RECV_ERR, index, 0);
            }
            // A completion in error: the receiver's queue pair, of either
            // transport, goes to the error state.
            self.fail();
            return Reply::status(Status::RemoteInvalidRequest);
        }
        if let Some(c) = completion {
            let _ = c.post(kind, index, immediate);
        }
        Reply::status(Status::Ok)
    }

    /// A remote access error the responder detected in a request of its
    /// peer, for the sender; a reliable connection moves to the error state
    /// (InfiniBand's responder errors; an unreliable one drops the request).
    fn remote_access_error(&self) -> Reply {
        if self.reads_and_atomics() {
            self.fail();
        }
        Reply::status(Status::RemoteAccess)
    }

    /// Runs one committed send work request and reports it; a failed one
    /// moves the queue pair to the error state (one flushed because the
    /// queue pair is not in RTS leaves its state as it is).
    fn execute(&self, staged: StagedSend) {
        let signaled = staged.wr.flags & wr::SIGNALED != 0;
        let status = self.transmit(&staged);
        if !matches!(status, Status::Ok | Status::Flushed) {
            self.fail();
        }
        if let Some(c) = &self.shape.send_completion {
            let index = staged.count & 0xffff;
            let _ = match status {
                Status::Ok if signaled => c.post(comp::SEND, index, 0),
                Status::Ok => Ok(()),
                failed => c.post(comp::SEND_ERR, index, failed as u32),
            };
        }
    }

    fn transmit(&self, staged: &StagedSend) -> Status {
        let (state, dest, rnr_retry, timeout) = {
            let w = lock(&self.wire);
            let timeout = transport_timeout(w.ack_timeout, w.retry_cnt);
            (w.state, w.dest_qpn, w.rnr_retry, timeout)
        };
        let Some(dest_qpn) = dest.filter(|_| state == RTS) else {
            return Status::Flushed;
        };
        let wr = &staged.wr;
        let op = match wr.opcode {
            wr::WRITE => Op::Write,
            wr::WRITE_WITH_IMM => Op::WriteImm,
            wr::SEND => Op::Send,
            wr::SEND_WITH_IMM => Op::SendImm,
            wr::ATOMIC_FETCH_ADD => Op::FetchAdd,
            _ => Op::Read,
        };
        let answered = matches!(op, Op::Read | Op::FetchAdd);
        if answered && !self.reads_and_atomics() {
            return Status::LocalOperation;
        }
        // A read's result and an atomic's old value land in the local SGEs:
        // checked before the request goes (so an atomic is not applied for a
        // result that could not land), and again when they land.
        if answered && !writable(&staged.sges) {
            return Status::LocalProtection;
        }
        let total: u64 = staged.sges.iter().map(|s| u64::from(s.length)).sum();
        let data = if op == Op::Read {
            Vec::new()
        } else if op == Op::FetchAdd {
            wr.compare_add.to_le_bytes().to_vec()
        } else {
            let Some(data) = gather(&staged.sges) else {
                return Status::LocalProtection;
            };
            data
        };
        let packet = Packet {
            src_qpn: self.qpn,
            dest_qpn,
            op,
            remote_addr: wr.remote_addr,
            rkey: wr.rkey,
            imm: wr.imm,
            len: u32::try_from(total).unwrap_or(u32::MAX),
            data,
        };
        let mut retries = 0u32;
        loop {
            let reply = Fabric::global().transmit(packet.clone(), timeout);
            match reply.status {
                Status::ReceiverNotReady
                    if rnr_retry == RNR_INFINITE || retries < u32::from(rnr_retry) =>
                {
                    retries += 1;
                    std::thread::sleep(Duration::from_millis(1));
                }
                Status::Ok if answered => {
                    return if scatter(&staged.sges, &reply.data) {
                        Status::Ok
                    } else {
                        Status::LocalProtection
                    };
                }
                status => return status,
            }
        }
    }
}

/// How long a work request waits for a peer's answer before it fails with
/// [`Status::RetryExceeded`]: InfiniBand's local ACK timeout
/// (4.096 µs × 2^`ack_timeout`) for each of the `retry_cnt` retries and the
/// first try, kept within [`MIN_TIMEOUT`, `MAX_TIMEOUT`].
///
/// Model choice (docs/sim-model.md, "DPA Verbs"): `ack_timeout` 0, which is
/// no timeout on hardware and what a queue pair never given one has, waits
/// [`MAX_TIMEOUT`]: the wait blocks the committing kernel, which the kernel
/// run-time limit would otherwise stop, making its whole context fatal.
fn transport_timeout(ack_timeout: u16, retry_cnt: u16) -> Duration {
    if ack_timeout == 0 {
        return MAX_TIMEOUT;
    }
    // Both are fields of 5 and 3 bits in InfiniBand.
    let one = Duration::from_nanos(4096 << ack_timeout.min(31));
    let tries = u32::from(retry_cnt.min(7)) + 1;
    one.saturating_mul(tries).clamp(MIN_TIMEOUT, MAX_TIMEOUT)
}

/// The shortest wait for an answer: a peer process on a busy host may take
/// tens of milliseconds to be scheduled, which no NIC does.
const MIN_TIMEOUT: Duration = Duration::from_millis(100);
/// The longest: a few of them fit in the default kernel run-time limit (12 s).
const MAX_TIMEOUT: Duration = Duration::from_secs(2);

/// Serialises the sim's RDMA atomics in this process (atomics are atomic with
/// respect to each other).
static ATOMICS: Mutex<()> = Mutex::new(());

/// Adds `operand` (8 little-endian bytes) to the word at `addr` (in a live
/// map the caller holds); the word's old value, or `None` for a bad address.
fn fetch_add(addr: u64, operand: &[u8]) -> Option<Vec<u8>> {
    let add = u64::from_le_bytes(operand.try_into().unwrap_or_default());
    let _atomic = lock(&ATOMICS);
    let mut old = [0u8; 8];
    // SAFETY: `old` holds 8 bytes; the word lies in a live map and is probed.
    let read = unsafe { trap::probe_copy(old.as_mut_ptr(), addr as *const u8, 8) };
    let new = u64::from_ne_bytes(old).wrapping_add(add).to_ne_bytes();
    let written = read.and_then(|()| {
        // SAFETY: as above, for the write back.
        unsafe { trap::probe_copy(addr as *mut u8, new.as_ptr(), 8) }
    });
    written.ok().map(|()| old.to_vec())
}

/// The bytes of `sges`, each read while its local key's map is live. `None`
/// when a map is gone (the work request then fails) or after a bad address
/// (reported as a device fault).
fn gather(sges: &[Sge]) -> Option<Vec<u8>> {
    let mut data = Vec::new();
    for s in sges {
        let start = data.len();
        data.resize(start + s.length as usize, 0);
        let len = u64::from(s.length);
        let read = with_range(s.lkey, s.addr, len, |_| {
            // SAFETY: `data[start..]` holds `s.length` bytes; the source lies
            // in a live map (held so) and is probed.
            unsafe {
                trap::probe_copy(
                    data[start..].as_mut_ptr(),
                    s.addr as *const u8,
                    s.length as usize,
                )
            }
        })?;
        if let Err(bad) = read {
            bad_address("doca_dpa_dev_verbs_qp_commit_send", bad, Access::Read);
            return None;
        }
    }
    Some(data)
}

/// Whether a map permits the local writes of a destination SGE.
fn local_write(r: &HandleRange) -> bool {
    r.permissions & LOCAL_WRITE != 0
}

/// Whether every SGE's local key is live, covers it and permits local
/// writes (hardware: a local protection error otherwise).
fn writable(sges: &[Sge]) -> bool {
    sges.iter()
        .all(|s| with_range(s.lkey, s.addr, u64::from(s.length), local_write) == Some(true))
}

/// Writes `data` across `sges`; false, with nothing written, when it does
/// not fit or a key does not permit local writes (checked first, for every
/// SGE); false after a map that stopped or a bad address.
fn scatter(sges: &[Sge], data: &[u8]) -> bool {
    let room: u64 = sges.iter().map(|s| u64::from(s.length)).sum();
    if data.len() as u64 > room || !writable(sges) {
        return false;
    }
    let mut rest = data;
    for s in sges {
        let n = rest.len().min(s.length as usize);
        let written = with_range(s.lkey, s.addr, n as u64, |r| {
            if !local_write(r) {
                return None;
            }
            // SAFETY: `rest` holds `n` bytes; the destination lies in a live
            // map (held so; it may have stopped since the receive was
            // posted, and then nothing is written) and is probed.
            Some(unsafe { trap::probe_copy(s.addr as *mut u8, rest.as_ptr(), n) })
        });
        if !matches!(written, Some(Some(Ok(())))) {
            return false;
        }
        rest = &rest[n..];
    }
    true
}

impl Drop for QpCore {
    fn drop(&mut self) {
        if self.qpn != 0 {
            Fabric::global().release(self.qpn);
        }
    }
}

// ------------------------------------------------------------- device side

fn fault(reason: String) {
    raise(FaultKind::InvalidDeviceCall, reason);
}

/// The queue pair behind a DPA handle, if the running code may use it: live,
/// and on the running code's DPA context (its base or an extension).
fn qp_of(call: &str, handle: u64) -> Option<Arc<QpCore>> {
    let Some(qp) = registry::resolve::<QpCore>(handle) else {
        fault(format!(
            "{call}: {handle:#x} is not the DPA handle of a live queue pair"
        ));
        return None;
    };
    let related = with_device(|ctx| ctx.is_none_or(|c| c.core.shares_device_context(qp.dpa())));
    if !related {
        fault(format!(
            "{call}: queue pair {:#x} is on the datapath of another DPA context",
            qp.qpn
        ));
        return None;
    }
    Some(qp)
}

/// Reads a value a kernel points at (a bad pointer is its fault).
fn read_struct<T: Copy + Default>(call: &str, ptr: u64) -> Option<T> {
    let mut value = T::default();
    // SAFETY: `value` is a `T` of plain integers; the kernel's side is probed.
    let read = unsafe {
        trap::probe_copy(
            (&raw mut value).cast::<u8>(),
            ptr as *const u8,
            std::mem::size_of::<T>(),
        )
    };
    match read {
        Ok(()) => Some(value),
        Err(bad) => {
            bad_address(call, bad, Access::Read);
            None
        }
    }
}

/// The SGEs a work request names, each checked against its local key's map.
fn sges_of(call: &str, list: u64, count: u32, max: u32) -> Option<Vec<Sge>> {
    if count > max.max(1) {
        fault(format!(
            "{call}: {count} SGEs, more than the queue pair was created for ({max})"
        ));
        return None;
    }
    let mut sges = Vec::with_capacity(count as usize);
    for i in 0..u64::from(count) {
        let sge: Sge = read_struct(call, list + i * std::mem::size_of::<Sge>() as u64)?;
        match handle_info(sge.lkey) {
            Some(r) if r.holds(sge.addr, u64::from(sge.length)) => sges.push(sge),
            Some(_) => {
                fault(format!(
                    "{call}: [{:#x}, +{}) is outside the memory map of lkey {}",
                    sge.addr, sge.length, sge.lkey
                ));
                return None;
            }
            None => {
                fault(format!(
                    "{call}: lkey {} is not a live mmap DPA handle",
                    sge.lkey
                ));
                return None;
            }
        }
    }
    Some(sges)
}

/// `doca_dpa_dev_verbs_qp_post_send_wr`: stages a send work request; its
/// count (never 0), or 0 after a device fault.
#[no_mangle]
pub extern "C" fn doca_sim_impl_verbs_post_send(handle: u64, send_wr: u64) -> u32 {
    let _sim = SimCode::enter();
    const CALL: &str = "doca_dpa_dev_verbs_qp_post_send_wr";
    let Some(qp) = qp_of(CALL, handle) else {
        return 0;
    };
    let Some(wr) = read_struct::<SendWr>(CALL, send_wr) else {
        return 0;
    };
    if !matches!(
        wr.opcode,
        wr::WRITE
            | wr::WRITE_WITH_IMM
            | wr::SEND
            | wr::SEND_WITH_IMM
            | wr::READ
            | wr::ATOMIC_FETCH_ADD
    ) {
        fault(format!(
            "{CALL}: opcode {:#x} is not one of doca_dpa_dev_verbs.h's",
            wr.opcode
        ));
        return 0;
    }
    let Some(sges) = sges_of(CALL, wr.sg_list, wr.num_sge, qp.shape.send_sges) else {
        return 0;
    };
    let local: u64 = sges.iter().map(|s| u64::from(s.length)).sum();
    if wr.opcode == wr::ATOMIC_FETCH_ADD && local != 8 {
        fault(format!(
            "{CALL}: an atomic's local SGEs take its 8-byte old value, not {local} bytes"
        ));
        return 0;
    }
    let mut w = lock(&qp.wire);
    if w.staged_sends.len() >= qp.shape.sq_wr.max(1) as usize {
        drop(w);
        raise(
            FaultKind::QueueOverrun(QueueKind::Send),
            format!("{CALL}: more uncommitted send work requests than the send queue holds"),
        );
        return 0;
    }
    w.sends_posted = w.sends_posted.wrapping_add(1).max(1);
    let count = w.sends_posted;
    w.staged_sends.push(StagedSend { wr, sges, count });
    count
}

/// `doca_dpa_dev_verbs_qp_commit_send`: runs the staged send work requests.
#[no_mangle]
pub extern "C" fn doca_sim_impl_verbs_commit_send(handle: u64) {
    let _sim = SimCode::enter();
    let Some(qp) = qp_of("doca_dpa_dev_verbs_qp_commit_send", handle) else {
        return;
    };
    let staged = std::mem::take(&mut lock(&qp.wire).staged_sends);
    for s in staged {
        qp.execute(s);
    }
}

/// `doca_dpa_dev_verbs_qp_post_recv_wr`: stages a receive; its count (never
/// 0), or 0 after a device fault.
#[no_mangle]
pub extern "C" fn doca_sim_impl_verbs_post_recv(handle: u64, recv_wr: u64) -> u32 {
    let _sim = SimCode::enter();
    const CALL: &str = "doca_dpa_dev_verbs_qp_post_recv_wr";
    let Some(qp) = qp_of(CALL, handle) else {
        return 0;
    };
    let Some(wr) = read_struct::<RecvWr>(CALL, recv_wr) else {
        return 0;
    };
    let Some(sges) = sges_of(CALL, wr.sg_list, wr.num_sge, qp.shape.receive_sges) else {
        return 0;
    };
    let mut w = lock(&qp.wire);
    if w.staged_receives.len() + w.receives.len() >= qp.shape.rq_wr.max(1) as usize {
        drop(w);
        raise(
            FaultKind::QueueOverrun(QueueKind::Receive),
            format!("{CALL}: more outstanding receives than the receive queue holds"),
        );
        return 0;
    }
    w.receives_posted = w.receives_posted.wrapping_add(1).max(1);
    let count = w.receives_posted;
    w.staged_receives.push(Receive { sges, count });
    count
}

/// `doca_dpa_dev_verbs_qp_commit_recv`: makes the staged receives available.
#[no_mangle]
pub extern "C" fn doca_sim_impl_verbs_commit_recv(handle: u64) {
    let _sim = SimCode::enter();
    let Some(qp) = qp_of("doca_dpa_dev_verbs_qp_commit_recv", handle) else {
        return;
    };
    let mut w = lock(&qp.wire);
    let staged = std::mem::take(&mut w.staged_receives);
    if w.state == ERR {
        drop(w);
        qp.flush(staged);
    } else {
        w.receives.extend(staged);
    }
}

/// `doca_dpa_dev_verbs_qp_get_qpn`.
#[no_mangle]
pub extern "C" fn doca_sim_impl_verbs_qpn(handle: u64) -> u32 {
    let _sim = SimCode::enter();
    qp_of("doca_dpa_dev_verbs_qp_get_qpn", handle).map_or(0, |qp| qp.qpn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transport_timeout_follows_ack_timeout_and_retry_cnt_within_bounds() {
        // NVIDIA's sample and the safe crate's default: 67 ms × 8 tries.
        let sample = transport_timeout(14, 7);
        assert_eq!(sample, Duration::from_nanos(4096 << 14) * 8);
        assert!(sample > Duration::from_millis(500) && sample < Duration::from_millis(600));
        assert_eq!(
            transport_timeout(16, 1),
            Duration::from_nanos(4096 << 16) * 2
        );
        // No timeout on hardware; bounded here.
        assert_eq!(transport_timeout(0, 7), MAX_TIMEOUT);
        assert_eq!(transport_timeout(1, 0), MIN_TIMEOUT);
        assert_eq!(transport_timeout(31, 7), MAX_TIMEOUT);
        // Out-of-range values count as InfiniBand's largest.
        assert_eq!(transport_timeout(u16::MAX, u16::MAX), MAX_TIMEOUT);
        assert_eq!(transport_timeout(14, 100), transport_timeout(14, 7));
    }
}
