#!/usr/bin/env bash
# Builds tests/user-crate as a doca-rs user would: copied out of the repository
# into a temporary directory, its path dependencies pointed at this checkout,
# with a fresh target directory, so this repository's .cargo/config.toml
# (DOCA_BACKEND=auto) does not apply.
#
# 1. Times a clean `cargo test --no-run` (the sim, through doca's `sim`
#    feature in the fixture's [dev-dependencies]) and prints the figure with
#    the load average (BENCHMARKS.md records it).
#    Checks that no bindgen or clang-sys crate is in its dependency tree, and
#    that syn is there only for thiserror's derive (doca-dpa's `Error`).
# 2. Runs the fixture's tests (its `add` kernel, fault injection) and its two
#    binaries (one declares the app itself, never naming the library).
# 3. Checks with nm that the test binary and the binaries define `add` and the
#    fixture's app symbol, and none of doca-rs's own kernel or app symbols.
# 4. Builds and tests the same crate as an edition-2024 crate (the generated
#    declarations must compile in both editions).
# 5. Where pkg-config finds no DOCA: checks that a plain `cargo build`
#    (hardware by default) fails and names the one switch to the sim. Before
#    that, `cargo run --features sim` (the README's `sim = ["doca/sim"]`) runs a
#    binary on the sim.
# 6. First, that the README's `rs` blocks (the user crate's files, which the
#    README's doctests cannot compile: they need the crate around them) are the
#    fixture's: each blank-line-separated part of a block under a `path` caption
#    is in tests/user-crate/path verbatim (`my_crate` is the fixture's crate).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fail() { echo "user-crate-test: FAIL: $*" >&2; exit 1; }

echo "== the README's user-crate files are the fixture's"
python3 - "$root/README.md" "$root/tests/user-crate" <<'PY' || fail "the README's user-crate code and tests/user-crate differ"
import pathlib, re, sys
lines = pathlib.Path(sys.argv[1]).read_text().split("\n")
fixture = pathlib.Path(sys.argv[2])
caption, blocks, i = None, [], 0
while i < len(lines):
    m = re.match(r"`([\w./-]+\.rs)`", lines[i])  # a file caption: `src/lib.rs` — …
    if m:
        caption = m.group(1)
    if lines[i] == "```rs":
        end = lines.index("```", i + 1)
        blocks.append((caption, "\n".join(lines[i + 1:end])))
        i = end
    i += 1
if len(blocks) < 2 or None in (p for p, _ in blocks):
    sys.exit(f"expected `rs` blocks each under a file caption, found {[p for p, _ in blocks]}")
for path, code in blocks:
    text = (fixture / path).read_text()
    for part in code.replace("my_crate", "doca_user_fixture").split("\n\n"):
        if part.strip() and part.strip() not in text:
            sys.exit(f"tests/user-crate/{path} lacks the README's\n{part}")
    print(f"README block {path}: in tests/user-crate/{path}")
PY
work=$(mktemp -d "${TMPDIR:-/tmp}/doca-user-crate.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$root/tests/user-crate" "$work/user-crate"
cd "$work/user-crate"
sed -i "s#path = \"\.\./\.\.#path = \"$root#g" Cargo.toml
grep -q "path = \"$root\"" Cargo.toml || fail "the fixture's paths were not rewritten"
# The fixture decides its backend through features, as a user's crate does.
unset DOCA_BACKEND
export CARGO_TARGET_DIR="$work/target" CARGO_TERM_COLOR=never
# The lock file of the repository, so the dependency versions are the ones CI tests.
cp "$root/Cargo.lock" Cargo.lock

echo "== clean sim build of the user crate (cargo test --no-run)"
load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s.%N)
cargo test -q --no-run 2>"$work/build.log" || { cat "$work/build.log"; fail "the user crate does not build"; }
end=$(date +%s.%N)
secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
echo "user-crate: clean sim build ${secs} s on $(nproc) cores (load average before: $load)"

echo "== no bindgen or libclang in the user crate's build; syn only for thiserror's derive"
for crate in bindgen clang-sys; do
    if tree=$(cargo tree -q -e normal,build,dev -i "$crate" 2>&1); then
        echo "$tree"
        fail "the user crate's build compiles $crate"
    fi
    grep -q "did not match any packages" <<<"$tree" || { echo "$tree"; fail "cargo tree -i $crate failed for another reason"; }
done
syn_users=$(cargo tree -q -e normal,build,dev -i syn --depth 1 --prefix none 2>&1 | sed 1d | awk '{ print $1 }' | sort -u)
[ "$syn_users" = thiserror-impl ] || { echo "$syn_users"; fail "syn is compiled for something other than thiserror's derive"; }

# run_fixture WHAT: the fixture's two tests on the sim, then its two binaries as
# `cargo test` built them (with the dev-dependencies' `sim`; `cargo run` would
# build them for hardware, the default). One uses the app the library declares,
# one declares it itself without naming the library.
run_fixture() {
    tests=$(cargo test -q --test sim 2>&1) || { echo "$tests"; fail "$1: the tests failed"; }
    echo "$tests" | tail -n 3
    grep -q "test result: ok. 2 passed" <<<"$tests" || fail "$1: the two tests did not both run"
    for b in uses_the_lib declares_itself; do
        out=$("$CARGO_TARGET_DIR/debug/$b" 2>&1) || { echo "$out"; fail "$1: the binary $b failed"; }
        [ "$out" = "[5, 6, 7, 8]" ] || fail "$1: the binary $b printed: $out"
    done
}

echo "== the user crate's tests, on the sim"
run_fixture "the fixture"

echo "== the README's sim feature: cargo run --features sim"
out=$(cargo run -q --features sim --bin uses_the_lib 2>&1) || { echo "$out"; fail "cargo run --features sim failed"; }
[ "$out" = "[5, 6, 7, 8]" ] || fail "cargo run --features sim printed: $out"

echo "== no kernel of doca-rs in the user's binaries"
ours=$(cat "$root"/examples/kernels/*.c "$root"/tests/kernels/*.c \
    | sed -n 's/.*__dpa_\(global\|rpc\)__ *[a-z_0-9]* *\([A-Za-z_][A-Za-z_0-9]*\) *(.*/\2/p' | sort -u)
[ -n "$ours" ] || fail "found no kernel names in doca-rs's kernel sources"
bins=$(cargo test --no-run 2>&1 | sed -n 's/.*Executable tests\/sim.rs (\(.*\))/\1/p')
bins="$bins $CARGO_TARGET_DIR/debug/uses_the_lib $CARGO_TARGET_DIR/debug/declares_itself"
for bin in $bins; do
    [ -x "$bin" ] || fail "no binary $bin"
    defined=$(nm --defined-only "$bin" | awk '{ print $3 }' | sort -u)
    grep -qx add <<<"$defined" || fail "$bin does not define the user's kernel add"
    grep -qx user_kernels <<<"$defined" || fail "$bin does not define the app symbol user_kernels"
    for sym in doca_examples doca_tests $ours; do
        [ "$sym" = add ] && continue  # the user's own kernel has this name
        if grep -qx "$sym" <<<"$defined"; then
            fail "$bin defines doca-rs's own symbol $sym"
        fi
    done
    echo "$(basename "$bin"): add and user_kernels defined; none of $(wc -w <<<"$ours") doca-rs kernel names nor doca_examples/doca_tests"
done

echo "== the same crate as edition 2024 (what \`cargo new\` makes): builds, tests, runs"
# The dependencies are built already; only the fixture itself is compiled again.
sed -i 's/^edition = "2021"$/edition = "2024"/' Cargo.toml
grep -qx 'edition = "2024"' Cargo.toml || fail "the fixture's edition was not switched to 2024"
run_fixture "the edition-2024 fixture"
echo "edition 2024: the fixture's tests and binaries pass"
sed -i 's/^edition = "2024"$/edition = "2021"/' Cargo.toml

if pkg-config --exists doca-common 2>/dev/null; then
    echo "== (DOCA is installed: the hardware-default check is skipped)"
else
    echo "== without DOCA, the hardware default fails and names the switch to the sim"
    if msg=$(cargo build -q 2>&1); then
        fail "the user crate built for hardware without DOCA"
    fi
    for needle in 'the `sim` feature of `doca`' 'features = ["sim"]' 'DOCA_BACKEND=sim'; do
        grep -qF -- "$needle" <<<"$msg" || { echo "$msg"; fail "the hardware error does not name: $needle"; }
    done
fi
echo "user-crate-test: ok (clean sim build ${secs} s)"
