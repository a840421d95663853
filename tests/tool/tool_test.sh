#!/bin/sh
# Tool tests, one case per ctest test: tool_test.sh CASE TOOL DATADIR.
# Expected figures: tests/data/recur/recur.default.callgrind.out is valgrind output
# for recur.c; the exact inclusive costs are the measured truth of
# tests/data/recur/truth-toggle-collect.txt (main 53139, fa 7953,
# fb 7025, fib 32551, leafc 16794) and the program total its summary: line.
# Exit 77 = skipped (a helper program is missing); with CGPROP_STRICT_TESTS
# set (CI) a missing helper fails the test instead.
set -u
case_=$1 T=$2 D=$3
REC="$D/recur/recur.default.callgrind.out"
TMP=${TMPDIR:-/tmp}/cgprop-tool-$$-$case_
mkdir -p "$TMP" || exit 1
trap 'rm -rf "$TMP"' EXIT
die() { echo "FAIL: $*" >&2; exit 1; }
PY=$(command -v python3 || true)
skip() {
    [ -z "${CGPROP_STRICT_TESTS:-}" ] || die "$1 not found (CGPROP_STRICT_TESTS): scripts/deps.sh installs it"
    exit 77
}

# A failing run: non-zero exit, nothing on stdout, exactly one stderr line
# starting with "cgprop: " and containing $2.
one_line_error() {
    out=$1 err=$2 rc=$3 want=$4
    [ "$rc" -ne 0 ] || die "exit status 0 on error"
    [ ! -s "$out" ] || die "stdout not empty on error"
    [ "$(wc -l < "$err")" -eq 1 ] || die "stderr is not one line: $(cat "$err")"
    grep -q "^cgprop: .*$want" "$err" || die "message lacks '$want': $(cat "$err")"
}

case $case_ in
help)
    "$T" --help > "$TMP/o" || die "--help exit $?"
    grep -q '^usage: cgprop report' "$TMP/o" || die "no usage line"
    "$T" report --help > "$TMP/o" || die "report --help exit $?"
    "$T" --version | grep -q '^cgprop [0-9]*\.[0-9]*\.[0-9]*$' || die "--version"
    ;;
text)
    # --separate-recs=2 (default) and =3 files: both give the measured truth.
    for f in "$REC" "$D/recur/recur.recs3.callgrind.out"; do
        "$T" report "$f" > "$TMP/o" || die "exit $?"
        for pair in main:53139 fa:7953 fb:7025 fib:32551 leafc:16794; do
            n=${pair%%:*} v=${pair#*:}
            # flat profile row: %total total %self self called "exact" name
            grep -Eq "^ +[0-9.]+ +$v +[0-9.]+ +[0-9]+ +[0-9]+  exact +$n( <cycle [0-9]+>)?\$" "$TMP/o" \
                || die "$f: no exact row '$n $v'"
        done
        grep -q 'program total 178958' "$TMP/o" || die "program total"
    done
    "$T" report "$REC" > "$TMP/o" || die "exit $?"
    grep -q '<cycle 1 as a whole>' "$TMP/o" || die "no cycle entry"
    # Same output from standard input, and into a file with -o.
    "$T" report - < "$REC" | tail -n +2 > "$TMP/stdin" || die "stdin exit"
    tail -n +2 "$TMP/o" | cmp -s - "$TMP/stdin" || die "stdin output differs"
    # A pipe is read whole, a file behind standard input is mapped: the same report.
    cat "$REC" | "$T" report - | tail -n +2 > "$TMP/stdin" || die "pipe exit"
    tail -n +2 "$TMP/o" | cmp -s - "$TMP/stdin" || die "pipe output differs"
    "$T" report -o "$TMP/f" "$REC" || die "-o exit"
    cmp -s "$TMP/o" "$TMP/f" || die "-o output differs"
    ;;
heuristic)
    # --heuristic-only: fb falls to gprof2dot's estimate, marked '~'.
    "$T" report --heuristic-only "$REC" > "$TMP/o" || die "exit $?"
    grep -Eq "^ +[0-9.]+ +~[0-9]+ .* heuristic +fb <cycle 1>\$" "$TMP/o" || die "fb not an estimate"
    ! grep -Eq "^ +[0-9.]+ +7025 .* fb" "$TMP/o" || die "fb still exact"
    ;;
gaps)
    # The exact-vs-estimate section: fb's exact C_n 7025 (measured truth)
    # beside gprof2dot's per-root figure for it. With one entry (fa, from
    # main) fb keeps what the kept edge fa->fb passes down: its own self 80
    # plus its leafc calls, 2390 in all,
    # i.e. 3.93 % vs 1.34 % of the 178958 program: -2.59 points.
    "$T" report "$REC" > "$TMP/o" || die "exit $?"
    grep -q '^Exact vs estimate: 1 function ' "$TMP/o" || die "no exact-vs-estimate section"
    grep -Eq '^ +7025 +3\.93 +2390 +1\.34 +-2\.59  fb <cycle 1>$' "$TMP/o" || die "fb gap line: $(grep -A3 '^Exact vs' "$TMP/o")"
    # fib recurses on itself only: the heuristic ignores self-calls and is right.
    sed -n '/^Exact vs/,/^Call graph/p' "$TMP/o" | grep -q ' fib$' && die "fib listed although both agree"
    # --heuristic-only shows no comparison (no exact figures are used).
    "$T" report --heuristic-only "$REC" | grep -q '^Exact vs estimate' && die "section under --heuristic-only"
    true
    ;;
withheld)
    # A --separate-recs=1 file cannot tell recursion levels. What the
    # measured calls prove stays exact, checked against valgrind's own
    # --toggle-collect truth (recur/truth-toggle-collect.txt): fa is entered
    # only from main (7953 in), and the cycle's activations cost 7953 in all,
    # so fa is exactly 7953; fib's calls from main are all outermost (32551).
    # fb is only bounded: its own self 80 up to the cycle's 7953; the truth
    # 7025 lies inside, and the figure shown is an estimate: the midpoint of
    # the heuristic's 2390 and the absorbing walk's. By hand: nothing enters
    # fb but fa's calls (21065), so from fb the walk steps to fa; from fa it
    # leaves with chance 7953 / (7953 + 18675) (main's calls against fb's),
    # so walk(fb) = 21065 * 7953 / 26628 = 6291.5, midpoint 4340.7.
    "$T" report --bounds "$D/recur/recur.recs1.callgrind.out" > "$TMP/o" || die "exit $?"
    grep -Eq "^ +4\.44 +7953 .* exact .* fa <cycle 1>\$" "$TMP/o" || die "fa not exact 7953"
    grep -Eq "^ +18\.19 +32551 .* exact .* fib\$" "$TMP/o" || die "fib not exact 32551"
    grep -Eq "^ +2\.43 +~4341 .* midpoint +\[80, 7953\] +recursion +fb <cycle 1>\$" "$TMP/o" ||
        die "fb not the midpoint 4341 in [80, 7953]: $(grep ' fb <cycle' "$TMP/o" | head -1)"
    grep -q 'recursion without fn' "$TMP/o" || die "no note on the input"
    "$T" report --estimate walk "$D/recur/recur.recs1.callgrind.out" > "$TMP/o" || die "exit $?"
    grep -Eq "^ +3\.52 +~6291 .* walk +fb <cycle 1>\$" "$TMP/o" || die "walk: $(grep ' fb <cycle' "$TMP/o" | head -1)"
    "$T" report --estimate heuristic "$D/recur/recur.recs1.callgrind.out" > "$TMP/o" || die "exit $?"
    grep -Eq "^ +1\.34 +~2390 .* heuristic +fb <cycle 1>\$" "$TMP/o" || die "heuristic: $(grep ' fb <cycle' "$TMP/o" | head -1)"
    "$T" report --walk-budget 0.0001 "$D/recur/recur.recs1.callgrind.out" > "$TMP/o" || die "exit $?"
    grep -Eq "^ +1\.34 +~2390 .* budget +fb <cycle 1>\$" "$TMP/o" || die "budget: $(grep ' fb <cycle' "$TMP/o" | head -1)"
    ;;
lost_entry)
    # Stacks a;b (10) and b alone (5): b is entered once from a and once
    # spontaneously, so its inclusive cost is 15, exact from the stacks.
    # Written as callgrind the spontaneous entry is lost (the format has no
    # place for it): read back, the calls into b say 10 and b's own cost
    # says 15. That must not be shown as exact: the interval [10, 15] and
    # the reason.
    [ -n "$PY" ] || skip python3
    printf 'a;b 10\nb 5\n' > "$TMP/s.folded"
    "$T" report --format json "$TMP/s.folded" > "$TMP/a.json" || die "folded exit $?"
    "$T" report --format callgrind -o "$TMP/s.out" "$TMP/s.folded" || die "callgrind exit $?"
    "$T" report --format json "$TMP/s.out" > "$TMP/b.json" || die "read back exit $?"
    "$T" report --bounds "$TMP/s.out" > "$TMP/b.txt" || die "text exit $?"
    grep -Eq '^ +[0-9.]+ +~1[05] .* heuristic +\[10, 15\] +sides disagree +b$' "$TMP/b.txt" || die "text: $(cat "$TMP/b.txt")"
    "$PY" - "$TMP/a.json" "$TMP/b.json" <<'PYEOF' || die "json check"
import json, sys
def fn(p, name):
    return [f for f in json.load(open(p))["functions"] if f["name"] == name][0]
b = fn(sys.argv[1], "b")
assert b["total"] == [15] and b["estimate"] == [None] and b["bounds"] == [[15], [15]], b
b = fn(sys.argv[2], "b")
assert b["estimate"] == ["heuristic"], b
assert b["bounds"] == [[10], [15]], b
assert b["reason"] == ["sides_disagree"], b
assert 10 <= b["total"][0] <= 15, b
PYEOF
    ;;
json)
    [ -n "$PY" ] || skip python3
    "$T" report --format json "$REC" > "$TMP/o" || die "exit $?"
    "$PY" - "$TMP/o" <<'PYEOF' || die "json check"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metrics"] == ["Ir"], d["metrics"]
assert d["totals"] == [178958], d["totals"]
want = {"main": 53139, "fa": 7953, "fb": 7025, "fib": 32551, "leafc": 16794}
seen = {}
for f in d["functions"]:
    if f["name"] in want:
        assert "C_n" not in f["inexact"], f
        seen[f["name"]] = f["split"]["C_n"][0]
        # total is the best figure: the exact one here, a point interval.
        w = want[f["name"]]
        assert f["total"] == [w] and f["estimate"] == [None] and f["reason"] == [None], f
        assert f["bounds"] == [[w], [w]], f
assert seen == want, seen
# gprof2dot's estimate keeps its own name: fb's is 2390, not its 7025.
fb = [f for f in d["functions"] if f["name"] == "fb"][0]
assert abs(fb["heuristic"][0] - 2390) < 1e-6, fb["heuristic"]
for c in d["calls"]:
    assert set(c["split"]) == {"C_nn", "C_nr", "C_nd", "C_rn", "C_rr", "C_rd"}
ids = {f["id"] for f in d["functions"]}
for z in d["cycles"]:
    assert set(z["members"]) <= ids and len(z["members"]) >= 2
# The fa/fb cycle's total is exact: its members' self costs and the measured
# calls that leave it, valgrind's 7953 (fa's measured inclusive cost).
(z,) = d["cycles"]
assert z["total"] == [7953] and z["estimate"] is False, z
PYEOF
    ;;
dot)
    DOT=$(command -v dot || true)
    "$T" report --format dot "$REC" > "$TMP/o" || die "exit $?"
    grep -q 'label="fb.*<cycle 1>"' "$TMP/o" || die "fb not named a member of cycle 1"
    "$T" report --format dot --cycles cluster "$REC" | grep -q 'subgraph cluster_cycle1' || die "no cycle cluster"
    grep -q 'label="fb\\n3.93%' "$TMP/o" || die "fb not at its exact 7025/178958"
    [ -n "$DOT" ] || skip "dot (graphviz)"
    "$DOT" -Tsvg "$TMP/o" > "$TMP/svg" || die "dot rejects the output"
    grep -q '<svg' "$TMP/svg" || die "no svg"
    ;;
roundtrip)
    # read -> write callgrind -> read: the same graph (functions, keys, self,
    # call counts and costs, split figures and their inexact flags; per-root totals
    # to 1e-9, as summation order may differ).
    [ -n "$PY" ] || skip python3
    for f in "$D"/recur/*.callgrind.out "$D"/gprof2dot/*.callgrind; do
        [ -f "$f" ] || continue
        "$T" report --format callgrind -o "$TMP/rt.out" "$f" || die "$f: write exit $?"
        "$T" report --format json "$f" > "$TMP/a.json" || die "$f: json a"
        "$T" report --format json "$TMP/rt.out" > "$TMP/b.json" || die "$f: json b"
        "$PY" - "$TMP/a.json" "$TMP/b.json" "$f" <<'PYEOF' || die "$f: round trip differs"
import json, sys
def exact_split(x):
    return {k: v for k, v in (x.get("split") or {}).items() if k not in x["inexact"]}
def load(p):
    d = json.load(open(p))
    key = {f["id"]: f["key"] for f in d["functions"]}
    fs = {f["key"]: (f["self"], exact_split(f), sorted(f["inexact"]), f["called"]) for f in d["functions"]}
    tot = {f["key"]: f["total"] for f in d["functions"]}
    cs = {(key[c["caller"]], key[c["callee"]]): (c["count"], c["cost"], exact_split(c), sorted(c["inexact"]))
          for c in d["calls"]}
    return d["metrics"], d["totals"], fs, cs, tot
a, b = load(sys.argv[1]), load(sys.argv[2])
for i, what in enumerate(["metrics", "totals", "functions", "calls"]):
    if a[i] != b[i]:
        sys.exit("%s: %s differ" % (sys.argv[3], what))
scale = max(a[1]) or 1
for k, v in a[4].items():
    for x, y in zip(v, b[4][k]):
        if abs(x - y) > 1e-9 * scale:
            sys.exit("%s: total of %r: %r vs %r" % (sys.argv[3], k, x, y))
PYEOF
    done
    ;;
events)
    # tests/data/events/abc.events: A(0..33) calls B(5..17) which calls
    # C(8..12), then B(22..28). With delta_i = delta_e = 1, compensation on the fly:
    # comp_incl = raw - d_i - m (d_i + d_e), m = events nested below:
    # C 4-1 = 3; B (12-1-1*2) + (6-1) = 14; A 33-1-3*2 = 26. Post-mortem agrees.
    E="$D/events/abc.events"
    [ -f "$E" ] || die "missing $E"
    "$T" report "$E" > "$TMP/o" || die "exit $?"
    grep -Eq "^ +100.00 +33 .* exact +A\$" "$TMP/o" || die "raw A 33"
    for route in "" "--post-mortem"; do
        "$T" report $route --delta-i 1 --delta-e 1 "$E" > "$TMP/o" || die "exit $? ($route)"
        for pair in A:26 B:14 C:3; do
            n=${pair%%:*} v=${pair#*:}
            grep -Eq "^ +[0-9.]+ +$v +[0-9.]+ +[0-9]+ +[0-9]+  exact +$n\$" "$TMP/o" || die "$route: no '$n $v'"
        done
    done
    # Clamping, by hand, delta_i = 4, delta_e = 6 (d_i + d_e = 10):
    #   C  4-4-0*10 = 0                    (no clamp), excl 0
    #   B1 12-4-1*10 = -2 -> 0             (clamp 1),  excl 0-0 = 0
    #   B2 6-4 = 2,                                    excl 2
    #   A  33-4-3*10 = -1 -> 0             (clamp 2),  excl 0-(0+2) = -2 -> 0 (clamp 3)
    # so 3 clamps, self A 0, B 2, C 0: program total 2, nothing left to floor.
    "$T" report --delta-i 4 --delta-e 6 --clamp "$E" > "$TMP/o" || die "clamp: exit $?"
    grep -q '^Overhead compensated on the fly; 3 clamps, 0 figures floored at 0$' "$TMP/o" || die "clamp header"
    grep -q '^Overhead compensation clamped 3 activation costs at 0' "$TMP/o" || die "clamp line"
    grep -q 'program total 2 ' "$TMP/o" || die "clamp: program total"
    if [ -n "$PY" ]; then
        "$T" report --format json --delta-i 4 --delta-e 6 --clamp "$E" > "$TMP/c.json" || die "clamp json"
        "$T" report --format json --delta-i 4 --delta-e 6 "$E" > "$TMP/n.json" || die "no-clamp json"
        "$T" report --format json "$D/recur/recur.default.callgrind.out" > "$TMP/r.json" || die "callgrind json"
        "$PY" - "$TMP/c.json" "$TMP/n.json" "$TMP/r.json" <<'PYEOF' || die "clamps in JSON"
import json, sys
c, n, r = (json.load(open(p)) for p in sys.argv[1:4])
assert c["clamps"] == 3, c["clamps"]
assert c["totals"] == [2], c["totals"]
self_ = {f["name"]: f["self"][0] for f in c["functions"]}
assert self_ == {"A": 0, "B": 2, "C": 0}, self_
# Without --clamp nothing clamps (negatives are floored instead); an input
# no recorder compensated has none either: a number, never null.
assert n["clamps"] == 0 and r["clamps"] == 0, (n["clamps"], r["clamps"])
# Floors, by hand, the same deltas without clamping: exclusive A -1, B -2 + 2,
# C 0; call A->B -2 + 2, B->C 0; A's spontaneous cost -1. Two figures below 0
# (A's self, A's spontaneous cost) are written as 0; the clamped run floors
# nothing (every activation was already clamped).
assert n["floors"] == 2 and c["floors"] == 0 and r["floors"] == 0, (n["floors"], c["floors"], r["floors"])
PYEOF
    fi
    "$T" report --delta-i 1,x "$E" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "--delta-i"
    "$T" report --post-mortem --clamp "$E" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "--clamp"
    "$T" report --input callgrind --delta-i 1 "$E" > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "event traces only"
    ;;
bad_option)
    "$T" report --bogus "$REC" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "unknown option '--bogus'"
    "$T" report --format xml "$REC" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "--format"
    "$T" report --node-thres abc "$REC" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "--node-thres"
    "$T" report --metric nosuch "$REC" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "no metric 'nosuch'"
    "$T" report --estimate best "$REC" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "--estimate"
    "$T" report --walk-budget -1 "$REC" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "--walk-budget"
    "$T" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "missing command"
    "$T" report > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "no input file"
    # Usage errors exit 2, a value past the reader's bound included.
    "$T" report --separate-recs 4294967295 "$REC" > "$TMP/o" 2> "$TMP/e"; rc=$?
    one_line_error "$TMP/o" "$TMP/e" $rc "--separate-recs"
    [ $rc -eq 2 ] || die "--separate-recs 4294967295: exit $rc, not 2"
    "$T" report --format dot --cycles round "$REC" > "$TMP/o" 2> "$TMP/e"; rc=$?
    one_line_error "$TMP/o" "$TMP/e" $rc "--cycles"
    [ $rc -eq 2 ] || die "--cycles round: exit $rc, not 2"
    # A percent too small for a double is 0, not an error.
    "$T" report --format dot --node-thres 1e-400 "$REC" > "$TMP/o" || die "--node-thres 1e-400: exit $?"
    ;;
annotate_detects)
    # tool_annotate's checker must see the misreading it exists for: a copy
    # of a profile agrees with it, the same copy with one calls= count made 0
    # (annotate then takes that call's cost for the caller's self cost) does
    # not. A stand-in for the tool writes the copies.
    [ -n "$PY" ] || skip python3
    command -v callgrind_annotate > /dev/null || skip callgrind_annotate
    CMP=$(dirname "$0")/annotate_compare.py
    for mode in same zero; do
        # report --format callgrind -o OUT PROFILE: $5 is OUT, $6 PROFILE
        if [ $mode = zero ]; then
            printf '#!/bin/sh\nsed "0,/^calls=[0-9]*/s//calls=0/" "$6" > "$5"\n' > "$TMP/fake"
        else
            printf '#!/bin/sh\ncp "$6" "$5"\n' > "$TMP/fake"
        fi
        chmod +x "$TMP/fake"
        "$PY" "$CMP" "$TMP/fake" "$D/gprof2dot/abc.callgrind" > "$TMP/o" 2> "$TMP/e"; rc=$?
        if [ $mode = same ]; then
            [ $rc -eq 0 ] || die "a copy does not agree: $(cat "$TMP/e")"
        else
            [ $rc -eq 1 ] || die "calls=0 not seen (exit $rc)"
            # Σ self is 50 (A 20, B 10, C 20); main -> A's 50 becomes main's self.
            grep -q "program totals \[50\] vs \[100\]" "$TMP/e" || die "not the totals: $(cat "$TMP/e")"
        fi
    done
    ;;
annotate_levels)
    # Stacks where f runs at levels 0, 1, 2 and 3, written as callgrind and
    # read by the real callgrind_annotate: f, f'2 and f'3 (levels 2 and 3
    # together) each show their own self cost. By hand, self: f 1 (level 0),
    # f'2 10 (level 1), f'3 100 + 1000 (levels 2 and 3), g 7 + 70 + 700.
    # Annotate's inclusive figure is a block's self cost plus its calls:
    # f'3 1100 + f'3->f'3 1700 (the level-3 activations: 1000 + 700) + its
    # calls of g 70 + 700 = 3570; f'2 10 + f'2->f'3 (level 2: 100 + 1000 +
    # 70 + 700) = 1880; f 1 + 1880 + 7 = 1888 = main.
    [ -n "$PY" ] || skip python3
    command -v callgrind_annotate > /dev/null || skip callgrind_annotate
    printf 'main;f 1\nmain;f;f 10\nmain;f;f;f 100\nmain;f;f;f;f 1000\nmain;f;g 7\nmain;f;f;f;g 70\nmain;f;f;f;f;g 700\n' \
        > "$TMP/lv.folded"
    "$T" report --format callgrind -o "$TMP/lv.out" "$TMP/lv.folded" || die "report exit $?"
    # The same run as an event trace (main enters f at 0; each stretch
    # between two events is one of the stacks above), which the recorder
    # keeps the same way.
    printf '%s\n' '# metrics: ns' 'enter main 0' 'enter f 0' 'enter f 1' 'enter f 11' 'enter f 111' \
        'enter g 1111' 'exit g 1811' 'exit f 1811' 'enter g 1811' 'exit g 1881' 'exit f 1881' 'exit f 1881' \
        'enter g 1881' 'exit g 1888' 'exit f 1888' 'exit main 1888' > "$TMP/lv.events"
    "$T" report --format callgrind -o "$TMP/lvt.out" "$TMP/lv.events" || die "report (trace) exit $?"
    "$PY" - "$(dirname "$0")" "$TMP/lv.out" "$TMP/lvt.out" <<'PYEOF' || die "annotate's figures"
import sys
sys.path.insert(0, sys.argv[1])
from annotate_compare import annotate
want = {"no": {":main": 0, ":f": 1, ":f'2": 10, ":f'3": 1100, ":g": 777},
        "yes": {":main": 1888, ":f": 1888, ":f'2": 1880, ":f'3": 3570, ":g": 777}}
for path in sys.argv[2:]:
    for inc, rows in want.items():
        events, totals, fns = annotate(path, inc)
        got = {name: vals[0] for name, vals in fns.items()}
        if got != rows:
            sys.exit("%s --inclusive=%s: %r, want %r" % (path, inc, got, rows))
        if inc == "no" and totals != [1888]:
            sys.exit("%s: totals %r" % (path, totals))
PYEOF
    ;;
cut_roundtrip)
    # A Go profile whose recursion the profiler cut at 64 frames, written as
    # callgrind and read back: the file states the cut stacks' weight (29
    # samples, 290 ms of 580), so main.main stays an interval up to the
    # whole run instead of a figure shown exact.
    "$T" report --format callgrind -o "$TMP/deep.cg" "$D/pprof/deep.pb.gz" || die "write exit $?"
    grep -q '^desc: Stacks cut short, under any function they do not show: 29 290000000$' "$TMP/deep.cg" ||
        die "no desc: line for the cut stacks: $(head -8 "$TMP/deep.cg")"
    "$T" report --format json "$TMP/deep.cg" > "$TMP/j" || die "read back exit $?"
    [ -n "$PY" ] || skip python3
    "$PY" - "$TMP/j" <<'PYEOF' || die "read back: the cut stacks are lost"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["unrooted"] == [29, 290000000], d["unrooted"]
f = {x["name"]: x for x in d["functions"]}["main.main"]
assert f["bounds"] == [[29, 290000000], [58, 580000000]], f["bounds"]
assert f["estimate"] == ["measured", "measured"], f["estimate"]
PYEOF
    # callgrind_annotate reads desc: lines before events: and prints them.
    command -v callgrind_annotate > /dev/null || skip callgrind_annotate
    callgrind_annotate "$TMP/deep.cg" > "$TMP/a" 2>&1 || die "callgrind_annotate exit $?"
    grep -q 'malformed' "$TMP/a" && die "callgrind_annotate: $(grep malformed "$TMP/a")"
    grep -q '^Stacks cut short, under any function they do not show: 29 290000000$' "$TMP/a" ||
        die "callgrind_annotate does not show the desc: line"
    ;;
pipes)
    # perf script | cgprop report -: a long recording through a pipe, plain
    # or gzipped, or a gzipped file, is read piece by piece, in memory that
    # does not grow with the text, and reports what the file does. 185
    # copies of recur.perf make 40 MB: more than the reader's 8 MiB piece.
    # The same for folded stacks (stackcollapse-perf.pl | cgprop report -):
    # 40 MB of random stacks; and for callgrind profiles and event traces,
    # below.
    i=0
    while [ $i -lt 185 ]; do cat "$D/perf/recur.perf"; i=$((i + 1)); done > "$TMP/big.perf"
    gzip -c "$TMP/big.perf" > "$TMP/big.perf.gz" || die "gzip"
    "$T" report --format json "$TMP/big.perf" > "$TMP/file.json" || die "file exit $?"
    [ -n "$PY" ] || skip python3
    "$PY" - "$T" "$TMP" "$D" <<'PYEOF' || exit 1
import os, subprocess, sys
tool, tmp = sys.argv[1], sys.argv[2]
want = open(tmp + "/file.json").read()
# Sizes only: a child forked from this script starts with its pages.
size = os.path.getsize(tmp + "/big.perf")
def run(args, stdin_path=None, extra=()):
    """The report, and the tool's own peak RSS (wait4: not its siblings')."""
    src = subprocess.Popen(["cat", stdin_path], stdout=subprocess.PIPE) if stdin_path else None
    with open(tmp + "/out", "wb") as out:
        p = subprocess.Popen([tool, "report", "--format", "json"] + list(extra) + args,
                             stdin=src.stdout if src else None,
                             stdout=out, stderr=subprocess.PIPE)
        if src:
            src.stdout.close()
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if src:
        src.wait()
    assert p.returncode == 0, (args, err)
    return open(tmp + "/out").read(), ru.ru_maxrss
def check(base, want, frac=0.6, extra=()):
    size = os.path.getsize(base)
    peaks = {}
    for name, args, stdin_path in (("pipe", ["-"], base), ("gzip pipe", ["-"], base + ".gz"),
                                    ("gzip file", [base + ".gz"], None)):
        got, rss = run(args, stdin_path, extra)
        if got != want:
            sys.exit("FAIL: %s of %s: the report differs from the file's" % (name, base))
        # ru_maxrss is in KiB.
        if not os.environ.get("CGPROP_SANITIZED") and rss * 1024 >= size * frac:
            sys.exit("FAIL: %s of %s: peak RSS %d KiB for a text of %d bytes" % (name, base, rss, size))
        peaks[name] = rss * 1024
    return peaks
check(tmp + "/big.perf", want)
# Folded stacks, written a line at a time (this script's pages stay few).
import random
rnd = random.Random(7)
names = ["main", "a", "b", "fib", "x::y(int)", "[unknown]"]
with open(tmp + "/big.folded", "w") as f:
    while f.tell() < 40 << 20:
        d = rnd.randint(1, 40)
        f.write(";".join(["main"] + [rnd.choice(names) for _ in range(d)]) + " %d\n" % rnd.randint(1, 999))
subprocess.run(["sh", "-c", 'gzip -c "$0" > "$0.gz"', tmp + "/big.folded"], check=True)
want, _ = run([tmp + "/big.folded"])
check(tmp + "/big.folded", want)
# A callgrind profile (zcat callgrind.out.gz | cgprop report -): valgrind's
# by instruction, with jumps, repeated (a part each) to 20 and 40 MB. Its
# reader keeps every calls= line until the end (how the file encodes
# recursion is known only then), so its memory grows with them, one in 40
# lines here: below the text, and a second 20 MB adds less than 60 % of its
# bytes, where holding the text would add them all.
one = open(sys.argv[3] + "/recur/recur.instr-jumps.main.callgrind.out", "rb").read()
peaks = []
for copies in (750, 1500):
    base = tmp + "/big%d.cg" % copies
    with open(base, "wb") as f:
        for _ in range(copies):
            f.write(one)
    subprocess.run(["sh", "-c", 'gzip -1 -c "$0" > "$0.gz"', base], check=True)
    want, _ = run([base])
    peaks.append((os.path.getsize(base), check(base, want, 1.0)["pipe"]))
    os.remove(base)
    os.remove(base + ".gz")
(s1, r1), (s2, r2) = peaks
if not os.environ.get("CGPROP_SANITIZED") and r2 - r1 >= (s2 - s1) * 0.6:
    sys.exit("FAIL: callgrind through a pipe: peak RSS %d then %d bytes for texts of %d and %d" % (r1, r2, s1, s2))
# An event trace (a traced program | cgprop report -): 40 MB of enter and
# exit lines, read by the library's reader and, with overhead compensation,
# by the recorder's own.
base = tmp + "/big.ev"
with open(base, "w") as f:
    f.write("# metrics: ns\n")
    t, stack = 0, ["main"]
    f.write("enter main 0\n")
    while f.tell() < 40 << 20:
        t += rnd.randint(1, 50)
        if len(stack) > 1 and (rnd.random() < 0.5 or len(stack) > 60):
            f.write("exit %s %d\n" % (stack.pop(), t))
        else:
            stack.append(rnd.choice(names))
            f.write("enter %s %d\n" % (stack[-1], t))
subprocess.run(["sh", "-c", 'gzip -1 -c "$0" > "$0.gz"', base], check=True)
for extra in ((), ("--delta-i", "2")):
    want, _ = run([base], None, extra)
    check(base, want, 0.6, extra)
PYEOF
    # An event a stream names only past its first piece cannot be listed in
    # time: refused with what to do. (Read from the file, it is read.)
    { cat "$TMP/big.perf"; printf 'r 1 1.0:     5 late-ev: \n\t  1177 fib+0x1e (/tmp/r)\n\n'; } > "$TMP/late.perf"
    "$T" report "$TMP/late.perf" > /dev/null || die "late event from a file: exit $?"
    cat "$TMP/late.perf" | "$T" report - > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "perf script > out.perf"
    ;;
cachegrind)
    # Cachegrind writes callgrind's format with self costs only: no call,
    # so no inclusive cost (main's would be its own 3 lines). Refused,
    # named or not, with the command that records the calls; callgrind's
    # file of the same program is read. recur.cachegrind.out is valgrind
    # 3.19's cachegrind on recur.c (--cache-sim=no).
    CG="$D/recur/recur.cachegrind.out"
    for named in "" "--input callgrind"; do
        # shellcheck disable=SC2086
        "$T" report $named "$CG" > "$TMP/o" 2> "$TMP/e"
        one_line_error "$TMP/o" "$TMP/e" $? "recur.cachegrind.out: .*no calls= line: a cachegrind profile"
        grep -q 'valgrind --tool=callgrind' "$TMP/e" || die "no callgrind command: $(cat "$TMP/e")"
    done
    # The same with a creator: line is a tool's file that saw no call.
    { echo "creator: callgrind-3.19.0"; cat "$CG"; } > "$TMP/creator.out"
    "$T" report "$TMP/creator.out" > "$TMP/o" || die "a creator's file without calls refused"
    # A fresh recording of both tools, when valgrind is here.
    command -v valgrind > /dev/null || skip valgrind
    CC=$(command -v cc || command -v gcc || true)
    [ -n "$CC" ] || skip "a C compiler"
    SRC=$(dirname "$REC")/recur.c
    "$CC" -O0 -g -o "$TMP/recur" "$SRC" || die "cannot build recur.c"
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$TMP/cg.out" "$TMP/recur" > /dev/null 2>&1 ||
        die "cachegrind failed"
    "$T" report "$TMP/cg.out" > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "no calls= line: a cachegrind profile"
    valgrind --tool=callgrind --callgrind-out-file="$TMP/cl.out" "$TMP/recur" > /dev/null 2>&1 ||
        die "callgrind failed"
    "$T" report "$TMP/cl.out" > "$TMP/o" || die "callgrind's file of the same program refused"
    grep -Eq ' main( |$)' "$TMP/o" || die "callgrind's file: no main"
    ;;
missing_file)
    "$T" report "$TMP/nosuch.out" > "$TMP/o" 2> "$TMP/e"; one_line_error "$TMP/o" "$TMP/e" $? "nosuch.out"
    ;;
malformed)
    printf 'events: Ir\nfn=a\n1 2\ncalls=abc 3\n' > "$TMP/bad.out"
    "$T" report --input callgrind "$TMP/bad.out" > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "bad.out:4: "
    # A text no detector knows: the error, then how to name a format (one
    # perf sample without its call chain is too short to be recognised;
    # named, it is refused for what it lacks).
    printf 'p 7 1.0: 3 cpu-clock:            4005d0 main+0x10 (/bin/p)\n' > "$TMP/one.perf"
    "$T" report "$TMP/one.perf" > "$TMP/o" 2> "$TMP/e" && die "unknown format accepted"
    grep -q 'one.perf: unknown input format' "$TMP/e" || die "no unknown-format error: $(cat "$TMP/e")"
    grep -q -- '--input callgrind|folded|events|perf|pprof|v8|pstats|gprof$' "$TMP/e" || die "no --input hint"
    "$T" report --input perf "$TMP/one.perf" > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "one.perf:1: a sample without its call chain"
    grep -q 'perf record -g' "$TMP/e" || die "no perf record -g in: $(cat "$TMP/e")"
    ;;
views)
    # Flat profile rows (between the column header and the blank line after).
    flat() { awk '/^  %total/{f=1;next} f&&NF==0{exit} f' "$1"; }
    # --root fa: fa reaches fb and leafc (recur.c: fa calls fb and leafc, fb
    # calls fa and leafc), and nothing else.
    "$T" report --root fa "$REC" > "$TMP/o" || die "--root exit $?"
    flat "$TMP/o" | awk '{$1=$2=$3=$4=$5=$6=""; print}' | sed 's/^ *//; s/ <cycle [0-9]*>$//' | sort > "$TMP/names"
    printf 'fa\nfb\nleafc\n' | cmp -s - "$TMP/names" || die "--root fa shows $(cat "$TMP/names")"
    # Shown functions keep their measured totals (the truth file's), and
    # leafc's callers not shown (main) keep their part: 16794 - 5472 (fa)
    # - 2310 (fb) = 9012.
    flat "$TMP/o" | grep -q '  7953 .* fa <cycle 1>$' || die "fa not at its exact 7953"
    flat "$TMP/o" | grep -q ' 16794 .* leafc$' || die "leafc not at its exact 16794"
    grep -q '^  *9012  *1  *(hidden: 1 caller)$' "$TMP/o" || die "leafc's hidden caller is not main's 9012"
    grep -q '^View: 3 of 248 functions shown' "$TMP/o" || die "no view line"
    # --depth 0: fa alone.
    "$T" report --root fa --depth 0 "$REC" > "$TMP/o" || die "--depth exit $?"
    [ "$(flat "$TMP/o" | wc -l)" -eq 1 ] || die "--root fa --depth 0 shows more than fa"
    # --leaf fib: who reaches fib (main and the start-up chain), fib itself.
    "$T" report --leaf fib --format dot "$REC" > "$TMP/o" || die "--leaf exit $?"
    grep -q 'label="fib\\n18.19%' "$TMP/o" || die "fib not at its exact 18.19%"
    grep -q 'label="leafc' "$TMP/o" && die "--leaf fib shows leafc"
    # --focus and --hide: regular expressions on names.
    "$T" report --focus '^fib$' --hide '^main$' "$REC" > "$TMP/o" || die "--focus exit $?"
    flat "$TMP/o" | grep -q ' fib$' || die "--focus fib lost fib"
    flat "$TMP/o" | grep -q ' main$' && die "--hide main shows main"
    flat "$TMP/o" | grep -q ' leafc$' && die "--focus fib shows leafc"
    # --top 3: the first three rows of the full flat profile.
    "$T" report "$REC" > "$TMP/all" || die "report exit $?"
    "$T" report --top 3 "$REC" > "$TMP/o" || die "--top exit $?"
    flat "$TMP/all" | head -3 > "$TMP/want"
    flat "$TMP/o" > "$TMP/got"
    cmp -s "$TMP/want" "$TMP/got" || die "--top 3 is not the three largest totals"
    # --node-thres given: the text report of a real program is pruned too,
    # and no function below 0.5 % is left (CPython's profile).
    PYP="$D/real/python3/python3.default.callgrind.out.gz"
    "$T" report "$PYP" > "$TMP/all" || die "report exit $?"
    "$T" report --node-thres 0.5 "$PYP" > "$TMP/o" || die "--node-thres exit $?"
    [ "$(wc -l < "$TMP/o")" -lt "$(($(wc -l < "$TMP/all") / 4))" ] || die "--node-thres 0.5 did not shrink the text report"
    flat "$TMP/o" | awk '$1 < 0.5 {exit 1}' || die "a function below 0.5 % in the pruned text report"
    [ "$(flat "$TMP/o" | wc -l)" -eq "$(flat "$TMP/all" | awk '$1 >= 0.5' | wc -l)" ] ||
        die "the pruned flat profile is not the rows at or above 0.5 %"
    # Names: an ambiguous one lists its keys; an unknown one is an error.
    "$T" report --root '(below main)' "$REC" > "$TMP/o" 2> "$TMP/e"
    [ $? -eq 2 ] || die "ambiguous --root: exit status not 2"
    grep -q "is ambiguous (2 functions)" "$TMP/e" || die "no ambiguity message: $(cat "$TMP/e")"
    grep -q 'libc.so.6\\t' "$TMP/e" || die "the candidates' keys are not listed"
    "$T" report --root 'recur\t???\t(below main)' --depth 1 "$REC" > "$TMP/o" || die "--root by key exit $?"
    "$T" report --root nosuch "$REC" > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "no function 'nosuch'"
    "$T" report --hide '(' "$REC" > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "bad regular expression"
    for bad in "--colormap red" "--skew 0" "--label total,bogus" "--top 0" "--depth -1"; do
        # shellcheck disable=SC2086
        "$T" report $bad "$REC" > "$TMP/o" 2> "$TMP/e"
        rc=$?
        [ $rc -eq 2 ] || die "$bad: exit $rc, not 2"
    done
    # --label: absolute figures (main's exact 53139 and self 26).
    "$T" report --format dot --label total-value,self-value "$REC" > "$TMP/o" || die "--label exit $?"
    grep -q 'label="main\\n53139\\n(26)"' "$TMP/o" || die "--label total-value,self-value"
    ;;
compare)
    # recur.default (fn'N names: fb exact, valgrind's measured 7025) against
    # recur.recs1, the same program without levels: fb is an estimate in
    # [80, 7953] (docs/BOUNDS.md), so its change is an estimate in
    # [80 - 7025, 7953 - 7025] = [-6945, +928]; fa is exact on both sides
    # (7953 = 7953), so its change is an exact 0. Same program total.
    R1="$D/recur/recur.recs1.callgrind.out"
    "$T" report --compare "$REC" --bounds "$R1" > "$TMP/o" || die "compare exit $?"
    grep -q '^Program total: base 178958, new 178958, change +0 ' "$TMP/o" || die "program line: $(cat "$TMP/o")"
    grep -Eq '^ +~-?[0-9]+ +~[-+][0-9.]+ +7025 +3\.93% +~[0-9]+ .*  fb  change in \[-6945, \+928\]$' "$TMP/o" ||
        die "fb row: $(grep ' fb' "$TMP/o")"
    grep -Eq '^ +\+0 +\+0\.00 +7953 +4\.44% +7953 +4\.44% +\+0 +\+0\.00  fa$' "$TMP/o" ||
        die "fa row: $(grep ' fa' "$TMP/o")"
    grep -q '^Changes of inclusive totals: 247 exact, 1 estimates' "$TMP/o" || die "estimate count"
    # fb changes most, so it is the first row.
    grep -A1 '^ *change ' "$TMP/o" | tail -1 | grep -q '  fb  change' || die "fb is not first"
    # JSON: the same figures, and the change marked as not exact.
    if [ -n "$PY" ]; then
        "$T" report --compare "$REC" --format json "$R1" > "$TMP/j" || die "json exit $?"
        "$PY" - "$TMP/j" <<'PYEOF' || die "json figures"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in d["functions"]}
fb, fa = f["fb"], f["fa"]
assert fb["base"]["total"] == 7025 and fb["base"]["exact"], fb
assert fb["new"]["bounds"] == [80, 7953] and not fb["new"]["exact"], fb
assert fb["change"]["bounds"] == [-6945, 928] and not fb["change"]["exact"], fb
assert fb["change"]["total"] == fb["new"]["total"] - 7025, fb
assert fa["change"]["total"] == 0 and fa["change"]["exact"], fa
assert d["change"]["program"] == 0 and d["base"]["program"] == 178958, d["change"]
assert all(x["change"]["exact"] for x in d["functions"] if x["name"] != "fb")
PYEOF
    fi
    # DOT: fb dashed, with its change and interval in the tooltip.
    "$T" report --compare "$REC" --format dot "$R1" > "$TMP/d" || die "dot exit $?"
    grep -q 'style="filled,dashed", tooltip="base 7025, new ~[0-9]*, change ~-[0-9]* in \[-6945, +928\]", label="fb' \
        "$TMP/d" || die "fb box: $(grep 'label="fb' "$TMP/d")"
    # Usage errors: one line, exit 2.
    "$T" report --compare "$REC" --format callgrind "$R1" > "$TMP/o" 2> "$TMP/e"
    rc=$?; [ $rc -eq 2 ] || die "callgrind with --compare: exit $rc"
    one_line_error "$TMP/o" "$TMP/e" $rc "not callgrind"
    "$T" report --compare "$REC" "$REC" > "$TMP/o" 2> "$TMP/e"
    rc=$?; [ $rc -eq 2 ] || die "base as input: exit $rc"
    one_line_error "$TMP/o" "$TMP/e" $rc "both the base and an input"
    "$T" report --compare "$D/pprof/recur.pb.gz" "$R1" > "$TMP/o" 2> "$TMP/e"
    one_line_error "$TMP/o" "$TMP/e" $? "no metric 'Ir'"
    ;;
metric_default)
    # Without --metric the report shows what the input's profiler shows
    # first: pprof's last sample type when none is named the default (cpu in
    # a Go CPU profile, as go tool pprof), callgrind's first event.
    "$T" report "$D/pprof/recur.pb.gz" > "$TMP/o" || die "pprof: exit $?"
    grep -q '^Flat profile: metric cpu_nanoseconds,' "$TMP/o" || die "pprof default: $(grep '^Flat' "$TMP/o")"
    "$T" report --format dot "$D/pprof/recur.pb.gz" > "$TMP/o" || die "pprof dot: exit $?"
    grep -q 'label="metric cpu_nanoseconds' "$TMP/o" || die "pprof dot default: $(grep -m1 'label="metric' "$TMP/o")"
    "$T" report --metric samples_count "$D/pprof/recur.pb.gz" > "$TMP/o" || die "--metric: exit $?"
    grep -q '^Flat profile: metric samples_count,' "$TMP/o" || die "--metric: $(grep '^Flat' "$TMP/o")"
    "$T" report "$REC" > "$TMP/o" || die "callgrind: exit $?"
    grep -q '^Flat profile: metric Ir,' "$TMP/o" || die "callgrind default: $(grep '^Flat' "$TMP/o")"
    # pprof's spellings of a sample type: its index (-sample_index=0) and
    # its name without the unit.
    for m in 0 samples; do
        "$T" report --metric $m "$D/pprof/recur.pb.gz" > "$TMP/o" || die "--metric $m: exit $?"
        grep -q '^Flat profile: metric samples_count,' "$TMP/o" || die "--metric $m: $(grep '^Flat' "$TMP/o")"
    done
    # Several profiles: the first that names its default decides, as in
    # pprof's merge. small.pb names none (its last, cpu, stands in); a
    # copy of it with default_sample_type (field 14) = string 1, "samples".
    python3 -c 'import sys; sys.stdout.buffer.write(open(sys.argv[1], "rb").read() + bytes([0x70, 1]))' \
        "$D/pprof/small.pb" > "$TMP/named.pb" || die "named.pb"
    "$T" report "$D/pprof/small.pb" > "$TMP/o" || die "small.pb: exit $?"
    grep -q '^Flat profile: metric cpu_nanoseconds,' "$TMP/o" || die "small.pb: $(grep '^Flat' "$TMP/o")"
    "$T" report "$D/pprof/small.pb" "$TMP/named.pb" > "$TMP/o" || die "small + named: exit $?"
    grep -q '^Flat profile: metric samples_count,' "$TMP/o" || die "small + named: $(grep '^Flat' "$TMP/o")"
    # One file under two names is one file.
    ln -s "$D/pprof/small.pb" "$TMP/link.pb"
    "$T" report "$D/pprof/small.pb" "$TMP/link.pb" > "$TMP/o" 2> "$TMP/e"
    rc=$?; [ $rc -eq 2 ] || die "a file and a link to it: exit $rc"
    one_line_error "$TMP/o" "$TMP/e" $rc "is given twice"
    ;;
*) die "unknown case $case_" ;;
esac
exit 0
