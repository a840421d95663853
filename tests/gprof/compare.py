#!/usr/bin/env python3
"""Check cgprop's gprof-style collapse against gprof's own report: for every
function, the self and children figures on its entry line of gprof's call
graph; for every cycle, the self and children of its <cycle N as a whole>
line; for every call below an entry, the self and children gprof gives it.
gprof prints seconds to 0.01; cgprop reads self seconds in hundredths, so
each figure must agree within gprof's rounding (0.005, and 0.01 allowed).

usage: compare.py CGPROP_TOOL REPORT.gprof
       compare.py --run CGPROP_TOOL PROGRAM.c   (build with -pg, run, gprof -b, check; then
                                                 gprof -T and -b -T must read as -b does)

The report is parsed here on its own; the figures are not taken from cgprop."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOL = 0.01 + 1e-9
NUM = r"(\d+\.\d+)"
PRIMARY = re.compile(r"^\[(\d+)\]\s+" + NUM + r"\s+" + NUM + r"\s+" + NUM +
                     r"\s+(?:(\d+)(?:\+(\d+))?)?\s*(.*?)\s\[(\d+)\]$")
ARC = re.compile(r"^\s+(?:" + NUM + r"\s+" + NUM + r"\s+)?(\d+)(?:/(\d+))?\s+(.*?)\s\[(\d+)\]$")
CYC = re.compile(r"\s+<cycle (\d+)>$")


def parse(text):
    """Entries of gprof's call graph: (index, name, self, children, cycle
    number or None, whole-cycle?, [(callee index, self, children)])."""
    lines = text.split("\n")
    i = 0
    while not re.match(r"^index\s+%\s+time\s+self\s+children\s+called\s+name", lines[i]):
        i += 1
    entries, cur = [], []
    for ln in lines[i + 1:]:
        if ln.startswith("\f") or ln.startswith("Index by function name"):
            break
        if not ln.strip():
            continue
        if ln.startswith("---"):
            entries.append(cur)
            cur = []
        else:
            cur.append(ln)
    out = []
    for ent in entries:
        k = [j for j, ln in enumerate(ent) if ln.startswith("[")]
        assert len(k) == 1, ent
        m = PRIMARY.match(ent[k[0]])
        assert m, ent[k[0]]
        name = m.group(7)
        whole = re.match(r"<cycle (\d+) as a whole>", name)
        cyc = CYC.search(name)
        if cyc:
            name = name[:cyc.start()]
        kids = []
        for ln in ent[k[0] + 1:]:
            a = ARC.match(ln)
            assert a, ln
            if a.group(1) is not None and not whole:
                kids.append((int(a.group(6)), float(a.group(1)), float(a.group(2))))
        out.append(dict(index=int(m.group(1)), name=name, self=float(m.group(3)),
                        child=float(m.group(4)), whole=bool(whole),
                        cycle=int(whole.group(1)) if whole else (int(cyc.group(1)) if cyc else None),
                        kids=kids))
    return out


def check(tool, path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        ents = parse(f.read())
    out = subprocess.run([tool, "report", "--input", "gprof", "--format", "json", path],
                         check=True, capture_output=True).stdout
    rep = json.loads(out.decode("utf-8"))
    assert rep["metrics"] == ["cs"], rep["metrics"]
    byname = {f["name"]: f for f in rep["functions"]}
    calls = {(c["caller"], c["callee"]): c for c in rep["calls"]}
    byix = {e["index"]: e for e in ents if not e["whole"]}
    bad, n, worst = [], 0, 0.0

    def near(what, ours, theirs):
        nonlocal n, worst
        n += 1
        worst = max(worst, abs(ours / 100.0 - theirs))
        if abs(ours / 100.0 - theirs) > TOL:
            bad.append("%s: cgprop %.4f s, gprof %.2f s" % (what, ours / 100.0, theirs))

    members = {}
    for e in ents:
        if e["whole"]:
            continue
        f = byname[e["name"]]
        near(e["name"] + " self", f["self"][0], e["self"])
        near(e["name"] + " children", f["gprof"]["child"][0], e["child"])
        if e["cycle"] is None:
            near(e["name"] + " self+children", f["vertex_total"][0], e["self"] + e["child"])
        else:
            members.setdefault(e["cycle"], []).append(f["id"])
        for ix, s, c in e["kids"]:
            callee = byname[byix[ix]["name"]]
            call = calls[(f["id"], callee["id"])]
            near("%s -> %s self" % (e["name"], callee["name"]), call["gprof"]["self"][0], s)
            near("%s -> %s children" % (e["name"], callee["name"]), call["gprof"]["child"][0], c)
    cycles = {tuple(sorted(c["members"])): c for c in rep["cycles"]}
    for e in ents:
        if not e["whole"]:
            continue
        c = cycles.get(tuple(sorted(members.get(e["cycle"], []))))
        if c is None:
            bad.append("cycle %d: cgprop has no cycle of the same members" % e["cycle"])
            continue
        near("cycle %d self" % e["cycle"], c["self"][0], e["self"])
        near("cycle %d total" % e["cycle"], c["total"][0], e["self"] + e["child"])
    if len(cycles) != sum(1 for e in ents if e["whole"]):
        bad.append("cgprop has %d cycles, gprof %d" % (len(cycles), sum(1 for e in ents if e["whole"])))
    for b in bad[:20]:
        print("MISMATCH", b)
    if bad:
        return 1
    print("%s: %d figures of %d entries agree with gprof's within 0.01 s (largest difference %.4f s)"
          % (path, n, len(ents), worst))
    return 0


def figures(tool, path):
    """Every function's self and total and every call's count and total in
    cgprop's report on path, its format found by content."""
    rep = json.loads(subprocess.run([tool, "report", "--format", "json", path], check=True,
                                    capture_output=True).stdout.decode("utf-8"))
    names = {f["id"]: f["name"] for f in rep["functions"]}
    funcs = sorted((f["name"], f["self"], f["total"]) for f in rep["functions"])
    calls = sorted((names[c["caller"]], names[c["callee"]], c["count"], c["total"]) for c in rep["calls"])
    return funcs, calls


def main(argv):
    if len(argv) == 4 and argv[1] == "--run":
        tool, src = argv[2], os.path.abspath(argv[3])
        if not shutil.which("gcc") or not shutil.which("gprof"):
            print("SKIP: gcc or gprof not installed")
            return 77
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, "prog")
            subprocess.run(["gcc", "-pg", "-O0", "-fno-inline", "-o", exe, src], check=True)
            subprocess.run([exe], check=True, cwd=d, stdout=subprocess.DEVNULL)
            rep = subprocess.run(["gprof", "-b", exe, os.path.join(d, "gmon.out")], check=True,
                                 capture_output=True).stdout
            out = os.path.join(d, "report.gprof")
            with open(out, "wb") as f:
                f.write(rep)
            status = check(tool, out)
            # gmon.out itself, given as users first try it: refused, with
            # the gprof command that prints the report.
            r = subprocess.run([tool, "report", os.path.join(d, "gmon.out")], capture_output=True, text=True)
            ok = r.returncode != 0 and "gprof -b PROGRAM gmon.out" in r.stderr
            print("gmon.out given as it is: %s" % ("refused with the gprof command" if ok else "NOT REFUSED: " +
                                                   (r.stderr.strip() or "read")))
            status |= 0 if ok else 1
            # gprof -T prints the same figures in the older (BSD) layout:
            # call graph first, a blank line after each "-----", the flat
            # profile after it (explanations first without -b). Read by
            # content, it must give the report the GNU layout gives.
            want = figures(tool, out)
            for opts in (["-b", "-T"], ["-T"]):
                alt = os.path.join(d, "report%s.gprof" % "".join(opts))
                with open(alt, "wb") as f:
                    f.write(subprocess.run(["gprof"] + opts + [exe, os.path.join(d, "gmon.out")], check=True,
                                           capture_output=True).stdout)
                got = figures(tool, alt)
                ok = got == want
                print("gprof %s: %d functions, %d calls: %s" % (" ".join(opts), len(got[0]), len(got[1]),
                                                                 "same figures as gprof -b" if ok else "DIFFERENT"))
                status |= 0 if ok else 1
            return status
    if len(argv) != 3:
        print(__doc__)
        return 2
    return check(argv[1], argv[2])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
