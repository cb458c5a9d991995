#!/usr/bin/env bash
# Instructions the safe layer adds to a launch, counted by callgrind (stable
# on a noisy machine). The bench binary runs a fixed workload
# (DOCA_BENCH_MODE=safe|raw, DOCA_BENCH_LAUNCHES=N); callgrind only collects
# inside the named functions (--toggle-collect):
#   submission, safe: `Launcher::launch` (the safe launch, its DOCA call
#                     included);
#               raw:  the bench's `raw_submit`, the same DOCA call made
#                     through the -sys bindings (both sides count their
#                     argument passing);
#   wait of a completed launch (DOCA_BENCH_SETTLE_US: the host sleeps before
#   waiting, so the wait finds the launch complete and polls once; polling
#   a launch still running runs a number of instructions that depends on
#   thread scheduling),
#               safe: `Launch::wait`;
#               raw:  the bench's `raw_wait` (`doca_sync_event_get` until the
#                     count is reached).
# Two launch counts per measurement cancel fixed costs.
# --fair-sched=yes: valgrind runs one thread at a time, and with its default
# lock a thread spinning on an atomic (the raw wait, the sim's idle worker) can
# keep the lock for good while the thread it waits for never runs; the fair
# ticket lock hands it round. It does not change what is counted.
# Usage: scripts/callgrind-launch.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-400}
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 1; }
bin=$(cargo bench -q --bench launch --no-run 2>&1 | sed -n 's/.*Executable.*(\(.*\))/\1/p' | tail -1)
[ -n "$bin" ] || bin=$(cargo bench --bench launch --no-run 2>&1 | sed -n 's/.*Executable.*(\(.*\))/\1/p' | tail -1)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
count() { # mode function launches [settle µs]
    DOCA_BENCH_MODE=$1 DOCA_BENCH_LAUNCHES=$3 DOCA_BENCH_SETTLE_US=${4:-0} \
        valgrind --tool=callgrind --fair-sched=yes --toggle-collect="$2" \
        --callgrind-out-file="$out/cg" "$bin" >/dev/null 2>"$out/log"
    sed -n 's/^summary: //p' "$out/cg"
}
per_launch() { # mode function launches [settle µs]
    local small big
    small=$(count "$1" "$2" 50 "${4:-0}")
    big=$(count "$1" "$2" $(($3 + 50)) "${4:-0}")
    echo $(((big - small) / $3))
}
report() { # what safe raw
    echo "instructions per launch $1: safe $2, raw $3"
    echo "$1: safe / raw = $(awk -v s="$2" -v r="$3" 'BEGIN { printf "%.3f", s / r }') (the safe layer adds $(($2 - $3)))"
}
safe=$(per_launch safe 'doca_dpa::launch::Launcher::launch' "$n")
raw=$(per_launch raw '*raw_submit' "$n")
report submission "$safe" "$raw"
# Each settled launch sleeps 10 ms (time for the worker to finish under
# valgrind): fewer launches keep this part short.
settle=10000
safe=$(per_launch safe 'doca_dpa::launch::Launch::wait' $((n / 4)) $settle)
raw=$(per_launch raw '*raw_wait' $((n / 4)) $settle)
report "wait (completed launch)" "$safe" "$raw"
