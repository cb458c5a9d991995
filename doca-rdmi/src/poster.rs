//! RDMI posters (`struct doca_rdmi_poster`): the side that issues
//! DPA-initiated RDMA work. Configured by [`PosterBuilder`], used as a started
//! [`Poster`], stopped through [`StoppingPoster`].
//!
//! Every DOCA RDMI function is EXPERIMENTAL and its parameter types are
//! inferred; this module compiles against any integer width or pointer type
//! the installed header uses.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use doca_dpa::{Dpa, Keep, KeepAlive, KernelArg, Result};
use doca_rdmi_sys as sys;

use crate::ctx::{CompletionSource, Config, CtxState, Object, RdmiObject, StopError};
use crate::error::{invalid, rdmi_call};
use crate::param;
use crate::verbs::{CompletionQueue, ProtectionDomain, VerbsContext};

doca_dpa::__doca_object!(
    /// `doca_rdmi_poster`.
    pub(crate) RawPoster: doca_rdmi_sys::doca_rdmi_poster,
    destroy doca_rdmi_poster_destroy
);

/// What a poster uses besides its configuration: the connections it works with,
/// destroyed after it (DOCA's teardown order), and their datapath contexts,
/// checked against the poster's before it is created.
pub(crate) struct PosterUses {
    connections: Vec<KeepAlive>,
    contexts: Vec<Dpa>,
}

impl RdmiObject for RawPoster {
    type Uses = PosterUses;
    const NAME: &'static str = "poster";
    const CREATE: &'static str = "doca_rdmi_poster_create";
    const AS_CTX: &'static str = "doca_rdmi_poster_as_ctx";
    const SET_INPUT: &'static str = "doca_rdmi_poster_set_input";
    const DPA_COMPLETION_ATTACH: &'static str = "doca_rdmi_poster_dpa_completion_attach";

    fn create(config: &Config, uses: &PosterUses) -> Result<*mut Self::Raw> {
        if let Some(other) = uses.contexts.iter().find(|d| !d.same_context(&config.dpa)) {
            return Err(invalid(
                Self::CREATE,
                format!(
                    "a connection's datapath is DPA context #{}, the poster's is DPA context #{}",
                    other.serial(),
                    config.dpa.serial()
                ),
            ));
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: a live verbs context (held by the caller); valid out-pointer.
        unsafe { rdmi_call!(doca_rdmi_poster_create(config.verbs.as_ptr(), &mut raw)) }?;
        Ok(raw)
    }

    unsafe fn as_ctx(p: *mut Self::Raw) -> *mut doca_dpa_sys::doca_ctx {
        // SAFETY: per the trait contract: a live poster.
        doca_dpa::serialized(|| unsafe { sys::doca_rdmi_poster_as_ctx(p) }).cast()
    }

    unsafe fn set_pd(p: *mut Self::Raw, pd: &ProtectionDomain) -> Result<()> {
        #[cfg(doca_sym = "doca_rdmi_poster_set_pd")]
        {
            // SAFETY: per the trait contract: an idle poster, a PD that outlives it.
            unsafe { rdmi_call!(doca_rdmi_poster_set_pd(p, pd.as_ptr())) }
        }
        #[cfg(not(doca_sym = "doca_rdmi_poster_set_pd"))]
        {
            let _ = (p, pd);
            Err(crate::ctx::undeclared("doca_rdmi_poster_set_pd"))
        }
    }

    unsafe fn attach_dpa_completion(p: *mut Self::Raw, c: &doca_dpa::Completion) -> Result<()> {
        // SAFETY: per the trait contract: an idle poster, a started completion that
        // outlives it.
        unsafe { rdmi_call!(doca_rdmi_poster_dpa_completion_attach(p, c.as_ptr().cast())) }
    }

    unsafe fn attach_cq(p: *mut Self::Raw, q: &CompletionQueue) -> Result<()> {
        // SAFETY: per the trait contract: an idle poster, a CQ that outlives it.
        unsafe { rdmi_call!(doca_rdmi_poster_cq_attach(p, q.as_ptr())) }
    }

    unsafe fn configure(_p: *mut Self::Raw, _uses: &PosterUses) -> Result<()> {
        // A poster has no configuration of its own.
        Ok(())
    }

    unsafe fn set_input(p: *mut Self::Raw, op_type: u32, data: &[u8]) -> Result<()> {
        #[cfg(doca_sym = "doca_rdmi_poster_set_input")]
        {
            let op = crate::error::fit(Self::SET_INPUT, "op_type", op_type)?;
            let len = crate::error::fit(Self::SET_INPUT, "size", data.len())?;
            // SAFETY: per the trait contract: an idle poster, a block that outlives it.
            unsafe { rdmi_call!(doca_rdmi_poster_set_input(p, op, data.as_ptr().cast(), len)) }
        }
        #[cfg(not(doca_sym = "doca_rdmi_poster_set_input"))]
        {
            let _ = (p, op_type, data);
            Err(crate::ctx::undeclared(Self::SET_INPUT))
        }
    }

    unsafe fn dpa_handle(p: *mut Self::Raw) -> Result<u64> {
        let mut h = 0 as _;
        // SAFETY: per the trait contract: a started poster; valid out-pointer.
        unsafe { rdmi_call!(doca_rdmi_poster_get_dpa_handle(p, &mut h)) }?;
        Ok(h as u64)
    }
}

/// A poster and what it keeps alive (the shared RDMI object, `ctx.rs`).
type PosterInner = Object<RawPoster>;

/// An RDMI poster being configured; [`PosterBuilder::start`] makes the DOCA
/// calls. It has no DPA handle:
///
/// ```compile_fail
/// # fn f(b: doca_rdmi::PosterBuilder) {
/// let h = b.dpa_handle(); // handle before start
/// # }
/// ```
#[derive(Debug)]
pub struct PosterBuilder {
    config: Config,
    uses: PosterUses,
}

impl fmt::Debug for PosterUses {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PosterUses")
            .field("connections", &self.connections.len())
            .finish()
    }
}

impl PosterBuilder {
    /// A poster on `verbs` (the verbs context of the connections it works
    /// with), driven by kernels of `datapath`, delivering completions to
    /// `source` (which the poster keeps alive). No DOCA call.
    pub fn new(
        verbs: &VerbsContext,
        datapath: &Dpa,
        source: CompletionSource<'_>,
    ) -> PosterBuilder {
        PosterBuilder {
            config: Config::new(verbs, datapath, source),
            uses: PosterUses {
                connections: Vec::new(),
                contexts: Vec::new(),
            },
        }
    }

    /// A connection this poster works with: the poster keeps it alive, so it is
    /// stopped and destroyed after the poster, as DOCA's teardown order requires,
    /// whatever order the values are dropped in. No DOCA call.
    #[cfg(doca_rdmi_api = "connection")]
    pub fn connection(mut self, connection: &crate::Connection) -> Self {
        self.uses
            .connections
            .push(KeepAlive::new(&connection.shared()));
        self.uses.contexts.push(connection.datapath().clone());
        self
    }

    /// The protection domain (`doca_rdmi_poster_set_pd`, EXPERIMENTAL, at
    /// start): the one of the connections it works with.
    #[cfg(doca_sym = "doca_rdmi_poster_set_pd")]
    pub fn pd(mut self, pd: &ProtectionDomain) -> Self {
        self.config.pd = Some(pd.clone());
        self
    }

    /// A firmware-command input block (`doca_rdmi_poster_set_input`,
    /// EXPERIMENTAL, at start; PRM passthrough). Empty blocks are refused by
    /// `start`.
    #[cfg(doca_sym = "doca_rdmi_poster_set_input")]
    pub fn input(mut self, op_type: u32, data: &[u8]) -> Self {
        self.config.inputs.push((op_type, data.to_vec()));
        self
    }

    /// How long [`Poster::stop`] and `Drop` wait for an asynchronous stop. No
    /// DOCA call.
    pub fn stop_timeout(mut self, timeout: Duration) -> Self {
        self.config.stop_timeout = timeout;
        self
    }

    /// Creates, configures and starts the poster:
    /// `doca_rdmi_poster_create`, `doca_rdmi_poster_set_pd` (if a PD was
    /// given), `doca_rdmi_poster_as_ctx`, `doca_ctx_set_datapath_on_dpa`,
    /// `doca_rdmi_poster_dpa_completion_attach` or
    /// `doca_rdmi_poster_cq_attach`, `doca_rdmi_poster_set_input` for each
    /// input, `doca_ctx_start`, then `doca_rdmi_poster_get_dpa_handle`. All
    /// EXPERIMENTAL except `doca_ctx_start` (STABLE). On failure everything
    /// made so far is destroyed.
    pub fn start(self) -> Result<Poster> {
        Ok(Poster {
            inner: Object::start(self.config, self.uses)?,
        })
    }
}

/// A started RDMI poster: the only state with a DPA handle, which reaches kernels
/// only through the poster itself (a [`param::RdmiPoster`] argument or a `Dev`),
/// keeping it alive.
///
/// Dropping a poster stops and destroys it once nothing else uses it (launches,
/// threads and DPA structs given it hold it); failures are logged. The connections
/// given to [`PosterBuilder::connection`] are destroyed after it.
pub struct Poster {
    inner: Arc<PosterInner>,
}

impl fmt::Debug for Poster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poster")
            .field("handle", &self.inner.handle())
            .finish_non_exhaustive()
    }
}

impl Poster {
    /// The DPA handle (`doca_rdmi_poster_get_dpa_handle`, EXPERIMENTAL, fetched by
    /// `start`).
    ///
    /// # Safety
    /// The value keeps nothing alive: handing it to the device is sound only while
    /// the poster is kept alive by other means.
    pub unsafe fn raw_handle(&self) -> u64 {
        self.inner.handle()
    }

    /// Pushes `num_cqe` completion entries from the host to the poster's
    /// completion side (`doca_rdmi_poster_post`, EXPERIMENTAL). Bulk posting
    /// is the kernel's job; this is the host's path.
    ///
    /// `cqe_buf` is passed as the header wants it (a pointer, or an address
    /// in some headers). Refused before DOCA when empty or when `num_cqe` is
    /// 0.
    ///
    /// # Safety
    /// DOCA does not document when the device reads the entries: `cqe_buf`
    /// must hold `num_cqe` entries in the layout the device expects, be
    /// covered by the memory key `mkey`, and stay valid and unmoved, and not
    /// be written, until the device has consumed them (for example until the
    /// completions were seen).
    #[cfg(doca_sym = "doca_rdmi_poster_post")]
    pub unsafe fn post(&self, cqe_buf: &mut [u8], num_cqe: u32, mkey: u32) -> Result<()> {
        const CALL: &str = "doca_rdmi_poster_post";
        if cqe_buf.is_empty() || num_cqe == 0 {
            return Err(invalid(CALL, "nothing to post"));
        }
        let n = crate::error::fit(CALL, "num_cqe", num_cqe)?;
        let key = crate::error::fit(CALL, "mkey", mkey)?;
        // SAFETY: our started poster; the caller keeps the buffer valid as
        // the contract above says. `as _` passes the address as a pointer or
        // an integer, whichever the header declares.
        unsafe {
            rdmi_call!(doca_rdmi_poster_post(
                self.inner.as_ptr(),
                cqe_buf.as_mut_ptr() as _,
                n,
                key
            ))
        }
    }

    /// The context's state (`doca_ctx_get_state`, STABLE).
    pub fn state(&self) -> Result<CtxState> {
        self.inner.state()
    }

    /// The raw `doca_rdmi_poster`, valid while this value lives. Do not stop
    /// or destroy it.
    pub fn as_ptr(&self) -> *mut sys::doca_rdmi_poster {
        self.inner.as_ptr()
    }

    /// Stops and destroys the poster (`doca_ctx_stop`, waiting out
    /// IN_PROGRESS with `doca_ctx_get_state` for at most the stop timeout,
    /// then `doca_rdmi_poster_destroy`, EXPERIMENTAL). On failure the poster is dropped,
    /// which retries the teardown.
    pub fn stop(self) -> Result<()> {
        let timeout = self.inner.stop_timeout();
        Ok(self.request_stop()?.wait(timeout)?)
    }

    /// Asks DOCA to stop (`doca_ctx_stop`, STABLE); [`StoppingPoster::wait`]
    /// finishes it. On an error the poster is handed back, still running.
    ///
    /// Fails with [`doca_dpa::Error::InUse`] (the poster comes back) while launches,
    /// threads or DPA structs still hold it.
    pub fn request_stop(self) -> Result<StoppingPoster, StopError<Poster>> {
        match Object::request_stop(self.inner) {
            Ok(inner) => Ok(StoppingPoster { inner }),
            Err((e, inner)) => Err(StopError::new(e, Poster { inner })),
        }
    }
}

/// A poster whose stop was requested.
pub struct StoppingPoster {
    inner: Box<PosterInner>,
}

impl fmt::Debug for StoppingPoster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoppingPoster")
            .field("phase", &self.inner.phase())
            .finish_non_exhaustive()
    }
}

impl StoppingPoster {
    /// The context's state (`doca_ctx_get_state`, STABLE).
    pub fn state(&self) -> Result<CtxState> {
        self.inner.state()
    }

    /// Whether the stop was asynchronous and has not been seen to finish.
    pub fn is_draining(&self) -> bool {
        self.inner.is_draining()
    }

    /// Waits for at most `timeout` until idle, then destroys the poster
    /// (`doca_rdmi_poster_destroy`, EXPERIMENTAL); on failure the poster
    /// comes back.
    pub fn wait(mut self, timeout: Duration) -> Result<(), StopError<StoppingPoster>> {
        self.inner
            .wait_and_destroy(timeout)
            .map_err(|e| StopError::new(e, self))
    }
}

// SAFETY: the started poster's DPA handle; the keep record holds the poster (and so
// the connections, completion and contexts it keeps alive).
unsafe impl KernelArg<param::RdmiPoster> for Poster {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        self.inner.lower(keep, "the RDMI poster")
    }
}
