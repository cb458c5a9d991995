#!/usr/bin/env bash
# Builds NVIDIA's DPA samples (github.com/NVIDIA-DOCA/doca-samples) unmodified
# against doca-sim and runs them, once per device profile. See
# docs/nvidia-samples.md.
#
#   DOCA_SAMPLES_DIR=/path/to/doca-samples scripts/run-nvidia-samples.sh
#
# DOCA_SAMPLES_DIR is a checkout of doca-samples (its top directory, holding
# samples/doca_dpa); when it is unset the script says so and exits 0 (CI has
# no copy, and this script is not part of .ci/run). DOCA_SIM_SAMPLES_PROFILES
# picks the profiles (default: "default dpu"): `default` is doca-sim's default
# profile (a BlueField-3 as its host sees it: the PF with its DPA, no
# representors), `dpu` the same card's Arm side (the PF with representors and
# an SF to extend its DPA context onto). DOCA_SIM_SAMPLES_ONLY, a list of
# sample names, runs only those.
#
# For each sample:
# - device side: the sample's device/*.c through doca-build-support's sim app
#   build (DpaApp, the same code a user's build.rs runs), driven by a throwaway
#   cargo package whose build script builds the app `dpa_sample_app` (the name
#   the samples' meson build gives dpacc);
# - host side: the sample's host/*.c, *_main.c and the shared dpa_common.c,
#   compiled as they are with `cc` against doca-sim's headers (include/) and
#   the stand-ins of scripts/lib/nvidia-samples for the DOCA and FlexIO
#   libraries the samples use that doca-sim does not model (logging, argument
#   parsing, DPA resources files),
#   linked with the app and doca-sim as a static library;
# - run: with a time limit, judged by the sample's own success line and, where
#   the sample prints one, its result.
#
# Prints one line per sample and profile, then
#   samples: N built, M ran correctly, K out of scope
# (N and M count samples, each over every profile it runs on). Exits 1 if a
# sample in scope does not build or does not run correctly.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${DOCA_SAMPLES_DIR:-}" ]; then
	echo "run-nvidia-samples: DOCA_SAMPLES_DIR is not set (a checkout of github.com/NVIDIA-DOCA/doca-samples); nothing to do"
	exit 0
fi
dpa="$DOCA_SAMPLES_DIR/samples/doca_dpa"
[ -f "$dpa/dpa_common.c" ] || { echo "run-nvidia-samples: $dpa/dpa_common.c not found: DOCA_SAMPLES_DIR must be the top of a doca-samples checkout" >&2; exit 2; }

harness="$root/scripts/lib/nvidia-samples"
target=${CARGO_TARGET_DIR:-$root/target}/nvidia-samples
work="$target/work"
mkdir -p "$work"
profiles=${DOCA_SIM_SAMPLES_PROFILES:-default dpu}
run_limit=${DOCA_SIM_SAMPLES_TIME_LIMIT:-120}
only=${DOCA_SIM_SAMPLES_ONLY:-}
unset DOCA_SIM_PROFILE DOCA_SIM_FAULTS DOCA_BACKEND

# ---------------------------------------------------------------- the sim
echo "== building doca-sim as a static library"
# Its headers: the copy its build script made for the DOCA release the build
# claims (DOCA_SIM_VERSION, default the newest), so the samples' host and
# device code see the release the sim answers for (docs/sim-model.md).
simout=$(cd "$root" && CARGO_TARGET_DIR="$target/sim" cargo rustc -q -p doca-sim --lib --crate-type staticlib \
	--message-format=json | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "build-script-executed" and "doca-sim" in m.get("package_id", ""):
        print(m["out_dir"])
') && [ -d "$simout/include" ] ||
	{ echo "run-nvidia-samples: doca-sim does not build" >&2; exit 2; }
libsim="$target/sim/debug/libdoca_sim.a"
siminclude="$simout/include"
simdevinclude="$simout/device-include"
echo "   (DOCA $(sed -n 's/^#define DOCA_VERSION_STRING "\(.*\)"/\1/p' "$siminclude/doca_version.h"))"

# ------------------------------------------------------ the device driver
# A throwaway package whose build script builds one sample's device sources
# as the sim app `dpa_sample_app` and copies the archive out.
driver="$work/driver"
mkdir -p "$driver/src"
cat > "$driver/Cargo.toml" <<TOML
[package]
name = "nvidia-sample-device"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[build-dependencies]
doca-build-support = { path = "$root/build-support" }
TOML
cat > "$driver/build.rs" <<'RUST'
use doca_build_support::dpa_app::DpaApp;

fn main() {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    println!("cargo::rerun-if-env-changed=SAMPLE_APP_ARCHIVE");
    let mut app = DpaApp::new("dpa_sample_app");
    for source in var("SAMPLE_DEVICE_SOURCES").split(':').filter(|s| !s.is_empty()) {
        app = app.source(source);
    }
    for dir in var("SAMPLE_DEVICE_INCLUDES").split(':').filter(|s| !s.is_empty()) {
        app = app.include(dir);
    }
    let built = app.build_or_exit();
    let archive = built.archive.expect("the sim backend builds an archive");
    std::fs::copy(&archive, var("SAMPLE_APP_ARCHIVE")).expect("cannot copy the app archive");
}
RUST
echo > "$driver/src/lib.rs"
cp "$root/Cargo.lock" "$driver/Cargo.lock"

# build_device SAMPLE_DIR OUT.a LOG: the device sources through DpaApp (sim).
build_device() {
	local dir=$1 out=$2 log=$3 sources includes=
	sources=$(ls "$dir"/device/*.c | tr '\n' ':')
	for d in "$dir/common" "$dir/device"; do [ -d "$d" ] && includes="$includes$d:"; done
	(cd "$driver" &&
		DEP_DOCA_DPA_BACKEND=sim \
		DEP_DOCA_DPA_SIM_DEVICE_INCLUDE="$simdevinclude" \
		DEP_DOCA_DPA_INCLUDE="$siminclude" \
		SAMPLE_DEVICE_SOURCES="$sources" \
		SAMPLE_DEVICE_INCLUDES="$includes" \
		SAMPLE_APP_ARCHIVE="$out" \
		CARGO_TARGET_DIR="$target/driver" \
		cargo build -q) > "$log" 2>&1
}

# build_host SAMPLE_DIR APP.a EXE LOG: the host sources as they are, with the
# warning flags of the samples' own build.
build_host() {
	local dir=$1 app=$2 exe=$3 log=$4
	cc -std=gnu11 -g -Werror -Wall -Wextra -Wno-deprecated-declarations -DDOCA_ALLOW_EXPERIMENTAL_API \
		-I"$harness" -I"$siminclude" -I"$dpa" -I"$dir/common" -I"$DOCA_SAMPLES_DIR/samples" \
		"$dir"/host/*.c "$dir"/*_main.c "$dpa/dpa_common.c" "$harness/harness.c" \
		"$app" "$libsim" -lpthread -ldl -lm -lrt -lgcc_s -lutil -o "$exe" > "$log" 2>&1
}

# run_pair EXE ARGS OUT: the verbs sample as NVIDIA runs it, two processes on
# one machine: the target (ARGS), and once it listens, the initiator (ARGS -i
# 127.0.0.1), which connects to it over TCP to exchange queue pair numbers and
# keys; their queue pairs then reach each other through doca-sim's fabric
# (docs/sim-model.md, "DPA Verbs"). OUT gets the target's output, then the
# initiator's; the status is the first failure's.
run_pair() {
	local exe=$1 args=$2 out=$3 target_pid rc=0
	# A previous run's output must not be taken for this target's "listening".
	rm -f "$out.target" "$out.initiator"
	# shellcheck disable=SC2086 # the arguments are words
	timeout "$run_limit" "$exe" $args > "$out.target" 2>&1 &
	target_pid=$!
	for _ in $(seq $((run_limit * 10))); do
		grep -qs "Server is listening" "$out.target" && break
		kill -0 $target_pid 2>/dev/null || break
		sleep 0.1
	done
	# shellcheck disable=SC2086
	timeout "$run_limit" "$exe" $args -i 127.0.0.1 > "$out.initiator" 2>&1 || rc=$?
	wait $target_pid || [ $rc -ne 0 ] || rc=$?
	cat "$out.target" "$out.initiator" > "$out"
	return $rc
}

# ------------------------------------------------------------- the samples
# name | arguments | what its output must contain besides its success line.
# dpa_nvqual sizes each iteration's DPA threads to run for 90 s (3/4 of the
# 2-minute watchdog it assumes); `-user_fac 0.01` (its own option) makes that
# 1 s, which a host runs 189 threads of well within the sim's 12 s limit.
samples=(
	"dpa_kernel_launch||Hello from kernel"
	"dpa_nvqual|-pf_dev mlx5_0 -test_dur 1 -user_fac 0.01|\"unreachable_harts\": []"
	"dpa_basic_initiator_target||Set sync event to 10"
	"dpa_initiator_target||Received all data values, Notify Thread #2"
	"dpa_ping_pong||Pong --> Ping Iteration #100"
	"dpa_verbs_initiator_target|-d mlx5_0|Initiator: Local buffer value after sample is 0xf"
)
# Not in scope, and why.
out_of_scope=(
	"dpa_all_to_all|an application that needs MPI on the host"
)

built=0
correct=0
failed=0
for entry in "${samples[@]}"; do
	IFS='|' read -r name args expect <<<"$entry"
	if [ -n "$only" ] && ! [[ " $only " == *" $name "* ]]; then
		continue
	fi
	dir="$dpa/$name"
	out="$work/$name"
	mkdir -p "$out"
	if ! build_device "$dir" "$out/app.a" "$out/device.log"; then
		why=$(grep -m1 'error: DPA application' "$out/device.log" || grep -m1 error "$out/device.log")
		echo "$name: NOT BUILT (device side): $(echo "$why" | sed 's/^ *//' | cut -c1-400)"
		failed=$((failed + 1))
		continue
	fi
	if ! build_host "$dir" "$out/app.a" "$out/$name" "$out/host.log"; then
		echo "$name: NOT BUILT (host side): $(grep -m1 error "$out/host.log" | cut -c1-300)"
		failed=$((failed + 1))
		continue
	fi
	built=$((built + 1))
	all_ok=1
	for profile in $profiles; do
		profile_file=
		# The DPU view as a profile file (doca-sim's tests check that it is
		# Profile::dpu_view()); the default profile needs none.
		[ "$profile" = dpu ] && profile_file="$root/doca-sim/tests/fixtures/dpu.profile"
		if [ "$name" = dpa_verbs_initiator_target ]; then
			DOCA_SIM_PROFILE="$profile_file" run_pair "$out/$name" "$args" "$out/$profile.out"
			rc=$?
			successes=2
		else
			# shellcheck disable=SC2086 # the arguments are words
			DOCA_SIM_PROFILE="$profile_file" timeout "$run_limit" "$out/$name" $args > "$out/$profile.out" 2>&1
			rc=$?
			successes=1
		fi
		if [ $rc -eq 0 ] && [ "$(grep -c "Sample finished successfully\|DPA run has completed" "$out/$profile.out")" -ge $successes ] &&
			grep -qF "$expect" "$out/$profile.out"; then
			echo "$name [$profile profile]: ran correctly ($(grep -cF "$expect" "$out/$profile.out")x \"$expect\")"
		else
			all_ok=0
			why=$(grep -m1 -E "ERROR|fault|not modelled|FATAL|error" "$out/$profile.out" | cut -c1-300)
			[ $rc -eq 124 ] && why="did not finish in ${run_limit} s; $why"
			echo "$name [$profile profile]: FAILED (exit $rc): ${why:-no success line}"
		fi
	done
	if [ $all_ok = 1 ]; then correct=$((correct + 1)); else failed=$((failed + 1)); fi
done
for entry in "${out_of_scope[@]}"; do
	IFS='|' read -r name why <<<"$entry"
	echo "$name: out of scope: $why"
done
echo "samples: $built built, $correct ran correctly, ${#out_of_scope[@]} out of scope"
echo "(logs and outputs: $work/<sample>/)"
[ $failed = 0 ]
