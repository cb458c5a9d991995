//! The one `doca_ctx` lifecycle: start, stop, and poll to idle. Used by the sync
//! events awaited on a progress engine (their wait-task context, `wait_task.rs`)
//! and by doca-rdmi's connections and posters.
//!
//! Calls: `doca_ctx_start`, `doca_ctx_stop`, `doca_ctx_get_state` (STABLE).

use std::ptr::NonNull;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use doca_dpa_sys as sys;

use super::call::{doca_error, invalid};
use super::guard::{Anytime, Domain, Held, Raw};
use crate::error::{ErrorCode, Result};

/// The state of a DOCA context (`enum doca_ctx_states`, from
/// `doca_ctx_get_state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CtxState {
    /// Not started, or stopped (`DOCA_CTX_STATE_IDLE`).
    Idle,
    /// Start requested (`DOCA_CTX_STATE_STARTING`).
    Starting,
    /// Started (`DOCA_CTX_STATE_RUNNING`).
    Running,
    /// Stop requested; outstanding work is draining
    /// (`DOCA_CTX_STATE_STOPPING`).
    Stopping,
    /// A value this crate does not know (a newer DOCA).
    Other(u32),
}

impl CtxState {
    fn from_raw(raw: u32) -> CtxState {
        match raw {
            r if r == sys::DOCA_CTX_STATE_IDLE as u32 => CtxState::Idle,
            r if r == sys::DOCA_CTX_STATE_STARTING as u32 => CtxState::Starting,
            r if r == sys::DOCA_CTX_STATE_RUNNING as u32 => CtxState::Running,
            r if r == sys::DOCA_CTX_STATE_STOPPING as u32 => CtxState::Stopping,
            other => CtxState::Other(other),
        }
    }
}

/// Where a context is in its lifecycle, as the library drove it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Never started (configuration allowed).
    Created,
    /// `doca_ctx_start` succeeded.
    Running,
    /// `doca_ctx_stop` answered IN_PROGRESS.
    Stopping,
    /// Stopped.
    Idle,
    /// Its object was destroyed; nothing left to do.
    Destroyed,
}

/// What a wait for idleness does with a failed `doca_ctx_get_state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnQueryError {
    /// Return it (an explicit wait: the caller may wait again).
    Return,
    /// Ask again until the time is up (a teardown in `Drop`, which would otherwise
    /// leak the context's object), then return it.
    Retry,
}

/// The `doca_ctx` of a DOCA object (a sync event's, an RDMI connection's or
/// poster's) and the phase the library drove it to. It is the object's: destroying
/// the object is the owner's business. Its calls are made under its domain's lock
/// (taken for each call, so that a wait for idleness holds it only while it asks).
pub struct Ctx {
    raw: Raw<sys::doca_ctx, Anytime>,
    /// Changed by the start and stop paths; a mutex (never held across a DOCA
    /// call) so that the object can be shared between threads.
    phase: Mutex<Phase>,
}

impl std::fmt::Debug for Ctx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx").field("phase", &self.phase()).finish()
    }
}

impl Ctx {
    /// Wraps the result of a `*_as_ctx` call (`call`); NULL is an error naming it.
    /// Its calls are `domain`'s.
    ///
    /// # Safety
    /// `raw` is NULL or the context of a live DOCA object that outlives the `Ctx`,
    /// whose context no other `Ctx` drives ([`Ctx::start`] and [`Ctx::stop`] act on
    /// it), and whose calls are `domain`'s.
    pub unsafe fn new(call: &'static str, raw: *mut sys::doca_ctx, domain: &Domain) -> Result<Ctx> {
        let ptr = NonNull::new(raw).ok_or_else(|| invalid(call, "DOCA returned no context"))?;
        Ok(Ctx {
            // SAFETY: the caller's: a context of `domain`'s, reached through this
            // `Ctx` only.
            raw: unsafe { domain.raw(ptr) },
            phase: Mutex::new(Phase::Created),
        })
    }

    /// The context, for DOCA calls made while `held` (of its domain) lives; valid
    /// while its object lives.
    pub fn as_ptr(&self, held: &Held<'_>) -> *mut sys::doca_ctx {
        self.raw.get(held)
    }

    /// The context's domain.
    pub fn domain(&self) -> &Domain {
        self.raw.domain()
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a phase reached by other means (the object's destruction).
    pub fn set_phase(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(|p| p.into_inner()) = phase;
    }

    /// `doca_ctx_start`.
    pub fn start(&self) -> Result<()> {
        self.raw.with(|p, _| {
            // SAFETY: a configured context of a live object, under its domain's lock.
            unsafe { crate::__doca_core_call!(doca_dpa_sys::doca_ctx_start(p)) }
        })??;
        self.set_phase(Phase::Running);
        Ok(())
    }

    /// `doca_ctx_get_state`.
    pub fn state(&self) -> Result<CtxState> {
        let mut raw = 0 as _;
        // SAFETY: a live context, under its domain's lock; valid out-pointer.
        self.raw.with(|p, _| unsafe {
            crate::__doca_core_call!(doca_dpa_sys::doca_ctx_get_state(p, &mut raw))
        })??;
        Ok(CtxState::from_raw(raw as u32))
    }

    /// `doca_ctx_stop` on a running context: idle at once, or stopping when DOCA
    /// answers IN_PROGRESS (then [`Ctx::wait_idle`] finishes it). Nothing to do in
    /// another phase.
    pub fn request_stop(&self) -> Result<()> {
        if self.phase() != Phase::Running {
            return Ok(());
        }
        // SAFETY: a started context of a live object, under its domain's lock.
        let stopped = self
            .raw
            .with(|p, _| unsafe { crate::__doca_core_call!(doca_dpa_sys::doca_ctx_stop(p)) })?;
        match stopped {
            Ok(()) => self.set_phase(Phase::Idle),
            Err(e) if e.code() == Some(ErrorCode::IN_PROGRESS) => {
                tracing::debug!(target: "doca_dpa::core", "doca_ctx_stop is in progress");
                self.set_phase(Phase::Stopping);
            }
            Err(e) => return Err(e),
        }
        Ok(())
    }

    /// While stopping: calls `progress` (the progress engine the context is
    /// connected to, which flushes its tasks; nothing for a context on the DPA
    /// datapath), then polls `doca_ctx_get_state`, until the context is idle, for at
    /// most `timeout`, pausing between looks (from 100 µs, doubling, to 10 ms). After
    /// it: a TIME_OUT error naming `doca_ctx_stop`. Nothing to do in another phase.
    pub fn wait_idle(
        &self,
        timeout: Duration,
        on_error: OnQueryError,
        mut progress: impl FnMut(),
    ) -> Result<()> {
        if self.phase() != Phase::Stopping {
            return Ok(());
        }
        let start = Instant::now();
        let mut pause = Duration::from_micros(100);
        let mut failed = None;
        loop {
            progress();
            match self.state() {
                Ok(CtxState::Idle) => {
                    self.set_phase(Phase::Idle);
                    return Ok(());
                }
                Ok(_) => {}
                Err(e) if on_error == OnQueryError::Return => return Err(e),
                Err(e) => failed = Some(e),
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                tracing::warn!(target: "doca_dpa::core", ?timeout, "the asynchronous stop of a DOCA context did not finish in time");
                return Err(
                    failed.unwrap_or_else(|| doca_error("doca_ctx_stop", ErrorCode::TIME_OUT))
                );
            }
            std::thread::sleep(pause.min(left));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// [`Ctx::request_stop`], then [`Ctx::wait_idle`].
    pub fn stop(
        &self,
        timeout: Duration,
        on_error: OnQueryError,
        progress: impl FnMut(),
    ) -> Result<()> {
        self.request_stop()?;
        self.wait_idle(timeout, on_error, progress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_map_from_the_header_values() {
        assert_eq!(
            CtxState::from_raw(sys::DOCA_CTX_STATE_IDLE as u32),
            CtxState::Idle
        );
        assert_eq!(
            CtxState::from_raw(sys::DOCA_CTX_STATE_STOPPING as u32),
            CtxState::Stopping
        );
        assert_eq!(CtxState::from_raw(77), CtxState::Other(77));
    }

    #[test]
    fn a_context_never_started_has_nothing_to_stop() {
        let domain = Domain::new(super::super::guard::Kind::Engine);
        // SAFETY: never dereferenced: no DOCA call is made in these phases.
        let ctx =
            unsafe { Ctx::new("doca_test_as_ctx", NonNull::dangling().as_ptr(), &domain) }.unwrap();
        // SAFETY: NULL, refused before any use.
        assert!(unsafe { Ctx::new("doca_test_as_ctx", std::ptr::null_mut(), &domain) }.is_err());
        let mut progressed = 0;
        ctx.stop(Duration::ZERO, OnQueryError::Return, || progressed += 1)
            .unwrap();
        assert_eq!((ctx.phase(), progressed), (Phase::Created, 0));
    }
}
