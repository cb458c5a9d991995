//! # doca-verbs: safe Rust bindings for NVIDIA DOCA Verbs
//!
//! DOCA Verbs is DOCA's own verbs layer: a verbs context on a device, protection
//! domains and completion queues, and queue pairs. It is what two other DPA
//! communication paths are built on, and this crate is the one verbs layer both use:
//!
//! - doca-rdmi makes its connections and posters on a [`VerbsContext`], with a
//!   [`ProtectionDomain`] and, for host-read completions, a [`CompletionQueue`];
//! - DPA Verbs (DOCA 3.2+): a kernel posts work requests on a queue pair the host
//!   created on the DPA datapath and brought to RTS: `QpBuilder` → `Qp` →
//!   `ConnectedQp`, with its ring memory (`DpaUmem`) and doorbell region
//!   (`DpaUar`) on the DPA. A connected queue pair is a typed kernel argument of
//!   the doca-dpa launch API, for the C parameter type `doca_dpa_dev_verbs_qp_t`:
//!   checked against the DPA context the kernel runs on, and kept alive by the
//!   launch, DPA thread or DPA struct given it until the device is done. These
//!   exist only in builds for DOCA 3.2 or newer (the `doca_ge_3_2` cfg), where the
//!   install declares them.
//!
//! **Every DOCA Verbs function is EXPERIMENTAL.** The crate always builds; where
//! the install has no `doca-verbs.pc` (DOCA 3.0), or lacks functions a part needs,
//! [`availability()`] says why the API is absent. Each item's documentation names
//! the DOCA calls it makes.
//!
//! ```
//! # doca_verbs::if_verbs! {
//! use doca_dpa::Device;
//! use doca_verbs::{CompletionQueue, CqAttributes, ProtectionDomain, VerbsContext};
//! # use doca_test_kernels as _;
//!
//! # fn main() -> doca_dpa::Result<()> {
//! let device = Device::open_first_with_dpa()?;
//! let verbs = VerbsContext::new(&device)?;
//! let pd = ProtectionDomain::new(&verbs)?;
//! let cq = CompletionQueue::new(&verbs, &CqAttributes::new(16))?;
//! // Each object holds its parent: dropping `verbs` first changes nothing.
//! drop(verbs);
//! assert_eq!(cq.attributes().size(), 16);
//! assert!(pd.same_as(&pd.clone()));
//! # Ok(())
//! # }
//! # }
//! # doca_verbs::if_no_verbs! { fn main() {} }
//! ```
//!
//! ## What keeps a verbs object alive
//!
//! Ownership, never a borrow. Each object holds an `Arc` of what it was made on
//! (a CQ bound to a DPA thread holds the thread), so whatever order values are
//! dropped in, an object is destroyed after everything that uses it and before
//! everything it uses; an explicit `destroy()` while something still uses it fails
//! with [`Error::InUse`] and changes nothing. `Drop` never panics; it logs
//! through `tracing`.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Parameter types differ between DOCA releases' headers (and the reference
// headers): casts that are no-ops against one are needed against another.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod availability;
#[cfg(doca_verbs_api)]
mod context;
#[cfg(doca_verbs_api)]
mod cq;
#[cfg_attr(not(doca_verbs_api), allow(dead_code, unused_imports, unused_macros))]
mod error;
#[cfg(doca_verbs_api)]
mod pd;
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
mod qp;
#[allow(dead_code)]
mod requirements;
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
mod uar;
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
mod umem;

pub use availability::{availability, Availability};
#[cfg(doca_verbs_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use context::{DeviceAttributes, VerbsContext, VerbsContextFlags, VerbsGuard};
#[cfg(doca_verbs_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use cq::{CompletionQueue, CqAttributes, CqEntrySize};
#[cfg(doca_verbs_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use pd::ProtectionDomain;
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
#[cfg_attr(docsrs, doc(cfg(all(doca_ge_3_2, feature = "experimental"))))]
pub use qp::{
    AddressType, ConnectError, ConnectedQp, DestroyError, Gid, PathMtu, Peer, Qp, QpBuilder, QpType,
};
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
#[cfg_attr(docsrs, doc(cfg(all(doca_ge_3_2, feature = "experimental"))))]
pub use uar::DpaUar;
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
#[cfg_attr(docsrs, doc(cfg(all(doca_ge_3_2, feature = "experimental"))))]
pub use umem::DpaUmem;

/// The errors are those of `doca-dpa`: one error type for every DOCA call.
pub use doca_dpa::{Error, ErrorCode, ErrorKind, Result};

/// The raw bindings (DOCA Verbs), for calls this crate does not wrap.
pub use doca_verbs_sys as sys;

/// What this build is: backend, DOCA version, why DOCA Verbs is absent (if it
/// is), and the audit of every DOCA function this crate may call (DOCA Core, DPA,
/// Verbs) with whether this build uses it.
pub mod build_info {
    pub use doca_dpa_sys::build_info::{BACKEND, DOCA_VERSION};
    pub use doca_verbs_sys::build_info::VERBS_ABSENT_REASON;
    include!(concat!(env!("OUT_DIR"), "/audit.rs"));
}

/// The auto traits of every public type, in one list: `Send + Sync`, since every
/// DOCA call is made under the lock of its object's domain (a verbs context's, or
/// a DPA context family's: `docs/concurrency.md`).
mod auto_traits {
    use static_assertions::assert_impl_all;
    assert_impl_all!(crate::Availability: Send, Sync);
    #[cfg(doca_verbs_api)]
    mod core {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::VerbsContext: Send, Sync, Clone);
        assert_impl_all!(crate::ProtectionDomain: Send, Sync);
        assert_impl_all!(crate::CompletionQueue: Send, Sync);
        assert_impl_all!(crate::DeviceAttributes: Send, Sync);
        assert_impl_all!(crate::CqAttributes: Send, Sync);
        assert_impl_all!(crate::CqEntrySize: Send, Sync, Copy);
        assert_impl_all!(crate::VerbsContextFlags: Send, Sync, Copy);
    }
    #[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
    mod dpa_qp {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::QpBuilder: Send, Sync);
        assert_impl_all!(crate::Qp: Send, Sync);
        assert_impl_all!(crate::ConnectedQp: Send, Sync);
        assert_impl_all!(crate::ConnectError: Send, Sync);
        assert_impl_all!(crate::DestroyError: Send, Sync);
        assert_impl_all!(crate::Peer: Send, Sync);
        assert_impl_all!(crate::DpaUar: Send, Sync, Clone);
        assert_impl_all!(crate::DpaUmem: Send, Sync, Clone);
    }
}

/// Expands the items inside only in builds where the verbs contexts, PDs and CQs
/// are compiled (see [`availability()`]), so that programs, examples and tests
/// using DOCA Verbs still build against a DOCA without it. Pair it with
/// [`if_no_verbs!`]; [`if_dpa_verbs!`] is the same for the queue pairs of DPA
/// Verbs (DOCA 3.2+).
///
/// ```
/// doca_verbs::if_verbs! {
///     fn verbs_part() -> &'static str { "DOCA Verbs is here" }
/// }
/// doca_verbs::if_no_verbs! {
///     fn verbs_part() -> &'static str { "DOCA Verbs is absent" }
/// }
/// assert!(!verbs_part().is_empty());
/// ```
#[cfg(doca_verbs_api)]
#[macro_export]
macro_rules! if_verbs {
    ($($item:item)*) => { $($item)* };
}

/// Expands the items inside only in builds where every wrapper of this crate is
/// compiled (see [`availability()`]). Pair it with [`if_no_verbs!`].
#[cfg(not(doca_verbs_api))]
#[macro_export]
macro_rules! if_verbs {
    ($($item:item)*) => {};
}

/// The opposite of [`if_verbs!`]: expands the items only in builds without every
/// wrapper of this crate.
#[cfg(doca_verbs_api)]
#[macro_export]
macro_rules! if_no_verbs {
    ($($item:item)*) => {};
}

/// The opposite of [`if_verbs!`]: expands the items only in builds without every
/// wrapper of this crate.
#[cfg(not(doca_verbs_api))]
#[macro_export]
macro_rules! if_no_verbs {
    ($($item:item)*) => { $($item)* };
}

/// Expands the items inside only in builds where the queue pairs of DPA Verbs
/// are compiled (DOCA 3.2 or newer, every function they need present: see
/// [`availability()`]). Pair it with [`if_no_dpa_verbs!`].
///
/// ```
/// doca_verbs::if_dpa_verbs! {
///     fn dpa_verbs() -> bool { true }
/// }
/// doca_verbs::if_no_dpa_verbs! {
///     fn dpa_verbs() -> bool { false }
/// }
/// assert_eq!(dpa_verbs(), doca_verbs::availability().is_available());
/// ```
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
#[macro_export]
macro_rules! if_dpa_verbs {
    ($($item:item)*) => { $($item)* };
}

/// Expands the items inside only in builds where the queue pairs of DPA Verbs
/// are compiled. Pair it with [`if_no_dpa_verbs!`].
#[cfg(not(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp)))]
#[macro_export]
macro_rules! if_dpa_verbs {
    ($($item:item)*) => {};
}

/// The opposite of [`if_dpa_verbs!`].
#[cfg(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp))]
#[macro_export]
macro_rules! if_no_dpa_verbs {
    ($($item:item)*) => {};
}

/// The opposite of [`if_dpa_verbs!`].
#[cfg(not(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp)))]
#[macro_export]
macro_rules! if_no_dpa_verbs {
    ($($item:item)*) => { $($item)* };
}
