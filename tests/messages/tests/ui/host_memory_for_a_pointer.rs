// A C pointer parameter (`uint64_t *out`) takes DPA memory: host memory is
// copied into a DpaBuffer first.
use std::time::Duration;

use doca::dpa::{Device, Dpa, Launcher};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let words = vec![0u64; 4];
    let launcher = Launcher::new(&dpa)?;
    // `sound_store_words(uint64_t *out, uint32_t n)`
    launcher
        .launch(&doca_tests::sound_store_words, 1, (&words, 4u32))?
        .wait(Duration::from_secs(1))?;
    Ok(())
}
