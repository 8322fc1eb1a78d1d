"""Privacy of DiP automata with several stored variables (docs/multivariable.md).

Three stages, each a definition of docs/multivariable.md:

1. The *order product* P: states ``(q, ω)`` where ω is the order the draws
   held by the variables are known to have (which variables hold the same
   draw, which held draw is below which), reachable from ``(q_init, ∅)``.
   An edge of P is a transition whose guard is satisfiable in ω, so the
   paths of P are exactly the paths of positive probability.  Exponential in
   the number of variables; it runs under the time budget.
2. The four conditions of the LICS 2021 paper, per variable, on P
   (:func:`_conditions`): they give "not private" with the variable, states
   and transitions involved.
3. Without them, the shift coupling of the sufficiency proof is tried on every
   path of P at once (:func:`_coupling`, a finite search over the order of
   the shifts of the held draws).  If it succeeds the automaton is
   ``d ε``-differentially private with d the generalised weight
   (:func:`_weight`); if it fails on a path that no condition explains, the
   answer is "unknown" with that path -- never a guess.

A single-variable automaton of the paper's model goes to the linear-time
checker (:mod:`dslc.dipa.check`) unless ``general=True``; the property test
tests/test_multivar.py checks that both routes agree.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from fractions import Fraction

from dslc import limits
from dslc.dipa.check import ViolationKinds
from dslc.ir.dipa import OutKind
from dslc.ir.multi_dipa import GE, LT, Literal, MultiDiPA, merged_pieces, output_distinction, problems

PRIVATE, NOT_PRIVATE, UNKNOWN = "private", "not-private", "unknown"
LEAKING_CYCLE, LEAKING_PAIR, DISCLOSING_CYCLE, VIOLATING_PATH = "DP001", "DP002", "DP003", "DP004"
MAX_PRODUCT = 200_000          # states of P (and of the coupling search) before "unknown"


@dataclass
class MultiViolation:
    kind: str                  # DP001..DP004
    subkind: str               # as dslc.dipa.check: "DP002/AG", "DP004/c/AL", ...
    variable: str | None
    states: list[int]          # automaton states involved (cycles' states, path ends)
    transitions: list[int]     # automaton transitions involved


@dataclass
class MultiResult(ViolationKinds):
    verdict: str               # PRIVATE, NOT_PRIVATE or UNKNOWN
    d: Fraction | None = None  # when PRIVATE: the automaton is dε-DP for every ε > 0
    violations: list[MultiViolation] = field(default_factory=list)
    reason: str = ""           # why UNKNOWN, or how PRIVATE was decided
    path: list[int] = field(default_factory=list)   # UNKNOWN by the coupling: the path it fails on
    product_states: int = 0
    route: str = "general"     # "general" or "single-variable" (dslc.dipa.check)
    # NOT_PRIVATE: "theorem" (the paper's model: Theorem 2 of LICS 2021 proves it) or
    # "sketch" (several variables: the generalised conditions, necessity only sketched)
    necessity: str = ""
    # PRIVATE: the terms of d on one heaviest path (--explain), and the strategy that gave d
    charges: list = field(default_factory=list)
    strategy: str = ""


class _Refuse(Exception):
    pass


# ------------------------------------------------------------------ stage 1: the order product
# A class structure is a sorted tuple of sorted tuples of variable names (the
# variables holding one draw).  ω adds `lt`, pairs (i, j) of class indices
# with draw(i) < draw(j), transitively closed.  A step names the new draw
# len(classes) before the classes are rebuilt.

def _step_classes(classes, assigns):
    """The classes after the draw (index len(classes)) is stored into `assigns`:
    (new classes, old index -> new index for the survivors)."""
    kept = []
    for i, c in enumerate(classes):
        rest = tuple(v for v in c if v not in assigns)
        if rest:
            kept.append((rest, i))
    if assigns:
        kept.append((tuple(sorted(assigns)), len(classes)))
    kept.sort()
    return tuple(c for c, _ in kept), {old: new for new, (_, old) in enumerate(kept)}


def _sides(classes, guard):
    index = {v: i for i, c in enumerate(classes) for v in c}
    missing = sorted({lit.var for lit in guard} - index.keys())
    if missing:
        raise _Refuse(missing[0])
    g = {index[lit.var] for lit in guard if lit.op == GE}
    low = {index[lit.var] for lit in guard if lit.op == LT}
    return g, low


def _order_step(node, t):
    """ω after t, or None when t's guard is unsatisfiable in ω."""
    classes, lt = node
    g, low = _sides(classes, t.guard)
    below = g | {a for a, b in lt if b in g}
    above = low | {b for a, b in lt if a in low}
    if below & above:
        return None
    n = len(classes)
    lt2 = set(lt) | {(x, n) for x in below} | {(n, y) for y in above} | {(x, y) for x in below for y in above}
    new_classes, remap = _step_classes(classes, t.assigns)
    lt3 = frozenset((remap[a], remap[b]) for a, b in lt2 if a in remap and b in remap)
    return new_classes, lt3


@dataclass
class Product:
    nodes: list[tuple]                     # (state, (classes, lt))
    edges: list[tuple[int, int, int]]      # (node, transition, node)
    out: list[list[int]]                   # node -> edge indices
    comp: list[int] = field(default_factory=list)    # node -> SCC id
    internal: list[bool] = field(default_factory=list)
    into: list[list[int]] | None = None               # node -> incoming edges, built on first use


def build_product(m: MultiDiPA, max_nodes: int = MAX_PRODUCT) -> Product:
    """P, reachable part.  Raises _Refuse(variable) if a reachable transition compares a
    variable that no transition has stored yet on some path."""
    out_t = m.out_edges()
    start = (m.initial, ((), frozenset()))
    index = {start: 0}
    nodes, edges, out = [start], [], [[]]
    todo = deque([0])
    while todo:
        k = todo.popleft()
        if k % 256 == 0:
            limits.checkpoint()
        q, omega = nodes[k]
        for ti in out_t[q]:
            t = m.transitions[ti]
            stepped = _order_step(omega, t)
            if stepped is None:
                continue
            key = (t.target, stepped)
            j = index.get(key)
            if j is None:
                if len(nodes) >= max_nodes:
                    raise limits.Cancelled("size")
                j = index[key] = len(nodes)
                nodes.append(key)
                out.append([])
                todo.append(j)
            out[k].append(len(edges))
            edges.append((k, ti, j))
    p = Product(nodes, edges, out)
    p.comp = _sccs(len(nodes), [[edges[e][2] for e in es] for es in out])
    p.internal = [p.comp[a] == p.comp[b] for a, _, b in edges]
    return p


def _sccs(n: int, succ: list[list[int]]) -> list[int]:
    import networkx as nx
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((a, b) for a in range(n) for b in succ[a])
    comp = [0] * n
    for c, members in enumerate(nx.strongly_connected_components(g)):
        for v in members:
            comp[v] = c
    # a single node is a component "with a cycle" only through a self-loop: callers use internal edges
    return comp


# ------------------------------------------------------------------ stage 2: the four conditions
def _reach(p: Product, ok, sources, backward: bool = False) -> set[int]:
    """Nodes reached from `sources` along edges e with ok(e) (backward: nodes that reach them)."""
    if backward:
        if p.into is None:
            p.into = [[] for _ in p.nodes]
            for e, (a, _, b) in enumerate(p.edges):
                p.into[b].append(e)
        adj, end = p.into, 0
    else:
        adj, end = p.out, 2
    seen = set(sources)
    todo = list(sources)
    while todo:
        a = todo.pop()
        if len(seen) % 4096 == 0:
            limits.checkpoint()
        for e in adj[a]:
            if ok(e):
                b = p.edges[e][end]
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
    return seen


def _conditions(m: MultiDiPA, p: Product) -> list[MultiViolation]:
    ts, st = m.transitions, m.states
    inner = [e for e, yes in enumerate(p.internal) if yes]
    by_comp: dict[int, list[int]] = {}
    for e in inner:
        by_comp.setdefault(p.comp[p.edges[e][0]], []).append(e)

    def tr(e):
        return ts[p.edges[e][1]]

    def is_input(e):
        return st[ts[p.edges[e][1]].source].is_input

    def comp_states(c):
        return sorted({p.nodes[p.edges[e][0]][0] for e in by_comp[c]})

    def comp_trans(c):
        return sorted({p.edges[e][1] for e in by_comp[c]})

    found: list[MultiViolation] = []
    for c, es in by_comp.items():
        if any(is_input(e) and tr(e).output.kind is not OutKind.SYMBOL for e in es):
            found.append(MultiViolation(DISCLOSING_CYCLE, DISCLOSING_CYCLE, None, comp_states(c), comp_trans(c)))
    for v in m.variables:
        ge, lt = Literal(v, GE), Literal(v, LT)
        g_comps = {c for c, es in by_comp.items() if any(is_input(e) and ge in tr(e).guard for e in es)}
        l_comps = {c for c, es in by_comp.items() if any(is_input(e) and lt in tr(e).guard for e in es)}
        for c, es in by_comp.items():
            if any(v in tr(e).assigns for e in es) and any(is_input(e) and v in tr(e).compares() for e in es):
                found.append(MultiViolation(LEAKING_CYCLE, LEAKING_CYCLE, v, comp_states(c), comp_trans(c)))
        in_g = {k for k in range(len(p.nodes)) if p.comp[k] in g_comps}
        in_l = {k for k in range(len(p.nodes)) if p.comp[k] in l_comps}

        def ag(e, v=v, ge=ge):
            t = tr(e)
            return v not in t.assigns or ge in t.guard

        def al(e, v=v, lt=lt):
            t = tr(e)
            return v not in t.assigns or lt in t.guard

        def note(kind, sub, states, trans):
            found.append(MultiViolation(kind, sub, v, sorted(set(states)), sorted(set(trans))))

        # Definition 8, per variable: an L_v-cycle with an AG_v path to a G_v-cycle (and the mirror)
        if in_l and in_g:
            hit = _reach(p, ag, in_l) & in_g
            if hit:
                note(LEAKING_PAIR, "DP002/AG", [p.nodes[k][0] for k in hit],
                     [t for c in l_comps for t in comp_trans(c)])
            hit = _reach(p, al, in_g) & in_l
            if hit:
                note(LEAKING_PAIR, "DP002/AL", [p.nodes[k][0] for k in hit],
                     [t for c in g_comps for t in comp_trans(c)])
        # Definition 10, per variable
        ag_from_l = _reach(p, ag, in_l) if in_l else set()
        al_from_g = _reach(p, al, in_g) if in_g else set()
        ag_to_g = _reach(p, ag, in_g, backward=True) if in_g else set()
        al_to_l = _reach(p, al, in_l, backward=True) if in_l else set()
        for e, (a, ti, b) in enumerate(p.edges):
            t = ts[ti]
            if t.output.kind is not OutKind.INSAMPLE:
                continue
            if v in t.assigns:
                if b in ag_to_g:
                    note(VIOLATING_PATH, "DP004/a/AG", [t.source, t.target], [ti])
                if b in al_to_l:
                    note(VIOLATING_PATH, "DP004/a/AL", [t.source, t.target], [ti])
            if lt in t.guard and v not in t.assigns and b in ag_to_g:
                note(VIOLATING_PATH, "DP004/b/AG", [t.source, t.target], [ti])
            if ge in t.guard and v not in t.assigns and b in al_to_l:
                note(VIOLATING_PATH, "DP004/b/AL", [t.source, t.target], [ti])
            if ge in t.guard and a in ag_from_l:
                note(VIOLATING_PATH, "DP004/c/AG", [t.source, t.target], [ti])
            if lt in t.guard and a in al_from_g:
                note(VIOLATING_PATH, "DP004/c/AL", [t.source, t.target], [ti])
    return found


# ------------------------------------------------------------------ strategies
# A strategy says which edges of P are *free* (the draw is not shifted against
# the input; cost 0; every comparison on it puts a demand on the compared
# variable's shift) and groups free edges into *components*: a path passes
# through a component at most once, and one store per variable and component
# is paid (the last one; the earlier ones die unused, which _store_then_compare
# checks).  Two strategies, both proved in docs/multivariable.md:
#   "cycle": free = on a cycle of the automaton (the paper's critical transitions);
#   "product": free = on a cycle of P.
# "cycle" is the paper's and gives its weight on single-variable automata;
# "product" charges more edges but frees the draws on cycles that the order of
# the variables lets a path take only a bounded number of times.

@dataclass
class Strategy:
    name: str
    free: list[bool]           # per edge of P
    group: list[int]           # per node of P: its component under this strategy


def _strategies(m: MultiDiPA, p: Product) -> list[Strategy]:
    base = _base_components(m)
    on_cycle = [base[t.source] == base[t.target] for t in m.transitions]
    return [Strategy("cycle", [on_cycle[ti] for _, ti, _ in p.edges], [base[q] for q, _ in p.nodes]),
            Strategy("product", list(p.internal), list(p.comp))]


def _live(m: MultiDiPA, p: Product) -> list[frozenset[str]]:
    """live[k]: variables that some continuation from node k compares before storing them."""
    live: list[set[str]] = [set() for _ in p.nodes]
    for v in m.variables:
        comparing = {a for a, ti, _ in p.edges if v in m.transitions[ti].compares()}
        for k in _reach(p, lambda e, v=v: v not in m.transitions[p.edges[e][1]].assigns, comparing,
                        backward=True):
            live[k].add(v)
    return [frozenset(x) for x in live]


def _base_components(m: MultiDiPA) -> list[int]:
    """Per state: its strongly connected component in the automaton's own graph."""
    succ = [[] for _ in m.states]
    for t in m.transitions:
        succ[t.source].append(t.target)
    return _sccs(len(m.states), succ)


def _store_then_compare(m: MultiDiPA, p: Product, s: Strategy) -> str | None:
    """Along free edges of one component, a comparison of v that can follow a store of v.
    The weight pays one store of v per component (the last); this is where an earlier
    one could be compared, so the strategy does not apply."""
    for v in m.variables:
        starts = [b for e, (a, ti, b) in enumerate(p.edges) if s.free[e] and v in m.transitions[ti].assigns]
        seen = _reach(p, lambda e: s.free[e], starts) if starts else set()
        for e, (a, ti, b) in enumerate(p.edges):
            if s.free[e] and a in seen and v in m.transitions[ti].compares():
                return (f"{m.describe(ti)} compares {v} after a store of {v} on the same cycle")
    return None


def _paper_cost(m: MultiDiPA, ti: int) -> Fraction:
    t = m.transitions[ti]
    s = m.states[t.source]
    if not s.is_input:
        return s.d
    return 2 * s.d + (s.d_prime if t.output.kind is OutKind.INSAMPLE_PRIME else 0)


# ------------------------------------------------------------------ stage 3: the coupling
# A coupling state over the classes of a P node: `le` pairs (i, j) with
# shift(i) <= shift(j) (closed), `lo`/`hi` bounds in {-1, 0, 1} per class.

def _close(le, new, below, above, lo, hi):
    """`le` (closed, without `new`) plus below <= new <= above, closed again; the bounds
    propagated along it (lo forward, hi backward)."""
    down = set(below) | {a for a, b in le if b in below}
    up = set(above) | {b for a, b in le if a in above}
    le = set(le) | {(x, new) for x in down} | {(new, y) for y in up} | {(x, y) for x in down for y in up}
    for i, j in le:
        if lo[i] > lo[j]:
            lo[j] = lo[i]
    for i, j in le:
        if hi[j] < hi[i]:
            hi[i] = hi[j]
    return le


def _coupling_step(m: MultiDiPA, p: Product, e: int, sigma, free: bool):
    """The coupling state after edge e, or None if the constraints have no solution."""
    a, ti, b = p.edges[e]
    t = m.transitions[ti]
    classes, _ = p.nodes[a][1]
    le, lo, hi = sigma
    lo, hi = list(lo) + [-1], list(hi) + [1]
    n = len(classes)
    g, low = _sides(classes, t.guard)
    inp = m.states[t.source].is_input
    le = set(le)
    if t.output.kind is OutKind.INSAMPLE:
        lo[n] = hi[n] = 0
    if free:
        if inp and t.output.kind is not OutKind.SYMBOL:
            return None                       # a released draw that is not paid for
        for i in g:
            hi[i] = min(hi[i], -1 if inp else 0)
        for i in low:
            lo[i] = max(lo[i], 1 if inp else 0)
    chosen = not free or t.assigns           # the draw's shift is chosen
    le = _close(le, n, g if chosen else (), low if chosen else (), lo, hi)
    if any(x > y for x, y in zip(lo, hi)):
        return None
    _, remap = _step_classes(classes, t.assigns)
    size = len(remap)
    lo2, hi2 = [0] * size, [0] * size
    for old, new in remap.items():
        lo2[new], hi2[new] = lo[old], hi[old]
    le2 = frozenset((remap[i], remap[j]) for i, j in le if i in remap and j in remap and i != j)
    return le2, tuple(lo2), tuple(hi2)


def _coupling(m: MultiDiPA, p: Product, s: Strategy, max_states: int = MAX_PRODUCT) -> list[int] | None:
    """None if the strategy's coupling exists on every path of P; else a path
    (transitions) on which its constraints have no solution."""
    start = (0, (frozenset(), (), ()))
    parent = {start: None}
    todo = deque([start])
    count = 0
    while todo:
        cur = todo.popleft()
        count += 1
        if count % 256 == 0:
            limits.checkpoint()
        k, sigma = cur
        for e in p.out[k]:
            nxt = _coupling_step(m, p, e, sigma, s.free[e])
            if nxt is None:
                path = [p.edges[e][1]]
                node = cur
                while parent[node] is not None:
                    prev, pe = parent[node]
                    path.append(p.edges[pe][1])
                    node = prev
                return path[::-1]
            key = (p.edges[e][2], nxt)
            if key not in parent:
                if len(parent) >= max_states:
                    raise limits.Cancelled("size")
                parent[key] = (cur, e)
                todo.append(key)
    return None


# ------------------------------------------------------------------ the weight
def _weight(m: MultiDiPA, p: Product, s: Strategy) -> Fraction:
    """sup over paths of P of: the cost of every edge that is not free (the paper's
    cost(t)) plus, per component the path passes through, the dearest store of each
    variable made there on a free edge and compared later (docs: 'The weight').
    Free edges of P's cycles weigh 0, so this is a longest path in the DAG of P's
    components."""
    return _weight_and_charges(m, p, s)[0]


def _weight_and_charges(m: MultiDiPA, p: Product, s: Strategy) -> tuple[Fraction, list[Charge]]:
    """:func:`_weight` and the charges that make it up on one heaviest path."""
    import networkx as nx
    live = _live(m, p)
    store_w: dict[tuple[int, str], tuple[Fraction, int]] = {}
    for e, (a, ti, b) in enumerate(p.edges):
        if not s.free[e]:
            continue
        t = m.transitions[ti]
        st = m.states[t.source]
        c = 2 * st.d if st.is_input else st.d
        for v in t.assigns & live[b]:
            key = (s.group[a], v)
            if key not in store_w or c > store_w[key][0]:
                store_w[key] = (c, ti)
    group_w: dict[int, Fraction] = {}
    group_parts: dict[int, list[Charge]] = {}
    for (c, v), (w, ti) in sorted(store_w.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        group_w[c] = group_w.get(c, Fraction(0)) + w
        group_parts.setdefault(c, []).append(Charge(ti, w, "store", v))
    dag = nx.DiGraph()
    dag.add_nodes_from(range(max(p.comp) + 1))
    step: dict[int, list[tuple[int, Fraction, int]]] = {}
    for e, (a, ti, b) in enumerate(p.edges):
        if p.internal[e]:
            continue
        w = Fraction(0)
        if not s.free[e]:
            w = _paper_cost(m, ti) + group_w.get(s.group[b], Fraction(0))
        dag.add_edge(p.comp[a], p.comp[b])
        step.setdefault(p.comp[a], []).append((p.comp[b], w, e))
    best: dict[int, Fraction] = {p.comp[0]: group_w.get(s.group[0], Fraction(0))}
    pred: dict[int, int] = {}
    for c in nx.topological_sort(dag):
        if c in best:
            for cb, w, e in step.get(c, ()):
                if cb not in best or best[c] + w > best[cb]:
                    best[cb] = best[c] + w
                    pred[cb] = e
    top = max(best.values())
    end = min(c for c, w in best.items() if w == top)
    charges: list[Charge] = []
    c = end
    while c in pred:
        e = pred[c]
        a, ti, b = p.edges[e]
        if not s.free[e]:
            charges.extend(group_parts.get(s.group[b], ()))
            charges.append(Charge(ti, _paper_cost(m, ti), "charged"))
        c = p.comp[a]
    charges.extend(group_parts.get(s.group[0], ()))
    charges.reverse()
    return top, charges


@dataclass(frozen=True)
class Charge:
    """One term of d on a heaviest path: a charged transition (the paper's cost(t)) or
    the store of `variable` on a free transition of a component (docs: 'The weight')."""
    transition: int
    cost: Fraction
    kind: str                  # "charged" | "store"
    variable: str | None = None


# ------------------------------------------------------------------ the decision
def check_multi(m: MultiDiPA, general: bool = False, max_states: int = MAX_PRODUCT) -> MultiResult:
    """Decide m (docs/multivariable.md).  ``general`` forces the general route on a
    single-variable automaton (tests compare both routes).

    The pieces of split branches are merged first (g ∧ L and g ∧ ¬L with the same
    output, target and stores become g: :func:`dslc.ir.multi_dipa.merged_pieces`).
    The runs, and so the output distribution, are the same; the pieces would
    otherwise show conditions of paths that no output reveals.  The answer
    names the transitions of ``m``: a merged transition stands for its pieces."""
    merged, index = merged_pieces(m)
    if merged is m:
        return _decide(m, general, max_states)
    pieces: dict[int, list[int]] = {}
    for i, j in enumerate(index):
        pieces.setdefault(j, []).append(i)
    r = _decide(merged, general, max_states)
    r.violations = [replace(v, transitions=[i for t in v.transitions for i in pieces[t]]) for v in r.violations]
    r.charges = [replace(c, transition=pieces[c.transition][0]) for c in r.charges]
    r.path = [pieces[t][0] for t in r.path]
    return r


def _decide(m: MultiDiPA, general: bool, max_states: int) -> MultiResult:
    bad = problems(m)
    if bad:
        return MultiResult(UNKNOWN, reason="not an automaton of the model: " + bad[0])
    if not general and _single_variable_route(m):
        return _via_single_variable(m)
    try:
        p = build_product(m, max_states)
    except _Refuse as exc:
        return MultiResult(UNKNOWN, reason=f"a reachable transition compares {exc.args[0]} on a path "
                                           "that has not stored it (its value is undefined)")
    except limits.Cancelled as exc:
        return MultiResult(UNKNOWN, reason=_budget(exc))
    size = len(p.nodes)
    reads = any(m.states[m.transitions[ti].source].is_input for _, ti, _ in p.edges)
    if not m.is_single_variable_model() and not reads:
        return MultiResult(PRIVATE, Fraction(0), reason="no reachable state reads input: the output "
                           "distribution is the same on every input", product_states=size)
    try:
        found = _conditions(m, p)
        indistinct = output_distinction(m)
        if found and indistinct:
            return MultiResult(UNKNOWN, violations=found, product_states=size,
                               reason="the conditions hold, but without output distinction ("
                                      + indistinct[0] + ") they do not show a leak")
        if found:
            return MultiResult(NOT_PRIVATE, violations=found, product_states=size,
                               necessity="theorem" if m.is_single_variable_model() else "sketch")
        bounds, failures = [], []
        for s in _strategies(m, p):
            why = _store_then_compare(m, p, s)
            if why:
                failures.append((s.name, why, []))
                continue
            path = _coupling(m, p, s, max_states)
            if path is not None:
                failures.append((s.name, "its constraints have no solution on the path "
                                 + " ; ".join(m.describe(i) for i in path), path))
                continue
            w, charges = _weight_and_charges(m, p, s)
            bounds.append((w, s.name, charges))
        if bounds:
            d, name, charges = min(bounds, key=lambda b: (b[0], b[1]))
            return MultiResult(PRIVATE, d, product_states=size, charges=charges, strategy=name,
                               reason=f"the shift coupling ({name} strategy) exists on every path")
        return MultiResult(UNKNOWN, path=failures[0][2], product_states=size,
                           reason="no generalised condition holds, and the shift coupling fails: "
                                  + "; ".join(f"{n} strategy: {w}" for n, w, _ in failures))
    except limits.Cancelled as exc:
        return MultiResult(UNKNOWN, reason=_budget(exc), product_states=size)


def _budget(exc: limits.Cancelled) -> str:
    if exc.reason == "size":
        return f"the order product has more than {MAX_PRODUCT} states (exponential in the variables)"
    return "the time budget ran out building the order product (exponential in the variables)"


# ------------------------------------------------------------------ the single-variable route
def _single_variable_route(m: MultiDiPA) -> bool:
    """The paper's model with the initial transition storing the variable (Definition 3)."""
    if not m.is_single_variable_model() or output_distinction(m):
        return False
    first = [t for t in m.transitions if t.source == m.initial]
    return len(first) == 1 and not first[0].guard and bool(first[0].assigns or not m.variables)


def to_dipa(m: MultiDiPA):
    """The single-variable DiPA (dslc.ir.dipa) of an automaton of the paper's model."""
    from dslc.ir.dipa import DiPA, Guard, State, Transition
    d = DiPA(m.name, initial=m.initial)
    for s in m.states:
        d.add_state(State(s.name, s.is_input, s.d, s.mu, s.d_prime, s.mu_prime))
    for t in m.transitions:
        guard = Guard.TRUE if not t.guard else (Guard.GE if t.guard[0].op == GE else Guard.LT)
        d.add_transition(Transition(t.source, guard, t.target, t.output, bool(t.assigns)))
    return d


def _via_single_variable(m: MultiDiPA) -> MultiResult:
    from dslc.dipa.check import check
    r = check(to_dipa(m))
    if r.well_formed:
        heaviest = set(r.heaviest)
        charges = [Charge(e, cost, "charged") for e, cost in r.critical if e in heaviest]
        return MultiResult(PRIVATE, r.weight, route="single-variable", reason="Theorem 2 (LICS 2021)",
                           charges=charges)
    var = (m.variables or [None])[0]
    out = []
    for v in r.violations:
        trans = sorted(set(v.prefix[-1:] + v.cycle + v.path + v.cycle2))
        states = sorted({m.transitions[i].source for i in trans})
        out.append(MultiViolation(v.kind, v.subkind, var, states, trans))
    return MultiResult(NOT_PRIVATE, violations=out, route="single-variable", necessity="theorem")
