// A `uint32_t` parameter takes a `u32`: a `usize` (a length, an index) is
// converted, with a check that it fits.
use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let out = DpaBuffer::<u64>::new(&dpa, 4)?;
    let items = vec![1u8, 2, 3];
    let launcher = Launcher::new(&dpa)?;
    // `mixed_args(doca_dpa_dev_uintptr_t out, uint32_t a, uint64_t b, int32_t c, int64_t d)`
    launcher
        .launch(&doca_tests::mixed_args, 1, (&out, items.len(), 2u64, 3i32, 4i64))?
        .wait(Duration::from_secs(1))?;
    Ok(())
}
