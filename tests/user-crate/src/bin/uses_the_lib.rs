//! A binary that declares nothing itself and links the app through the
//! library's declarations.

fn main() -> Result<(), doca::dpa::Error> {
    let device = doca::dpa::Device::open_first_with_dpa()?;
    let dpa = doca::dpa::Dpa::start(&device, doca_user_fixture::user_kernels::app())?;
    let sums = doca_user_fixture::add_on_dpa(&dpa, 4, 2, 3)?;
    println!("{sums:?}");
    Ok(())
}
