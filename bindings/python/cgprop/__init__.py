"""Python binding of cgprop: correct inclusive costs of call graphs with recursion.

Standard library only (ctypes over libcgprop). The shared library is found
through the CGPROP_LIBRARY environment variable (a path), else
ctypes.util.find_library("cgprop"), else libcgprop.so.0.3 through the
system loader; see docs/PYTHON.md.

    import cgprop
    g = cgprop.Graph(metrics=["samples"])
    for stack in ("A", "A;C", "A;B", "A;B;A", "A;B;A;C"):
        g.add_stack(stack.split(";"), [10])
    g.analyze()
    for row in g.splits():
        print(g.key(row.id), row.C_n)

cgprop.experimental holds calls outside the stability promise.
"""

from . import _ffi
from ._core import (CHUNK_ROWS, CallRow, CallSplitRow, CallTotalRow, CycleRow, FunctionRef, Graph, Key, MemberRow,
                    NodeRow, Row, Rows, SplitRow, TotalRow, version)
from ._enums import (Colormap, Compensation, DotCycles, Estimate, Flag, Inexact, InputFormat, IterKind, KeyMode, Label,
                     Level, OutputFormat, ReadFlag, RecorderFlag, Reason, Recursion, Share, Status, WriteFlag)
from ._errors import (AmbiguousNameError, CgpropError, CostOverflowError, FormatError, FunctionNotFoundError,
                      InvalidArgumentError, NotFoundError, OpenError, OutOfMemoryError, ProfileIsADirectoryError,
                      ProfileNotFoundError, ProfilePermissionError, StateError, WriteError, strerror)
from ._ffi import LibraryNotFound, MissingFunction
from ._io import (EventsInfo, Profile, ReadInfo, Recorder, detect, from_pstats, load, load_events, merge, write)
from ._io import write_compare
from . import experimental  # noqa: E402  (after _io, which it uses)

__version__ = "%d.%d.%d" % (_ffi.CGPROP_VERSION_MAJOR, _ffi.CGPROP_VERSION_MINOR, _ffi.CGPROP_VERSION_PATCH)

__all__ = [
    "Graph", "Profile", "Recorder", "Rows", "Row", "Key", "FunctionRef",
    "NodeRow", "CallRow", "CycleRow", "MemberRow", "TotalRow", "CallTotalRow", "SplitRow", "CallSplitRow",
    "ReadInfo", "EventsInfo",
    "Status", "Flag", "Reason", "Inexact", "Estimate", "IterKind", "Level", "Share", "InputFormat", "KeyMode",
    "Recursion", "ReadFlag", "OutputFormat", "WriteFlag", "DotCycles", "Label", "Colormap", "Compensation", "RecorderFlag",
    "CgpropError", "OutOfMemoryError", "InvalidArgumentError", "NotFoundError", "StateError", "CostOverflowError",
    "FormatError", "WriteError", "FunctionNotFoundError", "AmbiguousNameError", "OpenError",
    "ProfileNotFoundError", "ProfilePermissionError", "ProfileIsADirectoryError", "LibraryNotFound",
    "MissingFunction",
    "load", "load_events", "from_pstats", "write", "detect", "merge", "strerror", "version", "experimental",
    "write_compare",
    "CHUNK_ROWS",
]
