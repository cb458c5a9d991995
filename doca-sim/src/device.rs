//! The device-side API that DPA kernels call, as the sim implements it.
//!
//! Kernels are compiled for the host against `device-include/`; their calls
//! land here (through the wrappers of `csrc/device.c` for the calls that may
//! end the running instance, which needs `siglongjmp`). A handle that does
//! not designate a live object, or an address the function cannot access, is
//! a device-side fault: the context turns fatal, as a bad access on the DPA
//! would make it, and the C wrapper ends the instance when the Rust function
//! has returned.
//!
//! Every function here starts with [`SimCode::enter`]: from then on the
//! thread runs the sim's code, not the kernel's (see `crate::trap`), and
//! memory the kernel named is touched only through the probing copies.

// Functions called from C (kernels, the shim) are `pub` for `#[no_mangle]`
// export, not for Rust callers.
#![allow(unreachable_pub)]

use std::ffi::{c_char, c_int, c_uint, CStr};
use std::sync::OnceLock;
use std::time::Instant;

use crate::dpa::fault::{Access, FaultKind, QueueKind};
use crate::dpa::launch::{bad_address, current_device, raise, with_device};
use crate::dpa::threads::comp;
use crate::registry::resolve;
use crate::sync_event::value::{Compare, EventCore};
use crate::trap::{self, SimCode};

/// A device call with a handle that designates nothing live.
fn fault(reason: String) {
    raise(FaultKind::InvalidDeviceCall, reason);
}

/// Writes a result through a pointer the kernel passed (an inaccessible
/// one is the kernel's device fault).
fn write_out<T: Copy>(call: &str, ptr: *mut T, value: T) {
    // SAFETY: `ptr` is the out-pointer the kernel gave this device call; the
    // probe catches unmapped, fenced and freed addresses, and the sim trusts
    // device code beyond that as the DPA does.
    if let Err(addr) = unsafe { trap::probe_write(ptr, value) } {
        bad_address(call, addr, Access::Write);
    }
}

fn event(handle: u64) -> Option<std::sync::Arc<EventCore>> {
    match resolve::<EventCore>(handle) {
        Some(e) => Some(e),
        None => {
            fault(format!(
                "sync event handle {handle:#x} is not a live exported event"
            ));
            None
        }
    }
}

fn completion(handle: u64) -> Option<std::sync::Arc<crate::dpa::threads::CompletionCore>> {
    match resolve::<crate::dpa::threads::CompletionCore>(handle) {
        Some(c) => Some(c),
        None => {
            fault(format!(
                "completion handle {handle:#x} is not a live completion context"
            ));
            None
        }
    }
}

/// True when the running instance should stop (its context is fatal).
#[no_mangle]
pub extern "C" fn doca_sim_dev_should_abort() -> c_int {
    let _sim = SimCode::enter();
    with_device(|ctx| c_int::from(ctx.is_some_and(|c| c.core.is_fatal())))
}

/// Rank of the calling thread in its launch (or group).
#[no_mangle]
pub extern "C" fn doca_dpa_dev_thread_rank() -> c_uint {
    let _sim = SimCode::enter();
    with_device(|ctx| ctx.map_or(0, |c| c.rank))
}

/// Number of threads of the calling launch (or group).
#[no_mangle]
pub extern "C" fn doca_dpa_dev_num_threads() -> c_uint {
    let _sim = SimCode::enter();
    with_device(|ctx| ctx.map_or(1, |c| c.num_threads))
}

/// Local storage of the calling DPA thread (0 in launched kernels).
#[no_mangle]
pub extern "C" fn doca_dpa_dev_thread_get_local_storage() -> u64 {
    let _sim = SimCode::enter();
    current_device().map_or(0, |c| c.local_storage)
}

/// Wakes the thread bound to a notification completion.
#[no_mangle]
pub extern "C" fn doca_sim_impl_thread_notify(handle: u64) {
    let _sim = SimCode::enter();
    match resolve::<crate::dpa::threads::ThreadCore>(handle) {
        Some(t) => t.activate(),
        None => fault(format!("notification handle {handle:#x} is not live")),
    }
}

/// Writes one formatted device log line (called by `doca_dpa_dev_log`).
#[no_mangle]
pub unsafe extern "C" fn doca_sim_dev_log_line(level: c_uint, line: *const c_char) {
    let _sim = SimCode::enter();
    if line.is_null() {
        return;
    }
    // SAFETY: `csrc/device.c` passes a NUL-terminated buffer.
    let text = unsafe { CStr::from_ptr(line) }.to_string_lossy();
    with_device(|ctx| match ctx {
        Some(c) => c.core.device_log(level, &text),
        None => print!("{text}"),
    });
}

/// Model choice: traces go to the device log at DEBUG level.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_trace(a1: u64, a2: u64, a3: u64, a4: u64, a5: u64) {
    let _sim = SimCode::enter();
    let line = format!("trace {a1:#x} {a2:#x} {a3:#x} {a4:#x} {a5:#x}\n");
    with_device(|ctx| {
        if let Some(c) = ctx {
            c.core.device_log(60, &line);
        }
    });
}

/// Traces are written at once, so flushing has nothing to do.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_trace_flush() {}

/// Model choice: the DPA cycle counter reads the host's monotonic clock in
/// nanoseconds.
#[no_mangle]
pub extern "C" fn doca_sim_dev_cycles() -> u64 {
    let _sim = SimCode::enter();
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Reads a sync event.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_sync_event_get(handle: u64, value: *mut u64) {
    let _sim = SimCode::enter();
    if let Some(e) = event(handle) {
        write_out("doca_dpa_dev_sync_event_get", value, e.get());
    }
}

/// Adds to a sync event.
#[no_mangle]
pub extern "C" fn doca_sim_impl_sync_event_update_add(handle: u64, value: u64) {
    let _sim = SimCode::enter();
    if let Some(e) = event(handle) {
        e.add(value);
    }
}

/// Sets a sync event.
#[no_mangle]
pub extern "C" fn doca_sim_impl_sync_event_update_set(handle: u64, value: u64) {
    let _sim = SimCode::enter();
    if let Some(e) = event(handle) {
        e.set(value);
    }
}

/// Blocks until `(event & mask) > value`; returns 1 when the instance must
/// stop instead (`csrc/device.c` then ends it).
///
/// Model choice: a device-side wait gives up when the context turns fatal, so
/// a kernel stuck waiting can be reclaimed.
#[no_mangle]
pub extern "C" fn doca_sim_dev_sync_event_wait_gt(handle: u64, value: u64, mask: u64) -> c_int {
    let _sim = SimCode::enter();
    let Some(e) = event(handle) else { return 1 };
    let core = current_device().map(|c| c.core);
    let ok = e.wait(Compare::Gt, value, mask, || {
        core.as_ref().is_some_and(|c| c.is_fatal())
    });
    c_int::from(!ok)
}

/// Takes the next completion element; returns 1 and writes it when one is
/// available, 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_get_completion(handle: u64, element: *mut u64) -> c_int {
    let _sim = SimCode::enter();
    let Some(c) = completion(handle) else {
        return 0;
    };
    match c.next() {
        Some(e) => {
            write_out("doca_dpa_dev_get_completion", element, e);
            1
        }
        None => 0,
    }
}

/// The type of a completion element.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_get_completion_type(element: u64) -> c_uint {
    let _sim = SimCode::enter();
    element_parts(element).0
}

/// The user data of a completion element.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_get_completion_user_data(element: u64) -> u32 {
    let _sim = SimCode::enter();
    element_parts(element).1
}

/// The immediate of a completion element.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_get_completion_immediate(element: u64) -> u32 {
    let _sim = SimCode::enter();
    element_parts(element).2
}

/// Releases `n` read completion elements.
#[no_mangle]
pub extern "C" fn doca_sim_impl_completion_ack(handle: u64, n: u64) {
    let _sim = SimCode::enter();
    if let Some(c) = completion(handle) {
        c.ack(n);
    }
}

/// Arms the completion context to wake its thread on the next element.
#[no_mangle]
pub extern "C" fn doca_sim_impl_completion_request_notification(handle: u64) {
    let _sim = SimCode::enter();
    if let Some(c) = completion(handle) {
        c.request_notification();
    }
}

/// Sim-only producer: posts an element to a completion context. Returns 0, or
/// a DOCA error code (BAD_STATE not started, INVALID_VALUE user data ≥ 2^24,
/// FULL on overrun, which also makes the context fatal).
#[no_mangle]
pub extern "C" fn doca_sim_impl_completion_post(
    handle: u64,
    kind: u32,
    user_data: u32,
    immediate: u32,
) -> c_int {
    let _sim = SimCode::enter();
    let Some(c) = completion(handle) else {
        return crate::error::codes::INVALID_VALUE as c_int;
    };
    match c.post(kind, user_data, immediate) {
        Ok(()) => 0,
        Err(e) => e.code as c_int,
    }
}

/// Sim-only: makes the running kernel's context fatal, as a device-side
/// exception would (`csrc/device.c` then ends the instance).
#[no_mangle]
pub unsafe extern "C" fn doca_sim_dev_raise_fault(reason: *const c_char) {
    let _sim = SimCode::enter();
    let text = if reason.is_null() {
        "kernel raised a fault".to_owned()
    } else {
        // SAFETY: the string the kernel passed; probed as in `write_out`.
        match unsafe { trap::probe_cstr(reason, 1024) } {
            Ok(text) => text,
            Err(addr) => {
                return bad_address("doca_sim_dev_fault", addr, Access::Read);
            }
        }
    };
    raise(FaultKind::ExplicitFault, text);
}

fn hash(handle: u64) -> Option<std::sync::Arc<crate::dpa::threads::HashCore>> {
    match resolve::<crate::dpa::threads::HashCore>(handle) {
        Some(h) => Some(h),
        None => {
            fault(format!("hash table handle {handle:#x} is not live"));
            None
        }
    }
}

/// Maps a key to a value.
///
/// Model choice: inserting into a full table is a device-side fault.
#[no_mangle]
pub extern "C" fn doca_sim_impl_hash_table_add(handle: u64, key: u32, value: u64) {
    let _sim = SimCode::enter();
    if let Some(h) = hash(handle) {
        if !h.add(key, value) {
            raise(
                FaultKind::QueueOverrun(QueueKind::HashTable),
                "hash table full".into(),
            );
        }
    }
}

/// Removes a key.
#[no_mangle]
pub extern "C" fn doca_sim_impl_hash_table_remove(handle: u64, key: u32) {
    let _sim = SimCode::enter();
    if let Some(h) = hash(handle) {
        h.remove(key);
    }
}

/// Looks a key up; 1 when found (and `*value` written), 0 otherwise.
#[no_mangle]
pub unsafe extern "C" fn doca_sim_impl_hash_table_find(
    handle: u64,
    key: u32,
    value: *mut u64,
) -> c_int {
    let _sim = SimCode::enter();
    match hash(handle).and_then(|h| h.find(key)) {
        Some(v) => {
            write_out("doca_dpa_dev_hash_table_find", value, v);
            1
        }
        None => 0,
    }
}

// ------------------------------------------------ extended contexts, mmaps

/// The context a DPA context extends, or itself.
fn root(core: &std::sync::Arc<crate::dpa::DpaCore>) -> *const crate::dpa::DpaCore {
    core.base_or_self()
}

/// Checks the handle of `doca_dpa_dev_device_set` (the C wrapper ends the
/// instance on a fault).
///
/// Model choice: the handle must name the running context, its base or
/// another extension of that base; since the sim's device calls act the same
/// on each of them, nothing else changes.
#[no_mangle]
pub extern "C" fn doca_sim_impl_device_set(handle: u64) {
    let _sim = SimCode::enter();
    let Some(target) = resolve::<crate::dpa::DpaCore>(handle) else {
        return fault(format!(
            "DPA handle {handle:#x} is not a live started DPA context"
        ));
    };
    let related = with_device(|ctx| ctx.is_some_and(|c| root(&c.core) == root(&target)));
    if !related {
        fault(format!(
            "DPA handle {handle:#x} names neither this context nor one of its extensions"
        ));
    }
}

/// The address of `addr` in the map behind `handle` (0 and a device fault
/// when the handle is not live or `addr` is outside the map).
///
/// Model choice: the map's memory (host or DPA heap) is directly addressable
/// in the sim, so the address itself.
#[no_mangle]
pub extern "C" fn doca_sim_impl_mmap_get_external_ptr(handle: u32, addr: u64) -> u64 {
    let _sim = SimCode::enter();
    match crate::mmap::handle_info(handle) {
        Some(range) if range.holds(addr, 1) => addr,
        Some(_) => {
            fault(format!(
                "address {addr:#x} is outside the memory map of handle {handle}"
            ));
            0
        }
        None => {
            fault(format!("mmap handle {handle} is not live"));
            0
        }
    }
}

// ------------------------------------- completion elements (newer accessors)

/// The sim's completion element: type, user data and immediate (see
/// `doca_dpa_dev_get_completion_type` and neighbours).
fn element_parts(element: u64) -> (u32, u32, u32) {
    (
        (element & 0xff) as u32,
        ((element >> 8) & 0xff_ffff) as u32,
        (element >> 32) as u32,
    )
}

fn is_error_element(kind: u32) -> bool {
    kind == comp::SEND_ERR || kind == comp::RECV_ERR
}

/// Model choice: the sim's producers post no send WQEs: 0.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_swqe_opcode(element: u64) -> u32 {
    let _sim = SimCode::enter();
    let _ = element;
    0
}

/// Model choice: the sim has no shared receive queues: 0.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_srqn(element: u64) -> u32 {
    let _sim = SimCode::enter();
    let _ = element;
    0
}

/// Model choice: the sim's producers have no queue pairs: 0.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_qpn(element: u64) -> u32 {
    let _sim = SimCode::enter();
    let _ = element;
    0
}

/// Model choice: the low 16 bits of the user data, where the sim's producers
/// put the work-request index (an RDMI receive slot, say).
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_wqe_counter(element: u64) -> u32 {
    let _sim = SimCode::enter();
    element_parts(element).1 & 0xffff
}

/// The work-request index: as `doca_dpa_dev_completion_element_get_wqe_counter`.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_rdma_completion_get_wr_index(element: u64) -> u32 {
    doca_dpa_dev_completion_element_get_wqe_counter(element)
}

/// Model choice: the immediate of a RECV_SEND element (the sim's producers
/// put the length there), 0 for other kinds.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_received_bytes(element: u64) -> u32 {
    let _sim = SimCode::enter();
    match element_parts(element) {
        (kind, _, immediate) if kind == comp::RECV_SEND => immediate,
        _ => 0,
    }
}

/// Model choice: 1 for error elements, 0 otherwise.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_error_syndrome(element: u64) -> u32 {
    let _sim = SimCode::enter();
    u32::from(is_error_element(element_parts(element).0))
}

/// Model choice: the immediate of an error element, 0 otherwise.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_vendor_error_syndrome(element: u64) -> u32 {
    let _sim = SimCode::enter();
    match element_parts(element) {
        (kind, _, immediate) if is_error_element(kind) => immediate,
        _ => 0,
    }
}

/// Model choice: the sim keeps no completion timestamps: 0.
#[no_mangle]
pub extern "C" fn doca_dpa_dev_completion_element_get_timestamp(element: u64) -> u64 {
    let _sim = SimCode::enter();
    let _ = element;
    0
}
