//! Queue pairs on the DPA datapath (`struct doca_verbs_qp`), for DPA Verbs
//! kernels (DOCA 3.2+): the host creates and connects them, kernels post work
//! requests and poll completions with the calls of `doca_dpa_dev_verbs.h`.
//!
//! [`QpBuilder`] → [`Qp`] → [`ConnectedQp`]: the builder takes everything a queue
//! on the DPA datapath is made with (its protection domain, the DPA context and
//! DPA completion it reports to, its doorbell region), so none can be missing at
//! creation; its number exists once created; and only a connected queue pair (in
//! RTS) is a kernel argument:
//!
//! ```compile_fail
//! # fn f(qp: &doca_verbs::Qp) {
//! let arg = doca_dpa::Dev::<doca_dpa::param::VerbsQp>::new(qp); // not connected yet
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f(qp: &doca_verbs::ConnectedQp) {
//! let qp = qp.send_queue_size(8); // configuration belongs to QpBuilder
//! # }
//! ```

use std::fmt;
use std::sync::Arc;

use doca_dpa::core::{Anytime, Outcome, Owned};
use doca_dpa::{
    param, AccessFlags, Completion, Dpa, FamilyGuard, FamilyMember, Keep, KeepAlive, KernelArg,
    Member, Result,
};
use doca_verbs_sys as sys;

use crate::context::VerbsGuard;
use crate::error::{invalid, verbs_call};
use crate::pd::ProtectionDomain;
use crate::uar::DpaUar;
use crate::umem::DpaUmem;

doca_dpa::__doca_object!(
    /// `doca_verbs_qp`.
    RawQp: doca_verbs_sys::doca_verbs_qp,
    destroy doca_verbs_qp_destroy
);
doca_dpa::__doca_object!(
    /// `doca_verbs_qp_init_attr`, owned while a QP is being created.
    RawQpInitAttr: doca_verbs_sys::doca_verbs_qp_init_attr,
    destroy doca_verbs_qp_init_attr_destroy
);
doca_dpa::__doca_object!(
    /// `doca_verbs_qp_attr`, owned while a QP is being connected.
    RawQpAttr: doca_verbs_sys::doca_verbs_qp_attr,
    destroy doca_verbs_qp_attr_destroy
);
doca_dpa::__doca_object!(
    /// `doca_verbs_ah_attr`, owned while a QP is being connected.
    RawAhAttr: doca_verbs_sys::doca_verbs_ah_attr,
    destroy doca_verbs_ah_attr_destroy
);

/// Bytes of one send queue entry (a WQE basic block) and of one receive queue
/// entry (a data segment), and the alignment of the ring memory: the layout of
/// NVIDIA's `dpa_verbs_initiator_target` sample, for work requests of one
/// scatter/gather entry.
const SEND_WQE_BYTES: usize = 64;
const RECV_WQE_BYTES: usize = 16;
const RING_ALIGN: usize = 64;
/// Bytes of the doorbell record memory (the sample's).
const DOORBELL_BYTES: usize = 64;

/// What the rings and doorbell record are registered for (the sample's flags).
const RING_ACCESS: AccessFlags = AccessFlags::RDMA_ALL;

/// The ring memory of a queue pair with `sq` send and `rq` receive entries: each
/// queue rounded up to a power of two, the sum aligned to a cache line. `None` on
/// overflow.
fn ring_bytes(sq: u32, rq: u32) -> Option<usize> {
    let ring = |n: u32, entry: usize| -> Option<usize> {
        match n {
            0 => Some(0),
            n => (n as usize).checked_next_power_of_two()?.checked_mul(entry),
        }
    };
    let total = ring(sq, SEND_WQE_BYTES)?.checked_add(ring(rq, RECV_WQE_BYTES)?)?;
    total.checked_next_multiple_of(RING_ALIGN)
}

/// The transport of a queue pair (`DOCA_VERBS_QP_TYPE_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QpType {
    /// Reliable connected (`DOCA_VERBS_QP_TYPE_RC`): RDMA writes, reads and sends
    /// with acknowledgements.
    #[default]
    Rc,
    /// Unreliable connected (`DOCA_VERBS_QP_TYPE_UC`): sends and RDMA writes
    /// without acknowledgements; an RDMA read or atomic posted on it completes
    /// in error.
    Uc,
}

/// Configuration of a queue pair on the DPA datapath before its creation.
///
/// Made with what it cannot be made without; the setters record values that
/// [`QpBuilder::create`] hands to DOCA. The ring and doorbell memory are the
/// queue pair's own UMEMs, sized by [`QpBuilder::create`] from the queue sizes
/// (so that the device never reaches past them).
pub struct QpBuilder {
    pd: ProtectionDomain,
    dpa: Dpa,
    completion: Completion,
    uar: DpaUar,
    qp_type: QpType,
    sq: u32,
    rq: u32,
}

impl fmt::Debug for QpBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QpBuilder")
            .field("dpa", &self.dpa.serial())
            .field("qp_type", &self.qp_type)
            .field("send_queue", &self.sq)
            .field("recv_queue", &self.rq)
            .finish_non_exhaustive()
    }
}

impl QpBuilder {
    /// A queue pair in `pd`'s verbs context, on the DPA datapath of `dpa`,
    /// reporting send and receive completions to `completion` (a started DPA
    /// completion of `dpa`) and ringing its doorbell through `uar` (a region of
    /// `dpa`). Refused before any DOCA call when `completion` or `uar` belong to
    /// another DPA context, or `pd`'s verbs context is on another device than
    /// `dpa`. Default sizes: 4 send and 4 receive entries (NVIDIA's sample's). No
    /// DOCA call: everything is made by [`QpBuilder::create`].
    pub fn new(
        pd: &ProtectionDomain,
        dpa: &Dpa,
        completion: &Completion,
        uar: &DpaUar,
    ) -> Result<QpBuilder> {
        let foreign = |what: &str, other: &Dpa| {
            invalid(
                "doca_verbs_qp_create",
                format!(
                    "the {what} belongs to DPA context #{}, not to DPA context #{} the queue \
                     pair's datapath runs on",
                    other.serial(),
                    dpa.serial()
                ),
            )
        };
        if !completion.dpa().same_context(dpa) {
            return Err(foreign("DPA completion", completion.dpa()));
        }
        if !uar.dpa().same_context(dpa) {
            return Err(foreign("user access region", uar.dpa()));
        }
        let (here, there) = (
            &pd.context().device().info().pci_addr,
            &dpa.device().info().pci_addr,
        );
        if here != there {
            return Err(invalid(
                "doca_verbs_qp_create",
                format!(
                    "the protection domain's verbs context is on device {here}, the DPA \
                     context on device {there}"
                ),
            ));
        }
        Ok(QpBuilder {
            pd: pd.clone(),
            dpa: dpa.clone(),
            completion: completion.clone(),
            uar: uar.clone(),
            qp_type: QpType::Rc,
            sq: 4,
            rq: 4,
        })
    }

    /// The transport (`doca_verbs_qp_init_attr_set_qp_type`, at creation).
    pub fn qp_type(mut self, qp_type: QpType) -> Self {
        self.qp_type = qp_type;
        self
    }

    /// How many send work requests may be outstanding
    /// (`doca_verbs_qp_init_attr_set_sq_wr`, at creation; the ring is rounded up
    /// to a power of two). 0 is refused.
    pub fn send_queue_size(mut self, size: u32) -> Result<Self> {
        self.sq = queue_size("doca_verbs_qp_init_attr_set_sq_wr", size)?;
        Ok(self)
    }

    /// How many receive work requests may be posted
    /// (`doca_verbs_qp_init_attr_set_rq_wr`, at creation; rounded up like the
    /// send queue). 0 is refused.
    pub fn recv_queue_size(mut self, size: u32) -> Result<Self> {
        self.rq = queue_size("doca_verbs_qp_init_attr_set_rq_wr", size)?;
        Ok(self)
    }

    /// Creates the queue pair, in RST: allocates and registers its ring and
    /// doorbell memory ([`DpaUmem`]), then `doca_verbs_qp_init_attr_create`, the
    /// setters (`_set_external_datapath_en`, `_set_external_umem`,
    /// `_set_external_dbr_umem`, `_set_external_uar`, `_set_pd`, `_set_sq_wr`,
    /// `_set_rq_wr`, `_set_qp_type`, `_set_send_dpa_completion`,
    /// `_set_receive_dpa_completion`, `_set_send_max_sges` and
    /// `_set_receive_max_sges`, one entry each), `doca_verbs_qp_create`,
    /// `doca_verbs_qp_get_qpn` and `doca_verbs_qp_init_attr_destroy`; all
    /// EXPERIMENTAL. Made at the DPA context family's guard, then the verbs
    /// context's lock. On a failure everything made so far is destroyed.
    pub fn create(self) -> Result<Qp> {
        let bytes = ring_bytes(self.sq, self.rq).ok_or_else(|| {
            invalid(
                "doca_verbs_qp_init_attr_set_external_umem",
                "the queue sizes overflow the address space",
            )
        })?;
        let ring = DpaUmem::new(&self.dpa, bytes, RING_ACCESS)?;
        let doorbell = DpaUmem::new(&self.dpa, DOORBELL_BYTES, RING_ACCESS)?;
        // Made under the family's guard and the verbs context's lock; owned (and,
        // on a failure, dropped with what it uses) once both are released.
        let (raw, number) = {
            let family = self.dpa.enter()?;
            let verbs = self.pd.context().lock();
            let raw = self.create_raw(&family, &verbs, &ring, &doorbell)?;
            let number = match raw.is_null() {
                true => 0,
                // SAFETY: the live QP doca_verbs_qp_create just made, under its
                // family's guard.
                false => (unsafe { sys::doca_verbs_qp_get_qpn(raw) }) as u32,
            };
            (raw, number)
        };
        let inner = Member::new(QpInner {
            // SAFETY: what doca_verbs_qp_create returned: NULL or a new object that
            // nothing else owns, handed over here, in its datapath's family.
            raw: unsafe { Owned::new("doca_verbs_qp_create", raw, self.dpa.domain()) }?,
            number,
            handle: 0,
            buried: false,
            uses: Uses {
                ring,
                doorbell,
                uar: self.uar,
                completion: self.completion,
                pd: self.pd,
                dpa: self.dpa,
            },
        });
        tracing::debug!(target: "doca_verbs::qp", qpn = number, "queue pair created");
        Ok(Qp { inner })
    }

    /// The init attributes, set in the order of NVIDIA's sample, and the create
    /// call, under the family's `guard` and the verbs context's lock `verbs`.
    fn create_raw(
        &self,
        guard: &FamilyGuard<'_>,
        verbs: &VerbsGuard<'_>,
        ring: &DpaUmem,
        doorbell: &DpaUmem,
    ) -> Result<*mut sys::doca_verbs_qp> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { verbs_call!(doca_verbs_qp_init_attr_create(&mut raw)) }?;
        // SAFETY: what doca_verbs_qp_init_attr_create just returned: NULL or a new
        // object that nothing else owns, handed over here, in the family's domain
        // (whose guard this call holds).
        let attr: Owned<RawQpInitAttr> =
            unsafe { Owned::new("doca_verbs_qp_init_attr_create", raw, self.dpa.domain()) }?;
        let a = attr.as_ptr(guard);
        let qp_type = match self.qp_type {
            QpType::Rc => sys::DOCA_VERBS_QP_TYPE_RC,
            QpType::Uc => sys::DOCA_VERBS_QP_TYPE_UC,
        };
        // SAFETY: (every call below) `a` is our live attribute object; the UMEMs,
        // the region, the PD and the completion are live objects of this DPA
        // context (checked by `new`) or of the verbs context (whose lock `verbs`
        // is held), which the created QP keeps alive (`Uses`).
        unsafe {
            verbs_call!(doca_verbs_qp_init_attr_set_external_datapath_en(a, 1 as _))?;
            verbs_call!(doca_verbs_qp_init_attr_set_external_umem(
                a,
                ring.inner.as_ptr(guard),
                0
            ))?;
            verbs_call!(doca_verbs_qp_init_attr_set_external_dbr_umem(
                a,
                doorbell.inner.as_ptr(guard),
                0
            ))?;
            verbs_call!(doca_verbs_qp_init_attr_set_external_uar(
                a,
                self.uar.inner.as_ptr(guard)
            ))?;
            verbs_call!(doca_verbs_qp_init_attr_set_pd(a, self.pd.as_ptr(verbs)))?;
            verbs_call!(doca_verbs_qp_init_attr_set_sq_wr(a, self.sq as _))?;
            verbs_call!(doca_verbs_qp_init_attr_set_rq_wr(a, self.rq as _))?;
            verbs_call!(doca_verbs_qp_init_attr_set_qp_type(a, qp_type as _))?;
            verbs_call!(doca_verbs_qp_init_attr_set_send_dpa_completion(
                a,
                self.completion.as_ptr(guard).cast()
            ))?;
            verbs_call!(doca_verbs_qp_init_attr_set_receive_dpa_completion(
                a,
                self.completion.as_ptr(guard).cast()
            ))?;
            verbs_call!(doca_verbs_qp_init_attr_set_send_max_sges(a, 1 as _))?;
            verbs_call!(doca_verbs_qp_init_attr_set_receive_max_sges(a, 1 as _))?;
        }
        let mut qp = std::ptr::null_mut();
        // SAFETY: a live verbs context (its lock held) and our attribute object;
        // valid out-pointer.
        unsafe {
            verbs_call!(doca_verbs_qp_create(
                self.pd.context().as_ptr(verbs),
                a,
                &mut qp
            ))
        }?;
        Ok(qp)
    }
}

/// A queue size DOCA takes: not 0.
fn queue_size(call: &'static str, size: u32) -> Result<u32> {
    if size == 0 {
        return Err(invalid(call, "a queue size of 0"));
    }
    Ok(size)
}

/// What a queue pair uses, kept alive as long as it: dropped only once the QP is
/// destroyed (buried otherwise: the device may still reach them through it).
struct Uses {
    ring: DpaUmem,
    doorbell: DpaUmem,
    uar: DpaUar,
    completion: Completion,
    pd: ProtectionDomain,
    dpa: Dpa,
}

struct QpInner {
    /// In its datapath's family.
    raw: Owned<RawQp>,
    number: u32,
    /// Its DPA handle, read once connected (0 before).
    handle: u64,
    /// Set once the teardown left the QP alive and what it uses was buried.
    buried: bool,
    uses: Uses,
}

impl QpInner {
    /// `doca_verbs_qp_destroy`, once, at the family's guard; when it fails the
    /// device may still use the rings, doorbell, region and completion, so they
    /// are buried with it.
    fn teardown(&mut self) -> Result<()> {
        let outcome = self.raw.teardown();
        if !matches!(outcome, Outcome::Done | Outcome::Left) && !self.buried {
            self.buried = true;
            let u = &self.uses;
            doca_dpa::core::bury((
                u.ring.clone(),
                u.doorbell.clone(),
                u.uar.clone(),
                u.completion.clone(),
                u.dpa.clone(),
            ));
        }
        outcome.into_result()
    }
}

// Held in a `Member`: a drop by a thread that holds the family's lock while an
// RPC of the family runs is handed to the family, which destroys the QP once the
// RPC ended.
impl FamilyMember for QpInner {
    fn family_of(&self) -> &Dpa {
        &self.uses.dpa
    }
}

impl Drop for QpInner {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            tracing::warn!(target: "doca_verbs::qp", error = %e, "destroying a verbs queue pair during drop failed (it and what it uses are leaked)");
        }
    }
}

fn fmt_qp(f: &mut fmt::Formatter<'_>, name: &str, inner: &QpInner) -> fmt::Result {
    f.debug_struct(name)
        .field("number", &inner.number)
        .field("dpa", &inner.uses.dpa.serial())
        .finish_non_exhaustive()
}

/// A created queue pair, in RST: its [`number`](Self::number) goes to the peer,
/// and the peer's address [`connect`](Self::connect)s it.
///
/// Destroyed (`doca_verbs_qp_destroy`, at its DPA context family's guard) when
/// dropped, before what it uses (its UMEMs, region, completion, PD).
pub struct Qp {
    /// Shared with nothing until connected.
    inner: Member<QpInner>,
}

impl fmt::Debug for Qp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_qp(f, "Qp", &self.inner)
    }
}

/// A 128-bit global identifier of a port (`struct doca_verbs_gid`), in network
/// byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Gid(pub [u8; 16]);

/// How a peer is addressed (`enum doca_verbs_addr_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AddressType {
    /// RoCE over IPv4 (`DOCA_VERBS_ADDR_TYPE_IPv4`), NVIDIA's sample's.
    #[default]
    Ipv4,
    /// RoCE over IPv6 (`DOCA_VERBS_ADDR_TYPE_IPv6`).
    Ipv6,
    /// InfiniBand with a global route header (`DOCA_VERBS_ADDR_TYPE_IB_GRH`).
    IbGrh,
    /// InfiniBand without one (`DOCA_VERBS_ADDR_TYPE_IB_NO_GRH`).
    IbNoGrh,
}

/// The path MTU of a connection (`enum doca_mtu_size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PathMtu {
    /// 256 bytes.
    Bytes256,
    /// 512 bytes.
    Bytes512,
    /// 1024 bytes, NVIDIA's sample's.
    #[default]
    Bytes1024,
    /// 2048 bytes.
    Bytes2048,
    /// 4096 bytes.
    Bytes4096,
}

/// The peer a queue pair is connected to and how: its queue pair number and
/// GID, and the connection's parameters (defaults: NVIDIA's sample's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Peer {
    qp_number: u32,
    gid: Gid,
    address_type: AddressType,
    sgid_index: u8,
    hop_limit: u8,
    port: u16,
    path_mtu: PathMtu,
    ack_timeout: u16,
    retry_count: u16,
    rnr_retry: u16,
    min_rnr_timer: u16,
    remote_write: bool,
    remote_read: bool,
}

impl Peer {
    /// The queue pair numbered `qp_number` on the port whose GID is `gid`:
    /// RoCE over IPv4, local GID index 0, hop limit 255, port 1, path MTU 1024,
    /// ACK timeout 14, 7 retries, 1 RNR retry, RNR timer 1, remote writes and
    /// reads allowed.
    pub fn new(qp_number: u32, gid: Gid) -> Peer {
        Peer {
            qp_number,
            gid,
            address_type: AddressType::Ipv4,
            sgid_index: 0,
            hop_limit: 255,
            port: 1,
            path_mtu: PathMtu::Bytes1024,
            ack_timeout: 14,
            retry_count: 7,
            rnr_retry: 1,
            min_rnr_timer: 1,
            remote_write: true,
            remote_read: true,
        }
    }

    /// How the peer is addressed (`doca_verbs_ah_attr_set_addr_type`).
    pub fn address_type(mut self, address_type: AddressType) -> Self {
        self.address_type = address_type;
        self
    }

    /// The index of the local GID (`doca_verbs_ah_attr_set_sgid_index`).
    pub fn sgid_index(mut self, index: u8) -> Self {
        self.sgid_index = index;
        self
    }

    /// The local port (`doca_verbs_qp_attr_set_port_num`).
    pub fn port(mut self, port: u16) -> Self {
        self.port = port;
        self
    }

    /// The path MTU (`doca_verbs_qp_attr_set_path_mtu`).
    pub fn path_mtu(mut self, mtu: PathMtu) -> Self {
        self.path_mtu = mtu;
        self
    }

    /// Whether the peer may write (`_set_allow_remote_write`) and read
    /// (`_set_allow_remote_read`) this side's memory.
    pub fn remote_access(mut self, write: bool, read: bool) -> Self {
        self.remote_write = write;
        self.remote_read = read;
        self
    }

    /// How the transport retries (`doca_verbs_qp_attr_set_ack_timeout`,
    /// `_set_retry_cnt`, `_set_rnr_retry`): `ack_timeout` is the exponent of the
    /// wait for an acknowledgement (4.096 µs × 2^`ack_timeout`, 0 to 31; 0 waits
    /// without limit), `retry_count` how often an unacknowledged request is sent
    /// again (0 to 7), `rnr_retry` how often a send that finds no posted receive
    /// is (0 to 7; 7 without limit). A value out of range makes [`Qp::connect`]
    /// fail with an invalid-argument error before DOCA is called.
    pub fn retries(mut self, ack_timeout: u8, retry_count: u8, rnr_retry: u8) -> Self {
        self.ack_timeout = ack_timeout.into();
        self.retry_count = retry_count.into();
        self.rnr_retry = rnr_retry.into();
        self
    }

    /// The peer's queue pair number.
    pub fn qp_number(&self) -> u32 {
        self.qp_number
    }
}

/// A failed [`Qp::connect`]: the error, and the queue pair back, reset to RST
/// when DOCA allowed it (to connect again).
#[derive(Debug)]
pub struct ConnectError {
    error: doca_dpa::Error,
    /// Boxed: the error stays small beside a `ConnectedQp` in a `Result`.
    qp: Box<Qp>,
}

impl ConnectError {
    /// The error.
    pub fn error(&self) -> &doca_dpa::Error {
        &self.error
    }

    /// The error and the queue pair.
    pub fn into_parts(self) -> (doca_dpa::Error, Qp) {
        (self.error, *self.qp)
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "connecting verbs queue pair {}: {}",
            self.qp.number(),
            self.error
        )
    }
}

impl std::error::Error for ConnectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<ConnectError> for doca_dpa::Error {
    fn from(e: ConnectError) -> doca_dpa::Error {
        e.error
    }
}

/// `enum doca_verbs_qp_state` values of the transitions [`Qp::connect`] makes.
const RST: sys::doca_verbs_qp_state = sys::DOCA_VERBS_QP_STATE_RST;
const INIT: sys::doca_verbs_qp_state = sys::DOCA_VERBS_QP_STATE_INIT;
const RTR: sys::doca_verbs_qp_state = sys::DOCA_VERBS_QP_STATE_RTR;
const RTS: sys::doca_verbs_qp_state = sys::DOCA_VERBS_QP_STATE_RTS;

impl Qp {
    /// The queue pair number (`doca_verbs_qp_get_qpn`, read at creation): what
    /// the peer connects to.
    pub fn number(&self) -> u32 {
        self.inner.number
    }

    /// The DPA context whose datapath it is on.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.uses.dpa
    }

    /// Connects the queue pair to `peer` and makes it ready to send: an address
    /// handle for the peer (`doca_verbs_ah_attr_create` on the verbs context,
    /// `_set_gid`, `_set_addr_type`, `_set_sgid_index`, `_set_hop_limit`), then
    /// `doca_verbs_qp_modify` from RST to INIT (remote access, P_Key index 0,
    /// port), to RTR (receive PSN 0, the peer's number, RNR timer, path MTU, the
    /// address handle) and to RTS (send PSN 0, ACK timeout, retry counts), with
    /// a `doca_verbs_qp_attr`; then `doca_verbs_qp_get_dpa_handle`. All
    /// EXPERIMENTAL, at the DPA context family's guard (and the verbs context's
    /// lock for the address handle). On a failure the queue pair comes back in
    /// the error, reset to RST (`doca_verbs_qp_modify`) when DOCA allows it.
    pub fn connect(mut self, peer: &Peer) -> std::result::Result<ConnectedQp, ConnectError> {
        match connect(&self.inner, peer) {
            Ok(handle) => {
                self.inner.handle = handle;
                tracing::debug!(target: "doca_verbs::qp", qpn = self.inner.number, peer = peer.qp_number, "queue pair connected (RTS)");
                Ok(ConnectedQp {
                    inner: Arc::new(self.inner),
                })
            }
            Err(error) => {
                // Back to RST, so that another connect starts where it expects; when
                // DOCA refuses, that connect fails with DOCA's BAD_STATE instead.
                let _ = modify(&self.inner, |_| Ok(RST), sys::DOCA_VERBS_QP_ATTR_NEXT_STATE);
                Err(ConnectError {
                    error,
                    qp: Box::new(self),
                })
            }
        }
    }
}

/// Makes `set` fill a fresh `doca_verbs_qp_attr` and applies it with
/// `doca_verbs_qp_modify(mask)`, at the family's guard; `set` returns the next
/// state, which it does not set itself.
fn modify(
    inner: &QpInner,
    set: impl FnOnce(*mut sys::doca_verbs_qp_attr) -> Result<sys::doca_verbs_qp_state>,
    mask: u32,
) -> Result<()> {
    let dpa = &inner.uses.dpa;
    let family = dpa.enter()?;
    let mut raw = std::ptr::null_mut();
    // SAFETY: valid out-pointer.
    unsafe { verbs_call!(doca_verbs_qp_attr_create(&mut raw)) }?;
    // SAFETY: what doca_verbs_qp_attr_create just returned: NULL or a new object
    // that nothing else owns, handed over here, in the family's domain (whose
    // guard is held).
    let attr: Owned<RawQpAttr> =
        unsafe { Owned::new("doca_verbs_qp_attr_create", raw, dpa.domain()) }?;
    let a = attr.as_ptr(&family);
    let next = set(a)?;
    // SAFETY: our live attribute object and our live QP, under the family's guard.
    unsafe {
        verbs_call!(doca_verbs_qp_attr_set_next_state(a, next as _))?;
        verbs_call!(doca_verbs_qp_modify(
            inner.raw.as_ptr(&family),
            a,
            (mask | sys::DOCA_VERBS_QP_ATTR_NEXT_STATE) as _
        ))
    }
}

/// RST → INIT → RTR → RTS and the DPA handle (see [`Qp::connect`]).
fn connect(inner: &QpInner, peer: &Peer) -> Result<u64> {
    // InfiniBand's field widths: 5 bits of ACK timeout, 3 of each retry count.
    if peer.ack_timeout > 31 || peer.retry_count > 7 || peer.rnr_retry > 7 {
        return Err(invalid(
            "doca_verbs_qp_modify",
            format!(
                "retries: ack_timeout {} (at most 31), retry_count {} and rnr_retry {} (at most 7)",
                peer.ack_timeout, peer.retry_count, peer.rnr_retry
            ),
        ));
    }
    modify(
        inner,
        // SAFETY: (every setter call) `a` is the live attribute object `modify`
        // made for this call.
        |a| unsafe {
            verbs_call!(doca_verbs_qp_attr_set_allow_remote_write(
                a,
                i32::from(peer.remote_write) as _
            ))?;
            verbs_call!(doca_verbs_qp_attr_set_allow_remote_read(
                a,
                i32::from(peer.remote_read) as _
            ))?;
            verbs_call!(doca_verbs_qp_attr_set_pkey_index(a, 0 as _))?;
            verbs_call!(doca_verbs_qp_attr_set_port_num(a, peer.port as _))?;
            Ok(INIT)
        },
        sys::DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE
            | sys::DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ
            | sys::DOCA_VERBS_QP_ATTR_PKEY_INDEX
            | sys::DOCA_VERBS_QP_ATTR_PORT_NUM,
    )?;
    let ah = AddressHandle::new(inner, peer)?;
    let pd = &inner.uses.pd;
    modify(
        inner,
        |a| {
            let verbs = pd.context().lock();
            // SAFETY: as above; the address handle is live (`ah`, its verbs
            // context's lock held) until after the modify.
            unsafe {
                verbs_call!(doca_verbs_qp_attr_set_rq_psn(a, 0 as _))?;
                verbs_call!(doca_verbs_qp_attr_set_dest_qp_num(a, peer.qp_number as _))?;
                verbs_call!(doca_verbs_qp_attr_set_min_rnr_timer(
                    a,
                    peer.min_rnr_timer as _
                ))?;
                verbs_call!(doca_verbs_qp_attr_set_path_mtu(a, mtu(peer.path_mtu) as _))?;
                verbs_call!(doca_verbs_qp_attr_set_ah_attr(a, ah.raw.as_ptr(&verbs)))?;
            }
            Ok(RTR)
        },
        sys::DOCA_VERBS_QP_ATTR_RQ_PSN
            | sys::DOCA_VERBS_QP_ATTR_DEST_QP_NUM
            | sys::DOCA_VERBS_QP_ATTR_MIN_RNR_TIMER
            | sys::DOCA_VERBS_QP_ATTR_PATH_MTU
            | sys::DOCA_VERBS_QP_ATTR_AH_ATTR,
    )?;
    drop(ah);
    modify(
        inner,
        // SAFETY: (every setter call) as above.
        |a| unsafe {
            verbs_call!(doca_verbs_qp_attr_set_sq_psn(a, 0 as _))?;
            verbs_call!(doca_verbs_qp_attr_set_ack_timeout(a, peer.ack_timeout as _))?;
            verbs_call!(doca_verbs_qp_attr_set_retry_cnt(a, peer.retry_count as _))?;
            verbs_call!(doca_verbs_qp_attr_set_rnr_retry(a, peer.rnr_retry as _))?;
            Ok(RTS)
        },
        sys::DOCA_VERBS_QP_ATTR_SQ_PSN
            | sys::DOCA_VERBS_QP_ATTR_ACK_TIMEOUT
            | sys::DOCA_VERBS_QP_ATTR_RETRY_CNT
            | sys::DOCA_VERBS_QP_ATTR_RNR_RETRY,
    )?;
    let dpa = &inner.uses.dpa;
    let mut handle = 0;
    dpa.with_ctx(|ctx, family| {
        // SAFETY: our live QP in RTS and the started DPA context whose datapath it
        // is on, under the family's guard; valid out-pointer.
        unsafe {
            verbs_call!(doca_verbs_qp_get_dpa_handle(
                inner.raw.as_ptr(family),
                ctx.cast(),
                &mut handle
            ))
        }
    })?;
    Ok(handle as u64)
}

fn mtu(mtu: PathMtu) -> doca_dpa::sys::doca_mtu_size {
    use doca_dpa::sys as d;
    match mtu {
        PathMtu::Bytes256 => d::DOCA_MTU_SIZE_256_BYTES,
        PathMtu::Bytes512 => d::DOCA_MTU_SIZE_512_BYTES,
        PathMtu::Bytes1024 => d::DOCA_MTU_SIZE_1K_BYTES,
        PathMtu::Bytes2048 => d::DOCA_MTU_SIZE_2K_BYTES,
        PathMtu::Bytes4096 => d::DOCA_MTU_SIZE_4K_BYTES,
    }
}

/// The peer's address handle while a connect lasts, in the verbs context's
/// domain.
struct AddressHandle {
    raw: Owned<RawAhAttr, Anytime>,
}

impl AddressHandle {
    fn new(inner: &QpInner, peer: &Peer) -> Result<AddressHandle> {
        let context = inner.uses.pd.context();
        let verbs = context.lock();
        let mut raw = std::ptr::null_mut();
        // SAFETY: a live verbs context, under its lock; valid out-pointer.
        unsafe { verbs_call!(doca_verbs_ah_attr_create(context.as_ptr(&verbs), &mut raw)) }?;
        // SAFETY: what doca_verbs_ah_attr_create just returned: NULL or a new object
        // that nothing else owns, handed over here, in its verbs context's domain.
        let raw: Owned<RawAhAttr, Anytime> =
            unsafe { Owned::new("doca_verbs_ah_attr_create", raw, context.domain()) }?;
        let p = raw.as_ptr(&verbs);
        let address_type = match peer.address_type {
            AddressType::Ipv4 => sys::DOCA_VERBS_ADDR_TYPE_IPv4,
            AddressType::Ipv6 => sys::DOCA_VERBS_ADDR_TYPE_IPv6,
            AddressType::IbGrh => sys::DOCA_VERBS_ADDR_TYPE_IB_GRH,
            AddressType::IbNoGrh => sys::DOCA_VERBS_ADDR_TYPE_IB_NO_GRH,
        };
        // SAFETY: (each call) our live address handle, under its context's lock;
        // the GID is passed by value.
        unsafe {
            verbs_call!(doca_verbs_ah_attr_set_gid(
                p,
                sys::doca_verbs_gid { raw: peer.gid.0 }
            ))?;
            verbs_call!(doca_verbs_ah_attr_set_addr_type(p, address_type as _))?;
            verbs_call!(doca_verbs_ah_attr_set_sgid_index(p, peer.sgid_index as _))?;
            verbs_call!(doca_verbs_ah_attr_set_hop_limit(p, peer.hop_limit as _))?;
        }
        drop(verbs);
        Ok(AddressHandle { raw })
    }
}

/// A connected queue pair (RTS) on the DPA datapath: what DPA Verbs kernels
/// post on, given it for a `doca_dpa_dev_verbs_qp_t` parameter
/// ([`param::VerbsQp`](doca_dpa::param::VerbsQp)).
///
/// A launch, DPA thread or DPA struct given it keeps it alive until the device
/// is known to be done with it; so it is destroyed (`doca_verbs_qp_destroy`)
/// after the last of them, and before what it uses. [`ConnectedQp::destroy`]
/// refuses while any holds it.
///
/// A work request that completes in error (a SEND_ERR or RECV_ERR element)
/// moves the queue pair to the error state, on hardware and in the sim: every
/// work request after it completes in error too (flushed) and nothing more is
/// sent or received. There is no way back to RTS for a `ConnectedQp`: drop it
/// (or [`destroy`](ConnectedQp::destroy) it) and connect a new queue pair.
pub struct ConnectedQp {
    inner: Arc<Member<QpInner>>,
}

impl fmt::Debug for ConnectedQp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_qp(f, "ConnectedQp", &self.inner)
    }
}

impl ConnectedQp {
    /// The queue pair number.
    pub fn number(&self) -> u32 {
        self.inner.number
    }

    /// The DPA context whose datapath it is on.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.uses.dpa
    }

    /// The DPA completion its send and receive completions go to.
    pub fn completion(&self) -> &Completion {
        &self.inner.uses.completion
    }

    /// The DPA handle (`doca_verbs_qp_get_dpa_handle`, read by the connect).
    ///
    /// # Safety
    /// The value keeps nothing alive: handing it to the device is sound only
    /// while the queue pair is kept alive by other means (pass the queue pair
    /// itself as the kernel argument instead).
    pub unsafe fn raw_handle(&self) -> u64 {
        self.inner.handle
    }

    /// Destroys the queue pair now (`doca_verbs_qp_destroy`, at its DPA context
    /// family's guard), reporting what `Drop` could only log. Refused with
    /// [`doca_dpa::Error::InUse`] while a launch, DPA thread or DPA struct holds
    /// it: the queue pair comes back in the error. A failed destroy leaves it,
    /// and what it uses, alive for good (leaked).
    pub fn destroy(self) -> std::result::Result<(), DestroyError> {
        let mut inner = doca_dpa::core::sole(self.inner, "doca_verbs_qp_destroy").map_err(
            |(error, inner)| DestroyError {
                error,
                qp: Some(ConnectedQp { inner }),
            },
        )?;
        inner
            .teardown()
            .map_err(|error| DestroyError { error, qp: None })
    }
}

// SAFETY: the queue pair's DPA handle (`doca_verbs_qp_get_dpa_handle`, read in
// RTS), for kernels of the DPA context its datapath is on (checked); the keep
// record holds the queue pair, and with it everything it uses.
unsafe impl KernelArg<param::VerbsQp> for ConnectedQp {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&self.inner.uses.dpa, "the verbs queue pair")?;
        keep.keep(KeepAlive::new(&self.inner));
        Ok(self.inner.handle)
    }
}

/// A failed [`ConnectedQp::destroy`]: the error, and the queue pair back when the
/// destroy was refused before any DOCA call (it is still in use).
#[derive(Debug)]
pub struct DestroyError {
    error: doca_dpa::Error,
    qp: Option<ConnectedQp>,
}

impl DestroyError {
    /// The error.
    pub fn error(&self) -> &doca_dpa::Error {
        &self.error
    }

    /// The error and, when the destroy was refused, the queue pair, still
    /// connected.
    pub fn into_parts(self) -> (doca_dpa::Error, Option<ConnectedQp>) {
        (self.error, self.qp)
    }
}

impl fmt::Display for DestroyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "destroying a verbs queue pair: {}", self.error)
    }
}

impl std::error::Error for DestroyError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<DestroyError> for doca_dpa::Error {
    fn from(e: DestroyError) -> doca_dpa::Error {
        e.error
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_are_sized_as_the_sample_sizes_them() {
        // 4 send entries of 64 bytes and 4 receive entries of 16: 320 bytes.
        assert_eq!(ring_bytes(4, 4), Some(320));
        // Rounded up to powers of two, then to a cache line.
        assert_eq!(ring_bytes(3, 1), Some(4 * 64 + 64));
        assert_eq!(ring_bytes(1, 0), Some(64));
    }
}
