//! What the DPA Comms tests share (tests/comch/flows.rs, tests/soundness.rs,
//! tests/api_fuzz.rs): a started message queue on one DPA context with a consumer
//! (its completion context bound to an idle DPA thread) and a producer sending to
//! it.
// Not every test binary that includes it uses every helper.
#![allow(dead_code)]

use doca::comch::{Consumer, ConsumerCompletion, ConsumerCompletionBuilder, MessageQueue};
use doca::comch::{MessageQueueBuilder, Producer};
use doca::dpa::{CompletionBuilder, Dpa, DpaBuffer, DpaThread, Result, ThreadBuilder};

use crate::common::doca_tests;

/// Receives a consumer may have posted, messages its completion context holds and
/// sends a producer may have outstanding.
pub(crate) const DEPTH: u32 = 4;

/// A started queue with one consumer and one producer.
pub(crate) struct Msgq {
    pub(crate) queue: MessageQueue,
    pub(crate) consumer: Consumer,
    pub(crate) producer: Producer,
    pub(crate) completion: ConsumerCompletion,
    pub(crate) thread: DpaThread,
    /// The idle thread's argument.
    pub(crate) arg: DpaBuffer<u64>,
}

/// A started DPA thread that does nothing when woken (`comch_idle_thread`).
pub(crate) fn idle_thread(dpa: &Dpa) -> Result<(DpaThread, DpaBuffer<u64>)> {
    let arg = DpaBuffer::<u64>::from_slice(dpa, &[0])?;
    let thread = ThreadBuilder::new(dpa, &doca_tests::comch_idle_thread, (&arg,))?.start()?;
    Ok((thread, arg))
}

/// A consumer completion context of [`DEPTH`] messages of 4 bytes, bound to
/// `thread`, made runnable when `run`.
pub(crate) fn completion(thread: &DpaThread, run: bool) -> Result<ConsumerCompletion> {
    let c = ConsumerCompletionBuilder::new(thread)?
        .max_receives(DEPTH)?
        .imm_data_len(4)?
        .start()?;
    if run {
        c.run_thread()?;
    }
    Ok(c)
}

/// A queue on `dpa` with a consumer of 4-byte messages ([`DEPTH`] receives) and a
/// producer of [`DEPTH`] sends, its completion context's thread runnable when
/// `run`.
pub(crate) fn msgq(dpa: &Dpa, run: bool) -> Result<Msgq> {
    let (thread, arg) = idle_thread(dpa)?;
    let completion = completion(&thread, run)?;
    let queue = MessageQueueBuilder::new(dpa)?.start()?;
    let consumer = queue
        .consumer(&completion)?
        .imm_data_len(4)?
        .max_receives(DEPTH)?
        .start()?;
    let sends = CompletionBuilder::new(dpa, 16)?.start()?;
    let producer = queue.producer(&sends)?.max_sends(DEPTH)?.start()?;
    Ok(Msgq {
        queue,
        consumer,
        producer,
        completion,
        thread,
        arg,
    })
}
