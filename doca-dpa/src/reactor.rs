//! What watches an [`Engine`](crate::Engine)'s notification handle for an async
//! runtime: the [`Reactor`] trait (the `tokio` feature's is in `tokio_reactor.rs`),
//! the watcher an engine uses (a reactor given to it, or tokio's), and the
//! [`Broadcast`] waker that wakes every future waiting on the engine. No DOCA call
//! is made here: `drain`, handed to a reactor, is the engine's.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

/// What watches an [`Engine`](crate::Engine)'s notification handle for an async runtime.
///
/// `poll_readable` registers `cx`'s waker for readability of `fd` (it is always the
/// same descriptor) and returns `Ready` once it is readable; before clearing the
/// runtime's readiness it must call `drain`, which consumes the notification (so an
/// edge-triggered runtime sees the next one).
///
/// **Safe to implement, and meant to be implemented**: the library relies on
/// nothing a reactor does for soundness, so the trait is neither sealed nor
/// `unsafe`. A reactor that never wakes, wakes too often, panics or never calls
/// `drain` only delays or fails the futures that use it. What it is given cannot
/// be misused from safe code: `fd` is a raw descriptor (closing or replacing it
/// takes `unsafe`); `drain` is borrowed for the one call and is not `Send`, so it
/// runs on the polling thread only, and it is a DOCA call under the engine's lock; and
/// no lock of the engine is held while the reactor runs or is dropped (a reactor
/// may poll, replace itself or wake futures re-entrantly). What a pending launch
/// uses is kept alive by the launcher, not by the future the reactor wakes.
/// The engine installs a reactor under its slot's lock but never calls one or
/// drops one while holding it. `tests/redteam.rs` drives a reactor that wakes
/// from inside its poll, progresses the engine and replaces itself (attack 5),
/// and one that always claims readiness, calls `drain` re-entrantly and wakes
/// stashed wakers from another thread after everything was dropped (round 4,
/// `a_lying_reactor_that_keeps_its_wakers`); neither finds anything unsound.
pub trait Reactor: Send + Sync + 'static {
    /// Polls readability of the engine's notification handle.
    fn poll_readable(
        &self,
        fd: std::os::fd::RawFd,
        cx: &mut Context<'_>,
        drain: &dyn Fn(),
    ) -> Poll<std::io::Result<()>>;
}

/// Wakes every future waiting on an engine when its handle becomes readable: each
/// looks at its own event again.
pub(crate) struct Broadcast {
    wakers: Mutex<Vec<Waker>>,
    spare: Mutex<Vec<Waker>>,
}

impl Broadcast {
    /// An empty list (with room for a few wakers).
    pub(crate) fn new() -> Broadcast {
        Broadcast {
            wakers: Mutex::new(Vec::with_capacity(8)),
            spare: Mutex::new(Vec::with_capacity(8)),
        }
    }

    /// Adds `waker`, unless it would wake the same task as one already listed.
    pub(crate) fn register(&self, waker: &Waker) {
        let mut wakers = self.wakers.lock().unwrap_or_else(|p| p.into_inner());
        if !wakers.iter().any(|w| w.will_wake(waker)) {
            wakers.push(waker.clone());
        }
    }

    /// Wakes every registered waker but `keep`, which stays registered.
    pub(crate) fn wake_except(&self, keep: &Waker) {
        self.wake_all(Some(keep));
    }

    /// Wakes every registered waker (but `keep`, which stays registered). The list
    /// is swapped with a spare one of kept capacity: no allocation in the steady
    /// state, and no lock held while the wakers run (a waker may poll a future of
    /// this engine at once, which registers again, or wake the broadcast again: a
    /// nested call finds an empty spare and does the same).
    fn wake_all(&self, keep: Option<&Waker>) {
        let mut woken = std::mem::take(&mut *self.spare.lock().unwrap_or_else(|p| p.into_inner()));
        std::mem::swap(
            &mut woken,
            &mut *self.wakers.lock().unwrap_or_else(|p| p.into_inner()),
        );
        if let Some(keep) = keep {
            self.register(keep);
        }
        for w in woken.drain(..) {
            if !keep.is_some_and(|k| w.will_wake(k)) {
                w.wake();
            }
        }
        let mut spare = self.spare.lock().unwrap_or_else(|p| p.into_inner());
        if spare.capacity() < woken.capacity() {
            *spare = woken;
        }
    }
}

impl Wake for Broadcast {
    fn wake(self: Arc<Self>) {
        self.wake_all(None);
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.wake_all(None);
    }
}

/// What watches an engine's handle.
pub(crate) enum Watcher {
    /// Given with [`Engine::set_reactor`](crate::Engine::set_reactor): used for good.
    Set(Box<dyn Reactor>),
    /// The `tokio` feature's, registered with the I/O driver of the runtime that
    /// was current when it was made. An engine awaited later in another runtime
    /// (the first one dropped, or idle while another runs) registers again there:
    /// a registration with a runtime nobody drives would never wake the future.
    #[cfg(feature = "tokio")]
    Tokio(crate::tokio_reactor::TokioReactor),
}

impl Watcher {
    pub(crate) fn reactor(&self) -> &dyn Reactor {
        match self {
            Watcher::Set(r) => r.as_ref(),
            #[cfg(feature = "tokio")]
            Watcher::Tokio(r) => r,
        }
    }

    /// Whether it can wake a future polled now, on this thread.
    pub(crate) fn serves_this_runtime(&self) -> bool {
        match self {
            Watcher::Set(_) => true,
            #[cfg(feature = "tokio")]
            Watcher::Tokio(r) => r.is_current(),
        }
    }
}

/// The watcher used when no reactor was set: tokio's, inside a tokio runtime
/// (`None` outside one, an error if it refused the handle). Runs no user code.
pub(crate) fn default_watcher(fd: std::os::fd::RawFd) -> Option<std::io::Result<Watcher>> {
    #[cfg(feature = "tokio")]
    {
        crate::tokio_reactor::TokioReactor::current(fd).map(|r| r.map(Watcher::Tokio))
    }
    #[cfg(not(feature = "tokio"))]
    {
        let _ = fd;
        None
    }
}
