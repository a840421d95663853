#!/usr/bin/env python3
"""The flame graph (`cgprop report --format flamegraph`) drawn right, checked
against figures this script works out itself from the inputs.

Usage: flame_check.py static <cgprop tool> <tests/data dir>
       flame_check.py browser <cgprop tool> <tests/data dir>

static: for folded stacks (hand-made names that need XML escaping and
invalid UTF-8, plus a few hundred random recursive stacks), the SVG is
well-formed XML and holds exactly one frame per calling context, in
flamegraph.pl's order (siblings by name, a frame's own cost left of its
children), each with the title "name (cost metric, percent%)" and the
rectangle x and width that the context's summed weights give; frames under
0.1 px are left out, as flamegraph.pl does. An event trace's frames carry
each context's exclusive times summed by replaying the trace here (with
compensation options too: contexts hold raw costs). A pprof profile's
frames are the stacks `go tool pprof -traces` lists for it (committed
beside it). --icicle puts the
roots at the top. Aggregate inputs (callgrind, gprof, Python statistics)
are refused: non-zero exit, a message, no SVG. When flamegraph.pl is on
PATH (or named by FLAMEGRAPH_PL), its frames for the same folded input
match ours to its 0.1 px rounding.

browser: the SVG loaded in headless chromium with a test script added:
no JavaScript error, the script's layout gives the expected widths, a click
on a frame zooms it to full width (ancestors full width, other branches
hidden, descendants scaled by the frame's exact cost), Reset Zoom restores
every width, and a search highlights the matches and reports the matched
share counting nested matches once. Exit 77 (skipped) when chromium is not
installed (Debian: apt-get install chromium), unless CGPROP_STRICT_TESTS is
set.
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
SPAN = 1200 - 2 * 10  # flamegraph.pl's image width minus its padding
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg)


# ---- what the frames should be, from the input alone ----


def trie_from_folded(lines):
    """{path tuple: [self, inclusive]} from folded lines (bytes)."""
    ctx = {}
    for line in lines:
        stack, _, w = line.rpartition(b" ")
        w = int(w)
        names = tuple(f.decode("utf-8", "replace") for f in stack.split(b";"))
        for d in range(1, len(names) + 1):
            ctx.setdefault(names[:d], [0, 0])[1] += w
        ctx[names][0] += w
    return ctx


def trie_from_events(text):
    """{path: [self, inclusive]} by replaying enter/exit events: each
    activation's exclusive time (its interval minus its children's)."""
    ctx, stack = {}, []  # stack of [name, start, children's time]
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        kind, name, t = line.split()
        t = int(t)
        if kind == "enter":
            stack.append([name, t, 0])
        else:
            n, t0, kids = stack.pop()
            assert n == name
            path = tuple(f[0] for f in stack) + (name,)
            excl = (t - t0) - kids
            if stack:
                stack[-1][2] += t - t0
            for d in range(1, len(path) + 1):
                ctx.setdefault(path[:d], [0, 0])[1] += excl
            ctx[path][0] += excl
    return ctx


def trie_from_pprof_traces(text):
    """{path: [self, inclusive]} in nanoseconds from `go tool pprof -traces`
    output: one block per distinct stack, leaf first, its time on the first
    line."""
    unit = {"ns": 1, "us": 1000, "ms": 10**6, "s": 10**9}
    ctx = {}
    for block in text.split("-----------+")[1:]:
        rows = [r for r in block.splitlines()[1:] if r.strip()]
        if not rows:
            continue
        m = re.match(r"^\s*([\d.]+)(ns|us|ms|s)\s+(.*)$", rows[0])
        cost = round(float(m.group(1)) * unit[m.group(2)])
        names = [m.group(3)] + [r.strip() for r in rows[1:]]
        path = tuple(n.removesuffix(" (inline)") for n in reversed(names))
        for d in range(1, len(path) + 1):
            ctx.setdefault(path[:d], [0, 0])[1] += cost
        ctx[path][0] += cost
    return ctx


def expected_frames(ctx, depth_max_px=0.1):
    """The frames in drawing order: (path, start, cost), "all" first."""
    total = sum(v[1] for p, v in ctx.items() if len(p) == 1)
    out = [((), 0, total)]
    kids = {}
    for p in ctx:
        kids.setdefault(p[:-1], []).append(p)
    for k in kids.values():
        k.sort(key=lambda p: p[-1].encode("utf-8"))

    def walk(parent, start):
        # iterative: (path list, start) pairs, parents before children
        todo = [(parent, start)]
        while todo:
            p, s = todo.pop()
            if p:
                cost = ctx[p][1]
                if cost == 0 or cost * SPAN / total < depth_max_px:
                    continue
                out.append((p, s, cost))
                s += ctx[p][0]
            later = []
            for c in kids.get(p, []):
                later.append((c, s))
                s += ctx[c][1]
            todo.extend(reversed(later))

    walk((), 0)
    return out, total


def rect_geometry(start, cost, total):
    return 10 + start * SPAN / total, cost * SPAN / total


# ---- the SVG the tool writes ----


def run_tool(tool, args, out):
    r = subprocess.run([tool, "report", "--format", "flamegraph"] + args + ["-o", out], capture_output=True)
    return r.returncode, r.stderr.decode("utf-8", "replace")


def svg_frames(path):
    """[(title, data-d, x, y, width)] of the frames, in document order."""
    root = ET.parse(path).getroot()  # raises on malformed XML
    frames = root.find(f".//{SVG}g[@id='frames']")
    res = []
    for g in frames:
        t = g.find(f"{SVG}title").text
        r = g.find(f"{SVG}rect")
        res.append((t, int(g.get("data-d")), float(r.get("x")), float(r.get("y")), float(r.get("width"))))
    return res, root


TITLE = re.compile(r"^(.*) \(([\d,]+) (\S+), ([\d.]+)%\)$", re.S)


def check_frames(label, svg, ctx, metric):
    exp, total = expected_frames(ctx)
    got, root = svg_frames(svg)
    if len(got) != len(exp):
        fail(f"{label}: {len(got)} frames, expected {len(exp)}")
        return exp, total
    for (path, start, cost), (title, d, x, _, w) in zip(exp, got):
        m = TITLE.match(title)
        name = path[-1] if path else "all"
        if not m:
            fail(f"{label}: title {title!r}")
            continue
        if m.group(1) != name or int(m.group(2).replace(",", "")) != cost or m.group(3) != metric:
            fail(f"{label}: frame {';'.join(path)}: title {title!r}, expected {name} with {cost:,} {metric}")
        if m.group(2) != f"{cost:,}":
            fail(f"{label}: frame {';'.join(path)}: count written {m.group(2)}, expected {cost:,}")
        if path and abs(float(m.group(4)) - 100 * cost / total) > 0.005 + 1e-9:
            fail(f"{label}: frame {';'.join(path)}: {m.group(4)}%, expected {100 * cost / total:.4f}")
        if d != len(path):
            fail(f"{label}: frame {';'.join(path)}: depth {d}")
        ex, ew = rect_geometry(start, cost, total)
        if abs(x - ex) > 1e-5 or abs(w - ew) > 1e-5:
            fail(f"{label}: frame {';'.join(path)}: x {x} width {w}, expected x {ex:.6f} width {ew:.6f}")
    return exp, total


def folded_inputs():
    hand = [
        b"main;a;b 10",
        b"main;a;c 5",
        b"main;d 3",
        b"main;a 2",
        b"main;a;b;b 4",
        b"other 1",
        b"main;<x&y>;\"q'\" 2",
        b"main;bad\xff\xfename;leaf 7",
        b"main;caf\xc3\xa9 1",
    ]
    def rand(seed, names):
        rnd = random.Random(seed)
        lines = []
        for _ in range(400):
            depth = rnd.randint(1, 12)
            st = [rnd.choice(["main", "z"])] + [rnd.choice(names) for _ in range(depth - 1)]
            lines.append(";".join(st).encode() + b" %d" % rnd.choice([1, 1, 2, 3, 50, 1000]))
        return lines

    # flamegraph.pl sorts whole folded lines, so a name that another name
    # extends with a byte below ';' ("f1" and "f10": "f1;" sorts after
    # "f10") has its context drawn in two places there; cgprop draws one
    # rectangle per context. Those names are checked against this script's
    # figures only.
    return {"hand": (hand, True),
            "random": (rand(20261125, ["f%d" % i for i in range(10)] + ["main", "g&h", "z"]), True),
            "prefixes": (rand(7, ["f1", "f10", "f11", "f2", "f20", "main", "z"]), False)}


EVENTS = """# metrics: ns
enter main 0
enter parse 10
enter lex 12
exit lex 30
exit parse 40
enter fib 41
enter fib 45
enter fib 46
exit fib 50
exit fib 58
enter parse 60
exit parse 65
exit fib 70
enter parse 71
enter lex 72
exit lex 80
exit parse 85
exit main 100
enter atexit 100
exit atexit 107
"""


def static(tool, data, tmp):
    n_ok = 0
    for label, (lines, like_pl) in folded_inputs().items():
        src = os.path.join(tmp, label + ".folded")
        with open(src, "wb") as f:
            f.write(b"\n".join(lines) + b"\n")
        out = os.path.join(tmp, label + ".svg")
        rc, err = run_tool(tool, [src], out)
        if rc != 0:
            fail(f"{label}: exit {rc}: {err}")
            continue
        ctx = trie_from_folded(lines)
        exp, total = check_frames(label, out, ctx, "samples")
        n_ok += len(exp)
        # The widths of flamegraph.pl's own picture of the same input.
        pl = os.environ.get("FLAMEGRAPH_PL") or shutil.which("flamegraph.pl")
        if pl and like_pl:
            r = subprocess.run(["perl", pl, "--hash", src], capture_output=True)
            theirs = re.findall(rb'<title>([^<]*)</title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"', r.stdout)
            ours = re.findall(r'<title>([^<]*)</title><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"',
                              open(out, encoding="utf-8").read())
            theirs = sorted(((a.decode("utf-8", "replace"), float(x), float(y), float(w)) for a, x, y, w in theirs),
                            key=lambda t: (t[2], t[1]))
            ours = sorted(((a, float(x), float(y), float(w)) for a, x, y, w in ours), key=lambda t: (t[2], t[1]))
            if len(theirs) != len(ours):
                fail(f"{label}: flamegraph.pl draws {len(theirs)} frames, cgprop {len(ours)}")
            for a, b in zip(theirs, ours):
                same_title = a[0].replace("100%", "100.00%") == b[0].replace("100%", "100.00%")
                if not same_title or abs(a[1] - b[1]) > 0.15 or abs(a[3] - b[3]) > 0.15 or a[2] != b[2]:
                    fail(f"{label}: flamegraph.pl {a}, cgprop {b}")
            print(f"{label}: {len(ours)} frames as flamegraph.pl draws them")
        # Icicle: the roots at the top, the same widths.
        ice = os.path.join(tmp, label + ".icicle.svg")
        rc, err = run_tool(tool, ["--icicle", src], ice)
        got, _ = svg_frames(ice)
        if rc or got[0][3] != 36 or any(g[3] != 36 + 16 * g[1] for g in got):
            fail(f"{label}: --icicle: frames not top-down (exit {rc})")
        if [(g[0], g[2], g[4]) for g in got] != [(g[0], g[2], g[4]) for g in svg_frames(out)[0]]:
            fail(f"{label}: --icicle: other frames than the flame graph")

    ev = os.path.join(tmp, "trace.events")
    with open(ev, "w") as f:
        f.write(EVENTS)
    ctx = trie_from_events(EVENTS)
    for extra in ([], ["--delta-i", "1", "--delta-e", "1"]):
        out = os.path.join(tmp, "trace.svg")
        rc, err = run_tool(tool, extra + [ev], out)
        if rc:
            fail(f"event trace {extra}: exit {rc}: {err}")
            continue
        exp, _ = check_frames("event trace " + " ".join(extra), out, ctx, "ns")
        n_ok += len(exp)

    # pprof: the stacks `go tool pprof -traces` lists for the same profile.
    out = os.path.join(tmp, "pprof.svg")
    rc, err = run_tool(tool, ["--metric", "cpu_nanoseconds", os.path.join(data, "pprof", "recur.pb.gz")], out)
    if rc:
        fail(f"pprof: exit {rc}: {err}")
    else:
        with open(os.path.join(data, "pprof", "recur.traces.txt")) as f:
            exp, _ = check_frames("pprof", out, trie_from_pprof_traces(f.read()), "cpu_nanoseconds")
        n_ok += len(exp)

    # Aggregate inputs have no stacks: refused, nothing written.
    for rel in ("recur/recur.default.callgrind.out", "gprof/cycles.gprof", "pstats/recur.pstats"):
        out = os.path.join(tmp, "refused.svg")
        rc, err = run_tool(tool, [os.path.join(data, rel)], out)
        if rc == 0 or "keeps no calling contexts" not in err or (os.path.exists(out) and os.path.getsize(out)):
            fail(f"{rel}: exit {rc}, message {err.strip()!r}: not refused")
        if os.path.exists(out):
            os.remove(out)
    return n_ok


# ---- in the browser ----

PROBE = r"""<script type="text/ecmascript"><![CDATA[
var probeErrors = [];
window.addEventListener('error', function (e) { probeErrors.push(String(e.message)); });
window.addEventListener('load', function () { setTimeout(probe, 0); });
function probe() {
  var res = {errors: probeErrors, steps: {}};
  try {
    var fr = Array.prototype.slice.call(document.getElementById('frames').children);
    var geo = function () { return fr.map(function (g) {
      var r = g.querySelector('rect');
      return [parseFloat(r.getAttribute('x')), parseFloat(r.getAttribute('width')),
              g.classList.contains('hide'), g.classList.contains('parent'), r.getAttribute('fill'),
              g.querySelector('text').textContent]; }); };
    res.steps.loaded = geo();
    var target = fr[TARGET];
    target.querySelector('rect').dispatchEvent(new MouseEvent('click', {bubbles: true}));
    res.steps.zoomed = geo();
    res.unzoomShown = !document.getElementById('unzoom').classList.contains('hide');
    document.getElementById('unzoom').dispatchEvent(new MouseEvent('click', {bubbles: true}));
    res.steps.unzoomed = geo();
    search(TERM);
    res.steps.searched = geo();
    res.matched = document.getElementById('matched').textContent;
  } catch (e) { res.errors.push('probe: ' + e.message); }
  var t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  t.setAttribute('id', 'probe-result');
  t.textContent = JSON.stringify(res);
  document.documentElement.appendChild(t);
}
]]></script>
"""


def browser(tool, data, tmp):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not chromium:
        print("SKIP: chromium is not installed (Debian: apt-get install chromium)")
        return None
    lines = folded_inputs()["hand"][0]
    src = os.path.join(tmp, "hand.folded")
    with open(src, "wb") as f:
        f.write(b"\n".join(lines) + b"\n")
    svg = os.path.join(tmp, "hand.svg")
    rc, err = run_tool(tool, [src], svg)
    if rc:
        fail(f"tool: exit {rc}: {err}")
        return 0
    ctx = trie_from_folded(lines)
    exp, total = expected_frames(ctx)
    paths = [p for p, _, _ in exp]
    target = paths.index(("main", "a"))
    term = "^b$"
    text = open(svg, encoding="utf-8").read()
    probe = PROBE.replace("TARGET", str(target)).replace("TERM", json.dumps(term))
    i = text.index(">", text.index("<svg")) + 1
    probed = os.path.join(tmp, "probed.svg")
    with open(probed, "w", encoding="utf-8") as f:
        f.write(text[:i] + "\n" + probe + text[i:])
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                        "--dump-dom", "file://" + probed], capture_output=True, timeout=120)
    m = re.search(rb'<text id="probe-result">(.*?)</text>', r.stdout, re.S)
    if not m:
        fail(f"chromium wrote no probe result (exit {r.returncode}): {r.stderr[-500:]!r}")
        return 0
    res = json.loads(m.group(1).decode().replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
                     .replace("&quot;", '"'))
    if res["errors"]:
        fail(f"JavaScript errors: {res['errors']}")

    def close(a, b):
        return abs(a - b) <= 1e-6 * max(1, abs(b))

    # After the script's own layout: the exact widths.
    for (p, s, c), g in zip(exp, res["steps"]["loaded"]):
        ex, ew = rect_geometry(s, c, total)
        if not close(g[0], ex) or not close(g[1], ew) or g[2] or g[3]:
            fail(f"loaded: {';'.join(p) or 'all'}: {g[:4]}, expected x {ex} width {ew}")
    # Zoomed on main;a: it spans the picture, its ancestors too (greyed),
    # its descendants are scaled by its cost, everything else is hidden.
    tp, ts, tc = exp[target]
    for (p, s, c), g in zip(exp, res["steps"]["zoomed"]):
        name = ";".join(p) or "all"
        if p == tp:
            ok = close(g[0], 10) and close(g[1], SPAN) and not g[2] and not g[3]
        elif tp[:len(p)] == p:
            ok = close(g[0], 10) and close(g[1], SPAN) and not g[2] and g[3]
        elif p[:len(tp)] == tp:
            ok = close(g[0], 10 + (s - ts) * SPAN / tc) and close(g[1], c * SPAN / tc) and not g[2]
        else:
            ok = g[2]
        if not ok:
            fail(f"zoomed on main;a: {name}: {g[:4]}")
    if not res["unzoomShown"]:
        fail("zoomed: Reset Zoom is not shown")
    if res["steps"]["unzoomed"] != res["steps"]["loaded"]:
        fail("Reset Zoom does not give the first picture back")
    # Search: the matching frames purple, the share counts b inside b once.
    want = sum(c for p, _, c in exp if p and re.search(term, p[-1]) and not any(re.search(term, q) for q in p[:-1]))
    for (p, _, _), g in zip(exp, res["steps"]["searched"]):
        hit = bool(p) and re.search(term, p[-1]) is not None
        if (g[4] == "rgb(230,0,230)") != hit:
            fail(f"search {term}: {';'.join(p) or 'all'}: fill {g[4]}")
    pct = 100 * want / total
    expect_txt = f"Matched: {pct:.1f}% ({want:,})"
    if res["matched"] != expect_txt:
        fail(f"search {term}: shows {res['matched']!r}, expected {expect_txt!r}")
    # A screenshot renders (the picture itself is for people to look at).
    png = os.path.join(tmp, "hand.png")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,200",
                    "--screenshot=" + png, "file://" + svg], capture_output=True, timeout=120)
    if not os.path.exists(png) or os.path.getsize(png) < 1000:
        fail("chromium took no screenshot of the flame graph")
    return len(exp)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("static", "browser"):
        print(__doc__)
        return 2
    mode, tool, data = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        n = static(tool, data, tmp) if mode == "static" else browser(tool, data, tmp)
    if n is None:
        return 1 if os.environ.get("CGPROP_STRICT_TESTS") else 77
    if FAILS:
        print(f"{len(FAILS)} failures")
        return 1
    print(f"flame graph ({mode}): {n} frames checked")
    return 0


if __name__ == "__main__":
    sys.exit(main())
