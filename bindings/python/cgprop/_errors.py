"""Exceptions: one class per library status code, each carrying the
library's own message (cgprop_graph_errmsg, or cgprop_strerror where there
is no graph). Each is also the matching built-in exception (MemoryError,
ValueError, LookupError, ...), so generic handlers work."""

from __future__ import annotations

import errno as _errno
from typing import Dict, Iterable, Optional, Type

from . import _ffi

__all__ = ["CgpropError", "OutOfMemoryError", "InvalidArgumentError", "NotFoundError", "StateError",
           "CostOverflowError", "FormatError", "WriteError", "FunctionNotFoundError", "AmbiguousNameError",
           "OpenError", "ProfileNotFoundError", "ProfilePermissionError", "strerror"]


class CgpropError(Exception):
    """A cgprop call failed. `code` is the library's status code, `message`
    the library's explanation."""

    code: Optional[int] = None

    def __init__(self, message: str, code: Optional[int] = None) -> None:
        Exception.__init__(self, message)
        self.message = message
        if code is not None:
            self.code = code

    def __str__(self) -> str:
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
    """CGPROP_EFORMAT: malformed input. `file`, `line` (0 when no line
    applies; byte offset + 1 for binary inputs) and `reason` say where and why;
    str() is "file:line: reason"."""
    code = _ffi.CGPROP_EFORMAT
    file: str = ""
    line: int = 0
    reason: str = ""


class WriteError(CgpropError):
    """CGPROP_EWRITE: a writer's output (callback or file) failed."""
    code = _ffi.CGPROP_EWRITE


class FunctionNotFoundError(NotFoundError, KeyError):
    """No function has this key or display name (graph["name"] and every
    method taking a function)."""

    def __str__(self) -> str:  # not KeyError's repr() of the message
        return self.message


class AmbiguousNameError(NotFoundError):
    """A display name that several functions share; `keys` lists their keys.
    Look the function up by one of them instead."""

    def __init__(self, name: str, keys: Iterable[str]) -> None:
        self.name = name
        self.keys = sorted(keys)
        CgpropError.__init__(self, "%r is the display name of %d functions; use one of their keys: %s"
                             % (name, len(self.keys), ", ".join(repr(k) for k in self.keys)),
                             _ffi.CGPROP_ENOTFOUND)


class OpenError(NotFoundError, OSError):
    """A reader could not open or read its file. Also an OSError with the
    errno, strerror and filename of the failure; the subclasses below are
    FileNotFoundError and PermissionError too."""

    def __init__(self, message: str, code: int, err: int, path: str) -> None:
        OSError.__init__(self, err, _os_strerror(err), path)
        self.message = message
        self.code = code

    def __str__(self) -> str:
        return self.message


class ProfileNotFoundError(OpenError, FileNotFoundError):
    """The file does not exist (ENOENT)."""


class ProfilePermissionError(OpenError, PermissionError):
    """The file may not be read (EACCES, EPERM)."""


class ProfileIsADirectoryError(OpenError, IsADirectoryError):
    """The path names a directory (EISDIR)."""


def _os_strerror(err: int) -> str:
    import os
    return os.strerror(err) if err else "cannot open"


_BY_ERRNO: Dict[int, Type[OpenError]] = {_errno.ENOENT: ProfileNotFoundError, _errno.ENOTDIR: ProfileNotFoundError,
                                         _errno.EACCES: ProfilePermissionError, _errno.EPERM: ProfilePermissionError,
                                         _errno.EISDIR: ProfileIsADirectoryError}


def open_error(code: int, message: str, err: int, path: str) -> OpenError:
    """The OpenError subclass for errno `err`."""
    return _BY_ERRNO.get(err, OpenError)(message, code, err, path)


_BY_CODE: Dict[int, Type[CgpropError]] = {
    cls.code: cls for cls in (OutOfMemoryError, InvalidArgumentError, NotFoundError, StateError,
                              CostOverflowError, FormatError, WriteError) if cls.code is not None}


def error_for(code: int, message: str) -> CgpropError:
    """The exception for status `code` with `message`."""
    return _BY_CODE.get(code, CgpropError)(message, code)


def strerror(code: int) -> str:
    """The library's static text for a status code."""
    text = _ffi.lib().cgprop_strerror(code)
    return text.decode("utf-8", "replace") if text else "unknown status code"
