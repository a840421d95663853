"""Two named tuples: Python compiles the __new__ of each from a string, so
both are labelled ('<string>', 1, '<lambda>'), one label for two functions,
and cProfile's statistics keep one of them. helper calls both, inside the
cycle walk -> helper -> walk."""
import collections

A = collections.namedtuple("A", "x")
B = collections.namedtuple("B", "y")


def walk(n):
    return helper(n) if n else 0


def helper(n):
    return len(A(n)) + len(B(n)) + walk(n - 1)


def main():
    for _ in range(40):
        walk(25)


if __name__ == "__main__":
    main()
