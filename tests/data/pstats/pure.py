"""A small program for the fixtures of the pure-Python profile module
(python -m profile): self recursion (fib), a closure, a generator and a
method, so that the code object of the script holds nested code objects."""


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def adder(k):
    def add(x):
        return x + k
    return add


def evens(n):
    for i in range(n):
        if i % 2 == 0:
            yield i


class Box:
    def __init__(self, v):
        self.v = v

    def total(self):
        return sum(adder(self.v)(i) for i in evens(10))


def main():
    t = fib(12)
    for v in range(5):
        t += Box(v).total()
    return t


if __name__ == "__main__":
    main()
