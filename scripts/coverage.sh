#!/usr/bin/env bash
# Line and branch coverage of lib/ (gcc --coverage + gcov), from every test
# ctest runs (Check suites, fuzz corpus replays, tool tests).
#
#   scripts/coverage.sh [--min PERCENT]
#
# Builds in $CGPROP_COV_DIR (default build-cov): a static Debug library at -O0
# with --coverage, runs ctest with the scale tests shrunk (the deep graphs
# test depth, not coverage), then reads gcov's JSON output (gcc >= 9; no
# lcov or gcovr needed) and prints, per file of lib/ and in total, the lines
# and branches executed. The full table and the list of lines never run are
# written to $CGPROP_COV_DIR/coverage.txt and coverage-uncovered.txt.
# With --min, exits 1 when line coverage is below PERCENT.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${CGPROP_COV_DIR:-$top/build-cov}
min=
if [[ ${1:-} == --min ]]; then min=$2; fi

command -v gcov >/dev/null || { echo "coverage: gcov not found (Debian: gcc)"; exit 1; }
command -v python3 >/dev/null || { echo "coverage: python3 not found"; exit 1; }

cmake -S "$top" -B "$b" -DCMAKE_C_COMPILER=gcc -DCMAKE_BUILD_TYPE=Debug -DBUILD_SHARED_LIBS=OFF \
    -DBUILD_TESTING=ON -DCMAKE_C_FLAGS="--coverage -O0 -DCGPROP_PROP_FLAT=1" -DCMAKE_EXE_LINKER_FLAGS="--coverage" >/dev/null
cmake --build "$b" -j2 >/dev/null
find "$b" -name '*.gcda' -delete

status=0
# tool_dot_render spends its minutes in graphviz drawing what the tool
# tests already wrote; it adds no library line and runs in every other build.
CGPROP_DEEP_CHAIN=${CGPROP_DEEP_CHAIN:-200000} CGPROP_DEEP_CYCLE=${CGPROP_DEEP_CYCLE:-100000} \
    ctest --test-dir "$b" -j2 -LE scale -E '^tool_dot_render$' --output-on-failure >"$b/coverage-ctest.log" 2>&1 || {
    status=1
    echo "coverage: some tests failed (see $b/coverage-ctest.log); coverage below is of what ran"
    grep -E 'tests passed|Failed|\*\*\*' "$b/coverage-ctest.log" | tail -n 20
}

# The library's objects: compiled once, for both libraries.
objdir=$b/CMakeFiles/cgprop_objects.dir
[[ -d $objdir ]] || { echo "coverage: no objects under $objdir"; exit 1; }
json=$b/coverage-json
rm -rf "$json"
mkdir -p "$json"
(cd "$json" && find "$objdir" -name '*.gcda' -print0 | xargs -0 gcov --json-format --branch-probabilities \
    >/dev/null 2>&1)

python3 - "$json" "$top" "$b" "$min" <<'EOF'
import glob, gzip, json, os, sys
jdir, top, b, mn = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
libdir = os.path.join(top, "lib") + os.sep
lines = {}     # (file, line) -> max count; a header's line counts if any unit ran it
branches = {}  # (file, line, index) -> taken
for p in glob.glob(os.path.join(jdir, "*.gcov.json.gz")):
    with gzip.open(p, "rt") as fh:
        d = json.load(fh)
    cwd = d.get("current_working_directory", "")
    for f in d["files"]:
        path = f["file"]
        if not os.path.isabs(path):
            path = os.path.normpath(os.path.join(cwd, path))
        if not path.startswith(libdir):
            continue
        rel = os.path.relpath(path, top)
        for ln in f["lines"]:
            key = (rel, ln["line_number"])
            lines[key] = max(lines.get(key, 0), ln["count"])
            for i, br in enumerate(ln.get("branches", [])):
                if br.get("throw"):
                    continue
                k = (rel, ln["line_number"], i)
                branches[k] = branches.get(k, False) or br["count"] > 0

files = sorted({k[0] for k in lines})
rows = []
tl = tlh = tb = tbh = 0
for fn in files:
    ls = [c for (f, _), c in lines.items() if f == fn]
    bs = [t for (f, _, _), t in branches.items() if f == fn]
    l, lh, bb, bh = len(ls), sum(1 for c in ls if c > 0), len(bs), sum(1 for t in bs if t)
    tl += l; tlh += lh; tb += bb; tbh += bh
    rows.append((fn, lh, l, bh, bb))

def pct(a, n):
    return 100.0 * a / n if n else 100.0

out = ["%-32s %14s %16s" % ("file", "lines", "branches")]
for fn, lh, l, bh, bb in rows:
    out.append("%-32s %5d/%-5d %5.1f%% %5d/%-5d %5.1f%%" % (fn, lh, l, pct(lh, l), bh, bb, pct(bh, bb)))
out.append("%-32s %5d/%-5d %5.1f%% %5d/%-5d %5.1f%%" % ("TOTAL lib/", tlh, tl, pct(tlh, tl), tbh, tb, pct(tbh, tb)))
text = "\n".join(out)
print(text)
with open(os.path.join(b, "coverage.txt"), "w") as fh:
    fh.write(text + "\n")
with open(os.path.join(b, "coverage-uncovered.txt"), "w") as fh:
    for (fn, ln) in sorted(k for k, c in lines.items() if c == 0):
        src = ""
        try:
            with open(os.path.join(top, fn)) as s:
                src = s.read().splitlines()[ln - 1].strip()
        except (OSError, IndexError):
            pass
        fh.write("%s:%d: %s\n" % (fn, ln, src))
print("coverage: lines %.1f%%, branches %.1f%% (uncovered lines: %s)" %
      (pct(tlh, tl), pct(tbh, tb), os.path.join(b, "coverage-uncovered.txt")))
if mn and pct(tlh, tl) < float(mn):
    print("coverage: below the required %s%% of lines" % mn)
    sys.exit(1)
EOF
exit $status
