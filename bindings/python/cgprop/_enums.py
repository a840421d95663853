"""Flag sets (enum.IntFlag) and kinds (enum.IntEnum) of the C API.

Members keep the C names without their prefix (CGPROP_F_IN_CYCLE is
Flag.IN_CYCLE, CGPROP_EST_WALK is Estimate.WALK). Being int subclasses, they
compare equal to the raw numbers and go to the library unchanged.
"""

from __future__ import annotations

import enum
from typing import Optional, Type, TypeVar, Union

from . import _ffi

__all__ = ["Status", "Flag", "Reason", "Inexact", "Estimate", "IterKind", "Level", "Share", "InputFormat",
           "KeyMode", "Recursion", "ReadFlag", "OutputFormat", "WriteFlag", "DotCycles", "Compensation", "RecorderFlag"]


class Status(enum.IntEnum):
    """A status code (enum cgprop_status); errors raise CgpropError subclasses."""
    OK = _ffi.CGPROP_OK
    DONE = _ffi.CGPROP_DONE
    ENOMEM = _ffi.CGPROP_ENOMEM
    EINVAL = _ffi.CGPROP_EINVAL
    ENOTFOUND = _ffi.CGPROP_ENOTFOUND
    ESTATE = _ffi.CGPROP_ESTATE
    EOVERFLOW = _ffi.CGPROP_EOVERFLOW
    EFORMAT = _ffi.CGPROP_EFORMAT
    EWRITE = _ffi.CGPROP_EWRITE


class Flag(enum.IntFlag):
    """Flag bits of function, call and cycle rows (CGPROP_F_*)."""
    IN_CYCLE = _ffi.CGPROP_F_IN_CYCLE
    SELF_RECURSIVE = _ffi.CGPROP_F_SELF_RECURSIVE
    SPONTANEOUS = _ffi.CGPROP_F_SPONTANEOUS
    NO_CALLERS = _ffi.CGPROP_F_NO_CALLERS
    HAS_COST = _ffi.CGPROP_F_HAS_COST
    SELF_CALL = _ffi.CGPROP_F_SELF_CALL
    INTRA_CYCLE = _ffi.CGPROP_F_INTRA_CYCLE
    ENTRY_ASSUMED = _ffi.CGPROP_F_ENTRY_ASSUMED
    NOT_INCLUSIVE = _ffi.CGPROP_F_NOT_INCLUSIVE
    NO_TOTAL = _ffi.CGPROP_F_NO_TOTAL
    ROOT = _ffi.CGPROP_F_ROOT
    ESTIMATE = _ffi.CGPROP_F_ESTIMATE
    NO_BOUNDS = _ffi.CGPROP_F_NO_BOUNDS
    CLAMPED = _ffi.CGPROP_F_CLAMPED
    NO_WALK = _ffi.CGPROP_F_NO_WALK


class Reason(enum.IntFlag):
    """Why a total is an estimate or has no interval (CGPROP_R_*)."""
    SIDES_DISAGREE = _ffi.CGPROP_R_SIDES_DISAGREE
    BELOW_SELF = _ffi.CGPROP_R_BELOW_SELF
    RECURSION = _ffi.CGPROP_R_RECURSION
    ENTRY_UNKNOWN = _ffi.CGPROP_R_ENTRY_UNKNOWN
    UNMEASURED = _ffi.CGPROP_R_UNMEASURED
    OVERFLOW = _ffi.CGPROP_R_OVERFLOW
    UNROOTED = _ffi.CGPROP_R_UNROOTED


class Inexact(enum.IntFlag):
    """Split figures that are not exact (CGPROP_X_*)."""
    S_N = _ffi.CGPROP_X_S_N
    S_R = _ffi.CGPROP_X_S_R
    C_N = _ffi.CGPROP_X_C_N
    C_R = _ffi.CGPROP_X_C_R
    D = _ffi.CGPROP_X_D
    C_NN = _ffi.CGPROP_X_C_NN
    C_NR = _ffi.CGPROP_X_C_NR
    C_ND = _ffi.CGPROP_X_C_ND
    C_RN = _ffi.CGPROP_X_C_RN
    C_RR = _ffi.CGPROP_X_C_RR
    C_RD = _ffi.CGPROP_X_C_RD


class Estimate(enum.IntEnum):
    """What a TotalRow's `total` is (enum cgprop_estimate); also Graph.set_estimate's choice."""
    EXACT = _ffi.CGPROP_EST_EXACT
    HEURISTIC = _ffi.CGPROP_EST_HEURISTIC
    SHARES = _ffi.CGPROP_EST_SHARES
    WALK = _ffi.CGPROP_EST_WALK
    MIDPOINT = _ffi.CGPROP_EST_MIDPOINT
    BUDGET = _ffi.CGPROP_EST_BUDGET
    MEASURED = _ffi.CGPROP_EST_MEASURED


class IterKind(enum.IntEnum):
    """Iterator kinds (CGPROP_ITER_*), for Graph.rows()."""
    NODES = _ffi.CGPROP_ITER_NODES
    EDGES = _ffi.CGPROP_ITER_EDGES
    CALLERS = _ffi.CGPROP_ITER_CALLERS
    CALLEES = _ffi.CGPROP_ITER_CALLEES
    CYCLES = _ffi.CGPROP_ITER_CYCLES
    MEMBERS = _ffi.CGPROP_ITER_MEMBERS
    TOTALS = _ffi.CGPROP_ITER_TOTALS
    EDGE_TOTALS = _ffi.CGPROP_ITER_EDGE_TOTALS
    SPLIT = _ffi.CGPROP_ITER_SPLIT
    EDGE_SPLIT = _ffi.CGPROP_ITER_EDGE_SPLIT


class Level(enum.IntEnum):
    """Activation class of a cost (CGPROP_LEVEL_*): L0 non-recursive, L1
    first-level recursive, DEEP level 2 or deeper, REC level 1 or deeper lumped."""
    L0 = _ffi.CGPROP_LEVEL_0
    L1 = _ffi.CGPROP_LEVEL_1
    DEEP = _ffi.CGPROP_LEVEL_DEEP
    REC = _ffi.CGPROP_LEVEL_REC


class Share(enum.IntEnum):
    """How collapse shares a callee's cost among its callers (CGPROP_SHARE_*)."""
    AUTO = _ffi.CGPROP_SHARE_AUTO
    COUNT = _ffi.CGPROP_SHARE_COUNT
    COST = _ffi.CGPROP_SHARE_COST


class InputFormat(enum.IntEnum):
    """Input formats of the readers (enum cgprop_input_format). A library
    without a reader refuses its format with InvalidArgumentError. CALLGRIND
    also reads PHP Xdebug's profiles; V8 reads .cpuprofile files, Chrome
    traces and .heapprofile files."""
    AUTO = _ffi.CGPROP_INPUT_AUTO
    CALLGRIND = _ffi.CGPROP_INPUT_CALLGRIND
    FOLDED = _ffi.CGPROP_INPUT_FOLDED
    EVENTS = _ffi.CGPROP_INPUT_EVENTS
    PERF = _ffi.CGPROP_INPUT_PERF
    PPROF = _ffi.CGPROP_INPUT_PPROF
    V8 = _ffi.CGPROP_INPUT_V8
    PSTATS = _ffi.CGPROP_INPUT_PSTATS
    GPROF = _ffi.CGPROP_INPUT_GPROF
    # The tool's other names for the same formats.
    CPUPROFILE = _ffi.CGPROP_INPUT_V8
    CPROFILE = _ffi.CGPROP_INPUT_PSTATS


class KeyMode(enum.IntEnum):
    """How readers build function keys (CGPROP_KEY_*)."""
    FULL = _ffi.CGPROP_KEY_FULL
    NAME = _ffi.CGPROP_KEY_NAME


class Recursion(enum.IntEnum):
    """What a reader could tell about recursion (CGPROP_RECS_*)."""
    NONE = _ffi.CGPROP_RECS_NONE
    NAMES = _ffi.CGPROP_RECS_NAMES
    WITHHELD = _ffi.CGPROP_RECS_WITHHELD
    STACKS = _ffi.CGPROP_RECS_STACKS
    UNFOLDED = _ffi.CGPROP_RECS_UNFOLDED
    STATED = _ffi.CGPROP_RECS_STATED
    COUNTS = _ffi.CGPROP_RECS_COUNTS


class ReadFlag(enum.IntFlag):
    """What else a reader found (CGPROP_RI_*)."""
    TOTALS = _ffi.CGPROP_RI_TOTALS
    CALLER_CONTEXTS = _ffi.CGPROP_RI_CALLER_CONTEXTS
    PLAIN_SELF_CALLS = _ffi.CGPROP_RI_PLAIN_SELF_CALLS
    PLAIN_CYCLES = _ffi.CGPROP_RI_PLAIN_CYCLES
    DEFAULT_NAMED = _ffi.CGPROP_RI_DEFAULT_NAMED


class OutputFormat(enum.IntEnum):
    """Writer formats (CGPROP_FORMAT_*)."""
    TEXT = _ffi.CGPROP_FORMAT_TEXT
    JSON = _ffi.CGPROP_FORMAT_JSON
    DOT = _ffi.CGPROP_FORMAT_DOT
    CALLGRIND = _ffi.CGPROP_FORMAT_CALLGRIND
    FLAMEGRAPH = _ffi.CGPROP_FORMAT_FLAMEGRAPH


class WriteFlag(enum.IntFlag):
    """Writer option bits (CGPROP_W_*)."""
    HEURISTIC_ONLY = _ffi.CGPROP_W_HEURISTIC_ONLY
    NO_CLASSES = _ffi.CGPROP_W_NO_CLASSES
    NO_COMPRESSION = _ffi.CGPROP_W_NO_COMPRESSION
    NO_PRUNE = _ffi.CGPROP_W_NO_PRUNE
    BOUNDS = _ffi.CGPROP_W_BOUNDS
    STRIP = _ffi.CGPROP_W_STRIP
    WRAP = _ffi.CGPROP_W_WRAP
    PRUNE_TEXT = _ffi.CGPROP_W_PRUNE_TEXT
    ICICLE = _ffi.CGPROP_W_ICICLE


class Label(enum.IntFlag):
    """What DOT boxes and arrows show (CGPROP_LABEL_*)."""
    TOTAL_PCT = _ffi.CGPROP_LABEL_TOTAL_PCT
    SELF_PCT = _ffi.CGPROP_LABEL_SELF_PCT
    CALLS = _ffi.CGPROP_LABEL_CALLS
    TOTAL = _ffi.CGPROP_LABEL_TOTAL
    SELF = _ffi.CGPROP_LABEL_SELF
    DEFAULT = _ffi.CGPROP_LABEL_DEFAULT


class Colormap(enum.IntEnum):
    """DOT colour maps, gprof2dot's (CGPROP_COLORMAP_*)."""
    COLOR = _ffi.CGPROP_COLORMAP_COLOR
    PINK = _ffi.CGPROP_COLORMAP_PINK
    GRAY = _ffi.CGPROP_COLORMAP_GRAY
    BW = _ffi.CGPROP_COLORMAP_BW
    PRINT = _ffi.CGPROP_COLORMAP_PRINT


class DotCycles(enum.IntEnum):
    """How the DOT writer draws cycles (CGPROP_DOT_CYCLES_*)."""
    AUTO = _ffi.CGPROP_DOT_CYCLES_AUTO
    CLUSTER = _ffi.CGPROP_DOT_CYCLES_CLUSTER
    LABEL = _ffi.CGPROP_DOT_CYCLES_LABEL
    NONE = _ffi.CGPROP_DOT_CYCLES_NONE


class Compensation(enum.IntEnum):
    """Recorder overhead compensation (CGPROP_COMP_*)."""
    OFF = _ffi.CGPROP_COMP_OFF
    ONLINE = _ffi.CGPROP_COMP_ONLINE
    POSTMORTEM = _ffi.CGPROP_COMP_POSTMORTEM


class RecorderFlag(enum.IntFlag):
    """Recorder option bits (CGPROP_REC_*)."""
    CLAMP = _ffi.CGPROP_REC_CLAMP
    CONTEXTS = _ffi.CGPROP_REC_CONTEXTS


E = TypeVar("E", bound=enum.IntEnum)


def enum_arg(cls: Type[E], value: Union[E, int, str, None], what: str, default: Optional[E] = None) -> E:
    """`value` as a member of `cls`: a member, its number, or its name in any
    case ("json", "JSON"); None gives `default`. InvalidArgumentError otherwise."""
    from ._errors import InvalidArgumentError
    if value is None and default is not None:
        return default
    if isinstance(value, str):
        try:
            return cls[value.upper()]
        except KeyError:
            pass
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            return cls(value)
        except ValueError:
            pass
    raise InvalidArgumentError("%s must be one of %s, not %r"
                               % (what, ", ".join(m.name.lower() for m in cls), value), _ffi.CGPROP_EINVAL)


def kind_or_int(cls: Type[E], value: int) -> Union[E, int]:
    """`value` as a member of `cls`, or the plain int when a newer library
    returns a kind this binding does not know."""
    try:
        return cls(value)
    except ValueError:
        return value
