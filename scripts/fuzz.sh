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
CC=clang cmake -S "$top" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCGPROP_FUZZ=ON \
  -DCGPROP_SANITIZE=ON -DBUILD_SHARED_LIBS=OFF >/dev/null
cmake --build "$b" -j2 >/dev/null
status=0
for exe in "$b"/tests/fuzz/fuzz_*; do
  case "$exe" in *_regress) continue ;; esac
  [ -x "$exe" ] || continue
  name=${exe##*/fuzz_}
  work="$b/corpus/$name"; crashes="$b/crashes/$name"
  mkdir -p "$work" "$crashes"
  cp -n "$top/tests/fuzz/corpus/$name/"* "$work/" 2>/dev/null || true
  dict="$top/tests/fuzz/$name.dict"; dictarg=()
  [ -f "$dict" ] && dictarg=(-dict="$dict")
  echo "== fuzz $name for ${secs}s"
  if ! "$exe" "$work" "${dictarg[@]}" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
        -artifact_prefix="$crashes/" -print_final_stats=1 2> "$b/fuzz-$name.log"; then
    status=1
    tail -n 40 "$b/fuzz-$name.log"
  fi
  grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$b/fuzz-$name.log" | tail -n 2 || true
done
exit $status
