//! Locking by domain: every raw DOCA object pointer of doca-dpa and doca-rdmi lives
//! in a [`Raw`], which hands it out only to a proof that this thread holds the
//! lock of the object's [`Domain`] — a [`Held`] or a [`Guard`]. So a DOCA call
//! on an object without its domain's lock does not compile (the pointer is not
//! reachable), and `docs/concurrency.md` states the whole model.
//!
//! A domain is one of:
//!
//! - a **context family** (`family.rs`): a base DPA context, the contexts that
//!   extend it and every object made on them (threads, completions, memory,
//!   events, hash tables, maps, async ops, RDMI connections and posters on it);
//! - one object outside any family, with what is made on it: a device (and its
//!   representors), a progress engine (and the contexts and wait tasks of the
//!   events connected to it), a verbs context (and its PDs and CQs).
//!
//! No DOCA fact asks for more: DOCA DPA *objects* are not thread-safe (facts,
//! `doca-dpa-host-api.md` §9), not the library, so two domains' calls run in
//! parallel, and calls that name no object (`doca_sync_event_create`,
//! `doca_error_get_name`…) take no lock.
//!
//! A domain may be **busy**: a call of it runs outside its lock (a family's
//! `doca_dpa_rpc`, which blocks until the device function returns, on the
//! family's RPC thread). A [`Guard`] is a [`Held`] made while the domain is not
//! busy, and since it only turns busy under its lock, it stays so while the
//! guard lives: objects whose calls must not overlap the busy call (the DPA
//! context and what is made on it) are [`Raw`]s of access [`Quiet`], reachable
//! through a `Guard` only; objects DOCA calls by their own handle, whose calls
//! may overlap it (a sync event's `set`, which may be what the RPC's function
//! waits for), are of access [`Anytime`], reachable through any `Held`.
//!
//! The lock is reentrant on one thread (a guard's holder may call the library
//! on the same domain), and user code never runs under it: no waker, `tracing`
//! event or drop of a user value (all of them come after the release).
//!
//! # Lock order
//!
//! Family → verbs context → progress engine → device, then the library's leaf
//! mutexes (a launcher's reactor slot, a box's current value, the reaper's
//! records), none of which is held while a domain lock is taken. A thread
//! takes a domain lock of a later kind while holding an earlier one, never the
//! other way; two domains of one kind are never held together by the library.
//! Debug builds count inversions ([`order_violations`]); the test suites assert
//! that there are none.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::Waker;

use crate::error::{Error, Result};

/// What a domain is, which fixes its place in the lock order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    /// A DPA context family.
    Family = 0,
    /// A verbs context and what is made on it.
    Verbs = 1,
    /// A progress engine and the contexts connected to it.
    Engine = 2,
    /// A device and its representors.
    Device = 3,
}

/// A lock domain (see the module's docs): cheap to clone; clones are the same
/// domain.
#[derive(Clone)]
pub struct Domain {
    state: Arc<DomainState>,
}

struct DomainState {
    lock: Lock,
    kind: Kind,
    /// A call of the domain runs outside its lock (set under the lock).
    busy: AtomicBool,
    /// A busy call whose caller stopped waiting returned, and nobody has said
    /// so yet: the next thread that enters the domain holding none of its locks
    /// reports it (a `tracing` event is user code: never on the library thread
    /// that ended the call, nor under a lock).
    unreported: AtomicBool,
    /// Threads waiting for the domain not to be busy.
    idle: Mutex<()>,
    idle_changed: Condvar,
    /// Futures waiting for the domain not to be busy.
    wakers: Mutex<Vec<Waker>>,
}

impl std::fmt::Debug for Domain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Domain")
            .field("kind", &self.state.kind)
            .field("busy", &self.is_busy())
            .finish()
    }
}

/// Where a call that would wake futures comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WakeFrom {
    /// A thread that may run user code (it holds no library lock).
    Here,
    /// A library thread that must not run user code (the RPC thread: a waker
    /// that makes an RPC would wait on its own queue): woken on a thread of
    /// their own.
    LibraryThread,
}

impl Domain {
    /// A new domain of `kind`.
    pub fn new(kind: Kind) -> Domain {
        Domain {
            state: Arc::new(DomainState {
                lock: Lock::new(),
                kind,
                busy: AtomicBool::new(false),
                unreported: AtomicBool::new(false),
                idle: Mutex::new(()),
                idle_changed: Condvar::new(),
                wakers: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Whether `other` is this domain.
    #[inline]
    pub fn same(&self, other: &Domain) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }

    /// Takes the lock (reentrant: a thread that holds it already gets a nested
    /// hold, which releases nothing). Does not wait for a busy call: for
    /// [`Anytime`] objects.
    #[inline(always)]
    pub fn lock(&self) -> Held<'_> {
        let taken = self.state.lock.acquire();
        if taken {
            order::taken(self.state.kind);
        }
        Held {
            domain: &self.state,
            taken,
            _thread: PhantomData,
        }
    }

    /// The lock when this thread does not hold it already; `None` if it does
    /// (for state that one hold borrows: [`Guarded`]).
    #[inline(always)]
    pub fn lock_fresh(&self) -> Option<Held<'_>> {
        let held = self.lock();
        if held.taken {
            Some(held)
        } else {
            None
        }
    }

    /// Takes the lock once the domain is not busy: waits for a busy call with the
    /// lock released. [`Error::Unavailable`] at once on a thread that holds the
    /// lock already while the domain is busy (it cannot wait there: the busy
    /// call's end may need that lock).
    pub fn enter(&self) -> Result<Guard<'_>> {
        self.enter_reporting(true)
    }

    /// [`Domain::enter`] without reporting an ended busy call: for a thread that
    /// holds a library lock of its own (an RPC's gate), where the report (user
    /// code) must not run.
    pub fn enter_quietly(&self) -> Result<Guard<'_>> {
        self.enter_reporting(false)
    }

    fn enter_reporting(&self, report: bool) -> Result<Guard<'_>> {
        loop {
            if report {
                self.report_ended();
            }
            let held = self.lock();
            match held.into_guard() {
                Ok(guard) => return Ok(guard),
                Err(held) if !held.taken => return Err(nested_while_busy()),
                Err(held) => {
                    drop(held);
                    self.wait_idle();
                }
            }
        }
    }

    /// The lock if the domain is not busy, without waiting for it (the lock
    /// itself is waited for: it is held for one DOCA call at a time).
    #[inline]
    pub fn try_enter(&self) -> Option<Guard<'_>> {
        if self.is_busy() {
            return None;
        }
        self.lock().into_guard().ok()
    }

    /// Whether a call of the domain may be running outside its lock.
    #[inline(always)]
    pub fn is_busy(&self) -> bool {
        self.state.busy.load(Ordering::Acquire)
    }

    /// Whether this thread holds the lock.
    #[inline]
    pub fn held_here(&self) -> bool {
        self.state.lock.held_here()
    }

    /// Marks the domain busy, releasing the lock (`guard`, which must be this
    /// thread's first hold: a nested one is refused, since the outer hold would
    /// keep the lock through the busy call). From here until [`Domain::end_busy`]
    /// no [`Guard`] of the domain can be made.
    pub fn begin_busy(&self, guard: Guard<'_>) -> Result<()> {
        debug_assert!(guard.of(self));
        if !guard.0.taken {
            return Err(nested_while_busy());
        }
        self.state.busy.store(true, Ordering::Release);
        drop(guard);
        Ok(())
    }

    /// Reports (a `tracing` event) a busy call that returned after its caller
    /// stopped waiting, if there is one and this thread holds none of the
    /// domain's locks.
    #[inline]
    pub fn report_ended(&self) {
        if self.state.unreported.load(Ordering::Relaxed)
            && !self.held_here()
            && self.state.unreported.swap(false, Ordering::AcqRel)
        {
            tracing::debug!(target: "doca_dpa::dpa", "a timed-out RPC's call returned");
        }
    }

    /// The busy call returned: guards can be made again. Wakes the threads and
    /// futures waiting for it (futures on a thread of their own when `from` is a
    /// library thread, which also leaves the report of the call's end to the
    /// next thread that enters: [`Domain::report_ended`]).
    pub fn end_busy(&self, from: WakeFrom) {
        if from == WakeFrom::LibraryThread {
            self.state.unreported.store(true, Ordering::Release);
        }
        self.state.busy.store(false, Ordering::Release);
        // Taken before the notification, so that it cannot fall between a
        // waiter's look at the flag and its wait.
        drop(self.idle());
        self.state.idle_changed.notify_all();
        self.wake_futures(from);
    }

    fn idle(&self) -> MutexGuard<'_, ()> {
        self.state.idle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until the domain is not busy (at once if it is not).
    pub fn wait_idle(&self) {
        let mut idle = self.idle();
        while self.is_busy() {
            idle = self
                .state
                .idle_changed
                .wait(idle)
                .unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Has `waker` woken when the domain stops being busy. Cloned with the list
    /// unlocked (a waker's clone is user code).
    pub fn wake_when_idle(&self, waker: &Waker) {
        let clone = waker.clone();
        let unused = {
            let mut list = self.wakers();
            if list.iter().any(|w| w.will_wake(waker)) {
                Some(clone)
            } else {
                list.push(clone);
                None
            }
        };
        drop(unused);
    }

    /// Takes back a [`Domain::wake_when_idle`] no longer needed (dropped with
    /// the list unlocked).
    pub fn forget_waker(&self, waker: &Waker) {
        let removed: Vec<Waker> = {
            let mut list = self.wakers();
            let (removed, kept) = std::mem::take(&mut *list)
                .into_iter()
                .partition(|w| w.will_wake(waker));
            *list = kept;
            removed
        };
        drop(removed);
    }

    fn wakers(&self) -> MutexGuard<'_, Vec<Waker>> {
        self.state.wakers.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wakes the futures waiting for the domain (user code) with no lock held;
    /// a waker that panics is caught. From a library thread, or a thread that
    /// holds a lock of the domain, on a short-lived thread of their own; if it
    /// cannot be started they stay registered for the next wake.
    fn wake_futures(&self, from: WakeFrom) {
        let woken = std::mem::take(&mut *self.wakers());
        if woken.is_empty() {
            return;
        }
        if from == WakeFrom::Here && !self.held_here() {
            return wake(woken);
        }
        // Handed over through a slot the list takes back from if the thread
        // cannot be started (moved back: no waker is cloned or dropped here).
        let parcel = Arc::new(Mutex::new(Some(woken)));
        let theirs = parcel.clone();
        let spawned = std::thread::Builder::new()
            .name("doca-dpa-wake".into())
            .spawn(move || {
                let woken = theirs.lock().unwrap_or_else(|p| p.into_inner()).take();
                wake(woken.unwrap_or_default());
            });
        if spawned.is_err() {
            let back = parcel.lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(back) = back {
                self.wakers().extend(back);
            }
        }
    }

    /// A handle for `ptr`, an object of this domain: reachable through this
    /// domain's locks only.
    ///
    /// # Safety
    /// `ptr` is an object whose DOCA calls are this domain's: every call on it
    /// is made with its pointer from the returned `Raw` (or from another `Raw`
    /// of the same object and domain).
    #[inline]
    pub unsafe fn raw<T, A: Access>(&self, ptr: NonNull<T>) -> Raw<T, A> {
        Raw {
            ptr,
            domain: self.clone(),
            _access: PhantomData,
        }
    }
}

/// Wakes `wakers` on this thread, catching a waker that panics.
fn wake(wakers: Vec<Waker>) {
    for w in wakers {
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.wake()));
    }
}

#[cold]
fn nested_while_busy() -> Error {
    Error::Unavailable {
        what: "the DPA context family",
        reason: "an RPC of the family is in progress, and this thread holds the family's \
                 lock (inside a FamilyGuard): waiting for the RPC there could deadlock (its \
                 function may wait for the host, which needs the lock)"
            .to_owned(),
    }
}

/// Proof that this thread holds a domain's lock (see the module's docs): made
/// by [`Domain::lock`], released when dropped. Not `Send` nor `Sync`: the lock
/// is this thread's.
#[must_use]
pub struct Held<'d> {
    domain: &'d DomainState,
    /// This hold took the lock (not a nested one, which releases nothing).
    taken: bool,
    _thread: PhantomData<*const ()>,
}

impl std::fmt::Debug for Held<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("kind", &self.domain.kind)
            .field("nested", &!self.taken)
            .finish()
    }
}

impl<'d> Held<'d> {
    /// A guard, if the domain is not busy (it stays so while the lock is held:
    /// it turns busy only under the lock, from a first hold).
    #[inline(always)]
    pub fn guard(&self) -> Option<&Guard<'d>> {
        if self.domain.busy.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: `Guard` is a transparent wrapper of `Held`; the domain is not
        // busy and cannot turn busy while this thread holds its lock
        // (`Domain::begin_busy` takes a first hold, and this thread's hold
        // keeps every other thread from taking one).
        Some(unsafe { &*(self as *const Held<'d>).cast::<Guard<'d>>() })
    }

    /// [`Held::guard`], by value; the hold back if the domain is busy.
    #[inline(always)]
    fn into_guard(self) -> std::result::Result<Guard<'d>, Held<'d>> {
        if self.domain.busy.load(Ordering::Acquire) {
            Err(self)
        } else {
            Ok(Guard(self))
        }
    }

    /// Whether this hold took the lock (the thread's first).
    #[inline]
    pub fn is_first(&self) -> bool {
        self.taken
    }

    #[inline(always)]
    fn of(&self, domain: &Domain) -> bool {
        std::ptr::eq(self.domain, &*domain.state)
    }
}

impl Drop for Held<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        if self.taken {
            order::released(self.domain.kind);
            self.domain.lock.release();
        }
    }
}

/// A [`Held`] lock of a domain that is not busy: no `doca_dpa_rpc` of the family
/// runs, and none can begin while the guard lives. What every call on the DPA
/// context, or on an object made on it, needs ([`Quiet`] objects). Made by
/// [`Domain::enter`] (`Dpa::enter`), released when dropped.
#[must_use]
#[repr(transparent)]
pub struct Guard<'d>(Held<'d>);

impl std::fmt::Debug for Guard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Guard").field(&self.0).finish()
    }
}

impl<'d> std::ops::Deref for Guard<'d> {
    type Target = Held<'d>;
    #[inline(always)]
    fn deref(&self) -> &Held<'d> {
        &self.0
    }
}

/// How a [`Raw`] may be reached: sealed, [`Quiet`] or [`Anytime`].
pub trait Access: sealed::Sealed + 'static {
    /// Takes what a call on an object of this access needs, in `domain`.
    #[doc(hidden)]
    fn acquire(domain: &Domain) -> Result<Held<'_>>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Quiet {}
    impl Sealed for super::Anytime {}
}

/// Objects whose calls must not overlap the domain's busy call (a DPA context
/// and what is made on it, against a `doca_dpa_rpc`): reached through a
/// [`Guard`].
#[derive(Debug)]
pub enum Quiet {}

/// Objects DOCA calls by their own handle, whose calls may overlap the busy call
/// (a sync event's `get`, `set`, `add`): reached through any [`Held`].
#[derive(Debug)]
pub enum Anytime {}

impl Access for Quiet {
    fn acquire(domain: &Domain) -> Result<Held<'_>> {
        domain.enter().map(|g| g.0)
    }
}

impl Access for Anytime {
    fn acquire(domain: &Domain) -> Result<Held<'_>> {
        Ok(domain.lock())
    }
}

/// A raw DOCA object of a [`Domain`], reachable only with that domain's lock
/// held: [`Raw::get`] takes a [`Guard`] ([`Quiet`] objects) or a [`Held`]
/// ([`Anytime`] objects). It does not own the object (see
/// [`Owned`](super::Owned)).
///
/// Safe code cannot reach the pointer without the guard:
///
/// ```compile_fail,E0061
/// fn peek(dpa: &doca_dpa::Dpa) {
///     // SAFETY: (none: this must not compile)
///     let _ = unsafe { doca_dpa_sys::doca_dpa_peek_at_last_error(dpa.as_ptr()) };
/// }
/// ```
///
/// and with it, it can:
///
/// ```
/// fn peek(dpa: &doca_dpa::Dpa) -> doca_dpa::Result<()> {
///     let guard = dpa.enter()?;
///     // SAFETY: a started context, with its family's guard held.
///     let rc = unsafe { doca_dpa_sys::doca_dpa_peek_at_last_error(dpa.as_ptr(&guard)) };
///     doca_dpa::core::check("doca_dpa_peek_at_last_error", rc)
/// }
/// ```
pub struct Raw<T, A: Access = Quiet> {
    ptr: NonNull<T>,
    domain: Domain,
    _access: PhantomData<fn() -> A>,
}

// SAFETY: the pointer is reached only with the domain's lock held (`get`), so DOCA
// never sees two threads use the object at once (the facts forbid concurrent
// use, not use from another thread).
unsafe impl<T, A: Access> Send for Raw<T, A> {}
// SAFETY: as for `Send`: `&self` hands the pointer out only to a holder of the
// domain's lock.
unsafe impl<T, A: Access> Sync for Raw<T, A> {}

impl<T, A: Access> std::fmt::Debug for Raw<T, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Raw")
            .field("kind", &self.domain.state.kind)
            .finish_non_exhaustive()
    }
}

impl<T, A: Access> Raw<T, A> {
    /// The object's domain.
    #[inline(always)]
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// The pointer, for `held`, a hold of this object's domain acquired as its
    /// access demands.
    #[inline(always)]
    fn checked(&self, held: &Held<'_>) -> *mut T {
        if !held.of(&self.domain) {
            wrong_domain();
        }
        self.ptr.as_ptr()
    }

    /// Runs `f` with the pointer, holding the domain's lock as the object's access
    /// demands (for a [`Quiet`] object, waiting for a busy call to end: see
    /// [`Domain::enter`]).
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(*mut T, &Held<'_>) -> R) -> Result<R> {
        let held = A::acquire(&self.domain)?;
        Ok(f(self.checked(&held), &held))
    }

    /// A second handle of the same object, for handing it on (to an owner that
    /// tears it down later).
    ///
    /// # Safety
    /// Only one of the two handles is used from here on.
    pub unsafe fn handed_on(&self) -> Raw<T, A> {
        Raw {
            ptr: self.ptr,
            domain: self.domain.clone(),
            _access: PhantomData,
        }
    }

    /// The address, as an identity (never dereferenced), for messages and
    /// graveyard records.
    #[inline]
    pub fn addr(&self) -> usize {
        self.ptr.as_ptr() as usize
    }
}

impl<T> Raw<T, Quiet> {
    /// The pointer, for DOCA calls made while `guard` (of this object's domain)
    /// lives.
    #[inline(always)]
    pub fn get(&self, guard: &Guard<'_>) -> *mut T {
        self.checked(guard)
    }
}

impl<T> Raw<T, Anytime> {
    /// The pointer, for DOCA calls made while `held` (of this object's domain)
    /// lives.
    #[inline(always)]
    pub fn get(&self, held: &Held<'_>) -> *mut T {
        self.checked(held)
    }
}

#[cold]
#[inline(never)]
fn wrong_domain() -> ! {
    // A bug of this library: a hold of one domain used for another's object.
    panic!("doca-dpa: an object's pointer was asked for under another domain's lock")
}

/// State of the library guarded by a domain's lock instead of a mutex of its
/// own: a launcher's epochs and what its launches keep alive, which every
/// submission and every look at a launch's completion changes together with a
/// DOCA call, so that one lock acquisition covers both.
///
/// [`Guarded::lock`] refuses (`None`) a thread that holds the lock already
/// (nested in a guard or in another borrow of the state, where a borrow could
/// be a second one). The code that holds it is this crate's own bookkeeping: it
/// runs no user code (a growing queue may allocate).
pub struct Guarded<T> {
    domain: Domain,
    value: UnsafeCell<T>,
}

// SAFETY: the value is reached only through a `Borrowed` (made by a thread that
// took the domain's lock fresh, so one at a time) or `get_mut` (`&mut self`), so
// sharing the cell between threads hands the value from one thread to the next,
// which `T: Send` allows.
unsafe impl<T: Send> Sync for Guarded<T> {}

impl<T> std::fmt::Debug for Guarded<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guarded").finish_non_exhaustive()
    }
}

/// The value of a [`Guarded`], borrowed with its domain's lock held (first
/// hold); releases the lock when dropped.
pub struct Borrowed<'a, T> {
    held: Held<'a>,
    value: &'a UnsafeCell<T>,
}

impl<T> Guarded<T> {
    /// `value`, guarded by `domain`'s lock.
    pub fn new(domain: &Domain, value: T) -> Guarded<T> {
        Guarded {
            domain: domain.clone(),
            value: UnsafeCell::new(value),
        }
    }

    /// The domain whose lock guards it.
    pub fn domain(&self) -> &Domain {
        &self.domain
    }

    /// The value, with the lock held until the borrow drops; `None` if this
    /// thread holds the lock already.
    #[inline(always)]
    pub fn lock(&self) -> Option<Borrowed<'_, T>> {
        let held = self.domain.lock_fresh()?;
        Some(Borrowed {
            held,
            value: &self.value,
        })
    }

    /// Runs `f` on the value under the lock; `None` if this thread holds the
    /// lock already.
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        let mut b = self.lock()?;
        Some(f(&mut b))
    }

    /// The value, through exclusive access (no lock needed).
    pub fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<T> std::fmt::Debug for Borrowed<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Borrowed")
            .field("held", &self.held)
            .finish_non_exhaustive()
    }
}

impl<'a, T> Borrowed<'a, T> {
    /// The hold the borrow is made under.
    #[inline(always)]
    pub fn held(&self) -> &Held<'a> {
        &self.held
    }

    /// The hold and the value, borrowed together.
    #[inline(always)]
    pub fn parts(&mut self) -> (&Held<'a>, &mut T) {
        // SAFETY: as for `deref_mut`.
        (&self.held, unsafe { &mut *self.value.get() })
    }
}

impl<T> std::ops::Deref for Borrowed<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: this thread took the domain's lock fresh for this borrow (no
        // other thread holds it, and a nested hold of this thread is refused a
        // borrow), so this is the only borrow of the value.
        unsafe { &*self.value.get() }
    }
}

impl<T> std::ops::DerefMut for Borrowed<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as for `deref`; `&mut self` makes this borrow the only one.
        unsafe { &mut *self.value.get() }
    }
}

/// A mutex without poisoning, reentrant on one thread, whose uncontended acquire
/// and release are one atomic operation each (it is taken around every DOCA
/// call, the launch path's and a wait's included). Nothing it guards can be left
/// half-changed by a panic: a DOCA call does not unwind, and [`Guarded`] state
/// is changed by this crate's own code only, which keeps it consistent wherever
/// it could panic.
///
/// The lock word holds the owner (the owning thread's identity, [`me`]: unique
/// among live threads and 8-aligned) or 0 when free; its low bit ([`WAITERS`])
/// says that a thread may sleep waiting for it. So a thread tells that it holds
/// the lock already from a failed acquire, with no thread-local flag. A
/// contended acquire spins briefly (most holds are one DOCA call), then sets
/// `WAITERS` and sleeps on a condition variable, both under `sleep`; a release
/// that swaps out a word with `WAITERS` takes `sleep` before it notifies, so the
/// notification cannot fall between a sleeper's look at the word and its wait.
/// A thread that wakes takes the lock with `WAITERS` set (others may still
/// sleep), so its release wakes the next.
struct Lock {
    word: AtomicUsize,
    sleep: Mutex<()>,
    wake: Condvar,
}

/// The lock word's "a thread may sleep" bit (owners are 8-aligned addresses).
const WAITERS: usize = 1;

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
thread_local! {
    /// This thread's identity in a lock word ([`me`]): its address.
    static ME: u64 = const { 0 };
}

/// This thread's identity in a lock word: its thread pointer where the
/// platform's TLS ABI keeps it at `%fs:0` (x86-64 Linux: the thread control
/// block points to itself there; unique among live threads, 16-aligned), else
/// the address of a thread-local.
#[inline(always)]
fn me() -> usize {
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    {
        let tp: usize;
        // SAFETY: reads one word at `%fs:0`, which the x86-64 ELF TLS ABI
        // (variant II, followed by glibc and musl) requires to hold the thread
        // pointer itself; writes nothing, touches no stack or flags.
        unsafe {
            std::arch::asm!(
                "mov {}, qword ptr fs:[0]",
                out(reg) tp,
                options(nostack, readonly, preserves_flags, pure)
            )
        };
        tp
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
    {
        ME.with(|m| m as *const u64 as usize)
    }
}

impl Lock {
    const fn new() -> Lock {
        Lock {
            word: AtomicUsize::new(0),
            sleep: Mutex::new(()),
            wake: Condvar::new(),
        }
    }

    /// Takes the lock for this thread: true, or false when this thread holds it
    /// already (then nothing is to be released).
    #[inline(always)]
    fn acquire(&self) -> bool {
        use std::sync::atomic::Ordering::{Acquire, Relaxed};
        let me = me();
        match self.word.compare_exchange(0, me, Acquire, Relaxed) {
            Ok(_) => true,
            // Only this thread writes its own address into the word.
            Err(w) if w & !WAITERS == me => false,
            Err(_) => {
                self.lock_contended(me);
                true
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn lock_contended(&self, me: usize) {
        use std::sync::atomic::Ordering::{Acquire, Relaxed};
        for _ in 0..64 {
            if self.word.load(Relaxed) == 0
                && self.word.compare_exchange(0, me, Acquire, Relaxed).is_ok()
            {
                return;
            }
            std::hint::spin_loop();
        }
        let mut guard = self.sleep.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let w = self.word.load(Relaxed);
            if w == 0 {
                // Taken with `WAITERS`: other threads may still sleep, and this
                // thread's release must wake one.
                if self
                    .word
                    .compare_exchange(0, me | WAITERS, Acquire, Relaxed)
                    .is_ok()
                {
                    return;
                }
                continue;
            }
            if w & WAITERS == 0
                && self
                    .word
                    .compare_exchange(w, w | WAITERS, Relaxed, Relaxed)
                    .is_err()
            {
                continue;
            }
            guard = self.wake.wait(guard).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Releases the lock this thread took (`acquire` returned true).
    #[inline(always)]
    fn release(&self) {
        if self.word.swap(0, Ordering::Release) & WAITERS != 0 {
            self.wake_one();
        }
    }

    #[cold]
    #[inline(never)]
    fn wake_one(&self) {
        // A sleeper holds `sleep` from its look at the word until its wait
        // releases it: once this thread has taken it, the sleeper waits (or has
        // not looked yet, and will find the word free).
        drop(self.sleep.lock().unwrap_or_else(|p| p.into_inner()));
        self.wake.notify_one();
    }

    /// Whether this thread holds the lock.
    #[inline]
    fn held_here(&self) -> bool {
        self.word.load(Ordering::Relaxed) & !WAITERS == me()
    }
}

/// Lock inversions seen so far in this process (debug builds; 0 in release
/// builds, which do not look): a thread took a domain lock of an earlier
/// [`Kind`] while holding one of a later kind. For tests.
pub fn order_violations() -> usize {
    order::VIOLATIONS.load(Ordering::Relaxed)
}

/// The lock-order check of debug builds: which kinds this thread holds (first
/// holds only), and inversions counted.
mod order {
    use super::Kind;
    use std::sync::atomic::AtomicUsize;

    pub(super) static VIOLATIONS: AtomicUsize = AtomicUsize::new(0);

    #[cfg(debug_assertions)]
    thread_local! {
        /// First holds of each kind this thread has.
        static HELD: std::cell::Cell<[u16; 4]> = const { std::cell::Cell::new([0; 4]) };
    }

    #[inline(always)]
    pub(super) fn taken(kind: Kind) {
        #[cfg(debug_assertions)]
        {
            let k = kind as usize;
            let _ = HELD.try_with(|h| {
                let mut held = h.get();
                if held[k + 1..].iter().any(|&n| n > 0) {
                    VIOLATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                held[k] += 1;
                h.set(held);
            });
        }
        #[cfg(not(debug_assertions))]
        let _ = kind;
    }

    #[inline(always)]
    pub(super) fn released(kind: Kind) {
        #[cfg(debug_assertions)]
        {
            let _ = HELD.try_with(|h| {
                let mut held = h.get();
                held[kind as usize] = held[kind as usize].saturating_sub(1);
                h.set(held);
            });
        }
        #[cfg(not(debug_assertions))]
        let _ = kind;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_is_reentrant_and_state_is_borrowed_once() {
        let d = Domain::new(Kind::Family);
        let cell = Guarded::new(&d, 5u32);
        {
            let mut b = cell.lock().expect("a first hold");
            *b += 1;
            assert!(d.held_here());
            // Nested: the lock again, never a second borrow.
            let nested = d.lock();
            assert!(!nested.is_first());
            assert!(cell.lock().is_none());
        }
        assert!(!d.held_here());
        assert_eq!(cell.with(|v| *v), Some(6));
    }

    #[test]
    fn a_busy_domain_gives_no_guard_and_its_end_lets_one_through() {
        let d = Domain::new(Kind::Family);
        d.begin_busy(d.enter().unwrap()).unwrap();
        assert!(d.try_enter().is_none());
        // A hold for anytime objects is still had.
        assert!(d.lock().guard().is_none());
        let other = d.clone();
        let waiter = std::thread::spawn(move || other.enter().map(drop).is_ok());
        std::thread::sleep(std::time::Duration::from_millis(20));
        d.end_busy(WakeFrom::Here);
        assert!(waiter.join().unwrap());
        // A nested hold cannot mark the domain busy (the outer would keep the
        // lock through the call), nor wait for a busy one.
        let outer = d.enter().unwrap();
        assert!(d.begin_busy(d.enter().unwrap()).is_err());
        drop(outer);
    }

    #[test]
    fn a_pointer_is_reached_with_its_own_domain_only() {
        let (a, b) = (Domain::new(Kind::Family), Domain::new(Kind::Device));
        let mut x = 7u8;
        // SAFETY: a plain Rust value standing in for an object, never called.
        let raw: Raw<u8> = unsafe { a.raw(NonNull::from(&mut x)) };
        let g = a.enter().unwrap();
        assert_eq!(raw.get(&g), &mut x as *mut u8);
        let other = b.enter().unwrap();
        let wrong = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| raw.get(&other)));
        assert!(wrong.is_err());
    }

    #[cfg(debug_assertions)]
    #[test]
    fn inversions_are_counted() {
        let before = order_violations();
        let (family, device) = (Domain::new(Kind::Family), Domain::new(Kind::Device));
        {
            let _f = family.lock();
            let _d = device.lock();
        }
        assert_eq!(order_violations(), before);
        {
            let _d = device.lock();
            let _f = family.lock();
        }
        assert_eq!(order_violations(), before + 1);
        // Undone, so that suites asserting none are not misled by this test.
        order::VIOLATIONS.fetch_sub(1, Ordering::Relaxed);
    }
}
