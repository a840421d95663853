#!/bin/sh
# Exported-symbol test. The shared library must export exactly the
# functions the public headers declare with CGPROP_API: nothing private leaks
# (hidden visibility works), nothing declared is missing.
# Usage: run.sh <libcgprop.so> <include dir> <work dir>
set -eu
lib=$1 inc=$2 work=$3
mkdir -p "$work"

# Declared: `CGPROP_API <type> cgprop_name(` in every public header, with
# preprocessor lines dropped and declarations joined onto one line.
cat "$inc"/*.h | grep -v '^[[:space:]]*#' | tr '\n' ' ' |
    grep -oE 'CGPROP_API[^;(]*\(' |
    sed -E 's/.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*\($/\1/' |
    sort -u > "$work/declared.txt"

# Exported: defined dynamic symbols, version suffixes (name@@VER) removed.
nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' |
    sort -u > "$work/exported.txt"

fail=0
if [ ! -s "$work/declared.txt" ]; then echo "FAIL: no CGPROP_API declaration found in $inc"; fail=1; fi
if [ ! -s "$work/exported.txt" ]; then echo "FAIL: $lib exports nothing"; fail=1; fi

# cgprop__name (double underscore) is private: the pattern rejects it too.
leaked=$(grep -v '^cgprop_[A-Za-z0-9]' "$work/exported.txt" || true)
if [ -n "$leaked" ]; then
    echo "FAIL: exported symbols outside the public cgprop_ namespace:"
    printf '%s\n' $leaked | sed 's/^/    /'
    fail=1
fi
undeclared=$(comm -13 "$work/declared.txt" "$work/exported.txt" | grep '^cgprop_[A-Za-z0-9]' || true)
if [ -n "$undeclared" ]; then
    echo "FAIL: exported but not declared CGPROP_API in include/*.h:"
    printf '%s\n' $undeclared | sed 's/^/    /'
    fail=1
fi
missing=$(comm -23 "$work/declared.txt" "$work/exported.txt" || true)
if [ -n "$missing" ]; then
    echo "FAIL: declared CGPROP_API but not exported (not implemented, or hidden):"
    printf '%s\n' $missing | sed 's/^/    /'
    fail=1
fi
[ "$fail" -eq 0 ] && echo "symbols test: $(wc -l < "$work/exported.txt") exported, all declared cgprop_ functions"
exit "$fail"
