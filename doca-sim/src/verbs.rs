//! `doca_verbs.h`, the subset RDMI and DPA-verbs programs need: verbs
//! context, protection domain, completion queue and its attributes, queue
//! pair basics and state changes, address handles, device attributes.
//!
//! Model choice: verbs objects count their users; destroying one that another
//! object still uses (a PD under a QP or RDMI object, a context under a PD) is
//! IN_USE.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::abi;
use crate::dev::{obj, Dev, DevInfo, DeviceModel};
use crate::dpa::threads::CompletionCore;
use crate::dpa::{dpa, DpaCore};
use crate::dpa_verbs::{QpCore, QpShape, TrafficAttrs, Uar, Umem};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, not_modelled, out};
use crate::registry::{self, SimObject};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Objects other objects depend on.
#[derive(Debug, Default)]
pub(crate) struct Users(AtomicUsize);

impl Users {
    pub(crate) fn add(&self) {
        self.0.fetch_add(1, Ordering::AcqRel);
    }
    pub(crate) fn remove(&self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
    fn check_unused(&self, what: &'static str) -> SimResult {
        if self.0.load(Ordering::Acquire) != 0 {
            return Err(fail(codes::IN_USE, what));
        }
        Ok(())
    }
}

/// The state of a verbs context shared with what is built on it.
#[derive(Debug)]
pub(crate) struct VerbsCore {
    pub(crate) device: Arc<DeviceModel>,
    pub(crate) users: Users,
}

/// `struct doca_verbs_context`.
pub(crate) struct VerbsContext {
    pub(crate) core: Arc<VerbsCore>,
}
impl SimObject for VerbsContext {
    const KIND: &'static str = "doca_verbs_context";
}

/// The state of a protection domain.
#[derive(Debug)]
pub(crate) struct PdCore {
    pub(crate) vctx: Arc<VerbsCore>,
    pub(crate) users: Users,
    as_dev: Mutex<Option<usize>>,
}

/// `struct doca_verbs_pd`.
pub(crate) struct Pd {
    pub(crate) core: Arc<PdCore>,
}
impl SimObject for Pd {
    const KIND: &'static str = "doca_verbs_pd";
}

#[derive(Debug, Default, Clone, Copy)]
struct CqAttrValues {
    size: u32,
    entry_size: u32,
    overrun: u8,
    dpa_thread_id: Option<u32>,
    context: usize,
}

/// `struct doca_verbs_cq_attr`.
pub(crate) struct CqAttr {
    values: Mutex<CqAttrValues>,
}
impl SimObject for CqAttr {
    const KIND: &'static str = "doca_verbs_cq_attr";
}

/// The state of a completion queue: completions delivered to it by RDMI
/// objects whose completion source it is.
#[derive(Debug)]
pub(crate) struct CqCore {
    pub(crate) vctx: Arc<VerbsCore>,
    pub(crate) cqn: u32,
    pub(crate) users: Users,
    /// Completions delivered so far.
    pub(crate) delivered: AtomicU32,
}

impl CqCore {
    /// Delivers `n` completions.
    pub(crate) fn deliver(&self, n: u32) {
        self.delivered.fetch_add(n, Ordering::AcqRel);
    }
}

/// `struct doca_verbs_cq`.
pub(crate) struct Cq {
    pub(crate) core: Arc<CqCore>,
}
impl SimObject for Cq {
    const KIND: &'static str = "doca_verbs_cq";
}

#[derive(Default)]
struct QpInit {
    pd: Option<Arc<PdCore>>,
    send_cq: Option<Arc<CqCore>>,
    receive_cq: Option<Arc<CqCore>>,
    sq_wr: u32,
    rq_wr: u32,
    send_sges: u32,
    receive_sges: u32,
    qp_type: u32,
    dpa: Option<Arc<DpaCore>>,
    send_dpa_completion: Option<Arc<CompletionCore>>,
    receive_dpa_completion: Option<Arc<CompletionCore>>,
    external_datapath: bool,
    /// The DPA context of each external UMEM or UAR set.
    external: Vec<Arc<DpaCore>>,
}

/// `struct doca_verbs_qp_init_attr`.
pub(crate) struct QpInitAttr {
    values: Mutex<QpInit>,
}
impl SimObject for QpInitAttr {
    const KIND: &'static str = "doca_verbs_qp_init_attr";
}

/// `struct doca_verbs_qp`.
pub(crate) struct Qp {
    vctx: Arc<VerbsCore>,
    pd: Arc<PdCore>,
    cqs: Vec<Arc<CqCore>>,
    qpn: u32,
    /// The traffic side of a queue pair on the DPA datapath.
    traffic: Option<Arc<QpCore>>,
    handle: Mutex<Option<u64>>,
    /// `enum doca_verbs_qp_state`, moved by `doca_verbs_qp_modify`.
    state: Mutex<abi::doca_verbs_qp_state>,
}
impl SimObject for Qp {
    const KIND: &'static str = "doca_verbs_qp";
}

/// `struct doca_verbs_device_attr`.
/// `struct doca_verbs_qp_attr`.
///
/// Model choice: the next state and what the traffic of a queue pair on the
/// DPA datapath uses (destination queue pair number, remote write and read
/// permission, RNR retries, ACK timeout and retry count) are kept; the other
/// attributes are accepted and not used.
#[derive(Default)]
pub(crate) struct QpAttr {
    next_state: Mutex<Option<abi::doca_verbs_qp_state>>,
    traffic: Mutex<TrafficAttrs>,
}
impl SimObject for QpAttr {
    const KIND: &'static str = "doca_verbs_qp_attr";
}

/// `struct doca_verbs_ah_attr`: made on a verbs context, which it keeps in
/// use. Model choice: its values are accepted and not used (no traffic).
pub(crate) struct AhAttr {
    vctx: Arc<VerbsCore>,
}
impl SimObject for AhAttr {
    const KIND: &'static str = "doca_verbs_ah_attr";
}

/// Whether a queue pair may move from `from` to `to`: reset and error from
/// anywhere, otherwise RST -> INIT -> RTR -> RTS (and RTS -> RTS).
fn qp_transition_allowed(from: abi::doca_verbs_qp_state, to: abi::doca_verbs_qp_state) -> bool {
    use abi::{
        DOCA_VERBS_QP_STATE_ERR as ERR, DOCA_VERBS_QP_STATE_INIT as INIT,
        DOCA_VERBS_QP_STATE_RST as RST, DOCA_VERBS_QP_STATE_RTR as RTR,
        DOCA_VERBS_QP_STATE_RTS as RTS,
    };
    matches!(
        (from, to),
        (_, RST) | (_, ERR) | (RST, INIT) | (INIT, RTR) | (RTR, RTS) | (RTS, RTS)
    )
}

/// A setter of QP attributes the sim accepts without using.
fn qp_attr_accept(attr: *mut abi::doca_verbs_qp_attr) -> SimResult {
    obj::<QpAttr, _>(attr).map(|_| ())
}

/// A setter of an address handle's values (accepted, not used).
fn ah_attr_accept(attr: *mut abi::doca_verbs_ah_attr) -> SimResult {
    obj::<AhAttr, _>(attr).map(|_| ())
}

pub(crate) struct DeviceAttr {
    dpa: bool,
}
impl SimObject for DeviceAttr {
    const KIND: &'static str = "doca_verbs_device_attr";
}

/// Model choice: the sim's verbs limits are fixed numbers of a plausible
/// BlueField-3 (they only bound what tests create).
const MAX_QP: u32 = 1 << 17;
const MAX_CQ: u32 = 1 << 16;
const MAX_CQE: u32 = 1 << 22;
const MAX_PD: u32 = 1 << 16;

static NEXT_NUMBER: AtomicU32 = AtomicU32::new(0x100);

/// Borrows a live verbs context.
pub(crate) fn verbs_ctx<'a>(ptr: *const abi::doca_verbs_context) -> SimResult<&'a VerbsContext> {
    obj::<VerbsContext, _>(ptr)
}

/// Borrows a live PD.
pub(crate) fn pd<'a>(ptr: *const abi::doca_verbs_pd) -> SimResult<&'a Pd> {
    obj::<Pd, _>(ptr)
}

/// Borrows a live CQ.
pub(crate) fn cq<'a>(ptr: *const abi::doca_verbs_cq) -> SimResult<&'a Cq> {
    obj::<Cq, _>(ptr)
}

fn cq_attr<'a>(ptr: *const abi::doca_verbs_cq_attr) -> SimResult<MutexGuard<'a, CqAttrValues>> {
    Ok(lock(&obj::<CqAttr, _>(ptr)?.values))
}

fn qp_init<'a>(ptr: *const abi::doca_verbs_qp_init_attr) -> SimResult<MutexGuard<'a, QpInit>> {
    Ok(lock(&obj::<QpInitAttr, _>(ptr)?.values))
}

fn attr_value(attr: *const abi::doca_verbs_device_attr, f: impl FnOnce(&DeviceAttr) -> u32) -> u32 {
    obj::<DeviceAttr, _>(attr).map_or(0, f)
}

doca_api! {
    /// Opens a verbs context on a device (flags must be 0).
    fn doca_verbs_context_create(devinfo: *mut abi::doca_devinfo, flags: u32, verbs_context: *mut *mut abi::doca_verbs_context) {
        let info = obj::<DevInfo, _>(devinfo)?;
        if verbs_context.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        if flags != abi::DOCA_VERBS_CONTEXT_CREATE_FLAGS_NONE {
            return Err(fail(codes::INVALID_VALUE, "unsupported verbs context flags"));
        }
        let core = Arc::new(VerbsCore { device: info.model.clone(), users: Users::default() });
        out(verbs_context, registry::register(VerbsContext { core }).cast())
    }

    /// Closes a verbs context; IN_USE while objects use it.
    fn doca_verbs_context_destroy(verbs_context: *mut abi::doca_verbs_context) {
        verbs_ctx(verbs_context)?.core.users.check_unused("PDs, CQs, QPs or RDMI objects still use this verbs context")?;
        // SAFETY: checked above; only this call frees it.
        unsafe { registry::unregister::<VerbsContext, _>(verbs_context) }?;
        Ok(())
    }

    /// Creates a protection domain.
    fn doca_verbs_pd_create(verbs_context: *mut abi::doca_verbs_context, verbs_pd: *mut *mut abi::doca_verbs_pd) {
        let vctx = verbs_ctx(verbs_context)?.core.clone();
        if verbs_pd.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        vctx.users.add();
        let core = Arc::new(PdCore { vctx, users: Users::default(), as_dev: Mutex::new(None) });
        out(verbs_pd, registry::register(Pd { core }).cast())
    }

    /// Destroys a PD; IN_USE while objects use it.
    fn doca_verbs_pd_destroy(verbs_pd: *mut abi::doca_verbs_pd) {
        let p = pd(verbs_pd)?;
        p.core.users.check_unused("QPs or RDMI objects still use this PD")?;
        if lock(&p.core.as_dev).is_some_and(|d| obj::<Dev, _>(d as *const Dev).is_ok()) {
            return Err(fail(codes::IN_USE, "close the doca_dev obtained from this PD first"));
        }
        // SAFETY: checked above; only this call frees it.
        let p = unsafe { registry::unregister::<Pd, _>(verbs_pd) }?;
        p.core.vctx.users.remove();
        Ok(())
    }

    /// A `doca_dev` of the PD's device, to make DOCA contexts (a DPA
    /// context, memory maps) that work with the PD's queue pairs.
    ///
    /// Model choice: the PD hands out one device handle, the same on every
    /// call while it is open; the caller closes it with `doca_dev_close`, and
    /// the PD cannot be destroyed before (IN_USE), as NVIDIA's
    /// `dpa_verbs_initiator_target` closes it first.
    fn doca_verbs_pd_as_doca_dev(verbs_pd: *mut abi::doca_verbs_pd, dev: *mut *mut abi::doca_dev) {
        let p = pd(verbs_pd)?;
        if dev.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let mut as_dev = lock(&p.core.as_dev);
        let open = as_dev.filter(|&d| obj::<Dev, _>(d as *const Dev).is_ok());
        let handle = open.unwrap_or_else(|| crate::dev::open(p.core.vctx.device.clone()) as usize);
        *as_dev = Some(handle);
        out(dev, handle as *mut abi::doca_dev)
    }

    /// Creates CQ attributes (size 0 until set).
    fn doca_verbs_cq_attr_create(verbs_cq_attr: *mut *mut abi::doca_verbs_cq_attr) {
        if verbs_cq_attr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        out(verbs_cq_attr, registry::register(CqAttr { values: Mutex::default() }).cast())
    }

    /// Destroys CQ attributes.
    fn doca_verbs_cq_attr_destroy(verbs_cq_attr: *mut abi::doca_verbs_cq_attr) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        unsafe { registry::unregister::<CqAttr, _>(verbs_cq_attr) }?;
        Ok(())
    }

    /// Sets the CQ size (non-zero).
    fn doca_verbs_cq_attr_set_cq_size(verbs_cq_attr: *mut abi::doca_verbs_cq_attr, cq_size: u32) {
        if cq_size == 0 || cq_size > MAX_CQE {
            return Err(fail(codes::INVALID_VALUE, "CQ size is 0 or above the device maximum"));
        }
        cq_attr(verbs_cq_attr)?.size = cq_size;
        Ok(())
    }

    /// Reads the CQ size.
    fn doca_verbs_cq_attr_get_cq_size(verbs_cq_attr: *const abi::doca_verbs_cq_attr, cq_size: *mut u32) {
        let v = cq_attr(verbs_cq_attr)?.size;
        out(cq_size, v)
    }

    /// Sets the CQE size (64 or 128 bytes).
    fn doca_verbs_cq_attr_set_entry_size(verbs_cq_attr: *mut abi::doca_verbs_cq_attr, entry_size: abi::doca_verbs_cq_entry_size) {
        if entry_size != abi::DOCA_VERBS_CQ_ENTRY_SIZE_64 && entry_size != abi::DOCA_VERBS_CQ_ENTRY_SIZE_128 {
            return Err(fail(codes::INVALID_VALUE, "unknown CQE size"));
        }
        cq_attr(verbs_cq_attr)?.entry_size = entry_size as u32;
        Ok(())
    }

    /// Reads the CQE size.
    fn doca_verbs_cq_attr_get_entry_size(verbs_cq_attr: *const abi::doca_verbs_cq_attr, entry_size: *mut abi::doca_verbs_cq_entry_size) {
        let v = cq_attr(verbs_cq_attr)?.entry_size;
        out(entry_size, v as abi::doca_verbs_cq_entry_size)
    }

    /// Enables CQ overrun (0 or 1).
    fn doca_verbs_cq_attr_set_cq_overrun(verbs_cq_attr: *mut abi::doca_verbs_cq_attr, overrun: u8) {
        cq_attr(verbs_cq_attr)?.overrun = overrun;
        Ok(())
    }

    /// Binds the CQ to a DPA thread (its id).
    fn doca_verbs_cq_attr_set_dpa_thread_id(verbs_cq_attr: *mut abi::doca_verbs_cq_attr, dpa_thread_id: u32) {
        cq_attr(verbs_cq_attr)?.dpa_thread_id = Some(dpa_thread_id);
        Ok(())
    }

    /// Stores the CQ's user context.
    fn doca_verbs_cq_attr_set_cq_context(verbs_cq_attr: *mut abi::doca_verbs_cq_attr, cq_context: *mut c_void) {
        cq_attr(verbs_cq_attr)?.context = cq_context as usize;
        Ok(())
    }

    /// Creates a CQ; its size must have been set.
    fn doca_verbs_cq_create(verbs_context: *mut abi::doca_verbs_context, verbs_cq_attr: *mut abi::doca_verbs_cq_attr, verbs_cq: *mut *mut abi::doca_verbs_cq) {
        let vctx = verbs_ctx(verbs_context)?.core.clone();
        let attrs = *cq_attr(verbs_cq_attr)?;
        if verbs_cq.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        if attrs.size == 0 {
            return Err(fail(codes::INVALID_VALUE, "set the CQ size first"));
        }
        vctx.users.add();
        let core = Arc::new(CqCore {
            vctx,
            cqn: NEXT_NUMBER.fetch_add(1, Ordering::Relaxed),
            users: Users::default(),
            delivered: AtomicU32::new(0),
        });
        out(verbs_cq, registry::register(Cq { core }).cast())
    }

    /// Destroys a CQ; IN_USE while a QP or RDMI object uses it.
    fn doca_verbs_cq_destroy(verbs_cq: *mut abi::doca_verbs_cq) {
        cq(verbs_cq)?.core.users.check_unused("QPs or RDMI objects still use this CQ")?;
        // SAFETY: checked above; only this call frees it.
        let c = unsafe { registry::unregister::<Cq, _>(verbs_cq) }?;
        c.core.vctx.users.remove();
        Ok(())
    }

    /// The CQ number (0 for an invalid CQ).
    fn doca_verbs_cq_get_cqn(verbs_cq: *const abi::doca_verbs_cq) -> u32 {
        cq(verbs_cq).map_or(0, |c| c.core.cqn)
    }

    /// Creates QP init attributes.
    fn doca_verbs_qp_init_attr_create(verbs_qp_init_attr: *mut *mut abi::doca_verbs_qp_init_attr) {
        if verbs_qp_init_attr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        out(verbs_qp_init_attr, registry::register(QpInitAttr { values: Mutex::default() }).cast())
    }

    /// Destroys QP init attributes.
    fn doca_verbs_qp_init_attr_destroy(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        unsafe { registry::unregister::<QpInitAttr, _>(verbs_qp_init_attr) }?;
        Ok(())
    }

    /// Sets the QP's PD.
    fn doca_verbs_qp_init_attr_set_pd(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, verbs_pd: *mut abi::doca_verbs_pd) {
        let p = pd(verbs_pd)?.core.clone();
        qp_init(verbs_qp_init_attr)?.pd = Some(p);
        Ok(())
    }

    /// Sets the send CQ (exclusive with a send DPA completion).
    fn doca_verbs_qp_init_attr_set_send_cq(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, send_cq: *mut abi::doca_verbs_cq) {
        let c = cq(send_cq)?.core.clone();
        let mut v = qp_init(verbs_qp_init_attr)?;
        if v.send_dpa_completion.is_some() {
            return Err(fail(codes::INVALID_VALUE, "a send DPA completion is already set"));
        }
        v.send_cq = Some(c);
        Ok(())
    }

    /// Sets the receive CQ (exclusive with a receive DPA completion).
    fn doca_verbs_qp_init_attr_set_receive_cq(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, receive_cq: *mut abi::doca_verbs_cq) {
        let c = cq(receive_cq)?.core.clone();
        let mut v = qp_init(verbs_qp_init_attr)?;
        if v.receive_dpa_completion.is_some() {
            return Err(fail(codes::INVALID_VALUE, "a receive DPA completion is already set"));
        }
        v.receive_cq = Some(c);
        Ok(())
    }

    /// Send queue depth.
    fn doca_verbs_qp_init_attr_set_sq_wr(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, sq_wr: u32) {
        qp_init(verbs_qp_init_attr)?.sq_wr = sq_wr;
        Ok(())
    }

    /// Receive queue depth.
    fn doca_verbs_qp_init_attr_set_rq_wr(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, rq_wr: u32) {
        qp_init(verbs_qp_init_attr)?.rq_wr = rq_wr;
        Ok(())
    }

    /// Send SGE limit.
    fn doca_verbs_qp_init_attr_set_send_max_sges(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, send_max_sges: u32) {
        qp_init(verbs_qp_init_attr)?.send_sges = send_max_sges;
        Ok(())
    }

    /// Receive SGE limit.
    fn doca_verbs_qp_init_attr_set_receive_max_sges(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, receive_max_sges: u32) {
        qp_init(verbs_qp_init_attr)?.receive_sges = receive_max_sges;
        Ok(())
    }

    /// QP type: RC or UC (an unreliable connection has no RDMA reads or
    /// atomics: such a work request fails, see `dpa_verbs`).
    fn doca_verbs_qp_init_attr_set_qp_type(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, qp_type: u32) {
        if qp_type != abi::DOCA_VERBS_QP_TYPE_RC && qp_type != abi::DOCA_VERBS_QP_TYPE_UC {
            return Err(fail(codes::INVALID_VALUE, "unknown QP type"));
        }
        qp_init(verbs_qp_init_attr)?.qp_type = qp_type;
        Ok(())
    }

    /// Puts the QP's datapath on a DPA (needs the external datapath enabled).
    fn doca_verbs_qp_init_attr_set_dpa(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, dpa: *mut abi::doca_dpa) {
        let core = self::dpa(dpa)?.core.clone();
        qp_init(verbs_qp_init_attr)?.dpa = Some(core);
        Ok(())
    }

    /// Sends complete on a DPA completion (exclusive with a send CQ).
    fn doca_verbs_qp_init_attr_set_send_dpa_completion(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, dpa_completion: *mut abi::doca_dpa_completion) {
        let completion = crate::dpa::threads::completion_core(dpa_completion)?;
        let mut v = qp_init(verbs_qp_init_attr)?;
        if v.send_cq.is_some() {
            return Err(fail(codes::INVALID_VALUE, "a send CQ is already set"));
        }
        v.send_dpa_completion = Some(completion);
        Ok(())
    }

    /// Receives complete on a DPA completion (exclusive with a receive CQ).
    fn doca_verbs_qp_init_attr_set_receive_dpa_completion(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, dpa_completion: *mut abi::doca_dpa_completion) {
        let completion = crate::dpa::threads::completion_core(dpa_completion)?;
        let mut v = qp_init(verbs_qp_init_attr)?;
        if v.receive_cq.is_some() {
            return Err(fail(codes::INVALID_VALUE, "a receive CQ is already set"));
        }
        v.receive_dpa_completion = Some(completion);
        Ok(())
    }

    /// Enables the external (DPA) datapath.
    fn doca_verbs_qp_init_attr_set_external_datapath_en(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, external_datapath_en: u8) {
        qp_init(verbs_qp_init_attr)?.external_datapath = external_datapath_en != 0;
        Ok(())
    }

    /// Creates a QP: it needs a PD, and a DPA only with the external datapath.
    fn doca_verbs_qp_create(verbs_context: *mut abi::doca_verbs_context, verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, verbs_qp: *mut *mut abi::doca_verbs_qp) {
        let vctx = verbs_ctx(verbs_context)?.core.clone();
        let v = qp_init(verbs_qp_init_attr)?;
        if verbs_qp.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let pd = v.pd.clone().ok_or(fail(codes::INVALID_VALUE, "set a PD on the QP init attributes"))?;
        if !Arc::ptr_eq(&pd.vctx, &vctx) {
            return Err(fail(codes::INVALID_VALUE, "the PD belongs to another verbs context"));
        }
        if v.dpa.is_some() && !v.external_datapath {
            return Err(fail(codes::INVALID_VALUE, "a DPA QP needs the external datapath enabled"));
        }
        if v.dpa.is_some() && !v.external.is_empty() {
            return Err(fail(codes::INVALID_VALUE, "a QP given a DPA (doca_verbs_qp_init_attr_set_dpa) takes no external UMEM or UAR"));
        }
        // On the DPA datapath: the DPA set, or that of its external UMEMs
        // and UAR, which must all be of one DPA context family.
        let datapath = v.dpa.clone().or_else(|| v.external.first().cloned());
        let traffic = match datapath.filter(|_| v.external_datapath) {
            Some(dpa) => {
                if v.external.iter().any(|d| !d.shares_device_context(&dpa)) {
                    return Err(fail(codes::INVALID_VALUE, "the external UMEMs and UAR belong to different DPA contexts"));
                }
                Some(QpCore::new(QpShape {
                    dpa,
                    qp_type: v.qp_type,
                    send_completion: v.send_dpa_completion.clone(),
                    receive_completion: v.receive_dpa_completion.clone(),
                    sq_wr: v.sq_wr,
                    rq_wr: v.rq_wr,
                    send_sges: v.send_sges,
                    receive_sges: v.receive_sges,
                })?)
            }
            None => None,
        };
        let cqs: Vec<Arc<CqCore>> = v.send_cq.iter().chain(v.receive_cq.iter()).cloned().collect();
        vctx.users.add();
        pd.users.add();
        for c in &cqs {
            c.users.add();
        }
        let qp = Qp {
            vctx,
            pd,
            cqs,
            qpn: traffic.as_ref().map_or_else(|| NEXT_NUMBER.fetch_add(1, Ordering::Relaxed), |t| t.qpn),
            traffic,
            handle: Mutex::new(None),
            state: Mutex::new(abi::DOCA_VERBS_QP_STATE_RST),
        };
        out(verbs_qp, registry::register(qp).cast())
    }

    /// Destroys a QP.
    fn doca_verbs_qp_destroy(verbs_qp: *mut abi::doca_verbs_qp) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        let q = unsafe { registry::unregister::<Qp, _>(verbs_qp) }?;
        if let Some(h) = lock(&q.handle).take() {
            registry::retract(h);
        }
        for c in &q.cqs {
            c.users.remove();
        }
        q.pd.users.remove();
        q.vctx.users.remove();
        Ok(())
    }

    /// The QP number (0 for an invalid QP).
    fn doca_verbs_qp_get_qpn(verbs_qp: *const abi::doca_verbs_qp) -> u32 {
        obj::<Qp, _>(verbs_qp).map_or(0, |q| q.qpn)
    }

    /// The DPA handle of a QP on the DPA datapath of `dpa` (given a DPA, or
    /// external UMEMs and a UAR of it, and the external datapath enabled).
    fn doca_verbs_qp_get_dpa_handle(verbs_qp: *mut abi::doca_verbs_qp, dpa: *mut abi::doca_dpa, dpa_qp_handle: *mut abi::doca_dpa_dev_verbs_qp_t) {
        let q = obj::<Qp, _>(verbs_qp)?;
        let core = self::dpa(dpa)?.core.clone();
        let traffic = match &q.traffic {
            Some(t) if t.dpa().shares_device_context(&core) => t.clone(),
            _ => return Err(fail(codes::INVALID_VALUE, "the QP is not on this DPA's datapath")),
        };
        let h = *lock(&q.handle).get_or_insert_with(|| registry::publish(traffic));
        out(dpa_qp_handle, h)
    }

    /// Queries the device attributes (free with `doca_verbs_device_attr_free`).
    fn doca_verbs_query_device(verbs_context: *mut abi::doca_verbs_context, verbs_device_attr: *mut *mut abi::doca_verbs_device_attr) {
        let vctx = verbs_ctx(verbs_context)?;
        if verbs_device_attr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let attr = DeviceAttr { dpa: vctx.core.device.profile.dpa };
        out(verbs_device_attr, registry::register(attr).cast())
    }

    /// Frees device attributes.
    fn doca_verbs_device_attr_free(verbs_device_attr: *mut abi::doca_verbs_device_attr) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        unsafe { registry::unregister::<DeviceAttr, _>(verbs_device_attr) }?;
        Ok(())
    }

    /// Most QPs.
    fn doca_verbs_device_attr_get_max_qp(verbs_device_attr: *const abi::doca_verbs_device_attr) -> u32 {
        attr_value(verbs_device_attr, |_| MAX_QP)
    }

    /// Most CQs.
    fn doca_verbs_device_attr_get_max_cq(verbs_device_attr: *const abi::doca_verbs_device_attr) -> u32 {
        attr_value(verbs_device_attr, |_| MAX_CQ)
    }

    /// Most CQEs per CQ.
    fn doca_verbs_device_attr_get_max_cqe(verbs_device_attr: *const abi::doca_verbs_device_attr) -> u32 {
        attr_value(verbs_device_attr, |_| MAX_CQE)
    }

    /// Most PDs.
    fn doca_verbs_device_attr_get_max_pd(verbs_device_attr: *const abi::doca_verbs_device_attr) -> u32 {
        attr_value(verbs_device_attr, |_| MAX_PD)
    }

    /// Whether QPs can use a DPA datapath (devices with a DPA).
    fn doca_verbs_device_attr_get_is_dpa_external_datapath_supported(verbs_device_attr: *const abi::doca_verbs_device_attr) -> u8 {
        attr_value(verbs_device_attr, |a| u32::from(a.dpa)) as u8
    }
}

doca_api! {
    /// Creates an empty set of QP attributes.
    fn doca_verbs_qp_attr_create(verbs_qp_attr: *mut *mut abi::doca_verbs_qp_attr) {
        if verbs_qp_attr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        out(verbs_qp_attr, registry::register(QpAttr::default()).cast())
    }

    /// Destroys a set of QP attributes.
    fn doca_verbs_qp_attr_destroy(verbs_qp_attr: *mut abi::doca_verbs_qp_attr) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        unsafe { registry::unregister::<QpAttr, _>(verbs_qp_attr) }?;
        Ok(())
    }

    /// The state `doca_verbs_qp_modify` moves to.
    fn doca_verbs_qp_attr_set_next_state(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, next_state: abi::doca_verbs_qp_state) {
        let attr = obj::<QpAttr, _>(verbs_qp_attr)?;
        if next_state > abi::DOCA_VERBS_QP_STATE_ERR {
            return Err(fail(codes::INVALID_VALUE, "unknown QP state"));
        }
        *lock(&attr.next_state) = Some(next_state);
        Ok(())
    }

    /// Accepted (see [`QpAttr`]); the address handle must be live.
    fn doca_verbs_qp_attr_set_ah_attr(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, ah_attr: *mut abi::doca_verbs_ah_attr) {
        ah_attr_accept(ah_attr)?;
        qp_attr_accept(verbs_qp_attr)
    }

    /// Moves a QP to the attributes' next state.
    ///
    /// Model choice: the state machine of the header's transition table
    /// (RST -> INIT -> RTR -> RTS, RTS -> RTS, anything -> RST or ERR);
    /// another transition is BAD_STATE, a set without a next state or an
    /// empty mask INVALID_VALUE. Which attributes a transition needs is not
    /// checked.
    fn doca_verbs_qp_modify(verbs_qp: *mut abi::doca_verbs_qp, verbs_qp_attr: *mut abi::doca_verbs_qp_attr, attr_mask: std::ffi::c_int) {
        let q = obj::<Qp, _>(verbs_qp)?;
        let attr = obj::<QpAttr, _>(verbs_qp_attr)?;
        if attr_mask == 0 {
            return Err(fail(codes::INVALID_VALUE, "an empty attribute mask"));
        }
        let next = lock(&attr.next_state).ok_or(fail(codes::INVALID_VALUE, "the attributes name no next state"))?;
        let mut state = lock(&q.state);
        // A failed work request moves the traffic side to ERR on its own.
        if q.traffic.as_ref().is_some_and(|t| t.in_error()) {
            *state = abi::DOCA_VERBS_QP_STATE_ERR;
        }
        if !qp_transition_allowed(*state, next) {
            return Err(fail(codes::BAD_STATE, "the QP cannot move to that state from its current one"));
        }
        *state = next;
        if let Some(t) = &q.traffic {
            let mask = attr_mask as u32;
            let set = *lock(&attr.traffic);
            let pick = |bit: u32| mask & bit != 0;
            t.apply(next, TrafficAttrs {
                dest_qpn: set.dest_qpn.filter(|_| pick(abi::DOCA_VERBS_QP_ATTR_DEST_QP_NUM)),
                remote_write: set.remote_write.filter(|_| pick(abi::DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_WRITE)),
                remote_read: set.remote_read.filter(|_| pick(abi::DOCA_VERBS_QP_ATTR_ALLOW_REMOTE_READ)),
                rnr_retry: set.rnr_retry.filter(|_| pick(abi::DOCA_VERBS_QP_ATTR_RNR_RETRY)),
                ack_timeout: set.ack_timeout.filter(|_| pick(abi::DOCA_VERBS_QP_ATTR_ACK_TIMEOUT)),
                retry_cnt: set.retry_cnt.filter(|_| pick(abi::DOCA_VERBS_QP_ATTR_RETRY_CNT)),
            });
        }
        Ok(())
    }

    /// Creates an address handle on a verbs context (which it keeps in use).
    fn doca_verbs_ah_attr_create(verbs_context: *mut abi::doca_verbs_context, verbs_ah_attr: *mut *mut abi::doca_verbs_ah_attr) {
        let vctx = verbs_ctx(verbs_context)?.core.clone();
        if verbs_ah_attr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        vctx.users.add();
        out(verbs_ah_attr, registry::register(AhAttr { vctx }).cast())
    }

    /// Destroys an address handle.
    fn doca_verbs_ah_attr_destroy(verbs_ah_attr: *mut abi::doca_verbs_ah_attr) {
        // SAFETY: `unregister` checks the pointer; only this call frees it.
        let ah = unsafe { registry::unregister::<AhAttr, _>(verbs_ah_attr) }?;
        ah.vctx.users.remove();
        Ok(())
    }

    /// Accepted (see [`AhAttr`]); an unknown address type is INVALID_VALUE.
    fn doca_verbs_ah_attr_set_addr_type(verbs_ah_attr: *mut abi::doca_verbs_ah_attr, addr_type: abi::doca_verbs_addr_type) {
        if addr_type > abi::DOCA_VERBS_ADDR_TYPE_IB_NO_GRH {
            return Err(fail(codes::INVALID_VALUE, "unknown address type"));
        }
        ah_attr_accept(verbs_ah_attr)
    }
}

/// Setters of values the sim accepts and does not use (its queue pairs
/// carry no traffic): each checks its object with `$check` and ignores the
/// value.
macro_rules! accepted_setters {
    ($check:ident, $obj:ident: $obj_ty:ty, $what:literal: $( fn $name:ident($arg:ident: $arg_ty:ty); )*) => {
        doca_api! {
            $(
                #[doc = concat!("Accepted, not used (see [`", $what, "`]).")]
                fn $name($obj: $obj_ty, $arg: $arg_ty) {
                    let _ = $arg;
                    $check($obj)
                }
            )*
        }
    };
}

accepted_setters! {
    qp_attr_accept, verbs_qp_attr: *mut abi::doca_verbs_qp_attr, "QpAttr":
    fn doca_verbs_qp_attr_set_current_state(current_state: abi::doca_verbs_qp_state);
    fn doca_verbs_qp_attr_set_max_rd_atomic(max_rd_atomic: u8);
    fn doca_verbs_qp_attr_set_max_dest_rd_atomic(max_dest_rd_atomic: u8);
    fn doca_verbs_qp_attr_set_pkey_index(pkey_index: u16);
    fn doca_verbs_qp_attr_set_port_num(port_num: u16);
    fn doca_verbs_qp_attr_set_min_rnr_timer(min_rnr_timer: u16);
    fn doca_verbs_qp_attr_set_rq_psn(rq_psn: u32);
    fn doca_verbs_qp_attr_set_sq_psn(sq_psn: u32);
    fn doca_verbs_qp_attr_set_path_mtu(path_mtu: abi::doca_mtu_size);
}

accepted_setters! {
    ah_attr_accept, verbs_ah_attr: *mut abi::doca_verbs_ah_attr, "AhAttr":
    fn doca_verbs_ah_attr_set_gid(gid: abi::doca_verbs_gid);
    fn doca_verbs_ah_attr_set_dlid(dlid: u32);
    fn doca_verbs_ah_attr_set_sl(sl: u8);
    fn doca_verbs_ah_attr_set_sgid_index(sgid_index: u8);
    fn doca_verbs_ah_attr_set_static_rate(static_rate: u8);
    fn doca_verbs_ah_attr_set_hop_limit(hop_limit: u8);
    fn doca_verbs_ah_attr_set_traffic_class(traffic_class: u8);
}

not_modelled! {
    /// Queries of QP attributes.
    fn doca_verbs_qp_query(verbs_qp: *mut abi::doca_verbs_qp, verbs_qp_attr: *mut abi::doca_verbs_qp_attr, verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, attr_mask: *mut std::ffi::c_int);
    /// External memory for a CQ (queue pairs on the DPA datapath report to
    /// DPA completion contexts instead).
    fn doca_verbs_cq_attr_set_external_umem(verbs_cq_attr: *mut abi::doca_verbs_cq_attr, external_umem: *mut abi::doca_umem, external_umem_offset: u64);
    /// External UARs for a CQ (as above).
    fn doca_verbs_cq_attr_set_external_uar(verbs_cq_attr: *mut abi::doca_verbs_cq_attr, external_uar: *mut abi::doca_uar);
}

doca_api! {
    /// The queue pair number `doca_verbs_qp_modify` connects to (with
    /// `DOCA_VERBS_QP_ATTR_DEST_QP_NUM`).
    fn doca_verbs_qp_attr_set_dest_qp_num(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, dest_qp_num: u32) {
        lock(&obj::<QpAttr, _>(verbs_qp_attr)?.traffic).dest_qpn = Some(dest_qp_num);
        Ok(())
    }

    /// Whether the peer may write into memory through this queue pair.
    fn doca_verbs_qp_attr_set_allow_remote_write(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, allow_remote_write: std::ffi::c_int) {
        lock(&obj::<QpAttr, _>(verbs_qp_attr)?.traffic).remote_write = Some(allow_remote_write != 0);
        Ok(())
    }

    /// Whether the peer may read memory through this queue pair.
    fn doca_verbs_qp_attr_set_allow_remote_read(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, allow_remote_read: std::ffi::c_int) {
        lock(&obj::<QpAttr, _>(verbs_qp_attr)?.traffic).remote_read = Some(allow_remote_read != 0);
        Ok(())
    }

    /// How often a send is retried while its target has no receive posted (7:
    /// without limit); at most 7.
    fn doca_verbs_qp_attr_set_rnr_retry(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, rnr_retry: u16) {
        if rnr_retry > 7 {
            return Err(fail(codes::INVALID_VALUE, "rnr_retry is at most 7"));
        }
        lock(&obj::<QpAttr, _>(verbs_qp_attr)?.traffic).rnr_retry = Some(rnr_retry);
        Ok(())
    }

    /// The local ACK timeout (4.096 µs × 2^`ack_timeout`): with the retry
    /// count, how long a work request waits for a peer in another process
    /// (values above InfiniBand's 31 count as 31).
    fn doca_verbs_qp_attr_set_ack_timeout(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, ack_timeout: u16) {
        lock(&obj::<QpAttr, _>(verbs_qp_attr)?.traffic).ack_timeout = Some(ack_timeout);
        Ok(())
    }

    /// How often an unanswered request is retried (values above
    /// InfiniBand's 7 count as 7; see the ACK timeout).
    fn doca_verbs_qp_attr_set_retry_cnt(verbs_qp_attr: *mut abi::doca_verbs_qp_attr, retry_cnt: u16) {
        lock(&obj::<QpAttr, _>(verbs_qp_attr)?.traffic).retry_cnt = Some(retry_cnt);
        Ok(())
    }

    /// External memory for the queue pair's rings (DPA UMEMs only; the
    /// sim's rings are its own, so the offset is not used).
    fn doca_verbs_qp_init_attr_set_external_umem(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, external_umem: *mut abi::doca_umem, external_umem_offset: u64) {
        let _ = external_umem_offset;
        let umem = obj::<Umem, _>(external_umem)?;
        qp_init(verbs_qp_init_attr)?.external.push(umem.dpa.clone());
        Ok(())
    }

    /// External memory for the queue pair's doorbell record (as above).
    fn doca_verbs_qp_init_attr_set_external_dbr_umem(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, external_umem: *mut abi::doca_umem, external_umem_offset: u64) {
        let _ = external_umem_offset;
        let umem = obj::<Umem, _>(external_umem)?;
        qp_init(verbs_qp_init_attr)?.external.push(umem.dpa.clone());
        Ok(())
    }

    /// The UAR the queue pair's kernels ring.
    fn doca_verbs_qp_init_attr_set_external_uar(verbs_qp_init_attr: *mut abi::doca_verbs_qp_init_attr, external_uar: *mut abi::doca_uar) {
        let uar = obj::<Uar, _>(external_uar)?;
        qp_init(verbs_qp_init_attr)?.external.push(uar.dpa.clone());
        Ok(())
    }
}
