#!/usr/bin/env python3
"""cgprop's callgrind output keeps every call count where the original put
it: for each (caller, callee) pair of names as written, fn'N forms included,
the calls= counts of the rewrite add up to those of the original. This is
what KCachegrind shows in its Called column and its caller and callee lists
(callgrind_annotate shows no counts). cgprop writes every level from 2 on
as fn'3, as --separate-recs=3 does, so the original's fn'3, fn'4, ... are
taken as fn'3 (the identity for a --separate-recs=3 profile, whose fn'2 and
fn'3 are compared apart). Usage: counts_compare.py CGPROP FILE..."""
import gzip
import re
import subprocess
import sys
from collections import defaultdict


DEEP = re.compile(r"'([0-9]+)$")


def fold_deep(name):
    """fn'K for K > 3 as fn'3."""
    m = DEEP.search(name or "")
    return name[:m.start()] + "'3" if m and int(m.group(1)) > 3 else name


def counts(text):
    """{(caller, callee): total calls=} of a callgrind profile, names as
    written, with name compression resolved."""
    names = {"fn": {}, "ob": {}, "fl": {}}
    out = defaultdict(int)
    fn = cfn = None
    desc_plus1 = False
    for line in text.splitlines():
        if line.startswith("desc:") and "one more" in line:
            desc_plus1 = True
        key, _, val = line.partition("=")
        if key in ("fn", "cfn", "cfi", "cfl", "cob", "ob", "fl", "fi", "fe"):
            space = {"fn": "fn", "cfn": "fn"}.get(key)
            if space is None:
                continue
            name = val
            if val.startswith("("):
                idx, _, rest = val.partition(")")
                rest = rest.strip()
                if rest:
                    names[space][idx] = rest
                    name = rest
                else:
                    name = names[space][idx]
            if key == "fn":
                fn = name
            else:
                cfn = name
        elif line.startswith("calls="):
            n = int(line[6:].split()[0])
            out[(fold_deep(fn), fold_deep(cfn))] += n - 1 if desc_plus1 else n
    return out


def main():
    tool, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for f in files:
        raw = open(f, "rb").read()
        text = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode("utf-8", "replace")
        ours = subprocess.run([tool, "report", "--format", "callgrind", f], check=True, capture_output=True).stdout
        want, got = counts(text), counts(ours.decode("utf-8", "replace"))
        diff = [(k, want.get(k, 0), got.get(k, 0)) for k in set(want) | set(got) if want.get(k, 0) != got.get(k, 0)]
        print("%s: %d call pairs, %d differ" % (f, len(want), len(diff)))
        for k, w, g in sorted(diff)[:10]:
            print("  FAIL %s -> %s: original %d, cgprop %d" % (k[0], k[1], w, g))
        bad += bool(diff)
        if not want:
            print("  FAIL: no calls read from the original")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
