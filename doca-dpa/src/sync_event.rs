//! Sync events in the three shapes the DPA samples use:
//!
//! | type | publisher | subscriber | for |
//! |---|---|---|---|
//! | [`WaitEvent`] | host CPU | DPA | holding a kernel until the host releases it |
//! | [`CompletionEvent`] | DPA | host CPU | telling the host a kernel finished |
//! | [`KernelEvent`] | DPA | DPA | kernels signalling each other |
//! | [`SignalEvent`] | an RDMA peer (remote net) | host CPU | a peer's kernels telling this host something |
//!
//! Each is created, configured and started in one call and stopped and
//! destroyed on drop (after everything that borrows it).

use std::ptr::NonNull;
use std::time::{Duration, Instant};

use doca_dpa_sys as sys;

use std::sync::Arc;

use crate::app::{param, KernelArg};
use crate::core::{Anytime, Held, Raw};
use crate::dpa::{Dpa, FamilyGuard};
use crate::engine::Engine;
use crate::error::{doca_call, Error, Result};
use crate::keep::{Keep, KeepAlive};
use crate::wait_task::Waiter;

/// What an [`Event::waiter`] error names: the event itself, or a launch (whose
/// launcher's completion event it is).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Awaited {
    Event,
    Launch,
}

/// What the three event types share.
///
/// The event is an object of its context's family, of access
/// [`Anytime`](crate::core::Anytime): DOCA calls it by its own handle, so its
/// calls (`get`, `set`, `add`) take the family's lock without waiting for an RPC
/// of the family — a `set` may be what the RPC's function waits for. (Its
/// context and wait task, when made with an [`Engine`], are the engine's:
/// `wait_task.rs`.)
#[derive(Debug)]
pub(crate) struct Event {
    raw: Raw<sys::doca_sync_event, Anytime>,
    dpa: Dpa,
    handle: Option<u64>,
    started: bool,
    /// When made with an [`Engine`]: the event runs as a context with a wait task.
    waiter: Option<Waiter>,
}

static_assertions::assert_impl_all!(Event: Send, Sync);

/// Which locations an event gets.
#[derive(Clone, Copy)]
enum Recipe {
    HostToKernel,
    KernelToHost,
    KernelToKernel,
    RemoteToHost,
}

impl Event {
    fn new(dpa: &Dpa, recipe: Recipe, export: bool, engine: Option<&Engine>) -> Result<Event> {
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        unsafe { doca_call!(doca_sync_event_create(&mut raw)) }?;
        let ptr = NonNull::new(raw)
            .ok_or_else(|| Error::invalid("doca_sync_event_create", "DOCA returned NULL"))?;
        // From here the event is owned: an early return destroys it.
        let mut event = Event {
            // SAFETY: the new event, whose calls are its context's family's.
            raw: unsafe { dpa.domain().raw(ptr) },
            dpa: dpa.clone(),
            handle: None,
            started: false,
            waiter: None,
        };
        // The DPA locations name the context: made under the family's guard (when
        // no RPC of it runs), the CPU ones under the device's lock too.
        dpa.with_ctx(|d, g| {
            let e = event.raw.get(g);
            let device = dpa.device().lock();
            let dev = dpa.device().as_ptr(&device);
            match recipe {
                Recipe::HostToKernel => {
                    // SAFETY: as above: an idle event, a started DPA context and its open device.
                    unsafe { doca_call!(doca_sync_event_add_publisher_location_cpu(e, dev)) }?;
                    // SAFETY: as above: an idle event, a started DPA context and its open device.
                    unsafe { doca_call!(doca_sync_event_add_subscriber_location_dpa(e, d)) }
                }
                Recipe::KernelToHost => {
                    // SAFETY: as above: an idle event, a started DPA context and its open device.
                    unsafe { doca_call!(doca_sync_event_add_publisher_location_dpa(e, d)) }?;
                    // SAFETY: as above: an idle event, a started DPA context and its open device.
                    unsafe { doca_call!(doca_sync_event_add_subscriber_location_cpu(e, dev)) }
                }
                Recipe::KernelToKernel => {
                    // SAFETY: as above: an idle event, a started DPA context and its open device.
                    unsafe { doca_call!(doca_sync_event_add_publisher_location_dpa(e, d)) }?;
                    // SAFETY: as above: an idle event, a started DPA context and its open device.
                    unsafe { doca_call!(doca_sync_event_add_subscriber_location_dpa(e, d)) }
                }
                Recipe::RemoteToHost => {
                    // SAFETY: as above: an idle event.
                    unsafe { doca_call!(doca_sync_event_add_publisher_location_remote_net(e)) }?;
                    // SAFETY: as above: an idle event and the context's open device.
                    unsafe { doca_call!(doca_sync_event_add_subscriber_location_cpu(e, dev)) }
                }
            }
        })?;
        match engine {
            // Driven as a context: started by `doca_ctx_start`.
            Some(engine) => match Waiter::start(&event.raw, dpa, engine) {
                Ok(w) => event.waiter = Some(w),
                Err((partial, err)) => {
                    event.waiter = partial.map(|w| *w);
                    return Err(err);
                }
            },
            None => {
                event.raw.with(|e, _| {
                    // SAFETY: a configured event, under its family's lock.
                    unsafe { doca_call!(doca_sync_event_start(e)) }
                })??;
                event.started = true;
            }
        }
        if export {
            let mut h = 0;
            // SAFETY: a started event with this DPA as a location, under the
            // family's guard.
            dpa.with_ctx(|d, g| unsafe {
                doca_call!(doca_sync_event_get_dpa_handle(event.raw.get(g), d, &mut h))
            })?;
            event.handle = Some(h);
        }
        Ok(event)
    }

    /// The event, for DOCA calls made while `held` (of its family) lives.
    #[inline(always)]
    pub(crate) fn as_ptr(&self, held: &Held<'_>) -> *mut sys::doca_sync_event {
        self.raw.get(held)
    }

    pub(crate) fn dpa(&self) -> &Dpa {
        &self.dpa
    }

    /// The launcher's completion event: DPA publisher, CPU subscriber, no DPA handle;
    /// awaitable when made with an engine.
    pub(crate) fn completion(dpa: &Dpa, engine: Option<&Engine>) -> Result<Event> {
        Event::new(dpa, Recipe::KernelToHost, false, engine)
    }

    /// The wait task side, when made with an engine; `awaited` says what the
    /// error names (this event, or the launch whose launcher owns it).
    pub(crate) fn waiter(&self, awaited: Awaited) -> Result<&Waiter> {
        self.waiter.as_ref().ok_or_else(|| match awaited {
            Awaited::Event => Error::Unavailable {
                what: "awaiting this event",
                reason: "it was made without an engine: make it with \
                         `CompletionEvent::with_engine(&dpa, export, &engine)`, where \
                         `let engine = Engine::new()?;` (one per program is enough), or wait \
                         with `event.wait_gt(threshold, timeout)`"
                    .to_owned(),
            },
            Awaited::Launch => Error::Unavailable {
                what: "awaiting this launch",
                reason: "its launcher was made without an engine: make it with \
                         `Launcher::with_engine(&dpa, &engine)`, where \
                         `let engine = Engine::new()?;` (one per program is enough), or wait \
                         with `launch.wait(timeout)`"
                    .to_owned(),
            },
        })
    }

    /// Arms the wait task, when the event has one, so that the engine's handle also
    /// wakes a wait pausing on another event of the engine once this one leaves
    /// `seen`.
    pub(crate) fn watch(&self, seen: u64) -> Result<()> {
        match &self.waiter {
            Some(w) => w.arm(seen),
            None => Ok(()),
        }
    }

    /// One pause of a host wait that saw `seen`: sleeping on the engine's handle
    /// when the event has one, else the spin-yield-sleep `backoff`.
    pub(crate) fn pause(&self, backoff: &mut Backoff, seen: u64) -> Result<()> {
        match &self.waiter {
            Some(w) => {
                backoff.sleeping();
                if let Err(e) = w.sleep(seen, Backoff::SLEEP_SLICE) {
                    // The launches still complete: a failed re-arm or notification
                    // request must not end a wait (or make a drop leak) that the
                    // backoff can finish.
                    tracing::debug!(target: "doca_dpa::sync_event", error = %e, "the engine's wait failed; backing off instead");
                    backoff.pause();
                }
                Ok(())
            }
            None => {
                backoff.pause();
                Ok(())
            }
        }
    }

    fn handle(&self) -> Result<u64> {
        self.handle.ok_or_else(|| {
            Error::invalid(
                "doca_sync_event_get_dpa_handle",
                "the event was made with `Export::No`, so it has no DPA handle; make it with \
                 `Export::ToDpa` to pass it to a kernel or a `Dev`",
            )
        })
    }

    /// Passes the event to a kernel, keeping it alive.
    fn lower(this: &Arc<Event>, keep: &mut Keep<'_>) -> Result<u64> {
        keep.check_context(&this.dpa, "the sync event")?;
        let h = this.handle()?;
        keep.keep(KeepAlive::new(this));
        Ok(h)
    }

    /// `doca_sync_event_get`, under the family's lock.
    #[inline]
    pub(crate) fn get(&self) -> Result<u64> {
        let held = self.raw.domain().lock();
        self.get_locked(&held)
    }

    /// `doca_sync_event_get` by a thread that holds the family's lock (`held`),
    /// which it does not take again.
    #[inline(always)]
    pub(crate) fn get_locked(&self, held: &Held<'_>) -> Result<u64> {
        let mut v = 0;
        // SAFETY: a started event, under its family's lock (`held`); valid
        // out-pointer.
        let rc = unsafe { sys::doca_sync_event_get(self.as_ptr(held), &mut v) };
        crate::error::check("doca_sync_event_get", rc)?;
        Ok(v)
    }

    fn set(&self, value: u64) -> Result<()> {
        self.raw.with(|e, _| {
            // SAFETY: a started event, under its family's lock.
            unsafe { doca_call!(doca_sync_event_update_set(e, value)) }
        })?
    }

    fn add(&self, value: u64) -> Result<u64> {
        let mut before = 0;
        // SAFETY: a started event, under its family's lock; valid out-pointer.
        self.raw.with(|e, _| unsafe {
            doca_call!(doca_sync_event_update_add(e, value, &mut before))
        })??;
        Ok(before)
    }

    /// Polls until `value > threshold`, the context turns fatal, or `timeout`.
    /// Refused on a thread that holds the family's lock (inside a
    /// [`FamilyGuard`]), as `Launch::wait` and `Dpa::rpc` are: what would update
    /// the event (a `set` from another thread) needs that lock.
    fn wait_gt(&self, threshold: u64, timeout: Duration) -> Result<u64> {
        if self.raw.domain().held_here() {
            return Err(held_while_waiting("a blocking wait on a sync event"));
        }
        let deadline = Instant::now().checked_add(timeout);
        let mut backoff = Backoff::new();
        loop {
            let v = self.get()?;
            if v > threshold {
                return Ok(v);
            }
            if backoff.should_check_health() {
                self.dpa.ensure_healthy("doca_sync_event_get")?;
            }
            if backoff.should_check_clock() && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(Error::WaitTimeout {
                    waited: timeout,
                    reason: format!("the event stayed at {v}, not above {threshold}"),
                });
            }
            self.pause(&mut backoff, v)?;
        }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        if let Some(w) = &mut self.waiter {
            // The stop drives the engine, which wakes wakers and reports through
            // `tracing` (user code that may panic): caught, so that what the
            // device may still use is buried before the panic goes on.
            let torn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.teardown()));
            if !matches!(torn, Ok(true)) {
                // Its context may still complete a task: keep the event, and with
                // it what must outlive it (the DPA context it has as a location,
                // the engine its context is connected to).
                crate::keep::bury((self.dpa.clone(), self.waiter.take()));
                if let Err(panic) = torn {
                    std::panic::resume_unwind(panic);
                }
                return;
            }
        }
        let started = self.started;
        let torn = self.raw.with(|e, _| {
            // SAFETY: our started event, stopped once, under its family's lock.
            let stopped = started.then(|| unsafe { doca_call!(doca_sync_event_stop(e)) });
            // SAFETY: our event, destroyed once, under its family's lock.
            (stopped, unsafe { doca_call!(doca_sync_event_destroy(e)) })
        });
        let (stopped, destroyed) = torn.unwrap_or_else(|e| (None, Err(e)));
        // Reported with the lock released (a `tracing` subscriber is user code).
        if let Some(Err(e)) = stopped {
            tracing::warn!(target: "doca_dpa::sync_event", error = %e, "doca_sync_event_stop failed during drop");
        }
        if let Err(e) = destroyed {
            tracing::warn!(target: "doca_dpa::sync_event", error = %e, "doca_sync_event_destroy failed during drop");
        }
    }
}

/// How a host thread waits for the DPA: spin first (completions usually
/// arrive within microseconds), then yield, then sleep in growing steps, and
/// look at the context's health now and then.
///
/// The spin is short (64 polls, a few µs) because the thread that completes
/// the work may need this core: the sim's EU threads are host threads, and
/// on a busy host (or one with two cores) they run only when the waiter
/// yields. Yielding costs a system call when nothing else is runnable.
pub(crate) struct Backoff {
    round: u32,
}

impl Backoff {
    const SPIN_ROUNDS: u32 = 64;
    const YIELD_ROUNDS: u32 = 2_200;
    const HEALTH_EVERY: u32 = 256;
    /// How long a wait that sleeps on an engine's handle sleeps before it looks at
    /// the clock and the context's health again.
    pub(crate) const SLEEP_SLICE: Duration = Duration::from_millis(10);

    /// The wait sleeps (on an engine's handle): every round checks health and clock.
    pub(crate) fn sleeping(&mut self) {
        self.round = self.round.max(Self::YIELD_ROUNDS);
    }

    pub(crate) fn new() -> Backoff {
        Backoff { round: 0 }
    }

    /// Whether to poll `doca_dpa_peek_at_last_error` now: every
    /// `HEALTH_EVERY` spins, every round once the wait sleeps.
    pub(crate) fn should_check_health(&self) -> bool {
        self.round >= Self::YIELD_ROUNDS
            || self.round % Self::HEALTH_EVERY == Self::HEALTH_EVERY - 1
    }

    /// Whether to read the clock now: reading it costs more than a poll on
    /// some virtual machines, so spinning rounds look at it one in 64.
    pub(crate) fn should_check_clock(&self) -> bool {
        self.round >= Self::SPIN_ROUNDS || self.round % 64 == 0
    }

    pub(crate) fn pause(&mut self) {
        self.round = self.round.saturating_add(1);
        if self.round < Self::SPIN_ROUNDS {
            std::hint::spin_loop();
        } else if self.round < Self::YIELD_ROUNDS {
            std::thread::yield_now();
        } else {
            // Sleeps grow from 50 µs to 800 µs: long waits cost little CPU
            // and still notice completion within a millisecond.
            let step = (self.round - Self::YIELD_ROUNDS).min(4);
            std::thread::sleep(Duration::from_micros(50 << step));
        }
    }
}

/// A host → kernel event: the host sets or adds to it, kernels (and launch
/// gates) wait on it. `doca_sync_event_create`, `_add_publisher_location_cpu`,
/// `_add_subscriber_location_dpa`, `_start` (all EXPERIMENTAL). Stopped and destroyed
/// once nothing uses it: launches gated on it and kernels given it keep it alive.
#[derive(Debug)]
pub struct WaitEvent(pub(crate) Arc<Event>);

/// A kernel → host event: kernels update it, the host reads and waits.
/// `doca_sync_event_create`, `_add_publisher_location_dpa`,
/// `_add_subscriber_location_cpu`, `_start` (all EXPERIMENTAL).
#[derive(Debug)]
pub struct CompletionEvent(pub(crate) Arc<Event>);

/// A kernel ↔ kernel event (DPA publisher and subscriber), always with its DPA handle.
#[derive(Debug)]
pub struct KernelEvent(pub(crate) Arc<Event>);

/// Whether an event also gets its DPA handle (`doca_sync_event_get_dpa_handle`), so
/// that it can be passed to kernels (a gate needs none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Export {
    /// Get the DPA handle: the event can be a kernel argument or a [`Dev`](crate::Dev).
    ToDpa,
    /// No DPA handle.
    No,
}

impl WaitEvent {
    /// Creates and starts the event; [`Export::ToDpa`] also gets its DPA handle
    /// for kernels that wait on it explicitly.
    pub fn new(dpa: &Dpa, export: Export) -> Result<WaitEvent> {
        Event::new(dpa, Recipe::HostToKernel, export == Export::ToDpa, None)
            .map(|e| WaitEvent(Arc::new(e)))
    }

    /// Sets the value (`doca_sync_event_update_set`), releasing kernels
    /// gated at or below it.
    pub fn set(&self, value: u64) -> Result<()> {
        self.0.set(value)
    }

    /// Adds to the value (`doca_sync_event_update_add`); returns the value
    /// before.
    pub fn add(&self, value: u64) -> Result<u64> {
        self.0.add(value)
    }

    /// Reads the value (`doca_sync_event_get`).
    pub fn get(&self) -> Result<u64> {
        self.0.get()
    }

    /// The raw `doca_sync_event`, for calls this crate does not wrap (a host
    /// thread of yours publishing to it, say), made while `guard` (of the event's
    /// context family: [`Dpa::enter`]) lives. Valid while the event lives; do not
    /// stop or destroy it.
    pub fn as_ptr(&self, guard: &FamilyGuard<'_>) -> *mut sys::doca_sync_event {
        self.0.as_ptr(guard)
    }
}

impl CompletionEvent {
    /// Creates and starts the event; [`Export::ToDpa`] also gets its DPA handle so a
    /// kernel can update it explicitly.
    pub fn new(dpa: &Dpa, export: Export) -> Result<CompletionEvent> {
        Event::new(dpa, Recipe::KernelToHost, export == Export::ToDpa, None)
            .map(|e| CompletionEvent(Arc::new(e)))
    }

    /// Like [`CompletionEvent::new`], driven by `engine` so that it can be awaited
    /// ([`CompletionEvent::reached`]) and [`CompletionEvent::wait_gt`] sleeps instead
    /// of spinning: instead of `doca_sync_event_start`,
    /// `doca_sync_event_cap_task_wait_neq_is_supported`, `doca_sync_event_as_ctx`,
    /// `doca_pe_connect_ctx`, `doca_sync_event_task_wait_neq_set_conf`,
    /// `doca_ctx_start` and `doca_sync_event_task_wait_neq_alloc_init` (one task,
    /// reused for every wait). [`Error::Unavailable`] when the device's sync events
    /// take no wait tasks.
    pub fn with_engine(dpa: &Dpa, export: Export, engine: &Engine) -> Result<CompletionEvent> {
        Event::new(
            dpa,
            Recipe::KernelToHost,
            export == Export::ToDpa,
            Some(engine),
        )
        .map(|e| CompletionEvent(Arc::new(e)))
    }

    /// Resolves once the value is at least `value`, with the value seen
    /// (`doca_pe_progress`, `doca_sync_event_get`, and the wait task re-armed with
    /// `doca_task_submit`). The future keeps the event alive. For an event made
    /// without an engine it resolves to [`Error::Unavailable`].
    pub fn reached(&self, value: u64) -> Reached {
        Reached {
            event: self.0.clone(),
            target: value,
        }
    }

    /// Reads the value (`doca_sync_event_get`).
    pub fn get(&self) -> Result<u64> {
        self.0.get()
    }

    /// Waits until the value exceeds `threshold`, by polling
    /// `doca_sync_event_get` and `doca_dpa_peek_at_last_error` (DOCA's own
    /// waits have no timeout). Returns the value seen; [`Error::WaitTimeout`] after
    /// `timeout` (`Duration::MAX` waits for ever).
    pub fn wait_gt(&self, threshold: u64, timeout: Duration) -> Result<u64> {
        self.0.wait_gt(threshold, timeout)
    }

    /// The raw `doca_sync_event`, for calls this crate does not wrap, made while
    /// `guard` (of the event's context family: [`Dpa::enter`]) lives. Valid while
    /// the event lives; do not stop or destroy it.
    pub fn as_ptr(&self, guard: &FamilyGuard<'_>) -> *mut sys::doca_sync_event {
        self.0.as_ptr(guard)
    }
}

impl KernelEvent {
    /// Creates, starts and exports the event.
    pub fn new(dpa: &Dpa) -> Result<KernelEvent> {
        Event::new(dpa, Recipe::KernelToKernel, true, None).map(|e| KernelEvent(Arc::new(e)))
    }
}

/// A host event an RDMA peer signals: its kernels update it with
/// `doca_dpa_dev_rdma_signal_set` / `_add` through the remote event they made from
/// this event's [export](SignalEvent::export) (doca-rdma's `RemoteEvent`), and the
/// host reads and waits. `doca_sync_event_create`,
/// `_add_publisher_location_remote_net`, `_add_subscriber_location_cpu`, `_start`
/// (all EXPERIMENTAL); stopped and destroyed on drop.
///
/// Nothing of this process keeps it alive for the peer: once it is gone, the peer's
/// signals fail at the peer (their completions report the error), as DOCA does for
/// a peer on another machine.
#[derive(Debug)]
pub struct SignalEvent(pub(crate) Arc<Event>);

impl SignalEvent {
    /// Creates and starts the event, its subscriber the host CPU of `dpa`'s device.
    pub fn new(dpa: &Dpa) -> Result<SignalEvent> {
        Event::new(dpa, Recipe::RemoteToHost, false, None).map(|e| SignalEvent(Arc::new(e)))
    }

    /// The bytes a peer makes its remote event from
    /// (`doca_sync_event_export_to_remote_net`, EXPERIMENTAL), for the service to send
    /// over its own channel.
    #[cfg(doca_sym = "doca_sync_event_export_to_remote_net")]
    pub fn export(&self) -> Result<Vec<u8>> {
        // Under the family's guard, as the event's locations.
        self.0.dpa.with_ctx(|_, g| {
            let e = self.0.as_ptr(g);
            let mut data = std::ptr::null();
            let mut len = 0usize;
            // SAFETY: a started event with a remote-net publisher; valid out-pointers.
            unsafe { doca_call!(doca_sync_event_export_to_remote_net(e, &mut data, &mut len)) }?;
            // SAFETY: DOCA hands back `len` bytes it owns while the event lives
            // (`self` holds it); copied at once.
            unsafe { crate::core::copy_out("doca_sync_event_export_to_remote_net", data, len) }
        })
    }

    /// Reads the value (`doca_sync_event_get`).
    pub fn get(&self) -> Result<u64> {
        self.0.get()
    }

    /// Waits until the value exceeds `threshold`, as [`CompletionEvent::wait_gt`]
    /// does: polling `doca_sync_event_get` and the context's health; an
    /// [`Error::WaitTimeout`] after `timeout`.
    pub fn wait_gt(&self, threshold: u64, timeout: Duration) -> Result<u64> {
        self.0.wait_gt(threshold, timeout)
    }

    /// The context whose device subscribes.
    pub fn dpa(&self) -> &Dpa {
        &self.0.dpa
    }
}

macro_rules! event_args {
    ($($t:ty),*) => {$(
        // SAFETY: the event's DPA handle; the keep record holds the event.
        unsafe impl KernelArg<param::SyncEvent> for $t {
            #[inline]
            fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
                Event::lower(&self.0, keep)
            }
        }

        impl $t {
            /// The event's DPA handle as a [`Dev`](crate::Dev), which keeps the event
            /// alive: `Dev::new(self)`. No DOCA call (the handle was read with
            /// `doca_sync_event_get_dpa_handle` when the event was made);
            /// [`Error::InvalidArgument`] for an event made with [`Export::No`].
            #[deprecated(
                since = "0.1.0",
                note = "pass the event itself as the kernel argument (`&event`), or \
                        `Dev::new(&event)?` for a field of a DpaBox struct"
            )]
            pub fn handle(&self) -> Result<crate::Dev<param::SyncEvent>> {
                crate::Dev::new(self)
            }
        }
    )*};
}
event_args!(WaitEvent, CompletionEvent, KernelEvent);

/// The future of [`CompletionEvent::reached`].
#[must_use = "futures do nothing unless awaited"]
#[derive(Debug)]
pub struct Reached {
    event: Arc<Event>,
    target: u64,
}

impl std::future::Future for Reached {
    type Output = Result<u64>;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<u64>> {
        let event = &self.event;
        let waiter = match event.waiter(Awaited::Event) {
            Ok(w) => w,
            Err(e) => return std::task::Poll::Ready(Err(e)),
        };
        let target = self.target;
        waiter.poll_until(
            cx,
            || event.get(),
            |v| {
                if v >= target {
                    return Ok(Some(v));
                }
                event.dpa.poll_fatal(cx, "doca_sync_event_get")?;
                Ok(None)
            },
        )
    }
}

/// The refusal of a blocking wait (`what`) on a thread that holds the family's
/// lock: what it waits for may need that lock.
#[cold]
pub(crate) fn held_while_waiting(what: &'static str) -> Error {
    Error::Unavailable {
        what,
        reason: "called by a thread that holds the DPA context family's lock (inside a \
                 FamilyGuard), which what would end the wait may need"
            .to_owned(),
    }
}
