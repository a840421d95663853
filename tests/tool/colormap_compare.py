#!/usr/bin/env python3
"""cgprop's DOT colour maps against gprof2dot's own output on the same
profile: every box and arrow whose name and percent both tools print gets
the same colour, font colour, font size and pen width from both, for each
map and a few skews.

usage: colormap_compare.py CGPROP GPROF2DOT.py PROFILE
Exit 77 (skipped) when gprof2dot.py is not there."""
import os
import re
import subprocess
import sys

tool, g2d, prof = sys.argv[1:4]
if not os.path.exists(g2d):
    print("gprof2dot.py not found: skipped")
    sys.exit(77)

NODE = re.compile(r'^\s*(\S+|"[^"]*") \[(.*)\];$')
EDGE = re.compile(r'^\s*(\S+|"[^"]*") -> (\S+|"[^"]*") \[(.*)\];$')
ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
PCT = re.compile(r'^~?(\d+\.\d\d)%$')


def parse(text):
    """{('node', name, pct) or ('edge', pct): attrs} for boxes and arrows."""
    nodes, edges = {}, {}
    for line in text.splitlines():
        m = EDGE.match(line)
        if m:
            a = dict(ATTR.findall(m.group(3)))
            parts = a.get('label', '').split('\\n')
            p = PCT.match(parts[0]) if parts else None
            if p:
                edges.setdefault(p.group(1), []).append(a)
            continue
        m = NODE.match(line)
        if not m or 'label' not in line:
            continue
        a = dict(ATTR.findall(m.group(2)))
        parts = a['label'].split('\\n')
        for i, s in enumerate(parts):
            p = PCT.match(s)
            if p and i > 0:
                nodes[(parts[i - 1], p.group(1))] = a
                break
    return nodes, edges


fails = 0
for cmap in ('color', 'pink', 'gray', 'bw', 'print'):
    for skew in ('1', '0.5', '3'):
        ref = subprocess.run([sys.executable, g2d, '-f', 'callgrind', '-c', cmap, '--skew', skew, '-n0', '-e0', prof],
                             capture_output=True, text=True, check=True).stdout
        out = subprocess.run([tool, 'report', '--format', 'dot', '--colormap', cmap, '--skew', skew, '--key', 'name',
                              '--no-fold-recursion', '--heuristic-only', '--node-thres', '0', '--edge-thres', '0',
                              prof], capture_output=True, text=True, check=True).stdout
        rn, re_ = parse(ref)
        on, oe = parse(out)
        same = 0
        for k, a in rn.items():
            if k not in on:
                continue
            b = on[k]
            for attr in ('color', 'fontsize') + (('fontcolor',) if cmap == 'print' else ()):
                if a.get(attr) != b.get(attr):
                    print(f'{cmap} skew {skew}: box {k}: {attr} {b.get(attr)}, gprof2dot {a.get(attr)}')
                    fails += 1
            same += 1
        esame = 0
        for pct, al in re_.items():
            if pct not in oe:
                continue
            for attr in ('color', 'penwidth', 'arrowsize', 'fontsize'):
                want = {a.get(attr) for a in al}
                got = {b.get(attr) for b in oe[pct]}
                if want != got:
                    print(f'{cmap} skew {skew}: arrow {pct}%: {attr} {sorted(got)}, gprof2dot {sorted(want)}')
                    fails += 1
            esame += 1
        if same < 5 or esame < 5:
            print(f'{cmap} skew {skew}: only {same} boxes and {esame} arrows to compare')
            fails += 1
        print(f'{cmap} skew {skew}: {same} boxes, {esame} arrow percents agree')
sys.exit(1 if fails else 0)
