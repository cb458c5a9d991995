//! Which test-hook scope the calling thread is in.
//!
//! The scope id is all that profiles, live-object accounting and fault
//! injection need to know of a [`Scope`](crate::Scope): it lives here, below
//! all of them, so none has to import another to find it.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    static CURRENT: Cell<u64> = const { Cell::new(0) };
}

static NEXT: AtomicU64 = AtomicU64::new(1);

/// The scope id of the calling thread (0, the global scope, when it has
/// entered none).
pub(crate) fn current() -> u64 {
    CURRENT.with(Cell::get)
}

/// A scope id never handed out before.
pub(crate) fn fresh() -> u64 {
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Puts the calling thread in scope `id` and returns the scope it was in.
pub(crate) fn enter(id: u64) -> u64 {
    CURRENT.with(|c| c.replace(id))
}
