//! The cost of the sim's memory checker in its own calls: each figure is
//! checked / unchecked (`memcheck = true` vs `false` in the profile),
//! measured in alternating rounds in the same run, with the absolute times as
//! context. (Its cost on launches, a round trip and a memory-heavy kernel, is
//! measured through the safe layer by `cargo bench --bench launch`.)
//!
//! `cargo bench -p doca-sim --bench memcheck`; `BENCH_QUICK=1` shortens it.
//!
//! 1. `doca_dpa_mem_alloc` + `doca_dpa_mem_free` of a 64-byte block (a
//!    checked block is its own mapping with guard moats, and its free remaps
//!    it inaccessible);
//! 2. `doca_dpa_d2h_memcpy` of 1 MiB against a host `memcpy` of 1 MiB (the
//!    sim's copies are relaxed atomic words, as DMA; the same in both modes).

#[path = "../tests/common/mod.rs"]
mod common;
mod harness;

use std::ffi::c_void;

use common::*;
use harness::{iters, per_iter_pair, quick, ratio_row};

#[link(name = "doca_sim_test_kernels", kind = "static")]
extern "C" {
    fn device_faults_app() -> *const c_void;
}

/// A started context, checked or not.
fn context(checked: bool) -> Ctx {
    let scope = Scope::new();
    scope.set_profile(Profile {
        memcheck: checked,
        ..Profile::default()
    });
    // SAFETY: the address of a static application table.
    let app = unsafe { device_faults_app() }.cast_mut().cast();
    let ctx = Ctx::started(app);
    drop(scope);
    ctx
}

fn alloc(dpa: *mut abi::doca_dpa, size: usize) -> u64 {
    let mut p = 0;
    ok!(abi::doca_dpa_mem_alloc(dpa, size, &mut p));
    p
}

const MIB: usize = 1 << 20;

fn main() {
    let (checked, plain) = (context(true), context(false));
    println!(
        "doca-sim memory checker cost — checked / unchecked{}",
        if quick() { " (quick)" } else { "" }
    );

    let (cd, ud) = (checked.dpa, plain.dpa);
    let (c, u) = per_iter_pair(
        iters(2_000),
        || ok!(abi::doca_dpa_mem_free(cd, alloc(cd, 64))),
        || ok!(abi::doca_dpa_mem_free(ud, alloc(ud, 64))),
    );
    ratio_row(
        "1. mem_alloc + mem_free of 64 bytes",
        c,
        u,
        format!("checked {c:?}, unchecked {u:?}"),
    );

    let cb = alloc(cd, MIB);
    let mut host = vec![0u8; MIB];
    let mut host2 = vec![0u8; MIB];
    let src = vec![1u8; MIB];
    let (d2h, memcpy) = per_iter_pair(
        iters(200),
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
    ratio_row(
        "2. d2h_memcpy 1 MiB / host memcpy",
        d2h,
        memcpy,
        format!("d2h {d2h:?}, memcpy {memcpy:?}"),
    );

    ok!(abi::doca_dpa_mem_free(cd, cb));
    checked.teardown();
    plain.teardown();
}
