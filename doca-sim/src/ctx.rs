//! `doca_ctx.h` and `doca_pe.h`: the generic DOCA context lifecycle that RDMI
//! connections, posters and sync events used as contexts go through, and
//! progress engines with their notification handle.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::abi;
use crate::dev::obj;
use crate::dpa::{dpa, DpaCore};
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, not_modelled, out};
use crate::registry::{self, SimObject};

/// What a library object that is a DOCA context tells the generic lifecycle.
pub(crate) trait CtxOwner: Send + Sync + 'static {
    /// Checks the configuration before `doca_ctx_start` (the owner's rules,
    /// e.g. exactly one completion source). `dpa` is the datapath, if any.
    fn check_start(&self, dpa: Option<&Arc<DpaCore>>) -> SimResult;
    /// Work that keeps a stop from finishing at once.
    fn in_flight(&self) -> u64 {
        0
    }
    /// The context left the running state.
    fn stopped(&self) {}
    /// Completes what is due in a `doca_pe_progress` (every task in flight,
    /// with an error, when `stopping`); whether anything completed.
    fn progress(&self, _stopping: bool, _ctx_user_data: abi::doca_data) -> bool {
        false
    }
    /// Whether a progress call would complete something now.
    fn ready(&self, _stopping: bool) -> bool {
        false
    }
    /// The context was connected to the engine whose notifier this is: fire it
    /// when the owner's work may have become ready.
    fn watch(&self, _engine: &Arc<Notifier>) {}
}

/// A progress engine's notification handle: an `eventfd` that becomes readable
/// once armed (`doca_pe_request_notification`) and some connected context has
/// something to complete.
pub(crate) struct Notifier {
    fd: libc::c_int,
    armed: AtomicBool,
}

impl Notifier {
    fn new() -> SimResult<Notifier> {
        // SAFETY: plain system call with constant flags.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(fail(codes::OPERATING_SYSTEM, "eventfd failed"));
        }
        Ok(Notifier {
            fd,
            armed: AtomicBool::new(false),
        })
    }

    /// Makes the handle readable if a waiter armed it (once per arming).
    pub(crate) fn fire(&self) {
        if self.armed.swap(false, Ordering::AcqRel) {
            let one: u64 = 1;
            // SAFETY: our eventfd; an 8-byte write of a counter increment.
            let _ = unsafe { libc::write(self.fd, (&one as *const u64).cast(), 8) };
        }
    }

    fn clear(&self) {
        let mut count: u64 = 0;
        // SAFETY: our non-blocking eventfd; an 8-byte read resets its counter
        // (EAGAIN when it was not readable, which is fine).
        let _ = unsafe { libc::read(self.fd, (&mut count as *mut u64).cast(), 8) };
    }
}

impl Drop for Notifier {
    fn drop(&mut self) {
        // SAFETY: our descriptor, closed once.
        unsafe { libc::close(self.fd) };
    }
}

/// `enum doca_ctx_states` values.
pub(crate) mod states {
    pub(crate) const IDLE: u32 = 0;
    pub(crate) const RUNNING: u32 = 2;
    pub(crate) const STOPPING: u32 = 3;
}

struct CtxState {
    phase: u32,
    pe: Option<Arc<PeCore>>,
    dpa: Option<Arc<DpaCore>>,
    user_data: abi::doca_data,
    callback: abi::doca_ctx_state_changed_callback_t,
}

/// `struct doca_ctx`: one per context-like object, handed out by its
/// `*_as_ctx` function (always the same pointer).
pub(crate) struct Ctx {
    owner: Arc<dyn CtxOwner>,
    state: Mutex<CtxState>,
}
impl SimObject for Ctx {
    const KIND: &'static str = "doca_ctx";
}

// SAFETY: `doca_data` is a plain union of a pointer and a u64 that the sim
// only stores and returns.
unsafe impl Send for CtxState {}

impl Ctx {
    fn state(&self) -> MutexGuard<'_, CtxState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The running state, finishing an asynchronous stop whose work drained.
    pub(crate) fn phase(&self) -> u32 {
        let mut st = self.state();
        if st.phase == states::STOPPING && self.owner.in_flight() == 0 {
            let change = self.transition(&mut st, states::IDLE);
            drop(st);
            self.owner.stopped();
            self.notify(change);
            return states::IDLE;
        }
        st.phase
    }

    /// Fires the notifier of the engine this context is connected to.
    pub(crate) fn notify_engine(&self) {
        if let Some(pe) = &self.state().pe {
            pe.notifier.fire();
        }
    }

    /// Completes what is due (see [`CtxOwner::progress`]) while the context runs
    /// or stops; whether anything completed.
    fn progress_tasks(&self) -> bool {
        let (phase, user_data) = {
            let st = self.state();
            (st.phase, st.user_data)
        };
        match phase {
            states::RUNNING | states::STOPPING => {
                self.owner.progress(phase == states::STOPPING, user_data)
            }
            _ => false,
        }
    }

    /// Whether a progress call would complete something now.
    fn has_ready_work(&self) -> bool {
        let phase = self.state().phase;
        match phase {
            states::RUNNING => self.owner.ready(false),
            states::STOPPING => true,
            _ => false,
        }
    }

    /// Tasks in flight.
    pub(crate) fn in_flight(&self) -> u64 {
        self.owner.in_flight()
    }

    /// The DPA this context is bound to with `doca_ctx_set_datapath_on_dpa`.
    pub(crate) fn datapath(&self) -> Option<Arc<DpaCore>> {
        self.state().dpa.clone()
    }

    /// Moves to `next`; the caller runs the returned change's callback with
    /// [`Ctx::notify`] once it has released the state lock.
    fn transition(&self, st: &mut CtxState, next: u32) -> Change {
        let prev = st.phase;
        st.phase = next;
        Change {
            callback: st.callback,
            user_data: st.user_data,
            prev,
            next,
        }
    }

    /// Runs the state-change callback of `change`.
    ///
    /// Model choice: state-change callbacks run synchronously inside the call
    /// that changed the state, after it released the context's lock, so a
    /// callback may call back into the context (e.g. `doca_ctx_get_state`).
    fn notify(&self, change: Change) {
        if let Some(cb) = change.callback {
            // SAFETY: the application registered this callback for its ctx.
            unsafe {
                cb(
                    change.user_data,
                    (self as *const Ctx).cast_mut().cast(),
                    change.prev,
                    change.next,
                )
            };
        }
    }
}

/// A state change whose callback has not run yet.
#[must_use]
struct Change {
    callback: abi::doca_ctx_state_changed_callback_t,
    user_data: abi::doca_data,
    prev: u32,
    next: u32,
}

/// Creates the `doca_ctx` of a library object; the owner keeps the pointer
/// and frees it with [`destroy_ctx`].
pub(crate) fn new_ctx(owner: Arc<dyn CtxOwner>) -> usize {
    registry::register(Ctx {
        owner,
        state: Mutex::new(CtxState {
            phase: states::IDLE,
            pe: None,
            dpa: None,
            user_data: abi::doca_data { u64_: 0 },
            callback: None,
        }),
    }) as usize
}

/// Borrows the ctx of a library object.
pub(crate) fn ctx_ref<'a>(ptr: usize) -> SimResult<&'a Ctx> {
    obj::<Ctx, Ctx>(ptr as *const Ctx)
}

/// Frees a ctx. BAD_STATE unless it is idle (destroy before stop); the
/// datapath and PE bindings are released.
///
/// Model choice: destroying a context that is not idle is BAD_STATE.
pub(crate) fn destroy_ctx(ptr: usize) -> SimResult {
    let ctx = ctx_ref(ptr)?;
    if ctx.phase() != states::IDLE {
        return Err(fail(
            codes::BAD_STATE,
            "stop the context before destroying it",
        ));
    }
    // SAFETY: checked above; the owner calls this once, from its destroy.
    let ctx = unsafe { registry::unregister::<Ctx, Ctx>(ptr as *mut Ctx) }?;
    let st = ctx.state();
    if let Some(d) = &st.dpa {
        d.consumers.fetch_sub(1, Ordering::AcqRel);
    }
    if let Some(pe) = &st.pe {
        // Off the engine's list before the address can be reused: a later
        // context at the same address is not this engine's.
        pe.contexts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|&c| c != ptr);
        pe.connected.fetch_sub(1, Ordering::AcqRel);
    }
    Ok(())
}

/// The state of a progress engine.
pub(crate) struct PeCore {
    connected: AtomicUsize,
    contexts: Mutex<Vec<usize>>,
    notifier: Arc<Notifier>,
}

impl PeCore {
    fn contexts(&self) -> Vec<usize> {
        self.contexts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// `struct doca_pe`.
pub(crate) struct Pe {
    core: Arc<PeCore>,
}
impl SimObject for Pe {
    const KIND: &'static str = "doca_pe";
}

doca_api! {
    /// Starts a context: it needs a PE or a DPA datapath (NOT_CONNECTED
    /// otherwise) and a configuration its library accepts.
    fn doca_ctx_start(ctx: *mut abi::doca_ctx) {
        let c = ctx_ref(ctx as usize)?;
        let mut st = c.state();
        if st.phase != states::IDLE {
            return Err(fail(codes::BAD_STATE, "the context is not idle"));
        }
        if st.pe.is_none() && st.dpa.is_none() {
            return Err(fail(codes::NOT_CONNECTED, "connect a progress engine or set a DPA datapath first"));
        }
        if let Some(d) = &st.dpa {
            d.require_running()?;
        }
        c.owner.check_start(st.dpa.as_ref())?;
        let change = c.transition(&mut st, states::RUNNING);
        drop(st);
        c.notify(change);
        Ok(())
    }

    /// Stops a context.
    ///
    /// Model choice: when the library reports work in flight (for an RDMI
    /// connection: receives the DPA consumed that the host has not
    /// acknowledged), the stop is asynchronous: IN_PROGRESS, state STOPPING,
    /// and the context becomes idle on the first `doca_pe_progress` or
    /// `doca_ctx_get_state` after the work drained.
    fn doca_ctx_stop(ctx: *mut abi::doca_ctx) {
        let c = ctx_ref(ctx as usize)?;
        let mut st = c.state();
        match st.phase {
            states::RUNNING => {}
            states::STOPPING => return Err(fail(codes::IN_PROGRESS, "the context is already stopping")),
            _ => return Err(fail(codes::BAD_STATE, "the context is not running")),
        }
        if c.owner.in_flight() > 0 {
            let change = c.transition(&mut st, states::STOPPING);
            drop(st);
            c.notify(change);
            return Err(fail(codes::IN_PROGRESS, "stop completes once in-flight work drains"));
        }
        let change = c.transition(&mut st, states::IDLE);
        drop(st);
        c.owner.stopped();
        c.notify(change);
        Ok(())
    }

    /// The context's state.
    fn doca_ctx_get_state(ctx: *const abi::doca_ctx, state: *mut abi::doca_ctx_states) {
        let phase = ctx_ref(ctx as usize)?.phase();
        out(state, phase as abi::doca_ctx_states)
    }

    /// Binds an idle context to a DPA datapath.
    fn doca_ctx_set_datapath_on_dpa(ctx: *mut abi::doca_ctx, dpa_dev: *mut abi::doca_dpa) {
        let c = ctx_ref(ctx as usize)?;
        let core = dpa(dpa_dev)?.core.clone();
        let mut st = c.state();
        if st.phase != states::IDLE {
            return Err(fail(codes::BAD_STATE, "the datapath must be set while the context is idle"));
        }
        if let Some(old) = st.dpa.replace(core.clone()) {
            old.consumers.fetch_sub(1, Ordering::AcqRel);
        }
        core.consumers.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Stores the user data given to state-change callbacks.
    fn doca_ctx_set_user_data(ctx: *mut abi::doca_ctx, user_data: abi::doca_data) {
        ctx_ref(ctx as usize)?.state().user_data = user_data;
        Ok(())
    }

    /// Reads the user data.
    fn doca_ctx_get_user_data(ctx: *const abi::doca_ctx, user_data: *mut abi::doca_data) {
        let data = ctx_ref(ctx as usize)?.state().user_data;
        out(user_data, data)
    }

    /// Registers the state-change callback (idle contexts only).
    fn doca_ctx_set_state_changed_cb(ctx: *mut abi::doca_ctx, cb: abi::doca_ctx_state_changed_callback_t) {
        let c = ctx_ref(ctx as usize)?;
        let mut st = c.state();
        if st.phase != states::IDLE {
            return Err(fail(codes::BAD_STATE, "the context is not idle"));
        }
        st.callback = cb;
        Ok(())
    }

    /// Tasks submitted to the context and not completed (0 for contexts with
    /// no tasks: RDMI connections and posters).
    fn doca_ctx_get_num_inflight_tasks(ctx: *const abi::doca_ctx, num_inflight_tasks: *mut usize) {
        let n = ctx_ref(ctx as usize)?.in_flight();
        out(num_inflight_tasks, n as usize)
    }

    /// Tasks in flight over every context connected to the engine.
    fn doca_pe_get_num_inflight_tasks(pe: *const abi::doca_pe, num_inflight_tasks: *mut usize) {
        let p = obj::<Pe, _>(pe)?;
        let n: u64 = p.core.contexts().into_iter().filter_map(|c| ctx_ref(c).ok()).map(Ctx::in_flight).sum();
        out(num_inflight_tasks, n as usize)
    }

    /// Creates a progress engine.
    fn doca_pe_create(pe: *mut *mut abi::doca_pe) {
        if pe.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let notifier = Arc::new(Notifier::new()?);
        let p = registry::register(Pe {
            core: Arc::new(PeCore { connected: AtomicUsize::new(0), contexts: Mutex::default(), notifier }),
        });
        out(pe, p.cast())
    }

    /// Destroys a progress engine; IN_USE while contexts are connected.
    fn doca_pe_destroy(pe: *mut abi::doca_pe) {
        let p = obj::<Pe, _>(pe)?;
        if p.core.connected.load(Ordering::Acquire) != 0 {
            return Err(fail(codes::IN_USE, "contexts are still connected to this progress engine"));
        }
        // SAFETY: checked above; only this call frees it.
        unsafe { registry::unregister::<Pe, _>(pe) }?;
        Ok(())
    }

    /// Connects an idle context; NOT_PERMITTED if it already has a PE.
    fn doca_pe_connect_ctx(pe: *mut abi::doca_pe, ctx: *mut abi::doca_ctx) {
        let p = obj::<Pe, _>(pe)?;
        let c = ctx_ref(ctx as usize)?;
        let mut st = c.state();
        if st.phase != states::IDLE {
            return Err(fail(codes::BAD_STATE, "connect the context while it is idle"));
        }
        if st.pe.is_some() {
            return Err(fail(codes::NOT_PERMITTED, "the context already has a progress engine"));
        }
        st.pe = Some(p.core.clone());
        p.core.connected.fetch_add(1, Ordering::AcqRel);
        p.core.contexts.lock().unwrap_or_else(|e| e.into_inner()).push(ctx as usize);
        drop(st);
        c.owner.watch(&p.core.notifier);
        Ok(())
    }

    /// Completes the tasks of connected contexts that are ready (running
    /// their callbacks) and finishes asynchronous stops whose work drained; 1
    /// if anything progressed.
    fn doca_pe_progress(pe: *mut abi::doca_pe) -> u8 {
        let Ok(p) = obj::<Pe, _>(pe) else { return 0 };
        let mut progressed = 0;
        for c in p.core.contexts() {
            if let Ok(ctx) = ctx_ref(c) {
                if ctx.progress_tasks() {
                    progressed = 1;
                }
                let before = ctx.state().phase;
                if before == states::STOPPING && ctx.phase() == states::IDLE {
                    progressed = 1;
                }
            }
        }
        progressed
    }

    /// The engine's notification handle: an `eventfd` (Linux), readable once
    /// armed and there is progress to make.
    fn doca_pe_get_notification_handle(pe: *const abi::doca_pe, handle: *mut abi::doca_notification_handle_t) {
        let p = obj::<Pe, _>(pe)?;
        out(handle, p.core.notifier.fd)
    }

    /// Arms the handle: it becomes readable when a connected context has
    /// something to complete (at once if one already has).
    fn doca_pe_request_notification(pe: *mut abi::doca_pe) {
        let p = obj::<Pe, _>(pe)?;
        p.core.notifier.armed.store(true, Ordering::Release);
        // Armed first, then looked: work that becomes ready meanwhile fires
        // the armed notifier itself.
        let ready = p.core.contexts().into_iter().filter_map(|c| ctx_ref(c).ok()).any(|c| c.has_ready_work());
        if ready {
            p.core.notifier.fire();
        }
        Ok(())
    }

    /// Consumes a notification (makes the handle unreadable again).
    fn doca_pe_clear_notification(pe: *mut abi::doca_pe, handle: abi::doca_notification_handle_t) {
        let p = obj::<Pe, _>(pe)?;
        if handle != p.core.notifier.fd {
            return Err(fail(codes::INVALID_VALUE, "not this engine's notification handle"));
        }
        p.core.notifier.clear();
        Ok(())
    }
}

// Task batches: not modelled (only sync events used as contexts take tasks,
// one at a time: see sync_event/task.rs); accessors that cannot fail do
// nothing or answer zero.
doca_api! {
    /// Nothing is ever held back (sync-event tasks complete on progress).
    fn doca_ctx_flush_tasks(ctx: *mut abi::doca_ctx) -> () {
        let _ = ctx;
    }

    /// No batch exists: nothing to free.
    fn doca_task_batch_free(task_batch: *mut abi::doca_task_batch) -> () {
        let _ = task_batch;
    }

    /// No batch exists: nothing to set.
    fn doca_task_batch_set_user_data(task_batch: *mut abi::doca_task_batch, user_data: abi::doca_data) -> () {
        let _ = (task_batch, user_data);
    }

    /// No batch exists: zero.
    fn doca_task_batch_get_user_data(task_batch: *const abi::doca_task_batch) -> abi::doca_data {
        let _ = task_batch;
        abi::doca_data { u64_: 0 }
    }

    /// No batch exists: zero.
    fn doca_task_batch_get_ctx_user_data(task_batch: *const abi::doca_task_batch) -> abi::doca_data {
        let _ = task_batch;
        abi::doca_data { u64_: 0 }
    }

    /// No batch exists: NULL.
    fn doca_task_batch_get_ctx(task_batch: *const abi::doca_task_batch) -> *mut abi::doca_ctx {
        let _ = task_batch;
        std::ptr::null_mut()
    }

    /// No batch exists: 0.
    fn doca_task_batch_get_tasks_num(task_batch: *mut abi::doca_task_batch) -> u16 {
        let _ = task_batch;
        0
    }
}

not_modelled! {
    /// GPU datapaths (the sim has no GPU).
    fn doca_ctx_set_datapath_on_gpu(ctx: *mut abi::doca_ctx, gpu_dev: *mut abi::doca_gpu);
    /// Completion vectors.
    fn doca_ctx_set_completion_vector(ctx: *mut abi::doca_ctx, comp_vector: u32);
    /// Completion vectors.
    fn doca_ctx_cap_get_num_completion_vectors(devinfo: *const abi::doca_devinfo, num_comp_vectors: *mut u32);
    /// Progress-engine event modes.
    fn doca_pe_set_event_mode(pe: *mut abi::doca_pe, event_mode: abi::doca_pe_event_mode);
    /// Tasks.
    fn doca_task_submit_ex(task: *mut abi::doca_task, flags: u32);
    /// Task batches.
    fn doca_task_batch_submit(task_batch: *mut abi::doca_task_batch);
    /// Task batches.
    fn doca_task_batch_try_submit(task_batch: *mut abi::doca_task_batch);
    /// Task batches.
    fn doca_task_batch_get_status(task_batch: *const abi::doca_task_batch);
}
