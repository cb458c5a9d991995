//! Consumer completion contexts (`struct doca_comch_consumer_completion`): where
//! consumers on the DPA report the messages they receive, each waking the DPA
//! thread bound to the context.
//!
//! [`ConsumerCompletionBuilder`] → [`ConsumerCompletion`]: the thread is bound
//! and the sizes set before the start; the DPA handle exists once started:
//!
//! ```compile_fail,E0277
//! # fn f(c: &doca_comch::ConsumerCompletionBuilder) {
//! let arg = doca_dpa::Dev::<doca_comch::param::ComchConsumerCompletion>::new(c);
//! # }
//! ```
//!
//! ```compile_fail,E0599
//! # fn f(c: doca_comch::ConsumerCompletion) {
//! let c = c.max_receives(8); // sizes belong to ConsumerCompletionBuilder
//! # }
//! ```

use std::fmt;
use std::sync::Arc;

use doca_dpa::{param, DpaThread, Keep, KernelArg, Result};

use crate::error::comch_call;
use crate::msgq::count;
use crate::part::{lower, stop_shared, Part, Shared};
use crate::StopError;

doca_dpa::__doca_object!(
    /// `doca_comch_consumer_completion`.
    pub(crate) RawConsumerCompletion: doca_comch_sys::doca_comch_consumer_completion,
    destroy doca_comch_consumer_completion_destroy,
    stop doca_comch_consumer_completion_stop
);

/// A consumer completion context being configured, bound to the DPA thread its
/// messages wake. Unset sizes are DOCA's defaults.
pub struct ConsumerCompletionBuilder {
    part: doca_dpa::Member<Part<RawConsumerCompletion, DpaThread>>,
}

impl fmt::Debug for ConsumerCompletionBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConsumerCompletionBuilder")
            .field("thread", self.part.uses())
            .finish()
    }
}

impl ConsumerCompletionBuilder {
    /// A consumer completion context whose messages wake `thread`, a started DPA
    /// thread, which the context keeps alive: `doca_comch_consumer_completion_create`
    /// and `doca_comch_consumer_completion_set_dpa_thread` (EXPERIMENTAL), at the
    /// thread's DPA context family's guard.
    pub fn new(thread: &DpaThread) -> Result<ConsumerCompletionBuilder> {
        let dpa = thread.dpa();
        let mut raw = std::ptr::null_mut();
        // SAFETY: valid out-pointer (a create names no object: no lock).
        unsafe { comch_call!(doca_comch_consumer_completion_create(&mut raw)) }?;
        let part = Part::new(
            // SAFETY: what doca_comch_consumer_completion_create just returned: NULL or
            // a new object that nothing else owns, handed over here, in the thread's
            // DPA context family.
            unsafe {
                doca_dpa::core::Owned::new(
                    "doca_comch_consumer_completion_create",
                    raw,
                    dpa.domain(),
                )
            }?,
            dpa,
            thread.clone(),
        );
        dpa.with_ctx(|_, g| {
            let (p, t) = (part.raw.as_ptr(g), thread.as_ptr(g));
            // SAFETY: our stopped context and a started thread, which the context
            // keeps alive (`Part::uses`).
            unsafe { comch_call!(doca_comch_consumer_completion_set_dpa_thread(p, t)) }
        })?;
        Ok(ConsumerCompletionBuilder { part })
    }

    /// How many consumers may report to it
    /// (`doca_comch_consumer_completion_set_max_num_consumers`; DOCA rounds up to a
    /// power of two). 0 is refused before the call.
    pub fn max_consumers(self, n: u32) -> Result<Self> {
        let call = "doca_comch_consumer_completion_set_max_num_consumers";
        let n = count(call, "a consumer count", n)?;
        // SAFETY: our stopped context.
        self.part.call(|p| unsafe {
            comch_call!(doca_comch_consumer_completion_set_max_num_consumers(p, n))
        })?;
        Ok(self)
    }

    /// How many receives its consumers may have posted together, which is how many
    /// messages it holds (`doca_comch_consumer_completion_set_max_num_recv`; DOCA
    /// rounds up to a power of two). 0 is refused before the call.
    pub fn max_receives(self, n: u32) -> Result<Self> {
        let call = "doca_comch_consumer_completion_set_max_num_recv";
        let n = count(call, "a receive count", n)?;
        // SAFETY: our stopped context.
        self.part.call(|p| unsafe {
            comch_call!(doca_comch_consumer_completion_set_max_num_recv(p, n))
        })?;
        Ok(self)
    }

    /// The immediate-data bytes it holds per message: at least each of its
    /// consumers' (`doca_comch_consumer_completion_set_imm_data_len`). 0 is refused
    /// before the call; DOCA refuses more than the device's
    /// [`max_imm_data_len`](crate::max_imm_data_len).
    pub fn imm_data_len(self, len: u32) -> Result<Self> {
        let call = "doca_comch_consumer_completion_set_imm_data_len";
        let len = count(call, "an immediate-data length", len)?;
        // SAFETY: our stopped context.
        self.part.call(|p| unsafe {
            comch_call!(doca_comch_consumer_completion_set_imm_data_len(p, len))
        })?;
        Ok(self)
    }

    /// Starts it (`doca_comch_consumer_completion_start`) and reads its DPA handle
    /// and sizes (`doca_comch_consumer_completion_get_dpa_handle`,
    /// `_get_max_num_consumers`, `_get_max_num_recv`, `_get_imm_data_len`), all
    /// EXPERIMENTAL. On a failure the context is destroyed.
    pub fn start(mut self) -> Result<ConsumerCompletion> {
        let part = &mut *self.part;
        let raw = &mut part.raw;
        let mut info = Info::default();
        part.dpa.with_ctx(|_, g| {
            let p = raw.as_ptr(g);
            // SAFETY: our configured context.
            unsafe { comch_call!(doca_comch_consumer_completion_start(p)) }?;
            raw.set_started();
            // SAFETY: our started context; valid out-pointers.
            unsafe {
                comch_call!(doca_comch_consumer_completion_get_dpa_handle(
                    p,
                    &mut info.handle
                ))
            }?;
            // SAFETY: as above.
            unsafe {
                comch_call!(doca_comch_consumer_completion_get_max_num_consumers(
                    p,
                    &mut info.max_consumers
                ))
            }?;
            // SAFETY: as above.
            unsafe {
                comch_call!(doca_comch_consumer_completion_get_max_num_recv(
                    p,
                    &mut info.max_receives
                ))
            }?;
            // SAFETY: as above.
            unsafe {
                comch_call!(doca_comch_consumer_completion_get_imm_data_len(
                    p,
                    &mut info.imm_data_len
                ))
            }
        })?;
        Ok(ConsumerCompletion {
            part: Arc::new(self.part),
            info,
        })
    }
}

/// What a started consumer completion context reported.
#[derive(Debug, Default, Clone, Copy)]
struct Info {
    handle: u64,
    max_consumers: u32,
    max_receives: u32,
    imm_data_len: u32,
}

/// A started consumer completion context: consumers report to it, and each
/// message wakes its DPA thread; kernels read it with the
/// `doca_dpa_dev_comch_consumer_completion_*` calls, given it for a
/// `doca_dpa_dev_comch_consumer_completion_t` parameter (the launch, DPA thread or
/// DPA struct keeps it alive). It keeps its thread alive; its consumers keep it
/// alive. Stopped and destroyed (`doca_comch_consumer_completion_stop`, `_destroy`)
/// when the last holder is gone, or by [`ConsumerCompletion::stop`]. Cheap to clone.
#[derive(Clone)]
pub struct ConsumerCompletion {
    part: Shared<RawConsumerCompletion, DpaThread>,
    info: Info,
}

impl fmt::Debug for ConsumerCompletion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConsumerCompletion")
            .field("max_consumers", &self.info.max_consumers)
            .field("max_receives", &self.info.max_receives)
            .field("imm_data_len", &self.info.imm_data_len)
            .field("thread", self.part.uses())
            .finish()
    }
}

impl ConsumerCompletion {
    /// Makes the bound thread runnable (`doca_dpa_thread_run`): from then on its
    /// messages wake it.
    pub fn run_thread(&self) -> Result<()> {
        self.part.uses().run_bound()
    }

    /// The DPA thread its messages wake (no DOCA call).
    pub fn thread(&self) -> &DpaThread {
        self.part.uses()
    }

    /// How many consumers may report to it, after DOCA's rounding (read by the
    /// start; no DOCA call now).
    pub fn max_consumers(&self) -> u32 {
        self.info.max_consumers
    }

    /// How many messages it holds, after DOCA's rounding (read by the start; no
    /// DOCA call now).
    pub fn max_receives(&self) -> u32 {
        self.info.max_receives
    }

    /// The immediate-data bytes it holds per message (read by the start; no DOCA
    /// call now).
    pub fn imm_data_len(&self) -> u32 {
        self.info.imm_data_len
    }

    /// The raw context, for its consumers' calls made while `guard` (of its DPA
    /// context's family) lives. Valid while this handle lives.
    pub(crate) fn as_ptr(
        &self,
        guard: &doca_dpa::FamilyGuard<'_>,
    ) -> *mut doca_comch_sys::doca_comch_consumer_completion {
        self.part.raw.as_ptr(guard)
    }

    /// The DPA context its thread runs on (no DOCA call).
    pub fn dpa(&self) -> &doca_dpa::Dpa {
        &self.part.dpa
    }

    /// Stops and destroys it (`doca_comch_consumer_completion_stop`, `_destroy`) at
    /// its DPA context family's guard. Refused with [`doca_dpa::Error::InUse`] while a
    /// consumer, a launch, a DPA thread, a DPA struct or another handle holds it: it
    /// comes back in the error, started.
    pub fn stop(self) -> std::result::Result<(), StopError<ConsumerCompletion>> {
        let info = self.info;
        stop_shared(self.part, "doca_comch_consumer_completion_stop", |part| {
            ConsumerCompletion { part, info }
        })
    }
}

// SAFETY: the context's DPA handle (`doca_comch_consumer_completion_get_dpa_handle`),
// for kernels of the DPA context its thread runs on (checked); the keep record holds
// the context (and so its thread).
unsafe impl KernelArg<param::ComchConsumerCompletion> for ConsumerCompletion {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        lower(
            &self.part,
            self.info.handle as u64,
            keep,
            "the consumer completion context",
        )
    }
}
