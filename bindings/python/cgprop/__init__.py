"""Python binding of cgprop (correct inclusive costs under recursion).

Standard library only (ctypes). The shared library is found through the
CGPROP_LIBRARY environment variable (a path), else the system loader
(ctypes.util.find_library("cgprop"), then "libcgprop.so.0.2", ...).

    import cgprop
    g = cgprop.Graph(metrics=["samples"])
    for stack in ("A", "A;C", "A;B", "A;B;A", "A;B;A;C"):
        g.add_stack(stack.split(";"), [10])
    g.analyze()
    for row in g.splits():
        print(g.key(row.id), row.C_n)

See docs/PYTHON.md.
"""

from . import _ffi
from ._core import (CHUNK_ROWS, CallRow, CallSplitRow, CallTotalRow, CycleRow, Graph, MemberRow, NodeRow,
                    Rows, SplitRow, TotalRow, version)
from ._errors import (CgpropError, CostOverflowError, FormatError, InvalidArgumentError, NotFoundError,
                      OutOfMemoryError, StateError, WriteError, strerror)
from ._ffi import LibraryNotFound, MissingFunction
from ._io import (FORMATS, EventsInfo, Figure, Profile, ReadInfo, Recorder, calibrate, detect, load, load_events,
                  merge, write)

# Flag bits of the rows' `flags` fields, inexact bits of split rows, estimate kinds and reason bits, under
# their C names without the CGPROP_ prefix (F_IN_CYCLE, X_C_N, ...).
for _name in dir(_ffi):
    if _name.startswith(("CGPROP_F_", "CGPROP_X_", "CGPROP_EST_", "CGPROP_R_", "CGPROP_ITER_", "CGPROP_LEVEL_", "CGPROP_SHARE_",
                         "CGPROP_FORMAT_", "CGPROP_W_", "CGPROP_RI_")) or _name in ("CGPROP_NONE", "CGPROP_MAX_METRICS"):
        globals()[_name[len("CGPROP_"):]] = getattr(_ffi, _name)
del _name

__version__ = "%d.%d.%d" % (_ffi.CGPROP_VERSION_MAJOR, _ffi.CGPROP_VERSION_MINOR, _ffi.CGPROP_VERSION_PATCH)


def flag_names(flags, prefix="F_"):
    """Names of the bits set in `flags` ("F_" for row flags, "X_" for inexact bits)."""
    out = []
    for name in sorted(n for n in globals() if n.startswith(prefix)):
        bit = globals()[name]
        if flags & bit:
            out.append(name[len(prefix):])
    return out
