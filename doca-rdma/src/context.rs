//! DOCA RDMA contexts on the DPA datapath (`struct doca_rdma`) and their
//! connections (`struct doca_rdma_connection`).
//!
//! [`RdmaBuilder`] → [`Rdma`]: the builder takes the DPA context the datapath runs
//! on and the DPA completion the context reports to, so that neither can be
//! missing at start, nor attached after it; configuration exists only before the
//! start, handles and connections only after it:
//!
//! ```compile_fail
//! # fn f(rdma: &doca_rdma::Rdma) {
//! let rdma = rdma.max_connections(2); // configuration belongs to RdmaBuilder
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f(builder: &doca_rdma::RdmaBuilder) {
//! let connection = builder.export(); // connections exist once started
//! # }
//! ```
//!
//! [`Rdma::export`] → [`PendingConnection`] → [`Connection`]: a connection's
//! details go to the peer, the peer's come back, and only a connected connection
//! is a kernel argument:
//!
//! ```compile_fail
//! # fn f(pending: &doca_rdma::PendingConnection) {
//! let arg = doca_dpa::Dev::<doca_dpa::param::Rdma>::new(pending);
//! # }
//! ```

use std::fmt;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use doca_dpa::core::{sole, DocaObject, Owned, Raw, Stoppable};
use doca_dpa::{
    param, AccessFlags, Completion, Dpa, FamilyMember, Keep, KeepAlive, KernelArg, Member, Result,
};
use doca_dpa_sys as dsys;
use doca_rdma_sys as sys;

use crate::error::{core_call, invalid, rdma_call};

/// `doca_rdma`: destroyed with `doca_rdma_destroy`, stopped as its `doca_ctx`.
enum RawRdma {}

// SAFETY: `destroy` calls `doca_rdma_destroy`, which `DESTROY` names, on the object
// it is given, and nothing else.
unsafe impl DocaObject for RawRdma {
    type Raw = sys::doca_rdma;
    const DESTROY: &'static str = "doca_rdma_destroy";
    unsafe fn destroy(p: *mut sys::doca_rdma) -> dsys::doca_error_t {
        // SAFETY: per the trait's contract, the caller's: a live, stopped context.
        unsafe { sys::doca_rdma_destroy(p) }
    }
}

// SAFETY: `stop` stops the object's own context (`doca_rdma_as_ctx` gives the same
// pointer for the object's whole life) with `doca_ctx_stop`, which `STOP` names;
// DOCA_SUCCESS means it no longer runs (IN_PROGRESS is an error here: the owner
// then leaves it alive, with what it uses).
unsafe impl Stoppable for RawRdma {
    const STOP: &'static str = "doca_ctx_stop";
    unsafe fn stop(p: *mut sys::doca_rdma) -> dsys::doca_error_t {
        // SAFETY: per the trait's contract, the caller's: a live, started context.
        unsafe { dsys::doca_ctx_stop(sys::doca_rdma_as_ctx(p)) }
    }
}

/// What a started context is: its DOCA object and what it must outlive.
struct RdmaInner {
    raw: Owned<RawRdma>,
    handle: u64,
    dpa: Dpa,
    completion: Completion,
    /// Set once the teardown left the object alive and what it uses was buried.
    buried: bool,
    /// How many connections were exported (DOCA's connection ids count from 0).
    exported: Mutex<u32>,
}

impl RdmaInner {
    /// Stops and destroys the context under its DPA context family's guard
    /// (`Owned::teardown`); when it cannot be stopped, buries what it uses (the
    /// DPA completion it reports to, the DPA context it runs on).
    fn teardown(&mut self) -> Result<()> {
        let outcome = self.raw.teardown();
        if !outcome.stopped() && !self.buried {
            self.buried = true;
            doca_dpa::core::bury((self.dpa.clone(), self.completion.clone()));
        }
        outcome.into_result()
    }
}

// Held in a `Member`: a drop by a thread that holds the family's lock while an
// RPC of the family runs is handed to the family, which tears the context down
// once the RPC ended.
impl FamilyMember for RdmaInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for RdmaInner {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            tracing::warn!(target: "doca_rdma::context", error = %e, "tearing a DOCA RDMA context down during drop failed (it and what it uses are leaked unless it was destroyed)");
        }
    }
}

/// The configuration of a DOCA RDMA context before its start.
///
/// Made with the DPA context its datapath runs on and the DPA completion context it
/// reports to (both required, both fixed at start); the setters record values that
/// [`RdmaBuilder::start`] hands to DOCA. Unset values are DOCA's defaults.
pub struct RdmaBuilder {
    dpa: Dpa,
    completion: Completion,
    permissions: Option<AccessFlags>,
    grh: Option<bool>,
    gid_index: Option<u32>,
    send_queue: Option<u32>,
    recv_queue: Option<u32>,
    max_connections: Option<u16>,
}

impl fmt::Debug for RdmaBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RdmaBuilder")
            .field("dpa", &self.dpa.serial())
            .field("permissions", &self.permissions)
            .field("grh", &self.grh)
            .field("gid_index", &self.gid_index)
            .field("send_queue", &self.send_queue)
            .field("recv_queue", &self.recv_queue)
            .field("max_connections", &self.max_connections)
            .finish()
    }
}

/// A queue size DOCA takes: not 0 (DOCA rounds the others up to a power of two).
fn queue_size(call: &'static str, size: u32) -> Result<u32> {
    if size == 0 {
        return Err(invalid(call, "a queue size of 0"));
    }
    Ok(size)
}

/// Refuses a `queue` queue of `size` entries beyond `max`, the device's bound.
fn within_capability(setter: &'static str, queue: &str, size: u32, max: u32) -> Result<()> {
    if size > max {
        return Err(invalid(
            setter,
            format!("a {queue} queue of {size} entries, where the device takes at most {max}"),
        ));
    }
    Ok(())
}

impl RdmaBuilder {
    /// A context whose datapath runs on `dpa` (on its device: for a device other
    /// than the one `dpa`'s base context runs on, give the context extended onto
    /// it, [`Dpa::extend`]) and that reports completions to `completion`, a started
    /// DPA completion of `dpa` (refused before any DOCA call otherwise). No DOCA
    /// call: everything is made by [`RdmaBuilder::start`].
    pub fn new(dpa: &Dpa, completion: &Completion) -> Result<RdmaBuilder> {
        if !completion.dpa().same_context(dpa) {
            return Err(invalid(
                "doca_rdma_dpa_completion_attach",
                format!(
                    "the DPA completion belongs to DPA context #{}, not to DPA context #{} the \
                     RDMA datapath runs on",
                    completion.dpa().serial(),
                    dpa.serial()
                ),
            ));
        }
        Ok(RdmaBuilder {
            dpa: dpa.clone(),
            completion: completion.clone(),
            permissions: None,
            grh: None,
            gid_index: None,
            send_queue: None,
            recv_queue: None,
            max_connections: None,
        })
    }

    /// What a peer may do to this side's memory through the context's connections
    /// (`doca_rdma_set_permissions`, at start).
    pub fn permissions(mut self, access: AccessFlags) -> Self {
        self.permissions = Some(access);
        self
    }

    /// Whether connections carry a global route header (`doca_rdma_set_grh_enabled`,
    /// at start): RoCE needs one.
    pub fn grh(mut self, enabled: bool) -> Self {
        self.grh = Some(enabled);
        self
    }

    /// The device's GID table entry the context's connections use
    /// (`doca_rdma_set_gid_index`, at start).
    pub fn gid_index(mut self, index: u32) -> Self {
        self.gid_index = Some(index);
        self
    }

    /// The send queue size (`doca_rdma_set_send_queue_size`, at start; DOCA rounds
    /// it up to a power of two). 0 is refused here, a size beyond the device's
    /// `doca_rdma_cap_get_max_send_queue_size` by [`RdmaBuilder::start`].
    pub fn send_queue_size(mut self, size: u32) -> Result<Self> {
        self.send_queue = Some(queue_size("doca_rdma_set_send_queue_size", size)?);
        Ok(self)
    }

    /// The receive queue size: how many receives kernels may have posted and not
    /// yet filled (`doca_rdma_set_recv_queue_size`, at start; DOCA rounds it up to
    /// a power of two). 0 is refused here, a size beyond the device's
    /// `doca_rdma_cap_get_max_recv_queue_size` by [`RdmaBuilder::start`].
    pub fn recv_queue_size(mut self, size: u32) -> Result<Self> {
        self.recv_queue = Some(queue_size("doca_rdma_set_recv_queue_size", size)?);
        Ok(self)
    }

    /// How many connections [`Rdma::export`] may make
    /// (`doca_rdma_set_max_num_connections`, at start). 0 is refused.
    pub fn max_connections(mut self, count: u16) -> Result<Self> {
        if count == 0 {
            return Err(invalid(
                "doca_rdma_set_max_num_connections",
                "a context needs at least one connection",
            ));
        }
        self.max_connections = Some(count);
        Ok(self)
    }

    /// Checks the queue sizes given against the device's capabilities
    /// (`doca_rdma_cap_get_max_send_queue_size`,
    /// `doca_rdma_cap_get_max_recv_queue_size`: a size beyond them is refused
    /// before anything is made), creates the context on the DPA context's device
    /// (`doca_rdma_create`), configures it (`doca_rdma_as_ctx` and the setters given, then
    /// `doca_ctx_set_datapath_on_dpa` and `doca_rdma_dpa_completion_attach`), starts
    /// it (`doca_ctx_start`) and reads its DPA handle (`doca_rdma_get_dpa_handle`);
    /// all EXPERIMENTAL but `doca_ctx_start`. Every call is made at the DPA
    /// context family's guard. On a failure everything made so far is destroyed.
    pub fn start(self) -> Result<Rdma> {
        let mut raw = std::ptr::null_mut();
        {
            let device = self.dpa.device();
            let dev = device.lock();
            self.check_queue_sizes(device.devinfo(&dev))?;
            // SAFETY: an open device (the DPA context keeps it open), under its
            // lock; valid out-pointer.
            unsafe { rdma_call!(doca_rdma_create(device.as_ptr(&dev), &mut raw)) }?;
        }
        let mut inner = Member::new(RdmaInner {
            // SAFETY: what doca_rdma_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its DPA context's family.
            raw: unsafe { Owned::new("doca_rdma_create", raw, self.dpa.domain()) }?,
            handle: 0,
            dpa: self.dpa.clone(),
            completion: self.completion.clone(),
            buried: false,
            exported: Mutex::new(0),
        });
        let handle = self
            .dpa
            .with_ctx(|dpa, guard| self.configure(&mut inner.raw, dpa, guard))?;
        inner.handle = handle;
        tracing::debug!(target: "doca_rdma::context", dpa = self.dpa.serial(), "DOCA RDMA context started");
        Ok(Rdma {
            inner: Arc::new(inner),
        })
    }

    /// Refuses a queue size beyond what the device takes
    /// (`doca_rdma_cap_get_max_send_queue_size`,
    /// `doca_rdma_cap_get_max_recv_queue_size`), before anything is made: the
    /// error names the size, the bound and the setter, where DOCA would fail
    /// `doca_ctx_start` or the setter with a bare code.
    fn check_queue_sizes(&self, devinfo: *mut dsys::doca_devinfo) -> Result<()> {
        if let Some(size) = self.send_queue {
            let mut max = 0u32;
            // SAFETY: the devinfo of an open device (the caller holds the device's
            // lock, and the DPA context keeps the device open); valid out-pointer.
            unsafe { rdma_call!(doca_rdma_cap_get_max_send_queue_size(devinfo, &mut max)) }?;
            within_capability("doca_rdma_set_send_queue_size", "send", size, max)?;
        }
        if let Some(size) = self.recv_queue {
            let mut max = 0u32;
            // SAFETY: as above.
            unsafe { rdma_call!(doca_rdma_cap_get_max_recv_queue_size(devinfo, &mut max)) }?;
            within_capability("doca_rdma_set_recv_queue_size", "receive", size, max)?;
        }
        Ok(())
    }

    /// The calls of [`RdmaBuilder::start`] after the create, in DOCA's order, on
    /// `raw` (idle, ours) and the DPA context `dpa` (started), under the family's
    /// `guard`.
    fn configure(
        &self,
        raw: &mut Owned<RawRdma>,
        dpa: *mut dsys::doca_dpa,
        guard: &doca_dpa::FamilyGuard<'_>,
    ) -> Result<u64> {
        let p = raw.as_ptr(guard);
        // SAFETY: our live context.
        let ctx = unsafe { sys::doca_rdma_as_ctx(p) };
        if ctx.is_null() {
            return Err(invalid("doca_rdma_as_ctx", "DOCA returned no context"));
        }
        if let Some(access) = self.permissions {
            // SAFETY: our idle context; flags of `enum doca_access_flag`.
            unsafe { rdma_call!(doca_rdma_set_permissions(p, access.bits())) }?;
        }
        if let Some(grh) = self.grh {
            // SAFETY: our idle context.
            unsafe { rdma_call!(doca_rdma_set_grh_enabled(p, u8::from(grh))) }?;
        }
        if let Some(index) = self.gid_index {
            // SAFETY: our idle context.
            unsafe { rdma_call!(doca_rdma_set_gid_index(p, index)) }?;
        }
        if let Some(size) = self.send_queue {
            // SAFETY: our idle context.
            unsafe { rdma_call!(doca_rdma_set_send_queue_size(p, size)) }?;
        }
        if let Some(size) = self.recv_queue {
            // SAFETY: our idle context.
            unsafe { rdma_call!(doca_rdma_set_recv_queue_size(p, size)) }?;
        }
        if let Some(count) = self.max_connections {
            // SAFETY: our idle context.
            unsafe { rdma_call!(doca_rdma_set_max_num_connections(p, count)) }?;
        }
        // SAFETY: the idle context of our object and a started DPA context, which
        // the started object keeps alive (`RdmaInner::dpa`).
        unsafe { core_call!(doca_ctx_set_datapath_on_dpa(ctx, dpa)) }?;
        let completion = self.completion.as_ptr(guard);
        // SAFETY: our idle context on the DPA datapath and a started completion of
        // that DPA context (checked by `new`), kept alive by the started object.
        unsafe { rdma_call!(doca_rdma_dpa_completion_attach(p, completion)) }?;
        // SAFETY: our configured context.
        unsafe { core_call!(doca_ctx_start(ctx)) }?;
        raw.set_started();
        let mut handle = 0;
        // SAFETY: our started context on the DPA datapath; valid out-pointer.
        unsafe { rdma_call!(doca_rdma_get_dpa_handle(p, &mut handle)) }?;
        Ok(handle as u64)
    }
}

/// A started DOCA RDMA context on the DPA datapath.
///
/// Kernels post on its connections with the calls of `doca_dpa_dev_rdma.h`, given
/// the context (or one of its [`Connection`]s) for a `doca_dpa_dev_rdma_t`
/// parameter and a connection's [`id`](Connection::id) for `connection_id`. What a
/// kernel, DPA thread or DPA struct is given it keeps alive until the device is
/// known to be done; so do its connections. It is stopped and destroyed
/// (`doca_ctx_stop`, `doca_rdma_destroy`) when the last of them goes, or by
/// [`Rdma::stop`], which refuses while any of them holds it.
pub struct Rdma {
    inner: Arc<Member<RdmaInner>>,
}

impl fmt::Debug for Rdma {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rdma")
            .field("dpa", &self.inner.dpa.serial())
            .finish_non_exhaustive()
    }
}

impl Rdma {
    /// Exports a new connection (`doca_rdma_export`, then
    /// `doca_rdma_connection_get_id`; EXPERIMENTAL): its details go to the peer, and
    /// the peer's details connect it ([`PendingConnection::connect`]). DOCA refuses
    /// one more than [`RdmaBuilder::max_connections`] allows (`DOCA_ERROR_FULL`).
    pub fn export(&self) -> Result<PendingConnection> {
        let (details, conn, id) = self.inner.dpa.with_ctx(|_, g| {
            let p = self.inner.raw.as_ptr(g);
            let mut details = std::ptr::null();
            let mut len = 0usize;
            let mut conn = std::ptr::null_mut();
            // SAFETY: our started context; valid out-pointers.
            unsafe { rdma_call!(doca_rdma_export(p, &mut details, &mut len, &mut conn)) }?;
            let conn = NonNull::new(conn)
                .ok_or_else(|| invalid("doca_rdma_export", "DOCA returned no connection"))?;
            // SAFETY: DOCA hands back `len` bytes it owns while the connection lives
            // (the context runs: `self` holds it); copied at once.
            let details =
                unsafe { doca_dpa::core::copy_out("doca_rdma_export", details.cast(), len) }?;
            let mut id = 0;
            // SAFETY: the connection DOCA just made; valid out-pointer.
            unsafe { rdma_call!(doca_rdma_connection_get_id(conn.as_ptr(), &mut id)) }?;
            // SAFETY: the connection's calls are the context's family's (it is the
            // context's), reached through this handle only.
            let conn: Raw<sys::doca_rdma_connection> = unsafe { self.inner.dpa.domain().raw(conn) };
            Ok((details, conn, id))
        })?;
        *self
            .inner
            .exported
            .lock()
            .unwrap_or_else(|p| p.into_inner()) += 1;
        Ok(PendingConnection {
            link: Link {
                rdma: self.inner.clone(),
                raw: conn,
                id,
                details,
            },
        })
    }

    /// How many connections this context exported (no DOCA call).
    pub fn exported(&self) -> u32 {
        *self
            .inner
            .exported
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The DPA context the datapath runs on.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }

    /// The DPA completion context it reports to.
    pub fn completion(&self) -> &Completion {
        &self.inner.completion
    }

    /// The DPA handle (`doca_rdma_get_dpa_handle`, read by the start).
    ///
    /// # Safety
    /// The value keeps nothing alive: handing it to the device is sound only while
    /// the context is kept alive by other means (pass the context itself as the
    /// kernel argument instead).
    pub unsafe fn raw_handle(&self) -> u64 {
        self.inner.handle
    }

    /// The raw `doca_rdma`, for calls this crate does not wrap, made while
    /// `guard` (of its DPA context's family: [`Dpa::enter`]) lives. Valid while
    /// this context lives; do not stop or destroy it.
    pub fn as_ptr(&self, guard: &doca_dpa::FamilyGuard<'_>) -> *mut sys::doca_rdma {
        self.inner.raw.as_ptr(guard)
    }

    /// Stops and destroys the context (`doca_ctx_stop`, `doca_rdma_destroy`) at its
    /// DPA context family's guard. Refused with [`doca_dpa::Error::InUse`] while
    /// connections, launches, DPA threads or DPA structs hold it: the context comes
    /// back in the error, running. A failed stop leaves the context, and what it
    /// uses, alive for good (leaked): the device may still use them.
    pub fn stop(self) -> std::result::Result<(), StopError> {
        let mut inner = sole(self.inner, "doca_ctx_stop").map_err(|(error, inner)| StopError {
            error,
            rdma: Some(Rdma { inner }),
        })?;
        inner
            .teardown()
            .map_err(|error| StopError { error, rdma: None })
    }
}

// SAFETY: the context's DPA handle (`doca_rdma_get_dpa_handle`), for kernels of the
// DPA context its datapath runs on (checked); the keep record holds the context.
unsafe impl KernelArg<param::Rdma> for Rdma {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        lower(&self.inner, keep)
    }
}

fn lower(inner: &Arc<Member<RdmaInner>>, keep: &mut Keep<'_>) -> Result<u64> {
    keep.check_context(&inner.dpa, "the DOCA RDMA context")?;
    keep.keep(KeepAlive::new(inner));
    Ok(inner.handle)
}

/// A failed [`Rdma::stop`]: the error, and the context back when the stop was
/// refused before any DOCA call (it is still in use).
#[derive(Debug)]
pub struct StopError {
    error: doca_dpa::Error,
    rdma: Option<Rdma>,
}

impl StopError {
    /// The error.
    pub fn error(&self) -> &doca_dpa::Error {
        &self.error
    }

    /// The error and, when the stop was refused, the context, still running.
    pub fn into_parts(self) -> (doca_dpa::Error, Option<Rdma>) {
        (self.error, self.rdma)
    }
}

impl fmt::Display for StopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "stopping a DOCA RDMA context: {}", self.error)
    }
}

impl std::error::Error for StopError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

impl From<StopError> for doca_dpa::Error {
    fn from(e: StopError) -> doca_dpa::Error {
        e.error
    }
}

/// What a connection is, connected or not.
struct Link {
    rdma: Arc<Member<RdmaInner>>,
    /// DOCA's: valid while the context runs (`rdma` holds it); an object of the
    /// context's family.
    raw: Raw<sys::doca_rdma_connection>,
    id: u32,
    details: Vec<u8>,
}

// A connection object of a DOCA RDMA context: its pointer is reached under the
// family's guard only (`Raw`).
static_assertions::assert_impl_all!(Link: Send, Sync);

impl fmt::Debug for Link {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("id", &self.id)
            .field("details", &self.details.len())
            .finish_non_exhaustive()
    }
}

/// An exported connection, not connected yet: its [`details`](Self::details) go
/// to the peer; the peer's come back to [`connect`](Self::connect) it. It keeps its
/// context alive.
#[derive(Debug)]
pub struct PendingConnection {
    link: Link,
}

/// A connected connection: kernels post on it with its context's handle (this
/// connection, or the [`Rdma`], for a `doca_dpa_dev_rdma_t` parameter) and its
/// [`id`](Self::id). It keeps its context alive, and so does what a kernel, DPA
/// thread or DPA struct is given it.
#[derive(Debug)]
pub struct Connection {
    link: Link,
}

/// A failed [`PendingConnection::connect`]: the error, and the connection back (to
/// connect again with other details).
#[derive(Debug)]
pub struct ConnectError {
    error: doca_dpa::Error,
    /// Boxed: the error stays small beside a `Connection` in a `Result`.
    connection: Box<PendingConnection>,
}

impl ConnectError {
    /// The error.
    pub fn error(&self) -> &doca_dpa::Error {
        &self.error
    }

    /// The error and the connection, still exported and not connected.
    pub fn into_parts(self) -> (doca_dpa::Error, PendingConnection) {
        (self.error, *self.connection)
    }
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "connecting RDMA connection {}: {}",
            self.connection.id(),
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

impl PendingConnection {
    /// The connection's details, for the peer's `connect` (from `doca_rdma_export`).
    pub fn details(&self) -> &[u8] {
        &self.link.details
    }

    /// The id kernels name the connection by (`doca_rdma_connection_get_id`, read by
    /// the export).
    pub fn id(&self) -> u32 {
        self.link.id
    }

    /// Connects the connection to the peer's whose details `peer` holds
    /// (`doca_rdma_connect`, EXPERIMENTAL, at the DPA context family's guard). Empty
    /// details are refused before DOCA is called; details DOCA cannot use (garbage,
    /// or a connection of no live peer) are its `DOCA_ERROR_CONNECTION_ABORTED`,
    /// with the connection back.
    pub fn connect(self, peer: &[u8]) -> std::result::Result<Connection, ConnectError> {
        const CALL: &str = "doca_rdma_connect";
        let outcome = if peer.is_empty() {
            Err(invalid(CALL, "the peer's connection details are empty"))
        } else {
            self.link.rdma.dpa.with_ctx(|_, g| {
                let (p, conn) = (self.link.rdma.raw.as_ptr(g), self.link.raw.get(g));
                // SAFETY: our started context, a connection it exported (alive while
                // the context runs: `self` holds it), and `peer.len()` readable
                // bytes, which DOCA reads during the call.
                unsafe { rdma_call!(doca_rdma_connect(p, peer.as_ptr().cast(), peer.len(), conn)) }
            })
        };
        match outcome {
            Ok(()) => Ok(Connection { link: self.link }),
            Err(error) => Err(ConnectError {
                error,
                connection: Box::new(self),
            }),
        }
    }
}

impl Connection {
    /// The connection's details, as exported.
    pub fn details(&self) -> &[u8] {
        &self.link.details
    }

    /// The id kernels name the connection by (`connection_id` of the
    /// `doca_dpa_dev_rdma_post_*` calls).
    pub fn id(&self) -> u32 {
        self.link.id
    }

    /// The context's DPA handle, as [`Rdma::raw_handle`].
    ///
    /// # Safety
    /// As [`Rdma::raw_handle`].
    pub unsafe fn raw_handle(&self) -> u64 {
        self.link.rdma.handle
    }
}

// SAFETY: its context's DPA handle, for kernels of the DPA context its datapath runs
// on (checked); the keep record holds the context, and with it the connection.
unsafe impl KernelArg<param::Rdma> for Connection {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        lower(&self.link.rdma, keep)
    }
}
