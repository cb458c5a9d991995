# Sourced by scripts/fake-prefix-test.sh and scripts/rdmi-shape-test.sh.
#
# fake_doca_install PREFIX [FIRST_INCLUDE_DIR]
#   Lays out PREFIX like a DOCA install: the reference headers, doca-sim built
#   as libdoca_common.so (the Rust cdylib) and libdoca_dpa.so (the C variadic
#   entry points: a Rust cdylib does not export C symbols, so they form their
#   own library, which needs libdoca_common.so like DOCA's does), empty
#   libdoca_verbs.so / libdoca_rdmi.so that need it too, and .pc files for the
#   four modules. FIRST_INCLUDE_DIR, when given, goes before the headers on
#   every module's include path (a header variant).
#   Needs $root (the repository) and $CARGO_TARGET_DIR set by the caller.
fake_doca_install() {
    local prefix=$1 first=${2:-} version
    version=$(sed -n 's/^#define DOCA_VERSION_STRING "\(.*\)"/\1/p' "$root/doca-sim/include/doca_version.h")
    mkdir -p "$prefix/include" "$prefix/lib/pkgconfig"
    cp "$root"/doca-sim/include/*.h "$prefix/include/"

    echo "== building doca-sim as shared libraries"
    (cd "$root" && cargo rustc -q -p doca-sim --lib --crate-type cdylib)
    cp "$CARGO_TARGET_DIR/debug/libdoca_sim.so" "$prefix/lib/libdoca_common.so"
    cc -shared -fPIC -O1 -o "$prefix/lib/libdoca_dpa.so" "$root/doca-sim/csrc/shim.c" \
        -I"$root/doca-sim/include" -I"$root/doca-sim/device-include" -DDOCA_ALLOW_EXPERIMENTAL_API \
        -L"$prefix/lib" -Wl,--no-as-needed -ldoca_common
    local lib
    for lib in verbs rdmi; do
        echo '' | cc -shared -fPIC -x c - -o "$prefix/lib/libdoca_$lib.so" -L"$prefix/lib" -Wl,--no-as-needed -ldoca_common
    done

    local cflags='-I${includedir}'
    [ -n "$first" ] && cflags="-I$first $cflags"
    local module libs requires
    while read -r module libs requires; do
        cat > "$prefix/lib/pkgconfig/$module.pc" <<PC
prefix=$prefix
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: $module
Description: fake DOCA module for doca-rs tests
Version: $version
Requires: ${requires//,/ }
Libs: -L\${libdir} $libs
Cflags: $cflags
PC
    done <<MODULES
doca-common -ldoca_common
doca-dpa -ldoca_dpa doca-common
doca-verbs -ldoca_verbs doca-common
doca-rdmi -ldoca_rdmi doca-verbs,doca-dpa
MODULES
}
