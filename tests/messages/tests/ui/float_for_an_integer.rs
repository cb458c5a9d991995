// A `uint32_t` parameter takes a `u32`, not a float: rounding is the caller's choice.
use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let out = DpaBuffer::<u64>::new(&dpa, 4)?;
    let launcher = Launcher::new(&dpa)?;
    // `mixed_args(doca_dpa_dev_uintptr_t out, uint32_t a, uint64_t b, int32_t c, int64_t d)`
    launcher
        .launch(&doca_tests::mixed_args, 1, (&out, 1.5f32, 2u64, 3i32, 4i64))?
        .wait(Duration::from_secs(1))?;
    Ok(())
}
