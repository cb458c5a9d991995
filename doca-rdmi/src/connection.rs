//! RDMI connections (`struct doca_rdmi_connection`): the receive side of
//! DPA-initiated RDMA. Configured by [`ConnectionBuilder`], used as a started
//! [`Connection`], stopped through [`StoppingConnection`].
//!
//! Every DOCA RDMI function is EXPERIMENTAL, and the parameter types of all
//! of them are inferred (no public header is known): this module compiles
//! against any integer width or pointer type the installed header uses, and
//! refuses values that do not fit instead of truncating them.

use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;

use doca_dpa::{Dpa, Keep, KernelArg, Representor, Result};
use doca_rdmi_sys as sys;

use crate::ctx::{CompletionSource, Config, Object};
use crate::error::{fit, invalid, rdmi_call};
use crate::param;
use doca_verbs::VerbsContext;

/// Bytes per receive slot in the software DPA (a model choice of doca-sim:
/// DOCA's real receive layout is not public). On the sim it is the default
/// slot size of a [`ReceiveBuffer`]; see [`ReceiveBuffer::default_slot_bytes`].
pub const SIM_SLOT_BYTES: usize = 64;

const PAGE: usize = 4096;

/// The memory a connection receives into (its "RQ window"): zeroed,
/// page-aligned, owned.
///
/// A [`ConnectionBuilder`] takes it by value and the connection keeps it
/// until it is destroyed, so the memory cannot be freed or moved while the
/// device may write it; [`Connection::stop`] hands it back. If a connection
/// cannot be destroyed (DOCA keeps refusing), its buffer is leaked rather
/// than freed.
pub struct ReceiveBuffer {
    ptr: NonNull<u8>,
    len: usize,
    slot_bytes: usize,
}

// SAFETY: the buffer is uniquely owned heap memory; it is only shared with
// DOCA while a connection (which is neither Send nor Sync) holds it.
unsafe impl Send for ReceiveBuffer {}
// SAFETY: `&ReceiveBuffer` only reads.
unsafe impl Sync for ReceiveBuffer {}

impl ReceiveBuffer {
    /// The slot size the installed DOCA receives in, when it says: on the
    /// software DPA its model ([`SIM_SLOT_BYTES`]). DOCA does not publish
    /// its receive layout, so on hardware this is
    /// [`Error::Unavailable`](doca_dpa::Error::Unavailable): the size is the
    /// one the kernel and the receive side agree on, given with
    /// [`ReceiveBuffer::with_slot_bytes`].
    pub fn default_slot_bytes() -> Result<usize> {
        #[cfg(doca_backend = "sim")]
        {
            const _: () = assert!(SIM_SLOT_BYTES == sys::sim::RECEIVE_SLOT_BYTES);
            Ok(sys::sim::RECEIVE_SLOT_BYTES)
        }
        #[cfg(not(doca_backend = "sim"))]
        {
            Err(doca_dpa::Error::Unavailable {
                what: "a default RDMI receive slot size",
                reason: "the installed DOCA does not publish its receive layout; \
                         give the slot size your kernel uses to ReceiveBuffer::with_slot_bytes"
                    .to_owned(),
            })
        }
    }

    /// `len` zeroed bytes, cut into slots of
    /// [`ReceiveBuffer::default_slot_bytes`] (software DPA only; on hardware
    /// use [`ReceiveBuffer::with_slot_bytes`]). `len` must not be 0 (DOCA
    /// refuses an empty receive buffer).
    pub fn new(len: usize) -> Result<ReceiveBuffer> {
        ReceiveBuffer::with_slot_bytes(len, ReceiveBuffer::default_slot_bytes()?)
    }

    /// `slots` slots of [`ReceiveBuffer::default_slot_bytes`] bytes (software
    /// DPA only, like [`ReceiveBuffer::new`]).
    pub fn with_slots(slots: usize) -> Result<ReceiveBuffer> {
        let slot_bytes = ReceiveBuffer::default_slot_bytes()?;
        let len = slots
            .checked_mul(slot_bytes)
            .ok_or_else(|| invalid("doca_rdmi_connection_init_receive", "buffer size overflows"))?;
        ReceiveBuffer::with_slot_bytes(len, slot_bytes)
    }

    /// `len` zeroed bytes read back in slots of `slot_bytes` (the layout the
    /// kernel and the device agree on).
    pub fn with_slot_bytes(len: usize, slot_bytes: usize) -> Result<ReceiveBuffer> {
        const CALL: &str = "doca_rdmi_connection_init_receive";
        if len == 0 {
            return Err(invalid(CALL, "the receive buffer is empty"));
        }
        if slot_bytes == 0 || slot_bytes > len {
            return Err(invalid(
                CALL,
                format!("slots of {slot_bytes} bytes do not fit a {len}-byte buffer"),
            ));
        }
        let layout = std::alloc::Layout::from_size_align(len, PAGE)
            .map_err(|_| invalid(CALL, format!("a {len}-byte buffer is too large")))?;
        // SAFETY: `layout` has a non-zero size.
        let raw = unsafe { std::alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            return Err(invalid(
                CALL,
                format!("the host could not allocate a {len}-byte receive buffer"),
            ));
        };
        Ok(ReceiveBuffer {
            ptr,
            len,
            slot_bytes,
        })
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false (an empty buffer cannot be made); for clippy's sake.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes per slot.
    pub fn slot_bytes(&self) -> usize {
        self.slot_bytes
    }

    /// Number of whole slots.
    pub fn slots(&self) -> usize {
        self.len / self.slot_bytes
    }

    /// The contents (the buffer is not in use by a connection).
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `len` initialised bytes owned by `self`; no connection
        // holds them while a `ReceiveBuffer` is reachable by the caller.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The contents, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` is unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    /// Slot `index`, or `None` past the end.
    pub fn slot(&self, index: usize) -> Option<&[u8]> {
        let start = index.checked_mul(self.slot_bytes)?;
        self.as_slice()
            .get(start..start.checked_add(self.slot_bytes)?)
    }

    /// Copies slot `index` with volatile reads (the device may be writing
    /// other slots of a buffer DOCA holds).
    fn read_slot(&self, index: usize, out: &mut [u8]) -> Result<()> {
        if index >= self.slots() {
            return Err(invalid(
                "Connection::received",
                format!(
                    "slot {index} is past the {} slots of the receive buffer",
                    self.slots()
                ),
            ));
        }
        if out.len() > self.slot_bytes {
            return Err(invalid(
                "Connection::received",
                format!(
                    "{} bytes asked from a {}-byte slot",
                    out.len(),
                    self.slot_bytes
                ),
            ));
        }
        let base = self.ptr.as_ptr().wrapping_add(index * self.slot_bytes);
        for (i, b) in out.iter_mut().enumerate() {
            // SAFETY: `index * slot_bytes + i < len`, inside our allocation.
            *b = unsafe { base.add(i).read_volatile() };
        }
        Ok(())
    }
}

impl Drop for ReceiveBuffer {
    fn drop(&mut self) {
        if let Ok(layout) = std::alloc::Layout::from_size_align(self.len, PAGE) {
            // SAFETY: allocated in `with_slot_bytes` with this layout, freed once.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

impl fmt::Debug for ReceiveBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReceiveBuffer")
            .field("len", &self.len)
            .field("slot_bytes", &self.slot_bytes)
            .finish()
    }
}

/// Where the receive buffer is as a DPA kernel must address it
/// (`doca_rdmi_connection_get_app_rq_info`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AppRqInfo {
    /// Memory key of the receive buffer.
    pub mkey: u32,
    /// Offset of the receive area within that memory.
    pub offset: u64,
    /// Size of the receive area in bytes.
    pub size: u64,
}

/// What a connection uses besides its configuration: dropped only once it is
/// destroyed (buried otherwise).
pub(crate) struct ConnUses {
    /// Given to DOCA by `init_receive`; taken back only once destroyed.
    receive: Option<ReceiveBuffer>,
    rep: Representor,
}

crate::ctx::rdmi_kind!(
    /// `doca_rdmi_connection`.
    RawConnection: doca_rdmi_connection, named "connection", uses ConnUses;
    create doca_rdmi_connection_create by create, configure by init_receive;
    hands back ReceiveBuffer, by take_buffer;
    destroy doca_rdmi_connection_destroy,
    as_ctx doca_rdmi_connection_as_ctx,
    set_pd doca_rdmi_connection_set_pd if "doca_rdmi_connection_set_pd",
    dpa_completion_attach doca_rdmi_connection_dpa_completion_attach,
    cq_attach doca_rdmi_connection_cq_attach,
    set_input doca_rdmi_connection_set_input if "doca_rdmi_connection_set_input",
    get_dpa_handle doca_rdmi_connection_get_dpa_handle,
);

/// `doca_rdmi_connection_create` on the verbs context and representor, which
/// the caller holds.
fn create(config: &Config, uses: &ConnUses) -> Result<*mut sys::doca_rdmi_connection> {
    let mut raw = std::ptr::null_mut();
    // The verbs context's lock, then the representor's device's (the order).
    let verbs = config.verbs.lock();
    let rep = uses.rep.lock();
    // SAFETY: a live verbs context and representor (held by the caller), under
    // their locks; valid out-pointer.
    unsafe {
        rdmi_call!(doca_rdmi_connection_create(
            config.verbs.as_ptr(&verbs),
            uses.rep.as_ptr(&rep).cast(),
            &mut raw
        ))
    }?;
    Ok(raw)
}

/// The receive buffer of a destroyed connection, which the device no longer writes.
fn take_buffer(uses: &mut ConnUses) -> Result<ReceiveBuffer> {
    uses.receive.take().ok_or_else(|| {
        invalid(
            "doca_rdmi_connection_destroy",
            "the receive buffer was already returned",
        )
    })
}

/// `doca_rdmi_connection_init_receive`: the connection receives into its buffer.
///
/// # Safety
/// `p` is an idle connection; `uses` (its buffer) outlives it.
unsafe fn init_receive(p: *mut sys::doca_rdmi_connection, uses: &ConnUses) -> Result<()> {
    const INIT: &str = "doca_rdmi_connection_init_receive";
    let buffer = uses
        .receive
        .as_ref()
        .ok_or_else(|| invalid(INIT, "no receive buffer"))?;
    let size = fit(INIT, "size", buffer.len)?;
    // SAFETY: an idle connection; the buffer outlives it (freed only after the
    // destroy, buried if the destroy fails).
    unsafe {
        rdmi_call!(doca_rdmi_connection_init_receive(
            p,
            buffer.ptr.as_ptr().cast(),
            size
        ))
    }
}

/// A connection and everything it must outlive or keep alive (the shared RDMI
/// object, `ctx.rs`): stopped and destroyed before its receive buffer is freed and
/// its configuration and representor go.
pub(crate) type ConnInner = Object<RawConnection>;

/// A connection kept alive by a poster that works with it.
pub(crate) type SharedConnection = Arc<ConnInner>;

impl ConnInner {
    fn recv_ack(&self, n: u32) -> Result<()> {
        const CALL: &str = "doca_rdmi_connection_recv_ack";
        let n = fit(CALL, "num_acked", n)?;
        self.raw().with(|p, _| {
            // SAFETY: a started (or stopping) connection of ours, under its
            // family's lock.
            unsafe { rdmi_call!(doca_rdmi_connection_recv_ack(p, n)) }
        })?
    }

    fn receive(&self) -> Option<&ReceiveBuffer> {
        self.uses().receive.as_ref()
    }

    fn read_slot(&self, slot: usize, out: &mut [u8]) -> Result<()> {
        match self.receive() {
            Some(b) => b.read_slot(slot, out),
            None => Err(invalid(
                "Connection::received",
                "the connection has no receive buffer",
            )),
        }
    }

    fn received(&self, slot: usize) -> Result<Vec<u8>> {
        let len = self.receive().map_or(0, ReceiveBuffer::slot_bytes);
        let mut out = vec![0; len];
        self.read_slot(slot, &mut out)?;
        Ok(out)
    }
}

/// An RDMI connection being configured. Nothing is asked of DOCA until
/// [`ConnectionBuilder::start`], which makes every configuration call in the
/// documented order and starts the connection.
///
/// A builder has no DPA handle — it exists only once started:
///
/// ```compile_fail
/// # fn f(b: doca_rdmi::ConnectionBuilder) {
/// let h = b.dpa_handle(); // handle before start
/// # }
/// ```
#[derive(Debug)]
pub struct ConnectionBuilder {
    config: Config,
    rep: Representor,
    receive: ReceiveBuffer,
}

impl ConnectionBuilder {
    /// A connection on `verbs` serving `rep`, driven by kernels of
    /// `datapath`, delivering completions to `source`, receiving into
    /// `receive`; the connection keeps all of them alive (and owns the
    /// buffer). No DOCA call.
    pub fn new(
        verbs: &VerbsContext,
        rep: &Representor,
        datapath: &Dpa,
        source: CompletionSource<'_>,
        receive: ReceiveBuffer,
    ) -> ConnectionBuilder {
        ConnectionBuilder {
            config: Config::new(verbs, datapath, source),
            rep: rep.clone(),
            receive,
        }
    }

    crate::ctx::builder_methods!(
        "connection",
        Connection,
        set_pd "doca_rdmi_connection_set_pd",
        set_input "doca_rdmi_connection_set_input"
    );

    /// Creates, configures and starts the connection:
    /// `doca_rdmi_connection_create`, `doca_rdmi_connection_set_pd` (if a PD
    /// was given), `doca_rdmi_connection_as_ctx` (declared by hand when the
    /// header lacks it), `doca_ctx_set_datapath_on_dpa`,
    /// `doca_rdmi_connection_dpa_completion_attach` or
    /// `doca_rdmi_connection_cq_attach`, `doca_rdmi_connection_init_receive`,
    /// `doca_rdmi_connection_set_input` for each input, `doca_ctx_start`,
    /// then `doca_rdmi_connection_get_dpa_handle`. All EXPERIMENTAL except
    /// `doca_ctx_start` (STABLE).
    ///
    /// On failure everything made so far is destroyed (and the receive
    /// buffer freed afterwards).
    pub fn start(self) -> Result<Connection> {
        let uses = ConnUses {
            receive: Some(self.receive),
            rep: self.rep,
        };
        Ok(Connection {
            inner: Object::start(self.config, uses)?,
        })
    }
}

/// A started RDMI connection: the only state that has a DPA handle and
/// acknowledges receives. The handle reaches kernels only through the connection
/// itself (a [`param::RdmiConnection`] argument or a `Dev`), which keeps it alive.
///
/// Configuration belongs to the builder, so it cannot happen after start:
///
/// ```compile_fail
/// # fn f(conn: doca_rdmi::Connection, pd: &doca_rdmi::ProtectionDomain) {
/// let conn = conn.pd(pd); // attach after start: no such method
/// # }
/// ```
///
/// A connection is stopped and destroyed (waiting out IN_PROGRESS for at most the
/// stop timeout), and then its receive buffer freed, only once nothing uses it:
/// launches, DPA threads, DPA structs and posters given it hold it. An explicit
/// [`Connection::stop`] while they do fails with `InUse`. Failures in `Drop` are
/// logged, never panicked on.
pub struct Connection {
    inner: Arc<ConnInner>,
}

// The buffer is plain owned memory; the objects that hand it to DOCA are
// bound to their thread like the DPA context they run on.
static_assertions::assert_impl_all!(ReceiveBuffer: Send, Sync);

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("handle", &self.inner.handle())
            .field("receive", &self.inner.receive())
            .finish_non_exhaustive()
    }
}

impl Connection {
    crate::ctx::started_methods!(
        "connection",
        Connection,
        StoppingConnection,
        stops into ReceiveBuffer,
        " It hands back the receive buffer, which the device no longer writes. To keep \
         acknowledging receives while an asynchronous stop drains, use \
         [`Connection::request_stop`]."
    );

    pub(crate) fn shared(&self) -> SharedConnection {
        self.inner.clone()
    }

    /// The DPA context whose kernels drive it (its datapath). No DOCA call.
    pub fn datapath(&self) -> &Dpa {
        &self.inner.config().dpa
    }

    /// Releases `n` receive slots the DPA kernel consumed
    /// (`doca_rdmi_connection_recv_ack`, EXPERIMENTAL). DOCA reports no
    /// error for slots never acknowledged: the receive window just runs dry.
    #[cfg(doca_sym = "doca_rdmi_connection_recv_ack")]
    pub fn recv_ack(&self, n: u32) -> Result<()> {
        self.inner.recv_ack(n)
    }

    /// Where the receive buffer is for a DPA kernel: memory key, offset, size
    /// (`doca_rdmi_connection_get_app_rq_info`, EXPERIMENTAL).
    #[cfg(doca_sym = "doca_rdmi_connection_get_app_rq_info")]
    pub fn app_rq_info(&self) -> Result<AppRqInfo> {
        const CALL: &str = "doca_rdmi_connection_get_app_rq_info";
        let (mut mkey, mut offset, mut size) = (0, 0, 0);
        // SAFETY: our connection, under its family's lock; valid out-pointers.
        self.inner.raw().with(|p, _| unsafe {
            rdmi_call!(doca_rdmi_connection_get_app_rq_info(
                p,
                &mut mkey,
                &mut offset,
                &mut size
            ))
        })??;
        Ok(AppRqInfo {
            mkey: crate::error::widen(CALL, "mkey", mkey)?,
            offset: crate::error::widen(CALL, "offset", offset)?,
            size: crate::error::widen(CALL, "size", size)?,
        })
    }

    /// A copy of receive slot `slot` (of [`ReceiveBuffer::slot_bytes`]
    /// bytes).
    ///
    /// Read a slot after the kernel reported the message in it and before
    /// acknowledging it: DOCA may reuse acknowledged slots at any time. The
    /// copy is made with volatile reads, so no reference into memory the
    /// device writes is ever handed out; [`Connection::stop`] gives the whole
    /// buffer back for direct access.
    pub fn received(&self, slot: usize) -> Result<Vec<u8>> {
        self.inner.received(slot)
    }

    /// Like [`Connection::received`], into `out` (at most one slot).
    pub fn read_slot(&self, slot: usize, out: &mut [u8]) -> Result<()> {
        self.inner.read_slot(slot, out)
    }

    /// Size of the receive buffer in bytes.
    pub fn receive_len(&self) -> usize {
        self.inner.receive().map_or(0, ReceiveBuffer::len)
    }

    /// Bytes per receive slot.
    pub fn slot_bytes(&self) -> usize {
        self.inner.receive().map_or(0, ReceiveBuffer::slot_bytes)
    }

    /// The raw `doca_rdmi_connection`, for calls this crate does not wrap, made
    /// while `guard` (of its datapath's context family:
    /// [`Dpa::enter`](doca_dpa::Dpa::enter)) lives; valid while this value lives.
    /// Do not stop or destroy it.
    pub fn as_ptr(&self, guard: &doca_dpa::FamilyGuard<'_>) -> *mut sys::doca_rdmi_connection {
        self.inner.raw().get(guard)
    }

    /// The raw `doca_ctx` of the connection (from
    /// `doca_rdmi_connection_as_ctx`), for calls made while `guard` (as for
    /// [`Connection::as_ptr`]) lives; valid while this value lives. Do not stop
    /// or destroy it.
    pub fn ctx_ptr(
        &self,
        guard: &doca_dpa::FamilyGuard<'_>,
    ) -> Result<*mut doca_dpa_sys::doca_ctx> {
        Ok(self.inner.ctx()?.as_ptr(guard))
    }
}

/// A connection whose stop was requested: it may still be draining
/// (`DOCA_CTX_STATE_STOPPING`) and accepts acknowledgements, but has no DPA
/// handle any more.
#[derive(Debug)]
pub struct StoppingConnection {
    inner: Box<ConnInner>,
}

impl StoppingConnection {
    crate::ctx::stopping_methods!(
        "connection",
        StoppingConnection,
        hands back ReceiveBuffer,
        " and hands back the receive buffer"
    );

    /// Acknowledges receives while the stop drains
    /// (`doca_rdmi_connection_recv_ack`, EXPERIMENTAL).
    #[cfg(doca_sym = "doca_rdmi_connection_recv_ack")]
    pub fn recv_ack(&self, n: u32) -> Result<()> {
        self.inner.recv_ack(n)
    }

    /// A copy of receive slot `slot`, as [`Connection::received`].
    pub fn received(&self, slot: usize) -> Result<Vec<u8>> {
        self.inner.received(slot)
    }
}

// SAFETY: the started connection's DPA handle; the keep record holds the connection
// (and so its receive buffer, completion and contexts).
unsafe impl KernelArg<param::RdmiConnection> for Connection {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        self.inner.lower(keep, "the RDMI connection")
    }
}
