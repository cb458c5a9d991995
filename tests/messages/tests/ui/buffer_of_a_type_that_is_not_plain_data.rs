// DPA memory holds plain data only.
use doca::dpa::{Device, Dpa, DpaBuffer};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let _names = DpaBuffer::<String>::new(&dpa, 4)?;
    Ok(())
}
