//! A persistent DPA thread woken by a notification completion, as in the
//! DPA thread samples: the host creates the thread and its notification
//! completion, makes it runnable, and wakes it three times through an RPC
//! that calls `doca_dpa_dev_thread_notify`; each activation bumps a counter
//! in DPA memory and a completion event the host waits on.
//!
//! The thread's state is `struct counter_state` of `kernels/dpa_thread.c`, whose
//! Rust declaration is generated from the C: its event field keeps the event alive
//! for as long as the state's DPA memory lives, and the thread keeps that memory
//! alive, whatever order the host drops things in.

use std::time::Duration;

use doca::dpa::{
    CompletionEvent, Dev, Device, Dpa, DpaBox, Export, NotificationCompletion, ThreadBuilder,
};

include!("common_app.rs.in");

fn main() -> Result<(), Report> {
    println!("backend: {}", doca::dpa::build_info::BACKEND);
    let device = Device::open_first_with_dpa()?;
    let dpa = Dpa::start(&device, doca_examples::app())?;

    let done = CompletionEvent::new(&dpa, Export::ToDpa)?;
    let state = DpaBox::new(
        &dpa,
        &doca_examples::counter_state {
            activations: 0,
            done_event: Dev::new(&done)?,
        },
    )?;
    let thread = ThreadBuilder::new(&dpa, &doca_examples::counter_thread, (&state,))?.start()?;
    let notify = NotificationCompletion::new(&thread)?;
    notify.run_thread()?;

    for round in 1..=3u64 {
        dpa.rpc(
            &doca_examples::wake_counter,
            (&notify,),
            Duration::from_secs(5),
        )?;
        done.wait_gt(round - 1, Duration::from_secs(10))?;
        println!(
            "activation {round}: thread counted {}",
            state.get()?.activations
        );
    }
    let count = state.get()?.activations;
    if count != 3 {
        return Err(format!("the thread ran {count} times, expected 3").into());
    }
    println!("the DPA thread was woken 3 times by notifications");
    Ok(())
}
