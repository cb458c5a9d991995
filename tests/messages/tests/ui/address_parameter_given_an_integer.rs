// A `uint64_t *out` parameter takes the memory itself, not an address.
use std::time::Duration;

use doca::dpa::{Device, Dpa, Launcher};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let launcher = Launcher::new(&dpa)?;
    // `write_ranks(uint64_t *out, uint64_t value)`
    launcher
        .launch(&doca_tests::write_ranks, 1, (0x1000u64, 7u64))?
        .wait(Duration::from_secs(1))?;
    Ok(())
}
