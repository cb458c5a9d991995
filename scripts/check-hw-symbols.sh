#!/usr/bin/env bash
# check-hw-symbols.sh LIBDIR BINARY...
#
# For binaries built in hardware mode against the DOCA install whose libraries
# are in LIBDIR: proves where their DOCA calls go, whatever the link order.
#
# For each BINARY:
#   1. it defines no DOCA API function (doca_dpa_*, doca_dev*, doca_ctx_*,
#      doca_pe_*, doca_sync_event_*, doca_mmap_*, doca_verbs_*, doca_rdmi_*,
#      doca_error_*) and none of the software DPA's own (doca_sim_*): `nm`,
#      static and dynamic symbol tables, any defined type;
#   2. every DOCA API function it uses is undefined in it, and defined by a
#      libdoca_* library that its NEEDED entries (`readelf -d`) name and that
#      is in LIBDIR: so the dynamic loader can only take it from the install.
#      A binary that uses none (doca-doctor loads DOCA at run time) must not
#      name a libdoca_* library either.
#
# Prints one line per binary and exits non-zero on the first failing one,
# naming what was found. Needs nm and readelf (binutils).
set -euo pipefail

fail() { echo "check-hw-symbols: FAIL: $*" >&2; exit 1; }
[ $# -ge 2 ] || fail "usage: check-hw-symbols.sh LIBDIR BINARY..."
libdir=$1
shift
[ -d "$libdir" ] || fail "$libdir is not a directory"

api='^(doca_dpa_|doca_dev|doca_ctx_|doca_pe_|doca_sync_event_|doca_mmap_|doca_verbs_|doca_rdmi_|doca_error_)'
own='^doca_sim_'

# The symbols a file defines / leaves undefined, one name a line (static and
# dynamic tables; a stripped file has only the dynamic one).
defined() {
    { nm --defined-only "$1" 2>/dev/null || true; nm -D --defined-only "$1" 2>/dev/null || true; } \
        | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | sort -u
}
undefined() {
    { nm --undefined-only "$1" 2>/dev/null || true; nm -D --undefined-only "$1" 2>/dev/null || true; } \
        | awk '{ print $NF }' | sed 's/@.*//' | sort -u
}

for bin in "$@"; do
    [ -f "$bin" ] || fail "$bin does not exist"
    name=$(basename "$bin")
    defs=$(defined "$bin")
    inside=$(grep -E "$api|$own" <<<"$defs" || true)
    if [ -n "$inside" ]; then
        n=$(wc -l <<<"$inside")
        fail "$name defines $n DOCA functions itself (the software DPA is linked in), e.g.: $(head -n 5 <<<"$inside" | tr '\n' ' ')"
    fi
    used=$(undefined "$bin" | grep -E "$api" || true)
    needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep '^libdoca_' || true)
    if [ -z "$used" ]; then
        [ -z "$needed" ] || fail "$name uses no DOCA function but needs $(tr '\n' ' ' <<<"$needed")"
        echo "check-hw-symbols: $name: no DOCA function defined or used, no libdoca_* needed"
        continue
    fi
    [ -n "$needed" ] || fail "$name uses $(wc -l <<<"$used") DOCA functions but no libdoca_* library is in its NEEDED entries"
    provided=$(for lib in $needed; do
        [ -f "$libdir/$lib" ] || fail "$name needs $lib, which is not in $libdir"
        defined "$libdir/$lib"
    done | sort -u)
    unresolved=$(comm -23 <(echo "$used") <(echo "$provided"))
    [ -z "$unresolved" ] || fail "$name uses DOCA functions that none of its libdoca_* libraries ($(tr '\n' ' ' <<<"$needed")) defines: $(head -n 5 <<<"$unresolved" | tr '\n' ' ')"
    echo "check-hw-symbols: $name: $(wc -l <<<"$used") DOCA functions, all undefined and defined by $(tr '\n' ' ' <<<"$needed")"
done
