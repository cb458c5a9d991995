//! # doca-dpa: safe Rust bindings for NVIDIA DOCA DPA
//!
//! Host-side API for the DPA (the many-core processor on BlueField-3 and
//! ConnectX-7+ NICs): find a device, start a DPA context with a dpacc-built
//! application, launch kernels with typed arguments, move data to and from
//! DPA memory, and learn about completion through sync events — without
//! `unsafe`.
//!
//! Finding a DPA and its limits needs no DPA image (this example runs on the
//! software DPA, and on any machine with a DPA):
//!
//! ```
//! for info in doca_dpa::devices()? {
//!     println!("{} {} DPA: {}", info.pci_addr, info.ibdev_name, info.has_dpa);
//! }
//! let device = doca_dpa::Device::open_first_with_dpa()?;
//! let limits = doca_dpa::DpaBuilder::new(&device)?.limits()?;
//! assert!(limits.max_threads_per_kernel > 0);
//! # Ok::<(), doca_dpa::Error>(())
//! ```
//!
//! Launching a kernel needs a DPA image linked into the program: a build script
//! builds it from the kernels' C sources with `doca-build-support`, which also
//! generates the Rust declarations of every kernel from its C prototype; the
//! program includes them with [`include_app!`]. This example runs on the software
//! DPA, with the app of doca-rs's own examples (`examples/kernels/kernel_launch.c`)
//! standing in for yours:
//!
//! ```
//! # // The doctest cannot have a build script: it takes the app from doca-rs's
//! # // kernels package, which does exactly what the two comments below say.
//! # use doca_test_kernels::doca_examples;
//! use std::time::Duration;
//! use doca_dpa::{Device, Dpa, DpaBuffer, Launcher};
//!
//! // build.rs: DpaApp::new("doca_examples").sources_in("examples/kernels").build_or_exit();
//! // kernel_launch.c: __dpa_global__ void fill_ranks(uint64_t *out, uint64_t scale,
//! //                                                 uint32_t offset)
//! // and in the crate: doca_dpa::include_app!(doca_examples);
//!
//! let device = Device::open_first_with_dpa()?;
//! let dpa = Dpa::start(&device, doca_examples::app())?;
//! let out = DpaBuffer::<u64>::new(&dpa, 5)?; // 4 slots + the thread count
//! let launcher = Launcher::new(&dpa)?;
//! launcher
//!     .launch(&doca_examples::fill_ranks, 4, (&out, 10u64, 7u32))?
//!     .wait(Duration::from_secs(10))?;
//! assert_eq!(out.to_vec()?, [7, 17, 27, 37, 4]);
//! # Ok::<(), doca_dpa::Error>(())
//! ```
//!
//! Teardown failures (a context that refuses to stop, objects leaked because the
//! device may still use them) are reported through `tracing` only, since `Drop`
//! cannot return them: install a `tracing` subscriber to see them, or call the
//! explicit `stop()` / `destroy()` methods where they exist to get a `Result`.
//!
//! ## What keeps device work alive
//!
//! Ownership, never a borrow. Every object the DPA may touch — DPA memory, sync
//! events, completions, threads, RDMI connections and posters — is reference
//! counted, and whatever hands it to the device holds a [`KeepAlive`] of it until
//! the library has *observed* that the device is done:
//!
//! - a launch's arguments and gate event are held by its [`Launcher`] until a
//!   completion event shows that it and every launch before it finished (see the
//!   launcher's epochs); a [`Launch`]
//!   borrows nothing, so dropping or forgetting it, a timeout, or out-of-order
//!   completion cannot release them early;
//! - a [`DpaThread`] holds its argument and local storage until it is destroyed
//!   and no activation of it can still run: once the device's kernel run-time
//!   limit has passed since its stop with the context healthy, or for good on a
//!   device without a limit;
//! - a [`DpaBox`] (a typed struct in DPA memory) holds what its handle and
//!   address fields reference for as long as its memory lives;
//! - when the library cannot confirm the device is done (a launcher dropped with
//!   launches in flight past the kernel run-time limit, a thread that cannot be
//!   stopped, an RPC that failed on a fatal context) it leaks those objects, with a
//!   `tracing` warning, and never frees them.
//!
//! DPA addresses and handle values never appear in safe code: [`DevPtr`] and
//! [`Handle`] can be made or read only with `unsafe`. A device function reads
//! handles and addresses only where the library wrote them: a C `T *` parameter
//! takes memory of `T`s (a `struct S *` a [`DpaBox<S>`], whose handle fields are
//! [`Dev`]s), and an untyped one (`void *`, `doca_dpa_dev_uintptr_t`), which says
//! nothing of what is read there, takes memory only as an `unsafe` [`Untyped`]. Host copies of a buffer a
//! kernel is using are allowed; like DMA they may see torn values, never undefined
//! behaviour. Install a `tracing` subscriber to see teardown failures and leaks.
//!
//! ## Ownership of parents
//!
//! [`Device`] and [`Dpa`] are cheap `Arc` handles; every object made from a
//! context (events, buffers, launchers) holds it, so teardown happens in the
//! documented order — children first — whatever order your values drop in.
//! `Drop` raises no panic of its own: teardown failures are logged through
//! `tracing`. User code a drop runs (a waker it wakes, a `tracing` subscriber) may
//! panic; then what the device may still use is buried first, and that panic goes
//! on (`resume_unwind`), as it would from any other call.
//! Configure-then-start lifecycles are separate types ([`DpaBuilder`] →
//! [`Dpa`]), so calling a setter after start does not compile.
//!
//! ## Backends and EXPERIMENTAL symbols
//!
//! The `doca-dpa-sys` build chooses real DOCA or the software DPA
//! (`doca-sim`); [`build_info`] says which. DOCA marks every DPA function
//! EXPERIMENTAL: the `experimental` feature (default) compiles their
//! wrappers, and each wrapper exists only when the installed DOCA declares
//! and exports its functions. Each item's documentation names the DOCA calls
//! it makes.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Constant and parameter types differ between DOCA releases' headers (and the
// reference headers): casts that are no-ops against one are needed against
// another.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

#[cfg(doca_sym = "doca_dpa_create")]
mod app;
#[cfg(doca_sym = "doca_dpa_mem_alloc")]
mod args;
#[cfg(doca_sym = "doca_dpa_async_ops_create")]
mod async_ops;
#[cfg(doca_sym = "doca_dpa_thread_create")]
mod completion;
#[doc(hidden)]
pub mod core;
mod device;
#[cfg(doca_sym = "doca_dpa_create")]
mod dpa;
#[cfg(doca_sym = "doca_sync_event_create")]
mod engine;
mod error;
#[cfg(doca_sym = "doca_dpa_create")]
mod family;
#[cfg(doca_sym = "doca_dpa_hash_table_create")]
mod hash_table;
#[cfg(doca_sym = "doca_dpa_create")]
mod keep;
#[cfg(doca_sym = "doca_dpa_kernel_launch_update_add")]
mod launch;
#[cfg(doca_sym = "doca_dpa_thread_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub mod lifecycle_rules;
#[cfg(doca_sym = "doca_dpa_mem_alloc")]
mod memory;
#[cfg(all(
    doca_sym = "doca_mmap_set_dpa_memrange",
    doca_sym = "doca_mmap_dev_get_dpa_handle",
    doca_sym = "doca_dpa_mem_alloc"
))]
mod mmap;
#[cfg(doca_sym = "doca_sync_event_create")]
mod reactor;
mod rpc_gate;
#[cfg(doca_sym = "doca_sync_event_create")]
mod sync_event;
#[cfg(doca_sym = "doca_dpa_thread_create")]
mod thread;
#[cfg(all(feature = "tokio", doca_sym = "doca_sync_event_create"))]
mod tokio_reactor;
#[cfg(doca_sym = "doca_sync_event_create")]
mod wait_task;

#[doc(hidden)]
pub use crate::core::{buried_count, bury as bury_value};
#[cfg(doca_sym = "doca_dpa_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use app::{
    param, AbiScalar, App, Kernel, KernelArg, KernelArgs, KernelFn, KernelParam, KernelSig,
    ParamList, Rpc, RpcFn, RpcSig,
};
#[cfg(doca_sym = "doca_dpa_mem_alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use args::{Dev, DevPtr, Handle, StructAbi, Untyped};
#[cfg(doca_sym = "doca_dpa_async_ops_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use async_ops::AsyncOps;
#[cfg(doca_sym = "doca_dpa_thread_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use completion::{Completion, CompletionBuilder, NotificationCompletion};
#[cfg(all(doca_ge_3_1, doca_sym = "doca_devinfo_get_pci_func_type"))]
#[cfg_attr(docsrs, doc(cfg(all(doca_ge_3_1, feature = "experimental"))))]
pub use device::PciFuncType;
pub use device::{devices, Device, DeviceGuard, DeviceInfo, Representor, RepresentorFilter};
#[cfg(doca_sym = "doca_dpa_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use dpa::{Dpa, DpaBuilder, FamilyGuard, Health, Limits, LogLevel, SendDpa};
#[cfg(doca_sym = "doca_sync_event_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use engine::Engine;
pub use error::{Error, ErrorCode, ErrorKind, LaunchDiagnosis, Result, RpcDiagnosis};
#[cfg(doca_sym = "doca_dpa_create")]
#[doc(hidden)]
pub use family::{deferred_count, FamilyMember, Member};
#[cfg(doca_sym = "doca_dpa_hash_table_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use hash_table::HashTable;
#[cfg(doca_sym = "doca_dpa_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use keep::{Keep, KeepAlive};
#[cfg(doca_sym = "doca_dpa_kernel_launch_update_add")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use launch::{Gate, Launch, LaunchCompletion, Launcher, MAX_WAIT_THRESHOLD};
#[cfg(doca_sym = "doca_dpa_mem_alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use memory::{DeviceCopy, DeviceStruct, DpaBox, DpaBuffer, DpaMemory, DpaSlice};
#[cfg(all(
    doca_sym = "doca_mmap_set_dpa_memrange",
    doca_sym = "doca_mmap_dev_get_dpa_handle",
    doca_sym = "doca_dpa_mem_alloc"
))]
pub use mmap::{AccessFlags, DpaMmap, RdmaExport};
#[cfg(doca_sym = "doca_sync_event_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use reactor::Reactor;
#[cfg(doca_sym = "doca_sync_event_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use sync_event::{CompletionEvent, Export, KernelEvent, Reached, SignalEvent, WaitEvent};
#[cfg(doca_sym = "doca_dpa_thread_create")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use thread::{DpaThread, ThreadBuilder, ThreadGroup, ThreadParams};

/// The auto traits of every public DPA type, in one list: everything is
/// `Send + Sync` (each DOCA call is made under its object's lock domain: a context
/// family's guard, or an object's own lock; `docs/concurrency.md`), except the
/// borrowed views of one submission, the move-only `SendDpa` and the guards
/// (this thread's holds of a lock).
mod auto_traits {
    use static_assertions::{assert_impl_all, assert_not_impl_any};

    assert_impl_all!(crate::Device: Send, Sync, Clone);
    assert_impl_all!(crate::Representor: Send, Sync, Clone);
    assert_impl_all!(crate::DeviceInfo: Send, Sync);
    assert_impl_all!(crate::RepresentorFilter: Send, Sync, Copy);
    #[cfg(all(doca_ge_3_1, doca_sym = "doca_devinfo_get_pci_func_type"))]
    assert_impl_all!(crate::PciFuncType: Send, Sync, Copy);
    assert_impl_all!(crate::Error: Send, Sync);
    assert_impl_all!(crate::ErrorCode: Send, Sync, Copy);
    assert_impl_all!(crate::ErrorKind: Send, Sync, Copy);
    assert_impl_all!(crate::LaunchDiagnosis: Send, Sync);
    assert_impl_all!(crate::RpcDiagnosis: Send, Sync);
    #[cfg(doca_sym = "doca_dpa_create")]
    mod dpa {
        use static_assertions::{assert_impl_all, assert_not_impl_any};
        assert_impl_all!(crate::Dpa: Send, Sync, Clone);
        assert_impl_all!(crate::DpaBuilder: Send);
        assert_impl_all!(crate::App: Send, Sync);
        assert_impl_all!(crate::SendDpa: Send, Sync);
        assert_not_impl_any!(crate::SendDpa: Clone);
        assert_impl_all!(crate::KeepAlive: Send, Sync);
        assert_impl_all!(crate::Health: Send, Sync, Copy);
        assert_impl_all!(crate::Limits: Send, Sync, Copy);
        assert_impl_all!(crate::LogLevel: Send, Sync, Copy);
        assert_impl_all!(crate::Kernel<()>: Send, Sync);
        assert_impl_all!(crate::Rpc<()>: Send, Sync);
        // A hold of a lock is this thread's: it moves nowhere, and is not shared.
        assert_not_impl_any!(crate::FamilyGuard<'static>: Send, Sync);
        assert_not_impl_any!(crate::DeviceGuard<'static>: Send, Sync);
        // The raw pointers a generated launcher passes to DOCA (hidden, not an API):
        // built and used on the submitting thread, inside one submission.
        assert_not_impl_any!(crate::__private::RawLaunch: Send, Sync);
        assert_impl_all!(crate::Keep<'static>: Send, Sync);
    }
    #[cfg(doca_sym = "doca_dpa_kernel_launch_update_add")]
    mod launch {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::Launcher: Send, Sync);
        assert_impl_all!(crate::Launch<'static>: Send, Sync);
        assert_impl_all!(crate::LaunchCompletion<'static>: Send, Sync);
        assert_impl_all!(crate::Gate<'static>: Send, Sync);
    }
    #[cfg(doca_sym = "doca_dpa_mem_alloc")]
    mod memory {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::DpaBuffer<u64>: Send, Sync);
        assert_impl_all!(crate::DpaSlice<u64>: Send, Sync);
        assert_impl_all!(crate::Dev<crate::param::Dpa>: Send, Sync);
        assert_impl_all!(crate::Handle<crate::param::Dpa>: Send, Sync, Copy);
        assert_impl_all!(crate::DevPtr: Send, Sync, Copy);
        assert_impl_all!(crate::param::ByValue<u64>: Send, Sync);
        // Generic: a `DpaBox` of any generated struct (plain C data, so
        // `Send + Sync` itself; the box follows its struct).
        // Never called: that it type-checks is the assertion.
        #[allow(dead_code)]
        fn dpa_box_follows_its_struct() {
            fn send_sync<T: Send + Sync>() {}
            fn dpa_box<T: crate::DeviceStruct + Send + Sync>() {
                send_sync::<crate::DpaBox<T>>();
            }
        }
        assert_impl_all!(crate::StructAbi<u64>: Send, Sync, Copy);
    }
    #[cfg(doca_sym = "doca_sync_event_create")]
    mod events {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::Engine: Send, Sync, Clone);
        assert_impl_all!(crate::CompletionEvent: Send, Sync);
        assert_impl_all!(crate::WaitEvent: Send, Sync);
        assert_impl_all!(crate::KernelEvent: Send, Sync);
        assert_impl_all!(crate::SignalEvent: Send, Sync);
        assert_impl_all!(crate::Reached: Send, Sync);
        assert_impl_all!(crate::Export: Send, Sync, Copy);
    }
    #[cfg(doca_sym = "doca_dpa_thread_create")]
    mod threads {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::DpaThread: Send, Sync);
        assert_impl_all!(crate::ThreadBuilder: Send);
        assert_impl_all!(crate::ThreadGroup: Send, Sync);
        assert_impl_all!(crate::Completion: Send, Sync);
        assert_impl_all!(crate::CompletionBuilder: Send);
        assert_impl_all!(crate::NotificationCompletion: Send, Sync);
    }
    #[cfg(doca_sym = "doca_dpa_hash_table_create")]
    assert_impl_all!(crate::HashTable: Send, Sync);
    #[cfg(doca_sym = "doca_dpa_async_ops_create")]
    assert_impl_all!(crate::AsyncOps: Send, Sync);
    #[cfg(all(
        doca_sym = "doca_mmap_set_dpa_memrange",
        doca_sym = "doca_mmap_dev_get_dpa_handle",
        doca_sym = "doca_dpa_mem_alloc"
    ))]
    assert_impl_all!(crate::DpaMmap: Send, Sync);
    #[cfg(all(
        doca_sym = "doca_mmap_set_dpa_memrange",
        doca_sym = "doca_mmap_dev_get_dpa_handle",
        doca_sym = "doca_dpa_mem_alloc"
    ))]
    assert_impl_all!(crate::AccessFlags: Send, Sync, Copy);
    // Keep the `use` of the outer module meaningful on every configuration.
    assert_not_impl_any!(crate::Error: Copy);
}

/// What the generated declarations of [`include_app!`] refer to. Not an API.
#[doc(hidden)]
#[cfg(doca_sym = "doca_dpa_create")]
pub mod __private {
    pub use crate::app::{param, App, Kernel, KernelSig, RawLaunch, Rpc, RpcSig};
    #[cfg(doca_sym = "doca_dpa_mem_alloc")]
    pub use crate::args::{Dev, Handle, StructAbi};
    pub use crate::error::Result;
    pub use crate::keep::Keep;
    #[cfg(doca_sym = "doca_dpa_mem_alloc")]
    pub use crate::memory::{DeviceStruct, DpaBox};
    pub use crate::KernelArg;
    pub use doca_dpa_sys as sys;
}

/// The raw bindings, for calls this crate does not wrap.
pub use doca_dpa_sys as sys;

/// What this build is: backend (`hardware`, `sim`, `docs`), DOCA version, and
/// the audit of every DOCA function (marker, exported, usable by this build).
pub mod build_info {
    pub use doca_dpa_sys::build_info::{BACKEND, DOCA_VERSION};
    include!(concat!(env!("OUT_DIR"), "/audit.rs"));
}

/// The DOCA runtime library's version (`doca_version_runtime`, EXPERIMENTAL).
#[cfg(doca_sym = "doca_version_runtime")]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub fn runtime_version() -> String {
    // SAFETY: DOCA returns a static NUL-terminated string (or NULL, read as empty);
    // the call names no object, so it takes no lock.
    unsafe { error::static_str(sys::doca_version_runtime()) }
}
