//! Launches a kernel on several DPA threads, waits for the completion event
//! and reads back what each thread wrote.
//!
//! `cargo run --example kernel_launch` — on the software DPA where DOCA is
//! absent, on the first DPA-capable device otherwise (`DOCA_DEVICE=<pci or
//! mlx5_N>` picks one).

use std::time::{Duration, Instant};

use doca::dpa::{Device, Dpa, DpaBuffer, Launcher};

include!("common_app.rs.in");

fn main() -> Result<(), Report> {
    println!(
        "backend: {} (DOCA {})",
        doca::dpa::build_info::BACKEND,
        doca::dpa::build_info::DOCA_VERSION
    );
    let device =
        Device::open_named_or_first_with_dpa(std::env::var("DOCA_DEVICE").ok().as_deref())?;
    println!(
        "device: {} ({})",
        device.info().ibdev_name,
        device.info().pci_addr
    );

    let dpa = Dpa::start(&device, doca_examples::app())?;
    let limits = dpa.limits();
    println!(
        "DPA: {} cores x {} EUs ({} available), up to {} threads per kernel, {:?} kernel limit",
        limits.cores,
        limits.eus_per_core,
        limits.eus_available,
        limits.max_threads_per_kernel,
        limits.kernel_max_run_time
    );
    println!(
        "  (EU: execution unit, one hardware thread of the DPA; \"available\" counts the EUs \
         this context can use)"
    );

    let threads: u32 = 16.min(limits.max_threads_per_kernel);
    let (scale, offset) = (1000u64, 7u32);
    // One slot per thread, plus one where rank 0 records the thread count.
    let out = DpaBuffer::<u64>::new(&dpa, threads as usize + 1)?;
    out.fill_bytes(0)?;

    let launcher = Launcher::new(&dpa)?;
    let started = Instant::now();
    launcher
        .launch(&doca_examples::fill_ranks, threads, (&out, scale, offset))?
        .wait(Duration::from_secs(10))?;
    let elapsed = started.elapsed();

    let results = out.to_vec()?;
    for (rank, value) in results[..threads as usize].iter().enumerate() {
        let expected = rank as u64 * scale + u64::from(offset);
        println!("thread {rank:3} wrote {value:6} (expected {expected})");
        if *value != expected {
            return Err(format!("thread {rank} wrote {value}, expected {expected}").into());
        }
    }
    if results[threads as usize] != u64::from(threads) {
        return Err(format!(
            "kernel saw {} threads, launched {threads}",
            results[threads as usize]
        )
        .into());
    }
    println!("{threads} threads ran `fill_ranks`; launch to completion took {elapsed:?}; all results verified");
    Ok(())
}
