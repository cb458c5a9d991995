//! A kernel held by a wait event until the host releases it.
//!
//! The launch is gated on a host → DPA event at threshold 1; the host checks
//! that nothing ran, sets the event to 1, and the kernel records the value it
//! was released with.

use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer, Export, Gate, Launcher, WaitEvent};

include!("common_app.rs.in");

fn main() -> Result<(), Report> {
    println!("backend: {}", doca::dpa::build_info::BACKEND);
    let device = Device::open_first_with_dpa()?;
    let dpa = Dpa::start(&device, doca_examples::app())?;
    let release = WaitEvent::new(&dpa, Export::ToDpa)?;
    let out = DpaBuffer::<u64>::from_slice(&dpa, &[0])?;
    let launcher = Launcher::new(&dpa)?;

    let launch = launcher.launch_gated(
        Gate::new(&release, 1)?,
        &doca_examples::record_release,
        1,
        (&out, &release),
    )?;
    std::thread::sleep(Duration::from_millis(200));
    if launch.is_complete()? || out.to_vec()?[0] != 0 {
        return Err("the kernel ran before the host released it".into());
    }
    println!(
        "kernel is held by the wait event (value {})",
        release.get()?
    );

    release.set(1)?;
    launch.wait(Duration::from_secs(10))?;
    let seen = out.to_vec()?[0];
    println!("released: the kernel ran and saw the event at {seen}");
    if seen != 1 {
        return Err(format!("kernel saw {seen}, expected 1").into());
    }
    Ok(())
}
