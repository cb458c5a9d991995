// An RPC is called with `Dpa::rpc`, not launched.
use std::time::Duration;

use doca::dpa::{Device, Dpa, Launcher};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let launcher = Launcher::new(&dpa)?;
    // `__dpa_rpc__ uint64_t add(uint64_t a, uint64_t b)`
    launcher
        .launch(&doca_tests::add, 1, (40u64, 2u64))?
        .wait(Duration::from_secs(1))?;
    Ok(())
}
