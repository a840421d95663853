#!/usr/bin/env python3
"""Check cgprop's reading of a Python statistics file against Python's own
pstats module: every function's tottime must be cgprop's self, and its
cumtime cgprop's total (both in nanoseconds, rounded), an exact figure; its
calls the callers' counts, and its spontaneous entries the calls its
callers' entries do not account for. Several files are read together, as
`cgprop report A B C` merges them: each one's figures in nanoseconds,
summed.

usage: compare.py CGPROP_TOOL FILE.pstats...
       compare.py --run CGPROP_TOOL PROGRAM.py   (profile it now with cProfile,
           then with the pure-Python profile module, then with yappi when
           it is installed, and check each)
       compare.py --versions CGPROP_TOOL FILE.pstats
           (the same statistics written by Python's marshal in each of its
           versions 0-4: text or binary floats, with or without shared
           references; each is checked, and all must give the same report)

pstats reads the file on its own; the figures are not taken from cgprop."""
import json
import marshal
import os
import pstats
import subprocess
import sys
import tempfile


def clean(s):
    return s.replace("\t", " ").replace("\n", " ")


def name_of(name):
    """A function's name; the profile module's runner of a script is named
    by the script's code object: Python's repr of it without the address."""
    if isinstance(name, str):
        return name
    return '<code object %s, file "%s", line %d>' % (name.co_name, name.co_filename, name.co_firstlineno)


def ns(seconds):
    return int(seconds * 1e9 + 0.5)


def check(tool, *paths):
    want = {}
    for path in paths:
        for (fname, line, name), (cc, nc, tt, ct, callers) in pstats.Stats(path).stats.items():
            key = "\t%s:%d\t%s" % (clean(fname), line, clean(name_of(name)))
            called = sum((c[0] if isinstance(c, tuple) else c) for c in callers.values())
            spont = nc if not callers else max(nc - called, 0)
            w = want.get(key, (0, 0, 0, 0))
            want[key] = (w[0] + ns(tt), w[1] + ns(ct), w[2] + called, w[3] + spont)
    out = subprocess.run([tool, "report", "--input", "pstats", "--format", "json", *paths],
                         check=True, capture_output=True).stdout
    rep = json.loads(out.decode("utf-8"))
    assert rep["metrics"] == ["ns"], rep["metrics"]
    got = {f["key"]: f for f in rep["functions"]}
    bad = []
    if set(got) != set(want):
        bad.append("functions differ: only pstats %s, only cgprop %s"
                   % (sorted(set(want) - set(got))[:5], sorted(set(got) - set(want))[:5]))
    recursive = 0
    for key, (tt, ct, called, spont) in want.items():
        f = got.get(key)
        if f is None:
            continue
        if f["self"] != [tt]:
            bad.append("%r: self %s, pstats tottime %d ns" % (key, f["self"], tt))
        if f["total"] != [ct] or f["estimate"] != [None]:
            bad.append("%r: total %s (%s), pstats cumtime %d ns" % (key, f["total"], f["estimate"], ct))
        if f["called"] != called:
            bad.append("%r: called %s, pstats %d" % (key, f["called"], called))
        if f["spontaneous"]["count"] != spont:
            bad.append("%r: %s calls from outside, pstats %d" % (key, f["spontaneous"]["count"], spont))
        if f.get("self_recursive") or f["cycle"] is not None:
            recursive += 1
    for b in bad[:20]:
        print("MISMATCH", b)
    if bad:
        return 1
    print("%s: %d functions (%d recursive): self = tottime and total = cumtime for every one"
          % (" + ".join(paths), len(want), recursive))
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--run":
        tool, prog = argv[2], os.path.abspath(argv[3])
        with tempfile.TemporaryDirectory() as d:
            for profiler in ("cProfile", "profile"):
                out = os.path.join(d, profiler + ".pstats")
                subprocess.run([sys.executable, "-m", profiler, "-o", out, prog], check=True,
                               stdout=subprocess.DEVNULL, cwd=os.path.dirname(os.path.abspath(prog)))
                if check(tool, out):
                    return 1
            # Another producer of the same format: yappi (Debian's
            # python3-yappi) saves its statistics as pstats too, timed by
            # its own clock and with its own callers table.
            if subprocess.run([sys.executable, "-c", "import yappi"], capture_output=True).returncode:
                print("yappi not installed (Debian: python3-yappi): its statistics not checked")
                return 0
            out = os.path.join(d, "yappi.pstats")
            driver = ("import runpy, sys, yappi\n"
                      "yappi.set_clock_type('cpu')\n"
                      "yappi.start()\n"
                      "runpy.run_path(sys.argv[1], run_name='__main__')\n"
                      "yappi.stop()\n"
                      "yappi.get_func_stats().save(sys.argv[2], type='pstat')\n")
            subprocess.run([sys.executable, "-c", driver, prog, out], check=True, stdout=subprocess.DEVNULL,
                           cwd=os.path.dirname(os.path.abspath(prog)))
            return 1 if check(tool, out) else 0
    if len(argv) == 4 and argv[1] == "--versions":
        tool, path = argv[2], argv[3]
        with open(path, "rb") as f:
            stats = marshal.load(f)
        reports = []
        with tempfile.TemporaryDirectory() as d:
            for v in range(5):
                out = os.path.join(d, "v%d.pstats" % v)
                with open(out, "wb") as f:
                    marshal.dump(stats, f, v)
                if check(tool, out):
                    return 1
                reports.append(subprocess.run([tool, "report", "--input", "pstats", "--format", "json", out],
                                              check=True, capture_output=True).stdout)
        if any(r != reports[0] for r in reports):
            print("MISMATCH: the marshal versions give different reports")
            return 1
        print("%s: marshal versions 0-4 give the same report" % path)
        return 0
    if len(argv) < 3:
        print(__doc__)
        return 2
    return check(argv[1], *argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
