#!/usr/bin/env bash
# Proves the hardware build path without hardware.
#
# 1. Lays out a directory like a DOCA install: the reference headers, .pc
#    files, and doca-sim built as shared libraries named like DOCA's.
# 2. Builds a probe with DOCA_BACKEND=hardware and PKG_CONFIG_PATH pointing
#    there (pkg-config -> the bundled bindings, checked against the install's
#    headers -> dynamic link), runs it, and checks it talked to the library it
#    found; then again with the bindgen feature (bindgen over the headers).
# 3. Gives the install a fake `tools/dpacc` (answers --version in the real
#    format, with dpacc's own numbering: DOCA 3.1's 1.12.0.26, accepted as the
#    install's own dpacc whatever the table of pairings says; records its
#    command line, writes an archive with the app symbol and a stub per kernel)
#    and `tools/dpa-app-attributes2blob`, builds the kernels probe (a DPA app
#    built by doca-build-support in hardware mode, declared with
#    doca_dpa::dpa_app!), and checks the dpacc command line; then checks that
#    the same dpacc outside the install (a pairing resting on one uncertain
#    source) and an unknown pairing build with warnings.
# 4. Builds the doca package's examples and the doca-doctor package in hardware
#    mode, checks with scripts/check-hw-symbols.sh and cargo tree that none has
#    the sim inside (and the user crate of scripts/user-crate-test.sh too),
#    checks doca-doctor's report (the install's version and devices, loaded at
#    run time; "not found" without DOCA), runs clippy over the library crates in
#    hardware mode, then builds the examples and `cargo test --no-run` against a
#    DOCA 3.0-shaped install (no RDMI headers, no doca-rdmi.pc).
# 5. Points at a DOCA 2.5-shaped prefix (its doca.pc with the real, here
#    unresolvable, Requires.private) and checks the refusal message, in
#    hardware and auto mode.
# 6. Builds doca-dpa-sys in hardware mode with no DOCA at all and checks the
#    actionable "not found" message.
#
# Every build denies warnings (RUSTFLAGS=-D warnings). Needs libclang
# (bindgen) and a C compiler. Run from anywhere.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/target/fake-prefix"
prefix="$work/doca"
old="$work/doca-2.5"
export CARGO_TARGET_DIR="$work/cargo"
# The same flags in scripts/rdmi-shape-test.sh, which shares the target dir.
export RUSTFLAGS="-D warnings"
sim_version=$(sed -n 's/^#define DOCA_VERSION_STRING "\(.*\)"/\1/p' "$root/doca-sim/include/doca_version.h")
fail() { echo "fake-prefix-test: FAIL: $*" >&2; exit 1; }

rm -rf "$prefix" "$old" "$work/dpacc-3.1" "$work/dpacc-unknown" "$work/doca-3.0"
# shellcheck source=scripts/lib/fake-doca.sh
. "$root/scripts/lib/fake-doca.sh"
fake_doca_install "$prefix"
# The install's version, not the sim's (scripts/lib/fake-doca.sh).
version=$fake_version
[ "$version" != "$sim_version" ] || fail "the fake install has the sim's version"

# fake_dpacc PATH VERSION: a dpacc that reports VERSION as a real one does
# (a banner, a copyright line, `dpacc version VERSION`), records its
# arguments (one a line) in PATH.argv, and turns `SOURCES… -o X.a
# --app-name=NAME -hostcc=CC …` into X.a defining `struct doca_dpa_app *NAME`
# (NULL) and `void K(void){}` for each `__dpa_global__`/`__dpa_rpc__` K.
fake_dpacc() {
    mkdir -p "$(dirname "$1")"
    fake_dpa_toolchain "$(dirname "$1")"
    cat > "$1" <<EOF
#!/usr/bin/env bash
set -euo pipefail
if [ "\${1:-}" = --version ]; then
    echo "dpacc: NVIDIA (R)"
    echo "Copyright (c) 2021-2025 NVIDIA Corporation (a stand-in for doca-rs tests)"
    echo "dpacc version $2"
    exit 0
fi
printf '%s\n' "\$@" > "\$0.argv"
out= app= cc=cc srcs=()
while [ \$# -gt 0 ]; do
    case "\$1" in
        -o) out=\$2; shift ;;
        --app-name=*) app=\${1#--app-name=} ;;
        -hostcc=*) cc=\${1#-hostcc=} ;;
        *.c) srcs+=("\$1") ;;
    esac
    shift
done
[ -n "\$out" ] && [ -n "\$app" ] || { echo "fake dpacc: need -o and --app-name" >&2; exit 2; }
tmp=\$(mktemp -d)
{
    echo "struct doca_dpa_app;"
    echo "struct doca_dpa_app *\$app = 0;"
    # Once per name: a kernel may be defined in two #if branches (sound_branch_store).
    sed -n 's/.*__dpa_\(global\|rpc\)__ *[a-z_0-9]* *\([A-Za-z_][A-Za-z_0-9]*\) *(.*/void \2(void) {}/p' "\${srcs[@]}" | sort -u
} > "\$tmp/app.c"
"\$cc" -c -fPIC -o "\$tmp/app.o" "\$tmp/app.c"
rm -f "\$out"
ar rcs "\$out" "\$tmp/app.o"
rm -rf "\$tmp"
EOF
    chmod +x "$1"
}
# DOCA 3.1's dpacc in a DOCA $version install: accepted only because it is
# the install's own.
fake_dpacc "$prefix/tools/dpacc" "1.12.0.26"
cat > "$prefix/tools/dpa-app-attributes2blob" <<'EOF'
#!/usr/bin/env bash
# fake: the "blob" is the YAML
cp "$1" "$2"
EOF
chmod +x "$prefix/tools/dpa-app-attributes2blob"

echo "== building the probe against $prefix (DOCA_BACKEND=hardware)"
probe="$root/tests/fake-prefix/probe"
out=$(cd "$probe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
    LD_LIBRARY_PATH="$prefix/lib" cargo run -q 2>&1) || { echo "$out"; fail "probe build or run failed"; }
echo "$out"
grep -qx "backend=hardware" <<<"$out" || fail "probe was not built for the hardware backend"
grep -qx "runtime_version=$version" <<<"$out" || fail "probe did not report the runtime version of the fake install"
grep -qx "device=mlx5_0 dpa=true" <<<"$out" || fail "probe did not list the sim's BlueField-3"
grep -qx "device=mlx5_2 dpa=false" <<<"$out" || fail "probe did not list the sim's BlueField-2"
grep -qx "declared_not_exported=" <<<"$out" || fail "some declared functions are not exported by the fake install"
grep -qx "hand_declared=doca_rdmi_connection_as_ctx" <<<"$out" || fail "doca_rdmi_connection_as_ctx was not detected for hand declaration"
grep -qx "launch_null_rc=6" <<<"$out" || fail "the variadic launch did not answer INVALID_VALUE for a NULL context"
grep -qx "header_version=$version" <<<"$out" || fail "the bindings' DOCA_VERSION_STRING is not the install's"
# No bindgen feature: the bundled bindings, checked against the install's headers.
grep -qx "rdma_absent_reason=None" <<<"$out" || fail "the probe found no DOCA RDMA in the fake install"
grep -qx "rdma_declared_not_exported=" <<<"$out" || fail "some declared DOCA RDMA functions are not exported by the fake install"
for set in dpa verbs rdmi rdma; do
    grep -q "^bindings_$set=bundled, [0-9]* items checked against the installed headers" <<<"$out" \
        || fail "the $set bindings are not the bundled ones checked against the install"
done
bin="$CARGO_TARGET_DIR/debug/doca-fake-prefix-probe"
# ldd's output is captured first: `ldd | grep -q` under pipefail fails at
# random when grep exits before ldd has written everything (SIGPIPE).
deps=$(LD_LIBRARY_PATH="$prefix/lib" ldd "$bin")
for lib in libdoca_dpa.so libdoca_common.so; do
    grep -q "$prefix/lib/$lib" <<<"$deps" \
        || fail "the probe is not dynamically linked to the fake $lib"
done

echo "== the probe again with the bindgen feature (bindings from the installed headers)"
out=$(cd "$probe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$prefix/lib/pkgconfig" \
    LD_LIBRARY_PATH="$prefix/lib" cargo run -q --features doca-dpa-sys/bindgen,doca-verbs-sys/bindgen,doca-rdmi-sys/bindgen,doca-rdma-sys/bindgen 2>&1) \
    || { echo "$out"; fail "probe build or run with bindgen failed"; }
for set in dpa verbs rdmi rdma; do
    grep -qx "bindings_$set=bindgen over the installed headers" <<<"$out" \
        || { echo "$out"; fail "the bindgen feature did not make the $set bindings with bindgen"; }
done
grep -qx "device=mlx5_0 dpa=true" <<<"$out" || fail "the bindgen-built probe did not list the sim's BlueField-3"
grep -qx "header_version=$version" <<<"$out" || fail "the bindgen-built DOCA_VERSION_STRING is not the install's"

echo "== building the kernels probe with the install's own dpacc (DOCA $version)"
kprobe="$root/tests/fake-prefix/kernels-probe"
argv="$prefix/tools/dpacc.argv"
out=$(cd "$kprobe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$prefix/lib/pkgconfig" DPACC="$prefix/tools/dpacc" \
    LD_LIBRARY_PATH="$prefix/lib" cargo run -q 2>&1) || { echo "$out"; fail "kernels probe build or run failed"; }
echo "$out"
grep -qx "backend=hardware" <<<"$out" || fail "the kernels probe was not built for the hardware backend"
grep -qx "app=kprobe_app" <<<"$out" || fail "the kernels probe did not declare its app"
grep -qx "kernel=kprobe_fill" <<<"$out" || fail "the kernels probe did not declare its kernel"
[ -f "$argv" ] || fail "the fake dpacc did not run"
args=$(cat "$argv")
echo "$args"
want_line() { grep -qxF -- "$1" <<<"$args" || fail "dpacc was not given: $1"; }
want_line "--app-name=kprobe_app"
want_line "$kprobe/kernels/kprobe.c"
want_line "-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8,nv-dpa-cx9"
want_line "-device-libs=-L$prefix/lib -ldoca_dpa_dev -ldoca_dpa_dev_comm -ldoca_dpa_dev_verbs"
grep -q -- "^-hostcc-options=-fPIC " <<<"$args" || fail "dpacc's host options do not start with -fPIC"
grep -q -- "^--dpa-proc-attr=.*\.attrs\.blob$" <<<"$args" || fail "dpacc was not given --dpa-proc-attr (DOCA $version)"
grep -qx -- "-o" <<<"$args" || fail "dpacc was not given -o"

echo "== a dpacc seen with another DOCA release, on uncertain evidence, builds with a warning quoting it"
fake_dpacc "$work/dpacc-3.1/dpacc" "1.12.0.26"
msg=$(cd "$kprobe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$prefix/lib/pkgconfig" DPACC="$work/dpacc-3.1/dpacc" \
    cargo build 2>&1) || { echo "$msg"; fail "DOCA 3.1's dpacc (outside the install) was refused on uncertain evidence"; }
for needle in "1.12.0.26" "DOCA 3.1" "$version" '"DOCA 3.1+"' "uncertain evidence"; do
    grep -qF -- "$needle" <<<"$msg" || { echo "$msg"; fail "the uncertain-pairing warning does not name $needle"; }
done
[ -f "$work/dpacc-3.1/dpacc.argv" ] || fail "the dpacc of an uncertain pairing did not compile"

echo "== an unknown dpacc/DOCA pairing builds, with a warning"
fake_dpacc "$work/dpacc-unknown/dpacc" "1.13.0.4"
msg=$(cd "$kprobe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$prefix/lib/pkgconfig" DPACC="$work/dpacc-unknown/dpacc" \
    cargo build 2>&1) || { echo "$msg"; fail "an unknown pairing did not build"; }
grep -q "warning: .*dpacc 1.13.0.4 .*with DOCA $version: an unverified pairing" <<<"$msg" \
    || { echo "$msg"; fail "the unknown pairing was not reported as a warning with both versions"; }
[ -f "$work/dpacc-unknown/dpacc.argv" ] || fail "the dpacc of an unknown pairing did not compile"

# hw_build PKG_CONFIG_PATH [DPACC]: the doca package's examples (their kernels
# built by doca-test-kernels with the fake dpacc, the install's own by default;
# DPACC unset when it is `found`, so the build finds the install's) and the
# doca-doctor package, hardware mode.
hw_build() {
    local dpacc=${2:-$prefix/tools/dpacc}
    local set_dpacc=(DPACC="$dpacc")
    [ "$dpacc" = found ] && set_dpacc=(-u DPACC)
    (cd "$root" && env "${set_dpacc[@]}" DOCA_BACKEND=hardware PKG_CONFIG_PATH="$1" \
        cargo build -q -p doca --examples 2>&1 \
        && env "${set_dpacc[@]}" DOCA_BACKEND=hardware PKG_CONFIG_PATH="$1" \
        cargo build -q -p doca-doctor 2>&1)
}
# hw_symbols LIBDIR: scripts/check-hw-symbols.sh over what hw_build built:
# doca-doctor and every example of the doca package.
hw_symbols() {
    local bins=("$CARGO_TARGET_DIR/debug/doca-doctor") f
    for f in "$CARGO_TARGET_DIR"/debug/examples/*; do
        # The examples themselves, not cargo's hashed copies or their .d files.
        [ -f "$f" ] && [ -x "$f" ] && [[ "$(basename "$f")" != *-* ]] && bins+=("$f")
    done
    [ ${#bins[@]} -gt 5 ] || fail "hw_symbols found only ${#bins[@]} binaries"
    bash "$root/scripts/check-hw-symbols.sh" "$1" "${bins[@]}" || fail "a hardware binary has the sim inside or a DOCA call not from the install"
}
# doctor DPACC ARGS…: doca-doctor as built by hw_build (its exit status is not
# the point), finding the install through pkg-config and LD_LIBRARY_PATH.
doctor() {
    local dpacc=$1
    shift
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" LD_LIBRARY_PATH="$prefix/lib" DPACC="$dpacc" \
        "$CARGO_TARGET_DIR/debug/doca-doctor" "$@" || true
}
want_json() { grep -qE -- "$1" <<<"$json" || { echo "$json"; fail "doca-doctor --json has no $1"; }; }

echo "== the doca package in hardware mode (examples, doca-doctor), with doca-rdmi.pc"
out=$(hw_build "$prefix/lib/pkgconfig") || { echo "$out"; fail "the doca package does not build (warnings denied) against the fake install"; }
[ -z "$out" ] || { echo "$out"; fail "the hardware build printed something (a warning?)"; }
json=$(doctor "$prefix/tools/dpacc" --json)
want_json '"backend": "hardware"'
# The doctor links no DOCA: it loads the install's libraries at run time.
want_json '"dpa": "none: this doctor loads DOCA'
want_json "\"path\": \"$prefix/lib/libdoca_common.so\""
want_json "\"path\": \"$prefix/lib/libdoca_dpa.so\""
want_json '"missing": \[\]'
want_json '"ibdev_name": "mlx5_0"'
want_json '"max_threads_per_kernel": [0-9]+'
want_json "\"doca_version_h\": \"$version\""
want_json '"version": "1\.12\.0\.26"'
want_json "\"doca_version\": \"$version\""
want_json '"pairing": "same-install"'
want_json "\"install_dpacc\": \"$prefix/tools/dpacc\""
# The install's version at run time (its library's doca_version_runtime), not the sim's.
want_json "\"runtime\": \"$version\""
json_sim=$(grep -F "\"$sim_version\"" <<<"$json" || true)
[ -z "$json_sim" ] || { echo "$json"; fail "doca-doctor reports the sim's version $sim_version: $json_sim"; }

# Without LD_LIBRARY_PATH: the libraries found in pkg-config's libdir.
json=$(env -u LD_LIBRARY_PATH PKG_CONFIG_PATH="$prefix/lib/pkgconfig" DPACC="$prefix/tools/dpacc" \
    "$CARGO_TARGET_DIR/debug/doca-doctor" --json || true)
want_json '"from": "pkg-config libdir"'
want_json "\"path\": \"$prefix/lib/libdoca_dpa.so\""
want_json "\"runtime\": \"$version\""
want_json '"ibdev_name": "mlx5_0"'
# With no DOCA at all: a report that says so, and exit status 1.
set +e
json=$(env -u LD_LIBRARY_PATH PKG_CONFIG_PATH="$work/nowhere" DOCA_PREFIX="$work/nowhere" \
    "$CARGO_TARGET_DIR/debug/doca-doctor" --json)
code=$?
set -e
[ "$code" = 1 ] || { echo "$json"; fail "doca-doctor exited with $code, not 1, without DOCA"; }
want_json '"libdoca_common.so",'
want_json "DOCA's libraries were not found"
want_json "\"dir\": \"$work/nowhere/lib\""

echo "== no simulator in the hardware build (scripts/check-hw-symbols.sh, cargo tree)"
hw_symbols "$prefix/lib"
# An example run against the install reports the install's version and devices.
out=$(LD_LIBRARY_PATH="$prefix/lib" "$CARGO_TARGET_DIR/debug/examples/list_devices" 2>&1) || { echo "$out"; fail "list_devices failed against the fake install"; }
grep -qx "backend: hardware (DOCA $version)" <<<"$out" || { echo "$out"; fail "list_devices does not report the install's version $version"; }
grep -q "mlx5_0  DPA: yes" <<<"$out" || { echo "$out"; fail "list_devices does not list the install's devices"; }
for pkg in doca doca-doctor; do
    # What a dependant (or cargo install) gets: normal and build dependencies.
    tree=$(cd "$root" && cargo tree -q -p "$pkg" -e normal,build) || { echo "$tree"; fail "cargo tree -p $pkg failed"; }
    if grep -q "doca-sim" <<<"$tree"; then
        echo "$tree"
        fail "the hardware build of $pkg has doca-sim in its dependency tree"
    fi
done

echo "== the user crate of scripts/user-crate-test.sh, built for the fake install"
rm -rf "$work/user-crate"
cp -r "$root/tests/user-crate" "$work/user-crate"
sed -i "s#path = \"\.\./\.\.#path = \"$root#g" "$work/user-crate/Cargo.toml"
cp "$root/Cargo.lock" "$work/user-crate/Cargo.lock"
out=$(cd "$work/user-crate" && env -u DOCA_BACKEND PKG_CONFIG_PATH="$prefix/lib/pkgconfig" DPACC="$prefix/tools/dpacc" \
    cargo build -q --bins 2>&1) || { echo "$out"; fail "the user crate does not build for the fake install"; }
bash "$root/scripts/check-hw-symbols.sh" "$prefix/lib" \
    "$CARGO_TARGET_DIR/debug/uses_the_lib" "$CARGO_TARGET_DIR/debug/declares_itself" \
    || fail "a binary of the user crate has the sim inside or a DOCA call not from the install"
tree=$(cd "$work/user-crate" && cargo tree -q -e normal,build) || { echo "$tree"; fail "cargo tree of the user crate failed"; }
if grep -q "doca-sim" <<<"$tree"; then
    echo "$tree"
    fail "the user crate's hardware build has doca-sim in its dependency tree"
fi

human=$(doctor "$prefix/tools/dpacc")
grep -q "pairing .*the DOCA install's own dpacc" <<<"$human" || { echo "$human"; fail "the human report does not give the pairing"; }
grep -qE "^ +version +1\.12\.0\.26" <<<"$human" || { echo "$human"; fail "the human report does not give dpacc's version"; }
json=$(doctor "$work/dpacc-3.1/dpacc" --json)
want_json '"pairing": "uncertain"'
json=$(doctor "$work/dpacc-unknown/dpacc" --json)
want_json '"pairing": "unknown"'

echo "== clippy in hardware mode (every cfg'd FFI call site has its SAFETY comment)"
out=$(cd "$root" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$prefix/lib/pkgconfig" DPACC="$prefix/tools/dpacc" \
    cargo clippy -q -p doca-dpa-sys -p doca-verbs-sys -p doca-rdmi-sys -p doca-rdma-sys -p doca-comch-sys -p doca-dpa \
        -p doca-verbs -p doca-rdmi -p doca-rdma -p doca-comch -- -D warnings 2>&1) \
    || { echo "$out"; fail "clippy finds warnings in the hardware build"; }

echo "== the doca package in hardware mode on a real-shaped DOCA 3.0 install: no RDMI, no DPACC set"
# DOCA 3.0.0058's .pc files (no public release ships RDMI headers) and headers
# that differ from the reference headers the ways real ones do, derived here
# from the reference headers (NVIDIA's text stays out of the repository): a
# 64-bit typedef and a parameter spelled `unsigned long long` (as the real Linux
# doca_types.h spells doca_be64_t `__be64`, which the reference follows), a
# typedef moved to another header, a function a newer release adds. The fake
# libraries and tools of the main install; DPACC unset, so the build finds the
# install's own tools/dpacc (and the dpa-clang beside it for dpaintrin.h).
p30="$work/doca-3.0"
mkdir -p "$p30/include" "$p30/lib"
cp "$prefix"/include/*.h "$p30/include/"
rm "$p30"/include/doca_rdmi_*.h
# DOCA Verbs arrived after 3.0: no doca_verbs.h, no doca-verbs.pc (doca-verbs-sys
# builds empty and doca-verbs says why).
rm "$p30"/include/doca_verbs.h
fake_doca_set_version "$p30/include/doca_version.h" 3.0.0058
# real_shape FILE FROM TO: one change, which must apply.
real_shape() {
    grep -qF -- "$2" "$p30/include/$1" || fail "the reference $1 has no: $2"
    FROM=$2 TO=$3 perl -0pi -e 's/\Q$ENV{FROM}\E/$ENV{TO}/' "$p30/include/$1"
}
real_shape doca_dpa.h "typedef uint64_t doca_dpa_dev_uintptr_t;" "typedef unsigned long long doca_dpa_dev_uintptr_t;"
real_shape doca_sync_event.h "struct doca_sync_event *event, uint64_t *value);" "struct doca_sync_event *event, unsigned long long *value);"
real_shape doca_sync_event.h "typedef uint64_t doca_dpa_dev_sync_event_t;" ""
real_shape doca_sync_event.h "#include <doca_error.h>" "#include <doca_error.h>
#include <doca_types.h>"
real_shape doca_types.h "#ifdef __cplusplus
}" "typedef uint64_t doca_dpa_dev_sync_event_t;
#ifdef __cplusplus
}"
real_shape doca_dpa.h "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);" "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);
DOCA_EXPERIMENTAL doca_error_t doca_dpa_added_by_a_newer_release(struct doca_dpa *dpa, uint64_t value);"
cp -r "$prefix/lib/pkgconfig" "$p30/lib/pkgconfig"
rm "$p30/lib/pkgconfig/doca-rdmi.pc" "$p30/lib/pkgconfig/doca-verbs.pc"
sed -i -e "s#^prefix=.*#prefix=$p30#" -e "s#^libdir=.*#libdir=$prefix/lib#" \
    -e "s#^Version: $version#Version: 3.0.0058#" "$p30"/lib/pkgconfig/*.pc
ln -s "$prefix/tools" "$p30/tools"
out=$(hw_build "$p30/lib/pkgconfig" found) || { echo "$out"; fail "the doca package does not build (warnings denied) on a real-shaped DOCA 3.0 install"; }
[ -z "$out" ] || { echo "$out"; fail "the build on a real-shaped DOCA 3.0 install printed something (a warning?)"; }
out=$(LD_LIBRARY_PATH="$prefix/lib" "$CARGO_TARGET_DIR/debug/examples/rdmi_connection" 2>&1) || { echo "$out"; fail "rdmi_connection failed without RDMI"; }
grep -q "RDMI is not available in this build" <<<"$out" || { echo "$out"; fail "rdmi_connection did not say RDMI is absent"; }
hw_symbols "$prefix/lib"
# without_module MODULE CRATE WHAT EXAMPLE…: the examples and CRATE's tests build in
# hardware mode (warnings denied, nothing printed) on the fake install without
# MODULE.pc, and each example says why WHAT is absent.
without_module() {
    local module=$1 crate=$2 what=$3 ex
    shift 3
    echo "== the $what examples and $crate in hardware mode without $module.pc: the API says why it is absent"
    local pn="$work/doca-no-$module" examples=()
    rm -rf "$pn"
    mkdir -p "$pn/lib"
    cp -r "$prefix/lib/pkgconfig" "$pn/lib/pkgconfig"
    rm "$pn/lib/pkgconfig/$module.pc"
    for ex in "$@"; do examples+=(--example "$ex"); done
    out=$(cd "$root" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$pn/lib/pkgconfig" DPACC="$prefix/tools/dpacc" \
        cargo build -q -p doca "${examples[@]}" 2>&1 \
        && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$pn/lib/pkgconfig" DPACC="$prefix/tools/dpacc" \
        cargo test -q -p "$crate" --no-run 2>&1) || { echo "$out"; fail "the $what examples or $crate do not build (warnings denied) without $module.pc"; }
    grep -v "^ *Executable " <<<"$out" | grep -q . && { echo "$out"; fail "building without $module.pc printed something (a warning?)"; }
    for ex in "$@"; do
        out=$(LD_LIBRARY_PATH="$prefix/lib" "$CARGO_TARGET_DIR/debug/examples/$ex" 2>&1) || { echo "$out"; fail "$ex failed without $module.pc"; }
        grep -q "$what is not available in this build: no $module.pc" <<<"$out" || { echo "$out"; fail "$ex did not say why $what is absent"; }
    done
}
without_module doca-rdma doca-rdma "DOCA RDMA" rdma_initiator_target rdma_ping_pong
without_module doca-comch doca-comch "DPA Comms" dpa_msgq
echo "== the tests in hardware mode on the DOCA 3.0-shaped install (cargo test --no-run)"
out=$(cd "$root" && env -u DPACC DOCA_BACKEND=hardware PKG_CONFIG_PATH="$p30/lib/pkgconfig" \
    cargo test -q --workspace --no-run 2>&1) || { echo "$out"; fail "the tests do not build (warnings denied) on a real-shaped DOCA 3.0 install"; }
grep -v "^ *Executable " <<<"$out" | grep -q . && { echo "$out"; fail "building the tests on a real-shaped DOCA 3.0 install printed something (a warning?)"; }

echo "== APIs newer than DOCA 3.0: absent on the 3.0-shaped install, present on a 3.2-shaped one"
# The 3.2-shaped install: the real-shaped 3.0 headers at version 3.2.0118, so the
# declarations the reference headers guard with DOCA_VERSION_LTE_CURRENT for 3.1
# and 3.2 are there (DPA Verbs' queue pairs, doca_umem.h and doca_uar.h: the safe
# queue-pair API builds and says it is available); with the RDMI headers and doca-rdmi.pc back (DOCA Verbs, where
# the 3.2 queue-pair handle is, is bound with RDMI).
p32="$work/doca-3.2"
rm -rf "$p32"
cp -r "$p30" "$p32"
rm "$p32/tools"
ln -s "$prefix/tools" "$p32/tools"
# DOCA Verbs (3.2) and RDMI, which is built on it, come back.
cp "$prefix"/include/doca_rdmi_*.h "$prefix/include/doca_verbs.h" "$p32/include/"
cp "$prefix/lib/pkgconfig/doca-rdmi.pc" "$prefix/lib/pkgconfig/doca-verbs.pc" "$p32/lib/pkgconfig/"
fake_doca_set_version "$p32/include/doca_version.h" 3.2.0118
sed -i -e "s#^prefix=.*#prefix=$p32#" -e "s#^libdir=.*#libdir=$prefix/lib#" \
    -e "s#^Version: .*#Version: 3.2.0118#" "$p32"/lib/pkgconfig/*.pc
rm -rf "$work/version-probe"
cp -r "$root/tests/fake-prefix/version-probe" "$work/version-probe"
sed -i "s#path = \"\.\./\.\./\.\.#path = \"$root#g" "$work/version-probe/Cargo.toml"
cp "$root/Cargo.lock" "$work/version-probe/Cargo.lock"
# version_probe PKG_CONFIG_PATH ARGS…: the probe built and run for that install.
version_probe() {
    local pc=$1
    shift
    (cd "$work/version-probe" && env -u DPACC DOCA_BACKEND=hardware PKG_CONFIG_PATH="$pc" \
        LD_LIBRARY_PATH="$prefix/lib" cargo run -q "$@" 2>&1)
}
out=$(version_probe "$p32/lib/pkgconfig" --features api-3-1,api-3-2) \
    || { echo "$out"; fail "the DOCA 3.1 and 3.2 APIs do not build (warnings denied) on a 3.2-shaped install"; }
for line in doca_version=3.2.0118 doca_ge_3_1=true doca_ge_3_2=true doca_ge_3_3=false api_3_1=present api_3_2=present dpa_verbs=Available; do
    grep -qx "$line" <<<"$out" || { echo "$out"; fail "the probe on the 3.2-shaped install did not print $line"; }
done
out=$(version_probe "$p30/lib/pkgconfig") || { echo "$out"; fail "the version probe does not build on the 3.0-shaped install"; }
for line in doca_version=3.0.0058 doca_ge_3_0=true doca_ge_3_1=false doca_ge_3_2=false; do
    grep -qx "$line" <<<"$out" || { echo "$out"; fail "the probe on the 3.0-shaped install did not print $line"; }
done
if out=$(version_probe "$p30/lib/pkgconfig" --features api-3-1); then
    fail "Device::pci_func_type (DOCA 3.1) exists in a build for DOCA 3.0"
fi
grep -q "no function or associated item named \`pci_func_type\`" <<<"$out" \
    || { echo "$out"; fail "the 3.1 API on the 3.0-shaped install failed for another reason than its absence"; }

echo "== the doctor predicts the build on the real-shaped install: accepted"
out=$(cd "$root" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$p30/lib/pkgconfig" cargo build -q -p doca-doctor 2>&1) \
    || { echo "$out"; fail "doca-doctor does not build for the real-shaped install"; }
json=$(env -u DPACC PKG_CONFIG_PATH="$p30/lib/pkgconfig" LD_LIBRARY_PATH="$prefix/lib" \
    "$CARGO_TARGET_DIR/debug/doca-doctor" --json || true)
want_json '"result": "accepted'

echo "== the packaged -sys crates build in hardware mode with no doca-sim anywhere"
# The tarballs of doca-build-support and the -sys crates, unpacked where no
# doca-sim is beside them; doca-sim itself is replaced by a crate that does not
# compile, so a hardware build that needed any of it would fail.
pk="$work/packaged"
rm -rf "$pk"
mkdir -p "$pk/poison-sim/src" "$pk/probe/src"
# doca-sim is packaged too (cargo resolves the optional dependency among the
# packages it makes), but not unpacked.
(cd "$root" && cargo package -q --no-verify --allow-dirty -p doca-build-support -p doca-sim -p doca-dpa-sys -p doca-verbs-sys -p doca-rdmi-sys 2>&1) \
    || fail "cargo package of the -sys crates failed"
pkgdir=$(cd "$root" && cargo metadata -q --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/package
for c in doca-build-support doca-dpa-sys doca-verbs-sys doca-rdmi-sys; do
    tar -xzf "$pkgdir/$c-0.1.0.crate" -C "$pk"
done
cat > "$pk/poison-sim/Cargo.toml" <<EOF
[package]
name = "doca-sim"
version = "0.1.0"
edition = "2021"
EOF
echo 'compile_error!("doca-sim was built by a hardware build");' > "$pk/poison-sim/src/lib.rs"
cat > "$pk/probe/Cargo.toml" <<EOF
[package]
name = "doca-packaged-probe"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
doca-dpa-sys = "0.1.0"
doca-rdmi-sys = "0.1.0"
[patch.crates-io]
doca-build-support = { path = "../doca-build-support-0.1.0" }
doca-dpa-sys = { path = "../doca-dpa-sys-0.1.0" }
doca-verbs-sys = { path = "../doca-verbs-sys-0.1.0" }
doca-rdmi-sys = { path = "../doca-rdmi-sys-0.1.0" }
doca-sim = { path = "../poison-sim" }
[workspace]
EOF
echo 'fn main() { println!("{}", doca_dpa_sys::build_info::BINDINGS); }' > "$pk/probe/src/main.rs"
cp "$root/Cargo.lock" "$pk/probe/Cargo.lock"
out=$(cd "$pk/probe" && env -u DPACC DOCA_BACKEND=hardware PKG_CONFIG_PATH="$p30/lib/pkgconfig" \
    CARGO_TARGET_DIR="$pk/target" LD_LIBRARY_PATH="$prefix/lib" cargo run -q 2>&1) \
    || { echo "$out"; fail "the packaged -sys crates do not build in hardware mode without doca-sim"; }
grep -q "^bundled, [0-9]* items checked against the installed headers" <<<"$out" \
    || { echo "$out"; fail "the packaged -sys crates did not check the bundled bindings against the install"; }

echo "== a header that changes a width is refused with one clean message naming the item"
pbad="$work/doca-3.0-narrow"
rm -rf "$pbad"
cp -r "$p30" "$pbad"
rm "$pbad/tools"
ln -s "$prefix/tools" "$pbad/tools"
sed -i "s#$p30#$pbad#g" "$pbad"/lib/pkgconfig/*.pc
perl -pi -e 's/typedef unsigned long long doca_dpa_dev_uintptr_t;/typedef uint32_t doca_dpa_dev_uintptr_t;/' "$pbad/include/doca_dpa.h"
if msg=$(cd "$probe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$pbad/lib/pkgconfig" cargo build -q 2>&1); then
    fail "an install whose doca_dpa_dev_uintptr_t is 32 bits wide was accepted"
fi
grep -qF '  - doca_dpa_dev_uintptr_t: it is not the reference type uint64_t; the install declares `doca_dpa_dev_uintptr_t` (aka `unsigned int`)' <<<"$msg" \
    || { echo "$msg"; fail "the refusal does not name doca_dpa_dev_uintptr_t with both types first"; }
if grep -q "Wtype-limits" <<<"$msg"; then echo "$msg"; fail "the check's own macros warn"; fi
json=$(env -u DPACC PKG_CONFIG_PATH="$pbad/lib/pkgconfig" LD_LIBRARY_PATH="$prefix/lib" \
    "$CARGO_TARGET_DIR/debug/doca-doctor" --json || true)
want_json 'will be refused'
want_json 'doca_dpa_dev_uintptr_t'

echo "== a DOCA 2.5-shaped prefix must be refused"
mkdir -p "$old/include" "$old/lib/pkgconfig"
cat > "$old/include/doca_version.h" <<'EOF'
#define DOCA_VER_MAJOR 2
#define DOCA_VER_MINOR 5
#define DOCA_VER_PATCH 108
#define DOCA_VER_STRING "2.5.0108"
EOF
# The requirement lines of a real 2.5 doca.pc: the private ones do not
# resolve here (as on many machines), and it must still be "too old".
cat > "$old/lib/pkgconfig/doca.pc" <<EOF
prefix=$old
includedir=\${prefix}/include
libdir=\${prefix}/lib
Name: doca
Description: umbrella module of an old DOCA
Version: 2.5.0108
Requires: doca-libs
Requires.private: libibverbs, libmlx5, json-c, libflexio, libdpdk, glib-2.0, libcrypto, libzip
Libs: -L\${libdir} -ldoca_dpa -ldoca_common
Cflags: -I\${includedir}
EOF
cat > "$old/lib/pkgconfig/doca-libs.pc" <<EOF
prefix=$old
libdir=\${prefix}/lib
Name: doca-libs
Description: the libraries of an old DOCA
Version: 2.5.0108
Libs: -L\${libdir} -ldoca_dpa -ldoca_common
Cflags: -I\${prefix}/include -DALLOW_EXPERIMENTAL_API
EOF
if msg=$(cd "$probe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$old/lib/pkgconfig" cargo build -q 2>&1); then
    fail "a 2.5-shaped install was accepted"
fi
grep -q "2.5.0108" <<<"$msg" || { echo "$msg"; fail "the refusal does not say what was found"; }
grep -q "2.9" <<<"$msg" || { echo "$msg"; fail "the refusal does not name the minimum supported version"; }
grep -q "too old" <<<"$msg" || { echo "$msg"; fail "the 2.5 install was not reported as too old"; }
if msg=$(cd "$probe" && DOCA_BACKEND=auto PKG_CONFIG_PATH="$old/lib/pkgconfig" cargo build -q 2>&1); then
    fail "DOCA_BACKEND=auto replaced a 2.5-shaped install by the sim"
fi
grep -q "too old" <<<"$msg" || { echo "$msg"; fail "auto mode did not report the 2.5 install as too old"; }

echo "== hardware mode with no DOCA must fail with the actionable message"
if msg=$(cd "$probe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$work/nowhere" DOCA_PREFIX="$work/nowhere" cargo build -q 2>&1); then
    fail "hardware mode built with no DOCA installed"
fi
for needle in doca-dpa PKG_CONFIG_PATH DOCA_BACKEND=sim; do
    grep -q -- "$needle" <<<"$msg" || { echo "$msg"; fail "the not-found message does not mention $needle"; }
done

echo "== doca-doctor builds with no DOCA at all (it loads DOCA at run time)"
out=$(cd "$root" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$work/nowhere" DOCA_PREFIX="$work/nowhere" \
    cargo build -q -p doca-doctor 2>&1) || { echo "$out"; fail "doca-doctor does not build without DOCA"; }

echo "fake-prefix-test: 12 passed, 0 failed"
