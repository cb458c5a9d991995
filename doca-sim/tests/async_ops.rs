//! DPA async ops as kernels use them (`src/dpa/async_ops.rs`): each of the
//! four device-side asynchronous operations of DOCA 3.0 run by a DPA thread,
//! with its effect (the bytes copied, the thread activated once the event
//! allows) and the completion element it reports, and the bad uses that are
//! device faults (reports naming the call), never host crashes.

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::Mutex;
use std::time::Duration;

use common::*;
use doca_sim::{DeviceCode, FaultKind, FaultReport, QueueKind};

extern "C" {
    fn doca_dpa_dev_post_memcpy(
        ops: u64,
        dst_mmap: u32,
        dst_addr: u64,
        src_mmap: u32,
        src_addr: u64,
        length: usize,
        flags: u32,
    );
    fn doca_dpa_dev_post_buf_memcpy(ops: u64, dst_buf: u64, src_buf: u64, flags: u32);
    fn doca_dpa_dev_sync_event_post_wait_gt(ops: u64, event: u64, value: u64);
    fn doca_dpa_dev_sync_event_post_wait_ne(ops: u64, event: u64, value: u64);
}

/// `DOCA_DPA_DEV_SUBMIT_FLAG_FLUSH` / `_OPTIMIZE_REPORTS`.
const FLUSH: u32 = 1;
const OPTIMIZE_REPORTS: u32 = 2;

/// The async ops' user data: more than the 24 bits an element carries.
const USER_DATA: u64 = 0x7f12_3456_789a;
const ELEMENT_USER_DATA: u32 = 0x56_789a;

// What the thread does on its next activation, and what it saw.
static OP: AtomicU32 = AtomicU32::new(NONE);
static ARGS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
static OPS: AtomicU64 = AtomicU64::new(0);
static COMP: AtomicU64 = AtomicU64::new(0);
static RAN: AtomicU64 = AtomicU64::new(0);
static NOTIFY: AtomicU64 = AtomicU64::new(0);
static SEEN: Mutex<Vec<(u32, u32, u32)>> = Mutex::new(Vec::new());
/// The tests share the statics above: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

const NONE: u32 = 0;
const MEMCPY: u32 = 1;
const BUF_MEMCPY: u32 = 2;
const WAIT_GT: u32 = 3;
const WAIT_NE: u32 = 4;

fn arg(i: usize) -> u64 {
    ARGS[i].load(SeqCst)
}

/// The thread: posts the operation asked for (once), then reads and
/// acknowledges every element of its completion context, asks to be woken
/// by the next, and counts its activation.
unsafe extern "C" fn step(_: *const u64) -> u64 {
    let (ops, comp) = (OPS.load(SeqCst), COMP.load(SeqCst));
    // SAFETY: device API of the sim with the handles and ranges the test set
    // up (or, in the fault tests, deliberately bad ones, which end this run:
    // nothing here has a destructor pending at a device call).
    unsafe {
        match OP.swap(NONE, SeqCst) {
            MEMCPY => doca_dpa_dev_post_memcpy(
                ops,
                arg(0) as u32,
                arg(1),
                arg(2) as u32,
                arg(3),
                arg(4) as usize,
                arg(5) as u32,
            ),
            BUF_MEMCPY => doca_dpa_dev_post_buf_memcpy(ops, arg(0), arg(1), arg(2) as u32),
            WAIT_GT => doca_dpa_dev_sync_event_post_wait_gt(ops, arg(0), arg(1)),
            WAIT_NE => doca_dpa_dev_sync_event_post_wait_ne(ops, arg(0), arg(1)),
            _ => {}
        }
        let mut e = 0u64;
        while doca_dpa_dev_get_completion(comp, &mut e) != 0 {
            SEEN.lock().unwrap().push((
                doca_dpa_dev_get_completion_type(e),
                doca_dpa_dev_get_completion_user_data(e),
                doca_dpa_dev_get_completion_immediate(e),
            ));
            doca_dpa_dev_completion_ack(comp, 1);
        }
        doca_dpa_dev_completion_request_notification(comp);
    }
    RAN.fetch_add(1, SeqCst);
    0
}

/// A launched kernel that wakes the thread.
unsafe extern "C" fn kick(_: *const u64) -> u64 {
    // SAFETY: device API of the sim with the handle the host exported.
    unsafe { doca_dpa_dev_thread_notify(NOTIFY.load(SeqCst)) };
    0
}

/// A launched kernel that posts a copy itself (DOCA: for DPA threads only).
unsafe extern "C" fn post_from_kernel(_: *const u64) -> u64 {
    // SAFETY: device API of the sim; the call faults before using anything.
    unsafe { doca_dpa_dev_post_memcpy(OPS.load(SeqCst), 0, 0, 0, 0, 0, 0) };
    0
}

/// A started DPA context with a thread woken by notifications and by its
/// completion context, to which started async ops report.
struct Fixture {
    ctx: Ctx,
    kick: Func,
    from_kernel: Func,
    kicked: *mut abi::doca_sync_event,
    launches: u64,
    thread: *mut abi::doca_dpa_thread,
    comp: *mut abi::doca_dpa_completion,
    notify: *mut abi::doca_dpa_notification_completion,
    ops: *mut abi::doca_dpa_async_ops,
}

impl Fixture {
    /// With async ops of `queue_size` waits.
    fn new(queue_size: u32) -> Fixture {
        let (t, k, p) = (entry!(), entry!(), entry!());
        let ctx = Ctx::started(app(
            c"async_ops",
            vec![
                thread_fn(c"step", t, step),
                global(c"kick", k, kick),
                global(c"post_from_kernel", p, post_from_kernel),
            ],
        ));
        let mut thread = null_mut();
        ok!(abi::doca_dpa_thread_create(ctx.dpa, &mut thread));
        ok!(abi::doca_dpa_thread_set_func_arg(thread, f(t), 0));
        let mut comp = null_mut();
        ok!(abi::doca_dpa_completion_create(ctx.dpa, 16, &mut comp));
        ok!(abi::doca_dpa_completion_set_thread(comp, thread));
        let mut notify = null_mut();
        ok!(abi::doca_dpa_notification_completion_create(
            ctx.dpa,
            thread,
            &mut notify
        ));
        let mut ops = null_mut();
        ok!(abi::doca_dpa_async_ops_create(
            ctx.dpa, queue_size, USER_DATA, &mut ops
        ));
        ok!(abi::doca_dpa_async_ops_attach(ops, comp));
        ok!(abi::doca_dpa_thread_start(thread));
        ok!(abi::doca_dpa_completion_start(comp));
        ok!(abi::doca_dpa_notification_completion_start(notify));
        ok!(abi::doca_dpa_async_ops_start(ops));
        let (mut h_ops, mut h_comp, mut h_notify) = (0, 0, 0);
        ok!(abi::doca_dpa_async_ops_get_dpa_handle(ops, &mut h_ops));
        ok!(abi::doca_dpa_completion_get_dpa_handle(comp, &mut h_comp));
        ok!(abi::doca_dpa_notification_completion_get_dpa_handle(
            notify,
            &mut h_notify
        ));
        OPS.store(h_ops, SeqCst);
        COMP.store(h_comp, SeqCst);
        NOTIFY.store(h_notify, SeqCst);
        OP.store(NONE, SeqCst);
        RAN.store(0, SeqCst);
        SEEN.lock().unwrap().clear();
        ok!(abi::doca_dpa_thread_run(thread));
        let kicked = ctx.comp_event();
        Fixture {
            ctx,
            kick: k,
            from_kernel: p,
            kicked,
            launches: 0,
            thread,
            comp,
            notify,
            ops,
        }
    }

    /// Sets the thread's next operation and wakes it (with a launched kernel,
    /// which the thread's fault may end before it completes).
    fn post(&mut self, op: u32, args: &[u64]) {
        for (slot, value) in ARGS.iter().zip(args.iter().chain(std::iter::repeat(&0))) {
            slot.store(*value, SeqCst);
        }
        OP.store(op, SeqCst);
        self.launches += 1;
        ok!(self.ctx.launch(self.kicked, self.launches, 1, self.kick));
    }

    /// Posts `op` and waits until the thread has run it.
    fn run(&mut self, op: u32, args: &[u64]) {
        let before = RAN.load(SeqCst);
        self.post(op, args);
        wait_value(self.kicked, self.launches);
        assert!(
            poll(PATIENCE, || RAN.load(SeqCst) > before),
            "the thread did not run"
        );
        ok!(self.ctx.peek());
    }

    /// Posts `op`, expecting it to fault the context; the fault's report.
    fn run_faulting(&mut self, op: u32, args: &[u64]) -> FaultReport {
        self.post(op, args);
        self.ctx.awaited_fault()
    }

    /// Waits for the thread to have seen `n` elements in all; returns them.
    fn seen(&self, n: usize) -> Vec<(u32, u32, u32)> {
        assert!(
            poll(PATIENCE, || SEEN.lock().unwrap().len() >= n),
            "{n} elements expected, seen {:?}",
            SEEN.lock().unwrap()
        );
        SEEN.lock().unwrap().clone()
    }

    /// Destroys everything (async ops first, with waits possibly pending).
    fn teardown(self) {
        ok!(abi::doca_dpa_async_ops_destroy(self.ops));
        ok!(abi::doca_dpa_notification_completion_destroy(self.notify));
        ok!(abi::doca_dpa_completion_destroy(self.comp));
        ok!(abi::doca_dpa_thread_destroy(self.thread));
        drop_event(self.kicked);
        self.ctx.destroy();
    }
}

/// A started map of host memory and its DPA handle.
fn host_map(ctx: &Ctx, mem: &[AtomicU64]) -> (*mut abi::doca_mmap, u32) {
    let mut m = null_mut();
    ok!(abi::doca_mmap_create(&mut m));
    ok!(abi::doca_mmap_set_permissions(
        m,
        abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE
    ));
    ok!(abi::doca_mmap_set_memrange(
        m,
        mem.as_ptr().cast_mut().cast(),
        std::mem::size_of_val(mem)
    ));
    ok!(abi::doca_mmap_add_dev(m, ctx.dev));
    ok!(abi::doca_mmap_start(m));
    let mut h = 0;
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, ctx.dev, &mut h));
    (m, h)
}

/// `len` bytes of DPA memory in a started map: (address, map, handle).
fn dpa_map(ctx: &Ctx, len: usize) -> (u64, *mut abi::doca_mmap, u32) {
    let mut block = 0;
    ok!(abi::doca_dpa_mem_alloc(ctx.dpa, len, &mut block));
    let mut m = null_mut();
    ok!(abi::doca_mmap_create(&mut m));
    ok!(abi::doca_mmap_set_dpa_memrange(m, ctx.dpa, block, len));
    ok!(abi::doca_mmap_start(m));
    let mut h = 0;
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, ctx.dev, &mut h));
    (block, m, h)
}

fn words(values: &[u64]) -> Box<[AtomicU64]> {
    values.iter().map(|v| AtomicU64::new(*v)).collect()
}

fn at(word: &AtomicU64) -> u64 {
    word.as_ptr() as u64
}

/// `struct doca_dpa_dev_buf` of the sim's `doca_dpa_dev_buf.h`.
#[repr(C)]
struct DevBuf {
    addr: u64,
    len: u64,
    mmap: u32,
    reserved: u32,
}

#[test]
fn copies_move_bytes_between_host_and_dpa_memory_and_report_as_asked() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let mut fx = Fixture::new(4);
    let host = words(&[0x1111, 0x2222, 0x3333, 0x4444]);
    let back = words(&[0; 4]);
    let (hm, hh) = host_map(&fx.ctx, &host);
    let (bm, bh) = host_map(&fx.ctx, &back);
    let (block, dm, dh) = dpa_map(&fx.ctx, 32);

    // Host → DPA, then DPA → host: the bytes went through DPA memory.
    fx.run(MEMCPY, &[dh.into(), block, hh.into(), at(&host[0]), 32, 0]);
    let mut staged = [0u64; 4];
    ok!(abi::doca_dpa_d2h_memcpy(
        fx.ctx.dpa,
        staged.as_mut_ptr().cast(),
        block,
        32
    ));
    assert_eq!(staged, [0x1111, 0x2222, 0x3333, 0x4444]);
    fx.run(
        MEMCPY,
        &[
            bh.into(),
            at(&back[1]),
            dh.into(),
            block + 8,
            16,
            FLUSH.into(),
        ],
    );
    let got: Vec<u64> = back.iter().map(|w| w.load(SeqCst)).collect();
    assert_eq!(got, [0, 0x2222, 0x3333, 0]);
    // Each copy reported SEND with the user data's low 24 bits, numbered.
    assert_eq!(
        fx.seen(2),
        [
            (COMP_SEND, ELEMENT_USER_DATA, 0),
            (COMP_SEND, ELEMENT_USER_DATA, 1)
        ]
    );

    // The buffer form copies the source buffer's length; OPTIMIZE_REPORTS
    // reports nothing.
    let bufs = [
        DevBuf {
            addr: at(&host[3]),
            len: 8,
            mmap: hh,
            reserved: 0,
        },
        DevBuf {
            addr: at(&back[0]),
            len: 16,
            mmap: bh,
            reserved: 0,
        },
    ];
    let (src, dst) = (
        &bufs[0] as *const DevBuf as u64,
        &bufs[1] as *const DevBuf as u64,
    );
    fx.run(BUF_MEMCPY, &[dst, src, OPTIMIZE_REPORTS.into()]);
    assert_eq!(back[0].load(SeqCst), 0x4444);
    assert_eq!(
        back[3].load(SeqCst),
        0,
        "only the source's length is copied"
    );
    fx.run(BUF_MEMCPY, &[dst, src, 0]);
    assert_eq!(fx.seen(3)[2], (COMP_SEND, ELEMENT_USER_DATA, 3));

    for m in [hm, bm, dm] {
        ok!(abi::doca_mmap_destroy(m));
    }
    ok!(abi::doca_dpa_mem_free(fx.ctx.dpa, block));
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn posted_waits_activate_the_thread_once_the_event_allows() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let mut fx = Fixture::new(4);
    let ev = fx.ctx.wait_event();
    let h = fx.ctx.event_handle(ev);
    let settle = || std::thread::sleep(Duration::from_millis(50));

    // Greater than 5: 5 is not enough, 6 is.
    fx.run(WAIT_GT, &[h, 5]);
    ok!(abi::doca_sync_event_update_set(ev, 5));
    settle();
    assert!(
        SEEN.lock().unwrap().is_empty(),
        "reported before the event allowed it"
    );
    let ran = RAN.load(SeqCst);
    ok!(abi::doca_sync_event_update_set(ev, 6));
    assert_eq!(fx.seen(1), [(COMP_SEND, ELEMENT_USER_DATA, 0)]);
    assert!(RAN.load(SeqCst) > ran, "the element activated the thread");

    // Not equal to 6: adding 0 changes nothing, adding 1 does.
    fx.run(WAIT_NE, &[h, 6]);
    ok!(abi::doca_sync_event_update_add(ev, 0, &mut 0));
    settle();
    assert_eq!(SEEN.lock().unwrap().len(), 1);
    ok!(abi::doca_sync_event_update_add(ev, 1, &mut 0));
    assert_eq!(fx.seen(2)[1], (COMP_SEND, ELEMENT_USER_DATA, 1));

    // A wait the event already satisfies is reported at once.
    fx.run(WAIT_NE, &[h, 0]);
    assert_eq!(fx.seen(3)[2], (COMP_SEND, ELEMENT_USER_DATA, 2));

    // A wait still pending when the async ops go is dropped, unreported.
    fx.run(WAIT_GT, &[h, 200]);
    ok!(abi::doca_dpa_async_ops_stop(fx.ops));
    ok!(abi::doca_sync_event_update_set(ev, 201));
    settle();
    assert_eq!(SEEN.lock().unwrap().len(), 3);
    ok!(fx.ctx.peek());

    drop_event(ev);
    fx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn bad_posts_are_device_faults() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let scope = Scope::new();
    let mem = words(&[1, 2, 3, 4]);
    let cases: &[(&str, FaultKind)] = &[
        (
            "is not a live DPA async ops context",
            FaultKind::InvalidDeviceCall,
        ),
        ("for DPA threads only", FaultKind::InvalidDeviceCall),
        (
            "the async ops are not started",
            FaultKind::InvalidDeviceCall,
        ),
        ("is outside the memory map", FaultKind::InvalidDeviceCall),
        (
            "mmap handle 4294967295 is not live",
            FaultKind::InvalidDeviceCall,
        ),
        ("overlap", FaultKind::InvalidDeviceCall),
        ("unknown flags 0x4", FaultKind::InvalidDeviceCall),
        ("is shorter than the source", FaultKind::InvalidDeviceCall),
        ("must be at most 254", FaultKind::InvalidDeviceCall),
        ("is not a live exported event", FaultKind::InvalidDeviceCall),
        (
            "async ops queue overrun",
            FaultKind::QueueOverrun(QueueKind::AsyncOps),
        ),
    ];
    for (i, (needle, kind)) in cases.iter().enumerate() {
        let mut fx = Fixture::new(1);
        let (m, h) = host_map(&fx.ctx, &mem);
        let ev = fx.ctx.wait_event();
        let eh = fx.ctx.event_handle(ev);
        let (w0, w2) = (at(&mem[0]), at(&mem[2]));
        let hh = u64::from(h);
        let bufs = [
            DevBuf {
                addr: w0,
                len: 16,
                mmap: h,
                reserved: 0,
            },
            DevBuf {
                addr: w2,
                len: 8,
                mmap: h,
                reserved: 0,
            },
        ];
        let report = match i {
            0 => {
                OPS.store(0xD0CA_7FFF_FFFF_FFF1, SeqCst);
                fx.run_faulting(MEMCPY, &[hh, w2, hh, w0, 8, 0])
            }
            1 => {
                ok!(fx.ctx.launch(fx.kicked, 1, 1, fx.from_kernel));
                fx.ctx.awaited_fault()
            }
            2 => {
                ok!(abi::doca_dpa_async_ops_stop(fx.ops));
                fx.run_faulting(MEMCPY, &[hh, w2, hh, w0, 8, 0])
            }
            3 => fx.run_faulting(MEMCPY, &[hh, w2, hh, w0, 24, 0]),
            4 => fx.run_faulting(MEMCPY, &[u64::from(u32::MAX), w2, hh, w0, 8, 0]),
            5 => fx.run_faulting(MEMCPY, &[hh, w0 + 8, hh, w0, 16, 0]),
            6 => fx.run_faulting(MEMCPY, &[hh, w2, hh, w0, 8, 4]),
            7 => {
                let (src, dst) = (
                    &bufs[0] as *const DevBuf as u64,
                    &bufs[1] as *const DevBuf as u64,
                );
                fx.run_faulting(BUF_MEMCPY, &[dst, src, 0])
            }
            8 => fx.run_faulting(WAIT_GT, &[eh, 255]),
            9 => fx.run_faulting(WAIT_NE, &[0xD0CA_7FFF_FFFF_FFF2, 1]),
            _ => {
                fx.run(WAIT_GT, &[eh, 1]);
                fx.run_faulting(WAIT_GT, &[eh, 1])
            }
        };
        assert_eq!(report.kind, *kind, "{needle}: {report:?}");
        assert!(report.reason.contains(needle), "{needle}: {report:?}");
        let code = if i == 1 {
            DeviceCode::Kernel
        } else {
            DeviceCode::Thread
        };
        assert_eq!(report.code, Some(code), "{needle}: {report:?}");
        assert_eq!(
            mem.iter().map(|w| w.load(SeqCst)).collect::<Vec<_>>(),
            [1, 2, 3, 4],
            "{needle}: a refused copy wrote nothing"
        );
        ok!(abi::doca_mmap_destroy(m));
        drop_event(ev);
        fx.teardown();
    }
    assert_no_leaks(&scope);
}
