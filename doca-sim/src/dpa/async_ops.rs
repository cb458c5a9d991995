//! DPA asynchronous ops (`struct doca_dpa_async_ops`) as kernels use them:
//! the copies of `doca_dpa_dev_buf.h` (`doca_dpa_dev_post_memcpy`,
//! `doca_dpa_dev_post_buf_memcpy`) and the waits of
//! `doca_dpa_dev_sync_event.h` (`doca_dpa_dev_sync_event_post_wait_gt` /
//! `_ne`), completed through the DPA completion context the host attached
//! (`doca_dpa_async_ops_attach`), and its host-side lifecycle.
//!
//! What DOCA documents: the calls are non-blocking, for DPA threads only (not
//! for launched kernels); a copy's destination holds the source's bytes once
//! it completes; a posted wait activates the thread of the attached completion
//! context once the event's value is greater than (`_gt`) or differs from
//! (`_ne`) the given value, and `_gt` is only defined for values and event
//! values in 0..=254; a completion element of async ops carries the user data
//! given to `doca_dpa_async_ops_create` (`doca_dpa_dev_get_completion_user_data`);
//! without `DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH` the context may hold an operation
//! back. The rest are model choices, listed in docs/sim-model.md ("Kernels and
//! the device API"), each said where it is made below.

// Functions called from C (`csrc/device.c`) are `pub` for `#[no_mangle]`
// export, not for Rust callers.
#![allow(unreachable_pub)]

use std::ffi::{c_int, c_uint};
use std::sync::{Arc, Mutex, MutexGuard};

use super::fault::{Access, DeviceCode, FaultKind, QueueKind};
use super::launch::{bad_address, raise, with_device};
use super::threads::{
    child, comp, completion_core, destroy_child, handle_of, new_child, rounded_queue_size,
    stop_child, Child, CompletionCore,
};
use super::DpaCore;
use crate::abi;
use crate::error::{codes, fail};
use crate::export::{doca_api, out};
use crate::mmap::{handle_info, HandleRange};
use crate::registry::{self, SimObject};
use crate::sync_event::value::{Compare, EventCore, Watcher};
use crate::trap::{self, SimCode};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// `DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH | DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS`.
pub(crate) const KNOWN_FLAGS: u32 = 0b11;
/// `DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS`.
pub(crate) const OPTIMIZE_REPORTS: u32 = 1 << 1;
/// The largest value (and event value) `doca_dpa_dev_sync_event_post_wait_gt`
/// is defined for.
const WAIT_GT_MAX: u64 = 254;

/// A wait a kernel posted and the event has not yet satisfied.
struct PendingWait {
    event: Arc<EventCore>,
    cmp: Compare,
    value: u64,
    /// The operation's number on its async ops (the element's immediate).
    index: u32,
}

/// The host-side state of async ops: set while configuring, read by kernels.
pub(crate) struct OpsState {
    pub(crate) completion: Option<Arc<CompletionCore>>,
    pub(crate) started: bool,
    pub(crate) handle: Option<u64>,
    /// Operations posted so far (numbers them, wrapping).
    posted: u32,
    waits: Vec<PendingWait>,
}

/// The state of a DPA async-ops context shared with kernels through its DPA
/// handle.
pub(crate) struct AsyncOpsCore {
    pub(crate) dpa: Arc<DpaCore>,
    /// The queue size, rounded up to a power of two.
    pub(crate) size: u32,
    pub(crate) user_data: u64,
    pub(crate) state: Mutex<OpsState>,
}

impl AsyncOpsCore {
    pub(crate) fn new(dpa: Arc<DpaCore>, size: u32, user_data: u64) -> AsyncOpsCore {
        AsyncOpsCore {
            dpa,
            size,
            user_data,
            state: Mutex::new(OpsState {
                completion: None,
                started: false,
                handle: None,
                posted: 0,
                waits: Vec::new(),
            }),
        }
    }

    /// Stops the context: the waits still pending are dropped, never reported.
    pub(crate) fn stop(&self) {
        let mut st = lock(&self.state);
        st.started = false;
        st.waits.clear();
    }

    /// The completion element's user data.
    ///
    /// Model choice: the low 24 bits of the async ops' user data
    /// (`DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA`), the width of a completion
    /// element's user data in the sim; DOCA takes a 64-bit value and returns
    /// a 32-bit one without saying how it narrows it.
    fn element_user_data(&self) -> u32 {
        (self.user_data & ((1u64 << crate::abi::DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA) - 1)) as u32
    }

    /// Reports operation `index` on the attached completion context.
    ///
    /// Model choice: an element of type `DOCA_DPA_DEV_COMP_SEND` (the kind the
    /// sim gives every completion of a local operation, as RDMA's) whose
    /// immediate is the operation's number on these async ops (counting
    /// from 0, wrapping), so a thread can tell its completions apart. A
    /// completion context stopped meanwhile gets nothing; a full one turns
    /// the DPA context fatal (`CompletionCore::post`).
    fn report(&self, completion: &CompletionCore, index: u32) {
        let _ = completion.post(comp::SEND, self.element_user_data(), index);
    }

    /// Numbers a new operation; the completion context it reports to.
    fn next_index(st: &mut OpsState) -> (u32, Option<Arc<CompletionCore>>) {
        let index = st.posted;
        st.posted = st.posted.wrapping_add(1);
        (index, st.completion.clone())
    }
}

impl Watcher for AsyncOpsCore {
    /// Completes every pending wait the event values now satisfy, in the
    /// order they were posted.
    fn value_changed(&self) {
        let (ready, completion) = {
            let mut st = lock(&self.state);
            if !st.started {
                st.waits.clear();
                return;
            }
            let mut ready = Vec::new();
            st.waits.retain(|w| {
                let holds = w.cmp.holds(w.event.get(), u64::MAX, w.value);
                if holds {
                    ready.push(w.index);
                }
                !holds
            });
            (ready, st.completion.clone())
        };
        if let Some(c) = completion {
            for index in ready {
                self.report(&c, index);
            }
        }
    }
}

// ---------------------------------------------------------------- host side

/// `struct doca_dpa_async_ops`.
pub(crate) struct AsyncOps {
    core: Arc<AsyncOpsCore>,
}
impl SimObject for AsyncOps {
    const KIND: &'static str = "doca_dpa_async_ops";
}
impl Child for AsyncOps {
    fn parent(&self) -> &Arc<DpaCore> {
        &self.core.dpa
    }
    fn started(&self) -> bool {
        lock(&self.core.state).started
    }
    /// Stops it; the waits kernels posted and the events have not satisfied
    /// are dropped.
    fn stop(&self) {
        self.core.stop();
    }
    fn on_destroy(&self) {
        if let Some(h) = lock(&self.core.state).handle.take() {
            registry::retract(h);
        }
    }
}

doca_api! {
    /// Creates an async-ops context.
    fn doca_dpa_async_ops_create(dpa: *mut abi::doca_dpa, queue_size: c_uint, user_data: u64, async_ops: *mut *mut abi::doca_dpa_async_ops) {
        if async_ops.is_null() {
            return Err(fail(codes::INVALID_VALUE, "NULL output pointer"));
        }
        let size = rounded_queue_size(queue_size)?;
        let a = new_child(dpa, |core| Ok(AsyncOps { core: Arc::new(AsyncOpsCore::new(core, size, user_data)) }))?;
        out(async_ops, a.cast())
    }

    /// Destroys it, stopping it first if it is started.
    fn doca_dpa_async_ops_destroy(async_ops: *mut abi::doca_dpa_async_ops) {
        destroy_child::<AsyncOps, _>(async_ops)
    }

    /// The rounded queue size.
    fn doca_dpa_async_ops_get_queue_size(async_ops: *mut abi::doca_dpa_async_ops, queue_size: *mut c_uint) {
        out(queue_size, child::<AsyncOps, _>(async_ops)?.core.size)
    }

    /// The user data given at creation.
    fn doca_dpa_async_ops_get_user_data(async_ops: *mut abi::doca_dpa_async_ops, user_data: *mut u64) {
        out(user_data, child::<AsyncOps, _>(async_ops)?.core.user_data)
    }

    /// Attaches the completion context that receives its completions.
    fn doca_dpa_async_ops_attach(async_ops: *mut abi::doca_dpa_async_ops, dpa_comp: *mut abi::doca_dpa_completion) {
        let a = child::<AsyncOps, _>(async_ops)?;
        let c = completion_core(dpa_comp)?;
        let mut st = lock(&a.core.state);
        if st.started {
            return Err(fail(codes::BAD_STATE, "async ops already started"));
        }
        c.attach_producer()?;
        st.completion = Some(c);
        Ok(())
    }

    /// Starts it; its completion context must be attached and started.
    fn doca_dpa_async_ops_start(async_ops: *mut abi::doca_dpa_async_ops) {
        let a = child::<AsyncOps, _>(async_ops)?;
        a.core.dpa.require_running()?;
        let mut st = lock(&a.core.state);
        if st.started {
            return Err(fail(codes::BAD_STATE, "async ops already started"));
        }
        if !st.completion.as_ref().is_some_and(|c| c.is_started()) {
            return Err(fail(codes::BAD_STATE, "attach a started completion context first"));
        }
        st.started = true;
        Ok(())
    }

    /// Stops it.
    fn doca_dpa_async_ops_stop(async_ops: *mut abi::doca_dpa_async_ops) {
        stop_child::<AsyncOps, _>(async_ops, "async ops not started")
    }

    /// The DPA handle of started async ops.
    fn doca_dpa_async_ops_get_dpa_handle(async_ops: *mut abi::doca_dpa_async_ops, handle: *mut abi::doca_dpa_dev_async_ops_t) {
        let a = child::<AsyncOps, _>(async_ops)?;
        let mut st = lock(&a.core.state);
        if !st.started {
            return Err(fail(codes::BAD_STATE, "async ops not started"));
        }
        let core = a.core.clone();
        let h = handle_of(&mut st.handle, || core);
        out(handle, h)
    }

}

// ---------------------------------------------------------------- device side

fn fault(reason: String) {
    raise(FaultKind::InvalidDeviceCall, reason);
}

/// The async ops behind `handle`, if the running code may post on them: live,
/// started, of the running code's DPA context (its base or an extension of
/// it), and the running code is a DPA thread.
///
/// The DPA-thread rule is DOCA's (the calls are "relevant only for a kernel
/// used for a DPA thread"); the sim reports a launched kernel or an RPC that
/// posts as a device fault rather than leave it undefined.
fn ops_of(call: &str, handle: u64) -> Option<Arc<AsyncOpsCore>> {
    let Some(ops) = registry::resolve::<AsyncOpsCore>(handle) else {
        fault(format!(
            "{call}: async ops handle {handle:#x} is not a live DPA async ops context"
        ));
        return None;
    };
    let misuse = with_device(|ctx| match ctx {
        Some(ctx) if !ctx.core.shares_device_context(&ops.dpa) => {
            Some("the async ops belong to another DPA context")
        }
        Some(ctx) if ctx.code != DeviceCode::Thread => {
            Some("async ops are for DPA threads only, not for launched kernels or RPCs")
        }
        // Called outside device code (a host thread): nothing to compare.
        _ => None,
    });
    if let Some(why) = misuse {
        fault(format!("{call}: {why}"));
        return None;
    }
    if !lock(&ops.state).started {
        fault(format!("{call}: the async ops are not started"));
        return None;
    }
    Some(ops)
}

/// The map behind `mmap` when it holds `[addr, addr + len)`.
fn range_of(call: &str, what: &str, mmap: u32, addr: u64, len: u64) -> Option<HandleRange> {
    match handle_info(mmap) {
        Some(r) if r.holds(addr, len) => Some(r),
        Some(_) => {
            fault(format!(
                "{call}: {what} [{addr:#x}, +{len}) is outside the memory map of handle {mmap}"
            ));
            None
        }
        None => {
            fault(format!("{call}: {what} mmap handle {mmap} is not live"));
            None
        }
    }
}

/// Copies `length` bytes from `src` to `dst` (each a map handle and an
/// address) for a device call: both ranges must lie in live maps and not
/// overlap (model choice: overlapping ranges are a device fault, not an
/// undefined result); a bad range or an address the host cannot reach is the
/// running code's device fault. Whether the bytes were copied. Used by the
/// async-ops copies and DPA Comms' `doca_dpa_dev_comch_producer_dma_copy`.
pub(crate) fn copy_between_maps(call: &str, dst: (u32, u64), src: (u32, u64), length: u64) -> bool {
    let ((dst_mmap, dst_addr), (src_mmap, src_addr)) = (dst, src);
    if range_of(call, "destination", dst_mmap, dst_addr, length).is_none()
        || range_of(call, "source", src_mmap, src_addr, length).is_none()
    {
        return false;
    }
    if length > 0 && dst_addr < src_addr + length && src_addr < dst_addr + length {
        fault(format!(
            "{call}: source [{src_addr:#x}, +{length}) and destination [{dst_addr:#x}, +{length}) overlap"
        ));
        return false;
    }
    // SAFETY: both ranges lie in live maps (checked above); the probe catches
    // an address that is not mapped, fenced or freed, on either side.
    let copied =
        unsafe { trap::probe_copy(dst_addr as *mut u8, src_addr as *const u8, length as usize) };
    match copied {
        Ok(()) => true,
        Err(bad) => {
            let access = if bad >= src_addr && bad - src_addr < length {
                Access::Read
            } else {
                Access::Write
            };
            bad_address(call, bad, access);
            false
        }
    }
}

/// `doca_dpa_dev_post_memcpy` (`room` = `length`) and
/// `doca_dpa_dev_post_buf_memcpy` (`room` = the destination buffer's length,
/// `length` the source's): checks the handle, flags and both ranges, copies,
/// and reports the copy.
///
/// Model choices: the copy is made when posted, whatever the flags (DOCA lets
/// a context hold back what is posted without FLUSH, and requires no more);
/// `DOCA_DPA_DEV_SUBMIT_FLAG_OPTIMIZE_REPORTS` reports nothing, as with DPA
/// RDMA; the maps' local access flags are not checked (a kernel reaches the
/// same memory through `doca_dpa_dev_mmap_get_external_ptr`); flags DOCA does
/// not define, a destination shorter than the source and overlapping ranges are
/// device faults, not undefined results.
#[no_mangle]
pub extern "C" fn doca_sim_impl_async_memcpy(
    handle: u64,
    dst_mmap: u32,
    dst_addr: u64,
    room: u64,
    src_mmap: u32,
    src_addr: u64,
    length: u64,
    flags: u32,
) {
    let _sim = SimCode::enter();
    let call = "doca_dpa_dev_post_memcpy";
    let Some(ops) = ops_of(call, handle) else {
        return;
    };
    if flags & !KNOWN_FLAGS != 0 {
        return fault(format!("{call}: unknown flags {flags:#x}"));
    }
    if room < length {
        return fault(format!(
            "{call}: the destination ({room} bytes) is shorter than the source ({length} bytes)"
        ));
    }
    if !copy_between_maps(call, (dst_mmap, dst_addr), (src_mmap, src_addr), length) {
        return;
    }
    let (index, completion) = AsyncOpsCore::next_index(&mut lock(&ops.state));
    if flags & OPTIMIZE_REPORTS == 0 {
        if let Some(c) = completion {
            ops.report(&c, index);
        }
    }
}

/// `doca_dpa_dev_sync_event_post_wait_gt` (`not_equal` 0) and `_ne` (1):
/// queues a wait the event's value satisfies later, or reports it at once
/// when it already does.
///
/// Model choices: a wait occupies a slot of the async ops' queue until it is
/// reported, and posting into a full queue is a queue overrun (a device
/// fault); `_gt` with a value or an event value above 254 (undefined in
/// DOCA) is a device fault; the comparison is on the whole 64-bit value; the
/// event may be any event exported to the DPA; stopping the async ops drops
/// the waits pending.
#[no_mangle]
pub extern "C" fn doca_sim_impl_async_wait(handle: u64, event: u64, value: u64, not_equal: c_int) {
    let _sim = SimCode::enter();
    let (call, cmp) = if not_equal != 0 {
        ("doca_dpa_dev_sync_event_post_wait_ne", Compare::Neq)
    } else {
        ("doca_dpa_dev_sync_event_post_wait_gt", Compare::Gt)
    };
    let Some(ops) = ops_of(call, handle) else {
        return;
    };
    let Some(ev) = registry::resolve::<EventCore>(event) else {
        return fault(format!(
            "{call}: sync event handle {event:#x} is not a live exported event"
        ));
    };
    if cmp == Compare::Gt && (value > WAIT_GT_MAX || ev.get() > WAIT_GT_MAX) {
        return fault(format!(
            "{call}: value {value} and event value {} must be at most {WAIT_GT_MAX}",
            ev.get()
        ));
    }
    {
        let mut st = lock(&ops.state);
        if st.waits.len() >= ops.size as usize {
            drop(st);
            return raise(
                FaultKind::QueueOverrun(QueueKind::AsyncOps),
                format!(
                    "{call}: async ops queue overrun ({} waits pending)",
                    ops.size
                ),
            );
        }
        let (index, _) = AsyncOpsCore::next_index(&mut st);
        st.waits.push(PendingWait {
            event: ev.clone(),
            cmp,
            value,
            index,
        });
    }
    // Watch first, then look: a change between the two is seen either way.
    ev.watch(&ops);
    ops.value_changed();
}
