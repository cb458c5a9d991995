//! A Rust service on tokio's multi-threaded runtime sharing one DPA between its
//! tasks: the shared state (an `Arc`) holds the DPA context, one launcher and the
//! requests' buffers; `TASKS` spawned tasks each launch kernels and await them
//! (any worker thread may poll them), then check what the kernels wrote; another
//! task makes round trips to a persistent DPA thread. It prints the tasks, the
//! launches, the failures and the launches per second, and fails if any result is
//! wrong.
//!
//! `cargo run --example service` (on the software DPA where DOCA is absent).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use doca::dpa::{
    CompletionEvent, Device, Dpa, DpaBox, DpaBuffer, DpaThread, Engine, Export, Launcher,
    NotificationCompletion,
};

include!("common_app.rs.in");
include!("counter_thread.rs.in");

/// Tasks launching kernels concurrently.
const TASKS: usize = 8;
/// Launches each task makes (and awaits, one after the other).
const LAUNCHES: u64 = 50;
/// DPA threads per kernel.
const THREADS: u32 = 4;
/// Round trips to the persistent DPA thread.
const ROUND_TRIPS: u64 = 4;

/// What every task shares: `Send + Sync`, so one `Arc` of it goes to each task.
struct Service {
    dpa: Dpa,
    launcher: Launcher,
    /// One output buffer per task: a task's kernels write only its own.
    outputs: Vec<DpaBuffer<u64>>,
    /// The persistent thread, its wake-up notification and the event it bumps.
    _thread: DpaThread,
    notify: NotificationCompletion,
    done: CompletionEvent,
    state: DpaBox<doca_examples::counter_state>,
    failures: AtomicU64,
}

impl Service {
    fn fail(&self, what: String) {
        eprintln!("failure: {what}");
        self.failures.fetch_add(1, Ordering::Relaxed);
    }
}

/// One task's requests: launch `fill_ranks` on its buffer, await it, check it.
async fn requests(service: Arc<Service>, task: usize) {
    let out = &service.outputs[task];
    for n in 0..LAUNCHES {
        let launched = service.launcher.launch(
            &doca_examples::fill_ranks,
            THREADS,
            (out, task as u64 + 1, n as u32),
        );
        let result = match launched {
            Ok(launch) => launch.await,
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            service.fail(format!("task {task}, launch {n}: {e}"));
            continue;
        }
        let want: Vec<u64> = (0..u64::from(THREADS))
            .map(|rank| rank * (task as u64 + 1) + n)
            .chain([u64::from(THREADS)])
            .collect();
        match out.to_vec() {
            Ok(got) if got == want => {}
            Ok(got) => service.fail(format!("task {task}, launch {n}: {got:?} != {want:?}")),
            Err(e) => service.fail(format!("task {task}, reading launch {n}: {e}")),
        }
    }
}

/// How long an RPC that wakes the thread may take (it only notifies).
const RPC_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Round trips to the persistent thread: an RPC notifies it, it bumps the event.
async fn round_trips(service: Arc<Service>) {
    for round in 1..=ROUND_TRIPS {
        if let Err(e) = service.dpa.rpc(
            &doca_examples::wake_counter,
            (&service.notify,),
            RPC_TIMEOUT,
        ) {
            service.fail(format!("waking the thread: {e}"));
            return;
        }
        if let Err(e) = service.done.reached(round).await {
            service.fail(format!("round trip {round}: {e}"));
            return;
        }
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() -> Result<(), Report> {
    println!("backend: {}", doca::dpa::build_info::BACKEND);
    let device =
        Device::open_named_or_first_with_dpa(std::env::var("DOCA_DEVICE").ok().as_deref())?;
    let dpa = Dpa::start(&device, doca_examples::app())?;
    let engine = Engine::new()?;
    let done = CompletionEvent::with_engine(&dpa, Export::ToDpa, &engine)?;
    let (state, thread, notify) = counter_thread(&dpa, &done)?;
    let service = Arc::new(Service {
        launcher: Launcher::with_engine(&dpa, &engine)?,
        outputs: (0..TASKS)
            .map(|_| DpaBuffer::<u64>::new(&dpa, THREADS as usize + 1))
            .collect::<doca::dpa::Result<_>>()?,
        dpa,
        _thread: thread,
        notify,
        done,
        state,
        failures: AtomicU64::new(0),
    });

    let started = Instant::now();
    let mut tasks = Vec::new();
    for task in 0..TASKS {
        tasks.push(tokio::spawn(requests(service.clone(), task)));
    }
    tasks.push(tokio::spawn(round_trips(service.clone())));
    for task in tasks {
        if let Err(e) = task.await {
            service.fail(format!("a task ended abnormally: {e}"));
        }
    }
    let elapsed = started.elapsed();

    let activations = service.state.get()?.activations;
    if activations != ROUND_TRIPS {
        service.fail(format!(
            "the thread ran {activations} times, expected {ROUND_TRIPS}"
        ));
    }
    let launches = TASKS as u64 * LAUNCHES;
    let failures = service.failures.load(Ordering::Relaxed);
    println!("tasks: {TASKS} (+1 for {ROUND_TRIPS} DPA-thread round trips)");
    println!("launches: {launches}");
    println!("failures: {failures}");
    println!(
        "launches per second: {:.0}",
        launches as f64 / elapsed.as_secs_f64()
    );
    if failures > 0 {
        return Err(format!("{failures} failures").into());
    }
    Ok(())
}
