#!/usr/bin/env python3
"""Check that the public headers and both bindings agree.

Usage: check_agreement.py <source dir>

Parses include/cgprop.h, include/cgprop_io.h and include/cgprop_experimental.h
(comments and preprocessor lines dropped) and compares them with
  * the Python binding's table (bindings/python/cgprop/_ffi.py, imported
    without loading the library): FUNCTIONS, the row/option structs and the
    CGPROP_* constants;
  * the Rust raw layer (bindings/rust/src/sys.rs, parsed as text): the
    `extern "C"` block, `#[repr(C)]` structs and `pub const`s.
For each function the set of names must match both ways, and so must the
arity and the ABI class of the return value and of every argument
(integer width and signedness, double, pointer). Struct fields must match in
order, name and type; constants in value. Exit 0 when all agree, 1 with a
list of differences otherwise.
"""

import ctypes
import os
import re
import sys

HEADERS = ("include/cgprop.h", "include/cgprop_io.h", "include/cgprop_experimental.h")

# ---- C header -------------------------------------------------------------

C_SCALARS = {
    "uint32_t": ("u", 4), "int32_t": ("i", 4), "uint64_t": ("u", 8), "int64_t": ("i", 8),
    "uint16_t": ("u", 2), "int16_t": ("i", 2), "uint8_t": ("u", 1), "int8_t": ("i", 1),
    "size_t": ("usize", ctypes.sizeof(ctypes.c_size_t)), "int": ("i", 4), "unsigned": ("u", 4),
    "double": ("f", 8), "char": ("char", 1), "void": ("void", 0),
}


def strip_c(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return text


def eval_int(expr, consts):
    expr = expr.strip()
    expr = re.sub(r"\b(0[xX][0-9a-fA-F_]+|\d[\d_]*)[uUlL]*\b", lambda m: m.group(1), expr)
    expr = re.sub(r"\bas\s+\w+", "", expr)  # Rust casts
    expr = re.sub(r"\b([A-Za-z_]\w*)\b", lambda m: str(consts[m.group(1)]) if m.group(1) in consts
                  else m.group(1), expr)
    if not re.fullmatch(r"[\s0-9a-fA-FxX_()<>|+\-~]*", expr):
        raise ValueError("cannot evaluate %r" % expr)
    return eval(expr.replace("_", ""), {"__builtins__": {}})


class Header(object):
    def __init__(self, paths):
        self.functions = {}  # name -> (ret, [args])
        self.structs = {}  # name -> [(field, type, count)]
        self.consts = {}  # name -> int
        self.fnptr_types = set()
        self.opaque = set()
        for p in paths:
            self._parse(open(p, encoding="utf-8").read())

    def _parse(self, raw):
        # integer #defines; skip the version guard and function-like macros
        for m in re.finditer(r"^\s*#\s*define\s+(CGPROP_\w+)\s+\(?\s*(-?(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*)\s*\)?\s*$",
                             raw, re.M):
            self.consts[m.group(1)] = eval_int(m.group(2), {})
        text = strip_c(raw)
        text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
        text = re.sub(r"CGPROP_DEPRECATED\s*\([^)]*\)", " ", text)
        text = re.sub(r"\b(CGPROP_BEGIN_DECLS|CGPROP_END_DECLS)\b", " ", text)
        for m in re.finditer(r"\benum\s*\w*\s*\{(.*?)\}", text, re.S):
            for item in m.group(1).split(","):
                if "=" in item:
                    k, v = item.split("=", 1)
                    self.consts[k.strip()] = eval_int(v, self.consts)
        for m in re.finditer(r"typedef\s+[^;{]*?\(\s*\*\s*(\w+)\s*\)\s*\([^;]*\)\s*;", text):
            self.fnptr_types.add(m.group(1))
        for m in re.finditer(r"typedef\s+struct\s+(\w+)\s+(\w+)\s*;", text):
            self.opaque.add(m.group(2))
        for m in re.finditer(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
            fields = []
            for decl in m.group(2).split(";"):
                decl = " ".join(decl.split())
                if decl:
                    fields.append(self._field(decl))
            self.structs[m.group(3)] = fields
        for m in re.finditer(r"\bCGPROP_API\b([^;]*);", text):
            decl = " ".join(m.group(1).split())
            fm = re.match(r"(.*?)\b(cgprop_\w+)\s*\((.*)\)\s*$", decl)
            if not fm:
                raise ValueError("cannot parse declaration: %s" % decl)
            ret, name, params = fm.groups()
            args = [] if params.strip() in ("", "void") else [self._param(p) for p in split_top(params)]
            self.functions[name] = (self._ctype(ret), args)

    def _ctype(self, t):
        t = re.sub(r"\b(const|volatile|struct|enum|restrict)\b", " ", t)
        if "*" in t or "(" in t:
            return ("ptr", 0)
        t = " ".join(t.split())
        if t in C_SCALARS:
            return C_SCALARS[t]
        if t in self.fnptr_types:
            return ("ptr", 0)
        raise ValueError("unknown C type %r" % t)

    def _param(self, p):
        p = p.strip()
        if re.search(r"\(\s*\*", p):  # function pointer parameter
            return ("ptr", 0)
        if "[" in p:
            return ("ptr", 0)
        tm = re.match(r"(.*?)(\w+)$", p)
        return self._ctype(tm.group(1))

    def _field(self, decl):
        fp = re.match(r".*\(\s*\*\s*(\w+)\s*\)\s*\(.*\)$", decl)
        if fp:
            return (fp.group(1), ("ptr", 0), 1)
        am = re.match(r"(.*?)(\w+)\s*\[([^\]]+)\]$", decl)
        if am:
            return (am.group(2), self._ctype(am.group(1)), eval_int(am.group(3), self.consts))
        tm = re.match(r"(.*?)(\w+)$", decl)
        return (tm.group(2), self._ctype(tm.group(1)), 1)


def split_top(s, sep=","):
    s = s.replace("->", "\x00")  # the '>' of a Rust return arrow is no bracket
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "(<[":
            depth += 1
        elif ch in ")>]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur))
    return [x.replace("\x00", "->") for x in out]


def same(c, other, strict_usize):
    """C canonical type `c` against a binding's `other`."""
    if c[0] == "usize" and not strict_usize:
        c = ("u", c[1])
    if c[0] == "char":
        return other in (("i", 1), ("u", 1), ("char", 1))
    return c == other


# ---- Python binding -------------------------------------------------------

def py_type(t):
    if t is None:
        return ("void", 0)
    if t is ctypes.c_double:
        return ("f", 8)
    if t in (ctypes.c_void_p, ctypes.c_char_p, ctypes.c_wchar_p):
        return ("ptr", 0)
    if isinstance(t, type) and issubclass(t, (ctypes._Pointer, ctypes._CFuncPtr)):
        return ("ptr", 0)
    if t is ctypes.c_char:
        return ("char", 1)
    if isinstance(t, type) and issubclass(t, ctypes._SimpleCData) and t._type_ in "bBhHiIlLqQnN":
        signed = t(-1).value == -1
        return ("i" if signed else "u", ctypes.sizeof(t))
    return ("?", repr(t))


def py_field(t):
    if isinstance(t, type) and issubclass(t, ctypes.Array):
        return py_type(t._type_), t._length_
    return py_type(t), 1


def check_python(h, src, errs):
    sys.path.insert(0, os.path.join(src, "bindings", "python"))
    from cgprop import _ffi
    fn = _ffi.FUNCTIONS
    for name in sorted(set(h.functions) - set(fn)):
        errs.append("python: %s is declared in the headers but missing from FUNCTIONS" % name)
    for name in sorted(set(fn) - set(h.functions)):
        errs.append("python: FUNCTIONS has %s, which the headers do not declare" % name)
    for name in sorted(set(fn) & set(h.functions)):
        cret, cargs = h.functions[name]
        pret, pargs = fn[name]
        if not same(cret, py_type(pret), False):
            errs.append("python: %s returns %s in C, %s in FUNCTIONS" % (name, cret, py_type(pret)))
        if len(cargs) != len(pargs):
            errs.append("python: %s takes %d arguments in C, %d in FUNCTIONS" % (name, len(cargs), len(pargs)))
            continue
        for i, (ca, pa) in enumerate(zip(cargs, pargs)):
            if not same(ca, py_type(pa), False):
                errs.append("python: %s argument %d is %s in C, %s in FUNCTIONS" % (name, i + 1, ca, py_type(pa)))
    for name in sorted(set(h.structs) - set(_ffi.STRUCTS)):
        errs.append("python: struct %s is missing from STRUCTS" % name)
    for name in sorted(set(_ffi.STRUCTS) - set(h.structs)):
        errs.append("python: STRUCTS has %s, which the headers do not define" % name)
    for name in sorted(set(h.structs) & set(_ffi.STRUCTS)):
        cf = h.structs[name]
        pf = [(f, ) + py_field(t) for f, t in _ffi.STRUCTS[name]._fields_]
        if len(cf) != len(pf):
            errs.append("python: struct %s has %d fields in C, %d in ctypes" % (name, len(cf), len(pf)))
            continue
        for (cn, ct, cc), (pn, pt, pc) in zip(cf, pf):
            if cn != pn or not same(ct, pt, False) or cc != pc:
                errs.append("python: %s.%s is %s[%d] in C; ctypes has %s %s[%d]" % (name, cn, ct, cc, pn, pt, pc))
    pconsts = {k: getattr(_ffi, k) for k in dir(_ffi) if k.startswith("CGPROP_")}
    for name in sorted(set(h.consts) - set(pconsts)):
        errs.append("python: constant %s is missing from _ffi" % name)
    for name in sorted(set(pconsts) - set(h.consts)):
        errs.append("python: _ffi has %s, which the headers do not define" % name)
    for name in sorted(set(pconsts) & set(h.consts)):
        if pconsts[name] != h.consts[name]:
            errs.append("python: %s is %d in C, %d in _ffi" % (name, h.consts[name], pconsts[name]))


# ---- Rust binding ---------------------------------------------------------

RUST_KEYWORDS = {"self", "type", "match", "ref", "move", "fn", "impl", "mod", "loop", "box", "use", "where"}

RUST_SCALARS = {
    "u8": ("u", 1), "i8": ("i", 1), "u16": ("u", 2), "i16": ("i", 2), "u32": ("u", 4), "i32": ("i", 4),
    "u64": ("u", 8), "i64": ("i", 8), "usize": ("usize", ctypes.sizeof(ctypes.c_size_t)), "f64": ("f", 8),
    "c_int": ("i", 4), "c_uint": ("u", 4), "c_char": ("char", 1), "c_double": ("f", 8),
    "size_t": ("usize", ctypes.sizeof(ctypes.c_size_t)), "()": ("void", 0),
}


def rust_type(t, aliases):
    t = " ".join(t.split())
    t = re.sub(r"^(::)?(std::os::raw::|core::ffi::|std::ffi::|libc::)", "", t)
    if t.startswith("*") or t.startswith("Option<") or t.startswith("unsafe extern") or t.startswith("extern"):
        return ("ptr", 0)
    if t in aliases:
        return rust_type(aliases[t], aliases)
    if t in RUST_SCALARS:
        return RUST_SCALARS[t]
    return ("?", t)


def check_rust(h, src, errs):
    text = open(os.path.join(src, "bindings", "rust", "src", "sys.rs"), encoding="utf-8").read()
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    aliases = {m.group(1): m.group(2) for m in re.finditer(r"pub\s+type\s+(\w+)\s*=\s*([^;]+);", text)}
    consts = {}
    for m in re.finditer(r"pub\s+const\s+(\w+)\s*:\s*[^=]+=\s*([^;]+);", text):
        consts[m.group(1)] = eval_int(m.group(2), consts)
    funcs = {}
    for block in re.finditer(r"extern\s+\"C\"\s*\{(.*?)\n\}", text, re.S):
        for m in re.finditer(r"pub\s+fn\s+(\w+)\s*\((.*?)\)\s*(->\s*([^;]+))?;", block.group(1), re.S):
            args = [a.split(":", 1)[1] for a in split_top(m.group(2)) if a.strip()]
            funcs[m.group(1)] = (rust_type(m.group(4) or "()", aliases), [rust_type(a, aliases) for a in args])
    structs = {}
    opaque = set()
    for m in re.finditer(r"#\[repr\(C\)\][^{;]*?pub\s+struct\s+(\w+)\s*\{(.*?)\n\}", text, re.S):
        fields = []
        if re.fullmatch(r"\s*_private\s*:\s*\[u8;\s*0\]\s*,?\s*", m.group(2)):
            opaque.add(m.group(1))
            continue
        for f in split_top(m.group(2)):
            f = f.strip()
            if not f:
                continue
            fm = re.match(r"pub\s+(\w+)\s*:\s*(.*)$", f, re.S)
            if not fm:
                errs.append("rust: cannot parse field %r of %s" % (f, m.group(1)))
                continue
            fname = fm.group(1)
            if fname.endswith("_") and fname[:-1] in RUST_KEYWORDS:
                fname = fname[:-1]  # `self` is a keyword (and cannot be a raw identifier)
            ft = fm.group(2).strip()
            am = re.match(r"\[(.*);(.*)\]$", ft, re.S)
            if am:
                fields.append((fname, rust_type(am.group(1), aliases), eval_int(am.group(2), consts)))
            else:
                fields.append((fname, rust_type(ft, aliases), 1))
        structs[m.group(1)] = fields
    for name in sorted(opaque ^ h.opaque):
        errs.append("rust: opaque type %s is in %s only" % (name, "sys.rs" if name in opaque else "the headers"))
    for name in sorted(set(h.functions) - set(funcs)):
        errs.append("rust: %s is declared in the headers but missing from sys.rs" % name)
    for name in sorted(set(funcs) - set(h.functions)):
        errs.append("rust: sys.rs declares %s, which the headers do not" % name)
    for name in sorted(set(funcs) & set(h.functions)):
        cret, cargs = h.functions[name]
        rret, rargs = funcs[name]
        if not same(cret, rret, True):
            errs.append("rust: %s returns %s in C, %s in sys.rs" % (name, cret, rret))
        if len(cargs) != len(rargs):
            errs.append("rust: %s takes %d arguments in C, %d in sys.rs" % (name, len(cargs), len(rargs)))
            continue
        for i, (ca, ra) in enumerate(zip(cargs, rargs)):
            if not same(ca, ra, True):
                errs.append("rust: %s argument %d is %s in C, %s in sys.rs" % (name, i + 1, ca, ra))
    for name in sorted(set(h.structs) - set(structs)):
        errs.append("rust: struct %s is missing from sys.rs" % name)
    for name in sorted(set(structs) - set(h.structs)):
        errs.append("rust: sys.rs has struct %s, which the headers do not define" % name)
    for name in sorted(set(h.structs) & set(structs)):
        cf, rf = h.structs[name], structs[name]
        if len(cf) != len(rf):
            errs.append("rust: struct %s has %d fields in C, %d in sys.rs" % (name, len(cf), len(rf)))
            continue
        for (cn, ct, cc), (rn, rt, rc) in zip(cf, rf):
            if cn != rn or not same(ct, rt, True) or cc != rc:
                errs.append("rust: %s.%s is %s[%d] in C; sys.rs has %s %s[%d]" % (name, cn, ct, cc, rn, rt, rc))
    for name in sorted(set(h.consts) - set(consts)):
        errs.append("rust: constant %s is missing from sys.rs" % name)
    for name in sorted(set(consts) - set(h.consts)):
        errs.append("rust: sys.rs has constant %s, which the headers do not define" % name)
    for name in sorted(set(consts) & set(h.consts)):
        if consts[name] != h.consts[name]:
            errs.append("rust: %s is %d in C, %d in sys.rs" % (name, h.consts[name], consts[name]))


def main(argv):
    src = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    h = Header([os.path.join(src, p) for p in HEADERS])
    if len(h.functions) < 30:
        print("parsed only %d functions from the headers: the parser is broken" % len(h.functions))
        return 1
    errs = []
    check_python(h, src, errs)
    check_rust(h, src, errs)
    for e in errs:
        print(e)
    print("%d functions, %d structs, %d constants in the headers; %d differences"
          % (len(h.functions), len(h.structs), len(h.consts), len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
