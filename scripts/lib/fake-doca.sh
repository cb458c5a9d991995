# Sourced by scripts/fake-prefix-test.sh and scripts/rdmi-shape-test.sh.
#
# fake_doca_install PREFIX [FIRST_INCLUDE_DIR]
#   Lays out PREFIX like a DOCA install: the reference headers, doca-sim built
#   as libdoca_common.so (the Rust cdylib, which also exports the C device API
#   of csrc/device.c through csrc/exports.map, so kernels compiled for the host
#   end their runs in the copy of the sim that runs them) and libdoca_dpa.so
#   (the C variadic entry points: a Rust cdylib exports no other C symbols, so
#   they form their own library, which needs libdoca_common.so like DOCA's
#   does; each library has its SONAME, as DOCA's do, so one loaded by path
#   satisfies the others' NEEDED entries), empty
#   libdoca_verbs.so / libdoca_rdmi.so / libdoca_rdma.so / libdoca_comch.so that need
#   it too, and .pc files for the six modules with requirement lines shaped like real ones (Requires between
#   the DOCA modules; Requires.private on FlexIO and rdma-core, for which
#   stand-in modules are laid out too: pkg-config refuses flags for a module
#   whose requirements it cannot find). FIRST_INCLUDE_DIR, when given, goes
#   before the headers on every module's include path (a header variant).
#   Needs $root (the repository) and $CARGO_TARGET_DIR set by the caller. The
#   same build leaves doca-sim as a static library in
#   $CARGO_TARGET_DIR/debug/libdoca_sim.a (for C programs linked statically).
#
#   The install is DOCA $FAKE_DOCA_VERSION (default 3.2.0118): not the sim's own
#   version (3.3.0001, the reference headers'), so that a program reporting the
#   sim's version instead of the install's shows a mix-up. Its doca_version.h,
#   its .pc files and its library's doca_version_runtime() all say it (the
#   library is doca-sim, whose default version string is rewritten in the
#   built file, same length, nothing else changed). Sets $fake_version.
fake_doca_install() {
    local prefix=$1 first=${2:-} version sim_version
    sim_version=$(sed -n 's/^#define DOCA_VERSION_STRING "\(.*\)"/\1/p' "$root/doca-sim/include/doca_version.h")
    version=${FAKE_DOCA_VERSION:-3.2.0118}
    [ ${#version} = ${#sim_version} ] && [ "$version" != "$sim_version" ] \
        || { echo "fake-doca: FAKE_DOCA_VERSION must differ from $sim_version and have its length" >&2; return 1; }
    fake_version=$version
    mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
    cp "$root"/doca-sim/include/*.h "$prefix/include/"
    # A DOCA install ships the DPA device headers beside the host ones; the sim's
    # stand in for them with nothing of the sim's own (DOCA_SIM_DEV_NO_SIM_EXTRAS:
    # no DOCA_SIM_DEVICE, so kernels take their hardware branches), and neither its
    # doca_sim_*.h nor dpaintrin.h, which comes with dpacc's toolchain
    # (fake_dpa_toolchain).
    local h
    for h in doca_dpa_dev.h doca_dpa_dev_buf.h doca_dpa_dev_sync_event.h doca_dpa_dev_rdma.h \
        doca_dpa_dev_comch_msgq.h doca_dpa_dev_verbs.h; do
        { echo "#define DOCA_SIM_DEV_NO_SIM_EXTRAS 1"; cat "$root/doca-sim/device-include/$h"; } > "$prefix/include/$h"
    done
    # RDMI's device headers (not public; their handle types as the sim names them).
    for h in connection:doca_dpa_dev_rdmi_connection_t poster:doca_rdmi_dev_poster_t; do
        grep -q "^typedef uint64_t ${h#*:};" "$root/doca-sim/device-include/doca_sim_dev.h" \
            || { echo "fake-doca: doca_sim_dev.h has no ${h#*:}" >&2; return 1; }
        printf '#pragma once\n#include <doca_dpa_dev.h>\ntypedef uint64_t %s;\n' "${h#*:}" \
            > "$prefix/include/doca_rdmi_dev_${h%%:*}.h"
    done
    fake_doca_set_version "$prefix/include/doca_version.h" "$version"

    echo "== building doca-sim as shared libraries"
    # The sim of the newest release (DOCA_SIM_VERSION unset), whose version string
    # is the one rewritten below.
    (cd "$root" && env -u DOCA_SIM_VERSION cargo rustc -q -p doca-sim --lib --crate-type cdylib,staticlib -- \
        -C link-arg=-Wl,--version-script="$root/doca-sim/csrc/exports.map" \
        -C link-arg=-Wl,-soname,libdoca_common.so) \
        || { echo "fake-doca: building doca-sim failed" >&2; return 1; }
    cp "$CARGO_TARGET_DIR/debug/libdoca_sim.so" "$prefix/lib/libdoca_common.so"
    perl -pi -e "s/\\Q$sim_version\\E/$version/g" "$prefix/lib/libdoca_common.so"
    grep -qF "$version" "$prefix/lib/libdoca_common.so" && ! grep -qF "$sim_version" "$prefix/lib/libdoca_common.so" \
        || { echo "fake-doca: the library's version string was not rewritten" >&2; return 1; }
    cc -shared -fPIC -O1 -Wl,-soname,libdoca_dpa.so -o "$prefix/lib/libdoca_dpa.so" "$root/doca-sim/csrc/shim.c" \
        -I"$root/doca-sim/include" -I"$root/doca-sim/device-include" -DDOCA_ALLOW_EXPERIMENTAL_API \
        -L"$prefix/lib" -Wl,--no-as-needed -ldoca_common
    local lib
    for lib in verbs rdmi rdma comch; do
        echo '' | cc -shared -fPIC -x c - -Wl,-soname,libdoca_$lib.so -o "$prefix/lib/libdoca_$lib.so" -L"$prefix/lib" -Wl,--no-as-needed -ldoca_common
    done
    echo '' | cc -shared -fPIC -x c - -o "$prefix/lib/libflexio.so"

    local cflags='-I${includedir}'
    [ -n "$first" ] && cflags="-I$first $cflags"
    local module libs requires private
    while read -r module libs requires private; do
        [ "$requires" = - ] && requires=
        [ "$private" = - ] && private=
        cat > "$prefix/lib/pkgconfig/$module.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: $module
Description: fake DOCA module for doca-rs tests
Version: $version
Requires: ${requires//,/, }
Requires.private: ${private//,/, }
Libs: -L\${libdir} $libs
Cflags: $cflags
PC
    done <<MODULES
doca-common -ldoca_common - libibverbs,libmlx5
doca-dpa -ldoca_dpa doca-common libflexio
doca-verbs -ldoca_verbs doca-common libibverbs,libmlx5
doca-rdmi -ldoca_rdmi doca-verbs,doca-dpa -
doca-rdma -ldoca_rdma doca-common libibverbs
doca-comch -ldoca_comch doca-common -
MODULES
    # Stand-ins for the modules DOCA's require: FlexIO (linked, as doca-dpa-sys
    # links it when present) and rdma-core's (private only, never linked).
    local stand_in version_of link
    while read -r stand_in version_of libs; do
        link=
        [ -n "$libs" ] && link="-L$prefix/lib $libs"
        cat > "$prefix/lib/pkgconfig/$stand_in.pc" <<PC
Name: $stand_in
Description: stand-in for doca-rs tests
Version: $version_of
Libs: $link
Cflags:
PC
    done <<STANDINS
libflexio 25.04.0 -lflexio
libibverbs 50.0
libmlx5 50.0
STANDINS
}

# fake_dpa_toolchain DIR: a `dpa-clang` in DIR (beside a dpacc there) that
# answers -print-resource-dir as clang does, with a resource directory whose
# include/ holds the toolchain's own dpaintrin.h (the sim's stands in for it).
fake_dpa_toolchain() {
    local dir=$1
    mkdir -p "$dir/dpa_llvm/lib/clang/18/include"
    cp "$root/doca-sim/device-include/dpaintrin.h" "$dir/dpa_llvm/lib/clang/18/include/"
    cat > "$dir/dpa-clang" <<CLANG
#!/usr/bin/env bash
[ "\${1:-}" = -print-resource-dir ] || { echo "fake dpa-clang: only -print-resource-dir" >&2; exit 2; }
echo "$dir/dpa_llvm/lib/clang/18"
CLANG
    chmod +x "$dir/dpa-clang"
}

# fake_doca_set_version FILE VERSION: rewrites doca_version.h's DOCA_VERSION_*
# for VERSION (M.m.pppp).
fake_doca_set_version() {
    local file=$1 version=$2 major minor patch
    IFS=. read -r major minor patch <<<"$version"
    sed -i -e "s/^#define DOCA_VERSION_MAJOR .*/#define DOCA_VERSION_MAJOR $major/" \
        -e "s/^#define DOCA_VERSION_MINOR .*/#define DOCA_VERSION_MINOR $minor/" \
        -e "s/^#define DOCA_VERSION_PATCH .*/#define DOCA_VERSION_PATCH $((10#$patch))/" \
        -e "s/^#define DOCA_VERSION_STRING .*/#define DOCA_VERSION_STRING \"$version\"/" "$file"
    grep -qF "#define DOCA_VERSION_STRING \"$version\"" "$file" \
        || { echo "fake-doca: $file has no DOCA_VERSION_STRING to rewrite" >&2; return 1; }
}
