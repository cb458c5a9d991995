//! Traps in device code: the Rust side of `csrc/trap.c`.
//!
//! Kernels run as host code on pool threads. The C side installs handlers for
//! the signals a bad kernel raises (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT)
//! and jumps back to the start of the instance when the faulting thread runs
//! kernel code, so a kernel's crash is a device fault, not a host crash.
//!
//! A thread is "in kernel code" from the start of the instance until it calls
//! into the sim: every device function the sim implements in Rust enters
//! [`SimCode`] first, which marks the thread as host code, so a trap inside
//! the sim's Rust code (a sim bug) still crashes the host, and no jump ever
//! crosses a Rust frame of the sim. Such functions read and write memory a
//! kernel named only through [`probe_copy`] / [`probe_cstr`], which report an
//! inaccessible address instead of trapping.

use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

/// `DOCA_SIM_ENDED_*` of `csrc/trap.h` (any other code, 1, is ABORTED).
pub(crate) mod ended {
    pub(crate) const RETURNED: i32 = 0;
    pub(crate) const RESCHEDULED: i32 = 2;
    pub(crate) const FINISHED: i32 = 3;
    pub(crate) const FAULTED: i32 = 4;
    pub(crate) const KILLED: i32 = 5;
}

/// `struct doca_sim_trap_record`: what the signal handler saw.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TrapRecord {
    pub(crate) signo: i32,
    pub(crate) code: i32,
    pub(crate) addr: u64,
    pub(crate) pc: u64,
    /// 0 unknown, 1 read, 2 write.
    pub(crate) access: i32,
    pub(crate) stack_overflow: i32,
}

extern "C" {
    fn doca_sim_trap_install() -> c_int;
    fn doca_sim_trap_thread_init() -> *mut c_void;
    fn doca_sim_trap_kill(target: *mut c_void, thread: libc::pthread_t, generation: u64) -> c_int;
    fn doca_sim_trap_request_end();
    fn doca_sim_trap_enter_sim() -> c_int;
    fn doca_sim_trap_leave_sim(mode: c_int);
    fn doca_sim_probe_copy(
        dst: *mut c_void,
        src: *const c_void,
        len: usize,
        bad: *mut u64,
    ) -> c_int;
    fn doca_sim_probe_strnlen(s: *const c_char, max: usize, bad: *mut u64) -> libc::c_long;
    /// Runs `invoke(args)` as kernel code; `*ended` gets an [`ended`] code.
    pub(crate) fn doca_sim_run_instance(
        invoke: unsafe extern "C" fn(*const u64) -> u64,
        args: *const u64,
        generation: u64,
        record: *mut TrapRecord,
        ended: *mut c_int,
    ) -> u64;
}

/// Installs the trap handlers once per process. Returns false (and says so
/// once on stderr) if the system refused, in which case kernel traps stay
/// host crashes.
pub(crate) fn install() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| {
        // SAFETY: installs process-wide signal handlers written to be
        // async-signal-safe; called once, from ordinary (non-handler) code.
        let err = unsafe { doca_sim_trap_install() };
        if err != 0 {
            eprintln!(
                "doca-sim: cannot install the device-fault handlers (errno {err}); \
                 a kernel's crash will crash the host"
            );
        }
        err == 0
    })
}

/// How the watchdog reaches one EU thread.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target {
    state: usize,
    thread: libc::pthread_t,
}

impl Target {
    /// Asks the thread to stop run `generation` if it is still in it (in
    /// kernel code; a thread in the sim's own code ignores the request and
    /// polls its context's fatal flag instead).
    pub(crate) fn kill(&self, generation: u64) {
        // SAFETY: `state` is the TLS block `thread_init` returned on that
        // thread, and EU threads never exit, so both stay valid.
        unsafe { doca_sim_trap_kill(self.state as *mut c_void, self.thread, generation) };
    }
}

/// Prepares the calling EU thread (alternate signal stack, stack guard
/// bounds); returns how the watchdog reaches it.
pub(crate) fn thread_init() -> Option<Target> {
    // SAFETY: sets up this thread's own signal stack and TLS.
    let state = unsafe { doca_sim_trap_thread_init() };
    if state.is_null() {
        return None;
    }
    Some(Target {
        state: state as usize,
        // SAFETY: always safe to call.
        thread: unsafe { libc::pthread_self() },
    })
}

/// Asks the C wrapper of the running device function to end the instance
/// when the function returns (it found a device fault).
pub(crate) fn request_end() {
    // SAFETY: sets a flag of this thread's trap state.
    unsafe { doca_sim_trap_request_end() }
}

/// While alive, the thread runs the sim's own code: traps are host crashes
/// and the watchdog's stop request waits.
pub(crate) struct SimCode(c_int);

impl SimCode {
    pub(crate) fn enter() -> SimCode {
        // SAFETY: swaps this thread's mode flag.
        SimCode(unsafe { doca_sim_trap_enter_sim() })
    }
}

impl Drop for SimCode {
    fn drop(&mut self) {
        // SAFETY: restores the mode `enter` saved.
        unsafe { doca_sim_trap_leave_sim(self.0) }
    }
}

/// Copies `len` bytes from `src` to `dst` where one side is memory a kernel
/// named; `Err(address)` if an access would trap. The copy is made of relaxed
/// atomic accesses (kernels may touch the bytes concurrently).
///
/// # Safety
/// The side the sim owns must be valid for `len` bytes; the kernel's side is
/// probed.
pub(crate) unsafe fn probe_copy(dst: *mut u8, src: *const u8, len: usize) -> Result<(), u64> {
    let mut bad = 0u64;
    // SAFETY: by the caller's contract for the sim's side; the C function
    // catches traps on the kernel's side.
    let rc = unsafe { doca_sim_probe_copy(dst.cast(), src.cast(), len, &mut bad) };
    if rc == 0 {
        Ok(())
    } else {
        Err(bad)
    }
}

/// Reads a NUL-terminated string a kernel passed (at most `max` bytes);
/// `Err(address)` if it is not readable.
///
/// # Safety
/// `s` comes from device code, which the sim trusts as the DPA does: an
/// unmapped, fenced or freed address is caught, but a mapped address the
/// kernel had no business naming is the kernel's bug.
pub(crate) unsafe fn probe_cstr(s: *const c_char, max: usize) -> Result<String, u64> {
    let mut bad = 0u64;
    // SAFETY: the C function catches traps while it reads.
    let len = unsafe { doca_sim_probe_strnlen(s, max, &mut bad) };
    if len < 0 {
        return Err(bad);
    }
    let mut bytes = vec![0u8; len as usize];
    // SAFETY: `bytes` holds `len` bytes; the kernel's side is probed.
    unsafe { probe_copy(bytes.as_mut_ptr(), s.cast(), len as usize) }?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Writes one value to an address a kernel passed; `Err(address)` if it is
/// not writable.
///
/// # Safety
/// As for [`probe_cstr`]: `dst` comes from device code.
pub(crate) unsafe fn probe_write<T: Copy>(dst: *mut T, value: T) -> Result<(), u64> {
    // SAFETY: `value` is a local of `size_of::<T>()` bytes; the kernel's side
    // is probed (and trusted beyond that by the caller's contract).
    unsafe {
        probe_copy(
            dst.cast(),
            (&value as *const T).cast(),
            std::mem::size_of::<T>(),
        )
    }
}

/// A signal's name for reports.
pub(crate) fn signal_name(signo: i32) -> &'static str {
    match signo {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        _ => "a signal",
    }
}
