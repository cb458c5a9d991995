#!/usr/bin/env bash
# `cargo package --workspace` as a release would run it, then a look inside the
# tarballs.
#
# 1. Packages every workspace member and verifies each tarball by building it,
#    as `cargo publish` does. The verification builds use this checkout's
#    .cargo/config.toml (DOCA_BACKEND=auto), so on a machine without DOCA they
#    build on the sim and need no DOCA; with DOCA installed they build for it.
#    They build libraries and binaries only (no dev-dependencies, no bindgen), in
#    the target directory the rest of CI uses: 35 s in an empty target directory
#    on two cores (measured once), under 30 s after the workspace's own build,
#    against about 12 minutes for .ci/run. `--no-verify` would save that, but
#    would pass a tarball that lacks a file its build needs (a header, a kernel
#    source behind a symbolic link).
#    doca-test-kernels (publish = false) is packaged and verified too: cargo has
#    no way to leave a member out of `cargo package --workspace` except
#    `--exclude`, and `cargo publish --workspace` skips it anyway.
#    Warnings are denied (RUSTFLAGS=-D warnings): a tarball that leaves out a
#    file its build only warns without (the doctor's build.rs, whose `doca_backend`
#    cfg the sim report needs) fails here.
# 2. Runs the verified doca-doctor (the sim build of its tarball) with an invalid
#    DOCA_SIM_PROFILE: its `backend` check must fail (exit status 1).
# 3. Checks every tarball for repository files (.ci, ci, scripts, .cargo,
#    tests, benches, examples at its top level) and every publishable one for
#    LICENSE-MIT, LICENSE-APACHE and the README its manifest names.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fail() { echo "package-check: FAIL: $*" >&2; exit 1; }

log=$(mktemp "${TMPDIR:-/tmp}/doca-package.XXXXXX")
trap 'rm -f "$log"' EXIT
# --allow-dirty: what is checked is the tarballs' contents, not the VCS state
# (CI may run on a tree with local changes). The output (a warning for each test,
# example and benchmark the `include` lists leave out) is shown only on failure.
# Each tarball's verification build runs where DOCA may be absent, so the packages
# that have a `sim` feature are verified with it (doca-sim is an optional
# dependency: without the feature a build with no DOCA stops and says to add it).
sim_features=doca-dpa-sys/sim,doca-verbs-sys/sim,doca-rdmi-sys/sim,doca-rdma-sys/sim,doca-comch-sys/sim,doca-dpa/sim,doca-verbs/sim,doca-rdmi/sim,doca-rdma/sim,doca-comch/sim,doca/sim,doca-doctor/sim
# tests/messages (unpublished) has no dependency those features name (doca is its
# dev-dependency, which a tarball drops), so it is packaged on its own.
export RUSTFLAGS="-D warnings"
cargo package --workspace --exclude doca-compile-messages --allow-dirty --features "$sim_features" >"$log" 2>&1 || { cat "$log"; fail "cargo package --workspace failed (warnings are denied)"; }

metadata=$(cargo metadata --format-version 1 --no-deps)
target=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata")

# The verification builds write to the workspace's target directory: the doctor
# there is the tarball's (its dep-info names the unpacked sources) until the next
# build of doca-doctor, so it is run before anything else is built.
doctor_version=$(python3 -c '
import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "doca-doctor"))
' <<<"$metadata")
doctor="$target/debug/doca-doctor"
grep -q "/package/doca-doctor-$doctor_version/build.rs" "$doctor.d" \
    || fail "$doctor is not the verified tarball's doctor, or was built without its build.rs: $(head -c 300 "$doctor.d")"
bad_profile=$(mktemp "${TMPDIR:-/tmp}/doca-package-profile.XXXXXX")
trap 'rm -f "$log" "$bad_profile"' EXIT
printf '[device]\nno_such_key = 1\n' >"$bad_profile"
code=0
report=$(DOCA_SIM_PROFILE="$bad_profile" "$doctor" --json 2>/dev/null) || code=$?
backend=$(python3 -c '
import json, sys
doc = json.load(sys.stdin)
check = next(c for c in doc["checks"] if c["id"] == "backend")
print(doc["backend"], check["verdict"])
' <<<"$report") || { echo "$report"; fail "the packaged doctor wrote no JSON report"; }
case "$backend" in
    "sim fail") [ "$code" = 1 ] || fail "the packaged doctor exited with $code, not 1, for an invalid DOCA_SIM_PROFILE" ;;
    sim\ *) echo "$report"; fail "the packaged doctor reports an invalid DOCA_SIM_PROFILE as: backend $backend" ;;
    *) echo "package-check: the packaged doctor was built for ${backend%% *} (DOCA found), not the sim: its sim profile check is skipped" ;;
esac

cargo package -p doca-compile-messages --allow-dirty >>"$log" 2>&1 || { cat "$log"; fail "cargo package -p doca-compile-messages failed (warnings are denied)"; }
# name version publishable readme, one package a line.
packages=$(python3 -c '
import json, os, sys
for p in json.load(sys.stdin)["packages"]:
    readme = os.path.basename(p["readme"]) if p.get("readme") else "-"
    print(p["name"], p["version"], "no" if p["publish"] == [] else "yes", readme)
' <<<"$metadata")

while read -r name version publish readme; do
    crate="$target/package/$name-$version.crate"
    [ -f "$crate" ] || fail "$name: no $crate"
    files=$(tar tzf "$crate" | sed "s#^$name-$version/##")
    stray=$(grep -E '^(\.ci|ci|scripts|\.cargo|tests|benches|examples)(/|$)' <<<"$files" || true)
    [ -z "$stray" ] || fail "$name's tarball holds repository files:"$'\n'"$stray"
    if [ "$publish" = yes ]; then
        for f in LICENSE-MIT LICENSE-APACHE "$readme"; do
            grep -qx "$f" <<<"$files" || fail "$name's tarball has no $f"
        done
    fi
    echo "package-check: $name $version: $(wc -l <<<"$files") files, publish: $publish"
done <<<"$packages"
