#!/usr/bin/env bash
# Build the library and the `cgprop` tool, then report on a real callgrind
# profile: a program with mutual recursion (fa <-> fb) and a
# self-recursive fib, profiled by valgrind --tool=callgrind.
# CGPROP_BUILD_DIR picks the build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CGPROP_BUILD_DIR:-build}

scripts/deps.sh --build
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF
cmake --build "$build" -j2
report="$build/recur-report.txt"
"$build/tools/cgprop" report -o "$report" tests/data/recur/recur.default.callgrind.out
# The flat profile's head: the whole run (ld.so and libc included) by
# inclusive cost. fa, fb and fib are exact although they recurse.
sed -n '1,40p' "$report"
echo "..."
echo "(full report, with the gprof-style call graph: $report)"
