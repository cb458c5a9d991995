//! Red-team attacks on the safe DPA Verbs API (`doca::verbs`: `DpaUmem`,
//! `DpaUar`, `QpBuilder` → `Qp` → `ConnectedQp`, `param::VerbsQp` kernel
//! arguments) now that doca-sim models DPA Verbs traffic (`doca-sim/src/dpa_verbs.rs`,
//! `doca-sim/src/fabric.rs`).
//!
//! Each test does what a careless or hostile program may do with safe Rust only
//! (kernels in `tests/kernels/verbs/redteam_verbs.c` use only the handles,
//! buffers and maps they are given) and asserts what a sound library must do:
//! no device or host access to freed or foreign memory, no host UB, no panic or
//! abort in library code, no hang, nothing leaked, and the right error.
//! A test that shows an open finding is `#[ignore = "BUG: ..."]`, with what was
//! observed in the reason. Every case runs under a watchdog and one at a time.

mod common;

doca::verbs::if_dpa_verbs! {
    #[path = "verbs/setup.rs"]
    mod verbs_setup;

    use std::time::Duration;

    use common::doca_tests;
    use doca::dpa::{AccessFlags, CompletionBuilder, Dpa, DpaBuffer, DpaMmap, Launcher};
    use doca::verbs::{ConnectedQp, DpaUar, Gid, Peer, ProtectionDomain, QpBuilder, QpType, VerbsContext};

    const RPC: Duration = Duration::from_secs(20);
    const LONG: Duration = Duration::from_secs(20);
    /// Polls of `rtv_poll` before it reports "no completion".
    const SPINS: u64 = 2_000_000;

    /// `enum doca_dpa_dev_verbs_send_wr_opcode`.
    const WRITE: u32 = 0x8;
    const SEND: u32 = 0xA;
    const READ: u32 = 0x10;
    /// `doca_dpa_dev_completion_type_t`.
    const COMP_SEND: u32 = 0x0;
    const COMP_RECV_SEND: u32 = 0x2;
    const COMP_SEND_ERR: u32 = 0xD;
    const COMP_RECV_ERR: u32 = 0xE;
    /// The fabric's statuses a SEND_ERR carries as its immediate (doca-sim's
    /// `Status`: unreachable, transport retries exceeded, local QP operation).
    const RECEIVER_NOT_READY: u32 = 3;
    const UNREACHABLE: u32 = 4;
    const RETRY_EXCEEDED: u32 = 5;
    const LOCAL_OPERATION: u32 = 7;
    const REMOTE_ACCESS: u32 = 1;
    const FLUSHED: u32 = 8;

    use common::{serial, within};

    /// A sim scope whose devices fence the DPA heap (`memcheck`) or not.
    fn scope_memcheck(memcheck: bool) -> common::LiveObjects {
        let objects = common::LiveObjects::new();
        #[cfg(doca_backend = "sim")]
        {
            let profile = doca::sim::Profile { memcheck, ..doca::sim::Profile::default() };
            objects.scope().set_profile(profile);
        }
        #[cfg(not(doca_backend = "sim"))]
        let _ = memcheck;
        objects
    }

    fn e(e: impl std::fmt::Display) -> String {
        e.to_string()
    }

    fn healthy(dpa: &Dpa) -> Result<(), String> {
        match dpa.health() {
            Ok(doca::dpa::Health::Ok) => Ok(()),
            other => Err(format!("context {other:?}: {}", dpa.fault_report().unwrap_or_default())),
        }
    }

    fn live(objects: &common::LiveObjects, kind: &str) -> i64 {
        objects.all().map_or(0, |a| a.get(kind).copied().unwrap_or(0))
    }

    /// `(type, immediate)` of what `rtv_poll` returned, `None` for no completion.
    fn decode(v: u64) -> Option<(u32, u32)> {
        (v != 0).then(|| (((v >> 32) as u32).wrapping_sub(1), v as u32))
    }

    /// A buffer of `words` words filled with `fill` and its map (every access).
    struct Mem {
        buf: DpaBuffer<u64>,
        map: DpaMmap,
    }

    fn mem(dpa: &Dpa, words: usize, fill: u64) -> Result<Mem, String> {
        let buf = DpaBuffer::<u64>::from_slice(dpa, &vec![fill; words]).map_err(e)?;
        let map = DpaMmap::with_access(dpa, &buf, 0, words, AccessFlags::RDMA_ALL).map_err(e)?;
        Ok(Mem { buf, map })
    }

    fn poll(dpa: &Dpa, qp: &ConnectedQp) -> Result<Option<(u32, u32)>, String> {
        dpa.rpc(&doca_tests::rtv_poll, (qp.completion(), SPINS), RPC).map(decode).map_err(e)
    }

    /// Posts (and commits) one signalled `opcode` of `bytes` bytes on `qp`.
    fn post(dpa: &Dpa, qp: &ConnectedQp, opcode: u32, local: &Mem, bytes: u32, remote: &Mem, commit: bool) -> Result<u64, String> {
        dpa.rpc(
            &doca_tests::rtv_post,
            (qp, opcode, &local.buf, &local.map, bytes, &remote.buf, &remote.map, u32::from(commit)),
            RPC,
        )
        .map_err(e)
    }

    const VICTIM: u64 = 0x1111_1111_1111_1111;
    const PAYLOAD: u64 = 0xEEEE_EEEE_EEEE_EEEE;

    /// Buffers of `words` words filled with VICTIM, given to no kernel and no map.
    fn victims(dpa: &Dpa, n: usize, words: usize) -> Result<Vec<DpaBuffer<u64>>, String> {
        (0..n).map(|_| DpaBuffer::<u64>::from_slice(dpa, &vec![VICTIM; words]).map_err(e)).collect()
    }

    fn corrupted(victims: &[DpaBuffer<u64>]) -> Result<usize, String> {
        let mut n = 0;
        for v in victims {
            if v.to_vec().map_err(e)?.iter().any(|w| *w != VICTIM) {
                n += 1;
            }
        }
        Ok(n)
    }

    /// Frees and allocates `n` one-word blocks: on a fenced heap this pushes the
    /// oldest freed blocks out of the memory checker's quarantine (4096 blocks),
    /// so their address range may be handed out again.
    fn churn(dpa: &Dpa, n: usize) -> Result<(), String> {
        for _ in 0..n {
            drop(DpaBuffer::<u64>::new(dpa, 1).map_err(e)?);
        }
        Ok(())
    }

    // -----------------------------------------------------------------------
    // Attack 1: a receive posted into memory whose map (and buffer) the host
    // dropped after the kernel that posted it returned. The queue pair keeps only
    // the SGE's address and lkey; the map is stopped and the memory freed. On
    // hardware the lkey is gone with the map: the arriving send completes with a
    // local protection error and nothing is written. Expected: the receive
    // completes in error (RECV_ERR / SEND_ERR) and no other buffer changes.
    // -----------------------------------------------------------------------

    /// The stale-receive flow; `memcheck`: the heap is fenced; `evict`: blocks
    /// churned through the checker's quarantine before the victims are made.
    /// Returns (victims corrupted, sender's completion, receiver's completion).
    #[allow(clippy::type_complexity)]
    fn stale_receive(memcheck: bool, evict: usize) -> Result<(usize, Option<(u32, u32)>, Option<(u32, u32)>, i64), String> {
        let objects = scope_memcheck(memcheck);
        let dpa = common::dpa();
        let (a, b) = verbs_setup::pair(&dpa).map_err(e)?;
        let recv = mem(&dpa, 8, 0)?;
        let count = dpa
            .rpc(&doca_tests::rtv_post_recv, (&b, &recv.buf, &recv.map, 64u32), RPC)
            .map_err(e)?;
        if count == 0 {
            return Err("the receive was refused".into());
        }
        // The RPC returned: nothing holds the receive's memory or map any more.
        drop(recv);
        // Evicting: up to just before the quarantine is full, then one block
        // freed before each victim is made, so a victim is made right after the
        // receive's block left the quarantine.
        churn(&dpa, evict.saturating_sub(32))?;
        let mut victims = Vec::new();
        for _ in 0..64 {
            if evict > 0 {
                churn(&dpa, 1)?;
            }
            victims.extend(self::victims(&dpa, 1, 8)?);
        }
        let src = mem(&dpa, 8, PAYLOAD)?;
        post(&dpa, &a, SEND, &src, 64, &src, true)?;
        let sent = poll(&dpa, &a)?;
        let received = poll(&dpa, &b)?;
        let bad = corrupted(&victims)?;
        healthy(&dpa)?;
        drop((a, b, src, victims));
        Ok((bad, sent, received, live(&objects, "doca_verbs_qp")))
    }

    #[test]
    fn a_receive_into_a_dropped_map_unfenced_heap() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "stale receive, unfenced", || stale_receive(false, 0));
        let (bad, sent, received, qps) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("unfenced: {bad} victims corrupted; sender {sent:x?}; receiver {received:x?}");
        assert_eq!(bad, 0, "a buffer given to no kernel and no map was overwritten by a stale receive");
        assert!(
            matches!(received, Some((COMP_RECV_ERR, _))),
            "the stale receive completed as {received:x?}, not RECV_ERR"
        );
        assert!(matches!(sent, Some((COMP_SEND_ERR, _))), "the send completed as {sent:x?}");
        assert_eq!(qps, 0);
    }

    #[test]
    fn a_receive_into_a_dropped_map_fenced_heap() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "stale receive, fenced", || stale_receive(true, 0));
        let (bad, sent, received, qps) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("fenced: {bad} victims corrupted; sender {sent:x?}; receiver {received:x?}");
        assert_eq!(bad, 0, "a buffer given to no kernel and no map was overwritten by a stale receive");
        assert!(matches!(received, Some((COMP_RECV_ERR, _))), "receiver: {received:x?}");
        assert!(matches!(sent, Some((COMP_SEND_ERR, _))), "sender: {sent:x?}");
        assert_eq!(qps, 0);
    }

    #[test]
    fn a_receive_into_a_dropped_map_fenced_heap_after_quarantine() {
        let _one = serial();
        let r = within(Duration::from_secs(240), "stale receive, evicted", || stale_receive(true, 4096));
        let (bad, sent, received, qps) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("evicted: {bad} victims corrupted; sender {sent:x?}; receiver {received:x?}");
        assert_eq!(bad, 0, "a buffer given to no kernel and no map was overwritten by a stale receive");
        assert!(matches!(received, Some((COMP_RECV_ERR, _))), "receiver: {received:x?}");
        assert_eq!(qps, 0);
    }

    // -----------------------------------------------------------------------
    // Attack 2: a send work request staged (posted, not committed) by one RPC,
    // its source map and buffer dropped by the host, then committed by another
    // RPC. On hardware the lkey is gone: a local protection error. Expected: an
    // error completion or a device fault; never the bytes of another buffer at
    // the peer.
    // -----------------------------------------------------------------------

    /// (another buffer's bytes at the peer, the sender's completion, the words
    /// that landed, what the commit and the context said).
    #[allow(clippy::type_complexity)]
    fn stale_staged_send(memcheck: bool) -> Result<(bool, Option<(u32, u32)>, Vec<u64>, String), String> {
        let _objects = scope_memcheck(memcheck);
        let dpa = common::dpa();
        let (a, _b) = verbs_setup::pair(&dpa).map_err(e)?;
        let dst = mem(&dpa, 8, 0)?;
        let src = mem(&dpa, 8, PAYLOAD)?;
        if post(&dpa, &a, WRITE, &src, 64, &dst, false)? == 0 {
            return Err("the post was refused".into());
        }
        drop(src);
        let victims = victims(&dpa, 64, 8)?;
        let committed = dpa.rpc(&doca_tests::rtv_commit, (&a,), RPC).map_err(e);
        if committed.is_err() {
            // A device fault: the context is fatal, its memory unreadable.
            return Ok((false, None, Vec::new(), format!("commit: {committed:?}")));
        }
        let sent = poll(&dpa, &a)?;
        let landed = dst.buf.to_vec().map_err(e)?;
        let leaked = landed.contains(&VICTIM);
        drop(victims);
        Ok((leaked, sent, landed, format!("{:?}", dpa.health())))
    }

    #[test]
    fn a_staged_send_whose_source_map_was_dropped_unfenced_heap() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "stale staged send", || stale_staged_send(false));
        let (leaked, sent, landed, health) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("staged send, unfenced: leaked {leaked}, sender {sent:x?}, landed {landed:x?}, {health}");
        assert!(!leaked, "another buffer's bytes reached the peer through a stale staged send");
        assert!(!matches!(sent, Some((COMP_SEND, _))), "a send from a dropped map succeeded");
    }

    /// Held: the stale source is a reported device fault ("use after free" in
    /// `doca_dpa_dev_verbs_qp_commit_send`, blamed on the committing RPC; on
    /// hardware it would be a local protection error completion, the context
    /// staying usable), nothing sent.
    #[test]
    fn a_staged_send_whose_source_map_was_dropped_fenced_heap() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "stale staged send", || stale_staged_send(true));
        let (leaked, sent, landed, health) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("staged send, fenced: leaked {leaked}, sender {sent:x?}, landed {landed:x?}, {health}");
        assert!(!leaked, "another buffer's bytes reached the peer through a stale staged send");
        assert!(!matches!(sent, Some((COMP_SEND, _))), "the stale send succeeded");
    }

    // -----------------------------------------------------------------------
    // Attack 3: local keys without local write permission: a receive, and the
    // local side of an RDMA read, into a map the program made remote-read-only.
    // Expected (hardware): a local protection error; nothing written.
    // -----------------------------------------------------------------------

    #[test]
    fn a_receive_into_a_map_without_local_write() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "lkey permissions", || -> Result<_, String> {
            let _objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (a, b) = verbs_setup::pair(&dpa).map_err(e)?;
            let buf = DpaBuffer::<u64>::from_slice(&dpa, &[VICTIM; 8]).map_err(e)?;
            let ro = DpaMmap::with_access(&dpa, &buf, 0, 8, AccessFlags::RDMA_READ).map_err(e)?;
            let posted = dpa.rpc(&doca_tests::rtv_post_recv, (&b, &buf, &ro, 64u32), RPC).map_err(e);
            let src = mem(&dpa, 8, PAYLOAD)?;
            let (sent, received) = match posted {
                Ok(c) if c != 0 => {
                    post(&dpa, &a, SEND, &src, 64, &src, true)?;
                    (poll(&dpa, &a)?, poll(&dpa, &b)?)
                }
                _ => (None, None),
            };
            let written = buf.to_vec().map_err(e)?.iter().any(|w| *w != VICTIM);
            Ok((posted.map_err(|x| x.to_string()), sent, received, written))
        });
        let (posted, sent, received, written) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("read-only lkey: post {posted:?}, sender {sent:x?}, receiver {received:x?}, written {written}");
        assert!(!written, "a receive wrote through a map without local write permission");
        assert!(matches!(received, Some((COMP_RECV_ERR, _))), "receiver: {received:x?}");
        assert!(matches!(sent, Some((COMP_SEND_ERR, _))), "sender: {sent:x?}");
    }

    // -----------------------------------------------------------------------
    // Attack 4: an RDMA read on an unreliable-connected (UC) queue pair. UC has
    // no reads on hardware (the work request fails). Expected: an error
    // completion; not the remote bytes.
    // -----------------------------------------------------------------------

    #[test]
    fn an_rdma_read_on_an_unreliable_connected_qp() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "UC read", || -> Result<_, String> {
            let _objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (_verbs, pd, uar) = verbs_setup::datapath(&dpa).map_err(e)?;
            let uc = |_: ()| -> Result<doca::verbs::Qp, String> {
                let c = CompletionBuilder::new(&dpa, 16).and_then(|c| c.start()).map_err(e)?;
                QpBuilder::new(&pd, &dpa, &c, &uar).map_err(e)?.qp_type(QpType::Uc).create().map_err(e)
            };
            let (a, b) = (uc(())?, uc(())?);
            let (na, nb) = (a.number(), b.number());
            let a = a.connect(&Peer::new(nb, Gid::default())).map_err(e)?;
            let _b = b.connect(&Peer::new(na, Gid::default())).map_err(e)?;
            let local = mem(&dpa, 1, 0)?;
            let remote = mem(&dpa, 1, PAYLOAD)?;
            post(&dpa, &a, READ, &local, 8, &remote, true)?;
            let sent = poll(&dpa, &a)?;
            Ok((sent, local.buf.to_vec().map_err(e)?[0]))
        });
        let (sent, got) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("UC read: {sent:x?}, local word {got:#x}");
        assert!(!matches!(sent, Some((COMP_SEND, _))), "an RDMA read on a UC queue pair succeeded");
        assert_ne!(got, PAYLOAD, "an RDMA read on a UC queue pair copied the remote bytes");
        assert_eq!(sent, Some((COMP_SEND_ERR, LOCAL_OPERATION)));
    }

    // -----------------------------------------------------------------------
    // Attack 4b: carry on after an error. A write through a remote key that
    // does not permit writes fails; the program posts a good write next, and
    // the peer posts a receive. Expected (hardware): the error moves both
    // queue pairs of the reliable connection to the error state, so the good
    // write is flushed (nothing written) and so is the peer's receive.
    // -----------------------------------------------------------------------

    #[test]
    fn work_requests_after_an_error_are_flushed() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "error state", || -> Result<_, String> {
            let _objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (a, b) = verbs_setup::pair(&dpa).map_err(e)?;
            let src = mem(&dpa, 1, PAYLOAD)?;
            let buf = DpaBuffer::<u64>::from_slice(&dpa, &[VICTIM]).map_err(e)?;
            let read_only = Mem { map: DpaMmap::with_access(&dpa, &buf, 0, 1, AccessFlags::RDMA_READ).map_err(e)?, buf };
            post(&dpa, &a, WRITE, &src, 8, &read_only, true)?;
            let refused = poll(&dpa, &a)?;
            let dst = mem(&dpa, 1, 0)?;
            post(&dpa, &a, WRITE, &src, 8, &dst, true)?;
            let next = poll(&dpa, &a)?;
            let sink = mem(&dpa, 1, 0)?;
            let posted = dpa.rpc(&doca_tests::rtv_post_recv, (&b, &sink.buf, &sink.map, 8u32), RPC).map_err(e)?;
            let receive = poll(&dpa, &b)?;
            healthy(&dpa)?;
            let written = [read_only.buf.to_vec().map_err(e)?[0] != VICTIM, dst.buf.to_vec().map_err(e)?[0] != 0];
            Ok((refused, next, posted, receive, written))
        });
        let (refused, next, posted, receive, written) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("after an error: {refused:x?}, then {next:x?}; the peer's receive {posted}: {receive:x?}; written {written:?}");
        assert_eq!(refused, Some((COMP_SEND_ERR, REMOTE_ACCESS)), "a write through a read-only key");
        assert_eq!(next, Some((COMP_SEND_ERR, FLUSHED)), "the write posted after the error");
        assert_ne!(posted, 0);
        assert_eq!(receive, Some((COMP_RECV_ERR, FLUSHED)), "the peer's receive after the error");
        assert_eq!(written, [false, false], "a write after the error landed");
    }

    // -----------------------------------------------------------------------
    // Retries are the caller's (`Peer::retries`): values out of InfiniBand's
    // field widths are refused before DOCA sees them, and a send that finds no
    // receive fails at once with `rnr_retry` 0 (the default retries once).
    // -----------------------------------------------------------------------

    #[test]
    fn retries_out_of_range_are_refused_and_rnr_retry_zero_fails_at_once() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "retries", || -> Result<_, String> {
            let _objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (_verbs, pd, uar) = verbs_setup::datapath(&dpa).map_err(e)?;
            let (a, b) = (verbs_setup::qp(&dpa, &pd, &uar).map_err(e)?, verbs_setup::qp(&dpa, &pd, &uar).map_err(e)?);
            let (na, nb) = (a.number(), b.number());
            let mut refused = Vec::new();
            let mut a = a;
            for (ack, retry, rnr) in [(32, 7, 7), (14, 8, 1), (14, 7, 8)] {
                let err = a.connect(&Peer::new(nb, Gid::default()).retries(ack, retry, rnr)).err().ok_or("out-of-range retries connected")?;
                refused.push(err.error().is_invalid_argument());
                a = err.into_parts().1;
            }
            let a = a.connect(&Peer::new(nb, Gid::default()).retries(14, 7, 0)).map_err(e)?;
            let _b = b.connect(&Peer::new(na, Gid::default())).map_err(e)?;
            let local = mem(&dpa, 1, PAYLOAD)?;
            post(&dpa, &a, SEND, &local, 8, &local, true)?;
            Ok((refused, poll(&dpa, &a)?))
        });
        let (refused, sent) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        assert_eq!(refused, [true, true, true], "out-of-range retries were not refused as invalid arguments");
        assert_eq!(sent, Some((COMP_SEND_ERR, RECEIVER_NOT_READY)), "a send with rnr_retry 0 and no receive");
    }

    // -----------------------------------------------------------------------
    // Attack 5: the peer queue pair is destroyed while a kernel holds the
    // initiator (waiting to post). Expected: the kernel's write completes with
    // SEND_ERR (immediate: the fabric's Unreachable), nothing is written, the
    // context stays healthy, and everything is released after.
    // -----------------------------------------------------------------------

    #[test]
    fn the_peer_destroyed_while_a_kernel_posts_to_it() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "peer destroyed", || -> Result<_, String> {
            let objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (a, b) = verbs_setup::pair(&dpa).map_err(e)?;
            let go = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(e)?;
            let out = DpaBuffer::<u64>::from_slice(&dpa, &[u64::MAX]).map_err(e)?;
            let src = mem(&dpa, 1, PAYLOAD)?;
            let dst = mem(&dpa, 1, 0)?;
            let launcher = Launcher::new(&dpa).map_err(e)?;
            let launch = launcher
                .launch(
                    &doca_tests::rtv_hold_write,
                    1,
                    (&go, &a, a.completion(), &src.buf, &src.map, &dst.buf, &dst.map, &out),
                )
                .map_err(e)?;
            // The peer: destroyed now (no kernel holds it).
            b.destroy().map_err(e)?;
            drop(a);
            go.write(0, &[1]).map_err(e)?;
            launch.wait(LONG).map_err(e)?;
            let got = decode(out.to_vec().map_err(e)?[0]);
            let landed = dst.buf.to_vec().map_err(e)?[0];
            healthy(&dpa)?;
            drop((launcher, src, dst, go, out));
            Ok((got, landed, live(&objects, "doca_verbs_qp"), live(&objects, "doca_umem")))
        });
        let (got, landed, qps, umems) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("peer destroyed: {got:x?}, landed {landed:#x}");
        assert_eq!(got, Some((COMP_SEND_ERR, UNREACHABLE)));
        assert_eq!(landed, 0);
        assert_eq!((qps, umems), (0, 0), "queue pairs or UMEMs left");
    }

    // -----------------------------------------------------------------------
    // Attack 6: completions never read. (a) 17 signalled writes on a queue pair
    // whose completion holds 16: a completion queue overrun, a device fault the
    // host sees as a fatal context; (b) 5 posts without a commit on a send queue
    // of 4: a send queue overrun. Expected: errors, no panic, everything droppable.
    // -----------------------------------------------------------------------

    fn overrun(n: u32, commit_each: bool) -> Result<(Result<u64, String>, String, i64), String> {
        let objects = scope_memcheck(true);
        let dpa = common::dpa();
        let (a, b) = verbs_setup::pair(&dpa).map_err(e)?;
        let src = mem(&dpa, 1, PAYLOAD)?;
        let dst = mem(&dpa, 1, 0)?;
        let r = dpa
            .rpc(
                &doca_tests::rtv_write_n,
                (&a, &src.buf, &src.map, &dst.buf, &dst.map, n, u32::from(commit_each)),
                RPC,
            )
            .map_err(e);
        let health = format!("{:?}: {}", dpa.health(), dpa.fault_report().unwrap_or_default());
        drop((a, b, src, dst, dpa));
        Ok((r, health, live(&objects, "doca_verbs_qp")))
    }

    #[test]
    fn completions_never_read_overrun_the_completion_queue() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "CQ overrun", || overrun(17, true));
        let (r, health, _qps) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("17 writes on a 16-entry completion: {r:?}; {health}");
        assert!(health.contains("Fatal"), "a completion queue overrun left the context {health}");
    }

    #[test]
    fn uncommitted_posts_overrun_the_send_queue() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "SQ overrun", || overrun(5, false));
        let (r, health, _qps) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("5 uncommitted posts on a send queue of 4: {r:?}; {health}");
        assert!(r.is_err() || health.contains("Fatal"), "a send queue overrun went unnoticed: {r:?} {health}");
    }

    // -----------------------------------------------------------------------
    // Attack 7: many kernel instances post and commit on one queue pair at once
    // (64 instances, send queue of 4, unsignalled writes). A queue pair is not
    // thread-safe on hardware either; expected: either every write lands, or a
    // reported device fault — never a hang, a panic or a lost write reported as
    // success.
    // -----------------------------------------------------------------------

    #[test]
    fn many_instances_post_on_one_qp() {
        let _one = serial();
        const N: usize = 64;
        let r = within(Duration::from_secs(120), "concurrent posts", || -> Result<_, String> {
            let _objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (a, _b) = verbs_setup::pair(&dpa).map_err(e)?;
            let src = mem(&dpa, N, 0)?;
            let dst = mem(&dpa, N, 0)?;
            let done = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(e)?;
            let launcher = Launcher::new(&dpa).map_err(e)?;
            let outcome = launcher
                .launch(&doca_tests::rtv_write_rank, N as u32, (&a, &src.buf, &src.map, &dst.buf, &dst.map, &done))
                .map_err(e)?
                .wait(LONG)
                .map_err(e);
            let landed = dst.buf.to_vec().map_err(e)?;
            let missing = (0..N).filter(|&i| landed[i] != i as u64 + 1).count();
            let finished = done.to_vec().map_err(e)?[0];
            let health = format!("{:?}: {}", dpa.health(), dpa.fault_report().unwrap_or_default());
            Ok((outcome, missing, finished, health))
        });
        let (outcome, missing, finished, health) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("{N} instances on one QP: {outcome:?}, {missing} writes missing, {finished} finished; {health}");
        if outcome.is_ok() && health.starts_with("Ok(Ok)") {
            assert_eq!(missing, 0, "the launch succeeded but writes were lost");
        }
    }

    // -----------------------------------------------------------------------
    // Attack 8: a queue pair connected to itself: writes into its own memory and
    // a send into its own receive. Expected: both work (a valid RC loopback).
    // -----------------------------------------------------------------------

    #[test]
    fn a_qp_connected_to_itself_carries_traffic() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "self loop", || -> Result<_, String> {
            let objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (verbs, pd, uar) = verbs_setup::datapath(&dpa).map_err(e)?;
            let qp = verbs_setup::qp(&dpa, &pd, &uar).map_err(e)?;
            let n = qp.number();
            let qp = qp.connect(&Peer::new(n, Gid::default())).map_err(e)?;
            let src = mem(&dpa, 1, PAYLOAD)?;
            let dst = mem(&dpa, 1, 0)?;
            post(&dpa, &qp, WRITE, &src, 8, &dst, true)?;
            let wrote = poll(&dpa, &qp)?;
            let recv = mem(&dpa, 1, 0)?;
            dpa.rpc(&doca_tests::rtv_post_recv, (&qp, &recv.buf, &recv.map, 8u32), RPC).map_err(e)?;
            post(&dpa, &qp, SEND, &src, 8, &src, true)?;
            let (c1, c2) = (poll(&dpa, &qp)?, poll(&dpa, &qp)?);
            let got = (dst.buf.to_vec().map_err(e)?[0], recv.buf.to_vec().map_err(e)?[0]);
            healthy(&dpa)?;
            drop((qp, src, dst, recv, uar, pd, verbs));
            Ok((wrote, c1, c2, got, live(&objects, "doca_verbs_qp")))
        });
        let (wrote, c1, c2, got, qps) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("self loop: write {wrote:x?}, then {c1:x?} {c2:x?}, memory {got:x?}");
        assert_eq!(wrote, Some((COMP_SEND, 0)));
        assert_eq!(got, (PAYLOAD, PAYLOAD));
        let mut kinds = [c1.map(|c| c.0), c2.map(|c| c.0)];
        kinds.sort();
        assert_eq!(kinds, [Some(COMP_SEND), Some(COMP_RECV_SEND)]);
        assert_eq!(qps, 0);
    }

    // -----------------------------------------------------------------------
    // Attack 9: queue pairs across DPA contexts: a QP of context X as a kernel
    // argument of context Y (refused), a QP of X connected to a QP of Y (a valid
    // connection: traffic flows), then Y's QP and context dropped while X's
    // kernel waits to write to it. Expected: refusal; SEND_ERR Unreachable; no
    // fault on either side; nothing left.
    // -----------------------------------------------------------------------

    #[test]
    fn queue_pairs_across_two_contexts() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "two contexts", || -> Result<_, String> {
            let objects = scope_memcheck(true);
            let (x, y) = (common::dpa(), common::dpa());
            let qp_on = |dpa: &Dpa| -> Result<doca::verbs::Qp, String> {
                let (_verbs, pd, uar) = verbs_setup::datapath(dpa).map_err(e)?;
                verbs_setup::qp(dpa, &pd, &uar).map_err(e)
            };
            let (qx, qy) = (qp_on(&x)?, qp_on(&y)?);
            let (nx, ny) = (qx.number(), qy.number());
            let qx = qx.connect(&Peer::new(ny, Gid::default())).map_err(e)?;
            let qy = qy.connect(&Peer::new(nx, Gid::default())).map_err(e)?;
            // X's queue pair to a kernel of Y.
            let foreign = y.rpc(&doca_tests::rtv_commit, (&qx,), RPC);
            if !matches!(&foreign, Err(err) if err.is_invalid_argument()) {
                return Err(format!("a queue pair of another context as a kernel argument: {foreign:?}"));
            }
            // Traffic between the contexts: X's kernel writes, through Y's queue
            // pair, into memory under a key of X it was given (a buffer of Y is
            // no kernel argument of X; checked below).
            let src = mem(&x, 1, PAYLOAD)?;
            let dst = mem(&y, 1, 0)?;
            let xdst = mem(&x, 1, 0)?;
            post(&x, &qx, WRITE, &src, 8, &xdst, true)?;
            let first = poll(&x, &qx)?;
            let landed = xdst.buf.to_vec().map_err(e)?[0];
            xdst.buf.write(0, &[0]).map_err(e)?;
            // Y goes away under a held kernel of X.
            let go = DpaBuffer::<u64>::from_slice(&x, &[0]).map_err(e)?;
            let out = DpaBuffer::<u64>::from_slice(&x, &[u64::MAX]).map_err(e)?;
            let launcher = Launcher::new(&x).map_err(e)?;
            let launch = launcher
                .launch(
                    &doca_tests::rtv_hold_write,
                    1,
                    (&go, &qx, qx.completion(), &src.buf, &src.map, &dst.buf, &dst.map, &out),
                )
                .err();
            // `dst` is Y's memory: the launch on X must refuse its buffer.
            if launch.is_none() {
                return Err("a launch on X accepted a buffer of Y".into());
            }
            // Y's map as the remote key of a launch on X: refused too.
            if launcher
                .launch(
                    &doca_tests::rtv_hold_write,
                    1,
                    (&go, &qx, qx.completion(), &src.buf, &src.map, &xdst.buf, &dst.map, &out),
                )
                .is_ok()
            {
                return Err("a launch on X accepted a map of Y".into());
            }
            let launch = launcher
                .launch(
                    &doca_tests::rtv_hold_write,
                    1,
                    (&go, &qx, qx.completion(), &src.buf, &src.map, &xdst.buf, &xdst.map, &out),
                )
                .map_err(e)?;
            drop((qy, dst, y));
            go.write(0, &[1]).map_err(e)?;
            launch.wait(LONG).map_err(e)?;
            let after = decode(out.to_vec().map_err(e)?[0]);
            healthy(&x)?;
            let untouched = xdst.buf.to_vec().map_err(e)?[0] == 0;
            drop((launcher, qx, src, xdst, go, out, x));
            if !untouched {
                return Err("a write to a destroyed peer landed".into());
            }
            Ok((first, landed, after, live(&objects, "doca_verbs_qp"), objects.total()))
        });
        let (first, landed, after, qps, total) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("two contexts: first {first:x?} landed {landed:#x}; after Y went: {after:x?}; left {total:?}");
        assert_eq!(first, Some((COMP_SEND, 0)));
        assert_eq!(landed, PAYLOAD);
        assert_eq!(after, Some((COMP_SEND_ERR, UNREACHABLE)));
        assert_eq!(qps, 0);
    }

    // -----------------------------------------------------------------------
    // Attack 10: a DPA struct holding a queue pair (Dev<VerbsQp> in a DpaBox):
    // the host drops its queue pair and peer; an RPC then reads the QP's number
    // through the box. Expected: the box kept it alive; destroyed with the box.
    // -----------------------------------------------------------------------

    #[test]
    fn a_dpa_struct_keeps_its_queue_pair() {
        let _one = serial();
        let r = within(Duration::from_secs(60), "boxed qp", || -> Result<_, String> {
            let objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (a, b) = verbs_setup::pair(&dpa).map_err(e)?;
            let n = a.number();
            let boxed = doca::dpa::DpaBox::new(
                &dpa,
                &doca_tests::rtv_qp_box { qp: doca::dpa::Dev::new(&a).map_err(e)? },
            )
            .map_err(e)?;
            let refused = match a.destroy() {
                Err(err) => err.into_parts().1.is_some(),
                Ok(()) => false,
            };
            drop(b);
            let held = live(&objects, "doca_verbs_qp");
            let got = dpa.rpc(&doca_tests::rtv_box_qpn, (&boxed,), RPC).map_err(e)?;
            healthy(&dpa)?;
            drop(boxed);
            Ok((n, refused, held, got, live(&objects, "doca_verbs_qp")))
        });
        let (n, refused, held, got, after) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        assert!(refused, "destroying a queue pair a DPA struct holds was not refused");
        assert_eq!(held, 1, "the boxed queue pair was not kept alive");
        assert_eq!(got, u64::from(n));
        assert_eq!(after, 0, "the queue pair outlived its box");
    }

    // -----------------------------------------------------------------------
    // Attack 11: every object a queue pair uses dropped first, in several orders,
    // with and without a connect; a failed create (an extended context: no heap
    // for the UMEMs). Expected: nothing leaked, no panic, no fault.
    // -----------------------------------------------------------------------

    #[test]
    fn drop_orders_and_a_failed_create_leak_nothing() {
        let _one = serial();
        let r = within(Duration::from_secs(120), "drop orders", || -> Result<_, String> {
            let mut leaks = Vec::new();
            for order in 0..4 {
                let objects = scope_memcheck(true);
                let dpa = common::dpa();
                let (verbs, pd, uar) = verbs_setup::datapath(&dpa).map_err(e)?;
                let completion = CompletionBuilder::new(&dpa, 16).and_then(|c| c.start()).map_err(e)?;
                let qp = QpBuilder::new(&pd, &dpa, &completion, &uar).and_then(|b| b.create()).map_err(e)?;
                let n = qp.number();
                match order {
                    0 => {
                        drop((dpa, verbs, pd, uar, completion));
                        drop(qp);
                    }
                    1 => {
                        let c = qp.connect(&Peer::new(n, Gid::default())).map_err(e)?;
                        drop((verbs, pd, uar, completion, dpa));
                        drop(c);
                    }
                    2 => {
                        let c = qp.connect(&Peer::new(0xdead, Gid::default())).map_err(e)?;
                        drop((completion, uar));
                        drop((c, pd, verbs, dpa));
                    }
                    _ => {
                        drop((pd, verbs));
                        let c = qp.connect(&Peer::new(n, Gid::default())).map_err(e)?;
                        drop((c, uar, completion, dpa));
                    }
                }
                if let Some(total) = objects.total().filter(|t| *t != 0) {
                    leaks.push(format!("order {order}: {total} live ({:?})", objects.all()));
                }
            }
            // A failed create on an extended context (DPU view: a second device).
            let objects = common::LiveObjects::new();
            #[cfg(doca_backend = "sim")]
            objects.scope().set_profile(doca::sim::Profile::dpu_view());
            let base = common::dpa();
            let pci = base.device().info().pci_addr.clone();
            let ext_result = match doca::dpa::devices().map_err(e)?.into_iter().find(|d| d.pci_addr != pci) {
                None => "no second device".to_string(),
                Some(info) => {
                    let dev = info.open().map_err(e)?;
                    let ext = base.extend(&dev).map_err(e)?;
                    let verbs = VerbsContext::new(&dev).map_err(e)?;
                    let pd = ProtectionDomain::new(&verbs).map_err(e)?;
                    let r = DpaUar::new(&ext).and_then(|uar| {
                        let c = CompletionBuilder::new(&ext, 16)?.start()?;
                        QpBuilder::new(&pd, &ext, &c, &uar)?.create()
                    });
                    let shown = format!("{r:?}");
                    // A base QP in a launch of the extension: refused.
                    let (bq, _bp) = verbs_setup::pair(&base).map_err(e)?;
                    let cross = ext.rpc(&doca_tests::rtv_commit, (&bq,), RPC);
                    drop((r, bq, _bp, pd, verbs));
                    ext.destroy().map_err(e)?;
                    format!("{shown}; base QP on the extension: {cross:?}")
                }
            };
            drop(base);
            if let Some(total) = objects.total().filter(|t| *t != 0) {
                leaks.push(format!("extended: {total} live ({:?})", objects.all()));
            }
            Ok((leaks, ext_result))
        });
        let (leaks, ext) = r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!("extended context: {ext}");
        assert!(leaks.is_empty(), "leaks: {leaks:?}");
    }

    // -----------------------------------------------------------------------
    // Attack 12: the fabric directory open to others (DOCA_SIM_FABRIC_DIR a 0755
    // directory), or a regular file. Run in a child process (the fabric is
    // process-wide and reads the variable once). Expected: creating a queue pair
    // is a clean error, nothing leaked, no panic.
    // -----------------------------------------------------------------------

    const CHILD: &str = "REDTEAM_VERBS_CHILD";

    fn run_child(test: &str, vars: &[(&str, &std::path::Path)]) -> (bool, String) {
        let exe = std::env::current_exe().expect("the test binary");
        let mut cmd = std::process::Command::new(exe);
        cmd.args(["--exact", test, "--nocapture", "--include-ignored", "--test-threads=1"]).env(CHILD, "1");
        for (k, v) in vars {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("running the child");
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.success(), text)
    }

    /// In a child: creating a queue pair must fail cleanly, with nothing left.
    #[test]
    fn child_fabric_refused() {
        if std::env::var_os(CHILD).is_none() {
            return;
        }
        let objects = common::LiveObjects::new();
        let dpa = common::dpa();
        let (verbs, pd, uar) = verbs_setup::datapath(&dpa).unwrap();
        let r = verbs_setup::qp(&dpa, &pd, &uar);
        println!("CHILD-RESULT: {r:?}");
        assert!(r.is_err(), "a queue pair was created with an unsafe fabric directory");
        drop((r, uar, pd, verbs, dpa));
        let total = objects.total().unwrap_or(0);
        println!("CHILD-LEFT: {total} {:?}", objects.all());
        assert_eq!(total, 0, "objects left after the refused create");
    }

    #[test]
    fn a_fabric_directory_open_to_others_is_a_clean_error() {
        use std::os::unix::fs::PermissionsExt;
        let _one = serial();
        let base = std::env::temp_dir().join(format!("redteam-verbs-fabric-{}", std::process::id()));
        let open = base.join("open");
        std::fs::create_dir_all(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o755)).unwrap();
        let file = base.join("file");
        std::fs::write(&file, b"not a directory").unwrap();
        let mut failures = Vec::new();
        for (what, dir) in [("a 0755 directory", &open), ("a regular file", &file)] {
            let (ok, text) = run_child("child_fabric_refused", &[("DOCA_SIM_FABRIC_DIR", dir)]);
            let line = text.lines().find(|l| l.contains("CHILD-RESULT")).unwrap_or("no result").to_string();
            eprintln!("{what}: {line}");
            if !ok {
                failures.push(format!("{what}: {text}"));
            }
        }
        // Nothing was claimed in the open directory.
        let claimed = std::fs::read_dir(&open).map(|d| d.count()).unwrap_or(0);
        let _ = std::fs::remove_dir_all(&base);
        assert!(failures.is_empty(), "{failures:#?}");
        assert_eq!(claimed, 0, "the sim wrote into a directory open to others");
    }

    // -----------------------------------------------------------------------
    // Attack 13: the peer queue pair lives in another process (the fabric's Unix
    // socket), and that process stops answering (SIGSTOP: a debugger, a paused
    // container). On hardware the sender's transport retries (ACK timeout 14,
    // 7 retries: well under a second) and then completes the work request with
    // an error. Expected: the posting kernel gets SEND_ERR within seconds, never
    // hangs.
    // -----------------------------------------------------------------------

    const PEER: &str = "REDTEAM_VERBS_PEER";

    /// In a child: a queue pair connected to the number read from stdin, kept
    /// until stdin closes.
    #[test]
    fn child_peer() {
        use std::io::BufRead;
        if std::env::var_os(PEER).is_none() {
            return;
        }
        let dpa = common::dpa();
        let (_verbs, pd, uar) = verbs_setup::datapath(&dpa).unwrap();
        let qp = verbs_setup::qp(&dpa, &pd, &uar).unwrap();
        println!("QPN {}", qp.number());
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        let theirs: u32 = lines.next().unwrap().unwrap().trim().parse().unwrap();
        let qp = qp.connect(&Peer::new(theirs, Gid::default())).unwrap();
        // A receive for the parent's first send.
        let sink = mem(&dpa, 1, 0).unwrap();
        let posted = dpa.rpc(&doca_tests::rtv_post_recv, (&qp, &sink.buf, &sink.map, 8u32), RPC).unwrap();
        assert_ne!(posted, 0);
        println!("READY");
        for _ in lines {}
    }

    #[test]
    fn a_peer_process_that_stops_answering() {
        use std::io::{BufRead, BufReader, Write};
        use std::process::{Command, Stdio};
        let _one = serial();
        let r = within(Duration::from_secs(90), "stopped peer", || -> Result<_, String> {
            let _objects = scope_memcheck(true);
            let dpa = common::dpa();
            let (_verbs, pd, uar) = verbs_setup::datapath(&dpa).map_err(e)?;
            let qp = verbs_setup::qp(&dpa, &pd, &uar).map_err(e)?;
            let exe = std::env::current_exe().map_err(e)?;
            let mut child = Command::new(exe)
                .args(["--exact", "child_peer", "--nocapture", "--test-threads=1"])
                .env(PEER, "1")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .map_err(e)?;
            let mut out = BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
            let mut next = |prefix: &str| -> Result<String, String> {
                for line in out.by_ref() {
                    let line = line.map_err(e)?;
                    // The harness prints "test child_peer ... " before it.
                    if let Some(at) = line.find(prefix) {
                        return Ok(line[at + prefix.len()..].trim().to_string());
                    }
                }
                Err(format!("the child ended before {prefix}"))
            };
            let theirs: u32 = next("QPN")?.parse().map_err(e)?;
            eprintln!("peer: child's queue pair {theirs}");
            let qp = qp.connect(&Peer::new(theirs, Gid::default())).map_err(e)?;
            let mut stdin = child.stdin.take().ok_or("no stdin")?;
            writeln!(stdin, "{}", qp.number()).map_err(e)?;
            next("READY")?;
            eprintln!("peer: connected");
            let pid = child.id().to_string();
            let signal = |sig: &str| Command::new("kill").args([sig, &pid]).status().map(|s| s.success());
            // One send first, to a live peer and its receive, so the path works
            // (an error would move the queue pair to the error state, and the
            // write below would be flushed, never sent).
            let src = mem(&dpa, 1, PAYLOAD)?;
            let first = {
                post(&dpa, &qp, SEND, &src, 8, &src, true)?;
                poll(&dpa, &qp)?
            };
            eprintln!("peer: first write {first:x?}");
            if !signal("-STOP").map_err(e)? {
                return Err("kill -STOP failed".into());
            }
            // `kill` returns once the signal is sent; the child's threads stop when
            // each is next scheduled, and until the last has (a loaded machine may take
            // milliseconds) its fabric thread could still answer. Wait for the stop.
            let stopped = || -> bool {
                let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten();
                let state = |t: std::fs::DirEntry| std::fs::read_to_string(t.path().join("stat")).unwrap_or_default();
                // The state follows the command name, which is in parentheses.
                let stopped = |stat: String| stat.rsplit_once(") ").is_some_and(|(_, rest)| rest.starts_with('T'));
                tasks.filter_map(Result::ok).map(state).all(stopped)
            };
            let since = std::time::Instant::now();
            while !stopped() {
                if since.elapsed() > Duration::from_secs(10) {
                    return Err("the peer process did not stop within 10 s of SIGSTOP".into());
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            let go = DpaBuffer::<u64>::from_slice(&dpa, &[1]).map_err(e)?;
            let res = DpaBuffer::<u64>::from_slice(&dpa, &[u64::MAX]).map_err(e)?;
            let launcher = Launcher::new(&dpa).map_err(e)?;
            let launch = launcher
                .launch(
                    &doca_tests::rtv_hold_write,
                    1,
                    (&go, &qp, qp.completion(), &src.buf, &src.map, &src.buf, &src.map, &res),
                )
                .map_err(e)?;
            let started = std::time::Instant::now();
            let stopped_wait = launcher.wait_all(Duration::from_secs(5)).map_err(e);
            let health = format!("{:?}", dpa.health());
            let waited = started.elapsed();
            signal("-CONT").map_err(e)?;
            drop(stdin);
            let after = launch.wait(LONG).map_err(e);
            let got = decode(res.to_vec().map_err(e)?[0]);
            let _ = child.kill();
            let _ = child.wait();
            drop((launcher, qp, src, go, res));
            Ok((first, stopped_wait, waited, health, after, got))
        });
        let (first, stopped_wait, waited, health, after, got) =
            r.unwrap_or_else(|m| panic!("the case failed to run: {m}"));
        eprintln!(
            "peer process: first {first:x?}; while stopped: {stopped_wait:?} after {waited:?}, {health}; \
             after continue: {after:?}, completion {got:x?}"
        );
        assert_eq!(first, Some((COMP_SEND, 0)), "the send to the live peer");
        assert!(stopped_wait.is_ok(), "the kernel hung while the peer process was stopped: {stopped_wait:?}");
        assert_eq!(health, "Ok(Ok)", "the context after the peer stopped answering");
        assert!(after.is_ok(), "{after:?}");
        assert_eq!(got, Some((COMP_SEND_ERR, RETRY_EXCEEDED)), "the write to the stopped peer");
    }
}

doca::verbs::if_no_dpa_verbs! {
    #[test]
    fn dpa_verbs_absent() {
        eprintln!("DPA Verbs is not in this build: nothing to attack");
    }
}
