#!/usr/bin/env python3
"""Print what Python's own pstats module reads from a statistics file, one
function a line: tottime and cumtime in nanoseconds (rounded), the call
count, then cgprop's key for it (TAB file:line TAB name). check_pstats compares
the reader with these files (tests/data/pstats/*.expected).

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


def main(path):
    st = pstats.Stats(path).stats
    print("# tottime_ns cumtime_ns ncalls key -- by Python %s's pstats module" % sys.version.split()[0])
    for (fname, line, name), (cc, nc, tt, ct, callers) in sorted(st.items(), key=lambda kv: (kv[0][0], kv[0][1], name_of(kv[0][2]))):
        key = "\t%s:%d\t%s" % (clean(fname), line, clean(name_of(name)))
        print("%d %d %d %s" % (math.floor(tt * 1e9 + 0.5), math.floor(ct * 1e9 + 0.5), nc, key))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
