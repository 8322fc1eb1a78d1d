"""The picture of a DiPA block with several stored variables
(:class:`~dslc.ir.multi_dipa.MultiDiPA`): one node per state reachable in the
automaton's graph, one edge per transition labelled with its conjunctive guard,
output and stores, the transitions of every violation marked with its code, and
with ``explain`` the charges that make up d on a heaviest path."""

from __future__ import annotations

import networkx as nx

from dslc.dipa.multi_backend import charge_text, violation_diagnostic
from dslc.graph import mark, new_graph, verdict_text, violation_title
from dslc.ir.dipa import OutKind
from dslc.numbers import fmt_fraction
from dslc.results import BlockResult


def multi_transition_label(m, e: int) -> str:
    """`insample >= l ∧ insample < r / ok, store l`: guard, output, stores."""
    t = m.transitions[e]
    guard = " ∧ ".join(map(str, t.guard)) or "true"
    return f"{guard} / {t.output}" + (f", store {', '.join(sorted(t.assigns))}" if t.assigns else "")


def multi_graph(block: BlockResult, m, r, explain: bool = False) -> nx.MultiDiGraph:
    from dslc.graph.dipa import _draws, _line, _source_text
    title = f"{block.kind} {block.name}: {verdict_text(block)}"
    if r.d is not None:
        title += f", d = {fmt_fraction(r.d)}"
    g = new_graph(block, title)
    reach = {m.initial}
    todo = [m.initial]
    out = m.out_edges()
    while todo:
        q = todo.pop()
        for e in out[q]:
            t = m.transitions[e].target
            if t not in reach:
                reach.add(t)
                todo.append(t)
    node = {q: f"s{q}" for q in range(len(m.states))}
    for q, s in enumerate(m.states):
        if q not in reach:
            continue
        label = [s.name]
        line = _line(s.span)
        if m.kind == "mechanism" and line is not None:
            text = _source_text(s.span)
            label.append(f"line {line}" + (f": {text}" if text else ""))
        label.append(_draws(m, q) if not s.terminal else "halt")
        g.add_node(node[q], name=s.name, label=label, role="state", initial=q == m.initial,
                   terminal=bool(s.terminal), classes=[], line=line, input=bool(s.is_input),
                   d=fmt_fraction(s.d), mu=fmt_fraction(s.mu), d_prime=fmt_fraction(s.d_prime),
                   mu_prime=fmt_fraction(s.mu_prime))
    g.graph["notes"].append(f"variables: {', '.join(m.variables) or 'none'}")
    for e, t in enumerate(m.transitions):
        if t.source not in reach:
            continue
        o = None if t.output.kind is OutKind.SYMBOL and t.output.symbol is None else str(t.output)
        g.add_edge(node[t.source], node[t.target], key=f"t{e}", id=f"t{e}", label=[multi_transition_label(m, e)],
                   role="transition", classes=[], line=_line(t.span),
                   guard=" && ".join(map(str, t.guard)) or "true", output=o,
                   store=bool(t.assigns), stores=sorted(t.assigns), on_cycle=None, cost=None)

    def ends(e: int) -> tuple[str, str, str]:
        t = m.transitions[e]
        return node[t.source], node[t.target], f"t{e}"

    for v in r.violations:
        edges = [e for e in dict.fromkeys(v.transitions) if m.transitions[e].source in reach]
        mark(g, [ends(e) for e in edges], v.kind)
        title_v = violation_title(v.kind)
        g.graph["notes"].append(f"{v.kind} {title_v} (red), variable {v.variable}: "
                                + ", ".join(m.states[q].name for q in v.states))
        g.graph["violations"].append({
            "code": v.kind, "subkind": v.subkind, "message": violation_diagnostic(m, v).message,
            "edges": [f"t{e}" for e in edges], "variable": v.variable,
            "states": list(dict.fromkeys(q for e in edges for q in ends(e)[:2])),
        })
    if r.verdict == "unknown":
        g.graph["notes"].append(f"no verdict: {r.reason}")
    if explain and r.verdict == "private":
        g.graph["explain"] = True
        for c in r.charges:
            u, v, k = ends(c.transition)
            data = g.edges[u, v, k]
            data["cost"] = fmt_fraction(c.cost if data["cost"] is None else c.cost + _frac(data["cost"]))
            data["label"].append(charge_text(m, c).replace("(on the heaviest path)", "(heaviest path)"))
            if "heaviest" not in data["classes"]:
                data["classes"].append("heaviest")
        g.graph["notes"].append(f"d = {fmt_fraction(r.d)}: the charges of a heaviest path "
                                "(bold; docs/multivariable.md, \"The weight\")")
    return g


def _frac(text: str):
    from fractions import Fraction
    return Fraction(text)
