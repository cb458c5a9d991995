//! # doca-rdmi: safe Rust bindings for NVIDIA DOCA RDMI
//!
//! RDMI ("RDMA initiator") lets DPA kernels drive RDMA through a
//! *connection* (the receive side, with a receive buffer the host
//! acknowledges) and a *poster* (the side that issues work), both configured
//! on the host on a DOCA Verbs context. This crate stands them up, hands
//! their DPA handles to kernels as typed arguments of the `doca-dpa` launch
//! API, acknowledges receives, and tears everything down in DOCA's order.
//!
//! **Every DOCA RDMI and DOCA Verbs function is EXPERIMENTAL**, and no public
//! RDMI header is known: the parameter types are inferred. The crate always
//! builds; [`availability()`] says whether RDMI is usable in this build and
//! why not. Each item's documentation names the DOCA calls it makes.
//!
//! ## The flow
//!
//! (Compiled, not run: the received message needs a DPA kernel that sends it;
//! `examples/rdmi_connection.rs` runs this flow end to end on the sim.)
//!
//! ```no_run
//! # doca_rdmi::if_rdmi! { // (builds without RDMI compile nothing here)
//! use doca_dpa::{Completion, Dpa, RepresentorFilter};
//! use doca_rdmi::*;
//!
//! fn set_up(dpa: &Dpa, completion: &Completion) -> doca_dpa::Result<()> {
//!     let device = dpa.device();
//!     let rep = device.open_representors(RepresentorFilter::NET)?.remove(0);
//!     let verbs = VerbsContext::new(device)?;
//!     let pd = ProtectionDomain::new(&verbs)?;
//!
//!     let conn = ConnectionBuilder::new(
//!         &verbs, &rep, dpa,
//!         CompletionSource::Dpa(completion),
//!         ReceiveBuffer::with_slot_bytes(16 * 64, 64)?,
//!     )
//!     .pd(&pd)
//!     .start()?;
//!     // The poster keeps the connection it works with alive.
//!     let poster = PosterBuilder::new(&verbs, dpa, CompletionSource::Dpa(completion))
//!         .pd(&pd)
//!         .connection(&conn)
//!         .start()?;
//!
//!     // Launch a kernel with `(&poster, &conn)` as arguments (kernel
//!     // parameters of the RDMI handle types); the launch keeps both alive
//!     // until it completed. Then acknowledge what it consumed:
//!     conn.recv_ack(1)?;
//!     let first = conn.received(0)?;
//!
//!     poster.stop()?;                 // the poster lets the connection go
//!     let buffer = conn.stop()?;      // the receive buffer comes back
//!     assert_eq!(buffer.slot(0), Some(&first[..]));
//!     Ok(())
//! }
//! # }
//! # fn main() {}
//! ```
//!
//! ## Lifecycles as types
//!
//! [`ConnectionBuilder`] → [`Connection`] → [`StoppingConnection`] (and the
//! same for posters): configuration exists only before start, DPA handles
//! only on started objects, and only as kernel arguments that keep the object
//! alive, so "attach after start", "handle before start" and "handle after
//! stop" do not compile. Exactly one [`CompletionSource`] is given. What the
//! types cannot rule out is DOCA's to refuse, and comes back as a
//! [`doca_dpa::Error`].
//!
//! ## What keeps an RDMI object alive
//!
//! Ownership, never a borrow or a declaration order. Verbs objects hold an
//! `Arc` of their parents (a CQ bound to a DPA thread holds the thread);
//! connections and posters hold their verbs context, PD, completion source
//! (DPA completion or CQ), representor and the [`doca_dpa::Dpa`] they run on;
//! a poster holds the connections given to [`PosterBuilder::connection`];
//! a launch, DPA thread or DPA struct given a connection or poster holds it
//! until the device is done with it. So whatever order values drop in, each
//! RDMI object is stopped and destroyed after everything that uses it and
//! before everything it uses, and an explicit `stop()` while something still
//! uses it fails with [`doca_dpa::Error::InUse`]. A connection frees its
//! receive buffer only after it was destroyed (and leaks it if DOCA refuses
//! to destroy it). `Drop` raises no panic of its own; it logs through
//! `tracing` (install a subscriber to see teardown failures), and `stop()`
//! returns the errors instead. A panic of user code a drop runs (a `tracing`
//! subscriber) goes on once what the device may still use is buried.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Parameter types differ between DOCA releases' headers (and the reference
// headers): casts and conversions that are no-ops against one are needed
// against another.
#![allow(
    clippy::unnecessary_cast,
    clippy::useless_conversion,
    clippy::unnecessary_fallible_conversions
)]

mod availability;
// Its helpers serve the connection and poster modules only.
#[cfg_attr(
    not(any(doca_rdmi_api = "connection", doca_rdmi_api = "poster")),
    allow(dead_code, unused_imports, unused_macros)
)]
mod error;
mod requirements;

#[cfg(doca_rdmi_api = "connection")]
mod connection;
#[cfg(any(doca_rdmi_api = "connection", doca_rdmi_api = "poster"))]
mod ctx;
#[cfg(doca_sym = "doca_dpa_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub mod param;
#[cfg(doca_rdmi_api = "poster")]
mod poster;

pub use availability::{absent_reasons, availability, AbsentReason, Availability};
#[cfg(doca_rdmi_api = "connection")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use connection::{
    AppRqInfo, Connection, ConnectionBuilder, ReceiveBuffer, StoppingConnection, SIM_SLOT_BYTES,
};
#[cfg(any(doca_rdmi_api = "connection", doca_rdmi_api = "poster"))]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use ctx::{CompletionSource, CtxState, StopError, DEFAULT_STOP_TIMEOUT};
/// The verbs objects RDMI is made on: doca-verbs's (`doca::verbs`), re-exported
/// so that an RDMI program needs one import path.
#[cfg(doca_rdmi_api = "verbs")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use doca_verbs::{
    CompletionQueue, CqAttributes, CqEntrySize, DeviceAttributes, ProtectionDomain, VerbsContext,
    VerbsContextFlags, VerbsGuard,
};
#[cfg(doca_rdmi_api = "poster")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use poster::{Poster, PosterBuilder, StoppingPoster};

/// The auto traits of every public RDMI type, in one list: `Send + Sync`, since
/// every DOCA call is made under the lock of its object's domain (a verbs
/// context's, or the datapath's context family's: `docs/concurrency.md`).
mod auto_traits {
    use static_assertions::assert_impl_all;
    assert_impl_all!(crate::Availability: Send, Sync);
    assert_impl_all!(crate::AbsentReason: Send, Sync);
    #[cfg(any(doca_rdmi_api = "connection", doca_rdmi_api = "poster"))]
    mod ctx {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::CtxState: Send, Sync, Copy);
        assert_impl_all!(crate::CompletionSource<'static>: Send, Sync);
        #[cfg(doca_rdmi_api = "poster")]
        assert_impl_all!(crate::StopError<crate::Poster>: Send, Sync);
    }
    #[cfg(doca_rdmi_api = "verbs")]
    mod verbs {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::VerbsContext: Send, Sync, Clone);
        assert_impl_all!(crate::ProtectionDomain: Send, Sync);
        assert_impl_all!(crate::CompletionQueue: Send, Sync);
        assert_impl_all!(crate::DeviceAttributes: Send, Sync);
        assert_impl_all!(crate::CqAttributes: Send, Sync);
        assert_impl_all!(crate::CqEntrySize: Send, Sync, Copy);
        assert_impl_all!(crate::VerbsContextFlags: Send, Sync, Copy);
    }
    #[cfg(doca_rdmi_api = "connection")]
    mod connection {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::Connection: Send, Sync);
        assert_impl_all!(crate::ConnectionBuilder: Send, Sync);
        assert_impl_all!(crate::StoppingConnection: Send, Sync);
        assert_impl_all!(crate::ReceiveBuffer: Send, Sync);
        assert_impl_all!(crate::AppRqInfo: Send, Sync);
    }
    #[cfg(doca_rdmi_api = "poster")]
    mod poster {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::Poster: Send, Sync);
        assert_impl_all!(crate::PosterBuilder: Send, Sync);
        assert_impl_all!(crate::StoppingPoster: Send, Sync);
    }
}

/// The errors are those of `doca-dpa`: one error type for every DOCA call.
pub use doca_dpa::{Error, ErrorCode, ErrorKind, Result};

/// The raw bindings (DOCA RDMI), for calls this crate does not wrap; DOCA
/// Verbs' are doca-verbs's (`doca_verbs::sys`).
pub use doca_rdmi_sys as sys;

/// What this build is: backend, DOCA version, why RDMI is absent (if it
/// is), and the audit of every DOCA function this crate may call (DOCA Core,
/// DPA, Verbs, RDMI) with whether this build uses it.
pub mod build_info {
    pub use doca_dpa_sys::build_info::{BACKEND, DOCA_VERSION};
    pub use doca_rdmi_sys::build_info::RDMI_ABSENT_REASON;
    include!(concat!(env!("OUT_DIR"), "/audit.rs"));
}

/// Expands the items inside only in builds where the RDMI wrappers are
/// compiled (see [`availability()`]), so that programs, examples and tests
/// using RDMI still build against a DOCA without it. Pair it with
/// [`if_no_rdmi!`].
///
/// ```
/// doca_rdmi::if_rdmi! {
///     fn rdmi_part() -> &'static str { "RDMI is here" }
/// }
/// doca_rdmi::if_no_rdmi! {
///     fn rdmi_part() -> &'static str { "RDMI is absent" }
/// }
/// assert!(!rdmi_part().is_empty());
/// ```
#[cfg(all(doca_rdmi_api = "connection", doca_rdmi_api = "poster"))]
#[macro_export]
macro_rules! if_rdmi {
    ($($item:item)*) => { $($item)* };
}

/// Expands the items inside only in builds where the RDMI wrappers are
/// compiled (see [`availability()`]), so that programs, examples and tests
/// using RDMI still build against a DOCA without it. Pair it with
/// [`if_no_rdmi!`].
#[cfg(not(all(doca_rdmi_api = "connection", doca_rdmi_api = "poster")))]
#[macro_export]
macro_rules! if_rdmi {
    ($($item:item)*) => {};
}

/// The opposite of [`if_rdmi!`]: expands the items only in builds without
/// the RDMI wrappers.
#[cfg(all(doca_rdmi_api = "connection", doca_rdmi_api = "poster"))]
#[macro_export]
macro_rules! if_no_rdmi {
    ($($item:item)*) => {};
}

/// The opposite of [`if_rdmi!`]: expands the items only in builds without
/// the RDMI wrappers.
#[cfg(not(all(doca_rdmi_api = "connection", doca_rdmi_api = "poster")))]
#[macro_export]
macro_rules! if_no_rdmi {
    ($($item:item)*) => { $($item)* };
}
