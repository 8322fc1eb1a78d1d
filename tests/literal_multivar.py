"""A slow, literal implementation of docs/multivariable.md, to test dslc/dipa/multivar.py.

Everything is computed from whole paths, as the definitions are written:

- the order ω after a path is read off the path's own constraint graph (draw j
  < draw k for every comparison on it), by networkx's transitive closure;
  a path is feasible iff that graph is acyclic.  The product P is the graph
  of the pairs (state, ω) of feasible paths; each node keeps several paths
  that reach it, and :func:`literal_product` checks they all have the same
  successors (the claim that ω is all the future depends on);
- cycles, components and reachability are networkx's, on P and on the automaton;
- the four conditions are checked pair by pair (edges on a common closed walk,
  paths between them), per variable;
- the shift coupling is checked path by path: every path of P up to a length
  bound becomes its own system of constraints on the shifts of its draws,
  solved by trying every shift in {-1, 0, 1};
- the weight is the maximum over the simple paths of P of their charge.

Only for small automata (a few states, two or three variables).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import networkx as nx

from dslc.ir.dipa import OutKind
from dslc.ir.multi_dipa import GE, LT, Literal, MultiDiPA, merged_pieces, output_distinction


class Undefined(Exception):
    """A path compares a variable it has not stored."""


def _omega(m: MultiDiPA, path: list[int]):
    """(feasible, ω) of a path from the initial state: ω in dslc.dipa.multivar's canonical form."""
    holder: dict[str, int] = {}
    g = nx.DiGraph()
    for k, ti in enumerate(path):
        t = m.transitions[ti]
        g.add_node(k)
        for lit in t.guard:
            if lit.var not in holder:
                raise Undefined(lit.var)
            j = holder[lit.var]
            if lit.op == GE:
                g.add_edge(j, k)          # draw j < draw k (ties have probability 0)
            else:
                g.add_edge(k, j)
        for v in t.assigns:
            holder[v] = k
    if not nx.is_directed_acyclic_graph(g):
        return False, None
    live = sorted(set(holder.values()))
    classes = sorted(tuple(sorted(v for v in holder if holder[v] == k)) for k in live)
    draw_of = {c: holder[c[0]] for c in classes}
    closure = nx.transitive_closure_dag(g)
    lt = frozenset((i, j) for i, a in enumerate(classes) for j, b in enumerate(classes)
                   if closure.has_edge(draw_of[a], draw_of[b]))
    return True, (tuple(classes), lt)


def literal_product(m: MultiDiPA, keep: int = 3, max_nodes: int = 400):
    """Nodes (state, ω) and edges (node, transition, node) of P, each node with up to
    `keep` paths reaching it; asserts that all of them have the same successors."""
    out = m.out_edges()
    start = (m.initial, ((), frozenset()))
    paths = {start: [[]]}
    order = [start]
    edges = set()
    i = 0
    while i < len(order):
        node = order[i]
        i += 1
        seen_succ = None
        for path in paths[node]:
            succ = set()
            for ti in out[node[0]]:
                ok, om = _omega(m, path + [ti])
                if not ok:
                    continue
                nxt = (m.transitions[ti].target, om)
                succ.add((ti, nxt))
                if nxt not in paths:
                    if len(order) >= max_nodes:
                        raise OverflowError("product too large for the literal reference")
                    paths[nxt] = []
                    order.append(nxt)
                if len(paths[nxt]) < keep and path + [ti] not in paths[nxt]:
                    paths[nxt].append(path + [ti])
            assert seen_succ is None or succ == seen_succ, ("ω does not determine the future", node)
            seen_succ = succ
        edges |= {(node, ti, nxt) for ti, nxt in seen_succ}
    return order, sorted(edges, key=repr)


def _paper_cost(m, ti) -> Fraction:
    t = m.transitions[ti]
    s = m.states[t.source]
    if not s.is_input:
        return s.d
    return 2 * s.d + (s.d_prime if t.output.kind is OutKind.INSAMPLE_PRIME else 0)


def literal_check(m: MultiDiPA, max_len: int = 7):
    """(verdict, d, subkinds) by the definitions; verdict "private", "not-private" or "unknown".
    The definitions apply to the automaton with the pieces of split branches merged
    (docs/multivariable.md, "The model"; the same runs)."""
    m = merged_pieces(m)[0]
    try:
        nodes, edges = literal_product(m)
    except Undefined:
        return "unknown", None, set()
    ts, st = m.transitions, m.states
    g = nx.MultiDiGraph()
    g.add_nodes_from(nodes)
    for k, (a, ti, b) in enumerate(edges):
        g.add_edge(a, b, key=k)
    reach = {a: nx.descendants(g, a) | {a} for a in nodes}

    def closed(e):                       # the edge lies on a closed walk of P
        a, _, b = edges[e]
        return a in reach[b]

    def on_walk_with(n, e):              # node n and edge e lie on a common closed walk
        a, _, b = edges[e]
        return a in reach[n] and n in reach[b]

    if not m.is_single_variable_model() and not any(st[ts[ti].source].is_input for _, ti, _ in edges):
        return "private", Fraction(0), set()

    kinds: set[str] = set()
    E = range(len(edges))
    for e in E:
        a, ti, b = edges[e]
        if closed(e) and st[ts[ti].source].is_input and ts[ti].output.kind is not OutKind.SYMBOL:
            kinds.add("DP003")
    for v in m.variables:
        ge, lt = Literal(v, GE), Literal(v, LT)
        for e1 in E:
            for e2 in E:
                a1, t1, b1 = edges[e1]
                a2, t2, b2 = edges[e2]
                if (v in ts[t1].assigns and v in ts[t2].compares() and st[ts[t2].source].is_input
                        and a2 in reach[b1] and a1 in reach[b2]):
                    kinds.add("DP001")

        def subgraph(ok):
            h = nx.DiGraph()
            h.add_nodes_from(nodes)
            h.add_edges_from((a, b) for a, ti, b in edges if ok(ts[ti]))
            return h
        ag = subgraph(lambda t: v not in t.assigns or ge in t.guard)
        al = subgraph(lambda t: v not in t.assigns or lt in t.guard)
        g_edges = [e for e in E if closed(e) and st[ts[edges[e][1]].source].is_input and ge in ts[edges[e][1]].guard]
        l_edges = [e for e in E if closed(e) and st[ts[edges[e][1]].source].is_input and lt in ts[edges[e][1]].guard]
        in_g = {n for n in nodes if any(on_walk_with(n, e) for e in g_edges)}
        in_l = {n for n in nodes if any(on_walk_with(n, e) for e in l_edges)}
        if any(nx.has_path(ag, x, y) for x in in_l for y in in_g):
            kinds.add("DP002/AG")
        if any(nx.has_path(al, x, y) for x in in_g for y in in_l):
            kinds.add("DP002/AL")
        for a, ti, b in edges:
            t = ts[ti]
            if t.output.kind is not OutKind.INSAMPLE:
                continue
            if v in t.assigns and any(nx.has_path(ag, b, y) for y in in_g):
                kinds.add("DP004/a/AG")
            if v in t.assigns and any(nx.has_path(al, b, y) for y in in_l):
                kinds.add("DP004/a/AL")
            if lt in t.guard and v not in t.assigns and any(nx.has_path(ag, b, y) for y in in_g):
                kinds.add("DP004/b/AG")
            if ge in t.guard and v not in t.assigns and any(nx.has_path(al, b, y) for y in in_l):
                kinds.add("DP004/b/AL")
            if ge in t.guard and any(nx.has_path(ag, x, a) for x in in_l):
                kinds.add("DP004/c/AG")
            if lt in t.guard and any(nx.has_path(al, x, a) for x in in_g):
                kinds.add("DP004/c/AL")
    if kinds:
        return ("unknown" if output_distinction(m) else "not-private"), None, kinds

    # the two strategies
    base = nx.DiGraph()
    base.add_nodes_from(range(len(st)))
    base.add_edges_from((t.source, t.target) for t in ts)
    base_comp = {q: i for i, c in enumerate(nx.strongly_connected_components(base)) for q in c}
    p_comp = {n: i for i, c in enumerate(nx.strongly_connected_components(g)) for n in c}
    strategies = [
        ([ts[ti].target in base_comp and nx.has_path(base, ts[ti].target, ts[ti].source) for _, ti, _ in edges],
         lambda n: base_comp[n[0]]),
        ([closed(e) for e in E], lambda n: p_comp[n]),
    ]
    bounds = []
    for free, group in strategies:
        if not _store_then_compare_ok(m, nodes, edges, free):
            continue
        if not all(_path_ok(m, edges, path, free) for path in _paths(nodes, edges, max_len)):
            continue
        bounds.append(_literal_weight(m, nodes, edges, free, group, g))
    if bounds:
        return "private", min(bounds), set()
    return "unknown", None, set()


def _store_then_compare_ok(m, nodes, edges, free) -> bool:
    h = nx.DiGraph()
    h.add_nodes_from(nodes)
    h.add_edges_from((a, b) for e, (a, ti, b) in enumerate(edges) if free[e])
    for e1, (a1, t1, b1) in enumerate(edges):
        for e2, (a2, t2, b2) in enumerate(edges):
            if (free[e1] and free[e2] and m.transitions[t1].assigns & m.transitions[t2].compares()
                    and nx.has_path(h, b1, a2)):
                return False
    return True


def _paths(nodes, edges, max_len):
    """Every path of P from the initial node with at most max_len edges (edge indices)."""
    out = {n: [] for n in nodes}
    for e, (a, _, _) in enumerate(edges):
        out[a].append(e)
    todo = [(nodes[0], [])]
    while todo:
        n, path = todo.pop()
        yield path
        if len(path) < max_len:
            for e in out[n]:
                todo.append((edges[e][2], path + [e]))


def _path_ok(m, edges, path, free) -> bool:
    """The coupling's constraints on this one path have a solution in {-1, 0, 1}."""
    ts, st = m.transitions, m.states
    holder: dict[str, int] = {}
    chosen: list[int] = []
    fixed_lo: dict[int, int] = {}
    fixed_hi: dict[int, int] = {}
    rel: list[tuple[int, int]] = []          # (j, k): shift_j <= shift_k
    for k, e in enumerate(path):
        t = ts[edges[e][1]]
        inp = st[t.source].is_input
        if free[e]:
            if inp and t.output.kind is not OutKind.SYMBOL:
                return False
            for lit in t.guard:
                j = holder[lit.var]
                if lit.op == GE:
                    fixed_hi[j] = min(fixed_hi.get(j, 1), -1 if inp else 0)
                else:
                    fixed_lo[j] = max(fixed_lo.get(j, -1), 1 if inp else 0)
        if not free[e] or t.assigns:
            chosen.append(k)
            if t.output.kind is OutKind.INSAMPLE:
                fixed_lo[k] = max(fixed_lo.get(k, -1), 0)
                fixed_hi[k] = min(fixed_hi.get(k, 1), 0)
            for lit in t.guard:
                rel.append((holder[lit.var], k) if lit.op == GE else (k, holder[lit.var]))
        for v in t.assigns:
            holder[v] = k
    for values in itertools.product((-1, 0, 1), repeat=len(chosen)):
        s = dict(zip(chosen, values))
        if all(fixed_lo.get(k, -1) <= s[k] <= fixed_hi.get(k, 1) for k in chosen) and \
                all(s[j] <= s[k] for j, k in rel):
            return True
    return False


def _literal_weight(m, nodes, edges, free, group, g) -> Fraction:
    ts, st = m.transitions, m.states

    def live_at(n, v):                  # some continuation compares v before storing it
        seen, todo = {n}, [n]
        while todo:
            a = todo.pop()
            for e, (x, ti, y) in enumerate(edges):
                if x != a:
                    continue
                if v in ts[ti].compares():
                    return True
                if v not in ts[ti].assigns and y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    def group_charge(c):
        total = Fraction(0)
        for v in m.variables:
            costs = [(2 * st[ts[ti].source].d if st[ts[ti].source].is_input else st[ts[ti].source].d)
                     for e, (a, ti, b) in enumerate(edges)
                     if free[e] and group(a) == c and v in ts[ti].assigns and live_at(b, v)]
            total += max(costs, default=Fraction(0))
        return total

    best = group_charge(group(nodes[0]))
    for target in nodes[1:]:
        for epath in nx.all_simple_edge_paths(g, nodes[0], target):
            total = group_charge(group(nodes[0]))
            for a, b, k in epath:
                if not free[k]:
                    total += _paper_cost(m, edges[k][1]) + group_charge(group(b))
            best = max(best, total)
    return best
