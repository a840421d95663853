#!/usr/bin/env python3
"""cgprop's report on `perf script` text against perf's own figures
(`perf report --children --stdio --sort symbol -g none`): the Children
percentage of each symbol is cgprop's total, Self its self, to perf's two
decimals (standard library only).

  check_perf.py TOOL SCRIPT.perf REPORT.txt   a committed recording
  check_perf.py TOOL --live PROGRAM.c         build, record with perf and
                                              check (exit 77, skipped, when
                                              perf or a C compiler is missing
                                              or perf may not record)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import cut_rule  # noqa: E402

ROW = re.compile(r"^\s*([0-9.]+)%\s+([0-9.]+)%\s+\[(.)\]\s+(.*?)\s*(?:-\s+-\s*)?$")


def parse_report(text):
    """{event: [(children, self, symbol)]}"""
    out, ev = {}, None
    for line in text.splitlines():
        m = re.match(r"# Samples: \S+\s+of event '([^']*)'", line)
        if m:
            ev = m.group(1)
            out[ev] = []
            continue
        if line.startswith("#") or ev is None:
            continue
        m = ROW.match(line)
        if m:
            out[ev].append((float(m.group(1)), float(m.group(2)), m.group(4)))
    return out


def inlined_leaves(script):
    """Symbols printed as a sample's first frame and marked (inlined): perf
    report gives such a sample's self cost to the symbol table's name for
    the address, which perf script does not print (malloc for glibc's
    __GI___libc_malloc)."""
    out, first = set(), True
    with open(script, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                first = True
                continue
            if not line.startswith("\t"):
                continue
            if first and line.rstrip().endswith(" (inlined)"):
                sym = line.split(None, 1)[1].rstrip()[: -len(" (inlined)")]
                out.add(re.sub(r"\+0x[0-9a-f]+$", "", sym))
            first = False
    return out


def check(tool, script, report_text, min_pct=0.0, metric_of=None):
    """metric_of: {perf event: cgprop metric} for a text printed without
    the event (-F without event), read without --input, so that the
    tool's detection is checked too."""
    leaves = inlined_leaves(script)
    how = ["--input", "perf"] if metric_of is None else []
    rep = json.loads(subprocess.run([tool, "report", "--format", "json"] + how + [script], check=True,
                                    stdout=subprocess.PIPE).stdout)
    metrics = rep["metrics"]
    by_name = {}
    for f in rep["functions"]:
        by_name.setdefault(f["name"], []).append(f)
    bad = rows = 0
    # Self cost perf shows under a name cgprop never saw, or beyond
    # cgprop's self under a name it knows as a caller, per event; and
    # cgprop's self of the inlined leaves it may all belong to.
    unseen, leaf_self, moved, nmoved = {}, {}, {}, {}
    for ev, lines in parse_report(report_text).items():
        # perf report lists a symbol it met at two addresses (or through two
        # maps) as two rows, each with its own share: the rows cannot be
        # told apart to compare, so such a symbol is left out.
        seen = {}
        for _, _, sym in lines:
            seen[sym] = seen.get(sym, 0) + 1
        lines = [r for r in lines if seen[r[2]] == 1]
        name = (metric_of or {}).get(ev, ev)
        if name not in metrics:
            print("event %s: no metric %s in %r" % (ev, name, metrics))
            bad += 1
            continue
        m = metrics.index(name)
        total = rep["totals"][m]
        leaf_self[ev] = sum(100.0 * f["self"][m] / total for leaf in leaves for f in by_name.get(leaf, []))
        for children, selfp, sym in lines:
            if children < min_pct:
                continue
            # perf lists unresolved addresses one by one, as "0x..." or, for
            # address 0 in an unknown map, as sixteen bare hex digits;
            # cgprop keys them by dso.
            if re.fullmatch(r"0x[0-9a-f]+|[0-9a-f]{16}", sym):
                continue
            # perf marks a function reached as an inlined copy; cgprop keeps
            # one function for all its copies.
            if sym.endswith(" (inlined)"):
                sym = sym[: -len(" (inlined)")]
            fs = by_name.get(sym, [])
            if not fs and leaves and abs(children - selfp) <= 0.005 + 1e-9:
                unseen[ev] = unseen.get(ev, 0.0) + selfp
                continue
            if len(fs) != 1:
                print("%s: %d functions named %r in cgprop's report" % (ev, len(fs), sym))
                bad += 1
                continue
            f = fs[0]
            ours_t = 100.0 * f["total"][m] / total
            ours_s = 100.0 * f["self"][m] / total
            rows += 1
            if sym in leaves:
                selfp = ours_s  # perf's self for it is under another name
            elif abs(ours_t - children) <= 0.005 + 1e-9 and selfp > ours_s + 0.005 + 1e-9:
                # That name may be a function cgprop also met as a caller:
                # an address in _int_malloc or dl_main whose first frame
                # perf script prints as a function inlined there.
                moved[ev] = moved.get(ev, 0.0) + selfp - ours_s
                nmoved[ev] = nmoved.get(ev, 0) + 1
                continue
            if abs(ours_t - children) > 0.005 + 1e-9 or abs(ours_s - selfp) > 0.005 + 1e-9:
                print("%s %s: cgprop total %.4f%% self %.4f%%, perf Children %.2f%% Self %.2f%%"
                      % (ev, sym, ours_t, ours_s, children, selfp))
                bad += 1
    for ev in set(unseen) | set(moved):
        # Rows of perf's own names for the inlined leaves: they may hold no
        # more self cost than cgprop gave those leaves (two decimals each).
        pct = unseen.get(ev, 0.0) + moved.get(ev, 0.0)
        if pct > leaf_self.get(ev, 0.0) + 0.01 * (len(leaves) + nmoved.get(ev, 0)) + 1e-9:
            print("%s: perf shows %.2f%% self cost under names cgprop lacks or beyond its self under names it"
                  " has, its inlined leaves have %.4f%%" % (ev, pct, leaf_self.get(ev, 0.0)))
            bad += 1
    print("%s: %d rows compared: %s" % (script, rows, "FAIL" if bad or not rows else "ok"))
    return 1 if bad or not rows else 0


NO_CHAIN = "without its call chain"


def refused(tool, script, what):
    """cgprop must refuse a text without call chains, named perf or not,
    with the command that records them."""
    status = 0
    for named in ([], ["--input", "perf"]):
        r = subprocess.run([tool, "report"] + named + [script], capture_output=True, text=True)
        ok = r.returncode == 1 and NO_CHAIN in r.stderr and "perf record -g" in r.stderr
        print("%-4s %s (%s) given %s: %s" % ("ok" if ok else "FAIL", os.path.basename(script), what,
                                            " ".join(named) or "as it is", r.stderr.strip() or "read"))
        status |= 0 if ok else 1
    return status


def no_chains(tool, perf, d, data, script, report):
    """A recording without call chains: perf itself reports no inclusive
    figure for it (no Children column), and cgprop, which would have only
    each sample's leaf, refuses its text however it is printed."""
    status = 0
    has_children = any(line.startswith("#") and "Children" in line for line in report.splitlines())
    rows = sum(1 for line in report.splitlines() if re.match(r"^\s*[0-9.]+%\s", line))
    ok = not has_children and rows > 0
    print("%-4s perf report --children without call chains: %d rows, %s" %
          ("ok" if ok else "FAIL", rows, "a Children column" if has_children else "no Children column"))
    status |= 0 if ok else 1
    status |= refused(tool, script, "default fields")
    for fields in ("comm,tid,period,ip,sym,dso", "ip,sym,dso"):
        bare = os.path.join(d, "nochain-%s.perf" % fields.replace(",", "_"))
        with open(bare, "wb") as out:
            subprocess.run([perf, "script", "-i", data, "-F", fields], check=True, stdout=out,
                           stderr=subprocess.DEVNULL)
        status |= refused(tool, bare, "-F " + fields)
    return status


def live(tool, source):
    perf, cc = shutil.which("perf"), shutil.which("cc") or shutil.which("gcc")
    if not perf or not cc:
        print("perf or a C compiler not installed: live check skipped")
        return 77
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "recur")
        subprocess.run([cc, "-O1", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls", source, "-o", exe],
                       check=True)
        status = 0
        # Frame-pointer chains, DWARF unwinding (which adds inlined frames),
        # then no call chains.
        for i, how in enumerate((["-g"], ["--call-graph", "dwarf"], [])):
            data, script = os.path.join(d, "perf%d.data" % i), os.path.join(d, "recur%d.perf" % i)
            r = subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-F", "1000"] + how + ["-o", data, exe],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0 or not os.path.exists(data):
                print("perf record %s failed (perf_event_paranoid?): live check skipped\n%s"
                      % (" ".join(how), r.stderr.decode(errors="replace")))
                return 77
            with open(script, "wb") as out:
                subprocess.run([perf, "script", "-i", data], check=True, stdout=out, stderr=subprocess.DEVNULL)
            text = subprocess.run([perf, "report", "-i", data, "--children", "--stdio", "--sort", "symbol", "-g",
                                   "none"], check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
            if not how:
                status |= no_chains(tool, perf, d, data, script, text.decode())
                continue
            # The recording itself, given as users first try it, is refused
            # with the command that prints its text, named or not.
            for named in ([], ["--input", "perf"]):
                r = subprocess.run([tool, "report"] + named + [data], capture_output=True, text=True)
                ok = r.returncode != 0 and "perf script -i perf.data" in r.stderr
                print("%-4s perf.data given %s: %s" % ("ok" if ok else "FAIL", " ".join(named) or "as it is",
                                                      r.stderr.strip() or "read"))
                status |= 0 if ok else 1
            status |= check(tool, script, text.decode(), min_pct=0.5)
            if i == 1:
                continue
            # The same samples printed without the event: with the period
            # (a metric named period), and with no header field at all
            # (perf prints an empty header line; the sample count is the
            # one metric, perf's shares when every period is the same).
            periods = subprocess.run([perf, "script", "-i", data, "-F", "period"], check=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.split()
            for fields, metric in (("comm,tid,period,ip,sym,dso", "period"), ("ip,sym,dso", "samples")):
                if metric == "samples" and len(set(periods)) != 1:
                    print("periods differ between samples: -F %s not compared" % fields)
                    continue
                bare = os.path.join(d, "recur%d-%s.perf" % (i, metric))
                with open(bare, "wb") as out:
                    subprocess.run([perf, "script", "-i", data, "-F", fields], check=True, stdout=out,
                                   stderr=subprocess.DEVNULL)
                status |= check(tool, bare, text.decode(), min_pct=0.5, metric_of={"cpu-clock": metric})
            # The call chains recorded but not printed (perf script -G): the
            # same text as without them, refused the same way.
            hidden = os.path.join(d, "recur%d-G.perf" % i)
            with open(hidden, "wb") as out:
                subprocess.run([perf, "script", "-i", data, "-G"], check=True, stdout=out, stderr=subprocess.DEVNULL)
            status |= refused(tool, hidden, "-G")
        status |= cut_short(tool, perf, cc, d, os.path.join(os.path.dirname(source), "deep.c"))
        return status


def cut_short(tool, perf, cc, d, source):
    """deep.c recurses 300 frames deep, past the 127 perf keeps: the cut
    samples start in deep. perf report's Children is what the stacks show,
    cgprop's figure too; where the cut samples may belong (main ran the
    whole program), cgprop's interval reaches up by their weight."""
    exe, data, script = os.path.join(d, "deep"), os.path.join(d, "deep.data"), os.path.join(d, "deep.perf")
    subprocess.run([cc, "-O1", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls", source, "-o", exe],
                   check=True)
    subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-F", "1000", "-g", "-o", data, exe],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    with open(script, "wb") as out:
        subprocess.run([perf, "script", "-i", data], check=True, stdout=out, stderr=subprocess.DEVNULL)
    report = subprocess.run([perf, "report", "-i", data, "--children", "--stdio", "--sort", "symbol", "-g", "none"],
                            check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    children = {sym: c for c, _, sym in parse_report(report).get("cpu-clock", [])}
    doc = json.loads(subprocess.run([tool, "report", "--format", "json", script], check=True,
                                    stdout=subprocess.PIPE).stdout)
    k = doc["metrics"].index("cpu-clock")
    total, unrooted = doc["totals"][k], doc["unrooted"][k]
    fns = {f["name"]: f for f in doc["functions"]}
    want_hi = cut_intervals(script, total)
    status = 0
    for name in ("main", "deep", "spin"):
        f = fns.get(name)
        if f is None or name not in children:
            print("FAIL deep.c: %s missing (cgprop %s, perf %s)" % (name, f is not None, name in children))
            status = 1
            continue
        lo, hi = f["bounds"][0][k], f["bounds"][1][k]
        ok = abs(100.0 * f["total"][k] / total - children[name]) <= 0.005 and f["total"][k] == lo
        # Every interval as the stacks give it: main starts no cut stack and
        # no cut stack shows it, so any of them may have run under it; deep
        # starts them all and is exact, unless the unwinder also stopped
        # somewhere else.
        ok = ok and unrooted > 0 and hi == want_hi.get(name)
        ok = ok and f["estimate"][k] == (None if hi == lo else "measured")
        print("%-4s deep.c %-5s perf Children %6.2f %%  cgprop [%.2f %%, %.2f %%] %s (cut: %.2f %%)" %
              ("ok" if ok else "FAIL", name, children[name], 100.0 * lo / total, 100.0 * hi / total,
               f["estimate"][k], 100.0 * unrooted / total))
        status |= 0 if ok else 1
    return status


def cut_intervals(script, total):
    """Each function's upper bound where stacks may have been cut short,
    worked out from the perf script text itself by tests/cut_rule.py.
    Functions without a symbol are one per dso, as cgprop keys them."""
    stacks, cur = [], None
    for line in open(script, errors="replace").read().split("\n"):
        if not line.strip():
            if cur and cur[1]:
                stacks.append((cur[0], cur[1][::-1]))
            cur = None
        elif not line.startswith("\t") and not line.startswith(" "):
            # A cpu-clock sample's header and its period; another event's
            # sample is left out.
            m = re.search(r"\s(\d+)\s+cpu-clock:", line)
            cur = (int(m.group(1)), []) if m else None
        elif cur is not None:
            m = re.match(r"\s*[0-9a-f]+\s+(.*?)(?:\+0x[0-9a-f]+)?\s+\((.*)\)\s*$", line)
            if m:
                sym, dso = m.group(1), m.group(2)
                cur[1].append("[unknown] " + dso if sym == "[unknown]" else sym)
    if cur and cur[1]:
        stacks.append((cur[0], cur[1][::-1]))
    return {f: hi for f, (_, hi, _) in cut_rule.intervals(stacks, total)[1].items()}


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--live":
        return live(sys.argv[1], sys.argv[3])
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    return check(sys.argv[1], sys.argv[2], open(sys.argv[3], encoding="utf-8").read())


if __name__ == "__main__":
    sys.exit(main())
