#!/usr/bin/env python3
"""Every DOT the tool writes for the test profiles renders with the real dot,
and the picture has every box and arrow of the source.

Usage: dot_render.py <cgprop tool> <tests/data dir>

For each profile (each reader's fixtures, gprof2dot's real profiles, the
recursion fixtures, and a subset of the real programs' profiles) and each
--cycles value, the tool writes DOT and dot lays it out once, writing SVG
and its plain layout. A failure is a non-zero exit or anything on dot's
stderr (graphviz reports layout trouble there, sometimes while still
exiting 0). Then, from the plain layout: every node statement and every
arrow of the DOT source is drawn (graphviz can lose an edge and say so only
on stderr, or not at all). Also checked: --cycles label names in a member's
label exactly the cycle whose cluster --cycles cluster puts it in, and
--cycles none names no cycle at all.

A dozen of the random recursive profiles of g2d_random. Real programs' profiles: the default profile of each of the five, plus
bash's --separate-recs=1 profile, on which graphviz's default ranking fails
with clusters ("trouble in init_rank"). Their --separate-recs=10 profiles
are left out for time (each takes seconds to lay out and adds no drawing
the default ones do not have); unpruned pictures (thresholds 0) only for
the small profiles, as a real program's whole graph takes dot minutes.

Exit 0 when everything renders, 1 otherwise, 77 when dot is missing (unless
CGPROP_STRICT_TESTS is set, then 1).
"""

import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MODES = ("label", "cluster", "none")
NODE = re.compile(r'^\s*(n\d+) \[.*label="((?:[^"\\]|\\.)*)"\];$')
EDGE = re.compile(r"^\s*(n\d+) -> (n\d+) \[")
CLUSTER = re.compile(r"^\s*subgraph cluster_cycle(\d+) \{$")


def profiles(data, full):
    """Every kind of drawing by default: each reader's fixtures, gprof2dot's
    and the recursion fixtures, three random profiles and the real profile
    that broke clusters (bash, --separate-recs=1); with `full`, a dozen
    random profiles and every real program's default profile too."""
    small = []
    for pat in ("recur/*.callgrind.out", "gprof2dot/*.callgrind", "perf/*.perf", "pprof/*.pb", "pprof/*.pb.gz",
                "pprof/*.folded.gz", "pprof/*.callgrind.out.gz", "v8/*.cpuprofile", "pstats/*.pstats",
                "gprof/*.gprof", "events/*.events"):
        small += sorted(glob.glob(os.path.join(data, pat)))
    # A script without call chains is refused (no inclusive cost to draw).
    small = [p for p in small if not p.endswith("-nog.perf")]
    # A dozen of the random recursive profiles (the first by name): more
    # add time, not kinds of drawing.
    small += sorted(glob.glob(os.path.join(data, "g2d_random", "*.callgrind")))[:12 if full else 3]
    real = [os.path.join(data, "real", p, p + ".default.callgrind.out.gz")
            for p in (("bash", "perl", "python3", "sqlite3", "tclsh") if full else ())]
    real.append(os.path.join(data, "real", "bash", "bash.separate-recs-1.callgrind.out.gz"))
    for f in real:
        if not os.path.isfile(f):
            sys.exit("missing profile %s" % f)
    # Big profiles are laid out pruned only, like the real ones: gprof2dot's
    # two largest and the Go standard library's (835 functions; dot took two
    # minutes over its whole graph).
    big = [f for f in small if os.path.basename(f) in ("bzr.callgrind", "xapian.callgrind", "work.pb.gz")]
    return [(f, f not in big) for f in small] + [(f, False) for f in real]


# The view controls (docs/TOOL.md): focus, hiding, top, names, colour maps
# and labels, on the recursion profile and on C++ names (Xapian).
VIEWS = [["--root", "main", "--depth", "2"], ["--leaf", "leafc"], ["--root", "fa", "--leaf", "leafc"],
         ["--hide", "^_"], ["--focus", "fib|fb"], ["--top", "8"], ["--skew", "0.3"],
         ["--label", "total-value,self-value,calls"], ["--label", "total"],
         ["--top", "5", "--node-thres", "0", "--edge-thres", "0"]] + \
        [["--colormap", m] for m in ("pink", "gray", "bw", "print")]
CPP_VIEWS = [["--strip"], ["--wrap"], ["--strip", "--wrap", "--colormap", "print"],
             ["--top", "25", "--label", "total,total-value,self-value"]]


def view_jobs(data):
    recur = os.path.join(data, "recur", "recur.default.callgrind.out")
    cpp = os.path.join(data, "gprof2dot", "xapian.callgrind")
    return [(recur, v) for v in VIEWS] + [(cpp, v) for v in CPP_VIEWS]


def parse_source(text):
    """Nodes (name -> label), edges (list of pairs), cluster of each node."""
    nodes, edges, cluster, current = {}, [], {}, None
    for line in text.splitlines():
        m = CLUSTER.match(line)
        if m:
            current = int(m.group(1))
            continue
        if line.strip() == "}":
            current = None
            continue
        m = EDGE.match(line)
        if m:
            edges.append((m.group(1), m.group(2)))
            continue
        m = NODE.match(line)
        if m:
            nodes[m.group(1)] = m.group(2)
            if current is not None:
                cluster[m.group(1)] = current
    return nodes, edges, cluster


def parse_plain(text):
    nodes, edges = set(), []
    for line in text.splitlines():
        w = line.split()
        if w and w[0] == "node":
            nodes.add(w[1])
        elif w and w[0] == "edge":
            edges.append((w[1], w[2]))
    return nodes, edges


def main():
    full = "--full" in sys.argv[1:]
    args = [a for a in sys.argv[1:] if a != "--full"]
    tool, data = args[0], args[1]
    dot = shutil.which("dot")
    if not dot:
        if os.environ.get("CGPROP_STRICT_TESTS"):
            print("dot (graphviz) is missing and CGPROP_STRICT_TESTS is set")
            return 1
        print("skipped: dot (graphviz) not found")
        return 77
    jobs = [(path, opts) for path, unpruned in profiles(data, full)
            for opts in [[]] + ([["--node-thres", "0", "--edge-thres", "0"]] if unpruned else [])]
    jobs += view_jobs(data)
    tmp = tempfile.mkdtemp(prefix="cgprop-dot-")
    try:
        # dot is single-threaded: two at a time halves the wall time.
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda j: render(tool, dot, data, j[0], j[1], tmp, jobs.index(j)), jobs))
    finally:
        shutil.rmtree(tmp)
    results.append(render_compare(tool, dot, data))
    failures = [f for fs, _ in results for f in fs]
    for f in failures:
        print("FAIL " + f)
    print("%d pictures rendered, %d failures" % (sum(n for _, n in results), len(failures)))
    return 1 if failures else 0


def render(tool, dot, data, path, opts, tmp, k):
    """The pictures of one profile, one per mode: (failures, count)."""
    failures, src, checked = [], {}, 0
    gv, svg, plain = (os.path.join(tmp, "%d.%s" % (k, ext)) for ext in ("dot", "svg", "plain"))
    for mode in MODES:
        what = "%s --cycles %s %s" % (os.path.relpath(path, data), mode, " ".join(opts))
        r = subprocess.run([tool, "report", "--format", "dot", "--cycles", mode] + opts + [path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            failures.append("%s: cgprop exit %d: %s" % (what, r.returncode, r.stderr.decode()[:200]))
            continue
        text = r.stdout.decode("utf-8")
        with open(gv, "w", encoding="utf-8") as fh:
            fh.write(text)
        d = subprocess.run([dot, "-Tsvg", "-o", svg, "-Tplain", "-o", plain, gv], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
        err = d.stderr.decode("utf-8", "replace").strip()
        if d.returncode != 0 or err:
            failures.append("%s: dot exit %d: %s" % (what, d.returncode, err[:300]))
            continue
        with open(svg, encoding="utf-8") as fh:
            if "<svg" not in fh.read():
                failures.append("%s: no <svg> in dot's output" % what)
        with open(plain, encoding="utf-8") as fh:
            drawn_nodes, drawn_edges = parse_plain(fh.read())
        nodes, edges, cluster = parse_source(text)
        if not nodes:
            failures.append("%s: no node statement in the DOT" % what)
        missing = set(nodes) - drawn_nodes
        if missing:
            failures.append("%s: boxes not drawn: %s" % (what, sorted(missing)[:10]))
        left = list(drawn_edges)
        for e in edges:
            if e in left:
                left.remove(e)
            else:
                failures.append("%s: arrow %s -> %s not drawn" % (what, e[0], e[1]))
        src[mode] = (nodes, cluster)
        checked += 1
    return failures + cycle_marks(os.path.relpath(path, data), opts, src), checked


def cycle_marks(path, opts, src):
    """--cycles label names the cycle --cycles cluster boxes; none names none."""
    if len(src) != len(MODES):
        return []
    out = []
    (ln, _), (cn, cl), (nn, _) = src["label"], src["cluster"], src["none"]
    what = "%s %s" % (path, " ".join(opts))
    if set(ln) != set(cn) or set(nn) != set(cn):
        out.append("%s: the three modes draw different boxes" % what)
    for n, label in ln.items():
        m = re.search(r"\\n<cycle (\d+)>$", label)
        named = int(m.group(1)) if m else None
        if named != cl.get(n):
            out.append("%s: %s labelled cycle %s, clustered in %s" % (what, n, named, cl.get(n)))
    for n, label in list(nn.items()) + list(cn.items()):
        if "<cycle" in label:
            out.append("%s: %s names a cycle in its label with --cycles none/cluster" % (what, n))
    return out


CMP_NODE = re.compile(r'^\s*(c\d+) \[.*label="((?:[^"\\]|\\.)*)"\];$')
CMP_EDGE = re.compile(r"^\s*(c\d+) -> (c\d+) \[")


def render_compare(tool, dot, data):
    """report --compare pictures: two Go profiles (functions added, every
    figure exact), a callgrind profile against its --separate-recs=1 twin
    (estimates, dashed), bash's default profile against its
    --separate-recs=1 one (a real program's graph, pruned), the small ones
    also unpruned. Same checks as the single-profile pictures."""
    pairs = [("pprof/recur.pb.gz", "compare/recur_new.pb.gz", True),
             ("recur/recur.default.callgrind.out", "recur/recur.recs1.callgrind.out", True),
             ("recur/recur.recs1.callgrind.out", "recur/recur.default.callgrind.out", True),
             ("real/bash/bash.default.callgrind.out.gz", "real/bash/bash.separate-recs-1.callgrind.out.gz", False)]
    failures, checked = [], 0
    tmp = tempfile.mkdtemp(prefix="cgprop-dot-cmp-")
    try:
        for base, new, unpruned in pairs:
            for opts in [[]] + ([["--node-thres", "0", "--edge-thres", "0"]] if unpruned else []):
                what = "--compare %s %s %s" % (base, new, " ".join(opts))
                r = subprocess.run([tool, "report", "--format", "dot", "--compare", os.path.join(data, base)] + opts
                                   + [os.path.join(data, new)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if r.returncode != 0:
                    failures.append("%s: cgprop exit %d: %s" % (what, r.returncode, r.stderr.decode()[:200]))
                    continue
                text = r.stdout.decode("utf-8")
                gv, svg, plain = (os.path.join(tmp, "c.%s" % ext) for ext in ("dot", "svg", "plain"))
                with open(gv, "w", encoding="utf-8") as fh:
                    fh.write(text)
                d = subprocess.run([dot, "-Tsvg", "-o", svg, "-Tplain", "-o", plain, gv], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
                err = d.stderr.decode("utf-8", "replace").strip()
                if d.returncode != 0 or err:
                    failures.append("%s: dot exit %d: %s" % (what, d.returncode, err[:300]))
                    continue
                with open(plain, encoding="utf-8") as fh:
                    drawn_nodes, drawn_edges = parse_plain(fh.read())
                nodes = [m.group(1) for m in map(CMP_NODE.match, text.splitlines()) if m]
                edges = [(m.group(1), m.group(2)) for m in map(CMP_EDGE.match, text.splitlines()) if m]
                if len(nodes) < 3:
                    failures.append("%s: %d boxes only" % (what, len(nodes)))
                if set(nodes) - drawn_nodes:
                    failures.append("%s: boxes not drawn: %s" % (what, sorted(set(nodes) - drawn_nodes)[:10]))
                left = list(drawn_edges)
                for e in edges:
                    if e in left:
                        left.remove(e)
                    else:
                        failures.append("%s: arrow %s -> %s not drawn" % (what, e[0], e[1]))
                checked += 1
    finally:
        shutil.rmtree(tmp)
    return failures, checked


if __name__ == "__main__":
    sys.exit(main())
