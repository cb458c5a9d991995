// One argument per C parameter, in order.
use std::time::Duration;

use doca::dpa::{Device, Dpa};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    // `add(uint64_t a, uint64_t b)`
    let _sum = dpa.rpc(&doca_tests::add, (40u64,), Duration::from_secs(1))?;
    Ok(())
}
