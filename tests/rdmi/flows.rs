//! The RDMI tests proper (compiled only in builds with RDMI; see
//! `tests/rdmi_flows.rs`).

use std::time::Duration;

use doca::dpa::{
    Completion, CompletionBuilder, Device, Dpa, DpaBuffer, ErrorCode, ErrorKind, Launcher,
    Representor, RepresentorFilter, ThreadBuilder,
};
use doca::rdmi::{
    sys, Availability, CompletionQueue, CompletionSource, Connection, ConnectionBuilder,
    CqAttributes, CqEntrySize, CtxState, Poster, PosterBuilder, ProtectionDomain, ReceiveBuffer,
    VerbsContext, SIM_SLOT_BYTES,
};

use crate::common::{self, doca_tests};

const LONG: Duration = Duration::from_secs(20);

/// Whether the software DPA runs the tests (its loopback device functions
/// and test hooks exist only there).
fn sim() -> bool {
    doca::dpa::build_info::BACKEND == "sim"
}

/// Returns early from a test that needs the sim, saying why.
macro_rules! sim_only {
    ($why:expr) => {
        if !sim() {
            eprintln!(
                "skipped on {}: {} (DOCA's device-side RDMI API is not public; this test uses \
                 the software DPA's loopback device functions or test hooks)",
                doca::dpa::build_info::BACKEND,
                $why
            );
            return;
        }
    };
}

/// The objects every test needs: a started DPA context, a representor, a
/// verbs context and a protection domain on the test device.
struct Fx {
    device: Device,
    dpa: Dpa,
    rep: Representor,
    verbs: VerbsContext,
    pd: ProtectionDomain,
}

fn fx() -> Fx {
    common::on_the_dpu_side();
    let dpa = common::dpa();
    let device = dpa.device().clone();
    let rep = device
        .open_representors(RepresentorFilter::NET)
        .unwrap()
        .into_iter()
        .next()
        .expect("the test device has no network representor");
    let verbs = VerbsContext::new(&device).unwrap();
    let pd = ProtectionDomain::new(&verbs).unwrap();
    Fx {
        device,
        dpa,
        rep,
        verbs,
        pd,
    }
}

impl Fx {
    /// A started DPA completion context without a thread (kernels poll it).
    fn completion(&self) -> Completion {
        CompletionBuilder::new(&self.dpa, 64)
            .unwrap()
            .start()
            .unwrap()
    }

    fn connection(&self, comp: &Completion, slots: usize) -> Connection {
        ConnectionBuilder::new(
            &self.verbs,
            &self.rep,
            &self.dpa,
            CompletionSource::Dpa(comp),
            ReceiveBuffer::with_slots(slots).unwrap(),
        )
        .pd(&self.pd)
        .start()
        .unwrap()
    }

    fn poster(&self, comp: &Completion) -> Poster {
        PosterBuilder::new(&self.verbs, &self.dpa, CompletionSource::Dpa(comp))
            .pd(&self.pd)
            .start()
            .unwrap()
    }
}

/// Launches `rdmi_test_send`: `count` messages numbered from `first`;
/// returns (sent, first error code).
fn send(fx: &Fx, poster: &Poster, conn: &Connection, count: u32, first: u32) -> (u64, u64) {
    let out = DpaBuffer::<u64>::new(&fx.dpa, 2).unwrap();
    let launcher = Launcher::new(&fx.dpa).unwrap();
    launcher
        .launch(
            &doca_tests::rdmi_test_send,
            1,
            (poster, conn, count, first, &out),
        )
        .unwrap()
        .wait(LONG)
        .unwrap();
    let v = out.to_vec().unwrap();
    (v[0], v[1])
}

/// Launches `rdmi_test_consume`; returns its code.
fn consume(fx: &Fx, conn: &Connection, n: u32) -> u64 {
    let out = DpaBuffer::<u64>::new(&fx.dpa, 1).unwrap();
    let launcher = Launcher::new(&fx.dpa).unwrap();
    launcher
        .launch(
            &doca_tests::rdmi_test_consume,
            1,
            (conn, n, &out),
        )
        .unwrap()
        .wait(LONG)
        .unwrap();
    out.to_vec().unwrap()[0]
}

/// A completion element as `rdmi_test_drain` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Element {
    kind: u64,
    user_data: u64,
    immediate: u64,
}

const COMP_SEND: u64 = 0x0;
const COMP_RECV_SEND: u64 = 0x2;

/// Launches `rdmi_test_drain`: every element waiting on `comp`.
fn drain(fx: &Fx, comp: &Completion) -> Vec<Element> {
    const MAX: usize = 32;
    let out = DpaBuffer::<u64>::new(&fx.dpa, MAX + 1).unwrap();
    let launcher = Launcher::new(&fx.dpa).unwrap();
    launcher
        .launch(
            &doca_tests::rdmi_test_drain,
            1,
            (comp, &out, MAX as u32),
        )
        .unwrap()
        .wait(LONG)
        .unwrap();
    let v = out.to_vec().unwrap();
    v[1..=v[0] as usize]
        .iter()
        .map(|w| Element {
            kind: w >> 56,
            user_data: (w >> 32) & 0xff_ffff,
            immediate: w & 0xffff_ffff,
        })
        .collect()
}

/// The bytes `rdmi_test_send` sends as message `n`.
fn message(n: u32) -> Vec<u8> {
    (0..16u32).map(|j| (n * 16 + j) as u8).collect()
}

#[test]
fn rdmi_is_available_and_its_symbols_are_present() {
    assert_eq!(doca::rdmi::availability(), Availability::Available);
    assert!(doca::rdmi::absent_reasons().is_empty());
    for name in [
        "doca_rdmi_connection_create",
        "doca_rdmi_connection_destroy",
        "doca_rdmi_connection_as_ctx",
        "doca_rdmi_connection_set_pd",
        "doca_rdmi_connection_init_receive",
        "doca_rdmi_connection_dpa_completion_attach",
        "doca_rdmi_connection_cq_attach",
        "doca_rdmi_connection_set_input",
        "doca_rdmi_connection_get_dpa_handle",
        "doca_rdmi_connection_recv_ack",
        "doca_rdmi_connection_get_app_rq_info",
        "doca_rdmi_poster_create",
        "doca_rdmi_poster_destroy",
        "doca_rdmi_poster_as_ctx",
        "doca_rdmi_poster_dpa_completion_attach",
        "doca_rdmi_poster_cq_attach",
        "doca_rdmi_poster_get_dpa_handle",
        "doca_rdmi_poster_post",
        "doca_ctx_set_datapath_on_dpa",
        "doca_verbs_context_create",
    ] {
        let row = doca::rdmi::build_info::SYMBOLS
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("{name} is not in the audit"));
        assert!(row.usable, "{name} is not usable: {row:?}");
        assert_ne!(row.exported, Some(false), "{name} is not exported");
    }
    if sim() {
        // Like DOCA's public headers, the reference header does not declare
        // the connection's `_as_ctx`; the library exports it.
        let as_ctx = doca::rdmi::build_info::SYMBOLS
            .iter()
            .find(|s| s.name == "doca_rdmi_connection_as_ctx")
            .unwrap();
        assert!(!as_ctx.declared && as_ctx.exported == Some(true));
    }
}

#[test]
fn verbs_objects_are_made_with_their_attributes_and_die_after_their_users() {
    let fx = fx();
    let attrs = fx.verbs.query_device().unwrap();
    assert!(attrs.dpa_external_datapath, "the test device has a DPA");
    assert!(attrs.max_cq > 0 && attrs.max_pd > 0);

    let objects = common::LiveObjects::new();
    let counter = DpaBuffer::<u64>::from_slice(&fx.dpa, &[0]).unwrap();
    let thread = ThreadBuilder::new(&fx.dpa, &doca_tests::count_activations, (&counter,))
        .unwrap()
        .start()
        .unwrap();
    let cq_attrs = CqAttributes::new(64)
        .entry_size(CqEntrySize::Bytes128)
        .overrun(true)
        .dpa_thread(&thread)
        .unwrap();
    let cq = CompletionQueue::new(&fx.verbs, &cq_attrs).unwrap();
    drop(cq_attrs);
    assert_eq!(cq.attributes().size(), 64);
    assert_eq!(cq.attributes().bound_thread_id(), Some(thread.id().unwrap()));
    // The CQ, not the host's handle, keeps the thread it delivers to.
    drop(thread);
    let live_threads = || {
        objects
            .all()
            .and_then(|all| all.get("doca_dpa_thread").copied())
    };
    if sim() {
        assert_eq!(live_threads(), Some(1), "the CQ let its thread go");
    }
    assert_ne!(cq.number(), 0);
    assert!(CompletionQueue::new(&fx.verbs, &CqAttributes::new(0))
        .unwrap_err()
        .is_invalid_argument());

    // A parent cannot be destroyed explicitly while its children live...
    match fx.verbs.clone().destroy().unwrap_err() {
        doca::rdmi::Error::InUse { call, .. } => assert_eq!(call, "doca_verbs_context_destroy"),
        other => panic!("expected InUse, got {other}"),
    }
    // ...and dropping it keeps it alive for them.
    let Fx { verbs, pd, dpa, .. } = fx;
    drop(verbs);
    assert!(pd.same_as(&pd.clone()));
    cq.destroy().unwrap();
    if sim() {
        assert_eq!(live_threads(), None, "the CQ's thread outlived it");
    }
    let verbs = pd.context().clone();
    pd.destroy().unwrap();
    verbs.destroy().unwrap();
    drop((counter, dpa));
}

#[test]
fn every_lifecycle_row_starts_hands_out_handles_and_stops() {
    let fx = fx();
    let comp = fx.completion();
    let cq = CompletionQueue::new(&fx.verbs, &CqAttributes::new(32)).unwrap();
    let sources = [CompletionSource::Dpa(&comp), CompletionSource::Cq(&cq)];
    for (i, source) in sources.into_iter().enumerate() {
        for with_pd in [false, true] {
            let row = format!("source #{i}, pd {with_pd}");
            let mut builder = ConnectionBuilder::new(
                &fx.verbs,
                &fx.rep,
                &fx.dpa,
                source,
                ReceiveBuffer::with_slots(4).unwrap(),
            );
            let mut pb = PosterBuilder::new(&fx.verbs, &fx.dpa, source);
            if with_pd {
                builder = builder.pd(&fx.pd);
                pb = pb.pd(&fx.pd);
            }
            if sim() {
                // Firmware-command blocks are passed through unchecked; only
                // the sim gets arbitrary ones.
                builder = builder.input(1, &[1, 2, 3, 4]);
                pb = pb.input(2, &[5, 6]);
            }
            let conn = builder.start().unwrap_or_else(|e| panic!("{row}: {e}"));
            let poster = pb.start().unwrap_or_else(|e| panic!("{row}: {e}"));
            assert_eq!(conn.state().unwrap(), CtxState::Running, "{row}");
            assert_eq!(poster.state().unwrap(), CtxState::Running, "{row}");
            // SAFETY: the values are only compared, never given to the device.
            let (c, p) = unsafe { (conn.raw_handle(), poster.raw_handle()) };
            assert!(c != 0 && p != 0 && c != p, "{row}");
            let rq = conn.app_rq_info().unwrap();
            assert_eq!(rq.size as usize, 4 * SIM_SLOT_BYTES, "{row}");
            assert_eq!(conn.receive_len(), 4 * SIM_SLOT_BYTES);
            assert_eq!(conn.slot_bytes(), SIM_SLOT_BYTES);
            poster.stop().unwrap_or_else(|e| panic!("{row}: {e}"));
            let buf = conn.stop().unwrap_or_else(|e| panic!("{row}: {e}"));
            assert_eq!(buf.len(), 4 * SIM_SLOT_BYTES, "{row}");
            assert!(buf.as_slice().iter().all(|b| *b == 0), "{row}");
        }
    }
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn doca_calls_follow_the_documented_order() {
    sim_only!("reads the sim's call log");
    let fx = fx();
    let comp = fx.completion();
    let scope = doca::sim::Scope::new();
    let conn = ConnectionBuilder::new(
        &fx.verbs,
        &fx.rep,
        &fx.dpa,
        CompletionSource::Dpa(&comp),
        ReceiveBuffer::with_slots(4).unwrap(),
    )
    .pd(&fx.pd)
    .input(7, &[1; 8])
    .start()
    .unwrap();
    conn.stop().unwrap();
    let log = scope.call_log();
    let expected = [
        "doca_rdmi_connection_create",
        "doca_rdmi_connection_set_pd",
        "doca_ctx_set_datapath_on_dpa",
        "doca_rdmi_connection_dpa_completion_attach",
        "doca_rdmi_connection_init_receive",
        "doca_rdmi_connection_set_input",
        "doca_ctx_start",
        "doca_rdmi_connection_get_dpa_handle",
        "doca_ctx_stop",
        "doca_rdmi_connection_destroy",
    ];
    let got: Vec<&str> = log
        .iter()
        .copied()
        .filter(|f| expected.contains(f))
        .collect();
    assert_eq!(got, expected, "full log: {log:?}");

    scope.reset_calls();
    let poster = PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Dpa(&comp))
        .pd(&fx.pd)
        .input(3, &[9; 4])
        .start()
        .unwrap();
    poster.stop().unwrap();
    let expected = [
        "doca_rdmi_poster_create",
        "doca_rdmi_poster_set_pd",
        "doca_ctx_set_datapath_on_dpa",
        "doca_rdmi_poster_dpa_completion_attach",
        "doca_rdmi_poster_set_input",
        "doca_ctx_start",
        "doca_rdmi_poster_get_dpa_handle",
        "doca_ctx_stop",
        "doca_rdmi_poster_destroy",
    ];
    let log = scope.call_log();
    let got: Vec<&str> = log
        .iter()
        .copied()
        .filter(|f| expected.contains(f))
        .collect();
    assert_eq!(got, expected, "full log: {log:?}");
    assert_eq!(scope.live_total(), 0, "{:?}", scope.live_objects());
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn dropping_everything_tears_down_in_dpas_order() {
    sim_only!("reads the sim's call log and live-object accounting");
    let scope = doca::sim::Scope::new();
    {
        let fx = fx();
        let comp = fx.completion();
        let cq = CompletionQueue::new(&fx.verbs, &CqAttributes::new(16)).unwrap();
        // Connection first, poster second; then drop the verbs handles the
        // test holds before the RDMI objects, which keep them alive.
        let conn = fx.connection(&comp, 4);
        let poster = PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Cq(&cq))
            .pd(&fx.pd)
            .start()
            .unwrap();
        let Fx {
            verbs,
            pd,
            dpa,
            rep,
            ..
        } = fx;
        drop((verbs, pd, rep));
        scope.reset_calls();
        drop((poster, conn));
        let _ = (cq, comp, dpa);
    }
    let log = scope.call_log();
    let pos = |f: &str| {
        log.iter()
            .position(|g| *g == f)
            .unwrap_or_else(|| panic!("{f} was not called: {log:?}"))
    };
    // Each object is stopped before it is destroyed, posters go before
    // connections (a tuple drops its fields in order), and every object an
    // RDMI object uses outlives it.
    assert!(pos("doca_rdmi_poster_destroy") > pos("doca_ctx_stop"));
    assert!(pos("doca_rdmi_poster_destroy") < pos("doca_rdmi_connection_destroy"));
    assert!(pos("doca_rdmi_poster_destroy") < pos("doca_verbs_cq_destroy"));
    assert!(pos("doca_rdmi_connection_destroy") < pos("doca_verbs_pd_destroy"));
    assert!(pos("doca_rdmi_poster_destroy") < pos("doca_verbs_pd_destroy"));
    assert!(pos("doca_verbs_pd_destroy") < pos("doca_verbs_context_destroy"));
    assert!(pos("doca_rdmi_connection_destroy") < pos("doca_dpa_completion_destroy"));
    assert!(pos("doca_verbs_context_destroy") < pos("doca_dpa_destroy"));
    assert!(pos("doca_dpa_completion_destroy") < pos("doca_dpa_destroy"));
    assert_eq!(scope.live_total(), 0, "{:?}", scope.live_objects());
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn locals_drop_posters_before_connections() {
    sim_only!("reads the sim's call log");
    let fx = fx();
    let comp = fx.completion();
    let scope = doca::sim::Scope::new();
    {
        let _conn = fx.connection(&comp, 4);
        let _poster = fx.poster(&comp);
    }
    let log = scope.call_log();
    let pos = |f: &str| log.iter().position(|g| *g == f).unwrap();
    assert!(pos("doca_rdmi_poster_destroy") < pos("doca_rdmi_connection_destroy"));
}

#[test]
fn dpa_handles_make_the_round_trip_through_a_kernel() {
    let fx = fx();
    let comp = fx.completion();
    let conn = fx.connection(&comp, 4);
    let poster = fx.poster(&comp);
    let out = DpaBuffer::<u64>::new(&fx.dpa, 2).unwrap();
    out.fill_bytes(0).unwrap();
    let launcher = Launcher::new(&fx.dpa).unwrap();
    launcher
        .launch(
            &doca_tests::rdmi_test_record,
            1,
            (&poster, &conn, &out),
        )
        .unwrap()
        .wait(LONG)
        .unwrap();
    let got = out.to_vec().unwrap();
    assert_ne!(got[0], 0);
    assert_ne!(got[1], 0);
    // SAFETY: the values are only compared, never given to the device.
    assert_eq!(got, unsafe { [conn.raw_handle(), poster.raw_handle()] });
}

#[test]
fn one_work_request_gives_exactly_one_completion_on_each_side() {
    sim_only!("needs doca_sim_dev_rdmi_send");
    let fx = fx();
    let conn_comp = fx.completion();
    let poster_comp = fx.completion();
    let conn = fx.connection(&conn_comp, 4);
    let poster = fx.poster(&poster_comp);

    assert_eq!(send(&fx, &poster, &conn, 1, 5), (1, 0));
    let recv = drain(&fx, &conn_comp);
    assert_eq!(
        recv,
        [Element {
            kind: COMP_RECV_SEND,
            user_data: 0,
            immediate: 16
        }],
        "one receive completion: slot 0, 16 bytes"
    );
    let sent = drain(&fx, &poster_comp);
    assert_eq!(
        sent,
        [Element {
            kind: COMP_SEND,
            user_data: 5,
            immediate: 16
        }]
    );
    assert!(drain(&fx, &conn_comp).is_empty(), "nothing more");
    assert!(drain(&fx, &poster_comp).is_empty(), "nothing more");
    assert_eq!(&conn.received(0).unwrap()[..16], &message(5)[..]);

    // A host-side post of one entry: exactly one completion.
    let mut cqe = [0u8; 64];
    let mkey = conn.app_rq_info().unwrap().mkey;
    // SAFETY: the sim only counts the entries; the buffer outlives the call.
    unsafe { poster.post(&mut cqe, 1, mkey) }.unwrap();
    assert_eq!(drain(&fx, &poster_comp).len(), 1);
    // SAFETY: refused before DOCA.
    assert!(unsafe { poster.post(&mut cqe, 0, mkey) }
        .unwrap_err()
        .is_invalid_argument());

    assert_eq!(consume(&fx, &conn, 1), 0);
    conn.recv_ack(1).unwrap();
}

#[test]
fn acknowledging_more_than_was_consumed_is_refused() {
    sim_only!("needs doca_sim_dev_rdmi_send/consume");
    let fx = fx();
    let comp = fx.completion();
    let conn = fx.connection(&comp, 8);
    let poster = fx.poster(&comp);
    assert_eq!(send(&fx, &poster, &conn, 3, 0), (3, 0));
    for slot in 0..3 {
        assert_eq!(
            &conn.received(slot).unwrap()[..16],
            &message(slot as u32)[..]
        );
    }
    assert_eq!(consume(&fx, &conn, 2), 0);
    let err = conn.recv_ack(3).unwrap_err();
    assert_eq!(err.code(), Some(ErrorCode::INVALID_VALUE), "{err}");
    assert_eq!(err.call(), Some("doca_rdmi_connection_recv_ack"));
    conn.recv_ack(2).unwrap();
    assert!(conn.recv_ack(1).is_err(), "the third is not consumed yet");
    assert_eq!(consume(&fx, &conn, 1), 0);
    conn.recv_ack(1).unwrap();
    // The kernel cannot consume what was not received either.
    assert_ne!(consume(&fx, &conn, 1), 0);
    drain(&fx, &comp);
}

#[test]
fn a_full_receive_window_refuses_until_the_host_acknowledges() {
    sim_only!("needs doca_sim_dev_rdmi_send/consume");
    let fx = fx();
    let conn_comp = fx.completion();
    let poster_comp = fx.completion();
    let conn = fx.connection(&conn_comp, 2);
    let poster = fx.poster(&poster_comp);
    let (sent, code) = send(&fx, &poster, &conn, 3, 0);
    assert_eq!(sent, 2);
    assert_eq!(code as i64, i64::from(ErrorCode::AGAIN.0), "window full");
    assert_eq!(consume(&fx, &conn, 2), 0);
    conn.recv_ack(2).unwrap();
    assert_eq!(send(&fx, &poster, &conn, 1, 9), (1, 0));
    let recv = drain(&fx, &conn_comp);
    assert_eq!(recv.len(), 3);
    assert_eq!(recv[2].user_data, 0, "the third message wrapped to slot 0");
    assert_eq!(&conn.received(0).unwrap()[..16], &message(9)[..]);
    drain(&fx, &poster_comp);
    assert_eq!(consume(&fx, &conn, 1), 0);
    conn.recv_ack(1).unwrap();
}

#[test]
fn a_stop_with_unacknowledged_receives_finishes_once_they_are_acknowledged() {
    sim_only!("needs receives in flight (doca_sim_dev_rdmi_send/consume)");
    let fx = fx();
    let conn_comp = fx.completion();
    let poster_comp = fx.completion();
    let conn = fx.connection(&conn_comp, 4);
    let poster = fx.poster(&poster_comp);
    assert_eq!(send(&fx, &poster, &conn, 2, 1), (2, 0));
    assert_eq!(consume(&fx, &conn, 2), 0);
    poster.stop().unwrap();

    let stopping = conn.request_stop().unwrap();
    assert!(stopping.is_draining(), "doca_ctx_stop answered IN_PROGRESS");
    assert_eq!(stopping.state().unwrap(), CtxState::Stopping);
    let err = stopping.wait(Duration::from_millis(30)).unwrap_err();
    assert_eq!(err.error().kind(), ErrorKind::Timeout, "{err}");
    let stopping = err.into_inner();
    assert_eq!(&stopping.received(1).unwrap()[..16], &message(2)[..]);
    stopping.recv_ack(2).unwrap();
    let buffer = stopping.wait(LONG).unwrap();
    assert_eq!(buffer.slot(0).unwrap()[..16], message(1)[..]);
    assert_eq!(buffer.slot(1).unwrap()[..16], message(2)[..]);
    assert_eq!(buffer.slots(), 4);
    drain(&fx, &conn_comp);
    drain(&fx, &poster_comp);
}

#[test]
fn waiting_for_a_stop_is_bounded() {
    sim_only!("needs receives in flight (doca_sim_dev_rdmi_send/consume)");
    let fx = fx();
    let comp = fx.completion();
    let conn = ConnectionBuilder::new(
        &fx.verbs,
        &fx.rep,
        &fx.dpa,
        CompletionSource::Dpa(&comp),
        ReceiveBuffer::with_slots(4).unwrap(),
    )
    .stop_timeout(Duration::from_millis(20))
    .start()
    .unwrap();
    let poster = PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Dpa(&comp))
        .start()
        .unwrap();
    assert_eq!(send(&fx, &poster, &conn, 1, 0), (1, 0));
    assert_eq!(consume(&fx, &conn, 1), 0);
    // Not acknowledged: the stop cannot finish, and the wait gives up in
    // time, handing the connection back.
    let started = std::time::Instant::now();
    let err = conn
        .request_stop()
        .unwrap()
        .wait(Duration::from_millis(20))
        .unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(err.error().code(), Some(ErrorCode::TIME_OUT));
    let stopping = err.into_inner();
    stopping.recv_ack(1).unwrap();
    stopping.wait(LONG).unwrap();
    drop(poster);
    drain(&fx, &comp);
}

#[test]
fn the_default_slot_size_is_the_installed_doca_s_or_none() {
    match ReceiveBuffer::default_slot_bytes() {
        Ok(bytes) => {
            assert!(sim(), "hardware DOCA publishes no receive layout");
            assert_eq!(bytes, SIM_SLOT_BYTES);
            assert_eq!(ReceiveBuffer::with_slots(3).unwrap().len(), 3 * bytes);
        }
        Err(e) => {
            assert!(!sim() && e.is_not_supported(), "{e}");
            assert!(e.to_string().contains("with_slot_bytes"), "{e}");
            assert!(ReceiveBuffer::new(64).unwrap_err().is_not_supported());
        }
    }
}

#[test]
fn misuse_the_types_cannot_rule_out_is_an_error() {
    let fx = fx();
    let comp = fx.completion();

    // Arguments refused before any DOCA call.
    assert!(ReceiveBuffer::new(0).unwrap_err().is_invalid_argument());
    assert!(ReceiveBuffer::with_slot_bytes(64, 128)
        .unwrap_err()
        .is_invalid_argument());
    let err = ConnectionBuilder::new(
        &fx.verbs,
        &fx.rep,
        &fx.dpa,
        CompletionSource::Dpa(&comp),
        ReceiveBuffer::new(64).unwrap(),
    )
    .input(1, &[])
    .start()
    .unwrap_err();
    assert!(err.is_invalid_argument(), "{err}");
    assert!(
        PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Dpa(&comp))
            .input(1, &[])
            .start()
            .unwrap_err()
            .is_invalid_argument()
    );

    // A protection domain of another verbs context.
    let other_verbs = VerbsContext::new(&fx.device).unwrap();
    let other_pd = ProtectionDomain::new(&other_verbs).unwrap();
    let err = ConnectionBuilder::new(
        &fx.verbs,
        &fx.rep,
        &fx.dpa,
        CompletionSource::Dpa(&comp),
        ReceiveBuffer::new(64).unwrap(),
    )
    .pd(&other_pd)
    .start()
    .unwrap_err();
    // Refused before DOCA is called (DOCA answers INVALID_VALUE): each verbs
    // context is a lock domain of its own.
    assert!(err.is_invalid_argument() && err.code().is_none(), "{err}");
    assert_eq!(err.call(), Some("doca_rdmi_connection_set_pd"));
    let err = PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Dpa(&comp))
        .pd(&other_pd)
        .start()
        .unwrap_err();
    assert_eq!(err.call(), Some("doca_rdmi_poster_set_pd"), "{err}");
    // A completion queue of another verbs context, refused the same way.
    let other_cq = CompletionQueue::new(&other_verbs, &CqAttributes::new(16)).unwrap();
    let err = PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Cq(&other_cq))
        .start()
        .unwrap_err();
    assert!(err.is_invalid_argument() && err.code().is_none(), "{err}");
    assert_eq!(err.call(), Some("doca_rdmi_poster_cq_attach"), "{err}");

    // A DPA completion of another DPA context than the datapath.
    let other_dpa = common::dpa();
    let foreign = CompletionBuilder::new(&other_dpa, 16)
        .unwrap()
        .start()
        .unwrap();
    // Refused before DOCA is called (real DOCA does not check it on attach).
    let err = PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Dpa(&foreign))
        .start()
        .unwrap_err();
    assert!(err.is_invalid_argument(), "{err}");
    assert_eq!(err.code(), None, "{err}");
    let err = ConnectionBuilder::new(
        &fx.verbs,
        &fx.rep,
        &fx.dpa,
        CompletionSource::Dpa(&foreign),
        ReceiveBuffer::new(64).unwrap(),
    )
    .start()
    .unwrap_err();
    assert!(err.is_invalid_argument() && err.code().is_none(), "{err}");

    // Reading a slot that does not exist.
    let conn = fx.connection(&comp, 2);
    assert!(conn.received(2).unwrap_err().is_invalid_argument());
    let mut big = [0u8; SIM_SLOT_BYTES + 1];
    assert!(conn
        .read_slot(0, &mut big)
        .unwrap_err()
        .is_invalid_argument());
    drop(conn);

    if sim() {
        // Posters and connections with different PDs meet on the device.
        let conn = fx.connection(&comp, 2);
        let other_pd_same_ctx = ProtectionDomain::new(&fx.verbs).unwrap();
        let poster = PosterBuilder::new(&fx.verbs, &fx.dpa, CompletionSource::Dpa(&comp))
            .pd(&other_pd_same_ctx)
            .start()
            .unwrap();
        let (sent, code) = send(&fx, &poster, &conn, 1, 0);
        assert_eq!(sent, 0);
        assert_eq!(code as i64, i64::from(ErrorCode::INVALID_VALUE.0));
    }
}

#[test]
fn rdmi_on_a_device_without_dpa_is_not_supported() {
    let Some(info) = doca::dpa::devices()
        .unwrap()
        .into_iter()
        .find(|d| !d.has_dpa)
    else {
        eprintln!("skipped: no device without a DPA here");
        return;
    };
    let fx = fx();
    let comp = fx.completion();
    let other = info.open().unwrap();
    let verbs = VerbsContext::new(&other).unwrap();
    let err = PosterBuilder::new(&verbs, &fx.dpa, CompletionSource::Dpa(&comp))
        .start()
        .unwrap_err();
    assert!(err.is_not_supported(), "{err}");
}

#[test]
fn attaching_after_start_is_bad_state_through_the_raw_layer() {
    let fx = fx();
    let comp = fx.completion();
    let spare = fx.completion();
    let cq = CompletionQueue::new(&fx.verbs, &CqAttributes::new(16)).unwrap();
    let conn = fx.connection(&comp, 4);
    let poster = fx.poster(&comp);
    let bad_state = ErrorCode::BAD_STATE.0;
    let mut buf = [0u8; 64];
    let guard = fx.dpa.enter().unwrap();
    let verbs = fx.verbs.lock();
    // SAFETY: started objects of this test and live sources, under their
    // family's guard and their verbs context's lock; DOCA must refuse each call
    // (the negative test of the RDMI facts).
    unsafe {
        assert_eq!(
            sys::doca_rdmi_connection_cq_attach(conn.as_ptr(&guard), cq.as_ptr(&verbs)),
            bad_state
        );
        assert_eq!(
            sys::doca_rdmi_connection_dpa_completion_attach(
                conn.as_ptr(&guard),
                spare.as_ptr(&guard).cast()
            ),
            bad_state
        );
        assert_eq!(
            sys::doca_rdmi_connection_init_receive(
                conn.as_ptr(&guard),
                buf.as_mut_ptr().cast(),
                buf.len() as _
            ),
            bad_state
        );
        assert_eq!(
            sys::doca_rdmi_poster_cq_attach(poster.as_ptr(&guard), cq.as_ptr(&verbs)),
            bad_state
        );
        assert_eq!(
            sys::doca_rdmi_poster_dpa_completion_attach(
                poster.as_ptr(&guard),
                spare.as_ptr(&guard).cast()
            ),
            bad_state
        );
        assert_eq!(
            doca::sys::doca_ctx_set_datapath_on_dpa(
                conn.ctx_ptr(&guard).unwrap(),
                fx.dpa.as_ptr(&guard)
            ),
            bad_state
        );
    }
    drop((verbs, guard));
    // The objects are unharmed.
    assert_eq!(conn.state().unwrap(), CtxState::Running);
    poster.stop().unwrap();
    conn.stop().unwrap();
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn failed_starts_leave_nothing_behind() {
    sim_only!("injects faults with the sim's test hooks");
    let fx = fx();
    let comp = fx.completion();
    let cq = CompletionQueue::new(&fx.verbs, &CqAttributes::new(16)).unwrap();
    let scope = doca::sim::Scope::new();
    let start_conn = |source: CompletionSource<'_>| -> doca::rdmi::Result<()> {
        ConnectionBuilder::new(
            &fx.verbs,
            &fx.rep,
            &fx.dpa,
            source,
            ReceiveBuffer::with_slots(2).unwrap(),
        )
        .pd(&fx.pd)
        .input(1, &[1])
        .start()
        .map(drop)
    };
    let start_poster = |source: CompletionSource<'_>| -> doca::rdmi::Result<()> {
        PosterBuilder::new(&fx.verbs, &fx.dpa, source)
            .pd(&fx.pd)
            .input(1, &[1])
            .start()
            .map(drop)
    };
    for source in [CompletionSource::Dpa(&comp), CompletionSource::Cq(&cq)] {
        for (what, start) in [
            (
                "connection",
                &start_conn as &dyn Fn(CompletionSource<'_>) -> doca::rdmi::Result<()>,
            ),
            ("poster", &start_poster),
        ] {
            scope.reset_calls();
            start(source).unwrap();
            // The calls of `start` (up to the DPA handle); the stop and
            // destroy of the drop come after.
            let log = scope.call_log();
            let end = log
                .iter()
                .position(|f| f.ends_with("_get_dpa_handle"))
                .unwrap();
            let points = &log[..=end];
            assert!(points.len() >= 7, "{what}: {points:?}");
            assert_eq!(scope.live_total(), 0);
            for (i, f) in points.iter().enumerate() {
                let nth = points[..=i].iter().filter(|g| *g == f).count() as u64;
                scope.clear_faults();
                scope.reset_calls();
                scope
                    .inject(f, doca::sim::Nth::At(nth), ErrorCode::DRIVER.0)
                    .unwrap_or_else(|e| panic!("{e}"));
                let err = start(source).unwrap_err();
                assert_eq!(err.call(), Some(*f), "{what}: fault in {f} #{nth}: {err}");
                assert!(err.is_driver(), "{what}: {err}");
                assert_eq!(
                    scope.live_total(),
                    0,
                    "{what}: fault in {f} #{nth} leaked {:?}",
                    scope.live_objects()
                );
            }
            scope.clear_faults();
        }
    }
}

// Uses the sim's test hooks: compiled only where doca-sim is in the build.
#[cfg(doca_backend = "sim")]
#[test]
fn a_connection_that_cannot_be_destroyed_is_leaked_not_freed() {
    sim_only!("needs receives in flight and the sim's live-object accounting");
    let fx = fx();
    let comp = fx.completion();
    let poster = fx.poster(&comp);
    let scope = doca::sim::Scope::new();
    let conn = ConnectionBuilder::new(
        &fx.verbs,
        &fx.rep,
        &fx.dpa,
        CompletionSource::Dpa(&comp),
        ReceiveBuffer::with_slots(2).unwrap(),
    )
    .stop_timeout(Duration::from_millis(10))
    .start()
    .unwrap();
    assert_eq!(send(&fx, &poster, &conn, 1, 0), (1, 0));
    assert_eq!(consume(&fx, &conn, 1), 0);
    // Never acknowledged: the stop cannot finish, so the connection cannot
    // be destroyed. Dropping it must neither panic nor free the buffer the
    // device may still write: both stay alive.
    drop(conn);
    let live = scope.live_objects();
    assert_eq!(live.get("doca_rdmi_connection"), Some(&1), "{live:?}");
    drop(scope);
    drop(poster);
    // The DPA context is still in use by the leaked connection: its drop
    // logs the failure instead of panicking.
    drain(&fx, &comp);
}

#[test]
fn a_cq_refuses_a_dpa_thread_of_another_device() {
    let fx = fx();
    let here = fx.dpa.device().info().pci_addr.clone();
    // Any other device will do: the CQ is made on its verbs context.
    let Some(info) = doca::dpa::devices()
        .unwrap()
        .into_iter()
        .find(|d| d.pci_addr != here)
    else {
        eprintln!("skipped: one device only");
        return;
    };
    let other = VerbsContext::new(&info.open().unwrap()).unwrap();
    let counter = DpaBuffer::<u64>::from_slice(&fx.dpa, &[0]).unwrap();
    let thread = ThreadBuilder::new(&fx.dpa, &doca_tests::count_activations, (&counter,))
        .unwrap()
        .start()
        .unwrap();
    let attrs = CqAttributes::new(16).dpa_thread(&thread).unwrap();
    let err = CompletionQueue::new(&other, &attrs).unwrap_err();
    assert!(err.is_invalid_argument(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&here) && text.contains(&info.pci_addr),
        "the error names neither device: {text}"
    );
    // The thread's own device takes it.
    CompletionQueue::new(&fx.verbs, &attrs).unwrap();
}
