//! DPA heap memory: allocation limits, bounds checks of copies and memset,
//! frees, data round trips, kernels reading heap addresses, and mmaps of DPA
//! memory (`doca_mmap_set_dpa_memrange`).

mod common;

use std::ptr::null_mut;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};

use common::*;

fn alloc(dpa: *mut abi::doca_dpa, size: usize) -> u64 {
    let mut p = 0;
    ok!(abi::doca_dpa_mem_alloc(dpa, size, &mut p));
    assert_ne!(p, 0);
    p
}

#[test]
fn allocation_limits() {
    let scope = Scope::new();
    scope.set_profile(bf3_profile(|d| d.heap_bytes = 4096));
    let ctx = Ctx::started(noop_app());
    let mut p = 0xdead;
    // Model choice: a zero size is INVALID_VALUE; the pointer is 0 on failure.
    fails!(INVALID_VALUE, abi::doca_dpa_mem_alloc(ctx.dpa, 0, &mut p));
    assert_eq!(p, 0);
    p = 0xdead;
    fails!(NO_MEMORY, abi::doca_dpa_mem_alloc(ctx.dpa, 4097, &mut p));
    assert_eq!(p, 0);
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_mem_alloc(ctx.dpa, 8, null_mut())
    );
    let a = alloc(ctx.dpa, 3000);
    fails!(NO_MEMORY, abi::doca_dpa_mem_alloc(ctx.dpa, 1097, &mut p));
    let b = alloc(ctx.dpa, 1096);
    assert_eq!(a % 64, 0, "cache-line aligned");
    assert_eq!(b % 64, 0);
    assert_eq!(scope.live_objects().get("dpa_heap_block"), Some(&2));
    // Freeing makes room again.
    ok!(abi::doca_dpa_mem_free(ctx.dpa, a));
    let c = alloc(ctx.dpa, 3000);
    ok!(abi::doca_dpa_mem_free(ctx.dpa, b));
    ok!(abi::doca_dpa_mem_free(ctx.dpa, c));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn frees_need_the_start_of_a_live_block() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let a = alloc(ctx.dpa, 256);
    fails!(INVALID_VALUE, abi::doca_dpa_mem_free(ctx.dpa, a + 8));
    fails!(INVALID_VALUE, abi::doca_dpa_mem_free(ctx.dpa, 0));
    ok!(abi::doca_dpa_mem_free(ctx.dpa, a));
    fails!(INVALID_VALUE, abi::doca_dpa_mem_free(ctx.dpa, a));
    // A block of another context is not this context's.
    let other = Ctx::started(noop_app());
    let b = alloc(other.dpa, 64);
    fails!(INVALID_VALUE, abi::doca_dpa_mem_free(ctx.dpa, b));
    ok!(abi::doca_dpa_mem_free(other.dpa, b));
    other.teardown();
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn copies_round_trip_and_stay_in_bounds() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let dpa = ctx.dpa;
    let a = alloc(dpa, 100);
    // Model choice: fresh blocks hold 0xCD, not zeros.
    let mut fresh = [0u8; 100];
    ok!(abi::doca_dpa_d2h_memcpy(
        dpa,
        fresh.as_mut_ptr().cast(),
        a,
        100
    ));
    assert!(fresh.iter().all(|b| *b == 0xCD));

    let mut data: Vec<u8> = (0..100u8).collect();
    ok!(abi::doca_dpa_h2d_memcpy(
        dpa,
        a,
        data.as_mut_ptr().cast(),
        100
    ));
    let mut back = [0u8; 100];
    ok!(abi::doca_dpa_d2h_memcpy(
        dpa,
        back.as_mut_ptr().cast(),
        a,
        100
    ));
    assert_eq!(&back[..], &data[..]);
    // Interior ranges are fine.
    ok!(abi::doca_dpa_memset(dpa, a + 10, 0x5a, 20));
    ok!(abi::doca_dpa_d2h_memcpy(
        dpa,
        back.as_mut_ptr().cast(),
        a + 5,
        30
    ));
    assert_eq!(&back[..5], &data[5..10]);
    assert!(back[5..25].iter().all(|b| *b == 0x5a));
    assert_eq!(&back[25..30], &data[30..35]);

    // One byte past the end, before the start, or in no block: INVALID_VALUE.
    let buf = back.as_mut_ptr().cast();
    fails!(INVALID_VALUE, abi::doca_dpa_h2d_memcpy(dpa, a, buf, 101));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_h2d_memcpy(dpa, a + 1, buf, 100)
    );
    fails!(INVALID_VALUE, abi::doca_dpa_d2h_memcpy(dpa, buf, a, 101));
    fails!(INVALID_VALUE, abi::doca_dpa_d2h_memcpy(dpa, buf, a - 1, 2));
    fails!(INVALID_VALUE, abi::doca_dpa_memset(dpa, a + 99, 0, 2));
    fails!(INVALID_VALUE, abi::doca_dpa_memset(dpa, u64::MAX, 0, 2));
    fails!(INVALID_VALUE, abi::doca_dpa_memset(dpa, 0x10, 0, 1));
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_h2d_memcpy(dpa, a, null_mut(), 1)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_dpa_d2h_memcpy(dpa, null_mut(), a, 1)
    );
    // A freed block is out of bounds.
    ok!(abi::doca_dpa_mem_free(dpa, a));
    fails!(INVALID_VALUE, abi::doca_dpa_memset(dpa, a, 0, 1));
    // Not modelled: doca_buf copies.
    fails!(
        NOT_SUPPORTED,
        abi::doca_dpa_h2d_buf_memcpy(dpa, a, null_mut(), 1)
    );
    fails!(
        NOT_SUPPORTED,
        abi::doca_dpa_d2h_buf_memcpy(dpa, null_mut(), a, 1)
    );
    // After stop: BAD_STATE.
    let b = alloc(dpa, 8);
    ok!(abi::doca_dpa_stop(dpa));
    fails!(BAD_STATE, abi::doca_dpa_memset(dpa, b, 0, 8));
    fails!(BAD_STATE, abi::doca_dpa_mem_free(dpa, b));
    ok!(abi::doca_dpa_destroy(dpa));
    close_dev(ctx.dev);
    assert_no_leaks(&scope);
}

#[test]
fn kernels_dereference_heap_addresses() {
    let scope = Scope::new();
    static BLOCK: AtomicU64 = AtomicU64::new(0);
    unsafe extern "C" fn double(_: *const u64) -> u64 {
        // SAFETY: device API of the sim.
        let rank = unsafe { doca_dpa_dev_thread_rank() } as usize;
        let p = BLOCK.load(SeqCst) as *mut u64;
        // SAFETY: a DPA heap address is a host address in the sim; the
        // block holds 8 u64 and each of the 8 instances touches its own.
        unsafe { *p.add(rank) *= 2 };
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"heap", vec![global(c"double", k, double)]));
    let block = alloc(ctx.dpa, 64);
    let mut values: Vec<u64> = (1..=8).collect();
    ok!(abi::doca_dpa_h2d_memcpy(
        ctx.dpa,
        block,
        values.as_mut_ptr().cast(),
        64
    ));
    BLOCK.store(block, SeqCst);
    let comp = ctx.comp_event();
    ok!(ctx.launch(comp, 1, 8, k));
    wait_value(comp, 1);
    let mut back = [0u64; 8];
    ok!(abi::doca_dpa_d2h_memcpy(
        ctx.dpa,
        back.as_mut_ptr().cast(),
        block,
        64
    ));
    assert_eq!(back, [2, 4, 6, 8, 10, 12, 14, 16]);
    ok!(abi::doca_dpa_mem_free(ctx.dpa, block));
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

/// A map made from an RDMA export on `dev`, and the range it describes.
fn import(
    desc: *const std::ffi::c_void,
    len: usize,
    dev: *mut abi::doca_dev,
) -> (*mut abi::doca_mmap, usize, usize) {
    let mut remote = null_mut();
    ok!(abi::doca_mmap_create_from_export(
        std::ptr::null(),
        desc,
        len,
        dev,
        &mut remote
    ));
    let (mut addr, mut size) = (null_mut(), 0);
    ok!(abi::doca_mmap_get_memrange(remote, &mut addr, &mut size));
    (remote, addr as usize, size)
}

#[test]
fn mmaps_of_dpa_memory() {
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let block = alloc(ctx.dpa, 256);
    let mut m = null_mut();
    ok!(abi::doca_mmap_create(&mut m));
    // Nothing to map yet.
    fails!(BAD_STATE, abi::doca_mmap_start(m));
    fails!(
        INVALID_VALUE,
        abi::doca_mmap_set_dpa_memrange(m, ctx.dpa, block, 257)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_mmap_set_dpa_memrange(m, ctx.dpa, block + 512, 1)
    );
    ok!(abi::doca_mmap_set_dpa_memrange(m, ctx.dpa, block, 256));
    // Once only, and exclusive with devices.
    fails!(
        BAD_STATE,
        abi::doca_mmap_set_dpa_memrange(m, ctx.dpa, block, 16)
    );
    fails!(NOT_PERMITTED, abi::doca_mmap_add_dev(m, ctx.dev));
    let mut h = 0;
    fails!(
        NOT_PERMITTED,
        abi::doca_mmap_dev_get_dpa_handle(m, ctx.dev, &mut h)
    );
    ok!(abi::doca_mmap_start(m));
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, ctx.dev, &mut h));
    assert_ne!(h, 0);
    // The device of the map is the DPA context's: an RDMA export for it
    // describes the DPA range (the samples' doca_mmap_obj_init); another
    // device is not a device of the map.
    let other = open_dev(BF2);
    let (mut desc, mut len) = (std::ptr::null(), 0);
    fails!(
        NOT_FOUND,
        abi::doca_mmap_export_rdma(m, other, &mut desc, &mut len)
    );
    fails!(
        NOT_FOUND,
        abi::doca_mmap_dev_get_dpa_handle(m, other, &mut h)
    );
    ok!(abi::doca_mmap_export_rdma(m, ctx.dev, &mut desc, &mut len));
    let mut flag = 0u8;
    ok!(abi::doca_mmap_get_exported(m, &mut flag));
    assert_eq!(flag, 1);
    let (remote, addr, size) = import(desc, len, ctx.dev);
    assert_eq!((addr as u64, size), (block, 256));
    ok!(abi::doca_mmap_destroy(remote));
    ok!(abi::doca_dev_close(other));
    ok!(abi::doca_mmap_stop(m));
    fails!(BAD_STATE, abi::doca_mmap_stop(m));
    ok!(abi::doca_mmap_start(m));
    // Model choice: a started map is stopped, then destroyed (the samples
    // destroy without stopping).
    ok!(abi::doca_mmap_destroy(m));

    // A DPA range on an unstarted context is BAD_STATE.
    let idle = Ctx::created();
    let mut m2 = null_mut();
    ok!(abi::doca_mmap_create(&mut m2));
    fails!(
        BAD_STATE,
        abi::doca_mmap_set_dpa_memrange(m2, idle.dpa, block, 16)
    );
    ok!(abi::doca_mmap_destroy(m2));
    idle.destroy();
    ok!(abi::doca_dpa_mem_free(ctx.dpa, block));
    ctx.teardown();
    assert_no_leaks(&scope);
}

#[test]
fn mmaps_of_host_memory() {
    let scope = Scope::new();
    let dev = open_dev(BF3);
    let other = open_dev(BF2);
    let mut buf = vec![0u8; 4096];
    let mut m = null_mut();
    ok!(abi::doca_mmap_create(&mut m));
    fails!(
        INVALID_VALUE,
        abi::doca_mmap_set_memrange(m, null_mut(), 16)
    );
    fails!(
        INVALID_VALUE,
        abi::doca_mmap_set_memrange(m, buf.as_mut_ptr().cast(), 0)
    );
    ok!(abi::doca_mmap_set_memrange(
        m,
        buf.as_mut_ptr().cast(),
        buf.len()
    ));
    ok!(abi::doca_mmap_set_permissions(
        m,
        abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE
    ));
    ok!(abi::doca_mmap_add_dev(m, dev));
    let mut h = 0;
    // Not started: NOT_PERMITTED.
    fails!(
        NOT_PERMITTED,
        abi::doca_mmap_dev_get_dpa_handle(m, dev, &mut h)
    );
    ok!(abi::doca_mmap_start(m));
    // Configuration after start: BAD_STATE.
    fails!(BAD_STATE, abi::doca_mmap_add_dev(m, other));
    fails!(
        BAD_STATE,
        abi::doca_mmap_set_memrange(m, buf.as_mut_ptr().cast(), 16)
    );
    fails!(BAD_STATE, abi::doca_mmap_set_permissions(m, 0));
    fails!(BAD_STATE, abi::doca_mmap_start(m));
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, dev, &mut h));
    let mut again = 0;
    ok!(abi::doca_mmap_dev_get_dpa_handle(m, dev, &mut again));
    assert_eq!(h, again);
    // A device that was not added: NOT_FOUND.
    fails!(
        NOT_FOUND,
        abi::doca_mmap_dev_get_dpa_handle(m, other, &mut h)
    );
    ok!(abi::doca_mmap_stop(m));
    fails!(BAD_STATE, abi::doca_mmap_stop(m));
    ok!(abi::doca_mmap_destroy(m));
    close_dev(dev);
    close_dev(other);
    assert_no_leaks(&scope);
}

#[test]
fn without_checking_blocks_freed_under_a_running_kernel_are_quarantined() {
    let scope = Scope::new();
    // With memory checking (the default) such a block is fenced at once and
    // the late read is a reported use after free (tests/device_faults.rs).
    scope.set_profile(Profile {
        memcheck: false,
        ..Profile::default()
    });
    static BLOCK: AtomicU64 = AtomicU64::new(0);
    static STARTED: AtomicU32 = AtomicU32::new(0);
    static RELEASE: AtomicU32 = AtomicU32::new(0);
    static READ: AtomicU64 = AtomicU64::new(0);
    unsafe extern "C" fn late_reader(_: *const u64) -> u64 {
        STARTED.store(1, SeqCst);
        while RELEASE.load(SeqCst) == 0 {
            // SAFETY: device API of the sim; nothing with a destructor lives.
            unsafe { doca_dpa_dev_yield() };
        }
        // SAFETY: the block was freed by the host while this kernel ran (a
        // device-side bug); the sim keeps its memory until the kernel ends.
        READ.store(unsafe { *(BLOCK.load(SeqCst) as *const u64) }, SeqCst);
        0
    }
    let k = entry!();
    let ctx = Ctx::started(app(c"quarantine", vec![global(c"k", k, late_reader)]));
    let block = alloc(ctx.dpa, 64);
    let mut value = 0x5555_u64;
    ok!(abi::doca_dpa_h2d_memcpy(
        ctx.dpa,
        block,
        (&mut value as *mut u64).cast(),
        8
    ));
    BLOCK.store(block, SeqCst);
    let comp = ctx.comp_event();
    ok!(ctx.launch(comp, 1, 1, k));
    assert!(poll(PATIENCE, || STARTED.load(SeqCst) == 1));
    // Model choice: the free succeeds for the host (the block is gone) but
    // its memory waits until no kernel of the context runs.
    ok!(abi::doca_dpa_mem_free(ctx.dpa, block));
    fails!(INVALID_VALUE, abi::doca_dpa_memset(ctx.dpa, block, 0, 8));
    assert_eq!(scope.live_objects().get("dpa_heap_block"), Some(&1));
    RELEASE.store(1, SeqCst);
    wait_value(comp, 1);
    assert_eq!(READ.load(SeqCst), 0x5555);
    assert!(poll(PATIENCE, || !scope
        .live_objects()
        .contains_key("dpa_heap_block")));
    drop_event(comp);
    ctx.teardown();
    assert_no_leaks(&scope);
}

/// The other half of the samples' common setup: a host-memory map exported
/// for RDMA and re-created from the export (the sim's loopback), plus the
/// map accessors of the 3.0 header.
#[test]
fn mmaps_export_for_rdma_and_come_back() {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    static FREED: AtomicUsize = AtomicUsize::new(0);
    unsafe extern "C" fn free_range(
        addr: *mut std::ffi::c_void,
        len: usize,
        opaque: *mut std::ffi::c_void,
    ) {
        assert_eq!(opaque as usize, 0x5eed);
        FREED.store(addr as usize + len, SeqCst);
    }
    let scope = Scope::new();
    let ctx = Ctx::started(noop_app());
    let mut memory = vec![0u8; 4096];
    let mut m = null_mut();
    ok!(abi::doca_mmap_create(&mut m));
    let mut max = 0;
    ok!(abi::doca_mmap_get_max_num_devices(m, &mut max));
    assert_eq!(max, u32::MAX, "no limit until one is set");
    ok!(abi::doca_mmap_set_max_num_devices(m, 1));
    ok!(abi::doca_mmap_set_memrange(
        m,
        memory.as_mut_ptr().cast(),
        memory.len()
    ));
    ok!(abi::doca_mmap_set_permissions(
        m,
        abi::DOCA_ACCESS_FLAG_RDMA_WRITE | abi::DOCA_ACCESS_FLAG_LOCAL_READ_WRITE
    ));
    ok!(abi::doca_mmap_set_user_data(m, abi::doca_data { u64_: 77 }));
    ok!(abi::doca_mmap_set_free_cb(
        m,
        Some(free_range),
        0x5eed as *mut _
    ));
    ok!(abi::doca_mmap_add_dev(m, ctx.dev));
    let other = open_dev(BF3);
    fails!(NO_MEMORY, abi::doca_mmap_add_dev(m, other));
    fails!(NOT_FOUND, abi::doca_mmap_rm_dev(m, other));
    let mut desc = std::ptr::null();
    let mut len = 0;
    fails!(
        BAD_STATE,
        abi::doca_mmap_export_rdma(m, ctx.dev, &mut desc, &mut len)
    );
    ok!(abi::doca_mmap_start(m));
    fails!(
        NOT_FOUND,
        abi::doca_mmap_export_rdma(m, other, &mut desc, &mut len)
    );
    let mut flag = 9u8;
    ok!(abi::doca_mmap_get_exported(m, &mut flag));
    assert_eq!(flag, 0);
    ok!(abi::doca_mmap_export_rdma(m, ctx.dev, &mut desc, &mut len));
    ok!(abi::doca_mmap_get_exported(m, &mut flag));
    assert_eq!(flag, 1);
    fails!(
        NOT_SUPPORTED,
        abi::doca_mmap_export_pci(m, ctx.dev, &mut desc, &mut len)
    );
    ok!(abi::doca_mmap_export_rdma(m, ctx.dev, &mut desc, &mut len));

    let (mut remote, addr, size) = import(desc, len, ctx.dev);
    assert_eq!((addr, size), (memory.as_ptr() as usize, memory.len()));
    ok!(abi::doca_mmap_get_from_export(remote, &mut flag));
    assert_eq!(flag, 1);
    // It is started and its device is added: a kernel can name it.
    let mut h = 0;
    ok!(abi::doca_mmap_dev_get_dpa_handle(remote, ctx.dev, &mut h));
    assert_ne!(h, 0);
    let junk = [7u8; 40];
    fails!(
        INVALID_VALUE,
        abi::doca_mmap_create_from_export(
            std::ptr::null(),
            junk.as_ptr().cast(),
            junk.len(),
            ctx.dev,
            &mut remote
        )
    );
    ok!(abi::doca_mmap_destroy(remote));
    assert_eq!(
        FREED.load(SeqCst),
        0,
        "a map made from an export owns nothing"
    );

    let mut data = abi::doca_data::default();
    ok!(abi::doca_mmap_get_user_data(m, &mut data));
    // SAFETY: the union was written through its u64 member.
    assert_eq!(unsafe { data.u64_ }, 77);
    let mut bufs = 9;
    ok!(abi::doca_mmap_get_num_bufs(m, &mut bufs));
    assert_eq!(bufs, 0);
    // Destroyed while started: stopped, then its range is handed back.
    ok!(abi::doca_mmap_destroy(m));
    assert_eq!(FREED.load(SeqCst), memory.as_ptr() as usize + memory.len());
    close_dev(other);
    ctx.teardown();
    assert_no_leaks(&scope);
}

/// The variable that makes the test binary the child of
/// `fenced_blocks_fit_a_small_address_space`.
const SMALL_SPACE_CHILD: &str = "DOCA_SIM_TEST_SMALL_ADDRESS_SPACE_CHILD";

/// With the address space limited to 24 GiB (`RLIMIT_AS`, as valgrind limits
/// it), 40 fenced blocks allocated and freed one after another (each reserves
/// some 2 GiB, kept after its free) still fit: the oldest freed blocks give
/// their address space back when a new block needs it. In a child process, so
/// the limit binds nothing else.
#[test]
fn fenced_blocks_fit_a_small_address_space() {
    if std::env::var_os(SMALL_SPACE_CHILD).is_some() {
        let limit = libc::rlimit {
            rlim_cur: 24 << 30,
            rlim_max: 24 << 30,
        };
        // SAFETY: a valid rlimit; this process is the test's child.
        assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) }, 0);
        let scope = Scope::new();
        let ctx = Ctx::started(noop_app());
        for _ in 0..40 {
            let block = alloc(ctx.dpa, 4096);
            ok!(abi::doca_dpa_mem_free(ctx.dpa, block));
        }
        ctx.teardown();
        assert_no_leaks(&scope);
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "fenced_blocks_fit_a_small_address_space",
            "--nocapture",
        ])
        .env(SMALL_SPACE_CHILD, "1")
        .env_remove("DOCA_SIM_MEMCHECK")
        .output()
        .expect("running the child");
    assert!(
        out.status.success(),
        "the child failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
