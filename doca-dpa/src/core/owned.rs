//! The one owned handle: [`Owned`] destroys a DOCA object exactly once, or buries
//! it — leaves it alive on purpose, counted by [`buried_count`] — when the device
//! may still use it. Every DOCA object of doca-dpa and doca-rdmi with a destroy
//! call is held by one, apart from the DPA context and the sync events (whose
//! teardown asks the device first; `dpa.rs`, `sync_event.rs`).

use std::any::Any;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use doca_dpa_sys as sys;

use super::call::{check, invalid};
use super::guard::{Access, Anytime, Domain, Guard, Held, Quiet, Raw};
use crate::error::{Error, Result};

/// A kind of DOCA object: its C struct and the call that destroys it.
///
/// Implemented on an uninhabited marker type per kind, usually by
/// [`__doca_object!`](crate::__doca_object).
///
/// # Safety
/// `destroy` calls the DOCA function `DESTROY` names on the object it is given, and
/// nothing else: [`Owned`] calls it at most once per object, on an object it owns,
/// and takes DOCA_SUCCESS to mean the object is gone.
pub unsafe trait DocaObject: 'static {
    /// The C struct.
    type Raw;
    /// The destroy function's name, for errors.
    const DESTROY: &'static str;

    /// Calls the destroy function (the caller holds the object's domain lock).
    ///
    /// # Safety
    /// `p` is a live object of this kind that its owner no longer uses, stopped
    /// where the kind has a stop call; destroyed once.
    unsafe fn destroy(p: *mut Self::Raw) -> sys::doca_error_t;
}

/// A [`DocaObject`] with a stop call of its own (a thread, a completion, a memory
/// map): [`Owned::teardown`] stops a started one before destroying it. (Objects
/// stopped as a `doca_ctx` use [`Ctx`](super::Ctx) instead.)
///
/// # Safety
/// `stop` calls the DOCA function `STOP` names on the object it is given, and
/// nothing else; DOCA_SUCCESS means the object no longer runs.
pub unsafe trait Stoppable: DocaObject {
    /// The stop function's name, for errors.
    const STOP: &'static str;

    /// Calls the stop function (the caller holds the object's domain lock).
    ///
    /// # Safety
    /// `p` is a live, started object of this kind; stopped once.
    unsafe fn stop(p: *mut Self::Raw) -> sys::doca_error_t;
}

/// Declares a marker type for a kind of DOCA object, implementing [`DocaObject`]
/// (and [`Stoppable`] when a stop call is named) with the functions of the bindings
/// crate `sys`:
///
/// ```
/// doca_dpa::__doca_object!(
///     /// `doca_dpa_thread`.
///     RawThread: doca_dpa_sys::doca_dpa_thread,
///     destroy doca_dpa_thread_destroy,
///     stop doca_dpa_thread_stop
/// );
/// // What a create call returned is owned at once; NULL is an error naming the call.
/// // SAFETY: NULL (owned by nothing).
/// let none = unsafe {
///     doca_dpa::core::Owned::<RawThread>::new(
///         "doca_dpa_thread_create",
///         std::ptr::null_mut(),
///         &doca_dpa::core::Domain::new(doca_dpa::core::Kind::Family),
///     )
/// };
/// assert_eq!(none.unwrap_err().call(), Some("doca_dpa_thread_create"));
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __doca_object {
    ($(#[$m:meta])* $vis:vis $name:ident: $sys:ident::$raw:ident, destroy $destroy:ident $(, stop $stop:ident)? $(,)?) => {
        $(#[$m])*
        $vis enum $name {}

        // SAFETY: `destroy` calls the function `DESTROY` names, on the object it is
        // given, and nothing else.
        unsafe impl $crate::core::DocaObject for $name {
            type Raw = $sys::$raw;
            const DESTROY: &'static str = stringify!($destroy);
            unsafe fn destroy(p: *mut Self::Raw) -> $crate::sys::doca_error_t {
                // SAFETY: per the trait's contract, the caller's.
                unsafe { $sys::$destroy(p) }
            }
        }

        $(
            // SAFETY: `stop` calls the function `STOP` names, on the object it is
            // given, and nothing else.
            unsafe impl $crate::core::Stoppable for $name {
                const STOP: &'static str = stringify!($stop);
                unsafe fn stop(p: *mut Self::Raw) -> $crate::sys::doca_error_t {
                    // SAFETY: per the trait's contract, the caller's.
                    unsafe { $sys::$stop(p) }
                }
            }
        )?
    };
}

/// What became of an owned object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Live,
    Destroyed,
    Buried,
}

/// The stop call of a started object.
type StopFn<R> = (&'static str, unsafe fn(*mut R) -> sys::doca_error_t);

/// A DOCA object of kind `O` in a lock [`Domain`], owned: destroyed exactly once
/// ([`Owned::destroy`], [`Owned::teardown`], or its `Drop`), or buried
/// ([`Owned::bury`]), never both. Its pointer is a [`Raw`] of access `A`: reached
/// with the domain's lock held only, and the handle's own calls (stop, destroy)
/// take that lock themselves.
///
/// Its owner (the safe type) holds what the object uses, and releases it only as
/// the [`Outcome`] of the teardown allows: after a failed stop the object may still
/// run, so what it uses is buried with it.
pub struct Owned<O: DocaObject, A: Access = Quiet> {
    raw: Raw<O::Raw, A>,
    /// Set once the object was started, if its kind has a stop call.
    stop: Option<StopFn<O::Raw>>,
    fate: Fate,
}

impl<O: DocaObject, A: Access> std::fmt::Debug for Owned<O, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Owned")
            .field("kind", &O::DESTROY)
            .field("started", &self.stop.is_some())
            .field("fate", &self.fate)
            .finish()
    }
}

impl<O: DocaObject, A: Access> Owned<O, A> {
    /// Takes ownership of what the create call `call` returned, at once, so that
    /// every later failure destroys it. NULL is an error naming `call`. Its calls
    /// are `domain`'s.
    ///
    /// # Safety
    /// `raw` is NULL or a live object of kind `O` that nothing else owns or will
    /// destroy (what its create call just returned), whose DOCA calls are
    /// `domain`'s: the handle destroys it. Safe code cannot hand over an object a
    /// safe type already owns:
    ///
    /// ```compile_fail,E0133
    /// doca_dpa::__doca_object!(Table: doca_dpa_sys::doca_dpa_hash_table, destroy doca_dpa_hash_table_destroy);
    /// fn forge(table: &doca_dpa::HashTable, guard: &doca_dpa::FamilyGuard<'_>) {
    ///     let domain = doca_dpa::core::Domain::new(doca_dpa::core::Kind::Family);
    ///     let _ = doca_dpa::core::Owned::<Table>::new("forged", table.as_ptr(guard), &domain);
    /// }
    /// ```
    pub unsafe fn new(call: &'static str, raw: *mut O::Raw, domain: &Domain) -> Result<Self> {
        let ptr = NonNull::new(raw).ok_or_else(|| invalid(call, "DOCA returned NULL"))?;
        Ok(Owned {
            // SAFETY: the caller's: an object of `domain`, whose pointer is
            // reached through this handle only.
            raw: unsafe { domain.raw(ptr) },
            stop: None,
            fate: Fate::Live,
        })
    }

    /// The object's handle: its pointer, for DOCA calls under its domain's lock.
    /// Valid while this handle lives and the object was neither destroyed nor
    /// buried.
    #[inline]
    pub fn raw(&self) -> &Raw<O::Raw, A> {
        &self.raw
    }

    /// The object's domain.
    pub fn domain(&self) -> &Domain {
        self.raw.domain()
    }

    /// Whether the object was destroyed.
    pub fn is_destroyed(&self) -> bool {
        self.fate == Fate::Destroyed
    }

    /// Destroys the object (the stop, if any, is the caller's business). On a
    /// failure the object stays owned and live: the call may be retried, and `Drop`
    /// retries it once more. Done (`Ok`) once destroyed; an error once buried.
    pub fn destroy(&mut self) -> Result<()> {
        match self.fate {
            Fate::Destroyed => Ok(()),
            Fate::Buried => Err(invalid(
                O::DESTROY,
                "the object was left alive, since the device may still use it",
            )),
            Fate::Live => {
                // SAFETY: our live object (`Fate::Live`), under its domain's lock;
                // the fate below makes this the only successful call. The caller
                // stopped it where needed.
                let rc = self.raw.with(|p, _| unsafe { O::destroy(p) })?;
                check(O::DESTROY, rc)?;
                self.fate = Fate::Destroyed;
                Ok(())
            }
        }
    }

    /// Stops the object if it was started, then destroys it: once, and final,
    /// under one hold of its domain's lock (for a [`Quiet`] object, once no busy
    /// call runs). A failed stop buries the object (it may still run); a failed
    /// destroy buries it too (it is never tried again); so does a lock that cannot
    /// be had (a thread that holds its family's lock while an RPC of the family
    /// runs: it cannot wait for the RPC, so the object may be in use). Quiet — no
    /// user code runs — so that the caller can make what the object uses safe
    /// first, then [`Outcome::report`].
    pub fn teardown(&mut self) -> Outcome {
        match self.fate {
            Fate::Destroyed => return Outcome::Done,
            Fate::Buried => return Outcome::Left,
            Fate::Live => {}
        }
        let domain = self.raw.domain().clone();
        let held = match A::acquire(&domain) {
            Ok(held) => held,
            Err(e) => {
                self.bury();
                return Outcome::StopFailed(e);
            }
        };
        if let Some((name, stop)) = self.stop.take() {
            // SAFETY: our started object (`stop` is set only by `set_started`),
            // stopped once (taken above), under its domain's lock (`held`).
            let rc = self.raw.with(|p, _| unsafe { stop(p) });
            if let Err(e) = rc.and_then(|rc| check(name, rc)) {
                drop(held);
                self.bury();
                return Outcome::StopFailed(e);
            }
        }
        let destroyed = self.destroy();
        drop(held);
        match destroyed {
            Ok(()) => Outcome::Done,
            Err(e) => {
                self.bury();
                Outcome::DestroyFailed(e)
            }
        }
    }

    /// Leaves the object alive for good (the device may still use it): it is never
    /// destroyed, and [`buried_count`] counts it. For an owner whose object depends on
    /// another that could not be stopped.
    pub fn bury(&mut self) {
        if self.fate == Fate::Live {
            self.fate = Fate::Buried;
            bury(BuriedObject {
                kind: O::DESTROY,
                addr: self.raw.addr(),
            });
        }
    }
}

impl<O: DocaObject> Owned<O, Quiet> {
    /// The object, for DOCA calls made while `guard` (of its domain) lives.
    #[inline(always)]
    pub fn as_ptr(&self, guard: &Guard<'_>) -> *mut O::Raw {
        self.raw.get(guard)
    }
}

impl<O: DocaObject> Owned<O, Anytime> {
    /// The object, for DOCA calls made while `held` (of its domain) lives.
    #[inline(always)]
    pub fn as_ptr(&self, held: &Held<'_>) -> *mut O::Raw {
        self.raw.get(held)
    }
}

impl<O: Stoppable, A: Access> Owned<O, A> {
    /// Records that the object was started: [`Owned::teardown`] stops it first.
    pub fn set_started(&mut self) {
        self.stop = Some((O::STOP, O::stop));
    }
}

impl<O: DocaObject, A: Access> Drop for Owned<O, A> {
    fn drop(&mut self) {
        self.teardown().report();
    }
}

/// Takes the value `shared` points to, as its only owner, for an explicit teardown
/// (`call`, the DOCA call it makes); while other owners hold it, an
/// [`Error::InUse`] naming `call` and how many, with `shared` back.
pub fn sole<T>(shared: Arc<T>, call: &'static str) -> std::result::Result<T, (Error, Arc<T>)> {
    Arc::try_unwrap(shared).map_err(|shared| {
        let users = Arc::strong_count(&shared) - 1;
        (Error::InUse { call, users }, shared)
    })
}

/// A DOCA object left alive on purpose: what the graveyard keeps for it.
#[derive(Debug)]
#[allow(dead_code)] // read only by a debugger or a leak checker's report
struct BuriedObject {
    kind: &'static str,
    addr: usize,
}

/// How an [`Owned::teardown`] went.
#[must_use]
#[derive(Debug)]
pub enum Outcome {
    /// Destroyed (now or before).
    Done,
    /// Stopped (or never started), but the destroy failed: the object no longer
    /// runs, and is buried.
    DestroyFailed(Error),
    /// Not stopped: it may still run, so it is buried, and what it uses must be
    /// buried too.
    StopFailed(Error),
    /// Buried before: nothing was done.
    Left,
}

impl Outcome {
    /// Whether the object no longer runs, so that what it uses may go (for a DPA
    /// thread: once no activation can run any more either).
    pub fn stopped(&self) -> bool {
        matches!(self, Outcome::Done | Outcome::DestroyFailed(_))
    }

    /// The error, if the teardown failed.
    pub fn into_result(self) -> Result<()> {
        match self {
            Outcome::Done | Outcome::Left => Ok(()),
            Outcome::DestroyFailed(e) | Outcome::StopFailed(e) => Err(e),
        }
    }

    /// Logs a failure: a `tracing` event, which is user code, so only once everything
    /// the device may use is out of the unwinding frame.
    pub fn report(self) {
        match self {
            Outcome::Done | Outcome::Left => {}
            Outcome::DestroyFailed(e) => {
                tracing::warn!(target: "doca_dpa::core", error = %e, "a destroy failed during drop: the object is leaked")
            }
            Outcome::StopFailed(e) => {
                tracing::warn!(target: "doca_dpa::core", error = %e, "a stop failed: the object and what it uses are leaked")
            }
        }
    }
}

/// Values leaked on purpose: the device may still use what they keep alive.
struct Graveyard(Vec<Box<dyn Any>>);

// SAFETY: the graveyard is only ever appended to under its mutex; nothing in it is
// read, moved out or dropped again (the static is never dropped), so values that are
// not `Send` are never used from another thread.
unsafe impl Send for Graveyard {}

static GRAVEYARD: Mutex<Graveyard> = Mutex::new(Graveyard(Vec::new()));

/// Leaks `value` on purpose, keeping it reachable (so leak checkers report it as
/// still reachable, not lost) and counted by [`buried_count`]: used when the device
/// may still touch what it owns.
pub fn bury<T: Any>(value: T) {
    GRAVEYARD
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .0
        .push(Box::new(value));
}

/// Number of values (and DOCA objects) leaked so far (for tests).
pub fn buried_count() -> usize {
    GRAVEYARD.lock().unwrap_or_else(|p| p.into_inner()).0.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static DESTROYS: AtomicUsize = AtomicUsize::new(0);
    static STOPS: AtomicUsize = AtomicUsize::new(0);

    /// A stand-in kind whose calls count, and fail for the object at address 1.
    enum Probe {}
    struct ProbeObject;

    // SAFETY: `destroy` calls nothing of DOCA: it counts and answers.
    unsafe impl DocaObject for Probe {
        type Raw = ProbeObject;
        const DESTROY: &'static str = "probe_destroy";
        unsafe fn destroy(p: *mut ProbeObject) -> sys::doca_error_t {
            DESTROYS.fetch_add(1, Ordering::SeqCst);
            answer(p)
        }
    }

    // SAFETY: as above.
    unsafe impl Stoppable for Probe {
        const STOP: &'static str = "probe_stop";
        unsafe fn stop(p: *mut ProbeObject) -> sys::doca_error_t {
            STOPS.fetch_add(1, Ordering::SeqCst);
            answer(p)
        }
    }

    fn answer(p: *mut ProbeObject) -> sys::doca_error_t {
        if p as usize == 1 {
            crate::ErrorCode::DRIVER.0
        } else {
            crate::ErrorCode::SUCCESS.0
        }
    }

    /// An owned probe object at `addr` (0: NULL).
    fn owned(addr: usize) -> Result<Owned<Probe>> {
        let domain = crate::core::Domain::new(crate::core::Kind::Device);
        // SAFETY: probe objects are addresses the probe's calls only compare, and
        // each test owns the ones it makes.
        unsafe { Owned::<Probe>::new("probe_create", addr as *mut ProbeObject, &domain) }
    }

    // One test, since the counters are shared.
    #[test]
    fn objects_are_stopped_and_destroyed_once_or_buried() {
        assert!(owned(0).is_err());

        let (d, s) = (
            DESTROYS.load(Ordering::SeqCst),
            STOPS.load(Ordering::SeqCst),
        );
        let mut ok = owned(8).unwrap();
        ok.set_started();
        assert!(matches!(ok.teardown(), Outcome::Done));
        assert!(ok.is_destroyed());
        drop(ok);
        assert_eq!(DESTROYS.load(Ordering::SeqCst) - d, 1);
        assert_eq!(STOPS.load(Ordering::SeqCst) - s, 1);

        // A failed stop buries the object: never destroyed, counted.
        let (d, buried) = (DESTROYS.load(Ordering::SeqCst), buried_count());
        let mut running = owned(1).unwrap();
        running.set_started();
        let outcome = running.teardown();
        assert!(!outcome.stopped());
        assert_eq!(
            outcome.into_result().unwrap_err().call(),
            Some("probe_stop")
        );
        assert!(matches!(running.teardown(), Outcome::Left));
        assert!(running.destroy().is_err());
        drop(running);
        assert_eq!(DESTROYS.load(Ordering::SeqCst), d);
        assert_eq!(buried_count(), buried + 1);

        // An explicit destroy may be retried; the drop does not destroy again.
        let d = DESTROYS.load(Ordering::SeqCst);
        let mut refused = owned(1).unwrap();
        assert_eq!(refused.destroy().unwrap_err().call(), Some("probe_destroy"));
        assert!(!refused.is_destroyed());
        // Its drop tries once more, fails, and buries it.
        let buried = buried_count();
        drop(refused);
        assert_eq!(DESTROYS.load(Ordering::SeqCst) - d, 2);
        assert_eq!(buried_count(), buried + 1);
    }
}
