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

use std::any::Any;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, RwLock};

use crate::error::{codes, fail, SimResult};
use crate::fastmap::FastMap;
use crate::hooks;
use crate::scope;

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
    let scope = scope::current();
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
    let scope = scope::current();
    hooks::account(scope, kind, 1);
    scope
}

/// Releases a resource counted with [`account_resource`].
pub(crate) fn release_resource(scope: u64, kind: &'static str) {
    hooks::account(scope, kind, -1);
}

/// What a DPA-side handle (a `doca_dpa_dev_*_t` value) designates: the
/// shared core of the object it was made from (a `DpaCore`, an `EventCore`,
/// a `CompletionCore`, ...), looked up again by its type. The table knows no
/// object type, so the objects above it publish their own.
type Published = Arc<dyn Any + Send + Sync>;

fn handles() -> &'static RwLock<FastMap<u64, Published>> {
    static HANDLES: OnceLock<RwLock<FastMap<u64, Published>>> = OnceLock::new();
    HANDLES.get_or_init(Default::default)
}

/// Model choice: handles are opaque non-zero numbers with a recognisable high
/// half, not host addresses, so a kernel cannot mistake one for memory.
const HANDLE_TAG: u64 = 0xD0CA_0000_0000_0000;

/// Publishes `object` in the handle table and returns its new handle.
pub(crate) fn publish<T: Send + Sync + 'static>(object: Arc<T>) -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let handle = HANDLE_TAG | NEXT.fetch_add(1, Ordering::Relaxed);
    handles()
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .insert(handle, object);
    handle
}

/// Looks a handle up: the object it designates, if it is a live handle of
/// a `T`.
pub(crate) fn resolve<T: Send + Sync + 'static>(handle: u64) -> Option<Arc<T>> {
    let object = handles()
        .read()
        .unwrap_or_else(|p| p.into_inner())
        .get(&handle)
        .cloned()?;
    object.downcast().ok()
}

/// Removes a handle: later device calls with it are refused.
pub(crate) fn retract(handle: u64) {
    handles()
        .write()
        .unwrap_or_else(|p| p.into_inner())
        .remove(&handle);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_resolves_only_as_the_type_it_was_published_as() {
        struct Event(u64);
        struct Completion;
        let handle = publish(Arc::new(Event(7)));
        assert_eq!(handle & HANDLE_TAG, HANDLE_TAG);
        assert_eq!(resolve::<Event>(handle).map(|e| e.0), Some(7));
        assert!(resolve::<Completion>(handle).is_none());
        let other = publish(Arc::new(Completion));
        assert_ne!(other, handle);
        assert!(resolve::<Event>(other).is_none());
        retract(handle);
        assert!(resolve::<Event>(handle).is_none());
        assert!(resolve::<Completion>(other).is_some());
        retract(other);
    }
}
