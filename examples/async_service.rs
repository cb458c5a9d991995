//! A tokio service that keeps DPA work in flight and awaits it, with no thread
//! spinning: a batch of kernel launches (one per "request") and a round trip to a
//! persistent DPA thread are awaited concurrently, through a progress engine whose
//! notification handle tokio's reactor watches (`doca::dpa::Engine`, the `tokio`
//! feature). It prints each request's latency and checks every result.
//!
//! `cargo run --example async_service` (on the software DPA where DOCA is absent).

use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::{Duration, Instant};

use doca::dpa::{CompletionEvent, Device, Dpa, DpaBuffer, Engine, Export, Launcher};

include!("common_app.rs.in");
include!("counter_thread.rs.in");

/// Requests kept in flight at once.
const REQUESTS: u64 = 16;
/// DPA threads per request's kernel.
const THREADS: u32 = 8;
/// Round trips to the persistent thread.
const ROUND_TRIPS: u64 = 4;

type Error = Box<dyn std::error::Error>;
/// One piece of work in flight: what it was and how long it took.
type Work<'a> = Pin<Box<dyn Future<Output = (String, Duration)> + 'a>>;

/// Awaits every future of `futures` concurrently, in one task.
async fn join_all<T, F: Future<Output = T> + ?Sized>(mut futures: Vec<Pin<Box<F>>>) -> Vec<T> {
    let mut out: Vec<Option<T>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, slot) in futures.iter_mut().zip(out.iter_mut()) {
            if slot.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(v) => *slot = Some(v),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

fn main() -> Result<(), Report> {
    // Everything is awaited in one task here (the futures borrow locals), so a
    // current-thread runtime is enough; `examples/service.rs` spreads the work over
    // the tasks of a multi-threaded one.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    Ok(tokio::task::LocalSet::new().block_on(&rt, serve())?)
}

async fn serve() -> Result<(), Error> {
    println!("backend: {}", doca::dpa::build_info::BACKEND);
    let device =
        Device::open_named_or_first_with_dpa(std::env::var("DOCA_DEVICE").ok().as_deref())?;
    let dpa = Dpa::start(&device, doca_examples::app())?;
    let engine = Engine::new()?;
    let launcher = Launcher::with_engine(&dpa, &engine)?;

    // The persistent thread: woken by a notification, it bumps a counter and the
    // completion event the host awaits.
    let done = CompletionEvent::with_engine(&dpa, Export::ToDpa, &engine)?;
    let (state, _thread, notify) = counter_thread(&dpa, &done)?;

    let outputs = (0..REQUESTS)
        .map(|_| DpaBuffer::<u64>::new(&dpa, THREADS as usize + 1))
        .collect::<doca::dpa::Result<Vec<_>>>()?;
    let started = Instant::now();
    let mut work: Vec<Work<'_>> = Vec::new();
    for (i, out) in outputs.iter().enumerate() {
        let t0 = Instant::now();
        let launch = launcher.launch(&doca_examples::fill_ranks, THREADS, (out, i as u64, 1u32))?;
        work.push(Box::pin(async move {
            launch
                .await
                .map_err(|e| e.to_string())
                .unwrap_or_else(|e| panic!("request {i}: {e}"));
            (format!("request {i:2}"), t0.elapsed())
        }));
    }
    let (done, dpa_ref, notify_ref) = (&done, &dpa, &notify);
    work.push(Box::pin(async move {
        let t0 = Instant::now();
        for round in 1..=ROUND_TRIPS {
            dpa_ref
                .rpc(
                    &doca_examples::wake_counter,
                    (notify_ref,),
                    Duration::from_secs(5),
                )
                .unwrap_or_else(|e| panic!("waking the thread: {e}"));
            done.reached(round)
                .await
                .unwrap_or_else(|e| panic!("round trip {round}: {e}"));
        }
        (format!("{ROUND_TRIPS} thread round trips"), t0.elapsed())
    }));
    let results = join_all(work).await;
    let total = started.elapsed();

    for (what, latency) in &results {
        println!("{what}: {:8.1} µs", latency.as_secs_f64() * 1e6);
    }
    for (i, out) in outputs.iter().enumerate() {
        let got = out.to_vec()?;
        let want: Vec<u64> = (0..THREADS as u64)
            .map(|rank| rank * i as u64 + 1)
            .chain([u64::from(THREADS)])
            .collect();
        if got != want {
            return Err(format!("request {i}: got {got:?}, expected {want:?}").into());
        }
    }
    let activations = state.get()?.activations;
    if activations != ROUND_TRIPS {
        return Err(format!("the thread ran {activations} times, expected {ROUND_TRIPS}").into());
    }
    println!(
        "{REQUESTS} requests and {ROUND_TRIPS} thread round trips awaited concurrently in {:.1} ms",
        total.as_secs_f64() * 1e3
    );
    Ok(())
}
