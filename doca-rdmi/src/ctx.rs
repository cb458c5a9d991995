//! What RDMI connections and posters share: one builder and teardown mechanism,
//! [`Object`], generic over the kind ([`RdmiObject`]), on the core layer's owned
//! handle (`doca_dpa::core::Owned`, the object's destroy) and `doca_ctx` lifecycle
//! (`doca_dpa::core::Ctx`: start, stop, poll to idle); plus the choice of
//! completion source both take and the error a failed stop hands the object back
//! in.
//!
//! Every RDMI object is its own DOCA context (`doca_ctx`), reached through
//! `doca_rdmi_connection_as_ctx` / `doca_rdmi_poster_as_ctx`. The generic
//! calls made here are `doca_ctx_set_datapath_on_dpa` (EXPERIMENTAL),
//! `doca_ctx_start`, `doca_ctx_stop` and `doca_ctx_get_state` (STABLE).

use std::fmt;
use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::time::Duration;

use doca_dpa::core::{sole, Anytime, Ctx, DocaObject, OnQueryError, Owned, Phase, Raw};
use doca_dpa::{Dpa, Error, Keep, KeepAlive, Result};
use doca_dpa_sys as sys;

pub use doca_dpa::core::CtxState;

use crate::error::{core_call, invalid};
use doca_verbs::{CompletionQueue, ProtectionDomain, VerbsContext};

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
    /// empty input block, a DPA completion of another context than the datapath,
    /// a PD or CQ of another verbs context than the object's.
    fn check<R: RdmiObject>(&self) -> Result<()> {
        if self.inputs.iter().any(|(_, data)| data.is_empty()) {
            return Err(invalid(R::SET_INPUT, "an input block is empty"));
        }
        // DOCA refuses those with INVALID_VALUE (the sim models it); refused here
        // before any call, as the object's verbs context's lock would not cover
        // them.
        let foreign = |v: &VerbsContext| !v.domain().same(self.verbs.domain());
        if self.pd.as_ref().is_some_and(|pd| foreign(pd.context())) {
            return Err(invalid(
                R::SET_PD,
                "the protection domain was made on another verbs context than the object's",
            ));
        }
        match &self.source {
            Held::Dpa(c) if !c.dpa().same_context(&self.dpa) => Err(invalid(
                R::DPA_COMPLETION_ATTACH,
                "the DPA completion belongs to another DPA context than the datapath",
            )),
            Held::Cq(q) if foreign(q.context()) => Err(invalid(
                R::CQ_ATTACH,
                "the completion queue was made on another verbs context than the object's",
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

/// A kind of RDMI object (connection or poster): its C struct and destroy call (the
/// core layer's [`DocaObject`]), and the functions of it that the shared builder
/// calls (each named `doca_rdmi_<object>_*`). Declared with [`rdmi_kind!`].
pub(crate) trait RdmiObject: DocaObject {
    /// What an object of the kind uses besides the [`Config`]: dropped only once
    /// it is destroyed, buried with the configuration otherwise.
    type Uses: Send + Sync + 'static;
    /// What a finished stop hands back (a connection's receive buffer).
    type Out;
    /// The `tracing` field naming the kind (`connection`, `poster`).
    const NAME: &'static str;
    /// The create function's name.
    const CREATE: &'static str;
    /// The `*_as_ctx` function's name.
    const AS_CTX: &'static str;
    /// The `*_set_input` function's name.
    const SET_INPUT: &'static str;
    /// The `*_dpa_completion_attach` function's name.
    const DPA_COMPLETION_ATTACH: &'static str;
    /// The `*_set_pd` function's name.
    const SET_PD: &'static str;
    /// The `*_cq_attach` function's name.
    const CQ_ATTACH: &'static str;

    /// The create call, with what `config` and `uses` hold (alive for the call).
    fn create(config: &Config, uses: &Self::Uses) -> Result<*mut Self::Raw>;

    /// What a destroyed object hands back, taken from what it used.
    fn hand_back(uses: &mut Self::Uses) -> Result<Self::Out>;

    /// `*_as_ctx`.
    ///
    /// # Safety
    /// `p` is a live object of this kind.
    unsafe fn as_ctx(p: *mut Self::Raw) -> *mut sys::doca_ctx;

    /// `*_set_pd`.
    ///
    /// # Safety
    /// `p` is an idle object of this kind; `pd` outlives it; the locks of both
    /// are held.
    unsafe fn set_pd(p: *mut Self::Raw, pd: *mut doca_verbs_sys::doca_verbs_pd) -> Result<()>;

    /// `*_dpa_completion_attach`.
    ///
    /// # Safety
    /// `p` is an idle object of this kind; `c` is started and outlives it; the
    /// family's guard is held.
    unsafe fn attach_dpa_completion(
        p: *mut Self::Raw,
        c: *mut doca_dpa_sys::doca_dpa_completion,
    ) -> Result<()>;

    /// `*_cq_attach`.
    ///
    /// # Safety
    /// `p` is an idle object of this kind; `q` outlives it; the locks of both are
    /// held.
    unsafe fn attach_cq(p: *mut Self::Raw, q: *mut doca_verbs_sys::doca_verbs_cq) -> Result<()>;

    /// The kind's own configuration after the completion source (a connection's
    /// receive buffer).
    ///
    /// # Safety
    /// `p` is an idle object of this kind; `uses` outlives it.
    unsafe fn configure(p: *mut Self::Raw, uses: &Self::Uses) -> Result<()>;

    /// `*_set_input`.
    ///
    /// # Safety
    /// `p` is an idle object of this kind; `data` outlives it.
    unsafe fn set_input(p: *mut Self::Raw, op_type: u32, data: &[u8]) -> Result<()>;

    /// `*_get_dpa_handle`.
    ///
    /// # Safety
    /// `p` is a started object of this kind on the DPA datapath.
    unsafe fn dpa_handle(p: *mut Self::Raw) -> Result<u64>;
}

/// Declares a kind of RDMI object: its marker type (a core-layer kind, destroyed by
/// `destroy`) and its [`RdmiObject`] impl, whose calls have the same form for every
/// kind and differ only in the `doca_rdmi_<object>_*` functions named here. The
/// create call and the kind's own configuration are functions of its module; a
/// function the installed header may lack is named with its symbol, and without it
/// its builder method does not exist and the call is [`undeclared`].
macro_rules! rdmi_kind {
    (
        $(#[$m:meta])*
        $kind:ident: $raw:ident, named $name:literal, uses $uses:ty;
        create $create:ident by $create_fn:path, configure by $configure_fn:path;
        hands back $out:ty, by $hand_back_fn:path;
        destroy $destroy:ident, as_ctx $as_ctx:ident,
        set_pd $set_pd:ident if $set_pd_sym:literal,
        dpa_completion_attach $dpa_attach:ident, cq_attach $cq_attach:ident,
        set_input $set_input:ident if $set_input_sym:literal,
        get_dpa_handle $handle:ident $(,)?
    ) => {
        doca_dpa::__doca_object!($(#[$m])* pub(crate) $kind: doca_rdmi_sys::$raw, destroy $destroy);

        impl $crate::ctx::RdmiObject for $kind {
            type Uses = $uses;
            type Out = $out;
            const NAME: &'static str = $name;
            const CREATE: &'static str = stringify!($create);
            const AS_CTX: &'static str = stringify!($as_ctx);
            const SET_INPUT: &'static str = stringify!($set_input);
            const DPA_COMPLETION_ATTACH: &'static str = stringify!($dpa_attach);
            const SET_PD: &'static str = stringify!($set_pd);
            const CQ_ATTACH: &'static str = stringify!($cq_attach);

            fn create(config: &$crate::ctx::Config, uses: &$uses) -> doca_dpa::Result<*mut Self::Raw> {
                $create_fn(config, uses)
            }

            fn hand_back(uses: &mut $uses) -> doca_dpa::Result<$out> {
                $hand_back_fn(uses)
            }

            unsafe fn as_ctx(p: *mut Self::Raw) -> *mut doca_dpa_sys::doca_ctx {
                // SAFETY: per the trait contract: a live object of the kind, under
                // its lock.
                unsafe { doca_rdmi_sys::$as_ctx(p) }.cast()
            }

            unsafe fn set_pd(
                p: *mut Self::Raw,
                pd: *mut doca_verbs_sys::doca_verbs_pd,
            ) -> doca_dpa::Result<()> {
                #[cfg(doca_sym = $set_pd_sym)]
                {
                    // SAFETY: per the trait contract: an idle object, a PD that
                    // outlives it, both under their locks.
                    unsafe { $crate::error::rdmi_call!($set_pd(p, pd)) }
                }
                #[cfg(not(doca_sym = $set_pd_sym))]
                {
                    let _ = (p, pd);
                    Err($crate::ctx::undeclared(stringify!($set_pd)))
                }
            }

            unsafe fn attach_dpa_completion(
                p: *mut Self::Raw,
                c: *mut doca_dpa_sys::doca_dpa_completion,
            ) -> doca_dpa::Result<()> {
                // SAFETY: per the trait contract: an idle object, a started
                // completion that outlives it, under the family's guard.
                unsafe { $crate::error::rdmi_call!($dpa_attach(p, c.cast())) }
            }

            unsafe fn attach_cq(
                p: *mut Self::Raw,
                q: *mut doca_verbs_sys::doca_verbs_cq,
            ) -> doca_dpa::Result<()> {
                // SAFETY: per the trait contract: an idle object, a CQ that outlives
                // it, both under their locks.
                unsafe { $crate::error::rdmi_call!($cq_attach(p, q)) }
            }

            unsafe fn configure(p: *mut Self::Raw, uses: &$uses) -> doca_dpa::Result<()> {
                // SAFETY: per the trait contract, the caller's.
                unsafe { $configure_fn(p, uses) }
            }

            unsafe fn set_input(p: *mut Self::Raw, op_type: u32, data: &[u8]) -> doca_dpa::Result<()> {
                #[cfg(doca_sym = $set_input_sym)]
                {
                    let op = $crate::error::fit(Self::SET_INPUT, "op_type", op_type)?;
                    let len = $crate::error::fit(Self::SET_INPUT, "size", data.len())?;
                    // SAFETY: per the trait contract: an idle object, a block that
                    // outlives it.
                    unsafe { $crate::error::rdmi_call!($set_input(p, op, data.as_ptr().cast(), len)) }
                }
                #[cfg(not(doca_sym = $set_input_sym))]
                {
                    let _ = (p, op_type, data);
                    Err($crate::ctx::undeclared(Self::SET_INPUT))
                }
            }

            unsafe fn dpa_handle(p: *mut Self::Raw) -> doca_dpa::Result<u64> {
                let mut h = 0 as _;
                // SAFETY: per the trait contract: a started object; valid out-pointer.
                unsafe { $crate::error::rdmi_call!($handle(p, &mut h)) }?;
                Ok(h as u64)
            }
        }
    };
}
pub(crate) use rdmi_kind;

/// The error of a configuration call the installed header does not declare (the
/// builder method that asks for it does not exist in such a build).
#[allow(dead_code)]
pub(crate) fn undeclared(call: &'static str) -> Error {
    Error::Unavailable {
        what: call,
        reason: "the installed DOCA RDMI header does not declare it".to_owned(),
    }
}

/// The configuration methods both builders have (`ConnectionBuilder`,
/// `PosterBuilder`), invoked inside the builder's `impl` block: `what` names the
/// object (`connection`), `started` its started type; a setter exists only where
/// the installed header declares its function.
macro_rules! builder_methods {
    ($what:literal, $started:ident, set_pd $set_pd:literal, set_input $set_input:literal) => {
        #[doc = concat!(
            "The protection domain (`", $set_pd, "`, EXPERIMENTAL, at start). Connections \
             and posters that work together must use the same one (DOCA answers \
             INVALID_VALUE otherwise)."
        )]
        #[cfg(doca_sym = $set_pd)]
        pub fn pd(mut self, pd: &::doca_verbs::ProtectionDomain) -> Self {
            self.config.pd = Some(pd.clone());
            self
        }

        #[doc = concat!(
            "A firmware-command input block of operation `op_type` (`", $set_input,
            "`, EXPERIMENTAL, at start; PRM passthrough). A block that does not match its \
             operation type fails silently in DOCA. An empty block is refused by `start`."
        )]
        #[cfg(doca_sym = $set_input)]
        pub fn input(mut self, op_type: u32, data: &[u8]) -> Self {
            self.config.inputs.push((op_type, data.to_vec()));
            self
        }

        #[doc = concat!(
            "How long [`", stringify!($started), "::stop`](crate::", stringify!($started),
            "::stop) and `Drop` wait for an asynchronous stop \
             ([`DEFAULT_STOP_TIMEOUT`](crate::DEFAULT_STOP_TIMEOUT) unless set). No DOCA call."
        )]
        pub fn stop_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.config.stop_timeout = timeout;
            self
        }
    };
}
pub(crate) use builder_methods;

/// The methods both started types have (`Connection`, `Poster`), invoked inside
/// its `impl` block: `what` names the object (`connection`), `stopping` its
/// stopping type, `out` what a finished stop hands back, and `stop_doc` the end of
/// `stop`'s documentation.
macro_rules! started_methods {
    ($what:literal, $started:ident, $stopping:ident, stops into $out:ty, $stop_doc:literal) => {
        #[doc = concat!(
                    "The DPA handle (`doca_rdmi_", $what, "_get_dpa_handle`, EXPERIMENTAL, fetched \
             by `start`).\n\n# Safety\nThe value keeps nothing alive: handing it to the \
             device is sound only while the ", $what, " is kept alive by other means."
                )]
        pub unsafe fn raw_handle(&self) -> u64 {
            self.inner.handle()
        }

        /// The context's state (`doca_ctx_get_state`, STABLE).
        pub fn state(&self) -> doca_dpa::Result<$crate::CtxState> {
            self.inner.state()
        }

        #[doc = concat!(
                    "Asks DOCA to stop (`doca_ctx_stop`, STABLE). The result is idle at once or \
             still stopping (IN_PROGRESS, e.g. while received messages are not \
             acknowledged); either way [`", stringify!($stopping), "::wait`](crate::",
                    stringify!($stopping), "::wait) finishes it. On an error the ", $what,
                    " is handed back, still running.\n\nFails with \
             [`doca_dpa::Error::InUse`] (the ", $what, " comes back, running) while \
             launches, threads, DPA structs or posters still hold it."
                )]
        pub fn request_stop(self) -> Result<$stopping, $crate::StopError<$started>> {
            $crate::ctx::Object::request_stop(self.inner)
                .map(|inner| $stopping { inner })
                .map_err(|(e, inner)| $crate::StopError::new(e, $started { inner }))
        }

        #[doc = concat!(
            "Stops the ", $what, " and destroys it (`doca_ctx_stop`; on IN_PROGRESS, \
             `doca_ctx_get_state` until idle, for at most the stop timeout; both STABLE; \
             then `doca_rdmi_", $what, "_destroy`, EXPERIMENTAL). On failure the ", $what,
            " is dropped, which retries the teardown.", $stop_doc
        )]
        pub fn stop(self) -> doca_dpa::Result<$out> {
            let timeout = self.inner.stop_timeout();
            Ok(self.request_stop()?.wait(timeout)?)
        }
    };
}
pub(crate) use started_methods;

/// The methods both stopping types have (`StoppingConnection`,
/// `StoppingPoster`), invoked inside its `impl` block: `what` names the object,
/// `out` what `wait` hands back and `wait_doc` says so.
macro_rules! stopping_methods {
    ($what:literal, $stopping:ident, hands back $out:ty, $wait_doc:literal) => {
        #[doc = concat!(
                    "Waits (polling `doca_ctx_get_state`) for at most `timeout` until the context \
             is idle, then destroys the ", $what, " (`doca_rdmi_", $what, "_destroy`, \
             EXPERIMENTAL)", $wait_doc, ". On a timeout or a failed destroy, the error \
             comes back with the ", $what, ", to wait again."
                )]
        pub fn wait(
            mut self,
            timeout: std::time::Duration,
        ) -> Result<$out, $crate::StopError<$stopping>> {
            self.inner
                .finish_stop(timeout)
                .map_err(|e| $crate::StopError::new(e, self))
        }

        /// The context's state (`doca_ctx_get_state`, STABLE): `Stopping` until the
        /// outstanding work drained, then `Idle`.
        pub fn state(&self) -> doca_dpa::Result<$crate::CtxState> {
            self.inner.state()
        }

        /// Whether the stop was asynchronous and has not been seen to finish yet
        /// (no DOCA call).
        pub fn is_draining(&self) -> bool {
            self.inner.is_draining()
        }
    };
}
pub(crate) use stopping_methods;

/// What an RDMI object uses: dropped only once it is destroyed, buried otherwise.
pub(crate) struct Kept<U> {
    pub(crate) config: Config,
    pub(crate) uses: U,
}

/// The answer to [`Object::request_stop`]: the object, alone and stopping, or the
/// error and the shared object back.
pub(crate) type StopRequest<R> = std::result::Result<Box<Object<R>>, (Error, Arc<Object<R>>)>;

/// An RDMI object of kind `R` from creation to destruction, and everything it must
/// outlive or keep alive. Its `Drop` runs the teardown (stop, destroy) before what
/// it uses goes; a started one is shared (`Arc`) by the public type, the launches,
/// threads and DPA structs given it, and a stopping one is owned alone (`Box`).
///
/// An RDMI object is a member of its datapath's context family: its calls are
/// made under the family's lock (of access [`Anytime`]: DOCA calls it by its own
/// handle, and a receive acknowledgement may be what an RPC's function waits
/// for), the calls that name the DPA context or a completion of it under the
/// family's guard, and those that name a PD or CQ under its verbs context's lock
/// too (taken after the family's).
pub(crate) struct Object<R: RdmiObject> {
    raw: Owned<R, Anytime>,
    /// Its context, known from the builder's `*_as_ctx` call on.
    ctx: Option<Ctx>,
    handle: u64,
    /// Dropped only once the object is destroyed (buried otherwise).
    held: ManuallyDrop<Kept<R::Uses>>,
}

impl<R: RdmiObject> Object<R> {
    /// Creates the object (`R::create`), configures it in DOCA's documented order —
    /// PD, `*_as_ctx`, `doca_ctx_set_datapath_on_dpa`, the completion source, the
    /// kind's own configuration, the input blocks — starts it (`doca_ctx_start`) and
    /// fetches its DPA handle. On failure everything made so far is destroyed, and
    /// what it used released afterwards.
    pub(crate) fn start(config: Config, uses: R::Uses) -> Result<Arc<Object<R>>> {
        config.check::<R>()?;
        let raw = R::create(&config, &uses)?;
        let domain = config.dpa.domain().clone();
        let mut object = Object {
            // SAFETY: what its create call just returned: NULL or a new object that
            // nothing else owns, handed over here, in its datapath's family.
            raw: unsafe { Owned::new(R::CREATE, raw, &domain) }?,
            ctx: None,
            handle: 0,
            held: ManuallyDrop::new(Kept { config, uses }),
        };
        object.handle = object.configure_and_start()?;
        tracing::debug!(target: "doca_rdmi::ctx", object = R::NAME, "started");
        Ok(Arc::new(object))
    }

    fn configure_and_start(&mut self) -> Result<u64> {
        let config = &self.held.config;
        // The family's guard first (the calls naming the DPA context or its
        // completion need it, the object's own calls its lock), then the verbs
        // context's lock (the PD and CQ).
        let family = config.dpa.enter()?;
        let verbs = config.verbs.lock();
        let p = self.raw.as_ptr(&family);
        if let Some(pd) = &config.pd {
            // SAFETY: our idle object; the PD (of the object's verbs context:
            // `Config::check`) is kept alive by `held`, as long as the object.
            unsafe { R::set_pd(p, pd.as_ptr(&verbs)) }?;
        }
        // SAFETY: our live object, under its family's lock.
        let raw_ctx = unsafe { R::as_ctx(p) };
        // SAFETY: the context of a live object that owns it and outlives the
        // `Ctx` (dropped with the object), whose calls are the family's.
        let ctx = self
            .ctx
            .insert(unsafe { Ctx::new(R::AS_CTX, raw_ctx, config.dpa.domain()) }?);
        // SAFETY: an idle context of our live object and a started DPA context
        // that the object keeps alive (`held`), under the family's guard.
        unsafe {
            core_call!(doca_ctx_set_datapath_on_dpa(
                ctx.as_ptr(&family),
                config.dpa.as_ptr(&family).cast()
            ))
        }?;
        match &config.source {
            // SAFETY: our idle object and a started completion of its datapath
            // context (`Config::check`), kept alive by `held`; under the family's
            // guard.
            Held::Dpa(c) => unsafe { R::attach_dpa_completion(p, c.as_ptr(&family)) }?,
            // SAFETY: our idle object and a live CQ of its verbs context
            // (`Config::check`) kept alive by `held`.
            Held::Cq(q) => unsafe { R::attach_cq(p, q.as_ptr(&verbs)) }?,
        }
        drop(verbs);
        // SAFETY: our idle object; what it uses is kept alive by `held`.
        unsafe { R::configure(p, &self.held.uses) }?;
        for (op_type, data) in &config.inputs {
            // SAFETY: our idle object; `data` lives in `held`, as long as the object.
            unsafe { R::set_input(p, *op_type, data) }?;
        }
        ctx.start()?;
        // SAFETY: our started object on the DPA datapath, under its family's lock.
        let handle = unsafe { R::dpa_handle(p) };
        drop(family);
        handle
    }

    /// The object, for DOCA calls under its family's lock.
    pub(crate) fn raw(&self) -> &Raw<R::Raw, Anytime> {
        self.raw.raw()
    }

    /// Its DPA handle.
    pub(crate) fn handle(&self) -> u64 {
        self.handle
    }

    /// The configuration it was started with.
    pub(crate) fn config(&self) -> &Config {
        &self.held.config
    }

    /// What the kind uses.
    pub(crate) fn uses(&self) -> &R::Uses {
        &self.held.uses
    }

    /// The object's context (known from the builder's `*_as_ctx` call on).
    pub(crate) fn ctx(&self) -> Result<&Ctx> {
        self.ctx
            .as_ref()
            .ok_or_else(|| invalid(R::DESTROY, "the object has no DOCA context"))
    }

    /// The context's state (`doca_ctx_get_state`).
    pub(crate) fn state(&self) -> Result<CtxState> {
        self.ctx()?.state()
    }

    /// Whether an asynchronous stop has not been seen to finish (no DOCA call).
    pub(crate) fn is_draining(&self) -> bool {
        self.ctx().is_ok_and(|c| c.phase() == Phase::Stopping)
    }

    /// The phase, for `Debug`.
    pub(crate) fn phase(&self) -> Option<Phase> {
        self.ctx().map(Ctx::phase).ok()
    }

    /// Records a launch, thread or DPA struct that uses the started object
    /// (`what` names it in a foreign-context error), and hands its DPA handle.
    pub(crate) fn lower(self: &Arc<Self>, keep: &mut Keep<'_>, what: &'static str) -> Result<u64> {
        keep.check_context(&self.held.config.dpa, what)?;
        keep.keep(KeepAlive::new(self));
        Ok(self.handle)
    }

    /// Takes sole ownership of the started object and asks DOCA to stop it
    /// (`doca_ctx_stop`). On failure the shared object comes back with the error:
    /// [`Error::InUse`] while launches, threads, DPA structs or posters still hold it,
    /// or DOCA's refusal.
    pub(crate) fn request_stop(shared: Arc<Object<R>>) -> StopRequest<R> {
        let object = sole(shared, "doca_ctx_stop")?;
        match object.ctx().and_then(Ctx::request_stop) {
            Ok(()) => Ok(Box::new(object)),
            Err(e) => Err((e, Arc::new(object))),
        }
    }

    /// The stop timeout the builder set.
    pub(crate) fn stop_timeout(&self) -> Duration {
        self.held.config.stop_timeout
    }

    /// While stopping: polls `doca_ctx_get_state` until the context is idle, for at
    /// most `timeout` (a TIME_OUT error naming `doca_ctx_stop` after), then destroys
    /// the object and hands back what the kind returns. On a failure it stays as it
    /// is, to wait again.
    pub(crate) fn finish_stop(&mut self, timeout: Duration) -> Result<R::Out> {
        self.ctx()?
            .wait_idle(timeout, OnQueryError::Return, || ())?;
        self.destroy()?;
        R::hand_back(&mut self.held.uses)
    }

    /// The destroy call, once; the context must be idle. On a failure it may be
    /// retried.
    fn destroy(&mut self) -> Result<()> {
        self.raw.destroy()?;
        if let Some(ctx) = &self.ctx {
            ctx.set_phase(Phase::Destroyed);
        }
        tracing::debug!(target: "doca_rdmi::ctx", object = R::NAME, "destroyed");
        Ok(())
    }

    /// Stops the context if it runs (waiting out IN_PROGRESS for at most the stop
    /// timeout), then destroys the object. The destroy is attempted even when
    /// stopping failed; the first error is returned.
    fn teardown(&mut self) -> Result<()> {
        if self.raw.is_destroyed() {
            return Ok(());
        }
        let stopped = match &self.ctx {
            Some(ctx) => ctx.stop(self.stop_timeout(), OnQueryError::Return, || ()),
            None => Ok(()),
        };
        let destroyed = self.destroy();
        stopped.and(destroyed)
    }
}

impl<R: RdmiObject> Drop for Object<R> {
    fn drop(&mut self) {
        // The teardown emits `tracing` events (user code, which may panic): caught,
        // so that a panic there buries rather than frees what the device may still
        // use.
        let torn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.teardown()));
        if self.raw.is_destroyed() {
            // SAFETY: dropped once, here: the object is destroyed, DOCA no longer
            // uses what it held.
            unsafe { ManuallyDrop::drop(&mut self.held) };
        } else {
            // Buried before any report (user code) runs: the device may still use
            // what it holds (a connection's receive buffer, which it may write).
            self.raw.bury();
            // SAFETY: taken once, here, to be buried; never used again.
            doca_dpa::core::bury(unsafe { ManuallyDrop::take(&mut self.held) });
        }
        match torn {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!(target: "doca_rdmi::ctx", object = R::NAME, error = %e, destroyed = self.raw.is_destroyed(), "tearing an RDMI object down during drop failed (what it uses is leaked unless it was destroyed)")
            }
        }
    }
}

impl<R: RdmiObject> fmt::Debug for Object<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Object")
            .field("kind", &R::NAME)
            .field("handle", &self.handle)
            .field("phase", &self.phase())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use doca_dpa::core::doca_error;
    use doca_dpa::ErrorCode;

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
