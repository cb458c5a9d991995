// Red team round 5: a host read of device-written memory must not produce an
// invalid value; every byte but 0 and 1 is an invalid bool, so `DpaBuffer<bool>` must not exist.
use doca::dpa::{Device, Dpa, DpaBuffer};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let buf = DpaBuffer::<bool>::new(&dpa, 4)?;
    let _values = buf.to_vec()?;
    Ok(())
}
