#!/usr/bin/env python3
"""Print what Python's own pstats module reads from a statistics file, one
function a line: tottime and cumtime in nanoseconds (rounded), the call
count, then cgprop's key for it (TAB file:line TAB name). check_pstats compares
the reader with this file (tests/data/pstats/recur.expected).

usage: expected.py FILE.pstats > FILE.expected"""
import pstats
import sys


def main(path):
    st = pstats.Stats(path).stats
    print("# tottime_ns cumtime_ns ncalls key -- by Python %s's pstats module" % sys.version.split()[0])
    for (fname, line, name), (cc, nc, tt, ct, callers) in sorted(st.items()):
        key = "\t%s:%d\t%s" % (fname.replace("\t", " ").replace("\n", " "), line,
                                  name.replace("\t", " ").replace("\n", " "))
        print("%d %d %d %s" % (int(tt * 1e9 + 0.5), int(ct * 1e9 + 0.5), nc, key))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
