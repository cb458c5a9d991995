//! Live objects handed out through the C ABI, and the DPA-side handle table.
//!
//! Every object the sim gives to C (a `struct doca_dpa *`, a
//! `struct doca_sync_event *`, ...) is a leaked `Box` registered here with its
//! kind and the [`Scope`](crate::Scope) that created it. Each call checks the
//! pointer it receives against the registry.
//!
//! Model choice: a pointer that is not a live object of the expected kind
//! (NULL, destroyed, or of another type) is refused with
//! `DOCA_ERROR_INVALID_VALUE`. Real DOCA documents INVALID_VALUE for NULL and
//! leaves stale pointers undefined; the sim turns them into an error so tests
//! of the safe layer fail loudly instead of corrupting memory.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use crate::error::{codes, fail, SimResult};
use crate::hooks;

/// A hash map keyed by the sim's own values (addresses, handles, scope ids,
/// function names), none of which an adversary chooses: the lookups on every
/// DOCA call need speed, not the default hasher's resistance to collisions
/// chosen by an attacker.
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FastHasher>>;

/// The multiply-rotate hash of the Rust compiler's own tables (FxHash).
#[derive(Default, Clone, Copy)]
pub(crate) struct FastHasher(u64);

impl FastHasher {
    const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.add(u64::from_le_bytes(tail));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A type the sim hands to C as an opaque pointer.
pub(crate) trait SimObject: Send + Sync + 'static {
    /// The name used for accounting and messages, e.g. `"doca_dpa"`.
    const KIND: &'static str;
}

struct Entry {
    kind: &'static str,
    scope: u64,
}

fn objects() -> MutexGuard<'static, FastMap<usize, Entry>> {
    static OBJECTS: OnceLock<Mutex<FastMap<usize, Entry>>> = OnceLock::new();
    OBJECTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Boxes `object`, registers it and returns the pointer for C.
pub(crate) fn register<T: SimObject>(object: T) -> *mut T {
    let ptr = Box::into_raw(Box::new(object));
    let scope = hooks::current_scope();
    objects().insert(
        ptr as usize,
        Entry {
            kind: T::KIND,
            scope,
        },
    );
    hooks::account(scope, T::KIND, 1);
    ptr
}

/// Checks that `ptr` is a live `T` and borrows it.
///
/// # Safety
/// The returned reference must not outlive the object: callers use it within
/// one exported call, and DOCA objects are not used from several threads at
/// once (the C API is not thread-safe), so no other call destroys it meanwhile.
pub(crate) unsafe fn get<'a, T: SimObject, P>(ptr: *const P) -> SimResult<&'a T> {
    check::<T>(ptr as usize)?;
    // SAFETY: registered pointers come from `Box::into_raw` of a `T` and stay
    // valid until `unregister`; see the function's safety contract.
    Ok(unsafe { &*(ptr as *const T) })
}

fn check<T: SimObject>(addr: usize) -> SimResult {
    check_in::<T>(&objects(), addr)
}

fn check_in<T: SimObject>(objects: &FastMap<usize, Entry>, addr: usize) -> SimResult {
    if addr == 0 {
        return Err(fail(codes::INVALID_VALUE, "NULL object pointer"));
    }
    match objects.get(&addr) {
        Some(e) if e.kind == T::KIND => Ok(()),
        Some(_) => Err(fail(codes::INVALID_VALUE, "object pointer of another type")),
        None => Err(fail(
            codes::INVALID_VALUE,
            "pointer is not a live object (destroyed or never created)",
        )),
    }
}

/// Unregisters `ptr` and takes the box back.
///
/// # Safety
/// As for [`get`]; after this call C must not use the pointer again (the sim
/// will refuse it if it does).
pub(crate) unsafe fn unregister<T: SimObject, P>(ptr: *mut P) -> SimResult<Box<T>> {
    let addr = ptr as usize;
    let entry = {
        let mut objects = objects();
        check_in::<T>(&objects, addr)?;
        objects.remove(&addr)
    };
    if let Some(entry) = entry {
        hooks::account(entry.scope, T::KIND, -1);
    }
    // SAFETY: `check_in` proved the pointer came from `register::<T>` and has
    // not been unregistered before; removing it under the same lock makes this
    // the only `from_raw`.
    Ok(unsafe { Box::from_raw(ptr as *mut T) })
}

/// Counts a resource that is not a C object (a DPA heap block, a handle) in
/// the live-object accounting of the current scope. Returns the scope so the
/// matching release is charged to the same one.
pub(crate) fn account_resource(kind: &'static str) -> u64 {
    let scope = hooks::current_scope();
    hooks::account(scope, kind, 1);
    scope
}

/// Releases a resource counted with [`account_resource`].
pub(crate) fn release_resource(scope: u64, kind: &'static str) {
    hooks::account(scope, kind, -1);
}

/// What a DPA-side handle (a `doca_dpa_dev_*_t` value) designates.
#[derive(Clone)]
pub(crate) enum DeviceObject {
    /// A DPA context (`doca_dpa_dev_t`). No sim device function takes it;
    /// the entry only keeps the handle valid while the context is started.
    #[allow(dead_code)]
    Dpa(Arc<crate::dpa::DpaCore>),
    /// A sync event exported to a DPA (`doca_dpa_dev_sync_event_t`).
    SyncEvent(Arc<crate::sync_event::EventCore>),
    /// A DPA completion context (`doca_dpa_dev_completion_t`).
    Completion(Arc<crate::dpa::threads::CompletionCore>),
    /// The thread a notification completion wakes
    /// (`doca_dpa_dev_notification_completion_t`).
    Thread(Arc<crate::dpa::threads::ThreadCore>),
    /// A DPA hash table (`doca_dpa_dev_hash_table_t`).
    HashTable(Arc<crate::dpa::threads::HashCore>),
    /// A started RDMI connection (`doca_dpa_dev_rdmi_connection_t`).
    RdmiConnection(Arc<crate::rdmi::ConnectionCore>),
    /// A started RDMI poster (`doca_rdmi_dev_poster_t`).
    RdmiPoster(Arc<crate::rdmi::PosterCore>),
    /// A sync event reached over the network: the export of one
    /// (`doca_sync_event_export_to_remote_net`) and the DPA handles of its
    /// remote side (`doca_dpa_dev_sync_event_remote_net_t`). Only RDMA
    /// signals use such handles on the DPA, and the sim models no DPA RDMA.
    #[allow(dead_code)]
    RemoteNetEvent(Arc<crate::sync_event::EventCore>),
    /// A handle whose device-side use the sim does not model.
    Opaque,
}

fn handles() -> &'static RwLock<FastMap<u64, DeviceObject>> {
    static HANDLES: OnceLock<RwLock<FastMap<u64, DeviceObject>>> = OnceLock::new();
    HANDLES.get_or_init(Default::default)
}

/// Model choice: handles are opaque non-zero numbers with a recognisable high
/// half, not host addresses, so a kernel cannot mistake one for memory.
const HANDLE_TAG: u64 = 0xD0CA_0000_0000_0000;

/// Publishes `object` in the handle table and returns its new handle.
pub(crate) fn publish(object: DeviceObject) -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let handle = HANDLE_TAG | NEXT.fetch_add(1, Ordering::Relaxed);
    handles()
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .insert(handle, object);
    handle
}

/// Looks a handle up.
pub(crate) fn resolve(handle: u64) -> Option<DeviceObject> {
    handles()
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(&handle)
        .cloned()
}

/// Removes a handle: later device calls with it are refused.
pub(crate) fn retract(handle: u64) {
    handles()
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&handle);
}
