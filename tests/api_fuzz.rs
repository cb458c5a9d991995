//! A state-machine fuzzer over the safe API: random sequences, over two DPA contexts,
//! of creating buffers, events, launchers, threads and notification completions,
//! RDMI connections, DOCA RDMA contexts, connections, remote maps and events;
//! launching (plain and gated), waiting with short timeouts, `mem::forget`, dropping
//! in any order, waking threads and calling RPCs, with objects of the other context
//! mixed in, while a `tracing` subscriber sometimes panics (caught around each step).
//!
//! The oracle: on the software DPA with its memory checker on, no device fault; every
//! argument of the other context refused; and at the end, once the run-time limit
//! has passed, no live object left except what the library reported buried.
//!
//! A small seeded generator rather than proptest: a failing sequence is reproduced by
//! its seed alone (`DOCA_API_FUZZ_SEED=<seed>`), and the dependency tree stays as it
//! is. `DOCA_API_FUZZ_SEQUENCES=<n>` runs longer (the default is 300 sequences of 40
//! steps). The binary prints
//! `api-fuzz: N sequences, M steps, 0 device faults, 0 host errors, 0 leaks`.
//!
//! Sim builds only: the oracle is the software DPA's memory checker and live-object
//! accounting (`doca::sim`), which a hardware build does not contain.
#![cfg(doca_backend = "sim")]

mod common;

use std::time::Duration;

use common::{doca_tests, PanickingSubscriber, SUBSCRIBER_PANIC};
use doca::dpa::{
    Completion, CompletionBuilder, Dpa, DpaBuffer, DpaThread, Error, Export, Gate, KernelEvent,
    Launcher, NotificationCompletion, ThreadBuilder, ThreadGroup, WaitEvent,
};

const STEPS: usize = 40;
const SHORT: Duration = Duration::from_millis(1);
/// The kernel run-time limit of the fuzzed device, in milliseconds.
const LIMIT_MS: u64 = 2_000;

/// xorshift64*: small, seedable, good enough to pick steps.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// What one sequence holds; every object remembers its context (0 or 1).
#[derive(Default)]
struct World {
    dpas: Vec<Dpa>,
    buffers: Vec<(usize, DpaBuffer<u64>)>,
    events: Vec<(usize, KernelEvent)>,
    gates: Vec<(usize, WaitEvent)>,
    launchers: Vec<(usize, Launcher)>,
    threads: Vec<(usize, DpaThread)>,
    notifications: Vec<(usize, NotificationCompletion)>,
    /// Flags that held kernels and slow thread activations wait for (one word).
    gos: Vec<(usize, DpaBuffer<u64>)>,
    completions: Vec<(usize, Completion)>,
    groups: Vec<(usize, ThreadGroup)>,
    /// RDMI connections and the like, as the RDMI steps keep them; DOCA RDMA
    /// contexts, connections, remote maps and events and local maps too (each its
    /// own entry, dropped in any order).
    rdmi: Vec<(usize, Box<dyn std::any::Any>)>,
    /// What an RDMA peer exported (memory and an event it signals): the peer's,
    /// whose lifetime is its business, not this side's; dropped at the end, once
    /// every launch finished.
    peers: Vec<Box<dyn std::any::Any>>,
    /// Launchers moved to threads of their own, which drop them when the sender
    /// goes (at the end, once every go flag is released).
    parked: Vec<(std::sync::mpsc::Sender<()>, std::thread::JoinHandle<()>)>,
}

fn pick<T>(rng: &mut Rng, v: &[T]) -> Option<usize> {
    (!v.is_empty()).then(|| rng.below(v.len()))
}

/// What a refusal must look like when the contexts differ; anything else is a
/// host error of the oracle.
fn expect_outcome<T>(r: Result<T, Error>, foreign: bool, what: &str) -> Result<Option<T>, String> {
    match (r, foreign) {
        (Ok(v), false) => Ok(Some(v)),
        (Ok(_), true) => Err(format!(
            "{what}: an object of the other context was accepted"
        )),
        (Err(e), true) if e.to_string().contains("DPA context #") => Ok(None),
        (Err(e), _) => Err(format!("{what}: {e}")),
    }
}

/// A new object, or `None` when the device is out of memory: a typed refusal, and
/// expected under valgrind, where the sim's memory checker (which never reuses the
/// address space of a freed block) runs out of address space within a few
/// sequences.
fn made<T>(r: Result<T, Error>) -> Result<Option<T>, String> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.code() == Some(doca::dpa::ErrorCode::NO_MEMORY) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// One step. `Err` is an oracle failure.
fn step(rng: &mut Rng, w: &mut World) -> Result<(), String> {
    let ctx = rng.below(2);
    match rng.below(27) {
        0 | 1 => {
            let len = 1 + rng.below(8);
            let Some(b) = made(DpaBuffer::<u64>::new(&w.dpas[ctx], len))? else {
                return Ok(());
            };
            w.buffers.push((ctx, b));
        }
        2 => {
            let e = KernelEvent::new(&w.dpas[ctx]).map_err(|e| e.to_string())?;
            w.events.push((ctx, e));
        }
        3 => {
            let l = Launcher::new(&w.dpas[ctx]).map_err(|e| e.to_string())?;
            w.launchers.push((ctx, l));
        }
        4 | 5 => {
            // write_ranks(out, value) with a buffer of either context.
            let (Some(l), Some(b)) = (pick(rng, &w.launchers), pick(rng, &w.buffers)) else {
                return Ok(());
            };
            let (lc, launcher) = &w.launchers[l];
            let (bc, buf) = &w.buffers[b];
            let r = launcher.launch(&doca_tests::write_ranks, 1, (buf, rng.next()));
            if let Some(launch) = expect_outcome(r, lc != bc, "write_ranks")? {
                match rng.below(3) {
                    0 => {
                        let _ = launch.wait(SHORT);
                    }
                    // `Launch` holds nothing the device uses: forgetting it must
                    // change nothing, which is what this checks.
                    #[allow(clippy::forget_non_drop)]
                    1 => std::mem::forget(launch),
                    _ => drop(launch),
                }
            }
        }
        6 => {
            // set_event(event, value), gated on a wait event sometimes.
            let (Some(l), Some(e)) = (pick(rng, &w.launchers), pick(rng, &w.events)) else {
                return Ok(());
            };
            let (lc, launcher) = &w.launchers[l];
            let (ec, event) = &w.events[e];
            let gate = pick(rng, &w.gates).filter(|g| w.gates[*g].0 == *lc);
            let r = match gate {
                Some(g) => {
                    let gate = Gate::new(&w.gates[g].1, 1).map_err(|e| e.to_string())?;
                    launcher.launch_gated(gate, &doca_tests::set_event, 1, (event, 1u64))
                }
                None => launcher.launch(&doca_tests::set_event, 1, (event, 1u64)),
            };
            if let Some(launch) = expect_outcome(r, lc != ec, "set_event")? {
                let _ = launch.wait(SHORT);
            }
        }
        7 => {
            let g = WaitEvent::new(&w.dpas[ctx], Export::No).map_err(|e| e.to_string())?;
            w.gates.push((ctx, g));
        }
        8 => {
            if let Some(g) = pick(rng, &w.gates) {
                let _ = w.gates[g].1.set(1);
            }
        }
        9 => {
            // A thread counting its activations in a buffer of either context.
            let Some(b) = pick(rng, &w.buffers) else {
                return Ok(());
            };
            let (bc, buf) = &w.buffers[b];
            let r = ThreadBuilder::new(&w.dpas[ctx], &doca_tests::count_activations, (buf,));
            if let Some(builder) = expect_outcome(r, ctx != *bc, "thread")? {
                let wake = if rng.chance(70) {
                    Wake::Run
                } else {
                    Wake::Never
                };
                start_woken(w, ctx, builder, wake)?;
            }
        }
        10 => {
            // Wake a thread through an RPC on either context.
            let Some(n) = pick(rng, &w.notifications) else {
                return Ok(());
            };
            let (nc, notify) = &w.notifications[n];
            let r = w.dpas[ctx].rpc(&doca_tests::notify, (notify,), common::RPC_TIMEOUT);
            expect_outcome(r, ctx != *nc, "notify")?;
        }
        24 => {
            // Across threads (the objects are `Send + Sync`): a launch with a
            // buffer of either context from another thread, awaited there; then,
            // sometimes, the launcher goes to another thread, which drops it (with
            // whatever it still holds) at the end of the sequence.
            let (Some(l), Some(b)) = (pick(rng, &w.launchers), pick(rng, &w.buffers)) else {
                return Ok(());
            };
            let value = rng.next();
            let (lc, launcher) = &w.launchers[l];
            let (bc, buf) = &w.buffers[b];
            let r = std::thread::scope(|s| {
                s.spawn(|| {
                    launcher
                        .launch(&doca_tests::write_ranks, 1, (buf, value))
                        .map(|launch| launch.wait(SHORT).is_ok())
                })
                .join()
            })
            .map_err(|_| "a launching thread panicked".to_string())?;
            expect_outcome(r, lc != bc, "write_ranks from another thread")?;
            if rng.chance(30) {
                let (_, launcher) = w.launchers.swap_remove(l);
                let (tx, rx) = std::sync::mpsc::channel::<()>();
                let parked = std::thread::spawn(move || {
                    let _ = rx.recv();
                    drop(launcher);
                });
                w.parked.push((tx, parked));
            }
        }
        11 => {
            if let Some(l) = pick(rng, &w.launchers) {
                let _ = w.launchers[l].1.wait_all(SHORT);
            }
        }
        14 => {
            let Some(go) = made(DpaBuffer::<u64>::from_slice(&w.dpas[ctx], &[0]))? else {
                return Ok(());
            };
            w.gos.push((ctx, go));
        }
        15 => {
            // A held kernel: it waits for a go flag, then writes every word of its
            // buffer and adds to its event; the host may drop them all meanwhile.
            let (Some(l), Some(g), Some(b), Some(e)) = (
                pick(rng, &w.launchers),
                pick(rng, &w.gos),
                pick(rng, &w.buffers),
                pick(rng, &w.events),
            ) else {
                return Ok(());
            };
            let (lc, launcher) = &w.launchers[l];
            let ((gc, go), (bc, data), (ec, event)) = (&w.gos[g], &w.buffers[b], &w.events[e]);
            let foreign = [gc, bc, ec].iter().any(|c| *c != lc);
            let words = data.len() as u32;
            let r = launcher.launch(
                &doca_tests::sound_hold_then_write,
                1,
                (go, data, words, event),
            );
            if let Some(launch) = expect_outcome(r, foreign, "sound_hold_then_write")? {
                let _ = launch.wait(SHORT);
            }
        }
        16 => {
            if let Some(g) = pick(rng, &w.gos) {
                let _ = w.gos[g].1.write(0, &[1]);
            }
        }
        17 => {
            // A thread whose activation waits for a go flag, then writes its local
            // storage; woken at once.
            let Some(g) = pick(rng, &w.gos) else {
                return Ok(());
            };
            // Its own 8 words (what the kernel writes), sometimes of the other context;
            // kept in the world's buffers, to be dropped in any order.
            let bc = if rng.chance(10) { 1 - ctx } else { ctx };
            let Some(storage) = made(DpaBuffer::<u64>::new(&w.dpas[bc], 8))? else {
                return Ok(());
            };
            let (gc, go) = &w.gos[g];
            let r = ThreadBuilder::new(&w.dpas[ctx], &doca_tests::sound_slow_thread, (go,))
                .and_then(|t| t.local_storage(&storage));
            w.buffers.push((bc, storage));
            if let Some(builder) = expect_outcome(r, ctx != *gc || ctx != bc, "slow thread")? {
                start_woken(w, ctx, builder, Wake::Notify)?;
            }
        }
        18 => {
            // A completion that wakes a counting thread; kernels post to it.
            let Some(b) = pick(rng, &w.buffers) else {
                return Ok(());
            };
            let (bc, buf) = &w.buffers[b];
            if *bc != ctx {
                return Ok(());
            }
            let t = ThreadBuilder::new(&w.dpas[ctx], &doca_tests::count_activations, (buf,))
                .and_then(|t| t.start())
                .map_err(|e| e.to_string())?;
            let c = CompletionBuilder::new(&w.dpas[ctx], 4)
                .and_then(|c| c.thread(&t))
                .and_then(|c| c.start())
                .map_err(|e| e.to_string())?;
            c.run_thread().map_err(|e| e.to_string())?;
            w.completions.push((ctx, c));
            w.threads.push((ctx, t));
        }
        19 => {
            // Post to a completion (of either context) from a kernel.
            let (Some(l), Some(c), Some(b)) = (
                pick(rng, &w.launchers),
                pick(rng, &w.completions),
                pick(rng, &w.buffers),
            ) else {
                return Ok(());
            };
            let ((lc, launcher), (cc, comp), (bc, out)) =
                (&w.launchers[l], &w.completions[c], &w.buffers[b]);
            let r = launcher.launch(&doca_tests::i4_post_completion, 1, (comp, 7u32, out));
            if let Some(launch) = expect_outcome(r, cc != lc || bc != lc, "i4_post_completion")? {
                let _ = launch.wait(SHORT);
            }
        }
        20 => {
            // A group of two counting threads, each woken by a notification.
            let Some(b) = pick(rng, &w.buffers) else {
                return Ok(());
            };
            let (bc, buf) = &w.buffers[b];
            let builders = (0..2)
                .map(|_| ThreadBuilder::new(&w.dpas[*bc], &doca_tests::count_activations, (buf,)))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| e.to_string())?;
            let r = ThreadGroup::new(&w.dpas[ctx], builders);
            if let Some(group) = expect_outcome(r, ctx != *bc, "thread group")? {
                for t in group.threads() {
                    let n = NotificationCompletion::new(t).map_err(|e| e.to_string())?;
                    n.run_thread().map_err(|e| e.to_string())?;
                    w.notifications.push((ctx, n));
                }
                w.groups.push((ctx, group));
            }
        }
        21 => {
            // A typed pointer parameter: exactly the buffer's words.
            let (Some(l), Some(b)) = (pick(rng, &w.launchers), pick(rng, &w.buffers)) else {
                return Ok(());
            };
            let ((lc, launcher), (bc, out)) = (&w.launchers[l], &w.buffers[b]);
            let r = launcher.launch(&doca_tests::sound_store_words, 1, (out, out.len() as u32));
            if let Some(launch) = expect_outcome(r, lc != bc, "sound_store_words")? {
                let _ = launch.wait(SHORT);
            }
        }
        22 => rdmi_step(rng, w, ctx)?,
        25 => rdma_step(rng, w, ctx)?,
        26 => comch_step(rng, w, ctx)?,
        _ => {
            // Drop something, in any order.
            match rng.below(10) {
                6 => {
                    // Released before it goes (else its kernels never end).
                    if let Some(i) = pick(rng, &w.gos) {
                        let (_, g) = w.gos.swap_remove(i);
                        let _ = g.write(0, &[1]);
                    }
                }
                7 => drop(pick(rng, &w.completions).map(|i| w.completions.swap_remove(i))),
                8 => drop(pick(rng, &w.groups).map(|i| w.groups.swap_remove(i))),
                9 => drop(pick(rng, &w.rdmi).map(|i| w.rdmi.swap_remove(i))),
                0 => drop(pick(rng, &w.buffers).map(|i| w.buffers.swap_remove(i))),
                1 => drop(pick(rng, &w.events).map(|i| w.events.swap_remove(i))),
                2 => {
                    if let Some(i) = pick(rng, &w.launchers) {
                        // Its gates first: a launcher dropped with a launch held by a
                        // closed gate waits out the run-time limit and leaks it
                        // (tests/soundness.rs shows that), which would blur this
                        // oracle's leak count.
                        let (lc, l) = w.launchers.swap_remove(i);
                        for (_, g) in w.gates.iter().filter(|(c, _)| *c == lc) {
                            let _ = g.set(1);
                        }
                        // Likewise the flags its held kernels wait for (else the
                        // watchdog ends them: a fault this program provoked).
                        for (_, g) in w.gos.iter().filter(|(c, _)| *c == lc) {
                            let _ = g.write(0, &[1]);
                        }
                        drop(l);
                    }
                }
                3 => drop(pick(rng, &w.threads).map(|i| w.threads.swap_remove(i))),
                4 => drop(pick(rng, &w.notifications).map(|i| w.notifications.swap_remove(i))),
                _ => {
                    // A gate is opened before it goes: a launch held by a gate that
                    // nobody can open any more never finishes (that is the program's
                    // hang, not the library's), and its launcher's drop would leak.
                    if let Some(i) = pick(rng, &w.gates) {
                        let (_, g) = w.gates.swap_remove(i);
                        let _ = g.set(1);
                    }
                }
            }
        }
    }
    Ok(())
}

/// Why a sequence failed the oracle.
enum Failure {
    /// A device fault (the memory checker's, or any other): the context is fatal.
    Device(String),
    /// The host side: an unexpected error, an accepted foreign object, a stray panic.
    Host(String),
}

/// How far a new thread is taken towards an activation.
enum Wake {
    /// Started, with a notification, never made runnable.
    Never,
    /// Made runnable (`doca_dpa_thread_run`).
    Run,
    /// Made runnable and notified at once (an RPC).
    Notify,
}

/// Starts `builder`'s thread on context `ctx` with a notification completion, woken
/// as `wake` says; the world keeps both.
fn start_woken(
    w: &mut World,
    ctx: usize,
    builder: doca::dpa::ThreadBuilder,
    wake: Wake,
) -> Result<(), String> {
    let t = builder.start().map_err(|e| e.to_string())?;
    let n = NotificationCompletion::new(&t).map_err(|e| e.to_string())?;
    if !matches!(wake, Wake::Never) {
        n.run_thread().map_err(|e| e.to_string())?;
    }
    if matches!(wake, Wake::Notify) {
        w.dpas[ctx]
            .rpc(&doca_tests::notify, (&n,), common::RPC_TIMEOUT)
            .map_err(|e| e.to_string())?;
    }
    w.threads.push((ctx, t));
    w.notifications.push((ctx, n));
    Ok(())
}

/// Runs one sequence; returns the steps run, or the failure.
fn sequence(seed: u64) -> Result<usize, Failure> {
    // splitmix64 of the seed: neighbouring seeds start far apart.
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let mut rng = Rng((z ^ (z >> 31)) | 1);
    let mut w = World {
        dpas: vec![common::dpa(), common::dpa()],
        ..World::default()
    };
    for i in 0..STEPS {
        let panicky = rng.chance(10);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if panicky {
                tracing::subscriber::with_default(
                    PanickingSubscriber::at(tracing::Level::TRACE),
                    || step(&mut rng, &mut w),
                )
            } else {
                step(&mut rng, &mut w)
            }
        }));
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(why)) => return Err(fault_or(&w, format!("step {i}: {why}"))),
            // Only the subscriber panics (the step was run with it on purpose).
            Err(_) if panicky => {}
            Err(_) => {
                return Err(Failure::Host(format!(
                    "step {i}: a panic without a panicking subscriber"
                )))
            }
        }
    }
    // Release every gate, so that every held launch can finish. Half the time
    // everything but the launchers and the go flags goes first: then held kernels
    // and waiting thread activations run on what only the library still holds.
    for (_, g) in &w.gates {
        let _ = g.set(1);
    }
    if rng.chance(50) {
        w.buffers.clear();
        w.events.clear();
        w.threads.clear();
        w.notifications.clear();
        w.completions.clear();
        w.groups.clear();
        w.rdmi.clear();
    }
    for (_, g) in &w.gos {
        let _ = g.write(0, &[1]);
    }
    // Let released thread activations run.
    std::thread::sleep(Duration::from_millis(2));
    // Launchers parked on threads of their own drop there, their launches
    // released.
    for (go, parked) in std::mem::take(&mut w.parked) {
        drop(go);
        parked
            .join()
            .map_err(|_| fault_or(&w, "a parked launcher's drop panicked".to_string()))?;
    }
    for (_, l) in &w.launchers {
        l.wait_all(Duration::from_secs(10))
            .map_err(|e| fault_or(&w, format!("final wait: {e}")))?;
    }
    w.peers.clear();
    match fault(&w) {
        Some(f) => Err(Failure::Device(f)),
        None => Ok(STEPS),
    }
}

/// The device fault of either context, if one is fatal.
fn fault(w: &World) -> Option<String> {
    w.dpas.iter().enumerate().find_map(|(i, d)| {
        (d.health().ok() != Some(doca::dpa::Health::Ok))
            .then(|| format!("context {i}: {}", d.fault_report().unwrap_or_default()))
    })
}

/// A failure: the device's, if a context is fatal, else the host's.
fn fault_or(w: &World, host: String) -> Failure {
    match fault(w) {
        Some(f) => Failure::Device(format!("{f} ({host})")),
        None => Failure::Host(host),
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

#[test]
fn random_sequences_of_safe_calls_stay_sound() {
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let ours = info
            .payload()
            .downcast_ref::<String>()
            .is_some_and(|m| m.starts_with(SUBSCRIBER_PANIC));
        if !ours {
            quiet(info);
        }
    }));
    let scope = doca::sim::Scope::new();
    // A run-time limit long enough for a held kernel to wait for its flag within a
    // sequence (under valgrind too), short enough that the records of stopped
    // threads are released during the run; on a BlueField's Arm side, whose
    // representors the RDMI steps need.
    let mut profile = doca::sim::Profile::dpu_view();
    for d in &mut profile.devices {
        if d.dpa {
            d.kernel_max_run_time_ms = LIMIT_MS;
        }
    }
    scope.set_profile(profile);
    let buried_before = doca::dpa::buried_count();
    let (seeds, first): (u64, u64) = match env_u64("DOCA_API_FUZZ_SEED") {
        Some(seed) => (1, seed),
        None => {
            let n = env_u64("DOCA_API_FUZZ_SEQUENCES").unwrap_or(if common::under_valgrind() {
                20
            } else {
                300
            });
            (n, 0x5EED_0000)
        }
    };
    let (mut sequences, mut steps, mut faults, mut host_errors) = (0u64, 0usize, 0usize, 0usize);
    for seed in first..first + seeds {
        let why = match sequence(seed) {
            Ok(n) => {
                steps += n;
                None
            }
            Err(Failure::Device(why)) => {
                faults += 1;
                Some(why)
            }
            Err(Failure::Host(why)) => {
                host_errors += 1;
                Some(why)
            }
        };
        if let Some(why) = why {
            eprintln!("api-fuzz: seed {seed} failed (rerun with DOCA_API_FUZZ_SEED={seed}): {why}");
        }
        sequences += 1;
    }
    // Whatever stopped threads still hold goes once the run-time limit has passed.
    common::deferred_released(Duration::from_millis(LIMIT_MS) + Duration::from_secs(10));
    let buried = doca::dpa::buried_count() - buried_before;
    let live: i64 = scope
        .live_objects()
        .into_iter()
        .filter(|(kind, _)| !matches!(*kind, "doca_dev" | "doca_devinfo"))
        .map(|(_, n)| n)
        .sum();
    // Nothing in these sequences needs burying (every gate opens, every kernel
    // ends): a live object is a leak unless the library reported burying values.
    let leaks = if buried == 0 { live.max(0) as usize } else { 0 };
    println!(
        "api-fuzz: {sequences} sequences, {steps} steps, {faults} device faults, {host_errors} host errors, {leaks} leaks"
    );
    if buried > 0 {
        println!("api-fuzz: {buried} values buried (leaked on purpose, with a warning), {live} objects live");
    }
    assert_eq!(faults + host_errors, 0, "failing seeds above");
    assert_eq!(
        leaks,
        0,
        "objects left alive that nothing reported buried: {:?}",
        scope.live_objects()
    );
}

doca::rdmi::if_rdmi! {
    /// An RDMI connection on one context, its completion of either context (a
    /// foreign one is refused at start), used by a held kernel, dropped in any order.
    fn rdmi_step(rng: &mut Rng, w: &mut World, ctx: usize) -> Result<(), String> {
        use doca::dpa::RepresentorFilter;
        use doca::rdmi::{CompletionSource, ConnectionBuilder, ProtectionDomain, ReceiveBuffer, VerbsContext};
        let dpa = &w.dpas[ctx];
        let comp_ctx = if rng.chance(20) { 1 - ctx } else { ctx };
        let comp = CompletionBuilder::new(&w.dpas[comp_ctx], 16)
            .and_then(|c| c.start())
            .map_err(|e| e.to_string())?;
        let device = dpa.device().clone();
        let Some(rep) = device
            .open_representors(RepresentorFilter::NET)
            .map_err(|e| e.to_string())?
            .into_iter()
            .next()
        else {
            return Ok(());
        };
        let verbs = VerbsContext::new(&device).map_err(|e| e.to_string())?;
        let pd = ProtectionDomain::new(&verbs).map_err(|e| e.to_string())?;
        let receive = ReceiveBuffer::with_slots(2).map_err(|e| e.to_string())?;
        let started = ConnectionBuilder::new(&verbs, &rep, dpa, CompletionSource::Dpa(&comp), receive)
            .pd(&pd)
            .start();
        let conn = match (started, comp_ctx != ctx) {
            (Ok(c), false) => c,
            (Ok(_), true) => return Err("a connection with a foreign completion started".into()),
            (Err(_), true) => return Ok(()),
            (Err(e), false) => return Err(format!("rdmi connection: {e}")),
        };
        // A held kernel on either context's launcher gets the connection.
        if let (Some(l), Some(g), Some(b)) = (pick(rng, &w.launchers), pick(rng, &w.gos), pick(rng, &w.buffers)) {
            let ((lc, launcher), (gc, go), (bc, out)) = (&w.launchers[l], &w.gos[g], &w.buffers[b]);
            let foreign = *lc != ctx || gc != lc || bc != lc;
            let r = launcher.launch(&doca_tests::sound_hold_connection, 1, (go, &conn, out));
            expect_outcome(r.map(drop), foreign, "sound_hold_connection")?;
        }
        w.rdmi.push((ctx, Box::new((conn, comp))));
        Ok(())
    }
}

doca::rdma::if_rdma! {
    #[path = "rdma/setup.rs"]
    mod rdma_setup;

    /// Two DOCA RDMA contexts on one context (a completion of the other context
    /// is refused), connected after garbage details; the peer exports memory and
    /// an event, this side makes a remote map and event of them; a held kernel on
    /// either context's launcher writes and signals through them (refused when
    /// anything is of the other context); sometimes a stop while it holds them;
    /// then every object of this side is kept on its own, to be dropped in any
    /// order.
    fn rdma_step(rng: &mut Rng, w: &mut World, ctx: usize) -> Result<(), String> {
        use doca::dpa::{AccessFlags, DpaMmap, RdmaExport, SignalEvent};
        use doca::rdma::{RdmaBuilder, RemoteEvent, RemoteMmap};
        let s = |e: Error| e.to_string();
        let dpa = w.dpas[ctx].clone();
        if rng.chance(10) {
            let foreign = CompletionBuilder::new(&w.dpas[1 - ctx], 16).and_then(|c| c.start()).map_err(s)?;
            return match RdmaBuilder::new(&dpa, &foreign) {
                Err(e) if e.is_invalid_argument() => Ok(()),
                other => Err(format!("an RDMA context with a foreign completion: {other:?}")),
            };
        }
        let (a, b) = (rdma_setup::rdma(&dpa, 1).map_err(s)?, rdma_setup::rdma(&dpa, 1).map_err(s)?);
        let (x, y) = (a.export().map_err(s)?, b.export().map_err(s)?);
        let x = if rng.chance(30) {
            match x.connect(&rng.next().to_le_bytes()) {
                Ok(_) => return Err("garbage details connected a connection".into()),
                Err(e) => e.into_parts().1,
            }
        } else {
            x
        };
        let x_details = x.details().to_vec();
        let conn = x.connect(y.details()).map_err(|e| e.to_string())?;
        let peer_conn = y.connect(&x_details).map_err(|e| e.to_string())?;
        // The peer's side.
        let landing = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(s)?;
        let landing_map = DpaMmap::with_access(&dpa, &landing, 0, 1, AccessFlags::RDMA_ALL).map_err(s)?;
        let export = landing_map.export_rdma().map_err(s)?.to_bytes();
        let signal = SignalEvent::new(&dpa).map_err(s)?;
        let signal_bytes = signal.export().map_err(s)?;
        // This side, from the bytes.
        let remote = RemoteMmap::new(&dpa, &RdmaExport::from_bytes(&export).map_err(s)?).map_err(s)?;
        let remote_signal = RemoteEvent::new(&dpa, &signal_bytes).map_err(s)?;
        let src = DpaBuffer::<u64>::from_slice(&dpa, &[rng.next()]).map_err(s)?;
        let src_map = DpaMmap::with_access(&dpa, &src, 0, 1, AccessFlags::LOCAL_READ_WRITE).map_err(s)?;
        if let (Some(l), Some(g), Some(o)) = (pick(rng, &w.launchers), pick(rng, &w.gos), pick(rng, &w.buffers)) {
            let ((lc, launcher), (gc, go), (oc, out)) = (&w.launchers[l], &w.gos[g], &w.buffers[o]);
            let foreign = *lc != ctx || gc != lc || oc != lc;
            let r = launcher.launch(
                &doca_tests::sound_hold_remote,
                1,
                (go, &conn, conn.id(), &remote, remote.addr(), &src_map, &src, &remote_signal, out),
            );
            expect_outcome(r.map(drop), foreign, "sound_hold_remote")?;
        }
        let a = if rng.chance(30) {
            match a.stop() {
                Ok(()) => return Err("a context with a connection was stopped".into()),
                Err(e) if matches!(e.error(), Error::InUse { .. }) => {
                    e.into_parts().1.ok_or("a refused stop kept the context")?
                }
                Err(e) => return Err(format!("stop: {e}")),
            }
        } else {
            a
        };
        w.peers.push(Box::new((landing, landing_map, signal, b, peer_conn)));
        for part in [
            Box::new(a) as Box<dyn std::any::Any>,
            Box::new(conn),
            Box::new(remote),
            Box::new(remote_signal),
            Box::new(src),
            Box::new(src_map),
        ] {
            w.rdmi.push((ctx, part));
        }
        Ok(())
    }
}

doca::rdma::if_no_rdma! {
    fn rdma_step(_: &mut Rng, _: &mut World, _: usize) -> Result<(), String> {
        Ok(())
    }
}

doca::rdmi::if_no_rdmi! {
    fn rdmi_step(_: &mut Rng, _: &mut World, _: usize) -> Result<(), String> {
        Ok(())
    }
}

// ---- DPA Comms message queues (issue #35) ---------------------------------------------

doca::comch::if_comch! {
    #[path = "comch/setup.rs"]
    mod comch_setup;

    /// A message queue on one context with a consumer (its completion context's
    /// thread runnable or not) and a producer; sometimes a consumer completion
    /// context or a DPA completion of the other context, refused; a held kernel on
    /// either context's launcher that posts a receive, sends on the queue and
    /// re-arms the completion context (refused when anything is of the other
    /// context); sometimes a stop while something holds the object (refused, the
    /// object back); then every object is kept on its own (with the RDMI and RDMA
    /// objects), to be dropped in any order.
    fn comch_step(rng: &mut Rng, w: &mut World, ctx: usize) -> Result<(), String> {
        let s = |e: Error| e.to_string();
        let dpa = w.dpas[ctx].clone();
        let m = comch_setup::msgq(&dpa, rng.chance(50)).map_err(s)?;
        if rng.chance(10) {
            let other = &w.dpas[1 - ctx];
            let refused = if rng.chance(50) {
                let (thread, _arg) = comch_setup::idle_thread(other).map_err(s)?;
                let foreign = comch_setup::completion(&thread, false).map_err(s)?;
                m.queue.consumer(&foreign).map(drop)
            } else {
                let foreign = CompletionBuilder::new(other, 16).and_then(|c| c.start()).map_err(s)?;
                m.queue.producer(&foreign).map(drop)
            };
            expect_outcome(refused, true, "a Comch side with a foreign completion")?;
        }
        if let (Some(l), Some(g), Some(o)) = (pick(rng, &w.launchers), pick(rng, &w.gos), pick(rng, &w.buffers)) {
            let ((lc, launcher), (gc, go), (oc, out)) = (&w.launchers[l], &w.gos[g], &w.buffers[o]);
            let foreign = *lc != ctx || gc != lc || oc != lc;
            let r = launcher.launch(
                &doca_tests::comch_hold,
                1,
                (go, &m.consumer, &m.producer, m.consumer.id(), rng.next() as u32, &m.completion, out),
            );
            expect_outcome(r.map(drop), foreign, "comch_hold")?;
        }
        let comch_setup::Msgq { queue, consumer, producer, completion, thread, arg } = m;
        // The consumer and producer hold the queue, the consumer its completion
        // context: these stops are always refused.
        let queue = if rng.chance(30) { stop_refused(queue.stop(), "message queue")? } else { queue };
        let completion = if rng.chance(30) {
            stop_refused(completion.stop(), "consumer completion context")?
        } else {
            completion
        };
        for part in [
            Box::new(queue) as Box<dyn std::any::Any>,
            Box::new(consumer),
            Box::new(producer),
            Box::new(completion),
            Box::new(thread),
            Box::new(arg),
        ] {
            w.rdmi.push((ctx, part));
        }
        Ok(())
    }

    /// The object of a stop that must be refused (something holds it).
    fn stop_refused<T>(r: Result<(), doca::comch::StopError<T>>, what: &str) -> Result<T, String> {
        match r {
            Ok(()) => Err(format!("the {what} was stopped while in use")),
            Err(e) if matches!(e.error(), Error::InUse { .. }) => {
                e.into_parts().1.ok_or_else(|| format!("a refused stop kept the {what}"))
            }
            Err(e) => Err(format!("stopping the {what}: {e}")),
        }
    }
}

doca::comch::if_no_comch! {
    fn comch_step(_: &mut Rng, _: &mut World, _: usize) -> Result<(), String> {
        Ok(())
    }
}

// ---- end of DPA Comms ------------------------------------------------------------------
