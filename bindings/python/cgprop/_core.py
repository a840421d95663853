"""Graph building, analyses and row iteration over the core API (cgprop.h)."""

from __future__ import annotations

import ctypes
import dataclasses
import struct
import sys
from ctypes import byref, c_char_p, c_size_t, c_uint32, c_uint64, c_void_p
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union, cast

from . import _ffi
from ._enums import Estimate, Flag, Inexact, IterKind, Level, Reason, Share, enum_arg, kind_or_int
from ._errors import (AmbiguousNameError, CostOverflowError, FunctionNotFoundError, InvalidArgumentError,
                      StateError, error_for, strerror)

__all__ = ["Graph", "Rows", "NodeRow", "CallRow", "CycleRow", "MemberRow", "TotalRow", "CallTotalRow", "SplitRow",
           "CallSplitRow", "Row", "Key", "FunctionRef", "Costs", "version", "CHUNK_ROWS"]

# A function key as given: str (UTF-8; surrogate escapes carry other bytes) or bytes.
Key = Union[str, bytes]
# A function argument: its id, or a key / unambiguous display name.
FunctionRef = Union[int, str, bytes]
# K costs: a sequence, one int when K = 1, or {metric name: value}.
Costs = Union[int, Sequence[int], Mapping[str, int]]
Metric = Union[int, str]

_U64_MAX = (1 << 64) - 1

# ---- rows as frozen dataclasses ---------------------------------------------

# slots make rows smaller and faster to build where dataclasses support them.
_DC: Dict[str, Any] = {"frozen": True, "slots": True} if sys.version_info >= (3, 10) else {"frozen": True}


@dataclasses.dataclass(**_DC)
class NodeRow:
    """A function as built (cgprop_node_row), costs of the iterator's metric."""
    id: int
    flags: Flag
    self: int
    spont_count: int
    spont_cost: int
    calls_in: int


@dataclasses.dataclass(**_DC)
class CallRow:
    """A call as built (cgprop_edge_row). `cost` is None when the call has no
    measured cost (no Flag.HAS_COST)."""
    id: int
    caller: int
    callee: int
    flags: Flag
    count: int
    cost: Optional[int]


@dataclasses.dataclass(**_DC)
class CycleRow:
    """A recursion cycle (cgprop_cycle_row); `total` is 0.0 before collapse.
    `flags` has Flag.ESTIMATE unless propagate found `total` exact (the
    members' self costs plus the measured calls that leave the cycle)."""
    id: int
    nmembers: int
    flags: Flag
    first: int
    self: int
    total: float


@dataclasses.dataclass(**_DC)
class MemberRow:
    """A member of a cycle (cgprop_member_row)."""
    cycle: int
    node: int


@dataclasses.dataclass(**_DC)
class TotalRow:
    """Inclusive figures of a function (cgprop_total_row). `cycle` is None
    outside cycles; `lo` and `hi` are None without a proven interval
    (Flag.NO_BOUNDS), `walk` None without a walk figure (Flag.NO_WALK)."""
    id: int
    flags: Flag
    cycle: Optional[int]
    reason: Reason
    total: float
    heuristic: float
    lo: Optional[float]
    hi: Optional[float]
    walk: Optional[float]
    vertex_total: float
    gprof_self: float
    gprof_child: float
    spont_share: float
    estimate: Union[Estimate, int]  # an int: a kind newer than this binding


@dataclasses.dataclass(**_DC)
class CallTotalRow:
    """Propagated figures of a call (cgprop_edge_total_row)."""
    id: int
    caller: int
    callee: int
    flags: Flag
    total: float
    heuristic: float
    gprof_self: float
    gprof_child: float
    share: float


@dataclasses.dataclass(**_DC)
class SplitRow:
    """Split figures of a function (cgprop_split_row)."""
    id: int
    inexact: Inexact
    S_n: int
    S_r: int
    C_n: int
    C_r: int
    D: float
    heuristic: float


@dataclasses.dataclass(**_DC)
class CallSplitRow:
    """Split figures of a call (cgprop_edge_split_row)."""
    id: int
    caller: int
    callee: int
    inexact: Inexact
    C_nn: int
    C_nr: int
    C_nd: int
    C_rn: int
    C_rr: int
    C_rd: int


Row = Union[NodeRow, CallRow, CycleRow, MemberRow, TotalRow, CallTotalRow, SplitRow, CallSplitRow]

_NONE = _ffi.CGPROP_NONE


def _node_row(t: tuple) -> NodeRow:
    return NodeRow(t[0], Flag(t[1]), t[2], t[3], t[4], t[5])


def _call_row(t: tuple) -> CallRow:
    return CallRow(t[0], t[1], t[2], Flag(t[3]), t[4], t[5] if t[3] & _ffi.CGPROP_F_HAS_COST else None)


def _cycle_row(t: tuple) -> CycleRow:
    return CycleRow(t[0], t[1], Flag(t[2]), t[3], t[4], t[5])


def _member_row(t: tuple) -> MemberRow:
    return MemberRow(t[0], t[1])


def _total_row(t: tuple) -> TotalRow:
    # t: id flags cycle reason total heuristic lo hi walk vertex_total gprof_self gprof_child spont_share
    #    estimate reserved
    f = t[1]
    bounds = not f & _ffi.CGPROP_F_NO_BOUNDS
    return TotalRow(t[0], Flag(f), None if t[2] == _NONE else t[2], Reason(t[3]), t[4], t[5],
                    t[6] if bounds else None, t[7] if bounds else None,
                    None if f & _ffi.CGPROP_F_NO_WALK else t[8], t[9], t[10], t[11], t[12],
                    kind_or_int(Estimate, t[13]))


def _call_total_row(t: tuple) -> CallTotalRow:
    return CallTotalRow(t[0], t[1], t[2], Flag(t[3]), *t[4:])


def _split_row(t: tuple) -> SplitRow:
    return SplitRow(t[0], Inexact(t[1]), *t[2:])


def _call_split_row(t: tuple) -> CallSplitRow:
    return CallSplitRow(t[0], t[1], t[2], Inexact(t[3]), *t[4:])


# kind -> (row maker from the raw tuple, struct.Struct reading the C row from bytes)
_ROWS: Dict[int, Tuple[Callable[[tuple], Any], struct.Struct]] = {}
for _kind, _make in ((IterKind.NODES, _node_row), (IterKind.EDGES, _call_row), (IterKind.CALLERS, _call_row),
                     (IterKind.CALLEES, _call_row), (IterKind.CYCLES, _cycle_row), (IterKind.MEMBERS, _member_row),
                     (IterKind.TOTALS, _total_row), (IterKind.EDGE_TOTALS, _call_total_row),
                     (IterKind.SPLIT, _split_row), (IterKind.EDGE_SPLIT, _call_split_row)):
    _ROWS[_kind] = (_make, struct.Struct(_ffi.unpack_format(_ffi.ROW_OF_KIND[_kind])))
del _kind, _make

# Names accepted by Graph.get(); kinds without a point look-up are absent.
_GET_KINDS = {
    "nodes": IterKind.NODES, "calls": IterKind.EDGES, "cycles": IterKind.CYCLES, "totals": IterKind.TOTALS,
    "call_totals": IterKind.EDGE_TOTALS, "splits": IterKind.SPLIT, "call_splits": IterKind.EDGE_SPLIT,
}

# Rows fetched per FFI call; large enough that the call overhead vanishes,
# small enough that a short loop that stops early wastes little.
CHUNK_ROWS = 4096


def _encode(key: Key) -> bytes:
    if isinstance(key, bytes):
        return key
    if isinstance(key, str):
        # surrogateescape lets a key read back from the library (any bytes)
        # be passed in again unchanged.
        return key.encode("utf-8", "surrogateescape")
    raise TypeError("a key must be str or bytes, not %s" % type(key).__name__)


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


R = TypeVar("R")


class Rows(Iterator[R]):
    """Iterator over the rows of one cgprop iterator, yielding frozen dataclasses.

    Rows are fetched in chunks with cgprop_iter_copy_rows (one FFI call per
    CHUNK_ROWS rows). The C iterator is freed when the rows run out, on
    close(), on leaving a `with` block, or when this object is collected.
    len() is the total number of rows the iterator yields.
    """

    def __init__(self, graph: "Graph", kind: int, metric: int, arg: int) -> None:
        self._graph = graph  # keeps the graph alive while rows are read
        self._it: Optional[c_void_p] = None
        it = c_void_p()
        graph._check(_ffi.lib().cgprop_iter_new(graph._handle(), kind, metric, arg, byref(it)))
        self._it = it
        self._make, self._struct = _ROWS[kind]
        self._cls = _ffi.ROW_OF_KIND[kind]
        self._count = _ffi.lib().cgprop_iter_count(it)
        cap = max(1, min(self._count, CHUNK_ROWS))
        self._buf = (self._cls * cap)()
        self._cap = cap
        self._pending: Iterator[R] = iter(())

    def __iter__(self) -> "Rows[R]":
        return self

    def __len__(self) -> int:
        return self._count

    def __next__(self) -> R:
        while True:
            for row in self._pending:
                return row
            if self._it is None:
                raise StopIteration
            self._fill()

    def _fill(self) -> None:
        lib = _ffi.lib()
        size = ctypes.sizeof(self._cls)
        n = c_size_t()
        rc = lib.cgprop_iter_copy_rows(self._it_handle(), self._buf, size, self._cap, byref(n))
        if rc < 0:
            self.close()
            self._graph._check(rc)
        if rc == _ffi.CGPROP_DONE or n.value == 0:
            self.close()
            return
        data = ctypes.string_at(self._buf, n.value * size)
        if n.value < self._cap:  # a short copy only happens at the end
            self.close()
        self._pending = map(self._make, self._struct.iter_unpack(data))

    def _it_handle(self) -> c_void_p:
        # The C iterator points at its graph: reading it after the graph is
        # freed would touch freed memory, so refuse.
        self._graph._handle()
        assert self._it is not None
        return self._it

    def close(self) -> None:
        """Free the C iterator now; later next() calls stop the iteration."""
        self._pending = iter(())
        if self._it is not None:
            _ffi.lib().cgprop_iter_free(self._it)
            self._it = None

    def __enter__(self) -> "Rows[R]":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass


class Graph:
    """A call graph with K named metrics.

    Methods that add data name a function by id (int) or key (str or
    bytes), and add the function when the key is new. Methods that only read
    also accept its display name (the part of the key after the last TAB)
    when one function alone has it: graph["main"] gives the id,
    FunctionNotFoundError (a KeyError) when nothing matches,
    AmbiguousNameError (listing the keys) when several functions do. Costs are a
    sequence of K non-negative integers, a single integer when K = 1, or a
    dict {metric name: value} (missing metrics are 0).

    The graph is freed by close(), at the end of a `with` block, or when it is
    garbage collected. It is not safe to share one Graph between threads
    without a lock (read calls update caches inside the library).
    """

    _ptr: Optional[c_void_p]

    def __init__(self, metrics: Union[str, Sequence[str]] = ("Ir",)) -> None:
        if isinstance(metrics, (str, bytes)):
            metrics = [metrics]
        names = [_encode(m) for m in metrics]
        self._ptr = None
        k = len(names)
        arr = (c_char_p * max(k, 1))(*names)
        lens = (c_size_t * max(k, 1))(*[len(n) for n in names])
        out = c_void_p()
        rc = _ffi.lib().cgprop_graph_new(None, arr, lens, k, byref(out))
        if rc != _ffi.CGPROP_OK:
            raise error_for(rc, "cgprop_graph_new: %s (metrics %r)" % (strerror(rc), list(metrics)))
        self._setup(out)

    def _setup(self, ptr: c_void_p) -> None:
        self._ptr = ptr
        lib = _ffi.lib()
        self._k = lib.cgprop_graph_metric_count(ptr)
        self._metrics: List[str] = []
        for i in range(self._k):
            n = c_size_t()
            p = lib.cgprop_graph_metric_name(ptr, i, byref(n))
            self._metrics.append(_decode(ctypes.string_at(p, n.value)))
        self._metric_index = {m: i for i, m in enumerate(self._metrics)}
        # display name -> ids, extended as functions are added (ids are dense
        # and keys never change, so the functions seen so far stay valid)
        self._names: Dict[str, List[int]] = {}
        self._names_seen = 0

    @classmethod
    def _adopt(cls, ptr: c_void_p) -> "Graph":
        """Wrap a cgprop_graph * made by the library (a reader); takes ownership."""
        self = cls.__new__(cls)
        self._setup(ptr)
        return self

    # ---- lifetime ----

    def close(self) -> None:
        """Free the graph (closing its recorders first). Later calls raise StateError."""
        for r in list(getattr(self, "_recorders", ())):
            r.close()
        if getattr(self, "_ptr", None) is not None:
            _ffi.lib().cgprop_graph_free(self._ptr)
            self._ptr = None

    def __enter__(self) -> "Graph":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _handle(self) -> c_void_p:
        if self._ptr is None:
            raise StateError("the graph is closed", _ffi.CGPROP_ESTATE)
        return self._ptr

    def _check(self, rc: int) -> int:
        if rc < 0:
            msg = _ffi.lib().cgprop_graph_errmsg(self._ptr)
            msg = msg.decode("utf-8", "replace") if msg else ""
            raise error_for(rc, msg or strerror(rc))
        return rc

    @property
    def errmsg(self) -> str:
        """The library's message for the last call on this graph ("" after success)."""
        msg = _ffi.lib().cgprop_graph_errmsg(self._handle())
        return msg.decode("utf-8", "replace") if msg else ""

    # ---- argument conversion ----

    @property
    def metrics(self) -> List[str]:
        """Metric names, in index order."""
        return list(self._metrics)

    def metric(self, m: Metric) -> int:
        """Index of metric `m` (an index or a name)."""
        if isinstance(m, int) and not isinstance(m, bool):
            if not 0 <= m < self._k:
                raise InvalidArgumentError("metric %d out of range (K = %d)" % (m, self._k))
            return m
        key = _encode(cast(Key, m))  # a bool is refused here, as a key
        try:
            return self._metric_index[_decode(key)]
        except KeyError:
            out = c_uint32()
            self._check(_ffi.lib().cgprop_graph_find_metric(self._handle(), key, len(key), byref(out)))
            return out.value

    def _costs(self, costs: Costs, what: str = "costs") -> ctypes.Array:
        k = self._k
        if isinstance(costs, Mapping):
            vals = [0] * k
            for name, v in costs.items():
                vals[self.metric(name)] = v
        elif isinstance(costs, int) and not isinstance(costs, bool):
            if k != 1:
                raise InvalidArgumentError("%s: one number given, the graph has %d metrics" % (what, k))
            vals = [costs]
        else:
            vals = list(cast(Sequence[int], costs))
            if len(vals) != k:
                raise InvalidArgumentError("%s: %d values given, the graph has %d metrics"
                                           % (what, len(vals), k))
        for v in vals:
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= _U64_MAX:
                raise InvalidArgumentError("%s: %r is not an integer in [0, 2^64)" % (what, v))
        return (c_uint64 * k)(*vals)

    def _resolve(self, refs: Sequence[FunctionRef]) -> Tuple[List[Optional[int]], Dict[bytes, None]]:
        """Ids of `refs` for a call that adds data, without changing the graph:
        None for a key no function has yet, collected in the second result
        (in order, once each). Adding takes exact keys only (a display name
        is not tried: a new key is a new function). Ids out of range and bad
        types raise here, before anything is added."""
        ids: List[Optional[int]] = []
        new: Dict[bytes, None] = {}
        n = self.function_count
        for ref in refs:
            if isinstance(ref, int) and not isinstance(ref, bool):
                if not 0 <= ref < n:
                    raise InvalidArgumentError("function id %d out of range (%d functions)" % (ref, n))
                ids.append(ref)
                continue
            raw = _encode(cast(Key, ref))
            out = c_uint32()
            rc = _ffi.lib().cgprop_graph_find_node(self._handle(), raw, len(raw), byref(out))
            if rc == _ffi.CGPROP_ENOTFOUND:
                new[raw] = None
                ids.append(None)
            else:
                self._check(rc)
                ids.append(out.value)
        return ids, new

    def _create(self, ids: List[Optional[int]], refs: Sequence[FunctionRef]) -> List[int]:
        """Add the functions _resolve() found missing; the ids of all `refs`."""
        out = []
        for i, ref in zip(ids, refs):
            out.append(i if i is not None else self.add_function(ref))  # type: ignore[arg-type]
        return out

    def _node(self, node: FunctionRef) -> int:
        """The id of an existing function named by id, key or display name."""
        if isinstance(node, int) and not isinstance(node, bool):
            if not 0 <= node <= 0xFFFFFFFF:
                raise InvalidArgumentError("function id %d out of range" % node)
            return node
        raw = _encode(cast(Key, node))
        found = self._lookup(raw)
        if found is None:
            raise FunctionNotFoundError("no function has the key or display name %r" % (node,),
                                        _ffi.CGPROP_ENOTFOUND)
        return found

    def _lookup(self, raw: bytes) -> Optional[int]:
        """Exact key first, then the display name; None when neither matches."""
        out = c_uint32()
        rc = _ffi.lib().cgprop_graph_find_node(self._handle(), raw, len(raw), byref(out))
        if rc == _ffi.CGPROP_OK:
            return out.value
        if rc != _ffi.CGPROP_ENOTFOUND:
            self._check(rc)
        ids = self._display_index().get(_decode(raw), ())
        if len(ids) > 1:
            raise AmbiguousNameError(_decode(raw), [self.key(i) for i in ids])
        return ids[0] if ids else None

    def _display_index(self) -> Dict[str, List[int]]:
        n = self.function_count
        for i in range(self._names_seen, n):
            self._names.setdefault(self.display_name(i), []).append(i)
        self._names_seen = n
        return self._names

    # ---- functions ----

    def __getitem__(self, name: Key) -> int:
        """The id of the function with key or display name `name`.
        FunctionNotFoundError (a KeyError) when there is none,
        AmbiguousNameError (listing the keys) when the display name is shared."""
        if not isinstance(name, (str, bytes)):
            raise TypeError("graph[...] takes a key or display name (str or bytes), not %s" % type(name).__name__)
        return self._node(name)

    def __contains__(self, name: object) -> bool:
        """True if a function has this key or display name."""
        if not isinstance(name, (str, bytes)):
            return False
        try:
            self._node(name)
        except FunctionNotFoundError:
            return False
        except AmbiguousNameError:
            return True
        return True

    def __iter__(self) -> Iterator[int]:
        """The function ids, 0 .. len(graph) - 1."""
        return iter(range(self.function_count))

    def __len__(self) -> int:
        return self.function_count

    def add_function(self, key: Key) -> int:
        """Add a function by key (str or bytes), or return the id it already has."""
        raw = _encode(key)
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_add_node(self._handle(), raw, len(raw), byref(out)))
        return out.value

    def add_functions(self, keys: Sequence[Key]) -> List[int]:
        """Add many functions at once, as add_function() on each key in turn
        (a key already there, or repeated, gets the id it has), all or
        nothing. Returns the ids, one per key."""
        raws = [_encode(k) for k in keys]
        n = len(raws)
        ptrs = (c_char_p * n)(*raws)
        lens = (c_size_t * n)(*[len(r) for r in raws])
        out = (c_uint32 * n)()
        self._check(_ffi.lib().cgprop_graph_add_nodes(self._handle(), n, ptrs, lens, out))
        return list(out)

    def add_calls(self, callers: Sequence[int], callees: Sequence[int], counts: Sequence[int],
                  costs: Optional[Sequence[Costs]] = None) -> List[int]:
        """Add many calls at once, as add_call(callers[i], callees[i],
        counts[i], costs[i]) for each i in turn (the same ids and sums), but
        all or nothing: on an error the graph is as it was. Functions are
        given by id; `costs` is one cost per call (as add_call takes), or
        None when the input has none. Returns the call ids."""
        n = len(callers)
        if len(callees) != n or len(counts) != n or (costs is not None and len(costs) != n):
            raise InvalidArgumentError("add_calls: %d callers, %d callees, %d counts, %s costs"
                                       % (n, len(callees), len(counts), "no" if costs is None else len(costs)))
        for v in list(callers) + list(callees):
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 0xFFFFFFFF:
                raise InvalidArgumentError("add_calls: %r is not a function id" % (v,))
        a = (c_uint32 * n)(*callers)
        b = (c_uint32 * n)(*callees)
        cnt = (c_uint64 * n)(*[_count(c) for c in counts])
        c = None
        if costs is not None:
            flat: List[int] = []
            for row in costs:
                flat.extend(self._costs(row, "add_calls"))
            c = (c_uint64 * (n * self._k))(*flat)
        out = (c_uint32 * n)()
        self._check(_ffi.lib().cgprop_graph_add_calls(self._handle(), n, a, b, cnt, c, out))
        return list(out)

    def find_function(self, key: Key) -> int:
        """The id of the function with exactly this key (display names are not
        tried); FunctionNotFoundError if there is none."""
        raw = _encode(key)
        out = c_uint32()
        rc = _ffi.lib().cgprop_graph_find_node(self._handle(), raw, len(raw), byref(out))
        if rc == _ffi.CGPROP_ENOTFOUND:
            raise FunctionNotFoundError(self.errmsg or "no function has the key %r" % (key,), rc)
        self._check(rc)
        return out.value

    def key(self, node: FunctionRef) -> str:
        """The key of function `node` as str (bytes that are not UTF-8 survive
        as surrogate escapes; key_bytes() gives them raw)."""
        return _decode(self.key_bytes(node))

    def key_bytes(self, node: FunctionRef) -> bytes:
        """The key of function `node` as bytes."""
        n = c_size_t()
        p = _ffi.lib().cgprop_graph_node_key(self._handle(), self._node(node), byref(n))
        if not p:
            raise InvalidArgumentError("function id %r out of range" % (node,))
        return ctypes.string_at(p, n.value)

    def display_name(self, node: FunctionRef) -> str:
        """The name to show for `node`: the part of its key after the last TAB."""
        n = c_size_t()
        p = _ffi.lib().cgprop_node_display_name(self._handle(), self._node(node), byref(n))
        if not p:
            raise InvalidArgumentError("function id %r out of range" % (node,))
        return _decode(ctypes.string_at(p, n.value))

    @property
    def function_count(self) -> int:
        return _ffi.lib().cgprop_graph_node_count(self._handle())

    @property
    def call_count(self) -> int:
        return _ffi.lib().cgprop_graph_edge_count(self._handle())

    @property
    def generation(self) -> int:
        """Incremented by every successful mutation."""
        return _ffi.lib().cgprop_graph_generation(self._handle())

    # ---- building ----
    #
    # Every method below checks all its arguments before it adds a function,
    # so a refused call leaves no new function behind (the library cannot
    # remove one). Only running out of memory while adding can.

    def add_self(self, node: FunctionRef, costs: Costs, level: Union[Level, int, str, None] = None) -> None:
        """Add self cost to a function. `level` is the activation class when
        known: Level.L0 (non-recursive), L1, DEEP (≥ 2) or REC (≥ 1, lumped)."""
        ids, new = self._resolve([node])
        c = self._costs(costs)
        lv = None if level is None else _level(level)
        (node_id,) = self._create(ids, [node])
        if lv is None:
            self._check(_ffi.lib().cgprop_graph_add_self(self._handle(), node_id, c))
        else:
            self._check(_ffi.lib().cgprop_graph_add_self_class(self._handle(), node_id, lv, c))

    def _check_calls_in(self, ids: List[Optional[int]], new: Mapping[bytes, None], count: int) -> None:
        # The one refusal the library can make for a call between a new
        # function and an existing callee: its calls_in would overflow.
        callee = ids[1]
        if new and callee is not None:
            row = self.get("nodes", callee)
            if row.calls_in + count > _U64_MAX:
                raise CostOverflowError("calls into function %d would overflow" % callee, _ffi.CGPROP_EOVERFLOW)

    def add_call(self, caller: FunctionRef, callee: FunctionRef, count: int = 0,
                 costs: Optional[Costs] = None) -> int:
        """Add `count` calls caller → callee with inclusive `costs` (None when
        the input has none). Returns the call id."""
        refs = [caller, callee]
        ids, new = self._resolve(refs)
        c = None if costs is None else self._costs(costs)
        n = _count(count)
        self._check_calls_in(ids, new, n)
        a, b = self._create(ids, refs)
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_add_edge(self._handle(), a, b, n, c, byref(out)))
        return out.value

    def add_call_class(self, caller: FunctionRef, callee: FunctionRef, caller_level: Union[Level, int, str],
                       callee_level: Union[Level, int, str], count: int, costs: Costs) -> int:
        """Add calls between activations of known classes. Returns the call id."""
        refs = [caller, callee]
        ids, new = self._resolve(refs)
        c = self._costs(costs)
        n = _count(count)
        la, lb = _level(caller_level), _level(callee_level)
        self._check_calls_in(ids, new, n)
        a, b = self._create(ids, refs)
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_add_edge_class(self._handle(), a, b, la, lb, n, c, byref(out)))
        return out.value

    def add_spontaneous(self, node: FunctionRef, count: int, costs: Costs) -> None:
        """Add `count` activations of `node` with no caller, of inclusive `costs`."""
        ids, new = self._resolve([node])
        c = self._costs(costs)
        n = _count(count)
        (node_id,) = self._create(ids, [node])
        self._check(_ffi.lib().cgprop_graph_add_spontaneous(self._handle(), node_id, n, c))

    def add_stack(self, frames: Sequence[FunctionRef], weights: Costs) -> None:
        """Add one sampled stack (root first, leaf last) with K weights."""
        frames = list(frames)
        if not frames:
            raise InvalidArgumentError("add_stack: empty stack")
        ids, new = self._resolve(frames)
        w = self._costs(weights, "weights")
        got = self._create(ids, frames)
        arr = (c_uint32 * len(got))(*got)
        self._check(_ffi.lib().cgprop_graph_add_stack(self._handle(), arr, len(got), w))

    def find_call(self, caller: FunctionRef, callee: FunctionRef) -> int:
        """The id of the call caller → callee; NotFoundError if there is none."""
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_find_edge(self._handle(), self._node(caller), self._node(callee),
                                                      byref(out)))
        return out.value

    # ---- analyses ----

    def find_cycles(self) -> int:
        """Find recursion cycles; returns how many there are."""
        n = c_size_t()
        self._check(_ffi.lib().cgprop_graph_find_cycles(self._handle(), byref(n)))
        return n.value

    def collapse(self, share: Union[Share, str] = Share.AUTO) -> None:
        """gprof-style collapse; `share` is Share.AUTO, COUNT or COST (or its name)."""
        s = enum_arg(Share, share, "share")
        self._check(_ffi.lib().cgprop_graph_collapse(self._handle(), s))

    def propagate(self) -> None:
        """gprof2dot's per-root propagation (after collapse)."""
        self._check(_ffi.lib().cgprop_graph_propagate(self._handle()))

    def split(self) -> None:
        """KCachegrind's recursive / non-recursive split."""
        self._check(_ffi.lib().cgprop_graph_split(self._handle()))

    def unrooted(self, metric: Metric = 0) -> int:
        """The weight, in `metric`, of the stacks that may have been cut short
        (a sampling profiler's stacks that start in a function also called
        elsewhere): the figures they could change carry Reason.UNROOTED or
        their inexact bits. 0 for inputs without such stacks. Runs the split
        when it is not current."""
        out = c_uint64()
        self._check(_ffi.lib().cgprop_graph_unrooted(self._handle(), self.metric(metric), byref(out)))
        return out.value

    def set_estimate(self, which: Union[Estimate, str] = Estimate.MIDPOINT,
                     budget: float = _ffi.CGPROP_WALK_BUDGET_DEFAULT) -> None:
        """What `total` shows for cycle members bounded by measured calls alone
        (Estimate.MIDPOINT of the absorbing walk and the heuristic, WALK or
        HEURISTIC), and the walk's work budget per member (0: no limit).
        Takes effect at the next propagate()."""
        w = enum_arg(Estimate, which, "estimate")
        if w not in (Estimate.MIDPOINT, Estimate.WALK, Estimate.HEURISTIC):
            raise InvalidArgumentError("estimate must be midpoint, walk or heuristic, not %r" % (which,))
        self._check(_ffi.lib().cgprop_graph_set_estimate(self._handle(), w, float(budget)))

    def analyze(self, share: Union[Share, str] = Share.AUTO) -> int:
        """Every analysis, each skipped when its result is current:
        cgprop_graph_analyze() (find_cycles, collapse with Share.AUTO,
        propagate, split), or with another `share` the four steps one by one.
        Returns the number of cycles."""
        s = enum_arg(Share, share, "share")
        if s == Share.AUTO:
            self._check(_ffi.lib().cgprop_graph_analyze(self._handle()))
        else:
            self.find_cycles()
            self.collapse(s)
            self.propagate()
            self.split()
        return len(self.cycles())

    # ---- reading ----

    def rows(self, kind: Union[IterKind, int], metric: Metric = 0, arg: int = 0) -> Rows[Any]:
        """Rows of iterator kind `kind` (an IterKind)."""
        if kind not in _ROWS:
            raise InvalidArgumentError("unknown iterator kind %r" % (kind,))
        return Rows(self, int(kind), self.metric(metric) if kind != IterKind.MEMBERS else 0, arg)

    def nodes(self, metric: Metric = 0) -> Rows[NodeRow]:
        """Every function as built."""
        return self.rows(IterKind.NODES, metric)

    def calls(self, metric: Metric = 0) -> Rows[CallRow]:
        """Every call as built."""
        return self.rows(IterKind.EDGES, metric)

    def callers(self, node: FunctionRef, metric: Metric = 0) -> Rows[CallRow]:
        """Calls into `node`."""
        return self.rows(IterKind.CALLERS, metric, self._node(node))

    def callees(self, node: FunctionRef, metric: Metric = 0) -> Rows[CallRow]:
        """Calls out of `node`."""
        return self.rows(IterKind.CALLEES, metric, self._node(node))

    def cycles(self, metric: Metric = 0) -> Rows[CycleRow]:
        """Cycles (after find_cycles; totals after collapse)."""
        return self.rows(IterKind.CYCLES, metric)

    def members(self, cycle: int) -> Rows[MemberRow]:
        """Members of cycle `cycle`."""
        return self.rows(IterKind.MEMBERS, 0, cycle)

    def totals(self, metric: Metric = 0) -> Rows[TotalRow]:
        """Propagated figures per function (after propagate)."""
        return self.rows(IterKind.TOTALS, metric)

    def call_totals(self, metric: Metric = 0) -> Rows[CallTotalRow]:
        """Propagated figures per call (after propagate)."""
        return self.rows(IterKind.EDGE_TOTALS, metric)

    def splits(self, metric: Metric = 0) -> Rows[SplitRow]:
        """Split figures per function (after split)."""
        return self.rows(IterKind.SPLIT, metric)

    def call_splits(self, metric: Metric = 0) -> Rows[CallSplitRow]:
        """Split figures per call (after split)."""
        return self.rows(IterKind.EDGE_SPLIT, metric)

    def get(self, kind: str, id: FunctionRef, metric: Metric = 0) -> Any:
        """One row by id: kind is "nodes", "calls", "cycles", "totals",
        "call_totals", "splits" or "call_splits"; `id` a function (id, key or
        display name), call id or cycle id accordingly."""
        try:
            k = _GET_KINDS[kind]
        except (KeyError, TypeError):
            raise InvalidArgumentError("kind must be one of %s, not %r" % (sorted(_GET_KINDS), kind))
        if k in (IterKind.NODES, IterKind.TOTALS, IterKind.SPLIT):
            num = self._node(id)
        elif isinstance(id, int) and not isinstance(id, bool):
            num = id
        else:
            raise InvalidArgumentError("%s are looked up by id (int), not %r" % (kind, id))
        cls = _ffi.ROW_OF_KIND[k]
        row = cls()
        self._check(_ffi.lib().cgprop_graph_get_row(self._handle(), k, self.metric(metric), num,
                                                    byref(row), ctypes.sizeof(cls)))
        make, st = _ROWS[k]
        return make(st.unpack(ctypes.string_at(byref(row), ctypes.sizeof(cls))))

    def node_cycle(self, node: FunctionRef) -> Optional[int]:
        """The cycle id of `node`, or None (after find_cycles)."""
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_node_cycle(self._handle(), self._node(node), byref(out)))
        return None if out.value == _ffi.CGPROP_NONE else out.value


_LEVEL_ALIASES = {0: Level.L0, 1: Level.L1, "0": Level.L0, "1": Level.L1, "n": Level.L0, "r": Level.REC}


def _level(level: Union[Level, int, str]) -> Level:
    if isinstance(level, Level):
        return level
    if isinstance(level, (int, str)) and not isinstance(level, bool) and level in _LEVEL_ALIASES:
        return _LEVEL_ALIASES[level]
    return enum_arg(Level, level, "level")


def _count(count: int) -> int:
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= _U64_MAX:
        raise InvalidArgumentError("count %r is not an integer in [0, 2^64)" % (count,))
    return count


def version() -> str:
    """The loaded library's version string, e.g. "0.3.0"."""
    return _ffi.lib().cgprop_version_string().decode("ascii")
