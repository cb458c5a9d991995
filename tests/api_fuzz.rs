//! A state-machine fuzzer over the safe API: random sequences, over two DPA contexts
//! (and an extension of the first), of creating buffers, events, launchers, threads,
//! notification completions, boxes, RDMI connections, DOCA RDMA contexts,
//! connections, remote maps and events; launching (plain and gated), waiting with
//! short timeouts, `mem::forget`, dropping in any order, waking threads, calling RPCs
//! and setting boxes over and over, with objects of the other context mixed in, while
//! a `tracing` subscriber sometimes panics or calls back into the library (around
//! each step), and a waker sometimes does. Device run-time limits differ: the
//! extension's device has a longer one than its base (issue #33, R2), and a third
//! device has none (R1).
//!
//! The oracle: on the software DPA with its memory checker on, no device fault; every
//! argument of the other context refused; and at the end, once the run-time limits
//! have passed, no live object left but what the records of stopped threads without
//! a run-time limit keep for good (each one measured before the run, and counted).
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

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{doca_tests, PanickingSubscriber, SUBSCRIBER_PANIC};
use doca::dpa::{
    Completion, CompletionBuilder, Dev, Device, Dpa, DpaBox, DpaBuffer, DpaThread, Engine, Error,
    Export, Gate, KernelEvent, Launcher, NotificationCompletion, ThreadBuilder, ThreadGroup,
    WaitEvent,
};

const STEPS: usize = 40;
const SHORT: Duration = Duration::from_millis(1);
/// The kernel run-time limit of the fuzzed device, in milliseconds: long enough for a
/// held kernel to wait for its flag within a sequence (under valgrind too), short
/// enough that the records of stopped threads are released during the run and that
/// the wait for the last ones at the end stays short.
fn limit_ms() -> u64 {
    if common::under_valgrind() {
        2_000
    } else {
        1_000
    }
}
/// The device context 0 is extended onto (the SF of the DPU-side profile), whose
/// run-time limit is a quarter longer than its base's, as an SF's may be.
const EXT_DEVICE: &str = "mlx5_3";
fn ext_limit_ms() -> u64 {
    limit_ms() * 5 / 4
}
/// A second BlueField-3 PF added to the profile, with no run-time limit (0).
const ZERO_LIMIT_DEVICE: &str = "mlx5_4";
/// How many records of stopped threads on `ZERO_LIMIT_DEVICE` were kept for good.
static ZERO_KEPT: AtomicUsize = AtomicUsize::new(0);
/// How many times a waker called back into the library, and how many box values were
/// set (shown, to see that the steps ran).
static WAKER_CALLS: AtomicUsize = AtomicUsize::new(0);
static BOX_SETS: AtomicUsize = AtomicUsize::new(0);

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
    /// Boxes of `struct r5_state`, set over and over.
    boxes: Vec<(usize, DpaBox<doca_tests::r5_state>)>,
    /// The progress engine of the launchers whose launches are awaited.
    engine: Option<Engine>,
    /// Those launchers: dropped at the end of the sequence, with no subscriber (a
    /// panicking one makes their drop bury what their engine's wait task uses, a
    /// sound leak this oracle would have to tell from a real one).
    awaited: Vec<(usize, Launcher)>,
    /// Whether this step runs under a panicking subscriber.
    panicky: bool,
    /// Whether this sequence ran its thread on the device without a limit.
    zero_done: bool,
}

/// The index of the context extending context 0 onto `EXT_DEVICE` (made on first use).
fn extension(w: &mut World) -> Result<usize, String> {
    if w.dpas.len() < 3 {
        let device = Device::open_by_ibdev_name(EXT_DEVICE).map_err(|e| e.to_string())?;
        let ext = w.dpas[0].extend(&device).map_err(|e| e.to_string())?;
        w.dpas.push(ext);
    }
    Ok(2)
}

/// A slow thread on a context of its own on `ZERO_LIMIT_DEVICE`: dropped (with its
/// notification and local storage, in any order) while its activation waits for its
/// flag, then released. Nothing bounds that activation, so the thread's record, and
/// the context with it, is kept for good (issue #33, R1: it was released 50 ms after
/// the stop); `ZERO_KEPT` counts them. Whether the activation then used only live
/// memory is the context's health.
fn zero_limit_thread(rng: &mut Rng) -> Result<(), String> {
    let e = |e: Error| e.to_string();
    let z = Dpa::start(
        &Device::open_by_ibdev_name(ZERO_LIMIT_DEVICE).map_err(e)?,
        doca_tests::app(),
    )
    .map_err(e)?;
    if !z.limits().kernel_max_run_time.is_zero() {
        return Err(format!("{ZERO_LIMIT_DEVICE} has a limit: {:?}", z.limits()));
    }
    let Some(go) = made(DpaBuffer::<u64>::from_slice(&z, &[0]))? else {
        return Ok(());
    };
    let Some(storage) = made(DpaBuffer::<u64>::new(&z, 8))? else {
        return Ok(());
    };
    let thread = ThreadBuilder::new(&z, &doca_tests::sound_slow_thread, (&go,))
        .and_then(|t| t.local_storage(common::slow_storage(&storage)))
        .and_then(|t| t.start())
        .map_err(e)?;
    let notify = NotificationCompletion::new(&thread).map_err(e)?;
    notify.run_thread().map_err(e)?;
    z.rpc(&doca_tests::notify, (&notify,), common::RPC_TIMEOUT)
        .map_err(e)?;
    let buried = doca::dpa::buried_count();
    let mut parts: Vec<Box<dyn std::any::Any>> =
        vec![Box::new(thread), Box::new(notify), Box::new(storage)];
    while !parts.is_empty() {
        drop(parts.swap_remove(rng.below(parts.len())));
    }
    if doca::dpa::buried_count() != buried + 1 {
        return Err("the record of a thread without a run-time limit was not kept".into());
    }
    ZERO_KEPT.fetch_add(1, Ordering::Relaxed);
    go.write(0, &[1]).map_err(e)?;
    std::thread::sleep(Duration::from_millis(3));
    match z.health().map_err(e)? {
        doca::dpa::Health::Ok => Ok(()),
        h => Err(format!(
            "the context without a limit is {h:?}: {}",
            z.fault_report().unwrap_or_default()
        )),
    }
}

/// A waker that calls back into the library (an RPC and an allocation on its
/// context) from wherever the library wakes it.
struct CallingWaker {
    dpa: Dpa,
}

impl std::task::Wake for CallingWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let _ = self
            .dpa
            .rpc(&doca_tests::add, (1u64, 2u64), Duration::from_millis(50));
        drop(DpaBuffer::<u64>::new(&self.dpa, 1));
        WAKER_CALLS.fetch_add(1, Ordering::Relaxed);
    }
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
    made_or_refused(r).transpose().map_err(|e| e.to_string())
}

/// What a step's error becomes when the device is out of DPA memory: a typed refusal,
/// which [`made`] allows too (under valgrind the sim's memory checker runs out of
/// address space within a few sequences).
const OUT_OF_DPA_MEMORY: &str = "(out of DPA memory)";

/// `e` as a step's error text, [`OUT_OF_DPA_MEMORY`] for `NO_MEMORY`.
fn out_of_memory_or_text(e: Error) -> String {
    if e.code() == Some(doca::dpa::ErrorCode::NO_MEMORY) {
        OUT_OF_DPA_MEMORY.to_owned()
    } else {
        e.to_string()
    }
}

/// A step that ended for want of DPA memory did nothing wrong.
fn skip_out_of_memory(r: Result<(), String>) -> Result<(), String> {
    match r {
        Err(m) if m == OUT_OF_DPA_MEMORY => Ok(()),
        r => r,
    }
}

/// `r`, or `None` when it failed for want of DPA memory (as [`made`] allows).
fn made_or_refused<T>(r: Result<T, Error>) -> Option<Result<T, Error>> {
    match r {
        Err(e) if e.code() == Some(doca::dpa::ErrorCode::NO_MEMORY) => None,
        r => Some(r),
    }
}

/// One step. `Err` is an oracle failure.
fn step(rng: &mut Rng, w: &mut World) -> Result<(), String> {
    let ctx = rng.below(2);
    match rng.below(32) {
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
                .and_then(|t| t.local_storage(common::slow_storage(&storage)));
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
        25 => skip_out_of_memory(rdma_step(rng, w, ctx))?,
        30 => skip_out_of_memory(comch_step(rng, w, ctx))?,
        31 => skip_out_of_memory(verbs_step(rng, w, ctx))?,
        26 => {
            // Rarely, and once a sequence: each run keeps a context for good.
            if !w.zero_done && rng.chance(5) {
                w.zero_done = true;
                zero_limit_thread(rng)?;
            }
        }
        27 => {
            // A slow thread on the extension, whose device's limit is longer than
            // its base's: dropped later, its record must outlive its activation.
            let e = extension(w)?;
            let Some(go) = made(DpaBuffer::<u64>::from_slice(&w.dpas[e], &[0]))? else {
                return Ok(());
            };
            let Some(storage) = made(DpaBuffer::<u64>::new(&w.dpas[e], 8))? else {
                return Ok(());
            };
            let builder = ThreadBuilder::new(&w.dpas[e], &doca_tests::sound_slow_thread, (&go,))
                .and_then(|t| t.local_storage(common::slow_storage(&storage)))
                .map_err(|e| e.to_string())?;
            w.gos.push((e, go));
            w.buffers.push((e, storage));
            start_woken(w, e, builder, Wake::Notify)?;
        }
        28 => {
            // `DpaBox::set` churn: a state whose scratch word is a buffer of either
            // context, sometimes held by a launch of `r5_touch`, set again and again
            // with scratch words of either context.
            let Some(b) = pick(rng, &w.buffers) else {
                return Ok(());
            };
            let (bc, scratch) = &w.buffers[b];
            let r = Dev::new(scratch).and_then(|scratch| {
                DpaBox::new(
                    &w.dpas[ctx],
                    &doca_tests::r5_state {
                        generation: 0,
                        scratch,
                    },
                )
            });
            let Some(r) = made_or_refused(r) else {
                return Ok(());
            };
            let Some(boxed) = expect_outcome(r, ctx != *bc, "DpaBox::new")? else {
                return Ok(());
            };
            if let Some(l) = pick(rng, &w.launchers) {
                let (lc, launcher) = &w.launchers[l];
                let r = launcher.launch(&doca_tests::r5_touch, 1, (&boxed,));
                if let Some(launch) = expect_outcome(r, *lc != ctx, "r5_touch")? {
                    let _ = launch.wait(SHORT);
                }
            }
            for generation in 1..=rng.below(64) as u64 {
                let (sc, scratch) = &w.buffers[rng.below(w.buffers.len())];
                let r = Dev::new(scratch).and_then(|scratch| {
                    boxed.set(&doca_tests::r5_state {
                        generation,
                        scratch,
                    })
                });
                if expect_outcome(r, *sc != ctx, "DpaBox::set")?.is_some() {
                    BOX_SETS.fetch_add(1, Ordering::Relaxed);
                }
            }
            w.boxes.push((ctx, boxed));
        }
        29 => {
            // A launch awaited through a progress engine with a waker that calls
            // back into the library wherever it is woken.
            let Some(b) = pick(rng, &w.buffers) else {
                return Ok(());
            };
            if w.panicky {
                return Ok(());
            }
            if w.engine.is_none() {
                w.engine = Some(Engine::new().map_err(|e| e.to_string())?);
            }
            let engine = w.engine.as_ref().expect("made above");
            let launcher =
                Launcher::with_engine(&w.dpas[ctx], engine).map_err(|e| e.to_string())?;
            let (bc, buf) = &w.buffers[b];
            let r = launcher.launch(&doca_tests::write_ranks, 1, (buf, rng.next()));
            if let Some(launch) = expect_outcome(r, ctx != *bc, "write_ranks awaited")? {
                let waker = Arc::new(CallingWaker {
                    dpa: w.dpas[ctx].clone(),
                });
                let mut completion = std::pin::pin!(std::future::IntoFuture::into_future(launch));
                let waker = std::task::Waker::from(waker);
                let mut cx = std::task::Context::from_waker(&waker);
                if std::future::Future::poll(completion.as_mut(), &mut cx).is_pending() {
                    std::thread::sleep(Duration::from_millis(1));
                    let _ = std::future::Future::poll(completion.as_mut(), &mut cx);
                }
            }
            w.awaited.push((ctx, launcher));
        }
        _ => {
            // Drop something, in any order.
            match rng.below(11) {
                10 => drop(pick(rng, &w.boxes).map(|i| w.boxes.swap_remove(i))),
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
        let reentrant = !panicky && rng.chance(10);
        w.panicky = panicky;
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if panicky {
                tracing::subscriber::with_default(
                    PanickingSubscriber::at(tracing::Level::TRACE),
                    || step(&mut rng, &mut w),
                )
            } else if reentrant {
                // A subscriber that calls back into the library on every event.
                let dpa = w.dpas[0].clone();
                let calling = common::Reentrant::new(move |_| {
                    let _ = dpa.health();
                    drop(DpaBuffer::<u64>::new(&dpa, 1));
                });
                tracing::subscriber::with_default(calling, || step(&mut rng, &mut w))
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
        w.boxes.clear();
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
    for (_, l) in w.launchers.iter().chain(&w.awaited) {
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
    let mut no_limit =
        doca::sim::DeviceProfile::bluefield3(ZERO_LIMIT_DEVICE, "p4", "0000:04:00.0");
    no_limit.representors.clear();
    profile.devices.push(no_limit);
    for d in &mut profile.devices {
        if d.dpa {
            d.kernel_max_run_time_ms = match d.ibdev_name.as_str() {
                EXT_DEVICE => ext_limit_ms(),
                ZERO_LIMIT_DEVICE => 0,
                _ => limit_ms(),
            };
        }
    }
    scope.set_profile(profile);
    // What one record kept for good by `zero_limit_thread` holds, measured alone.
    let live_now = || -> BTreeMap<&'static str, i64> {
        scope
            .live_objects()
            .into_iter()
            .filter(|(kind, _)| !matches!(*kind, "doca_dev" | "doca_devinfo"))
            .collect()
    };
    let buried_before = doca::dpa::buried_count();
    let before = live_now();
    zero_limit_thread(&mut Rng(7)).expect("a thread on the device without a limit");
    std::thread::sleep(Duration::from_millis(20));
    let mut kept_by_one = live_now();
    for (kind, n) in &before {
        *kept_by_one.entry(kind).or_default() -= n;
    }
    kept_by_one.retain(|_, n| *n != 0);
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
    // Whatever stopped threads still hold goes once the run-time limits have passed.
    common::deferred_released(Duration::from_millis(ext_limit_ms()) + Duration::from_secs(10));
    let kept = ZERO_KEPT.load(Ordering::Relaxed);
    let buried = doca::dpa::buried_count() - buried_before - kept;
    // What the records of threads without a limit keep (the measured one's
    // included), as measured for one.
    let mut live = live_now();
    for (kind, n) in &kept_by_one {
        *live.entry(kind).or_default() -= n * kept as i64;
    }
    let live: i64 = live.values().map(|n| n.abs()).sum();
    // Nothing else in these sequences needs burying (every gate opens, every kernel
    // ends): a live object is a leak unless the library reported burying values.
    let leaks = if buried == 0 { live as usize } else { 0 };
    println!(
        "api-fuzz: {sequences} sequences, {steps} steps, {faults} device faults, {host_errors} host errors, {leaks} leaks"
    );
    println!(
        "api-fuzz: {kept} threads without a run-time limit kept their records ({kept_by_one:?} each), \
         {} box values set, {} waker calls into the library",
        BOX_SETS.load(Ordering::Relaxed),
        WAKER_CALLS.load(Ordering::Relaxed)
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
        let s = out_of_memory_or_text;
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

// ---- DPA Verbs queue pairs (issue #35) ------------------------------------------------

doca::verbs::if_dpa_verbs! {
    #[path = "verbs/setup.rs"]
    mod verbs_setup;

    /// Two queue pairs on one context, connected (sometimes a builder with a
    /// completion or UAR of the other context first, refused); a held kernel on
    /// either context's launcher writes through one of them (refused when anything
    /// is of the other context); sometimes an explicit destroy while it holds the
    /// queue pair; then each queue pair, the target slot and its map are kept on
    /// their own, to be dropped in any order.
    fn verbs_step(rng: &mut Rng, w: &mut World, ctx: usize) -> Result<(), String> {
        use doca::dpa::{AccessFlags, DpaMmap};
        use doca::verbs::{DpaUar, ProtectionDomain, QpBuilder, VerbsContext};
        let s = out_of_memory_or_text;
        let dpa = w.dpas[ctx].clone();
        if rng.chance(10) {
            let verbs = VerbsContext::new(dpa.device()).map_err(s)?;
            let pd = ProtectionDomain::new(&verbs).map_err(s)?;
            let (uar, foreign_uar) = (DpaUar::new(&dpa).map_err(s)?, DpaUar::new(&w.dpas[1 - ctx]).map_err(s)?);
            let completion = CompletionBuilder::new(&dpa, 16).and_then(|c| c.start()).map_err(s)?;
            let foreign = CompletionBuilder::new(&w.dpas[1 - ctx], 16).and_then(|c| c.start()).map_err(s)?;
            let r = match rng.chance(50) {
                true => QpBuilder::new(&pd, &dpa, &foreign, &uar),
                false => QpBuilder::new(&pd, &dpa, &completion, &foreign_uar),
            };
            return match r {
                Err(e) if e.is_invalid_argument() => Ok(()),
                other => Err(format!("a queue pair with a foreign completion or UAR: {other:?}")),
            };
        }
        let (qp, peer) = verbs_setup::pair(&dpa).map_err(s)?;
        let src = DpaBuffer::<u64>::from_slice(&dpa, &[rng.next()]).map_err(s)?;
        let src_map = DpaMmap::with_access(&dpa, &src, 0, 1, AccessFlags::RDMA_ALL).map_err(s)?;
        let dst = DpaBuffer::<u64>::from_slice(&dpa, &[0]).map_err(s)?;
        let dst_map = DpaMmap::with_access(&dpa, &dst, 0, 1, AccessFlags::RDMA_ALL).map_err(s)?;
        if let (Some(l), Some(g), Some(o)) = (pick(rng, &w.launchers), pick(rng, &w.gos), pick(rng, &w.buffers)) {
            let ((lc, launcher), (gc, go), (oc, out)) = (&w.launchers[l], &w.gos[g], &w.buffers[o]);
            let foreign = *lc != ctx || gc != lc || oc != lc;
            let r = launcher.launch(
                &doca_tests::sound_hold_verbs,
                1,
                (go, &qp, qp.completion(), &src, &src_map, &dst, &dst_map, out),
            );
            expect_outcome(r.map(drop), foreign, "sound_hold_verbs")?;
        }
        let qp = if rng.chance(30) {
            match qp.destroy() {
                // Nothing held it: destroyed.
                Ok(()) => None,
                Err(e) if matches!(e.error(), Error::InUse { .. }) => {
                    Some(e.into_parts().1.ok_or("a refused destroy kept the queue pair")?)
                }
                Err(e) => return Err(format!("destroy: {e}")),
            }
        } else {
            Some(qp)
        };
        // The target's memory is the peer's business: kept to the end.
        w.peers.push(Box::new((dst, dst_map)));
        for part in [
            Box::new(qp) as Box<dyn std::any::Any>,
            Box::new(peer),
            Box::new(src),
            Box::new(src_map),
        ] {
            w.rdmi.push((ctx, part));
        }
        Ok(())
    }
}

doca::verbs::if_no_dpa_verbs! {
    fn verbs_step(_: &mut Rng, _: &mut World, _: usize) -> Result<(), String> {
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
        let s = out_of_memory_or_text;
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
