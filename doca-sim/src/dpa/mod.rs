//! `doca_dpa.h`: the DPA context, its application, limits and heap.

pub(crate) mod app;
pub(crate) mod async_ops;
pub(crate) mod fault;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod threads;

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::abi;
use crate::dev::{obj, Dev, DeviceModel};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, in_str, not_modelled, out, out_str};
use crate::memcheck;
use crate::registry::{self, SimObject};

use app::App;
use fault::{FaultKind, FaultReport};
use memory::Heap;

/// Lifecycle of a DPA context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Created, configurable.
    Idle,
    /// Started: launches, memory and handles are available.
    Started,
    /// `doca_dpa_destroy` was called; children see BAD_STATE.
    Destroyed,
}

#[derive(Debug)]
pub(crate) struct DpaState {
    pub(crate) phase: Phase,
    pub(crate) app: Option<App>,
    pub(crate) log_level: u32,
    log_path: Option<String>,
    trace_path: Option<String>,
    handle: Option<u64>,
}

/// The state of a DPA context shared by the host object, its children
/// (threads, completions, events) and running kernels.
#[derive(Debug)]
pub(crate) struct DpaCore {
    pub(crate) device: Arc<DeviceModel>,
    /// The context this one extends (`doca_dpa_device_extend`).
    base: Option<Arc<DpaCore>>,
    state: Mutex<DpaState>,
    fatal: AtomicBool,
    /// Why the context turned fatal (the first fault wins).
    fault: Mutex<Option<FaultReport>>,
    pub(crate) heap: Mutex<Heap>,
    /// Threads, completions, async ops, notification completions, thread
    /// groups, affinities, hash tables and extended contexts alive on it.
    pub(crate) children: AtomicUsize,
    /// DOCA contexts bound to it with `doca_ctx_set_datapath_on_dpa`.
    pub(crate) consumers: AtomicUsize,
    /// Kernel launches submitted and not yet finished.
    pub(crate) in_flight: AtomicUsize,
    /// Device code (instances, thread activations, RPCs) running right now.
    pub(crate) active: AtomicUsize,
    /// Activations of its threads that were stopped while they ran and may
    /// still run (see [`ThreadStop`]); `stopped_count` is their
    /// number, so [`DpaCore::is_fatal`] costs one load while there are none.
    stopped: Mutex<Vec<Arc<ThreadStop>>>,
    stopped_count: AtomicUsize,
    /// The thread in `doca_dpa_rpc` on this context ([`this_thread`]), 0 when none.
    rpc_thread: AtomicUsize,
}

/// Host calls on a DPA context made while a `doca_dpa_rpc` on it ran on another
/// thread, since the process started.
static CONCURRENT_USES: AtomicUsize = AtomicUsize::new(0);

/// How many host calls named a DPA context, or an object made on it (a thread, a
/// thread group, an EU affinity, a completion, a notification completion, async
/// ops, a hash table), while a `doca_dpa_rpc` on that context was in progress on
/// another thread (since the process started). Makes no DOCA call.
///
/// Model choice: DOCA DPA objects are not thread-safe, one thread at a time (the
/// facts, §9), and `doca_dpa_rpc` uses its context for as long as it blocks; the
/// sim does not fail such a call (what real DOCA does is not documented: state
/// shared with the RPC may be corrupted), it counts it and logs it, so that a host
/// library's tests can assert that it never does so (doca-rs's RPC gate). A call on
/// an object made on the context counts too: such objects are the context's (made
/// by a call naming it, torn down before it), and whether their calls reach
/// state the RPC uses is not documented either, so the sim assumes they may.
pub fn concurrent_context_uses() -> usize {
    CONCURRENT_USES.load(Ordering::Acquire)
}

/// This thread's token (the address of a thread-local: nonzero, unique among live
/// threads).
fn this_thread() -> usize {
    thread_local! {
        static TOKEN: u8 = const { 0 };
    }
    TOKEN.with(|t| t as *const u8 as usize)
}

/// Marks the calling thread as the one in `doca_dpa_rpc` on `core` until dropped.
pub(crate) struct RpcInProgress<'a>(&'a DpaCore);

impl<'a> RpcInProgress<'a> {
    /// Marked on the family's base ([`DpaCore::family`]).
    pub(crate) fn begin(core: &'a DpaCore) -> RpcInProgress<'a> {
        let family = core.family();
        family.rpc_thread.store(this_thread(), Ordering::Release);
        RpcInProgress(family)
    }
}

impl Drop for RpcInProgress<'_> {
    fn drop(&mut self) {
        self.0.rpc_thread.store(0, Ordering::Release);
    }
}

impl DpaCore {
    /// The base of the family this context belongs to: itself, or the context it
    /// extends. Model choice: an extended context runs in its base's DPA process
    /// (it shares the base's application and limits, dies with it, and turns
    /// fatal with it), so an RPC on one context of a family is a use of all of
    /// them when [`concurrent_context_uses`] counts.
    pub(crate) fn family(&self) -> &DpaCore {
        self.base.as_deref().map_or(self, DpaCore::family)
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, DpaState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A host call uses `what` (the context or an object made on it): counted
    /// and logged if a `doca_dpa_rpc` on the context runs on another thread
    /// ([`concurrent_context_uses`]).
    pub(crate) fn note_host_use(&self, what: &str) {
        let rpc = self.family().rpc_thread.load(Ordering::Acquire);
        if rpc != 0 && rpc != this_thread() {
            CONCURRENT_USES.fetch_add(1, Ordering::AcqRel);
            crate::export::log(format_args!(
                "a host call used {what} while a doca_dpa_rpc on its DPA context ran on another thread (DOCA DPA objects are not thread-safe)"
            ));
        }
    }

    /// BAD_STATE unless started and not fatal.
    ///
    /// Model choice: once a device-side error made the context fatal, every
    /// operation that would run on the DPA (launch, RPC, memory) returns
    /// BAD_STATE, like `doca_dpa_peek_at_last_error` does.
    pub(crate) fn require_running(&self) -> SimResult {
        if self.is_fatal() {
            return Err(fail(
                codes::BAD_STATE,
                "the DPA context hit a device-side error (fatal)",
            ));
        }
        self.require_started()
    }

    /// BAD_STATE unless started; unlike [`DpaCore::require_running`], a
    /// fatal context still counts as started.
    ///
    /// Model choice: teardown calls that need a started context
    /// (`doca_dpa_hash_table_destroy`) keep working once the context is
    /// fatal, so its children can be released before `doca_dpa_stop`.
    pub(crate) fn require_started(&self) -> SimResult {
        self.require_base_alive()?;
        match self.state().phase {
            Phase::Started => Ok(()),
            Phase::Idle => Err(fail(codes::BAD_STATE, "the DPA context is not started")),
            Phase::Destroyed => Err(fail(codes::BAD_STATE, "the DPA context was destroyed")),
        }
    }

    /// BAD_STATE if this is an extended context whose base was destroyed.
    ///
    /// Model choice: an extended context is a child of its base (it must be
    /// destroyed first); once the base is destroyed, every operation on the
    /// extension but `doca_dpa_destroy` returns BAD_STATE, as for the base's
    /// other children.
    fn require_base_alive(&self) -> SimResult {
        match &self.base {
            Some(base) if base.state().phase == Phase::Destroyed => Err(fail(
                codes::BAD_STATE,
                "the base of this extended DPA context was destroyed",
            )),
            _ => Ok(()),
        }
    }

    /// BAD_STATE if the context (or the base it extends) was destroyed (what
    /// children check).
    pub(crate) fn require_alive(&self) -> SimResult {
        self.require_base_alive()?;
        if self.state().phase == Phase::Destroyed {
            return Err(fail(
                codes::BAD_STATE,
                "the parent DPA context was destroyed",
            ));
        }
        Ok(())
    }

    /// Whether kernels of this context may be running or about to run.
    pub(crate) fn busy(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) != 0 || self.active.load(Ordering::Acquire) != 0
    }

    /// The heap, locked.
    pub(crate) fn heap(&self) -> MutexGuard<'_, Heap> {
        self.heap.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Called when device code of this context stops running.
    pub(crate) fn device_code_finished(&self) {
        if !self.busy() {
            self.heap().release_quarantine();
        }
    }

    /// Makes the context fatal if a block's canary was damaged.
    ///
    /// Model choice: the bytes between the end of a block and its guard page
    /// (alignment slack) cannot trap, so damage there is found afterwards and
    /// reported as a bad access of `function` (the kernel whose launch just
    /// ended) or of no device code (found by a host call).
    pub(crate) fn report_damage(
        &self,
        damage: memcheck::Damage,
        function: Option<&'static str>,
        found_by: &str,
    ) {
        let mut report = FaultReport::device(
            FaultKind::BadAccess,
            None,
            format!("{} (found by {found_by})", damage.describe()),
        );
        report.function = function.map(str::to_owned);
        report.code = function.map(|_| fault::DeviceCode::Kernel);
        report.allocation = Some(damage.describe());
        self.make_fatal(report);
    }

    /// Whether a device-side error made the context (or the base it
    /// extends) fatal.
    ///
    /// An activation of a stopped thread still running past its deadline
    /// makes it fatal here, when the host looks, even if the watchdog has
    /// not had a CPU yet to do so (model choice, see
    /// [`ThreadStop`]).
    pub(crate) fn is_fatal(&self) -> bool {
        if self.fatal.load(Ordering::Acquire) {
            return true;
        }
        if self.stopped_count.load(Ordering::Acquire) != 0 {
            let now = Instant::now();
            let overran = self
                .stopped
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .find(|s| s.overran(now))
                .map(|s| s.report());
            if let Some(report) = overran {
                self.make_fatal(report);
                return true;
            }
        }
        self.base.as_ref().is_some_and(|b| b.is_fatal())
    }

    /// Keeps an eye on an activation whose thread was just stopped while it
    /// ran (see [`DpaCore::is_fatal`]).
    pub(crate) fn remember_stopped(&self, stop: Arc<ThreadStop>) {
        let mut stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        stopped.push(stop);
        self.stopped_count.store(stopped.len(), Ordering::Release);
    }

    /// The activation `stop` has ended: it no longer counts.
    pub(crate) fn forget_stopped(&self, stop: &Arc<ThreadStop>) {
        if stop.deadline().is_none() {
            return;
        }
        let mut stopped = self.stopped.lock().unwrap_or_else(|p| p.into_inner());
        stopped.retain(|s| !Arc::ptr_eq(s, stop));
        self.stopped_count.store(stopped.len(), Ordering::Release);
    }

    /// Marks the context as hit by a device-side error; it stays so.
    ///
    /// Model choice: the first report is kept (later faults, such as the
    /// other instances of a launch tripping over the same bug, are the
    /// consequences a developer does not need first).
    pub(crate) fn make_fatal(&self, report: FaultReport) {
        let mut slot = self.fault.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            crate::export::log(format_args!("DPA context fatal: {}", report.reason));
            *slot = Some(report);
        }
        self.fatal.store(true, Ordering::Release);
    }

    /// Why the context (or the base it extends) is fatal, if it is.
    pub(crate) fn fault_report(&self) -> Option<FaultReport> {
        let own = self.fault.lock().unwrap_or_else(|p| p.into_inner()).clone();
        own.or_else(|| self.base.as_ref().and_then(|b| b.fault_report()))
    }

    /// The same context, or one extended from it / it extends.
    /// The context this one extends, or itself (what its family shares).
    pub(crate) fn base_or_self(self: &Arc<Self>) -> *const DpaCore {
        Arc::as_ptr(self.base.as_ref().unwrap_or(self))
    }

    pub(crate) fn shares_device_context(self: &Arc<Self>, other: &Arc<DpaCore>) -> bool {
        Arc::ptr_eq(self, other)
            || self.base.as_ref().is_some_and(|b| Arc::ptr_eq(b, other))
            || other.base.as_ref().is_some_and(|b| Arc::ptr_eq(b, self))
    }

    pub(crate) fn app(&self) -> Option<App> {
        match &self.base {
            Some(base) => base.app(),
            None => self.state().app,
        }
    }

    /// The kernel run-time limit of the device, in milliseconds (0: none).
    pub(crate) fn max_run_time_ms(&self) -> u64 {
        self.device.profile.kernel_max_run_time_ms
    }

    /// Writes a device log line if `level` passes the context's log level.
    pub(crate) fn device_log(&self, level: u32, message: &str) {
        let (threshold, path) = {
            let root = self.base.as_deref().unwrap_or(self);
            let state = root.state();
            (state.log_level, state.log_path.clone())
        };
        if level > threshold || threshold == abi::DOCA_DPA_DEV_LOG_LEVEL_DISABLE {
            return;
        }
        // The kernel's text as written: no prefix, no added newline (kernels
        // end their lines with `\n`, as they do for dpacc builds).
        use std::io::Write;
        let line = message.as_bytes();
        match path {
            Some(path) => {
                if let Ok(mut f) = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                {
                    let _ = f.write_all(line);
                }
            }
            None => {
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(line);
                let _ = stdout.flush();
            }
        }
    }
}

/// The stop of a DPA thread, as seen by the activation of it that runs (one
/// per activation, so a stop never reaches a later activation).
///
/// Model choice: once its thread is stopped (`doca_dpa_thread_stop`, or
/// `doca_dpa_thread_destroy` of a started thread), an activation still
/// running is held to the kernel run-time limit in wall time counted from
/// the stop. If it still runs at the stop instant plus the limit, the context
/// is fatal from that instant: the watchdog wakes then (not at its next tick,
/// `launch::wake_watchdog_at`) to make it so and stop the run as for any
/// overrun, and a host that looks at the context before the watchdog got a
/// CPU sees it fatal all the same ([`DpaCore::is_fatal`] checks the deadline
/// itself). DOCA has no call that tells when an activation of a stopped
/// thread has ended, so a host program that frees what the thread used (its
/// argument's objects, its local storage) can only wait for the limit to pass
/// since the stop and then check that the context is healthy: doca-dpa's
/// deferred thread records do exactly that, in wall time (stop + limit +
/// 50 ms). On hardware an EU runs its thread alone, so wall time and time on
/// the EU agree there; the sim's crowding discount (`launch::run_time`: wall
/// time less the EU thread's wait for a CPU) would otherwise let a crowded
/// activation outlive that wait, unstopped, and use memory its program had
/// freed. Runs of threads that were not stopped (and kernels, RPCs) keep the
/// discount: `dpa_nvqual`'s 189 threads on a loaded host depend on it
/// (docs/sim-model.md).
#[derive(Debug)]
pub(crate) struct ThreadStop {
    /// The run-time limit; 0 for none (then a stop sets no deadline).
    limit_ms: u64,
    /// The activation, as a report names it.
    site: fault::Site,
    /// The stop instant plus the limit, once the thread was stopped (the
    /// first stop counts).
    deadline: OnceLock<Instant>,
    /// Whether the activation's device code has returned (or was ended).
    ended: AtomicBool,
}

impl ThreadStop {
    /// For an activation (`site`) run under a run-time limit of `limit_ms`.
    pub(crate) fn new(limit_ms: u64, site: fault::Site) -> Self {
        ThreadStop {
            limit_ms,
            site,
            deadline: OnceLock::new(),
            ended: AtomicBool::new(false),
        }
    }

    /// The activation's thread was stopped now: from here on the run has
    /// `limit_ms` of wall time left. Returns the deadline if this set it (the
    /// first stop of a run still going, under a limit); the caller has the
    /// watchdog wake then.
    pub(crate) fn stopped(&self) -> Option<Instant> {
        if self.limit_ms == 0 || self.ended.load(Ordering::Acquire) {
            return None;
        }
        let at = Instant::now() + Duration::from_millis(self.limit_ms);
        self.deadline.set(at).ok().map(|()| at)
    }

    /// The stop instant plus the limit, once the thread was stopped.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline.get().copied()
    }

    /// Whether the activation still ran at its deadline, as of `now`.
    pub(crate) fn overran(&self, now: Instant) -> bool {
        !self.ended.load(Ordering::Acquire) && self.deadline().is_some_and(|at| now >= at)
    }

    /// The report of an activation that overran its deadline.
    pub(crate) fn report(&self) -> FaultReport {
        FaultReport::watchdog_after_stop(&self.site, self.limit_ms)
    }

    /// The activation's device code is done (called as soon as its run
    /// returns). One that ended past its deadline still ran there: `core`
    /// turns fatal, as the watchdog would have made it had it got a CPU in
    /// time.
    pub(crate) fn ended(&self, core: &DpaCore) {
        if self.overran(Instant::now()) {
            core.make_fatal(self.report());
        }
        self.ended.store(true, Ordering::Release);
    }
}

/// `struct doca_dpa`.
pub(crate) struct Dpa {
    pub(crate) core: Arc<DpaCore>,
    /// The `doca_dev` whose user count this context holds.
    dev: usize,
}
impl SimObject for Dpa {
    const KIND: &'static str = "doca_dpa";
}

/// Borrows a live DPA context.
///
/// A call made while a `doca_dpa_rpc` on the context runs on another thread is
/// counted ([`concurrent_context_uses`]).
pub(crate) fn dpa<'a>(ptr: *const abi::doca_dpa) -> SimResult<&'a Dpa> {
    let dpa = obj::<Dpa, _>(ptr)?;
    dpa.core.note_host_use("the DPA context");
    Ok(dpa)
}

fn idle_config(ptr: *mut abi::doca_dpa, f: impl FnOnce(&mut DpaState) -> SimResult) -> SimResult {
    let dpa = dpa(ptr)?;
    let mut state = dpa.core.state();
    match state.phase {
        Phase::Idle => f(&mut state),
        _ => Err(fail(codes::BAD_STATE, "DPA context already started")),
    }
}

fn new_core(
    device: Arc<DeviceModel>,
    base: Option<Arc<DpaCore>>,
    phase: Phase,
    app: Option<App>,
) -> Arc<DpaCore> {
    let checked = device.memcheck;
    Arc::new(DpaCore {
        device,
        base,
        state: Mutex::new(DpaState {
            phase,
            app,
            log_level: abi::DOCA_DPA_DEV_LOG_LEVEL_INFO,
            log_path: None,
            trace_path: None,
            handle: None,
        }),
        fatal: AtomicBool::new(false),
        fault: Mutex::new(None),
        heap: Mutex::new(Heap::new(checked)),
        children: AtomicUsize::new(0),
        consumers: AtomicUsize::new(0),
        in_flight: AtomicUsize::new(0),
        active: AtomicUsize::new(0),
        stopped: Mutex::new(Vec::new()),
        stopped_count: AtomicUsize::new(0),
        rpc_thread: AtomicUsize::new(0),
    })
}

fn stop_core(core: &DpaCore) {
    let mut state = core.state();
    if let Some(handle) = state.handle.take() {
        registry::retract(handle);
    }
    if state.phase == Phase::Started {
        state.phase = Phase::Idle;
    }
}

fn read_path(buf: *mut c_char, len: *mut u32, path: &Option<String>) -> SimResult {
    if len.is_null() {
        return Err(fail(codes::INVALID_VALUE, "NULL length pointer"));
    }
    let text = path.as_deref().unwrap_or("");
    // SAFETY: non-NULL in/out length pointer, by the C contract.
    let cap = unsafe { *len } as usize;
    out(len, text.len() as u32 + 1)?;
    out_str(buf, cap, text)
}

fn set_path(ptr: *mut abi::doca_dpa, path: *const c_char, trace: bool) -> SimResult {
    let text = in_str(path)?.to_owned();
    idle_config(ptr, |state| {
        // The file must be creatable now, as DOCA opens it at this point.
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&text)
            .map_err(|_| fail(codes::OPERATING_SYSTEM, "cannot open the log/trace file"))?;
        if trace {
            state.trace_path = Some(text);
        } else {
            state.log_path = Some(text);
        }
        Ok(())
    })
}

fn limit(ptr: *const abi::doca_dpa, value: impl FnOnce(&DeviceModel) -> u64) -> SimResult<u64> {
    Ok(value(&dpa(ptr)?.core.device))
}

doca_api! {
    /// SUCCESS when the device has a DPA, NOT_SUPPORTED otherwise.
    fn doca_dpa_cap_is_supported(devinfo: *const abi::doca_devinfo) {
        if obj::<crate::dev::DevInfo, _>(devinfo)?.model.profile.dpa {
            Ok(())
        } else {
            Err(fail(codes::NOT_SUPPORTED, "this device has no DPA"))
        }
    }

    /// Creates a DPA context on a device that has a DPA.
    ///
    /// Model choice: a device that is not a PCI physical function is refused
    /// with NOT_SUPPORTED (the base context must be on a PF).
    fn doca_dpa_create(dev: *mut abi::doca_dev, dpa: *mut *mut abi::doca_dpa) {
        let handle = obj::<Dev, _>(dev)?;
        if dpa.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        if !handle.model.profile.dpa {
            return Err(fail(codes::NOT_SUPPORTED, "this device has no DPA"));
        }
        if handle.model.profile.func_type != crate::profile::PciFuncType::Pf {
            return Err(fail(codes::NOT_SUPPORTED, "a base DPA context needs a PCI physical function"));
        }
        handle.users.fetch_add(1, Ordering::AcqRel);
        let core = new_core(handle.model.clone(), None, Phase::Idle, None);
        out(dpa, registry::register(Dpa { core, dev: dev as usize }).cast())
    }

    /// Destroys a DPA context, stopping it first if it is started; IN_USE
    /// while another DOCA context is bound to its datapath.
    ///
    /// Model choice: as the stop it implies, destroy is IN_USE while threads,
    /// completions, extended contexts or other objects made from the context
    /// still exist (the facts' teardown table: children die first). Several
    /// NVIDIA samples destroy a started context without stopping it, which
    /// works once its children are gone (docs/sim-model.md).
    fn doca_dpa_destroy(dpa: *mut abi::doca_dpa) {
        let this = self::dpa(dpa)?;
        if this.core.consumers.load(Ordering::Acquire) != 0 {
            return Err(fail(codes::IN_USE, "a DOCA context bound to this DPA datapath still exists"));
        }
        if this.core.children.load(Ordering::Acquire) != 0 {
            return Err(fail(codes::IN_USE, "threads, completions or extended contexts still exist"));
        }
        // SAFETY: checked above; only this call frees it.
        let this = unsafe { registry::unregister::<Dpa, _>(dpa) }?;
        stop_core(&this.core);
        this.core.state().phase = Phase::Destroyed;
        let busy = this.core.busy();
        if let Some(damage) = this.core.heap().clear(busy) {
            crate::export::log(format_args!("at doca_dpa_destroy: {}", damage.describe()));
        }
        if let Some(base) = &this.core.base {
            base.children.fetch_sub(1, Ordering::AcqRel);
        }
        if let Ok(dev) = obj::<Dev, _>(this.dev as *const Dev) {
            dev.users.fetch_sub(1, Ordering::AcqRel);
        }
        Ok(())
    }

    /// Starts a context; an application must have been set.
    ///
    /// Model choice: starting without an application is BAD_STATE.
    fn doca_dpa_start(dpa: *mut abi::doca_dpa) {
        let this = self::dpa(dpa)?;
        let mut state = this.core.state();
        if state.phase != Phase::Idle {
            return Err(fail(codes::BAD_STATE, "DPA context already started"));
        }
        if state.app.is_none() {
            return Err(fail(codes::BAD_STATE, "set an application before starting the DPA context"));
        }
        state.phase = Phase::Started;
        Ok(())
    }

    /// Stops a context; IN_USE while threads, completions or extended
    /// contexts made from it still exist.
    fn doca_dpa_stop(dpa: *mut abi::doca_dpa) {
        let this = self::dpa(dpa)?;
        if this.core.state().phase != Phase::Started {
            return Err(fail(codes::BAD_STATE, "DPA context is not started"));
        }
        if this.core.children.load(Ordering::Acquire) != 0 {
            return Err(fail(codes::IN_USE, "threads, completions or extended contexts still exist"));
        }
        stop_core(&this.core);
        Ok(())
    }

    /// Sets the application (before start).
    fn doca_dpa_set_app(dpa: *mut abi::doca_dpa, app: *mut abi::doca_dpa_app) {
        let app = App::from_ptr(app as *const c_void)?;
        idle_config(dpa, |state| {
            state.app = Some(app);
            Ok(())
        })
    }

    /// Returns the application set on the context.
    fn doca_dpa_get_app(dpa: *mut abi::doca_dpa, app: *mut *mut abi::doca_dpa_app) {
        let this = self::dpa(dpa)?;
        let current = this.core.app().ok_or(fail(codes::BAD_STATE, "no application set"))?;
        out(app, current.as_ptr().cast_mut().cast())
    }

    /// Copies the application's name; the length is in/out.
    fn doca_dpa_app_get_name(app: *mut abi::doca_dpa_app, app_name: *mut c_char, app_name_len: *mut u32) {
        let app = App::from_ptr(app as *const c_void)?;
        if app_name_len.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL length pointer"));
        }
        // SAFETY: non-NULL in/out length pointer, by the C contract.
        let cap = unsafe { *app_name_len } as usize;
        out(app_name_len, app.name().len() as u32 + 1)?;
        out_str(app_name, cap, app.name())
    }

    /// Sets the device log level (before start; not on extended contexts).
    fn doca_dpa_set_log_level(dpa: *mut abi::doca_dpa, log_level: abi::doca_dpa_dev_log_level_t) {
        if self::dpa(dpa)?.core.base.is_some() {
            return Err(fail(codes::NOT_PERMITTED, "log level is inherited by extended contexts"));
        }
        let valid = [
            abi::DOCA_DPA_DEV_LOG_LEVEL_DISABLE,
            abi::DOCA_DPA_DEV_LOG_LEVEL_ERROR,
            abi::DOCA_DPA_DEV_LOG_LEVEL_WARNING,
            abi::DOCA_DPA_DEV_LOG_LEVEL_INFO,
            abi::DOCA_DPA_DEV_LOG_LEVEL_DEBUG,
        ];
        if !valid.contains(&log_level) {
            return Err(fail(codes::INVALID_VALUE, "unknown log level"));
        }
        idle_config(dpa, |state| {
            state.log_level = log_level as u32;
            Ok(())
        })
    }

    /// Reads the device log level.
    fn doca_dpa_get_log_level(dpa: *mut abi::doca_dpa, log_level: *mut abi::doca_dpa_dev_log_level_t) {
        let level = self::dpa(dpa)?.core.state().log_level;
        out(log_level, level as abi::doca_dpa_dev_log_level_t)
    }

    /// Sends device logs to a file (before start).
    fn doca_dpa_log_file_set_path(dpa: *mut abi::doca_dpa, file_path: *const c_char) {
        set_path(dpa, file_path, false)
    }

    /// Reads the log file path ("" when logging to stdout).
    fn doca_dpa_log_file_get_path(dpa: *mut abi::doca_dpa, file_path: *mut c_char, file_path_len: *mut u32) {
        let path = self::dpa(dpa)?.core.state().log_path.clone();
        read_path(file_path, file_path_len, &path)
    }

    /// Sends device traces to a file (before start).
    fn doca_dpa_trace_file_set_path(dpa: *mut abi::doca_dpa, file_path: *const c_char) {
        set_path(dpa, file_path, true)
    }

    /// Reads the trace file path.
    fn doca_dpa_trace_file_get_path(dpa: *mut abi::doca_dpa, file_path: *mut c_char, file_path_len: *mut u32) {
        let path = self::dpa(dpa)?.core.state().trace_path.clone();
        read_path(file_path, file_path_len, &path)
    }

    /// Largest thread count of one kernel launch.
    fn doca_dpa_get_max_threads_per_kernel(dpa: *const abi::doca_dpa, value: *mut c_uint) {
        let v = limit(dpa, |d| d.profile.max_threads_per_kernel.into())?;
        out(value, v as c_uint)
    }

    /// Kernel run-time limit in seconds (the profile's milliseconds rounded
    /// up; [`max_run_time`](crate::max_run_time) gives the exact limit the
    /// watchdog enforces).
    fn doca_dpa_get_kernel_max_run_time(dpa: *const abi::doca_dpa, value: *mut c_ulonglong) {
        let v = limit(dpa, |d| d.profile.kernel_max_run_time_ms.div_ceil(1000))?;
        out(value, v as c_ulonglong)
    }

    /// Number of DPA cores.
    fn doca_dpa_get_core_num(dpa: *mut abi::doca_dpa, num_cores: *mut c_uint) {
        let v = limit(dpa, |d| d.profile.cores.into())?;
        out(num_cores, v as c_uint)
    }

    /// Execution units per core.
    fn doca_dpa_get_num_eus_per_core(dpa: *mut abi::doca_dpa, eus_per_core: *mut c_uint) {
        let v = limit(dpa, |d| d.profile.eus_per_core.into())?;
        out(eus_per_core, v as c_uint)
    }

    /// Execution units available to applications.
    fn doca_dpa_get_total_num_eus_available(dpa: *mut abi::doca_dpa, total_num_eus: *mut c_uint) {
        let v = limit(dpa, |d| d.profile.eus_available.into())?;
        out(total_num_eus, v as c_uint)
    }

    /// Extends a started base context onto another device; the new context
    /// is already started and shares the base's application.
    fn doca_dpa_device_extend(dpa: *mut abi::doca_dpa, other_dev: *mut abi::doca_dev, extended_dpa: *mut *mut abi::doca_dpa) {
        let base = self::dpa(dpa)?;
        let other = obj::<Dev, _>(other_dev)?;
        if extended_dpa.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        if base.core.base.is_some() {
            return Err(fail(codes::BAD_STATE, "an extended context cannot be extended again"));
        }
        base.core.require_running()?;
        other.users.fetch_add(1, Ordering::AcqRel);
        base.core.children.fetch_add(1, Ordering::AcqRel);
        let app = base.core.app();
        let core = new_core(other.model.clone(), Some(base.core.clone()), Phase::Started, app);
        out(extended_dpa, registry::register(Dpa { core, dev: other_dev as usize }).cast())
    }

    /// The context's DPA-side handle (after start).
    fn doca_dpa_get_dpa_handle(dpa: *mut abi::doca_dpa, handle: *mut abi::doca_dpa_dev_t) {
        let this = self::dpa(dpa)?;
        this.core.require_running()?;
        let mut state = this.core.state();
        let value = *state
            .handle
            .get_or_insert_with(|| registry::publish(this.core.clone()));
        out(handle, value)
    }

    /// Model choice: the sim has no user access region; it reports id 0
    /// once the context is started.
    fn doca_dpa_get_uar_id(dpa: *const abi::doca_dpa, uar_id: *mut u32) {
        self::dpa(dpa)?.core.require_running()?;
        out(uar_id, 0)
    }

    /// SUCCESS, or BAD_STATE once a device-side error made the context fatal
    /// (sticky).
    fn doca_dpa_peek_at_last_error(dpa: *const abi::doca_dpa) {
        let core = &self::dpa(dpa)?.core;
        if core.is_fatal() {
            let reason = core.fault_report().map(|r| r.reason).unwrap_or_default();
            crate::export::log(format_args!("fatal because: {reason}"));
            return Err(fail(codes::BAD_STATE, "a device-side error occurred on this DPA context"));
        }
        Ok(())
    }

    /// Allocates DPA heap memory (blocking).
    fn doca_dpa_mem_alloc(dpa: *mut abi::doca_dpa, size: usize, dev_ptr: *mut abi::doca_dpa_dev_uintptr_t) {
        if !dev_ptr.is_null() {
            out(dev_ptr, 0)?;
        }
        let this = self::dpa(dpa)?;
        this.core.require_running()?;
        if dev_ptr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let capacity = this.core.device.profile.heap_bytes;
        let addr = this.core.heap().alloc(size, capacity)?;
        out(dev_ptr, addr)
    }

    /// Frees DPA heap memory.
    fn doca_dpa_mem_free(dpa: *mut abi::doca_dpa, dev_ptr: abi::doca_dpa_dev_uintptr_t) {
        let this = self::dpa(dpa)?;
        this.core.require_running()?;
        let busy = this.core.busy();
        let damage = this.core.heap().free(dev_ptr, busy, "doca_dpa_mem_free")?;
        if let Some(damage) = damage {
            this.core.report_damage(damage, None, "doca_dpa_mem_free");
        }
        Ok(())
    }

    /// Copies host memory to the DPA heap.
    fn doca_dpa_h2d_memcpy(dpa: *mut abi::doca_dpa, dst_ptr: abi::doca_dpa_dev_uintptr_t, src_ptr: *mut c_void, size: usize) {
        let this = self::dpa(dpa)?;
        this.core.require_running()?;
        if src_ptr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL host source"));
        }
        // SAFETY: the source is a host buffer of `size` bytes by the C
        // contract; the heap checks the destination under its lock.
        unsafe { this.core.heap().write(dst_ptr, src_ptr.cast::<u8>(), size) }
    }

    /// Copies DPA heap memory to the host.
    fn doca_dpa_d2h_memcpy(dpa: *mut abi::doca_dpa, dst_ptr: *mut c_void, src_ptr: abi::doca_dpa_dev_uintptr_t, size: usize) {
        let this = self::dpa(dpa)?;
        this.core.require_running()?;
        if dst_ptr.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL host destination"));
        }
        // SAFETY: the destination is a host buffer of `size` bytes by the C
        // contract; the heap checks the source under its lock.
        unsafe { this.core.heap().read(src_ptr, dst_ptr.cast::<u8>(), size) }
    }

    /// Fills DPA heap memory.
    fn doca_dpa_memset(dpa: *mut abi::doca_dpa, dev_ptr: abi::doca_dpa_dev_uintptr_t, value: c_int, size: usize) {
        let this = self::dpa(dpa)?;
        this.core.require_running()?;
        this.core.heap().fill(dev_ptr, value as u8, size)
    }
}

not_modelled! {
    /// Copies from a `doca_buf` (the sim has no buffer inventories).
    fn doca_dpa_h2d_buf_memcpy(dpa: *mut abi::doca_dpa, dst_ptr: abi::doca_dpa_dev_uintptr_t, buf: *mut abi::doca_buf, size: usize);
    /// Copies into a `doca_buf` (the sim has no buffer inventories).
    fn doca_dpa_d2h_buf_memcpy(dpa: *mut abi::doca_dpa, buf: *mut abi::doca_buf, src_ptr: abi::doca_dpa_dev_uintptr_t, size: usize);
}

/// Sim only: why the DPA context `dpa` turned fatal, or `None` while it is
/// not fatal (or when `dpa` is not a live context). An extended context
/// reports its base's fault.
///
/// Hardware DOCA reports only `DOCA_ERROR_BAD_STATE` from
/// `doca_dpa_peek_at_last_error`; the sim also knows which kernel faulted,
/// how, and where.
pub fn fault_report(dpa: *const abi::doca_dpa) -> Option<FaultReport> {
    self::dpa(dpa).ok()?.core.fault_report()
}

/// Sim only: the kernel run-time limit the watchdog enforces on `dpa`'s
/// device (`None` when it has none, or `dpa` is not a live context).
///
/// `doca_dpa_get_kernel_max_run_time` reports whole seconds, as DOCA does, so
/// a profile limit of 300 ms reads as 1 s there; this is the exact value.
pub fn max_run_time(dpa: *const abi::doca_dpa) -> Option<std::time::Duration> {
    match self::dpa(dpa).ok()?.core.max_run_time_ms() {
        0 => None,
        ms => Some(std::time::Duration::from_millis(ms)),
    }
}
