//! `doca_ctx.h` and `doca_pe.h`: the generic DOCA context lifecycle that RDMI
//! connections and posters go through, and progress engines.

use std::sync::atomic::{AtomicUsize, Ordering};
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
        pe.connected.fetch_sub(1, Ordering::AcqRel);
    }
    Ok(())
}

/// The state of a progress engine.
pub(crate) struct PeCore {
    connected: AtomicUsize,
    contexts: Mutex<Vec<usize>>,
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

    /// Model choice: the sim's contexts have no task queues, so this is 0.
    fn doca_ctx_get_num_inflight_tasks(ctx: *const abi::doca_ctx, num_inflight_tasks: *mut usize) {
        ctx_ref(ctx as usize)?;
        out(num_inflight_tasks, 0)
    }

    /// Creates a progress engine.
    fn doca_pe_create(pe: *mut *mut abi::doca_pe) {
        if pe.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let p = registry::register(Pe {
            core: Arc::new(PeCore { connected: AtomicUsize::new(0), contexts: Mutex::default() }),
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
        Ok(())
    }

    /// Finishes asynchronous stops of connected contexts; 1 if one finished.
    fn doca_pe_progress(pe: *mut abi::doca_pe) -> u8 {
        let Ok(p) = obj::<Pe, _>(pe) else { return 0 };
        let contexts = p.core.contexts.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut progressed = 0;
        for c in contexts {
            if let Ok(ctx) = ctx_ref(c) {
                let before = ctx.state().phase;
                if before == states::STOPPING && ctx.phase() == states::IDLE {
                    progressed = 1;
                }
            }
        }
        progressed
    }
}

// Tasks: the sim's contexts (DPA, RDMI) take none, so no `doca_task` or
// `doca_task_batch` is ever handed out. Calls that need one are not
// modelled; accessors that cannot fail do nothing or answer zero.
doca_api! {
    /// Nothing is ever held back (no context takes tasks).
    fn doca_ctx_flush_tasks(ctx: *mut abi::doca_ctx) -> () {
        let _ = ctx;
    }

    /// Model choice: 0, as for `doca_ctx_get_num_inflight_tasks`.
    fn doca_pe_get_num_inflight_tasks(pe: *const abi::doca_pe, num_inflight_tasks: *mut usize) {
        obj::<Pe, _>(pe)?;
        out(num_inflight_tasks, 0)
    }

    /// No task exists: nothing to free.
    fn doca_task_free(task: *mut abi::doca_task) -> () {
        let _ = task;
    }

    /// No batch exists: nothing to free.
    fn doca_task_batch_free(task_batch: *mut abi::doca_task_batch) -> () {
        let _ = task_batch;
    }

    /// No task exists: nothing to set.
    fn doca_task_set_user_data(task: *mut abi::doca_task, user_data: abi::doca_data) -> () {
        let _ = (task, user_data);
    }

    /// No batch exists: nothing to set.
    fn doca_task_batch_set_user_data(task_batch: *mut abi::doca_task_batch, user_data: abi::doca_data) -> () {
        let _ = (task_batch, user_data);
    }

    /// No task exists: zero.
    fn doca_task_get_user_data(task: *const abi::doca_task) -> abi::doca_data {
        let _ = task;
        abi::doca_data { u64_: 0 }
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

    /// No task exists: NULL.
    fn doca_task_get_ctx(task: *const abi::doca_task) -> *mut abi::doca_ctx {
        let _ = task;
        std::ptr::null_mut()
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
    /// Tasks (no context of the sim takes any).
    fn doca_task_submit(task: *mut abi::doca_task);
    /// Tasks.
    fn doca_task_submit_ex(task: *mut abi::doca_task, flags: u32);
    /// Tasks.
    fn doca_task_try_submit(task: *mut abi::doca_task);
    /// Tasks.
    fn doca_task_get_status(task: *const abi::doca_task);
    /// Task batches.
    fn doca_task_batch_submit(task_batch: *mut abi::doca_task_batch);
    /// Task batches.
    fn doca_task_batch_try_submit(task_batch: *mut abi::doca_task_batch);
    /// Task batches.
    fn doca_task_batch_get_status(task_batch: *const abi::doca_task_batch);
    /// Event-driven progress (the sim's contexts complete synchronously).
    fn doca_pe_get_notification_handle(pe: *const abi::doca_pe, handle: *mut abi::doca_notification_handle_t);
    /// Event-driven progress.
    fn doca_pe_request_notification(pe: *mut abi::doca_pe);
    /// Event-driven progress.
    fn doca_pe_clear_notification(pe: *mut abi::doca_pe, handle: abi::doca_notification_handle_t);
}
