//! The completions that wake DPA threads: notification completions (kernels notify
//! a thread) and DPA completion contexts (producer contexts such as RDMA, RDMI and
//! async ops complete into them). Configure → start, as threads (`thread.rs`),
//! each phase its own type:
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

use std::sync::Arc;

use doca_dpa_sys as sys;

use crate::app::{param, KernelArg};
use crate::core::Owned;
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::family::{FamilyMember, Member};
use crate::keep::{Keep, KeepAlive};
use crate::thread::DpaThread;

crate::__doca_object!(
    /// `doca_dpa_completion`.
    RawCompletion: doca_dpa_sys::doca_dpa_completion,
    destroy doca_dpa_completion_destroy,
    stop doca_dpa_completion_stop
);
crate::__doca_object!(
    /// `doca_dpa_notification_completion`.
    RawNotification: doca_dpa_sys::doca_dpa_notification_completion,
    destroy doca_dpa_notification_completion_destroy,
    stop doca_dpa_notification_completion_stop
);

struct NotificationInner {
    // Stopped and destroyed (its Drop) before the thread it wakes is released.
    raw: Owned<RawNotification>,
    handle: u64,
    thread: DpaThread,
}

impl FamilyMember for NotificationInner {
    fn family_of(&self) -> &Dpa {
        self.thread.dpa()
    }
}

impl Drop for NotificationInner {
    fn drop(&mut self) {
        let outcome = self.thread.dpa().teardown_child(&mut self.raw);
        if !outcome.stopped() {
            // It may still wake the thread: never release it.
            crate::keep::bury(self.thread.clone());
        }
        outcome.report();
    }
}

/// A started notification completion: kernels wake its thread with
/// `doca_dpa_dev_thread_notify(handle)`. Passed to kernels (or stored in a
/// [`DpaBox`](crate::DpaBox) through a [`Dev`](crate::Dev)) by reference, which keeps
/// it alive.
pub struct NotificationCompletion {
    inner: Arc<Member<NotificationInner>>,
}

impl std::fmt::Debug for NotificationCompletion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NotificationCompletion")
            .field("thread", &self.inner.thread)
            .finish()
    }
}

impl NotificationCompletion {
    /// Creates and starts a notification completion bound to `thread`
    /// (`doca_dpa_notification_completion_create`, `_start`,
    /// `_get_dpa_handle`).
    pub fn new(thread: &DpaThread) -> Result<NotificationCompletion> {
        let dpa = thread.dpa();
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context and a started thread of it, under their
        // family's guard.
        dpa.or_fatal(dpa.with_ctx(|ctx, g| unsafe {
            doca_call!(doca_dpa_notification_completion_create(
                ctx,
                thread.as_ptr(g),
                &mut raw
            ))
        }))?;
        // Owned at once: a failure below tears it down (under the family's guard).
        let mut inner = Member::new(NotificationInner {
            // SAFETY: what doca_dpa_notification_completion_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its context's family.
            raw: unsafe {
                Owned::new("doca_dpa_notification_completion_create", raw, dpa.domain())
            }?,
            handle: 0,
            thread: thread.clone(),
        });
        let parts = &mut *inner;
        let (raw, handle) = (&mut parts.raw, &mut parts.handle);
        dpa.or_fatal(dpa.with_ctx(|_, g| {
            // SAFETY: our notification completion, under its family's guard.
            unsafe { doca_call!(doca_dpa_notification_completion_start(raw.as_ptr(g))) }?;
            raw.set_started();
            // SAFETY: started; valid out-pointer.
            unsafe {
                doca_call!(doca_dpa_notification_completion_get_dpa_handle(
                    raw.as_ptr(g),
                    handle
                ))
            }
        }))?;
        Ok(NotificationCompletion {
            inner: Arc::new(inner),
        })
    }

    /// Makes the bound thread runnable (`doca_dpa_thread_run`).
    pub fn run_thread(&self) -> Result<()> {
        self.inner.thread.run()
    }
}

// SAFETY: the notification's DPA handle, of the context the values go to (checked);
// the keep record holds it (and so its thread).
unsafe impl KernelArg<param::Notification> for NotificationCompletion {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(self.inner.thread.dpa(), "the notification completion")?;
        keep.keep(KeepAlive::new(&self.inner));
        Ok(self.inner.handle)
    }
}

/// A DPA completion context (a DPA-side completion queue) being configured.
pub struct CompletionBuilder {
    /// Its handle and queue size are set when it starts.
    inner: Member<CompletionInner>,
}

impl std::fmt::Debug for CompletionBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompletionBuilder")
            .field("thread", &self.inner.thread)
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
        // SAFETY: a started context, under its family's guard; valid out-pointer.
        dpa.or_fatal(dpa.with_ctx(|ctx, _| unsafe {
            doca_call!(doca_dpa_completion_create(ctx, queue_size, &mut raw))
        }))?;
        Ok(CompletionBuilder {
            inner: Member::new(CompletionInner {
                // SAFETY: what doca_dpa_completion_create just returned: NULL or a new object that
                // nothing else owns, handed over here, in its context's family.
                raw: unsafe { Owned::new("doca_dpa_completion_create", raw, dpa.domain()) }?,
                handle: 0,
                queue_size: 0,
                thread: None,
                dpa: dpa.clone(),
            }),
        })
    }

    /// Binds the thread each completion wakes (`doca_dpa_completion_set_thread`);
    /// the completion keeps the thread alive.
    pub fn thread(mut self, thread: &DpaThread) -> Result<Self> {
        let inner = &mut self.inner;
        if !thread.dpa().same_context(&inner.dpa) {
            return Err(Error::invalid(
                "doca_dpa_completion_set_thread",
                format!(
                    "the thread runs on DPA context #{}, the completion is of DPA context #{}",
                    thread.dpa().serial(),
                    inner.dpa.serial()
                ),
            ));
        }
        let raw = &inner.raw;
        inner.dpa.with_ctx(|_, g| {
            // SAFETY: an unstarted completion and a started thread of its context,
            // under their family's guard.
            unsafe {
                doca_call!(doca_dpa_completion_set_thread(
                    raw.as_ptr(g),
                    thread.as_ptr(g)
                ))
            }
        })?;
        inner.thread = Some(thread.clone());
        Ok(self)
    }

    /// Starts it (`doca_dpa_completion_start`) and gets its DPA handle.
    pub fn start(mut self) -> Result<Completion> {
        let inner = &mut *self.inner;
        let (mut handle, mut size) = (0, 0);
        let raw = &mut inner.raw;
        let started = inner.dpa.with_ctx(|_, g| {
            // SAFETY: a configured completion, under its family's guard.
            unsafe { doca_call!(doca_dpa_completion_start(raw.as_ptr(g))) }?;
            raw.set_started();
            // SAFETY: started; valid out-pointers.
            unsafe {
                doca_call!(doca_dpa_completion_get_dpa_handle(
                    raw.as_ptr(g),
                    &mut handle
                ))
            }?;
            // SAFETY: as above.
            unsafe { doca_call!(doca_dpa_completion_get_queue_size(raw.as_ptr(g), &mut size)) }
        });
        inner.dpa.or_fatal(started)?;
        (inner.handle, inner.queue_size) = (handle, size as u32);
        Ok(Completion {
            inner: Arc::new(self.inner),
        })
    }
}

struct CompletionInner {
    raw: Owned<RawCompletion>,
    handle: u64,
    queue_size: u32,
    thread: Option<DpaThread>,
    dpa: Dpa,
}

impl FamilyMember for CompletionInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for CompletionInner {
    fn drop(&mut self) {
        let outcome = self.dpa.teardown_child(&mut self.raw);
        if !outcome.stopped() {
            // It may still wake its thread: never release it, nor the context.
            crate::keep::bury((self.thread.clone(), self.dpa.clone()));
        }
        outcome.report();
    }
}

/// A started DPA completion context. Producer contexts (RDMA, RDMI, async
/// ops) attach to it before they start and keep it alive; kernels read it with
/// `doca_dpa_dev_get_completion`. Cheap to clone (a shared handle).
#[derive(Clone)]
pub struct Completion {
    inner: Arc<Member<CompletionInner>>,
}

impl std::fmt::Debug for Completion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Completion")
            .field("queue_size", &self.inner.queue_size)
            .field("thread", &self.inner.thread)
            .finish()
    }
}

impl Completion {
    /// The queue size after rounding (`doca_dpa_completion_get_queue_size`).
    pub fn queue_size(&self) -> u32 {
        self.inner.queue_size
    }

    /// Makes the bound thread runnable (`doca_dpa_thread_run`); an error if
    /// no thread is bound.
    pub fn run_thread(&self) -> Result<()> {
        match &self.inner.thread {
            Some(t) => t.run(),
            None => Err(Error::invalid(
                "doca_dpa_thread_run",
                "no thread is bound to this completion",
            )),
        }
    }

    /// The context it belongs to.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }

    /// The raw completion, for attaching producer contexts, made while `guard`
    /// (of its context's family: [`Dpa::enter`]) lives. Valid while this
    /// `Completion` or a clone lives; do not stop or destroy it.
    pub fn as_ptr(&self, guard: &crate::FamilyGuard<'_>) -> *mut sys::doca_dpa_completion {
        self.inner.raw.as_ptr(guard)
    }
}

// SAFETY: the completion's DPA handle, of the context the values go to (checked); the
// keep record holds the completion.
unsafe impl KernelArg<param::Completion> for Completion {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&self.inner.dpa, "the completion")?;
        keep.keep(KeepAlive::new(&self.inner));
        Ok(self.inner.handle)
    }
}
