#!/usr/bin/env python3
"""cgprop report --compare against gprof2dot --compare.

gprof2dot labels each box of its comparison with the change of the
function's total in percentage points of each program's total ("4.54% -
4.3397248%"). Its totals are exact for functions outside recursion (on
either side: in no cycle and not self-recursive), so there every change
cgprop reports (JSON `percent_points`) must equal gprof2dot's. Pairs: the
bundled callgrind profile against the same program with collection
switched on at main (many functions gone or changed), read with --key name
(gprof2dot keys functions by name), and a folded pair with functions
added, removed and changed.

usage: compare_gprof2dot.py CGPROP DATA_DIR      (GPROF2DOT: path of
gprof2dot.py, jrfonseca/gprof2dot; exit 77 without it)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

LABEL = re.compile(r'label="((?:[^"\\]|\\.)*)"')


def gprof2dot_changes(g2d, fmt, base, new):
    out = subprocess.run([sys.executable, g2d, "-f", fmt, "--compare", "-n0", "-e0", "--compare-tolerance", "1e-7",
                          base, new], check=True, capture_output=True, text=True).stdout
    changes = {}
    for line in out.splitlines():
        if "->" in line or "label=" not in line:
            continue
        parts = LABEL.search(line).group(1).split("\\n")
        name, fig = parts[0], parts[1]
        m = re.match(r"^[0-9.]+% ([+-]) ([0-9.e-]+)%$", fig)
        changes[name] = 0.0 if not m else (1 if m.group(1) == "+" else -1) * float(m.group(2))
    return changes


def recursive(tool, path, extra):
    d = json.loads(subprocess.run([tool, "report", "--format", "json"] + extra + [path], check=True,
                                  capture_output=True, text=True).stdout)
    names = [f["name"] for f in d["functions"]]
    dup = {n for n in names if names.count(n) > 1}
    return {f["name"] for f in d["functions"] if f["cycle"] is not None or f["self_recursive"]} | dup


def main():
    tool, data = sys.argv[1], sys.argv[2]
    g2d = os.environ.get("GPROF2DOT")
    if not g2d or not os.path.isfile(g2d):
        print("SKIP: set GPROF2DOT to the path of gprof2dot.py")
        return 77
    tmp = tempfile.mkdtemp()
    fb, fn = os.path.join(tmp, "base.folded"), os.path.join(tmp, "new.folded")
    with open(fb, "w") as f:
        f.write("main 10\nmain;parse;lex 300\nmain;parse;lex;read 200\nmain;parse 50\nmain;eval;fib 10\n"
                "main;eval;fib;fib 20\nmain;eval;old 100\nmain;print 80\nmain;print;fmt 120\n")
    with open(fn, "w") as f:
        f.write("main 10\nmain;parse;lex 150\nmain;parse;lex;read 200\nmain;parse 50\nmain;parse;cache 60\n"
                "main;eval;fib 10\nmain;eval;fib;fib 20\nmain;eval;fib;fib;fib 90\nmain;print 80\n"
                "main;print;fmt 120\n")
    rec = os.path.join(data, "recur")
    pairs = [("callgrind", os.path.join(rec, "recur.default.callgrind.out"),
              os.path.join(rec, "recur.instr-jumps.main.callgrind.out"), ["--key", "name"]),
             ("collapse", fb, fn, [])]
    bad = checked = 0
    for fmt, base, new, extra in pairs:
        want = gprof2dot_changes(g2d, fmt, base, new)
        skip = recursive(tool, base, extra) | recursive(tool, new, extra)
        got = json.loads(subprocess.run([tool, "report", "--format", "json", "--compare", base] + extra + [new],
                                        check=True, capture_output=True, text=True).stdout)
        for f in got["functions"]:
            n = f["name"]
            if n in skip or n not in want or f["status"] == "removed" or f["status"] == "added":
                continue
            if abs(f["change"]["percent_points"] - want[n]) > 2e-7:
                print("FAIL: %s %s: cgprop %+.7f points, gprof2dot %+.7f" % (os.path.basename(new), n,
                                                                         f["change"]["percent_points"], want[n]))
                bad += 1
            checked += 1
    print("%d changes equal gprof2dot --compare's, %d differ" % (checked, bad))
    return 1 if bad or checked < 20 else 0


if __name__ == "__main__":
    sys.exit(main())
