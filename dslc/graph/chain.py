"""The picture of a `chain` block: one node per state (its value and initial
probability), one edge per positive entry of each transition matrix of Θ,
with the exact probability.  A valid chain block is always calibrated, so
nothing is marked as a leak; the calibration is in the notes."""

from __future__ import annotations

import networkx as nx

from dslc.graph import new_graph, verdict_text
from dslc.numbers import fmt_fraction
from dslc.results import BlockResult


def _line(span) -> int | None:
    return span.start_line_col[0] if span is not None else None


def chain_graph(block: BlockResult, ir) -> nx.MultiDiGraph:
    title = (f"chain {block.name}: {verdict_text(block)}; query {ir.query.describe(ir.states)}, "
             f"T = {ir.length}, ε = {fmt_fraction(ir.epsilon)}")
    g = new_graph(block, title)
    several = len(ir.models) > 1
    for i, st in enumerate(ir.states):
        label = [st.label]
        if st.value is not None and fmt_fraction(st.value) != st.label:
            label[0] += f" = {fmt_fraction(st.value)}"
        initial = False
        for mi, m in enumerate(ir.models):
            q = m.initial[i]
            initial = initial or q > 0
            word = "π" if m.stationary_start else "q"
            prefix = f"{m.name or f'θ{mi + 1}'}: " if several else ""
            label.append(f"{prefix}{word} = {fmt_fraction(q)}")
        g.add_node(f"s{i}", name=st.label, label=label, role="state", initial=initial, terminal=False,
                   classes=[], line=_line(st.span),
                   value=fmt_fraction(st.value) if st.value is not None else None,
                   initial_probability=[fmt_fraction(m.initial[i]) for m in ir.models])
    count = 0
    for mi, m in enumerate(ir.models):
        for i, row in enumerate(m.transition):
            for j, p in enumerate(row):
                if p == 0:
                    continue
                key = f"t{count}"
                count += 1
                name = (m.name or f"θ{mi + 1}") if several else None
                text = fmt_fraction(p) if name is None else f"{name}: {fmt_fraction(p)}"
                span = m.row_spans[i] if i < len(m.row_spans) else None
                g.add_edge(f"s{i}", f"s{j}", key=key, id=key, label=[text], role="transition", classes=[],
                           line=_line(span), probability=fmt_fraction(p), model=m.name)
    return g


__all__ = ["chain_graph"]
