#!/usr/bin/env bash
# Run every libFuzzer target for a bounded time under ASan+UBSan.
# Usage: scripts/fuzz.sh [seconds-per-target]   (default 60)
# Needs clang and libclang-rt (Debian: clang libclang-rt-14-dev).
# Crashes land in build-fuzz/crashes/<target>/; turn each into a corpus file
# under tests/fuzz/corpus/<target>/ so it becomes a regression test.
set -euo pipefail
secs=${1:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
b="$top/build-fuzz"
# CGPROP_CG_AHEAD_TABLE=0: the callgrind reader's look-ahead, kept for
# large profiles, runs on every input.
CC=clang cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCGPROP_FUZZ=ON \
  -DCGPROP_SANITIZE=ON -DBUILD_SHARED_LIBS=OFF -DCMAKE_C_FLAGS=-DCGPROP_CG_AHEAD_TABLE=0 >/dev/null
cmake --build "$b" -j2 >/dev/null
# One target per processor at a time (CGPROP_FUZZ_JOBS to change): each
# runs single-threaded for its full time whatever the others do.
jobs_max=${CGPROP_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
fuzz_one() { # name exe
  local name=$1 exe=$2 rc=0
  local work="$b/corpus/$name" crashes="$b/crashes/$name"
  mkdir -p "$work" "$crashes"
  cp -n "$top/tests/fuzz/corpus/$name/"* "$work/" 2>/dev/null || true
  local dict="$top/tests/fuzz/$name.dict" dictarg=()
  [ -f "$dict" ] && dictarg=(-dict="$dict")
  "$exe" "$work" "${dictarg[@]}" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" -print_final_stats=1 2> "$b/fuzz-$name.log" || rc=$?
  echo "$rc" > "$b/fuzz-$name.rc"
}
names=()
for exe in "$b"/tests/fuzz/fuzz_*; do
  case "$exe" in *_regress) continue ;; esac
  [ -x "$exe" ] || continue
  name=${exe##*/fuzz_}
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  rm -f "$b/fuzz-$name.rc"
  fuzz_one "$name" "$exe" &
  names+=("$name")
done
wait
status=0
for name in "${names[@]}"; do
  echo "== fuzz $name for ${secs}s"
  if [ "$(cat "$b/fuzz-$name.rc" 2>/dev/null)" != 0 ]; then
    status=1
    tail -n 40 "$b/fuzz-$name.log"
  fi
  grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$b/fuzz-$name.log" | tail -n 2 || true
done
exit $status
