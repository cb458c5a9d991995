//! A binary that declares the app itself and never names the library crate: the
//! declarations' `#[link]` links the app (no `extern crate doca_user_fixture`).

use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};

doca::dpa::include_app!(user_kernels);

fn main() -> Result<(), doca::dpa::Error> {
    let dpa = Dpa::start(&Device::open_first_with_dpa()?, user_kernels::app())?;
    let out = DpaBuffer::<u64>::new(&dpa, 4)?;
    Launcher::new(&dpa)?
        .launch(&user_kernels::add, 4, (&out, 2u64, 3u64))?
        .wait(Duration::from_secs(10))?;
    println!("{:?}", out.to_vec()?);
    Ok(())
}
