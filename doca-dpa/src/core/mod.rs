//! The DOCA core layer under doca-dpa and doca-rdmi (DESIGN.md, "Three layers":
//! `*-sys` → this → safe RAII types, one module per DOCA object). The concurrency
//! model it implements is stated in one place, `docs/concurrency.md`.
//!
//! - [`guard`]: locking by domain. Every raw object pointer lives in a [`Raw`],
//!   reachable only through a proof that this thread holds its [`Domain`]'s lock
//!   (a [`Held`], or a [`Guard`] when no busy call — an RPC — runs): a context
//!   family is one domain, and each object outside any family is its own.
//!   [`Guarded`] is library state kept under a domain's lock.
//! - [`call`]: every raw DOCA call goes through one helper,
//!   [`__doca_core_call!`](crate::__doca_core_call), which turns the `doca_error_t`
//!   into a [`Result`](crate::Result) naming the call ([`check`]). The error
//!   constructors ([`doca_error`], [`invalid`]) build doca-dpa's
//!   [`Error`](crate::Error), which doca-rdmi uses as its own.
//! - [`owned`]: one owned-handle type, [`Owned`], which destroys a DOCA object
//!   exactly once, under its domain's lock, or buries it ([`bury`],
//!   [`buried_count`]).
//! - [`ctx`]: one `doca_ctx` start/stop/poll-to-idle, [`Ctx`].
//!
//! Public only so that doca-rdmi is built on the same layer: hidden from the
//! documentation, not an API, and exempt from semantic versioning. The safe types
//! of both crates are built on it and never handle a raw code.

pub mod call;
#[cfg(all(
    doca_sym = "doca_ctx_start",
    doca_sym = "doca_ctx_stop",
    doca_sym = "doca_ctx_get_state"
))]
pub mod ctx;
pub mod guard;
pub mod owned;

pub use call::{check, copy_out, doca_error, invalid};
#[cfg(all(
    doca_sym = "doca_ctx_start",
    doca_sym = "doca_ctx_stop",
    doca_sym = "doca_ctx_get_state"
))]
pub use ctx::{Ctx, CtxState, OnQueryError, Phase};
pub use guard::{
    order_violations, Access, Anytime, Borrowed, Domain, Guard, Guarded, Held, Kind, Quiet, Raw,
    WakeFrom,
};
pub use owned::{buried_count, bury, sole, DocaObject, Outcome, Owned, Stoppable};
