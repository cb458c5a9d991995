//! # doca-rdma: safe Rust bindings for DOCA RDMA on the DPA datapath
//!
//! DOCA RDMA is the public, documented way for DPA kernels to issue RDMA: an RDMA
//! context on a device, its datapath on a DPA context, reporting to a DPA
//! completion context; connections exported and connected to a peer's; and
//! kernels posting sends, receives, writes, reads, atomics and signals on them
//! with the calls of `doca_dpa_dev_rdma.h`. This crate stands the host side up:
//!
//! - [`RdmaBuilder`] → [`Rdma`]: the context, configured before its start
//!   (connections, queue sizes, permissions, GID index), started with its
//!   datapath and completion fixed at construction;
//! - [`Rdma::export`] → [`PendingConnection`] → [`Connection`]: the bytes that go
//!   to the peer, and the connection the peer's bytes connect;
//! - [`RemoteMmap`] and [`RemoteEvent`]: a peer's exported memory map and sync
//!   event, named by this side's kernels; this side's own are doca-dpa's
//!   [`DpaMmap`](doca_dpa::DpaMmap) (with RDMA [`AccessFlags`](doca_dpa::AccessFlags),
//!   [`export_rdma`](doca_dpa::DpaMmap::export_rdma)) and
//!   [`SignalEvent`](doca_dpa::SignalEvent) ([`export`](doca_dpa::SignalEvent::export)).
//!
//! Each is a typed kernel argument of the doca-dpa launch API, for the C
//! parameter types `doca_dpa_dev_rdma_t` (a context or a connection),
//! `doca_dpa_dev_mmap_t` and `doca_dpa_dev_sync_event_remote_net_t`: checked
//! against the DPA context the kernel runs on, and kept alive by the launch, DPA
//! thread or DPA struct that is given it until the device is known to be done.
//!
//! Every function of `doca_rdma.h` is EXPERIMENTAL. The crate always builds; where
//! the install has no `doca-rdma.pc`, [`availability()`] says why the API is
//! absent. Each item's documentation names the DOCA calls it makes.
//!
//! ## The flow
//!
//! Both sides in one process, as NVIDIA's samples run them (on the software DPA
//! a loopback; on hardware, two ports or two machines with the bytes sent over a
//! channel of the service's own):
//!
//! ```
//! # doca_rdma::if_rdma! {
//! use doca_dpa::{CompletionBuilder, Device, Dpa};
//! use doca_rdma::RdmaBuilder;
//! # use doca_test_kernels::doca_examples;
//!
//! # fn main() -> doca_dpa::Result<()> {
//! let device = Device::open_first_with_dpa()?;
//! let dpa = Dpa::start(&device, doca_examples::app())?;
//! let start = |dpa: &Dpa| -> doca_dpa::Result<doca_rdma::Rdma> {
//!     let completion = CompletionBuilder::new(dpa, 64)?.start()?;
//!     RdmaBuilder::new(dpa, &completion)?.recv_queue_size(16)?.start()
//! };
//! let (initiator, target) = (start(&dpa)?, start(&dpa)?);
//! let (a, b) = (initiator.export()?, target.export()?);
//! let a_details = a.details().to_vec();
//! let a = a.connect(b.details())?;
//! let b = b.connect(&a_details)?;
//! // Launch kernels with `(&a, a.id(), …)` for `(doca_dpa_dev_rdma_t rdma,
//! // uint32_t connection_id, …)`: the launch keeps the context alive.
//! assert_eq!((a.id(), b.id()), (0, 0));
//! # Ok(())
//! # }
//! # }
//! # doca_rdma::if_no_rdma! { fn main() {} }
//! ```
//!
//! ## What keeps an RDMA object alive
//!
//! Ownership, never a borrow. A context holds its DPA context and its DPA
//! completion; a connection holds its context; a remote map or event holds its DPA
//! context; a launch, DPA thread or DPA struct given any of them holds it until
//! the device is done. So the context is stopped and destroyed after everything
//! that uses it, [`Rdma::stop`] refuses while anything does
//! ([`doca_dpa::Error::InUse`]), and one that cannot be stopped is leaked with
//! what it uses, never freed. `Drop` never panics; it logs through `tracing`.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Parameter types differ between DOCA releases' headers (and the reference
// headers): casts that are no-ops against one are needed against another.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod availability;
#[cfg(doca_rdma_api)]
mod context;
#[cfg_attr(
    not(any(doca_rdma_api, doca_rdma_remote_mmap, doca_rdma_remote_event)),
    allow(dead_code, unused_imports, unused_macros)
)]
mod error;
#[cfg(any(doca_rdma_remote_mmap, doca_rdma_remote_event))]
mod remote;
#[allow(dead_code)]
mod requirements;

pub use availability::{availability, Availability};
#[cfg(doca_rdma_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use context::{ConnectError, Connection, PendingConnection, Rdma, RdmaBuilder, StopError};
#[cfg(doca_rdma_remote_event)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use remote::RemoteEvent;
#[cfg(doca_rdma_remote_mmap)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use remote::RemoteMmap;

/// The kernel parameter types this crate's objects are arguments for: the
/// generated declarations of a kernel whose C parameter is a
/// `doca_dpa_dev_rdma_t`, `doca_dpa_dev_mmap_t` or
/// `doca_dpa_dev_sync_event_remote_net_t` name these (re-exported from
/// [`doca_dpa::param`]).
pub mod param {
    pub use doca_dpa::param::{Mmap, Rdma, RemoteEvent};
}

/// The errors are those of `doca-dpa`: one error type for every DOCA call.
pub use doca_dpa::{Error, ErrorCode, ErrorKind, Result};

/// The raw bindings (DOCA RDMA), for calls this crate does not wrap.
pub use doca_rdma_sys as sys;

/// What this build is: backend, DOCA version, why DOCA RDMA is absent (if it is),
/// and the audit of every DOCA function this crate may call (DOCA Core, DPA,
/// RDMA) with whether this build uses it.
pub mod build_info {
    pub use doca_dpa_sys::build_info::{BACKEND, DOCA_VERSION};
    pub use doca_rdma_sys::build_info::RDMA_ABSENT_REASON;
    include!(concat!(env!("OUT_DIR"), "/audit.rs"));
}

/// The auto traits of every public type, in one list: `Send + Sync`, since every
/// DOCA call is made under the guard of its DPA context family (every object here
/// is a member of one: `docs/concurrency.md`).
mod auto_traits {
    use static_assertions::assert_impl_all;
    assert_impl_all!(crate::Availability: Send, Sync);
    #[cfg(doca_rdma_api)]
    mod context {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::RdmaBuilder: Send, Sync);
        assert_impl_all!(crate::Rdma: Send, Sync);
        assert_impl_all!(crate::PendingConnection: Send, Sync);
        assert_impl_all!(crate::Connection: Send, Sync);
        assert_impl_all!(crate::ConnectError: Send, Sync);
        assert_impl_all!(crate::StopError: Send, Sync);
    }
    #[cfg(doca_rdma_remote_mmap)]
    assert_impl_all!(crate::RemoteMmap: Send, Sync);
    #[cfg(doca_rdma_remote_event)]
    assert_impl_all!(crate::RemoteEvent: Send, Sync);
}

/// Expands the items inside only in builds where every wrapper of this crate is
/// compiled (see [`availability()`]), so that programs, examples and tests using
/// DOCA RDMA still build against a DOCA without it. Pair it with [`if_no_rdma!`].
///
/// ```
/// doca_rdma::if_rdma! {
///     fn rdma_part() -> &'static str { "DOCA RDMA is here" }
/// }
/// doca_rdma::if_no_rdma! {
///     fn rdma_part() -> &'static str { "DOCA RDMA is absent" }
/// }
/// assert!(!rdma_part().is_empty());
/// ```
#[cfg(all(doca_rdma_api, doca_rdma_remote_mmap, doca_rdma_remote_event))]
#[macro_export]
macro_rules! if_rdma {
    ($($item:item)*) => { $($item)* };
}

/// Expands the items inside only in builds where every wrapper of this crate is
/// compiled (see [`availability()`]). Pair it with [`if_no_rdma!`].
#[cfg(not(all(doca_rdma_api, doca_rdma_remote_mmap, doca_rdma_remote_event)))]
#[macro_export]
macro_rules! if_rdma {
    ($($item:item)*) => {};
}

/// The opposite of [`if_rdma!`]: expands the items only in builds without every
/// wrapper of this crate.
#[cfg(all(doca_rdma_api, doca_rdma_remote_mmap, doca_rdma_remote_event))]
#[macro_export]
macro_rules! if_no_rdma {
    ($($item:item)*) => {};
}

/// The opposite of [`if_rdma!`]: expands the items only in builds without every
/// wrapper of this crate.
#[cfg(not(all(doca_rdma_api, doca_rdma_remote_mmap, doca_rdma_remote_event)))]
#[macro_export]
macro_rules! if_no_rdma {
    ($($item:item)*) => { $($item)* };
}
