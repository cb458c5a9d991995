//! The fixture's library: one DPA application (`user_kernels`, built by build.rs
//! from kernels/add.c) and a host function that runs its kernel. The README's
//! `src/lib.rs` (scripts/user-crate-test.sh checks they agree).

use std::time::Duration;
use doca::dpa::{Dpa, DpaBuffer, Launcher};

doca::dpa::include_app!(pub user_kernels);

/// Runs `add` on `threads` DPA threads: slot `i` gets `a + b + i`.
pub fn add_on_dpa(dpa: &Dpa, threads: u32, a: u64, b: u64) -> doca::dpa::Result<Vec<u64>> {
    let out = DpaBuffer::<u64>::new(dpa, threads as usize)?;
    Launcher::new(dpa)?
        .launch(&user_kernels::add, threads, (&out, a, b))? // checked against the C prototype
        .wait(Duration::from_secs(10))?;
    out.to_vec()
}
