"""Well-formedness (Definition 11) and weight of a DiPA in linear time.

This follows the proof of Corollary 4 of the DiPA paper: strongly connected
components of the reachable transition graph give the G-/L-cycle states,
leaking and disclosing cycles; breadth-first searches over the AG- and
AL-subgraphs give leaking pairs and privacy-violating paths; the longest
path in the DAG of components, weighted by the costs of critical
transitions, gives wt(A).  Everything is iterative over flat arrays, so a
million states neither recurse nor allocate per-edge objects.

The result is data (:class:`CheckResult`); turning it into diagnostics is
:mod:`dslc.dipa.diagnose`'s job.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from fractions import Fraction
from math import lcm

from dslc.ir.dipa import DiPA, Guard, OutKind

TRUE, GE, LT = 0, 1, 2
_GUARD_CODE = {Guard.TRUE: TRUE, Guard.GE: GE, Guard.LT: LT}

LEAKING_CYCLE = "DP001"
LEAKING_PAIR = "DP002"
DISCLOSING_CYCLE = "DP003"
VIOLATING_PATH = "DP004"

MAX_PER_KIND = 10
# Components larger than this get witness paths through a hub state (two BFS
# trees per component) instead of one shortest-path search per witness.
HUB_THRESHOLD = 5_000


@dataclass
class Violation:
    """One witness of a violated condition.

    All lists hold transition indices.  ``prefix`` leads from the initial
    state to the start of the witness.
    - DP001: ``cycle`` starts with an assignment transition and contains a
      comparison at ``compare``.
    - DP002: ``cycle`` is the first cycle (an L-cycle if ``first_is_l``),
      ``path`` an AG-path (AL-path) to ``cycle2``; ``path`` may be empty and
      ``cycle2`` may equal ``cycle``.
    - DP003: ``cycle`` contains the disclosing transition ``disclose``.
    - DP004: ``case`` is "a", "b" or "c" (the three cases of Definition 10);
      ``path`` is ρ; ``cycle`` is the G-/L-cycle at its end (a, b) or start (c).
    """

    kind: str
    prefix: list[int] = field(default_factory=list)
    cycle: list[int] = field(default_factory=list)
    path: list[int] = field(default_factory=list)
    cycle2: list[int] = field(default_factory=list)
    store: int | None = None
    compare: int | None = None
    disclose: int | None = None
    case: str | None = None
    first_is_l: bool = True      # DP002: C is an L-cycle and C' a G-cycle (else the mirror)
    g_side: bool = True          # DP004: the cycle involved is a G-cycle (else an L-cycle)
    via: str = ""                # DP002/DP004: "AG" or "AL", the kind of connecting path

    @property
    def subkind(self) -> str:
        """The condition of the definition this witnesses, e.g. "DP004/c/AG"."""
        if self.kind == "DP002":
            return f"DP002/{self.via}"
        if self.kind == "DP004":
            return f"DP004/{self.case}/{self.via}"
        return self.kind


@dataclass
class CheckResult:
    reachable: list[bool]
    violations: list[Violation]
    truncated: dict[str, int]                 # kind -> witnesses not listed
    weight: Fraction | None                   # wt(A) when well-formed
    critical_scaled: list[tuple[int, int]]    # reachable critical transitions, cost × cost_denominator
    cost_denominator: int
    heaviest: list[int]                       # critical transitions on a heaviest path
    on_cycle: list[bool]                      # per transition (reachable part)
    # per state: its strongly connected component (-1 unreachable); ids in Tarjan's
    # completion order, so every critical transition goes to a smaller id
    component: list[int] = field(default_factory=list)

    @cached_property
    def critical(self) -> list[tuple[int, Fraction]]:
        """Reachable critical transitions with their exact costs (built on first use:
        a million Fractions cost seconds, and most runs never look at them)."""
        d = self.cost_denominator
        return [(e, Fraction(c, d)) for e, c in self.critical_scaled]

    @property
    def well_formed(self) -> bool:
        return not self.violations

    @property
    def kinds(self) -> set[str]:
        return {v.kind for v in self.violations}

    @property
    def subkinds(self) -> set[str]:
        return {v.subkind for v in self.violations}


def transition_cost(dipa: DiPA, t_index: int) -> Fraction:
    """cost(t) of Section IV for a critical transition."""
    t = dipa.transitions[t_index]
    s = dipa.states[t.source]
    if not s.is_input:
        return s.d
    cost = 2 * s.d
    if t.output.kind is OutKind.INSAMPLE_PRIME:
        cost += s.d_prime
    return cost


def check(dipa: DiPA, max_per_kind: int = MAX_PER_KIND) -> CheckResult:  # noqa: C901
    n = len(dipa.states)
    ts = dipa.transitions
    m = len(ts)
    src = [t.source for t in ts]
    dst = [t.target for t in ts]
    guard = [_GUARD_CODE[t.guard] for t in ts]
    store = [t.store for t in ts]
    out_ins = [t.output.kind is OutKind.INSAMPLE for t in ts]
    out_real = [t.output.kind is not OutKind.SYMBOL for t in ts]
    is_input = [s.is_input for s in dipa.states]

    # CSR adjacency: out-edges of v are order[start[v]:start[v+1]]
    start = [0] * (n + 1)
    for s in src:
        start[s + 1] += 1
    for v in range(n):
        start[v + 1] += start[v]
    fill = start[:-1].copy()
    order = [0] * m
    for e in range(m):
        s = src[e]
        order[fill[s]] = e
        fill[s] += 1

    init = dipa.initial
    # ---- reachability (BFS tree gives shortest prefixes)
    reach_parent = [-2] * n          # -2 unreached, -1 root, else transition index
    reachable = [False] * n
    if n:
        reach_parent[init] = -1
        reachable[init] = True
        queue = deque([init])
        while queue:
            v = queue.popleft()
            for k in range(start[v], start[v + 1]):
                e = order[k]
                w = dst[e]
                if not reachable[w]:
                    reachable[w] = True
                    reach_parent[w] = e
                    queue.append(w)

    def trace(parent: list[int], q: int) -> list[int]:
        """The transitions from a search's root to q, following parent edges."""
        path = []
        while parent[q] >= 0:
            e = parent[q]
            path.append(e)
            q = src[e]
        path.reverse()
        return path

    def prefix_to(q: int) -> list[int]:
        return trace(reach_parent, q)

    # ---- strongly connected components (iterative Tarjan) of the reachable part
    comp = [-1] * n
    comp_order: list[int] = []       # component ids in completion order (reverse topological)
    if n:
        adj = [dst[e] for e in order]          # targets in CSR order
        ptr = start[:-1]                       # next out-edge to explore, per state
        index = [-1] * n
        low = [0] * n
        on_stack = [False] * n
        stack: list[int] = []
        counter = 1
        ncomp = 0
        index[init] = low[init] = 0
        stack.append(init)
        on_stack[init] = True
        work = [init]
        while work:
            v = work[-1]
            k = ptr[v]
            if k < start[v + 1]:
                ptr[v] = k + 1
                w = adj[k]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append(w)
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            lv = low[v]
            if work:
                u = work[-1]
                if lv < low[u]:
                    low[u] = lv
            if lv == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp[w] = ncomp
                    if w == v:
                        break
                comp_order.append(ncomp)
                ncomp += 1
    ncomp = len(comp_order)

    # ---- per-component facts from internal (cycle) edges
    c_store = [-1] * ncomp       # an internal assignment edge
    c_cmp = [-1] * ncomp         # an internal comparison edge
    c_cmp2 = [-1] * ncomp        # another one (a leaking cycle needs a comparison after the store)
    c_ge = [-1] * ncomp
    c_lt = [-1] * ncomp
    c_disc = [-1] * ncomp
    on_cycle = [False] * m
    for e in range(m):
        s = src[e]
        if not reachable[s]:
            continue
        c = comp[s]
        if c != comp[dst[e]]:
            continue
        on_cycle[e] = True
        g = guard[e]
        if store[e] and c_store[c] < 0:
            c_store[c] = e
        if g != TRUE:
            if g == GE:
                if c_ge[c] < 0:
                    c_ge[c] = e
            elif c_lt[c] < 0:
                c_lt[c] = e
            if c_cmp[c] < 0:
                c_cmp[c] = e
            elif c_cmp2[c] < 0:
                c_cmp2[c] = e
        if out_real[e] and is_input[s] and c_disc[c] < 0:
            c_disc[c] = e

    comp_size = [0] * ncomp
    for q in range(n):
        if comp[q] >= 0:
            comp_size[comp[q]] += 1
    hubs: dict[int, tuple[int, list[int], list[int]]] = {}
    rev: list[tuple[list[int], list[int]]] = []

    def hub_trees(c: int, a: int):
        """For a large component: BFS trees from and to one hub state, built once,
        so that every witness path costs its length instead of a search."""
        if c not in hubs:
            if not rev:
                # reverse CSR of the edges inside components
                rstart = [0] * (n + 1)
                inside = [e for e in range(m) if comp[src[e]] == comp[dst[e]] >= 0]
                for e in inside:
                    rstart[dst[e] + 1] += 1
                for v in range(n):
                    rstart[v + 1] += rstart[v]
                rfill = rstart[:-1]
                rorder = [0] * len(inside)
                for e in inside:
                    t = dst[e]
                    rorder[rfill[t]] = e
                    rfill[t] += 1
                rev.append((rstart, rorder))
            rstart, rorder = rev[0]
            fwd = [-2] * n
            fwd[a] = -1
            queue = deque([a])
            while queue:
                v = queue.popleft()
                for k in range(start[v], start[v + 1]):
                    w = adj[k]
                    if fwd[w] == -2 and comp[w] == c:
                        fwd[w] = order[k]
                        queue.append(w)
            bwd = [-2] * n
            bwd[a] = -1
            queue = deque([a])
            while queue:
                v = queue.popleft()
                for k in range(rstart[v], rstart[v + 1]):
                    e = rorder[k]
                    w = src[e]
                    if bwd[w] == -2:
                        bwd[w] = e
                        queue.append(w)
            hubs[c] = (a, fwd, bwd)
        return hubs[c]

    def path_within(a: int, b: int, c: int) -> list[int]:
        """A path of transitions from a to b inside component c: the shortest one in
        components of up to HUB_THRESHOLD states, else one through the component's hub."""
        if a == b:
            return []
        if comp_size[c] > HUB_THRESHOLD:
            hub, fwd, bwd = hub_trees(c, a)
            out = []
            v = a
            while v != hub:                       # a -> hub along the backward tree
                e = bwd[v]
                out.append(e)
                v = dst[e]
            back = []
            v = b
            while v != hub:                       # hub -> b along the forward tree
                e = fwd[v]
                back.append(e)
                v = src[e]
            return out + back[::-1]
        parent = {a: -1}
        queue = deque([a])
        while queue:
            v = queue.popleft()
            for k in range(start[v], start[v + 1]):
                e = order[k]
                w = dst[e]
                if comp[w] == c and w not in parent:
                    parent[w] = e
                    if w == b:
                        path = []
                        while w != a:
                            e = parent[w]
                            path.append(e)
                            w = src[e]
                        path.reverse()
                        return path
                    queue.append(w)
        raise AssertionError("states of one component are mutually reachable")

    def cycle_through(e: int) -> list[int]:
        """A cycle that starts with transition e."""
        return [e] + path_within(dst[e], src[e], comp[src[e]])

    def cycle_at(q: int, e: int) -> list[int]:
        """A cycle from state q through transition e (same component) back to q."""
        c = comp[q]
        return path_within(q, src[e], c) + [e] + path_within(dst[e], q, c)

    violations: list[Violation] = []
    truncated: dict[str, int] = {}

    counts: dict[str, int] = {}

    def full(kind: str) -> bool:
        """True (and counted as left out) once a kind has MAX_PER_KIND witnesses."""
        if counts.get(kind, 0) >= max_per_kind:
            truncated[kind] = truncated.get(kind, 0) + 1
            return True
        return False

    def add(v: Violation) -> None:
        counts[v.kind] = counts.get(v.kind, 0) + 1
        violations.append(v)

    # ---- DP001 leaking cycles, DP003 disclosing cycles
    for c in range(ncomp):
        if c_store[c] >= 0 and c_cmp[c] >= 0 and not full(LEAKING_CYCLE):
            e1 = c_store[c]
            e2 = c_cmp[c] if c_cmp[c] != e1 else c_cmp2[c]
            if e2 >= 0:
                cyc = [e1] + path_within(dst[e1], src[e2], c) + [e2] + path_within(dst[e2], src[e1], c)
            else:
                # the storing transition is the only comparison: going round twice
                # compares with the value stored on the first turn
                e2 = e1
                cyc = cycle_through(e1) * 2
            add(Violation(LEAKING_CYCLE, prefix=prefix_to(src[e1]), cycle=cyc, store=e1, compare=e2))
    for c in range(ncomp):
        if c_disc[c] >= 0 and not full(DISCLOSING_CYCLE):
            e = c_disc[c]
            add(Violation(DISCLOSING_CYCLE, prefix=prefix_to(src[e]), cycle=cycle_through(e), disclose=e))

    on_g = [reachable[q] and c_ge[comp[q]] >= 0 for q in range(n)]
    on_l = [reachable[q] and c_lt[comp[q]] >= 0 for q in range(n)]
    ag_ok = [(not store[e]) or guard[e] == GE for e in range(m)]
    al_ok = [(not store[e]) or guard[e] == LT for e in range(m)]

    def bfs(roots: list[tuple[int, int]], ok: list[bool]):
        """Multi-source BFS over admissible edges.

        roots are (state, tag) pairs; returns parent edge per state
        (-1 at a root, -2 unreached) and the tag each state was reached from.
        """
        parent = [-2] * n
        tag = [-1] * n
        queue = deque()
        for q, t in roots:
            if parent[q] == -2:
                parent[q] = -1
                tag[q] = t
                queue.append(q)
        while queue:
            v = queue.popleft()
            tv = tag[v]
            for k in range(start[v], start[v + 1]):
                e = order[k]
                if not ok[e]:
                    continue
                w = dst[e]
                if parent[w] == -2:
                    parent[w] = e
                    tag[w] = tv
                    queue.append(w)
        return parent, tag

    reported_pairs: set[tuple[int, int]] = set()
    for first_is_l in (True, False):
        first_on, second_on = (on_l, on_g) if first_is_l else (on_g, on_l)
        ok = ag_ok if first_is_l else al_ok
        first_edge = c_lt if first_is_l else c_ge
        second_edge = c_ge if first_is_l else c_lt
        roots = [(q, q) for q in range(n) if first_on[q]]
        if not roots:
            continue
        parent, tag = bfs(roots, ok)
        # DP002: a state of a second-kind cycle reached from a first-kind cycle.
        seen_comp: set[int] = set()
        for q in range(n):
            if parent[q] == -2 or not second_on[q] or comp[q] in seen_comp:
                continue
            seen_comp.add(comp[q])
            root = tag[q]
            key = (first_is_l, comp[root], comp[q])
            if key in reported_pairs or full(LEAKING_PAIR):
                continue
            reported_pairs.add(key)
            path = trace(parent, q)
            add(Violation(LEAKING_PAIR, prefix=prefix_to(root),
                          cycle=cycle_at(root, first_edge[comp[root]]), path=path,
                          cycle2=cycle_at(q, second_edge[comp[q]]), first_is_l=first_is_l,
                          via="AG" if first_is_l else "AL"))
        # DP004 (c): from an L-cycle (G-cycle) along an AG-path (AL-path) to a
        # transition with guard >= (<) that outputs insample.
        want = GE if first_is_l else LT
        for e in range(m):
            if guard[e] != want or not out_ins[e] or parent[src[e]] == -2 or full(VIOLATING_PATH):
                continue
            root = tag[src[e]]
            rho = trace(parent, src[e]) + [e]
            add(Violation(VIOLATING_PATH, prefix=prefix_to(root), path=rho, case="c",
                          cycle=cycle_at(root, first_edge[comp[root]]), g_side=not first_is_l,
                          via="AG" if first_is_l else "AL"))

    # DP004 (a), (b): a transition that outputs insample, followed by an AG-path
    # (AL-path) to a G-cycle (L-cycle).
    # One search per case and side: roots of different cases that start at the
    # same state must not hide each other.
    for g_side in (True, False):
        ok = ag_ok if g_side else al_ok
        target_on = on_g if g_side else on_l
        cyc_edge = c_ge if g_side else c_lt
        bad_guard = LT if g_side else GE
        for case in ("a", "b"):
            roots = []
            for e in range(m):
                if not out_ins[e] or not reachable[src[e]]:
                    continue
                if case == "a" and store[e]:                          # tail(ρ) is AG (AL)
                    roots.append((dst[e], e))
                elif case == "b" and not store[e] and guard[e] == bad_guard:   # ρ is AG (AL)
                    roots.append((dst[e], e))
            if not roots:
                continue
            parent, tag = bfs(roots, ok)
            done_roots: set[int] = set()
            for q in range(n):
                if parent[q] == -2 or not target_on[q]:
                    continue
                e = tag[q]
                if e in done_roots:
                    continue
                done_roots.add(e)
                if full(VIOLATING_PATH):
                    continue
                add(Violation(VIOLATING_PATH, prefix=prefix_to(src[e]), path=[e] + trace(parent, q),
                              case=case, cycle=cycle_at(q, cyc_edge[comp[q]]),
                              g_side=g_side, via="AG" if g_side else "AL"))

    # ---- weight: longest path in the DAG of components over critical transitions
    critical: list[tuple[int, int]] = []
    denom = 1
    weight = None
    heaviest: list[int] = []
    if n:
        # Costs are exact: scale every rate by the lcm of the denominators so the
        # longest-path search adds integers.  Rates are looked up by object
        # identity first (the lowering shares equal Fractions), which keeps a
        # million-state automaton from hashing a million Fractions.
        states = dipa.states
        crit_edges = [e for e in range(m) if reachable[src[e]] and not on_cycle[e]]
        prime_out = [ts[e].output.kind is OutKind.INSAMPLE_PRIME for e in crit_edges]
        by_id: dict[int, Fraction] = {}
        for e in crit_edges:
            st = states[src[e]]
            by_id[id(st.d)] = st.d
            by_id[id(st.d_prime)] = st.d_prime
        denom = 1
        for q in {f.denominator for f in by_id.values()}:
            denom = lcm(denom, q)
        scaled = {k: int(f * denom) for k, f in by_id.items()}
        icost: dict[int, int] = {}
        for e, pr in zip(crit_edges, prime_out):
            st = states[src[e]]
            if not st.is_input:
                c = scaled[id(st.d)]
            else:
                c = 2 * scaled[id(st.d)] + (scaled[id(st.d_prime)] if pr else 0)
            icost[e] = c
            critical.append((e, c))
        # edges grouped by source component
        by_comp: list[list[int]] = [[] for _ in range(ncomp)]
        for e in crit_edges:
            by_comp[comp[src[e]]].append(e)
        dist = [-1] * ncomp
        best_in = [-1] * ncomp
        dist[comp[init]] = 0
        for c in reversed(comp_order):            # topological order
            if dist[c] < 0:
                continue
            dc = dist[c]
            for e in by_comp[c]:
                t = comp[dst[e]]
                cand = dc + icost[e]
                if cand > dist[t]:
                    dist[t] = cand
                    best_in[t] = e
        best = max(range(ncomp), key=lambda c: dist[c]) if ncomp else 0
        weight = Fraction(dist[best], denom) if ncomp else Fraction(0)
        c = best
        while best_in[c] >= 0:
            e = best_in[c]
            heaviest.append(e)
            c = comp[src[e]]
        heaviest.reverse()

    return CheckResult(reachable, violations, truncated,
                       weight if not violations else None, critical, denom, heaviest, on_cycle, comp)
