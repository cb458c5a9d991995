//! Every rule of DOCA DPA that this crate's types enforce, in one place, each pinned
//! by a `compile_fail` example next to the version that compiles (so each example
//! fails for the stated reason only).
//!
//! | DOCA rule (its error otherwise) | enforced by |
//! |---|---|
//! | app, log level, log/trace paths only before `doca_dpa_start` (BAD_STATE) | only [`DpaBuilder`](crate::DpaBuilder) has the setters |
//! | memory, events, launches only after `doca_dpa_start` (BAD_STATE) | they take a started [`Dpa`](crate::Dpa) |
//! | thread function, local storage, affinity only before `doca_dpa_thread_start` (BAD_STATE) | only [`ThreadBuilder`](crate::ThreadBuilder) has them |
//! | a completion's thread only before `doca_dpa_completion_start` (BAD_STATE) | only [`CompletionBuilder`](crate::CompletionBuilder) has `thread` |
//! | nothing the device uses may be freed, stopped or destroyed while it may use it | launches, threads and [`DpaBox`](crate::DpaBox) fields hold a [`KeepAlive`](crate::KeepAlive) of it (see [`keep`](crate::KeepAlive)) |
//! | DPA addresses and handles must designate live objects | they are not safe values: forging or reading one is `unsafe` |
//! | a handle or address is only valid on its own DPA context | every argument is checked against the launching context ([`Keep::check_context`](crate::Keep::check_context)), and constructors that take another object check theirs; refused before DOCA is called, naming both contexts |
//! | a `T *` parameter must point to `T`s | it is `param::Ptr<T>`, whose arguments are DPA memory of `T`s (below) |
//! | what a kernel reads through an untyped address (`void *`, `doca_dpa_dev_uintptr_t`, local storage) must be what it expects | memory is given to it only as an [`Untyped`](crate::Untyped), made with `unsafe`; a state or output declared with its type (`struct state *`, `uint64_t *`) takes a box or buffer safely (below) |
//! | a stopped thread's activation may still run | a thread's record is released only once none can (see [`DpaThread`](crate::DpaThread)) |
//! | children are destroyed before their parent (BAD_STATE / IN_USE) | children own their parent (`Dpa` is reference counted) |
//! | DOCA DPA objects are not thread-safe | every DOCA call on an object is made under its lock domain's guard — a context family's ([`FamilyGuard`](crate::FamilyGuard)) or an object's own — and its raw pointer is reachable through that guard only, so the types are `Send + Sync` without DOCA ever seeing two threads use one object at once (`docs/concurrency.md`); the library's own state is behind per-object mutexes, or, for a launcher's epochs, under the family's lock with the DOCA call it goes with |
//! | launch arguments must have the kernel's exact C types (INVALID_VALUE or silent corruption) | declarations are generated from the C ([`include_app!`](crate::include_app)); writing one by hand means implementing an unsafe trait |
//! | an untyped address handed to a kernel must be that of a live allocation of its context | [`DpaMemory`](crate::DpaMemory) is sealed: only this crate's buffers, slices and boxes implement it (below) |
//!
//! RDMI's rules are pinned the same way in `doca-rdmi`: exactly one completion
//! source (`CompletionSource`, an enum argument of the builders), attach/PD/
//! input/receive buffer only before start (`ConnectionBuilder`,
//! `PosterBuilder`), and connections and posters are kept alive by what uses them.
//!
//! Setters after start:
//!
//! ```
//! fn configure(b: doca_dpa::DpaBuilder) -> doca_dpa::Result<doca_dpa::DpaBuilder> {
//!     b.log_level(doca_dpa::LogLevel::Debug)
//! }
//! ```
//! ```compile_fail
//! fn configure(d: doca_dpa::Dpa) -> doca_dpa::Result<doca_dpa::Dpa> {
//!     d.log_level(doca_dpa::LogLevel::Debug)
//! }
//! ```
//!
//! Memory before start:
//!
//! ```
//! fn alloc(d: &doca_dpa::Dpa) -> doca_dpa::Result<doca_dpa::DpaBuffer<u8>> {
//!     doca_dpa::DpaBuffer::new(d, 16)
//! }
//! ```
//! ```compile_fail
//! fn alloc(b: &doca_dpa::DpaBuilder) -> doca_dpa::Result<doca_dpa::DpaBuffer<u8>> {
//!     doca_dpa::DpaBuffer::new(b, 16)
//! }
//! ```
//!
//! Thread configuration after start:
//!
//! ```
//! fn storage(t: doca_dpa::ThreadBuilder, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::ThreadBuilder> {
//!     // SAFETY: (a promise about the thread's function) it reads and writes its local
//!     // storage as `uint64_t`s within the buffer.
//!     t.local_storage(unsafe { doca_dpa::Untyped::new(b) })
//! }
//! ```
//! ```compile_fail
//! fn storage(t: doca_dpa::DpaThread, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::DpaThread> {
//!     // SAFETY: as above.
//!     t.local_storage(unsafe { doca_dpa::Untyped::new(b) })
//! }
//! ```
//!
//! A completion's thread after start:
//!
//! ```
//! fn bind(c: doca_dpa::CompletionBuilder, t: &doca_dpa::DpaThread) -> doca_dpa::Result<doca_dpa::Completion> {
//!     c.thread(t)?.start()
//! }
//! ```
//! ```compile_fail
//! fn bind(c: doca_dpa::Completion, t: &doca_dpa::DpaThread) {
//!     let _ = c.thread(t);
//! }
//! ```
//!
//! Forging a DPA address from an integer, or reading one, needs `unsafe`:
//!
//! ```
//! // SAFETY: never given to the device.
//! let p = unsafe { doca_dpa::DevPtr::from_raw(0x1000) };
//! // SAFETY: only compared.
//! assert_eq!(unsafe { p.raw() }, 0x1000);
//! ```
//! ```compile_fail
//! let p = doca_dpa::DevPtr::from_raw(0x1000);
//! ```
//! ```compile_fail
//! fn read(b: &doca_dpa::DpaBuffer<u64>) -> u64 {
//!     b.dev_ptr().raw()
//! }
//! ```
//!
//! Reading a handle stored in DPA memory needs `unsafe` (it keeps nothing alive):
//!
//! ```
//! fn read(h: doca_dpa::Handle<doca_dpa::param::SyncEvent>) -> u64 {
//!     // SAFETY: only printed, never handed to the device.
//!     unsafe { h.raw() }
//! }
//! ```
//! ```compile_fail
//! fn read(h: doca_dpa::Handle<doca_dpa::param::SyncEvent>) -> u64 {
//!     h.raw()
//! }
//! ```
//!
//! A handle read back cannot be written to DPA memory again (it is not `DeviceCopy`):
//!
//! ```compile_fail
//! fn smuggle(d: &doca_dpa::Dpa, h: doca_dpa::Handle<doca_dpa::param::SyncEvent>) {
//!     let _ = doca_dpa::DpaBuffer::from_slice(d, &[h]);
//! }
//! ```
//!
//! A hand-written kernel declaration implements an unsafe trait (the generated ones are made
//! from the C prototype):
//!
//! ```
//! enum Fill {}
//! // SAFETY: a promise that `fill` takes (doca_dpa_dev_uintptr_t, uint64_t) and that
//! // `launch` passes them with those C types.
//! unsafe impl doca_dpa::KernelSig for Fill {
//!     type Params = (doca_dpa::param::DevPtr, u64);
//!     const NAME: &'static str = "fill";
//!     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t {
//!         unimplemented!("a real declaration calls its C launcher here")
//!     }
//! }
//! ```
//! ```compile_fail
//! enum Fill {}
//! impl doca_dpa::KernelSig for Fill {
//!     type Params = (doca_dpa::param::DevPtr, u64);
//!     const NAME: &'static str = "fill";
//!     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t {
//!         unimplemented!()
//!     }
//! }
//! ```
//!
//! Sharing a context between threads: the objects travel (every DOCA call is
//! made under its family's guard), and a launch's future goes with the
//! launcher it borrows, never without it:
//!
//! ```
//! fn travels(d: doca_dpa::Dpa, l: std::sync::Arc<doca_dpa::Launcher>) {
//!     std::thread::spawn(move || {
//!         drop(l.all_completed());
//!         drop(d);
//!     });
//! }
//! ```
//! ```compile_fail
//! fn travels(l: doca_dpa::Launcher) {
//!     let all = l.all_completed();
//!     std::thread::spawn(move || drop(all));
//! }
//! ```
//!
//! Kernel arguments that do not match the declaration (here `fill(uint64_t *out,
//! uint64_t value)`, as its generated declaration says):
//!
//! ```
//! # enum Fill {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Fill {
//! #     type Params = (doca_dpa::param::Ptr<u64>, u64);
//! #     const NAME: &'static str = "fill";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<Fill>, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (b, 7u64))
//! }
//! ```
//! ```compile_fail
//! # enum Fill {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Fill {
//! #     type Params = (doca_dpa::param::Ptr<u64>, u64);
//! #     const NAME: &'static str = "fill";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<Fill>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (0x1000u64, 7u64)) // an integer where the kernel takes a DPA address
//! }
//! ```
//! ```compile_fail
//! # enum Fill {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Fill {
//! #     type Params = (doca_dpa::param::Ptr<u64>, u64);
//! #     const NAME: &'static str = "fill";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<Fill>, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (b, 7u32)) // uint32_t where the kernel takes uint64_t
//! }
//! ```
//! ```compile_fail
//! # enum Fill {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Fill {
//! #     type Params = (doca_dpa::param::Ptr<u64>, u64);
//! #     const NAME: &'static str = "fill";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<Fill>, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (b,)) // one argument missing
//! }
//! ```
//!
//! A `Launch` does not borrow its arguments: they may go at once, the launcher keeps
//! what the device uses.
//!
//! ```
//! # enum Fill {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Fill {
//! #     type Params = (doca_dpa::param::Ptr<u64>, u64);
//! #     const NAME: &'static str = "fill";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go(l: &doca_dpa::Launcher, k: &doca_dpa::Kernel<Fill>, d: &doca_dpa::Dpa) -> doca_dpa::Result<()> {
//!     let b = doca_dpa::DpaBuffer::<u64>::new(d, 4)?;
//!     let launch = l.launch(k, 1, (&b, 7u64))?;
//!     drop(b); // freed only once the launcher saw the launch finish
//!     std::mem::forget(launch); // changes nothing
//!     Ok(())
//! }
//! ```
//!
//! # Traits the library trusts
//!
//! Every public trait whose implementations the launch path relies on is either
//! sealed (only this crate implements it) or `unsafe` to implement:
//!
//! | trait | kind |
//! |---|---|
//! | [`KernelArgs`](crate::KernelArgs), [`ParamList`](crate::ParamList), [`ThreadParams`](crate::ThreadParams), [`AbiScalar`](crate::AbiScalar) | sealed |
//! | [`KernelArg`](crate::KernelArg), [`KernelParam`](crate::KernelParam), [`KernelSig`](crate::KernelSig), [`RpcSig`](crate::RpcSig), [`DeviceCopy`](crate::DeviceCopy), [`DeviceStruct`](crate::DeviceStruct) | `unsafe trait` with a `# Safety` contract |
//! | [`Reactor`](crate::Reactor) | safe: nothing relies on it for soundness (a misbehaving reactor only delays or fails a future) |
//!
//! An argument tuple is a tuple of arguments: a user type cannot stand in for one
//! and hand its own values to DOCA's launch.
//!
//! ```
//! # enum Fill {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Fill {
//! #     type Params = (doca_dpa::param::Ptr<u64>, u64);
//! #     const NAME: &'static str = "fill";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64, u64)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<Fill>, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (b, 7u64))
//! }
//! ```
//! ```compile_fail
//! struct Forged;
//! impl doca_dpa::KernelArgs<(doca_dpa::param::DevPtr, u64)> for Forged {
//!     fn lower_all(&self, _: &mut doca_dpa::Keep<'_>) -> doca_dpa::Result<(u64, u64)> {
//!         Ok((0x1000, 7))
//!     }
//! }
//! ```
//! ```compile_fail
//! struct Forged;
//! // `unsafe` does not help: the trait is sealed.
//! // SAFETY: none: this forgery is what must not compile (it claims a host
//! // integer is a DPA address).
//! unsafe impl doca_dpa::KernelArgs<(doca_dpa::param::DevPtr, u64)> for Forged {
//!     fn lower_all(&self, _: &mut doca_dpa::Keep<'_>) -> doca_dpa::Result<(u64, u64)> {
//!         Ok((0x1000, 7))
//!     }
//! }
//! ```
//!
//! A parameter list is a tuple of parameter types; its `Abi` cannot be chosen:
//!
//! ```compile_fail
//! struct Params;
//! impl doca_dpa::ParamList for Params {
//!     type Abi = (u32,);
//! }
//! ```
//! ```compile_fail
//! struct Params;
//! impl doca_dpa::ThreadParams for Params {
//!     fn thread_arg(_: ()) -> u64 { 0x1000 }
//! }
//! ```
//!
//! A value for a DPA address parameter is an object that keeps its memory alive, or
//! a promise made with `unsafe`:
//!
//! ```
//! struct Mine;
//! // SAFETY: a test type; the value is not an address.
//! unsafe impl doca_dpa::KernelArg<u64> for Mine {
//!     fn lower(&self, _: &mut doca_dpa::Keep<'_>) -> doca_dpa::Result<u64> { Ok(7) }
//! }
//! ```
//! ```compile_fail
//! struct Forged;
//! impl doca_dpa::KernelArg<doca_dpa::param::DevPtr> for Forged {
//!     fn lower(&self, _: &mut doca_dpa::Keep<'_>) -> doca_dpa::Result<u64> { Ok(0x1000) }
//! }
//! ```
//!
//! # Declarations follow the compiled preprocessor branch
//!
//! The kernels are read after the C preprocessor, as dpacc compiles them: of
//! `#ifndef SOUND_NEVER_DEFINED … (uint64_t *out, uint64_t value)
//! #else … (uint64_t out, uint64_t value) #endif`, the declaration has the compiled
//! branch's DPA address for `out`, which a buffer passes and an integer does not.
//!
//! ```no_run
//! # use doca_test_kernels::doca_tests;
//! fn go<'a>(l: &'a doca_dpa::Launcher, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(&doca_tests::sound_branch_store, 1, (b, 42u64))
//! }
//! ```
//! ```compile_fail
//! # use doca_test_kernels::doca_tests;
//! fn go<'a>(l: &'a doca_dpa::Launcher) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(&doca_tests::sound_branch_store, 1, (0x1000u64, 42u64))
//! }
//! ```
//!
//! # Typed pointer parameters
//!
//! A C `uint64_t *out` parameter is `param::Ptr<u64>`: it takes memory of `u64`s
//! only, so a kernel cannot write 8 bytes into a 1-byte buffer.
//!
//! ```
//! # enum Store {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Store {
//! #     type Params = (doca_dpa::param::Ptr<u64>,);
//! #     const NAME: &'static str = "store";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64,)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<Store>, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (b,))
//! }
//! ```
//! ```compile_fail
//! # enum Store {}
//! # // SAFETY: a test declaration, never launched.
//! # unsafe impl doca_dpa::KernelSig for Store {
//! #     type Params = (doca_dpa::param::Ptr<u64>,);
//! #     const NAME: &'static str = "store";
//! #     unsafe fn launch(_: &doca_dpa::__private::RawLaunch, _: (u64,)) -> doca_dpa::sys::doca_error_t { 0 }
//! # }
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<Store>, b: &doca_dpa::DpaBuffer<u8>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (b,)) // bytes where the kernel writes uint64_t
//! }
//! ```
//!
//! # Untyped address parameters
//!
//! A `void *` or `doca_dpa_dev_uintptr_t` parameter (`param::DevPtr`) does not say
//! what the kernel reads at the address; it may read a struct of handles there. So
//! memory that safe code filled is no argument for it, whatever its element type
//! (issue #33, R3: a `DpaBuffer<u64>` holding a made-up event handle reached a kernel
//! that used it):
//!
//! ```compile_fail,E0277
//! # use doca_test_kernels::doca_tests;
//! fn go<'a>(l: &'a doca_dpa::Launcher, forged: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(&doca_tests::r3_use_untyped_state, 1, (forged,))
//! }
//! ```
//!
//! It takes memory as an [`Untyped`](crate::Untyped), whose maker promises what
//! the kernel reads there, so making one is `unsafe`:
//!
//! ```
//! # use doca_test_kernels::doca_tests;
//! fn go<'a>(l: &'a doca_dpa::Launcher, state: &doca_dpa::DpaBox<doca_tests::r3_state>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     // SAFETY: `r3_use_untyped_state` reads its argument as a `struct r3_state`,
//!     // and this is a box of one.
//!     l.launch(&doca_tests::r3_use_untyped_state, 1, (unsafe { doca_dpa::Untyped::new(state) },))
//! }
//! ```
//! ```compile_fail,E0133
//! # use doca_test_kernels::doca_tests;
//! fn go<'a>(l: &'a doca_dpa::Launcher, state: &doca_dpa::DpaBox<doca_tests::r3_state>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(&doca_tests::r3_use_untyped_state, 1, (doca_dpa::Untyped::new(state),))
//! }
//! ```
//!
//! The sound form names the pointee in the C prototype: `struct r3_state *st` is a
//! `param::Ptr<r3_state>`, which takes a box of that struct, whose handle and
//! pointer fields are [`Dev`](crate::Dev)s of live objects, and no other memory:
//!
//! ```
//! # use doca_test_kernels::doca_tests;
//! fn go<'a>(l: &'a doca_dpa::Launcher, state: &doca_dpa::DpaBox<doca_tests::r3_state>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(&doca_tests::r3_use_state, 1, (state,))
//! }
//! ```
//! ```compile_fail,E0277
//! # use doca_test_kernels::doca_tests;
//! fn go<'a>(l: &'a doca_dpa::Launcher, forged: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(&doca_tests::r3_use_state, 1, (forged,))
//! }
//! ```
//!
//! The same holds one level down, for an untyped field of a struct
//! (`doca_dpa_dev_uintptr_t out` of `struct bv_target`), and for a thread's local
//! storage:
//!
//! ```
//! # use doca_test_kernels::doca_tests;
//! fn field(b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Dev<doca_dpa::param::DevPtr>> {
//!     // SAFETY: `bv_target_fill` writes `n` `uint64_t`s at `out`; the caller sets
//!     // `n` to at most the buffer's length.
//!     doca_dpa::Dev::new(unsafe { doca_dpa::Untyped::new(b) })
//! }
//! ```
//! ```compile_fail,E0277
//! # use doca_test_kernels::doca_tests;
//! fn field(b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::Dev<doca_dpa::param::DevPtr>> {
//!     doca_dpa::Dev::new(b)
//! }
//! ```
//! ```compile_fail,E0277
//! fn storage(t: doca_dpa::ThreadBuilder, b: &doca_dpa::DpaBuffer<u64>) -> doca_dpa::Result<doca_dpa::ThreadBuilder> {
//!     t.local_storage(b)
//! }
//! ```
//!
//! `DpaMemory` (what [`Untyped::new`](crate::Untyped::new) takes) is sealed: this
//! crate's memory is DPA memory, and another crate's type cannot claim to be:
//!
//! ```
//! fn takes<M: doca_dpa::DpaMemory>(_: &M) {}
//! fn buffer(b: &doca_dpa::DpaBuffer<u64>) {
//!     takes(b)
//! }
//! ```
//! ```compile_fail,E0277
//! struct Forged;
//! impl doca_dpa::DpaMemory for Forged {}
//! ```
