"""Exceptions: one class per library status code, each carrying the
library's own message (cgprop_graph_errmsg, or cgprop_strerror where there
is no graph)."""

from . import _ffi


class CgpropError(Exception):
    """A cgprop call failed. `code` is the library's status code, `message`
    the library's explanation."""

    code = None

    def __init__(self, message, code=None):
        Exception.__init__(self, message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self):
        return self.message


class OutOfMemoryError(CgpropError, MemoryError):
    """CGPROP_ENOMEM: an allocation failed; the graph is unchanged."""
    code = _ffi.CGPROP_ENOMEM


class InvalidArgumentError(CgpropError, ValueError):
    """CGPROP_EINVAL: a bad argument (id out of range, wrong number of costs, ...)."""
    code = _ffi.CGPROP_EINVAL


class NotFoundError(CgpropError, LookupError):
    """CGPROP_ENOTFOUND: no such key, metric or call."""
    code = _ffi.CGPROP_ENOTFOUND


class StateError(CgpropError):
    """CGPROP_ESTATE: call out of order (an analysis has not run, a stale
    iterator, a closed graph)."""
    code = _ffi.CGPROP_ESTATE


class CostOverflowError(CgpropError, OverflowError):
    """CGPROP_EOVERFLOW: a sum would overflow uint64; nothing was added."""
    code = _ffi.CGPROP_EOVERFLOW


class FormatError(CgpropError, ValueError):
    """CGPROP_EFORMAT: malformed input (the message names file, line and reason)."""
    code = _ffi.CGPROP_EFORMAT


class WriteError(CgpropError):
    """CGPROP_EWRITE: a writer's output (callback or file) failed."""
    code = _ffi.CGPROP_EWRITE


_BY_CODE = {cls.code: cls for cls in (OutOfMemoryError, InvalidArgumentError, NotFoundError,
                                      StateError, CostOverflowError, FormatError, WriteError)}


def error_for(code, message):
    """The exception for status `code` with `message`."""
    return _BY_CODE.get(code, CgpropError)(message, code)


def strerror(code):
    """The library's static text for a status code."""
    text = _ffi.lib().cgprop_strerror(code)
    return text.decode("utf-8", "replace") if text else "unknown status code"
