"""The ctypes structs must have the C layout exactly (size and every offset).

Two independent checks: sizes worked out by hand from the header (LP64:
uint32_t 4-aligned, uint64_t/double 8-aligned), and, when a C compiler is
at hand, a probe compiled against include/ printing sizeof/offsetof of
every field the binding names. The compiled probe needs no library.
"""

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from cgprop import _ffi  # noqa: E402

INCLUDE = os.environ.get("CGPROP_INCLUDE_DIR", os.path.join(HERE, "..", "..", "..", "include"))

# By hand from the header: fields in order, padding where an 8-byte field
# follows an odd number of 4-byte ones.
HAND_SIZES = {
    "cgprop_node_row": 4 + 4 + 8 * 4,            # 40
    "cgprop_edge_row": 4 * 4 + 8 + 8,            # 32
    "cgprop_cycle_row": 4 * 4 + 8 + 8,           # 32
    "cgprop_member_row": 4 + 4,                  # 8
    "cgprop_total_row": 4 * 4 + 8 * 9 + 4 * 2,   # 96
    "cgprop_edge_total_row": 4 * 4 + 8 * 5,      # 56
    "cgprop_split_row": 4 + 4 + 8 * 4 + 8 * 2,   # 56
    "cgprop_edge_split_row": 4 * 4 + 8 * 6,      # 64
    # size, metric, flags, 4 bytes of padding before the two doubles, cycles
    # and 4 bytes of padding to the doubles' alignment
    "cgprop_write_options": 4 * 3 + 4 + 8 + 8 + 4 + 4 + 4 * (8 + 8) + 4 * 4 + 8,  # 128
    "cgprop_read_options": 4 * 6,                # 24: size and five options
    # size .. nmetrics (six uint32_t), parts, lines, the totals pointer,
    # totals_len, reserved, default_metric and reserved2
    "cgprop_read_info": 4 * 6 + 8 + 8 + 8 + 4 + 4 + 4 + 4,  # 64
    "cgprop_read_error": 4 + 4 + 8 + 256 + 256,  # 528: size, code, line, file, reason
    "cgprop_recorder_options": 4 * 4 + 8 + 8,    # 32: size, mode, flags, reserved, two pointers
    "cgprop_recorder_figure": 8 * 5,             # 40
    "cgprop_events_info": 4 + 4 + 8 * 5,         # 48: size, reserved, five counts
    "cgprop_allocator": 8 * 4,                   # 32: three function pointers and a void *
}


class TestHandLayout(unittest.TestCase):
    @unittest.skipUnless(ctypes.sizeof(ctypes.c_void_p) == 8, "sizes worked out for LP64")
    def test_sizes(self):
        self.assertEqual(set(HAND_SIZES), set(_ffi.STRUCTS))
        for name, size in HAND_SIZES.items():
            self.assertEqual(ctypes.sizeof(_ffi.STRUCTS[name]), size, name)

    @unittest.skipUnless(ctypes.sizeof(ctypes.c_void_p) == 8, "sizes worked out for LP64")
    def test_init_sets_the_size(self):
        # Each _init() writes sizeof(struct) into `size`, the library's
        # check that the caller's struct is the layout it knows.
        lib = _ffi.lib()
        for name, init in (("cgprop_read_options", "cgprop_read_options_init"),
                           ("cgprop_read_info", "cgprop_read_info_init"),
                           ("cgprop_read_error", "cgprop_read_error_init"),
                           ("cgprop_write_options", "cgprop_write_options_init"),
                           ("cgprop_recorder_options", "cgprop_recorder_options_init"),
                           ("cgprop_events_info", "cgprop_events_info_init")):
            s = _ffi.STRUCTS[name]()
            getattr(lib, init)(ctypes.byref(s))
            self.assertEqual(s.size, HAND_SIZES[name], name)

    def test_unpack_formats_cover_the_rows(self):
        # the fast path's struct formats read exactly one row each
        import struct
        for kind, cls in _ffi.ROW_OF_KIND.items():
            self.assertEqual(struct.calcsize(_ffi.unpack_format(cls)), ctypes.sizeof(cls), cls.__name__)


def _compiler():
    cc = os.environ.get("CC")
    if cc and shutil.which(cc):
        return cc
    for c in ("cc", "gcc", "clang"):
        if shutil.which(c):
            return c
    return None


class TestCompiledLayout(unittest.TestCase):
    def test_offsets_match_the_compiler(self):
        cc = _compiler()
        if cc is None:
            self.skipTest("no C compiler to build the layout probe")
        lines = ["#include <stdio.h>", "#include <stddef.h>", '#include "cgprop.h"', '#include "cgprop_io.h"',
                 '#include "cgprop_experimental.h"',
                 "int main(void) {"]
        for name, cls in sorted(_ffi.STRUCTS.items()):
            lines.append('printf("%s sizeof %%zu\\n", sizeof(%s));' % (name, name))
            for field, _ in cls._fields_:
                lines.append('printf("%s %s %%zu\\n", offsetof(%s, %s));' % (name, field, name, field))
        lines += ["return 0;", "}"]
        tmp = tempfile.mkdtemp()
        try:
            src = os.path.join(tmp, "probe.c")
            exe = os.path.join(tmp, "probe")
            with open(src, "w") as f:
                f.write("\n".join(lines) + "\n")
            r = subprocess.run([cc, "-std=c99", "-I", INCLUDE, src, "-o", exe], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, "probe does not compile (a field the binding names is not "
                                              "in the header?):\n" + r.stderr)
            out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
        finally:
            shutil.rmtree(tmp)
        seen = 0
        for line in out.splitlines():
            name, field, value = line.split()
            cls = _ffi.STRUCTS[name]
            got = ctypes.sizeof(cls) if field == "sizeof" else getattr(cls, field).offset
            self.assertEqual(got, int(value), "%s.%s" % (name, field))
            seen += 1
        self.assertEqual(seen, sum(len(c._fields_) + 1 for c in _ffi.STRUCTS.values()))


if __name__ == "__main__":
    unittest.main()
