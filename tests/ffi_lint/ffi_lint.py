"""FFI lint and a ctypes/cffi smoke test of the shared library.

1. Filter the public headers (cgprop.h first, then the others) the way a binding generator would: drop every
   preprocessor line except `#define CGPROP_x <integer>`, and drop the tokens
   CGPROP_API, CGPROP_BEGIN_DECLS, CGPROP_END_DECLS and CGPROP_DEPRECATED(...).
   cffi's FFI().cdef() must parse what is left: then Python (cffi, ctypes
   generators) and Rust (bindgen) can bind the header without a C shim.
2. With a shared library: load it through cffi (every declared function must
   resolve) and through plain ctypes, and call a few functions.

Usage: ffi_lint.py [--lib <libcgprop.so>] <header>...
Exit 77 (skipped) when cffi is missing, unless CGPROP_STRICT_TESTS is set.
"""
import ctypes
import os
import re
import sys

SKIP = 77


def filtered(text):
    # Join continuation lines first, so a multi-line directive goes as one.
    text = re.sub(r"\\\n", " ", text)
    out = []
    for line in text.split("\n"):
        if line.lstrip().startswith("#"):
            m = re.match(r"\s*#\s*define\s+(CGPROP_\w+)\s+(0[xX][0-9A-Fa-f]+|[0-9]+)[uUlL]*\s*(/\*.*\*/)?\s*$", line)
            if m:
                out.append(line)
            continue
        out.append(line)
    text = "\n".join(out)
    text = re.sub(r"\bCGPROP_DEPRECATED\s*\((?:[^()]|\([^()]*\))*\)", " ", text)
    text = re.sub(r"\b(CGPROP_API|CGPROP_BEGIN_DECLS|CGPROP_END_DECLS)\b", " ", text)
    return text


def declared_functions(text):
    # Names of CGPROP_API functions, read from the unfiltered header.
    body = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
    return sorted(set(re.findall(r"CGPROP_API[^;(]*?\b(cgprop_\w+)\s*\(", body)))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    libpath = None
    if len(args) >= 2 and args[0] == "--lib":
        libpath = args[1] or None
        args = args[2:]
    if not args:
        fail("usage: ffi_lint.py [--lib <libcgprop.so>] <header>...")
    strict = bool(os.environ.get("CGPROP_STRICT_TESTS"))
    # One translation unit, as a binding would see it: the headers in order
    # (their own #include lines are dropped by the filter).
    text = ""
    for header in args:
        with open(header, encoding="utf-8") as f:
            text += f.read() + "\n"
    src = filtered(text)
    funcs = declared_functions(text)
    if not funcs:
        fail("no CGPROP_API function found in " + " ".join(args))

    try:
        import cffi
    except ImportError:
        if strict:
            fail("python3 cffi is missing (CGPROP_STRICT_TESTS): apt-get install python3-cffi")
        print("skipped: python3 cffi is missing (apt-get install python3-cffi)")
        sys.exit(SKIP)

    ffi = cffi.FFI()
    try:
        ffi.cdef(src)
    except Exception as e:  # cffi raises CDefError, a parse error or a warning-made-error
        sys.stdout.write("---- filtered header ----\n" + src + "\n----\n")
        fail("cffi %s cannot parse the filtered header: %s: %s" % (cffi.__version__, type(e).__name__, e))
    print("cdef: cffi %s parsed %d functions" % (cffi.__version__, len(funcs)))

    # The version literals survive the filter as integer constants.
    # cffi exposes #define integers on any loaded library object; the process
    # itself (dlopen(NULL)) will do when there is no shared library.
    consts = ffi.dlopen(None)
    major = consts.CGPROP_VERSION_MAJOR
    minor = consts.CGPROP_VERSION_MINOR
    patch = consts.CGPROP_VERSION_PATCH
    number = consts.CGPROP_VERSION_NUMBER
    if number != major * 10000 + minor * 100 + patch:
        fail("CGPROP_VERSION_NUMBER %d != %d.%d.%d" % (number, major, minor, patch))

    if libpath is None:
        print("no shared library given (static build): load test not run")
        return

    # cffi ABI mode: every declared function must resolve in the library.
    lib = ffi.dlopen(libpath)
    missing = []
    for name in funcs:
        try:
            getattr(lib, name)
        except AttributeError:
            missing.append(name)
    if missing:
        fail("declared but not in %s: %s" % (libpath, ", ".join(missing)))
    if lib.cgprop_version() != number:
        fail("cffi: cgprop_version() = %d, header says %d" % (lib.cgprop_version(), number))

    # Plain ctypes, as a Python user without cffi would bind it.
    c = ctypes.CDLL(libpath)
    c.cgprop_version.restype = ctypes.c_uint32
    c.cgprop_version.argtypes = []
    c.cgprop_version_string.restype = ctypes.c_char_p
    c.cgprop_version_string.argtypes = []
    c.cgprop_strerror.restype = ctypes.c_char_p
    c.cgprop_strerror.argtypes = [ctypes.c_int]
    c.cgprop_graph_errmsg.restype = ctypes.c_char_p
    c.cgprop_graph_errmsg.argtypes = [ctypes.c_void_p]

    v = c.cgprop_version()
    if v != number:
        fail("ctypes: cgprop_version() = %d, header says %d" % (v, number))
    vs = c.cgprop_version_string()
    if vs != ("%d.%d.%d" % (major, minor, patch)).encode():
        fail("ctypes: cgprop_version_string() = %r" % (vs,))
    for code in (0, 1, -1, -2, -3, -4, -5, -6, 12345):
        s = c.cgprop_strerror(code)
        if not s:
            fail("ctypes: cgprop_strerror(%d) is NULL or empty" % code)
    if c.cgprop_graph_errmsg(None) is None:
        fail("ctypes: cgprop_graph_errmsg(NULL) returned NULL")
    print("ctypes: cgprop_version() = %d (%s)" % (v, vs.decode()))


if __name__ == "__main__":
    main()
