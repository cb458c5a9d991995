//! A persistent DPA thread woken by a notification completion, as in the
//! DPA thread samples: the host creates the thread and its notification
//! completion, makes it runnable, and wakes it three times through an RPC
//! that calls `doca_dpa_dev_thread_notify`; each activation bumps a counter
//! in DPA memory and a completion event the host waits on.

use std::time::Duration;

use doca::dpa::{CompletionEvent, Device, Dpa, DpaBuffer, NotificationCompletion, ThreadBuilder};

include!("common_app.rs.in");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("backend: {}", doca::dpa::build_info::BACKEND);
    let device = Device::open_first_with_dpa()?;
    let dpa = Dpa::start(&device, doca_examples::app())?;

    // struct counter_state { uint64_t activations; uint64_t done_event; }
    let done = CompletionEvent::new(&dpa, true)?;
    let state = DpaBuffer::<u64>::from_slice(&dpa, &[0, done.handle()?.raw()])?;
    let thread =
        ThreadBuilder::new(&dpa, &doca_examples::counter_thread, state.dev_ptr().0)?.start()?;
    let notify = NotificationCompletion::new(&thread)?;
    notify.run_thread()?;

    for round in 1..=3u64 {
        dpa.rpc(&doca_examples::wake_counter, (notify.handle(),))?;
        done.wait_gt(round - 1, Duration::from_secs(10))?;
        println!("activation {round}: thread counted {}", state.to_vec()?[0]);
    }
    let count = state.to_vec()?[0];
    if count != 3 {
        return Err(format!("the thread ran {count} times, expected 3").into());
    }
    println!("the DPA thread was woken 3 times by notifications");
    Ok(())
}
