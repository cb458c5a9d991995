//! A DPA context family: a base DPA context, the contexts that extend it
//! ([`Dpa::extend`]) and every object made on them. What the family's members
//! share lives here (`docs/concurrency.md` states the whole model):
//!
//! - the family's guard: one lock [`Domain`] whose lock every DOCA call on a
//!   member is made under (the members' pointers are reachable through it only:
//!   `core/guard.rs`), marked busy while a `doca_dpa_rpc` of the family runs
//!   outside it, so that no other call on the contexts or what is made on them
//!   overlaps the RPC; and the RPC gate (`rpc_gate.rs`), which runs the family's
//!   RPCs one at a time on its RPC thread;
//! - the family's deferred records, and the reaper thread that releases them.
//!
//! # Deferred records
//!
//! Some of what the device may still use cannot be released where its owner
//! lets go of it:
//!
//! - what a stopped DPA thread used ([`defer`]): DOCA has no call that says an
//!   activation of a stopped thread ended (`doca_dpa_thread_stop` only makes it
//!   no longer runnable). What bounds it is the device's kernel run-time limit
//!   (`doca_dpa_get_kernel_max_run_time`): device code still running past it
//!   makes the context fatal. So once the limit, and [`RELEASE_MARGIN`], have
//!   passed since the stop and the context is healthy, every activation has
//!   ended and the record is released; a fatal context gets it buried. The same
//!   holds for the arguments of an RPC that timed out (its function may still
//!   run) and for the values a [`DpaBox`](crate::DpaBox) replaced.
//! - an object of the family dropped by a thread that holds the family's lock
//!   while the family is busy with an RPC ([`Member`]): its teardown would have
//!   to wait for the RPC with the lock held. It is handed to the family and torn
//!   down once no RPC is in progress. (The library never drops a member under
//!   its lock, and a [`FamilyGuard`](crate::FamilyGuard) is never held while the
//!   family is busy; this is the net under both.)
//!
//! The limit is per device: an extended context's threads run under its own
//! device's limit ([`Dpa::extend`] queries it). A limit of 0 means the device
//! has none (doca-sim's profiles say so; DOCA reports whole seconds, and a
//! device that stops no kernel reports 0): nothing then bounds a stopped
//! thread's last activation, so its record is kept for as long as the process
//! runs — with the context, which what it keeps holds — and counted by
//! [`buried_count`](crate::buried_count).
//!
//! The facts state the limit for kernels; that it bounds each thread activation
//! too is the software DPA's *model choice* (doca-sim's `run_activations`),
//! which this library relies on for threads as well until a BlueField run
//! confirms it. (If it does not hold there, the remedy is to treat every device
//! as one without a limit.)
//!
//! The records belong to the family, and the family's reaper — a host thread of
//! its own, started by the first record and ended once none is left — releases
//! each when it is due, whatever the program does meanwhile: nothing has to
//! make another object, and no hidden call is needed, for a dropped context to
//! be torn down once its last record went.

use std::any::Any;
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::core::{Domain, Kind};
use crate::dpa::Dpa;
use crate::rpc_gate::RpcGate;

/// How long after the kernel run-time limit a deferred record waits before the
/// context's health is asked. The device's verdict on an activation that ran past
/// the limit (the context turning fatal) comes from a watchdog that looks now and
/// then — doca-sim's every 5 ms, and at a stopped thread's deadline; the DPA's own
/// delay is not documented — so a look made as the limit passes could find a
/// context still healthy that is about to turn fatal. 50 ms is ten of the sim's
/// watchdog ticks, and short beside every limit a device reports (whole seconds).
pub(crate) const RELEASE_MARGIN: Duration = Duration::from_millis(50);

/// How soon a record whose release had to wait (an RPC of the family in
/// progress, its health unknown) is looked at again.
const RETRY_AFTER: Duration = Duration::from_millis(10);

/// What a base context and the contexts extending it share.
#[derive(Debug)]
pub(crate) struct Family {
    /// The family's guard: its lock, and its busy mark while an RPC runs.
    pub(crate) domain: Domain,
    /// The family's RPC gate.
    pub(crate) gate: RpcGate,
    /// The family's deferred records and its reaper.
    reaper: Arc<Reaper>,
}

/// One deferred record.
struct Record {
    /// The context whose device may use what the record keeps.
    dpa: Dpa,
    /// When it may go.
    due: Instant,
    /// What to do then.
    release: Release,
    what: Box<dyn Any + Send>,
}

/// How a record is let go of once due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Release {
    /// Released if the context is healthy, buried if it is fatal (what a stopped
    /// thread, a timed-out RPC or a replaced box value kept).
    IfHealthy,
    /// Dropped once no RPC of the family is in progress (a family object whose
    /// drop came under the family's lock during an RPC).
    OutsideRpc,
}

/// The records of one family, and whether its reaper thread runs.
#[derive(Default)]
struct Records {
    list: Vec<Record>,
    reaper_running: bool,
}

/// The family's deferred records and the thread that releases them. The thread
/// holds the `Reaper` while it runs, and ends once no record is left: a family
/// (whose records hold its contexts) never waits for it, so the thread may drop
/// a family's last context itself.
#[derive(Default)]
struct Reaper {
    records: Mutex<Records>,
    /// Signalled when a record is added (the next due time may be earlier).
    added: Condvar,
}

impl std::fmt::Debug for Reaper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let records = self.lock();
        f.debug_struct("Reaper")
            .field("records", &records.list.len())
            .field("running", &records.reaper_running)
            .finish()
    }
}

/// Records waiting in every family of the process (for tests).
static DEFERRED: AtomicUsize = AtomicUsize::new(0);

/// The reapers whose thread runs. Its records stay reachable from a static while
/// they wait (a leak checker at the process's exit, which may not look at a
/// sleeping thread's stack, reports them as still reachable, not lost).
static RUNNING: Mutex<Vec<Arc<Reaper>>> = Mutex::new(Vec::new());

fn running() -> MutexGuard<'static, Vec<Arc<Reaper>>> {
    RUNNING.lock().unwrap_or_else(|p| p.into_inner())
}

/// Number of deferred records waiting in every family of the process (for tests:
/// a stopped thread's record waits for the run-time limit).
#[doc(hidden)]
pub fn deferred_count() -> usize {
    DEFERRED.load(Ordering::Acquire)
}

impl Reaper {
    /// The records. A poisoned list is still whole: it is only pushed to and
    /// split under the lock, which runs no user code.
    fn lock(&self) -> MutexGuard<'_, Records> {
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a record, starting the reaper thread if none runs. Runs no user code
    /// (a failure to start the thread is reported by the caller's `report`).
    fn add(self: &Arc<Self>, record: Record) -> Option<std::io::Error> {
        DEFERRED.fetch_add(1, Ordering::AcqRel);
        let mut records = self.lock();
        records.list.push(record);
        if records.reaper_running {
            self.added.notify_one();
            return None;
        }
        let reaper = self.clone();
        match std::thread::Builder::new()
            .name("doca-dpa-reaper".into())
            .spawn(move || reaper.run())
        {
            Ok(_) => {
                records.reaper_running = true;
                running().push(self.clone());
                None
            }
            // The record stays: the next one added starts the thread again.
            Err(e) => Some(e),
        }
    }

    /// The reaper thread: releases each record once due, sleeping until the
    /// earliest; ends once none is left.
    fn run(self: Arc<Self>) {
        let mut records = self.lock();
        loop {
            let now = Instant::now();
            let Some(next) = records.list.iter().map(|r| r.due).min() else {
                // Under the records' lock (as `add` pushes), so that a thread
                // started after this one ends is not taken out with it.
                records.reaper_running = false;
                running().retain(|r| !Arc::ptr_eq(r, &self));
                return;
            };
            if next > now {
                records = self
                    .added
                    .wait_timeout(records, next - now)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
                continue;
            }
            let (due, waiting): (Vec<Record>, Vec<Record>) = std::mem::take(&mut records.list)
                .into_iter()
                .partition(|r| r.due <= now);
            records.list = waiting;
            drop(records);
            self.release(due);
            records = self.lock();
        }
    }

    /// Judges every due record, then lets go of the judged ones with no lock held
    /// (a drop runs user code: `tracing`, which may panic — caught here, so that
    /// the family's thread goes on — or defer more records).
    fn release(&self, due: Vec<Record>) {
        let mut retry = Vec::new();
        let mut release = Vec::new();
        let mut fatal = 0usize;
        for record in due {
            match record.release {
                // Asked without waiting: a record of a context whose RPC runs waits.
                Release::IfHealthy => match record.dpa.try_health() {
                    Some(Ok(crate::Health::Ok)) => release.push(record),
                    Some(Ok(crate::Health::Fatal)) => {
                        fatal += 1;
                        crate::core::bury((record.dpa, record.what));
                    }
                    None | Some(Err(_)) => retry.push(record),
                },
                Release::OutsideRpc if record.dpa.family().domain.is_busy() => retry.push(record),
                Release::OutsideRpc => release.push(record),
            }
        }
        DEFERRED.fetch_sub(fatal, Ordering::AcqRel);
        if !retry.is_empty() {
            let at = Instant::now() + RETRY_AFTER;
            for r in &mut retry {
                r.due = at;
            }
            self.lock().list.append(&mut retry);
        }
        let released = release.len();
        for record in release {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(record)));
        }
        // Counted out once gone, so that a count of 0 means released.
        DEFERRED.fetch_sub(released, Ordering::AcqRel);
        if fatal > 0 {
            let _ = std::panic::catch_unwind(|| {
                tracing::warn!(
                    target: "doca_dpa::thread",
                    records = fatal,
                    "a context turned fatal before the run-time limit passed since a DPA \
                     thread's stop (or an RPC's timeout): what the device may still use is \
                     leaked, not freed"
                )
            });
        }
    }
}

impl Family {
    /// A new family (of a base context being started).
    pub(crate) fn new() -> Family {
        let domain = Domain::new(Kind::Family);
        Family {
            gate: RpcGate::default(),
            domain,
            reaper: Arc::default(),
        }
    }

    fn add(&self, record: Record) -> Option<std::io::Error> {
        self.reaper.add(record)
    }
}

/// What [`defer`] did with a record: report it once nothing of the device's is
/// left in the caller's frame (a `tracing` event is user code, which may unwind).
#[must_use]
pub(crate) enum Deferred {
    /// The family holds it.
    Held,
    /// The device has no run-time limit: kept for good.
    Kept,
    /// The family holds it, but its reaper thread could not be started (the next
    /// record tries again).
    NoReaper(std::io::Error),
}

impl Deferred {
    /// Logs what needs saying.
    pub(crate) fn report(self) {
        match self {
            Deferred::Held => {}
            Deferred::Kept => tracing::warn!(
                target: "doca_dpa::thread",
                "the device has no kernel run-time limit, so nothing bounds a stopped DPA \
                 thread's last activation (or a timed-out RPC): what it may use is kept for \
                 as long as the process runs, and so is its context"
            ),
            Deferred::NoReaper(e) => tracing::warn!(
                target: "doca_dpa::thread",
                error = %e,
                "the DPA context family's reaper thread could not be started: deferred \
                 records wait for the next one"
            ),
        }
    }
}

/// Holds `what` until no activation of a thread stopped now (or a function of an
/// RPC that timed out now) can run on `dpa`'s device: the device's kernel run-time
/// limit plus [`RELEASE_MARGIN`] from now, with the context healthy (see the
/// module's docs). Runs no user code.
pub(crate) fn defer<T: Any + Send>(dpa: &Dpa, what: T) -> Deferred {
    let Some(limit) = dpa.run_time_limit() else {
        crate::core::bury((dpa.clone(), what));
        return Deferred::Kept;
    };
    let record = Record {
        dpa: dpa.clone(),
        due: Instant::now() + limit + RELEASE_MARGIN,
        release: Release::IfHealthy,
        what: Box::new(what),
    };
    match dpa.family().add(record) {
        None => Deferred::Held,
        Some(e) => Deferred::NoReaper(e),
    }
}

/// Whether a drop of an object of `dpa`'s family must be put off: it comes from a
/// thread that holds the family's lock while the family is busy with an RPC,
/// where its teardown could not wait for the RPC. (While this thread holds the
/// lock no RPC can begin: an RPC marks itself under it.)
pub(crate) fn must_put_off(dpa: &Dpa) -> bool {
    let domain = &dpa.family().domain;
    domain.held_here() && domain.is_busy()
}

/// An object of a context family whose drop makes DOCA calls under the family's
/// guard (its teardown): how every such object is owned.
///
/// Dropped where it is, unless that is on a thread that holds the family's lock
/// while an RPC of the family is in progress: then it is handed to the family,
/// whose reaper drops it once no RPC is in progress — released later, not
/// leaked. Objects made on a [`Dpa`] (by this crate or another: doca-rdmi, DOCA
/// RDMA) hold their raw objects as [`Owned`](crate::core::Owned) handles or
/// [`Raw`](crate::core::Raw)s of the family's domain ([`Dpa::domain`]), make
/// their DOCA calls under [`Dpa::with_ctx`] (or any
/// [`FamilyGuard`](crate::FamilyGuard) of the family), and hold their state in a
/// `Member` (`docs/concurrency.md`).
#[doc(hidden)]
pub struct Member<T: FamilyMember> {
    value: ManuallyDrop<T>,
}

/// What a [`Member`] holds: state whose drop tears down an object of the family
/// of [`FamilyMember::family_of`].
///
/// A safe trait on purpose, trusted for nothing that soundness needs: its answer only
/// decides whether a drop is made at once or handed to that family's reaper. A wrong
/// answer cannot make a DOCA call escape a guard: the object's raw pointer is reached
/// only through a guard of its own domain ([`Raw`](crate::core::Raw)), and a teardown
/// that cannot enter its family (an RPC in progress on a thread holding the lock) is
/// refused and buries the object, never frees it (`docs/concurrency.md`).
#[doc(hidden)]
pub trait FamilyMember: Send + 'static {
    /// A context of the object's family.
    fn family_of(&self) -> &Dpa;
}

impl<T: FamilyMember> Member<T> {
    /// Owns `value`.
    pub fn new(value: T) -> Member<T> {
        Member {
            value: ManuallyDrop::new(value),
        }
    }
}

impl<T: FamilyMember> std::ops::Deref for Member<T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: FamilyMember> std::ops::DerefMut for Member<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T: FamilyMember + std::fmt::Debug> std::fmt::Debug for Member<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.value.fmt(f)
    }
}

impl<T: FamilyMember> Drop for Member<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; `value` is not used again.
        let value = unsafe { ManuallyDrop::take(&mut self.value) };
        if !must_put_off(value.family_of()) {
            return drop(value);
        }
        let dpa = value.family_of().clone();
        drop_outside_rpc(&dpa, value);
    }
}

/// Hands `what` to the family of `dpa`, whose reaper drops it once no RPC of the
/// family is in progress (for a drop that [`must_put_off`]). A failure to start
/// the reaper is reported there: user code, but nothing of the device's is in
/// the caller's frame any more.
pub(crate) fn drop_outside_rpc<T: Any + Send>(dpa: &Dpa, what: T) {
    let record = Record {
        dpa: dpa.clone(),
        due: Instant::now(),
        release: Release::OutsideRpc,
        what: Box::new(what),
    };
    if let Some(e) = dpa.family().add(record) {
        Deferred::NoReaper(e).report();
    }
}
