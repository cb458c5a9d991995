//! An RPC: the DPA sums values the host wrote to DPA memory and returns the
//! total. The host waits for the result at most `RPC_TIMEOUT`; an RPC that does not
//! return in time is an error that says so (`Error::RpcTimeout`), not a hang.

use std::time::Duration;

use doca::dpa::{Device, Dpa, DpaBuffer};

/// Far above what a sum of 100 values takes on the device, far below the kernel
/// run-time limit (12 s on BlueField-3) a hung function would block for.
const RPC_TIMEOUT: Duration = Duration::from_secs(5);

include!("common_app.rs.in");

fn main() -> Result<(), Report> {
    println!("backend: {}", doca::dpa::build_info::BACKEND);
    let device = Device::open_first_with_dpa()?;
    let dpa = Dpa::start(&device, doca_examples::app())?;
    let values: Vec<u64> = (1..=100).collect();
    let buf = DpaBuffer::from_slice(&dpa, &values)?;
    let total = dpa.rpc(
        &doca_examples::sum_values,
        (&buf, values.len() as u32),
        RPC_TIMEOUT,
    )?;
    let expected: u64 = values.iter().sum();
    println!("sum_values returned {total} (expected {expected})");
    if total != expected {
        return Err("wrong RPC result".into());
    }
    Ok(())
}
