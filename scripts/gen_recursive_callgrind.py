#!/usr/bin/env python3
"""Random recursive callgrind profiles, for comparing cgprop with gprof2dot.

usage: gen_recursive_callgrind.py [--seed N] [-o FILE] [--max-funcs N]

The same seed always gives the same file (standard library only).

Each file is built in two steps:

1. A program: "physical" functions (object, file, name) with static callees.
   Shapes mixed per file: a layered DAG, self-calls, 2-cycles, rings with
   chords, nested and large SCCs reached from the DAG through several
   entries, sometimes a root cycle (main called back, nothing calls it
   from outside), several physical functions sharing one name (gprof2dot
   and `--key name` merge them), wrappers with zero self cost.

2. Costs, one of:
   * "sim": an execution is simulated and aggregated the way callgrind
     does: self cost per activation, call cost = the callee activation's
     inclusive cost, recursion levels named fn'2 .. fn'N
     (`--separate-recs=N`, N = 1, 2 or 3), so costs are consistent;
   * "rand": the static graph with random counts and costs (irregular);
   * sim, then perturbed: call costs scaled or set to 0, self costs
     zeroed, extra random calls (costs larger than the callee could hold,
     calls into functions that never run).
   The first event is sometimes a sparse one (Dw), so zero-weight calls
   arise from the data itself.

The writer exercises the format: name compression (ids defined in fn= or
cfn= and referenced later, per part or across parts), one function spread
over several fn= blocks, one call arc over several calls= lines (counts 0
in later parts), positions `line` or `instr line` with absolute, relative,
`*` and hex subpositions, calls= target positions, fi=/fe= switches,
cob=/cfi=/cfl=, jump=/jcnd= lines, several events with trailing zero
columns left out, several parts with summary:/totals:, comments and blank
lines. Everything it writes is read the same by callgrind's spec,
KCachegrind and gprof2dot's parser (no tabs, decimal costs, no
--compress-mangled names, which gprof2dot does not read).
"""
import argparse
import random
import sys

IDENT = ["parse", "eval", "emit", "walk", "visit", "lookup", "insert", "hash", "alloc", "free", "read", "write",
         "scan", "match", "step", "run", "apply", "reduce", "expand", "resolve", "check", "update", "flush", "sort",
         "merge", "split", "push", "pop", "next", "compile", "dispatch", "call", "load", "store", "init"]
NOUN = ["expr", "stmt", "node", "tree", "table", "list", "block", "frame", "token", "buf", "str", "obj", "type",
        "value", "entry", "cache", "page", "queue", "item", "ctx"]
OBJECTS = ["/usr/bin/prog", "/usr/lib/libc.so.6", "/usr/lib/libfoo.so.1", "/opt/app/libbar.so"]
FILES = ["main.c", "parse.c", "eval.c", "util.c", "hash.c", "???", "include/list.h", "src/tree.cc", "vm/interp.c"]


def make_name(rng, used):
    for _ in range(100):
        r = rng.random()
        if r < 0.55:
            n = "%s_%s" % (rng.choice(IDENT), rng.choice(NOUN))
        elif r < 0.7:
            n = "%s::%s(%s)" % (rng.choice(["Foo", "std::vector<int, std::allocator<int> >", "ns::Bar"]),
                                rng.choice(IDENT), rng.choice(["", "int", "char const*, unsigned long", "Node&"]))
            if rng.random() < 0.3:
                n += " const"
        elif r < 0.8:
            n = "0x%08X" % rng.randrange(0x10000, 0x7FFFFFF0, 16)
        elif r < 0.85:
            n = "%s%d" % (rng.choice(IDENT), rng.randrange(100))
        elif r < 0.88:
            n = "(below main)"
        elif r < 0.9:
            n = "%s'%s" % (rng.choice(IDENT), rng.choice(NOUN))  # a quote that is not a recursion suffix
        else:
            n = "f%d" % rng.randrange(1000)
        if n not in used:
            used.add(n)
            return n
    n = "fn%d" % len(used)
    used.add(n)
    return n


class Program:
    """Physical functions 0..n-1: name, object, file, self-cost scale, callees."""

    def __init__(self, rng, max_funcs):
        self.rng = rng
        n = rng.choice([rng.randint(2, 8), rng.randint(5, 25), rng.randint(10, max_funcs)])
        used = set()
        self.name = [None] * n
        self.obj = [rng.choice(OBJECTS[:2]) for _ in range(n)]
        self.file = [rng.choice(FILES) for _ in range(n)]
        self.callees = [[] for _ in range(n)]
        self.name[0] = "main"
        used.add("main")
        for i in range(1, n):
            self.name[i] = make_name(rng, used)
        # Same name in another file or object: merged by name.
        if n > 3 and rng.random() < 0.3:
            for _ in range(rng.randint(1, max(1, n // 8))):
                a, b = rng.sample(range(1, n), 2)
                self.name[b] = self.name[a]
                if rng.random() < 0.5:
                    self.file[b] = rng.choice([f for f in FILES if f != self.file[a]])
                else:
                    self.obj[b] = rng.choice([o for o in OBJECTS if o != self.obj[a]])
        zero_frac = rng.choice([0.0, 0.0, 0.1, 0.3])
        self.selfscale = [0 if (i and rng.random() < zero_frac) else rng.choice([1, 3, 10, 50, 200])
                          for i in range(n)]
        self.n = n
        self._shape()

    def edge(self, a, b):
        if b not in self.callees[a]:
            self.callees[a].append(b)

    def _shape(self):
        rng, n = self.rng, self.n
        # Layers: main alone on layer 0.
        nl = max(2, min(n, rng.randint(2, 8)))
        layer = [0] + sorted(rng.randint(1, nl - 1) for _ in range(n - 1))
        self.layer = layer
        by_layer = {}
        for i, l in enumerate(layer):
            by_layer.setdefault(l, []).append(i)
        # Every function gets a caller from an upper layer: a DAG reaching all.
        for i in range(1, n):
            ups = [j for j in range(n) if layer[j] < layer[i]]
            for _ in range(1 if rng.random() < 0.6 else rng.randint(2, 3)):
                self.edge(rng.choice(ups), i)
        # Extra forward edges.
        for _ in range(rng.randint(0, 2 * n)):
            a, b = rng.sample(range(n), 2) if n > 1 else (0, 0)
            if layer[a] < layer[b]:
                self.edge(a, b)
        # Recursion.
        kinds = ["self", "pair", "ring", "nested", "big", "back"]
        # main stays out of the random cycles: a root cycle is its own case below.
        rest = list(range(1, n))
        for _ in range(rng.randint(0, 2 + n // 4)):
            k = rng.choice(kinds)
            if k == "self" and rest:
                f = rng.choice(rest)
                self.edge(f, f)
            elif k == "pair" and n >= 3:
                a, b = rng.sample(rest, 2)
                self.edge(a, b)
                self.edge(b, a)
            elif k == "ring" and n >= 4:
                m = rng.sample(rest, rng.randint(3, min(n - 1, 6)))
                for x, y in zip(m, m[1:] + m[:1]):
                    self.edge(x, y)
                for _ in range(rng.randint(0, len(m))):
                    x, y = rng.sample(m, 2)
                    self.edge(x, y)
            elif k == "nested" and n >= 5:
                m = rng.sample(rest, rng.randint(4, min(n - 1, 8)))
                for x, y in zip(m, m[1:] + m[:1]):
                    self.edge(x, y)
                inner = m[1:1 + rng.randint(2, len(m) - 2)]
                self.edge(inner[-1], inner[0])
                if rng.random() < 0.5:
                    self.edge(inner[0], inner[0])
            elif k == "big" and n >= 8:
                m = rng.sample(rest, rng.randint(n // 2, n - 1))
                for x, y in zip(m, m[1:] + m[:1]):
                    self.edge(x, y)
                for _ in range(rng.randint(len(m) // 2, 2 * len(m))):
                    x, y = rng.sample(m, 2)
                    self.edge(x, y)
            elif k == "back" and n >= 3:
                a, b = rng.sample(rest, 2)
                if layer[a] > layer[b]:
                    self.edge(a, b)
        # Root cycle: main called back from below.
        if n >= 2 and rng.random() < 0.07:
            self.edge(rng.randrange(1, n), 0)


class Profile:
    """Named functions (physical id, recursion index) with self costs and calls."""

    def __init__(self, K):
        self.K = K
        self.order = []      # named functions in order of first appearance
        self.selfc = {}      # nf -> [K]
        self.calls = {}      # (nf, nf) -> [count, [K]]
        self.call_order = []

    def touch(self, nf):
        if nf not in self.selfc:
            self.selfc[nf] = [0] * self.K
            self.order.append(nf)

    def add_self(self, nf, v):
        self.touch(nf)
        s = self.selfc[nf]
        for k in range(self.K):
            s[k] += v[k]

    def add_call(self, a, b, count, v):
        self.touch(a)
        self.touch(b)
        c = self.calls.get((a, b))
        if c is None:
            c = self.calls[(a, b)] = [0, [0] * self.K]
            self.call_order.append((a, b))
        c[0] += count
        for k in range(self.K):
            c[1][k] += v[k]


def chunk_cost(rng, scale, K, sparse0):
    ir = rng.randint(1, 20) * scale if scale else 0
    v = [ir]
    for k in range(1, K):
        v.append(ir // rng.randint(2, 5) + (rng.randint(0, 3) if ir else 0))
    if sparse0:
        # First event a sparse one (e.g. Dw): mostly 0.
        v[0] = rng.randint(1, 30) if (ir and rng.random() < 0.25) else 0
    return v


def simulate(rng, prog, K, recs, sparse0):
    """Run the program from main; aggregate as callgrind does."""
    P = Profile(K)
    active = [0] * prog.n
    budget = rng.choice([50, 200, 1000, 3000])
    max_depth = rng.choice([6, 12, 30])
    spent = [0]

    def nf_of(f):
        lvl = active[f]  # after entering: 1 = not recursive
        return (f, 1 if recs == 1 else min(lvl, recs))

    # Iterative: frame = [f, nf, inclusive[K], calls left]
    def enter(f):
        active[f] += 1
        nf = nf_of(f)
        P.touch(nf)
        left = 0
        if prog.callees[f] and spent[0] < budget:
            left = rng.choice([0, 1, 1, 2, 3, 5])
        return [f, nf, [0] * K, left]

    stack = [enter(0)]
    spent[0] += 1
    while stack:
        fr = stack[-1]
        f, nf, inc, left = fr
        # Some self cost between calls.
        if prog.selfscale[f] and rng.random() < 0.8:
            v = chunk_cost(rng, prog.selfscale[f], K, sparse0)
            P.add_self(nf, v)
            for k in range(K):
                inc[k] += v[k]
        if left > 0 and len(stack) < max_depth and spent[0] < budget:
            fr[3] -= 1
            callee = rng.choice(prog.callees[f])
            spent[0] += 1
            stack.append(enter(callee))
            continue
        # Return.
        stack.pop()
        active[f] -= 1
        if stack:
            parent = stack[-1]
            P.add_call(parent[1], nf, 1, inc)
            for k in range(K):
                parent[2][k] += inc[k]
    return P


def random_costs(rng, prog, K, sparse0):
    """The static graph as it stands, with random counts and costs."""
    P = Profile(K)
    zero_call = rng.choice([0.0, 0.0, 0.05, 0.3])
    for f in range(prog.n):
        nf = (f, 1)
        P.touch(nf)
        if prog.selfscale[f]:
            P.add_self(nf, chunk_cost(rng, prog.selfscale[f], K, sparse0))
        for g in prog.callees[f]:
            cnt = rng.choice([0, 1, 1, 2, 5, 100, 12345])
            v = [0] * K if rng.random() < zero_call else \
                [rng.choice([1, 7, 100, 5000, 10 ** 6]) * rng.randint(1, 9) for _ in range(K)]
            if sparse0 and rng.random() < 0.7:
                v[0] = 0
            P.add_call(nf, (g, 1), cnt, v)
    return P


def perturb(rng, prog, P, K):
    nfs = list(P.order)
    keys = list(P.call_order)
    for key in keys:
        r = rng.random()
        if r < 0.08:
            P.calls[key][1][0] = 0
        elif r < 0.15:
            P.calls[key][1] = [x * rng.randint(2, 20) for x in P.calls[key][1]]  # more than the callee holds
        elif r < 0.2:
            P.calls[key][1] = [x // rng.randint(2, 10) for x in P.calls[key][1]]
    for nf in nfs:
        if rng.random() < 0.1:
            P.selfc[nf][0] = 0
    for _ in range(rng.randint(0, 3)):
        a = rng.choice(nfs)
        if rng.random() < 0.3:
            # A function that never ran: appears only as a callee.
            b = (rng.randrange(prog.n), rng.choice([1, 2]))
        else:
            b = rng.choice(nfs)
        P.add_call(a, b, rng.choice([0, 1, 3]), [rng.randint(0, 10 ** 5) for _ in range(K)])


class Writer:
    def __init__(self, rng, prog, P, K, events, positions):
        self.rng, self.prog, self.P, self.K = rng, prog, P, K
        self.events, self.positions = events, positions
        self.np = len(positions)
        self.out = []
        self.compress = rng.random() < 0.65
        self.redefine_per_part = rng.random() < 0.5
        self.ids = [{}, {}, {}]       # space -> name -> id
        self.defined = [set(), set(), set()]
        self.last = [0] * self.np
        self.fnbase = {}

    def w(self, s):
        self.out.append(s)

    def name_ref(self, space, name):
        if not self.compress or (space == 2 and self.rng.random() < 0.05):
            return name
        tbl = self.ids[space]
        if name not in tbl:
            tbl[name] = len(tbl) + 1
        i = tbl[name]
        if i in self.defined[space]:
            return "(%d)" % i
        self.defined[space].add(i)
        return "(%d) %s" % (i, name)

    def fname(self, nf):
        f, idx = nf
        base = self.prog.name[f]
        return base if idx == 1 else "%s'%d" % (base, idx)

    def subpos(self, i, v):
        last = self.last[i]
        self.last[i] = v
        r = self.rng.random()
        if v == last and r < 0.5:
            return "*"
        if abs(v - last) < 100 and r < 0.7:
            return "+%d" % (v - last) if v >= last else "-%d" % (last - v)
        if self.positions[i] == "instr" and r < 0.9:
            return "0x%x" % v
        return "%d" % v

    def pos_for(self, nf):
        f, idx = nf
        base = self.fnbase.setdefault(nf, (0x400000 + 0x100 * f + 0x10000 * idx, 10 + 40 * f))
        vals = []
        for p in self.positions:
            if p == "instr":
                vals.append(base[0] + self.rng.randrange(0, 0x80))
            else:
                vals.append(base[1] + self.rng.randrange(0, 30))
        return " ".join(self.subpos(i, v) for i, v in enumerate(vals))

    def costs(self, v):
        v = list(v)
        if self.rng.random() < 0.6:
            while v and v[-1] == 0:
                v.pop()
        return "".join(" %d" % x for x in v) + (" " if self.rng.random() < 0.03 else "")

    def target(self):
        # calls= target positions: relative to the base, which they do not move.
        t = []
        for i, p in enumerate(self.positions):
            if self.rng.random() < 0.4:
                t.append("*")
            elif p == "instr":
                t.append("0x%x" % (0x400000 + self.rng.randrange(0x100000)))
            else:
                t.append("%d" % self.rng.randrange(1, 2000))
        if self.rng.random() < 0.3 and self.np > 1:
            t = t[:1]  # fewer target positions than positions: allowed
        return " ".join(t)

    def split_vec(self, v, parts):
        """Split a cost vector into `parts` non-negative pieces summing to v."""
        pieces = [[0] * self.K for _ in range(parts)]
        for k in range(self.K):
            cuts = sorted(self.rng.randint(0, v[k]) for _ in range(parts - 1))
            prev = 0
            for i, c in enumerate(cuts + [v[k]]):
                pieces[i][k] = c - prev
                prev = c
        return pieces

    def write(self):
        rng, P, K = self.rng, self.P, self.K
        # Blocks: each named function in 1..3 fn= blocks.
        blocks = []  # (nf, self pieces [[K]], [(callee, count, cost)])
        for nf in P.order:
            nb = 1 if rng.random() < 0.8 else rng.randint(2, 3)
            selfp = self.split_vec(P.selfc[nf], nb)
            calls = [[] for _ in range(nb)]
            for (a, b) in P.call_order:
                if a != nf:
                    continue
                cnt, cost = P.calls[(a, b)]
                m = 1 if rng.random() < 0.7 else rng.randint(2, 3)
                cp = self.split_vec(cost, m)
                cuts = sorted(rng.randint(0, cnt) for _ in range(m - 1))
                prev = 0
                for i, c in enumerate(cuts + [cnt]):
                    calls[rng.randrange(nb)].append((b, c - prev, cp[i]))
                    prev = c
            for i in range(nb):
                if any(selfp[i]) or calls[i] or (i == 0 and rng.random() < 0.5):
                    blocks.append((nf, selfp[i], calls[i]))
        # Mostly file order = first appearance; sometimes shuffled.
        if rng.random() < 0.3:
            rng.shuffle(blocks)
        elif rng.random() < 0.3:
            i, j = rng.randrange(len(blocks)), rng.randrange(len(blocks))
            blocks[i], blocks[j] = blocks[j], blocks[i]
        nparts = 1 if rng.random() < 0.75 else rng.randint(2, 3)
        cut = sorted(rng.sample(range(1, len(blocks)), nparts - 1)) if len(blocks) > nparts else []
        parts, prev = [], 0
        for c in cut + [len(blocks)]:
            parts.append(blocks[prev:c])
            prev = c

        self.w("# callgrind format")
        self.w("version: 1")
        self.w("creator: gen_recursive_callgrind.py")
        self.w("pid: %d" % rng.randint(100, 99999))
        self.w("cmd:  ./prog --run")
        for pno, pb in enumerate(parts, 1):
            psum = [0] * K
            for nf, sp, _ in pb:
                for k in range(K):
                    psum[k] += sp[k]
            if pno > 1 or rng.random() < 0.5:
                self.w("part: %d" % pno)
            self.w("")
            self.w("desc: I1 cache: ")
            self.w("desc: Trigger: Program termination")
            self.w("")
            if self.positions != ["line"] or rng.random() < 0.5:
                self.w("positions: %s" % " ".join(self.positions))
            if rng.random() < 0.2:
                self.w("event: %s : first event" % self.events[0])
            self.w("events: %s" % " ".join(self.events))
            if rng.random() < 0.5:
                self.w("summary: %s" % " ".join(str(x) for x in psum))
            self.w("")
            self.last = [0] * self.np
            if pno > 1 and self.redefine_per_part:
                self.defined = [set(), set(), set()]
                if self.rng.random() < 0.5:
                    # New ids: the same numbers now name other things (the new name wins).
                    for t in self.ids:
                        perm = list(range(1, len(t) + 1))
                        self.rng.shuffle(perm)
                        for n, i in zip(list(t), perm):
                            t[n] = i
            cur_ob = cur_fl = None
            for nf, sp, calls in pb:
                self.block(nf, sp, calls, cur_ob, cur_fl)
                cur_ob, cur_fl = self.prog.obj[nf[0]], self.prog.file[nf[0]]
            if rng.random() < 0.85:
                self.w("")
                self.w("totals: %s" % " ".join(str(x) for x in psum))
        return "\n".join(self.out) + "\n"

    def block(self, nf, sp, calls, cur_ob, cur_fl):
        rng, prog = self.rng, self.prog
        f = nf[0]
        if rng.random() < 0.3:
            self.w("")
        if prog.obj[f] != cur_ob or rng.random() < 0.1:
            self.w("ob=%s" % self.name_ref(0, prog.obj[f]))
        if prog.file[f] != cur_fl or rng.random() < 0.1 or prog.obj[f] != cur_ob:
            self.w("fl=%s" % self.name_ref(1, prog.file[f]))
        self.w("fn=%s" % self.name_ref(2, self.fname(nf)))
        # Self cost over several lines, calls in between.
        nself = 0 if not any(sp) else rng.randint(1, 4)
        pieces = self.split_vec(sp, nself) if nself else []
        if not nself and rng.random() < 0.3:
            pieces = [[0] * self.K]  # a zero cost line
        items = [("s", p) for p in pieces] + [("c", c) for c in calls]
        first = items[:1]
        rest = items[1:]
        rng.shuffle(rest)
        wrote_cost = False
        inlined = False
        for kind, it in first + rest:
            if kind == "s":
                if rng.random() < 0.1:
                    self.w("fi=%s" % self.name_ref(1, rng.choice(FILES)))
                    inlined = True
                elif inlined and rng.random() < 0.5:
                    self.w("fe=%s" % self.name_ref(1, prog.file[f]))
                    inlined = False
                self.w("%s%s" % (self.pos_for(nf), self.costs(it)))
            else:
                callee, cnt, cost = it
                g = callee[0]
                if prog.obj[g] != prog.obj[f] or rng.random() < 0.1:
                    self.w("cob=%s" % self.name_ref(0, prog.obj[g]))
                if prog.file[g] != prog.file[f] or rng.random() < 0.1:
                    self.w("%s=%s" % (rng.choice(["cfi", "cfl"]), self.name_ref(1, prog.file[g])))
                self.w("cfn=%s" % self.name_ref(2, self.fname(callee)))
                self.w("calls=%d %s" % (cnt, self.target()))
                self.w("%s%s" % (self.pos_for(nf), self.costs(cost)))
            wrote_cost = True
            if wrote_cost and rng.random() < 0.05:
                if rng.random() < 0.5:
                    self.w("jump=%d %s" % (rng.randint(1, 50), self.target()))
                else:
                    self.w("jcnd=%d/%d %s" % (rng.randint(0, 5), rng.randint(5, 50), self.target()))
                self.w(self.pos_for(nf))
            if rng.random() < 0.03:
                self.w("# a comment")


def generate(seed, max_funcs=60):
    rng = random.Random(seed)
    prog = Program(rng, max_funcs)
    K = rng.choice([1, 1, 2, 3])
    events = ["Ir", "Dr", "Dw"][:K]
    sparse0 = K > 1 and rng.random() < 0.2
    if sparse0:
        events = ["Dw"] + [e for e in events if e != "Dw"]
    positions = rng.choice([["line"]] * 6 + [["instr", "line"]] * 3 + [["instr"], ["instr", "bb", "line"]])
    mode = rng.choice(["sim", "sim", "rand", "perturb"])
    recs = rng.choice([1, 2, 2, 3])
    if mode == "rand":
        P = random_costs(rng, prog, K, sparse0)
    else:
        P = simulate(rng, prog, K, recs, sparse0)
        if mode == "perturb":
            perturb(rng, prog, P, K)
    if not any(any(v) for v in P.selfc.values()) or sum(v[0] for v in P.selfc.values()) == 0:
        # A profile whose first event sums to 0 has no program total.
        P.add_self(P.order[0], [1] * K)
    text = Writer(rng, prog, P, K, events, positions).write()
    if rng.random() < 0.03:
        text = text.replace("\n", "\r\n")  # written on Windows
    return text, {"mode": mode, "recs": recs, "K": K, "funcs": prog.n, "sparse0": sparse0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output")
    ap.add_argument("--max-funcs", type=int, default=60)
    a = ap.parse_args()
    text, _ = generate(a.seed, a.max_funcs)
    if a.output:
        with open(a.output, "w") as fp:
            fp.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
