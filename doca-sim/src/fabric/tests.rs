use super::*;

/// A fresh fabric directory of this test, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "doca-sim-fabric-test-{}-{name}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Long enough for any answer of a live side.
const WAIT: Duration = Duration::from_secs(20);

fn packet(dest_qpn: u32, op: Op, data: &[u8]) -> Packet {
    Packet {
        src_qpn: 7,
        dest_qpn,
        op,
        remote_addr: 0x1000_2000_3000,
        rkey: 0xabcd,
        imm: 0x5eed,
        len: 3,
        data: data.to_vec(),
    }
}

/// A handler that records what reached it and answers reads with
/// `len` bytes counting up from 1.
fn recorder() -> (Handler, Arc<Mutex<Vec<Packet>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let handler: Handler = Arc::new(move |p: Packet| {
        let data = match p.op {
            Op::Read => (1..=p.len as u8).collect(),
            _ => Vec::new(),
        };
        lock(&log).push(p);
        Reply {
            status: Status::Ok,
            data,
        }
    });
    (handler, seen)
}

#[test]
fn a_packet_crosses_the_socket_to_another_side_and_back() {
    let dir = TempDir::new("cross");
    let (a, b) = (Fabric::new(dir.0.clone()), Fabric::new(dir.0.clone()));
    let (handler, seen) = recorder();
    let qpn = b.claim(handler).expect("claim");
    assert!((2..1 << 24).contains(&qpn), "a 24-bit number: {qpn}");

    let write = packet(qpn, Op::Write, b"abc");
    assert_eq!(a.transmit(write.clone(), WAIT).status, Status::Ok);
    let read = a.transmit(packet(qpn, Op::Read, b""), WAIT);
    assert_eq!((read.status, read.data), (Status::Ok, vec![1, 2, 3]));
    let seen = lock(&seen);
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0], write, "every field arrives as sent");
    assert_eq!(seen[1].op, Op::Read);
}

#[test]
fn a_number_of_this_side_is_served_without_the_socket() {
    let dir = TempDir::new("local");
    let a = Fabric::new(dir.0.clone());
    let (handler, seen) = recorder();
    let qpn = a.claim(handler).expect("claim");
    assert_eq!(
        a.transmit(packet(qpn, Op::Send, b"x"), WAIT).status,
        Status::Ok
    );
    assert_eq!(lock(&seen).len(), 1);
    assert!(lock(&a.state).peers.is_empty(), "no connection was made");
}

#[test]
fn numbers_are_distinct_and_released_numbers_are_unreachable() {
    let dir = TempDir::new("release");
    let (a, b) = (Fabric::new(dir.0.clone()), Fabric::new(dir.0.clone()));
    let qpns: Vec<u32> = (0..16)
        .map(|_| b.claim(recorder().0).expect("claim"))
        .collect();
    let mut unique = qpns.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), qpns.len(), "{qpns:?}");

    b.release(qpns[0]);
    assert!(!dir.0.join(format!("qp-{}", qpns[0])).exists());
    assert_eq!(
        a.transmit(packet(qpns[0], Op::Write, b"z"), WAIT).status,
        Status::Unreachable
    );
    assert_eq!(
        a.transmit(packet(qpns[1], Op::Write, b"z"), WAIT).status,
        Status::Ok
    );
    // A side that is gone takes its numbers with it.
    let kept = qpns[1];
    drop(b);
    assert_eq!(
        a.transmit(packet(kept, Op::Write, b"z"), WAIT).status,
        Status::Unreachable
    );
}

#[test]
fn a_stale_claim_is_cleared_and_a_live_one_kept() {
    let dir = TempDir::new("stale");
    let a = Fabric::new(dir.0.clone());
    let live = a.claim(recorder().0).expect("claim");
    let stale = dir.0.join("qp-12345");
    fs::write(&stale, dir.0.join("ep-gone.sock").as_os_str().as_bytes()).expect("write");
    a.clear_if_stale(&stale);
    assert!(!stale.exists(), "its endpoint does not answer");
    let live_file = dir.0.join(format!("qp-{live}"));
    a.clear_if_stale(&live_file);
    assert!(live_file.exists(), "its endpoint answers");
}

#[test]
fn a_directory_open_to_others_is_refused() {
    let dir = TempDir::new("open");
    fs::create_dir(&dir.0).expect("mkdir");
    fs::set_permissions(&dir.0, fs::Permissions::from_mode(0o755)).expect("chmod");
    let err = Fabric::new(dir.0.clone())
        .claim(recorder().0)
        .expect_err("a 0755 directory is refused");
    assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
    assert!(err.to_string().contains(DIR_VAR), "{err}");
    assert!(
        fs::read_dir(&dir.0).expect("read").next().is_none(),
        "nothing claimed"
    );
}

#[test]
fn garbage_frames_are_errors_not_allocations() {
    let mut bad_magic = packet_frame(&packet(9, Op::Write, b"q"), 0).expect("frame");
    bad_magic[0] ^= 0xff;
    assert!(read_packet(&mut bad_magic.as_slice()).is_err());

    let mut huge = packet_frame(&packet(9, Op::Write, b""), 0).expect("frame");
    huge[36..40].copy_from_slice(&u32::MAX.to_le_bytes());
    let err = read_packet(&mut huge.as_slice()).expect_err("a 4 GiB claim is refused");
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);

    let mut empty: &[u8] = &[];
    assert!(matches!(read_packet(&mut empty), Ok(None)), "a clean end");

    let mut unknown_op = packet_frame(&packet(9, Op::Read, b""), 0).expect("frame");
    unknown_op[12] = 99;
    assert!(read_packet(&mut unknown_op.as_slice()).is_err());
}

/// A fake endpoint numbered `qpn` in `side`'s directory, driven by the test
/// itself: the listener that the qp file names.
fn fake_peer(side: &Fabric, dir: &Path, qpn: u32) -> UnixListener {
    // A claim makes the directory (mode 0700) as a real side would.
    side.claim(recorder().0).expect("claim");
    let path = dir.join(format!("ep-fake-{qpn}.sock"));
    let listener = UnixListener::bind(&path).expect("bind");
    fs::write(dir.join(format!("qp-{qpn}")), path.as_os_str().as_bytes()).expect("qp file");
    listener
}

fn answer(stream: &UnixStream, reply: &Reply, seq: u32) {
    Sender {
        stream,
        deadline: None,
        sent: 0,
    }
    .write_all(&reply_frame(reply, seq).expect("frame"))
    .expect("answer");
}

#[test]
fn a_silent_peer_times_out_and_its_late_answer_is_not_taken_for_the_next() {
    let dir = TempDir::new("silent");
    let a = Fabric::new(dir.0.clone());
    let listener = fake_peer(&a, &dir.0, 0x4242);
    let (resume, resumed) = std::sync::mpsc::channel::<()>();
    let peer = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        let (first, _) = read_packet(&mut stream).expect("read").expect("a request");
        // Silent until the sender has given up, then late.
        resumed.recv().expect("resume");
        answer(&stream, &Reply::status(Status::RemoteAccess), first);
        let (second, p) = read_packet(&mut stream).expect("read").expect("a request");
        answer(
            &stream,
            &Reply {
                status: Status::Ok,
                data: vec![9; p.len as usize],
            },
            second,
        );
    });

    let started = Instant::now();
    let timeout = Duration::from_millis(200);
    let first = a.transmit(packet(0x4242, Op::Write, b"w"), timeout);
    let waited = started.elapsed();
    assert_eq!(first.status, Status::RetryExceeded);
    assert!(
        waited >= timeout && waited < timeout + Duration::from_secs(5),
        "gave up after {waited:?}"
    );
    resume.send(()).expect("resume");
    let second = a.transmit(packet(0x4242, Op::Read, b""), WAIT);
    assert_eq!(
        (second.status, second.data),
        (Status::Ok, vec![9; 3]),
        "the late answer to the write was taken for the read's"
    );
    peer.join().expect("the peer");
}

#[test]
fn a_connection_left_inside_a_frame_is_closed_and_the_next_packet_connects_again() {
    let dir = TempDir::new("torn");
    let a = Fabric::new(dir.0.clone());
    let listener = fake_peer(&a, &dir.0, 0x4343);
    let peer = std::thread::spawn(move || {
        let (mut torn, _) = listener.accept().expect("accept");
        let (seq, _) = read_packet(&mut torn).expect("read").expect("a request");
        // Half an answer header, and no more.
        let frame = reply_frame(&Reply::status(Status::Ok), seq).expect("frame");
        torn.write_all(&frame[..REPLY_HEADER / 2]).expect("half");
        // The sender closes it and comes back on a new connection.
        assert!(matches!(read_packet(&mut torn), Ok(None)), "closed");
        let (mut fresh, _) = listener.accept().expect("accept again");
        let (seq, _) = read_packet(&mut fresh).expect("read").expect("a request");
        answer(&fresh, &Reply::status(Status::Ok), seq);
        // Kept for the next packet.
        assert!(
            matches!(read_packet(&mut fresh), Ok(None)),
            "closed at the end"
        );
    });
    let torn = a.transmit(packet(0x4343, Op::Write, b"t"), Duration::from_millis(200));
    assert_eq!(torn.status, Status::RetryExceeded);
    let ok = a.transmit(packet(0x4343, Op::Write, b"t"), WAIT);
    assert_eq!(ok.status, Status::Ok);
    let endpoint = a.endpoint_of(0x4343).expect("endpoint");
    assert_eq!(lock(&a.state).peers.get(&endpoint).map(Vec::len), Some(1));
    // Closes it (the side's state outlives `a`: its listener thread has it).
    lock(&a.state).peers.clear();
    peer.join().expect("the peer");
}

/// `MSG_NOSIGNAL` is what keeps a C host alive here (a Rust test ignores
/// SIGPIPE anyway): the write is an error the serving thread handles.
#[test]
fn an_answer_to_a_sender_that_left_is_an_error() {
    let (ours, theirs) = UnixStream::pair().expect("pair");
    drop(theirs);
    let err = Sender {
        stream: &ours,
        deadline: None,
        sent: 0,
    }
    .write_all(b"late")
    .expect_err("the other end is closed");
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
}
