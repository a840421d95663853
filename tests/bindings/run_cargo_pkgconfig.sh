#!/bin/sh
# The Rust crate against an installed cgprop found by pkg-config alone: no
# CGPROP_LIB_DIR, no LD_LIBRARY_PATH, only PKG_CONFIG_PATH.
#   run_cargo_pkgconfig.sh <source dir> <build dir> <work dir> <cmake> <cargo target dir>
# Installs <build dir> into <work dir>/prefix. A cgprop.pc that names its
# configured prefix instead of its own place cannot be moved there; the
# project is then configured once more with that prefix and installed.
# Exit 77 (skipped) without cargo or pkg-config, unless CGPROP_STRICT_TESTS is set.
set -u
src=$1 build=$2 work=$3 cmake=$4 target=$5
cargo=${CARGO:-cargo}
for p in "$cargo" pkg-config; do
    if ! command -v "$p" >/dev/null 2>&1; then
        if [ -n "${CGPROP_STRICT_TESTS:-}" ]; then
            echo "FAIL: $p not found (CGPROP_STRICT_TESTS): apt-get install cargo rustc pkg-config"
            exit 1
        fi
        echo "SKIP: $p not found; the crate's pkg-config route is not tested (apt-get install cargo rustc pkg-config)"
        exit 77
    fi
done
fail() { echo "FAIL: $*"; exit 1; }
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

echo "== install $build into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install"; }
pc=$(find "$prefix" -name cgprop.pc | head -n 1)
[ -n "$pc" ] || fail "no cgprop.pc installed"
pcdir=$(dirname "$pc")
libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir cgprop)
case $libdir in
    "$prefix"/*) ;;
    *)
        echo "== cgprop.pc names libdir $libdir, not under $prefix: configure again with that prefix"
        rm -rf "$prefix"
        "$cmake" -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
            -DBUILD_SHARED_LIBS=ON -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
            >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure"; }
        "$cmake" --build "$work/build" -j1 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
        "$cmake" --install "$work/build" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install"; }
        pcdir=$prefix/lib/pkgconfig
        ;;
esac

echo "== cargo test with PKG_CONFIG_PATH=$pcdir only"
unset CGPROP_LIB_DIR CGPROP_STATIC CGPROP_NO_RPATH LD_LIBRARY_PATH LD_PRELOAD PKG_CONFIG_LIBDIR
PKG_CONFIG_PATH=$pcdir
CARGO_TARGET_DIR=$target
export PKG_CONFIG_PATH CARGO_TARGET_DIR
"$cargo" test --offline --manifest-path "$src/bindings/rust/Cargo.toml" || exit 1

# The test binaries must have loaded the installed library through the
# rpath build.rs set, not some other copy: the example's binary says where
# its libcgprop comes from.
"$cargo" build --offline --manifest-path "$src/bindings/rust/Cargo.toml" --example notes || exit 1
loaded=$(ldd "$target/debug/examples/notes" | awk '/libcgprop/ { print $3 }')
echo "the example loads $loaded"
case $loaded in
    "$prefix"/*) ;;
    *) fail "the example loads libcgprop from '$loaded', not from $prefix" ;;
esac
echo "pkg-config route passed"
