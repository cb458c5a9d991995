//! The cost of the sim's memory checker: each figure is checked / unchecked,
//! measured in alternating rounds in the same run (`memcheck = true` vs
//! `false` in the profile), with the absolute times as context.
//!
//! `cargo bench -p doca-sim --bench memcheck`; `BENCH_QUICK=1` shortens it.
//!
//! 1. launch -> completion of a 1-thread kernel on a context holding 8 live
//!    blocks (the end of a checked launch looks at their canaries);
//! 2. a memory-heavy kernel: one thread writes a 1 MiB block;
//! 3. `doca_dpa_mem_alloc` + `doca_dpa_mem_free` of a 64-byte block (a
//!    checked block is its own mapping with guard moats, and its free remaps
//!    it inaccessible);
//! 4. `doca_dpa_d2h_memcpy` of 1 MiB against a host `memcpy` of 1 MiB (the
//!    sim's copies are relaxed atomic words, as DMA; the same in both modes).

#[path = "../tests/common/mod.rs"]
mod common;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use common::*;

#[link(name = "doca_sim_test_kernels", kind = "static")]
extern "C" {
    fn device_faults_app() -> *const c_void;
    /// `fill(out, n)`: out[i] = i for i < n (tests/kernels/device_faults.c).
    fn fill();
}

fn quick() -> bool {
    std::env::var_os("BENCH_QUICK").is_some()
}

/// Median time per iteration of `a` and `b`, alternating their rounds.
fn per_iter_pair(iters: u32, mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration) {
    let rounds = if quick() { 5 } else { 11 };
    let iters = if quick() { (iters / 10).max(5) } else { iters };
    for _ in 0..iters / 10 + 1 {
        a();
        b();
    }
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        start.elapsed() / iters
    };
    let (mut sa, mut sb): (Vec<Duration>, Vec<Duration>) =
        (0..rounds).map(|_| (time(&mut a), time(&mut b))).unzip();
    sa.sort();
    sb.sort();
    (sa[rounds / 2], sb[rounds / 2])
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

/// A started context (checked or not), its completion event and launches.
struct Bench {
    ctx: Ctx,
    comp: *mut abi::doca_sync_event,
    count: u64,
    blocks: Vec<u64>,
}

impl Bench {
    fn new(checked: bool) -> Bench {
        let scope = Scope::new();
        scope.set_profile(Profile {
            memcheck: checked,
            ..Profile::default()
        });
        // SAFETY: the address of a static application table.
        let app = unsafe { device_faults_app() }.cast_mut().cast();
        let ctx = Ctx::started(app);
        drop(scope);
        let comp = ctx.comp_event();
        let blocks = (0..8).map(|_| alloc(ctx.dpa, 256)).collect();
        Bench {
            ctx,
            comp,
            count: 0,
            blocks,
        }
    }

    /// Launches `fill(out, n)` on one thread and spins until it completes.
    fn fill(&mut self, out: u64, n: u64) {
        self.count += 1;
        ok!(abi::doca_dpa_kernel_launch_update_set(
            self.ctx.dpa,
            null_mut(),
            0,
            self.comp,
            self.count,
            1,
            f(fill),
            out,
            n
        ));
        while get(self.comp) != self.count {
            std::hint::spin_loop();
        }
    }
}

impl Drop for Bench {
    fn drop(&mut self) {
        for b in self.blocks.drain(..) {
            ok!(abi::doca_dpa_mem_free(self.ctx.dpa, b));
        }
        drop_event(self.comp);
    }
}

fn alloc(dpa: *mut abi::doca_dpa, size: usize) -> u64 {
    let mut p = 0;
    ok!(abi::doca_dpa_mem_alloc(dpa, size, &mut p));
    p
}

const MIB: usize = 1 << 20;

fn main() {
    let mut checked = Bench::new(true);
    let mut plain = Bench::new(false);
    println!(
        "doca-sim memory checker cost — checked / unchecked{}",
        if quick() { " (quick)" } else { "" }
    );

    let (c, u) = per_iter_pair(2_000, || checked.fill(0, 0), || plain.fill(0, 0));
    println!(
        "1. launch->completion, 8 live blocks  = {:.3}  (checked {c:?}, unchecked {u:?})",
        ratio(c, u)
    );

    let (cb, ub) = (alloc(checked.ctx.dpa, MIB), alloc(plain.ctx.dpa, MIB));
    let words = (MIB / 8) as u64;
    let (c, u) = per_iter_pair(200, || checked.fill(cb, words), || plain.fill(ub, words));
    println!(
        "2. kernel writing 1 MiB               = {:.3}  (checked {c:?}, unchecked {u:?})",
        ratio(c, u)
    );

    let (cd, ud) = (checked.ctx.dpa, plain.ctx.dpa);
    let (c, u) = per_iter_pair(
        2_000,
        || ok!(abi::doca_dpa_mem_free(cd, alloc(cd, 64))),
        || ok!(abi::doca_dpa_mem_free(ud, alloc(ud, 64))),
    );
    println!(
        "3. mem_alloc + mem_free of 64 bytes   = {:.3}  (checked {c:?}, unchecked {u:?})",
        ratio(c, u)
    );

    let mut host = vec![0u8; MIB];
    let mut host2 = vec![0u8; MIB];
    let src = vec![1u8; MIB];
    let (d2h, memcpy) = per_iter_pair(
        200,
        || {
            ok!(abi::doca_dpa_d2h_memcpy(
                cd,
                host.as_mut_ptr().cast(),
                cb,
                MIB
            ))
        },
        || {
            // SAFETY: two distinct buffers of MIB bytes.
            unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), host2.as_mut_ptr(), MIB) };
            std::hint::black_box(&mut host2);
        },
    );
    println!(
        "4. d2h_memcpy 1 MiB / host memcpy     = {:.3}  (d2h {d2h:?}, memcpy {memcpy:?})",
        ratio(d2h, memcpy)
    );

    ok!(abi::doca_dpa_mem_free(cd, cb));
    ok!(abi::doca_dpa_mem_free(ud, ub));
    for b in [checked, plain] {
        let dpa = b.ctx.dpa;
        let dev = b.ctx.dev;
        drop(b);
        ok!(abi::doca_dpa_stop(dpa));
        ok!(abi::doca_dpa_destroy(dpa));
        close_dev(dev);
    }
}
