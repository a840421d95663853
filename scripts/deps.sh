#!/usr/bin/env bash
# Install the Debian packages cgprop's build needs, if any is missing.
#   scripts/deps.sh           everything: build, tests, sanitizers, valgrind, docs
#   scripts/deps.sh --build   just enough to build the library and the tool
# As root it runs apt-get; otherwise it names the missing packages and goes on
# (the build then says what it could not find).
set -euo pipefail

build_pkgs=(cmake make gcc libc6-dev)
all_pkgs=("${build_pkgs[@]}" g++ clang libclang-rt-14-dev check pkg-config doxygen valgrind python3 python3-cffi python3-venv python3-pip python3-yappi php-cli php-xdebug mypy binutils graphviz
          zlib1g-dev libgoogle-perftools-dev abigail-tools debhelper dpkg-dev lintian golang-go
          cargo rustc chromium)

pkgs=("${all_pkgs[@]}")
if [[ ${1:-} == --build ]]; then pkgs=("${build_pkgs[@]}"); fi

command -v dpkg-query >/dev/null 2>&1 || { echo "deps: not a Debian system, skipping apt-get" >&2; exit 0; }

missing=()
for p in "${pkgs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -eq 0 ]]; then
    echo "deps: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "deps: missing ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
fi
