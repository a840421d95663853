"""Experimental calls of cgprop (cgprop_experimental.h).

Not covered by the stability promise: the library may change or remove
these in any release without a SONAME change, and this module follows it.
Today: a recorder's raw figures with their event counts, overhead
calibration, and the clamp and floor counts of recorders and graphs.
"""

from __future__ import annotations

import ctypes
import dataclasses
import enum
from ctypes import byref, c_double
from typing import Callable, List, Optional, Sequence, Tuple, Union

from . import _ffi
from ._core import _DC, FunctionRef, Graph, Metric
from ._enums import enum_arg
from ._errors import error_for, strerror
from ._io import Recorder

__all__ = ["FigureKind", "Figure", "figure", "calibrate", "clamp_count", "floor_count"]


class FigureKind(enum.IntEnum):
    """Figures a recorder keeps (enum cgprop_recorder_figure_kind)."""
    S_N = _ffi.CGPROP_RF_S_N
    S_R = _ffi.CGPROP_RF_S_R
    C_N = _ffi.CGPROP_RF_C_N
    C_R = _ffi.CGPROP_RF_C_R
    SPONT = _ffi.CGPROP_RF_SPONT
    C_NN = _ffi.CGPROP_RF_C_NN
    C_NR = _ffi.CGPROP_RF_C_NR
    C_ND = _ffi.CGPROP_RF_C_ND
    C_RN = _ffi.CGPROP_RF_C_RN
    C_RR = _ffi.CGPROP_RF_C_RR
    C_RD = _ffi.CGPROP_RF_C_RD


@dataclasses.dataclass(**_DC)
class Figure:
    """One recorder figure for one metric (cgprop_recorder_figure): N, M, L,
    the raw sum and the compensated one (may be negative)."""
    count: int
    nested: int
    children: int
    raw: int
    comp: int


def figure(recorder: Recorder, which: Union[FigureKind, str], node: FunctionRef,
           callee: Optional[FunctionRef] = None, metric: Metric = 0) -> Figure:
    """One figure the recorder holds since creation or the last flush
    (cgprop_recorder_get): `which` is a FigureKind or its name ("C_n",
    "c_nr", ...); `callee` is for the call figures."""
    w = enum_arg(FigureKind, which, "which")
    g: Graph = recorder._graph
    fig = _ffi.cgprop_recorder_figure()
    g._check(_ffi.lib().cgprop_recorder_get(recorder._h(), w, g._node(node),
                                            g._node(callee) if callee is not None else 0,
                                            g.metric(metric), byref(fig), ctypes.sizeof(fig)))
    return Figure(fig.count, fig.nested, fig.children, fig.raw, fig.comp)


def clamp_count(obj: Union[Graph, Recorder]) -> int:
    """On-the-fly clamps: of a Recorder since its creation, or in the
    figures a Graph holds (each flush adds its recorder's, merge the source's)."""
    if isinstance(obj, Recorder):
        return _ffi.lib().cgprop_recorder_clamp_count(obj._h())
    return _ffi.lib().cgprop_graph_clamp_count(obj._handle())


def floor_count(obj: Union[Graph, Recorder]) -> int:
    """Negative compensated figures written as 0: by a Recorder's flushes, or
    in the figures a Graph holds (each flush adds its recorder's, merge the source's)."""
    if isinstance(obj, Recorder):
        return _ffi.lib().cgprop_recorder_floor_count(obj._h())
    return _ffi.lib().cgprop_graph_floor_count(obj._handle())


def calibrate(nmetrics: int, clock: Callable[[], Sequence[int]],
              iterations: int = 1000) -> Tuple[List[float], List[float]]:
    """Estimate (delta_i, delta_e) per metric by timing null activations;
    `clock()` returns K counter readings. An exception in `clock` stops the
    calibration and is raised as is."""
    failure: List[BaseException] = []

    def now(user: object, out: "ctypes._Pointer[ctypes.c_uint64]") -> int:
        try:
            vals = clock()
            for i in range(nmetrics):
                out[i] = vals[i]
            return 0
        except BaseException as e:
            failure.append(e)
            return 1

    cb = _ffi.cgprop_clock_fn(now)
    di = (c_double * max(nmetrics, 1))()
    de = (c_double * max(nmetrics, 1))()
    # The scratch graph and recorder use the C library's allocator (NULL).
    rc = _ffi.lib().cgprop_recorder_calibrate(nmetrics, cb, None, iterations, None, di, de)
    if failure:
        raise failure[0]
    if rc < 0:
        raise error_for(rc, "cgprop_recorder_calibrate: " + strerror(rc))
    return list(di[:nmetrics]), list(de[:nmetrics])
