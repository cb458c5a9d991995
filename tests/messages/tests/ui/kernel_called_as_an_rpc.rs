// A kernel is launched (or run by a DPA thread), not called with `Dpa::rpc`.
use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let words = DpaBuffer::<u64>::new(&dpa, 4)?;
    // `__dpa_global__ void sound_store_words(uint64_t *out, uint32_t n)`
    let _ = dpa.rpc(&doca_tests::sound_store_words, (&words, 4u32), Duration::from_secs(1))?;
    Ok(())
}
