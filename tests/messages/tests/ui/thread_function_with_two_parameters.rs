// A DPA thread function takes one 64-bit argument (or none).
use doca::dpa::{Device, Dpa, DpaBuffer, ThreadBuilder};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let out = DpaBuffer::<u64>::new(&dpa, 4)?;
    // `write_ranks(uint64_t *out, uint64_t value)`
    let _thread = ThreadBuilder::new(&dpa, &doca_tests::write_ranks, (&out, 1u64))?;
    Ok(())
}
