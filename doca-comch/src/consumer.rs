//! Consumers of a message queue on the DPA (`struct doca_comch_consumer`, a DOCA
//! context on the DPA datapath).
//!
//! [`ConsumerBuilder`] → [`Consumer`]: sizes are set before the start, the DPA
//! handle and the id exist once started, and a consumer is an argument only for a
//! consumer parameter:
//!
//! ```compile_fail,E0277
//! # fn f(c: &doca_comch::ConsumerBuilder) {
//! let arg = doca_dpa::Dev::<doca_comch::param::ComchConsumer>::new(c);
//! # }
//! ```
//!
//! ```compile_fail,E0277
//! # fn f(p: &doca_comch::Producer) {
//! let arg = doca_dpa::Dev::<doca_comch::param::ComchConsumer>::new(p);
//! # }
//! ```

use std::fmt;
use std::sync::Arc;

use doca_dpa::{param, Keep, KernelArg, Result};

use crate::consumer_completion::ConsumerCompletion;
use crate::error::{comch_call, core_call};
use crate::msgq::{count, QueueRef};
use crate::part::{lower, stop_shared, Part, Shared};
use crate::side::{make, Side};
use crate::StopError;

crate::side::queue_side!(
    /// `doca_comch_consumer`: destroyed with `doca_comch_consumer_destroy`, stopped
    /// as its `doca_ctx`.
    RawConsumer: doca_comch_consumer,
    create doca_comch_msgq_consumer_create,
    attach doca_comch_consumer_set_completion,
    as_ctx doca_comch_consumer_as_ctx,
    destroy doca_comch_consumer_destroy
);

/// What a consumer uses: its queue and its completion context.
type ConsumerUses = (QueueRef, ConsumerCompletion);

/// A consumer being configured, on the DPA datapath of its queue's DPA context
/// and reporting to a consumer completion context. Unset values are DOCA's
/// defaults.
pub struct ConsumerBuilder {
    part: doca_dpa::Member<Part<RawConsumer, ConsumerUses>>,
    user_data: u32,
}

impl fmt::Debug for ConsumerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConsumerBuilder")
            .field("dpa", &self.part.dpa.serial())
            .field("user_data", &self.user_data)
            .finish_non_exhaustive()
    }
}

impl ConsumerBuilder {
    pub(crate) fn new(queue: QueueRef, completion: &ConsumerCompletion) -> Result<ConsumerBuilder> {
        let uses = (queue.clone(), completion.clone());
        let part = make(
            &queue,
            completion.dpa(),
            "consumer completion context",
            uses,
        )?;
        Ok(ConsumerBuilder { part, user_data: 0 })
    }

    /// The immediate-data bytes each message carries
    /// (`doca_comch_consumer_set_imm_data_len`, STABLE). 0 is refused before the
    /// call; DOCA refuses more than the device's
    /// [`max_imm_data_len`](crate::max_imm_data_len).
    pub fn imm_data_len(self, len: u32) -> Result<Self> {
        let len = count(
            "doca_comch_consumer_set_imm_data_len",
            "an immediate-data length",
            len,
        )?;
        self.part.call(|p| {
            // SAFETY: our idle consumer.
            unsafe { comch_call!(doca_comch_consumer_set_imm_data_len(p, len)) }
        })?;
        Ok(self)
    }

    /// How many receives kernels may have posted on it
    /// (`doca_comch_consumer_set_dev_max_num_recv`; DOCA rounds up to a power of
    /// two). 0 is refused before the call.
    pub fn max_receives(self, n: u32) -> Result<Self> {
        let n = count(
            "doca_comch_consumer_set_dev_max_num_recv",
            "a receive count",
            n,
        )?;
        self.part.call(|p| {
            // SAFETY: our idle consumer.
            unsafe { comch_call!(doca_comch_consumer_set_dev_max_num_recv(p, n)) }
        })?;
        Ok(self)
    }

    /// The value its completions carry (the `user_data` of
    /// `doca_comch_consumer_set_completion`, given at start; 0 unless set). No DOCA
    /// call.
    pub fn user_data(mut self, value: u32) -> Self {
        self.user_data = value;
        self
    }

    /// Associates it with its completion context
    /// (`doca_comch_consumer_set_completion`, EXPERIMENTAL), starts it
    /// (`doca_ctx_start`) and reads its DPA handle, id and immediate-data length
    /// (`doca_comch_consumer_get_dpa_handle`, `_get_id`, `_get_imm_data_len`). DOCA
    /// refuses a completion context with no room for another consumer, or for its
    /// receives, or whose immediate data is shorter. On a failure the consumer is
    /// destroyed.
    pub fn start(mut self) -> Result<Consumer> {
        let user_data = self.user_data;
        let part = &mut *self.part;
        let completion = &part.uses.1;
        let raw = &mut part.raw;
        let mut info = Info::default();
        part.dpa.with_ctx(|_, g| {
            let (p, cc) = (raw.as_ptr(g), completion.as_ptr(g));
            // SAFETY: our idle consumer on the DPA datapath and a started completion
            // context of the same DPA context (checked by `new`), which the consumer
            // keeps alive.
            unsafe { comch_call!(doca_comch_consumer_set_completion(p, cc, user_data)) }?;
            // SAFETY: our live consumer; its context is not NULL (checked by `make`).
            let ctx = unsafe { <RawConsumer as Side>::as_ctx(p) };
            // SAFETY: our configured consumer's context.
            unsafe { core_call!(doca_ctx_start(ctx)) }?;
            raw.set_started();
            // SAFETY: our started consumer; valid out-pointers.
            unsafe { comch_call!(doca_comch_consumer_get_dpa_handle(p, &mut info.handle)) }?;
            // SAFETY: as above.
            unsafe { comch_call!(doca_comch_consumer_get_id(p, &mut info.id)) }?;
            // SAFETY: as above.
            unsafe {
                comch_call!(doca_comch_consumer_get_imm_data_len(
                    p,
                    &mut info.imm_data_len
                ))
            }
        })?;
        Ok(Consumer {
            part: Arc::new(self.part),
            info,
        })
    }
}

/// What a started consumer reported.
#[derive(Debug, Default, Clone, Copy)]
struct Info {
    handle: u64,
    id: u32,
    imm_data_len: u32,
}

/// A started consumer on the DPA. Kernels post its receives and producers send to
/// its [`id`](Consumer::id); given for a `doca_dpa_dev_comch_consumer_t` parameter,
/// it is kept alive by the launch, DPA thread or DPA struct. It keeps its queue and
/// its completion context alive. Stopped and destroyed (`doca_ctx_stop`,
/// `doca_comch_consumer_destroy`) when the last holder is gone, or by
/// [`Consumer::stop`]. Cheap to clone.
#[derive(Clone)]
pub struct Consumer {
    part: Shared<RawConsumer, ConsumerUses>,
    info: Info,
}

impl fmt::Debug for Consumer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Consumer")
            .field("id", &self.info.id)
            .field("imm_data_len", &self.info.imm_data_len)
            .finish_non_exhaustive()
    }
}

impl Consumer {
    /// Its id in the queue, which producers send to (`doca_comch_consumer_get_id`,
    /// read by the start; no DOCA call now).
    pub fn id(&self) -> u32 {
        self.info.id
    }

    /// The immediate-data bytes each message carries (read by the start; no DOCA
    /// call).
    pub fn imm_data_len(&self) -> u32 {
        self.info.imm_data_len
    }

    /// The completion context it reports to (no DOCA call).
    pub fn completion(&self) -> &ConsumerCompletion {
        &self.part.uses().1
    }

    /// Stops and destroys it (`doca_ctx_stop`, `doca_comch_consumer_destroy`) at its
    /// DPA context family's guard: receives posted on it are dropped, and sends waiting
    /// for one fail at their producer. Refused with [`doca_dpa::Error::InUse`] while
    /// a launch, a DPA thread, a DPA struct or another handle holds it: it comes
    /// back in the error, started.
    pub fn stop(self) -> std::result::Result<(), StopError<Consumer>> {
        let info = self.info;
        stop_shared(self.part, "doca_ctx_stop", |part| Consumer { part, info })
    }
}

// SAFETY: the consumer's DPA handle (`doca_comch_consumer_get_dpa_handle`), for
// kernels of the DPA context its datapath runs on (checked); the keep record holds
// the consumer (and so its queue and completion context).
unsafe impl KernelArg<param::ComchConsumer> for Consumer {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        lower(
            &self.part,
            self.info.handle as u64,
            keep,
            "the Comch consumer",
        )
    }
}

/// The longest immediate data consumers on `device` accept
/// (`doca_dev_as_devinfo`, then `doca_comch_consumer_cap_get_max_imm_data_len`,
/// STABLE).
pub fn max_imm_data_len(device: &doca_dpa::Device) -> Result<u32> {
    let mut len = 0;
    let dev = device.lock();
    let info = device.devinfo(&dev);
    if info.is_null() {
        return Err(crate::error::invalid(
            "doca_dev_as_devinfo",
            "DOCA returned no device information",
        ));
    }
    // SAFETY: the device's information (alive while the device is open), under
    // its lock; valid out-pointer.
    unsafe { comch_call!(doca_comch_consumer_cap_get_max_imm_data_len(info, &mut len)) }?;
    drop(dev);
    Ok(len)
}
