//! The value of a sync event: the counter that host calls, kernels (through
//! a DPA handle), launch gates and progress engines all read and wait on.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

/// The shared counter of a sync event, reachable from host calls and from
/// kernels (through a DPA handle).
#[derive(Default)]
pub(crate) struct EventCore {
    value: AtomicU64,
    waiters: AtomicUsize,
    lock: Mutex<()>,
    changed: Condvar,
    /// Whether something watches the value (a progress engine for tasks of
    /// the event's context, async ops for the waits kernels posted on it).
    watched: AtomicBool,
    watchers: Mutex<Vec<Weak<dyn Watcher>>>,
}

/// What is told of every change of an event's value once it [`EventCore::watch`]es
/// it. Called with no lock of the event held, from whichever thread changed the
/// value (a host call or a kernel's device call).
pub(crate) trait Watcher: Send + Sync {
    fn value_changed(&self);
}

impl Watcher for crate::ctx::Notifier {
    /// Fires the engine's notification handle (when armed).
    fn value_changed(&self) {
        self.fire();
    }
}

impl std::fmt::Debug for EventCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventCore")
            .field("value", &self.get())
            .finish_non_exhaustive()
    }
}

/// A comparison a wait is for, applied to `value & mask`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compare {
    /// Strictly greater than the threshold.
    Gt,
    /// Equal to it.
    Eq,
    /// Different from it.
    Neq,
    /// Greater than or equal (the kernel-launch gate).
    Ge,
}

impl Compare {
    pub(crate) fn holds(self, value: u64, mask: u64, threshold: u64) -> bool {
        let v = value & mask;
        match self {
            Compare::Gt => v > threshold,
            Compare::Eq => v == threshold,
            Compare::Neq => v != threshold,
            Compare::Ge => v >= threshold,
        }
    }
}

/// How long a blocked waiter sleeps before re-checking its abort condition.
const RECHECK: Duration = Duration::from_millis(5);
/// Polls before a waiter blocks: most waits in tests and benches are short.
const SPINS: u32 = 200;

impl EventCore {
    pub(crate) fn get(&self) -> u64 {
        self.value.load(Ordering::SeqCst)
    }

    pub(crate) fn set(&self, value: u64) {
        self.value.store(value, Ordering::SeqCst);
        self.wake();
    }

    pub(crate) fn add(&self, value: u64) -> u64 {
        let old = self.value.fetch_add(value, Ordering::SeqCst);
        self.wake();
        old
    }

    fn wake(&self) {
        // Pairs with the SeqCst increment of `waiters` in `wait`: either the
        // waiter sees the new value before sleeping, or we see the waiter and
        // notify under the lock it sleeps on.
        if self.waiters.load(Ordering::SeqCst) > 0 {
            let _guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
            self.changed.notify_all();
        }
        if self.watched.load(Ordering::Acquire) {
            // Told outside the lock: a watcher may change this very value
            // (or watch it) in turn.
            let live: Vec<Arc<dyn Watcher>> = self
                .watchers
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .iter()
                .filter_map(Weak::upgrade)
                .collect();
            for w in live {
                w.value_changed();
            }
        }
    }

    /// Tells `watcher` of every later change of the value (once, however
    /// often it asks).
    pub(crate) fn watch<W: Watcher + 'static>(&self, watcher: &Arc<W>) {
        let mut watchers = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        watchers.retain(|w| w.strong_count() > 0);
        let me = Arc::as_ptr(watcher).cast::<()>();
        if !watchers
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr().cast::<()>(), me))
        {
            let weak: Weak<dyn Watcher> = Arc::downgrade(watcher) as Weak<dyn Watcher>;
            watchers.push(weak);
        }
        self.watched.store(true, Ordering::Release);
    }

    /// Blocks until the comparison holds; returns false if `abort` said to
    /// give up first.
    ///
    /// Model choice: DOCA's waits busy-poll; the sim polls briefly and then
    /// sleeps on a condition variable, which only changes CPU use.
    pub(crate) fn wait(
        &self,
        cmp: Compare,
        threshold: u64,
        mask: u64,
        abort: impl Fn() -> bool,
    ) -> bool {
        for _ in 0..SPINS {
            if cmp.holds(self.get(), mask, threshold) {
                return true;
            }
            std::hint::spin_loop();
        }
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let mut guard = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        let ok = loop {
            if cmp.holds(self.get(), mask, threshold) {
                break true;
            }
            if abort() {
                break false;
            }
            guard = self
                .changed
                .wait_timeout(guard, RECHECK)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        };
        drop(guard);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
        ok
    }
}
