"""The intervals of stacks a sampler may have cut short, worked out from the
stacks themselves, for the live tests to hold cgprop's against (a module
beside them: tests/perf/check_perf.py and tests/pprof/real_pprof.py).

A stack is suspect when its first function is called by another somewhere,
or calls itself and starts a stack of 20 frames or more. A function may lack
the weight of the suspect stacks it neither starts nor is shown in by every
stack of their first function."""


def intervals(stacks, total):
    """stacks: (weight, functions root first). Returns the suspect stacks'
    weight and, per function, (its total, the interval's upper end, the
    tightest upper end: that of the suspect stacks that do not show it)."""
    called, self_called, deep = set(), set(), set()
    for w, fr in stacks:
        for i in range(1, len(fr)):
            (called if fr[i] != fr[i - 1] else self_called).add(fr[i])
        if len(fr) >= 20:
            deep.add(fr[0])
    suspect = lambda r: r in called or (r in self_called and r in deep)
    unrooted = sum(w for w, fr in stacks if suspect(fr[0]))
    cum, spont, common = {}, {}, {}
    for w, fr in stacks:
        for f in set(fr):
            cum[f] = cum.get(f, 0) + w
        r = fr[0]
        spont[r] = spont.get(r, 0) + w
        shown = set(fr[1:]) - {r}
        common[r] = common[r] & shown if r in common else shown
    out = {}
    for f in cum:
        extra = unrooted - (spont.get(f, 0) if suspect(f) else 0)
        extra -= sum(spont[r] for r in common if suspect(r) and f in common[r])
        tight = min(cum[f] + sum(w for w, fr in stacks if suspect(fr[0]) and f not in fr), total)
        out[f] = (cum[f], min(cum[f] + extra, total), tight)
    return unrooted, out
