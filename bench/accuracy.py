#!/usr/bin/env python3
"""How close cgprop's estimates come to the truth where the input has no
recursion levels.

    accuracy.py CGPROP [DATA_DIR] [--markdown] [--svg FILE]

DATA_DIR (default tests/data/real, as scripts/gen_real_profiles.sh makes it)
holds one folder per program: a callgrind profile made with
--separate-recs=1 (callgrind records no recursion levels then) and
truth.tsv, each chosen recursive function's inclusive cost counted once per
stack, as valgrind's --toggle-collect measured it on the same run.

For every function it reads, from `CGPROP report --format json`, the proven
interval and four figures, and prints their errors in points of the program
total (|figure - truth| / program * 100), per program and over all programs:

  midpoint   cgprop's default `total`: halfway between walk and clamped
  walk       the absorbing walk (a Markov model over the measured call costs)
  clamped    gprof2dot's per-root heuristic, clamped into the interval
  heuristic  gprof2dot's per-root heuristic as gprof2dot computes it

Functions whose interval is a single point are exact under every model and
count with error 0 for all four. `between` counts the functions where the
truth lies between the walk and the clamped heuristic (both inclusive),
among those where the two differ. --markdown prints the tables as Markdown
(docs/ACCURACY.md holds them); --svg writes a plot of every function's error
per model. Standard library only.
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

MODELS = ("midpoint", "walk", "clamped", "heuristic")
COLOURS = {"midpoint": "#1b9e77", "walk": "#d95f02", "clamped": "#7570b3", "heuristic": "#e7298a"}


def read_truth(path):
    rows = []
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            cols = dict(zip(head, line.rstrip("\n").split("\t")))
            rows.append(cols)
    return rows


def report(tool, profile, tmp):
    plain = os.path.join(tmp, os.path.basename(profile)[:-3])
    with gzip.open(profile, "rb") as src, open(plain, "wb") as dst:
        shutil.copyfileobj(src, dst)
    out = subprocess.run([tool, "report", "--format", "json", plain], capture_output=True, check=True,
                         timeout=300).stdout
    return json.loads(out)


def find(functions, row):
    named = [f for f in functions if f["name"] == row["function"]]
    if len(named) == 1:
        return named[0]
    for f in named:
        obj, fil, _ = (f["key"].split("\t") + ["", "", ""])[:3]
        if obj == row.get("object", "") and fil == row.get("file", ""):
            return f
    raise SystemExit("no single function %r in the report" % row["function"])


def figures(f):
    """The four figures of function f (first metric)."""
    lo, hi = f["bounds"][0][0], f["bounds"][1][0]
    h = f["heuristic"][0]
    clamped = min(max(h, lo), hi)
    if lo == hi:
        return dict.fromkeys(MODELS, lo)
    walk = f["walk"][0] if f.get("walk") and f["walk"][0] is not None else clamped
    return {"midpoint": (walk + clamped) / 2, "walk": walk, "clamped": clamped, "heuristic": h}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cgprop")
    ap.add_argument("data", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", "tests", "data", "real"))
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--svg")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless the midpoint's mean error is at most 60 %% of the heuristic's over all "
                         "programs and at most 0.5 points above it on each")
    a = ap.parse_args()

    programs = sorted(d for d in os.listdir(a.data) if os.path.isfile(os.path.join(a.data, d, "truth.tsv")))
    if not programs:
        raise SystemExit("no program folders with truth.tsv under %s" % a.data)
    per = {}      # program -> list of (function, {model: error})
    tmp = tempfile.mkdtemp(prefix="cgprop-accuracy-")
    try:
        for p in programs:
            truth = read_truth(os.path.join(a.data, p, "truth.tsv"))
            prof = [n for n in os.listdir(os.path.join(a.data, p)) if "separate-recs-1." in n]
            if len(prof) != 1:
                raise SystemExit("%s: expected one --separate-recs=1 profile" % p)
            js = report(a.cgprop, os.path.join(a.data, p, prof[0]), tmp)
            rows = []
            for t in truth:
                program = float(t["program_total"])
                f = find(js["functions"], t)
                fig = figures(f)
                lo, hi = f["bounds"][0][0], f["bounds"][1][0]
                truthv = float(t["truth"])
                if not lo - 1e-9 * program <= truthv <= hi + 1e-9 * program:
                    raise SystemExit("%s %s: truth %s outside [%s, %s]" % (p, t["function"], truthv, lo, hi))
                err = {m: abs(fig[m] - truthv) / program * 100 for m in MODELS}
                w, c = fig["walk"], fig["clamped"]
                between = None if w == c else min(w, c) <= truthv <= max(w, c)
                rows.append((t["function"], err, between))
            per[p] = rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def stats(rows):
        n = len(rows)
        out = {}
        for m in MODELS:
            e = [r[1][m] for r in rows]
            out[m] = (sum(e) / n, max(e))
        differ = [r for r in rows if r[2] is not None]
        out["between"] = (sum(1 for r in differ if r[2]), len(differ))
        return out

    table = [(p, len(per[p]), stats(per[p])) for p in programs]
    every = [r for p in programs for r in per[p]]
    table.append(("all", len(every), stats(every)))
    if a.markdown:
        print("| program | functions | midpoint | walk | clamped | heuristic | truth between walk and clamped |")
        print("|---|---|---|---|---|---|---|")
        for p, n, s in table:
            cells = " | ".join("%.2f / %.2f" % s[m] for m in MODELS)
            print("| %s | %d | %s | %d of %d |" % (p, n, cells, s["between"][0], s["between"][1]))
    else:
        print("mean / max error in points of the program total (--separate-recs=1 profiles)")
        print("%-10s %4s  %15s %15s %15s %15s  %s" % ("program", "n", *MODELS, "between"))
        for p, n, s in table:
            print("%-10s %4d  %s  %d of %d" % (p, n, " ".join("%7.2f /%6.2f" % s[m] for m in MODELS),
                                                s["between"][0], s["between"][1]))
        h = table[-1][2]["heuristic"][0]
        m = table[-1][2]["midpoint"][0]
        print("midpoint mean error / heuristic's: %.2f" % (m / h if h else 0.0))
    if a.svg:
        write_svg(a.svg, programs, per)
    if a.check:
        bad = [p for p, _, s in table[:-1] if s["midpoint"][0] > s["heuristic"][0] + 0.5]
        allm, allh = table[-1][2]["midpoint"][0], table[-1][2]["heuristic"][0]
        ok = not bad and allm <= 0.6 * allh
        print("%d passed, %d failed" % (1 if ok else 0, 0 if ok else 1))
        if bad:
            print("midpoint more than 0.5 points worse than the heuristic on: %s" % ", ".join(bad))
        return 0 if ok else 1
    return 0


def write_svg(path, programs, per):
    """One column per function (grouped by program), one dot per model."""
    rows = [(p, r) for p in programs for r in per[p]]
    top = max(max(r[1].values()) for _, r in rows) or 1.0
    W, H, L, B = 40 + 12 * len(rows) + 160, 360, 50, 60
    ph = H - B - 20
    y = lambda e: 20 + ph - e / top * ph
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (W, H)]
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#000"/>' % (L, 20 + ph, L + 12 * len(rows), 20 + ph))
    out.append('<line x1="%d" y1="20" x2="%d" y2="%d" stroke="#000"/>' % (L, L, 20 + ph))
    for i in range(5):
        e = top * i / 4
        out.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (L - 4, y(e) + 4, e))
    out.append('<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">error, points of the '
               'program</text>' % (20 + ph // 2, 20 + ph // 2))
    x0, last = L + 6, None
    for i, (p, r) in enumerate(rows):
        x = x0 + 12 * i
        if p != last:
            out.append('<text x="%d" y="%d">%s</text>' % (x, 20 + ph + 16, p))
            if last is not None:
                out.append('<line x1="%d" y1="20" x2="%d" y2="%d" stroke="#ccc"/>' % (x - 6, x - 6, 20 + ph))
            last = p
        for m in MODELS:
            out.append('<circle cx="%d" cy="%.1f" r="3" fill="%s" fill-opacity="0.8"><title>%s %s: %.3f</title>'
                       '</circle>' % (x, y(r[1][m]), COLOURS[m], r[0], m, r[1][m]))
    for j, m in enumerate(MODELS):
        lx = L + 12 * len(rows) + 20
        out.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>' %
                   (lx, 30 + 16 * j, COLOURS[m], lx + 8, 34 + 16 * j, m))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    sys.exit(main())
