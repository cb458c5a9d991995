// Red team round 5: a host read of device-written memory must not produce an
// invalid value; arrays are plain data only when their elements are, so `DpaBuffer<[bool; 4]>` must not exist.
use doca::dpa::{Device, Dpa, DpaBuffer};
use doca_test_kernels::doca_tests;

fn main() -> doca::dpa::Result<()> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, doca_tests::app())?;
    let buf = DpaBuffer::<[bool; 4]>::new(&dpa, 4)?;
    let _values = buf.to_vec()?;
    Ok(())
}
