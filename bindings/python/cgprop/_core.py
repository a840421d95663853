"""Graph building, analyses and row iteration over the core API (cgprop.h)."""

import collections
import ctypes
import struct
from ctypes import byref, c_char_p, c_size_t, c_uint32, c_uint64, c_void_p

from . import _ffi
from ._errors import InvalidArgumentError, StateError, error_for

# ---- rows as plain values ---------------------------------------------------


def _row_type(name, cls):
    return collections.namedtuple(name, [f for f, _ in cls._fields_])


NodeRow = _row_type("NodeRow", _ffi.cgprop_node_row)
CallRow = _row_type("CallRow", _ffi.cgprop_edge_row)
CycleRow = _row_type("CycleRow", _ffi.cgprop_cycle_row)
MemberRow = _row_type("MemberRow", _ffi.cgprop_member_row)
TotalRow = _row_type("TotalRow", _ffi.cgprop_total_row)
CallTotalRow = _row_type("CallTotalRow", _ffi.cgprop_edge_total_row)
SplitRow = _row_type("SplitRow", _ffi.cgprop_split_row)
CallSplitRow = _row_type("CallSplitRow", _ffi.cgprop_edge_split_row)

# kind -> (row namedtuple, struct.Struct reading the C row from bytes)
_ROWS = {}
for _kind, _tuple in ((_ffi.CGPROP_ITER_NODES, NodeRow), (_ffi.CGPROP_ITER_EDGES, CallRow),
                      (_ffi.CGPROP_ITER_CALLERS, CallRow), (_ffi.CGPROP_ITER_CALLEES, CallRow),
                      (_ffi.CGPROP_ITER_CYCLES, CycleRow), (_ffi.CGPROP_ITER_MEMBERS, MemberRow),
                      (_ffi.CGPROP_ITER_TOTALS, TotalRow), (_ffi.CGPROP_ITER_EDGE_TOTALS, CallTotalRow),
                      (_ffi.CGPROP_ITER_SPLIT, SplitRow), (_ffi.CGPROP_ITER_EDGE_SPLIT, CallSplitRow)):
    _ROWS[_kind] = (_tuple, struct.Struct(_ffi.unpack_format(_ffi.ROW_OF_KIND[_kind])))
del _kind, _tuple

# Names accepted by Graph.get(); kinds without a point look-up are absent.
_GET_KINDS = {
    "nodes": _ffi.CGPROP_ITER_NODES, "calls": _ffi.CGPROP_ITER_EDGES,
    "cycles": _ffi.CGPROP_ITER_CYCLES, "totals": _ffi.CGPROP_ITER_TOTALS,
    "call_totals": _ffi.CGPROP_ITER_EDGE_TOTALS, "splits": _ffi.CGPROP_ITER_SPLIT,
    "call_splits": _ffi.CGPROP_ITER_EDGE_SPLIT,
}

_SHARES = {"auto": _ffi.CGPROP_SHARE_AUTO, "count": _ffi.CGPROP_SHARE_COUNT,
           "cost": _ffi.CGPROP_SHARE_COST}

_LEVELS = {0: _ffi.CGPROP_LEVEL_0, 1: _ffi.CGPROP_LEVEL_1, 2: _ffi.CGPROP_LEVEL_DEEP,
           "n": _ffi.CGPROP_LEVEL_0, "0": _ffi.CGPROP_LEVEL_0, "1": _ffi.CGPROP_LEVEL_1,
           "deep": _ffi.CGPROP_LEVEL_DEEP, "rec": _ffi.CGPROP_LEVEL_REC,
           "r": _ffi.CGPROP_LEVEL_REC}

# Rows fetched per FFI call; large enough that the call overhead vanishes,
# small enough that a short loop that stops early wastes little.
CHUNK_ROWS = 4096

_U64_MAX = (1 << 64) - 1


def _encode(key):
    if isinstance(key, bytes):
        return key
    if isinstance(key, str):
        # surrogateescape lets a key read back from the library (any bytes)
        # be passed in again unchanged.
        return key.encode("utf-8", "surrogateescape")
    raise TypeError("a key must be str or bytes, not %s" % type(key).__name__)


def _decode(raw):
    return raw.decode("utf-8", "surrogateescape")


class Rows(object):
    """Iterator over the rows of one cgprop iterator, yielding namedtuples.

    Rows are fetched in chunks with cgprop_iter_copy_rows (one FFI call per
    CHUNK_ROWS rows). The C iterator is freed when the rows run out, on
    close(), on leaving a `with` block, or when this object is collected.
    len() is the total number of rows the iterator yields.
    """

    def __init__(self, graph, kind, metric, arg):
        self._graph = graph  # keeps the graph alive while rows are read
        self._it = None
        it = c_void_p()
        graph._check(_ffi.lib().cgprop_iter_new(graph._handle(), kind, metric, arg, byref(it)))
        self._it = it
        self._tuple, self._struct = _ROWS[kind]
        self._cls = _ffi.ROW_OF_KIND[kind]
        self._count = _ffi.lib().cgprop_iter_count(it)
        cap = max(1, min(self._count, CHUNK_ROWS))
        self._buf = (self._cls * cap)()
        self._cap = cap
        self._pending = iter(())

    def __iter__(self):
        return self

    def __len__(self):
        return self._count

    def __next__(self):
        while True:
            for row in self._pending:
                return row
            if self._it is None:
                raise StopIteration
            self._fill()

    next = __next__

    def _fill(self):
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
        self._pending = map(self._tuple._make, self._struct.iter_unpack(data))

    def _it_handle(self):
        # The C iterator points at its graph: reading it after the graph is
        # freed would touch freed memory, so refuse.
        self._graph._handle()
        return self._it

    def close(self):
        """Free the C iterator now; later next() calls stop the iteration."""
        self._pending = iter(())
        if self._it is not None:
            _ffi.lib().cgprop_iter_free(self._it)
            self._it = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Graph(object):
    """A call graph with K named metrics.

    Functions are identified by id (int) or key (str or bytes). Methods that
    add data accept a key anywhere a function id goes and add the function
    if it is new; methods that only read accept a key of an existing one.
    Costs are a sequence of K non-negative integers, a single integer when
    K = 1, or a dict {metric name: value} (missing metrics are 0).

    The graph is freed by close(), at the end of a `with` block, or when it is
    garbage collected. It is not safe to share one Graph between threads
    without a lock (read calls update caches inside the library).
    """

    def __init__(self, metrics=("Ir",)):
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
            from ._errors import strerror
            raise error_for(rc, "cgprop_graph_new: %s (metrics %r)" % (strerror(rc), list(metrics)))
        self._ptr = out
        self._k = k
        self._metrics = [_decode(n) for n in names]
        self._metric_index = {m: i for i, m in enumerate(self._metrics)}

    @classmethod
    def _adopt(cls, ptr):
        """Wrap a cgprop_graph * made by the library (a reader); takes ownership."""
        self = cls.__new__(cls)
        self._ptr = ptr
        lib = _ffi.lib()
        self._k = lib.cgprop_graph_metric_count(ptr)
        self._metrics = []
        for i in range(self._k):
            n = c_size_t()
            p = lib.cgprop_graph_metric_name(ptr, i, byref(n))
            self._metrics.append(_decode(ctypes.string_at(p, n.value)))
        self._metric_index = {m: i for i, m in enumerate(self._metrics)}
        return self

    # ---- lifetime ----

    def close(self):
        """Free the graph (closing its recorders first). Later calls raise StateError."""
        for r in list(getattr(self, "_recorders", ())):
            r.close()
        if self._ptr is not None:
            _ffi.lib().cgprop_graph_free(self._ptr)
            self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def _handle(self):
        if self._ptr is None:
            raise StateError("the graph is closed", _ffi.CGPROP_ESTATE)
        return self._ptr

    def _check(self, rc):
        if rc < 0:
            msg = _ffi.lib().cgprop_graph_errmsg(self._ptr)
            msg = msg.decode("utf-8", "replace") if msg else ""
            if not msg:
                from ._errors import strerror
                msg = strerror(rc)
            raise error_for(rc, msg)
        return rc

    @property
    def errmsg(self):
        """The library's message for the last call on this graph ("" after success)."""
        msg = _ffi.lib().cgprop_graph_errmsg(self._handle())
        return msg.decode("utf-8", "replace") if msg else ""

    # ---- argument conversion ----

    @property
    def metrics(self):
        """Metric names, in index order."""
        return list(self._metrics)

    def metric(self, m):
        """Index of metric `m` (an index or a name)."""
        if isinstance(m, int) and not isinstance(m, bool):
            if not 0 <= m < self._k:
                raise InvalidArgumentError("metric %d out of range (K = %d)" % (m, self._k))
            return m
        try:
            return self._metric_index[_decode(_encode(m))]
        except KeyError:
            out = c_uint32()
            key = _encode(m)
            self._check(_ffi.lib().cgprop_graph_find_metric(self._handle(), key, len(key), byref(out)))
            return out.value

    def _costs(self, costs, what="costs"):
        k = self._k
        if isinstance(costs, dict):
            vals = [0] * k
            for name, v in costs.items():
                vals[self.metric(name)] = v
        elif isinstance(costs, int) and not isinstance(costs, bool):
            if k != 1:
                raise InvalidArgumentError("%s: one number given, the graph has %d metrics" % (what, k))
            vals = [costs]
        else:
            vals = list(costs)
            if len(vals) != k:
                raise InvalidArgumentError("%s: %d values given, the graph has %d metrics"
                                           % (what, len(vals), k))
        for v in vals:
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= _U64_MAX:
                raise InvalidArgumentError("%s: %r is not an integer in [0, 2^64)" % (what, v))
        return (c_uint64 * k)(*vals)

    def _node(self, node, create):
        if isinstance(node, int) and not isinstance(node, bool):
            if not 0 <= node <= 0xFFFFFFFF:
                raise InvalidArgumentError("function id %d out of range" % node)
            return node
        return self.add_function(node) if create else self.find_function(node)

    # ---- building ----

    def add_function(self, key):
        """Add a function by key (str or bytes), or return the id it already has."""
        raw = _encode(key)
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_add_node(self._handle(), raw, len(raw), byref(out)))
        return out.value

    def find_function(self, key):
        """The id of the function with `key`; NotFoundError if there is none."""
        raw = _encode(key)
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_find_node(self._handle(), raw, len(raw), byref(out)))
        return out.value

    def key(self, node):
        """The key of function `node` as str (bytes that are not UTF-8 survive
        as surrogate escapes; key_bytes() gives them raw)."""
        return _decode(self.key_bytes(node))

    def key_bytes(self, node):
        """The key of function `node` as bytes."""
        n = c_size_t()
        p = _ffi.lib().cgprop_graph_node_key(self._handle(), self._node(node, False), byref(n))
        if not p:
            raise InvalidArgumentError("function id %r out of range" % (node,))
        return ctypes.string_at(p, n.value)

    @property
    def function_count(self):
        return _ffi.lib().cgprop_graph_node_count(self._handle())

    @property
    def call_count(self):
        return _ffi.lib().cgprop_graph_edge_count(self._handle())

    def __len__(self):
        return self.function_count

    @property
    def generation(self):
        """Incremented by every successful mutation."""
        return _ffi.lib().cgprop_graph_generation(self._handle())

    @property
    def clamp_count(self):
        """On-the-fly clamps (Recorder(..., clamp=True)) in the figures this
        graph holds: each flush adds its recorder's, merge adds the
        source's; 0 when no clamping recorder wrote into it."""
        return _ffi.lib().cgprop_graph_clamp_count(self._handle())

    @property
    def floor_count(self):
        """Compensated figures in this graph that came out below 0 and were
        written as 0 (either compensation route): each flush adds its
        recorder's, merge adds the source's; 0 when no compensating recorder
        wrote into it."""
        return _ffi.lib().cgprop_graph_floor_count(self._handle())

    def add_self(self, node, costs, level=None):
        """Add self cost to a function. `level` is the activation class when
        known: 0 (non-recursive), 1, "deep" (≥ 2) or "rec" (≥ 1, lumped)."""
        node = self._node(node, True)
        c = self._costs(costs)
        if level is None:
            self._check(_ffi.lib().cgprop_graph_add_self(self._handle(), node, c))
        else:
            self._check(_ffi.lib().cgprop_graph_add_self_class(self._handle(), node, _level(level), c))

    def add_call(self, caller, callee, count=0, costs=None):
        """Add `count` calls caller → callee with inclusive `costs` (None when
        the input has none). Returns the call id."""
        caller = self._node(caller, True)
        callee = self._node(callee, True)
        c = None if costs is None else self._costs(costs)
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_add_edge(self._handle(), caller, callee, _count(count), c,
                                                     byref(out)))
        return out.value

    def add_call_class(self, caller, callee, caller_level, callee_level, count, costs):
        """Add calls between activations of known classes. Returns the call id."""
        caller = self._node(caller, True)
        callee = self._node(callee, True)
        c = self._costs(costs)
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_add_edge_class(self._handle(), caller, callee,
                                                           _level(caller_level), _level(callee_level),
                                                           _count(count), c, byref(out)))
        return out.value

    def add_spontaneous(self, node, count, costs):
        """Add `count` activations of `node` with no caller, of inclusive `costs`."""
        node = self._node(node, True)
        c = self._costs(costs)
        self._check(_ffi.lib().cgprop_graph_add_spontaneous(self._handle(), node, _count(count), c))

    def add_stack(self, frames, weights):
        """Add one sampled stack (root first, leaf last) with K weights."""
        ids = [self._node(f, True) for f in frames]
        arr = (c_uint32 * max(len(ids), 1))(*ids)
        w = self._costs(weights, "weights")
        self._check(_ffi.lib().cgprop_graph_add_stack(self._handle(), arr, len(ids), w))

    def find_call(self, caller, callee):
        """The id of the call caller → callee; NotFoundError if there is none."""
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_find_edge(self._handle(), self._node(caller, False),
                                                      self._node(callee, False), byref(out)))
        return out.value

    # ---- analyses ----

    def find_cycles(self):
        """Find recursion cycles; returns how many there are."""
        n = c_size_t()
        self._check(_ffi.lib().cgprop_graph_find_cycles(self._handle(), byref(n)))
        return n.value

    def collapse(self, share="auto"):
        """gprof-style collapse; `share` is "auto", "count" or "cost"."""
        try:
            s = _SHARES[share]
        except (KeyError, TypeError):
            raise InvalidArgumentError("share must be one of %s, not %r" % (sorted(_SHARES), share))
        self._check(_ffi.lib().cgprop_graph_collapse(self._handle(), s))

    def propagate(self):
        """gprof2dot's per-root propagation (after collapse)."""
        self._check(_ffi.lib().cgprop_graph_propagate(self._handle()))

    def split(self):
        """KCachegrind's recursive / non-recursive split."""
        self._check(_ffi.lib().cgprop_graph_split(self._handle()))

    def set_estimate(self, which="midpoint", budget=_ffi.CGPROP_WALK_BUDGET_DEFAULT):
        """What `total` shows for cycle members bounded by measured calls alone
        ("midpoint" of the absorbing walk and the heuristic, "walk" or
        "heuristic"), and the walk's work budget per member (0: no limit).
        Takes effect at the next propagate()."""
        kinds = {"midpoint": _ffi.CGPROP_EST_MIDPOINT, "walk": _ffi.CGPROP_EST_WALK,
                 "heuristic": _ffi.CGPROP_EST_HEURISTIC}
        if which not in kinds:
            raise ValueError("estimate must be midpoint, walk or heuristic, not %r" % (which,))
        self._check(_ffi.lib().cgprop_graph_set_estimate(self._handle(), kinds[which], float(budget)))

    def analyze(self, share="auto", split=True):
        """find_cycles, collapse, propagate and (unless split=False) split."""
        n = self.find_cycles()
        self.collapse(share)
        self.propagate()
        if split:
            self.split()
        return n

    # ---- reading ----

    def rows(self, kind, metric=0, arg=0):
        """Rows of iterator kind `kind` (a CGPROP_ITER_* number)."""
        if kind not in _ROWS:
            raise InvalidArgumentError("unknown iterator kind %r" % (kind,))
        return Rows(self, kind, self.metric(metric) if kind != _ffi.CGPROP_ITER_MEMBERS else 0, arg)

    def nodes(self, metric=0):
        """Every function as built: NodeRow."""
        return self.rows(_ffi.CGPROP_ITER_NODES, metric)

    def calls(self, metric=0):
        """Every call as built: CallRow."""
        return self.rows(_ffi.CGPROP_ITER_EDGES, metric)

    def callers(self, node, metric=0):
        """Calls into `node`: CallRow."""
        return self.rows(_ffi.CGPROP_ITER_CALLERS, metric, self._node(node, False))

    def callees(self, node, metric=0):
        """Calls out of `node`: CallRow."""
        return self.rows(_ffi.CGPROP_ITER_CALLEES, metric, self._node(node, False))

    def cycles(self, metric=0):
        """Cycles (after find_cycles; totals after collapse): CycleRow."""
        return self.rows(_ffi.CGPROP_ITER_CYCLES, metric)

    def members(self, cycle):
        """Members of cycle `cycle`: MemberRow."""
        return self.rows(_ffi.CGPROP_ITER_MEMBERS, 0, cycle)

    def totals(self, metric=0):
        """Propagated figures per function (after propagate): TotalRow."""
        return self.rows(_ffi.CGPROP_ITER_TOTALS, metric)

    def call_totals(self, metric=0):
        """Propagated figures per call (after propagate): CallTotalRow."""
        return self.rows(_ffi.CGPROP_ITER_EDGE_TOTALS, metric)

    def splits(self, metric=0):
        """Split figures per function (after split): SplitRow."""
        return self.rows(_ffi.CGPROP_ITER_SPLIT, metric)

    def call_splits(self, metric=0):
        """Split figures per call (after split): CallSplitRow."""
        return self.rows(_ffi.CGPROP_ITER_EDGE_SPLIT, metric)

    def get(self, kind, id, metric=0):
        """One row by id: kind is "nodes", "calls", "cycles", "totals",
        "call_totals", "splits" or "call_splits"; `id` a function id or key,
        call id or cycle id accordingly."""
        try:
            k = _GET_KINDS[kind]
        except (KeyError, TypeError):
            raise InvalidArgumentError("kind must be one of %s, not %r" % (sorted(_GET_KINDS), kind))
        if k in (_ffi.CGPROP_ITER_NODES, _ffi.CGPROP_ITER_TOTALS, _ffi.CGPROP_ITER_SPLIT):
            id = self._node(id, False)
        cls = _ffi.ROW_OF_KIND[k]
        row = cls()
        self._check(_ffi.lib().cgprop_graph_get_row(self._handle(), k, self.metric(metric), id,
                                                    byref(row), ctypes.sizeof(cls)))
        tup, st = _ROWS[k]
        return tup._make(st.unpack(ctypes.string_at(byref(row), ctypes.sizeof(cls))))

    def node_cycle(self, node):
        """The cycle id of `node`, or None (after find_cycles)."""
        out = c_uint32()
        self._check(_ffi.lib().cgprop_graph_node_cycle(self._handle(), self._node(node, False), byref(out)))
        return None if out.value == _ffi.CGPROP_NONE else out.value


def _level(level):
    try:
        return _LEVELS[level]
    except (KeyError, TypeError):
        raise InvalidArgumentError("level must be 0, 1, 'deep' or 'rec', not %r" % (level,))


def _count(count):
    if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= _U64_MAX:
        raise InvalidArgumentError("count %r is not an integer in [0, 2^64)" % (count,))
    return count


def version():
    """The loaded library's version string, e.g. "0.2.0"."""
    return _ffi.lib().cgprop_version_string().decode("ascii")
