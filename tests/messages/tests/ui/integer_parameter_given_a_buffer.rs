// A thread function written as DOCA's samples write it (`uint64_t arg`) cannot
// take a DPA object: the parameter must be declared with its type (`uint64_t *`).
use doca::dpa::{Device, Dpa, DpaBuffer, ThreadBuilder};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let state = DpaBuffer::<u64>::new(&dpa, 4)?;
    // `busy(uint64_t n)`
    let _thread = ThreadBuilder::new(&dpa, &doca_tests::busy, (&state,))?;
    Ok(())
}
