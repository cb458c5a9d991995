//! Shared by the sim's C-ABI tests: calling the exported functions, DPA
//! applications built in Rust, the device-side API, and small fixtures.
//!
//! Every test creates a [`doca_sim::Scope`] first, so its faults, counters and
//! live objects are its own although the tests share one process.
#![allow(dead_code, unused_imports, unused_macros)]

use std::ffi::{c_char, c_void, CStr};
use std::ptr::null_mut;
use std::time::{Duration, Instant};

pub(crate) use doca_sim::abi;
pub(crate) use doca_sim::{DeviceProfile, Nth, Profile, Scope};

/// Calls functions of the sim's C ABI (declared by `doca_sim::abi`, or by the
/// device-side declarations below).
macro_rules! ffi {
    ($call:expr) => {{
        #[allow(unused_unsafe)]
        // SAFETY: every object pointer the tests pass is one the sim handed
        // out (or a deliberately bad one, which the sim refuses: its registry
        // checks each object pointer), out-pointers and buffers are live
        // locals of the sizes passed, and kernels only run the Rust functions
        // of the tests' application tables.
        let result = unsafe { $call };
        result
    }};
}

/// Asserts that a call returns DOCA_SUCCESS.
macro_rules! ok {
    ($call:expr) => {
        $crate::common::expect(ffi!($call), $crate::common::SUCCESS, stringify!($call))
    };
}

/// Asserts that a call fails with the given code.
macro_rules! fails {
    ($code:expr, $call:expr) => {
        $crate::common::expect(ffi!($call), $code, stringify!($call))
    };
}

/// A fresh kernel entry point: a distinct `extern "C" fn()` whose address is
/// the kernel's `doca_dpa_func_t`.
macro_rules! entry {
    () => {{
        extern "C" fn marker() {
            std::hint::black_box(concat!(file!(), ":", line!(), ":", column!()));
        }
        marker as $crate::common::Func
    }};
}

pub(crate) use {entry, fails, ffi, ok};

pub(crate) type Code = abi::doca_error_t;
pub(crate) const SUCCESS: Code = abi::DOCA_SUCCESS;
pub(crate) const NOT_PERMITTED: Code = abi::DOCA_ERROR_NOT_PERMITTED;
pub(crate) const IN_USE: Code = abi::DOCA_ERROR_IN_USE;
pub(crate) const NOT_SUPPORTED: Code = abi::DOCA_ERROR_NOT_SUPPORTED;
pub(crate) const AGAIN: Code = abi::DOCA_ERROR_AGAIN;
pub(crate) const INVALID_VALUE: Code = abi::DOCA_ERROR_INVALID_VALUE;
pub(crate) const NO_MEMORY: Code = abi::DOCA_ERROR_NO_MEMORY;
pub(crate) const NOT_CONNECTED: Code = abi::DOCA_ERROR_NOT_CONNECTED;
pub(crate) const NOT_FOUND: Code = abi::DOCA_ERROR_NOT_FOUND;
pub(crate) const BAD_STATE: Code = abi::DOCA_ERROR_BAD_STATE;
pub(crate) const UNSUPPORTED_VERSION: Code = abi::DOCA_ERROR_UNSUPPORTED_VERSION;
pub(crate) const OPERATING_SYSTEM: Code = abi::DOCA_ERROR_OPERATING_SYSTEM;
pub(crate) const DRIVER: Code = abi::DOCA_ERROR_DRIVER;
pub(crate) const FULL: Code = abi::DOCA_ERROR_FULL;
pub(crate) const IN_PROGRESS: Code = abi::DOCA_ERROR_IN_PROGRESS;

/// The name of a code, through the sim's own `doca_error_get_name`.
pub(crate) fn name(code: Code) -> String {
    let p = ffi!(abi::doca_error_get_name(code));
    assert!(!p.is_null());
    // SAFETY: the sim returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Panics with both codes' names unless `got == want`.
#[track_caller]
pub(crate) fn expect(got: Code, want: Code, call: &str) {
    if got != want {
        panic!(
            "{call}: expected {} ({want}), got {} ({got})",
            name(want),
            name(got)
        );
    }
}

/// The leak check: asserts the scope has no live object left.
#[track_caller]
pub(crate) fn assert_no_leaks(scope: &Scope) {
    assert_eq!(
        scope.live_objects(),
        Default::default(),
        "objects left alive by the test"
    );
    assert_eq!(scope.live_total(), 0);
}

// ------------------------------------------------------------ applications

/// A kernel's host address (`doca_dpa_func_t` without the `Option`).
pub(crate) type Func = unsafe extern "C" fn();
/// What the sim calls to run a kernel: args in, RPC value out.
pub(crate) type Invoke = unsafe extern "C" fn(*const u64) -> u64;

/// `struct doca_sim_kernel` of `device-include/doca_sim_app.h`.
#[repr(C)]
pub(crate) struct SimKernel {
    pub(crate) name: *const c_char,
    pub(crate) func: Func,
    pub(crate) kind: u32,
    pub(crate) num_params: u32,
    pub(crate) param_sizes: *const u8,
    pub(crate) read_args: *const c_void,
    pub(crate) invoke: Invoke,
}

/// `struct doca_sim_app`.
#[repr(C)]
pub(crate) struct SimApp {
    pub(crate) magic: u64,
    pub(crate) abi_version: u32,
    pub(crate) num_kernels: u32,
    pub(crate) name: *const c_char,
    pub(crate) kernels: *const SimKernel,
}

pub(crate) const APP_MAGIC: u64 = 0x444F_4341_5349_4D41;
pub(crate) const APP_ABI: u32 = 1;
pub(crate) const KIND_GLOBAL: u32 = 0;
pub(crate) const KIND_RPC: u32 = 1;

/// A launchable kernel without parameters.
pub(crate) fn global(name: &'static CStr, func: Func, invoke: Invoke) -> SimKernel {
    kernel(name, func, KIND_GLOBAL, 0, invoke)
}

/// An RPC function without parameters.
pub(crate) fn rpc(name: &'static CStr, func: Func, invoke: Invoke) -> SimKernel {
    kernel(name, func, KIND_RPC, 0, invoke)
}

/// A DPA thread entry point: one `uint64_t` parameter, read from `args[0]`.
pub(crate) fn thread_fn(name: &'static CStr, func: Func, invoke: Invoke) -> SimKernel {
    kernel(name, func, KIND_GLOBAL, 1, invoke)
}

pub(crate) fn kernel(
    name: &'static CStr,
    func: Func,
    kind: u32,
    num_params: u32,
    invoke: Invoke,
) -> SimKernel {
    SimKernel {
        name: name.as_ptr(),
        func,
        kind,
        num_params,
        param_sizes: std::ptr::null(),
        read_args: std::ptr::null(),
        invoke,
    }
}

/// Builds an application table; like the generated C one, it lives for the
/// rest of the process.
pub(crate) fn app(name: &'static CStr, kernels: Vec<SimKernel>) -> *mut abi::doca_dpa_app {
    let kernels: &'static [SimKernel] = Box::leak(kernels.into_boxed_slice());
    app_raw(SimApp {
        magic: APP_MAGIC,
        abi_version: APP_ABI,
        num_kernels: kernels.len() as u32,
        name: name.as_ptr(),
        kernels: kernels.as_ptr(),
    })
}

/// Leaks an application table as it is (to build broken ones).
pub(crate) fn app_raw(table: SimApp) -> *mut abi::doca_dpa_app {
    (Box::leak(Box::new(table)) as *mut SimApp).cast()
}

/// An application with one kernel that does nothing.
pub(crate) fn noop_app() -> *mut abi::doca_dpa_app {
    unsafe extern "C" fn noop(_: *const u64) -> u64 {
        0
    }
    app(c"noop_app", vec![global(c"noop", entry!(), noop)])
}

/// The `doca_dpa_func_t` of a kernel address.
pub(crate) fn f(func: Func) -> abi::doca_dpa_func_t {
    Some(func)
}

// --------------------------------------------------------- device-side API

extern "C" {
    pub(crate) fn doca_dpa_dev_thread_rank() -> u32;
    pub(crate) fn doca_dpa_dev_num_threads() -> u32;
    pub(crate) fn doca_dpa_dev_thread_get_local_storage() -> u64;
    pub(crate) fn doca_dpa_dev_yield();
    pub(crate) fn doca_dpa_dev_thread_reschedule();
    pub(crate) fn doca_dpa_dev_thread_finish();
    pub(crate) fn doca_dpa_dev_thread_notify(handle: u64);
    pub(crate) fn doca_dpa_dev_sync_event_get(handle: u64, value: *mut u64);
    pub(crate) fn doca_dpa_dev_sync_event_update_add(handle: u64, value: u64);
    pub(crate) fn doca_dpa_dev_sync_event_update_set(handle: u64, value: u64);
    pub(crate) fn doca_dpa_dev_sync_event_wait_gt(handle: u64, value: u64, mask: u64);
    pub(crate) fn doca_dpa_dev_get_completion(handle: u64, element: *mut u64) -> i32;
    pub(crate) fn doca_dpa_dev_get_completion_type(element: u64) -> u32;
    pub(crate) fn doca_dpa_dev_get_completion_user_data(element: u64) -> u32;
    pub(crate) fn doca_dpa_dev_get_completion_immediate(element: u64) -> u32;
    pub(crate) fn doca_dpa_dev_completion_ack(handle: u64, n: u64);
    pub(crate) fn doca_dpa_dev_completion_request_notification(handle: u64);
    pub(crate) fn doca_dpa_dev_hash_table_add(handle: u64, key: u32, value: u64);
    pub(crate) fn doca_dpa_dev_hash_table_remove(handle: u64, key: u32);
    pub(crate) fn doca_dpa_dev_hash_table_find(handle: u64, key: u32, value: *mut u64) -> i32;
    pub(crate) fn doca_sim_dev_fault(reason: *const c_char);
    pub(crate) fn doca_sim_dev_completion_post(
        handle: u64,
        kind: u32,
        user_data: u32,
        immediate: u32,
    ) -> i32;
    pub(crate) fn doca_sim_dev_rdmi_send(
        poster: u64,
        connection: u64,
        data: *const c_void,
        len: u32,
        user_data: u32,
    ) -> i32;
    pub(crate) fn doca_sim_dev_rdmi_consume(connection: u64, n: u32) -> i32;
    pub(crate) fn doca_sim_dev_rdmi_rq_addr(connection: u64) -> u64;
    /// Exported by the sim (as by DOCA) but absent from the headers.
    pub(crate) fn doca_rdmi_connection_as_ctx(
        conn: *mut abi::doca_rdmi_connection,
    ) -> *mut abi::doca_ctx;
}

/// `DOCA_DPA_DEV_COMP_SEND` / `_RECV_SEND`.
pub(crate) const COMP_SEND: u32 = 0x0;
pub(crate) const COMP_RECV_SEND: u32 = 0x2;

// ---------------------------------------------------------------- devices

/// Index of the BlueField-3 (DPA) and BlueField-2 (no DPA) of the default
/// profile.
pub(crate) const BF3: usize = 0;
pub(crate) const BF2: usize = 1;
/// The scalable function of the BlueField-3 (default profile, DPU view).
pub(crate) const SF: usize = 2;

/// The devinfo list of the current profile.
pub(crate) fn dev_list() -> (*mut *mut abi::doca_devinfo, Vec<*mut abi::doca_devinfo>) {
    let mut list = null_mut();
    let mut n = 0u32;
    ok!(abi::doca_devinfo_create_list(&mut list, &mut n));
    // SAFETY: the sim returned an array of `n` devinfo pointers.
    let items = unsafe { std::slice::from_raw_parts(list, n as usize) }.to_vec();
    (list, items)
}

/// Opens the `index`-th device of the current profile.
pub(crate) fn open_dev(index: usize) -> *mut abi::doca_dev {
    let (list, items) = dev_list();
    let mut dev = null_mut();
    ok!(abi::doca_dev_open(items[index], &mut dev));
    ok!(abi::doca_devinfo_destroy_list(list));
    dev
}

/// The devinfo of an open device.
pub(crate) fn devinfo(dev: *mut abi::doca_dev) -> *mut abi::doca_devinfo {
    let info = ffi!(abi::doca_dev_as_devinfo(dev));
    assert!(!info.is_null());
    info
}

pub(crate) fn close_dev(dev: *mut abi::doca_dev) {
    ok!(abi::doca_dev_close(dev));
}

/// A default-profile BlueField-3 with the given limits changed.
pub(crate) fn bf3_profile(shape: impl FnOnce(&mut DeviceProfile)) -> Profile {
    let mut profile = Profile::default();
    shape(&mut profile.devices[BF3]);
    profile
}

// ------------------------------------------------------------- DPA context

/// An open BlueField-3 and a DPA context on it.
pub(crate) struct Ctx {
    pub(crate) dev: *mut abi::doca_dev,
    pub(crate) dpa: *mut abi::doca_dpa,
}

impl Ctx {
    /// A created, not started context (no app set).
    pub(crate) fn created() -> Ctx {
        let dev = open_dev(BF3);
        let mut dpa = null_mut();
        ok!(abi::doca_dpa_create(dev, &mut dpa));
        Ctx { dev, dpa }
    }

    /// A started context running `app`.
    pub(crate) fn started(app: *mut abi::doca_dpa_app) -> Ctx {
        let ctx = Ctx::created();
        ok!(abi::doca_dpa_set_app(ctx.dpa, app));
        ok!(abi::doca_dpa_start(ctx.dpa));
        ctx
    }

    /// Stops and destroys the context and closes the device.
    pub(crate) fn teardown(self) {
        ok!(abi::doca_dpa_stop(self.dpa));
        self.destroy();
    }

    /// Destroys the context (without stopping it) and closes the device.
    pub(crate) fn destroy(self) {
        ok!(abi::doca_dpa_destroy(self.dpa));
        close_dev(self.dev);
    }

    pub(crate) fn peek(&self) -> Code {
        ffi!(abi::doca_dpa_peek_at_last_error(self.dpa))
    }

    /// Waits (up to [`PATIENCE`]) for the context to turn fatal; its report.
    #[track_caller]
    pub(crate) fn awaited_fault(&self) -> doca_sim::FaultReport {
        assert!(poll(PATIENCE, || self.peek() == BAD_STATE), "no fault");
        doca_sim::fault_report(self.dpa).expect("a fault report")
    }

    /// A started event the host publishes and this DPA waits on.
    pub(crate) fn wait_event(&self) -> *mut abi::doca_sync_event {
        let ev = new_event();
        ok!(abi::doca_sync_event_add_publisher_location_cpu(
            ev, self.dev
        ));
        ok!(abi::doca_sync_event_add_subscriber_location_dpa(
            ev, self.dpa
        ));
        ok!(abi::doca_sync_event_start(ev));
        ev
    }

    /// A started event this DPA publishes and the host reads.
    pub(crate) fn comp_event(&self) -> *mut abi::doca_sync_event {
        let ev = new_event();
        ok!(abi::doca_sync_event_add_publisher_location_dpa(
            ev, self.dpa
        ));
        ok!(abi::doca_sync_event_add_subscriber_location_cpu(
            ev, self.dev
        ));
        ok!(abi::doca_sync_event_start(ev));
        ev
    }

    /// The DPA handle of an event this DPA is a location of.
    pub(crate) fn event_handle(&self, ev: *mut abi::doca_sync_event) -> u64 {
        let mut h = 0;
        ok!(abi::doca_sync_event_get_dpa_handle(ev, self.dpa, &mut h));
        h
    }

    /// Launches a parameterless kernel (update_set).
    pub(crate) fn launch(
        &self,
        comp: *mut abi::doca_sync_event,
        count: u64,
        threads: u32,
        func: Func,
    ) -> Code {
        ffi!(abi::doca_dpa_kernel_launch_update_set(
            self.dpa,
            null_mut(),
            0,
            comp,
            count,
            threads,
            f(func)
        ))
    }
}

// ------------------------------------------------------------- sync events

pub(crate) fn new_event() -> *mut abi::doca_sync_event {
    let mut ev = null_mut();
    ok!(abi::doca_sync_event_create(&mut ev));
    ev
}

/// Stops and destroys a started event.
pub(crate) fn drop_event(ev: *mut abi::doca_sync_event) {
    ok!(abi::doca_sync_event_stop(ev));
    ok!(abi::doca_sync_event_destroy(ev));
}

/// The value of a started event.
pub(crate) fn get(ev: *mut abi::doca_sync_event) -> u64 {
    let mut v = 0;
    ok!(abi::doca_sync_event_get(ev, &mut v));
    v
}

/// How long a test waits for something that should happen at once.
pub(crate) const PATIENCE: Duration = Duration::from_millis(1500);

/// Polls `cond` until it holds or `timeout` passes; returns whether it held.
pub(crate) fn poll(timeout: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// CPU time this process used so far.
pub(crate) fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct it is given.
    let usage = unsafe {
        let mut u = std::mem::zeroed::<libc::rusage>();
        assert_eq!(libc::getrusage(libc::RUSAGE_SELF, &mut u), 0);
        u
    };
    let t = |tv: libc::timeval| Duration::new(tv.tv_sec as u64, tv.tv_usec as u32 * 1000);
    t(usage.ru_utime) + t(usage.ru_stime)
}

/// How much CPU a test lets kernels use before it gives up on the watchdog
/// stopping one that is past a run-time limit of a few hundred ms.
pub(crate) const RUN_TIME_PATIENCE: Duration = Duration::from_secs(10);

/// Polls `cond` until it holds, or until this process has used `cpu` of CPU
/// time since the call; returns whether it held.
///
/// For what the sim's run-time limits promise: a limit counts a kernel's
/// time on its EU, which for a kernel that spins or yields is the CPU time
/// of the host thread that plays it (see `run_time` in
/// `src/dpa/launch.rs`), and a loaded host hands that out slowly. A patience
/// in wall time measures the host's load, and failed on a busy machine; this
/// one measures the kernels' progress. (A wall-clock guard of ten minutes
/// only keeps a kernel that never runs from hanging the test.)
pub(crate) fn poll_cpu(cpu: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let (start, guard) = (cpu_time(), Instant::now() + Duration::from_secs(600));
    loop {
        if cond() {
            return true;
        }
        if cpu_time() - start >= cpu || Instant::now() >= guard {
            return false;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Polls an event until it reaches `value` (panics after [`PATIENCE`]).
#[track_caller]
pub(crate) fn wait_value(ev: *mut abi::doca_sync_event, value: u64) {
    if !poll(PATIENCE, || get(ev) == value) {
        panic!(
            "event still {} after {PATIENCE:?}, expected {value}",
            get(ev)
        );
    }
}

/// Runs `f` on another thread and returns its result, or None when it did
/// not finish within `timeout` (the thread is then left behind).
pub(crate) fn with_timeout<T: Send + 'static>(
    timeout: Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(timeout).ok()
}

/// A raw pointer that may cross threads (the sim's objects are usable from
/// any thread, one at a time).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SendPtr<T>(pub(crate) *mut T);
// SAFETY: only used to hand an object to one other thread at a time.
unsafe impl<T> Send for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer (a method, so closures capture the whole wrapper).
    pub(crate) fn ptr(self) -> *mut T {
        self.0
    }
}

// ------------------------------------------------------------ verbs, RDMI

/// A verbs context on an open device.
pub(crate) fn verbs_ctx(dev: *mut abi::doca_dev) -> *mut abi::doca_verbs_context {
    let mut v = null_mut();
    ok!(abi::doca_verbs_context_create(devinfo(dev), 0, &mut v));
    v
}

pub(crate) fn pd(vctx: *mut abi::doca_verbs_context) -> *mut abi::doca_verbs_pd {
    let mut p = null_mut();
    ok!(abi::doca_verbs_pd_create(vctx, &mut p));
    p
}

/// A verbs CQ of `size` entries.
pub(crate) fn cq(vctx: *mut abi::doca_verbs_context, size: u32) -> *mut abi::doca_verbs_cq {
    let mut attr = null_mut();
    ok!(abi::doca_verbs_cq_attr_create(&mut attr));
    ok!(abi::doca_verbs_cq_attr_set_cq_size(attr, size));
    let mut c = null_mut();
    ok!(abi::doca_verbs_cq_create(vctx, attr, &mut c));
    ok!(abi::doca_verbs_cq_attr_destroy(attr));
    c
}

/// Opens the first network representor of an open device.
pub(crate) fn open_rep(dev: *mut abi::doca_dev) -> *mut abi::doca_dev_rep {
    let mut list = null_mut();
    let mut n = 0u32;
    ok!(abi::doca_devinfo_rep_create_list(
        dev,
        abi::DOCA_DEVINFO_REP_FILTER_NET as i32,
        &mut list,
        &mut n
    ));
    assert!(n > 0, "the device has no representor");
    let mut rep = null_mut();
    // SAFETY: the list has `n > 0` entries.
    ok!(abi::doca_dev_rep_open(unsafe { *list }, &mut rep));
    ok!(abi::doca_devinfo_rep_destroy_list(list));
    rep
}

pub(crate) fn poster(vctx: *mut abi::doca_verbs_context) -> *mut abi::doca_rdmi_poster {
    let mut p = null_mut();
    ok!(abi::doca_rdmi_poster_create(vctx, &mut p));
    p
}

pub(crate) fn poster_ctx(p: *mut abi::doca_rdmi_poster) -> *mut abi::doca_ctx {
    let c = ffi!(abi::doca_rdmi_poster_as_ctx(p));
    assert!(!c.is_null());
    c
}

pub(crate) fn connection(
    vctx: *mut abi::doca_verbs_context,
    rep: *mut abi::doca_dev_rep,
) -> *mut abi::doca_rdmi_connection {
    let mut c = null_mut();
    ok!(abi::doca_rdmi_connection_create(vctx, rep, &mut c));
    c
}

pub(crate) fn connection_ctx(c: *mut abi::doca_rdmi_connection) -> *mut abi::doca_ctx {
    let ctx = ffi!(doca_rdmi_connection_as_ctx(c));
    assert!(!ctx.is_null());
    ctx
}

/// The state of a DOCA context.
pub(crate) fn state(ctx: *mut abi::doca_ctx) -> abi::doca_ctx_states {
    let mut s = 99;
    ok!(abi::doca_ctx_get_state(ctx, &mut s));
    s
}

pub(crate) fn new_pe() -> *mut abi::doca_pe {
    let mut pe = null_mut();
    ok!(abi::doca_pe_create(&mut pe));
    pe
}

/// Runs the test `test` of this test binary again in a child process, with
/// `marker` set (the child test does its work only then), the sim's environment
/// configuration cleared and `vars` set: the environment is read once per
/// process, so each setting gets a process of its own. Its stdout and stderr;
/// the child must succeed.
#[allow(dead_code)]
pub(crate) fn run_child(
    test: &str,
    marker: &str,
    vars: &[(&str, &std::ffi::OsStr)],
) -> (String, String) {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(marker, "1")
        .env_remove("DOCA_SIM_PROFILE")
        .env_remove("DOCA_SIM_FAULTS")
        .env_remove("DOCA_SIM_MEMCHECK");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "{}\n{stdout}\n{stderr}", out.status);
    (stdout, stderr)
}
