"""Readers, writers and the recorder (cgprop_io.h and the recorder of cgprop.h)."""

from __future__ import annotations

import ctypes
import dataclasses
import errno
import io
import json
import marshal
import os
import stat
import weakref
from ctypes import POINTER, byref, c_uint32, c_uint64, c_void_p
from typing import IO, Any, Dict, Iterable, List, Optional, Sequence, Union

from . import _ffi
from ._core import _DC, Costs, FunctionRef, Graph, Metric, _count
from ._enums import (Colormap, Compensation, DotCycles, InputFormat, KeyMode, Label, OutputFormat, ReadFlag,
                     Recursion, Share, WriteFlag, enum_arg, kind_or_int)
from ._errors import CgpropError, InvalidArgumentError, error_for, open_error, strerror

__all__ = ["ReadInfo", "EventsInfo", "Profile", "Recorder", "load", "load_events", "from_pstats", "write", "detect",
           "merge"]

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

# K never exceeds this: arrays of this length hold any graph's per-metric values.
_MAX_K = _ffi.CGPROP_MAX_METRICS


@dataclasses.dataclass(**_DC)
class ReadInfo:
    """What a reader found besides the graph (cgprop_read_info)."""
    format: Union[InputFormat, int]  # an int: a format newer than this binding
    recursion: Union[Recursion, int]
    separate_recs: int
    flags: ReadFlag
    nmetrics: int
    parts: int
    lines: int
    totals: Optional[List[int]]  # the stated program totals (ReadFlag.TOTALS), else None
    # The metric the input names as the one to show first (pprof: its default
    # sample type, else its last, as go tool pprof shows); 0 for other formats.
    default_metric: int = 0


@dataclasses.dataclass(**_DC)
class EventsInfo:
    """What replaying an event trace found (cgprop_events_info)."""
    lines: int
    events: int
    unclosed: int
    clamps: int
    floors: int


def _write_options(g: Graph, metric: Optional[Metric], flags: Optional[int], node_thres: Optional[float],
                   edge_thres: Optional[float],
                   cycles: Union[DotCycles, str, None] = None) -> _ffi.cgprop_write_options:
    opts = _ffi.cgprop_write_options()
    _ffi.lib().cgprop_write_options_init(byref(opts))
    if metric is not None:
        opts.metric = g.metric(metric)
    if flags is not None:
        opts.flags = int(flags)
    if node_thres is not None:
        opts.node_thres = node_thres
    if edge_thres is not None:
        opts.edge_thres = edge_thres
    if cycles is not None:
        opts.cycles = enum_arg(DotCycles, cycles, "cycles")
    return opts


def _view_options(g: Graph, opts: _ffi.cgprop_write_options, view: Dict[str, Any]) -> List[Any]:
    """The view controls of write() into opts; returns the id arrays, which
    must outlive the call."""
    keep: List[Any] = []
    for name in ("roots", "leaves", "focus", "hide"):
        refs = view.get(name)
        if refs is None:
            continue
        ids = [g._node(r) for r in refs]
        arr = (c_uint32 * max(len(ids), 1))(*ids)
        keep.append(arr)
        setattr(opts, name, ctypes.cast(arr, POINTER(c_uint32)))
        setattr(opts, "n" + name, len(ids))
    if view.get("depth") is not None:
        opts.depth = view["depth"]
    if view.get("top") is not None:
        opts.top = view["top"]
    if view.get("label") is not None:
        opts.label = int(view["label"])
    if view.get("colormap") is not None:
        opts.colormap = enum_arg(Colormap, view["colormap"], "colormap")
    if view.get("skew") is not None:
        opts.skew = view["skew"]
    return keep


def write(graph: Graph, format: Union[OutputFormat, str] = OutputFormat.JSON,
          out: Union[None, PathLike, IO[str], IO[bytes]] = None, metric: Optional[Metric] = None,
          flags: Optional[WriteFlag] = None, node_thres: Optional[float] = None,
          edge_thres: Optional[float] = None, cycles: Union[DotCycles, str, None] = None, *,
          roots: Optional[Iterable[FunctionRef]] = None, leaves: Optional[Iterable[FunctionRef]] = None,
          focus: Optional[Iterable[FunctionRef]] = None, hide: Optional[Iterable[FunctionRef]] = None,
          depth: Optional[int] = None, top: Optional[int] = None, label: Optional[Label] = None,
          colormap: Union[Colormap, str, None] = None, skew: Optional[float] = None) -> Optional[str]:
    """Write `graph` with the library's writer `format` (OutputFormat.TEXT,
    JSON, DOT, CALLGRIND, or its name). Text, JSON and DOT need the analyses
    (Graph.analyze()). `out` is None (return the output as str), a path
    (written by the library; WriteError if that fails), or a file object
    opened in binary or text mode (written chunk by chunk; its exceptions
    propagate as they are). `cycles` is how DOT draws cycles (DotCycles or
    its name: "label", "cluster", "none"; default auto, which is label).
    Text and DOT views (docs/TOOL.md): `roots`, `leaves`, `focus`, `hide`
    are functions (ids, keys or display names), `depth` limits roots and
    leaves, `top` keeps the largest totals; DOT's `label` (Label bits),
    `colormap` (Colormap or its name) and `skew`. Flags WriteFlag.STRIP,
    WRAP and PRUNE_TEXT."""
    fmt = enum_arg(OutputFormat, format, "format")
    lib = _ffi.lib()
    opts = _write_options(graph, metric, flags, node_thres, edge_thres, cycles)
    keep = _view_options(graph, opts, dict(roots=roots, leaves=leaves, focus=focus, hide=hide, depth=depth, top=top,
                                           label=label, colormap=colormap, skew=skew))
    if isinstance(out, (str, bytes, os.PathLike)):
        path = os.fsencode(out)
        graph._check(lib.cgprop_write_path(graph._handle(), fmt, byref(opts), path, len(path)))
        return None
    chunks: List[bytes] = []
    failure: List[BaseException] = []
    if isinstance(out, io.TextIOBase):
        text_mode = True
    elif out is None or isinstance(out, (io.BufferedIOBase, io.RawIOBase)):
        text_mode = False
    else:
        text_mode = "b" not in getattr(out, "mode", "b")

    def sink(user: Any, data: int, length: int) -> int:
        try:
            chunk = ctypes.string_at(data, length)
            if out is None:
                chunks.append(chunk)
            else:
                out.write(chunk.decode("utf-8", "surrogateescape") if text_mode else chunk)  # type: ignore
            return 0
        except BaseException as e:  # reported after the writer returns
            failure.append(e)
            return 1

    cb = _ffi.cgprop_write_fn(sink)
    rc = lib.cgprop_write(graph._handle(), fmt, byref(opts), cb, None)
    if failure:
        raise failure[0]
    graph._check(rc)
    del keep
    if out is None:
        return b"".join(chunks).decode("utf-8", "surrogateescape")
    return None


def write_compare(base: Graph, graph: Graph, format: Union[OutputFormat, str] = OutputFormat.TEXT,
                  out: Union[None, IO[str], IO[bytes]] = None, metric: Optional[Metric] = None,
                  flags: Optional[WriteFlag] = None, node_thres: Optional[float] = None,
                  edge_thres: Optional[float] = None) -> Optional[str]:
    """How each function's figures changed from `base` to `graph`
    (cgprop_write_compare(): functions matched by key; a change is exact
    only where both sides' figures are), as OutputFormat.TEXT (sorted by
    the size of the change), JSON or DOT (graph's shape, coloured by the
    change). Both graphs need the analyses. `metric` is one of `graph`'s,
    found by name in `base`; errors are `graph`'s. `out` is None (return
    the output as str) or a file object opened in binary or text mode."""
    fmt = enum_arg(OutputFormat, format, "format")
    lib = _ffi.lib()
    opts = _write_options(graph, metric, flags, node_thres, edge_thres, None)
    chunks: List[bytes] = []
    failure: List[BaseException] = []
    text_mode = isinstance(out, io.TextIOBase) or (
        out is not None and not isinstance(out, (io.BufferedIOBase, io.RawIOBase))
        and "b" not in getattr(out, "mode", "b"))

    def sink(user: Any, data: int, length: int) -> int:
        try:
            chunk = ctypes.string_at(data, length)
            if out is None:
                chunks.append(chunk)
            else:
                out.write(chunk.decode("utf-8", "surrogateescape") if text_mode else chunk)  # type: ignore
            return 0
        except BaseException as e:  # reported after the writer returns
            failure.append(e)
            return 1

    cb = _ffi.cgprop_write_fn(sink)
    rc = lib.cgprop_write_compare(base._handle(), graph._handle(), fmt, byref(opts), cb, None)
    if failure:
        raise failure[0]
    graph._check(rc)
    if out is None:
        return b"".join(chunks).decode("utf-8", "surrogateescape")
    return None


class Profile(Graph):
    """A graph read by the library's readers, with what the reader found
    (`info`: a ReadInfo, or an EventsInfo from load_events) and, unless
    asked otherwise, the analyses already run."""

    info: Union[ReadInfo, EventsInfo, None] = None
    path: Optional[PathLike] = None

    def report(self) -> Dict[str, Any]:
        """The dict the library's JSON writer produces for this profile:
        exactly what `cgprop report --format json` prints for the same file."""
        return json.loads(write(self, OutputFormat.JSON) or "")


def _read_options(input: Union[InputFormat, str, None], key_mode: Union[KeyMode, str], fold_recursion: bool,
                  separate_recs: Optional[int], contexts: bool = False) -> _ffi.cgprop_read_options:
    opts = _ffi.cgprop_read_options()
    _ffi.lib().cgprop_read_options_init(byref(opts))
    opts.format = enum_arg(InputFormat, input, "input", InputFormat.AUTO)
    opts.key_mode = enum_arg(KeyMode, key_mode, "key_mode")
    opts.no_fold_recursion = 0 if fold_recursion else 1
    opts.separate_recs = _count(separate_recs or 0)
    opts.contexts = 1 if contexts else 0
    return opts


def _bytes(data: Union[bytes, bytearray, memoryview, str]) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def load(path: Optional[PathLike], input: Union[InputFormat, str, None] = None,
         data: Union[bytes, bytearray, memoryview, str, None] = None,
         key_mode: Union[KeyMode, str] = KeyMode.FULL, fold_recursion: bool = True,
         separate_recs: Optional[int] = None, analyze: bool = True,
         share: Union[Share, str] = Share.AUTO, contexts: bool = False) -> Profile:
    """Read a profile (`input` None detects the format) and return a
    Profile. With `data` (bytes) the input is read from memory and `path`
    only names it in messages. Unless analyze=False, the analyses run
    (Graph.analyze(share)), as the command-line tool runs them.

    Errors: a file that cannot be opened raises an OpenError that is also
    FileNotFoundError, PermissionError or IsADirectoryError as the case
    is; malformed input raises FormatError with `file`, `line`, `reason`.
    With contexts=True, readers of stacks keep calling contexts, which
    write(profile, OutputFormat.FLAMEGRAPH) draws."""
    lib = _ffi.lib()
    opts = _read_options(input, key_mode, fold_recursion, separate_recs, contexts)
    out = c_void_p()
    info = _ffi.cgprop_read_info()
    lib.cgprop_read_info_init(byref(info))
    totals = (c_uint64 * _MAX_K)()
    info.totals = ctypes.cast(totals, POINTER(c_uint64))
    info.totals_len = _MAX_K
    err = _ffi.cgprop_read_error()
    lib.cgprop_read_error_init(byref(err))
    name = os.fsencode(path) if path is not None else b""
    if data is not None:
        buf = _bytes(data)
        rc = lib.cgprop_read_buffer(buf, len(buf), name or None, len(name), byref(opts), None, byref(out),
                                    byref(info), byref(err))
    else:
        if path is None:
            raise InvalidArgumentError("load needs a path or data")
        rc = lib.cgprop_read_file(name, len(name), byref(opts), None, byref(out), byref(info), byref(err))
    if rc != _ffi.CGPROP_OK:
        raise _read_error(rc, err, name, path if data is None else None)
    prof = Profile._adopt(out)
    assert isinstance(prof, Profile)
    k = info.nmetrics
    prof.info = ReadInfo(kind_or_int(InputFormat, info.format), kind_or_int(Recursion, info.recursion),
                         info.separate_recs, ReadFlag(info.flags), k, info.parts, info.lines,
                         list(totals[:k]) if info.flags & _ffi.CGPROP_RI_TOTALS else None, info.default_metric)
    prof.path = path
    if analyze:
        prof.analyze(share)
    return prof


def from_pstats(stats: Any, name: str = "<pstats>", analyze: bool = True,
                share: Union[Share, str] = Share.AUTO) -> Profile:
    """Read Python's own profile: a pstats.Stats, a cProfile.Profile or
    profile.Profile (its create_stats() is called to take the current
    figures, which also stops it), or the dict they hold (`stats.stats`). The dict is marshalled
    as pstats writes its files and read with InputFormat.PSTATS; a library
    without that reader raises InvalidArgumentError."""
    if hasattr(stats, "create_stats") and callable(stats.create_stats):
        stats.create_stats()  # a profiler: snapshot what it has measured into .stats
    table = stats if isinstance(stats, dict) else getattr(stats, "stats", None)
    if not isinstance(table, dict):
        raise TypeError("from_pstats takes a pstats.Stats, a cProfile.Profile or their stats dict, not %s"
                        % type(stats).__name__)
    return load(name, input=InputFormat.PSTATS, data=marshal.dumps(table), analyze=analyze, share=share)


def _delta_array(vals: Union[int, Sequence[int], None], what: str) -> Optional[ctypes.Array]:
    """δ per metric as the library reads it: K entries. K may not be known
    yet (an event trace names its metrics), so the array has room for any K
    and zeros past the values given."""
    if vals is None:
        return None
    given: List[int] = [vals] if isinstance(vals, int) else list(vals)
    if len(given) > _MAX_K or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2 ** 64
                                      for v in given):
        raise InvalidArgumentError("%s: at most %d integers in [0, 2^64)" % (what, _MAX_K))
    arr = (c_uint64 * _MAX_K)()
    for i, v in enumerate(given):
        arr[i] = v
    return arr


def _recorder_options(compensation: Union[Compensation, str, None], delta_i: Any, delta_e: Any,
                      clamp: bool) -> tuple:
    """The options and the δ arrays they point into (keep both alive for the call)."""
    opts = _ffi.cgprop_recorder_options()
    _ffi.lib().cgprop_recorder_options_init(byref(opts))
    opts.mode = enum_arg(Compensation, compensation, "compensation", Compensation.OFF)
    opts.flags = _ffi.CGPROP_REC_CLAMP if clamp else 0
    di = _delta_array(delta_i, "delta_i")
    de = _delta_array(delta_e, "delta_e")
    if di is not None:
        opts.delta_i = ctypes.cast(di, POINTER(c_uint64))
    if de is not None:
        opts.delta_e = ctypes.cast(de, POINTER(c_uint64))
    return opts, (di, de)


def load_events(path: Optional[PathLike] = None, data: Union[bytes, str, None] = None,
                compensation: Union[Compensation, str, None] = None,
                delta_i: Union[int, Sequence[int], None] = None, delta_e: Union[int, Sequence[int], None] = None,
                clamp: bool = False, analyze: bool = True, share: Union[Share, str] = Share.AUTO) -> Profile:
    """Replay an event trace (a file, or `data` bytes named `path`; gzipped
    or not, a pipe read as it comes) through a recorder with TAU overhead
    compensation (Compensation.ONLINE or POSTMORTEM, with per-metric delta_i
    / delta_e); returns a Profile whose `info` is an EventsInfo. load() reads
    the same format without compensation."""
    lib = _ffi.lib()
    opts, keep = _recorder_options(compensation, delta_i, delta_e, clamp)
    out = c_void_p()
    info = _ffi.cgprop_events_info()
    lib.cgprop_events_info_init(byref(info))
    err = _ffi.cgprop_read_error()
    lib.cgprop_read_error_init(byref(err))
    name = os.fsencode(path) if path is not None else b""
    if data is not None:
        buf = _bytes(data)
        rc = lib.cgprop_events_read_buffer(buf, len(buf), name or None, len(name), byref(opts), None,
                                           byref(out), byref(info), byref(err))
    else:
        if path is None:
            raise InvalidArgumentError("load_events needs a path or data")
        rc = lib.cgprop_events_read_file(name, len(name), byref(opts), None, byref(out), byref(info), byref(err))
    del keep
    if rc != _ffi.CGPROP_OK:
        raise _read_error(rc, err, name, path if data is None else None)
    prof = Profile._adopt(out)
    assert isinstance(prof, Profile)
    prof.info = EventsInfo(info.lines, info.events, info.unclosed, info.clamps, info.floors)
    prof.path = path
    if analyze:
        prof.analyze(share)
    return prof


def _open_errno(path: PathLike) -> int:
    """The errno opening `path` for reading gives now (0 if it opens): the
    library reports an open failure as a message, Python's exceptions want
    the number."""
    try:
        st = os.stat(path)
    except OSError as e:
        return e.errno or 0
    if stat.S_ISDIR(st.st_mode):
        return errno.EISDIR
    try:
        with open(path, "rb"):
            pass
    except OSError as e:
        return e.errno or 0
    return 0


def _read_error(rc: int, err: _ffi.cgprop_read_error, name: bytes, path: Optional[PathLike]) -> CgpropError:
    reason = err.reason.decode("utf-8", "replace") or strerror(rc)
    where = err.file.decode("utf-8", "replace") or os.fsdecode(name)
    msg = "%s:%d: %s" % (where, err.line, reason) if err.line else "%s: %s" % (where, reason)
    if path is not None and rc == _ffi.CGPROP_ENOTFOUND and err.line == 0:
        num = _open_errno(path)
        if num:
            e: CgpropError = open_error(rc, msg, num, os.fsdecode(path))
            e.file, e.line, e.reason = where, 0, reason  # type: ignore[attr-defined]
            return e
    e = error_for(rc, msg)
    e.file, e.line, e.reason = where, err.line, reason  # type: ignore[attr-defined]
    return e


def detect(data: Union[bytes, str]) -> Optional[Union[InputFormat, int]]:
    """The input format the readers recognise in `data`, or None."""
    buf = _bytes(data)
    f = _ffi.lib().cgprop_read_detect(buf, len(buf))
    return None if f == _ffi.CGPROP_INPUT_AUTO else kind_or_int(InputFormat, f)


# ---- recorder ---------------------------------------------------------------


class Recorder:
    """An event recorder bound to a Graph (enter/exit probes with K counter
    readings). Close it (or leave its `with` block) before the graph; closing
    the graph closes it first."""

    def __init__(self, graph: Graph, compensation: Union[Compensation, str, None] = None,
                 delta_i: Optional[Costs] = None, delta_e: Optional[Costs] = None, clamp: bool = False) -> None:
        self._graph = graph
        self._r: Optional[c_void_p] = None
        # K values each, as for counters; NULL (None) means 0 for every metric
        di = None if delta_i is None else graph._costs(delta_i, "delta_i")
        de = None if delta_e is None else graph._costs(delta_e, "delta_e")
        opts = _ffi.cgprop_recorder_options()
        _ffi.lib().cgprop_recorder_options_init(byref(opts))
        opts.mode = enum_arg(Compensation, compensation, "compensation", Compensation.OFF)
        opts.flags = _ffi.CGPROP_REC_CLAMP if clamp else 0
        if di is not None:
            opts.delta_i = ctypes.cast(di, POINTER(c_uint64))
        if de is not None:
            opts.delta_e = ctypes.cast(de, POINTER(c_uint64))
        out = c_void_p()
        graph._check(_ffi.lib().cgprop_recorder_new(graph._handle(), byref(opts), byref(out)))  # copies δ
        self._r = out
        # a recorder frees through its graph: Graph.close() closes it first
        if getattr(graph, "_recorders", None) is None:
            graph._recorders = weakref.WeakSet()  # type: ignore[attr-defined]
        graph._recorders.add(self)  # type: ignore[attr-defined]

    def _h(self) -> c_void_p:
        self._graph._handle()
        if self._r is None:
            raise CgpropError("the recorder is closed", _ffi.CGPROP_ESTATE)
        return self._r

    def enter(self, node: FunctionRef, counters: Costs) -> None:
        """Open an activation of `node` (added if its key is new) at `counters`."""
        g = self._graph
        h = self._h()
        ids, _ = g._resolve([node])
        c = g._costs(counters, "counters")
        (nid,) = g._create(ids, [node])
        g._check(_ffi.lib().cgprop_recorder_enter(h, nid, c))

    def exit(self, node: FunctionRef, counters: Costs) -> None:
        """Close the open activation, which must be `node`'s, at `counters`."""
        g = self._graph
        h = self._h()
        g._check(_ffi.lib().cgprop_recorder_exit(h, g._node(node), g._costs(counters, "counters")))

    @property
    def depth(self) -> int:
        """Activations open."""
        return _ffi.lib().cgprop_recorder_depth(self._h())

    def unwind(self, counters: Optional[Costs] = None) -> None:
        """Close every open activation at `counters`."""
        c = None if counters is None else self._graph._costs(counters, "counters")
        self._graph._check(_ffi.lib().cgprop_recorder_unwind(self._h(), c))

    def flush(self, counters: Optional[Costs] = None) -> None:
        """Write the figures into the graph (closing open activations at `counters`)."""
        c = None if counters is None else self._graph._costs(counters, "counters")
        self._graph._check(_ffi.lib().cgprop_recorder_flush(self._h(), c))

    def close(self) -> None:
        if self._r is not None:
            _ffi.lib().cgprop_recorder_free(self._r)
            self._r = None

    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


def merge(dst: Graph, src: Graph) -> None:
    """Add every function, cost and call of Graph `src` to Graph `dst`."""
    dst._check(_ffi.lib().cgprop_graph_merge(dst._handle(), src._handle()))
