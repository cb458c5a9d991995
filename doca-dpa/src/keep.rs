//! What keeps device work alive: ownership, never a borrow.
//!
//! Every object the DPA may touch — DPA memory, sync events, completions, threads,
//! RDMI connections — lives behind an `Arc`. Whatever hands such an object to the
//! device (a launch, a started DPA thread, a typed struct in DPA memory) keeps a
//! [`KeepAlive`] of it until the library has *observed* that the device is done with
//! it. Dropping the user's handle earlier only drops one reference.
//!
//! A timeout releases nothing early and buries nothing by itself: a timed-out
//! launch's arguments stay with its launcher until a completion shows it finished,
//! and what a timed-out RPC or a stopped DPA thread may still use is deferred to the
//! context family, which releases it once the device's kernel run-time limit has
//! passed with the context healthy (`family.rs`). When the library can never
//! confirm that the device is done (a fatal context, a failed poll, a thread that
//! will not stop, a device without a run-time limit, a launcher dropped with
//! launches running past the limit), the references are [`bury`]'d: leaked on
//! purpose, never freed, with a warning.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::Arc;

use crate::dpa::Dpa;

/// A reference that keeps one device-visible object alive.
///
/// Made by the objects themselves when they are passed to the device; a launch or
/// a DPA struct holds it until the device is known to be done.
#[derive(Clone)]
pub struct KeepAlive {
    _owner: Arc<dyn Any + Send + Sync>,
}

impl std::fmt::Debug for KeepAlive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeepAlive")
    }
}

impl KeepAlive {
    /// Keeps `owner` alive (a clone of the `Arc`; no allocation).
    pub fn new<T: Any + Send + Sync>(owner: &Arc<T>) -> KeepAlive {
        KeepAlive {
            _owner: owner.clone(),
        }
    }
}

/// Which DPA context a submission is for: the identity of its [`Dpa`] (the address
/// of the shared state every clone points to, unique while any of them lives) and
/// its number, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CtxId {
    /// The address, as a number: an identity, never dereferenced.
    ptr: usize,
    serial: u64,
}

impl CtxId {
    pub(crate) fn of(dpa: &Dpa) -> CtxId {
        CtxId {
            ptr: dpa.identity() as usize,
            serial: dpa.serial(),
        }
    }
}

/// Where the arguments of one submission record what they keep alive, for one DPA
/// context.
///
/// Passed to [`KernelArg::lower`](crate::KernelArg::lower).
#[derive(Debug)]
pub struct Keep<'q> {
    queue: &'q mut KeepQueue,
    ticket: u64,
    /// The DOCA call the values are for, which a refusal names.
    call: &'static str,
    /// The context the values go to; `None` until the first object names it (a
    /// [`Dev`](crate::Dev) made on its own takes the context of what it holds).
    ctx: Option<CtxId>,
    /// Recording into a [`Staged`] queue: its first reference takes the thread's
    /// spare buffer.
    staged: bool,
}

impl Keep<'_> {
    /// Records that the submission being prepared uses `what`.
    #[inline]
    pub fn keep(&mut self, what: KeepAlive) {
        if self.staged && self.queue.entries.capacity() == 0 {
            self.queue.entries = take_spare();
        }
        self.queue.entries.push_back((self.ticket, what));
    }

    /// Refuses an object of another DPA context than the one the values go to,
    /// before DOCA is called: its addresses and handles mean nothing there (or name
    /// something else). `what` names the object in the error, which names both
    /// contexts. Every [`KernelArg`](crate::KernelArg) of a DOCA object calls this.
    #[inline]
    pub fn check_context(&mut self, dpa: &Dpa, what: &'static str) -> crate::Result<()> {
        self.check_id(CtxId::of(dpa), what)
    }

    #[inline]
    pub(crate) fn check_id(&mut self, id: CtxId, what: &'static str) -> crate::Result<()> {
        match self.ctx {
            Some(ctx) if ctx == id => Ok(()),
            None => {
                self.ctx = Some(id);
                Ok(())
            }
            Some(ctx) => Err(foreign_context(self.call, what, id.serial, ctx.serial)),
        }
    }

    /// The context the recorded values were checked against, once one was.
    pub(crate) fn context(&self) -> Option<CtxId> {
        self.ctx
    }
}

#[cold]
fn foreign_context(call: &'static str, what: &'static str, theirs: u64, ours: u64) -> crate::Error {
    crate::Error::invalid(
        call,
        format!(
            "{what} belongs to DPA context #{theirs}, but the values go to DPA context #{ours}: \
             handles and addresses are only valid on their own context"
        ),
    )
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

    /// A recorder for submission `ticket` (tickets must not decrease) of values
    /// going to `ctx` (`None`: to the context of the first object recorded) through
    /// the DOCA function `call` (named when a value is refused).
    #[inline]
    pub(crate) fn recorder(
        &mut self,
        ticket: u64,
        ctx: Option<CtxId>,
        call: &'static str,
    ) -> Keep<'_> {
        Keep {
            queue: self,
            ticket,
            call,
            ctx,
            staged: false,
        }
    }

    /// Moves the references of a submission prepared in `staged` to the back of
    /// this queue, as those of submission `ticket` (tickets must not decrease).
    /// Allocates only when this queue outgrows its storage.
    #[inline]
    pub(crate) fn adopt(&mut self, staged: &mut Staged, ticket: u64) {
        if !staged.queue.entries.is_empty() {
            self.entries
                .extend(staged.queue.entries.drain(..).map(|(_, k)| (ticket, k)));
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

    /// Whether the oldest reference's submission is at or below `ticket`: there is
    /// something for [`KeepQueue::pop_through`] to take.
    #[inline]
    pub(crate) fn due(&self, ticket: u64) -> bool {
        matches!(self.entries.front(), Some((t, _)) if *t <= ticket)
    }

    /// Takes out the oldest reference if its submission is at or below `ticket`
    /// (finished): the caller drops it with no lock held, since a last reference's
    /// drop runs `tracing` (user code).
    pub(crate) fn pop_through(&mut self, ticket: u64) -> Option<KeepAlive> {
        match self.entries.front() {
            Some((t, _)) if *t <= ticket => self.entries.pop_front().map(|(_, k)| k),
            _ => None,
        }
    }

    /// Leaks everything still held (see [`bury`]).
    pub(crate) fn bury_all(&mut self) {
        if !self.entries.is_empty() {
            bury(std::mem::take(&mut self.entries));
        }
    }
}

/// Leaks a value on purpose (the core layer's graveyard, counted by
/// [`buried_count`](crate::buried_count)).
pub(crate) use crate::core::bury;

type Entries = VecDeque<(u64, KeepAlive)>;

thread_local! {
    /// The storage of the last [`Staged`] queue this thread dropped, for the next.
    static SPARE: std::cell::Cell<Entries> = const { std::cell::Cell::new(VecDeque::new()) };
}

/// The thread's spare storage (empty; a new one while the thread exits or when a
/// staged queue of this thread already holds it).
fn take_spare() -> Entries {
    SPARE.try_with(std::cell::Cell::take).unwrap_or_default()
}

/// The references of one submission while its arguments are lowered, before the
/// launcher takes them ([`KeepQueue::adopt`]).
///
/// A launch lowers its arguments (`KernelArg::lower`, user code) before it takes
/// the family's lock that guards the launcher's queue, so they record into a queue of
/// their own. Its storage is the submitting thread's spare one, taken with the
/// first reference recorded (a launch that references nothing touches no
/// thread-local) and given back on drop: steady-state launches allocate nothing.
/// What it still holds when dropped (a submission refused before the device saw
/// it) is released there, by the submitting code, with no lock held.
///
/// The queue is never dropped as such: with no storage it holds nothing to free
/// (and its drop would be a call on every launch), and with storage its contents
/// are released and the storage recycled.
#[derive(Debug, Default)]
pub(crate) struct Staged {
    queue: std::mem::ManuallyDrop<KeepQueue>,
}

impl Staged {
    /// A recorder for the values of one submission going to `ctx` through the DOCA
    /// function `call` (named when a value is refused).
    #[inline]
    pub(crate) fn recorder(&mut self, ctx: Option<CtxId>, call: &'static str) -> Keep<'_> {
        Keep {
            queue: &mut self.queue,
            ticket: 0,
            call,
            ctx,
            staged: true,
        }
    }

    /// Whether nothing was recorded. Then it holds no storage either (storage
    /// is taken with the first reference), and dropping it does nothing.
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.queue.entries.is_empty()
    }

    /// Releases what is left and gives the storage back to the thread.
    fn recycle(&mut self) {
        let mut entries = std::mem::take(&mut self.queue.entries);
        entries.clear();
        // While the thread exits the storage is freed instead.
        let _ = SPARE.try_with(|s| s.set(entries));
    }
}

impl Drop for Staged {
    #[inline]
    fn drop(&mut self) {
        if self.queue.entries.capacity() != 0 {
            self.recycle();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retiring_drops_only_finished_submissions() {
        let a = Arc::new(1u8);
        let b = Arc::new(2u8);
        let mut q = KeepQueue::default();
        q.recorder(1, None, "test").keep(KeepAlive::new(&a));
        q.recorder(2, None, "test").keep(KeepAlive::new(&b));
        q.recorder(2, None, "test").keep(KeepAlive::new(&a));
        assert_eq!(Arc::strong_count(&a), 3);
        while q.pop_through(1).is_some() {}
        assert_eq!((Arc::strong_count(&a), Arc::strong_count(&b)), (2, 2));
        q.truncate(1);
        assert_eq!(Arc::strong_count(&a), 1);
        while q.pop_through(5).is_some() {}
        assert_eq!((q.len(), Arc::strong_count(&b)), (0, 1));
    }

    #[test]
    fn buried_values_are_never_dropped() {
        let a = Arc::new(7u32);
        let before = crate::buried_count();
        let mut q = KeepQueue::default();
        q.recorder(1, None, "test").keep(KeepAlive::new(&a));
        q.bury_all();
        assert_eq!(q.len(), 0);
        assert_eq!(
            Arc::strong_count(&a),
            2,
            "the buried reference still holds it"
        );
        assert!(crate::buried_count() > before);
    }
}
