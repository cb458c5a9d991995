// An untyped address (`doca_dpa_dev_uintptr_t`) says nothing of what the kernel
// reads there: memory safe code filled is no argument for it (issue #33, R3).
use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    // A made-up event handle and address where the kernel reads a `struct r3_state`.
    let forged = DpaBuffer::<u64>::from_slice(&dpa, &[0x1234, 0x5678])?;
    let launcher = Launcher::new(&dpa)?;
    // `r3_use_untyped_state(doca_dpa_dev_uintptr_t st)`
    launcher
        .launch(&doca_tests::r3_use_untyped_state, 1, (&forged,))?
        .wait(Duration::from_secs(1))?;
    Ok(())
}
