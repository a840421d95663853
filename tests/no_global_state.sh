#!/bin/sh
# "No global mutable state" (docs/RELIABILITY.md), checked on the library's
# object files: no data object may live in a writable section (.data, .bss
# and their sub-sections). Tables of pointers to constant strings land in
# .data.rel.ro (read-only once relocated) and are fine.
# Usage: no_global_state.sh OBJECT...
set -eu
command -v objdump >/dev/null || { echo "objdump not found (Debian: binutils)"; exit 1; }
[ $# -gt 0 ] || { echo "no object files given"; exit 1; }
bad=$(for o in "$@"; do objdump -t "$o"; done |
      awk '$0 ~ / O / && $4 ~ /^\.(data|bss|tbss|tdata)($|\.)/ && $4 !~ /^\.data\.rel\.ro/ {print}')
if [ -n "$bad" ]; then
    echo "writable data objects in the library:"
    echo "$bad"
    exit 1
fi
echo "no writable data objects in $# object files"
