//! DOCA RDMI: connections and posters, each a DOCA context on a verbs
//! context, and the sim-only device functions a kernel drives them with.
//!
//! RDMI's DPA-side behaviour is not public, so the sim models a loopback:
//! a kernel sends a message through a poster to a connection
//! (`doca_sim_dev_rdmi_send`); the message lands in the next slot of the
//! connection's receive buffer, the connection's completion source gets a
//! RECV_SEND completion (user data = slot, immediate = length) and the
//! poster's a SEND completion. The kernel consumes receives
//! (`doca_sim_dev_rdmi_consume`) and the host releases them with
//! `doca_rdmi_connection_recv_ack`.
//!
//! Model choices:
//! - the receive buffer is cut into [`SLOT_BYTES`]-byte slots; a message
//!   longer than a slot is INVALID_VALUE, and a send into a window whose
//!   slots are all received and not yet acknowledged is AGAIN (DOCA stalls
//!   silently instead);
//! - attaching a second completion source is NOT_PERMITTED; attaching a DPA
//!   completion to a context not on the DPA datapath is INVALID_VALUE;
//!   starting with no completion source, or a connection with no receive
//!   buffer, is BAD_STATE;
//! - a connection whose host has not acknowledged every message the DPA
//!   consumed stops asynchronously (`doca_ctx_stop` returns IN_PROGRESS);
//!   messages received but never consumed are dropped by the stop (the
//!   kernel that would consume them is gone, and the host may only
//!   acknowledge consumed ones);
//! - starting a connection or poster whose verbs context is on a device
//!   without a DPA is NOT_SUPPORTED (the documented error when the device
//!   lacks the DPA datapath);
//! - a send between a poster and a connection of different verbs contexts,
//!   or with different PDs, is INVALID_VALUE (the documented PD / verbs
//!   context mismatch; the device call is where the two meet).

// Functions called from C (kernels, the shim) are `pub` for `#[no_mangle]`
// export, not for Rust callers.
#![allow(unreachable_pub)]

use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::abi;
use crate::ctx::{self, destroy_ctx, new_ctx, CtxOwner};
use crate::dev::{obj, DevRep};
use crate::dpa::threads::comp::{RECV_SEND as COMP_RECV_SEND, SEND as COMP_SEND};
use crate::dpa::threads::{completion_core, CompletionCore};
use crate::dpa::DpaCore;
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, not_modelled, out};
use crate::registry::{self, SimObject};
use crate::verbs::{cq, pd, verbs_ctx, CqCore, PdCore, VerbsCore};

/// Bytes per receive slot.
pub const SLOT_BYTES: usize = 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Where an RDMI object's completions go.
#[derive(Clone)]
enum Source {
    Dpa(Arc<CompletionCore>),
    Cq(Arc<CqCore>),
}

impl Source {
    fn deliver(&self, kind: u32, user_data: u32, immediate: u32) -> SimResult {
        match self {
            Source::Dpa(c) => c.post(kind, user_data, immediate),
            Source::Cq(c) => {
                c.deliver(1);
                Ok(())
            }
        }
    }
}

#[derive(Default)]
struct Common {
    pd: Option<Arc<PdCore>>,
    source: Option<Source>,
    inputs: Vec<(u32, Vec<u8>)>,
    handle: Option<u64>,
}

#[derive(Default)]
struct ConnState {
    common: Common,
    /// Receive buffer address and length.
    buffer: Option<(usize, usize)>,
    received: u64,
    consumed: u64,
    acked: u64,
}

/// The state of a connection, shared with its ctx and the device functions.
pub(crate) struct ConnectionCore {
    vctx: Arc<VerbsCore>,
    /// The `doca_ctx` (set once at creation; kept outside the state lock
    /// because the ctx calls back into `in_flight`).
    ctx: OnceLock<usize>,
    rep: usize,
    mkey: u32,
    state: Mutex<ConnState>,
}

/// The state of a poster.
pub(crate) struct PosterCore {
    vctx: Arc<VerbsCore>,
    ctx: OnceLock<usize>,
    state: Mutex<Common>,
    posted: AtomicU32,
}

fn ctx_phase(ctx: usize) -> u32 {
    ctx::ctx_ref(ctx).map_or(ctx::states::IDLE, |c| c.phase())
}

fn check_common(c: &Common, vctx: &VerbsCore, dpa: Option<&Arc<DpaCore>>) -> SimResult {
    if !vctx.device.profile.dpa {
        return Err(fail(
            codes::NOT_SUPPORTED,
            "RDMI needs a device with a DPA datapath",
        ));
    }
    match (&c.source, dpa) {
        (None, _) => Err(fail(
            codes::BAD_STATE,
            "attach a DPA completion or a verbs CQ before starting",
        )),
        (Some(Source::Dpa(comp)), Some(d)) => {
            if !comp.dpa().shares_device_context(d) {
                return Err(fail(
                    codes::INVALID_VALUE,
                    "the DPA completion belongs to another DPA context",
                ));
            }
            if !comp.is_started() {
                return Err(fail(
                    codes::BAD_STATE,
                    "start the DPA completion before the RDMI context",
                ));
            }
            Ok(())
        }
        (Some(Source::Dpa(_)), None) => Err(fail(
            codes::INVALID_VALUE,
            "a DPA completion needs the DPA datapath",
        )),
        (Some(Source::Cq(_)), _) => Ok(()),
    }
}

impl CtxOwner for ConnectionCore {
    fn check_start(&self, dpa: Option<&Arc<DpaCore>>) -> SimResult {
        let st = lock(&self.state);
        check_common(&st.common, &self.vctx, dpa)?;
        if st.buffer.is_none() {
            return Err(fail(
                codes::BAD_STATE,
                "give the connection a receive buffer (init_receive) before starting",
            ));
        }
        Ok(())
    }

    fn in_flight(&self) -> u64 {
        let st = lock(&self.state);
        st.consumed - st.acked
    }

    fn stopped(&self) {
        let mut st = lock(&self.state);
        if let Some(h) = st.common.handle.take() {
            registry::retract(h);
        }
    }
}

impl CtxOwner for PosterCore {
    fn check_start(&self, dpa: Option<&Arc<DpaCore>>) -> SimResult {
        check_common(&lock(&self.state), &self.vctx, dpa)
    }

    fn stopped(&self) {
        if let Some(h) = lock(&self.state).handle.take() {
            registry::retract(h);
        }
    }
}

impl ConnectionCore {
    /// Delivers a message into the next receive slot.
    fn receive(&self, data: &[u8]) -> SimResult<u32> {
        let mut st = lock(&self.state);
        let (addr, len) = st
            .buffer
            .ok_or(fail(codes::BAD_STATE, "no receive buffer"))?;
        if data.len() > SLOT_BYTES {
            return Err(fail(
                codes::INVALID_VALUE,
                "message longer than a receive slot",
            ));
        }
        let slots = (len / SLOT_BYTES) as u64;
        if slots == 0 || st.received - st.acked >= slots {
            return Err(fail(
                codes::AGAIN,
                "receive window full: the host has not acknowledged enough receives",
            ));
        }
        let slot = (st.received % slots) as u32;
        // The buffer is the program's memory (it may even be a DPA heap
        // block the program freed), so the copy probes it: an inaccessible
        // buffer is a device fault of the sending kernel, not a host crash.
        // The copy is relaxed atomic words: the host may read the buffer
        // meanwhile.
        // SAFETY: `data` holds `data.len() <= SLOT_BYTES` bytes; the
        // destination, inside the registered buffer, is probed.
        let copied = unsafe {
            crate::trap::probe_copy(
                (addr + slot as usize * SLOT_BYTES) as *mut u8,
                data.as_ptr(),
                data.len(),
            )
        };
        if let Err(bad) = copied {
            drop(st);
            crate::dpa::launch::bad_address(
                "doca_sim_dev_rdmi_send (the connection's receive buffer)",
                bad,
                crate::dpa::fault::Access::Write,
            );
            return Err(fail(
                codes::INVALID_VALUE,
                "the receive buffer is not accessible",
            ));
        }
        st.received += 1;
        let source = st.common.source.clone();
        drop(st);
        if let Some(s) = source {
            s.deliver(COMP_RECV_SEND, slot, data.len() as u32)?;
        }
        Ok(slot)
    }
}

impl ConnectionCore {
    fn ctx(&self) -> usize {
        self.ctx.get().copied().unwrap_or(0)
    }
}

impl PosterCore {
    fn ctx(&self) -> usize {
        self.ctx.get().copied().unwrap_or(0)
    }
}

/// `struct doca_rdmi_connection`.
pub(crate) struct Connection {
    core: Arc<ConnectionCore>,
}
impl SimObject for Connection {
    const KIND: &'static str = "doca_rdmi_connection";
}

/// `struct doca_rdmi_poster`.
pub(crate) struct Poster {
    core: Arc<PosterCore>,
}
impl SimObject for Poster {
    const KIND: &'static str = "doca_rdmi_poster";
}

fn connection<'a>(ptr: *const abi::doca_rdmi_connection) -> SimResult<&'a Connection> {
    obj::<Connection, _>(ptr)
}

fn poster<'a>(ptr: *const abi::doca_rdmi_poster) -> SimResult<&'a Poster> {
    obj::<Poster, _>(ptr)
}

/// Runs `f` on an idle RDMI object's configuration (BAD_STATE once started).
fn idle<R>(ctx: usize, f: impl FnOnce() -> SimResult<R>) -> SimResult<R> {
    if ctx_phase(ctx) != ctx::states::IDLE {
        return Err(fail(codes::BAD_STATE, "the RDMI context is started"));
    }
    f()
}

fn set_pd(
    common: &mut Common,
    vctx: &Arc<VerbsCore>,
    pd_ptr: *mut abi::doca_verbs_pd,
) -> SimResult {
    let p = pd(pd_ptr)?.core.clone();
    if !Arc::ptr_eq(&p.vctx, vctx) {
        return Err(fail(
            codes::INVALID_VALUE,
            "the PD belongs to another verbs context",
        ));
    }
    p.users.add();
    if let Some(old) = common.pd.replace(p) {
        old.users.remove();
    }
    Ok(())
}

fn attach(common: &mut Common, ctx: usize, source: Source) -> SimResult {
    if common.source.is_some() {
        return Err(fail(
            codes::NOT_PERMITTED,
            "a completion source is already attached",
        ));
    }
    match &source {
        Source::Dpa(c) => {
            let on_dpa = ctx::ctx_ref(ctx)?.datapath();
            match on_dpa {
                Some(d) if c.dpa().shares_device_context(&d) => c.attach_producer()?,
                _ => return Err(fail(codes::INVALID_VALUE, "set the DPA datapath (doca_ctx_set_datapath_on_dpa) before attaching a DPA completion")),
            }
        }
        Source::Cq(c) => c.users.add(),
    }
    common.source = Some(source);
    Ok(())
}

fn set_input(common: &mut Common, op_type: u32, buf: *const c_void, size: usize) -> SimResult {
    if buf.is_null() || size == 0 {
        return Err(fail(codes::INVALID_VALUE, "empty input"));
    }
    // SAFETY: the caller passes `size` readable bytes.
    let bytes = unsafe { std::slice::from_raw_parts(buf.cast::<u8>(), size) }.to_vec();
    common.inputs.push((op_type, bytes));
    Ok(())
}

fn require_dpa_running(ctx: usize) -> SimResult {
    let c = ctx::ctx_ref(ctx)?;
    if c.phase() != ctx::states::RUNNING {
        return Err(fail(codes::BAD_STATE, "the RDMI context is not started"));
    }
    if c.datapath().is_none() {
        return Err(fail(
            codes::BAD_STATE,
            "the RDMI context is not on the DPA datapath",
        ));
    }
    Ok(())
}

fn release(common: &mut Common) {
    if let Some(p) = common.pd.take() {
        p.users.remove();
    }
    if let Some(Source::Cq(c)) = common.source.take() {
        c.users.remove();
    }
}

static NEXT_MKEY: AtomicU32 = AtomicU32::new(0x5000);

doca_api! {
    /// Creates a connection on a verbs context, for a representor.
    fn doca_rdmi_connection_create(verbs_ctx: *mut abi::doca_verbs_context, rep: *mut abi::doca_dev_rep, conn: *mut *mut abi::doca_rdmi_connection) {
        let vctx = self::verbs_ctx(verbs_ctx)?.core.clone();
        let r = obj::<DevRep, _>(rep)?;
        if conn.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        vctx.users.add();
        r.users.fetch_add(1, Ordering::AcqRel);
        let core = Arc::new(ConnectionCore {
            vctx,
            rep: rep as usize,
            mkey: NEXT_MKEY.fetch_add(1, Ordering::Relaxed),
            ctx: OnceLock::new(),
            state: Mutex::default(),
        });
        let _ = core.ctx.set(new_ctx(core.clone()));
        out(conn, registry::register(Connection { core }).cast())
    }

    /// Destroys a stopped connection.
    fn doca_rdmi_connection_destroy(conn: *mut abi::doca_rdmi_connection) {
        let c = connection(conn)?;
        destroy_ctx(c.core.ctx())?;
        // SAFETY: checked above; only this call frees it.
        let c = unsafe { registry::unregister::<Connection, _>(conn) }?;
        release(&mut lock(&c.core.state).common);
        c.core.vctx.users.remove();
        if let Ok(r) = obj::<DevRep, DevRep>(c.core.rep as *const DevRep) {
            r.users.fetch_sub(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Sets the PD (same verbs context).
    fn doca_rdmi_connection_set_pd(conn: *mut abi::doca_rdmi_connection, pd: *mut abi::doca_verbs_pd) {
        let c = connection(conn)?;
        idle(c.core.ctx(), || set_pd(&mut lock(&c.core.state).common, &c.core.vctx, pd))
    }

    /// Gives the connection its receive buffer (before start).
    fn doca_rdmi_connection_init_receive(conn: *mut abi::doca_rdmi_connection, buf: *mut c_void, size: usize) {
        let c = connection(conn)?;
        if buf.is_null() || size == 0 {
            return Err(fail(codes::INVALID_VALUE, "empty receive buffer"));
        }
        idle(c.core.ctx(), || {
            lock(&c.core.state).buffer = Some((buf as usize, size));
            Ok(())
        })
    }

    /// Attaches a DPA completion (DPA datapath, before start).
    fn doca_rdmi_connection_dpa_completion_attach(conn: *mut abi::doca_rdmi_connection, dpa_comp: *mut abi::doca_dpa_completion) {
        let c = connection(conn)?;
        let comp = completion_core(dpa_comp)?;
        let ctx = c.core.ctx();
        idle(ctx, || attach(&mut lock(&c.core.state).common, ctx, Source::Dpa(comp)))
    }

    /// Attaches a verbs CQ (before start).
    fn doca_rdmi_connection_cq_attach(conn: *mut abi::doca_rdmi_connection, cq: *mut abi::doca_verbs_cq) {
        let c = connection(conn)?;
        let q = self::cq(cq)?.core.clone();
        let ctx = c.core.ctx();
        idle(ctx, || attach(&mut lock(&c.core.state).common, ctx, Source::Cq(q)))
    }

    /// Stores a firmware-command input (before start).
    fn doca_rdmi_connection_set_input(conn: *mut abi::doca_rdmi_connection, op_type: u32, in_buf: *const c_void, size: usize) {
        let c = connection(conn)?;
        idle(c.core.ctx(), || set_input(&mut lock(&c.core.state).common, op_type, in_buf, size))
    }

    /// The DPA handle of a started connection on the DPA datapath.
    fn doca_rdmi_connection_get_dpa_handle(conn: *mut abi::doca_rdmi_connection, dpa_handle: *mut abi::doca_dpa_dev_rdmi_connection_t) {
        let c = connection(conn)?;
        require_dpa_running(c.core.ctx())?;
        let core = c.core.clone();
        let h = *lock(&c.core.state)
            .common
            .handle
            .get_or_insert_with(|| registry::publish(core));
        out(dpa_handle, h)
    }

    /// Releases `num_acked` receives the DPA consumed; acknowledging more
    /// than were consumed is INVALID_VALUE.
    fn doca_rdmi_connection_recv_ack(conn: *mut abi::doca_rdmi_connection, num_acked: u32) {
        let c = connection(conn)?;
        if ctx_phase(c.core.ctx()) == ctx::states::IDLE {
            return Err(fail(codes::BAD_STATE, "the connection is not started"));
        }
        let mut st = lock(&c.core.state);
        if st.acked + u64::from(num_acked) > st.consumed {
            return Err(fail(codes::INVALID_VALUE, "acknowledging more receives than the DPA consumed"));
        }
        st.acked += u64::from(num_acked);
        Ok(())
    }

    /// Where the receive buffer is: memory key, offset, size.
    fn doca_rdmi_connection_get_app_rq_info(conn: *mut abi::doca_rdmi_connection, mkey: *mut u32, offset: *mut u64, size: *mut usize) {
        let c = connection(conn)?;
        let (_, len) = lock(&c.core.state).buffer.ok_or(fail(codes::BAD_STATE, "no receive buffer yet"))?;
        out(mkey, c.core.mkey)?;
        out(offset, 0)?;
        out(size, len)
    }

    /// Creates a poster on a verbs context.
    fn doca_rdmi_poster_create(verbs_ctx: *mut abi::doca_verbs_context, poster: *mut *mut abi::doca_rdmi_poster) {
        let vctx = self::verbs_ctx(verbs_ctx)?.core.clone();
        if poster.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        vctx.users.add();
        let core = Arc::new(PosterCore { vctx, ctx: OnceLock::new(), state: Mutex::default(), posted: AtomicU32::new(0) });
        let _ = core.ctx.set(new_ctx(core.clone()));
        out(poster, registry::register(Poster { core }).cast())
    }

    /// Destroys a stopped poster.
    fn doca_rdmi_poster_destroy(poster: *mut abi::doca_rdmi_poster) {
        let p = self::poster(poster)?;
        destroy_ctx(p.core.ctx())?;
        // SAFETY: checked above; only this call frees it.
        let p = unsafe { registry::unregister::<Poster, _>(poster) }?;
        release(&mut lock(&p.core.state));
        p.core.vctx.users.remove();
        Ok(())
    }

    /// The poster's DOCA context (always the same pointer).
    fn doca_rdmi_poster_as_ctx(poster: *mut abi::doca_rdmi_poster) -> *mut abi::doca_ctx {
        self::poster(poster).map_or(std::ptr::null_mut(), |p| p.core.ctx() as *mut abi::doca_ctx)
    }

    /// Sets the PD (same verbs context).
    fn doca_rdmi_poster_set_pd(poster: *mut abi::doca_rdmi_poster, pd: *mut abi::doca_verbs_pd) {
        let p = self::poster(poster)?;
        idle(p.core.ctx(), || set_pd(&mut lock(&p.core.state), &p.core.vctx, pd))
    }

    /// Attaches a DPA completion (DPA datapath, before start).
    fn doca_rdmi_poster_dpa_completion_attach(poster: *mut abi::doca_rdmi_poster, dpa_comp: *mut abi::doca_dpa_completion) {
        let p = self::poster(poster)?;
        let comp = completion_core(dpa_comp)?;
        let ctx = p.core.ctx();
        idle(ctx, || attach(&mut lock(&p.core.state), ctx, Source::Dpa(comp)))
    }

    /// Attaches a verbs CQ (before start).
    fn doca_rdmi_poster_cq_attach(poster: *mut abi::doca_rdmi_poster, cq: *mut abi::doca_verbs_cq) {
        let p = self::poster(poster)?;
        let q = self::cq(cq)?.core.clone();
        let ctx = p.core.ctx();
        idle(ctx, || attach(&mut lock(&p.core.state), ctx, Source::Cq(q)))
    }

    /// Stores a firmware-command input (before start).
    fn doca_rdmi_poster_set_input(poster: *mut abi::doca_rdmi_poster, op_type: u32, in_buf: *const c_void, size: usize) {
        let p = self::poster(poster)?;
        idle(p.core.ctx(), || set_input(&mut lock(&p.core.state), op_type, in_buf, size))
    }

    /// The DPA handle of a started poster on the DPA datapath.
    fn doca_rdmi_poster_get_dpa_handle(poster: *mut abi::doca_rdmi_poster, dpa_handle: *mut abi::doca_rdmi_dev_poster_t) {
        let p = self::poster(poster)?;
        require_dpa_running(p.core.ctx())?;
        let core = p.core.clone();
        let h = *lock(&p.core.state)
            .handle
            .get_or_insert_with(|| registry::publish(core));
        out(dpa_handle, h)
    }

    /// Host-side post: delivers `num_cqe` SEND completions (user data 0) to
    /// the poster's completion source.
    fn doca_rdmi_poster_post(poster: *mut abi::doca_rdmi_poster, cqe_buf: *mut c_void, num_cqe: u32, mkey: u32) {
        let p = self::poster(poster)?;
        let _ = mkey;
        if cqe_buf.is_null() || num_cqe == 0 {
            return Err(fail(codes::INVALID_VALUE, "empty post"));
        }
        if ctx_phase(p.core.ctx()) != ctx::states::RUNNING {
            return Err(fail(codes::BAD_STATE, "the poster is not started"));
        }
        let source = lock(&p.core.state).source.clone().ok_or(fail(codes::BAD_STATE, "no completion source"))?;
        for _ in 0..num_cqe {
            source.deliver(COMP_SEND, 0, 0)?;
        }
        p.core.posted.fetch_add(num_cqe, Ordering::AcqRel);
        Ok(())
    }
}

not_modelled! {
    /// QP-creation outputs (the on-behalf flow is not modelled).
    fn doca_rdmi_connection_set_qp_create_out(conn: *mut abi::doca_rdmi_connection, out_buf: *const c_void, size: usize);
    /// QP-modify outputs.
    fn doca_rdmi_connection_set_qp_modify_out(conn: *mut abi::doca_rdmi_connection, out_buf: *const c_void, size: usize);
    /// QP-query outputs.
    fn doca_rdmi_connection_set_qp_query_out(conn: *mut abi::doca_rdmi_connection, out_buf: *const c_void, size: usize);
}

/// The connection's DOCA context. Exported like DOCA's library does, although
/// the reference header (like DOCA's public one) does not declare it.
#[no_mangle]
pub unsafe extern "C" fn doca_rdmi_connection_as_ctx(
    conn: *mut abi::doca_rdmi_connection,
) -> *mut abi::doca_ctx {
    crate::hooks::count("doca_rdmi_connection_as_ctx");
    connection(conn).map_or(std::ptr::null_mut(), |c| c.core.ctx() as *mut abi::doca_ctx)
}

fn device_error(e: crate::error::SimError) -> c_int {
    e.code as c_int
}

/// Sim-only device function: sends `len` bytes from `data` through a poster
/// to a connection (loopback). Returns 0 or a DOCA error code (AGAIN when the
/// connection's receive window is full; INVALID_VALUE for bad handles or
/// lengths, or a poster and connection of different verbs contexts or PDs).
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_rdmi_send(
    poster: u64,
    conn: u64,
    data: *const c_void,
    len: u32,
    user_data: u32,
) -> c_int {
    let _sim = crate::trap::SimCode::enter();
    let (Some(p), Some(c)) = (
        registry::resolve::<PosterCore>(poster),
        registry::resolve::<ConnectionCore>(conn),
    ) else {
        return codes::INVALID_VALUE as c_int;
    };
    if data.is_null() && len > 0 {
        return codes::INVALID_VALUE as c_int;
    }
    if !Arc::ptr_eq(&p.vctx, &c.vctx) {
        return codes::INVALID_VALUE as c_int;
    }
    let pds = (lock(&p.state).pd.clone(), lock(&c.state).common.pd.clone());
    if let (Some(a), Some(b)) = &pds {
        if !Arc::ptr_eq(a, b) {
            return codes::INVALID_VALUE as c_int;
        }
    }
    if len as usize > SLOT_BYTES {
        return codes::INVALID_VALUE as c_int;
    }
    // The kernel's bytes are read through a probe: a bad pointer is the
    // kernel's fault (the context turns fatal), not a host crash.
    let mut bytes = [0u8; SLOT_BYTES];
    // SAFETY: `bytes` holds `len <= SLOT_BYTES` bytes; the kernel's side is
    // probed.
    let copied = unsafe { crate::trap::probe_copy(bytes.as_mut_ptr(), data.cast(), len as usize) };
    if let Err(addr) = copied {
        crate::dpa::launch::bad_address(
            "doca_sim_dev_rdmi_send",
            addr,
            crate::dpa::fault::Access::Read,
        );
        return codes::INVALID_VALUE as c_int;
    }
    if let Err(e) = c.receive(&bytes[..len as usize]) {
        return device_error(e);
    }
    p.posted.fetch_add(1, Ordering::AcqRel);
    let source = lock(&p.state).source.clone();
    match source.map(|s| s.deliver(COMP_SEND, user_data, len)) {
        Some(Err(e)) => device_error(e),
        _ => 0,
    }
}

/// Sim-only device function: the kernel is done with `n` received messages
/// (they become acknowledgeable by the host).
#[no_mangle]
pub extern "C" fn doca_sim_dev_rdmi_consume(conn: u64, n: u32) -> c_int {
    let _sim = crate::trap::SimCode::enter();
    let Some(c) = registry::resolve::<ConnectionCore>(conn) else {
        return codes::INVALID_VALUE as c_int;
    };
    let mut st = lock(&c.state);
    if st.consumed + u64::from(n) > st.received {
        return codes::INVALID_VALUE as c_int;
    }
    st.consumed += u64::from(n);
    0
}

/// Sim-only device function: address of the connection's receive buffer (a
/// host address in the sim), or 0.
#[no_mangle]
pub extern "C" fn doca_sim_dev_rdmi_rq_addr(conn: u64) -> u64 {
    let _sim = crate::trap::SimCode::enter();
    registry::resolve::<ConnectionCore>(conn)
        .map_or(0, |c| lock(&c.state).buffer.map_or(0, |(a, _)| a as u64))
}
