//! The wire between verbs queue pairs, inside one process and between
//! processes of one user on one machine.
//!
//! Model choice: a reliable-connected queue pair on hardware reaches its peer
//! through the network by queue pair number and GID, and the peer can be in
//! another process or on another host. NVIDIA's `dpa_verbs_initiator_target`
//! sample runs its initiator and its target as two processes that exchange
//! queue pair numbers, GIDs, DPA addresses and memory keys over TCP, so the
//! sim carries the packets between processes too. A queue pair number is
//! claimed machine-wide (per user) by creating `qp-<number>` in the fabric
//! directory, which names the claiming process's endpoint socket
//! (`ep-<pid>-<n>.sock`); a packet to a number of this process is handed to
//! its handler directly, one to another process goes over that socket, and
//! the answer comes back on it. Hosts are not modelled: the GID plays no part
//! in routing.
//!
//! Model choice: a peer process that does not answer within the sender's
//! transport timeout (a stopped or overloaded process) is what a peer that
//! sends no ACK is on hardware: the packet fails with
//! [`Status::RetryExceeded`]. The request may still be carried out when the
//! peer resumes, as a request whose ACKs were lost may have been on hardware;
//! its late answer is told apart by the sequence number every frame carries,
//! and dropped, so it is never taken for the answer to a later request.
//!
//! The directory is `DOCA_SIM_FABRIC_DIR`, else `doca-sim-fabric-<uid>` in the
//! system's temporary directory. It must be the user's own and closed to
//! others (mode `0700`), or nothing is claimed (fail closed: another user
//! could otherwise read or forge packets).
//!
//! This module imports nothing of the crate: what a packet does on arrival
//! is the handler's business (the verbs model's).

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::io::{self, Read, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::io::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// The variable naming the fabric directory.
pub(crate) const DIR_VAR: &str = "DOCA_SIM_FABRIC_DIR";

/// What a packet asks of the queue pair it is sent to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Op {
    /// Into the next posted receive.
    Send = 1,
    /// Into the next posted receive, with immediate data.
    SendImm = 2,
    /// Into `remote_addr` under `rkey`.
    Write = 3,
    /// Into `remote_addr` under `rkey`, consuming a receive for the immediate.
    WriteImm = 4,
    /// `len` bytes from `remote_addr` under `rkey`, answered in the reply.
    Read = 5,
    /// Adds the 8 bytes of `data` (little-endian) to the word at
    /// `remote_addr` under `rkey`; the reply has the word's old value.
    FetchAdd = 6,
}

impl Op {
    fn from_wire(byte: u8) -> Option<Op> {
        [
            Op::Send,
            Op::SendImm,
            Op::Write,
            Op::WriteImm,
            Op::Read,
            Op::FetchAdd,
        ]
        .into_iter()
        .find(|op| *op as u8 == byte)
    }
}

/// A request from one queue pair to another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Packet {
    pub(crate) src_qpn: u32,
    pub(crate) dest_qpn: u32,
    pub(crate) op: Op,
    pub(crate) remote_addr: u64,
    pub(crate) rkey: u32,
    pub(crate) imm: u32,
    /// The length a read asks for.
    pub(crate) len: u32,
    /// What a send or write carries.
    pub(crate) data: Vec<u8>,
}

/// What became of a packet: how the receiving queue pair took it, or why it
/// never got an answer. The sender reports it as its completion status (the
/// number is a failed work request's SEND_ERR immediate), so the sender's own
/// failures that send nothing are numbered here too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Status {
    Ok = 0,
    /// The key does not cover the range, or does not allow the access.
    RemoteAccess = 1,
    /// The receiver is not in a state to take it, or it is malformed.
    RemoteInvalidRequest = 2,
    /// No receive was posted (the sender may retry).
    ReceiverNotReady = 3,
    /// No queue pair has the number (never claimed, destroyed, or its process
    /// is gone).
    Unreachable = 4,
    /// The peer's process did not answer within the sender's transport
    /// timeout (hardware: transport retries exceeded).
    RetryExceeded = 5,
    /// The sender's own: a local key that is gone or does not permit the
    /// access (hardware: local protection error). Never sent or answered.
    LocalProtection = 6,
    /// The sender's own: an operation its queue pair's transport does not
    /// have, such as an RDMA read on an unreliable connection (hardware:
    /// local QP operation error). Never sent or answered.
    LocalOperation = 7,
    /// The sender's own: its queue pair is not in RTS — in the error state
    /// after an earlier work request failed, say (hardware: work request
    /// flushed). Never sent or answered.
    Flushed = 8,
}

impl Status {
    /// A peer's answer; it can only say how its queue pair took the packet.
    fn from_wire(byte: u8) -> Status {
        [
            Status::Ok,
            Status::RemoteAccess,
            Status::RemoteInvalidRequest,
            Status::ReceiverNotReady,
        ]
        .into_iter()
        .find(|s| *s as u8 == byte)
        .unwrap_or(Status::Unreachable)
    }
}

/// The answer to a packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reply {
    pub(crate) status: Status,
    /// What a read returns.
    pub(crate) data: Vec<u8>,
}

impl Reply {
    pub(crate) fn status(status: Status) -> Reply {
        Reply {
            status,
            data: Vec::new(),
        }
    }
}

/// What a queue pair does with a packet sent to it. Called on a thread of
/// the fabric with no lock of the fabric held.
pub(crate) type Handler = Arc<dyn Fn(Packet) -> Reply + Send + Sync>;

/// The largest payload a packet may carry (an RC message is at most 2^31
/// bytes; a frame claiming more is refused rather than allocated).
const MAX_DATA: u32 = 1 << 30;
/// Marks the start of a request frame ("DSF2": frames carry a sequence
/// number since version 2, so a process of an older sim is refused rather
/// than misread).
const MAGIC: u32 = 0x4453_4632;
/// The bytes of a request frame before its payload.
const PACKET_HEADER: usize = 44;
/// The bytes of an answer frame before its payload.
const REPLY_HEADER: usize = 12;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// One process's side of the fabric.
pub(crate) struct Fabric {
    dir: PathBuf,
    state: Arc<Mutex<State>>,
}

#[derive(Default)]
struct State {
    /// This side's endpoint socket, once something was claimed.
    endpoint: Option<PathBuf>,
    /// The handlers of the numbers claimed here.
    local: HashMap<u32, Handler>,
    /// Idle connections to other endpoints, by socket path. A sender takes
    /// one for itself (or connects) and puts it back when done, so one
    /// sender's wait for a silent peer never holds up another's.
    peers: HashMap<PathBuf, Vec<Connection>>,
}

/// A connection to another side's endpoint: requests go out on it in order,
/// and their answers come back in the same order.
#[derive(Debug)]
struct Connection {
    stream: UnixStream,
    /// The sequence number of the next request; an answer carries its
    /// request's.
    next_seq: u32,
}

/// How one request on a [`Connection`] ended.
#[derive(Debug)]
enum Exchange {
    Answered(Reply),
    /// No answer before the deadline. `in_sync`: the connection is between
    /// frames, so it may carry the next request (whose answer is told from
    /// this one's by its sequence number); otherwise it must be closed.
    TimedOut {
        in_sync: bool,
    },
    /// The connection failed (closed by the peer, a bad frame).
    Broken,
}

static ENDPOINTS: AtomicU32 = AtomicU32::new(0);

impl Fabric {
    /// The process's fabric, in the directory the environment names.
    pub(crate) fn global() -> &'static Fabric {
        static GLOBAL: OnceLock<Fabric> = OnceLock::new();
        GLOBAL.get_or_init(|| Fabric::new(default_dir()))
    }

    /// A side of the fabric in `dir` (tests make two, to cross a socket).
    pub(crate) fn new(dir: PathBuf) -> Fabric {
        Fabric {
            dir,
            state: Arc::default(),
        }
    }

    /// Claims a queue pair number not in use on this machine and routes the
    /// packets sent to it to `handler`.
    pub(crate) fn claim(&self, handler: Handler) -> io::Result<u32> {
        check_dir(&self.dir)?;
        let endpoint = self.endpoint()?;
        for attempt in 0u32..64 {
            let qpn = candidate_qpn(attempt);
            let path = self.dir.join(format!("qp-{qpn}"));
            let file = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&path);
            match file {
                Ok(mut file) => {
                    file.write_all(endpoint.as_os_str().as_bytes())?;
                    lock(&self.state).local.insert(qpn, handler);
                    return Ok(qpn);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    // Taken, or left by a process that is gone: clear the
                    // latter so the number can be claimed another time.
                    self.clear_if_stale(&path);
                }
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::other("no free queue pair number after 64 tries"))
    }

    /// Gives `qpn` back: packets sent to it are unreachable from now on.
    pub(crate) fn release(&self, qpn: u32) {
        if lock(&self.state).local.remove(&qpn).is_some() {
            let _ = fs::remove_file(self.dir.join(format!("qp-{qpn}")));
        }
    }

    /// Sends `packet` to its destination and returns the answer.
    /// [`Status::Unreachable`] when nothing has the number;
    /// [`Status::RetryExceeded`] when a queue pair of another process does
    /// not answer within `timeout` (one of this process answers before its
    /// handler returns, which needs no bound).
    pub(crate) fn transmit(&self, packet: Packet, timeout: Duration) -> Reply {
        let local = lock(&self.state).local.get(&packet.dest_qpn).cloned();
        if let Some(handler) = local {
            return handler(packet);
        }
        let Some(endpoint) = self.endpoint_of(packet.dest_qpn) else {
            return Reply::status(Status::Unreachable);
        };
        if data_len(&packet.data).is_err() {
            return Reply::status(Status::Unreachable);
        }
        let now = Instant::now();
        let deadline = now.checked_add(timeout).unwrap_or(now);
        let mut pooled = lock(&self.state)
            .peers
            .get_mut(&endpoint)
            .and_then(Vec::pop);
        loop {
            let reused = pooled.is_some();
            let conn = pooled
                .take()
                .or_else(|| UnixStream::connect(&endpoint).ok().map(Connection::new));
            let Some(mut conn) = conn else {
                return Reply::status(Status::Unreachable);
            };
            match conn.exchange(&packet, deadline) {
                Exchange::Answered(reply) => {
                    self.put_back(endpoint, conn);
                    return reply;
                }
                Exchange::TimedOut { in_sync } => {
                    // Out of sync, the connection is dropped (closed): the
                    // late answer has nowhere to arrive.
                    if in_sync {
                        self.put_back(endpoint, conn);
                    }
                    return Reply::status(Status::RetryExceeded);
                }
                // A kept connection may have been closed by a peer that
                // restarted its listener: once more on a fresh one.
                Exchange::Broken if reused => {}
                Exchange::Broken => return Reply::status(Status::Unreachable),
            }
        }
    }

    fn put_back(&self, endpoint: PathBuf, conn: Connection) {
        lock(&self.state)
            .peers
            .entry(endpoint)
            .or_default()
            .push(conn);
    }

    fn endpoint_of(&self, qpn: u32) -> Option<PathBuf> {
        let bytes = fs::read(self.dir.join(format!("qp-{qpn}"))).ok()?;
        Some(PathBuf::from(OsString::from_vec(bytes)))
    }

    /// This side's endpoint, listening from the first call on.
    fn endpoint(&self) -> io::Result<PathBuf> {
        let mut state = lock(&self.state);
        if let Some(path) = &state.endpoint {
            return Ok(path.clone());
        }
        let path = self.dir.join(format!(
            "ep-{}-{}.sock",
            std::process::id(),
            ENDPOINTS.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_file(&path);
        let listener = UnixListener::bind(&path)?;
        let shared = self.state.clone();
        std::thread::Builder::new()
            .name("doca-sim-fabric".into())
            .spawn(move || accept_loop(&listener, &shared))?;
        state.endpoint = Some(path.clone());
        Ok(path)
    }

    /// Removes `qp_file` when the endpoint it names no longer answers.
    fn clear_if_stale(&self, qp_file: &Path) {
        let Ok(bytes) = fs::read(qp_file) else {
            return;
        };
        let endpoint = PathBuf::from(OsString::from_vec(bytes));
        if UnixStream::connect(&endpoint).is_err() {
            let _ = fs::remove_file(qp_file);
        }
    }
}

impl Drop for Fabric {
    fn drop(&mut self) {
        let state = lock(&self.state);
        for qpn in state.local.keys() {
            let _ = fs::remove_file(self.dir.join(format!("qp-{qpn}")));
        }
        if let Some(path) = &state.endpoint {
            let _ = fs::remove_file(path);
        }
    }
}

fn default_dir() -> PathBuf {
    match std::env::var_os(DIR_VAR) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        // SAFETY: getuid has no preconditions and cannot fail.
        _ => std::env::temp_dir().join(format!("doca-sim-fabric-{}", unsafe { libc::getuid() })),
    }
}

/// Makes `dir` (mode 0700) or checks that the existing one is the user's
/// own and closed to others.
fn check_dir(dir: &Path) -> io::Result<()> {
    match fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(dir)?;
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    if !meta.is_dir() || meta.uid() != uid || meta.permissions().mode() & 0o077 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "the sim's fabric directory {} must be a directory of uid {uid} closed to \
                 others (mode 0700); set {DIR_VAR} to another",
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// A 24-bit queue pair number, never 0 or 1 (reserved by InfiniBand for
/// management queue pairs), varying with the process, the time and `attempt`.
fn candidate_qpn(attempt: u32) -> u32 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let n = (h.finish() as u32) & 0x00ff_ffff;
    n.max(2)
}

fn accept_loop(listener: &UnixListener, state: &Arc<Mutex<State>>) {
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        let state = state.clone();
        let spawned = std::thread::Builder::new()
            .name("doca-sim-fabric-peer".into())
            .spawn(move || serve(stream, &state));
        // Without a thread the peer's connection is dropped: it sees its
        // packet unreachable.
        drop(spawned);
    }
}

/// Answers the packets of one peer connection until it closes.
fn serve(mut stream: UnixStream, state: &Mutex<State>) {
    while let Ok(Some((seq, packet))) = read_packet(&mut stream) {
        let handler = lock(state).local.get(&packet.dest_qpn).cloned();
        let reply = match handler {
            Some(handler) => handler(packet),
            None => Reply::status(Status::Unreachable),
        };
        let sent = reply_frame(&reply, seq).and_then(|frame| {
            Sender {
                stream: &stream,
                deadline: None,
                sent: 0,
            }
            .write_all(&frame)
        });
        if sent.is_err() {
            return;
        }
    }
}

impl Connection {
    fn new(stream: UnixStream) -> Connection {
        Connection {
            stream,
            next_seq: 0,
        }
    }

    /// Sends `packet` and waits for its answer until `deadline`, passing
    /// over the late answers of requests that timed out before it.
    fn exchange(&mut self, packet: &Packet, deadline: Instant) -> Exchange {
        let seq = self.next_seq;
        self.next_seq = seq.wrapping_add(1);
        let Ok(frame) = packet_frame(packet, seq) else {
            return Exchange::Broken;
        };
        let mut sender = Sender {
            stream: &self.stream,
            deadline: Some(deadline),
            sent: 0,
        };
        if let Err(e) = sender.write_all(&frame) {
            if timed_out(&e) {
                return Exchange::TimedOut {
                    in_sync: sender.sent == 0,
                };
            }
            return Exchange::Broken;
        }
        loop {
            let mut receiver = Receiver {
                stream: &self.stream,
                deadline,
                got: 0,
            };
            match read_reply(&mut receiver) {
                Ok((answered, reply)) if answered == seq => return Exchange::Answered(reply),
                // The late answer to an earlier request of this connection.
                Ok(_) => {}
                Err(e) if timed_out(&e) => {
                    return Exchange::TimedOut {
                        in_sync: receiver.got == 0,
                    }
                }
                Err(_) => return Exchange::Broken,
            }
        }
    }
}

/// Whether `e` is a socket timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO` expiring is
/// `EAGAIN` on Linux) or a deadline [`time_left`] found passed.
fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// The time until `deadline`, or a timeout error once it has passed (a
/// socket timeout of zero would mean "none").
fn time_left(deadline: Instant) -> io::Result<Duration> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(io::Error::from(io::ErrorKind::TimedOut));
    }
    Ok(left)
}

/// Writes to a connection, counting what left, until an optional deadline.
///
/// `send(MSG_NOSIGNAL)`, not `write`: writing to a connection whose other end
/// closed (a sender that gave up waiting, a process that exited) is then the
/// error `EPIPE`, never SIGPIPE, which would end a C host process (only Rust
/// programs ignore it from the start).
struct Sender<'a> {
    stream: &'a UnixStream,
    deadline: Option<Instant>,
    sent: usize,
}

impl Write for Sender<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(deadline) = self.deadline {
            self.stream.set_write_timeout(Some(time_left(deadline)?))?;
        }
        // SAFETY: `buf` is readable for `buf.len()` bytes during the call,
        // and the descriptor is the stream's, open while it is borrowed.
        let n = unsafe {
            libc::send(
                self.stream.as_raw_fd(),
                buf.as_ptr().cast(),
                buf.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        let n = usize::try_from(n).map_err(|_| io::Error::last_os_error())?;
        self.sent += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Reads from a connection until a deadline, counting what arrived.
struct Receiver<'a> {
    stream: &'a UnixStream,
    deadline: Instant,
    got: usize,
}

impl Read for Receiver<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stream
            .set_read_timeout(Some(time_left(self.deadline)?))?;
        let mut stream = self.stream;
        let n = stream.read(buf)?;
        self.got += n;
        Ok(n)
    }
}

/// The frame of request number `seq`.
fn packet_frame(p: &Packet, seq: u32) -> io::Result<Vec<u8>> {
    let mut frame = Vec::with_capacity(PACKET_HEADER + p.data.len());
    frame.extend_from_slice(&MAGIC.to_le_bytes());
    frame.extend_from_slice(&p.src_qpn.to_le_bytes());
    frame.extend_from_slice(&p.dest_qpn.to_le_bytes());
    frame.extend_from_slice(&[p.op as u8, 0, 0, 0]);
    frame.extend_from_slice(&p.remote_addr.to_le_bytes());
    frame.extend_from_slice(&p.rkey.to_le_bytes());
    frame.extend_from_slice(&p.imm.to_le_bytes());
    frame.extend_from_slice(&p.len.to_le_bytes());
    frame.extend_from_slice(&data_len(&p.data)?.to_le_bytes());
    frame.extend_from_slice(&seq.to_le_bytes());
    frame.extend_from_slice(&p.data);
    Ok(frame)
}

fn data_len(data: &[u8]) -> io::Result<u32> {
    u32::try_from(data.len())
        .ok()
        .filter(|&n| n <= MAX_DATA)
        .ok_or_else(|| io::Error::other("payload larger than an RC message"))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn read_data(r: &mut impl Read, len: u32) -> io::Result<Vec<u8>> {
    if len > MAX_DATA {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "frame too large",
        ));
    }
    let mut data = vec![0; len as usize];
    r.read_exact(&mut data)?;
    Ok(data)
}

/// The next request and its sequence number, or `None` at a clean end of
/// the connection.
fn read_packet(r: &mut impl Read) -> io::Result<Option<(u32, Packet)>> {
    let mut h = [0u8; PACKET_HEADER];
    match r.read_exact(&mut h[..4]) {
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        other => other?,
    }
    r.read_exact(&mut h[4..])?;
    let op = Op::from_wire(h[12]);
    let (Some(op), MAGIC) = (op, u32_at(&h, 0)) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a fabric frame",
        ));
    };
    let mut addr = [0u8; 8];
    addr.copy_from_slice(&h[16..24]);
    let packet = Packet {
        src_qpn: u32_at(&h, 4),
        dest_qpn: u32_at(&h, 8),
        op,
        remote_addr: u64::from_le_bytes(addr),
        rkey: u32_at(&h, 24),
        imm: u32_at(&h, 28),
        len: u32_at(&h, 32),
        data: read_data(r, u32_at(&h, 36))?,
    };
    Ok(Some((u32_at(&h, 40), packet)))
}

/// The frame answering request number `seq`.
fn reply_frame(reply: &Reply, seq: u32) -> io::Result<Vec<u8>> {
    let mut frame = Vec::with_capacity(REPLY_HEADER + reply.data.len());
    frame.extend_from_slice(&[reply.status as u8, 0, 0, 0]);
    frame.extend_from_slice(&data_len(&reply.data)?.to_le_bytes());
    frame.extend_from_slice(&seq.to_le_bytes());
    frame.extend_from_slice(&reply.data);
    Ok(frame)
}

/// The next answer and the sequence number of the request it answers.
fn read_reply(r: &mut impl Read) -> io::Result<(u32, Reply)> {
    let mut h = [0u8; REPLY_HEADER];
    r.read_exact(&mut h)?;
    let reply = Reply {
        status: Status::from_wire(h[0]),
        data: read_data(r, u32_at(&h, 4))?,
    };
    Ok((u32_at(&h, 8), reply))
}

#[cfg(test)]
mod tests;
