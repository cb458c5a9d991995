//! The one call helper: every raw DOCA call of doca-dpa and doca-rdmi goes through
//! [`__doca_core_call!`](crate::__doca_core_call) (doca-dpa's `doca_call!`,
//! doca-rdmi's `rdmi_call!` and `core_call!` are spellings of it), which evaluates
//! the arguments, makes the call under the DOCA lock ([`serialized`]) and turns the
//! `doca_error_t` into a [`Result`] naming the call ([`check`]).

use doca_dpa_sys as sys;

use crate::error::{Error, ErrorCode, Result};

/// The DOCA lock: held for the duration of every DOCA call this crate (and
/// doca-rdmi) makes, and for the library state guarded with it
/// ([`DocaGuarded`]). See [`serialized`].
static DOCA_LOCK: DocaLock = DocaLock::new();

/// A mutex without poisoning, reentrant on one thread, whose uncontended acquire
/// and release are one atomic operation each: it is taken around every DOCA call,
/// the launch path's and a wait's included, where `std::sync::Mutex` with a
/// thread-local "held" flag cost a fifth of what the safe layer added to them.
/// Nothing it guards can be left half-changed by a panic: a DOCA call does not
/// unwind, and [`DocaGuarded`] state is changed by this crate's own code only,
/// which keeps it consistent wherever it could panic (and `std`'s poison was
/// ignored here anyway).
///
/// The lock word holds the owner (the owning thread's identity, [`me`]: unique
/// among live threads and 8-aligned) or 0 when free; its low bit
/// ([`WAITERS`]) says that a thread may sleep waiting for it. So a thread tells
/// that it holds the lock already (a DOCA call made inside `serialized`) from a
/// failed acquire, with no thread-local flag to set and clear. A contended
/// acquire spins briefly (most holds are one DOCA call, a microsecond), then
/// sets `WAITERS` and sleeps on a condition variable, both under `sleep`; a
/// release that swaps out a word with `WAITERS` takes `sleep` before it notifies,
/// so the notification cannot fall between a sleeper's look at the word and its
/// wait. A thread that wakes takes the lock with `WAITERS` set (others may still
/// sleep), so its release wakes the next.
struct DocaLock {
    word: std::sync::atomic::AtomicUsize,
    sleep: std::sync::Mutex<()>,
    wake: std::sync::Condvar,
}

/// The lock word's "a thread may sleep" bit (owners are 8-aligned addresses).
const WAITERS: usize = 1;

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
thread_local! {
    /// This thread's identity in the DOCA lock word ([`me`]): its address.
    static ME: u64 = const { 0 };
}

/// This thread's identity in the DOCA lock word: its thread pointer where the
/// platform's TLS ABI keeps it at `%fs:0` (x86-64 Linux: the thread control block
/// points to itself there; unique among live threads, 16-aligned), else the
/// address of a thread-local. One instruction instead of two on the path of every DOCA
/// call.
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

impl DocaLock {
    const fn new() -> DocaLock {
        DocaLock {
            word: std::sync::atomic::AtomicUsize::new(0),
            sleep: std::sync::Mutex::new(()),
            wake: std::sync::Condvar::new(),
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
        if self.word.swap(0, std::sync::atomic::Ordering::Release) & WAITERS != 0 {
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
}

/// Runs one DOCA call (`f`) under the DOCA lock.
///
/// # The lock's scope (the one place it is stated)
///
/// DOCA DPA objects are not thread-safe: one thread at a time (facts:
/// `doca-dpa-host-api.md` §9, the DPA guide's note). Every public type of doca-dpa
/// and doca-rdmi is nevertheless `Send + Sync`, because every call into DOCA —
/// the core layer's call helper `__doca_core_call!` (doca-dpa's `doca_call!`,
/// doca-rdmi's `rdmi_call!`/`core_call!`), the owned handles' destroy and stop calls
/// (the core layer's `Owned`), the generated kernel launchers, and the few direct
/// `sys::` calls — runs inside this function, under one process-wide lock. So no two of them ever overlap, on one context or across
/// contexts, whatever threads the values are on. The one exception is
/// `doca_dpa_rpc`, which blocks until the device function returns: it runs
/// outside the lock (under it, every DOCA call of the process, the event update
/// the function may wait for included, would wait for it), and the RPC gate of
/// the context's family (it and the contexts extending it) serialises it against
/// the other calls naming those contexts or objects made on them (see
/// [`Dpa::rpc`](crate::Dpa::rpc)).
///
/// Inside `f`, nothing waits for an RPC or a device: a call on a context whose
/// family has an RPC in progress returns [`Error::Unavailable`](crate::Error::Unavailable)
/// at once (a drop there leaves its object alive, with a warning), and `Dpa::rpc`,
/// `Launch::wait` and the blocking event waits are refused. Waiting there would
/// hold the lock that what is waited for may need.
///
/// - Held for one DOCA call, or for one step of a launcher's bookkeeping around
///   its DOCA call (a submission, a look at its completion events: state guarded
///   by this lock, `DocaGuarded`, so that a launch or a wait takes one lock).
///   It is never held while user code runs: DOCA calls no user code (the only
///   callback, the wait task's completion in `doca_pe_progress`, sets an atomic
///   flag), a launch's arguments are lowered (`KernelArg::lower`) before it is
///   taken, and wakers are woken, `tracing` events emitted and released
///   references dropped after it is released. It is reentrant on one thread (the
///   lock word names its owner): a wrapper that makes its DOCA calls through
///   `doca_call!` may itself run inside `serialized` without deadlocking.
/// - The arguments of a call are evaluated before it is taken (by
///   `__doca_core_call!`).
/// - Process-wide, not per context: simpler and still correct; a per-context lock
///   would let two contexts' calls run in parallel (a refinement that changes no
///   type).
/// - Uncontended, it is two atomic operations and allocates nothing; contended,
///   a waiter spins briefly, then sleeps.
///
/// Other state the library keeps itself (an engine's reactor, a thread's
/// records) is behind each object's own mutex, taken before this lock and never
/// while user code runs.
#[inline]
pub fn serialized<R>(f: impl FnOnce() -> R) -> R {
    let _held = DocaLockGuard {
        taken: DOCA_LOCK.acquire(),
        _thread: std::marker::PhantomData,
    };
    f()
}

/// The DOCA lock, held by this thread until the guard drops (which also runs on
/// unwinding: FFI calls do not unwind, but Rust code under the lock may). A guard
/// made while this thread already held the lock (`taken` false) releases nothing.
struct DocaLockGuard {
    taken: bool,
    /// Not `Send`: the lock is this thread's.
    _thread: std::marker::PhantomData<*const ()>,
}

impl Drop for DocaLockGuard {
    #[inline(always)]
    fn drop(&mut self) {
        if self.taken {
            DOCA_LOCK.release();
        }
    }
}

/// State of the library guarded by the DOCA lock instead of a mutex of its own: a
/// launcher's epochs and what its launches keep alive, which every submission and
/// every look at a launch's completion changes together with a DOCA call (the
/// launch, a `doca_sync_event_get`), so that one lock acquisition covers both.
///
/// [`DocaGuarded::lock`] takes the DOCA lock (DOCA calls made while its guard
/// lives do not take it again), and refuses (`None`) a thread that holds the lock
/// already: inside [`serialized`] or another guard, where a borrow of the state
/// could be a second one. The code that holds a guard is this crate's own
/// bookkeeping: it runs no user code (no `tracing` event, no drop of a value whose
/// drop could emit one; a growing queue may allocate), so the lock stays held for
/// a few instructions besides the DOCA call.
pub(crate) struct DocaGuarded<T> {
    value: std::cell::UnsafeCell<T>,
}

// SAFETY: the value is reached only through a `DocaGuard` (made by a thread that
// took the DOCA lock, so one at a time in the process) or `get_mut` (`&mut
// self`), so sharing the cell between threads hands the value from one thread to
// the next, which `T: Send` allows.
unsafe impl<T: Send> Sync for DocaGuarded<T> {}

/// The value of a [`DocaGuarded`], borrowed with the DOCA lock held; releases the
/// lock when dropped.
pub(crate) struct DocaGuard<'a, T> {
    cell: &'a DocaGuarded<T>,
    /// Not `Send`: the lock is this thread's.
    _thread: std::marker::PhantomData<*const ()>,
}

impl<T> DocaGuarded<T> {
    pub(crate) fn new(value: T) -> DocaGuarded<T> {
        DocaGuarded {
            value: std::cell::UnsafeCell::new(value),
        }
    }

    /// The value, with the DOCA lock held until the guard drops; `None` if this
    /// thread holds the lock already.
    #[inline(always)]
    pub(crate) fn lock(&self) -> Option<DocaGuard<'_, T>> {
        if !DOCA_LOCK.acquire() {
            return None;
        }
        Some(DocaGuard {
            cell: self,
            _thread: std::marker::PhantomData,
        })
    }

    /// Runs `f` on the value under the DOCA lock; `None` if this thread holds the
    /// lock already.
    #[inline]
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Option<R> {
        let mut guard = self.lock()?;
        Some(f(&mut guard))
    }

    /// The value, through exclusive access (no lock needed).
    pub(crate) fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

impl<T> std::ops::Deref for DocaGuard<'_, T> {
    type Target = T;
    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: this thread took the DOCA lock for this guard (no other thread
        // holds one, of any cell), and made no other guard while holding it (a
        // thread that holds the lock is refused one).
        unsafe { &*self.cell.value.get() }
    }
}

impl<T> std::ops::DerefMut for DocaGuard<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as for `deref`; `&mut self` makes this borrow the only one.
        unsafe { &mut *self.cell.value.get() }
    }
}

impl<T> Drop for DocaGuard<'_, T> {
    #[inline(always)]
    fn drop(&mut self) {
        DOCA_LOCK.release();
    }
}

/// Whether this thread holds the DOCA lock.
#[inline]
pub(crate) fn held_here() -> bool {
    DOCA_LOCK.word.load(std::sync::atomic::Ordering::Relaxed) & !WAITERS == me()
}

/// Turns the return code of the DOCA call `call` into a `Result`: the one place a
/// raw code becomes an [`Error`].
#[inline]
pub fn check(call: &'static str, rc: sys::doca_error_t) -> Result<()> {
    if rc == sys::DOCA_SUCCESS as sys::doca_error_t {
        Ok(())
    } else {
        Err(doca_error(call, ErrorCode(rc)))
    }
}

/// The error of the DOCA call `call` that returned `code`, with DOCA's name and
/// description of the code ([`Error::Doca`]).
#[cold]
#[inline(never)]
pub fn doca_error(call: &'static str, code: ErrorCode) -> Error {
    Error::Doca {
        call,
        code,
        name: code.name(),
        description: code.description(),
    }
}

/// An argument refused before calling `call`, because a documented rule forbids
/// it, or a value DOCA returned that breaks its contract
/// ([`Error::InvalidArgument`]).
#[cold]
pub fn invalid(call: &'static str, reason: impl Into<String>) -> Error {
    Error::InvalidArgument {
        call,
        reason: reason.into(),
    }
}

/// Copies the `len` bytes DOCA handed back through an out-parameter of `call` (an
/// export's descriptor, a connection's details: memory DOCA owns and may change or
/// free later) into a vector. NULL, or no bytes, breaks the call's contract: an
/// error naming it.
///
/// # Safety
/// `ptr` is NULL or points at `len` readable bytes that nothing writes during the
/// copy (DOCA's, for as long as the object they describe lives).
pub unsafe fn copy_out(call: &'static str, ptr: *const u8, len: usize) -> Result<Vec<u8>> {
    if ptr.is_null() || len == 0 {
        return Err(invalid(call, "DOCA returned no bytes"));
    }
    // SAFETY: the caller's: `len` readable bytes at `ptr`.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) }.to_vec())
}

/// Calls the function `func` of the bindings crate (or module) `sys` and checks its
/// code, naming the call in the error: `__doca_core_call!(doca_rdmi_sys::f(a, b))`.
/// It adds no `unsafe` of its own: each call site writes the `unsafe` block and
/// its SAFETY comment around the macro (doca-dpa's `doca_call!` and doca-rdmi's
/// `rdmi_call!`/`core_call!` name `sys` for it).
///
/// The arguments are evaluated before the DOCA lock is taken, one `let` each, in
/// order: an argument such as `dpa.as_ptr()` may wait at the context's RPC gate
/// for a `doca_dpa_rpc` call that runs outside the lock, and waiting for it while
/// holding the lock would stop every other thread's DOCA calls, among them the
/// `doca_sync_event_update_*` that the RPC itself may be waiting for
/// (`tests/concurrency.rs`).
#[doc(hidden)]
#[macro_export]
macro_rules! __doca_core_call {
    ($sys:ident :: $func:ident($($arg:expr),* $(,)?)) => {
        $crate::__doca_core_call!(@bind $sys $func [] $($arg,)*)
    };
    // Binds the next argument to a fresh (hygienic) name, then recurses.
    (@bind $sys:ident $func:ident [$($bound:ident)*] $next:expr, $($rest:expr,)*) => {{
        let arg = $next;
        $crate::__doca_core_call!(@bind $sys $func [$($bound)* arg] $($rest,)*)
    }};
    (@bind $sys:ident $func:ident [$($bound:ident)*]) => {
        $crate::core::check(
            stringify!($func),
            $crate::core::serialized(|| $sys::$func($($bound),*)),
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_become_errors_naming_the_call() {
        assert!(check("doca_ctx_start", sys::DOCA_SUCCESS as sys::doca_error_t).is_ok());
        let e = check("doca_ctx_start", ErrorCode::BAD_STATE.0).unwrap_err();
        assert!(e.is_bad_state());
        assert_eq!(e.call(), Some("doca_ctx_start"));
        assert_eq!(e.code(), Some(ErrorCode::BAD_STATE));
    }

    /// Stands in for a bindings crate: records whether the lock was held.
    mod fake_sys {
        pub(super) unsafe fn probe(held_for_argument: bool) -> super::sys::doca_error_t {
            assert!(
                !held_for_argument,
                "an argument was evaluated under the lock"
            );
            assert!(super::held_here(), "the call ran without the lock");
            super::ErrorCode::NOT_FOUND.0
        }
    }

    /// The arguments are evaluated with the lock free (a call waiting at a
    /// context's RPC gate in an argument holds nothing), the call under it, and
    /// the error names the call.
    #[test]
    fn arguments_are_evaluated_before_the_lock_is_taken() {
        // SAFETY: `probe` is a plain Rust function.
        let e = unsafe { crate::__doca_core_call!(fake_sys::probe(held_here())) }.unwrap_err();
        assert_eq!(e.call(), Some("probe"));
        assert_eq!(e.code(), Some(ErrorCode::NOT_FOUND));
        assert!(!held_here());
    }
}
