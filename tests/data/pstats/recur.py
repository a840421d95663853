"""A small recursive program for the pstats reader's fixture: self recursion
(fib), mutual recursion (an expression evaluator: expr -> term -> factor ->
expr), and json.dumps on nested data (the json encoder recurses)."""
import json


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def expr(toks, i):
    v, i = term(toks, i)
    while i < len(toks) and toks[i] in "+-":
        op = toks[i]
        w, i = term(toks, i + 1)
        v = v + w if op == "+" else v - w
    return v, i


def term(toks, i):
    v, i = factor(toks, i)
    while i < len(toks) and toks[i] in "*":
        w, i = factor(toks, i + 1)
        v = v * w
    return v, i


def factor(toks, i):
    if toks[i] == "(":
        v, i = expr(toks, i + 1)
        return v, i + 1
    return int(toks[i]), i + 1


def nest(d):
    return {"k": nest(d - 1), "l": [d, d + 1]} if d else [1, 2, 3]


def main():
    total = 0
    for _ in range(20):
        total += fib(15)
    toks = list("((1+2)*(3+(4*5)))-((6*7)+(8-(9*(1+1))))")
    for _ in range(300):
        total += expr(toks, 0)[0]
    for _ in range(50):
        total += len(json.dumps(nest(12)))
    return total


if __name__ == "__main__":
    print(main())
