#!/usr/bin/env python3
"""gprof2dot's own totals for a callgrind file, as a TSV.

usage: gprof2dot_tsv.py [--design] GPROF2DOT_PY FILE.callgrind [OUT.tsv]

Imports gprof2dot.py from the given path (it is not part of this project)
and runs what its main() runs for `-f callgrind`: its CallgrindParser, whose
parse() does validate, find_cycles, ratio(TIME_RATIO), call_ratios(SAMPLES2)
and integrate(TOTAL_TIME_RATIO); no pruning. The recursion limit is raised
and the work runs in a thread with a 1 GiB stack, because gprof2dot recurses
once or twice per call-graph level.

Output, the TSV of tests/data/gprof2dot (fractions of the profile total):
  F name '' cycle self_ratio total_ratio '' '' ''
  C caller callee '' '' total_ratio call_ratio calls call_cost
  Z cycle '' '' '' total_ratio '' '' ''        (one per cycle: T(Z))
Empty fields where gprof2dot has no value (calls without TOTAL_TIME_RATIO,
self-calls without a ratio). `cycle` indexes gprof2dot's cycles sorted by
their smallest member name.

--design applies, around gprof2dot's own code, the corner-case rules that
cgprop settles differently, so the output is what cgprop computes:
  * a vertex whose k >= 1 external in-calls all weigh 0 gives each 1/k
    (gprof2dot: ratio(0, 0) = 1.0 each); counted as zero_in for a function,
    zero_inz for a cycle as a whole (InZ = 0);
  * a member whose kept in-calls (in one entry's BFS DAG) all weigh 0
    gives each 1/k; gprof2dot gives 1.0 each when other in-calls of the
    member weigh more than 0. Done by giving zero-weight intra-cycle calls
    the ratio 1e-300 instead of 0: normalised over the kept in-calls that
    is 1/k when all weigh 0, and changes nothing measurable otherwise;
  * a cycle nobody calls from outside is entered at its first member in
    gprof2dot's function order (file order: cgprop's lowest id) with
    ratio 1 (gprof2dot gives every member 0): an invisible caller with
    no cost is added for the run and left out of the output.
It also counts where each rule changed gprof2dot's input (stderr, and the
`fired` dictionary of run()).

Exit status 3 when gprof2dot fails (its assertions); its traceback goes to
stderr.
"""
import importlib.util
import sys
import threading
import traceback

TINY = 1e-300


def load(path):
    spec = importlib.util.spec_from_file_location("gprof2dot", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    _install(mod)
    return mod


class _State:
    design = False
    fired = None


def _install(g2d):
    """Wrap Profile.call_ratios, integrate and _rank_cycle_function once;
    the wrappers do nothing unless _State.design is set."""
    P = g2d.Profile
    orig_call_ratios, orig_integrate, orig_rank = P.call_ratios, P.integrate, P._rank_cycle_function

    def ext(f, x):
        return x.cycle is None or x.cycle is not f.cycle

    def call_ratios(self, event):
        orig_call_ratios(self, event)
        if not _State.design:
            return
        fired = _State.fired
        groups, cycles = {}, set(id(c) for c in self.cycles)
        for f in self.functions.values():
            for c in f.calls.values():
                if c.callee_id == f.id:
                    continue
                x = self.functions[c.callee_id]
                if ext(f, x):
                    groups.setdefault(id(x.cycle) if x.cycle is not None else id(x), []).append(c)
                elif c.ratio == 0.0:
                    c.ratio = TINY
        for key, calls in groups.items():
            if sum(c[event] for c in calls) == 0:
                if len(calls) >= 2:
                    fired["zero_inz" if key in cycles else "zero_in"] += 1
                for c in calls:
                    c.ratio = 1.0 / len(calls)

    def rank(self, cycle, function, ranks):
        orig_rank(self, cycle, function, ranks)
        if not _State.design:
            return
        # Does cgprop's kept-in-calls rule change anything for this entry?
        rho = sum(c.ratio for f in self.functions.values() if f.cycle is not cycle
                  for c in f.calls.values() if c.callee_id == function.id)
        if rho <= 0:
            return
        kept = {}
        for u in cycle.functions:
            for c in u.calls.values():
                v = self.functions[c.callee_id]
                if v is not u and v.cycle is cycle and ranks[v] == ranks[u] + 1:
                    kept.setdefault(v, []).append(c)
        for v, cs in kept.items():
            if len(cs) >= 2 and all(c.ratio == TINY for c in cs):
                _State.fired["zero_kept"] += 1

    def integrate(self, outevent, inevent):
        added = []
        if _State.design:
            for cyc in self.cycles:
                called = any(f.cycle is not cyc and self.functions[c.callee_id].cycle is cyc
                             for f in self.functions.values() for c in f.calls.values())
                if called:
                    continue
                entry = next(f for f in self.functions.values() if f.cycle is cyc)
                s = g2d.Function("<entry %d>" % len(added), "<entry %d>" % len(added))
                s[inevent] = 0.0
                call = g2d.Call(entry.id)
                call.ratio = 1.0
                s.add_call(call)
                self.functions[s.id] = s
                added.append(s.id)
                _State.fired["root_cycle"] += 1
        orig_integrate(self, outevent, inevent)
        for sid in added:
            del self.functions[sid]

    P.call_ratios, P.integrate, P._rank_cycle_function = call_ratios, integrate, rank


def tsv(g2d, profile):
    funcs = profile.functions
    cycles = sorted(profile.cycles, key=lambda c: min(f.name for f in c.functions))
    cyc_index = {id(c): i for i, c in enumerate(cycles)}
    out = ["#kind\tcaller\tcallee\tcycle\tself_ratio\ttotal_ratio\tcall_ratio\tcalls\tcall_cost"]

    def num(x):
        if x == TINY:  # --design's stand-in for a zero ratio
            x = 0.0
        return "" if x is None else repr(float(x))

    for name in sorted(funcs):
        f = funcs[name]
        cyc = "" if f.cycle is None else str(cyc_index[id(f.cycle)])
        out.append("F\t%s\t\t%s\t%s\t%s\t\t\t" % (f.name, cyc, num(f.events.get(g2d.TIME_RATIO)),
                                                  num(f.events.get(g2d.TOTAL_TIME_RATIO))))
        for callee_id in sorted(f.calls):
            c = f.calls[callee_id]
            out.append("C\t%s\t%s\t\t\t%s\t%s\t%d\t%s" % (
                f.name, funcs[callee_id].name, num(c.events.get(g2d.TOTAL_TIME_RATIO)), num(c.ratio),
                c.events.get(g2d.CALLS, 0), num(c.events.get(g2d.SAMPLES2))))
    for i, c in enumerate(cycles):
        out.append("Z\t%d\t\t\t\t%s\t\t\t" % (i, num(c.events.get(g2d.TOTAL_TIME_RATIO))))
    return "\n".join(out) + "\n"


def run(g2d, path, design=False):
    """(tsv text or None, error text or None, fired counts)."""
    result = {}
    _State.design = design
    _State.fired = {"zero_in": 0, "zero_inz": 0, "zero_kept": 0, "root_cycle": 0}

    def work():
        try:
            with open(path, "rt", encoding="UTF-8") as fp:
                profile = g2d.CallgrindParser(fp).parse()
            result["text"] = tsv(g2d, profile)
        except BaseException:  # gprof2dot's own assertions and errors
            result["error"] = traceback.format_exc()

    sys.setrecursionlimit(10 ** 6)
    old = threading.stack_size(1 << 30)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
        _State.design = False
    return result.get("text"), result.get("error"), dict(_State.fired)


def main():
    args = sys.argv[1:]
    design = False
    if args and args[0] == "--design":
        design = True
        args = args[1:]
    if len(args) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    g2d = load(args[0])
    text, err, fired = run(g2d, args[1], design)
    if design:
        sys.stderr.write("design rules fired: %s\n" % fired)
    if err:
        sys.stderr.write(err)
        return 3
    if len(args) == 3:
        with open(args[2], "w") as fp:
            fp.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
