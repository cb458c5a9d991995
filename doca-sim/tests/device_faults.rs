//! The sim as a DPA memory checker: a kernel's bad access, abort, explicit
//! fault or overrun is a device fault (the context turns fatal, with a
//! report naming the kernel and the fault), never a host crash.
//!
//! Each case runs in a child process (this test binary again, told which
//! case by `DOCA_SIM_FAULT_CASE`), twice in a row: if the sim let a fault
//! reach the host, the child dies of a signal and is counted as a host
//! crash instead of failing the whole run; if it left the host unable to go
//! on (a lock of the C library held for good), the child runs past
//! [`CASE_TIME_LIMIT`], is killed and counted as a hung host. In the child the case checks the
//! fatal context and its report, then that a fresh context works and that
//! nothing leaked.
//!
//! The kernels are C (`tests/kernels/device_faults.c`), built by doca-sim's
//! build script into an archive this test links.

mod common;

use std::ffi::c_void;
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use common::*;
use doca_sim::{DeviceCode, FaultKind, FaultReport};

#[link(name = "doca_sim_test_kernels", kind = "static")]
extern "C" {
    /// The application table of the kernels.
    fn device_faults_app() -> *const c_void;
    // The kernels, declared for their addresses only (never called from Rust).
    fn fill();
    fn meet();
    fn write_past_end();
    fn read_after_free();
    fn read_through();
    fn call_abort();
    fn failed_assert();
    fn explicit_fault();
    fn thread_past_end();
    fn notify();
    fn spin_forever();
    fn recurse();
    fn saxpy();
    fn spin_printf();
    fn spin_malloc();
    fn spin_log();
    fn block_in_read();
}

const CASES: &[&str] = &[
    "write_past_end",
    "read_after_free",
    "null_deref",
    "wild_pointer",
    "abort",
    "failed_assert",
    "explicit_fault",
    "dpa_thread",
    "stack_overflow",
    "watchdog",
    "saxpy_16",
    "saxpy_4096",
    "saxpy_64m",
    "kill_in_printf",
    "kill_in_malloc",
    "kill_in_log",
    "kill_while_blocked",
];

/// How long one child may take for its case (twice) before it counts as
/// a hung host.
const CASE_TIME_LIMIT: Duration = Duration::from_secs(120);

const CASE_ENV: &str = "DOCA_SIM_FAULT_CASE";
const REPORTED: &str = "device-fault-case-reported:";

#[test]
fn device_faults() {
    if std::env::var_os(CASE_ENV).is_some() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let (mut reported, mut crashes, mut hangs) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in CASES {
        let Some(out) = run_child(&exe, case) else {
            hangs += 1;
            failures.push(format!(
                "{case}: the host hung (killed after {CASE_TIME_LIMIT:?})"
            ));
            continue;
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if let Some(signal) = out.status.signal() {
            crashes += 1;
            failures.push(format!(
                "{case}: host crash (signal {signal})\n{stdout}\n{stderr}"
            ));
        } else if out.status.success() && stdout.contains(&format!("{REPORTED} {case}\n")) {
            reported += 1;
        } else {
            failures.push(format!("{case}: {}\n{stdout}\n{stderr}", out.status));
        }
    }
    // Straight to stderr (not the captured `println!`), so CI logs show it.
    let _ = writeln!(
        std::io::stderr(),
        "device faults: {} cases, {reported} reported, {crashes} host crashes, {hangs} hung hosts",
        CASES.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert_eq!(reported, CASES.len());
    assert_eq!((crashes, hangs), (0, 0));
}

/// Runs `case` in a child; `None` if it was still running after
/// [`CASE_TIME_LIMIT`] (it is killed). Its output goes to files, so a child
/// that prints a lot cannot block on a full pipe.
fn run_child(exe: &std::path::Path, case: &str) -> Option<std::process::Output> {
    let dir = std::env::temp_dir().join(format!("doca-sim-fault-{}-{case}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (out_path, err_path) = (dir.join("stdout"), dir.join("stderr"));
    let mut child = Command::new(exe)
        .args([
            "--exact",
            "device_fault_case",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CASE_ENV, case)
        // The cases are about the checker: on, whatever the caller set.
        .env("DOCA_SIM_MEMCHECK", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + CASE_TIME_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = status.map(|status| std::process::Output {
        status,
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: std::fs::read(&err_path).unwrap_or_default(),
    });
    let _ = std::fs::remove_dir_all(&dir);
    output
}

/// One case, in a child process started by [`device_faults`].
#[test]
fn device_fault_case() {
    let Ok(case) = std::env::var(CASE_ENV) else {
        return;
    };
    let mut last = None;
    for round in 0..2 {
        let scope = Scope::new();
        let report = run_case(&scope, &case);
        assert!(
            report.function.is_some(),
            "round {round}: the report names no function: {report}"
        );
        let text = report.to_string();
        assert!(text.contains(report.function.as_deref().unwrap()), "{text}");
        fresh_context_works();
        assert_no_leaks(&scope);
        last = Some(report);
    }
    println!("{}", last.unwrap());
    println!("{REPORTED} {case}");
}

fn run_case(scope: &Scope, case: &str) -> FaultReport {
    match case {
        "write_past_end" => {
            let (ctx, comp) = started();
            // 16384 bytes: 2048 elements; the kernel writes element 2048.
            let buf = alloc(ctx.dpa, 16384);
            ok!(launch(&ctx, comp, 1, write_past_end, &[buf, 2048]));
            let r = fatal(ctx, comp, "write_past_end");
            expect(&r, FaultKind::BadAccess, DeviceCode::Kernel);
            assert_eq!(r.access, Some(doca_sim::Access::Write));
            assert_eq!(r.address, Some(buf + 16384));
            assert_eq!(
                r.allocation.as_deref(),
                Some("0 bytes past the end of a 16384-byte allocation made by doca_dpa_mem_alloc")
            );
            r
        }
        "read_after_free" => {
            let (ctx, comp) = started();
            let block = alloc(ctx.dpa, 64);
            let go = alloc(ctx.dpa, 8);
            let out = alloc(ctx.dpa, 8);
            ok!(abi::doca_dpa_memset(ctx.dpa, go, 0, 8));
            ok!(launch(&ctx, comp, 1, read_after_free, &[block, go, out]));
            std::thread::sleep(Duration::from_millis(20));
            // The host frees the block while the kernel still uses it.
            ok!(abi::doca_dpa_mem_free(ctx.dpa, block));
            ok!(abi::doca_dpa_memset(ctx.dpa, go, 1, 8));
            let r = fatal(ctx, comp, "read_after_free");
            expect(&r, FaultKind::UseAfterFree, DeviceCode::Kernel);
            assert_eq!(r.access, Some(doca_sim::Access::Read));
            assert_eq!(
                r.allocation.as_deref(),
                Some(
                    "0 bytes into a 64-byte allocation made by doca_dpa_mem_alloc and freed by \
                     doca_dpa_mem_free"
                )
            );
            r
        }
        "null_deref" => {
            let (ctx, comp) = started();
            let out = alloc(ctx.dpa, 8);
            // A field of a struct reached through a NULL pointer.
            ok!(launch(&ctx, comp, 1, read_through, &[0x10, out]));
            let r = fatal(ctx, comp, "read_through");
            expect(&r, FaultKind::NullDeref, DeviceCode::Kernel);
            assert_eq!(r.address, Some(0x10));
            assert!(r.reason.contains("NULL pointer"), "{r}");
            r
        }
        "wild_pointer" => {
            let (ctx, comp) = started();
            let out = alloc(ctx.dpa, 8);
            let wild = 0x1000_1234_5678u64;
            ok!(launch(&ctx, comp, 1, read_through, &[wild, out]));
            let r = fatal(ctx, comp, "read_through");
            expect(&r, FaultKind::BadAccess, DeviceCode::Kernel);
            assert_eq!(r.address, Some(wild));
            assert_eq!(r.allocation, None);
            assert!(r.reason.contains("wild pointer"), "{r}");
            r
        }
        "abort" => {
            let (ctx, comp) = started();
            ok!(launch(&ctx, comp, 2, call_abort, &[]));
            let r = fatal(ctx, comp, "call_abort");
            expect(&r, FaultKind::Abort, DeviceCode::Kernel);
            assert_eq!(r.signal, Some(libc::SIGABRT));
            r
        }
        "failed_assert" => {
            let (ctx, comp) = started();
            ok!(launch(&ctx, comp, 1, failed_assert, &[7]));
            let r = fatal(ctx, comp, "failed_assert");
            expect(&r, FaultKind::Abort, DeviceCode::Kernel);
            r
        }
        "explicit_fault" => {
            let (ctx, comp) = started();
            ok!(launch(&ctx, comp, 1, explicit_fault, &[]));
            let r = fatal(ctx, comp, "explicit_fault");
            expect(&r, FaultKind::ExplicitFault, DeviceCode::Kernel);
            assert_eq!(r.reason, "the kernel gave up: checksum mismatch");
            assert!(r.to_string().contains("checksum mismatch"));
            r
        }
        "dpa_thread" => dpa_thread_case(),
        "stack_overflow" => {
            let (ctx, comp) = started();
            ok!(launch(&ctx, comp, 1, recurse, &[0]));
            let r = fatal(ctx, comp, "recurse");
            expect(&r, FaultKind::StackOverflow, DeviceCode::Kernel);
            r
        }
        "watchdog" => watchdog_case(scope),
        "saxpy_16" => saxpy_case(16),
        "saxpy_4096" => saxpy_case(4096),
        "saxpy_64m" => saxpy_case(64 << 20),
        "kill_in_printf" => kill_in_libc_case(scope, spin_printf, "spin_printf"),
        "kill_in_malloc" => kill_in_libc_case(scope, spin_malloc, "spin_malloc"),
        "kill_in_log" => kill_in_libc_case(scope, spin_log, "spin_log"),
        "kill_while_blocked" => kill_while_blocked_case(scope),
        other => panic!("unknown case {other}"),
    }
}

#[track_caller]
fn expect(r: &FaultReport, kind: FaultKind, code: DeviceCode) {
    assert_eq!(r.kind, kind, "{r}");
    assert_eq!(r.code, Some(code), "{r}");
    assert!(r.rank.is_some() && r.num_threads.is_some(), "{r}");
}

// ------------------------------------------------------------- fixtures

fn app() -> *mut abi::doca_dpa_app {
    // SAFETY: returns the address of a static table.
    unsafe { device_faults_app() }.cast_mut().cast()
}

fn started() -> (Ctx, *mut abi::doca_sync_event) {
    let ctx = Ctx::started(app());
    let comp = ctx.comp_event();
    (ctx, comp)
}

fn alloc(dpa: *mut abi::doca_dpa, size: usize) -> u64 {
    let mut p = 0;
    ok!(abi::doca_dpa_mem_alloc(dpa, size, &mut p));
    p
}

/// Launches `kernel` (whose parameters are all `uint64_t`) on `threads`
/// threads; the completion event is set to 1 when it ends.
fn launch(
    ctx: &Ctx,
    comp: *mut abi::doca_sync_event,
    threads: u32,
    kernel: Func,
    args: &[u64],
) -> Code {
    let d = ctx.dpa;
    let k = f(kernel);
    match *args {
        [] => ffi!(abi::doca_dpa_kernel_launch_update_set(
            d,
            null_mut(),
            0,
            comp,
            1,
            threads,
            k
        )),
        [a] => ffi!(abi::doca_dpa_kernel_launch_update_set(
            d,
            null_mut(),
            0,
            comp,
            1,
            threads,
            k,
            a
        )),
        [a, b] => ffi!(abi::doca_dpa_kernel_launch_update_set(
            d,
            null_mut(),
            0,
            comp,
            1,
            threads,
            k,
            a,
            b
        )),
        [a, b, c] => ffi!(abi::doca_dpa_kernel_launch_update_set(
            d,
            null_mut(),
            0,
            comp,
            1,
            threads,
            k,
            a,
            b,
            c
        )),
        _ => unreachable!("at most three parameters"),
    }
}

/// Waits for the context to turn fatal, checks what a fatal context does,
/// takes its report (which must name `function`) and tears everything down.
#[track_caller]
fn fatal(ctx: Ctx, comp: *mut abi::doca_sync_event, function: &str) -> FaultReport {
    assert!(
        poll_cpu(RUN_TIME_PATIENCE, || ctx.peek() == BAD_STATE),
        "the context never turned fatal"
    );
    let report = doca_sim::fault_report(ctx.dpa).expect("a fatal context has a report");
    assert_eq!(report.function.as_deref(), Some(function), "{report}");
    // The launch never completes, and the context refuses device work.
    assert_eq!(get(comp), 0, "a faulted launch must not complete");
    let mut p = 0;
    fails!(BAD_STATE, abi::doca_dpa_mem_alloc(ctx.dpa, 64, &mut p));
    fails!(BAD_STATE, launch(&ctx, comp, 1, fill, &[0, 0]));
    fails!(BAD_STATE, ctx.peek());
    drop_event(comp);
    ctx.teardown();
    report
}

/// A new context on the same device runs a kernel correctly.
fn fresh_context_works() {
    let (ctx, comp) = started();
    const N: usize = 64;
    let buf = alloc(ctx.dpa, N * 8);
    ok!(launch(&ctx, comp, 4, fill, &[buf, N as u64]));
    wait_value(comp, 1);
    let mut out = [0u64; N];
    ok!(abi::doca_dpa_d2h_memcpy(
        ctx.dpa,
        out.as_mut_ptr().cast(),
        buf,
        N * 8
    ));
    assert!(out.iter().enumerate().all(|(i, v)| *v == i as u64));
    ok!(ctx.peek());
    assert!(doca_sim::fault_report(ctx.dpa).is_none());
    ok!(abi::doca_dpa_mem_free(ctx.dpa, buf));
    drop_event(comp);
    ctx.teardown();
}

// ---------------------------------------------------------- other cases

fn dpa_thread_case() -> FaultReport {
    let (ctx, comp) = started();
    let buf = alloc(ctx.dpa, 64);
    let mut thread = null_mut();
    ok!(abi::doca_dpa_thread_create(ctx.dpa, &mut thread));
    ok!(abi::doca_dpa_thread_set_func_arg(
        thread,
        f(thread_past_end),
        buf
    ));
    ok!(abi::doca_dpa_thread_start(thread));
    let mut notification = null_mut();
    ok!(abi::doca_dpa_notification_completion_create(
        ctx.dpa,
        thread,
        &mut notification
    ));
    ok!(abi::doca_dpa_notification_completion_start(notification));
    let mut handle = 0;
    ok!(abi::doca_dpa_notification_completion_get_dpa_handle(
        notification,
        &mut handle
    ));
    ok!(abi::doca_dpa_thread_run(thread));
    ok!(launch(&ctx, comp, 1, notify, &[handle]));
    assert!(poll(Duration::from_secs(5), || ctx.peek() == BAD_STATE));
    let r = doca_sim::fault_report(ctx.dpa).unwrap();
    assert_eq!(r.function.as_deref(), Some("thread_past_end"), "{r}");
    expect(&r, FaultKind::BadAccess, DeviceCode::Thread);
    assert_eq!(
        r.allocation.as_deref(),
        Some("0 bytes past the end of a 64-byte allocation made by doca_dpa_mem_alloc")
    );
    assert!(r
        .to_string()
        .contains("DPA thread function `thread_past_end`"));
    ok!(abi::doca_dpa_notification_completion_stop(notification));
    ok!(abi::doca_dpa_notification_completion_destroy(notification));
    ok!(abi::doca_dpa_thread_stop(thread));
    ok!(abi::doca_dpa_thread_destroy(thread));
    drop_event(comp);
    ctx.teardown();
    r
}

fn saxpy_case(n: u64) -> FaultReport {
    let (ctx, comp) = started();
    // Two 16-element buffers; the kernel is told n and overruns them.
    let x = alloc(ctx.dpa, 16 * 4);
    let y = alloc(ctx.dpa, 16 * 4);
    ok!(launch(&ctx, comp, 16, saxpy, &[n, x, y]));
    let r = fatal(ctx, comp, "saxpy");
    expect(&r, FaultKind::BadAccess, DeviceCode::Kernel);
    let allocation = r.allocation.as_deref().unwrap_or_default();
    assert!(
        allocation
            .contains("bytes past the end of a 64-byte allocation made by doca_dpa_mem_alloc"),
        "{r}"
    );
    r
}

/// Threads of this process, from /proc.
fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

/// Names of this process's threads (for failure messages).
fn thread_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("comm")).ok())
        .map(|n| n.trim().to_owned())
        .collect();
    names.sort();
    names
}

/// Threads of the sim's EU pool that are runnable (running, or waiting for a
/// CPU) rather than parked or blocked: an idle pool has none, a kernel that
/// still spins (or is being stepped out of the C library) keeps its thread
/// runnable however little CPU a loaded host gives it.
fn runnable_eu_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|e| std::fs::read_to_string(e.ok()?.path().join("stat")).ok())
        .filter(|stat| {
            // "tid (comm) state ...": the name may hold spaces and parentheses.
            let (head, tail) = stat.rsplit_once(')').unwrap_or_default();
            head.ends_with("(doca-sim-eu") && tail.trim_start().starts_with('R')
        })
        .count()
}

static SPINS: AtomicU64 = AtomicU64::new(0);

/// Four kernels spinning in pure C (no device call to notice anything) on
/// a machine that may have two cores: the watchdog must stop them promptly,
/// leave no host thread running them, and report the limit in force.
fn watchdog_case(scope: &Scope) -> FaultReport {
    const LIMIT: Duration = Duration::from_millis(300);
    scope.set_profile(bf3_profile(|d| {
        d.kernel_max_run_time_ms = LIMIT.as_millis() as u64
    }));
    // The baseline: the pool holds the four EU threads a launch of four
    // instances that wait for each other needs.
    let (ctx, comp) = started();
    static MET: AtomicU64 = AtomicU64::new(0);
    MET.store(0, SeqCst);
    ok!(launch(&ctx, comp, 4, meet, &[MET.as_ptr() as u64]));
    wait_value(comp, 1);
    drop_event(comp);
    ctx.teardown();
    let baseline = threads();

    let (ctx, comp) = started();
    assert_eq!(doca_sim::max_run_time(ctx.dpa), Some(LIMIT));
    let mut seconds = 0;
    ok!(abi::doca_dpa_get_kernel_max_run_time(ctx.dpa, &mut seconds));
    assert_eq!(seconds, 1, "DOCA reports whole seconds, rounded up");
    SPINS.store(0, SeqCst);
    let (start, cpu) = (Instant::now(), cpu_time());
    let counter = SPINS.as_ptr() as u64;
    ok!(launch(&ctx, comp, 4, spin_forever, &[counter]));
    assert!(
        poll_cpu(RUN_TIME_PATIENCE, || ctx.peek() == BAD_STATE),
        "the watchdog never fired"
    );
    let (fired, used) = (start.elapsed(), cpu_time() - cpu);
    println!("watchdog: limit {LIMIT:?}, context fatal after {fired:?} ({used:?} of CPU)");
    assert!(fired >= LIMIT, "fired after {fired:?}, before the limit");
    // The limit counts time on the EU, not time the four spinning threads
    // wait for the host's cores: a loaded host stretches it in wall time,
    // not in the CPU the kernels get (the first to run for the limit is
    // stopped, so the four used about four limits' worth).
    assert!(
        used < 4 * LIMIT + Duration::from_secs(2),
        "the watchdog fired after the kernels used {used:?} of CPU, for a {LIMIT:?} limit"
    );
    assert!(SPINS.load(SeqCst) > 0, "the kernels ran");
    // No host thread runs the kernels any more: the counter stops, the
    // process goes idle, and the EU threads are back in the pool.
    assert!(poll(PATIENCE, || {
        let before = SPINS.load(SeqCst);
        std::thread::sleep(Duration::from_millis(50));
        SPINS.load(SeqCst) == before
    }));
    let (cpu, wall) = (cpu_time(), Instant::now());
    std::thread::sleep(Duration::from_millis(300));
    let busy = cpu_time() - cpu;
    assert!(
        busy < wall.elapsed() / 5,
        "the process used {busy:?} of CPU in {:?} after the kill",
        wall.elapsed()
    );
    assert!(
        poll(PATIENCE, || threads() == baseline),
        "{} threads after the kill, {baseline} before: {:?}",
        threads(),
        thread_names()
    );
    let r = fatal(ctx, comp, "spin_forever");
    expect(&r, FaultKind::Watchdog, DeviceCode::Kernel);
    assert!(
        r.reason.starts_with("watchdog: ran longer than 300 ms"),
        "{r}"
    );
    // A new 4-thread launch finds its EU threads idle in the pool.
    fresh_context_works();
    assert_eq!(threads(), baseline, "the killed EU threads were not reused");
    r
}

/// The run-time limit of the kill-path cases.
const SHORT_LIMIT: u64 = 100;

/// Two instances of `kernel` spin inside the C library (printf, malloc, the
/// DPA log call) past the limit. The watchdog must stop them without a
/// jump out of the library, so that the host can still print and allocate
/// afterwards (a lock left held would hang this child: the parent kills it
/// and counts a hung host), and every run must end at last.
fn kill_in_libc_case(scope: &Scope, kernel: Func, name: &str) -> FaultReport {
    static SPUN: AtomicU64 = AtomicU64::new(0);
    scope.set_profile(bf3_profile(|d| d.kernel_max_run_time_ms = SHORT_LIMIT));
    let (ctx, comp) = started();
    SPUN.store(0, SeqCst);
    ok!(launch(&ctx, comp, 2, kernel, &[SPUN.as_ptr() as u64]));
    let r = fatal(ctx, comp, name);
    expect(&r, FaultKind::Watchdog, DeviceCode::Kernel);
    assert!(SPUN.load(SeqCst) > 0, "the kernels ran");
    // Each run is stopped as it leaves the library (on x86-64 a request
    // that lands inside it single-steps the thread out; elsewhere requests
    // go on until one lands in the kernel's own code). A run ended when its
    // EU thread is idle: a stepped kernel counts slowly, so a counter that
    // stands still proves nothing, and the time a loaded host takes to step
    // it out is no measure of anything either.
    assert!(
        poll(Duration::from_secs(30), || {
            let before = SPUN.load(SeqCst);
            std::thread::sleep(Duration::from_millis(50));
            SPUN.load(SeqCst) == before
                && doca_sim::abandoned_eu_threads().0 == 0
                && runnable_eu_threads() == 0
        }),
        "the kernels still run: {:?} abandoned, {} EU threads runnable",
        doca_sim::abandoned_eu_threads(),
        runnable_eu_threads()
    );
    host_still_works();
    r
}

/// A kernel blocked in read(2) past the limit cannot be stopped at a safe
/// point: the watchdog abandons its thread (counted), the pool replaces it,
/// the host carries on, and once the read returns the thread is back.
fn kill_while_blocked_case(scope: &Scope) -> FaultReport {
    scope.set_profile(bf3_profile(|d| d.kernel_max_run_time_ms = SHORT_LIMIT));
    let mut fds = [0; 2];
    // SAFETY: pipe fills the two descriptors it is given.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    let (_, ever) = doca_sim::abandoned_eu_threads();
    let (ctx, comp) = started();
    ok!(launch(&ctx, comp, 1, block_in_read, &[fds[0] as u64]));
    let r = fatal(ctx, comp, "block_in_read");
    expect(&r, FaultKind::Watchdog, DeviceCode::Kernel);
    assert!(
        poll(Duration::from_secs(10), || doca_sim::abandoned_eu_threads()
            == (1, ever + 1)),
        "the blocked run was not abandoned: {:?}",
        doca_sim::abandoned_eu_threads()
    );
    // The pool gives new launches other threads.
    fresh_context_works();
    host_still_works();
    // SAFETY: writes one byte from a local to the pipe's write end.
    assert_eq!(unsafe { libc::write(fds[1], b"x".as_ptr().cast(), 1) }, 1);
    assert!(
        poll(Duration::from_secs(10), || doca_sim::abandoned_eu_threads()
            .0
            == 0),
        "the abandoned thread did not come back once its read returned"
    );
    assert_eq!(doca_sim::abandoned_eu_threads().1, ever + 1);
    for fd in fds {
        // SAFETY: closes descriptors this function opened.
        unsafe { libc::close(fd) };
    }
    r
}

/// The host prints through the C library's stdout and allocates (sizes
/// that take malloc's arena locks) on this thread and on new ones.
fn host_still_works() {
    // SAFETY: a format with no conversions, then a flush of every stream.
    unsafe {
        libc::printf(c"host: printf works after the kill\n".as_ptr());
        libc::fflush(null_mut());
    }
    let allocate = || {
        for i in 0..256usize {
            let v = vec![i as u8; 2048 + (i % 16) * 2048];
            std::hint::black_box(&v);
        }
    };
    allocate();
    let threads: Vec<_> = (0..4).map(|_| std::thread::spawn(allocate)).collect();
    for t in threads {
        t.join().unwrap();
    }
    println!("host: allocations work after the kill");
}
