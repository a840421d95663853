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
"$build/tools/cgprop" report tests/data/recur.default.callgrind.out
