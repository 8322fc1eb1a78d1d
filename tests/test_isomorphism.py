"""The five paper figures in `mechanism` form lower to their `automaton` twins."""

from __future__ import annotations

from pathlib import Path

import networkx as nx
import pytest

from dslc.pipeline import check_path
from dslc.ir.dipa import DiPA, OutKind

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ["svt", "numeric_sparse", "sorted_desc", "svt_star", "numeric_sparse_mod", "noisy_stream"]


def as_graph(dipa: DiPA) -> nx.MultiDiGraph:
    """States labelled by input flag and parameters (d′, μ′ only where insample′ is output;
    a state without transitions is labelled only as terminal, since nothing is sampled
    there); edges by guard, output and store.  A step that outputs nothing is the same as
    the paper's ⊥ on the initial transition (LANGUAGE.md: up to that symbol)."""
    g = nx.MultiDiGraph()
    out = dipa.out_edges()
    for q, s in enumerate(dipa.states):
        if not out[q]:
            g.add_node(q, label=("terminal",))
            continue
        prime = any(dipa.transitions[e].output.kind is OutKind.INSAMPLE_PRIME for e in out[q])
        g.add_node(q, label=(s.is_input, s.d, s.mu, s.d_prime if prime else None,
                             s.mu_prime if prime else None, q == dipa.initial))
    for t in dipa.transitions:
        o = t.output
        sym = "⊥" if (o.kind is OutKind.SYMBOL and o.symbol is None and t.source == dipa.initial) else str(o)
        g.add_edge(t.source, t.target, label=(t.guard, sym, t.store))
    return g


@pytest.mark.parametrize("figure", FIGURES)
def test_mechanism_lowers_to_its_automaton_twin(figure):
    result = check_path(str(ROOT / "examples" / f"{figure}.dp"))
    blocks = {b.name: b for b in result.blocks}
    mech = blocks[figure].ir
    auto = blocks[f"{figure}_automaton"].ir
    same = nx.is_isomorphic(as_graph(mech), as_graph(auto),
                            node_match=lambda a, b: a["label"] == b["label"],
                            edge_match=lambda a, b: sorted(v["label"] for v in a.values())
                            == sorted(v["label"] for v in b.values()))
    assert same


def test_isomorphism_check_can_fail():
    result = check_path(str(ROOT / "examples" / "svt.dp"))
    other = check_path(str(ROOT / "examples" / "sorted_desc.dp"))
    a = result.blocks[0].ir
    b = other.blocks[1].ir
    assert not nx.is_isomorphic(as_graph(a), as_graph(b), node_match=lambda x, y: x["label"] == y["label"])


def test_every_mechanism_state_and_transition_has_a_span():
    for figure in FIGURES:
        result = check_path(str(ROOT / "examples" / f"{figure}.dp"))
        dipa = result.blocks[0].ir
        assert all(s.span is not None for s in dipa.states)
        assert all(t.span is not None for t in dipa.transitions)
