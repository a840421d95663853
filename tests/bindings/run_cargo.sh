#!/bin/sh
# cargo test --offline of bindings/rust against the library in $1.
#   run_cargo.sh <lib dir> <crate dir> <cargo target dir>
# Exit 77 (skipped) when cargo is missing, unless CGPROP_STRICT_TESTS is set
# (CI sets it: there the Rust binding must be tested).
libdir=$1 crate=$2 target=$3
cargo=${CARGO:-cargo}
if ! command -v "$cargo" >/dev/null 2>&1; then
    if [ -n "${CGPROP_STRICT_TESTS:-}" ]; then
        echo "FAIL: cargo not found (CGPROP_STRICT_TESTS): apt-get install cargo rustc"
        exit 1
    fi
    echo "SKIP: cargo not found; the Rust binding is not tested (apt-get install cargo rustc)"
    exit 77
fi
CGPROP_LIB_DIR=$libdir
LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
CARGO_TARGET_DIR=$target
export CGPROP_LIB_DIR LD_LIBRARY_PATH CARGO_TARGET_DIR
# The library may be instrumented for a sanitizer run; the test binary is not.
unset LD_PRELOAD
"$cargo" test --offline --manifest-path "$crate/Cargo.toml" || exit 1
# the example of docs/RUST.md
exec "$cargo" run --offline --manifest-path "$crate/Cargo.toml" --example notes
