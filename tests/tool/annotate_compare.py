#!/usr/bin/env python3
"""Does the real callgrind_annotate read cgprop's callgrind output of a
profile with the same figures as the profile itself?

    annotate_compare.py TOOL PROFILE...

For each profile: `TOOL report --format callgrind` writes it out again, and
callgrind_annotate (--inclusive=no and --inclusive=yes) reads both files.
Every function's self and inclusive figure of every event must agree, as
must the program totals (--inclusive=no). The reference is annotate's own reading of the
profile, an implementation independent of cgprop.

The profile is normalised first: callgrind_annotate credits the
cost lines after an `fi=`/`fe=` line (inlined code) to a function of that
file, while a profiler's function - and so cgprop's - is the one of the
`fl=` in force at its `fn=` line. The reference therefore reads the profile
with each `fi=`/`fe=` turned into a `jfi=` line (which only defines a
compressed name, for both readers) and the inlined file written out as
`cfi=` for calls that relied on it as their default callee file. Its
`summary:`/`totals:` lines are dropped too: annotate then sums the self costs
itself (--inclusive=no), the figure cgprop's `summary:` must equal (a stated
summary may differ from the costs, and annotate keeps only the last part's).

Recursion classes are compared row by row: `fn`, `fn'2` and `fn'3` are
rows of their own on both sides. cgprop keeps every level from 2 on as one
class and writes it as `fn'3`, the way `--separate-recs=3` writes it, so
the rows `fn'3`, `fn'4`, ... of a profile made with a larger
`--separate-recs` are compared, added up, with cgprop's `fn'3`.

Exit 0 when every profile agrees, 1 with a message otherwise, 77 when
callgrind_annotate is not installed.
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

def normalise(src, dst):
    """Fold inlined files into the function's file (see the module doc)."""
    fi = None  # the inlined file in force, as a file spec, or None
    have_cfi = False
    out = []
    with open(src, "rb") as f:
        for raw in f:
            line = raw.decode("latin-1").rstrip("\r\n")
            m = re.match(r"^(fl|fi|fe|cfi|cfl|jfi)=(.*)$", line)
            if m:
                key, val = m.groups()
                if key == "fl":
                    fi = None
                elif key in ("fi", "fe"):
                    fi = val
                    out.append("jfi=" + val)
                    continue
                elif key in ("cfi", "cfl"):
                    have_cfi = True
            elif line.startswith("fn="):
                fi = None
            elif line.startswith("cfn="):
                if fi is not None and not have_cfi:
                    d = re.match(r"^\((\d+)\)", fi)
                    out.append("cfi=" + ("(%s)" % d.group(1) if d else fi))
            elif line.startswith("calls="):
                have_cfi = False
            elif line.startswith(("summary:", "totals:")):
                continue
            out.append(line)
    with open(dst, "wb") as f:
        f.write(("\n".join(out) + "\n").encode("latin-1"))


COL = re.compile(r"\s*(?:([0-9,]+)(?: \(\s*[0-9.]+%\))?|(\.))(?=\s)")


def columns(line, k):
    """The k figures at the start of an annotate row ('.' is 0), and the rest."""
    vals, pos = [], 0
    for _ in range(k):
        m = COL.match(line, pos)
        if not m:
            return None, line
        vals.append(int(m.group(1).replace(",", "")) if m.group(1) else 0)
        pos = m.end()
    return vals, line[pos:].strip()


def annotate(path, inclusive):
    """Events, program totals and {function: [figures]} as callgrind_annotate prints them."""
    r = subprocess.run(
        ["callgrind_annotate", "--inclusive=" + inclusive, "--threshold=100", "--auto=no", path],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if r.returncode != 0:
        sys.exit("callgrind_annotate failed on %s: %s" % (path, r.stderr.decode("latin-1")))
    events, totals, fns, in_fns = None, None, {}, False
    for ln in r.stdout.decode("latin-1").splitlines():
        if ln.startswith("Events shown:"):
            events = ln.split(":", 1)[1].split()
        elif events and "PROGRAM TOTALS" in ln:
            totals, _ = columns(ln, len(events))
        elif events and ln.split()[-1:] == ["file:function"]:
            in_fns = True
        elif in_fns and ln.strip() and not ln.startswith("--"):
            vals, name = columns(ln, len(events))
            if vals is None:
                sys.exit("%s: unreadable annotate row %r" % (path, ln))
            # annotate keys a function by file:function; the [object] after
            # it is the one of the last fn= line it read, so two objects'
            # same-named functions show whichever came last.
            name = re.sub(r" \[[^]]*\]$", "", name)
            if name in fns:
                sys.exit("%s: function %r listed twice" % (path, name))
            fns[name] = vals
    if events is None or totals is None:
        sys.exit("%s: could not read callgrind_annotate's output" % path)
    return events, totals, fns


DEEP = re.compile(r"'([0-9]+)$")


def fold_deep(fns):
    """{function: figures} with the rows fn'3, fn'4, ... added up as fn'3."""
    out = {}
    for name, vals in fns.items():
        m = DEEP.search(name)
        if m and int(m.group(1)) > 3:
            name = name[:m.start()] + "'3"
        if name in out:
            out[name] = [a + b for a, b in zip(out[name], vals)]
        else:
            out[name] = list(vals)
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if shutil.which("callgrind_annotate") is None:
        if os.environ.get("CGPROP_STRICT_TESTS"):
            sys.exit("callgrind_annotate not found (CGPROP_STRICT_TESTS): scripts/deps.sh installs valgrind")
        sys.exit(77)
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        for prof in sys.argv[2:]:
            if prof.endswith(".gz"):  # the real programs' profiles are kept gzipped
                plain = os.path.join(tmp, os.path.basename(prof)[:-3])
                with gzip.open(prof, "rb") as src, open(plain, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                prof = plain
            ref = os.path.join(tmp, "ref.out")
            out = os.path.join(tmp, "cgprop.out")
            normalise(prof, ref)
            r = subprocess.run([tool, "report", "--format", "callgrind", "-o", out, prof],
                               stderr=subprocess.PIPE, check=False)
            if r.returncode != 0:
                sys.exit("%s: cgprop exit %d: %s" % (prof, r.returncode, r.stderr.decode("latin-1")))
            checked = 0
            for inc in ("no", "yes"):
                ea, ta, fa = annotate(ref, inc)
                fa = fold_deep(fa)
                eb, tb, fb = annotate(out, inc)
                if ea != eb:
                    sys.exit("%s: events %r vs %r" % (prof, ea, eb))
                if inc == "no" and ta != tb:
                    sys.exit("%s: program totals %r vs %r" % (prof, ta, tb))
                # A function annotate lists with all-zero figures on one side
                # may be absent on the other (a call of cost 0, say).
                for name in sorted(set(fa) | set(fb)):
                    a = fa.get(name, [0] * len(ea))
                    b = fb.get(name, [0] * len(ea))
                    if a != b:
                        sys.exit("%s, --inclusive=%s: %s: %r in the profile, %r in cgprop's output"
                                 % (prof, inc, name, a, b))
                    checked += 1
            if checked == 0:
                sys.exit("%s: no function compared" % prof)
            print("%s: %d function figures agree" % (prof, checked))


if __name__ == "__main__":
    main()
