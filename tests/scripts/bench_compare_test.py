#!/usr/bin/env python3
"""scripts/bench-compare.py on hand-made cgprop-bench --json files.

    bench_compare_test.py PATH/TO/bench-compare.py

Each expected verdict below is worked out by hand from the numbers in the
files (|log(new/old)| against max(3 x spread, 0.05), spread = largest
|log(x / median)| over the old run and the noise run).
"""
import json
import os
import subprocess
import sys
import tempfile


def fig(name, ratio, value=1.0, unit="ms"):
    return {"group": "g", "name": name, "shape": "s", "size": 100, "value": value, "unit": unit,
            "reference": "ref" if ratio else "(none)", "reference_value": 1.0 if ratio else 0, "ratio": ratio}


def doc(figs):
    return {"tool": "cgprop-bench", "version": "0", "quick": False, "figures": figs}


def main():
    script = sys.argv[1]
    d = tempfile.mkdtemp()
    files = {
        # A: noise 10 / 10.5, median sqrt(105) = 10.247, spread log(10.5/10.247) = 0.0244, bound 0.0731;
        #    10 -> 10.6 is log 1.06 = 0.058: within.
        # B: no spread, bound = floor 0.05; 2.0 -> 2.2 is 0.0953: REGRESSION.
        # C: a rate without reference: 100 -> 80 MB/s is worse by log 1.25 = 0.223: REGRESSION.
        # D: 5 -> 4 is an improvement (0.223 above the floor).
        # E: in the new run only; F: in the old run only.
        "old": doc([fig("A", 10.0), fig("B", 2.0), fig("C", 0, 100.0, "MB/s"), fig("D", 5.0), fig("F", 1.0)]),
        "noise": doc([fig("A", 10.5), fig("B", 2.0), fig("C", 0, 100.0, "MB/s"), fig("D", 5.0), fig("F", 1.0)]),
        "new": doc([fig("A", 10.6), fig("B", 2.2), fig("C", 0, 80.0, "MB/s"), fig("D", 4.0), fig("E", 1.0)]),
        "bad": {"nothing": 1},
    }
    paths = {}
    for k, v in files.items():
        paths[k] = os.path.join(d, k + ".json")
        with open(paths[k], "w") as f:
            json.dump(v, f)

    def run(*args):
        p = subprocess.run([sys.executable, script] + list(args), capture_output=True, text=True)
        return p.returncode, p.stdout

    fails = []

    def expect(cond, what, out):
        if not cond:
            fails.append("%s\n--- output:\n%s" % (what, out))

    rc, out = run(paths["old"], paths["new"], "--noise", paths["noise"])
    lines = out.splitlines()
    expect(rc == 1, "with noise: exit 1 (regressions)", out)
    expect(any(l.startswith("REGRESSION g / B /") for l in lines), "B flagged", out)
    expect(any(l.startswith("REGRESSION g / C /") for l in lines), "C flagged", out)
    expect(any(l.startswith("improved   g / D /") for l in lines), "D improved", out)
    expect(not any(" / A / " in l for l in lines), "A within the noise", out)
    expect(any(l.startswith("new") and " / E / " in l for l in lines), "E listed as new", out)
    expect(any(l.startswith("gone") and " / F / " in l for l in lines), "F listed as gone", out)
    expect("2 regression(s), 1 improvement(s), 1 within the noise" in out, "summary", out)

    # Without noise: one bound of 0.15 for all; B (+10 %) passes, C (+25 %) does not.
    rc, out = run(paths["old"], paths["new"])
    lines = out.splitlines()
    expect(rc == 1, "without noise: exit 1", out)
    expect(not any(" / B / " in l for l in lines), "without noise: B within 0.15", out)
    expect(any(l.startswith("REGRESSION g / C /") for l in lines), "without noise: C flagged", out)

    # A run against itself: nothing flagged, exit 0.
    rc, out = run(paths["old"], paths["old"], "--noise", paths["noise"])
    expect(rc == 0 and "0 regression(s), 0 improvement(s)" in out, "identical runs", out)

    # A floor of 0.1 lets B (0.0953, no spread) through.
    rc, out = run(paths["old"], paths["new"], "--noise", paths["noise"], "--floor", "0.1")
    expect(not any(" / B / " in l for l in out.splitlines()), "floor 0.1: B within", out)

    # Not cgprop-bench output: exit 2.
    rc, out = run(paths["old"], paths["bad"])
    expect(rc == 2, "bad input: exit 2", out)

    for f in fails:
        print("FAIL:", f)
    print("%d failure(s)" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
