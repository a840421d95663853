"""Readers and writers (cgprop_io.h), and the event recorder (cgprop.h)."""

import collections
import ctypes
import io
import json
import os
import weakref
from ctypes import byref, c_double, c_size_t, c_void_p

from . import _ffi
from ._core import Graph, _count, _decode
from ._errors import CgpropError, InvalidArgumentError, error_for, strerror

FORMATS = {"text": _ffi.CGPROP_FORMAT_TEXT, "json": _ffi.CGPROP_FORMAT_JSON,
           "dot": _ffi.CGPROP_FORMAT_DOT, "callgrind": _ffi.CGPROP_FORMAT_CALLGRIND}

_INPUTS = {None: _ffi.CGPROP_INPUT_AUTO, "auto": _ffi.CGPROP_INPUT_AUTO,
           "callgrind": _ffi.CGPROP_INPUT_CALLGRIND, "folded": _ffi.CGPROP_INPUT_FOLDED,
           "events": _ffi.CGPROP_INPUT_EVENTS}
_INPUT_NAMES = {v: k for k, v in _INPUTS.items() if k not in (None, "auto")}
_INPUT_NAMES[_ffi.CGPROP_INPUT_AUTO] = "auto"

_RECURSION = {_ffi.CGPROP_RECS_NONE: "none", _ffi.CGPROP_RECS_NAMES: "names",
              _ffi.CGPROP_RECS_WITHHELD: "withheld", _ffi.CGPROP_RECS_STACKS: "stacks",
              _ffi.CGPROP_RECS_UNFOLDED: "unfolded"}

ReadInfo = collections.namedtuple("ReadInfo", "format recursion separate_recs flags parts lines totals")


def _write_options(g, metric, flags, node_thres, edge_thres):
    opts = _ffi.cgprop_write_options()
    _ffi.lib().cgprop_write_options_init(byref(opts))
    if metric is not None:
        opts.metric = g.metric(metric)
    if flags is not None:
        opts.flags = flags
    if node_thres is not None:
        opts.node_thres = node_thres
    if edge_thres is not None:
        opts.edge_thres = edge_thres
    return opts


def write(graph, format="json", out=None, metric=None, flags=None, node_thres=None, edge_thres=None):
    """Write `graph` with the library's writer `format` ("text", "json", "dot",
    "callgrind"). Text, JSON and DOT need the analyses to have run
    (Graph.analyze()). `out` is None (return the output as str), a path
    (str or os.PathLike, written by the library), or a file object opened in
    binary or text mode (written chunk by chunk)."""
    try:
        fmt = FORMATS[format]
    except (KeyError, TypeError):
        raise InvalidArgumentError("format must be one of %s, not %r" % (sorted(FORMATS), format))
    lib = _ffi.lib()
    opts = _write_options(graph, metric, flags, node_thres, edge_thres)
    if isinstance(out, (str, bytes, os.PathLike)):
        path = os.fsencode(out)
        graph._check(lib.cgprop_write_path(graph._handle(), fmt, byref(opts), path, len(path)))
        return None
    chunks = []
    failure = []
    if isinstance(out, io.TextIOBase):
        text_mode = True
    elif out is None or isinstance(out, (io.BufferedIOBase, io.RawIOBase)):
        text_mode = False
    else:
        text_mode = "b" not in getattr(out, "mode", "b")

    def sink(user, data, length):
        try:
            chunk = ctypes.string_at(data, length)
            if out is None:
                chunks.append(chunk)
            else:
                out.write(chunk.decode("utf-8", "surrogateescape") if text_mode else chunk)
            return 0
        except BaseException as e:  # reported after the writer returns
            failure.append(e)
            return 1

    cb = _ffi.cgprop_write_fn(sink)
    rc = lib.cgprop_write(graph._handle(), fmt, byref(opts), cb, None)
    if failure:
        raise failure[0]
    graph._check(rc)
    if out is None:
        return b"".join(chunks).decode("utf-8", "surrogateescape")
    return None


class Profile(Graph):
    """A graph read from a file by the library's readers, with what the
    reader found (`info`) and the analyses already run."""

    info = None
    path = None

    def report(self):
        """The dict the library's JSON writer produces for this profile:
        exactly what `cgprop report --format json` prints for the same file."""
        return json.loads(write(self, "json"))

    def display_name(self, node):
        """The name to show for `node` (the part of its key after the last TAB)."""
        n = c_size_t()
        p = _ffi.lib().cgprop_node_display_name(self._handle(), self._node(node, False), byref(n))
        if not p:
            raise InvalidArgumentError("function id %r out of range" % (node,))
        return _decode(ctypes.string_at(p, n.value))


def _read_options(input, key_mode, fold_recursion, separate_recs):
    opts = _ffi.cgprop_read_options()
    _ffi.lib().cgprop_read_options_init(byref(opts))
    try:
        opts.format = _INPUTS[input]
    except (KeyError, TypeError):
        raise InvalidArgumentError("input must be one of %s or None, not %r"
                                   % (sorted(k for k in _INPUTS if k), input))
    if key_mode not in ("full", "name"):
        raise InvalidArgumentError("key_mode must be 'full' or 'name', not %r" % (key_mode,))
    opts.key_mode = _ffi.CGPROP_KEY_NAME if key_mode == "name" else _ffi.CGPROP_KEY_FULL
    opts.no_fold_recursion = 0 if fold_recursion else 1
    opts.separate_recs = _count(separate_recs or 0)
    return opts


def load(path, input=None, data=None, key_mode="full", fold_recursion=True, separate_recs=None,
         analyze=True, share="auto"):
    """Read a profile (callgrind, folded stacks, event trace; `input` None
    detects the format) and return a Profile. With `data` (bytes) the input
    is read from memory and `path` only names it in messages. Unless
    analyze=False, the analyses run (Graph.analyze(share)), as the
    command-line tool runs them."""
    lib = _ffi.lib()
    opts = _read_options(input, key_mode, fold_recursion, separate_recs)
    out = c_void_p()
    info = _ffi.cgprop_read_info()
    err = _ffi.cgprop_read_error()
    name = os.fsencode(path) if path is not None else b""
    if data is not None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        data = bytes(data)
        rc = lib.cgprop_read_buffer(data, len(data), name or None, len(name), byref(opts), None, byref(out),
                                    byref(info), byref(err))
    else:
        if path is None:
            raise InvalidArgumentError("load needs a path or data")
        rc = lib.cgprop_read_file(name, len(name), byref(opts), None, byref(out), byref(info), byref(err))
    if rc != _ffi.CGPROP_OK:
        raise _read_error(rc, err, name)
    prof = Profile._adopt(out)
    k = len(prof.metrics)
    prof.info = ReadInfo(_INPUT_NAMES.get(info.format, info.format), _RECURSION.get(info.recursion, info.recursion),
                         info.separate_recs, info.flags, info.parts, info.lines,
                         list(info.totals[:k]) if info.flags & _ffi.CGPROP_RI_TOTALS else None)
    prof.path = path
    if analyze:
        prof.analyze(share)
    return prof


EventsInfo = collections.namedtuple("EventsInfo", "lines events unclosed clamps floors")


def _recorder_options(compensation, delta_i, delta_e, clamp):
    opts = _ffi.cgprop_recorder_options()
    try:
        opts.mode = _COMP[compensation]
    except (KeyError, TypeError):
        raise InvalidArgumentError("compensation must be None, 'online' or 'postmortem', not %r" % (compensation,))
    opts.flags = _ffi.CGPROP_REC_CLAMP if clamp else 0
    for name, vals in (("delta_i", delta_i), ("delta_e", delta_e)):
        if vals is None:
            continue
        if isinstance(vals, int):
            vals = [vals]
        vals = list(vals)
        if len(vals) > _ffi.CGPROP_MAX_METRICS or not all(isinstance(v, int) and 0 <= v < 2 ** 64 for v in vals):
            raise InvalidArgumentError("%s: at most %d integers in [0, 2^64)" % (name, _ffi.CGPROP_MAX_METRICS))
        getattr(opts, name)[:len(vals)] = vals
    return opts


def load_events(path=None, data=None, compensation=None, delta_i=None, delta_e=None, clamp=False,
                analyze=True, share="auto"):
    """Replay an event trace (a file, or `data` bytes named `path`) through a
    recorder with TAU overhead compensation ("online" or "postmortem", with
    per-metric delta_i / delta_e); returns a Profile whose `info` is an
    EventsInfo. load() reads the same format without compensation."""
    lib = _ffi.lib()
    opts = _recorder_options(compensation, delta_i, delta_e, clamp)
    out = c_void_p()
    info = _ffi.cgprop_events_info()
    err = _ffi.cgprop_read_error()
    name = os.fsencode(path) if path is not None else b""
    if data is not None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        data = bytes(data)
        rc = lib.cgprop_events_read_buffer(data, len(data), name or None, len(name), byref(opts), None,
                                           byref(out), byref(info), byref(err))
    else:
        if path is None:
            raise InvalidArgumentError("load_events needs a path or data")
        rc = lib.cgprop_events_read_file(name, len(name), byref(opts), None, byref(out), byref(info), byref(err))
    if rc != _ffi.CGPROP_OK:
        raise _read_error(rc, err, name)
    prof = Profile._adopt(out)
    prof.info = EventsInfo(info.lines, info.events, info.unclosed, info.clamps, info.floors)
    prof.path = path
    if analyze:
        prof.analyze(share)
    return prof


def _read_error(rc, err, name):
    reason = err.reason.decode("utf-8", "replace") or strerror(rc)
    where = err.file.decode("utf-8", "replace") or os.fsdecode(name)
    msg = "%s:%d: %s" % (where, err.line, reason) if err.line else "%s: %s" % (where, reason)
    e = error_for(rc, msg)
    e.file, e.line, e.reason = where, err.line, reason
    return e


def detect(data):
    """The input format the readers recognise in `data` (bytes): "callgrind",
    "folded", "events", or None."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    f = _ffi.lib().cgprop_read_detect(data, len(data))
    return None if f == _ffi.CGPROP_INPUT_AUTO else _INPUT_NAMES.get(f, f)


# ---- recorder ---------------------------------------------------------------

Figure = collections.namedtuple("Figure", "count nested children raw comp")

_FIGURES = {"S_n": _ffi.CGPROP_RF_S_N, "S_r": _ffi.CGPROP_RF_S_R, "C_n": _ffi.CGPROP_RF_C_N,
            "C_r": _ffi.CGPROP_RF_C_R, "spont": _ffi.CGPROP_RF_SPONT, "C_nn": _ffi.CGPROP_RF_C_NN,
            "C_nr": _ffi.CGPROP_RF_C_NR, "C_nd": _ffi.CGPROP_RF_C_ND, "C_rn": _ffi.CGPROP_RF_C_RN,
            "C_rr": _ffi.CGPROP_RF_C_RR, "C_rd": _ffi.CGPROP_RF_C_RD}
_COMP = {None: _ffi.CGPROP_COMP_OFF, "off": _ffi.CGPROP_COMP_OFF, "online": _ffi.CGPROP_COMP_ONLINE,
         "postmortem": _ffi.CGPROP_COMP_POSTMORTEM}


class Recorder(object):
    """An event recorder bound to a Graph (enter/exit probes with K counter
    readings). Close it (or leave its `with` block) before the graph."""

    def __init__(self, graph, compensation=None, delta_i=None, delta_e=None, clamp=False):
        self._graph = graph
        self._r = None
        if delta_i is not None:
            graph._costs(delta_i, "delta_i")  # K values, as for counters
        if delta_e is not None:
            graph._costs(delta_e, "delta_e")
        opts = _recorder_options(compensation, delta_i, delta_e, clamp)
        out = c_void_p()
        graph._check(_ffi.lib().cgprop_recorder_new(graph._handle(), byref(opts), byref(out)))
        self._r = out
        # a recorder frees through its graph: Graph.close() closes it first
        if getattr(graph, "_recorders", None) is None:
            graph._recorders = weakref.WeakSet()
        graph._recorders.add(self)

    def _h(self):
        self._graph._handle()
        if self._r is None:
            raise CgpropError("the recorder is closed", _ffi.CGPROP_ESTATE)
        return self._r

    def enter(self, node, counters):
        self._graph._check(_ffi.lib().cgprop_recorder_enter(self._h(), self._graph._node(node, True),
                                                            self._graph._costs(counters, "counters")))

    def exit(self, node, counters):
        self._graph._check(_ffi.lib().cgprop_recorder_exit(self._h(), self._graph._node(node, False),
                                                           self._graph._costs(counters, "counters")))

    @property
    def depth(self):
        return _ffi.lib().cgprop_recorder_depth(self._h())

    def unwind(self, counters=None):
        c = None if counters is None else self._graph._costs(counters, "counters")
        self._graph._check(_ffi.lib().cgprop_recorder_unwind(self._h(), c))

    def flush(self, counters=None):
        """Write the figures into the graph (closing open activations at `counters`)."""
        c = None if counters is None else self._graph._costs(counters, "counters")
        self._graph._check(_ffi.lib().cgprop_recorder_flush(self._h(), c))

    def get(self, which, node, callee=0, metric=0):
        """One figure ("S_n", "C_n", "C_nr", ...) as a Figure namedtuple."""
        try:
            w = _FIGURES[which]
        except (KeyError, TypeError):
            raise InvalidArgumentError("which must be one of %s, not %r" % (sorted(_FIGURES), which))
        fig = _ffi.cgprop_recorder_figure()
        g = self._graph
        g._check(_ffi.lib().cgprop_recorder_get(self._h(), w, g._node(node, False),
                                                g._node(callee, False) if callee is not None else 0,
                                                g.metric(metric), byref(fig), ctypes.sizeof(fig)))
        return Figure(fig.count, fig.nested, fig.children, fig.raw, fig.comp)

    @property
    def clamp_count(self):
        return _ffi.lib().cgprop_recorder_clamp_count(self._h())

    @property
    def floor_count(self):
        return _ffi.lib().cgprop_recorder_floor_count(self._h())

    def close(self):
        if self._r is not None:
            _ffi.lib().cgprop_recorder_free(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def calibrate(nmetrics, clock, iterations=1000):
    """Estimate (delta_i, delta_e) per metric with `clock()` returning K counter readings."""
    failure = []

    def now(user, out):
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


def merge(dst, src):
    """Add every function, cost and call of Graph `src` to Graph `dst`."""
    dst._check(_ffi.lib().cgprop_graph_merge(dst._handle(), src._handle()))

