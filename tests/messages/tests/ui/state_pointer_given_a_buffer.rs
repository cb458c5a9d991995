// A `struct r3_state *` parameter takes a box of that struct, whose handle and
// pointer fields only live objects fill, not memory safe code filled (issue #33, R3).
use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let forged = DpaBuffer::<u64>::from_slice(&dpa, &[0x1234, 0x5678])?;
    let launcher = Launcher::new(&dpa)?;
    // `r3_use_state(struct r3_state *st)`
    launcher
        .launch(&doca_tests::r3_use_state, 1, (&forged,))?
        .wait(Duration::from_secs(1))?;
    Ok(())
}
