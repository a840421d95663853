#!/usr/bin/env bash
# Build cgprop with warnings as errors (library, tool, examples, benchmarks)
# and run every test. README's test command; .ci/run calls it as is.
# CGPROP_BUILD_DIR picks the build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CGPROP_BUILD_DIR:-build}

scripts/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCGPROP_WERROR=ON -DBUILD_SHARED_LIBS=ON \
    -DBUILD_TESTING=ON
cmake --build "$build" -j2
cmake --build "$build" --target bench -j2
ctest --test-dir "$build" --output-on-failure -j2
