//! DOCA Comch message queues on the DPA (`struct doca_comch_msgq`).
//!
//! [`MessageQueueBuilder`] → [`MessageQueue`]: the sizes are set before the start,
//! consumers and producers are made from the started queue only:
//!
//! ```compile_fail,E0599
//! # fn f(q: &doca_comch::MessageQueueBuilder, c: &doca_comch::ConsumerCompletion) {
//! let consumer = q.consumer(c); // consumers come from a started queue
//! # }
//! ```
//!
//! ```compile_fail,E0599
//! # fn f(q: doca_comch::MessageQueue) {
//! let q = q.max_consumers(2); // sizes belong to MessageQueueBuilder
//! # }
//! ```

use std::fmt;

use doca_dpa::{Completion, Dpa, Member, Result};
use doca_dpa_sys as dsys;

use crate::consumer::ConsumerBuilder;
use crate::consumer_completion::ConsumerCompletion;
use crate::error::{comch_call, invalid, StopError};
use crate::part::{stop_shared, Part, Shared};
use crate::producer::ProducerBuilder;

doca_dpa::__doca_object!(
    /// `doca_comch_msgq`.
    pub(crate) RawMsgq: doca_comch_sys::doca_comch_msgq,
    destroy doca_comch_msgq_destroy,
    stop doca_comch_msgq_stop
);

/// What a queue's consumers and producers hold: the queue itself.
pub(crate) type QueueRef = Shared<RawMsgq, ()>;

/// A message queue being configured: made on a DPA context's device with both
/// its sides (consumers and producers) on that DPA context.
pub struct MessageQueueBuilder {
    part: Member<Part<RawMsgq, ()>>,
}

impl fmt::Debug for MessageQueueBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageQueueBuilder")
            .field("dpa", &self.part.dpa.serial())
            .finish_non_exhaustive()
    }
}

/// A count DOCA takes: not 0.
pub(crate) fn count(call: &'static str, what: &str, n: u32) -> Result<u32> {
    if n == 0 {
        return Err(invalid(call, format!("{what} of 0")));
    }
    Ok(n)
}

impl MessageQueueBuilder {
    /// A queue whose consumers and producers run on `dpa`: `doca_comch_msgq_create`
    /// on its device, then `doca_comch_msgq_set_dpa_consumer` and
    /// `doca_comch_msgq_set_dpa_producer` (EXPERIMENTAL), at the context family's guard.
    /// Queues with a side on the CPU are not wrapped.
    pub fn new(dpa: &Dpa) -> Result<MessageQueueBuilder> {
        let mut raw = std::ptr::null_mut();
        {
            let device = dpa.device();
            let dev = device.lock();
            // SAFETY: an open device (the DPA context keeps it open), under its lock;
            // valid out-pointer.
            unsafe { comch_call!(doca_comch_msgq_create(device.as_ptr(&dev), &mut raw)) }?;
        }
        let part = Part::new(
            // SAFETY: what doca_comch_msgq_create just returned: NULL or a new object
            // that nothing else owns, handed over here, in the DPA context's family.
            unsafe { doca_dpa::core::Owned::new("doca_comch_msgq_create", raw, dpa.domain()) }?,
            dpa,
            (),
        );
        dpa.with_ctx(|ctx: *mut dsys::doca_dpa, g| {
            let p = part.raw.as_ptr(g);
            // SAFETY: our stopped queue and a started DPA context of its device, which
            // the queue keeps alive (`Part::dpa`).
            unsafe { comch_call!(doca_comch_msgq_set_dpa_consumer(p, ctx)) }?;
            // SAFETY: as above.
            unsafe { comch_call!(doca_comch_msgq_set_dpa_producer(p, ctx)) }
        })?;
        Ok(MessageQueueBuilder { part })
    }

    /// How many consumers the queue may make
    /// (`doca_comch_msgq_set_max_num_consumers`). 0 is refused before the call.
    pub fn max_consumers(self, n: u32) -> Result<Self> {
        let n = count(
            "doca_comch_msgq_set_max_num_consumers",
            "a consumer count",
            n,
        )?;
        self.part.call(|p| {
            // SAFETY: our stopped queue.
            unsafe { comch_call!(doca_comch_msgq_set_max_num_consumers(p, n)) }
        })?;
        Ok(self)
    }

    /// How many producers the queue may make
    /// (`doca_comch_msgq_set_max_num_producers`). 0 is refused before the call.
    pub fn max_producers(self, n: u32) -> Result<Self> {
        let n = count(
            "doca_comch_msgq_set_max_num_producers",
            "a producer count",
            n,
        )?;
        self.part.call(|p| {
            // SAFETY: our stopped queue.
            unsafe { comch_call!(doca_comch_msgq_set_max_num_producers(p, n)) }
        })?;
        Ok(self)
    }

    /// Starts the queue (`doca_comch_msgq_start`, EXPERIMENTAL). On a failure the
    /// queue is destroyed (`doca_comch_msgq_destroy`).
    pub fn start(mut self) -> Result<MessageQueue> {
        let part = &mut *self.part;
        let raw = &mut part.raw;
        part.dpa.with_ctx(|_, g| {
            // SAFETY: our configured queue, under its family's guard.
            unsafe { comch_call!(doca_comch_msgq_start(raw.as_ptr(g))) }?;
            raw.set_started();
            Ok(())
        })?;
        Ok(MessageQueue {
            part: std::sync::Arc::new(self.part),
        })
    }
}

/// A started message queue. Its consumers ([`MessageQueue::consumer`]) and
/// producers ([`MessageQueue::producer`]) keep it alive; it is stopped and destroyed
/// (`doca_comch_msgq_stop`, `doca_comch_msgq_destroy`) when the last of them and
/// this handle are gone, or by [`MessageQueue::stop`]. Cheap to clone.
#[derive(Clone)]
pub struct MessageQueue {
    part: QueueRef,
}

impl fmt::Debug for MessageQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MessageQueue")
            .field("dpa", &self.part.dpa.serial())
            .finish_non_exhaustive()
    }
}

impl MessageQueue {
    /// A consumer of the queue, reporting its messages to `completion`, a started
    /// consumer completion context of the queue's DPA context (another context's
    /// is refused before any DOCA call): `doca_comch_msgq_consumer_create`,
    /// `doca_comch_consumer_as_ctx` and `doca_ctx_set_datapath_on_dpa`.
    /// DOCA refuses one more than [`MessageQueueBuilder::max_consumers`].
    pub fn consumer(&self, completion: &ConsumerCompletion) -> Result<ConsumerBuilder> {
        ConsumerBuilder::new(self.part.clone(), completion)
    }

    /// A producer of the queue, reporting its sends to `completion`, a started DPA
    /// completion context of the queue's DPA context (another context's is refused
    /// before any DOCA call): `doca_comch_msgq_producer_create`,
    /// `doca_comch_producer_as_ctx` and `doca_ctx_set_datapath_on_dpa`. DOCA refuses
    /// one more than [`MessageQueueBuilder::max_producers`].
    pub fn producer(&self, completion: &Completion) -> Result<ProducerBuilder> {
        ProducerBuilder::new(self.part.clone(), completion)
    }

    /// The DPA context both sides run on (no DOCA call).
    pub fn dpa(&self) -> &Dpa {
        &self.part.dpa
    }

    /// Stops and destroys the queue (`doca_comch_msgq_stop`,
    /// `doca_comch_msgq_destroy`) at its DPA context family's guard. Refused with
    /// [`doca_dpa::Error::InUse`] while a consumer, a producer or another handle
    /// holds it: the queue comes back in the error, started.
    pub fn stop(self) -> std::result::Result<(), StopError<MessageQueue>> {
        stop_shared(self.part, "doca_comch_msgq_stop", |part| MessageQueue {
            part,
        })
    }
}
