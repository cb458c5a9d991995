// A `DpaBox` holds a struct generated from the kernels' C definition.
use doca::dpa::{Device, Dpa, DpaBox};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let _counter = DpaBox::new(&dpa, &0u64)?;
    Ok(())
}
