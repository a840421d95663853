#!/usr/bin/env bash
# Build the Debian packages from this tree, check them with lintian, install
# them, and build and run consumers against the installed packages only:
# C through pkg-config and through find_package(cgprop), the tool, the Python
# package (pip install, offline) and the Rust crate (cargo, offline, finding
# the library through pkg-config). Needs root (dpkg -i) and Debian's
# debhelper, lintian, dpkg-dev; scripts/deps.sh --deb installs them.
# Work happens in a temporary directory (CGPROP_DEB_DIR to keep it).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=${CGPROP_DEB_DIR:-$(mktemp -d)}
step() { printf '\n== deb test: %s\n' "$*"; }
fail() { echo "FAIL: $*"; exit 1; }
v() { sed -n "s/^#define CGPROP_VERSION_$1 \\([0-9]*\\)\$/\\1/p" "$top/include/cgprop.h"; }
version=$(v MAJOR).$(v MINOR).$(v PATCH)

step "source tree (tracked and new files, as they are now) into $work/cgprop-$version"
rm -rf "$work/cgprop-$version"
mkdir -p "$work/cgprop-$version"
(cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - --no-recursion) |
    tar -xf - -C "$work/cgprop-$version"
head -1 "$work/cgprop-$version/debian/changelog" | grep -q "($version)" ||
    fail "debian/changelog's first entry is not version $version"

step "dpkg-buildpackage -us -uc -b"
(cd "$work/cgprop-$version" && DEB_BUILD_OPTIONS="parallel=2 ${DEB_BUILD_OPTIONS:-}" \
    dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) || { tail -60 "$work/build.log"; fail "package build"; }
grep -E 'tests passed|Total Test' "$work/build.log" | tail -2 || true
ls "$work"/*.deb

step "lintian: no errors"
changes=$(ls "$work"/cgprop_*_*.changes)
lintian --fail-on error --suppress-tags bad-distribution-in-changes-file "$changes" | tee "$work/lintian.log" ||
    fail "lintian reports errors"

step "install the packages"
dpkg -i "$work"/libcgprop0.3_*.deb "$work"/libcgprop-dev_*.deb "$work"/cgprop_*.deb >/dev/null
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
[ -f "/usr/lib/$arch/libcgprop.so.$version" ] || fail "libcgprop.so.$version not installed"
if objdump -p /usr/bin/cgprop | grep -qE 'RPATH|RUNPATH'; then fail "the packaged tool carries an RPATH"; fi

step "the installed tool"
cd "$work"
cgprop --version
cgprop report "$top/tests/data/gprof2dot/abc.collapse" | head -5

step "C consumer through pkg-config (no paths given)"
cc -std=c99 -Wall -Wextra -Werror $(pkg-config --cflags cgprop) "$top/tests/install/consumer/consumer.c" \
    -o consumer-pc $(pkg-config --libs cgprop)
./consumer-pc

step "C consumer through find_package(cgprop)"
cmake -S "$top/tests/install/consumer" -B consumer-cmake -DCGPROP_EXPECT_VERSION="$version" >cmake.log 2>&1 ||
    { cat cmake.log; fail "consumer configure"; }
cmake --build consumer-cmake >>cmake.log 2>&1 || { cat cmake.log; fail "consumer build"; }
./consumer-cmake/consumer

step "Python: pip install, offline, against the installed library"
rm -rf pyvenv
python3 -m venv pyvenv
pyvenv/bin/pip install --no-index --quiet "$top/bindings/python"
env -u CGPROP_LIBRARY pyvenv/bin/python - <<'PY'
import cgprop
g = cgprop.Graph(metrics=["samples"])
for stack, w in (("main;f;main", 2), ("main", 5)):
    g.add_stack(stack.split(";"), [w])
g.analyze()
t = {g.key(r.id): r.total for r in g.totals()}
assert t["main"] == 7 and t["f"] == 2, t
print("python: cgprop", cgprop.version(), "main total", t["main"])
PY

step "Rust: cargo test --offline, the library found by pkg-config"
if command -v cargo >/dev/null; then
    cp -r "$top/bindings/rust" rust
    (cd rust && env -u CGPROP_LIB_DIR cargo test --offline --quiet >"$work/cargo.log" 2>&1) ||
        { tail -40 "$work/cargo.log"; fail "cargo test"; }
    grep -E '^test result' "$work/cargo.log" | head -3
else
    fail "cargo not installed"
fi

echo; echo "deb test passed ($work)"
