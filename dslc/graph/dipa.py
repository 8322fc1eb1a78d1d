"""The picture of a DiPA block (`automaton`, or the automaton a `mechanism`
lowers to): one node per reachable state, one edge per transition, the
edges of every violation's cycle or path marked with its code, and with
``explain`` the cost of every critical transition of a private block."""

from __future__ import annotations

import networkx as nx

from dslc.dipa.check import CheckResult
from dslc.dipa.diagnose import violation_diagnostic
from dslc.graph import mark, new_graph, verdict_text, violation_title
from dslc.ir.dipa import DiPA, OutKind
from dslc.numbers import fmt_fraction, fmt_rate
from dslc.results import BlockResult

MAX_LINE_TEXT = 40      # characters of a mechanism's source line shown in its state


def _line(span) -> int | None:
    return span.start_line_col[0] if span is not None else None


def _source_text(span) -> str:
    """The statement a mechanism's state starts at: its span's first line, shortened."""
    if span is None:
        return ""
    text = _without_comment(span.text.split("\n", 1)[0]).rstrip().rstrip("{").strip()
    if len(text) > MAX_LINE_TEXT:
        text = text[:MAX_LINE_TEXT - 1] + "…"
    return text


def _without_comment(line: str) -> str:
    """``line`` up to a `//` or `/*` that is not inside a quoted string."""
    quoted = False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif not quoted and line.startswith(("//", "/*"), i):
            return line[:i]
    return line


def _mean(dipa: DiPA, is_input: bool, mu) -> str:
    if not is_input:
        return fmt_fraction(mu)
    word = "q" if dipa.kind == "mechanism" else "input"
    return word if mu == 0 else f"{word} {'+' if mu > 0 else '-'} {fmt_fraction(abs(mu))}"


def _draws(dipa: DiPA, q: int) -> str:
    s = dipa.states[q]
    text = ("input" if s.is_input else "noinput") + f", Lap({fmt_rate(s.d)}, {_mean(dipa, s.is_input, s.mu)})"
    if s.d_prime != 0 or s.mu_prime != 0:
        text += f", Lap′({fmt_rate(s.d_prime)}, {_mean(dipa, s.is_input, s.mu_prime)})"
    return text


def transition_label(dipa: DiPA, e: int) -> str:
    """`insample < x / ⊥, store`: guard, output, store (as `dslc check` writes them)."""
    t = dipa.transitions[e]
    return f"{t.guard.value} / {t.output}" + (", store" if t.store else "")


def _cost_text(dipa: DiPA, e: int, cost) -> str:
    t = dipa.transitions[e]
    s = dipa.states[t.source]
    if not s.is_input:
        formula = f"d = {fmt_fraction(s.d)}"
    elif t.output.kind is OutKind.INSAMPLE_PRIME:
        formula = f"2d + d′ = 2·{fmt_fraction(s.d)} + {fmt_fraction(s.d_prime)}"
    else:
        formula = f"2d = 2·{fmt_fraction(s.d)}"
    if not formula.endswith(f"= {fmt_fraction(cost)}"):
        formula += f" = {fmt_fraction(cost)}"
    return f"cost {formula}"


def _code_title(code: str) -> str:
    title = violation_title(code)
    return f"{code} {title}" if title != code else code


def dipa_graph(block: BlockResult, dipa: DiPA, check: CheckResult, explain: bool = False) -> nx.MultiDiGraph:
    if not isinstance(dipa, DiPA):          # several variables (dslc/graph/multi.py)
        from dslc.graph.multi import multi_graph
        return multi_graph(block, dipa, check, explain)
    title = f"{block.kind} {block.name}: {verdict_text(block)}"
    sensitivity = getattr(dipa, "sensitivity", 1)
    d = check.weight * sensitivity if check.well_formed and check.weight is not None else None
    if d is not None:
        title += f", d = {fmt_fraction(d)}"
    g = new_graph(block, title)
    reachable = check.reachable
    node = {q: f"s{q}" for q in range(len(dipa.states))}
    for q, s in enumerate(dipa.states):
        if not reachable[q]:
            continue
        label = [s.name]
        line = _line(s.span)
        if dipa.kind == "mechanism" and line is not None:
            text = _source_text(s.span)
            label.append(f"line {line}" + (f": {text}" if text else ""))
        if not s.terminal:
            label.append(_draws(dipa, q))
        elif len(label) == 1:
            label.append("halt")
        g.add_node(node[q], name=s.name, label=label, role="state", initial=q == dipa.initial,
                   terminal=bool(s.terminal), classes=[], line=line, input=bool(s.is_input),
                   d=fmt_fraction(s.d), mu=fmt_fraction(s.mu), d_prime=fmt_fraction(s.d_prime),
                   mu_prime=fmt_fraction(s.mu_prime))
    unreached = sum(1 for q, r in enumerate(reachable) if not r and not dipa.states[q].terminal)
    if unreached:
        g.graph["notes"].append(f"{unreached} unreachable state{'s' if unreached > 1 else ''} not drawn")
    for e, t in enumerate(dipa.transitions):
        if not reachable[t.source]:
            continue
        out = None if t.output.kind is OutKind.SYMBOL and t.output.symbol is None else str(t.output)
        g.add_edge(node[t.source], node[t.target], key=f"t{e}", id=f"t{e}", label=[transition_label(dipa, e)],
                   role="transition", classes=[], line=_line(t.span), guard=t.guard.value, output=out,
                   store=bool(t.store), on_cycle=bool(check.on_cycle[e]), cost=None)

    def ends(e: int) -> tuple[str, str, str]:
        t = dipa.transitions[e]
        return node[t.source], node[t.target], f"t{e}"

    for v in check.violations:
        edges = list(dict.fromkeys(v.cycle + v.path + v.cycle2))
        mark(g, [ends(e) for e in edges], v.kind)
        message = violation_diagnostic(dipa, v).message
        names = ", ".join(dict.fromkeys(dipa.states[q].name for e in edges
                                        for q in (dipa.transitions[e].source, dipa.transitions[e].target)))
        g.graph["notes"].append(f"{_code_title(v.kind)} (red): {names}")
        g.graph["violations"].append({
            "code": v.kind, "subkind": v.subkind, "message": message,
            "edges": [f"t{e}" for e in edges],
            "states": list(dict.fromkeys(q for e in edges for q in ends(e)[:2])),
        })
    for kind, count in sorted(check.truncated.items()):
        g.graph["notes"].append(f"{count} more witness(es) of {kind} are not drawn")
    # a well-formed block over its budget (`budget`, --max-d): the heaviest path is the leak
    over = [diag.code for diag in block.diagnostics if diag.is_error] if check.well_formed else []
    if over:
        edges = [ends(e) for e in check.heaviest]
        for code in dict.fromkeys(over):
            mark(g, edges, code)
            budget = (getattr(block, "bounds", None) or {}).get("budget") or {}
            limit = f" > budget {budget['max_d']}" if budget.get("max_d") else ""
            g.graph["notes"].append(f"{_code_title(code)} (red: a heaviest path): "
                                    f"d = {fmt_fraction(d)}{limit}")
            g.graph["violations"].append({
                "code": code, "subkind": code, "message": next(x.message for x in block.diagnostics
                                                               if x.code == code),
                "edges": [k for _, _, k in edges],
                "states": list(dict.fromkeys(q for u, v, _ in edges for q in (u, v))),
            })
    if (explain or over) and check.well_formed:
        g.graph["explain"] = True
        heaviest = set(check.heaviest)
        for e, cost in check.critical:
            u, v, k = ends(e)
            data = g.edges[u, v, k]
            data["cost"] = fmt_fraction(cost)
            text = _cost_text(dipa, e, cost)
            if e in heaviest:
                text += " (heaviest path)"
                data["classes"].append("heaviest")
            data["label"].append(text)
        what = "d = wt(A)" if sensitivity == 1 else f"d = Δ·wt(A) = {fmt_fraction(sensitivity)}·{fmt_fraction(check.weight)}"
        g.graph["notes"].append(f"{what} = {fmt_fraction(d)}: wt(A) is the largest total cost of "
                                "critical transitions along a path (bold: a heaviest path)")
    return g


__all__ = ["dipa_graph", "transition_label"]
