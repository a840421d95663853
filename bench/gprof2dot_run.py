#!/usr/bin/env python3
"""Run gprof2dot.py on deep recursive graphs: cgprop-bench's same-run peer.

    python3 gprof2dot_run.py GPROF2DOT_PY [gprof2dot arguments...]

gprof2dot walks call graphs with native Python recursion, so on a cycle of
20,000 functions it dies with RecursionError (or overflows the C stack)
before it gets to its result. This wrapper raises the recursion limit and
runs gprof2dot's main in a thread with a large stack; gprof2dot itself is
not changed and is not part of cgprop. Exit status: 0 when gprof2dot
finished normally, else 1 (or gprof2dot's own exit code).
"""
import runpy
import sys
import threading


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    script, args = sys.argv[1], sys.argv[2:]
    sys.setrecursionlimit(1000000)
    threading.stack_size(1 << 30)  # 1 GiB: ~100 kB per frame of the deepest walks fits
    status = [0]

    def run():
        sys.argv = [script] + args
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as e:  # gprof2dot's own exit code
            status[0] = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException as e:  # noqa: BLE001 - report any failure as status 1
            sys.stderr.write("gprof2dot_run: %s: %s\n" % (type(e).__name__, e))
            status[0] = 1

    t = threading.Thread(target=run)
    t.start()
    t.join()
    return status[0]


if __name__ == "__main__":
    sys.exit(main())
