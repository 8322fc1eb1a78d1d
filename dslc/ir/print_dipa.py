"""The DiPA IR printed back as a `.dp` `automaton` block.

Used to write generated automata (benchmarks, the DiPAut corpus, property
tests) as source text that `dslc check` reads back to the same IR.
"""

from __future__ import annotations

from dslc.ir.dipa import DiPA, Guard, OutKind
from dslc.numbers import fmt_fraction, fmt_rate

GUARD_TEXT = {Guard.TRUE: "true", Guard.GE: "insample >= x", Guard.LT: "insample < x"}


def automaton_text(dipa: DiPA, indent: str = "    ") -> str:
    """``dipa`` as an `automaton` block (a state declares `Lap'` when it has a
    second draw or outputs `insample′`)."""
    lines = [f"automaton {dipa.name} {{"]
    out = dipa.out_edges()
    for q, s in enumerate(dipa.states):
        head = _state_head(dipa, s, out[q], indent)
        body = []
        for e in out[q]:
            t = dipa.transitions[e]
            o = "" if t.output.kind is OutKind.SYMBOL and t.output.symbol is None else f" output {t.output}"
            body.append(f"{GUARD_TEXT[t.guard]} -> {dipa.states[t.target].name}{o}{' store' if t.store else ''}")
        lines.append(head + " { " + "; ".join(body) + " }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def multi_automaton_text(m, indent: str = "    ", header: str = "") -> str:
    """A :class:`~dslc.ir.multi_dipa.MultiDiPA` as an `automaton` block with several
    variables (conjunctive guards, `store l, r`; docs/language.md), which `dslc check`
    reads back to the same automaton.  Symbols are quoted, so any name is kept."""
    declared = f" variables {', '.join(m.variables)}" if m.variables else ""
    lines = [f"{header}automaton {m.name}{declared} {{"]
    out = m.out_edges()
    for q, s in enumerate(m.states):
        head = _state_head(m, s, out[q], indent)
        body = []
        for e in out[q]:
            t = m.transitions[e]
            guard = " and ".join(str(lit) for lit in t.guard) or "true"
            if t.output.kind is OutKind.SYMBOL:
                o = "" if t.output.symbol is None else f' output "{t.output.symbol}"'
            else:
                o = f" output {t.output}"
            store = f" store {', '.join(sorted(t.assigns))}" if t.assigns else ""
            body.append(f"{indent * 2}{guard} -> {m.states[t.target].name}{o}{store}")
        lines.append(head + (" {\n" + "\n".join(body) + f"\n{indent}}}" if body else " { }"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _state_head(automaton, s, edges: list[int], indent: str) -> str:
    """`state NAME input Lap(…)[, Lap'(…)]` (a second draw when declared or output)."""
    head = (f"{indent}state {s.name} {'input' if s.is_input else 'noinput'} "
            f"Lap({fmt_rate(s.d)}, {fmt_fraction(s.mu)})")
    if s.d_prime or any(automaton.transitions[e].output.kind is OutKind.INSAMPLE_PRIME for e in edges):
        head += f", Lap'({fmt_rate(s.d_prime)}, {fmt_fraction(s.mu_prime)})"
    return head
