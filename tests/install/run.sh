#!/bin/sh
# Install test: configure the project with a temporary prefix, install it
# there, check the installed files, move the whole prefix elsewhere (an
# installed tree must be relocatable), then build and run consumers through
# pkg-config and find_package(cgprop) and run the installed tool from the
# moved prefix. Then: the same project pulled in with add_subdirectory()
# forces nothing on its parent, and configuring without Check works.
# Usage: run.sh <source dir> <work dir> <C compiler> <shared ON|OFF> <sanitize ON|OFF> <cmake> <version>
# (shared ON: the default build, shared and static libraries; OFF: static only)
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

step "configure, build and install into $work/first-prefix"
shared_opt=""
[ "$shared" = ON ] || shared_opt="-DCGPROP_BUILD_SHARED=OFF"
"$cmake" -S "$src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    -DCMAKE_C_COMPILER="$cc" $shared_opt -DCGPROP_SANITIZE="$sanitize" \
    -DCMAKE_INSTALL_PREFIX="$work/first-prefix" -DCMAKE_INSTALL_LIBDIR=lib >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; fail "configure"; }
"$cmake" --build "$work/build" -j2 >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
"$cmake" --install "$work/build" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "install"; }
sed 's/^/    /' "$work/install.log"

step "move the installed tree to $prefix"
mv "$work/first-prefix" "$prefix"

step "installed files"
for f in include/cgprop.h include/cgprop_io.h include/cgprop_experimental.h bin/cgprop lib/pkgconfig/cgprop.pc lib/cmake/cgprop/cgpropConfig.cmake \
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
fi
# Static library in both builds (the default build makes both).
[ -f "$prefix/lib/libcgprop.a" ] || fail "missing lib/libcgprop.a"

step "the installed tool runs from the moved prefix, with no library path set"
env -u LD_LIBRARY_PATH "$prefix/bin/cgprop" --version || fail "installed tool does not run"
env -u LD_LIBRARY_PATH "$prefix/bin/cgprop" report "$src/tests/data/gprof2dot/abc.collapse" >"$work/tool.out" ||
    fail "installed tool cannot report"
grep -q 'A' "$work/tool.out" || fail "installed tool printed no report"

step "consumer through pkg-config"
export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
pcver=$(pkg-config --modversion cgprop)
pclib=$(pkg-config --variable=libdir cgprop)
[ "$(cd "$pclib" && pwd -P)" = "$(cd "$prefix/lib" && pwd -P)" ] ||
    fail "pkg-config libdir is '$pclib', not the moved prefix's lib"
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
if [ "$major" -eq 0 ] && [ "$minor" -gt 0 ]; then
    step "find_package(cgprop 0.$((minor - 1))) must refuse $version: before 1.0 each minor version breaks"
    if "$cmake" -S "$consumer" -B "$work/consumer-prev" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_COMPILER="$cc" \
        -DCGPROP_REQUEST="0.$((minor - 1))" >"$work/consumer-prev.log" 2>&1; then
        cat "$work/consumer-prev.log"; fail "a request for 0.$((minor - 1)) accepted $version"
    fi
    echo "refused, as it should"
fi

if [ "$shared" = ON ]; then
    step "find_package(cgprop): the static target too"
    "$cmake" -S "$consumer" -B "$work/consumer-static" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_C_COMPILER="$cc" -DCGPROP_LINK_STATIC=ON \
        -DCMAKE_C_FLAGS="$sanflags" -DCMAKE_EXE_LINKER_FLAGS="$sanflags" >"$work/consumer-static.log" 2>&1 ||
        { cat "$work/consumer-static.log"; fail "static consumer configure"; }
    "$cmake" --build "$work/consumer-static" >>"$work/consumer-static.log" 2>&1 ||
        { cat "$work/consumer-static.log"; fail "static consumer build"; }
    if objdump -p "$work/consumer-static/consumer" | grep -q 'NEEDED.*libcgprop'; then
        fail "the static consumer needs libcgprop.so"
    fi
    env -u LD_LIBRARY_PATH "$work/consumer-static/consumer"
fi

step "add_subdirectory(): the parent gets the library and nothing else"
"$cmake" -S "$src/tests/install/subproject" -B "$work/parent" -DCGPROP_SOURCE="$src" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$sanflags" -DCMAKE_EXE_LINKER_FLAGS="$sanflags" \
    -DCMAKE_INSTALL_PREFIX="$work/parent-prefix" >"$work/parent.log" 2>&1 ||
    { cat "$work/parent.log"; fail "parent configure"; }
"$cmake" --build "$work/parent" -j2 >>"$work/parent.log" 2>&1 || { cat "$work/parent.log"; fail "parent build"; }
ntests=$(cd "$work/parent" && ctest -N | sed -n 's/^Total Tests: //p')
[ "$ntests" = 0 ] || fail "the parent project got $ntests cgprop tests"
"$cmake" --install "$work/parent" >"$work/parent-install.log" 2>&1 || fail "parent install"
extra=$(cd "$work/parent-prefix" && find . -type f ! -name parent_consumer | head -5)
[ -z "$extra" ] || fail "the parent's install also installed cgprop files: $extra"
LD_LIBRARY_PATH="$work/parent/cgprop" "$work/parent/parent_consumer"

step "configure with tests on but without Check (or pkg-config): a warning, not an error"
"$cmake" -S "$src" -B "$work/nocheck" -DBUILD_TESTING=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON \
    -DCMAKE_C_COMPILER="$cc" >"$work/nocheck.log" 2>&1 || { cat "$work/nocheck.log"; fail "configure without Check"; }
grep -q 'Check unit-test framework was not found' "$work/nocheck.log" || fail "no message about the skipped suites"

step "no build type and no compiler flags given: RelWithDebInfo, not an unoptimised build"
bt() { sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$1/CMakeCache.txt"; }
[ "$(bt "$work/nocheck")" = RelWithDebInfo ] || fail "build type '$(bt "$work/nocheck")' without one given"
"$cmake" -S "$src" -B "$work/ownflags" -DBUILD_TESTING=OFF -DCGPROP_BUILD_TOOLS=OFF -DCMAKE_C_FLAGS=-O1 \
    -DCMAKE_C_COMPILER="$cc" >"$work/ownflags.log" 2>&1 || { cat "$work/ownflags.log"; fail "configure with flags"; }
[ -z "$(bt "$work/ownflags")" ] || fail "build type '$(bt "$work/ownflags")' set over the caller's flags"
[ -z "$(bt "$work/parent")" ] || fail "the parent project's build type was set to '$(bt "$work/parent")'"

echo; echo "install test passed"
