#!/usr/bin/env python3
"""Check cgprop's figures for an Xdebug profile against the call tree the
file holds, rebuilt here independently of the library.

  check_xdebug.py TOOL PROFILE          a committed profile
  check_xdebug.py TOOL --live SCRIPT    profile SCRIPT with PHP's Xdebug
                                        first (exit 77 without php or xdebug)

Xdebug writes one block per call of a function, when the call returns: the
function, its self cost, then each call it made with that call's inclusive
cost. The blocks are the call tree in post-order, so every call's recursion
level is known, and a function's true inclusive cost is that of its
outermost calls. Two measures of it are in the file: what the callers' call
lines say of those calls (A), and what the calls themselves spend and call
(B, their self cost plus their own call lines). Xdebug times both with
separate clock readings, so they differ by a few units; cgprop must report
the function exact where they agree and, where they do not, an interval
from one to the other with its estimate inside (up to the self cost where
that is above both: memory is a net change, which nested calls can exceed). Self costs are summed over
every block. callgrind_annotate, for comparison, adds a recursive function's
inclusive cost once per call on the stack.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile


def parse(path):
    """Blocks in file order: (function, self costs, [(callee, costs)])."""
    names = ({}, {})  # files, functions: id -> name
    blocks, K = [], None

    def name(space, v):
        if v.startswith("("):
            i = v.index(")")
            ident, rest = v[1:i], v[i + 1:].strip()
            if rest:
                names[space][ident] = rest
            return names[space][ident]
        return v

    fl = cfl = None
    cfn = None
    pending = None
    with open(path, "rb") as raw:
        gz = raw.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rt", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if pending is not None:
                costs = [int(x) for x in line.split()[1:]]
                blocks[-1][2].append((pending, costs + [0] * (K - len(costs))))
                pending = None
            elif line.startswith("events:"):
                K = len(line.split()[1:])
            elif line.startswith("fl="):
                fl = cfl = name(0, line[3:])
            elif line.startswith(("cfl=", "cfi=")):
                cfl = name(0, line[4:])
            elif line.startswith("fn="):
                blocks.append([(fl, name(1, line[3:])), [0] * K, []])
                cfl = fl
            elif line.startswith("cfn="):
                cfn = (cfl, name(1, line[4:]))
            elif line.startswith("calls="):
                pending, cfl = cfn, fl
            elif line[:1].isdigit() and blocks:
                costs = [int(x) for x in line.split()[1:]]
                blocks[-1][1] = [a + b for a, b in zip(blocks[-1][1], costs + [0] * (K - len(costs)))]
    return blocks, K


def truth(blocks, K):
    """Per function: self, and the two measures A and B of its outermost
    calls (A None for a function whose outermost calls include a root)."""
    parent, line_cost, stack = [None] * len(blocks), [None] * len(blocks), []
    for b, (fn, _, calls) in enumerate(blocks):
        kids = stack[len(stack) - len(calls):] if calls else []
        assert [blocks[k][0] for k in kids] == [c[0] for c in calls], "not a post-order call tree"
        for k, (_, costs) in zip(kids, calls):
            parent[k], line_cost[k] = b, costs
        del stack[len(stack) - len(calls):]
        stack.append(b)
    fig = {}
    for b, (fn, self, calls) in enumerate(blocks):
        f = fig.setdefault(fn, {"self": [0] * K, "A": [0] * K, "B": [0] * K, "root": False, "n": 0})
        f["self"] = [x + y for x, y in zip(f["self"], self)]
        p, outer = parent[b], True
        while p is not None:
            if blocks[p][0] == fn:
                outer = False
                break
            p = parent[p]
        if not outer:
            continue
        own = [s + sum(c[1][k] for c in calls) for k, s in enumerate(self)]
        f["B"] = [x + y for x, y in zip(f["B"], own)]
        if parent[b] is None:
            f["root"] = True
        else:
            f["A"] = [x + y for x, y in zip(f["A"], line_cost[b])]
        f["n"] += 1
    return fig


def check(tool, path):
    blocks, K = parse(path)
    fig = truth(blocks, K)
    rep = json.loads(subprocess.run([tool, "report", "--format", "json", path], check=True,
                                    capture_output=True).stdout.decode("utf-8", "surrogateescape"))
    got = {tuple(fn["key"].split("\t")[1:]): fn for fn in rep["functions"]}
    bad, exact, spans = 0, 0, []
    for key, f in sorted(fig.items()):
        g = got.get(key)
        if g is None:
            print("FAIL %s: not in cgprop's report" % (key,))
            bad += 1
            continue
        for k in range(K):
            want = sorted({f["B"][k]} if f["root"] else {f["A"][k], f["B"][k]})
            # Memory is a net change, not a cost: the outermost calls can
            # end with less than all the calls of the function allocated on
            # their own. No inclusive cost is below the self cost, so the
            # interval reaches up to it.
            if f["self"][k] > want[-1]:
                want.append(f["self"][k])
            lo, hi = g["bounds"][0][k], g["bounds"][1][k]
            ok = g["self"][k] == f["self"][k] and [lo, hi] == [want[0], want[-1]] and lo <= g["total"][k] <= hi
            ok = ok and (g["estimate"][k] is None) == (len(want) == 1)
            if len(want) == 1:
                exact += 1
            else:
                spans.append(hi - lo)
            if not ok:
                bad += 1
                print("FAIL %s %s: self %s total %s [%s, %s] %s; from the tree: self %s, A %s, B %s" %
                      (rep["metrics"][k], key[1], g["self"][k], g["total"][k], lo, hi, g["estimate"][k],
                       f["self"][k], f["A"][k], f["B"][k]))
    print("%s: %d blocks, %d functions, %d metrics; %d figures exact, %d intervals where Xdebug's two measures"
          " differ (widths %s)" % (os.path.basename(path), len(blocks), len(fig), K, exact, len(spans),
                                   sorted(spans)[-5:] or "none"))
    return 1 if bad else 0


def live(tool, script):
    php = shutil.which("php")
    if not php:
        print("php not installed (Debian: php-cli php-xdebug): live check skipped")
        return 77
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([php, "-d", "xdebug.mode=profile", "-d", "xdebug.output_dir=" + d, "-d",
                            "xdebug.profiler_output_name=cachegrind.out.%p", script], capture_output=True, text=True)
        outs = [n for n in os.listdir(d) if n.startswith("cachegrind.out.")]
        if r.returncode or not outs:
            print("php with Xdebug's profiler did not run (Debian: php-xdebug): live check skipped\n" + r.stderr)
            return 77
        return check(tool, os.path.join(d, outs[0]))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "--live":
        sys.exit(live(sys.argv[1], sys.argv[3]))
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1], sys.argv[2]))
