//! Every lifecycle rule of DOCA DPA that this crate's types enforce, in one
//! place, each pinned by a `compile_fail` example next to the version that
//! compiles (so each example fails for the stated reason only).
//!
//! | DOCA rule (its error otherwise) | enforced by |
//! |---|---|
//! | app, log level, log/trace paths only before `doca_dpa_start` (BAD_STATE) | only [`DpaBuilder`](crate::DpaBuilder) has the setters |
//! | memory, events, launches only after `doca_dpa_start` (BAD_STATE) | they take a started [`Dpa`](crate::Dpa) |
//! | thread function, local storage, affinity only before `doca_dpa_thread_start` (BAD_STATE) | only [`ThreadBuilder`](crate::ThreadBuilder) has them |
//! | a completion's thread only before `doca_dpa_completion_start` (BAD_STATE) | only [`CompletionBuilder`](crate::CompletionBuilder) has `thread` |
//! | DPA handles only after start (BAD_STATE) | only started objects have `handle` |
//! | a handle must not outlive its object | handles borrow their object |
//! | children are destroyed before their parent (BAD_STATE / IN_USE) | children own their parent (`Dpa` is reference counted) |
//! | DOCA DPA objects are not thread-safe | `Dpa` and what is made from it are neither `Send` nor `Sync` |
//! | variadic launch arguments must have the kernel's exact C types (INVALID_VALUE or silent corruption) | [`KernelArgs`](crate::KernelArgs) matches arity and types |
//!
//! RDMI's rules are pinned the same way in `doca-rdmi`: exactly one completion
//! source (`CompletionSource`, an enum argument of the builders), attach/PD/
//! input/receive buffer only before start (`ConnectionBuilder`,
//! `PosterBuilder`), DPA handles only on started objects and never after stop
//! (`Connection::dpa_handle`, `Poster::dpa_handle` borrow the started object).
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
//! fn storage(t: doca_dpa::ThreadBuilder, p: doca_dpa::DevPtr) -> doca_dpa::Result<doca_dpa::ThreadBuilder> {
//!     t.local_storage(p)
//! }
//! ```
//! ```compile_fail
//! fn storage(t: doca_dpa::DpaThread, p: doca_dpa::DevPtr) -> doca_dpa::Result<doca_dpa::DpaThread> {
//!     t.local_storage(p)
//! }
//! ```
//!
//! A completion's thread after start, and its handle before:
//!
//! ```
//! fn bind(c: doca_dpa::CompletionBuilder, t: &doca_dpa::DpaThread) -> doca_dpa::Result<u64> {
//!     let started = c.thread(t)?.start()?;
//!     Ok(started.handle().raw())
//! }
//! ```
//! ```compile_fail
//! fn bind(c: doca_dpa::Completion, t: &doca_dpa::DpaThread) {
//!     let _ = c.thread(t);
//! }
//! ```
//! ```compile_fail
//! fn early(c: &doca_dpa::CompletionBuilder) -> u64 {
//!     c.handle().raw()
//! }
//! ```
//!
//! A handle outliving its object:
//!
//! ```
//! fn keep(d: &doca_dpa::Dpa) -> doca_dpa::Result<u64> {
//!     let event = doca_dpa::WaitEvent::new(d, true)?;
//!     let raw = event.handle()?.raw();
//!     Ok(raw)
//! }
//! ```
//! ```compile_fail
//! fn keep(d: &doca_dpa::Dpa) -> doca_dpa::Result<doca_dpa::SyncEventHandle<'static>> {
//!     let event = doca_dpa::WaitEvent::new(d, true)?;
//!     event.handle()
//! }
//! ```
//!
//! Sharing a context between threads:
//!
//! ```
//! fn stays(d: doca_dpa::Dpa) -> doca_dpa::Dpa { d }
//! fn devices_travel(dev: doca_dpa::Device) { std::thread::spawn(move || drop(dev)); }
//! ```
//! ```compile_fail
//! fn travels(d: doca_dpa::Dpa) { std::thread::spawn(move || drop(d)); }
//! ```
//! ```compile_fail
//! fn travels(l: doca_dpa::Launcher) { std::thread::spawn(move || drop(l)); }
//! ```
//!
//! Kernel arguments that do not match the declaration:
//!
//! ```
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<(u64, u32)>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (1u64, 2u32))
//! }
//! ```
//! ```compile_fail
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<(u64, u32)>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (1u64,)) // one argument missing
//! }
//! ```
//! ```compile_fail
//! fn go<'a>(l: &'a doca_dpa::Launcher, k: &doca_dpa::Kernel<(u64, u32)>) -> doca_dpa::Result<doca_dpa::Launch<'a>> {
//!     l.launch(k, 1, (1u64, 2u64)) // uint64_t where the kernel takes uint32_t
//! }
//! ```
