//! Sync events driven as DOCA contexts (`doca_sync_event_as_ctx`): the five
//! task types of `doca_sync_event.h` and the generic `doca_task` calls of
//! `doca_pe.h`, completed by `doca_pe_progress`. The C functions that take
//! the event itself (`doca_sync_event_as_ctx`, each type's `*_set_conf` and
//! `*_alloc_init`) are in the parent module, which owns the event; they call
//! [`configure`] and [`allocate`] here.
//!
//! Model (the facts give the prototypes and the PE rules; the rest follows
//! NVIDIA's PE samples, which configure, start, allocate, submit, progress and
//! free in this order):
//! - each task type is configured with `*_set_conf` (callbacks, pool size)
//!   while the event's context is idle; `*_alloc_init` needs it running and a
//!   free slot of the pool (NO_MEMORY when all are allocated);
//! - a submitted task completes on a later `doca_pe_progress` of the engine
//!   the context is connected to: get, notify-set and notify-add at once, the
//!   waits once `(value & mask)` equals / differs from the task's value. One
//!   progress call completes every task that is ready when it looks;
//! - model choice: stopping the context with tasks in flight answers
//!   IN_PROGRESS; the next progress completes each of them through its error
//!   callback with status `DOCA_ERROR_IO_FAILED` ("flushed"), and the context
//!   then becomes idle;
//! - a callback may free its task or submit it again.

use std::ffi::c_void;
use std::sync::{Arc, Mutex, MutexGuard};

use super::value::{Compare, EventCore};
use crate::abi;
use crate::ctx::{self, states, CtxOwner};
use crate::dev::obj;
use crate::dpa::DpaCore;
use crate::error::{codes, fail, SimResult};
use crate::export::{doca_api, out};
use crate::registry::{self, SimObject};

/// The task types, in the order of their configurations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Get,
    NotifySet,
    NotifyAdd,
    WaitEq,
    WaitNeq,
}

impl Kind {
    const ALL: usize = 5;

    fn index(self) -> usize {
        self as usize
    }
}

/// Every task callback type of `doca_sync_event.h` with its task pointer
/// erased: they differ only in the pointee type of their first parameter.
pub(crate) type Callback = unsafe extern "C" fn(*mut c_void, abi::doca_data, abi::doca_data);

/// Erases the task type of a callback.
///
/// # Safety
/// `F` must be an `Option` of an `extern "C"` function taking a pointer to a
/// sized task type and two `doca_data`, returning nothing.
pub(crate) unsafe fn erase<F: Copy>(cb: F) -> Option<Callback> {
    const { assert!(size_of::<F>() == size_of::<Option<Callback>>()) };
    // SAFETY: per the contract, `F` is `Option<extern "C" fn(*mut T, doca_data,
    // doca_data)>`; pointers to sized types are ABI-compatible with each other,
    // so calling through the erased type is calling the function with its own
    // signature.
    unsafe { std::mem::transmute_copy::<F, Option<Callback>>(&cb) }
}

#[derive(Clone, Copy)]
struct Conf {
    completion: Option<Callback>,
    error: Option<Callback>,
    num_tasks: u32,
    allocated: u32,
}

/// What a task does when it completes.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    Get { ret: *mut u64 },
    Set { value: u64 },
    Add { inc: u64, fetched: *mut u64 },
    Wait { cmp: Compare, value: u64, mask: u64 },
}

struct TaskState {
    op: Op,
    user_data: abi::doca_data,
    status: crate::error::Code,
    in_flight: bool,
}

/// A task (`struct doca_task` and each `struct doca_sync_event_task_*`: one
/// object, whichever way it is named).
pub(crate) struct Task {
    kind: Kind,
    tasks: Arc<EventTasks>,
    state: Mutex<TaskState>,
}
impl SimObject for Task {
    const KIND: &'static str = "doca_task";
}

// SAFETY: the raw pointers in `Op` are the application's destinations, only
// written during a progress call, as DOCA does; the state is behind a mutex.
unsafe impl Send for TaskState {}
// SAFETY: as above; callbacks are plain C function pointers.
unsafe impl Send for Conf {}

impl Task {
    fn state(&self) -> MutexGuard<'_, TaskState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The task side of one sync event: configurations, the in-flight queue, and
/// the context once `doca_sync_event_as_ctx` made one.
pub(crate) struct EventTasks {
    core: Arc<EventCore>,
    inner: Mutex<TasksInner>,
}

struct TasksInner {
    confs: [Option<Conf>; Kind::ALL],
    queue: Vec<usize>,
    ctx: Option<usize>,
}

impl EventTasks {
    pub(crate) fn new(core: Arc<EventCore>) -> Arc<EventTasks> {
        Arc::new(EventTasks {
            core,
            inner: Mutex::new(TasksInner {
                confs: [None; Kind::ALL],
                queue: Vec::new(),
                ctx: None,
            }),
        })
    }

    fn inner(&self) -> MutexGuard<'_, TasksInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The event's context, made on first use with the owner `owner` returns.
    pub(crate) fn ctx(self: &Arc<Self>, owner: impl FnOnce() -> Arc<dyn CtxOwner>) -> usize {
        let mut inner = self.inner();
        *inner.ctx.get_or_insert_with(|| ctx::new_ctx(owner()))
    }

    /// The context, if one was made.
    pub(crate) fn existing_ctx(&self) -> Option<usize> {
        self.inner().ctx
    }

    /// Tasks submitted and not completed.
    pub(crate) fn in_flight(&self) -> u64 {
        self.inner().queue.len() as u64
    }

    /// Whether a submitted task would complete if progressed now.
    pub(crate) fn any_ready(&self, stopping: bool) -> bool {
        let queue = self.inner().queue.clone();
        stopping && !queue.is_empty() || queue.iter().any(|t| self.ready(*t))
    }

    fn ready(&self, task: usize) -> bool {
        let Ok(t) = obj::<Task, Task>(task as *const Task) else {
            return false;
        };
        match t.state().op {
            Op::Wait { cmp, value, mask } => cmp.holds(self.core.get(), mask, value & mask),
            Op::Get { .. } | Op::Set { .. } | Op::Add { .. } => true,
        }
    }

    /// Completes what is ready (every queued task when the context is
    /// stopping: flushed with an error); whether anything completed.
    pub(crate) fn progress(&self, stopping: bool, ctx_user_data: abi::doca_data) -> bool {
        let due: Vec<usize> = {
            let mut inner = self.inner();
            let (due, keep): (Vec<usize>, Vec<usize>) = inner
                .queue
                .iter()
                .partition(|t| stopping || self.ready(**t));
            inner.queue = keep;
            due
        };
        for &task in &due {
            self.complete(task, stopping, ctx_user_data);
        }
        !due.is_empty()
    }

    /// Runs one task's operation and its callback, outside every lock.
    fn complete(&self, task: usize, flushed: bool, ctx_user_data: abi::doca_data) {
        let Ok(t) = obj::<Task, Task>(task as *const Task) else {
            return;
        };
        let (op, user_data) = {
            let st = t.state();
            (st.op, st.user_data)
        };
        let status = if flushed {
            codes::IO_FAILED
        } else {
            match op {
                Op::Get { ret } => write(ret, self.core.get()),
                Op::Set { value } => {
                    self.core.set(value);
                    codes::SUCCESS
                }
                Op::Add { inc, fetched } => write(fetched, self.core.add(inc)),
                Op::Wait { .. } => codes::SUCCESS,
            }
        };
        {
            let mut st = t.state();
            st.status = status;
            st.in_flight = false;
        }
        let conf = self.inner().confs[t.kind.index()];
        let cb = conf.and_then(|c| {
            if status == codes::SUCCESS {
                c.completion
            } else {
                c.error
            }
        });
        if let Some(cb) = cb {
            // SAFETY: the application registered this callback for tasks of
            // this type; the task is live (checked above) and not in flight, so
            // the callback may free or resubmit it.
            unsafe { cb(task as *mut c_void, user_data, ctx_user_data) };
        }
    }
}

/// Writes a task's result; INVALID_VALUE as its status for a NULL destination.
fn write(ptr: *mut u64, value: u64) -> crate::error::Code {
    if ptr.is_null() {
        return codes::INVALID_VALUE;
    }
    // SAFETY: the application gave this destination with the task and keeps it
    // valid until the task completed (the DOCA contract of result pointers).
    unsafe { ptr.write(value) };
    codes::SUCCESS
}

/// The context's phase, or IDLE when the event has none yet.
fn phase(tasks: &EventTasks) -> u32 {
    match tasks.existing_ctx().map(ctx::ctx_ref) {
        Some(Ok(c)) => c.phase(),
        _ => states::IDLE,
    }
}

pub(crate) fn configure(
    tasks: &EventTasks,
    kind: Kind,
    completion: Option<Callback>,
    error: Option<Callback>,
    num_tasks: u32,
) -> SimResult {
    if num_tasks == 0 {
        return Err(fail(codes::INVALID_VALUE, "a task pool of 0 tasks"));
    }
    if completion.is_none() || error.is_none() {
        return Err(fail(codes::INVALID_VALUE, "both callbacks are required"));
    }
    if phase(tasks) != states::IDLE {
        return Err(fail(
            codes::BAD_STATE,
            "tasks are configured while the event's context is idle",
        ));
    }
    let mut inner = tasks.inner();
    let allocated = inner.confs[kind.index()].map_or(0, |c| c.allocated);
    inner.confs[kind.index()] = Some(Conf {
        completion,
        error,
        num_tasks,
        allocated,
    });
    Ok(())
}

pub(crate) fn allocate<T>(
    tasks: &Arc<EventTasks>,
    kind: Kind,
    op: Op,
    user_data: abi::doca_data,
    task: *mut *mut T,
) -> SimResult {
    if task.is_null() {
        return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
    }
    if phase(tasks) != states::RUNNING {
        return Err(fail(
            codes::BAD_STATE,
            "tasks are allocated while the event's context runs",
        ));
    }
    {
        let mut inner = tasks.inner();
        let Some(conf) = inner.confs[kind.index()].as_mut() else {
            return Err(fail(
                codes::BAD_STATE,
                "this task type was not configured with its *_set_conf",
            ));
        };
        if conf.allocated >= conf.num_tasks {
            return Err(fail(
                codes::NO_MEMORY,
                "every task of the pool is allocated (see *_set_conf)",
            ));
        }
        conf.allocated += 1;
    }
    let t = registry::register(Task {
        kind,
        tasks: tasks.clone(),
        state: Mutex::new(TaskState {
            op,
            user_data,
            status: codes::SUCCESS,
            in_flight: false,
        }),
    });
    out(task, t.cast())
}

fn task<'a, P>(ptr: *const P) -> SimResult<&'a Task> {
    obj::<Task, P>(ptr)
}

/// Applies `f` to the operation of a task of `kind`; does nothing for another
/// pointer (the setters and getters return no error).
fn with_op<P, R>(ptr: *const P, kind: Kind, default: R, f: impl FnOnce(&mut Op) -> R) -> R {
    match task(ptr) {
        Ok(t) if t.kind == kind => f(&mut t.state().op),
        _ => default,
    }
}

fn submit(ptr: *mut abi::doca_task) -> SimResult {
    let t = task(ptr)?;
    let tasks = t.tasks.clone();
    let ctx_ptr = tasks
        .existing_ctx()
        .ok_or_else(|| fail(codes::BAD_STATE, "the event has no context"))?;
    let c = ctx::ctx_ref(ctx_ptr)?;
    if c.phase() != states::RUNNING {
        return Err(fail(codes::BAD_STATE, "the event's context is not running"));
    }
    {
        let mut st = t.state();
        if st.in_flight {
            return Err(fail(codes::BAD_STATE, "the task is already in flight"));
        }
        st.in_flight = true;
        st.status = codes::SUCCESS;
    }
    tasks.inner().queue.push(ptr as usize);
    // A task that can complete at once must wake an armed engine.
    if tasks.ready(ptr as usize) {
        c.notify_engine();
    }
    Ok(())
}

/// The `CtxOwner` of a sync event's context.
pub(crate) struct EventCtx {
    pub(crate) tasks: Arc<EventTasks>,
    /// Marks the event started / stopped in its standalone state.
    pub(crate) set_started: Box<dyn Fn(bool) -> SimResult + Send + Sync>,
}

impl CtxOwner for EventCtx {
    fn check_start(&self, _dpa: Option<&Arc<DpaCore>>) -> SimResult {
        (self.set_started)(true)
    }

    fn in_flight(&self) -> u64 {
        self.tasks.in_flight()
    }

    fn stopped(&self) {
        let _ = (self.set_started)(false);
    }

    fn progress(&self, stopping: bool, ctx_user_data: abi::doca_data) -> bool {
        self.tasks.progress(stopping, ctx_user_data)
    }

    fn ready(&self, stopping: bool) -> bool {
        self.tasks.any_ready(stopping)
    }

    fn watch(&self, engine: &Arc<ctx::Notifier>) {
        self.tasks.core.watch(engine);
    }
}

/// Whether this device's sync events take tasks (the profile's
/// `sync_event_tasks`).
fn cap(devinfo: *const abi::doca_devinfo) -> SimResult {
    let info = obj::<crate::dev::DevInfo, _>(devinfo)?;
    if info.model.profile.sync_event_tasks {
        Ok(())
    } else {
        Err(fail(
            codes::NOT_SUPPORTED,
            "this device's sync events take no tasks (profile: sync_event_tasks = false)",
        ))
    }
}

/// Two of the functions each task type has besides its allocation, its
/// configuration (both take the event: `super`) and its accessors: its
/// capability query and its `doca_task` view.
macro_rules! task_type {
    ($(
        $task:ty:
            cap fn $cap:ident, as_task fn $as_task:ident;
    )*) => {$(
        doca_api! {
            /// Whether this device's sync events take tasks of this type.
            fn $cap(devinfo: *const abi::doca_devinfo) {
                cap(devinfo)
            }

            /// The task itself, as a generic `doca_task`.
            fn $as_task(task: *mut $task) -> *mut abi::doca_task {
                task.cast()
            }
        }
    )*};
}

task_type! {
    abi::doca_sync_event_task_get:
        cap fn doca_sync_event_cap_task_get_is_supported,
        as_task fn doca_sync_event_task_get_as_doca_task;
    abi::doca_sync_event_task_notify_set:
        cap fn doca_sync_event_cap_task_notify_set_is_supported,
        as_task fn doca_sync_event_task_notify_set_as_doca_task;
    abi::doca_sync_event_task_notify_add:
        cap fn doca_sync_event_cap_task_notify_add_is_supported,
        as_task fn doca_sync_event_task_notify_add_as_doca_task;
    abi::doca_sync_event_task_wait_eq:
        cap fn doca_sync_event_cap_task_wait_eq_is_supported,
        as_task fn doca_sync_event_task_wait_eq_as_doca_task;
    abi::doca_sync_event_task_wait_neq:
        cap fn doca_sync_event_cap_task_wait_neq_is_supported,
        as_task fn doca_sync_event_task_wait_neq_as_doca_task;
}

doca_api! {
    /// Sets where a get task writes the value.
    fn doca_sync_event_task_get_set_ret_val_ptr(task: *mut abi::doca_sync_event_task_get, ret_val_ptr: *mut u64) -> () {
        with_op(task, Kind::Get, (), |op| *op = Op::Get { ret: ret_val_ptr })
    }

    /// Where a get task writes the value (NULL for another pointer).
    fn doca_sync_event_task_get_get_ret_val_ptr(task: *const abi::doca_sync_event_task_get) -> *mut u64 {
        with_op(task, Kind::Get, std::ptr::null_mut(), |op| match op {
            Op::Get { ret } => *ret,
            _ => std::ptr::null_mut(),
        })
    }

    /// Sets the value of a notify-set task.
    fn doca_sync_event_task_notify_set_set_set_val(task: *mut abi::doca_sync_event_task_notify_set, set_val: u64) -> () {
        with_op(task, Kind::NotifySet, (), |op| *op = Op::Set { value: set_val })
    }

    /// The value of a notify-set task (0 for another pointer).
    fn doca_sync_event_task_notify_set_get_set_val(task: *const abi::doca_sync_event_task_notify_set) -> u64 {
        with_op(task, Kind::NotifySet, 0, |op| match op {
            Op::Set { value } => *value,
            _ => 0,
        })
    }

    /// Sets the increment of a notify-add task.
    fn doca_sync_event_task_notify_add_set_inc_val(task: *mut abi::doca_sync_event_task_notify_add, inc_val: u64) -> () {
        with_op(task, Kind::NotifyAdd, (), |op| if let Op::Add { inc, .. } = op { *inc = inc_val })
    }

    /// The increment of a notify-add task (0 for another pointer).
    fn doca_sync_event_task_notify_add_get_inc_val(task: *const abi::doca_sync_event_task_notify_add) -> u64 {
        with_op(task, Kind::NotifyAdd, 0, |op| match op {
            Op::Add { inc, .. } => *inc,
            _ => 0,
        })
    }

    /// Sets where a notify-add task writes the previous value.
    fn doca_sync_event_task_notify_add_set_fetched_val_ptr(task: *mut abi::doca_sync_event_task_notify_add, fetched_val_ptr: *mut u64) -> () {
        with_op(task, Kind::NotifyAdd, (), |op| if let Op::Add { fetched, .. } = op { *fetched = fetched_val_ptr })
    }

    /// Where a notify-add task writes the previous value (NULL for another pointer).
    fn doca_sync_event_task_notify_add_get_fetched_val_ptr(task: *const abi::doca_sync_event_task_notify_add) -> *mut u64 {
        with_op(task, Kind::NotifyAdd, std::ptr::null_mut(), |op| match op {
            Op::Add { fetched, .. } => *fetched,
            _ => std::ptr::null_mut(),
        })
    }

    /// Sets the value of a wait-equal task.
    fn doca_sync_event_task_wait_eq_set_wait_val(task: *mut abi::doca_sync_event_task_wait_eq, wait_val: u64) -> () {
        with_op(task, Kind::WaitEq, (), |op| if let Op::Wait { value, .. } = op { *value = wait_val })
    }

    /// The value of a wait-equal task (0 for another pointer).
    fn doca_sync_event_task_wait_eq_get_wait_val(task: *const abi::doca_sync_event_task_wait_eq) -> u64 {
        with_op(task, Kind::WaitEq, 0, |op| match op {
            Op::Wait { value, .. } => *value,
            _ => 0,
        })
    }

    /// Sets the mask of a wait-equal task.
    fn doca_sync_event_task_wait_eq_set_mask(task: *mut abi::doca_sync_event_task_wait_eq, mask: u64) -> () {
        with_op(task, Kind::WaitEq, (), |op| if let Op::Wait { mask: m, .. } = op { *m = mask })
    }

    /// The mask of a wait-equal task (0 for another pointer).
    fn doca_sync_event_task_wait_eq_get_mask(task: *const abi::doca_sync_event_task_wait_eq) -> u64 {
        with_op(task, Kind::WaitEq, 0, |op| match op {
            Op::Wait { mask, .. } => *mask,
            _ => 0,
        })
    }

    /// Sets the value of a wait-not-equal task.
    fn doca_sync_event_task_wait_neq_set_wait_val(task: *mut abi::doca_sync_event_task_wait_neq, wait_val: u64) -> () {
        with_op(task, Kind::WaitNeq, (), |op| if let Op::Wait { value, .. } = op { *value = wait_val })
    }

    /// The value of a wait-not-equal task (0 for another pointer).
    fn doca_sync_event_task_wait_neq_get_wait_val(task: *const abi::doca_sync_event_task_wait_neq) -> u64 {
        with_op(task, Kind::WaitNeq, 0, |op| match op {
            Op::Wait { value, .. } => *value,
            _ => 0,
        })
    }

    /// Sets the mask of a wait-not-equal task.
    fn doca_sync_event_task_wait_neq_set_mask(task: *mut abi::doca_sync_event_task_wait_neq, mask: u64) -> () {
        with_op(task, Kind::WaitNeq, (), |op| if let Op::Wait { mask: m, .. } = op { *m = mask })
    }

    /// The mask of a wait-not-equal task (0 for another pointer).
    fn doca_sync_event_task_wait_neq_get_mask(task: *const abi::doca_sync_event_task_wait_neq) -> u64 {
        with_op(task, Kind::WaitNeq, 0, |op| match op {
            Op::Wait { mask, .. } => *mask,
            _ => 0,
        })
    }

    /// Submits a task to its event's context.
    fn doca_task_submit(task: *mut abi::doca_task) {
        submit(task)
    }

    /// As `doca_task_submit`: the sim's sync-event contexts never refuse for
    /// being busy (model choice), so AGAIN is never returned.
    fn doca_task_try_submit(task: *mut abi::doca_task) {
        submit(task)
    }

    /// Returns a task to its pool. Model choice: freeing a task in flight (or
    /// a pointer that is not a task) does nothing; DOCA leaves it undefined.
    fn doca_task_free(task: *mut abi::doca_task) -> () {
        let Ok(t) = self::task(task) else {
            crate::export::log(format_args!("doca_task_free: not a live task"));
            return;
        };
        if t.state().in_flight {
            crate::export::log(format_args!("doca_task_free: the task is in flight; not freed"));
            return;
        }
        let tasks = t.tasks.clone();
        let kind = t.kind;
        // SAFETY: a live task (checked above) that is not in flight, so no
        // progress call holds it.
        if unsafe { registry::unregister::<Task, _>(task) }.is_ok() {
            if let Some(conf) = tasks.inner().confs[kind.index()].as_mut() {
                conf.allocated = conf.allocated.saturating_sub(1);
            }
        }
    }

    /// The status of a task's last completion (SUCCESS before it completed).
    fn doca_task_get_status(task: *const abi::doca_task) {
        match self::task(task)?.state().status {
            codes::SUCCESS => Ok(()),
            code => Err(fail(code, "the task failed")),
        }
    }

    /// Sets a task's user data.
    fn doca_task_set_user_data(task: *mut abi::doca_task, user_data: abi::doca_data) -> () {
        if let Ok(t) = self::task(task) {
            t.state().user_data = user_data;
        }
    }

    /// A task's user data (0 for a pointer that is not a task).
    fn doca_task_get_user_data(task: *const abi::doca_task) -> abi::doca_data {
        match self::task(task) {
            Ok(t) => t.state().user_data,
            Err(_) => abi::doca_data { u64_: 0 },
        }
    }

    /// The context a task belongs to (NULL for a pointer that is not a task).
    fn doca_task_get_ctx(task: *const abi::doca_task) -> *mut abi::doca_ctx {
        match self::task(task) {
            Ok(t) => t.tasks.existing_ctx().map_or(std::ptr::null_mut(), |c| c as *mut abi::doca_ctx),
            Err(_) => std::ptr::null_mut(),
        }
    }
}
