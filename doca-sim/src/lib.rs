//! # doca-sim: a software DPA behind the DOCA C ABI
//!
//! `doca-sim` implements, in Rust, the C functions declared by the reference
//! headers in `include/` (DOCA Core, DPA, Verbs and RDMI, written by this
//! project from public facts about DOCA). The `doca-dpa-sys` and
//! `doca-rdmi-sys` crates link it when they are built for the sim backend, so
//! programs written against DOCA run on machines without a BlueField. It also
//! builds as shared libraries named like DOCA's, which the project uses to
//! exercise the hardware build path without hardware.
//!
//! It models the documented contract, not the silicon: the lifecycle rules and
//! error codes of the DOCA documentation, asynchronous kernel launches whose
//! instances run concurrently on host threads, sync events, a bounds-checked
//! DPA heap, DPA threads woken by completions and notifications, and a
//! watchdog that makes a context fatal when a kernel overruns its run-time
//! limit. Behaviour the documentation leaves open is marked "Model choice" in
//! the doc comment of the function that implements it.
//!
//! Kernels are the same C sources dpacc compiles: `doca-build-support`
//! compiles them for the host against `device-include/` and registers them
//! under their application name (see `device-include/doca_sim_app.h`).
//!
//! ## Test hooks
//!
//! [`Scope`] gives a test its own fault injection, call counters and
//! live-object accounting, and [`Profile`] shapes the devices:
//!
//! ```
//! use doca_sim::{abi, Nth, Scope};
//! let scope = Scope::new();
//! scope.inject("doca_dpa_start", Nth::At(1), abi::DOCA_ERROR_DRIVER)?;
//! // ... run the code under test on this thread ...
//! # let mut dpa = std::ptr::null_mut();
//! # // SAFETY: a NULL device is refused with INVALID_VALUE; start then
//! # // fails with the injected code.
//! # unsafe { abi::doca_dpa_create(std::ptr::null_mut(), &mut dpa); abi::doca_dpa_start(dpa) };
//! scope.assert_all_fired(); // the fault was reached
//! assert_eq!(scope.live_total(), 0);
//! # Ok::<(), doca_sim::InjectError>(())
//! ```
//!
//! ## The memory checker
//!
//! In the sim a kernel is host code, so without help its bad access would
//! corrupt or crash the test process. doca-sim fences every DPA heap
//! allocation with inaccessible memory and keeps freed blocks inaccessible
//! for a while; a kernel's bad access, NULL dereference, use after free,
//! `abort()`/failed `assert()`, `doca_sim_dev_fault` call or overrun of the
//! kernel run-time limit ends that kernel and makes its context fatal, as a
//! device-side error does on hardware. [`fault_report`] then says what
//! happened (see [`FaultReport`]); the host process carries on. The fenced
//! heap is on by default; `memcheck = false` in the profile or
//! `DOCA_SIM_MEMCHECK=0` (which wins over the profile) turns it off for
//! speed, and then bad accesses inside the host's memory go unseen. Traps
//! (a NULL dereference, `abort()`, the watchdog) are device faults either
//! way.
//!
//! Environment variables: `DOCA_SIM_PROFILE` (a profile file, see
//! [`Profile::parse`]; empty means the default), `DOCA_SIM_FAULTS` (faults
//! for the whole process, see [`hooks`]), `DOCA_SIM_MEMCHECK` (`0`/`1`),
//! `DOCA_SIM_LOG` (print why each error was returned), `DOCA_SIM_FABRIC_DIR`
//! (where verbs queue pairs of different processes find each other; see
//! docs/sim-model.md, "DPA Verbs"). A malformed value
//! makes every DOCA call fail with `DOCA_ERROR_BAD_CONFIG` (see
//! [`config_error`]).
//!
//! ## Layers
//!
//! Bottom to top. A module imports only modules of its own layer or of the
//! layers below it, and no imports go round in a loop (`tests/layers.rs`
//! checks both against this list), so a behaviour is found by going down
//! from the C function that shows it:
//!
//! 1. Foundations, which import nothing of the crate: `abi` (the bindings of
//!    the reference headers), `error`, `trap` (catching device code's bad
//!    accesses), `dma` (probing copies), `fastmap`, `scope` (the calling
//!    thread's test scope id), `fabric` (the wire between verbs queue pairs,
//!    also between processes).
//! 2. Settings and test hooks: `profile`, `memcheck`, `hooks` (fault
//!    injection, call counts, live-object counts), `config` (the environment,
//!    which fails closed).
//! 3. The frame of every call: `export` (the `doca_api!` wrapper each host C
//!    function runs in: config check, fault injection, error log) and
//!    `registry` (the live C objects and the DPA handle table, generic over
//!    the object types above it).
//! 4. Devices: `dev`.
//! 5. The DPA context: `dpa`, `dpa::app`, `dpa::fault`, `dpa::memory`.
//! 6. Contexts and progress engines: `ctx`.
//! 7. Sync events: `sync_event`, `sync_event::value`, `sync_event::task`.
//! 8. What runs on the DPA and what it reaches: `dpa::launch` (device code
//!    on host threads, kernel launches, RPCs), `dpa::threads` (DPA threads,
//!    completions, notifications), `dpa::async_ops` (async ops and the copies
//!    and waits kernels post on them), `mmap`, `verbs`, `rdma` (DOCA RDMA on
//!    the DPA datapath, a loopback), `dpa_verbs` (UMEMs, UARs and the
//!    traffic of queue pairs on the DPA datapath), `comch` (DPA Comms message queues, a
//!    loopback).
//! 9. RDMI: `rdmi`.
//! 10. The C edge that only calls into the model: `device` (the functions
//!     DPA kernels call) and `common` (`doca_error.h`, `doca_version.h`).
//!
//! Each object module of layers 4 to 9 holds its model and, in its
//! `doca_api!` blocks, the host C functions of that object; their names are
//! the DOCA names, so `grep -rn 'fn doca_sync_event_start'` finds the one
//! place. The few device calls that need an object's private state stay
//! with it (RDMI's `doca_sim_dev_rdmi_*` and `doca_sim_impl_rdmi_send`,
//! DPA RDMA's `doca_sim_impl_rdma_*`, DPA Comms' `doca_sim_impl_comch_*`,
//! async ops' `doca_sim_impl_async_*`, the launch entry points of `csrc/` in
//! `dpa::launch`).

pub mod abi;
mod comch;
mod common;
mod config;
mod ctx;
mod dev;
mod device;
mod dma;
mod dpa;
mod dpa_verbs;
mod error;
mod export;
mod fabric;
mod fastmap;
pub mod hooks;
mod memcheck;
mod mmap;
mod profile;
mod rdma;
mod rdmi;
mod registry;
mod scope;
mod sync_event;
mod trap;
mod verbs;

pub use config::config_error;
pub use dpa::fault::{Access, DeviceCode, FaultKind, FaultReport, QueueKind};
pub use dpa::launch::abandoned_eu_threads;
pub use dpa::{concurrent_context_uses, fault_report, max_run_time};
pub use hooks::{Entered, Hold, InjectError, Nth, Scope, ScopeHandle};
pub use profile::{
    profile_source, set_global_profile, DeviceProfile, PciFuncType, Profile, ProfileError,
    ProfileSource, RepresentorProfile, DEFAULT_RUNTIME_VERSION,
};
pub use rdmi::SLOT_BYTES as RDMI_SLOT_BYTES;

/// What `doca_dpa_sys::build_info::BACKEND` reports for this backend.
pub const BACKEND_NAME: &str = "sim";
