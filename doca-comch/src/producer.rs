//! Producers of a message queue on the DPA (`struct doca_comch_producer`, a DOCA
//! context on the DPA datapath).
//!
//! [`ProducerBuilder`] → [`Producer`]: sizes are set before the start, the DPA
//! handle and the id exist once started, and a producer is an argument only for a
//! producer parameter:
//!
//! ```compile_fail,E0277
//! # fn f(p: &doca_comch::ProducerBuilder) {
//! let arg = doca_dpa::Dev::<doca_comch::param::ComchProducer>::new(p);
//! # }
//! ```
//!
//! ```compile_fail,E0277
//! # fn f(c: &doca_comch::Consumer) {
//! let arg = doca_dpa::Dev::<doca_comch::param::ComchProducer>::new(c);
//! # }
//! ```

use std::fmt;
use std::sync::Arc;

use doca_dpa::{param, Completion, Keep, KernelArg, Result};

use crate::error::{comch_call, core_call};
use crate::msgq::{count, QueueRef};
use crate::part::{lower, stop_shared, Part, Shared};
use crate::side::{make, Side};
use crate::StopError;

crate::side::queue_side!(
    /// `doca_comch_producer`: destroyed with `doca_comch_producer_destroy`, stopped
    /// as its `doca_ctx`.
    RawProducer: doca_comch_producer,
    create doca_comch_msgq_producer_create,
    attach doca_comch_producer_dpa_completion_attach,
    as_ctx doca_comch_producer_as_ctx,
    destroy doca_comch_producer_destroy
);

/// What a producer uses: its queue and the DPA completion context its sends
/// report to.
type ProducerUses = (QueueRef, Completion);

/// A producer being configured, on the DPA datapath of its queue's DPA context
/// and reporting its sends to a DPA completion context. Unset values are DOCA's
/// defaults.
pub struct ProducerBuilder {
    part: doca_dpa::Member<Part<RawProducer, ProducerUses>>,
}

impl fmt::Debug for ProducerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProducerBuilder")
            .field("dpa", &self.part.dpa.serial())
            .finish_non_exhaustive()
    }
}

impl ProducerBuilder {
    pub(crate) fn new(queue: QueueRef, completion: &Completion) -> Result<ProducerBuilder> {
        let uses = (queue.clone(), completion.clone());
        let part = make(&queue, completion.dpa(), "DPA completion context", uses)?;
        Ok(ProducerBuilder { part })
    }

    /// How many sends kernels may have outstanding on it
    /// (`doca_comch_producer_set_dev_max_num_send`; DOCA rounds up to a power of
    /// two). 0 is refused before the call.
    pub fn max_sends(self, n: u32) -> Result<Self> {
        let n = count(
            "doca_comch_producer_set_dev_max_num_send",
            "a send count",
            n,
        )?;
        self.part.call(|p| {
            // SAFETY: our idle producer.
            unsafe { comch_call!(doca_comch_producer_set_dev_max_num_send(p, n)) }
        })?;
        Ok(self)
    }

    /// Attaches its DPA completion context
    /// (`doca_comch_producer_dpa_completion_attach`, EXPERIMENTAL), starts it
    /// (`doca_ctx_start`) and reads its DPA handle and id
    /// (`doca_comch_producer_get_dpa_handle`, `doca_comch_producer_get_id`). On a
    /// failure the producer is destroyed.
    pub fn start(mut self) -> Result<Producer> {
        let part = &mut *self.part;
        let completion = &part.uses.1;
        let raw = &mut part.raw;
        let mut info = Info::default();
        part.dpa.with_ctx(|_, g| {
            let (p, comp) = (raw.as_ptr(g), completion.as_ptr(g));
            // SAFETY: our idle producer on the DPA datapath and a started DPA
            // completion of the same DPA context (checked by `new`), which the
            // producer keeps alive.
            unsafe { comch_call!(doca_comch_producer_dpa_completion_attach(p, comp)) }?;
            // SAFETY: our live producer; its context is not NULL (checked by `make`).
            let ctx = unsafe { <RawProducer as Side>::as_ctx(p) };
            // SAFETY: our configured producer's context.
            unsafe { core_call!(doca_ctx_start(ctx)) }?;
            raw.set_started();
            // SAFETY: our started producer; valid out-pointers.
            unsafe { comch_call!(doca_comch_producer_get_dpa_handle(p, &mut info.handle)) }?;
            // SAFETY: as above.
            unsafe { comch_call!(doca_comch_producer_get_id(p, &mut info.id)) }
        })?;
        Ok(Producer {
            part: Arc::new(self.part),
            info,
        })
    }
}

/// What a started producer reported.
#[derive(Debug, Default, Clone, Copy)]
struct Info {
    handle: u64,
    id: u32,
}

/// A started producer on the DPA. Kernels send with it to a consumer of its queue
/// (by the consumer's [`id`](crate::Consumer::id)); given for a
/// `doca_dpa_dev_comch_producer_t` parameter, it is kept alive by the launch, DPA
/// thread or DPA struct. It keeps its queue and DPA completion context alive.
/// Stopped and destroyed (`doca_ctx_stop`, `doca_comch_producer_destroy`) when the
/// last holder is gone, or by [`Producer::stop`]. Cheap to clone.
#[derive(Clone)]
pub struct Producer {
    part: Shared<RawProducer, ProducerUses>,
    info: Info,
}

impl fmt::Debug for Producer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Producer")
            .field("id", &self.info.id)
            .finish_non_exhaustive()
    }
}

impl Producer {
    /// Its id in the queue, which consumers see as the sender
    /// (`doca_comch_producer_get_id`, read by the start; no DOCA call now).
    pub fn id(&self) -> u32 {
        self.info.id
    }

    /// The DPA completion context its sends report to (no DOCA call).
    pub fn completion(&self) -> &Completion {
        &self.part.uses().1
    }

    /// Stops and destroys it (`doca_ctx_stop`, `doca_comch_producer_destroy`) at its
    /// DPA context family's guard. Refused with [`doca_dpa::Error::InUse`] while a
    /// launch, a DPA thread, a DPA struct or another handle holds it: it comes back
    /// in the error, started.
    pub fn stop(self) -> std::result::Result<(), StopError<Producer>> {
        let info = self.info;
        stop_shared(self.part, "doca_ctx_stop", |part| Producer { part, info })
    }
}

// SAFETY: the producer's DPA handle (`doca_comch_producer_get_dpa_handle`), for
// kernels of the DPA context its datapath runs on (checked); the keep record holds
// the producer (and so its queue and completion context).
unsafe impl KernelArg<param::ComchProducer> for Producer {
    fn lower(&self, keep: &mut Keep<'_>) -> Result<u64> {
        lower(
            &self.part,
            self.info.handle as u64,
            keep,
            "the Comch producer",
        )
    }
}
