//! Shared by the integration tests: the tests' DPA application and device
//! selection. The tests are backend-agnostic: on a BlueField runner they use
//! the device named by `DOCA_TEST_DEVICE` (PCI address or IB device name), or
//! the first one with a DPA.
#![allow(dead_code)]

use std::collections::BTreeMap;

use doca::dpa::{Device, Dpa};

// The kernels of `tests/kernels/` (`--app-name=doca_tests`), built and declared
// from their C prototypes by the doca-test-kernels package.
pub(crate) use doca_test_kernels::doca_tests;

/// How long the tests wait for an RPC that returns (far above its run time, even
/// under valgrind).
pub(crate) const RPC_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// Waits, for at most `limit`, until the context families' reapers have let go of
/// every deferred record in the process (what stopped DPA threads and timed-out
/// RPCs kept: released, or buried on a fatal context, once the kernel run-time
/// limit has passed since); whether they all went. Tests only: a program needs no
/// call for it, the reapers run on their own.
pub(crate) fn deferred_released(limit: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + limit;
    while doca::dpa::deferred_count() != 0 {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    true
}

/// The device under test.
pub(crate) fn device() -> Device {
    let opened = match std::env::var("DOCA_TEST_DEVICE") {
        Ok(name) if name.contains(':') => Device::open_by_pci(&name),
        Ok(name) => Device::open_by_ibdev_name(&name),
        Err(_) => Device::open_first_with_dpa(),
    };
    opened.expect("no DPA device: set DOCA_TEST_DEVICE or run on the sim")
}

/// Makes the software DPA show this test process a BlueField's Arm side (in sim
/// builds): `doca::sim::Profile::dpu_view()`, whose PF lists the network
/// representors DOCA RDMI connections are made for. Its default profile is the
/// host's view, which has none. On hardware the runner is what it is, and this
/// does nothing.
pub(crate) fn on_the_dpu_side() {
    #[cfg(doca_backend = "sim")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| doca::sim::set_global_profile(doca::sim::Profile::dpu_view()));
    }
}

/// The local storage of `sound_slow_thread`, 8 words, which DOCA hands the thread
/// untyped (`doca_dpa_dev_thread_get_local_storage`).
pub(crate) fn slow_storage(
    storage: &doca::dpa::DpaBuffer<u64>,
) -> doca::dpa::Untyped<&doca::dpa::DpaBuffer<u64>> {
    assert!(storage.len() >= 8, "sound_slow_thread writes 8 words");
    // SAFETY: `sound_slow_thread` (tests/kernels/soundness.c) only writes the first 8
    // `uint64_t` words of its local storage, and the buffer holds at least 8.
    unsafe { doca::dpa::Untyped::new(storage) }
}

/// A started context running the tests' app.
pub(crate) fn dpa() -> Dpa {
    Dpa::start(&device(), doca_tests::app()).expect("starting the DPA context")
}

/// Whether this process runs under valgrind (`scripts/valgrind.sh` runs the
/// integration tests), which makes everything ~50x slower and runs one
/// thread at a time.
pub(crate) fn under_valgrind() -> bool {
    std::fs::read_to_string("/proc/self/maps")
        .map(|m| m.contains("vgpreload"))
        .unwrap_or(false)
}

/// The software DPA's live-object accounting for one test (`doca::sim::Scope`), in
/// sim builds. A hardware build has no doca-sim at all (it must not link it), so
/// there every answer is `None`: the tests check the accounting where it exists.
pub(crate) struct LiveObjects {
    #[cfg(doca_backend = "sim")]
    scope: doca::sim::Scope,
}

impl LiveObjects {
    /// Starts accounting (a new sim scope) in sim builds.
    pub(crate) fn new() -> LiveObjects {
        LiveObjects {
            #[cfg(doca_backend = "sim")]
            scope: doca::sim::Scope::new(),
        }
    }

    /// The live objects by kind, on the sim.
    pub(crate) fn all(&self) -> Option<BTreeMap<&'static str, i64>> {
        #[cfg(doca_backend = "sim")]
        return Some(self.scope.live_objects());
        #[cfg(not(doca_backend = "sim"))]
        None
    }

    /// How many objects live, on the sim.
    pub(crate) fn total(&self) -> Option<i64> {
        #[cfg(doca_backend = "sim")]
        return Some(self.scope.live_total());
        #[cfg(not(doca_backend = "sim"))]
        None
    }

    /// The sim's scope itself, for its other hooks (sim builds only).
    #[cfg(doca_backend = "sim")]
    pub(crate) fn scope(&self) -> &doca::sim::Scope {
        &self.scope
    }
}

/// The message of [`PanickingSubscriber`]'s panics (a panic hook can keep them quiet).
pub(crate) const SUBSCRIBER_PANIC: &str = "a tracing subscriber that panics";

/// A `tracing` subscriber whose first event at `level` or above panics: user code
/// that the library's paths (teardown included) reach. Once only, and never while a
/// panic unwinds (a second panic would abort the process, which would be the
/// subscriber's doing).
pub(crate) struct PanickingSubscriber;

impl PanickingSubscriber {
    pub(crate) fn at(
        level: tracing::Level,
    ) -> Reentrant<impl Fn(&tracing::Event<'_>) + Send + Sync + 'static> {
        let fired = std::sync::atomic::AtomicBool::new(false);
        Reentrant::new(move |e| {
            if *e.metadata().level() <= level
                && !std::thread::panicking()
                && !fired.swap(true, std::sync::atomic::Ordering::Relaxed)
            {
                panic!("{SUBSCRIBER_PANIC} on {}", e.metadata().target());
            }
        })
    }
}

/// A `tracing` subscriber that runs `f` on every event (user code that re-enters
/// the library from wherever the library emits one), not from within itself: one
/// whose `f` panicked delivers no more events.
pub(crate) struct Reentrant<F: Fn(&tracing::Event<'_>) + Send + Sync + 'static> {
    f: F,
    busy: std::sync::atomic::AtomicBool,
}

impl<F: Fn(&tracing::Event<'_>) + Send + Sync + 'static> Reentrant<F> {
    pub(crate) fn new(f: F) -> Reentrant<F> {
        Reentrant {
            f,
            busy: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl<F: Fn(&tracing::Event<'_>) + Send + Sync + 'static> tracing::Subscriber for Reentrant<F> {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, e: &tracing::Event<'_>) {
        // Not recursively: the re-entered calls emit events of their own.
        if !self.busy.swap(true, std::sync::atomic::Ordering::AcqRel) {
            (self.f)(e);
            self.busy.store(false, std::sync::atomic::Ordering::Release);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

/// One case at a time, across the suites' cases that use it: some crowd the
/// CPUs, and the sim's profile is per scope.
pub(crate) fn serial() -> std::sync::MutexGuard<'static, ()> {
    static ONE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `case` on a thread of its own and fails if it does not finish within
/// `limit` (a deadlock or hang: the thread is left behind, the test fails); a
/// panic of the case is the test's.
pub(crate) fn within<T: Send + 'static>(
    limit: std::time::Duration,
    what: &str,
    case: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name(format!("case: {what}"))
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(case));
            let _ = tx.send(r);
        })
        .expect("spawning the case's thread");
    match rx.recv_timeout(limit) {
        Ok(Ok(v)) => v,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("HANG: `{what}` did not finish within {limit:?} (deadlock?)"),
    }
}
