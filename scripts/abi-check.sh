#!/bin/sh
# Compare the built shared library's ABI with the committed baseline
# (abi/libcgprop.abi, written by libabigail's abidw) and fail on any change.
#   scripts/abi-check.sh LIB           check LIB (the built libcgprop.so.X.Y.Z)
#   scripts/abi-check.sh --update LIB  write LIB's ABI as the new baseline
# A change is never silent: an incompatible one needs a new SONAME, any
# change a new baseline committed with the decision recorded in docs/API.md.
# Needs abigail-tools (Debian) and a library built with debug info.
#
# Beside it, abi/prototypes.txt: every function the promised headers declare,
# as written there. libabigail 2.2 ties only some of the library's function
# declarations to their symbols (a changed return type of the others went
# unseen when tried), so the signatures are compared as the headers spell
# them too; a change there (a renamed parameter included) needs --update.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
base=$top/abi/libcgprop.abi
supp=$top/abi/suppressions.txt
update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
lib=${1:?usage: abi-check.sh [--update] path/to/libcgprop.so.X.Y.Z}
# Only what the public headers declare is ABI; internal symbols are hidden anyway.
# Rows reach the library through void pointers (their size is passed beside
# them), so types are taken whether or not a signature names them.
dump() { abidw --headers-dir "$top/include" --load-all-types --no-corpus-path --drop-private-types --out-file "$2" "$1"; }
soname() { objdump -p "$1" | awk '$1 == "SONAME" { print $2 }'; }
# Each CGPROP_API declaration of the promised headers on one line.
protos() {
    for h in "$top/include/cgprop.h" "$top/include/cgprop_io.h"; do
        awk '/^[ \t]*#/ { next }
             /CGPROP_API/ { p = 1; s = "" }
             p { s = s " " $0 }
             p && /;/ { gsub(/[ \t]+/, " ", s); sub(/^ /, "", s); print s; p = 0 }' "$h"
    done | LC_ALL=C sort
}
protos_file=$top/abi/prototypes.txt

if [ "$update" = 1 ]; then
    dump "$lib" "$base"
    protos > "$protos_file"
    echo "abi: baseline written to abi/libcgprop.abi and abi/prototypes.txt ($(soname "$lib"))"
    exit 0
fi
[ -f "$protos_file" ] || { echo "abi: no abi/prototypes.txt; create it with --update"; exit 1; }
if ! protos | diff -u "$protos_file" - ; then
    echo "abi: a public function's declaration changed (above): record the decision in docs/API.md and"
    echo "     refresh the baseline with: scripts/abi-check.sh --update $lib"
    exit 1
fi
[ -f "$base" ] || { echo "abi: no baseline abi/libcgprop.abi; create it with --update"; exit 1; }
# Both sides as abidw writes them, so that they were read the same way.
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
dump "$lib" "$tmp"
rc=0
abidiff --non-reachable-types --suppressions "$supp" "$base" "$tmp" || rc=$?
if [ "$rc" -eq 0 ]; then
    echo "abi: no change against abi/libcgprop.abi"
    exit 0
fi
if [ $((rc & 3)) -ne 0 ]; then echo "abi: abidiff failed ($rc)"; exit 1; fi
old=$(sed -n "s/.*soname='\([^']*\)'.*/\1/p" "$base" | head -1)
new=$(soname "$lib")
if [ $((rc & 8)) -ne 0 ] && [ "$old" = "$new" ]; then
    echo "abi: INCOMPATIBLE change with the same SONAME $new: bump the version (and so the SONAME),"
    echo "     record the break in docs/API.md, then refresh the baseline with --update"
    exit 1
fi
echo "abi: the ABI changed (SONAME $old -> $new): record the decision in docs/API.md and refresh"
echo "     the baseline with: scripts/abi-check.sh --update $lib"
exit 1
