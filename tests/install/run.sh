#!/bin/sh
# Install test: configure the project with a temporary prefix (tests off, so
# Check is not needed), install it there, check the installed files, then
# build and run a consumer through pkg-config and through find_package(cgprop).
# Usage: run.sh <source dir> <work dir> <C compiler> <shared ON|OFF> <sanitize ON|OFF> <cmake> <version>
set -eu
src=$1 work=$2 cc=$3 shared=$4 sanitize=$5 cmake=$6 version=$7
major=${version%%.*}
minor=${version#*.}; minor=${minor%%.*}
prefix=$work/prefix
consumer=$src/tests/install/consumer

rm -rf "$work"
mkdir -p "$work"
step() { echo; echo "== install test: $*"; }
fail() { echo "FAIL: $*"; exit 1; }

sanflags=""
if [ "$sanitize" = ON ]; then sanflags="-fsanitize=address,undefined -fno-sanitize-recover=all"; fi

step "configure, build and install into $prefix"
"$cmake" -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DCMAKE_C_COMPILER="$cc" -DBUILD_SHARED_LIBS="$shared" -DCGPROP_SANITIZE="$sanitize" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "configure"; }
"$cmake" --build "$work/build" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
"$cmake" --install "$work/build" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install"; }
sed 's/^/    /' "$work/install.log"

step "installed files"
for f in include/cgprop.h lib/pkgconfig/cgprop.pc lib/cmake/cgprop/cgpropConfig.cmake \
         lib/cmake/cgprop/cgpropConfigVersion.cmake lib/cmake/cgprop/cgpropTargets.cmake; do
    [ -f "$prefix/$f" ] || fail "missing $f"
done
if [ "$shared" = ON ]; then
    so="$prefix/lib/libcgprop.so.$version"
    [ -f "$so" ] || fail "missing lib/libcgprop.so.$version"
    [ -L "$prefix/lib/libcgprop.so" ] || fail "missing the libcgprop.so link"
    soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
    if [ "$major" -eq 0 ]; then want="libcgprop.so.0.$minor"; else want="libcgprop.so.$major"; fi
    [ "$soname" = "$want" ] || fail "SONAME is '$soname', want '$want'"
    [ -L "$prefix/lib/$want" ] || fail "missing the lib/$want link"
    echo "SONAME $soname"
else
    [ -f "$prefix/lib/libcgprop.a" ] || fail "missing lib/libcgprop.a"
fi

step "consumer through pkg-config"
export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
pcver=$(pkg-config --modversion cgprop)
[ "$pcver" = "$version" ] || fail "pkg-config says version $pcver, want $version"
static=""
[ "$shared" = ON ] || static="--static"
cflags=$(pkg-config --cflags cgprop)
libs=$(pkg-config --libs $static cgprop)
echo "cflags: $cflags"; echo "libs:   $libs"
# shellcheck disable=SC2086
"$cc" -std=c99 -Wall -Wextra -Werror $sanflags $cflags "$consumer/consumer.c" -o "$work/consumer-pc" $libs
LD_LIBRARY_PATH="$(pkg-config --variable=libdir cgprop)" "$work/consumer-pc"

step "consumer through find_package(cgprop)"
"$cmake" -S "$consumer" -B "$work/consumer-build" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_C_FLAGS="$sanflags" -DCMAKE_EXE_LINKER_FLAGS="$sanflags" \
    -DCGPROP_REQUEST="$major.$minor" -DCGPROP_EXPECT_VERSION="$version" >"$work/consumer.log" 2>&1 ||
    { cat "$work/consumer.log"; fail "consumer configure"; }
grep 'cgprop .* from' "$work/consumer.log"
"$cmake" --build "$work/consumer-build" >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer build"; }
"$work/consumer-build/consumer"

step "find_package(cgprop $((major + 1)).0) must refuse $version"
if "$cmake" -S "$consumer" -B "$work/consumer-next" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_COMPILER="$cc" \
    -DCGPROP_REQUEST="$((major + 1)).0" >"$work/consumer-next.log" 2>&1; then
    cat "$work/consumer-next.log"; fail "a request for $((major + 1)).0 accepted $version"
fi
echo "refused, as it should"

echo; echo "install test passed"
