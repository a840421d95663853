#!/usr/bin/env python3
"""Print what Python's own pstats module reads from a statistics file, one
function a line: tottime and cumtime in nanoseconds (rounded), the call
count, the calls its callers do not account for and what of its cumtime
their costs leave (docs/formats/pstats.md: its spontaneous entries), then
cgprop's key for it (TAB file:line TAB name). check_pstats compares the
reader with these files (tests/data/pstats/*.expected).

A file of the pure-Python profile module names the function that runs the
script by the script's code object: its key takes Python's repr of it
without the address, as docs/formats/pstats.md says. Run this with the
Python that wrote the file: no other one can load its code objects.

Times below 0 (a profile calibrated with too large a bias) are printed as
they are, rounded to nearest like the others.

usage: expected.py FILE.pstats > FILE.expected"""
import math
import pstats
import sys


def clean(s):
    return s.replace("\t", " ").replace("\n", " ")


def name_of(name):
    if isinstance(name, str):
        return name
    return '<code object %s, file "%s", line %d>' % (name.co_name, name.co_filename, name.co_firstlineno)


def ns(seconds):
    return math.floor(seconds * 1e9 + 0.5)


def spontaneous(nc, ct, callers):
    """Calls no caller's entry accounts for, and ct less the calls' costs
    (0 if below; a bare count costs nothing), all in ns as read."""
    if not callers:
        return nc, max(ns(ct), 0)
    n = sum(c[0] if isinstance(c, tuple) else c for c in callers.values())
    cost = sum(max(ns(c[3]), 0) for c in callers.values() if isinstance(c, tuple))
    if nc <= n:
        return 0, 0
    return nc - n, max(max(ns(ct), 0) - cost, 0)


def main(path):
    st = pstats.Stats(path).stats
    print("# tottime_ns cumtime_ns ncalls spont_calls spont_ns key -- by Python %s's pstats module"
          % sys.version.split()[0])
    for (fname, line, name), (cc, nc, tt, ct, callers) in sorted(st.items(), key=lambda kv: (kv[0][0], kv[0][1], name_of(kv[0][2]))):
        key = "\t%s:%d\t%s" % (clean(fname), line, clean(name_of(name)))
        sc, scost = spontaneous(nc, ct, callers)
        print("%d %d %d %d %d %s" % (ns(tt), ns(ct), nc, sc, scost, key))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
