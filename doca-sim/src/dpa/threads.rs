//! DPA threads, completions, notification completions, thread groups, EU
//! affinities and hash tables (async ops are in `async_ops.rs`).
//!
//! Each object is a child of a DPA context: creating one counts against
//! `doca_dpa_stop` (IN_USE), and once the context is destroyed every call on
//! the child returns BAD_STATE (so a child destroyed after its parent stays
//! alive and shows up in the live-object accounting).
//!
//! Model choices shared by these objects: a started object must be stopped
//! before it is destroyed (BAD_STATE otherwise), and queue sizes are rounded
//! up to a power of two.

use std::collections::{HashMap, VecDeque};
use std::ffi::c_uint;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use super::app::{Kernel, MAX_KERNEL_ARGS};
use super::fault::{DeviceCode, FaultKind, FaultReport, QueueKind};
use super::launch::{run_activation, spawn_call, wake_watchdog_at, DeviceContext, Ended};
use super::{dpa, DpaCore, ThreadStop};
use crate::abi;
use crate::dev::obj;
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, out};
use crate::registry::{self, SimObject};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// An object owned by a DPA context.
pub(crate) trait Child: SimObject {
    fn parent(&self) -> &Arc<DpaCore>;
    /// Whether the object is started.
    fn started(&self) -> bool;
    /// Stops a started object: what its `*_stop` call does once it checked
    /// that the object is started.
    fn stop(&self) {}
    /// Called when the object is destroyed (retract handles, detach).
    fn on_destroy(&self) {}
}

/// Implements [`SimObject`] and [`Child`] for an object whose state (behind
/// `$state`) has a `started` flag and an optional published `handle`.
macro_rules! started_child {
    ($ty:ident, $kind:literal, |$o:ident| $dpa:expr, $state:expr) => {
        impl SimObject for $ty {
            const KIND: &'static str = $kind;
        }
        impl Child for $ty {
            fn parent(&self) -> &Arc<DpaCore> {
                let $o = self;
                $dpa
            }
            fn started(&self) -> bool {
                let $o = self;
                lock($state).started
            }
            fn stop(&self) {
                let $o = self;
                lock($state).started = false;
            }
            fn on_destroy(&self) {
                let $o = self;
                if let Some(h) = lock($state).handle.take() {
                    registry::retract(h);
                }
            }
        }
    };
}

pub(crate) fn new_child<T: Child>(
    dpa_ptr: *mut abi::doca_dpa,
    make: impl FnOnce(Arc<DpaCore>) -> SimResult<T>,
) -> SimResult<*mut T> {
    let core = dpa(dpa_ptr)?.core.clone();
    core.require_alive()?;
    let child = make(core.clone())?;
    core.children.fetch_add(1, Ordering::AcqRel);
    Ok(registry::register(child))
}

/// Borrows a child and checks that its context was not destroyed. The call is a
/// use of the context ([`DpaCore::note_host_use`]).
pub(crate) fn child<'a, T: Child, P>(ptr: *const P) -> SimResult<&'a T> {
    let c = obj::<T, P>(ptr)?;
    c.parent().require_alive()?;
    c.parent().note_host_use(T::KIND);
    Ok(c)
}

/// The `*_stop` call of a child: BAD_STATE unless it is started.
pub(crate) fn stop_child<T: Child, P>(ptr: *mut P, not_started: &'static str) -> SimResult {
    let c = child::<T, P>(ptr)?;
    if !c.started() {
        return Err(fail(codes::BAD_STATE, not_started));
    }
    c.stop();
    Ok(())
}

/// The `*_destroy` call of a child.
///
/// Model choice: a started object is stopped, then destroyed. The 3.0 header
/// documents no BAD_STATE for destroying a started thread, thread group,
/// completion, async ops or notification completion, and NVIDIA's DPA samples
/// destroy them without stopping them first (docs/sim-model.md).
pub(crate) fn destroy_child<T: Child, P>(ptr: *mut P) -> SimResult {
    let c = child::<T, P>(ptr)?;
    if c.started() {
        c.stop();
    }
    // SAFETY: checked above; only this call frees it.
    let c = unsafe { registry::unregister::<T, P>(ptr) }?;
    c.on_destroy();
    c.parent().children.fetch_sub(1, Ordering::AcqRel);
    Ok(())
}

pub(crate) fn rounded_queue_size(requested: c_uint) -> SimResult<u32> {
    if requested == 0 {
        return Err(fail(codes::INVALID_VALUE, "queue size 0"));
    }
    requested
        .checked_next_power_of_two()
        .ok_or(fail(codes::INVALID_VALUE, "queue size too large"))
}

// ---------------------------------------------------------------- threads

#[derive(Default)]
struct ThreadConfig {
    func: Option<Kernel>,
    arg: u64,
    local_storage: u64,
    affinity: Option<u32>,
    started: bool,
    runnable: bool,
    finished: bool,
    attached: bool,
    group: Option<(usize, u32)>,
    /// The stop record of the activation running, if one is: set under this
    /// lock when it starts (after checking that the thread is runnable), so
    /// a stop either keeps it from starting or reaches it.
    activation: Option<Arc<ThreadStop>>,
}

/// The state of a DPA thread shared with the completions that wake it.
pub(crate) struct ThreadCore {
    dpa: Arc<DpaCore>,
    id: u32,
    config: Mutex<ThreadConfig>,
    pending: AtomicBool,
    running: AtomicBool,
}

impl ThreadCore {
    /// The DPA context the thread runs on.
    pub(crate) fn dpa(&self) -> &Arc<DpaCore> {
        &self.dpa
    }

    /// Binds a completion source of another library (a DOCA Comch consumer
    /// completion context) to the thread, which must be started, as
    /// `doca_dpa_completion_start` binds a DPA completion context: once bound,
    /// `doca_dpa_thread_run` accepts the thread.
    pub(crate) fn attach_source(&self) -> SimResult {
        let mut cfg = lock(&self.config);
        if !cfg.started {
            return Err(fail(codes::BAD_STATE, "start the bound DPA thread first"));
        }
        cfg.attached = true;
        Ok(())
    }

    /// The thread's local storage address.
    pub(crate) fn local_storage(&self) -> u64 {
        lock(&self.config).local_storage
    }

    /// Delivers a completion or notification: runs the thread's function on
    /// a worker unless it is already running, in which case it runs again.
    ///
    /// Model choice: triggers that arrive before `doca_dpa_thread_run` are
    /// held and delivered when the thread becomes runnable.
    pub(crate) fn activate(self: &Arc<Self>) {
        self.pending.store(true, Ordering::SeqCst);
        self.kick();
    }

    fn kick(self: &Arc<Self>) {
        {
            let cfg = lock(&self.config);
            if !cfg.runnable || cfg.finished {
                return;
            }
        }
        if self.running.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = self.clone();
        if spawn_call(move |watch| me.run_activations(watch)).is_err() {
            self.running.store(false, Ordering::SeqCst);
            self.dpa.make_fatal(FaultReport::device(
                FaultKind::HostLimit,
                None,
                "the host could not start a thread for a DPA thread activation".into(),
            ));
        }
    }

    /// Runs pending activations one after the other, under the worker's
    /// watchdog slot.
    ///
    /// Model choice: the kernel run-time limit applies to each activation
    /// of a DPA thread too; one still running past it makes the context
    /// fatal, as an over-time kernel does. Once the thread is stopped, the
    /// activation running has the limit left in wall time from the stop
    /// (see [`ThreadStop`]).
    fn run_activations(self: Arc<Self>, watch: &super::launch::Watch) {
        loop {
            while self.pending.swap(false, Ordering::SeqCst) {
                let (ctx, arg, stop) = {
                    let mut cfg = lock(&self.config);
                    if cfg.finished || !cfg.runnable || self.dpa.is_fatal() {
                        break;
                    }
                    let Some(func) = cfg.func else {
                        break;
                    };
                    // Its rank in its group; rank 0 of 1 outside one.
                    let (num_threads, rank) = cfg.group.map_or((1, 0), |(n, r)| (n as u32, r));
                    let ctx = DeviceContext {
                        core: self.dpa.clone(),
                        kernel: func,
                        code: DeviceCode::Thread,
                        rank,
                        num_threads,
                        local_storage: cfg.local_storage,
                    };
                    // Installed under the lock that `stop` takes: a stop
                    // either keeps the activation from starting or reaches it.
                    let stop = Arc::new(ThreadStop::new(self.dpa.max_run_time_ms(), ctx.site()));
                    cfg.activation = Some(stop.clone());
                    (ctx, cfg.arg, stop)
                };
                let mut args = [0u64; MAX_KERNEL_ARGS];
                args[0] = arg;
                // Model choice: returning from the thread function without
                // finishing is treated like doca_dpa_dev_thread_reschedule().
                let (_, ended) = run_activation(ctx, &args, watch, stop.clone());
                stop.ended(&self.dpa);
                {
                    let mut cfg = lock(&self.config);
                    cfg.activation = None;
                    if ended == Ended::Finished {
                        cfg.finished = true;
                    }
                }
                // Any stop that reached the activation did so before the
                // lock above was taken.
                self.dpa.forget_stopped(&stop);
                if ended.is_error() {
                    break;
                }
            }
            self.running.store(false, Ordering::SeqCst);
            // A trigger may have landed after the last check.
            if !self.pending.load(Ordering::SeqCst) || self.running.swap(true, Ordering::SeqCst) {
                return;
            }
        }
    }
}

/// `struct doca_dpa_thread`.
pub(crate) struct DpaThread {
    pub(crate) core: Arc<ThreadCore>,
}
impl SimObject for DpaThread {
    const KIND: &'static str = "doca_dpa_thread";
}
impl Child for DpaThread {
    fn parent(&self) -> &Arc<DpaCore> {
        &self.core.dpa
    }
    fn started(&self) -> bool {
        lock(&self.core.config).started
    }
    /// Stops activating the thread; an activation running has the run-time
    /// limit left, in wall time from now (a model choice, see
    /// [`ThreadStop`]).
    fn stop(&self) {
        let mut cfg = lock(&self.core.config);
        cfg.started = false;
        cfg.runnable = false;
        if let Some(activation) = &cfg.activation {
            if let Some(deadline) = activation.stopped() {
                self.core.dpa.remember_stopped(activation.clone());
                wake_watchdog_at(deadline);
            }
        }
    }
}

fn thread<'a>(ptr: *const abi::doca_dpa_thread) -> SimResult<&'a DpaThread> {
    child::<DpaThread, _>(ptr)
}

/// The shared state of a live DPA thread (for other libraries' objects bound
/// to it).
pub(crate) fn thread_core(ptr: *const abi::doca_dpa_thread) -> SimResult<Arc<ThreadCore>> {
    Ok(thread(ptr)?.core.clone())
}

fn configure_thread(
    ptr: *mut abi::doca_dpa_thread,
    f: impl FnOnce(&mut ThreadConfig) -> SimResult,
) -> SimResult {
    let t = thread(ptr)?;
    let mut cfg = lock(&t.core.config);
    if cfg.started {
        return Err(fail(codes::BAD_STATE, "the DPA thread is already started"));
    }
    f(&mut cfg)
}

static NEXT_THREAD_ID: AtomicU32 = AtomicU32::new(1);

// ------------------------------------------------------------ completions

/// `doca_dpa_dev_completion_type_t` of `device-include/doca_dpa_dev.h`.
pub(crate) mod comp {
    /// `DOCA_DPA_DEV_COMP_SEND`.
    pub(crate) const SEND: u32 = 0x0;
    /// `DOCA_DPA_DEV_COMP_RECV_RDMA_WRITE_IMM`.
    pub(crate) const RECV_RDMA_WRITE_IMM: u32 = 0x1;
    /// `DOCA_DPA_DEV_COMP_RECV_SEND`.
    pub(crate) const RECV_SEND: u32 = 0x2;
    /// `DOCA_DPA_DEV_COMP_RECV_SEND_IMM`.
    pub(crate) const RECV_SEND_IMM: u32 = 0x3;
    /// `DOCA_DPA_DEV_COMP_SEND_ERR`.
    pub(crate) const SEND_ERR: u32 = 0xD;
    /// `DOCA_DPA_DEV_COMP_RECV_ERR`.
    pub(crate) const RECV_ERR: u32 = 0xE;
}

/// A completion element as the sim encodes it in the device-side
/// `doca_dpa_dev_completion_element_t` (a u64): type in bits 0..8, user data
/// in bits 8..32, immediate in bits 32..64.
pub(crate) fn encode_element(kind: u32, user_data: u32, immediate: u32) -> u64 {
    u64::from(kind & 0xff) | (u64::from(user_data & 0xff_ffff) << 8) | (u64::from(immediate) << 32)
}

#[derive(Default)]
struct CompletionState {
    size: u32,
    thread: Option<Arc<ThreadCore>>,
    started: bool,
    handle: Option<u64>,
    /// Elements posted and not yet read by the kernel.
    unread: VecDeque<u64>,
    /// Elements read and not yet acknowledged.
    unacked: u64,
    armed: bool,
}

/// The state of a DPA completion context (a DPA-side completion queue).
pub(crate) struct CompletionCore {
    dpa: Arc<DpaCore>,
    state: Mutex<CompletionState>,
}

impl CompletionCore {
    /// Posts an element; wakes the attached thread when armed.
    ///
    /// Model choice: posting to a full queue (unread plus unacknowledged
    /// elements equal to its size) is a completion-queue overrun, which makes
    /// the DPA context fatal, as device-side errors do.
    pub(crate) fn post(&self, kind: u32, user_data: u32, immediate: u32) -> SimResult {
        let wake = {
            let mut st = lock(&self.state);
            if !st.started {
                return Err(fail(codes::BAD_STATE, "completion context not started"));
            }
            if user_data >= 1 << abi::DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA {
                return Err(fail(codes::INVALID_VALUE, "user data must be below 2^24"));
            }
            if st.unread.len() as u64 + st.unacked >= u64::from(st.size) {
                drop(st);
                let site = super::launch::current_device().map(|c| c.site());
                self.dpa.make_fatal(FaultReport::device(
                    FaultKind::QueueOverrun(QueueKind::Completion),
                    site.as_ref(),
                    "completion queue overrun".into(),
                ));
                return Err(fail(codes::FULL, "completion queue overrun"));
            }
            st.unread
                .push_back(encode_element(kind, user_data, immediate));
            let wake = st.armed.then(|| st.thread.clone()).flatten();
            if wake.is_some() {
                st.armed = false;
            }
            wake
        };
        if let Some(t) = wake {
            t.activate();
        }
        Ok(())
    }

    /// Takes the next unread element.
    pub(crate) fn next(&self) -> Option<u64> {
        let mut st = lock(&self.state);
        let e = st.unread.pop_front()?;
        st.unacked += 1;
        Some(e)
    }

    /// Releases `n` read elements.
    pub(crate) fn ack(&self, n: u64) {
        let mut st = lock(&self.state);
        st.unacked = st.unacked.saturating_sub(n);
    }

    /// Arms the queue: the next element (or one already waiting) wakes the
    /// attached thread.
    pub(crate) fn request_notification(&self) {
        let wake = {
            let mut st = lock(&self.state);
            if st.unread.is_empty() {
                st.armed = true;
                None
            } else {
                st.thread.clone()
            }
        };
        if let Some(t) = wake {
            t.activate();
        }
    }

    /// Attaches a producer context (RDMI, async ops) before it starts.
    pub(crate) fn attach_producer(&self) -> SimResult {
        self.dpa.require_alive()
    }

    /// The DPA context this completion belongs to.
    pub(crate) fn dpa(&self) -> &Arc<DpaCore> {
        &self.dpa
    }

    pub(crate) fn is_started(&self) -> bool {
        lock(&self.state).started
    }
}

/// `struct doca_dpa_completion`.
pub(crate) struct Completion {
    pub(crate) core: Arc<CompletionCore>,
}
started_child!(
    Completion,
    "doca_dpa_completion",
    |o| &o.core.dpa,
    &o.core.state
);

fn completion<'a>(ptr: *const abi::doca_dpa_completion) -> SimResult<&'a Completion> {
    child::<Completion, _>(ptr)
}

/// Borrows a live completion context (for producers such as RDMI).
pub(crate) fn completion_core(
    ptr: *const abi::doca_dpa_completion,
) -> SimResult<Arc<CompletionCore>> {
    Ok(completion(ptr)?.core.clone())
}

// ------------------------------------------------- notification completions

struct NotificationState {
    started: bool,
    handle: Option<u64>,
}

/// `struct doca_dpa_notification_completion`.
pub(crate) struct Notification {
    dpa: Arc<DpaCore>,
    thread: Arc<ThreadCore>,
    /// The registered thread object, returned by `_get_thread`.
    thread_ptr: usize,
    state: Mutex<NotificationState>,
}
started_child!(
    Notification,
    "doca_dpa_notification_completion",
    |o| &o.dpa,
    &o.state
);

// ------------------------------------------------------------ thread groups

struct GroupState {
    ranks: Vec<Option<Arc<ThreadCore>>>,
    started: bool,
}

/// `struct doca_dpa_tg`.
pub(crate) struct ThreadGroup {
    dpa: Arc<DpaCore>,
    state: Mutex<GroupState>,
}
impl SimObject for ThreadGroup {
    const KIND: &'static str = "doca_dpa_tg";
}
impl Child for ThreadGroup {
    fn parent(&self) -> &Arc<DpaCore> {
        &self.dpa
    }
    fn started(&self) -> bool {
        lock(&self.state).started
    }
    fn stop(&self) {
        lock(&self.state).started = false;
    }
}

// --------------------------------------------------------------- affinities

/// `struct doca_dpa_eu_affinity`.
pub(crate) struct Affinity {
    dpa: Arc<DpaCore>,
    eu: Mutex<Option<u32>>,
}
impl SimObject for Affinity {
    const KIND: &'static str = "doca_dpa_eu_affinity";
}
impl Child for Affinity {
    fn parent(&self) -> &Arc<DpaCore> {
        &self.dpa
    }
    fn started(&self) -> bool {
        false
    }
}

// -------------------------------------------------------------- hash tables

/// The entries of a DPA hash table, shared with kernels through its handle.
pub(crate) struct HashCore {
    capacity: usize,
    entries: Mutex<HashMap<u32, u64>>,
}

impl HashCore {
    /// Inserts or replaces; false when the table is full.
    pub(crate) fn add(&self, key: u32, value: u64) -> bool {
        let mut e = lock(&self.entries);
        if e.len() >= self.capacity && !e.contains_key(&key) {
            return false;
        }
        e.insert(key, value);
        true
    }
    pub(crate) fn remove(&self, key: u32) {
        lock(&self.entries).remove(&key);
    }
    pub(crate) fn find(&self, key: u32) -> Option<u64> {
        lock(&self.entries).get(&key).copied()
    }
}

/// `struct doca_dpa_hash_table`.
pub(crate) struct HashTable {
    dpa: Arc<DpaCore>,
    core: Arc<HashCore>,
    handle: Mutex<Option<u64>>,
}
impl SimObject for HashTable {
    const KIND: &'static str = "doca_dpa_hash_table";
}
impl Child for HashTable {
    fn parent(&self) -> &Arc<DpaCore> {
        &self.dpa
    }
    fn started(&self) -> bool {
        false
    }
    fn on_destroy(&self) {
        if let Some(h) = lock(&self.handle).take() {
            registry::retract(h);
        }
    }
}

pub(crate) fn handle_of<T: Send + Sync + 'static>(
    slot: &mut Option<u64>,
    make: impl FnOnce() -> Arc<T>,
) -> u64 {
    *slot.get_or_insert_with(|| registry::publish(make()))
}

doca_api! {
    // ---- threads

    /// Creates a DPA thread.
    fn doca_dpa_thread_create(dpa: *mut abi::doca_dpa, dpa_thread: *mut *mut abi::doca_dpa_thread) {
        if dpa_thread.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let t = new_child(dpa, |core| {
            Ok(DpaThread {
                core: Arc::new(ThreadCore {
                    dpa: core,
                    id: NEXT_THREAD_ID.fetch_add(1, Ordering::Relaxed),
                    config: Mutex::default(),
                    pending: AtomicBool::new(false),
                    running: AtomicBool::new(false),
                }),
            })
        })?;
        out(dpa_thread, t.cast())
    }

    /// Destroys a DPA thread, stopping it first if it is started (which
    /// holds an activation still running to the run-time limit from now, as
    /// `doca_dpa_thread_stop` does).
    fn doca_dpa_thread_destroy(dpa_thread: *mut abi::doca_dpa_thread) {
        destroy_child::<DpaThread, _>(dpa_thread)
    }

    /// Sets the thread's function and its single u64 argument.
    ///
    /// Model choice: the function takes one `uint64_t` parameter (the
    /// thread-entry signature) or none, in which case `arg` is ignored; more
    /// parameters are INVALID_VALUE. The 3.0 header types the entry as taking
    /// one argument, but NVIDIA's nvqual sample declares
    /// `__dpa_global__ void f(void)` thread functions (docs/sim-model.md).
    fn doca_dpa_thread_set_func_arg(dpa_thread: *mut abi::doca_dpa_thread, func: abi::doca_dpa_func_t, arg: u64) {
        let t = thread(dpa_thread)?;
        let app = t.core.dpa.app().ok_or(fail(codes::BAD_STATE, "no application set on the DPA context"))?;
        let func = func.ok_or(fail(codes::INVALID_VALUE, "NULL thread function"))?;
        let kernel = app.kernel(func as *const std::ffi::c_void)?;
        if kernel.0.num_params > 1 {
            return Err(fail(codes::INVALID_VALUE, "a DPA thread function takes one uint64_t argument or none"));
        }
        configure_thread(dpa_thread, |cfg| {
            cfg.func = Some(kernel);
            cfg.arg = arg;
            Ok(())
        })
    }

    /// Reads the function and argument.
    fn doca_dpa_thread_get_func_arg(dpa_thread: *mut abi::doca_dpa_thread, func: *mut abi::doca_dpa_func_t, arg: *mut u64) {
        let t = thread(dpa_thread)?;
        let cfg = lock(&t.core.config);
        // SAFETY: the table stores the kernel's address, a `void (*)(void)`.
        let f: abi::doca_dpa_func_t = cfg.func.map(|k| unsafe { std::mem::transmute::<*const std::ffi::c_void, unsafe extern "C" fn()>(k.func_ptr()) });
        out(func, f)?;
        out(arg, cfg.arg)
    }

    /// Sets the thread's local storage (a DPA heap address).
    fn doca_dpa_thread_set_local_storage(dpa_thread: *mut abi::doca_dpa_thread, dev_ptr: abi::doca_dpa_dev_uintptr_t) {
        configure_thread(dpa_thread, |cfg| {
            cfg.local_storage = dev_ptr;
            Ok(())
        })
    }

    /// Reads the thread's local storage.
    fn doca_dpa_thread_get_local_storage(dpa_thread: *mut abi::doca_dpa_thread, dev_ptr: *mut abi::doca_dpa_dev_uintptr_t) {
        out(dev_ptr, thread(dpa_thread)?.core.local_storage())
    }

    /// Pins the thread to the EU of an affinity.
    fn doca_dpa_thread_set_affinity(dpa_thread: *mut abi::doca_dpa_thread, affinity: *const abi::doca_dpa_eu_affinity) {
        let a = child::<Affinity, _>(affinity)?;
        let eu = lock(&a.eu).ok_or(fail(codes::INVALID_VALUE, "the affinity has no EU set"))?;
        configure_thread(dpa_thread, |cfg| {
            cfg.affinity = Some(eu);
            Ok(())
        })
    }

    /// Model choice: the sim does not keep the affinity object, so reading it
    /// back is not supported.
    fn doca_dpa_thread_get_affinity(dpa_thread: *mut abi::doca_dpa_thread, affinity: *mut *const abi::doca_dpa_eu_affinity) {
        thread(dpa_thread)?;
        let _ = affinity;
        Err(fail(codes::NOT_SUPPORTED, "doca-sim does not return thread affinities"))
    }

    /// Starts the thread; its function must be set and its context started.
    fn doca_dpa_thread_start(dpa_thread: *mut abi::doca_dpa_thread) {
        let t = thread(dpa_thread)?;
        t.core.dpa.require_running()?;
        configure_thread(dpa_thread, |cfg| {
            if cfg.func.is_none() {
                return Err(fail(codes::BAD_STATE, "set the thread function before starting it"));
            }
            cfg.started = true;
            Ok(())
        })
    }

    /// Stops the thread: it is no longer activated, and an activation still
    /// running must end within the run-time limit in wall time from now,
    /// or the watchdog makes the context fatal (model choice, see
    /// `dpa::ThreadStop`).
    fn doca_dpa_thread_stop(dpa_thread: *mut abi::doca_dpa_thread) {
        stop_child::<DpaThread, _>(dpa_thread, "the DPA thread is not started")
    }

    /// Marks a started thread with an attached completion as runnable.
    fn doca_dpa_thread_run(dpa_thread: *mut abi::doca_dpa_thread) {
        let t = thread(dpa_thread)?;
        {
            let mut cfg = lock(&t.core.config);
            if !cfg.started {
                return Err(fail(codes::BAD_STATE, "start the thread before running it"));
            }
            if !cfg.attached {
                return Err(fail(codes::BAD_STATE, "attach a completion or notification completion before running the thread"));
            }
            cfg.runnable = true;
        }
        t.core.kick();
        Ok(())
    }

    /// The thread's id (after start).
    fn doca_dpa_thread_get_id(dpa_thread: *mut abi::doca_dpa_thread, dpa_thread_id: *mut u32) {
        let t = thread(dpa_thread)?;
        if !lock(&t.core.config).started {
            return Err(fail(codes::BAD_STATE, "the DPA thread is not started"));
        }
        out(dpa_thread_id, t.core.id)
    }

    // ---- thread groups

    /// Creates an empty group of `num_threads` ranks.
    fn doca_dpa_thread_group_create(dpa: *mut abi::doca_dpa, num_threads: c_uint, tg: *mut *mut abi::doca_dpa_tg) {
        if tg.is_null() || num_threads == 0 {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer or empty group"));
        }
        let g = new_child(dpa, |core| {
            Ok(ThreadGroup {
                dpa: core,
                state: Mutex::new(GroupState { ranks: vec![None; num_threads as usize], started: false }),
            })
        })?;
        out(tg, g.cast())
    }

    /// Destroys a group, stopping it first if it is started; its threads
    /// leave it.
    fn doca_dpa_thread_group_destroy(tg: *mut abi::doca_dpa_tg) {
        let g = child::<ThreadGroup, _>(tg)?;
        for t in lock(&g.state).ranks.iter().flatten() {
            lock(&t.config).group = None;
        }
        destroy_child::<ThreadGroup, _>(tg)
    }

    /// The group size.
    fn doca_dpa_thread_group_get_num_threads(tg: *mut abi::doca_dpa_tg, num_threads: *mut c_uint) {
        let g = child::<ThreadGroup, _>(tg)?;
        let n = lock(&g.state).ranks.len();
        out(num_threads, n as c_uint)
    }

    /// Places a thread at a rank (before the thread and the group start).
    fn doca_dpa_thread_group_set_thread(tg: *mut abi::doca_dpa_tg, thread: *mut abi::doca_dpa_thread, rank: c_uint) {
        let g = child::<ThreadGroup, _>(tg)?;
        let t = self::thread(thread)?;
        g.dpa.require_running()?;
        let mut st = lock(&g.state);
        if st.started {
            return Err(fail(codes::BAD_STATE, "the thread group is already started"));
        }
        let size = st.ranks.len();
        let slot = st.ranks.get_mut(rank as usize).ok_or(fail(codes::INVALID_VALUE, "rank out of range"))?;
        let mut cfg = lock(&t.core.config);
        if cfg.started || cfg.group.is_some() {
            return Err(fail(codes::BAD_STATE, "the thread is started or already in a group"));
        }
        cfg.group = Some((size, rank));
        *slot = Some(t.core.clone());
        Ok(())
    }

    /// Starts a group whose ranks are all set with started threads.
    fn doca_dpa_thread_group_start(tg: *mut abi::doca_dpa_tg) {
        let g = child::<ThreadGroup, _>(tg)?;
        let mut st = lock(&g.state);
        if st.started {
            return Err(fail(codes::BAD_STATE, "the thread group is already started"));
        }
        let ready = st.ranks.iter().all(|r| r.as_ref().is_some_and(|t| lock(&t.config).started));
        if !ready {
            return Err(fail(codes::BAD_STATE, "every rank needs a started thread"));
        }
        st.started = true;
        Ok(())
    }

    /// Stops a group.
    fn doca_dpa_thread_group_stop(tg: *mut abi::doca_dpa_tg) {
        stop_child::<ThreadGroup, _>(tg, "the thread group is not started")
    }

    // ---- completions

    /// Creates a DPA completion context of `queue_size` (rounded up to a
    /// power of two) elements.
    fn doca_dpa_completion_create(dpa: *mut abi::doca_dpa, queue_size: c_uint, dpa_comp: *mut *mut abi::doca_dpa_completion) {
        if dpa_comp.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let size = rounded_queue_size(queue_size)?;
        let c = new_child(dpa, |core| {
            Ok(Completion {
                core: Arc::new(CompletionCore {
                    dpa: core,
                    state: Mutex::new(CompletionState { size, ..Default::default() }),
                }),
            })
        })?;
        out(dpa_comp, c.cast())
    }

    /// Destroys a completion context, stopping it first if it is started.
    fn doca_dpa_completion_destroy(dpa_comp: *mut abi::doca_dpa_completion) {
        destroy_child::<Completion, _>(dpa_comp)
    }

    /// The rounded queue size.
    fn doca_dpa_completion_get_queue_size(dpa_comp: *mut abi::doca_dpa_completion, queue_size: *mut c_uint) {
        let size = lock(&completion(dpa_comp)?.core.state).size;
        out(queue_size, size)
    }

    /// Binds the DPA thread that completions wake (before start).
    fn doca_dpa_completion_set_thread(dpa_comp: *mut abi::doca_dpa_completion, dpa_thread: *mut abi::doca_dpa_thread) {
        let c = completion(dpa_comp)?;
        let t = thread(dpa_thread)?;
        let mut st = lock(&c.core.state);
        if st.started {
            return Err(fail(codes::BAD_STATE, "the completion context is already started"));
        }
        st.thread = Some(t.core.clone());
        Ok(())
    }

    /// Model choice: the thread is not kept as an object, so it cannot be
    /// returned.
    fn doca_dpa_completion_get_thread(dpa_comp: *mut abi::doca_dpa_completion, dpa_thread: *mut *mut abi::doca_dpa_thread) {
        completion(dpa_comp)?;
        let _ = dpa_thread;
        Err(fail(codes::NOT_SUPPORTED, "doca-sim does not return the bound thread"))
    }

    /// Starts the completion context; a bound thread must be started.
    ///
    /// Model choice: the queue starts armed, so the first element wakes the
    /// bound thread.
    fn doca_dpa_completion_start(dpa_comp: *mut abi::doca_dpa_completion) {
        let c = completion(dpa_comp)?;
        c.core.dpa.require_running()?;
        let mut st = lock(&c.core.state);
        if st.started {
            return Err(fail(codes::BAD_STATE, "the completion context is already started"));
        }
        if let Some(t) = &st.thread {
            let mut cfg = lock(&t.config);
            if !cfg.started {
                return Err(fail(codes::BAD_STATE, "start the bound thread before the completion context"));
            }
            cfg.attached = true;
        }
        st.started = true;
        st.armed = true;
        Ok(())
    }

    /// Stops the completion context.
    fn doca_dpa_completion_stop(dpa_comp: *mut abi::doca_dpa_completion) {
        stop_child::<Completion, _>(dpa_comp, "the completion context is not started")
    }

    /// The DPA handle of a started completion context.
    fn doca_dpa_completion_get_dpa_handle(dpa_comp: *mut abi::doca_dpa_completion, handle: *mut abi::doca_dpa_dev_completion_t) {
        let c = completion(dpa_comp)?;
        let mut st = lock(&c.core.state);
        if !st.started {
            return Err(fail(codes::BAD_STATE, "the completion context is not started"));
        }
        let core = c.core.clone();
        let h = handle_of(&mut st.handle, || core);
        out(handle, h)
    }

    // ---- notification completions

    /// Creates a notification completion bound to a thread.
    fn doca_dpa_notification_completion_create(dpa: *mut abi::doca_dpa, dpa_thread: *mut abi::doca_dpa_thread, notify_comp: *mut *mut abi::doca_dpa_notification_completion) {
        let t = thread(dpa_thread)?.core.clone();
        if notify_comp.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let n = new_child(dpa, |core| {
            Ok(Notification {
                dpa: core,
                thread: t,
                thread_ptr: dpa_thread as usize,
                state: Mutex::new(NotificationState { started: false, handle: None }),
            })
        })?;
        out(notify_comp, n.cast())
    }

    /// Destroys a notification completion, stopping it first if it is started.
    fn doca_dpa_notification_completion_destroy(notify_comp: *mut abi::doca_dpa_notification_completion) {
        destroy_child::<Notification, _>(notify_comp)
    }

    /// The bound thread.
    fn doca_dpa_notification_completion_get_thread(notify_comp: *mut abi::doca_dpa_notification_completion, dpa_thread: *mut *mut abi::doca_dpa_thread) {
        let n = child::<Notification, _>(notify_comp)?;
        out(dpa_thread, n.thread_ptr as *mut abi::doca_dpa_thread)
    }

    /// Starts it; the bound thread must be started.
    fn doca_dpa_notification_completion_start(notify_comp: *mut abi::doca_dpa_notification_completion) {
        let n = child::<Notification, _>(notify_comp)?;
        n.dpa.require_running()?;
        let mut st = lock(&n.state);
        if st.started {
            return Err(fail(codes::BAD_STATE, "already started"));
        }
        let mut cfg = lock(&n.thread.config);
        if !cfg.started {
            return Err(fail(codes::BAD_STATE, "start the bound thread first"));
        }
        cfg.attached = true;
        st.started = true;
        Ok(())
    }

    /// Stops it.
    fn doca_dpa_notification_completion_stop(notify_comp: *mut abi::doca_dpa_notification_completion) {
        stop_child::<Notification, _>(notify_comp, "not started")
    }

    /// The DPA handle kernels pass to `doca_dpa_dev_thread_notify`.
    fn doca_dpa_notification_completion_get_dpa_handle(notify_comp: *mut abi::doca_dpa_notification_completion, handle: *mut abi::doca_dpa_dev_notification_completion_t) {
        let n = child::<Notification, _>(notify_comp)?;
        let mut st = lock(&n.state);
        if !st.started {
            return Err(fail(codes::BAD_STATE, "not started"));
        }
        let t = n.thread.clone();
        let h = handle_of(&mut st.handle, || t);
        out(handle, h)
    }

    // ---- affinities

    /// Creates an EU affinity with no EU set.
    fn doca_dpa_eu_affinity_create(dpa: *mut abi::doca_dpa, affinity: *mut *mut abi::doca_dpa_eu_affinity) {
        if affinity.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let a = new_child(dpa, |core| Ok(Affinity { dpa: core, eu: Mutex::new(None) }))?;
        out(affinity, a.cast())
    }

    /// Destroys an affinity.
    fn doca_dpa_eu_affinity_destroy(affinity: *mut abi::doca_dpa_eu_affinity) {
        destroy_child::<Affinity, _>(affinity)
    }

    /// Sets the EU (below cores × EUs per core).
    fn doca_dpa_eu_affinity_set(affinity: *mut abi::doca_dpa_eu_affinity, eu_id: c_uint) {
        let a = child::<Affinity, _>(affinity)?;
        let p = &a.dpa.device.profile;
        if u64::from(eu_id) >= u64::from(p.cores) * u64::from(p.eus_per_core) {
            return Err(fail(codes::INVALID_VALUE, "EU id beyond the device's EUs"));
        }
        *lock(&a.eu) = Some(eu_id);
        Ok(())
    }

    /// Clears the EU.
    fn doca_dpa_eu_affinity_clear(affinity: *mut abi::doca_dpa_eu_affinity) {
        *lock(&child::<Affinity, _>(affinity)?.eu) = None;
        Ok(())
    }

    /// Reads the EU; INVALID_VALUE when none is set.
    fn doca_dpa_eu_affinity_get(affinity: *mut abi::doca_dpa_eu_affinity, eu_id: *mut c_uint) {
        let eu = lock(&child::<Affinity, _>(affinity)?.eu).ok_or(fail(codes::INVALID_VALUE, "no EU set"))?;
        out(eu_id, eu)
    }

    // ---- hash tables

    /// Creates a hash table (started context; size rounded to a power of two).
    fn doca_dpa_hash_table_create(dpa: *mut abi::doca_dpa, num_entries: c_uint, ht: *mut *mut abi::doca_dpa_hash_table) {
        if ht.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        self::dpa(dpa)?.core.require_running()?;
        let capacity = rounded_queue_size(num_entries)? as usize;
        let t = new_child(dpa, |core| {
            Ok(HashTable {
                dpa: core,
                core: Arc::new(HashCore { capacity, entries: Mutex::default() }),
                handle: Mutex::new(None),
            })
        })?;
        out(ht, t.cast())
    }

    /// Destroys a hash table (BAD_STATE unless the context is started;
    /// a fatal context still is).
    fn doca_dpa_hash_table_destroy(ht: *mut abi::doca_dpa_hash_table) {
        child::<HashTable, _>(ht)?.dpa.require_started()?;
        destroy_child::<HashTable, _>(ht)
    }

    /// The DPA handle of a hash table.
    fn doca_dpa_hash_table_get_dpa_handle(ht: *mut abi::doca_dpa_hash_table, ht_handle: *mut abi::doca_dpa_dev_hash_table_t) {
        let t = child::<HashTable, _>(ht)?;
        let core = t.core.clone();
        let h = handle_of(&mut lock(&t.handle), || core);
        out(ht_handle, h)
    }
}
