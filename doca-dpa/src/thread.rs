//! DPA threads and the completions that wake them.
//!
//! A persistent DPA thread runs its function each time a completion or a
//! notification arrives for it (the event-driven style of the DPA samples,
//! as opposed to one-shot kernel launches). Each object goes through a
//! configure → start lifecycle, and each phase is its own type, so the
//! orderings DOCA rejects with BAD_STATE do not compile:
//!
//! ```compile_fail
//! # fn f(thread: &doca_dpa::DpaThread, buf: doca_dpa::DevPtr) {
//! thread.local_storage(buf); // configuration belongs to ThreadBuilder
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f(comp: doca_dpa::Completion, thread: &doca_dpa::DpaThread) {
//! comp.thread(thread); // binding a thread belongs to CompletionBuilder
//! # }
//! ```
//!
//! ```compile_fail
//! # fn f(comp: &doca_dpa::CompletionBuilder) {
//! comp.handle(); // DPA handles exist only once started
//! # }
//! ```

use std::ptr::NonNull;
use std::rc::Rc;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg, ThreadFn};
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::memory::DevPtr;

macro_rules! owned_handle {
    ($name:ident, $raw:ty, $destroy:ident, $stop:ident) => {
        struct $name {
            ptr: NonNull<$raw>,
            started: bool,
        }

        impl $name {
            fn new(call: &'static str, raw: *mut $raw) -> Result<Self> {
                NonNull::new(raw)
                    .map(|ptr| $name { ptr, started: false })
                    .ok_or_else(|| Error::invalid(call, "DOCA returned NULL"))
            }

            fn as_ptr(&self) -> *mut $raw {
                self.ptr.as_ptr()
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                if self.started {
                    // SAFETY: our started object, stopped once.
                    if let Err(e) = doca_call!($stop(self.as_ptr())) {
                        tracing::warn!(target: "doca_dpa::thread", error = %e, "stop failed during drop");
                    }
                }
                // SAFETY: our object, destroyed once, after everything using it.
                if let Err(e) = doca_call!($destroy(self.as_ptr())) {
                    tracing::warn!(target: "doca_dpa::thread", error = %e, "destroy failed during drop");
                }
            }
        }

    };
}

owned_handle!(
    RawThread,
    sys::doca_dpa_thread,
    doca_dpa_thread_destroy,
    doca_dpa_thread_stop
);
owned_handle!(
    RawAffinity,
    sys::doca_dpa_eu_affinity,
    doca_dpa_eu_affinity_destroy,
    doca_dpa_eu_affinity_clear
);
owned_handle!(
    RawCompletion,
    sys::doca_dpa_completion,
    doca_dpa_completion_destroy,
    doca_dpa_completion_stop
);
owned_handle!(
    RawNotification,
    sys::doca_dpa_notification_completion,
    doca_dpa_notification_completion_destroy,
    doca_dpa_notification_completion_stop
);

struct ThreadInner {
    // Field order is drop order: the thread before its affinity, both before
    // the context.
    raw: RawThread,
    _affinity: Option<RawAffinity>,
    dpa: Dpa,
    func: ThreadFn,
}

/// A DPA thread being configured (`doca_dpa_thread_create` and
/// `doca_dpa_thread_set_func_arg` done).
pub struct ThreadBuilder {
    raw: RawThread,
    affinity: Option<RawAffinity>,
    dpa: Dpa,
    func: ThreadFn,
}

impl std::fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("func", &self.func)
            .finish()
    }
}

impl ThreadBuilder {
    /// Creates a thread that runs `func(arg)` on each activation
    /// (`doca_dpa_thread_create`, `doca_dpa_thread_set_func_arg`).
    pub fn new(dpa: &Dpa, func: &ThreadFn, arg: u64) -> Result<ThreadBuilder> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context; valid out-pointer.
        doca_call!(doca_dpa_thread_create(dpa.as_ptr(), &mut raw))?;
        let raw = RawThread::new("doca_dpa_thread_create", raw)?;
        // SAFETY: an unstarted thread and a thread function of the app.
        doca_call!(doca_dpa_thread_set_func_arg(
            raw.as_ptr(),
            func.func_ptr(),
            arg
        ))?;
        Ok(ThreadBuilder {
            raw,
            affinity: None,
            dpa: dpa.clone(),
            func: *func,
        })
    }

    /// Sets the thread's local storage, a DPA heap address its function reads
    /// with `doca_dpa_dev_thread_get_local_storage`
    /// (`doca_dpa_thread_set_local_storage`). The memory must outlive the
    /// thread.
    pub fn local_storage(self, storage: DevPtr) -> Result<Self> {
        // SAFETY: an unstarted thread.
        doca_call!(doca_dpa_thread_set_local_storage(
            self.raw.as_ptr(),
            storage.0
        ))?;
        Ok(self)
    }

    /// Pins the thread to one execution unit (`doca_dpa_eu_affinity_create`,
    /// `doca_dpa_eu_affinity_set`, `doca_dpa_thread_set_affinity`); `eu` must
    /// be below cores × EUs per core.
    pub fn affinity(mut self, eu: u32) -> Result<Self> {
        let limits = self.dpa.limits();
        let total = limits.cores * limits.eus_per_core;
        if eu >= total {
            return Err(Error::invalid(
                "doca_dpa_eu_affinity_set",
                format!("EU {eu} does not exist; the DPA has {total}"),
            ));
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context; valid out-pointer.
        doca_call!(doca_dpa_eu_affinity_create(self.dpa.as_ptr(), &mut raw))?;
        let affinity = RawAffinity::new("doca_dpa_eu_affinity_create", raw)?;
        // SAFETY: our affinity and our unstarted thread.
        doca_call!(doca_dpa_eu_affinity_set(affinity.as_ptr(), eu))?;
        doca_call!(doca_dpa_thread_set_affinity(
            self.raw.as_ptr(),
            affinity.as_ptr()
        ))?;
        self.affinity = Some(affinity);
        Ok(self)
    }

    /// Starts the thread (`doca_dpa_thread_start`). It runs only once a
    /// completion or notification is attached and `run_thread` was called on
    /// that attachment.
    pub fn start(mut self) -> Result<DpaThread> {
        // SAFETY: a configured thread.
        doca_call!(doca_dpa_thread_start(self.raw.as_ptr()))?;
        self.raw.started = true;
        tracing::debug!(target: "doca_dpa::thread", func = self.func.name(), "DPA thread started");
        Ok(DpaThread {
            inner: Rc::new(ThreadInner {
                raw: self.raw,
                _affinity: self.affinity,
                dpa: self.dpa,
                func: self.func,
            }),
        })
    }
}

/// A started DPA thread; stopped and destroyed after every completion that
/// wakes it.
#[derive(Clone)]
pub struct DpaThread {
    inner: Rc<ThreadInner>,
}

impl std::fmt::Debug for DpaThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpaThread")
            .field("func", &self.inner.func)
            .finish()
    }
}

impl DpaThread {
    /// The thread's id (`doca_dpa_thread_get_id`), e.g. for
    /// `doca_verbs_cq_attr_set_dpa_thread_id`.
    pub fn id(&self) -> Result<u32> {
        let mut id = 0;
        // SAFETY: a started thread; valid out-pointer.
        doca_call!(doca_dpa_thread_get_id(self.inner.raw.as_ptr(), &mut id))?;
        Ok(id)
    }

    fn run(&self) -> Result<()> {
        // SAFETY: a started thread with an attachment (the caller's).
        doca_call!(doca_dpa_thread_run(self.inner.raw.as_ptr()))
    }
}

/// The DPA handle of a notification completion
/// (`doca_dpa_dev_notification_completion_t`), borrowed from it.
#[derive(Debug, Clone, Copy)]
pub struct NotificationHandle<'a> {
    raw: u64,
    _owner: std::marker::PhantomData<&'a ()>,
}

impl NotificationHandle<'_> {
    /// The raw handle value.
    pub fn raw(&self) -> u64 {
        self.raw
    }
}

impl<'a> KernelArg<'a, param::Notification> for NotificationHandle<'a> {
    fn to_abi(&self) -> u64 {
        self.raw
    }
}

/// A started notification completion: kernels wake its thread with
/// `doca_dpa_dev_thread_notify(handle)`.
pub struct NotificationCompletion {
    raw: RawNotification,
    handle: u64,
    thread: DpaThread,
}

impl std::fmt::Debug for NotificationCompletion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotificationCompletion")
            .field("thread", &self.thread)
            .finish()
    }
}

impl NotificationCompletion {
    /// Creates and starts a notification completion bound to `thread`
    /// (`doca_dpa_notification_completion_create`, `_start`,
    /// `_get_dpa_handle`).
    pub fn new(thread: &DpaThread) -> Result<NotificationCompletion> {
        let dpa = &thread.inner.dpa;
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context and a started thread of it.
        doca_call!(doca_dpa_notification_completion_create(
            dpa.as_ptr(),
            thread.inner.raw.as_ptr(),
            &mut raw
        ))?;
        let mut raw = RawNotification::new("doca_dpa_notification_completion_create", raw)?;
        // SAFETY: our notification completion.
        doca_call!(doca_dpa_notification_completion_start(raw.as_ptr()))?;
        raw.started = true;
        let mut handle = 0;
        // SAFETY: started; valid out-pointer.
        doca_call!(doca_dpa_notification_completion_get_dpa_handle(
            raw.as_ptr(),
            &mut handle
        ))?;
        Ok(NotificationCompletion {
            raw,
            handle,
            thread: thread.clone(),
        })
    }

    /// The handle to pass to the kernel that notifies.
    pub fn handle(&self) -> NotificationHandle<'_> {
        NotificationHandle {
            raw: self.handle,
            _owner: std::marker::PhantomData,
        }
    }

    /// Makes the bound thread runnable (`doca_dpa_thread_run`).
    pub fn run_thread(&self) -> Result<()> {
        let _ = &self.raw;
        self.thread.run()
    }
}

/// The DPA handle of a completion context (`doca_dpa_dev_completion_t`).
#[derive(Debug, Clone, Copy)]
pub struct CompletionHandle<'a> {
    raw: u64,
    _owner: std::marker::PhantomData<&'a ()>,
}

impl CompletionHandle<'_> {
    /// The raw handle value.
    pub fn raw(&self) -> u64 {
        self.raw
    }
}

impl<'a> KernelArg<'a, param::Completion> for CompletionHandle<'a> {
    fn to_abi(&self) -> u64 {
        self.raw
    }
}

/// A DPA completion context (a DPA-side completion queue) being configured.
pub struct CompletionBuilder {
    raw: RawCompletion,
    dpa: Dpa,
    thread: Option<DpaThread>,
}

impl std::fmt::Debug for CompletionBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompletionBuilder")
            .field("thread", &self.thread)
            .finish()
    }
}

impl CompletionBuilder {
    /// Creates a completion context of at least `queue_size` entries (DOCA
    /// rounds up to a power of two) (`doca_dpa_completion_create`).
    pub fn new(dpa: &Dpa, queue_size: u32) -> Result<CompletionBuilder> {
        if queue_size == 0 {
            return Err(Error::invalid("doca_dpa_completion_create", "queue size 0"));
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context; valid out-pointer.
        doca_call!(doca_dpa_completion_create(
            dpa.as_ptr(),
            queue_size,
            &mut raw
        ))?;
        Ok(CompletionBuilder {
            raw: RawCompletion::new("doca_dpa_completion_create", raw)?,
            dpa: dpa.clone(),
            thread: None,
        })
    }

    /// Binds the thread each completion wakes (`doca_dpa_completion_set_thread`).
    pub fn thread(mut self, thread: &DpaThread) -> Result<Self> {
        // SAFETY: an unstarted completion and a started thread.
        doca_call!(doca_dpa_completion_set_thread(
            self.raw.as_ptr(),
            thread.inner.raw.as_ptr()
        ))?;
        self.thread = Some(thread.clone());
        Ok(self)
    }

    /// Starts it (`doca_dpa_completion_start`) and gets its DPA handle.
    pub fn start(mut self) -> Result<Completion> {
        // SAFETY: a configured completion.
        doca_call!(doca_dpa_completion_start(self.raw.as_ptr()))?;
        self.raw.started = true;
        let mut handle = 0;
        // SAFETY: started; valid out-pointer.
        doca_call!(doca_dpa_completion_get_dpa_handle(
            self.raw.as_ptr(),
            &mut handle
        ))?;
        let mut size = 0;
        // SAFETY: valid out-pointer.
        doca_call!(doca_dpa_completion_get_queue_size(
            self.raw.as_ptr(),
            &mut size
        ))?;
        Ok(Completion {
            raw: self.raw,
            handle,
            queue_size: size as u32,
            thread: self.thread,
            _dpa: self.dpa,
        })
    }
}

/// A started DPA completion context. Producer contexts (RDMA, RDMI, async
/// ops) attach to it before they start; kernels read it with
/// `doca_dpa_dev_get_completion`.
pub struct Completion {
    raw: RawCompletion,
    handle: u64,
    queue_size: u32,
    thread: Option<DpaThread>,
    _dpa: Dpa,
}

impl std::fmt::Debug for Completion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Completion")
            .field("queue_size", &self.queue_size)
            .field("thread", &self.thread)
            .finish()
    }
}

impl Completion {
    /// The handle to pass to kernels.
    pub fn handle(&self) -> CompletionHandle<'_> {
        CompletionHandle {
            raw: self.handle,
            _owner: std::marker::PhantomData,
        }
    }

    /// The queue size after rounding (`doca_dpa_completion_get_queue_size`).
    pub fn queue_size(&self) -> u32 {
        self.queue_size
    }

    /// Makes the bound thread runnable (`doca_dpa_thread_run`); an error if
    /// no thread is bound.
    pub fn run_thread(&self) -> Result<()> {
        match &self.thread {
            Some(t) => t.run(),
            None => Err(Error::invalid(
                "doca_dpa_thread_run",
                "no thread is bound to this completion",
            )),
        }
    }

    /// The raw completion, for attaching producer contexts.
    pub fn as_ptr(&self) -> *mut sys::doca_dpa_completion {
        self.raw.as_ptr()
    }
}

/// A started group of DPA threads with ranks 0..n (kernels see their rank in
/// the group).
///
/// [`ThreadGroup::new`] does the whole ordering DOCA requires in one call:
/// `doca_dpa_thread_group_create`, `doca_dpa_thread_group_set_thread` for
/// each unstarted thread, `doca_dpa_thread_start` for each, then
/// `doca_dpa_thread_group_start` (all EXPERIMENTAL). On drop the group is
/// stopped and destroyed before its threads.
pub struct ThreadGroup {
    ptr: NonNull<sys::doca_dpa_tg>,
    started: bool,
    threads: Vec<DpaThread>,
    _dpa: Dpa,
}

impl std::fmt::Debug for ThreadGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadGroup")
            .field("threads", &self.threads)
            .finish()
    }
}

impl ThreadGroup {
    /// Groups `threads` (rank = position) and starts them and the group.
    pub fn new(dpa: &Dpa, threads: Vec<ThreadBuilder>) -> Result<ThreadGroup> {
        if threads.is_empty() {
            return Err(Error::invalid(
                "doca_dpa_thread_group_create",
                "a thread group needs at least one thread",
            ));
        }
        let n = u32::try_from(threads.len())
            .map_err(|_| Error::invalid("doca_dpa_thread_group_create", "too many threads"))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context; valid out-pointer.
        doca_call!(doca_dpa_thread_group_create(dpa.as_ptr(), n, &mut raw))?;
        let ptr = NonNull::new(raw)
            .ok_or_else(|| Error::invalid("doca_dpa_thread_group_create", "DOCA returned NULL"))?;
        let mut group = ThreadGroup {
            ptr,
            started: false,
            threads: Vec::with_capacity(threads.len()),
            _dpa: dpa.clone(),
        };
        for (rank, thread) in threads.iter().enumerate() {
            // SAFETY: our unstarted group and an unstarted thread.
            doca_call!(doca_dpa_thread_group_set_thread(
                group.ptr.as_ptr(),
                thread.raw.as_ptr(),
                rank as u32
            ))?;
        }
        for thread in threads {
            group.threads.push(thread.start()?);
        }
        // SAFETY: every rank set with a started thread.
        doca_call!(doca_dpa_thread_group_start(group.ptr.as_ptr()))?;
        group.started = true;
        Ok(group)
    }

    /// The threads, by rank.
    pub fn threads(&self) -> &[DpaThread] {
        &self.threads
    }
}

impl Drop for ThreadGroup {
    fn drop(&mut self) {
        let p = self.ptr.as_ptr();
        if self.started {
            // SAFETY: our started group, stopped once.
            if let Err(e) = doca_call!(doca_dpa_thread_group_stop(p)) {
                tracing::warn!(target: "doca_dpa::thread", error = %e, "doca_dpa_thread_group_stop failed during drop");
            }
        }
        // SAFETY: our group, destroyed once, before its threads (fields drop
        // after this).
        if let Err(e) = doca_call!(doca_dpa_thread_group_destroy(p)) {
            tracing::warn!(target: "doca_dpa::thread", error = %e, "doca_dpa_thread_group_destroy failed during drop");
        }
    }
}
