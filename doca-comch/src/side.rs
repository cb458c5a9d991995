//! What consumers and producers share: both are made by a started message queue,
//! are DOCA contexts put on the DPA datapath of the queue's DPA context, and report
//! to a completion context of that DPA context ([`Side`], [`make`]).

use doca_dpa::core::{Owned, Stoppable};
use doca_dpa::{Dpa, Member, Result};
use doca_dpa_sys as dsys;

use crate::error::{core_call, invalid};
use crate::msgq::QueueRef;
use crate::part::Part;

/// A kind of object a message queue makes: stopped as its `doca_ctx`.
///
/// # Safety
/// `create` calls the queue's create call `CREATE` names, and `as_ctx` the object's
/// `_as_ctx` call (which gives the same context for the object's whole life).
pub(crate) unsafe trait Side: Stoppable {
    /// The create call's name (`doca_comch_msgq_consumer_create`, …).
    const CREATE: &'static str;
    /// The call that names the completion context, for a refusal.
    const ATTACH: &'static str;

    /// Makes one on `queue`.
    ///
    /// # Safety
    /// `queue` is a live, started queue; `out` is writable.
    unsafe fn create(
        queue: *mut doca_comch_sys::doca_comch_msgq,
        out: *mut *mut Self::Raw,
    ) -> dsys::doca_error_t;

    /// Its DOCA context.
    ///
    /// # Safety
    /// `p` is a live object of this kind.
    unsafe fn as_ctx(p: *mut Self::Raw) -> *mut dsys::doca_ctx;
}

/// Declares the marker type of a consumer or a producer, implementing
/// `DocaObject`, `Stoppable` (with `doca_ctx_stop` on its context) and [`Side`].
macro_rules! queue_side {
    ($(#[$m:meta])* $name:ident: $raw:ident, create $create:ident, attach $attach:ident,
     as_ctx $as_ctx:ident, destroy $destroy:ident) => {
        $(#[$m])*
        pub(crate) enum $name {}

        // SAFETY: `destroy` calls the function `DESTROY` names, on the object it is
        // given, and nothing else.
        unsafe impl doca_dpa::core::DocaObject for $name {
            type Raw = doca_comch_sys::$raw;
            const DESTROY: &'static str = stringify!($destroy);
            unsafe fn destroy(p: *mut Self::Raw) -> doca_dpa_sys::doca_error_t {
                // SAFETY: per the trait's contract, the caller's: a live, idle object.
                unsafe { doca_comch_sys::$destroy(p) }
            }
        }

        // SAFETY: `stop` stops the object's own context (its `_as_ctx` gives the same
        // pointer for the object's whole life) with `doca_ctx_stop`, which `STOP`
        // names; DOCA_SUCCESS means it no longer runs (IN_PROGRESS is an error here:
        // the owner then leaves it alive, with what it uses).
        unsafe impl doca_dpa::core::Stoppable for $name {
            const STOP: &'static str = "doca_ctx_stop";
            unsafe fn stop(p: *mut Self::Raw) -> doca_dpa_sys::doca_error_t {
                // SAFETY: per the trait's contract, the caller's: a live, started object.
                unsafe { doca_dpa_sys::doca_ctx_stop(doca_comch_sys::$as_ctx(p)) }
            }
        }

        // SAFETY: the queue's create call and the object's `_as_ctx`, as named.
        unsafe impl $crate::side::Side for $name {
            const CREATE: &'static str = stringify!($create);
            const ATTACH: &'static str = stringify!($attach);
            unsafe fn create(
                queue: *mut doca_comch_sys::doca_comch_msgq,
                out: *mut *mut Self::Raw,
            ) -> doca_dpa_sys::doca_error_t {
                // SAFETY: per the trait's contract, the caller's.
                unsafe { doca_comch_sys::$create(queue, out) }
            }
            unsafe fn as_ctx(p: *mut Self::Raw) -> *mut doca_dpa_sys::doca_ctx {
                // SAFETY: per the trait's contract, the caller's.
                unsafe { doca_comch_sys::$as_ctx(p) }
            }
        }
    };
}
pub(crate) use queue_side;

/// Makes a `K` on `queue` and puts it on the DPA datapath of the queue's DPA
/// context (`K::CREATE`, its `_as_ctx`, `doca_ctx_set_datapath_on_dpa`), owning
/// `uses`; `completion_dpa` is the DPA context of the completion context it will
/// report to, refused before any DOCA call when it is another. On a failure the
/// object is destroyed.
pub(crate) fn make<K: Side, U: Clone + Send + Sync + 'static>(
    queue: &QueueRef,
    completion_dpa: &Dpa,
    what: &str,
    uses: U,
) -> Result<Member<Part<K, U>>> {
    let dpa = &queue.dpa;
    if !completion_dpa.same_context(dpa) {
        return Err(invalid(
            K::ATTACH,
            format!(
                "the {what} belongs to DPA context #{}, the message queue runs on DPA \
                 context #{}",
                completion_dpa.serial(),
                dpa.serial()
            ),
        ));
    }
    let mut raw = std::ptr::null_mut();
    dpa.with_ctx(|_, g| {
        let q = queue.raw.as_ptr(g);
        // SAFETY: our started queue (the caller's, alive: `queue` holds it), under
        // its family's guard; valid out-pointer.
        doca_dpa::core::check(K::CREATE, unsafe { K::create(q, &mut raw) })
    })?;
    // SAFETY: what the create call just returned: NULL or a new object that nothing
    // else owns, handed over here, in its DPA context's family.
    let part = Part::new(
        unsafe { Owned::<K>::new(K::CREATE, raw, dpa.domain()) }?,
        dpa,
        uses,
    );
    dpa.with_ctx(|ctx, g| {
        let p = part.raw.as_ptr(g);
        // SAFETY: our live object.
        let c = unsafe { K::as_ctx(p) };
        if c.is_null() {
            return Err(invalid(
                K::CREATE,
                "DOCA returned an object with no context",
            ));
        }
        // SAFETY: the idle context of our object and the started DPA context of the
        // queue, which the object keeps alive (`Part::dpa`).
        unsafe { core_call!(doca_ctx_set_datapath_on_dpa(c, ctx)) }
    })?;
    Ok(part)
}
