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
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

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

/// How the receiving queue pair took a packet (the completion status the
/// sender reports).
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
}

impl Status {
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
/// How long a peer process may take over one read or write of a frame before
/// the transfer fails (Unreachable: the work request completes SEND_ERR).
/// Model choice: hardware's transport retries give up after about half a
/// second at common ACK timeouts and retry counts; the sim waits 2 s so that a
/// live peer on a loaded machine is not taken for a dead one. The connection is
/// then dropped, so a late reply cannot answer a later request; the peer may
/// still perform the request once it runs again, as a responder may after a
/// retry-exceeded error.
const PEER_TIMEOUT: Duration = Duration::from_secs(2);
/// Marks the start of a request frame.
const MAGIC: u32 = 0x4453_4631;

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
    /// Open connections to other endpoints, by socket path.
    peers: HashMap<PathBuf, Arc<Mutex<UnixStream>>>,
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
    /// [`Status::Unreachable`] when nothing has the number.
    pub(crate) fn transmit(&self, packet: Packet) -> Reply {
        let local = lock(&self.state).local.get(&packet.dest_qpn).cloned();
        if let Some(handler) = local {
            return handler(packet);
        }
        let Some(endpoint) = self.endpoint_of(packet.dest_qpn) else {
            return Reply::status(Status::Unreachable);
        };
        // One retry on a fresh connection: a cached one may have been closed
        // by a peer that restarted its listener.
        for _ in 0..2 {
            let Some(stream) = self.connection(&endpoint) else {
                return Reply::status(Status::Unreachable);
            };
            let mut stream = lock(&stream);
            match exchange(&mut stream, &packet) {
                Ok(reply) => return reply,
                Err(e) => {
                    drop(stream);
                    lock(&self.state).peers.remove(&endpoint);
                    // A peer that does not answer in time gets no second wait.
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) {
                        return Reply::status(Status::Unreachable);
                    }
                }
            }
        }
        Reply::status(Status::Unreachable)
    }

    fn endpoint_of(&self, qpn: u32) -> Option<PathBuf> {
        let bytes = fs::read(self.dir.join(format!("qp-{qpn}"))).ok()?;
        Some(PathBuf::from(OsString::from_vec(bytes)))
    }

    fn connection(&self, endpoint: &Path) -> Option<Arc<Mutex<UnixStream>>> {
        if let Some(stream) = lock(&self.state).peers.get(endpoint) {
            return Some(stream.clone());
        }
        let stream = UnixStream::connect(endpoint).ok()?;
        stream.set_read_timeout(Some(PEER_TIMEOUT)).ok()?;
        stream.set_write_timeout(Some(PEER_TIMEOUT)).ok()?;
        let stream = Arc::new(Mutex::new(stream));
        lock(&self.state)
            .peers
            .insert(endpoint.to_owned(), stream.clone());
        Some(stream)
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
    while let Ok(Some(packet)) = read_packet(&mut stream) {
        let handler = lock(state).local.get(&packet.dest_qpn).cloned();
        let reply = match handler {
            Some(handler) => handler(packet),
            None => Reply::status(Status::Unreachable),
        };
        if write_reply(&mut stream, &reply).is_err() {
            return;
        }
    }
}

fn exchange(stream: &mut UnixStream, packet: &Packet) -> io::Result<Reply> {
    write_packet(stream, packet)?;
    read_reply(stream)
}

fn write_packet(w: &mut impl Write, p: &Packet) -> io::Result<()> {
    let mut frame = Vec::with_capacity(40 + p.data.len());
    frame.extend_from_slice(&MAGIC.to_le_bytes());
    frame.extend_from_slice(&p.src_qpn.to_le_bytes());
    frame.extend_from_slice(&p.dest_qpn.to_le_bytes());
    frame.extend_from_slice(&[p.op as u8, 0, 0, 0]);
    frame.extend_from_slice(&p.remote_addr.to_le_bytes());
    frame.extend_from_slice(&p.rkey.to_le_bytes());
    frame.extend_from_slice(&p.imm.to_le_bytes());
    frame.extend_from_slice(&p.len.to_le_bytes());
    frame.extend_from_slice(&data_len(&p.data)?.to_le_bytes());
    frame.extend_from_slice(&p.data);
    w.write_all(&frame)
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

/// The next request, or `None` at a clean end of the connection.
fn read_packet(r: &mut impl Read) -> io::Result<Option<Packet>> {
    let mut h = [0u8; 40];
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
    Ok(Some(Packet {
        src_qpn: u32_at(&h, 4),
        dest_qpn: u32_at(&h, 8),
        op,
        remote_addr: u64::from_le_bytes(addr),
        rkey: u32_at(&h, 24),
        imm: u32_at(&h, 28),
        len: u32_at(&h, 32),
        data: read_data(r, u32_at(&h, 36))?,
    }))
}

fn write_reply(w: &mut impl Write, reply: &Reply) -> io::Result<()> {
    let mut frame = Vec::with_capacity(8 + reply.data.len());
    frame.extend_from_slice(&[reply.status as u8, 0, 0, 0]);
    frame.extend_from_slice(&data_len(&reply.data)?.to_le_bytes());
    frame.extend_from_slice(&reply.data);
    w.write_all(&frame)
}

fn read_reply(r: &mut impl Read) -> io::Result<Reply> {
    let mut h = [0u8; 8];
    r.read_exact(&mut h)?;
    Ok(Reply {
        status: Status::from_wire(h[0]),
        data: read_data(r, u32_at(&h, 4))?,
    })
}

#[cfg(test)]
mod tests;
