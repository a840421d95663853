#!/bin/sh
# cargo test --offline of bindings/rust against the library in $1.
#   run_cargo.sh <lib dir> <crate dir> <cargo target dir> [static]
# The library is named by CGPROP_LIB_DIR, the first place build.rs looks;
# build.rs also puts that folder in the test binaries' rpath, so no
# LD_LIBRARY_PATH is set here (that rpath is what this run checks).
# With "static", libcgprop.a is linked in (CGPROP_STATIC=1).
# Both feature sets are tested: the stable API, then with `experimental`.
# Exit 77 (skipped) when cargo is missing, unless CGPROP_STRICT_TESTS is set
# (CI sets it: there the Rust binding must be tested).
libdir=$1 crate=$2 target=$3 link=${4:-shared}
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
CARGO_TARGET_DIR=$target
export CGPROP_LIB_DIR CARGO_TARGET_DIR
unset LD_LIBRARY_PATH CGPROP_STATIC CGPROP_NO_RPATH
if [ "$link" = static ]; then
    CGPROP_STATIC=1
    export CGPROP_STATIC
fi
# The library may be instrumented for a sanitizer run; the test binary is not.
unset LD_PRELOAD
"$cargo" test --offline --manifest-path "$crate/Cargo.toml" || exit 1
"$cargo" test --offline --manifest-path "$crate/Cargo.toml" --features experimental || exit 1
# the example of docs/RUST.md
exec "$cargo" run --offline --manifest-path "$crate/Cargo.toml" --example notes
