//! What keeps device work alive: ownership, never a borrow.
//!
//! Every object the DPA may touch — DPA memory, sync events, completions, threads,
//! RDMI connections — lives behind an `Rc`. Whatever hands such an object to the
//! device (a launch, a started DPA thread, a typed struct in DPA memory) keeps a
//! [`KeepAlive`] of it until the library has *observed* that the device is done with
//! it. Dropping the user's handle earlier only drops one reference. When the library
//! cannot confirm that the device is done (a timeout, a fatal context, a failed poll),
//! the references are [`bury`]'d: leaked on purpose, never freed, with a warning.

use std::any::Any;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Mutex;

/// A reference that keeps one device-visible object alive.
///
/// Made by the objects themselves when they are passed to the device; a launch or
/// a DPA struct holds it until the device is known to be done.
#[derive(Clone)]
pub struct KeepAlive {
    _owner: Rc<dyn Any>,
}

impl std::fmt::Debug for KeepAlive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeepAlive")
    }
}

impl KeepAlive {
    /// Keeps `owner` alive (a clone of the `Rc`; no allocation).
    pub fn new<T: Any>(owner: &Rc<T>) -> KeepAlive {
        KeepAlive {
            _owner: owner.clone(),
        }
    }
}

/// Where the arguments of one submission record what they keep alive.
///
/// Passed to [`KernelArg::lower`](crate::KernelArg::lower).
#[derive(Debug)]
pub struct Keep<'q> {
    queue: &'q mut KeepQueue,
    ticket: u64,
}

impl Keep<'_> {
    /// Records that the submission being prepared uses `what`.
    pub fn keep(&mut self, what: KeepAlive) {
        self.queue.entries.push_back((self.ticket, what));
    }
}

/// The references held for submissions, in ticket order.
///
/// The queue's storage is reused: once it has grown to the number of references in
/// flight, recording and retiring allocate nothing.
#[derive(Debug, Default)]
pub(crate) struct KeepQueue {
    entries: VecDeque<(u64, KeepAlive)>,
}

impl KeepQueue {
    pub(crate) fn with_capacity(n: usize) -> KeepQueue {
        KeepQueue {
            entries: VecDeque::with_capacity(n),
        }
    }

    /// A recorder for submission `ticket` (tickets must not decrease).
    pub(crate) fn recorder(&mut self, ticket: u64) -> Keep<'_> {
        Keep {
            queue: self,
            ticket,
        }
    }

    /// Calls `f` with every reference held.
    pub(crate) fn for_each(&self, mut f: impl FnMut(&KeepAlive)) {
        for (_, k) in &self.entries {
            f(k);
        }
    }

    /// Number of references held.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Forgets the references recorded after the first `len` (a submission that
    /// DOCA refused: the device never saw them).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.entries.truncate(len);
    }

    /// Drops the references of every submission up to `ticket`, which the device has
    /// finished with.
    pub(crate) fn retire_through(&mut self, ticket: u64) {
        while self.entries.front().is_some_and(|(t, _)| *t <= ticket) {
            self.entries.pop_front();
        }
    }

    /// Leaks everything still held (see [`bury`]).
    pub(crate) fn bury_all(&mut self) {
        if !self.entries.is_empty() {
            bury(std::mem::take(&mut self.entries));
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
/// still reachable, not lost): used when the device may still touch what it owns.
pub(crate) fn bury<T: Any>(value: T) {
    GRAVEYARD
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .0
        .push(Box::new(value));
}

/// Number of values leaked so far (for tests).
#[doc(hidden)]
pub fn buried_count() -> usize {
    GRAVEYARD.lock().unwrap_or_else(|p| p.into_inner()).0.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retiring_drops_only_finished_submissions() {
        let a = Rc::new(1u8);
        let b = Rc::new(2u8);
        let mut q = KeepQueue::default();
        q.recorder(1).keep(KeepAlive::new(&a));
        q.recorder(2).keep(KeepAlive::new(&b));
        q.recorder(2).keep(KeepAlive::new(&a));
        assert_eq!(Rc::strong_count(&a), 3);
        q.retire_through(1);
        assert_eq!((Rc::strong_count(&a), Rc::strong_count(&b)), (2, 2));
        q.truncate(1);
        assert_eq!(Rc::strong_count(&a), 1);
        q.retire_through(5);
        assert_eq!((q.len(), Rc::strong_count(&b)), (0, 1));
    }

    #[test]
    fn buried_values_are_never_dropped() {
        let a = Rc::new(7u32);
        let before = buried_count();
        let mut q = KeepQueue::default();
        q.recorder(1).keep(KeepAlive::new(&a));
        q.bury_all();
        assert_eq!(q.len(), 0);
        assert_eq!(
            Rc::strong_count(&a),
            2,
            "the buried reference still holds it"
        );
        assert!(buried_count() > before);
    }
}
