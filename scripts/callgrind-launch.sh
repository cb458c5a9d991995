#!/usr/bin/env bash
# Instructions the safe layer adds to a launch's submission, counted by
# callgrind (stable on a noisy machine). The bench binary runs a fixed
# workload (DOCA_BENCH_MODE=safe|raw, DOCA_BENCH_LAUNCHES=N); callgrind only
# collects inside the named functions (--toggle-collect):
#   safe: `Launcher::submit` (the safe launch, including its DOCA call),
#   raw:  `doca_dpa_kernel_launch_update_add` (the DOCA call alone).
# Two launch counts per measurement cancel fixed costs. The wait is left out:
# polling runs a number of instructions that depends on thread scheduling.
# Usage: scripts/callgrind-launch.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-400}
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 1; }
bin=$(cargo bench -q --bench launch --no-run 2>&1 | sed -n 's/.*Executable.*(\(.*\))/\1/p' | tail -1)
[ -n "$bin" ] || bin=$(cargo bench --bench launch --no-run 2>&1 | sed -n 's/.*Executable.*(\(.*\))/\1/p' | tail -1)
out=$(mktemp -d)
count() { # mode function launches
    DOCA_BENCH_MODE=$1 DOCA_BENCH_LAUNCHES=$3 valgrind --tool=callgrind --toggle-collect="$2" \
        --callgrind-out-file="$out/cg" "$bin" >/dev/null 2>"$out/log"
    sed -n 's/^summary: //p' "$out/cg"
}
per_launch() { # mode function
    local small big
    small=$(count "$1" "$2" 100)
    big=$(count "$1" "$2" $((n + 100)))
    echo $(((big - small) / n))
}
safe=$(per_launch safe '*Launcher*submit*')
raw=$(per_launch raw doca_dpa_kernel_launch_update_add)
echo "instructions per launch submission: safe $safe, raw $raw"
echo "safe / raw = $(awk -v s="$safe" -v r="$raw" 'BEGIN { printf "%.3f", s / r }') (the safe layer adds $((safe - raw)))"
rm -rf "$out"
