# Sourced by scripts/fake-prefix-test.sh and scripts/rdmi-shape-test.sh.
#
# fake_doca_install PREFIX [FIRST_INCLUDE_DIR]
#   Lays out PREFIX like a DOCA install: the reference headers, doca-sim built
#   as libdoca_common.so (the Rust cdylib, which also exports the C device API
#   of csrc/device.c through csrc/exports.map, so kernels compiled for the host
#   end their runs in the copy of the sim that runs them) and libdoca_dpa.so
#   (the C variadic entry points: a Rust cdylib exports no other C symbols, so
#   they form their own library, which needs libdoca_common.so like DOCA's
#   does), empty
#   libdoca_verbs.so / libdoca_rdmi.so that need it too, and .pc files for the
#   four modules with requirement lines shaped like real ones (Requires between
#   the DOCA modules; Requires.private on FlexIO and rdma-core, for which
#   stand-in modules are laid out too: pkg-config refuses flags for a module
#   whose requirements it cannot find). FIRST_INCLUDE_DIR, when given, goes
#   before the headers on every module's include path (a header variant).
#   Needs $root (the repository) and $CARGO_TARGET_DIR set by the caller. The
#   same build leaves doca-sim as a static library in
#   $CARGO_TARGET_DIR/debug/libdoca_sim.a (for C programs linked statically).
fake_doca_install() {
    local prefix=$1 first=${2:-} version
    version=$(sed -n 's/^#define DOCA_VERSION_STRING "\(.*\)"/\1/p' "$root/doca-sim/include/doca_version.h")
    mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
    cp "$root"/doca-sim/include/*.h "$prefix/include/"

    echo "== building doca-sim as shared libraries"
    (cd "$root" && cargo rustc -q -p doca-sim --lib --crate-type cdylib,staticlib -- \
        -C link-arg=-Wl,--version-script="$root/doca-sim/csrc/exports.map")
    cp "$CARGO_TARGET_DIR/debug/libdoca_sim.so" "$prefix/lib/libdoca_common.so"
    cc -shared -fPIC -O1 -o "$prefix/lib/libdoca_dpa.so" "$root/doca-sim/csrc/shim.c" \
        -I"$root/doca-sim/include" -I"$root/doca-sim/device-include" -DDOCA_ALLOW_EXPERIMENTAL_API \
        -L"$prefix/lib" -Wl,--no-as-needed -ldoca_common
    local lib
    for lib in verbs rdmi; do
        echo '' | cc -shared -fPIC -x c - -o "$prefix/lib/libdoca_$lib.so" -L"$prefix/lib" -Wl,--no-as-needed -ldoca_common
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
