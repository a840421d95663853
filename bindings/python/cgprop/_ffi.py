"""Raw ctypes layer: constants, row structs and the function table.

Everything here mirrors include/cgprop.h, include/cgprop_io.h and
include/cgprop_experimental.h by hand.
tests/bindings/check_agreement.py compares this module with the headers
(every exported function, its argument and return types, every constant,
every struct's fields) so the two cannot drift apart silently.

The shared library is loaded on first use, not at import, so the table can
be inspected (by the agreement check, by documentation tools) on a machine
without libcgprop.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import struct as _struct
import threading
from typing import Any, Optional, Tuple, Type
from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_int32, c_int64, c_size_t, c_uint32, c_uint64, c_void_p)

# ---- constants (cgprop.h) ---------------------------------------------------

CGPROP_VERSION_MAJOR = 0
CGPROP_VERSION_MINOR = 3
CGPROP_VERSION_PATCH = 0
CGPROP_VERSION_NUMBER = 300

CGPROP_OK = 0
CGPROP_DONE = 1
CGPROP_ENOMEM = -1
CGPROP_EINVAL = -2
CGPROP_ENOTFOUND = -3
CGPROP_ESTATE = -4
CGPROP_EOVERFLOW = -5
CGPROP_EFORMAT = -6
CGPROP_EWRITE = -7

CGPROP_MAX_METRICS = 64

CGPROP_LEVEL_0 = 0
CGPROP_LEVEL_1 = 1
CGPROP_LEVEL_DEEP = 2
CGPROP_LEVEL_REC = 3

CGPROP_SHARE_AUTO = 0
CGPROP_SHARE_COUNT = 1
CGPROP_SHARE_COST = 2

CGPROP_F_IN_CYCLE = 1 << 0
CGPROP_F_SELF_RECURSIVE = 1 << 1
CGPROP_F_SPONTANEOUS = 1 << 2
CGPROP_F_NO_CALLERS = 1 << 3
CGPROP_F_HAS_COST = 1 << 4
CGPROP_F_SELF_CALL = 1 << 5
CGPROP_F_INTRA_CYCLE = 1 << 6
CGPROP_F_ENTRY_ASSUMED = 1 << 7
CGPROP_F_NOT_INCLUSIVE = 1 << 8
CGPROP_F_NO_TOTAL = 1 << 9
CGPROP_F_ROOT = 1 << 10
CGPROP_F_ESTIMATE = 1 << 11
CGPROP_F_NO_BOUNDS = 1 << 12
CGPROP_F_CLAMPED = 1 << 13
CGPROP_F_NO_WALK = 1 << 14

CGPROP_EST_EXACT = 0
CGPROP_EST_HEURISTIC = 1
CGPROP_EST_SHARES = 2
CGPROP_EST_WALK = 3
CGPROP_EST_MIDPOINT = 4
CGPROP_EST_BUDGET = 5
CGPROP_EST_MEASURED = 6
CGPROP_WALK_BUDGET_DEFAULT = 20

CGPROP_R_SIDES_DISAGREE = 1 << 0
CGPROP_R_BELOW_SELF = 1 << 1
CGPROP_R_RECURSION = 1 << 2
CGPROP_R_ENTRY_UNKNOWN = 1 << 3
CGPROP_R_UNMEASURED = 1 << 4
CGPROP_R_OVERFLOW = 1 << 5
CGPROP_R_UNROOTED = 1 << 6

CGPROP_X_S_N = 1 << 0
CGPROP_X_S_R = 1 << 1
CGPROP_X_C_N = 1 << 2
CGPROP_X_C_R = 1 << 3
CGPROP_X_D = 1 << 4
CGPROP_X_C_NN = 1 << 5
CGPROP_X_C_NR = 1 << 6
CGPROP_X_C_ND = 1 << 7
CGPROP_X_C_RN = 1 << 8
CGPROP_X_C_RR = 1 << 9
CGPROP_X_C_RD = 1 << 10

CGPROP_NONE = 0xFFFFFFFF

CGPROP_ITER_NODES = 1
CGPROP_ITER_EDGES = 2
CGPROP_ITER_CALLERS = 3
CGPROP_ITER_CALLEES = 4
CGPROP_ITER_CYCLES = 5
CGPROP_ITER_MEMBERS = 6
CGPROP_ITER_TOTALS = 7
CGPROP_ITER_EDGE_TOTALS = 8
CGPROP_ITER_SPLIT = 9
CGPROP_ITER_EDGE_SPLIT = 10

# ---- constants (cgprop.h: recorder) -----------------------------------------

CGPROP_COMP_OFF = 0
CGPROP_COMP_ONLINE = 1
CGPROP_COMP_POSTMORTEM = 2

CGPROP_REC_CLAMP = 1 << 0
CGPROP_REC_CONTEXTS = 1 << 1

# ---- constants (cgprop_experimental.h) --------------------------------------

CGPROP_RF_S_N = 0
CGPROP_RF_S_R = 1
CGPROP_RF_C_N = 2
CGPROP_RF_C_R = 3
CGPROP_RF_SPONT = 4
CGPROP_RF_C_NN = 5
CGPROP_RF_C_NR = 6
CGPROP_RF_C_ND = 7
CGPROP_RF_C_RN = 8
CGPROP_RF_C_RR = 9
CGPROP_RF_C_RD = 10

# ---- constants (cgprop_io.h: readers) ---------------------------------------

CGPROP_INPUT_AUTO = 0
CGPROP_INPUT_CALLGRIND = 1
CGPROP_INPUT_FOLDED = 2
CGPROP_INPUT_EVENTS = 3
CGPROP_INPUT_PERF = 4
CGPROP_INPUT_V8 = 6
CGPROP_INPUT_PPROF = 5
CGPROP_INPUT_PSTATS = 7
CGPROP_INPUT_GPROF = 8

CGPROP_KEY_FULL = 0
CGPROP_KEY_NAME = 1

CGPROP_RECS_NONE = 0
CGPROP_RECS_NAMES = 1
CGPROP_RECS_WITHHELD = 2
CGPROP_RECS_STACKS = 3
CGPROP_RECS_UNFOLDED = 4
CGPROP_RECS_STATED = 5
CGPROP_RECS_COUNTS = 6

CGPROP_RI_TOTALS = 1 << 0
CGPROP_RI_CALLER_CONTEXTS = 1 << 1
CGPROP_RI_PLAIN_SELF_CALLS = 1 << 2
CGPROP_RI_PLAIN_CYCLES = 1 << 3
CGPROP_RI_DEFAULT_NAMED = 1 << 4

# ---- constants (cgprop_io.h: writers) ---------------------------------------

CGPROP_FORMAT_TEXT = 1
CGPROP_FORMAT_JSON = 2
CGPROP_FORMAT_DOT = 3
CGPROP_FORMAT_CALLGRIND = 4
CGPROP_FORMAT_FLAMEGRAPH = 5

CGPROP_W_HEURISTIC_ONLY = 1 << 0
CGPROP_W_NO_CLASSES = 1 << 1
CGPROP_W_NO_COMPRESSION = 1 << 2
CGPROP_W_NO_PRUNE = 1 << 3
CGPROP_W_BOUNDS = 1 << 4
CGPROP_W_STRIP = 1 << 5
CGPROP_W_WRAP = 1 << 6
CGPROP_W_PRUNE_TEXT = 1 << 7
CGPROP_W_ICICLE = 1 << 8

CGPROP_LABEL_TOTAL_PCT = 1 << 0
CGPROP_LABEL_SELF_PCT = 1 << 1
CGPROP_LABEL_CALLS = 1 << 2
CGPROP_LABEL_TOTAL = 1 << 3
CGPROP_LABEL_SELF = 1 << 4
CGPROP_LABEL_DEFAULT = CGPROP_LABEL_TOTAL_PCT | CGPROP_LABEL_SELF_PCT | CGPROP_LABEL_CALLS

CGPROP_COLORMAP_COLOR = 0
CGPROP_COLORMAP_PINK = 1
CGPROP_COLORMAP_GRAY = 2
CGPROP_COLORMAP_BW = 3
CGPROP_COLORMAP_PRINT = 4

CGPROP_DEPTH_ALL = 0xFFFFFFFF

CGPROP_DOT_CYCLES_AUTO = 0
CGPROP_DOT_CYCLES_CLUSTER = 1
CGPROP_DOT_CYCLES_LABEL = 2
CGPROP_DOT_CYCLES_NONE = 3

# ---- structs ----------------------------------------------------------------


class cgprop_allocator(Structure):
    _fields_ = [
        ("malloc_fn", CFUNCTYPE(c_void_p, c_void_p, c_size_t)),
        ("realloc_fn", CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_size_t)),
        ("free_fn", CFUNCTYPE(None, c_void_p, c_void_p)),
        ("user", c_void_p),
    ]


class cgprop_node_row(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("flags", c_uint32),
        ("self", c_uint64),
        ("spont_count", c_uint64),
        ("spont_cost", c_uint64),
        ("calls_in", c_uint64),
    ]


class cgprop_edge_row(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("caller", c_uint32),
        ("callee", c_uint32),
        ("flags", c_uint32),
        ("count", c_uint64),
        ("cost", c_uint64),
    ]


class cgprop_cycle_row(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("nmembers", c_uint32),
        ("flags", c_uint32),
        ("first", c_uint32),
        ("self", c_uint64),
        ("total", c_double),
    ]


class cgprop_member_row(Structure):
    _fields_ = [
        ("cycle", c_uint32),
        ("node", c_uint32),
    ]


class cgprop_total_row(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("flags", c_uint32),
        ("cycle", c_uint32),
        ("reason", c_uint32),
        ("total", c_double),
        ("heuristic", c_double),
        ("lo", c_double),
        ("hi", c_double),
        ("walk", c_double),
        ("vertex_total", c_double),
        ("gprof_self", c_double),
        ("gprof_child", c_double),
        ("spont_share", c_double),
        ("estimate", c_uint32),
        ("reserved", c_uint32),
    ]


class cgprop_edge_total_row(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("caller", c_uint32),
        ("callee", c_uint32),
        ("flags", c_uint32),
        ("total", c_double),
        ("heuristic", c_double),
        ("gprof_self", c_double),
        ("gprof_child", c_double),
        ("share", c_double),
    ]


class cgprop_split_row(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("inexact", c_uint32),
        ("S_n", c_uint64),
        ("S_r", c_uint64),
        ("C_n", c_uint64),
        ("C_r", c_uint64),
        ("D", c_double),
        ("heuristic", c_double),
    ]


class cgprop_edge_split_row(Structure):
    _fields_ = [
        ("id", c_uint32),
        ("caller", c_uint32),
        ("callee", c_uint32),
        ("inexact", c_uint32),
        ("C_nn", c_uint64),
        ("C_nr", c_uint64),
        ("C_nd", c_uint64),
        ("C_rn", c_uint64),
        ("C_rr", c_uint64),
        ("C_rd", c_uint64),
    ]


class cgprop_recorder_options(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("mode", c_uint32),
        ("flags", c_uint32),
        ("reserved", c_uint32),
        ("delta_i", POINTER(c_uint64)),
        ("delta_e", POINTER(c_uint64)),
    ]


class cgprop_recorder_figure(Structure):
    _fields_ = [
        ("count", c_uint64),
        ("nested", c_uint64),
        ("children", c_uint64),
        ("raw", c_uint64),
        ("comp", c_int64),
    ]


class cgprop_read_options(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("format", c_uint32),
        ("key_mode", c_uint32),
        ("no_fold_recursion", c_uint32),
        ("separate_recs", c_uint32),
        ("contexts", c_uint32),
    ]


class cgprop_read_info(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("format", c_uint32),
        ("recursion", c_uint32),
        ("separate_recs", c_uint32),
        ("flags", c_uint32),
        ("nmetrics", c_uint32),
        ("parts", c_uint64),
        ("lines", c_uint64),
        ("totals", POINTER(c_uint64)),
        ("totals_len", c_uint32),
        ("reserved", c_uint32),
        ("default_metric", c_uint32),
        ("reserved2", c_uint32),
    ]


class cgprop_read_error(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("code", c_int32),
        ("line", c_uint64),
        ("file", c_char * 256),
        ("reason", c_char * 256),
    ]


class cgprop_events_info(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("reserved", c_uint32),
        ("lines", c_uint64),
        ("events", c_uint64),
        ("unclosed", c_uint64),
        ("clamps", c_uint64),
        ("floors", c_uint64),
    ]


class cgprop_write_options(Structure):
    _fields_ = [
        ("size", c_uint32),
        ("metric", c_uint32),
        ("flags", c_uint32),
        ("node_thres", c_double),
        ("edge_thres", c_double),
        ("cycles", c_uint32),
        ("roots", POINTER(c_uint32)),
        ("nroots", c_size_t),
        ("leaves", POINTER(c_uint32)),
        ("nleaves", c_size_t),
        ("focus", POINTER(c_uint32)),
        ("nfocus", c_size_t),
        ("hide", POINTER(c_uint32)),
        ("nhide", c_size_t),
        ("depth", c_uint32),
        ("top", c_uint32),
        ("label", c_uint32),
        ("colormap", c_uint32),
        ("skew", c_double),
    ]


# Every struct of the headers, by C name (the agreement check walks this).
STRUCTS = {cls.__name__: cls for cls in (
    cgprop_allocator, cgprop_node_row, cgprop_edge_row, cgprop_cycle_row,
    cgprop_member_row, cgprop_total_row, cgprop_edge_total_row,
    cgprop_split_row, cgprop_edge_split_row, cgprop_recorder_options, cgprop_recorder_figure,
    cgprop_read_options, cgprop_read_info, cgprop_read_error, cgprop_events_info, cgprop_write_options)}

# Row type of each iterator kind.
ROW_OF_KIND = {
    CGPROP_ITER_NODES: cgprop_node_row,
    CGPROP_ITER_EDGES: cgprop_edge_row,
    CGPROP_ITER_CALLERS: cgprop_edge_row,
    CGPROP_ITER_CALLEES: cgprop_edge_row,
    CGPROP_ITER_CYCLES: cgprop_cycle_row,
    CGPROP_ITER_MEMBERS: cgprop_member_row,
    CGPROP_ITER_TOTALS: cgprop_total_row,
    CGPROP_ITER_EDGE_TOTALS: cgprop_edge_total_row,
    CGPROP_ITER_SPLIT: cgprop_split_row,
    CGPROP_ITER_EDGE_SPLIT: cgprop_edge_split_row,
}

_STRUCT_CODES = {c_uint32: "I", c_uint64: "Q", c_double: "d", c_int32: "i", c_int64: "q"}


def unpack_format(cls: Type[Structure]) -> str:
    """A struct-module format reading one `cls` from raw bytes.

    Built from the ctypes field offsets, so padding comes out exactly as the
    compiler lays the C struct out; struct.iter_unpack over a buffer of rows
    is the fast path of the bulk copy (no per-field getattr).
    """
    parts = ["="]
    pos = 0
    for field in cls._fields_:
        name, ctype = field[0], field[1]
        off = getattr(cls, name).offset
        if off > pos:
            parts.append("%dx" % (off - pos))
        parts.append(_STRUCT_CODES[ctype])
        pos = off + ctypes.sizeof(ctype)
    if ctypes.sizeof(cls) > pos:
        parts.append("%dx" % (ctypes.sizeof(cls) - pos))
    fmt = "".join(parts)
    if _struct.calcsize(fmt) != ctypes.sizeof(cls):
        raise AssertionError("unpack format of %s is %d bytes, struct is %d"
                             % (cls.__name__, _struct.calcsize(fmt), ctypes.sizeof(cls)))
    return fmt


# ---- function table ---------------------------------------------------------

p_graph = c_void_p  # cgprop_graph *, opaque
p_iter = c_void_p  # cgprop_iter *, opaque
p_u32 = POINTER(c_uint32)
p_u64 = POINTER(c_uint64)
p_size = POINTER(c_size_t)

# int (*cgprop_write_fn)(void *user, const char *data, size_t len): data is
# taken as void * because it is not NUL-terminated.
cgprop_write_fn = CFUNCTYPE(c_int, c_void_p, c_void_p, c_size_t)

# int (*now)(void *user, uint64_t *out_counters), cgprop_recorder_calibrate's
# clock (cgprop_experimental.h): 0 on success, non-zero aborts.
cgprop_clock_fn = CFUNCTYPE(c_int, c_void_p, POINTER(c_uint64))

p_rec = c_void_p  # cgprop_recorder *, opaque

# name: (restype, argtypes). Opaque handles, row buffers and borrowed
# strings that may hold NUL bytes travel as c_void_p.
FUNCTIONS = {
    # version
    "cgprop_version": (c_uint32, ()),
    "cgprop_version_string": (c_char_p, ()),
    # errors
    "cgprop_strerror": (c_char_p, (c_int,)),
    # graph
    "cgprop_graph_new": (c_int, (POINTER(cgprop_allocator), POINTER(c_char_p), p_size, c_size_t,
                                 POINTER(p_graph))),
    "cgprop_graph_free": (None, (p_graph,)),
    "cgprop_graph_errmsg": (c_char_p, (p_graph,)),
    "cgprop_graph_metric_count": (c_size_t, (p_graph,)),
    "cgprop_graph_metric_name": (c_void_p, (p_graph, c_uint32, p_size)),
    "cgprop_graph_find_metric": (c_int, (p_graph, c_char_p, c_size_t, p_u32)),
    "cgprop_graph_add_node": (c_int, (p_graph, c_char_p, c_size_t, p_u32)),
    "cgprop_graph_find_node": (c_int, (p_graph, c_char_p, c_size_t, p_u32)),
    "cgprop_graph_node_key": (c_void_p, (p_graph, c_uint32, p_size)),
    "cgprop_graph_node_count": (c_size_t, (p_graph,)),
    "cgprop_graph_edge_count": (c_size_t, (p_graph,)),
    "cgprop_graph_add_self": (c_int, (p_graph, c_uint32, p_u64)),
    "cgprop_graph_add_self_class": (c_int, (p_graph, c_uint32, c_uint32, p_u64)),
    "cgprop_graph_add_edge": (c_int, (p_graph, c_uint32, c_uint32, c_uint64, p_u64, p_u32)),
    "cgprop_graph_add_edge_class": (c_int, (p_graph, c_uint32, c_uint32, c_uint32, c_uint32, c_uint64,
                                            p_u64, p_u32)),
    "cgprop_graph_add_spontaneous": (c_int, (p_graph, c_uint32, c_uint64, p_u64)),
    "cgprop_graph_add_nodes": (c_int, (p_graph, c_size_t, POINTER(c_char_p), POINTER(c_size_t), p_u32)),
    "cgprop_graph_add_calls": (c_int, (p_graph, c_size_t, p_u32, p_u32, p_u64, p_u64, p_u32)),
    "cgprop_graph_add_stack": (c_int, (p_graph, p_u32, c_size_t, p_u64)),
    "cgprop_graph_find_edge": (c_int, (p_graph, c_uint32, c_uint32, p_u32)),
    "cgprop_graph_generation": (c_uint64, (p_graph,)),
    # analyses
    "cgprop_graph_find_cycles": (c_int, (p_graph, p_size)),
    "cgprop_graph_collapse": (c_int, (p_graph, c_uint32)),
    "cgprop_graph_propagate": (c_int, (p_graph,)),
    "cgprop_graph_split": (c_int, (p_graph,)),
    "cgprop_graph_unrooted": (c_int, (p_graph, c_uint32, p_u64)),
    "cgprop_graph_set_estimate": (c_int, (p_graph, c_uint32, c_double)),
    "cgprop_graph_analyze": (c_int, (p_graph,)),
    # reading results
    "cgprop_iter_new": (c_int, (p_graph, c_uint32, c_uint32, c_uint32, POINTER(p_iter))),
    "cgprop_iter_next": (c_int, (p_iter, c_void_p, c_size_t)),
    "cgprop_iter_copy_rows": (c_int, (p_iter, c_void_p, c_size_t, c_size_t, p_size)),
    "cgprop_iter_count": (c_size_t, (p_iter,)),
    "cgprop_iter_free": (None, (p_iter,)),
    "cgprop_graph_get_row": (c_int, (p_graph, c_uint32, c_uint32, c_uint32, c_void_p, c_size_t)),
    "cgprop_graph_node_cycle": (c_int, (p_graph, c_uint32, p_u32)),
    # recorder
    "cgprop_recorder_options_init": (None, (POINTER(cgprop_recorder_options),)),
    "cgprop_recorder_new": (c_int, (p_graph, POINTER(cgprop_recorder_options), POINTER(p_rec))),
    "cgprop_recorder_free": (None, (p_rec,)),
    "cgprop_recorder_enter": (c_int, (p_rec, c_uint32, p_u64)),
    "cgprop_recorder_exit": (c_int, (p_rec, c_uint32, p_u64)),
    "cgprop_recorder_depth": (c_size_t, (p_rec,)),
    "cgprop_recorder_unwind": (c_int, (p_rec, p_u64)),
    "cgprop_recorder_flush": (c_int, (p_rec, p_u64)),
    "cgprop_graph_merge": (c_int, (p_graph, p_graph)),
    "cgprop_graph_keep_contexts": (c_int, (p_graph, c_int)),
    "cgprop_graph_context_count": (c_size_t, (p_graph,)),
    # experimental (cgprop_experimental.h): outside the stability promise
    "cgprop_recorder_get": (c_int, (p_rec, c_uint32, c_uint32, c_uint32, c_uint32,
                                    POINTER(cgprop_recorder_figure), c_size_t)),
    "cgprop_recorder_clamp_count": (c_uint64, (p_rec,)),
    "cgprop_recorder_floor_count": (c_uint64, (p_rec,)),
    "cgprop_recorder_calibrate": (c_int, (c_size_t, cgprop_clock_fn, c_void_p, c_uint32,
                                          POINTER(cgprop_allocator), POINTER(c_double), POINTER(c_double))),
    "cgprop_graph_clamp_count": (c_uint64, (p_graph,)),
    "cgprop_graph_floor_count": (c_uint64, (p_graph,)),
    # readers (cgprop_io.h)
    "cgprop_read_options_init": (None, (POINTER(cgprop_read_options),)),
    "cgprop_read_info_init": (None, (POINTER(cgprop_read_info),)),
    "cgprop_read_error_init": (None, (POINTER(cgprop_read_error),)),
    "cgprop_read_detect": (c_uint32, (c_char_p, c_size_t)),
    "cgprop_read_buffer": (c_int, (c_char_p, c_size_t, c_char_p, c_size_t, POINTER(cgprop_read_options),
                                   POINTER(cgprop_allocator), POINTER(p_graph), POINTER(cgprop_read_info),
                                   POINTER(cgprop_read_error))),
    "cgprop_read_file": (c_int, (c_char_p, c_size_t, POINTER(cgprop_read_options), POINTER(cgprop_allocator),
                                 POINTER(p_graph), POINTER(cgprop_read_info), POINTER(cgprop_read_error))),
    "cgprop_node_display_name": (c_void_p, (p_graph, c_uint32, p_size)),
    # event traces (cgprop_io.h)
    "cgprop_events_read_buffer": (c_int, (c_char_p, c_size_t, c_char_p, c_size_t, POINTER(cgprop_recorder_options),
                                          POINTER(cgprop_allocator), POINTER(p_graph), POINTER(cgprop_events_info),
                                          POINTER(cgprop_read_error))),
    "cgprop_events_read_file": (c_int, (c_char_p, c_size_t, POINTER(cgprop_recorder_options),
                                        POINTER(cgprop_allocator), POINTER(p_graph), POINTER(cgprop_events_info),
                                        POINTER(cgprop_read_error))),
    "cgprop_events_info_init": (None, (POINTER(cgprop_events_info),)),
    # writers (cgprop_io.h)
    "cgprop_write_options_init": (None, (POINTER(cgprop_write_options),)),
    "cgprop_write": (c_int, (p_graph, c_uint32, POINTER(cgprop_write_options), cgprop_write_fn, c_void_p)),
    "cgprop_write_path": (c_int, (p_graph, c_uint32, POINTER(cgprop_write_options), c_char_p, c_size_t)),
    "cgprop_write_compare": (c_int, (p_graph, p_graph, c_uint32, POINTER(cgprop_write_options), cgprop_write_fn,
                                     c_void_p)),
}

# ---- loading ----------------------------------------------------------------

# The name the system loader knows this ABI by (the SONAME). An unversioned
# libcgprop.so may be another ABI, so it is only used when
# ctypes.util.find_library names it, and the version is checked on load.
SONAME = "libcgprop.so.0.3"


class LibraryNotFound(OSError):
    """libcgprop could not be loaded."""


class MissingFunction(AttributeError):
    """The loaded libcgprop does not export a function the binding knows."""


class _Lib(object):
    """The loaded CDLL with argument/return types set, one function at a time.

    A function is bound when first used, so a library older than this
    binding still serves every call it has; calling one it lacks raises
    MissingFunction naming it.
    """

    def __init__(self, cdll: ctypes.CDLL, path: str) -> None:
        self._cdll = cdll
        self.path = path

    def __getattr__(self, name: str) -> Any:
        try:
            restype, argtypes = FUNCTIONS[name]
        except KeyError:
            raise AttributeError(name)
        try:
            fn = getattr(self._cdll, name)
        except AttributeError:
            raise MissingFunction("%s is not exported by %s (a library older than the binding?)"
                                  % (name, self.path))
        fn.restype = restype
        fn.argtypes = list(argtypes)
        setattr(self, name, fn)
        return fn

    def has(self, name: str) -> bool:
        """True if the loaded library exports `name`."""
        return hasattr(self._cdll, name)


_lib: Optional[_Lib] = None
_lock = threading.Lock()


def _abi_error(cdll: ctypes.CDLL, name: str) -> Optional[str]:
    """Why `cdll` cannot serve this binding, or None: the structs above are
    laid out for one MAJOR.MINOR (before 1.0 every minor may change the ABI)."""
    try:
        fn = cdll.cgprop_version
    except AttributeError:
        return "%s exports no cgprop_version (not libcgprop?)" % name
    fn.restype = c_uint32
    fn.argtypes = []
    v = fn()
    if v // 100 != CGPROP_VERSION_NUMBER // 100:
        return "%s is libcgprop %d.%d.%d; this binding needs %d.%d.x" % (
            name, v // 10000, v // 100 % 100, v % 100, CGPROP_VERSION_MAJOR, CGPROP_VERSION_MINOR)
    return None


def _open() -> Tuple[ctypes.CDLL, str]:
    """Load the library: CGPROP_LIBRARY (a path), else whatever
    ctypes.util.find_library("cgprop") names, else SONAME through the system
    loader. A library of another ABI is refused (named explicitly) or skipped
    (found by search)."""
    path = os.environ.get("CGPROP_LIBRARY")
    if path:
        try:
            cdll = ctypes.CDLL(path)
        except OSError as e:
            raise LibraryNotFound("CGPROP_LIBRARY=%s cannot be loaded: %s" % (path, e))
        why = _abi_error(cdll, path)
        if why:
            raise LibraryNotFound("CGPROP_LIBRARY: " + why)
        return cdll, path
    errors = []
    found = ctypes.util.find_library("cgprop")
    for name in ((found,) if found and found != SONAME else ()) + (SONAME,):
        try:
            cdll = ctypes.CDLL(name)
        except OSError as e:
            errors.append(str(e))
            continue
        why = _abi_error(cdll, name)
        if why is None:
            return cdll, name
        errors.append(why)
    raise LibraryNotFound("libcgprop %d.%d not found: set CGPROP_LIBRARY to its path, or install it where "
                          "the system loader looks (tried: %s)"
                          % (CGPROP_VERSION_MAJOR, CGPROP_VERSION_MINOR, "; ".join(errors)))


def lib() -> _Lib:
    """The loaded library (loaded on first call)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                cdll, path = _open()
                _lib = _Lib(cdll, path)
    return _lib
