"""A slow, literal implementation of Definitions 6–10 and wt(A) of the DiPA paper.

It works directly from the definitions with paths enumerated by depth-first
search (no strongly connected components, no multi-source searches), and is
used only to cross-check the linear-time checker on small automata.
"""

from __future__ import annotations

from fractions import Fraction

from dslc.ir.dipa import DiPA, Guard, OutKind


def _walk_reach(dipa: DiPA, edges_ok=lambda t: True) -> list[set[int]]:
    """reach[u] = states v with a path u ->* v (length >= 0) using allowed edges."""
    n = len(dipa.states)
    succ = [[] for _ in range(n)]
    for t in dipa.transitions:
        if edges_ok(t):
            succ[t.source].append(t.target)
    reach = []
    for u in range(n):
        seen = {u}
        todo = [u]
        while todo:
            v = todo.pop()
            for w in succ[v]:
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        reach.append(seen)
    return reach


def literal_check(dipa: DiPA) -> tuple[set[str], Fraction | None]:
    """The set of violated conditions and, if there is none, wt(A).

    Conditions are named by code, and for DP002/DP004 by the case of the
    definition and the kind of connecting path ("DP004/c/AG")."""
    ts = dipa.transitions
    reach = _walk_reach(dipa)
    reachable = reach[dipa.initial]
    ag = _walk_reach(dipa, lambda t: not t.store or t.guard is Guard.GE)
    al = _walk_reach(dipa, lambda t: not t.store or t.guard is Guard.LT)

    def on_cycle(t) -> bool:                       # t lies on some cycle
        return t.source in reach[t.target]

    def cycle_states(t) -> set[int]:               # states of some cycle through t
        return {w for w in reach[t.target] if t.source in reach[w]}

    live = [t for t in ts if t.source in reachable]
    kinds: set[str] = set()

    # Definition 6: a cycle with an assignment at i and a comparison at j > i.
    for t1 in live:
        for t2 in live:
            if t1.store and t2.guard is not Guard.TRUE:
                # a closed walk t1 ... t2 ... back to t1
                if t2.source in reach[t1.target] and t1.source in reach[t2.target]:
                    kinds.add("DP001")

    # Definition 7/8: L-cycles, G-cycles and leaking pairs.
    l_cycles = [t for t in live if t.guard is Guard.LT and on_cycle(t)]
    g_cycles = [t for t in live if t.guard is Guard.GE and on_cycle(t)]
    for c in l_cycles:
        for c2 in g_cycles:
            if any(w2 in ag[w] for w in cycle_states(c) for w2 in cycle_states(c2)):
                kinds.add("DP002/AG")
    for c in g_cycles:
        for c2 in l_cycles:
            if any(w2 in al[w] for w in cycle_states(c) for w2 in cycle_states(c2)):
                kinds.add("DP002/AL")

    # Definition 9: a cycle with an input transition that outputs a real value.
    for t in live:
        if on_cycle(t) and dipa.states[t.source].is_input and t.output.kind is not OutKind.SYMBOL:
            kinds.add("DP003")

    # Definition 10: privacy-violating paths.
    in_g = set().union(*[cycle_states(c) for c in g_cycles]) if g_cycles else set()
    in_l = set().union(*[cycle_states(c) for c in l_cycles]) if l_cycles else set()
    for t in live:
        if t.output.kind is not OutKind.INSAMPLE:
            continue
        # (1) an assignment that outputs insample; tail AG to a G-cycle / AL to an L-cycle
        if t.store and ag[t.target] & in_g:
            kinds.add("DP004/a/AG")
        if t.store and al[t.target] & in_l:
            kinds.add("DP004/a/AL")
        # (2) the whole path AG (AL); first guard < (>=) outputs insample
        if t.guard is Guard.LT and (not t.store) and ag[t.target] & in_g:
            kinds.add("DP004/b/AG")
        if t.guard is Guard.GE and (not t.store) and al[t.target] & in_l:
            kinds.add("DP004/b/AL")
        # (3) from an L-cycle (G-cycle) along AG (AL) to a last transition >= (<) outputting insample
        if t.guard is Guard.GE and any(t.source in ag[u] for u in in_l):
            kinds.add("DP004/c/AG")
        if t.guard is Guard.LT and any(t.source in al[u] for u in in_g):
            kinds.add("DP004/c/AL")

    if kinds:
        return kinds, None
    return kinds, literal_weight(dipa, reach)


def literal_weight(dipa: DiPA, reach) -> Fraction:
    """sup over paths from the initial state of the summed cost of critical transitions,
    by enumerating every simple path (enough: a critical transition lies on no cycle)."""
    out = [[] for _ in dipa.states]
    for t in dipa.transitions:
        out[t.source].append(t)

    def cost(t) -> Fraction:
        if t.source in reach[t.target]:             # on a cycle: not critical
            return Fraction(0)
        s = dipa.states[t.source]
        if not s.is_input:
            return Fraction(s.d)
        c = 2 * Fraction(s.d)
        if t.output.kind is OutKind.INSAMPLE_PRIME:
            c += Fraction(s.d_prime)
        return c

    best = Fraction(0)
    stack = [(dipa.initial, Fraction(0), frozenset([dipa.initial]))]
    while stack:
        q, w, visited = stack.pop()
        best = max(best, w)
        for t in out[q]:
            if t.target in visited:
                # a walk can go around a cycle, which costs nothing; the simple
                # paths already cover every sequence of critical transitions
                continue
            stack.append((t.target, w + cost(t), visited | {t.target}))
    return best
