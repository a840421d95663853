#!/usr/bin/env python3
"""Compare two cgprop-bench --json runs and flag regressions beyond the noise.

usage: bench-compare.py OLD.json NEW.json [--noise FILE ...] [--k K]
                        [--floor F] [--threshold T]

A figure is matched across runs by (group, name, shape, size, reference).
What is compared is its ratio to the reference measured in the same run
(cgprop's time over the reference's, so higher is worse for every figure,
rates included); a figure without a reference (ratio 0) compares its value,
higher being worse unless its unit is a rate ("/s").

The noise: --noise names other runs of one build (two or three runs of the
same binary on the same machine; OLD.json counts as one of them). For each
figure its spread is the largest |log(x / median)| over those runs, and a
change of NEW against OLD is flagged when |log(new / old)| exceeds
K x spread (default K = 3) and also the floor (default 0.05, i.e. ~5 %), so
that a figure that happened to repeat exactly is not flagged for any
wobble. Without --noise every figure gets --threshold (default 0.15).

Prints one line per figure that changed beyond its bound (REGRESSION or
improved), then a summary; figures only in one run are listed. Exit status:
1 if any regression was flagged, 0 if none, 2 on bad input.
"""
import argparse
import json
import math
import sys


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write("bench-compare: %s: %s\n" % (path, e))
        sys.exit(2)
    figs = doc.get("figures") if isinstance(doc, dict) else None
    if not isinstance(figs, list):
        sys.stderr.write("bench-compare: %s: no \"figures\" list (not cgprop-bench --json output)\n" % path)
        sys.exit(2)
    out = {}
    for f in figs:
        key = (f.get("group"), f.get("name"), f.get("shape"), f.get("size"), f.get("reference"))
        out[key] = f
    return out


def badness(f):
    """The figure as one positive number where higher is worse, or None."""
    r = f.get("ratio") or 0
    if r > 0:
        return float(r)
    v = f.get("value") or 0
    if v <= 0:
        return None
    return 1.0 / v if "/s" in str(f.get("unit", "")) else float(v)


def label(key):
    g, n, s, size, ref = key
    return "%s / %s / %s / %g (vs %s)" % (g, n, s, size if size is not None else 0, ref)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Flag cgprop-bench regressions beyond the run-to-run noise.")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--noise", nargs="+", default=[], metavar="FILE",
                    help="other runs of the OLD build, to estimate each figure's spread")
    ap.add_argument("--k", type=float, default=3.0, help="flag changes above K x the spread (default 3)")
    ap.add_argument("--floor", type=float, default=0.05,
                    help="smallest bound, as |log(new/old)| (default 0.05)")
    ap.add_argument("--threshold", type=float, default=0.15,
                    help="bound for every figure when no --noise is given (default 0.15)")
    a = ap.parse_args(argv)

    old, new = load(a.old), load(a.new)
    noise = [old] + [load(p) for p in a.noise]

    regressions = improvements = same = 0
    for key in sorted(set(old) & set(new), key=lambda k: tuple(str(x) for x in k)):
        bo, bn = badness(old[key]), badness(new[key])
        if bo is None or bn is None:
            continue
        if a.noise:
            xs = [badness(r[key]) for r in noise if key in r]
            xs = sorted(x for x in xs if x is not None)
            med = xs[len(xs) // 2] if len(xs) % 2 else math.sqrt(xs[len(xs) // 2 - 1] * xs[len(xs) // 2])
            spread = max(abs(math.log(x / med)) for x in xs)
            bound = max(a.k * spread, a.floor)
        else:
            spread = None
            bound = a.threshold
        change = math.log(bn / bo)
        if abs(change) <= bound:
            same += 1
            continue
        worse = change > 0
        if worse:
            regressions += 1
        else:
            improvements += 1
        print("%-10s %s: %.4g -> %.4g (%+.1f %%, bound %.1f %%%s)" % (
            "REGRESSION" if worse else "improved", label(key), bo, bn, (math.exp(change) - 1) * 100,
            (math.exp(bound) - 1) * 100, "" if spread is None else ", noise %.1f %%" % ((math.exp(spread) - 1) * 100)))
    for key in sorted(set(old) - set(new), key=lambda k: tuple(str(x) for x in k)):
        print("%-10s %s" % ("gone", label(key)))
    for key in sorted(set(new) - set(old), key=lambda k: tuple(str(x) for x in k)):
        print("%-10s %s" % ("new", label(key)))
    print("%d regression(s), %d improvement(s), %d within the noise" % (regressions, improvements, same))
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
