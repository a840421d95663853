#!/usr/bin/env bash
# Measure the prefetch distances of lib/util/prefetch.h: build cgprop-bench
# with the hints off, with every distance halved, as chosen, and doubled,
# then run the scale group (1M calls, ids in order and shuffled) on each,
# alternating the builds round after round so that a busy machine slows all
# of them alike. Prints the median ns per call of each analysis per build.
# Usage: scripts/prefetch-sweep.sh [rounds]   (default 3)
set -euo pipefail
rounds=${1:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
work=${CGPROP_SWEEP_DIR:-$top/build-sweep}
consts="REHASH=16 BATCH_SLOT=16 BATCH_CALL=8 STACK_PAIRS=8 CYCLES_CALLEES=4 COLLAPSE_CALLS=32 COLLAPSE_ORDER=8
        COLLAPSE_LIST=4 PROPAGATE_CALLS=32 SPLIT_CALLS=16 READ_CALLS=16"
flags_for() { # scale factor numerator/denominator
    local out="" kv name v
    for kv in $consts; do
        name=${kv%=*} v=${kv#*=}
        v=$(( v * $1 / $2 )); [ "$v" -ge 1 ] || v=1
        out="$out -DCGPROP__AHEAD_$name=$v"
    done
    echo "$out"
}
declare -A flags=([off]="-DCGPROP_NO_PREFETCH" [half]="$(flags_for 1 2)" [chosen]="" [double]="$(flags_for 2 1)")
rm -f "$work/raw.tsv"
for v in off half chosen double; do
    cmake -S "$top" -B "$work/$v" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DCGPROP_BUILD_TOOLS=OFF \
        -DCMAKE_C_FLAGS="${flags[$v]}" >/dev/null
    cmake --build "$work/$v" --target cgprop-bench -j2 >/dev/null
done
for r in $(seq "$rounds"); do
    for v in off half chosen double; do
        "$work/$v/bench/cgprop-bench" --quick --only scale --no-peer 2>/dev/null |
            awk -v v="$v" '$1 == "scale" && $0 ~ / 1000000 / && $0 ~ /ns\/call/ {
                split($0, a, "  +"); for (i = 1; i <= NF; i++) if ($i == "ns/call") x = $(i - 1)
                print v "\t" a[2] "\t" x }' >> "$work/raw.tsv"
    done
done
python3 - "$work/raw.tsv" <<'PY'
import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    v, fig, x = line.rstrip("\n").split("\t")
    d[(fig.strip(), v)].append(float(x))
figs = sorted({f for f, _ in d}, key=lambda f: (("shuffled" in f), f))
print("%-26s %9s %9s %9s %9s   (median ns per call, 1M calls)" % ("figure", "off", "half", "chosen", "double"))
for f in figs:
    print("%-26s" % f + "".join(" %9.2f" % statistics.median(d[(f, v)]) if (f, v) in d else "         -"
                                for v in ("off", "half", "chosen", "double")))
PY
