#!/usr/bin/env bash
# Proves the hardware build path without hardware.
#
# 1. Lays out a directory like a DOCA install: the reference headers, .pc
#    files, and doca-sim built as shared libraries named like DOCA's.
# 2. Builds a probe with DOCA_BACKEND=hardware and PKG_CONFIG_PATH pointing
#    there (pkg-config -> bindgen -> dynamic link), runs it, and checks it
#    talked to the library it found.
# 3. Gives the install a fake `tools/dpacc` (answers --version with the
#    install's release, records its command line, writes an archive with the
#    app symbol and a stub per kernel) and `tools/dpa-app-attributes2blob`,
#    builds the kernels probe (a DPA app built by doca-build-support in
#    hardware mode, declared with doca_dpa::dpa_app!), and checks the dpacc
#    command line; then checks that a dpacc of another release is refused.
# 4. Points at a DOCA 2.5-shaped prefix and checks the refusal message.
# 5. Builds doca-dpa-sys in hardware mode with no DOCA at all and checks the
#    actionable "not found" message.
#
# Needs libclang (bindgen) and a C compiler. Run from anywhere.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/target/fake-prefix"
prefix="$work/doca"
old="$work/doca-2.5"
export CARGO_TARGET_DIR="$work/cargo"
version=$(sed -n 's/^#define DOCA_VERSION_STRING "\(.*\)"/\1/p' "$root/doca-sim/include/doca_version.h")
fail() { echo "fake-prefix-test: FAIL: $*" >&2; exit 1; }

rm -rf "$prefix" "$old" "$work/dpacc-3.1"
# shellcheck source=scripts/lib/fake-doca.sh
. "$root/scripts/lib/fake-doca.sh"
fake_doca_install "$prefix"

# fake_dpacc PATH VERSION: a dpacc that reports VERSION, records its
# arguments (one a line) in PATH.argv, and turns `SOURCES… -o X.a
# --app-name=NAME -hostcc=CC …` into X.a defining `struct doca_dpa_app *NAME`
# (NULL) and `void K(void){}` for each `__dpa_global__`/`__dpa_rpc__` K.
fake_dpacc() {
    mkdir -p "$(dirname "$1")"
    cat > "$1" <<EOF
#!/usr/bin/env bash
set -euo pipefail
if [ "\${1:-}" = --version ]; then
    echo "NVIDIA DPACC version $2 (fake, doca-rs tests)"
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
    sed -n 's/.*__dpa_\(global\|rpc\)__ *[a-z_0-9]* *\([A-Za-z_][A-Za-z_0-9]*\) *(.*/void \2(void) {}/p' "\${srcs[@]}"
} > "\$tmp/app.c"
"\$cc" -c -fPIC -o "\$tmp/app.o" "\$tmp/app.c"
rm -f "\$out"
ar rcs "\$out" "\$tmp/app.o"
rm -rf "\$tmp"
EOF
    chmod +x "$1"
}
fake_dpacc "$prefix/tools/dpacc" "$version"
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
bin="$CARGO_TARGET_DIR/debug/doca-fake-prefix-probe"
# ldd's output is captured first: `ldd | grep -q` under pipefail fails at
# random when grep exits before ldd has written everything (SIGPIPE).
deps=$(LD_LIBRARY_PATH="$prefix/lib" ldd "$bin")
for lib in libdoca_dpa.so libdoca_common.so; do
    grep -q "$prefix/lib/$lib" <<<"$deps" \
        || fail "the probe is not dynamically linked to the fake $lib"
done

echo "== building the kernels probe with the fake dpacc (DOCA $version)"
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

echo "== a dpacc of another release must be refused"
fake_dpacc "$work/dpacc-3.1/dpacc" "3.1.0000"
if msg=$(cd "$kprobe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$prefix/lib/pkgconfig" DPACC="$work/dpacc-3.1/dpacc" \
    cargo build -q 2>&1); then
    fail "a 3.1 dpacc was accepted for DOCA $version"
fi
grep -q "3.1.0000" <<<"$msg" || { echo "$msg"; fail "the mismatch message does not name dpacc's version"; }
grep -q "$version" <<<"$msg" || { echo "$msg"; fail "the mismatch message does not name DOCA's version"; }
[ ! -f "$work/dpacc-3.1/dpacc.argv" ] || fail "the mismatched dpacc was run to compile"

echo "== a DOCA 2.5-shaped prefix must be refused"
mkdir -p "$old/include" "$old/lib/pkgconfig"
cat > "$old/include/doca_version.h" <<'EOF'
#define DOCA_VER_MAJOR 2
#define DOCA_VER_MINOR 5
#define DOCA_VER_PATCH 108
#define DOCA_VER_STRING "2.5.0108"
EOF
cat > "$old/lib/pkgconfig/doca.pc" <<EOF
prefix=$old
includedir=\${prefix}/include
libdir=\${prefix}/lib
Name: doca
Description: umbrella module of an old DOCA
Version: 2.5.0108
Libs: -L\${libdir} -ldoca_dpa -ldoca_common
Cflags: -I\${includedir}
EOF
if msg=$(cd "$probe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$old/lib/pkgconfig" cargo build -q 2>&1); then
    fail "a 2.5-shaped install was accepted"
fi
grep -q "2.5.0108" <<<"$msg" || { echo "$msg"; fail "the refusal does not say what was found"; }
grep -q "2.9" <<<"$msg" || { echo "$msg"; fail "the refusal does not name the minimum supported version"; }

echo "== hardware mode with no DOCA must fail with the actionable message"
if msg=$(cd "$probe" && DOCA_BACKEND=hardware PKG_CONFIG_PATH="$work/nowhere" DOCA_PREFIX="$work/nowhere" cargo build -q 2>&1); then
    fail "hardware mode built with no DOCA installed"
fi
for needle in doca-dpa PKG_CONFIG_PATH DOCA_BACKEND=sim; do
    grep -q -- "$needle" <<<"$msg" || { echo "$msg"; fail "the not-found message does not mention $needle"; }
done

echo "fake-prefix-test: 5 passed, 0 failed"
