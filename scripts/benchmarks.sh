#!/usr/bin/env bash
# Runs the benchmarks once and writes their section of BENCHMARKS.md: the
# launch benchmark (`cargo bench --bench launch`), the wait benchmark (`cargo
# bench --bench wait`: spin, fd and async waits), the memory checker's own
# calls (`cargo bench -p doca-sim --bench memcheck`) and, when valgrind is
# installed, the instruction counts of scripts/callgrind-launch.sh.
#
# The section lies between the two marker lines below; the rest of the file
# (sections other tools write) is kept. Run it on a quiet machine: ratios are
# measured in one run, but a busy machine still shows in them.
# Usage: scripts/benchmarks.sh [--quick] [FILE]   (FILE: BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --quick ]; then
    export BENCH_QUICK=1
    shift
fi
file=${1:-BENCHMARKS.md}
begin='<!-- scripts/benchmarks.sh: begin -->'
end='<!-- scripts/benchmarks.sh: end -->'
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

cargo bench -q --bench launch --no-run
cargo bench -q --bench wait --no-run
cargo bench -q -p doca-sim --bench memcheck --no-run
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
cargo bench -q --bench launch >"$out/launch"
cargo bench -q --bench wait >"$out/wait"
cargo bench -q -p doca-sim --bench memcheck >"$out/memcheck"
if command -v valgrind >/dev/null; then
    bash scripts/callgrind-launch.sh >"$out/callgrind"
else
    echo "(valgrind is not installed: no instruction counts)" >"$out/callgrind"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The benches print `label = value  (note)`; a label that starts with a
# number opens a figure, one that starts with spaces adds to it.
table() {
    echo '| figure | ratio | target; what was measured |'
    echo '| --- | ---: | --- |'
    sed -n 's/^\([0-9 ][0-9 .]*[^=]*[^ =]\) *= \([^ ]*\)  (\(.*\))$/| \1 | \2 | \3 |/p' "$1" |
        sed 's/^|    */| ↳ /'
}

{
    echo "$begin"
    cat <<EOF
# Benchmarks

Written by \`scripts/benchmarks.sh\` from one run on $(date -u +%Y-%m-%d):
$(nproc) cores, backend $(sed -n 's/.*— backend \([a-z]*\),.*/\1/p' "$out/launch")$([ -n "${BENCH_QUICK:-}" ] && echo ", quick run"),
load average $load_before before and $load_after after.

Every figure is a ratio against a baseline measured in the same run, in
alternating rounds where both sides are timed (\`doca-sim/benches/harness\`:
the median of 11 rounds), with the absolute times as context. On a shared or
busy machine the absolute times move by several times between runs and the
ratios less, but not to nothing: a figure over its target in one run is worth
a second run on a quiet machine before it is believed. Instruction counts
(callgrind) do not depend on the load.

## Launches (\`cargo bench --bench launch\`)

EOF
    table "$out/launch"
    cat <<'EOF'

1. **Safe vs raw**: `Launcher::launch(..).wait(..)` against the same
   `doca_dpa_kernel_launch_update_add` and a spin on `doca_sync_event_get`
   through the raw bindings, on the same context. The safe side takes its
   context family's lock once in the submission and once in the wait (two
   atomic operations each, with the instructions counted below), the raw side
   none.
2. **Allocations**: a counting global allocator over 1000 steady-state
   launches and waits on the submitting thread: of the no-op kernel, and of a
   kernel given a buffer (the launcher clones its `Arc`, keeps it in its
   queue until the launch is known finished, then drops it).
3. **Round trip vs the floor of its shape**: a 1-thread no-op kernel from
   submit to observed completion, against a bare host thread that wakes a
   parked peer with `unpark` and spins until it answers through an atomic
   (the shape of the sim's hand-off, with nothing else in it). A spin-spin
   ping-pong (neither side sleeps) and a mutex + condvar ping-pong are
   context. The sim's most recently idle worker spins (yielding) for 50 µs
   before it parks, so back-to-back launches reach a worker that is awake:
   the round trip can be below the unpark floor.
4. **Scaling**: a no-op launch of 190 threads (the most a BlueField-3 kernel
   runs) against one of 1 thread. The sim runs a launch's instances as a
   gang: the coordinating worker and one helper per spare core claim ranks
   in order, and the watchdog doubles the gang's threads whenever no
   instance ended for a millisecond while ranks are unclaimed, so instances
   that wait for each other all get a thread (`tests/dpa_flows.rs` runs a
   190-thread barrier, yielding and pure spinning).
5. **Memory checking** (sim only): contexts whose profile sets `memcheck`
   on and off, each holding 8 small live blocks besides. A checked launch's
   end reads the canaries next to (at most 256 of) its blocks; a kernel's
   stores into a fenced block cost nothing once its pages are mapped.
6. **Waiting CPU**: the CPU time of the thread in `Launch::wait` over the
   wall time of a kernel calibrated to run ~50 ms (it spins 64 polls, then
   yields, then sleeps in growing steps).
7. **Event reuse**: a reused completion event (the `Launcher`) against
   creating, configuring and destroying an event per launch.
8. **Tasks**: launches per second from 4 tasks `tokio::spawn`ed on a
   multi-threaded runtime (its default worker count, one per core), each
   launching the no-op kernel and awaiting it 100 times per batch, against
   1 task, in alternating rounds; all share one `Launcher` (and its
   `Engine`), or each has a launcher of its own on a context and an engine
   of its own (nothing shared but the runtime), or, as context, a launcher
   each on one context and one engine. The target is that neither sharing
   nor splitting makes it slower (>= 1.0); the sim runs the kernels on
   worker threads of its own, and all of it shares the machine's cores (with
   the runtime's workers). Launches of tasks that share a launcher share its
   epochs, so one look can finish several tasks' launches; with a launcher
   each on one engine, every completion wakes every task awaiting the engine
   and each looks at its own events.
9. **RPC**: an RPC's round trip (`Dpa::rpc` of a function adding two
   numbers) against a launch's. The call is made on the context's RPC
   thread (started by the first RPC, reused), so the round trip is two
   channel hand-offs and the device call; it was a thread start per call
   (72 µs against 11 µs, back to back on this machine).
10. **Independent contexts** (issue #33): launches per second of N contexts
   (N context families, on one device), each driven by a thread of its own
   launching the no-op kernel and waiting for it, against 1 context on 1
   thread, in alternating rounds; beside it the process's CPU time per launch
   (the sim's workers included). Each family's DOCA calls are made under its
   own guard and no lock is process-wide, so the figure is bounded by the
   cores: here 2, shared by the N submitting threads and the sim's workers,
   which is why it is reported rather than held to a target.

## Waiting without a core (`cargo bench --bench wait`)

```
EOF
    sed -n '/^== ratios/,$p' "$out/wait"
    cat <<'EOF'
```

A kernel is held for 50 ms behind a gate event while the host waits for its
launch three ways: `Launch::wait` on a plain launcher (spin, then yield,
then sleep), on a launcher with an `Engine` (`poll(2)` on the progress
engine's notification handle, woken by a sync-event wait task), and
`launch.await` on a current-thread tokio runtime (the handle registered
with tokio's reactor). The CPU figure is the waiting thread's
`CLOCK_THREAD_CPUTIME_ID` over the wall time; the latency figure is a
no-op launch from submit to the waiter seeing it complete.

## The memory checker's own calls (`cargo bench -p doca-sim --bench memcheck`)

EOF
    table "$out/memcheck"
    cat <<'EOF'

1. **Allocation**: a checked block is its own mapping (guard moats around
   its pages), and freeing it remaps it inaccessible and, once 4096 freed
   blocks are quarantined, unmaps the oldest: a few system calls against
   `malloc`/`free`. `memcheck = false` in the profile or
   `DOCA_SIM_MEMCHECK=0` turns checking off.
2. **Copies**: `doca_dpa_h2d/d2h_memcpy` and `doca_dpa_memset` copy with
   relaxed atomic words (as DMA would: kernels may touch the same bytes), in
   both modes, against a vectorised `memcpy`.

## Instructions per launch (`scripts/callgrind-launch.sh`)

```
EOF
    cat "$out/callgrind"
    cat <<'EOF'
```

The submission is `Launcher::launch` against the same DOCA call made
through the -sys bindings (both counted whole, argument passing included);
the wait is `Launch::wait` of a launch that has completed (the host sleeps
first, so one poll finds it) against one raw `doca_sync_event_get` loop.
Polling a running launch is not counted: its count depends on scheduling.
Targets (issue #27): submission <= 1.05, wait <= 1.10. The safe side takes
its context family's lock once in each (the launcher's state is guarded by
it, so the lock that covers the DOCA call also covers the bookkeeping;
uncontended, one atomic each way), the raw side takes no lock; a launch's
arguments are lowered before it, and a launch that references nothing
touches no keep queue.

## Reproduce

```sh
scripts/benchmarks.sh                      # all of the above, rewrites this section
BENCH_QUICK=1 cargo bench --bench launch   # a quick look
DOCA_BENCH_MODE=safe DOCA_BENCH_THREADS=190 DOCA_BENCH_LAUNCHES=20000 \
    perf record target/release/deps/launch-*   # a fixed workload to profile
```
EOF
    echo "$end"
    # Sections of the old file that this script does not write.
    if [ -f "$file" ]; then
        if grep -qxF "$end" "$file"; then
            sed -n "\\|^$end\$|,\$p" "$file" | sed 1d
        elif ! grep -qxF "$begin" "$file"; then
            # A file from before the markers: keep its sections that are not ours.
            awk '/^## / { keep = ($0 !~ /^## (One run|What the figures mean|The cost of the sim.s memory checker|Reproduce)/) }
                 /^# Benchmarks/ { keep = 0 } keep' "$file"
        fi
    fi
} >"$out/new"
mv "$out/new" "$file"
echo "benchmarks.sh: wrote $file"
