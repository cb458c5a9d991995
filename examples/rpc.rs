//! A blocking RPC: the DPA sums values the host wrote to DPA memory and
//! returns the total.

use doca::dpa::{Device, Dpa, DpaBuffer};

include!("common_app.rs.in");

fn main() -> Result<(), Report> {
    println!("backend: {}", doca::dpa::build_info::BACKEND);
    let device = Device::open_first_with_dpa()?;
    let dpa = Dpa::start(&device, doca_examples::app())?;
    let values: Vec<u64> = (1..=100).collect();
    let buf = DpaBuffer::from_slice(&dpa, &values)?;
    let total = dpa.rpc(&doca_examples::sum_values, (&buf, values.len() as u32))?;
    let expected: u64 = values.iter().sum();
    println!("sum_values returned {total} (expected {expected})");
    if total != expected {
        return Err("wrong RPC result".into());
    }
    Ok(())
}
