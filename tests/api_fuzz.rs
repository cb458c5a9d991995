//! A state-machine fuzzer over the safe API: random sequences, over two DPA contexts,
//! of creating buffers, events, launchers, threads and notification completions;
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

mod common;

use std::time::Duration;

use common::doca_tests;
use doca::dpa::{
    Dpa, DpaBuffer, DpaThread, Error, Export, Gate, KernelEvent, Launcher,
    NotificationCompletion, ThreadBuilder, WaitEvent,
};

const STEPS: usize = 40;
const SHORT: Duration = Duration::from_millis(1);

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

/// A subscriber whose first event panics: user code that the library's paths
/// (teardown included) reach through `tracing`. Once only, and never while a panic
/// unwinds (a second panic would abort the process, which is the subscriber's doing).
struct PanickingSubscriber {
    fired: std::sync::atomic::AtomicBool,
}

impl PanickingSubscriber {
    fn new() -> PanickingSubscriber {
        PanickingSubscriber {
            fired: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

/// The message of the subscriber's panics, which the panic hook keeps quiet.
const PANIC_MESSAGE: &str = "api-fuzz: a subscriber that panics";

impl tracing::Subscriber for PanickingSubscriber {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, e: &tracing::Event<'_>) {
        if !std::thread::panicking() && !self.fired.swap(true, std::sync::atomic::Ordering::Relaxed) {
            panic!("{PANIC_MESSAGE} on {}", e.metadata().target());
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
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
}

fn pick<T>(rng: &mut Rng, v: &[T]) -> Option<usize> {
    (!v.is_empty()).then(|| rng.below(v.len()))
}

/// What a refusal must look like when the contexts differ; anything else is a
/// host error of the oracle.
fn expect_outcome<T>(r: Result<T, Error>, foreign: bool, what: &str) -> Result<Option<T>, String> {
    match (r, foreign) {
        (Ok(v), false) => Ok(Some(v)),
        (Ok(_), true) => Err(format!("{what}: an object of the other context was accepted")),
        (Err(e), true) if e.to_string().contains("DPA context #") => Ok(None),
        (Err(e), _) => Err(format!("{what}: {e}")),
    }
}

/// One step. `Err` is an oracle failure.
fn step(rng: &mut Rng, w: &mut World) -> Result<(), String> {
    let ctx = rng.below(2);
    match rng.below(14) {
        0 | 1 => {
            let len = 1 + rng.below(8);
            let b = DpaBuffer::<u64>::new(&w.dpas[ctx], len).map_err(|e| e.to_string())?;
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
                let t = builder.start().map_err(|e| e.to_string())?;
                let n = NotificationCompletion::new(&t).map_err(|e| e.to_string())?;
                if rng.chance(70) {
                    n.run_thread().map_err(|e| e.to_string())?;
                }
                w.threads.push((ctx, t));
                w.notifications.push((ctx, n));
            }
        }
        10 => {
            // Wake a thread through an RPC on either context.
            let Some(n) = pick(rng, &w.notifications) else {
                return Ok(());
            };
            let (nc, notify) = &w.notifications[n];
            let r = w.dpas[ctx].rpc(&doca_tests::notify, (notify,));
            expect_outcome(r, ctx != *nc, "notify")?;
        }
        11 => {
            if let Some(l) = pick(rng, &w.launchers) {
                let _ = w.launchers[l].1.wait_all(SHORT);
            }
        }
        _ => {
            // Drop something, in any order.
            match rng.below(6) {
                0 => drop(pick(rng, &w.buffers).map(|i| w.buffers.swap_remove(i))),
                1 => drop(pick(rng, &w.events).map(|i| w.events.swap_remove(i))),
                2 => {
                    if let Some(i) = pick(rng, &w.launchers) {
                        // Its gates first: a launcher dropped with a launch held by a
                        // closed gate leaks it (tests/soundness.rs shows that), which
                        // would blur this oracle's leak count.
                        let (lc, l) = w.launchers.swap_remove(i);
                        for (_, g) in w.gates.iter().filter(|(c, _)| *c == lc) {
                            let _ = g.set(1);
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
                tracing::subscriber::with_default(PanickingSubscriber::new(), || step(&mut rng, &mut w))
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
    // Release every gate, so that every held launch can finish, then drop it all.
    for (_, g) in &w.gates {
        let _ = g.set(1);
    }
    for (_, l) in &w.launchers {
        l.wait_all(Duration::from_secs(10))
            .map_err(|e| fault_or(&w, format!("final wait: {e}")))?;
    }
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
    if doca::dpa::build_info::BACKEND != "sim" {
        eprintln!("api-fuzz: needs the software DPA's memory checker; skipped");
        return;
    }
    let quiet = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let ours = info
            .payload()
            .downcast_ref::<String>()
            .is_some_and(|m| m.starts_with(PANIC_MESSAGE));
        if !ours {
            quiet(info);
        }
    }));
    let scope = doca_sim::Scope::new();
    let mut profile = doca_sim::Profile::default();
    for d in &mut profile.devices {
        if d.dpa {
            d.kernel_max_run_time_ms = 300;
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
    std::thread::sleep(Duration::from_millis(400));
    doca::dpa::release_deferred();
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
    assert_eq!(leaks, 0, "objects left alive that nothing reported buried: {:?}", scope.live_objects());
}
