"""networkx as an independent oracle for the graph facts the linear-time
checker computes on its own arrays: the strongly connected components of the
reachable part, and d = wt(A) as the longest path over the components' DAG
weighted by the costs of the critical transitions."""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
from hypothesis import HealthCheck, given, settings

from dslc.dipa.check import check
from tests.dipa_strategies import dipas


def reachable_graph(dipa) -> nx.MultiDiGraph:
    g = nx.MultiDiGraph()
    g.add_node(dipa.initial)
    for e, t in enumerate(dipa.transitions):
        g.add_edge(t.source, t.target, key=e)
    keep = nx.descendants(g, dipa.initial) | {dipa.initial}
    return g.subgraph(keep).copy()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dipas(max_states=9))
def test_components_match_networkx(dipa):
    result = check(dipa)
    g = reachable_graph(dipa)
    ours: dict[int, set[int]] = {}
    for q, c in enumerate(result.component):
        if c >= 0:
            ours.setdefault(c, set()).add(q)
    theirs = {frozenset(c) for c in nx.strongly_connected_components(g)}
    assert {frozenset(c) for c in ours.values()} == theirs
    assert [q for q, r in enumerate(result.reachable) if r] == sorted(g.nodes)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dipas(max_states=9, private_bias=True))
def test_weight_is_the_longest_critical_path(dipa):
    result = check(dipa)
    if not result.well_formed:
        return
    g = reachable_graph(dipa)
    cost = dict(result.critical)
    comp = {q: c for q, c in enumerate(result.component)}
    # in a well-formed automaton no critical transition lies on a cycle
    for e in cost:
        t = dipa.transitions[e]
        assert comp[t.source] != comp[t.target], "a critical transition inside a component"
    dag = nx.condensation(g)
    mapping = dag.graph["mapping"]
    weighted = nx.DiGraph()
    weighted.add_nodes_from(dag.nodes)
    for u, v, e in g.edges(keys=True):
        cu, cv = mapping[u], mapping[v]
        if cu == cv:
            continue
        w = cost.get(e, Fraction(0))
        if not weighted.has_edge(cu, cv) or weighted[cu][cv]["weight"] < w:
            weighted.add_edge(cu, cv, weight=w)
    longest = {}
    for node in reversed(list(nx.topological_sort(weighted))):
        longest[node] = max((d["weight"] + longest[v] for _, v, d in weighted.out_edges(node, data=True)),
                            default=Fraction(0))
    assert result.weight == longest[mapping[dipa.initial]]
