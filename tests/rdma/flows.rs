//! The DOCA RDMA tests proper (compiled only in builds with DOCA RDMA; see
//! `tests/rdma_flows.rs`).

use std::time::Duration;

use doca::dpa::{
    AccessFlags, CompletionBuilder, Dpa, DpaBuffer, DpaMmap, Error, ErrorCode, Launcher,
    RdmaExport, SignalEvent,
};
use doca::rdma::{Availability, Connection, Rdma, RdmaBuilder, RemoteEvent, RemoteMmap};

use crate::common::{self, doca_tests};

const LONG: Duration = Duration::from_secs(20);

/// A started context on `dpa` (see `setup::rdma`).
fn rdma(dpa: &Dpa, connections: u16) -> Rdma {
    crate::setup::rdma(dpa, connections).unwrap()
}

/// Two contexts connected once (see `setup::pair`).
fn pair(a: &Rdma, b: &Rdma) -> (Connection, Connection) {
    crate::setup::pair(a, b).unwrap()
}

#[test]
fn the_api_is_available() {
    assert_eq!(doca::rdma::availability(), Availability::Available);
    assert_eq!(doca::rdma::build_info::RDMA_ABSENT_REASON, None);
}

/// The initiator writes into the target's exported DPA memory through the remote
/// map made from the export's bytes, then signals the target's event through the
/// remote event made from its export: the host sees both.
#[test]
fn a_write_and_a_signal_reach_the_peer_through_its_exports() {
    let dpa = common::dpa();
    let (initiator, target) = (rdma(&dpa, 1), rdma(&dpa, 1));
    let (conn, _target_conn) = pair(&initiator, &target);

    // The target's side: memory for RDMA writes and an event the peer signals.
    let landing = DpaBuffer::<u64>::from_slice(&dpa, &[0, 0]).unwrap();
    let landing_map = DpaMmap::with_access(&dpa, &landing, 0, 2, AccessFlags::RDMA_ALL).unwrap();
    let export = landing_map.export_rdma().unwrap();
    assert_eq!(export.len(), 16);
    let signal = SignalEvent::new(&dpa).unwrap();
    let signal_bytes = signal.export().unwrap();

    // The initiator's side, from the bytes alone.
    let remote = RemoteMmap::new(&dpa, &RdmaExport::from_bytes(&export.to_bytes()).unwrap()).unwrap();
    assert_eq!((remote.addr(), remote.len()), (export.addr(), 16));
    let remote_signal = RemoteEvent::new(&dpa, &signal_bytes).unwrap();
    let src = DpaBuffer::<u64>::from_slice(&dpa, &[0x5eed_cafe]).unwrap();
    let src_map = DpaMmap::with_access(&dpa, &src, 0, 1, AccessFlags::LOCAL_READ_WRITE).unwrap();

    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(
            &doca_tests::rdma_write_signal,
            1,
            (
                &conn,
                conn.id(),
                &remote,
                remote.addr() + 8,
                &src_map,
                &src,
                8u64,
                &remote_signal,
            ),
        )
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(signal.wait_gt(0, LONG).unwrap(), 1);
    assert_eq!(landing.to_vec().unwrap(), [0, 0x5eed_cafe]);
    assert_eq!(dpa.health().unwrap(), doca::dpa::Health::Ok);
}

/// A send lands in the peer's posted receive; the receiver's completion says
/// how many bytes came.
#[test]
fn a_send_lands_in_a_posted_receive() {
    let dpa = common::dpa();
    let (a, b) = (rdma(&dpa, 1), rdma(&dpa, 1));
    let (a_conn, _b_conn) = pair(&a, &b);
    let inbox = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
    let inbox_map = DpaMmap::with_access(&dpa, &inbox, 0, 1, AccessFlags::LOCAL_READ_WRITE).unwrap();
    let outbox = DpaBuffer::<u64>::from_slice(&dpa, &[77]).unwrap();
    let outbox_map = DpaMmap::with_access(&dpa, &outbox, 0, 1, AccessFlags::LOCAL_READ_WRITE).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(&doca_tests::rdma_receive, 1, (&b, &inbox_map, &inbox, 8u64))
        .unwrap()
        .wait(LONG)
        .unwrap();
    launcher
        .launch(&doca_tests::rdma_send, 1, (&a_conn, a_conn.id(), &outbox_map, &outbox, 8u64))
        .unwrap()
        .wait(LONG)
        .unwrap();
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[0, 0]).unwrap();
    launcher
        .launch(&doca_tests::rdma_drain, 1, (b.completion(), &out))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(inbox.to_vec().unwrap(), [77]);
    assert_eq!(out.to_vec().unwrap(), [1, 8], "one receive of 8 bytes");
}

/// Garbage or empty peer details are errors, with the connection back: it then
/// connects with the right ones.
#[test]
fn garbage_peer_details_are_refused_and_the_connection_comes_back() {
    let dpa = common::dpa();
    let (a, b) = (rdma(&dpa, 1), rdma(&dpa, 1));
    let (x, y) = (a.export().unwrap(), b.export().unwrap());
    let e = x.connect(b"not connection details").unwrap_err();
    assert_eq!(e.error().call(), Some("doca_rdma_connect"));
    if doca::dpa::build_info::BACKEND == "sim" {
        assert_eq!(e.error().code(), Some(ErrorCode::CONNECTION_ABORTED), "{e}");
    }
    let (_, x) = e.into_parts();
    let e = x.connect(&[]).unwrap_err();
    assert!(e.error().is_invalid_argument(), "{e}");
    assert!(e.to_string().contains("empty"), "{e}");
    let (_, x) = e.into_parts();
    let x_details = x.details().to_vec();
    let x = x.connect(y.details()).unwrap();
    let y = y.connect(&x_details).unwrap();
    assert_eq!((x.id(), y.id()), (0, 0));
}

/// Bytes that are no memory export are refused before DOCA is called, each with
/// the reason; a remote event from garbage is DOCA's error.
#[test]
fn garbage_exports_are_refused() {
    let dpa = common::dpa();
    let cases: [(&[u8], &str); 3] = [
        (b"", "is not one of doca-rs"),
        (b"doca-rs/rdmamap\x09xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "has version 9"),
        (b"doca-rs/rdmamap\x01\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x05\0\0\0ab", "says its DOCA descriptor has 5 bytes"),
    ];
    for (bytes, why) in cases {
        let e = RdmaExport::from_bytes(bytes).unwrap_err();
        assert!(e.is_invalid_argument() && e.to_string().contains(why), "{e}");
    }
    let empty_range = {
        let landing = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
        let map = DpaMmap::with_access(&dpa, &landing, 0, 1, AccessFlags::RDMA_ALL).unwrap();
        let mut bytes = map.export_rdma().unwrap().to_bytes();
        bytes[24..32].fill(0);
        bytes
    };
    let e = RdmaExport::from_bytes(&empty_range).unwrap_err();
    assert!(e.to_string().contains("impossible range"), "{e}");
    assert!(RemoteEvent::new(&dpa, &[]).unwrap_err().is_invalid_argument());
    let e = RemoteEvent::new(&dpa, b"garbage garbage garbage").unwrap_err();
    assert_eq!(e.call(), Some("doca_sync_event_remote_net_create_from_export"));
}

/// The configuration's own rules, the device's queue-size capabilities, and
/// DOCA's limit on connections.
#[test]
fn configuration_is_checked() {
    let dpa = common::dpa();
    let completion = CompletionBuilder::new(&dpa, 16).unwrap().start().unwrap();
    let b = RdmaBuilder::new(&dpa, &completion).unwrap();
    assert!(b.max_connections(0).unwrap_err().is_invalid_argument());
    let b = RdmaBuilder::new(&dpa, &completion).unwrap();
    assert!(b.recv_queue_size(0).unwrap_err().is_invalid_argument());
    let b = RdmaBuilder::new(&dpa, &completion).unwrap();
    assert!(b.send_queue_size(0).unwrap_err().is_invalid_argument());
    // Beyond the device's capability (2^15 on the sim): refused by start, with
    // the bound, before anything is made.
    let b = RdmaBuilder::new(&dpa, &completion).unwrap();
    let e = b.recv_queue_size(1 << 16).unwrap().start().unwrap_err();
    assert!(e.is_invalid_argument(), "{e}");
    assert_eq!(e.call(), Some("doca_rdma_set_recv_queue_size"), "{e}");
    assert!(e.to_string().contains("at most 32768"), "{e}");
    let b = RdmaBuilder::new(&dpa, &completion).unwrap();
    let e = b.send_queue_size(1 << 16).unwrap().start().unwrap_err();
    assert!(e.to_string().contains("a send queue of 65536 entries"), "{e}");
    let b = RdmaBuilder::new(&dpa, &completion).unwrap();
    let at_the_bound = b.recv_queue_size(1 << 15).unwrap().send_queue_size(1 << 15).unwrap();
    at_the_bound.start().unwrap();
    let one = rdma(&dpa, 1);
    let _first = one.export().unwrap();
    let e = one.export().unwrap_err();
    assert_eq!(e.code(), Some(ErrorCode::FULL), "{e}");
    assert_eq!(one.exported(), 1);
}

/// A completion of another DPA context is refused before DOCA is called; so is
/// the context's handle in a launch on another DPA context.
#[test]
fn another_dpa_context_is_refused() {
    let (dpa, other) = (common::dpa(), common::dpa());
    let foreign = CompletionBuilder::new(&other, 16).unwrap().start().unwrap();
    let e = RdmaBuilder::new(&dpa, &foreign).unwrap_err();
    assert!(e.is_invalid_argument() && e.to_string().contains("DPA context"), "{e}");

    let r = rdma(&dpa, 1);
    let go = DpaBuffer::<u64>::from_slice(&other, &[1]).unwrap();
    let out = DpaBuffer::<u64>::from_slice(&other, &[0]).unwrap();
    let launcher = Launcher::new(&other).unwrap();
    match launcher.launch(&doca_tests::sound_hold_rdma, 1, (&go, &r, &out)) {
        Err(e) => assert!(e.is_invalid_argument() && e.to_string().contains("DPA context"), "{e}"),
        Ok(_) => panic!("an RDMA handle of another DPA context was launched with"),
    }
}

/// An explicit stop is refused while a connection holds the context, and works
/// once nothing does.
#[test]
fn stop_waits_for_every_user() {
    let dpa = common::dpa();
    let (a, b) = (rdma(&dpa, 1), rdma(&dpa, 1));
    let (x, y) = pair(&a, &b);
    let a = match a.stop() {
        Err(e) => {
            assert!(matches!(e.error(), Error::InUse { .. }), "{e}");
            e.into_parts().1.expect("the context comes back")
        }
        Ok(()) => panic!("a context with a connection was stopped"),
    };
    drop(x);
    a.stop().unwrap();
    drop((y, b));
}

/// The peer's map (and its memory) is gone when this side writes through its
/// remote map: the write fails at this side (an error completion), as an RDMA
/// write to a deregistered region does, and never reaches freed memory.
#[test]
fn a_write_to_a_peer_map_that_is_gone_fails_at_the_initiator() {
    let dpa = common::dpa();
    let (initiator, target) = (rdma(&dpa, 1), rdma(&dpa, 1));
    let (conn, _target_conn) = pair(&initiator, &target);
    let export = {
        let landing = DpaBuffer::<u64>::from_slice(&dpa, &[0]).unwrap();
        let map = DpaMmap::with_access(&dpa, &landing, 0, 1, AccessFlags::RDMA_ALL).unwrap();
        map.export_rdma().unwrap()
    };
    let remote = RemoteMmap::new(&dpa, &export).unwrap();
    let signal = SignalEvent::new(&dpa).unwrap();
    let remote_signal = RemoteEvent::new(&dpa, &signal.export().unwrap()).unwrap();
    let src = DpaBuffer::<u64>::from_slice(&dpa, &[7]).unwrap();
    let src_map = DpaMmap::with_access(&dpa, &src, 0, 1, AccessFlags::LOCAL_READ_WRITE).unwrap();
    let launcher = Launcher::new(&dpa).unwrap();
    launcher
        .launch(
            &doca_tests::rdma_write_signal,
            1,
            (&conn, conn.id(), &remote, remote.addr(), &src_map, &src, 8u64, &remote_signal),
        )
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert_eq!(dpa.health().unwrap(), doca::dpa::Health::Ok, "{:?}", dpa.fault_report());
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[0, 0]).unwrap();
    launcher
        .launch(&doca_tests::rdma_drain, 1, (initiator.completion(), &out))
        .unwrap()
        .wait(LONG)
        .unwrap();
    assert!(out.to_vec().unwrap()[0] >= 1, "no error completion at the initiator");
}
