//! The DPA context: configured by [`DpaBuilder`], used as a started [`Dpa`].

use std::ffi::CString;
use std::fmt;
use std::path::Path;
use std::ptr::NonNull;
use std::sync::Arc;
use std::time::Duration;

use doca_dpa_sys as sys;

use crate::app::App;
use crate::core::{Domain, Raw};
use crate::device::Device;
use crate::error::{doca_call, Error, ErrorCode, Result};
use crate::family::Family;

/// The guard of a DPA context family (a base context, its extensions and every
/// object made on them): proof that this thread holds the family's lock while no
/// `doca_dpa_rpc` of the family runs. The raw pointers of the family's objects
/// ([`Dpa::as_ptr`], [`CompletionEvent::as_ptr`](crate::CompletionEvent::as_ptr),
/// [`DpaThread::as_ptr`](crate::DpaThread::as_ptr)…) are reachable through it
/// only, so a raw DOCA call on them is made under it. Made by [`Dpa::enter`];
/// released when dropped; not `Send`. See `docs/concurrency.md`.
pub type FamilyGuard<'a> = crate::core::Guard<'a>;

/// Verbosity of the device-side log (`doca_dpa_dev_log_level_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LogLevel {
    /// No device logs.
    Disable,
    /// Errors only.
    Error,
    /// Warnings and errors.
    Warning,
    /// Informational messages (DOCA's default).
    Info,
    /// Everything.
    Debug,
}

impl LogLevel {
    fn raw(self) -> sys::doca_dpa_dev_log_level_t {
        (match self {
            LogLevel::Disable => sys::DOCA_DPA_DEV_LOG_LEVEL_DISABLE,
            LogLevel::Error => sys::DOCA_DPA_DEV_LOG_LEVEL_ERROR,
            LogLevel::Warning => sys::DOCA_DPA_DEV_LOG_LEVEL_WARNING,
            LogLevel::Info => sys::DOCA_DPA_DEV_LOG_LEVEL_INFO,
            LogLevel::Debug => sys::DOCA_DPA_DEV_LOG_LEVEL_DEBUG,
        }) as sys::doca_dpa_dev_log_level_t
    }
}

/// The limits of a DPA, queried from a created context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Most threads one launch may use (`doca_dpa_get_max_threads_per_kernel`).
    pub max_threads_per_kernel: u32,
    /// How long a kernel may run before the DPA kills it and the context turns
    /// fatal (`doca_dpa_get_kernel_max_run_time`). Zero: the device has no limit
    /// (then nothing bounds a stopped DPA thread's last activation, and what it
    /// used is kept for good: see [`DpaThread`](crate::DpaThread)).
    pub kernel_max_run_time: Duration,
    /// DPA cores (`doca_dpa_get_core_num`).
    pub cores: u32,
    /// Execution units per core (`doca_dpa_get_num_eus_per_core`).
    pub eus_per_core: u32,
    /// Execution units available to applications
    /// (`doca_dpa_get_total_num_eus_available`).
    pub eus_available: u32,
}

/// Whether a context is still usable, from `doca_dpa_peek_at_last_error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Health {
    /// No device-side error so far.
    Ok,
    /// A device-side error occurred; the context must be destroyed. Crash data
    /// is in `doca_dpa_fatal.<pid>.*` files (temp dir or log path).
    Fatal,
}

impl Limits {
    /// The kernel run-time limit, `None` when the device has none (a reported 0).
    fn run_time_limit(&self) -> Option<Duration> {
        Some(self.kernel_max_run_time).filter(|l| !l.is_zero())
    }
}

impl Health {
    /// What `doca_dpa_peek_at_last_error` returned, read: BAD_STATE is a fatal
    /// context, any other error a failed call.
    fn of(peeked: Result<()>) -> Result<Health> {
        match peeked {
            Ok(()) => Ok(Health::Ok),
            Err(e) if e.code() == Some(ErrorCode::BAD_STATE) => Ok(Health::Fatal),
            Err(e) => Err(e),
        }
    }
}

pub(crate) struct DpaInner {
    /// The context: a quiet object of the family's domain.
    raw: Raw<sys::doca_dpa>,
    /// The context's number in this process (from 1), for messages.
    serial: u64,
    /// Set by [`Dpa::destroy`], which already tore the context down.
    torn_down: bool,
    /// The context this one extends (kept alive: extended contexts go first).
    _base: Option<Dpa>,
    device: Device,
    app: App,
    pub(crate) limits: Limits,
    /// The kernel run-time limit of the context's own device, `None` if it has
    /// none (or it is not known): what bounds a stopped thread's last activation
    /// (`family.rs`).
    run_time_limit: Option<Duration>,
    /// What the context shares with the rest of its family (`family.rs`): the RPC
    /// gate and the deferred records. One family for a base context and the
    /// contexts that extend it ([`Dpa::extend`]): an extended context runs in its
    /// base's DPA process, so an RPC on one of them keeps every call of the others
    /// waiting.
    family: Arc<Family>,
}

static_assertions::assert_impl_all!(DpaInner: Send, Sync);

fn next_serial() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Drop for DpaInner {
    fn drop(&mut self) {
        if self.torn_down {
            return;
        }
        // An extended context dropped under the family's lock during an RPC of
        // its family: its teardown could not wait for the RPC there, so the family
        // tears it down once the RPC ended (`family.rs`). (A base context's last
        // handle cannot go while an RPC of its family runs or is owed: the RPC's
        // caller, or its deferred arguments, hold one.)
        if let Some(base) = self._base.clone() {
            if crate::family::must_put_off(&base) {
                self.torn_down = true;
                // SAFETY: handed on: this `DpaInner` makes no more calls with it
                // (`torn_down`).
                let raw = unsafe { self.raw.handed_on() };
                let later = DpaInner {
                    raw,
                    serial: self.serial,
                    torn_down: false,
                    _base: self._base.take(),
                    device: self.device.clone(),
                    app: self.app,
                    limits: self.limits,
                    run_time_limit: self.run_time_limit,
                    family: self.family.clone(),
                };
                crate::family::drop_outside_rpc(&base, later);
                return;
            }
        }
        if let Err(e) = self.teardown() {
            tracing::warn!(target: "doca_dpa::dpa", error = %e, "tearing the DPA context down during drop failed");
        }
    }
}

impl DpaInner {
    /// `doca_dpa_stop` then `doca_dpa_destroy`. Children (threads, events,
    /// memory, launchers) each hold an `Arc` of this, so they are gone.
    fn teardown(&mut self) -> Result<()> {
        self.torn_down = true;
        // Under the family's guard: an extended context shares it with its base,
        // which may still run RPCs.
        let guard = self.family.domain.enter()?;
        let p = self.raw.get(&guard);
        let result = (|| {
            // SAFETY: a started context created by doca_dpa_create (or extended),
            // torn down once.
            match unsafe { doca_call!(doca_dpa_stop(p)) } {
                // An already-stopped context answers BAD_STATE.
                Ok(()) => {}
                Err(e) if e.code() == Some(ErrorCode::BAD_STATE) => {}
                Err(e) => {
                    // Still destroy: a failed stop must not leak the context.
                    // SAFETY: as above.
                    let _ = unsafe { doca_call!(doca_dpa_destroy(p)) };
                    return Err(e);
                }
            }
            // SAFETY: as above.
            unsafe { doca_call!(doca_dpa_destroy(p)) }
        })();
        drop(guard);
        result?;
        tracing::debug!(target: "doca_dpa::dpa", app = self.app.name(), "DPA context destroyed");
        Ok(())
    }
}

/// A DPA context being configured (`doca_dpa_create` done, not started).
///
/// Settings that DOCA accepts only before `doca_dpa_start` live here, so they
/// cannot be called on a started [`Dpa`]:
///
/// ```compile_fail
/// # fn f(dpa: &doca_dpa::Dpa, app: doca_dpa::App) {
/// dpa.set_app(app); // no such method once started
/// # }
/// ```
pub struct DpaBuilder {
    /// The context, in the domain of the family it starts.
    raw: Option<Raw<sys::doca_dpa>>,
    family: Family,
    device: Device,
    app: Option<App>,
}

static_assertions::assert_impl_all!(DpaBuilder: Send, Sync);

impl fmt::Debug for DpaBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpaBuilder")
            .field("device", &self.device)
            .field("app", &self.app.map(|a| a.name()))
            .finish()
    }
}

impl Drop for DpaBuilder {
    fn drop(&mut self) {
        let Some(raw) = self.raw.take() else {
            return;
        };
        // SAFETY: an unstarted context of ours, destroyed once, under its
        // family's lock.
        let destroyed = raw.with(|p, _| unsafe { doca_call!(doca_dpa_destroy(p)) });
        if let Err(e) = destroyed.and_then(|r| r) {
            tracing::warn!(target: "doca_dpa::dpa", error = %e, "destroying an unstarted DPA context failed");
        }
    }
}

impl DpaBuilder {
    /// Creates a DPA context on `device` (`doca_dpa_create`, EXPERIMENTAL).
    ///
    /// Fails with [`Error::NoDpa`] naming the device when it has no DPA
    /// (DOCA answers NOT_SUPPORTED).
    pub fn new(device: &Device) -> Result<DpaBuilder> {
        let mut raw = std::ptr::null_mut();
        let created = {
            let dev = device.lock();
            // SAFETY: a live device, under its lock; valid out-pointer.
            unsafe { doca_call!(doca_dpa_create(device.as_ptr(&dev), &mut raw)) }
        };
        match created {
            Err(e) if e.code() == Some(ErrorCode::NOT_SUPPORTED) => {
                return Err(Error::NoDpa {
                    device: device.info().to_string(),
                    call: "doca_dpa_create",
                    code: e.code(),
                })
            }
            other => other?,
        }
        let ptr = NonNull::new(raw)
            .ok_or_else(|| Error::invalid("doca_dpa_create", "DOCA returned NULL"))?;
        let family = Family::new();
        // Owned before the event (user code that may panic) is emitted.
        let builder = DpaBuilder {
            // SAFETY: the new context, whose calls are its family's from here on.
            raw: Some(unsafe { family.domain.raw(ptr) }),
            family,
            device: device.clone(),
            app: None,
        };
        tracing::debug!(target: "doca_dpa::dpa", device = %device.info().pci_addr, "DPA context created");
        Ok(builder)
    }

    /// Runs `f` with the unstarted context, under its family's lock.
    fn with_raw<T>(&self, f: impl FnOnce(*mut sys::doca_dpa) -> Result<T>) -> Result<T> {
        match &self.raw {
            Some(raw) => raw.with(|p, _| f(p))?,
            None => Err(Error::invalid("doca_dpa_start", "context already consumed")),
        }
    }

    /// Sets the DPA application (`doca_dpa_set_app`).
    pub fn app(mut self, app: App) -> Result<Self> {
        // SAFETY: an unstarted context and an app symbol of this program.
        self.with_raw(|p| unsafe { doca_call!(doca_dpa_set_app(p, app.as_ptr())) })?;
        self.app = Some(app);
        Ok(self)
    }

    /// Sets the device log level (`doca_dpa_set_log_level`).
    pub fn log_level(self, level: LogLevel) -> Result<Self> {
        // SAFETY: an unstarted context.
        self.with_raw(|p| unsafe { doca_call!(doca_dpa_set_log_level(p, level.raw())) })?;
        Ok(self)
    }

    /// Writes device logs to a file instead of stdout
    /// (`doca_dpa_log_file_set_path`).
    pub fn log_file(self, path: &Path) -> Result<Self> {
        let c = path_cstring("doca_dpa_log_file_set_path", path)?;
        // SAFETY: an unstarted context and a NUL-terminated path.
        self.with_raw(|p| unsafe { doca_call!(doca_dpa_log_file_set_path(p, c.as_ptr())) })?;
        Ok(self)
    }

    /// Writes device traces to a file (`doca_dpa_trace_file_set_path`).
    pub fn trace_file(self, path: &Path) -> Result<Self> {
        let c = path_cstring("doca_dpa_trace_file_set_path", path)?;
        // SAFETY: an unstarted context and a NUL-terminated path.
        self.with_raw(|p| unsafe { doca_call!(doca_dpa_trace_file_set_path(p, c.as_ptr())) })?;
        Ok(self)
    }

    /// Queries the DPA's limits on this created, not yet started context (no
    /// application needed): `doca_dpa_get_max_threads_per_kernel`,
    /// `doca_dpa_get_kernel_max_run_time`, `doca_dpa_get_core_num`,
    /// `doca_dpa_get_num_eus_per_core` and
    /// `doca_dpa_get_total_num_eus_available` (all EXPERIMENTAL).
    ///
    /// For tools that inspect a device (`doca-doctor`); a started context has
    /// the same values as [`Dpa::limits`]. DOCA does not document whether every
    /// query answers before `doca_dpa_start`: an error here says which call
    /// refused.
    ///
    /// ```
    /// # fn main() -> doca_dpa::Result<()> {
    /// let device = doca_dpa::Device::open_first_with_dpa()?;
    /// let limits = doca_dpa::DpaBuilder::new(&device)?.limits()?;
    /// println!("{} threads per kernel at most", limits.max_threads_per_kernel);
    /// # Ok(()) }
    /// ```
    pub fn limits(&self) -> Result<Limits> {
        // SAFETY: a created context, under its family's lock.
        self.with_raw(|p| unsafe { query_limits(p) })
    }

    /// Starts the context (`doca_dpa_start`) and queries its limits.
    ///
    /// An application must have been set with [`DpaBuilder::app`].
    pub fn start(mut self) -> Result<Dpa> {
        let app = self.app.ok_or_else(|| {
            Error::invalid(
                "doca_dpa_start",
                "set an application with DpaBuilder::app before starting",
            )
        })?;
        let limits = self.with_raw(|p| {
            // SAFETY: an unstarted context with an app, under its family's lock.
            unsafe { doca_call!(doca_dpa_start(p)) }?;
            // SAFETY: as above: a started context.
            match unsafe { query_limits(p) } {
                Ok(l) => Ok(Ok(l)),
                Err(e) => {
                    // SAFETY: our started context; undone before reporting.
                    let _ = unsafe { doca_call!(doca_dpa_stop(p)) };
                    // SAFETY: as above.
                    let _ = unsafe { doca_call!(doca_dpa_destroy(p)) };
                    Ok(Err(e))
                }
            }
        })?;
        let raw = self
            .raw
            .take()
            .ok_or_else(|| Error::invalid("doca_dpa_start", "context already consumed"))?;
        let limits = limits?;
        let family = std::mem::replace(&mut self.family, Family::new());
        // Owned before the event (user code that may panic) is emitted.
        let dpa = Dpa {
            inner: Arc::new(DpaInner {
                serial: next_serial(),
                raw,
                torn_down: false,
                _base: None,
                device: self.device.clone(),
                app,
                limits,
                run_time_limit: limits.run_time_limit(),
                family: Arc::new(family),
            }),
        };
        tracing::info!(target: "doca_dpa::dpa", app = app.name(), device = %self.device.info().pci_addr, "DPA context started");
        Ok(dpa)
    }
}

fn path_cstring(call: &'static str, path: &Path) -> Result<CString> {
    let text = path
        .to_str()
        .ok_or_else(|| Error::invalid(call, "the path is not UTF-8"))?;
    CString::new(text).map_err(|_| Error::invalid(call, "the path contains a NUL byte"))
}

/// # Safety
/// `p` is a created context whose family's lock this thread holds.
unsafe fn query_limits(p: *mut sys::doca_dpa) -> Result<Limits> {
    let mut threads = 0;
    let mut run_time = 0;
    let mut cores = 0;
    let mut eus = 0;
    let mut total = 0;
    // SAFETY: a created context; valid out-pointers.
    unsafe { doca_call!(doca_dpa_get_max_threads_per_kernel(p, &mut threads)) }?;
    // SAFETY: as above: a created context; valid out-pointers.
    unsafe { doca_call!(doca_dpa_get_kernel_max_run_time(p, &mut run_time)) }?;
    // SAFETY: as above: a created context; valid out-pointers.
    unsafe { doca_call!(doca_dpa_get_core_num(p, &mut cores)) }?;
    // SAFETY: as above: a created context; valid out-pointers.
    unsafe { doca_call!(doca_dpa_get_num_eus_per_core(p, &mut eus)) }?;
    // SAFETY: as above: a created context; valid out-pointers.
    unsafe { doca_call!(doca_dpa_get_total_num_eus_available(p, &mut total)) }?;
    // DOCA reports whole seconds; the software DPA knows the exact limit.
    #[cfg(doca_backend = "sim")]
    let max_run_time = sys::sim::max_run_time(p).unwrap_or(Duration::from_secs(run_time as u64));
    #[cfg(not(doca_backend = "sim"))]
    let max_run_time = Duration::from_secs(run_time as u64);
    Ok(Limits {
        max_threads_per_kernel: threads as u32,
        kernel_max_run_time: max_run_time,
        cores: cores as u32,
        eus_per_core: eus as u32,
        eus_available: total as u32,
    })
}

/// A started DPA context.
///
/// Cheap to clone; objects made from it (events, memory, threads, launchers)
/// keep it alive, so it is stopped and destroyed (`doca_dpa_stop`,
/// `doca_dpa_destroy`) only after them.
///
/// `Send + Sync`: keep it in a service's shared state and use it (and everything
/// made from it) from any thread or task. DOCA DPA objects are not thread-safe:
/// every DOCA call on the context, its extensions and the objects made on them
/// is made under the family's guard ([`Dpa::enter`], [`FamilyGuard`]), so DOCA
/// never sees two threads use them at once, while other families' calls run in
/// parallel (`docs/concurrency.md`).
#[derive(Clone)]
pub struct Dpa {
    inner: Arc<DpaInner>,
}

static_assertions::assert_impl_all!(Dpa: Clone);

/// A [`Dpa`] that nothing else shares ([`Dpa::into_send`]); [`SendDpa::into_dpa`]
/// makes it a `Dpa` again. No DOCA call. Kept for programs written when `Dpa` was
/// not `Send`: a `Dpa` itself moves between threads now.
pub struct SendDpa {
    inner: Arc<DpaInner>,
}

static_assertions::assert_impl_all!(SendDpa: Send);
static_assertions::assert_not_impl_any!(SendDpa: Clone);

impl fmt::Debug for SendDpa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendDpa")
            .field("device", &self.inner.device.info().pci_addr)
            .finish_non_exhaustive()
    }
}

impl SendDpa {
    /// The context, on this thread.
    pub fn into_dpa(self) -> Dpa {
        Dpa { inner: self.inner }
    }
}

impl fmt::Debug for Dpa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dpa")
            .field("device", &self.inner.device.info().pci_addr)
            .field("app", &self.inner.app.name())
            .field("limits", &self.inner.limits)
            .finish()
    }
}

impl Dpa {
    /// Stops and destroys the context now (`doca_dpa_stop`,
    /// `doca_dpa_destroy`), reporting failures that `Drop` could only log.
    ///
    /// Fails with [`Error::InUse`] (and changes nothing) while clones of this
    /// `Dpa` or objects made from it are alive — including what a dropped DPA
    /// thread that ran still holds, until the kernel run-time limit has passed
    /// since its stop (see [`DpaThread`](crate::DpaThread)).
    pub fn destroy(self) -> Result<()> {
        match Arc::try_unwrap(self.inner) {
            Ok(mut inner) => inner.teardown(),
            Err(inner) => Err(Error::InUse {
                call: "doca_dpa_destroy",
                users: Arc::strong_count(&inner) - 1,
            }),
        }
    }

    /// Shorthand for `DpaBuilder::new(device)?.app(app)?.start()`.
    pub fn start(device: &Device, app: App) -> Result<Dpa> {
        DpaBuilder::new(device)?.app(app)?.start()
    }

    /// The guard of the context's family (it, the contexts extending it or that
    /// it extends, and every object made on them): waits until no `doca_dpa_rpc`
    /// of the family runs (with no lock held), then holds the family's lock until
    /// dropped. The raw pointers of the family's objects are reachable through it
    /// only ([`Dpa::as_ptr`]); every DOCA call of this crate on a family object is
    /// made under it. No RPC of the family can begin while it is held, and other
    /// threads' calls on the family wait: hold it for raw calls, not across waits.
    ///
    /// Reentrant: library calls on the same family may be made while it is held
    /// (a blocking wait and [`Dpa::rpc`] are refused there: what they wait for may
    /// need the lock). Hold one family's guard at a time (two families' guards
    /// taken in opposite orders by two threads deadlock).
    ///
    /// [`Error::Unavailable`] on a thread that holds the family's lock already
    /// while an RPC runs (it cannot wait there). See `docs/concurrency.md`.
    pub fn enter(&self) -> Result<FamilyGuard<'_>> {
        self.inner.family.domain.enter()
    }

    /// The raw `doca_dpa`, for calls this crate does not wrap (e.g.
    /// `doca_ctx_set_datapath_on_dpa` by another library), made while `guard` (of
    /// this context's family: [`Dpa::enter`]) lives. Valid while this `Dpa` or a
    /// clone lives; do not stop or destroy it.
    #[inline]
    pub fn as_ptr(&self, guard: &FamilyGuard<'_>) -> *mut sys::doca_dpa {
        self.inner.raw.get(guard)
    }

    /// Runs `f` with the raw context and the family's guard (as [`Dpa::enter`]):
    /// every DOCA call of this crate naming the context, or an object made on it
    /// (a thread, a completion…), is made inside it. For doca-rdmi's (and other
    /// crates') calls naming a DPA context or an object made on it; not an API.
    #[doc(hidden)]
    pub fn with_ctx<T>(
        &self,
        f: impl FnOnce(*mut sys::doca_dpa, &FamilyGuard<'_>) -> Result<T>,
    ) -> Result<T> {
        let guard = self.enter()?;
        f(self.inner.raw.get(&guard), &guard)
    }

    /// The lock domain of the context's family, for objects made on it by other
    /// crates (their [`Owned`](crate::core::Owned) handles and
    /// [`Raw`](crate::core::Raw)s); not an API.
    #[doc(hidden)]
    pub fn domain(&self) -> &Domain {
        &self.inner.family.domain
    }

    /// [`Owned::teardown`](crate::core::Owned::teardown) of an object made on this
    /// context (which takes the family's guard itself); kept for other crates'
    /// objects written against it. Not an API.
    #[doc(hidden)]
    pub fn teardown_child<O: crate::core::DocaObject>(
        &self,
        raw: &mut crate::core::Owned<O>,
    ) -> crate::core::Outcome {
        debug_assert!(raw.domain().same(self.domain()));
        raw.teardown()
    }

    /// The device the context runs on.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }

    /// The application it runs.
    pub fn app(&self) -> App {
        self.inner.app
    }

    /// Limits queried when the context started.
    pub fn limits(&self) -> Limits {
        self.inner.limits
    }

    /// The context as a [`SendDpa`], if nothing else shares it: `self` comes back
    /// as the error while any clone of it, any object made from it (DPA memory,
    /// events, launchers, threads… hold it), another handle of its device, or a base
    /// context it extends exists. No DOCA call. A `Dpa` is `Send + Sync` itself
    /// now; this stays for programs written before it was.
    ///
    /// ```
    /// # fn f(dpa: doca_dpa::Dpa) {
    /// let moving = dpa.into_send().expect("nothing else shares the context");
    /// std::thread::spawn(move || {
    ///     let dpa = moving.into_dpa();
    ///     // ... use it on this thread
    /// # drop(dpa);
    /// });
    /// # }
    /// ```
    pub fn into_send(self) -> std::result::Result<SendDpa, Dpa> {
        let sole = Arc::strong_count(&self.inner) == 1
            && Arc::weak_count(&self.inner) == 0
            && self.inner._base.is_none()
            && self.inner.device.is_unshared();
        if sole {
            Ok(SendDpa { inner: self.inner })
        } else {
            Err(self)
        }
    }

    /// The context's number in this process (from 1, in creation order): how
    /// messages name it. No DOCA call.
    pub fn serial(&self) -> u64 {
        self.inner.serial
    }

    /// What every clone shares: the identity of the context.
    /// The id of the context's RPC thread, once an RPC started it (no DOCA call;
    /// waits for an RPC in progress). For tests: repeated RPCs reuse it.
    #[doc(hidden)]
    pub fn rpc_thread(&self) -> Option<std::thread::ThreadId> {
        self.inner.family.gate.worker_id()
    }

    /// What the context shares with the rest of its family.
    pub(crate) fn family(&self) -> &Family {
        &self.inner.family
    }

    /// The kernel run-time limit of the context's device; `None` when it has
    /// none (a reported 0), or an extended context's could not be queried.
    pub(crate) fn run_time_limit(&self) -> Option<Duration> {
        self.inner.run_time_limit
    }

    pub(crate) fn identity(&self) -> *const () {
        Arc::as_ptr(&self.inner).cast()
    }

    /// Whether `other` is this context (or a clone of it).
    pub fn same_context(&self, other: &Dpa) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// What the device reported about a fault of this context, when it says: the
    /// software DPA's fault report. Real DOCA writes crash data to
    /// `doca_dpa_fatal.<pid>.*` files instead.
    ///
    /// Asked under the family's guard (it waits for an RPC in progress); `None`
    /// when the guard cannot be had (inside one while an RPC runs).
    pub fn fault_report(&self) -> Option<String> {
        self.enter().ok().and_then(|g| self.fault_report_in(&g))
    }

    /// [`Dpa::fault_report`] under `guard`.
    fn fault_report_in(&self, guard: &FamilyGuard<'_>) -> Option<String> {
        #[cfg(doca_backend = "sim")]
        {
            sys::sim::fault_report(self.as_ptr(guard)).map(|r| r.to_string())
        }
        #[cfg(not(doca_backend = "sim"))]
        {
            let _ = guard;
            None
        }
    }

    /// [`Error::ContextFatal`] for `call`, with the fault report.
    pub(crate) fn fatal_error(&self, call: &'static str) -> Error {
        Error::ContextFatal {
            call,
            fault: self.fault_report(),
        }
    }

    /// [`Dpa::fatal_error`] without waiting for an RPC (for a future's poll): the
    /// report is left out while one runs.
    fn fatal_error_now(&self, call: &'static str) -> Error {
        let guard = self.inner.family.domain.try_enter();
        Error::ContextFatal {
            call,
            fault: guard.and_then(|g| self.fault_report_in(&g)),
        }
    }

    /// Whether a device-side error made the context unusable
    /// (`doca_dpa_peek_at_last_error`; sticky once fatal).
    pub fn health(&self) -> Result<Health> {
        // SAFETY: a started context, under its family's guard.
        Health::of(self.with_ctx(|ctx, _| unsafe { doca_call!(doca_dpa_peek_at_last_error(ctx)) }))
    }

    /// [`Dpa::health`] if it can be asked without waiting for a `doca_dpa_rpc`
    /// of the context's family in progress: `None` while one may be.
    pub(crate) fn try_health(&self) -> Option<Result<Health>> {
        let guard = self.inner.family.domain.try_enter()?;
        let ptr = self.as_ptr(&guard);
        // SAFETY: a started context, under its family's guard.
        let peeked = unsafe { doca_call!(doca_dpa_peek_at_last_error(ptr)) };
        drop(guard);
        Some(Health::of(peeked))
    }

    /// [`Dpa::health`] for a future's `poll`, which must not block: `Pending` while
    /// a `doca_dpa_rpc` of the context's family is in progress (the health would
    /// wait for it at the gate, holding up the runtime's thread, and with it a task
    /// that may be what the RPC waits for), with `cx` woken once the gate may be
    /// free.
    pub(crate) fn poll_health(
        &self,
        cx: &std::task::Context<'_>,
    ) -> std::task::Poll<Result<Health>> {
        if let Some(health) = self.try_health() {
            return std::task::Poll::Ready(health);
        }
        // Registered, then looked at again: a call that returned between the first
        // look and the registration woke the list before `cx` was in it.
        let family = &self.inner.family.domain;
        family.wake_when_idle(cx.waker());
        match self.try_health() {
            Some(health) => {
                family.forget_waker(cx.waker());
                std::task::Poll::Ready(health)
            }
            None => std::task::Poll::Pending,
        }
    }

    /// For a future's `poll`: [`Error::ContextFatal`] (naming `call`) if the
    /// context is known to be fatal; `Ok` if it is healthy, or if an RPC in
    /// progress keeps its health from being asked without blocking (then `cx` is
    /// woken once it can be: [`Dpa::poll_health`]).
    pub(crate) fn poll_fatal(&self, cx: &std::task::Context<'_>, call: &'static str) -> Result<()> {
        match self.poll_health(cx) {
            std::task::Poll::Ready(Ok(Health::Fatal)) => Err(self.fatal_error_now(call)),
            std::task::Poll::Ready(Err(e)) => Err(e),
            std::task::Poll::Ready(Ok(Health::Ok)) | std::task::Poll::Pending => Ok(()),
        }
    }

    /// `result` of a DOCA call on this context, as a user should see it: once a
    /// device-side error made the context fatal, DOCA refuses calls on it
    /// (BAD_STATE on the software DPA), and that refusal becomes
    /// [`Error::ContextFatal`] with the fault report (one
    /// `doca_dpa_peek_at_last_error`, on the failure path only).
    pub(crate) fn or_fatal<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Err(e @ Error::Doca { call, .. }) => match self.health() {
                Ok(Health::Fatal) => Err(self.fatal_error(call)),
                _ => Err(e),
            },
            other => other,
        }
    }

    /// Fails with [`Error::ContextFatal`] if the context is fatal.
    pub(crate) fn ensure_healthy(&self, call: &'static str) -> Result<()> {
        match self.health()? {
            Health::Ok => Ok(()),
            Health::Fatal => Err(self.fatal_error(call)),
        }
    }

    /// Extends this (base) context onto another device, for resources of a
    /// VF or SF (`doca_dpa_device_extend`); the new context is started and
    /// keeps this one alive. The two share one RPC gate (see [`Dpa::rpc`]): an
    /// RPC on either keeps the other's DOCA calls waiting until it returns.
    ///
    /// Its [`Dpa::limits`] are the extended device's own (the queries of
    /// [`DpaBuilder::limits`] on the new context): the threads of an extended
    /// context run under its device's kernel run-time limit. Where DOCA refuses
    /// those queries on an extended context, the base's limits are used, and the
    /// run-time limit is taken as unknown: what a stopped thread of the extended
    /// context used is then kept for good rather than released early.
    pub fn extend(&self, other: &Device) -> Result<Dpa> {
        let mut raw = std::ptr::null_mut();
        let guard = self.enter()?;
        let extended = {
            let dev = other.lock();
            // SAFETY: a started base context, under its family's guard, and a live
            // device, under its lock; valid out-pointer.
            unsafe {
                doca_call!(doca_dpa_device_extend(
                    self.as_ptr(&guard),
                    other.as_ptr(&dev),
                    &mut raw
                ))
            }
        };
        if let Err(e) = extended {
            drop(guard);
            return Err(e);
        }
        let Some(ptr) = NonNull::new(raw) else {
            drop(guard);
            return Err(Error::invalid(
                "doca_dpa_device_extend",
                "DOCA returned NULL",
            ));
        };
        // SAFETY: the new context, whose calls are the family's.
        let raw: Raw<sys::doca_dpa> = unsafe { self.inner.family.domain.raw(ptr) };
        // SAFETY: the new context, under the family's guard.
        let queried = unsafe { query_limits(raw.get(&guard)) };
        drop(guard);
        let (limits, run_time_limit) = match queried {
            Ok(limits) => (limits, limits.run_time_limit()),
            Err(_) => (self.inner.limits, None),
        };
        // Owned before the event (user code that may panic) is emitted.
        let dpa = Dpa {
            inner: Arc::new(DpaInner {
                serial: next_serial(),
                raw,
                torn_down: false,
                _base: Some(self.clone()),
                device: other.clone(),
                app: self.inner.app,
                limits,
                run_time_limit,
                family: self.inner.family.clone(),
            }),
        };
        tracing::debug!(target: "doca_dpa::dpa", device = %other.info().pci_addr, "DPA context extended");
        Ok(dpa)
    }
}

impl Dpa {
    /// The context's DPA handle as a [`Dev`](crate::Dev), which keeps the context
    /// alive: `Dev::new(self)` (`doca_dpa_get_dpa_handle`).
    #[deprecated(
        since = "0.1.0",
        note = "pass the context itself as the kernel argument (`&dpa`), or \
                `Dev::new(&dpa)?` for a field of a DpaBox struct"
    )]
    pub fn handle(&self) -> Result<crate::Dev<crate::param::Dpa>> {
        crate::Dev::new(self)
    }
}

// SAFETY: the context's handle (`doca_dpa_get_dpa_handle`); the keep record holds the
// context.
unsafe impl crate::KernelArg<crate::param::Dpa> for Dpa {
    fn lower(&self, keep: &mut crate::Keep<'_>) -> Result<u64> {
        keep.check_context(self, "the DPA context handle")?;
        let mut h = 0;
        // SAFETY: a started context, under its family's guard; valid out-pointer.
        self.with_ctx(|ctx, _| unsafe { doca_call!(doca_dpa_get_dpa_handle(ctx, &mut h)) })?;
        keep.keep(crate::KeepAlive::new(&self.inner));
        Ok(h as u64)
    }
}
