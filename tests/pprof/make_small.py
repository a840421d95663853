#!/usr/bin/env python3
"""Write tests/data/pprof/small.pb (and small.pb.gz): a hand-built pprof
profile whose totals are worked out by hand in docs/formats/pprof.md and
asserted by tests/check_pprof.c.

The protobuf encoding is written out here byte by byte (no protobuf
library), with the variations a reader must take: packed and unpacked
repeated fields, a location with two lines (an inlined function), ids that
are sparse and out of order, unknown fields of every wire type, the string
table after the samples, a location without lines, a sample without a
stack, and a function name shared by two files.

Usage: make_small.py OUTDIR
"""
import gzip
import os
import sys


def varint(v):
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def tag(num, wt):
    return varint(num << 3 | wt)


def f_varint(num, v):
    return tag(num, 0) + varint(v)


def f_bytes(num, b):
    return tag(num, 2) + varint(len(b)) + b


def f_fixed64(num, v):
    return tag(num, 1) + v.to_bytes(8, "little")


def f_fixed32(num, v):
    return tag(num, 5) + v.to_bytes(4, "little")


def packed(num, values):
    return f_bytes(num, b"".join(varint(v) for v in values))


def unpacked(num, values):
    return b"".join(f_varint(num, v) for v in values)


STRINGS = ["", "samples", "count", "cpu", "nanoseconds", "main", "a.c", "f", "g", "h",
           "b.c", "libx.so", "/bin/prog", "thread", "t1"]
S = {s: i for i, s in enumerate(STRINGS)}


def value_type(t, u):
    return f_varint(1, S[t]) + f_varint(2, S[u])


def function(fid, name, filename):
    return f_varint(1, fid) + f_varint(2, S[name]) + f_varint(3, S[name]) + f_varint(4, S[filename]) + f_varint(5, 7)


def line(fid, lineno):
    return f_varint(1, fid) + f_varint(2, lineno)


def location(lid, mapping, addr, lines, extra=b""):
    m = f_varint(1, lid) + f_varint(2, mapping) + f_varint(3, addr)
    for fid, ln in lines:
        m += f_bytes(4, line(fid, ln))
    return m + extra


def mapping(mid, filename):
    return f_varint(1, mid) + f_varint(2, 0x1000) + f_varint(3, 0x9000) + f_varint(5, S[filename])


def main():
    out = sys.argv[1]
    p = b""
    p += f_bytes(1, value_type("samples", "count"))
    p += f_bytes(1, value_type("cpu", "nanoseconds"))
    # Unknown top-level fields, one per wire type.
    p += f_varint(99, 12345) + f_fixed64(100, 7) + f_fixed32(101, 9) + f_bytes(102, b"\x01\x02junk")
    # Functions: ids sparse and out of order; f in a.c and f in b.c.
    p += f_bytes(5, function(30, "main", "a.c"))
    p += f_bytes(5, function(10, "f", "a.c"))
    p += f_bytes(5, function(20, "g", "a.c"))
    p += f_bytes(5, function(5, "h", "a.c"))
    p += f_bytes(5, function(7, "f", "b.c"))
    p += f_bytes(3, mapping(2, "libx.so"))
    p += f_bytes(3, mapping(1, "/bin/prog"))
    # Locations; 70 holds h inlined into g (first line innermost); 90 has
    # no line; 100 carries an unknown field and is_folded.
    p += f_bytes(4, location(100, 1, 0x1000, [(30, 3)], f_varint(9, 1) + f_varint(5, 1)))
    p += f_bytes(4, location(50, 1, 0x2000, [(10, 4)]))
    p += f_bytes(4, location(70, 1, 0x3000, [(5, 5), (20, 6)]))
    p += f_bytes(4, location(60, 2, 0x4000, [(7, 8)]))
    p += f_bytes(4, location(90, 2, 0xBEEF, []))
    label = f_bytes(3, f_varint(1, S["thread"]) + f_varint(2, S["t1"]))
    # Samples: location ids leaf first; values [samples, cpu].
    p += f_bytes(2, packed(1, [50, 100]) + packed(2, [3, 30]))                      # main f
    p += f_bytes(2, unpacked(1, [70, 50, 50, 100]) + packed(2, [2, 20]) + label)  # main f f g h
    p += f_bytes(2, unpacked(2, [5]) + packed(1, [50, 70]) + unpacked(1, [50, 100]) + unpacked(2, [50]))  # main f g h f
    p += f_bytes(2, packed(1, [60, 50, 100]) + unpacked(2, [1, 10]) + f_varint(7, 3))  # main f f(b.c)
    p += f_bytes(2, packed(1, [90, 60, 100]) + packed(2, [4, 40]))                 # main f(b.c) 0xbeef
    p += f_bytes(2, packed(2, [7, 70]))                                            # no stack
    p += f_bytes(2, packed(1, [100]) + packed(2, [0, 0]))                          # main, zero
    p += f_varint(9, 1700000000000000000) + f_varint(12, 10000000)
    p += f_bytes(11, value_type("cpu", "nanoseconds"))
    # The string table last: a reader must not need it before the samples.
    for s in STRINGS:
        p += f_bytes(6, s.encode())
    with open(os.path.join(out, "small.pb"), "wb") as f:
        f.write(p)
    with open(os.path.join(out, "small.pb.gz"), "wb") as f:
        f.write(gzip.compress(p, mtime=0))


if __name__ == "__main__":
    main()
