#!/usr/bin/env python3
"""Compare cgprop's collapse and per-root figures with gprof2dot's on random recursive
callgrind files (scripts/gen_recursive_callgrind.py) or on given files.

usage: check_gprof2dot.py --gprof2dot PATH/gprof2dot.py --cgprop BUILD/tools/cgprop
                          [--count N] [--seed S] [--max-funcs N] [--keep DIR] [FILE ...]
       check_gprof2dot.py ... --golden DIR --golden-count N   (write a regression set)

For every file: `cgprop report --key name --no-fold-recursion --format json`
(functions merged by bare name, fn'N names kept apart, share by call cost:
the graph gprof2dot builds), and gprof2dot's own callgrind pipeline twice
(scripts/gprof2dot_tsv.py): as it is, and with cgprop's corner-case rules
(--design). Every figure is compared to 1e-9 of the program total:

  function totals, call totals (and which calls have none), cycle totals
  T(Z), cycle membership, call counts and costs, and the gprof-style
  figures gprof2dot also has: vertex_total (T(f), or T(Z) for members),
  gprof child (Σ totals of the calls that leave the function's vertex),
  call shares w/W and gprof self/child parts of calls between vertices.

Each difference is classified:
  (a) corner cases cgprop settles its own way (cgprop equals
      gprof2dot-with-cgprop's-rules, which differs from plain gprof2dot), named by the rule that
      fired: zero_in (k >= 2 external in-calls of a function all weigh 0),
      zero_inz (the same into a cycle: InZ = 0),
      zero_kept (k >= 2 kept in-calls of a member all weigh 0),
      root_cycle (a cycle nobody calls), and g2d_assert when gprof2dot
      itself fails its assertion on such a file;
  no_total_flag: a call inside a cycle kept only by entries with ρ = 0:
      gprof2dot gives it total 0.0, cgprop 0 flagged no_total (its
      per-root propagation takes only entries with ρ > 0);
  (b) everything else: a cgprop bug (or a flaw of this check), listed.
Exit status 1 if any (b) difference was found.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_recursive_callgrind as gen  # noqa: E402
import gprof2dot_tsv  # noqa: E402

TOL = 1e-9


def parse_tsv(text):
    F, C, Z = {}, {}, {}
    for line in text.splitlines():
        if not line or line[0] == "#":
            continue
        f = line.split("\t")
        num = (lambda s: None if s == "" else float(s))
        if f[0] == "F":
            F[f[1]] = {"cycle": f[3], "self": num(f[4]), "total": num(f[5])}
        elif f[0] == "C":
            C[(f[1], f[2])] = {"total": num(f[5]), "ratio": num(f[6]), "calls": int(f[7]), "cost": num(f[8])}
        elif f[0] == "Z":
            Z[f[1]] = num(f[5])
    return F, C, Z


def cgprop_json(cgprop, path):
    p = subprocess.run([cgprop, "report", "--key", "name", "--no-fold-recursion", "--format", "json", path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()
    return json.loads(p.stdout), None


def expected(F, C, Z, P):
    """gprof2dot's figures (absolute, metric 0) in cgprop's terms."""
    members = {}
    for n, r in F.items():
        if r["cycle"]:
            members.setdefault(r["cycle"], set()).add(n)
    vertex = {n: ("Z" + r["cycle"] if r["cycle"] else n) for n, r in F.items()}
    vself, vtot = {}, {}
    for n, r in F.items():
        v = vertex[n]
        vself[v] = vself.get(v, 0.0) + r["self"] * P
        if not r["cycle"]:
            vtot[v] = r["total"] * P
    for z, t in Z.items():
        vtot["Z" + z] = t * P
    child = {n: 0.0 for n in F}
    for (a, b), c in C.items():
        if vertex[a] != vertex[b] and c["total"] is not None:
            child[a] += c["total"] * P
    return members, vertex, vself, vtot, child


def compare(js, tsv, P, k=0):
    """List of (what, key, cgprop value, gprof2dot value) that differ, metric k."""
    F, C, Z = parse_tsv(tsv)
    out = []
    tol = TOL * P
    names = {f["id"]: f["name"] for f in js["functions"]}
    jf = {f["name"]: f for f in js["functions"]}
    if set(jf) != set(F):
        out.append(("function_set", "", sorted(set(jf) - set(F))[:5], sorted(set(F) - set(jf))[:5]))
        return out
    jc = {(names[c["caller"]], names[c["callee"]]): c for c in js["calls"]}
    if set(jc) != set(C):
        out.append(("call_set", "", sorted(set(jc) - set(C))[:5], sorted(set(C) - set(jc))[:5]))
        return out
    members, vertex, vself, vtot, child = expected(F, C, Z, P)
    jcyc = {frozenset(names[m] for m in c["members"]): c for c in js["cycles"]}
    if set(jcyc) != set(frozenset(m) for m in members.values()):
        out.append(("cycles", "", len(jcyc), len(members)))
        return out
    for z, ms in members.items():
        t = jcyc[frozenset(ms)]["total"][k]
        if abs(t - Z[z] * P) > tol:
            out.append(("cycle_total", min(ms), t, Z[z] * P))

    def near(a, b):
        return abs(a - b) <= tol

    for n, r in F.items():
        f = jf[n]
        if r["total"] is None or not near(f["heuristic"][k], r["total"] * P):
            out.append(("total", n, f["heuristic"][k], None if r["total"] is None else r["total"] * P))
        if not near(f["self"][k], r["self"] * P):
            out.append(("self", n, f["self"][k], r["self"] * P))
        if not near(f["vertex_total"][k], vtot[vertex[n]]):
            out.append(("vertex_total", n, f["vertex_total"][k], vtot[vertex[n]]))
        if not near(f["gprof"]["child"][k], child[n]):
            out.append(("gprof_child", n, f["gprof"]["child"][k], child[n]))
    for key, c in C.items():
        j = jc[key]
        if j["count"] != c["calls"]:
            out.append(("count", key, j["count"], c["calls"]))
        if j["cost"][k] != c["cost"]:
            out.append(("cost", key, j["cost"][k], c["cost"]))
        jt = j["heuristic"][k]
        no_total = j["no_total"] or k in j.get("no_total_metrics", ())
        if c["total"] is None:
            if not no_total:
                out.append(("call_has_total", key, jt, None))
        elif no_total:
            out.append(("no_total_flag" if near(c["total"] * P, 0) else "call_no_total", key, jt, c["total"] * P))
        elif not near(jt, c["total"] * P):
            out.append(("call_total", key, jt, c["total"] * P))
        a, b = key
        if vertex[a] != vertex[b]:
            share = j["share"][k]
            if abs(share - c["ratio"]) > TOL:
                out.append(("share", key, share, c["ratio"]))
            hv = vertex[b]
            gs, gc = c["ratio"] * vself[hv], c["ratio"] * (vtot[hv] - vself[hv])
            if not near(j["gprof"]["self"][k], gs) or not near(j["gprof"]["child"][k], gc):
                out.append(("call_gprof", key, (j["gprof"]["self"][k], j["gprof"]["child"][k]), (gs, gc)))
    return out


def rotate_events(text, k):
    """The same profile with its events rotated so that event k comes first:
    gprof2dot reads only the first event, so this gives its figures for
    cgprop's metric k."""
    out, npos, K, after_jump = [], 1, 1, False
    for raw in text.split("\n"):
        cr = "\r" if raw.endswith("\r") else ""
        line = raw[:-1] if cr else raw
        t = line.split()
        if line.startswith("positions:"):
            npos = len(t) - 1
        elif line.startswith("events:"):
            names = t[1:]
            K = len(names)
            line = "events: " + " ".join(names[k:] + names[:k])
        elif line.startswith(("summary:", "totals:")):
            v = t[1:] + ["0"] * (K - len(t) + 1)
            line = t[0] + " " + " ".join(v[k:] + v[:k])
        elif line[:1] in "0123456789+-*" and line and not after_jump:
            v = t[npos:] + ["0"] * (K - len(t) + npos)
            line = " ".join(t[:npos] + v[k:] + v[:k])
        after_jump = line.startswith(("jump=", "jcnd="))
        out.append(line + cr)
    return "\n".join(out)


class Checker:
    def __init__(self, g2d_path, cgprop):
        self.g2d = gprof2dot_tsv.load(g2d_path)
        self.cgprop = cgprop
        self.classes = {}
        self.bugs = []
        self.files = 0
        self.figures = 0
        self.shape = {"files with a cycle": 0, "cycles": 0, "largest cycle": 0, "cycles with >= 2 entries": 0,
                      "most entries of one cycle": 0, "self-recursive functions": 0, "functions": 0, "calls": 0}

    def count(self, cls, n=1):
        self.classes[cls] = self.classes.get(cls, 0) + n

    def tally(self, js):
        sh = self.shape
        sh["functions"] += len(js["functions"])
        sh["calls"] += len(js["calls"])
        sh["self-recursive functions"] += sum(1 for f in js["functions"] if f["self_recursive"])
        cyc = {f["id"]: f["cycle"] for f in js["functions"]}
        if js["cycles"]:
            sh["files with a cycle"] += 1
        entries = {}
        for c in js["calls"]:
            z = cyc[c["callee"]]
            if z is not None and cyc[c["caller"]] != z:
                entries.setdefault(z, set()).add(c["callee"])
        for c in js["cycles"]:
            sh["cycles"] += 1
            sh["largest cycle"] = max(sh["largest cycle"], len(c["members"]))
            ne = len(entries.get(c["id"], ()))
            sh["cycles with >= 2 entries"] += ne >= 2
            sh["most entries of one cycle"] = max(sh["most entries of one cycle"], ne)

    def check(self, path, label):
        """Compare one file; returns a dict: pure and design TSVs, the design
        TSV of each metric k >= 1 (mtsv), fired rules, cgprop's JSON, bugs."""
        js, err = cgprop_json(self.cgprop, path)
        pure, perr, _ = gprof2dot_tsv.run(self.g2d, path, False)
        design, derr, fired = gprof2dot_tsv.run(self.g2d, path, True)
        self.files += 1
        bugs = []
        res = {"pure": pure, "design": design, "fired": fired, "bugs": bugs, "js": js, "mtsv": {}}
        if js is None:
            bugs.append(("cgprop_failed", err))
        if derr:
            bugs.append(("g2d_design_failed", derr.strip().splitlines()[-1]))
        if bugs:
            self.bugs.append((label, bugs))
            self.count("(b) failed to run")
            return res
        P = float(js["totals"][0])
        self.figures += len(js["functions"]) + len(js["calls"]) + len(js["cycles"])
        self.tally(js)
        for kind, key, a, b in compare(js, design, P):
            if kind == "no_total_flag":
                self.count("no_total_flag (value 0 both; per-root propagation takes entries with rho > 0 only)")
            else:
                bugs.append((kind, key, a, b))
        # Metrics other than the first: gprof2dot on the file with that event first.
        for k in range(1, len(js["metrics"])):
            Pk = float(js["totals"][k])
            if Pk == 0:
                continue
            with open(path, newline="") as fp:
                rot = rotate_events(fp.read(), k)
            rpath = path + ".rot"
            with open(rpath, "w", newline="") as fp:
                fp.write(rot)
            dk, dkerr, _ = gprof2dot_tsv.run(self.g2d, rpath, True)
            os.unlink(rpath)
            if dkerr:
                bugs.append(("g2d_design_failed_metric_%d" % k, dkerr.strip().splitlines()[-1]))
                continue
            self.count("metric > 0 compared (gprof2dot on the file with that event first)")
            res["mtsv"][k] = dk
            for kind, key, a, b in compare(js, dk, Pk, k):
                if kind != "no_total_flag":
                    bugs.append(("metric%d_%s" % (k, kind), key, a, b))
        rules = [r for r, n in sorted(fired.items()) if n]
        for r in rules:
            self.count("(a) file where cgprop's %s rule applies" % r)
        if perr:
            self.count("(a) gprof2dot fails its own assertion (%s)" % "+".join(rules or ["no rule fired!"]))
            if not rules:
                bugs.append(("g2d_failed_without_corner_case", perr.strip().splitlines()[-1]))
        else:
            diffs = [d for d in compare(js, pure, P) if d[0] != "no_total_flag"]
            if diffs:
                if rules:
                    self.count("(a) figures differing from plain gprof2dot by cgprop's %s rule" % "+".join(rules),
                               len(diffs))
                else:
                    bugs.extend(diffs)
        if bugs:
            self.bugs.append((label, bugs))
            self.count("(b) file with a cgprop difference")
        return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gprof2dot", required=True)
    ap.add_argument("--cgprop", required=True)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-funcs", type=int, default=60)
    ap.add_argument("--keep", help="copy files with (b) differences here")
    ap.add_argument("--golden", help="write a regression set here instead of only checking")
    ap.add_argument("--golden-count", type=int, default=40)
    ap.add_argument("--golden-max-bytes", type=int, default=16000)
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    ck = Checker(a.gprof2dot, a.cgprop)
    tmp = tempfile.mkdtemp(prefix="g2d-")
    if a.files:
        for p in a.files:
            ck.check(p, p)
    else:
        golden, seen_rules = [], {}
        seed = a.seed
        all_rules = ("root_cycle", "zero_in", "zero_inz", "zero_kept")

        def missing():
            have = set(r for g in golden for r in g[4])
            return [r for r in all_rules if r not in have]

        while (not a.golden and seed < a.seed + a.count) or (
                a.golden and (len(golden) < a.golden_count or missing()) and seed < a.seed + 10 ** 6):
            text, meta = gen.generate(seed, a.max_funcs)
            path = os.path.join(tmp, "r%d.callgrind" % seed)
            with open(path, "w", newline="") as fp:
                fp.write(text)
            res = ck.check(path, "seed %d (%s)" % (seed, meta))
            pure, design, fired, bugs = res["pure"], res["design"], res["fired"], res["bugs"]
            if bugs and a.keep:
                os.makedirs(a.keep, exist_ok=True)
                with open(os.path.join(a.keep, "r%d.callgrind" % seed), "w", newline="") as fp:
                    fp.write(text)
            # gprof2dot survives zero_kept only when the double counting is
            # small (its assertion allows 0.1 %): rare in small files, so
            # such a file may be three times larger.
            rare = fired["zero_kept"] and pure is not None
            if a.golden and not bugs and len(text) <= a.golden_max_bytes * (3 if rare else 1) and res["js"]["cycles"]:
                rules = tuple(r for r, n in sorted(fired.items()) if n)
                # Only rules that change a figure count; variety: at most a
                # fifth of the set per combination of rules.
                if rules and pure is not None and not [
                        d for d in compare(res["js"], pure, float(res["js"]["totals"][0])) if d[0] != "no_total_flag"]:
                    rules = ()
                kind = rules + (("gprof2dot fails",) if pure is None else ())
                # Once the set is full, only files showing a rule it lacks.
                if len(golden) >= a.golden_count:
                    ok = any(r in missing() for r in rules)
                else:
                    ok = seen_rules.get(kind, 0) < max(2, a.golden_count // 5)
                if ok:
                    seen_rules[kind] = seen_rules.get(kind, 0) + 1
                    golden.append((seed, text, pure, design, rules, res["mtsv"]))
            os.unlink(path)
            seed += 1
        if a.golden:
            os.makedirs(a.golden, exist_ok=True)
            with open(os.path.join(a.golden, "MANIFEST"), "w") as man:
                for seed, text, pure, design, rules, mtsv in golden:
                    name = "r%d" % seed
                    with open(os.path.join(a.golden, name + ".callgrind"), "w", newline="") as fp:
                        fp.write(text)
                    if pure is not None:
                        with open(os.path.join(a.golden, name + ".tsv"), "w") as fp:
                            fp.write(pure)
                    if rules:
                        with open(os.path.join(a.golden, name + ".design.tsv"), "w") as fp:
                            fp.write(design)
                    for k, t in sorted(mtsv.items()):
                        with open(os.path.join(a.golden, "%s.m%d.tsv" % (name, k)), "w") as fp:
                            fp.write(t)
                    man.write("%s %s %s\n" % (name, ",".join(rules) or "-",
                                               ",".join(str(k) for k in sorted(mtsv)) or "-"))
    print("compared %d files (%d functions, calls and cycles) with gprof2dot, tolerance 1e-9 of the program total"
          % (ck.files, ck.figures))
    print("shapes: " + ", ".join("%s %d" % kv for kv in ck.shape.items()))
    for cls in sorted(ck.classes):
        print("  %6d  %s" % (ck.classes[cls], cls))
    for label, bugs in ck.bugs[:20]:
        print("DIFFERENCE in %s:" % label)
        for b in bugs[:8]:
            print("    %r" % (b,))
    os.rmdir(tmp)
    return 1 if ck.bugs else 0


if __name__ == "__main__":
    sys.exit(main())
