#!/usr/bin/env bash
# Build cgprop with warnings as errors (library, tool, examples, benchmarks)
# and run every test but the full-size scale cases. README's test command;
# .ci/run calls it as is, then runs the scale cases.
# CGPROP_BUILD_DIR picks the build directory (default: build).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${CGPROP_BUILD_DIR:-build}

scripts/deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCGPROP_WERROR=ON -DBUILD_SHARED_LIBS=ON \
    -DBUILD_TESTING=ON
cmake --build "$build" -j2
cmake --build "$build" --target bench -j2
# The full-size scale cases (label "scale", minutes) are left out here; CI
# runs them after this script: ctest --test-dir build -L scale.
ctest --test-dir "$build" --output-on-failure -j2 -LE scale
