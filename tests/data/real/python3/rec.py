# Recursion inside CPython's C code (no import: the start-up stays small):
# the PEG parser, compiler and AST optimiser on a deeply nested expression;
# repr(), == and hash() on nested containers; and Python code re-entered
# from C through sort keys that sort again.
def build(n):
    return [build(n - 1), (n, str(n))] if n else []

def nest(n):
    return (nest(n - 1), n) if n else ()

def key(n):
    return sorted([2, 1], key=lambda x: key(n - 1) if n else x)[0] if n else n

a, b = build(16), build(16)
shown = repr(a)
same = a == b
h = hash(nest(16))
value = eval("(" * 30 + "1+2" + ")" * 30)
ordered = sorted([3, 1, 2], key=lambda x: key(6) + x)
print(len(shown), same, h, value, ordered)
