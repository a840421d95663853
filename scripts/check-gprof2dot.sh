#!/bin/sh
# Rerun the comparison of cgprop's collapse and per-root figures with gprof2dot's own
# (docs/PROPAGATION.md, "Agreement with gprof2dot"): random recursive
# callgrind profiles from scripts/gen_recursive_callgrind.py, plus the real
# profiles under tests/data, each figure to 1e-9 of the program total, every
# difference classified.
#
# usage: GPROF2DOT=/path/to/gprof2dot.py scripts/check-gprof2dot.sh [COUNT [SEED]]
#   GPROF2DOT  gprof2dot.py of jrfonseca/gprof2dot (not part of cgprop; any
#              copy of that one file will do)
#   CGPROP     the cgprop tool (default build/tools/cgprop)
#   COUNT      random profiles of up to 60 functions (default 2000)
#   LARGE      more random profiles of up to 400 functions (default 100;
#              gprof2dot is quadratic in cycles: about a second each)
#   KEEP       directory for profiles on which cgprop differs
# Exit status 1 when a difference is not one of cgprop's corner cases.
set -eu
: "${GPROF2DOT:?set GPROF2DOT to the path of gprof2dot.py}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
CGPROP=${CGPROP:-$root/build/tools/cgprop}
COUNT=${1:-2000}
SEED=${2:-1}
LARGE=${LARGE:-100}
if [ ! -x "$CGPROP" ]; then
    echo "check-gprof2dot: no $CGPROP (build first, or set CGPROP)" >&2
    exit 2
fi
run() { python3 "$here/check_gprof2dot.py" --gprof2dot "$GPROF2DOT" --cgprop "$CGPROP" ${KEEP:+--keep "$KEEP"} "$@"; }
status=0
echo "== real profiles (tests/data)"
run "$root"/tests/data/gprof2dot/*.callgrind "$root"/tests/data/recur/*.out || status=1
echo "== $COUNT random profiles, seeds $SEED.."
run --count "$COUNT" --seed "$SEED" || status=1
if [ "$LARGE" -gt 0 ]; then
    echo "== $LARGE larger random profiles (up to 400 functions)"
    run --count "$LARGE" --seed $((SEED + 1000000)) --max-funcs 400 || status=1
fi
exit $status
