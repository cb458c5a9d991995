//! The DOCA context lifecycle that RDMI connections and posters share:
//! put on the DPA datapath, started, stopped (possibly asynchronously), and
//! destroyed — plus the choice of completion source both take.
//!
//! Every RDMI object is its own DOCA context (`doca_ctx`), reached through
//! `doca_rdmi_connection_as_ctx` / `doca_rdmi_poster_as_ctx`. The generic
//! calls made here are `doca_ctx_set_datapath_on_dpa` (EXPERIMENTAL),
//! `doca_ctx_start`, `doca_ctx_stop` and `doca_ctx_get_state` (STABLE).

use std::fmt;
use std::ptr::NonNull;
use std::time::{Duration, Instant};

use doca_dpa::{Dpa, Error, ErrorCode, Result};
use doca_dpa_sys as sys;

use crate::error::{core_call, doca_error, invalid};
use crate::verbs::{CompletionQueue, ProtectionDomain, VerbsContext};

/// How long [`Connection::stop`](crate::Connection::stop),
/// [`Poster::stop`](crate::Poster::stop) and `Drop` wait for an
/// asynchronous stop (`doca_ctx_stop` returning IN_PROGRESS) to finish,
/// unless the builder set another bound.
pub const DEFAULT_STOP_TIMEOUT: Duration = Duration::from_secs(5);

/// Where an RDMI object delivers its completions: exactly one source, chosen
/// before start.
///
/// An enum, so that attaching both or neither does not compile — the
/// builders take one `CompletionSource` by value:
///
/// ```compile_fail
/// # use doca_rdmi::*;
/// # fn f(v: &VerbsContext, rep: &doca_dpa::Representor, dpa: &doca_dpa::Dpa,
/// #      comp: &doca_dpa::Completion, cq: &CompletionQueue, buf: ReceiveBuffer) {
/// // Two completion sources: there is no argument for the second one.
/// let b = ConnectionBuilder::new(v, rep, dpa, CompletionSource::Dpa(comp), CompletionSource::Cq(cq), buf);
/// # }
/// ```
///
/// ```compile_fail
/// # use doca_rdmi::*;
/// # fn f(v: &VerbsContext, dpa: &doca_dpa::Dpa) {
/// // No completion source: the argument is required.
/// let b = PosterBuilder::new(v, dpa);
/// # }
/// ```
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum CompletionSource<'a> {
    /// A started DPA completion context: DPA threads and kernels see the
    /// completions (`doca_rdmi_*_dpa_completion_attach`, EXPERIMENTAL). It
    /// must belong to the [`Dpa`] given as datapath (checked at start, before
    /// DOCA is called), and the RDMI object keeps it alive, so it is torn down
    /// before its completion context whatever the drop order.
    Dpa(&'a doca_dpa::Completion),
    /// A verbs completion queue that the host reads
    /// (`doca_rdmi_*_cq_attach`, EXPERIMENTAL), kept alive by the RDMI
    /// object. Kernels waiting on a DPA completion never see these
    /// completions.
    Cq(&'a CompletionQueue),
}

/// The completion source an RDMI object owns for its whole life.
#[derive(Debug)]
pub(crate) enum Held {
    Dpa(doca_dpa::Completion),
    Cq(CompletionQueue),
}

impl CompletionSource<'_> {
    /// Owning references of the source.
    fn hold(&self) -> Held {
        match self {
            CompletionSource::Dpa(c) => Held::Dpa((*c).clone()),
            CompletionSource::Cq(q) => Held::Cq((*q).clone()),
        }
    }
}

/// What both RDMI builders collect before start, and what a started object then
/// keeps alive: its verbs context, DPA datapath, completion source, PD and the
/// input blocks DOCA may read later.
pub(crate) struct Config {
    pub(crate) verbs: VerbsContext,
    pub(crate) dpa: Dpa,
    source: Held,
    pub(crate) pd: Option<ProtectionDomain>,
    pub(crate) inputs: Vec<(u32, Vec<u8>)>,
    pub(crate) stop_timeout: Duration,
}

impl Config {
    pub(crate) fn new(
        verbs: &VerbsContext,
        datapath: &Dpa,
        source: CompletionSource<'_>,
    ) -> Config {
        Config {
            verbs: verbs.clone(),
            dpa: datapath.clone(),
            source: source.hold(),
            pd: None,
            inputs: Vec::new(),
            stop_timeout: DEFAULT_STOP_TIMEOUT,
        }
    }

    /// Refuses, before any DOCA call, what DOCA would take without a word: an
    /// empty input block, a DPA completion of another context than the datapath.
    pub(crate) fn check<R: RawObject>(&self) -> Result<()> {
        if self.inputs.iter().any(|(_, data)| data.is_empty()) {
            return Err(invalid(R::SET_INPUT, "an input block is empty"));
        }
        match &self.source {
            Held::Dpa(c) if !c.dpa().same_context(&self.dpa) => Err(invalid(
                R::DPA_COMPLETION_ATTACH,
                "the DPA completion belongs to another DPA context than the datapath",
            )),
            _ => Ok(()),
        }
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("source", &self.source)
            .field("pd", &self.pd.is_some())
            .field("inputs", &self.inputs.len())
            .field("stop_timeout", &self.stop_timeout)
            .finish()
    }
}

/// Configures a created RDMI object in DOCA's documented order — PD, `*_as_ctx`,
/// `doca_ctx_set_datapath_on_dpa`, the completion source, `receive` (the
/// connection's receive buffer), the input blocks — starts it (`doca_ctx_start`)
/// and returns its DPA handle. On failure the caller's owner of `life` tears it
/// down.
pub(crate) fn configure_and_start<R: RawObject>(
    life: &mut Life<R>,
    config: &Config,
    receive: impl FnOnce(*mut R::C) -> Result<()>,
) -> Result<u64> {
    let p = life.as_ptr();
    if let Some(pd) = &config.pd {
        // SAFETY: our idle object; the PD is kept alive by `config`, which the
        // object's owner holds as long as the object.
        unsafe { R::set_pd(p, pd) }?;
    }
    // SAFETY: our live object.
    let raw_ctx = unsafe { R::as_ctx(p) };
    let ctx = life.set_ctx(Ctx::new(R::AS_CTX, raw_ctx, config.stop_timeout)?);
    ctx.set_datapath_on_dpa(&config.dpa)?;
    match &config.source {
        // SAFETY: our idle object and a started completion of its datapath context
        // (`Config::check`), kept alive by `config`.
        Held::Dpa(c) => unsafe { R::attach_dpa_completion(p, c) }?,
        // SAFETY: our idle object and a live CQ kept alive by `config`.
        Held::Cq(q) => unsafe { R::attach_cq(p, q) }?,
    }
    receive(p)?;
    for (op_type, data) in &config.inputs {
        // SAFETY: our idle object; `data` lives in `config`, as long as the object.
        unsafe { R::set_input(p, *op_type, data) }?;
    }
    ctx.start()?;
    // SAFETY: our started object on the DPA datapath.
    unsafe { R::dpa_handle(p) }
}

/// Takes sole ownership of a started RDMI object and asks DOCA to stop it
/// (`doca_ctx_stop`). On failure the shared object comes back with the error:
/// [`Error::InUse`] while launches, threads, DPA structs or posters still hold it, or
/// DOCA's refusal.
pub(crate) fn request_stop_unique<T>(
    inner: std::sync::Arc<T>,
    ctx: impl for<'x> Fn(&'x T) -> Result<&'x Ctx>,
) -> std::result::Result<Box<T>, (Error, std::sync::Arc<T>)> {
    let inner = std::sync::Arc::try_unwrap(inner).map_err(|shared| {
        let users = std::sync::Arc::strong_count(&shared) - 1;
        (
            Error::InUse {
                call: "doca_ctx_stop",
                users,
            },
            shared,
        )
    })?;
    match ctx(&inner).and_then(Ctx::request_stop) {
        Ok(()) => Ok(Box::new(inner)),
        Err(e) => Err((e, std::sync::Arc::new(inner))),
    }
}

/// The state of a DOCA context (`enum doca_ctx_states`, from
/// `doca_ctx_get_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CtxState {
    /// Not started, or stopped (`DOCA_CTX_STATE_IDLE`).
    Idle,
    /// Start requested (`DOCA_CTX_STATE_STARTING`).
    Starting,
    /// Started (`DOCA_CTX_STATE_RUNNING`).
    Running,
    /// Stop requested; outstanding work is draining
    /// (`DOCA_CTX_STATE_STOPPING`).
    Stopping,
    /// A value this crate does not know (a newer DOCA).
    Other(u32),
}

impl CtxState {
    fn from_raw(raw: u32) -> CtxState {
        match raw {
            r if r == sys::DOCA_CTX_STATE_IDLE as u32 => CtxState::Idle,
            r if r == sys::DOCA_CTX_STATE_STARTING as u32 => CtxState::Starting,
            r if r == sys::DOCA_CTX_STATE_RUNNING as u32 => CtxState::Running,
            r if r == sys::DOCA_CTX_STATE_STOPPING as u32 => CtxState::Stopping,
            other => CtxState::Other(other),
        }
    }
}

/// Returned by the `wait` of a stopping object when the stop did not finish
/// in time, or when tearing it down failed: the error and the object, so the
/// caller can keep acknowledging receives and wait again (or drop it, which
/// retries the teardown and logs the outcome).
#[derive(thiserror::Error)]
#[error("stopping the RDMI context failed: {error}")]
pub struct StopError<T> {
    #[source]
    error: Error,
    object: T,
}

impl<T> StopError<T> {
    pub(crate) fn new(error: Error, object: T) -> Self {
        StopError { error, object }
    }

    /// What went wrong.
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// The error, dropping the object (its `Drop` retries the teardown).
    pub fn into_error(self) -> Error {
        self.error
    }

    /// The object, to act on it and wait again.
    pub fn into_inner(self) -> T {
        self.object
    }

    /// Both.
    pub fn into_parts(self) -> (Error, T) {
        (self.error, self.object)
    }
}

impl<T> fmt::Debug for StopError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StopError")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl<T> From<StopError<T>> for Error {
    fn from(e: StopError<T>) -> Error {
        e.error
    }
}

/// Where an RDMI object is in its lifecycle, as this crate drove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Created, never started (configuration allowed).
    Created,
    /// `doca_ctx_start` succeeded.
    Running,
    /// `doca_ctx_stop` answered IN_PROGRESS.
    Stopping,
    /// Stopped.
    Idle,
    /// Destroyed; nothing left to do.
    Destroyed,
}

/// The `doca_ctx` of an RDMI object and the phase this crate drove it to.
pub(crate) struct Ctx {
    ptr: NonNull<sys::doca_ctx>,
    /// Changed by the owner's start and stop paths; a mutex (never held across
    /// a DOCA call) so that the object can be shared between threads.
    phase: std::sync::Mutex<Phase>,
    pub(crate) stop_timeout: Duration,
}

// SAFETY: the `doca_ctx` of an RDMI object; every DOCA call on it is made under the DOCA lock
// (`doca_dpa::serialized`), so DOCA never sees two threads use it at once (the
// facts forbid concurrent use, not use from another thread).
unsafe impl Send for Ctx {}
// SAFETY: as for `Send`: shared references only make DOCA calls under the DOCA
// lock; the Rust state behind them is immutable or behind a mutex or atomics.
unsafe impl Sync for Ctx {}

impl Ctx {
    /// Wraps the result of a `*_as_ctx` call.
    pub(crate) fn new(
        call: &'static str,
        raw: *mut sys::doca_ctx,
        stop_timeout: Duration,
    ) -> Result<Ctx> {
        let ptr = NonNull::new(raw).ok_or_else(|| invalid(call, "DOCA returned no context"))?;
        Ok(Ctx {
            ptr,
            phase: std::sync::Mutex::new(Phase::Created),
            stop_timeout,
        })
    }

    pub(crate) fn as_ptr(&self) -> *mut sys::doca_ctx {
        self.ptr.as_ptr()
    }

    pub(crate) fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn set_phase(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(|p| p.into_inner()) = phase;
    }

    /// `doca_ctx_set_datapath_on_dpa`: kernels of `dpa` drive the object.
    pub(crate) fn set_datapath_on_dpa(&self, dpa: &Dpa) -> Result<()> {
        // SAFETY: an idle context of a live RDMI object and a started DPA
        // context that the object keeps alive.
        unsafe {
            core_call!(doca_ctx_set_datapath_on_dpa(
                self.as_ptr(),
                dpa.as_ptr().cast()
            ))
        }
    }

    /// `doca_ctx_start`.
    pub(crate) fn start(&self) -> Result<()> {
        // SAFETY: a configured context of a live RDMI object.
        unsafe { core_call!(doca_ctx_start(self.as_ptr())) }?;
        self.set_phase(Phase::Running);
        Ok(())
    }

    /// `doca_ctx_get_state`.
    pub(crate) fn state(&self) -> Result<CtxState> {
        let mut raw = 0 as _;
        // SAFETY: a live context; valid out-pointer.
        unsafe { core_call!(doca_ctx_get_state(self.as_ptr(), &mut raw)) }?;
        Ok(CtxState::from_raw(raw as u32))
    }

    /// `doca_ctx_stop` on a running context: Idle at once, or Stopping when
    /// DOCA answers IN_PROGRESS.
    pub(crate) fn request_stop(&self) -> Result<()> {
        if self.phase() != Phase::Running {
            return Ok(());
        }
        // SAFETY: a started context of a live RDMI object.
        match unsafe { core_call!(doca_ctx_stop(self.as_ptr())) } {
            Ok(()) => self.set_phase(Phase::Idle),
            Err(e) if e.code() == Some(ErrorCode::IN_PROGRESS) => {
                tracing::debug!(target: "doca_rdmi::ctx", "doca_ctx_stop is in progress");
                self.set_phase(Phase::Stopping);
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// While Stopping: polls `doca_ctx_get_state` until the context is idle,
    /// for at most `timeout` (TIME_OUT error naming `doca_ctx_stop` after).
    pub(crate) fn wait_idle(&self, timeout: Duration) -> Result<()> {
        if self.phase() != Phase::Stopping {
            return Ok(());
        }
        let start = Instant::now();
        let mut pause = Duration::from_micros(100);
        loop {
            if self.state()? == CtxState::Idle {
                self.set_phase(Phase::Idle);
                return Ok(());
            }
            if start.elapsed() >= timeout {
                tracing::warn!(target: "doca_rdmi::ctx", ?timeout, "the asynchronous stop did not finish in time");
                return Err(doca_error("doca_ctx_stop", ErrorCode::TIME_OUT));
            }
            std::thread::sleep(pause.min(timeout.saturating_sub(start.elapsed())));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }
}

/// The raw side of an RDMI object type: its C struct and the functions of it
/// that connections and posters share (each named `doca_rdmi_<object>_*`).
pub(crate) trait RawObject {
    /// The C struct.
    type C;
    /// The destroy function's name.
    const DESTROY: &'static str;
    /// The `*_as_ctx` function's name.
    const AS_CTX: &'static str;
    /// The `*_set_input` function's name.
    const SET_INPUT: &'static str;
    /// The `*_dpa_completion_attach` function's name.
    const DPA_COMPLETION_ATTACH: &'static str;

    /// Calls the destroy function.
    ///
    /// # Safety
    /// `p` is a live object of this type, stopped, destroyed once.
    unsafe fn destroy(p: *mut Self::C) -> sys::doca_error_t;

    /// `*_as_ctx`.
    ///
    /// # Safety
    /// `p` is a live object of this type.
    unsafe fn as_ctx(p: *mut Self::C) -> *mut sys::doca_ctx;

    /// `*_set_pd`.
    ///
    /// # Safety
    /// `p` is an idle object of this type; `pd` outlives it.
    unsafe fn set_pd(p: *mut Self::C, pd: &ProtectionDomain) -> Result<()>;

    /// `*_dpa_completion_attach`.
    ///
    /// # Safety
    /// `p` is an idle object of this type; `c` is started and outlives it.
    unsafe fn attach_dpa_completion(p: *mut Self::C, c: &doca_dpa::Completion) -> Result<()>;

    /// `*_cq_attach`.
    ///
    /// # Safety
    /// `p` is an idle object of this type; `q` outlives it.
    unsafe fn attach_cq(p: *mut Self::C, q: &CompletionQueue) -> Result<()>;

    /// `*_set_input`.
    ///
    /// # Safety
    /// `p` is an idle object of this type; `data` outlives it.
    unsafe fn set_input(p: *mut Self::C, op_type: u32, data: &[u8]) -> Result<()>;

    /// `*_get_dpa_handle`.
    ///
    /// # Safety
    /// `p` is a started object of this type on the DPA datapath.
    unsafe fn dpa_handle(p: *mut Self::C) -> Result<u64>;
}

/// The error of a configuration call the installed header does not declare (the
/// builder method that asks for it does not exist in such a build).
#[allow(dead_code)]
pub(crate) fn undeclared(call: &'static str) -> Error {
    Error::Unavailable {
        what: call,
        reason: "the installed DOCA RDMI header does not declare it".to_owned(),
    }
}

/// An RDMI object from creation to destruction: its pointer, its `doca_ctx`
/// once known, and whether it was destroyed. Its owner calls
/// [`Life::teardown`] (from `Drop` too).
pub(crate) struct Life<R: RawObject> {
    ptr: NonNull<R::C>,
    ctx: Option<Ctx>,
    destroyed: bool,
}

// SAFETY: an RDMI object (connection or poster); every DOCA call on it is made under the DOCA lock
// (`doca_dpa::serialized`), so DOCA never sees two threads use it at once (the
// facts forbid concurrent use, not use from another thread).
unsafe impl<R: RawObject> Send for Life<R> {}
// SAFETY: as for `Send`: shared references only make DOCA calls under the DOCA
// lock; the Rust state behind them is immutable or behind a mutex or atomics.
unsafe impl<R: RawObject> Sync for Life<R> {}

impl<R: RawObject> Life<R> {
    /// Wraps the result of a create call at once, so that every later
    /// failure destroys the object.
    pub(crate) fn new(call: &'static str, raw: *mut R::C) -> Result<Self> {
        let ptr = NonNull::new(raw).ok_or_else(|| invalid(call, "DOCA returned NULL"))?;
        Ok(Life {
            ptr,
            ctx: None,
            destroyed: false,
        })
    }

    pub(crate) fn as_ptr(&self) -> *mut R::C {
        self.ptr.as_ptr()
    }

    pub(crate) fn set_ctx(&mut self, ctx: Ctx) -> &Ctx {
        self.ctx.insert(ctx)
    }

    /// The object's context (known from the builder's `*_as_ctx` call on).
    pub(crate) fn ctx(&self) -> Result<&Ctx> {
        self.ctx
            .as_ref()
            .ok_or_else(|| invalid(R::DESTROY, "the object has no DOCA context"))
    }

    pub(crate) fn is_destroyed(&self) -> bool {
        self.destroyed
    }

    /// The destroy call, once; the context must be idle.
    pub(crate) fn destroy(&mut self) -> Result<()> {
        if self.destroyed {
            return Ok(());
        }
        // SAFETY: our live object; the flag below makes this the only call.
        let rc = unsafe { R::destroy(self.as_ptr()) };
        crate::error::check(R::DESTROY, rc)?;
        self.destroyed = true;
        if let Some(ctx) = &self.ctx {
            ctx.set_phase(Phase::Destroyed);
        }
        Ok(())
    }

    /// Stops the context if it runs (waiting out IN_PROGRESS for at most
    /// the stop timeout), then destroys the object. The destroy is attempted
    /// even when stopping failed; the first error is returned.
    pub(crate) fn teardown(&mut self) -> Result<()> {
        if self.destroyed {
            return Ok(());
        }
        let stopped = match &self.ctx {
            Some(ctx) => ctx
                .request_stop()
                .and_then(|()| ctx.wait_idle(ctx.stop_timeout)),
            None => Ok(()),
        };
        let destroyed = self.destroy();
        stopped.and(destroyed)
    }
}

impl fmt::Debug for Ctx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ctx").field("phase", &self.phase()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_map_from_the_header_values() {
        assert_eq!(
            CtxState::from_raw(sys::DOCA_CTX_STATE_IDLE as u32),
            CtxState::Idle
        );
        assert_eq!(
            CtxState::from_raw(sys::DOCA_CTX_STATE_STOPPING as u32),
            CtxState::Stopping
        );
        assert_eq!(CtxState::from_raw(77), CtxState::Other(77));
    }

    #[test]
    fn stop_errors_keep_the_object() {
        let e = StopError::new(doca_error("doca_ctx_stop", ErrorCode::TIME_OUT), 5u8);
        assert!(e.to_string().contains("doca_ctx_stop"));
        assert_eq!(e.error().kind(), doca_dpa::ErrorKind::Timeout);
        let (err, obj) = e.into_parts();
        assert_eq!(obj, 5);
        assert_eq!(err.code(), Some(ErrorCode::TIME_OUT));
    }
}
