//! # doca-comch: safe Rust bindings for DPA Comms
//!
//! DPA Comms lets the threads of one DPA application message each other through
//! DOCA Comch message queues: a producer sends immediate data to a consumer of its
//! queue, the consumer's completion context holds the message and wakes the DPA
//! thread bound to it, and that thread reads it with the calls of
//! `doca_dpa_dev_comch_msgq.h` (`libdoca_dpa_dev_comm.a`). This crate stands the host
//! side up:
//!
//! - [`MessageQueueBuilder`] → [`MessageQueue`]: a queue on a DPA context's device
//!   whose consumers and producers run on that DPA context;
//! - [`ConsumerCompletionBuilder`] → [`ConsumerCompletion`]: where consumers report,
//!   bound to the DPA thread each message wakes;
//! - [`ConsumerBuilder`] → [`Consumer`] and [`ProducerBuilder`] → [`Producer`]: the
//!   two sides, made by a started queue.
//!
//! Started consumers, producers and consumer completion contexts are typed kernel
//! arguments of the doca-dpa launch API, for the C parameter types
//! `doca_dpa_dev_comch_consumer_t`, `doca_dpa_dev_comch_producer_t` and
//! `doca_dpa_dev_comch_consumer_completion_t` (each takes only its own kind): checked
//! against the DPA context the kernel runs on, and kept alive by the launch, DPA
//! thread or DPA struct given them until the device is known to be done.
//!
//! Every DPA function of DOCA Comch is EXPERIMENTAL. The crate always builds; where
//! the install has no `doca-comch.pc`, [`availability()`] says why the API is absent.
//! Each item's documentation names the DOCA calls it makes.
//!
//! ## The flow
//!
//! ```
//! # doca_comch::if_comch! {
//! use doca_comch::{ConsumerCompletionBuilder, MessageQueueBuilder};
//! use doca_dpa::{CompletionBuilder, CompletionEvent, Dev, Device, Dpa, DpaBox, Export};
//! use doca_dpa::ThreadBuilder;
//! # use doca_test_kernels::doca_examples;
//!
//! # fn main() -> doca_dpa::Result<()> {
//! let device = Device::open_first_with_dpa()?;
//! let dpa = Dpa::start(&device, doca_examples::app())?;
//! // The DPA thread the messages wake (a receiving thread's state names its consumer
//! // and completion context: see examples/dpa_msgq.rs).
//! let done = CompletionEvent::new(&dpa, Export::ToDpa)?;
//! let state = doca_examples::counter_state { activations: 0, done_event: Dev::new(&done)? };
//! let state = DpaBox::new(&dpa, &state)?;
//! let thread = ThreadBuilder::new(&dpa, &doca_examples::counter_thread, (&state,))?.start()?;
//! let receives = ConsumerCompletionBuilder::new(&thread)?.max_receives(8)?.start()?;
//! let queue = MessageQueueBuilder::new(&dpa)?.start()?;
//! let consumer = queue.consumer(&receives)?.imm_data_len(8)?.max_receives(8)?.start()?;
//! let sends = CompletionBuilder::new(&dpa, 16)?.start()?;
//! let producer = queue.producer(&sends)?.max_sends(8)?.start()?;
//! // Kernels now take `&producer`, `&consumer` and `&receives` for the handle
//! // parameters, and send to `consumer.id()`.
//! assert_eq!((consumer.id(), producer.id()), (1, 1));
//! # Ok(())
//! # }
//! # }
//! # doca_comch::if_no_comch! { fn main() {} }
//! ```
//!
//! ## What keeps a DPA Comms object alive
//!
//! Ownership, never a borrow. Consumers and producers hold their queue; a consumer
//! holds its completion context, which holds its DPA thread; a producer holds the
//! DPA completion context its sends report to; all hold their DPA context; a launch,
//! DPA thread or DPA struct given one holds it until the device is done. So each
//! object is stopped and destroyed after everything that uses it, an explicit
//! `stop()` is refused while anything does ([`doca_dpa::Error::InUse`], the object
//! back in the [`StopError`]), and one that cannot be stopped is leaked with what it
//! uses, never freed. `Drop` never panics; it logs through `tracing`.
//!
//! A DPA thread woken by a consumer completion context usually reads that context
//! (its state names it): the context holds the thread, which holds its state, so a
//! state that kept the context alive would be a cycle that is never freed. Write
//! such a handle with [`Dev::unkept`](doca_dpa::Dev::unkept) and keep the context
//! until the thread is done, as `examples/dpa_msgq.rs` does.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Parameter types differ between DOCA releases' headers (and the reference
// headers): casts that are no-ops against one are needed against another.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

mod availability;
#[cfg(doca_comch_api)]
mod consumer;
#[cfg(doca_comch_api)]
mod consumer_completion;
#[cfg_attr(not(doca_comch_api), allow(dead_code, unused_imports, unused_macros))]
mod error;
#[cfg(doca_comch_api)]
mod msgq;
#[cfg(doca_comch_api)]
mod part;
#[cfg(doca_comch_api)]
mod producer;
#[allow(dead_code)]
mod requirements;
#[cfg(doca_comch_api)]
mod side;

pub use availability::{availability, Availability};
#[cfg(doca_comch_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use consumer::{max_imm_data_len, Consumer, ConsumerBuilder};
#[cfg(doca_comch_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use consumer_completion::{ConsumerCompletion, ConsumerCompletionBuilder};
pub use error::StopError;
#[cfg(doca_comch_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use msgq::{MessageQueue, MessageQueueBuilder};
#[cfg(doca_comch_api)]
#[cfg_attr(docsrs, doc(cfg(feature = "experimental")))]
pub use producer::{Producer, ProducerBuilder};

/// The kernel parameter types this crate's objects are arguments for: the
/// generated declarations of a kernel whose C parameter is a
/// `doca_dpa_dev_comch_consumer_t`, `doca_dpa_dev_comch_producer_t` or
/// `doca_dpa_dev_comch_consumer_completion_t` name these (re-exported from
/// [`doca_dpa::param`]).
pub mod param {
    pub use doca_dpa::param::{ComchConsumer, ComchConsumerCompletion, ComchProducer};
}

/// The errors are those of `doca-dpa`: one error type for every DOCA call.
pub use doca_dpa::{Error, ErrorCode, ErrorKind, Result};

/// The raw bindings (DOCA Comch's DPA part), for calls this crate does not wrap.
pub use doca_comch_sys as sys;

/// What this build is: backend, DOCA version, why DPA Comms is absent (if it is),
/// and the audit of every DOCA function this crate may call (DOCA Core, DPA, Comch)
/// with whether this build uses it.
pub mod build_info {
    pub use doca_comch_sys::build_info::COMCH_ABSENT_REASON;
    pub use doca_dpa_sys::build_info::{BACKEND, DOCA_VERSION};
    include!(concat!(env!("OUT_DIR"), "/audit.rs"));
}

/// The auto traits of every public type, in one list: `Send + Sync`, since every
/// DOCA call is made under the guard of its DPA context family (every object here
/// is a member of one: `docs/concurrency.md`).
mod auto_traits {
    use static_assertions::assert_impl_all;
    assert_impl_all!(crate::Availability: Send, Sync);
    assert_impl_all!(crate::StopError<()>: Send, Sync);
    #[cfg(doca_comch_api)]
    mod api {
        use static_assertions::assert_impl_all;
        assert_impl_all!(crate::MessageQueueBuilder: Send, Sync);
        assert_impl_all!(crate::MessageQueue: Send, Sync, Clone);
        assert_impl_all!(crate::ConsumerCompletionBuilder: Send, Sync);
        assert_impl_all!(crate::ConsumerCompletion: Send, Sync, Clone);
        assert_impl_all!(crate::ConsumerBuilder: Send, Sync);
        assert_impl_all!(crate::Consumer: Send, Sync, Clone);
        assert_impl_all!(crate::ProducerBuilder: Send, Sync);
        assert_impl_all!(crate::Producer: Send, Sync, Clone);
        assert_impl_all!(crate::StopError<crate::Consumer>: Send, Sync);
    }
}

/// Expands the items inside only in builds where the message-queue API is compiled
/// (see [`availability()`]), so that programs, examples and tests using DPA Comms
/// still build against a DOCA without it. Pair it with [`if_no_comch!`].
///
/// ```
/// doca_comch::if_comch! {
///     fn comch_part() -> &'static str { "DPA Comms is here" }
/// }
/// doca_comch::if_no_comch! {
///     fn comch_part() -> &'static str { "DPA Comms is absent" }
/// }
/// assert!(!comch_part().is_empty());
/// ```
#[cfg(doca_comch_api)]
#[macro_export]
macro_rules! if_comch {
    ($($item:item)*) => { $($item)* };
}

/// Expands the items inside only in builds where the message-queue API is compiled
/// (see [`availability()`]). Pair it with [`if_no_comch!`].
#[cfg(not(doca_comch_api))]
#[macro_export]
macro_rules! if_comch {
    ($($item:item)*) => {};
}

/// The opposite of [`if_comch!`]: expands the items only in builds without the
/// message-queue API.
#[cfg(doca_comch_api)]
#[macro_export]
macro_rules! if_no_comch {
    ($($item:item)*) => {};
}

/// The opposite of [`if_comch!`]: expands the items only in builds without the
/// message-queue API.
#[cfg(not(doca_comch_api))]
#[macro_export]
macro_rules! if_no_comch {
    ($($item:item)*) => { $($item)* };
}
