//! DPA threads and thread groups (the completions that wake them are in
//! `completion.rs`).
//!
//! A persistent DPA thread runs its function each time a completion or a
//! notification arrives for it (the event-driven style of the DPA samples,
//! as opposed to one-shot kernel launches). Each object goes through a
//! configure → start lifecycle, and each phase is its own type, so the
//! orderings DOCA rejects with BAD_STATE do not compile:
//!
//! ```compile_fail
//! # fn f(thread: &doca_dpa::DpaThread, buf: &doca_dpa::DpaBuffer<u64>) {
//! // SAFETY: (a promise about the thread's function) it uses its storage as `u64`s.
//! thread.local_storage(unsafe { doca_dpa::Untyped::new(buf) }); // configuration belongs to ThreadBuilder
//! # }
//! ```

use std::sync::Arc;

use doca_dpa_sys as sys;

use crate::app::{
    foreign_function, param, KernelArg, KernelArgs, KernelFn, KernelParam, KernelSig, ParamList,
};
use crate::core::Owned;
use crate::dpa::Dpa;
use crate::error::{doca_call, Error, Result};
use crate::family::{FamilyMember, Member};
use crate::keep::{KeepAlive, KeepQueue};

crate::__doca_object!(
    /// `doca_dpa_thread`.
    RawThread: doca_dpa_sys::doca_dpa_thread,
    destroy doca_dpa_thread_destroy,
    stop doca_dpa_thread_stop
);
crate::__doca_object!(
    /// `doca_dpa_eu_affinity`.
    RawAffinity: doca_dpa_sys::doca_dpa_eu_affinity,
    destroy doca_dpa_eu_affinity_destroy
);
crate::__doca_object!(
    /// `doca_dpa_tg`.
    RawGroup: doca_dpa_sys::doca_dpa_tg,
    destroy doca_dpa_thread_group_destroy,
    stop doca_dpa_thread_group_stop
);

struct ThreadInner {
    raw: Owned<RawThread>,
    affinity: Option<Owned<RawAffinity>>,
    /// What the thread's argument and local storage keep alive.
    keep: KeepQueue,
    dpa: Dpa,
    func: &'static str,
    /// Whether `doca_dpa_thread_run` was ever called on it: before that no
    /// activation can run (DOCA activates only runnable threads).
    ran: std::sync::atomic::AtomicBool,
}

impl FamilyMember for ThreadInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl Drop for ThreadInner {
    fn drop(&mut self) {
        // The thread goes before its affinity and what it uses. Stopping it only
        // keeps new activations from starting: one that runs goes on, so a thread
        // that ever ran hands its record to its family (`family::defer`), whose
        // reaper releases it once the run-time limit has passed with the context
        // healthy. If it cannot be
        // stopped it may run for ever, and everything it uses is leaked. All of
        // this happens before any user code (the `tracing` reports) can unwind.
        let outcome = self.dpa.teardown_child(&mut self.raw);
        if outcome.stopped() {
            let affinity = (self.affinity.as_mut()).map(|a| self.dpa.teardown_child(a));
            let deferred = (*self.ran.get_mut())
                .then(|| crate::family::defer(&self.dpa, std::mem::take(&mut self.keep)));
            outcome.report();
            if let Some(a) = affinity {
                a.report();
            }
            if let Some(d) = deferred {
                d.report();
            }
        } else {
            if let Some(a) = self.affinity.as_mut() {
                a.bury();
            }
            self.keep.bury_all();
            // The thread may still run on the context: keep it alive too.
            crate::keep::bury(self.dpa.clone());
            outcome.report();
        }
    }
}

/// Parameter lists a DPA thread function can have: none, or one 64-bit value (the
/// `uint64_t arg` of `doca_dpa_thread_set_func_arg`).
///
/// **Sealed**: implemented for `()` and one-parameter tuples by this crate only (the
/// value it extracts is what DOCA hands the thread function).
#[diagnostic::on_unimplemented(
    message = "a DPA thread function takes one 64-bit parameter or none, not `{Self}`",
    label = "this function's C parameters are `{Self}`",
    note = "DOCA hands a thread function one 64-bit value (`doca_dpa_thread_set_func_arg`): declare \
            it `struct NAME *state` in the kernel and pass a `&DpaBox` of that struct, which holds \
            the other values (see the README's \"State shared with a DPA thread\")"
)]
pub trait ThreadParams: ParamList + crate::app::sealed::SealedParams {
    /// The thread argument.
    #[doc(hidden)]
    fn thread_arg(abi: Self::Abi) -> u64;
}

impl ThreadParams for () {
    fn thread_arg(_: ()) -> u64 {
        0
    }
}

impl<P: KernelParam<Abi = u64>> ThreadParams for (P,) {
    fn thread_arg(abi: (u64,)) -> u64 {
        abi.0
    }
}

/// A DPA thread being configured (`doca_dpa_thread_create` and
/// `doca_dpa_thread_set_func_arg` done).
pub struct ThreadBuilder {
    inner: Member<ThreadInner>,
}

impl std::fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("func", &self.inner.func)
            .finish()
    }
}

impl ThreadBuilder {
    /// Creates a thread that runs `func` on each activation with `arg`, a tuple of
    /// zero or one argument matching its C parameter (`doca_dpa_thread_create`,
    /// `doca_dpa_thread_set_func_arg`). The thread keeps what the argument references
    /// alive until it is destroyed and no activation of it can run any more (see
    /// [`DpaThread`]). Objects of another context are refused.
    pub fn new<K: KernelFn, A: KernelArgs<<K::Sig as KernelSig>::Params, K::Sig>>(
        dpa: &Dpa,
        func: &K,
        arg: A,
    ) -> Result<ThreadBuilder>
    where
        <K::Sig as KernelSig>::Params: ThreadParams,
    {
        const CALL: &str = "doca_dpa_thread_set_func_arg";
        let func = func.kernel();
        if !func.belongs_to(dpa.app()) {
            return Err(foreign_function(CALL, func.name(), dpa.app()));
        }
        let mut keep = KeepQueue::default();
        let ctx = Some(crate::keep::CtxId::of(dpa));
        let value = <<K::Sig as KernelSig>::Params as ThreadParams>::thread_arg(
            arg.lower_all(&mut keep.recorder(0, ctx, CALL))?,
        );
        let mut raw = std::ptr::null_mut();
        dpa.or_fatal(dpa.with_ctx(|ctx, _| {
            // SAFETY: a started context, under its family's guard; valid out-pointer.
            unsafe { doca_call!(doca_dpa_thread_create(ctx, &mut raw)) }
        }))?;
        // Owned by the thread at once, so that a failure below tears it down
        // (under the family's guard, `ThreadInner::drop`).
        let inner = Member::new(ThreadInner {
            // SAFETY: what doca_dpa_thread_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its context's family.
            raw: unsafe { Owned::<RawThread>::new("doca_dpa_thread_create", raw, dpa.domain()) }?,
            affinity: None,
            keep,
            dpa: dpa.clone(),
            func: func.name(),
            ran: std::sync::atomic::AtomicBool::new(false),
        });
        dpa.with_ctx(|_, g| {
            let raw = inner.raw.as_ptr(g);
            // SAFETY: an unstarted thread, under its family's guard, and a function of the context's app
            // (checked); the value comes from the sealed `KernelArgs` (so from
            // `KernelArg` impls, checked against this context) and `keep` holds what
            // it references until no activation of the thread can run
            // (`ThreadInner::drop`).
            unsafe { doca_call!(doca_dpa_thread_set_func_arg(raw, func.func_ptr(), value)) }
        })?;
        Ok(ThreadBuilder { inner })
    }

    /// Sets the thread's local storage, DPA memory its function reads with
    /// `doca_dpa_dev_thread_get_local_storage`
    /// (`doca_dpa_thread_set_local_storage`). The thread keeps the memory alive.
    ///
    /// That call returns an untyped address (`doca_dpa_dev_uintptr_t`), so the
    /// storage is an [`Untyped`](crate::Untyped) (or a [`DevPtr`](crate::DevPtr)),
    /// made with `unsafe`: the caller says what the function reads there.
    pub fn local_storage(mut self, storage: impl KernelArg<param::DevPtr>) -> Result<Self> {
        let mark = self.inner.keep.len();
        let ctx = Some(crate::keep::CtxId::of(&self.inner.dpa));
        let addr = match storage.lower(&mut self.inner.keep.recorder(
            0,
            ctx,
            "doca_dpa_thread_set_local_storage",
        )) {
            Ok(addr) => addr,
            Err(e) => {
                self.inner.keep.truncate(mark);
                return Err(e);
            }
        };
        let inner = &self.inner;
        // SAFETY: an unstarted thread, under its family's guard; memory of its
        // context (checked when lowered), held by the thread's keep record until
        // no activation can run.
        let set = inner.dpa.with_ctx(|_, g| unsafe {
            doca_call!(doca_dpa_thread_set_local_storage(inner.raw.as_ptr(g), addr))
        });
        if let Err(e) = set {
            self.inner.keep.truncate(mark);
            return Err(e);
        }
        Ok(self)
    }

    /// Pins the thread to one execution unit (`doca_dpa_eu_affinity_create`,
    /// `doca_dpa_eu_affinity_set`, `doca_dpa_thread_set_affinity`); `eu` must
    /// be below cores × EUs per core.
    pub fn affinity(mut self, eu: u32) -> Result<Self> {
        let limits = self.inner.dpa.limits();
        let total = limits.cores * limits.eus_per_core;
        if eu >= total {
            return Err(Error::invalid(
                "doca_dpa_eu_affinity_set",
                format!("EU {eu} does not exist; the DPA has {total}"),
            ));
        }
        let inner = &self.inner;
        let affinity = inner.dpa.with_ctx(|ctx, g| {
            let mut raw = std::ptr::null_mut();
            // SAFETY: a started context, under its family's guard; valid out-pointer.
            unsafe { doca_call!(doca_dpa_eu_affinity_create(ctx, &mut raw)) }?;
            // Owned at once: a failure below destroys it (here, under the guard,
            // which is reentrant).
            // SAFETY: what doca_dpa_eu_affinity_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its context's family.
            let affinity = unsafe {
                Owned::<RawAffinity>::new("doca_dpa_eu_affinity_create", raw, inner.dpa.domain())
            }?;
            // SAFETY: our affinity, under its family's guard.
            unsafe { doca_call!(doca_dpa_eu_affinity_set(affinity.as_ptr(g), eu)) }?;
            // SAFETY: our unstarted thread and our affinity, which it keeps.
            unsafe {
                doca_call!(doca_dpa_thread_set_affinity(
                    inner.raw.as_ptr(g),
                    affinity.as_ptr(g)
                ))
            }?;
            Ok::<_, Error>(affinity)
        })?;
        self.inner.affinity = Some(affinity);
        Ok(self)
    }

    /// Starts the thread (`doca_dpa_thread_start`). It runs only once a
    /// completion or notification is attached and `run_thread` was called on
    /// that attachment.
    pub fn start(mut self) -> Result<DpaThread> {
        self.start_in_place()?;
        Ok(DpaThread {
            inner: Arc::new(self.inner),
        })
    }

    fn start_in_place(&mut self) -> Result<()> {
        let inner = &self.inner;
        let started = inner.dpa.with_ctx(|_, g| {
            // SAFETY: a configured thread, under its family's guard.
            unsafe { doca_call!(doca_dpa_thread_start(inner.raw.as_ptr(g))) }
        });
        self.inner.dpa.or_fatal(started)?;
        self.inner.raw.set_started();
        tracing::debug!(target: "doca_dpa::thread", func = self.inner.func, "DPA thread started");
        Ok(())
    }
}

/// A started DPA thread; stopped and destroyed after every completion that
/// wakes it (they hold it). What its argument and local storage referenced is
/// released once no activation can run any more: at once for a thread that was
/// never run (`doca_dpa_thread_run`), else once the kernel run-time limit has passed
/// since the stop with the context healthy (DOCA has no call that says an
/// activation ended; one running past the limit makes the context fatal, and then
/// everything is leaked with a warning). The context family's reaper thread makes
/// that release when it is due, whatever else the program does; on a device with
/// no run-time limit (0) nothing bounds the last activation, and what the thread
/// used is kept for good (counted by `doca_dpa::buried_count()`, a hidden test hook).
#[derive(Clone)]
pub struct DpaThread {
    inner: Arc<Member<ThreadInner>>,
}

impl std::fmt::Debug for DpaThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpaThread")
            .field("func", &self.inner.func)
            .finish()
    }
}

impl DpaThread {
    /// The thread's id (`doca_dpa_thread_get_id`).
    pub fn id(&self) -> Result<u32> {
        let mut id = 0;
        let inner = &self.inner;
        inner.dpa.with_ctx(|_, g| {
            // SAFETY: a started thread, under its family's guard; valid out-pointer.
            unsafe { doca_call!(doca_dpa_thread_get_id(inner.raw.as_ptr(g), &mut id)) }
        })?;
        Ok(id as u32)
    }

    /// Makes the thread runnable (`doca_dpa_thread_run`), for the completions that
    /// wake it.
    pub(crate) fn run(&self) -> Result<()> {
        // Before the call: from here on an activation may run.
        self.inner
            .ran
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let inner = &self.inner;
        inner.dpa.with_ctx(|_, g| {
            // SAFETY: a started thread with an attachment (the caller's), under its
            // family's guard.
            unsafe { doca_call!(doca_dpa_thread_run(inner.raw.as_ptr(g))) }
        })
    }

    /// Makes the thread runnable (`doca_dpa_thread_run`) once a completion of
    /// another crate (doca-comch's consumer completion contexts) is bound to it:
    /// DOCA refuses a thread with nothing attached. Not an API.
    #[doc(hidden)]
    pub fn run_bound(&self) -> Result<()> {
        self.run()
    }

    /// The context it runs on.
    pub fn dpa(&self) -> &Dpa {
        &self.inner.dpa
    }

    /// A reference that keeps the thread alive (for objects of other crates bound to
    /// it, such as a verbs completion queue).
    pub fn keep_alive(&self) -> KeepAlive {
        KeepAlive::new(&self.inner)
    }

    /// The raw thread, for binding it in calls this crate does not wrap, made
    /// while `guard` (of its context's family: [`Dpa::enter`]) lives. Valid while
    /// this `DpaThread` (or [`DpaThread::keep_alive`]) lives; do not stop or
    /// destroy it.
    pub fn as_ptr(&self, guard: &crate::FamilyGuard<'_>) -> *mut sys::doca_dpa_thread {
        self.inner.raw.as_ptr(guard)
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
    inner: Member<GroupInner>,
}

struct GroupInner {
    raw: Owned<RawGroup>,
    threads: Vec<DpaThread>,
    dpa: Dpa,
}

impl FamilyMember for GroupInner {
    fn family_of(&self) -> &Dpa {
        &self.dpa
    }
}

impl std::fmt::Debug for ThreadGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadGroup")
            .field("threads", &self.inner.threads)
            .finish()
    }
}

impl ThreadGroup {
    /// Groups `threads` (rank = position) and starts them and the group.
    ///
    /// On failure everything made so far is torn down in the documented order: the
    /// group first, then the threads (started or not).
    pub fn new(dpa: &Dpa, threads: Vec<ThreadBuilder>) -> Result<ThreadGroup> {
        if threads.is_empty() {
            return Err(Error::invalid(
                "doca_dpa_thread_group_create",
                "a thread group needs at least one thread",
            ));
        }
        let n = u32::try_from(threads.len())
            .map_err(|_| Error::invalid("doca_dpa_thread_group_create", "too many threads"))?;
        if let Some((rank, t)) = threads
            .iter()
            .enumerate()
            .find(|(_, t)| !t.inner.dpa.same_context(dpa))
        {
            return Err(Error::invalid(
                "doca_dpa_thread_group_set_thread",
                format!(
                    "the thread of rank {rank} was made on DPA context #{}, the group is for DPA context #{}",
                    t.inner.dpa.serial(),
                    dpa.serial()
                ),
            ));
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: a started context, under its family's guard; valid out-pointer.
        dpa.or_fatal(dpa.with_ctx(|ctx, _| unsafe {
            doca_call!(doca_dpa_thread_group_create(ctx, n, &mut raw))
        }))?;
        let mut group = Member::new(GroupInner {
            // SAFETY: what doca_dpa_thread_group_create just returned: NULL or a new object that
            // nothing else owns, handed over here, in its context's family.
            raw: unsafe { Owned::new("doca_dpa_thread_group_create", raw, dpa.domain()) }?,
            threads: Vec::with_capacity(threads.len()),
            dpa: dpa.clone(),
        });
        // On failure the group is torn down before any builder is dropped.
        for (rank, thread) in threads.iter().enumerate() {
            // SAFETY: our unstarted group and an unstarted thread of the same
            // context (checked above), under its family's guard.
            dpa.with_ctx(|_, g| unsafe {
                doca_call!(doca_dpa_thread_group_set_thread(
                    group.raw.as_ptr(g),
                    thread.inner.raw.as_ptr(g),
                    rank as u32
                ))
            })
            .inspect_err(|_| group.teardown())?;
        }
        for mut thread in threads {
            if let Err(e) = thread.start_in_place() {
                group.teardown();
                return Err(e);
            }
            group.threads.push(DpaThread {
                inner: Arc::new(thread.inner),
            });
        }
        // SAFETY: every rank set with a started thread; under the family's guard.
        dpa.with_ctx(|_, g| unsafe {
            doca_call!(doca_dpa_thread_group_start(group.raw.as_ptr(g)))
        })
        .inspect_err(|_| group.teardown())?;
        group.raw.set_started();
        Ok(ThreadGroup { inner: group })
    }

    /// The threads, by rank.
    pub fn threads(&self) -> &[DpaThread] {
        &self.inner.threads
    }
}

impl GroupInner {
    /// Stops (if started) and destroys the group, once; its threads are dropped
    /// after it. A group that cannot be stopped may still run them: they are
    /// leaked with it.
    fn teardown(&mut self) {
        let outcome = self.dpa.teardown_child(&mut self.raw);
        if !outcome.stopped() {
            // Buried before the report (user code) can unwind.
            crate::keep::bury(std::mem::take(&mut self.threads));
        }
        outcome.report();
    }
}

impl Drop for GroupInner {
    fn drop(&mut self) {
        self.teardown();
    }
}
