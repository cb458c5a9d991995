//! # doca: safe Rust bindings for NVIDIA DOCA DPA, DOCA RDMA and DOCA RDMI
//!
//! The facade of doca-rs: [`dpa`] is the `doca-dpa` crate (devices, DPA
//! contexts, kernel launches, events, memory, threads), [`comch`] the
//! `doca-comch` crate (DPA Comms message queues between DPA threads), [`rdma`] the
//! `doca-rdma` crate (DOCA RDMA on the DPA datapath), [`verbs`] the
//! `doca-verbs` crate (DOCA Verbs, which RDMI and DPA Verbs build on), [`rdmi`] the
//! `doca-rdmi` crate, and [`sys`] the raw DPA bindings. The project's
//! examples and integration tests live in this package; their DPA kernels come
//! from a package only they depend on (`doca-test-kernels`), so this library
//! links no kernel of ours into your program.
//!
//! Backends: real DOCA by default (found by pkg-config); the `sim` feature
//! (`doca = { version = "0.1", features = ["sim"] }`, typically in
//! `[dev-dependencies]`) puts the whole tree on the software DPA, whose test
//! hooks are then `doca::sim` (fault injection, device profiles, live-object
//! accounting); without it doca-sim is not in the build at all. `doca` passes the backend on to your build
//! script (`links = "doca"`), so `doca_build_support::dpa_app::DpaApp` builds your
//! kernels with dpacc or for the sim to match.
//!
//! On hardware the bindings are the ones doca-rs bundles, used once the build has
//! checked that the installed DOCA headers declare every bound item the same way
//! (no libclang needed); the `bindgen` feature generates them from the installed
//! headers instead. The `tokio` feature lets launches and events be awaited in a
//! tokio runtime.
//!
//! Launching a kernel (this runs on the software DPA where DOCA is absent):
//!
//! ```
//! use std::time::Duration;
//! use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};
//!
//! // The examples' DPA image (`examples/kernels/*.c`, `--app-name=doca_examples`),
//! // declared from its C prototypes. Your crate writes `doca::dpa::include_app!(my_app);`
//! // for the app its own build script builds (see the README's guide).
//! use doca_test_kernels::doca_examples;
//!
//! let device = Device::open_first_with_dpa()?;
//! let dpa = Dpa::start(&device, doca_examples::app())?;
//! let out = DpaBuffer::<u64>::new(&dpa, 9)?;          // 8 slots + the thread count
//! let launcher = Launcher::new(&dpa)?;
//! launcher
//!     .launch(&doca_examples::fill_ranks, 8, (&out, 10u64, 1u32))?
//!     .wait(Duration::from_secs(10))?;
//! assert_eq!(out.to_vec()?, [1, 11, 21, 31, 41, 51, 61, 71, 8]);
//! # Ok::<(), doca::dpa::Error>(())
//! ```

/// DOCA DPA: devices, DPA contexts, kernel launches, events, memory, threads (the
/// `doca-dpa` crate, whose documentation has the guide).
///
/// A module of its own rather than `pub use doca_dpa as dpa`: rustc names items in
/// its messages by a path through a module, and through a renamed crate it prints
/// the crate's own name (`doca::doca_dpa::…`), a path a user cannot write.
pub mod dpa {
    #[doc(inline)]
    pub use doca_dpa::*;
}
/// Raw bindings to DOCA DPA and the DOCA Core pieces it needs.
pub use doca_dpa_sys as sys;
/// **Sim builds only** (the `sim` feature): the software DPA's test hooks (fault
/// injection, device profiles, live-object accounting), so a dependant's tests need
/// no `doca-sim` dependency of their own. Present only in builds on the `sim`
/// backend (the `sim` feature, which is what brings doca-sim into a build), and in
/// documentation builds with the feature (docs.rs builds this crate's with it).
#[cfg(any(doca_backend = "sim", all(doca_backend = "docs", feature = "sim")))]
#[doc(inline)]
pub use doca_dpa_sys::doca_sim as sim;
/// DPA Comms (the `doca-comch` crate): DOCA Comch message queues whose producers
/// and consumers are DPA threads of one DPA application; a module for the same
/// reason as [`dpa`].
pub mod comch {
    #[doc(inline)]
    pub use doca_comch::*;
}
/// DOCA RDMA on the DPA datapath (the `doca-rdma` crate): RDMA contexts,
/// connections, remote memory maps and remote sync events for DPA kernels; a
/// module for the same reason as [`dpa`].
pub mod rdma {
    #[doc(inline)]
    pub use doca_rdma::*;
}
/// DOCA Verbs (the `doca-verbs` crate): verbs contexts, protection domains,
/// completion queues and, from DOCA 3.2, the queue pairs DPA Verbs kernels post
/// on; a module for the same reason as [`dpa`].
pub mod verbs {
    #[doc(inline)]
    pub use doca_verbs::*;
}
/// DOCA RDMI on the DPA (the `doca-rdmi` crate); a module for the same reason as
/// [`dpa`].
pub mod rdmi {
    #[doc(inline)]
    pub use doca_rdmi::*;
}

/// The README's Rust examples, compiled (and, but for `no_run` ones, run) by
/// `cargo test` as doctests of this crate. Its `rs` blocks are the out-of-tree user
/// crate's files, which `scripts/user-crate-test.sh` builds and checks instead.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
