//! The DPA Comms tests proper (compiled only in builds with DOCA Comch; see
//! `tests/comch_flows.rs`).

use std::time::Duration;

use doca::comch::{Availability, ConsumerCompletionBuilder, MessageQueueBuilder};
use doca::dpa::{CompletionBuilder, DpaBuffer, Error, ErrorCode, Launcher};

use crate::common::{self, doca_tests};
use crate::setup::{self, DEPTH};

const LONG: Duration = Duration::from_secs(20);

#[test]
fn the_api_is_available() {
    assert_eq!(doca::comch::availability(), Availability::Available);
    assert_eq!(doca::comch::build_info::COMCH_ABSENT_REASON, None);
    let device = common::device();
    assert_eq!(doca::comch::max_imm_data_len(&device).unwrap(), 32);
}

/// Receives posted by one kernel, sends by another, read by a third: every value
/// arrives once, from the producer, and the consumer is empty again after.
#[test]
fn messages_go_from_producer_to_consumer() {
    let dpa = common::dpa();
    let m = setup::msgq(&dpa, true).unwrap();
    assert_eq!((m.consumer.id(), m.producer.id(), m.consumer.imm_data_len()), (1, 1, 4));
    assert_eq!(m.completion.max_receives(), DEPTH);
    let launcher = Launcher::new(&dpa).unwrap();
    let run = |l: Result<doca::dpa::Launch<'_>, Error>| l.and_then(|l| l.wait(LONG)).unwrap();
    let empty = DpaBuffer::<u64>::from_slice(&dpa, &[9]).unwrap();
    let to = m.consumer.id();
    run(launcher.launch(&doca_tests::comch_is_empty, 1, (&m.producer, to, &empty)));
    assert_eq!(empty.to_vec().unwrap(), [1], "no receive posted yet");
    run(launcher.launch(&doca_tests::comch_post_receives, 1, (&m.consumer, 3u32)));
    run(launcher.launch(&doca_tests::comch_is_empty, 1, (&m.producer, to, &empty)));
    assert_eq!(empty.to_vec().unwrap(), [0]);
    run(launcher.launch(&doca_tests::comch_send, 1, (&m.producer, to, 40u32, 3u32)));
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[0, 0, 0]).unwrap();
    run(launcher.launch(&doca_tests::comch_drain, 1, (&m.completion, &m.consumer, &out)));
    assert_eq!(out.to_vec().unwrap(), [3, 40 + 41 + 42, u64::from(m.producer.id())]);
    assert_eq!(dpa.health().unwrap(), doca::dpa::Health::Ok);
}

/// Stops in DOCA's order: the queue and the completion context are refused while
/// a consumer or producer holds them, each with the object back; a kernel's launch
/// holds what it was given until it finished.
#[test]
fn stops_are_refused_while_in_use_then_done_in_order() {
    let dpa = common::dpa();
    let m = setup::msgq(&dpa, false).unwrap();
    let queue = m.queue.stop().unwrap_err().into_parts().1.unwrap();
    let completion = m.completion.stop().unwrap_err().into_parts().1.unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    let launch = launcher
        .launch(&doca_tests::comch_post_receives, 1, (&m.consumer, 1u32))
        .unwrap();
    launch.wait(LONG).unwrap();
    m.consumer.stop().unwrap();
    let queue = match queue.stop() {
        Err(e) => {
            assert!(matches!(e.error(), Error::InUse { users: 1, .. }), "{}", e.error());
            e.into_parts().1.unwrap()
        }
        Ok(()) => panic!("the queue stopped while its producer holds it"),
    };
    m.producer.stop().unwrap();
    queue.stop().unwrap();
    completion.stop().unwrap();
    assert_eq!(dpa.health().unwrap(), doca::dpa::Health::Ok);
}

/// Sizes are checked before DOCA is called where the rule is known; DOCA's own
/// refusals come back as its codes, and nothing is left half-built.
#[test]
fn configuration_errors_are_typed() {
    let dpa = common::dpa();
    let scope = common::LiveObjects::new();
    let zero = MessageQueueBuilder::new(&dpa).unwrap().max_consumers(0).unwrap_err();
    assert!(zero.is_invalid_argument(), "{zero}");
    let (thread, _arg) = setup::idle_thread(&dpa).unwrap();
    let e = ConsumerCompletionBuilder::new(&thread).unwrap().max_receives(0).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    let e = ConsumerCompletionBuilder::new(&thread).unwrap().imm_data_len(33).unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::INVALID_VALUE), "{e}");

    // One consumer allowed: a second is DOCA's NO_MEMORY.
    let queue = MessageQueueBuilder::new(&dpa)
        .unwrap()
        .max_consumers(1)
        .unwrap()
        .max_producers(1)
        .unwrap()
        .start()
        .unwrap();
    let completion = setup::completion(&thread, false).unwrap();
    let first = queue.consumer(&completion).unwrap();
    let e = queue.consumer(&completion).unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::NO_MEMORY), "{e}");
    // More immediate data than the completion context holds: its start fails, and
    // the consumer is destroyed.
    let e = first.imm_data_len(8).unwrap().start().unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::INVALID_VALUE), "{e}");
    let e = queue.consumer(&completion).unwrap().imm_data_len(0).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    let sends = CompletionBuilder::new(&dpa, 16).unwrap().start().unwrap();
    let e = queue.producer(&sends).unwrap().max_sends(0).unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    drop((queue, completion, sends, thread));
    if let Some(live) = scope.all() {
        for kind in ["doca_comch_msgq", "doca_comch_consumer", "doca_comch_producer", "doca_comch_consumer_completion"] {
            assert_eq!(live.get(kind).copied().unwrap_or(0), 0, "{kind}: {live:?}");
        }
    }
    assert_eq!(dpa.health().unwrap(), doca::dpa::Health::Ok);
}
