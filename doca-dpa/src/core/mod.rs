//! The DOCA core layer under doca-dpa and doca-rdmi (DESIGN.md, "Three layers":
//! `*-sys` → this → safe RAII types, one module per DOCA object).
//!
//! - [`call`]: every raw DOCA call goes through one helper,
//!   [`__doca_core_call!`](crate::__doca_core_call), which takes the process-wide
//!   DOCA lock ([`serialized`], where its scope is stated) after evaluating the
//!   arguments and turns the `doca_error_t` into a [`Result`](crate::Result) naming
//!   the call ([`check`]). The error constructors ([`doca_error`], [`invalid`]) build
//!   doca-dpa's [`Error`](crate::Error), which doca-rdmi uses as its own.
//! - [`owned`]: one owned-handle type, [`Owned`], which destroys a DOCA object
//!   exactly once or buries it ([`bury`], [`buried_count`]).
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
pub mod owned;

pub use call::{check, copy_out, doca_error, invalid, serialized};
pub(crate) use call::{held_here, DocaGuard, DocaGuarded};
#[cfg(all(
    doca_sym = "doca_ctx_start",
    doca_sym = "doca_ctx_stop",
    doca_sym = "doca_ctx_get_state"
))]
pub use ctx::{Ctx, CtxState, OnQueryError, Phase};
pub use owned::{buried_count, bury, sole, DocaObject, Outcome, Owned, Stoppable};
