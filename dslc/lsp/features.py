"""Hover, document symbols and go-to-definition, read off an :class:`Analysis`.

Everything here formats what the phases already computed: the block results
(verdict, d, diagnostics) for every block kind, and for DiPA blocks the IR
(``BlockResult.ir``) and the checker's result (``BlockResult.analysis``)
when present.  Other backends can contribute without changes here by putting
``BlockResult.features["symbols"]`` (a list of ``(name, detail, span, name_span)``) and
``features["hover"]`` (a list of ``(span, markdown)``) into their results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsprotocol import types as lsp

from dslc.diagnostics import codes
from dslc.ir.dipa import DiPA, Guard, OutKind, fmt_fraction, fmt_rate
from dslc.lsp.analysis import Analysis
from dslc.lsp.blocks import MovedBlockResult
from dslc.results import BlockResult, Verdict
from dslc.source import Span

BLOCK_KIND = lsp.SymbolKind.Module
STATE_KIND = lsp.SymbolKind.EnumMember
OTHER_KIND = lsp.SymbolKind.Field

VERDICT = {
    Verdict.PRIVATE: "✓ private",
    Verdict.NOT_PRIVATE: "✗ not private",
    Verdict.ERROR: "could not be checked",
    Verdict.UNKNOWN: "? unknown (the check did not finish)",
}
# Which kind wins when several elements have the same (smallest) span.
_PRIORITY = {"block": 0, "extra": 1, "draw": 2, "state": 3, "transition": 4}


def _dipa(block: BlockResult) -> DiPA | None:
    """The one-variable DiPA of a block (several variables: the backend's
    ``features["symbols"|"hover"]`` instead, dslc/dipa/multi_backend.py)."""
    # a mechanism with discrete noise has a bounded program, not a DiPA (docs/discrete.md)
    return block.ir if block.kind in ("automaton", "mechanism") and isinstance(block.ir, DiPA) else None


def _check(block: BlockResult):
    return block.analysis if _dipa(block) is not None else None


def _md(text: str) -> lsp.MarkupContent:
    return lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text)


def _inside(span: Span | None, offset: int, inclusive_end: bool = False) -> bool:
    if span is None:
        return False
    if inclusive_end:
        return span.start <= offset <= span.end
    return span.start <= offset < span.end or span.start == span.end == offset


# ------------------------------------------------------------------ hover
def hover(analysis: Analysis, position: lsp.Position) -> lsp.Hover | None:
    offset = analysis.encoder.offset(position)
    block = analysis.block_at(offset)
    if block is None:
        return _import_hover(analysis, offset)
    hits = _hits(block, offset)
    if not hits:
        return None
    size = min(span.end - span.start for span, _, _ in hits)
    hits = [h for h in hits if h[0].end - h[0].start == size]
    kind = min((h[1] for h in hits), key=_PRIORITY.__getitem__)
    chosen = [h for h in hits if h[1] == kind]
    span = chosen[0][0]
    dipa: DiPA | None = _dipa(block)
    if kind == "block":
        text = _block_text(analysis, block)
    elif kind == "extra":
        text = "\n\n".join(payload for _, _, payload in chosen)
    elif kind in ("state", "draw"):
        seen: list[int] = []
        for _, _, q in chosen:
            if q not in seen:
                seen.append(q)
        text = "\n\n---\n\n".join(_state_text(block, dipa, q, draw=kind == "draw") for q in seen)
    else:
        edges: list[int] = []
        for _, _, e in chosen:
            if e not in edges:
                edges.append(e)
        text = _transitions_text(block, dipa, edges)
    return lsp.Hover(contents=_md(text), range=analysis.encoder.span_range(span))


def _hits(block: BlockResult, offset: int) -> list[tuple[Span, str, object]]:
    hits: list[tuple[Span, str, object]] = []
    if _inside(block.span, offset):
        hits.append((block.span, "block", None))
    for span, text in block.features.get("hover", ()) or ():
        if _inside(span, offset):
            hits.append((span, "extra", text))
    for name in _markov_names(block):
        for span in name.uses:
            if _inside(span, offset):
                hits.append((span, "extra", name.hover(block)))
    dipa: DiPA | None = _dipa(block)
    if dipa is None:
        return hits
    for q, s in enumerate(dipa.states):
        for span, kind in ((s.name_span, "state"), (s.span, "state"), (s.draw_span, "draw")):
            if _inside(span, offset):
                hits.append((span, kind, q))
    for e, t in enumerate(dipa.transitions):
        if _inside(t.target_span, offset):
            hits.append((t.target_span, "state", t.target))
        for span in (t.span, t.guard_span, t.output_span, t.store_span):
            if _inside(span, offset):
                hits.append((span, "transition", e))
    return hits


def _title(block: BlockResult) -> str:
    text = f"**{block.kind}** `{block.name}` — {VERDICT.get(block.verdict, block.verdict.value)}"
    if block.d is not None:
        text += ", " + _d_text(block)
    return text


def _d_text(block: BlockResult, bounds: dict | None = None) -> str:
    """`d ∈ [0.999, 1]`, `d ≤ 1` (no lower bound) or `d = 0`: d is an upper bound."""
    if block.d == 0:
        return "d = 0"
    lower = (block.bounds if bounds is None else bounds).get("d_lower")
    if lower is not None:
        return f"d ∈ [{lower}, {fmt_fraction(block.d)}]"
    return f"d ≤ {fmt_fraction(block.d)}"


def _block_text(analysis: Analysis, block: BlockResult) -> str:
    parts = [_title(block)]
    if block.summary:
        parts.append(block.summary)
    dipa: DiPA | None = _dipa(block)
    check = _check(block)
    if dipa is not None and check is not None:
        line = f"{len(dipa.states)} states, {len(dipa.transitions)} transitions"
        if block.verdict is Verdict.PRIVATE and check.heaviest:
            costs = dict(check.critical)
            terms = " + ".join(fmt_fraction(costs[e]) for e in check.heaviest)
            delta = "" if dipa.sensitivity == 1 else f"{fmt_fraction(dipa.sensitivity)}·"
            line += (f"; d = {delta}wt(A) = {delta}({terms})" if delta else f"; d = wt(A) = {terms}") + \
                ", the costs of the critical transitions on the heaviest path (an upper bound)"
        parts.append(line)
    if block.diagnostics:
        items = []
        for d in block.diagnostics:
            where = ""
            if d.span is not None and d.span.file.text is analysis.text:
                where = f" (line {analysis.encoder.position(d.span.start).line + 1})"
            items.append(f"- `{d.code}`{where}: {d.message}")
        parts.append("\n".join(items))
    return "\n\n".join(parts)


def _cost(block: BlockResult, dipa: DiPA, e: int) -> str:
    check = _check(block)
    if check is None:
        return "not checked (the block has errors)"
    t = dipa.transitions[e]
    if not check.reachable[t.source]:
        return "unreachable"
    if check.on_cycle[e]:
        return "on a cycle: no cost in d (only critical transitions count)"
    cost = dict(check.critical).get(e)
    if cost is None:
        return "critical"
    for label in block.cost_labels:
        if t.span is not None and (label.span.start, label.span.end) == (t.span.start, t.span.end):
            return label.message
    text = f"critical, cost {fmt_fraction(cost)}"
    if block.verdict is Verdict.PRIVATE and e in check.heaviest:
        text += " (on the heaviest path)"
    return text


def _transitions_text(block: BlockResult, dipa: DiPA, edges: list[int]) -> str:
    lines = [f"**transition{'s' if len(edges) > 1 else ''}** of {block.kind} `{block.name}`", ""]
    for e in edges:
        lines.append(f"- `{dipa.describe_transition(e)}` — {_cost(block, dipa, e)}")
    return "\n".join(lines)


def _mean(dipa: DiPA, is_input: bool, mu) -> str:
    if not is_input:
        return fmt_fraction(mu)
    word = "q" if dipa.kind == "mechanism" else "input"
    return word if mu == 0 else f"{word} {'+' if mu > 0 else '-'} {fmt_fraction(abs(mu))}"


def _state_text(block: BlockResult, dipa: DiPA, q: int, draw: bool = False) -> str:
    s = dipa.states[q]
    word = "step" if dipa.kind == "mechanism" else "state"
    head = f"**{'draw of ' if draw else ''}{word}** `{s.name}` of {block.kind} `{block.name}`"
    out = [head]
    if s.terminal:
        out.append("the mechanism halts here")
        return "\n\n".join(out)
    roles = []
    if q == dipa.initial:
        roles.append("initial")
    roles.append("input" if s.is_input else "non-input (reads no input)")
    edges = [e for e, t in enumerate(dipa.transitions) if t.source == q]
    guards = {dipa.transitions[e].guard for e in edges}
    if guards - {Guard.TRUE}:
        roles.append("compares its draw with `x`")
    if any(dipa.transitions[e].store for e in edges):
        roles.append("stores its draw in `x`")
    if any(dipa.transitions[e].output.kind is OutKind.INSAMPLE for e in edges):
        roles.append("outputs its draw")
    if any(dipa.transitions[e].output.kind is OutKind.INSAMPLE_PRIME for e in edges):
        roles.append("outputs a second draw")
    out.append("role: " + "; ".join(roles))
    draws = f"insample ~ Lap({fmt_rate(s.d)}, {_mean(dipa, s.is_input, s.mu)})"
    if s.d_prime != 0 or s.mu_prime != 0:
        draws += f", insample′ ~ Lap({fmt_rate(s.d_prime)}, {_mean(dipa, s.is_input, s.mu_prime)})"
    out.append(draws)
    if edges:
        out.append("\n".join(f"- `{dipa.describe_transition(e)}` — {_cost(block, dipa, e)}" for e in edges))
    else:
        out.append("no transitions: the run ends here")
    witnessed = []
    for d in block.diagnostics:
        names = (d.data.get("witness") or {}).get("states") if isinstance(d.data, dict) else None
        if names and s.name in names:
            info = codes.lookup(d.code)
            witnessed.append(f"`{d.code}`" + (f" ({info.title})" if info else ""))
    if witnessed:
        out.append("on the witness of " + ", ".join(dict.fromkeys(witnessed)))
    return "\n\n".join(out)


# ------------------------------------------------------------------ symbols
def _verdict_detail(block: BlockResult, bounds: dict | None = None) -> str:
    text = f"{block.kind} · {block.verdict.value}"
    if block.d is not None:
        text += ", " + _d_text(block, bounds)
    return text


def _readable(block: BlockResult) -> tuple[BlockResult, int]:
    """Where to read a block's states from, and what to add to the offsets of
    their spans: a result reused from the cache is read where the cache keeps
    it (moving the IR of thousands of blocks for an outline would take
    seconds); its verdict and d are the block's own (a duplicate name makes
    the block an error)."""
    if isinstance(block, MovedBlockResult):
        return block.local()
    return block, 0


def document_symbols(analysis: Analysis, hierarchical: bool = True):
    """DocumentSymbol trees (blocks with their states), or a flat list of
    SymbolInformation for clients without hierarchical support."""
    enc = analysis.encoder
    tree: list[lsp.DocumentSymbol] = []
    for ext in analysis.extents:
        block = ext.block
        states, shift = _readable(block)
        children = []
        for name, detail, span, name_span in _state_symbols(states, keep=states is block):
            span = span or name_span
            start, end = span.start + shift, span.end + shift
            name_start, name_end = name_span.start + shift, name_span.end + shift
            if not (ext.start <= start and end <= ext.end and start <= name_start and name_end <= end):
                continue
            children.append(lsp.DocumentSymbol(
                name=name, kind=STATE_KIND if _dipa(states) is not None else OTHER_KIND,
                range=enc.range(start, end), selection_range=enc.range(name_start, name_end), detail=detail))
        tree.append(lsp.DocumentSymbol(
            name=block.name, kind=BLOCK_KIND, range=enc.range(ext.start, ext.end),
            selection_range=enc.span_range(block.span), detail=_verdict_detail(block, states.bounds),
            children=children or None))
    if hierarchical:
        return tree
    flat: list[lsp.SymbolInformation] = []
    for sym in tree:
        flat.append(lsp.SymbolInformation(name=sym.name, kind=sym.kind,
                                          location=lsp.Location(analysis.uri, sym.range)))
        for child in sym.children or ():
            flat.append(lsp.SymbolInformation(name=child.name, kind=child.kind, container_name=sym.name,
                                              location=lsp.Location(analysis.uri, child.range)))
    return flat


def _state_symbols(block: BlockResult, keep: bool = True):
    extra = block.features.get("symbols")
    if extra:
        yield from extra
    for name in _markov_names(block, keep):
        yield name.name, name.role, name.span, name.span
    dipa: DiPA | None = _dipa(block)
    if dipa is None:
        return
    for q, s in enumerate(dipa.states):
        if s.terminal or (s.name_span is None and s.span is None):
            continue
        roles = (["initial"] if q == dipa.initial else []) + ["input" if s.is_input else "noinput"]
        detail = ", ".join(roles) + f" · Lap({fmt_rate(s.d)})"
        if dipa.kind == "mechanism":
            yield s.name, "step · " + detail, s.span, s.span
        else:
            yield s.name, detail, s.span, s.name_span or s.span


# ------------------------------------------------------------------ definition
def definition(analysis: Analysis, position: lsp.Position) -> list[lsp.Location] | None:
    """Where a state named in an `automaton` block is declared; where an
    imported or called mechanism is defined (dslc/compose)."""
    offset = analysis.encoder.offset(position)
    block = analysis.block_at(offset)
    found = _program_definition(analysis, block, offset)
    if found is not None:
        return found
    if block is None:
        return None
    for name in _markov_names(block):
        if any(_inside(span, offset, inclusive_end=True) for span in name.uses):
            return [lsp.Location(uri=analysis.uri, range=analysis.encoder.span_range(name.span))]
    dipa: DiPA | None = _dipa(block)
    if dipa is None or dipa.kind != "automaton":
        return None
    target = None
    for t in dipa.transitions:
        if _inside(t.target_span, offset, inclusive_end=True):
            target = t.target
            break
    if target is None:
        for q, s in enumerate(dipa.states):
            if _inside(s.name_span, offset, inclusive_end=True):
                target = q
                break
    if target is None or dipa.states[target].name_span is None:
        return None
    span = dipa.states[target].name_span
    return [lsp.Location(uri=analysis.uri, range=analysis.encoder.span_range(span))]


def _import_hover(analysis: Analysis, offset: int) -> lsp.Hover | None:
    """A name of an `import` line: the block it brings in, with its verdict and d."""
    source = analysis.result.source if analysis.result is not None else None
    if source is None or "import" not in source.text:
        return None
    from dslc.compose.program import imported_result, module_of, module_path
    for d in module_of(source).imports.values():
        if d.imported_at is not None and _inside(d.imported_at, offset, inclusive_end=True):
            block = imported_result(d)
            text = _title(block) + f"\n\nfrom {module_path(d.module.source)}"
            if block.summary:
                text += f"\n\n{block.summary}"
            return lsp.Hover(contents=_md(text), range=analysis.encoder.span_range(d.imported_at))
    return None


def _program_definition(analysis: Analysis, block: BlockResult | None, offset: int) -> list[lsp.Location] | None:
    """A call's callee in a `release`, or a name of an `import` line: the block it names."""
    target = None
    for span, where in (block.features.get("definitions", ()) if block is not None else ()) or ():
        if _inside(span, offset, inclusive_end=True):
            target = where
            break
    source = analysis.result.source if analysis.result is not None else None
    if target is None and block is None and source is not None and "import" in source.text:
        from dslc.compose.program import module_of
        for d in module_of(source).imports.values():
            if d.imported_at is not None and _inside(d.imported_at, offset, inclusive_end=True):
                target = d.span
                break
    if target is None:
        return None
    from pathlib import Path
    from dslc.diagnostics.render.lsp import PositionEncoder
    if target.file is source or target.path == getattr(source, "path", None):
        return [lsp.Location(uri=analysis.uri, range=analysis.encoder.span_range(target))]
    encoder = PositionEncoder(target.file.text, analysis.encoder.encoding)
    return [lsp.Location(uri=Path(target.path).resolve().as_uri(), range=encoder.span_range(target))]


# ------------------------------------------------------------------ hmm / mdp names
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class _Name:
    """A state, observation, action or secret declared in an hmm/mdp block,
    with every place the block's text names it."""
    name: str
    role: str
    span: Span
    uses: list[Span]
    detail: str = ""

    def hover(self, block: BlockResult) -> str:
        text = f"**{self.role}** `{self.name}` of {block.kind} `{block.name}`"
        return text + (f"\n\n{self.detail}" if self.detail else "")


def _markov_names(block: BlockResult, keep: bool = True) -> list[_Name]:
    """The declared names of an hmm/mdp block (from its model, when the
    backend kept one); cached on the block (with ``keep``; never on a result
    the cache keeps).  Any surprise in the model's shape gives no names rather
    than an error."""
    cached = block.features.get("_lsp_names")
    if cached is not None:
        return cached
    names: list[_Name] = []
    model = block.ir
    try:
        if model is not None and block.kind in ("hmm", "mdp"):
            names = _names_of(model)
        elif model is not None and block.kind == "chain":
            names = _chain_names(model)
    except Exception:  # noqa: BLE001 - hover and outline are optional extras
        names = []
    if keep:
        block.features["_lsp_names"] = names
    return names


def _chain_names(ir) -> list[_Name]:
    """The states and models of a `chain` block, with what the calibration
    knows of them (value; per model: irreducible, period, stationary π)."""
    from dslc.numbers import fmt_fraction

    out = []
    for i, st in enumerate(ir.states):
        facts = [f"value {fmt_fraction(st.value)}"] if st.value is not None else []
        for m in ir.models:
            if m.stationary is not None:
                facts.append(f"π = {fmt_fraction(m.stationary[i])} in `{m.name}`")
        out.append(_Name(st.label, "chain state", st.span, [st.span], "; ".join(facts)))
    for m in ir.models:
        if m.name == ir.name:            # a block of one model: the block's own symbol says it
            continue
        facts = ["irreducible" if m.irreducible else "not irreducible"]
        if m.period is not None:
            facts.append(f"period {m.period}")
        if m.stationary_start:
            facts.append("starts in its stationary distribution")
        out.append(_Name(m.name, "model θ", m.span, [m.span], ", ".join(facts)))
    return out


def _names_of(model) -> list[_Name]:
    declared: list[_Name] = []
    secrets_of: dict[int, list[str]] = {}
    for secret in getattr(model, "secrets", ()) or ():
        for q in secret.states:
            secrets_of.setdefault(q, []).append(secret.name)
    prior = getattr(model, "prior", {}) or {}
    for q, (name, span) in enumerate(zip(model.states, model.state_spans)):
        facts = []
        if q in prior:
            facts.append(f"prior {prior[q]}".replace("Poly(", "").rstrip(")"))
        if q in secrets_of:
            facts.append("in secret " + ", ".join(f"`{s}`" for s in secrets_of[q]))
        declared.append(_Name(name, "state", span, [], "; ".join(facts)))
    for name, span in zip(model.observations, model.observation_spans):
        declared.append(_Name(name, "observation", span, []))
    for name, span in zip(getattr(model, "actions", ()) or (), getattr(model, "action_spans", ()) or ()):
        declared.append(_Name(name, "action", span, []))
    for secret in getattr(model, "secrets", ()) or ():
        members = ", ".join(f"`{model.states[q]}`" for q in secret.states)
        declared.append(_Name(secret.name, "secret", secret.name_span, [], f"states {members}"))
    by_name = {d.name: d for d in reversed(declared)}      # the first declaration wins
    text = model.span.file.text
    start, end = model.span.start, model.span.end
    for m in _WORD.finditer(text, start, end):
        found = by_name.get(m.group())
        if found is not None:
            found.uses.append(Span(model.span.file, m.start(), m.end()))
    return [d for d in declared if by_name.get(d.name) is d]
