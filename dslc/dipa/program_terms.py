"""Paths and witnesses of a `mechanism` block in the program's own terms.

A `mechanism` is checked as the automaton it lowers to, but its author
never sees that automaton: state names (`q1`), `insample` and τ steps mean
nothing to them.  These helpers say the same facts with the program's
lines: which `read()` a step performs, which comparison holds, what it
outputs, and which turn of which `loop` it belongs to.  Data in, text out;
nothing here analyses.
"""

from __future__ import annotations

from fractions import Fraction

from dslc.ir.dipa import DiPA, Guard
from dslc.numbers import fmt_fraction
from dslc.source import Span

MAX_STEPS_SHOWN = 14


def is_program(dipa: DiPA) -> bool:
    return dipa.kind == "mechanism"


def _line(span: Span | None) -> int | None:
    return span.file.line_col(span.start)[0] if span is not None else None


def _code(span: Span | None, limit: int = 40) -> str:
    if span is None:
        return ""
    text = " ".join(span.text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def loop_line(dipa: DiPA, transitions: list[int]) -> int | None:
    """The line of the `loop` keyword that a cycle runs through (if any)."""
    for e in transitions:
        q = dipa.transitions[e].source
        if q in dipa.loop_spans:
            return _line(dipa.loop_spans[q])
    return None


def lines_of(dipa: DiPA, transitions: list[int]) -> str:
    """The program lines a run of transitions passes through, e.g. `lines 11–12`."""
    lines: set[int] = set()
    for e in transitions:
        t = dipa.transitions[e]
        for span in (dipa.states[t.source].draw_span, t.guard_span, t.output_span, t.store_span):
            line = _line(span)
            if line is not None:
                lines.add(line)
    if not lines:
        return "the program"
    lo, hi = min(lines), max(lines)
    return f"line {lo}" if lo == hi else f"lines {lo}–{hi}"


def cycle_words(dipa: DiPA, cycle: list[int]) -> str:
    """A cycle, said of the program: `the loop at line 10 (lines 11–12)`."""
    at = loop_line(dipa, cycle)
    where = lines_of(dipa, cycle)
    return f"the loop at line {at} ({where})" if at is not None else f"the repeated run of {where}"


def path_words(dipa: DiPA, segments: list[tuple[str, list[int], bool]]) -> str:
    """A witness's path pattern: `lines 8–8 once, then ℓ turns of the loop at line 10 (lines 11–12)`."""
    parts = []
    for _, trans, repeated in segments:
        if not trans:
            continue
        parts.append(f"ℓ turns of {cycle_words(dipa, trans)}" if repeated else f"{lines_of(dipa, trans)} once")
    return ", then ".join(parts) if parts else "the program"


def words(text: str) -> str:
    """Automaton vocabulary in an explanation, said of the program: `insample`
    is the draw a step makes from its `read()`, `x` the stored variable."""
    for old, new in (("`insample >= x`", "a `>=` comparison with `x`"),
                     ("`insample < x`", "a `<` comparison with `x`"),
                     ("`insample′`", "the second draw"), ("`insample'`", "the second draw"),
                     ("`insample`", "the draw")):
        text = text.replace(old, new)
    return text


def _step_text(dipa: DiPA, e: int, a: Fraction | None, b: Fraction | None, output: str) -> str:
    t = dipa.transitions[e]
    state = dipa.states[t.source]
    bits = []
    if state.is_input:
        where = _line(state.draw_span)
        read = f"line {where} reads" if where is not None else "reads"
        bits.append(f"{read} {fmt_fraction(a)} | {fmt_fraction(b)}" if a is not None and b is not None
                    else read)
    elif state.draw_span is not None:
        bits.append(f"line {_line(state.draw_span)} draws `{_code(state.draw_span)}`")
    if t.guard is not Guard.TRUE:
        cond = _code(t.guard_span) or str(t.guard)
        where = _line(t.guard_span)
        bits.append(f"`{cond}` holds" + (f" (line {where})" if where is not None else ""))
    if t.output.symbol is not None or t.output.is_real:
        where = _line(t.output_span)
        bits.append(f"outputs {output}" + (f" (line {where})" if where is not None else ""))
    if t.store:
        bits.append("stores the draw in `x`")
    return "; ".join(bits) if bits else "no input, no output"


def _loop_members(dipa: DiPA) -> dict[int, frozenset[int]]:
    """For each loop head (a state with a `loop` keyword), the states of its
    loop: those on a cycle through the head."""
    out_edges = dipa.out_edges()
    into: dict[int, list[int]] = {}
    for t in dipa.transitions:
        into.setdefault(t.target, []).append(t.source)

    def reach(start: int, step) -> set[int]:
        seen, todo = {start}, [start]
        while todo:
            q = todo.pop()
            for r in step(q):
                if r not in seen:
                    seen.add(r)
                    todo.append(r)
        return seen

    members = {}
    for head in dipa.loop_spans:
        forward = reach(head, lambda q: (dipa.transitions[e].target for e in out_edges[q]))
        backward = reach(head, lambda q: into.get(q, ()))
        members[head] = frozenset(forward & backward)
    return members


def run_lines(dipa: DiPA, positions, alpha, beta, outputs: list[str]) -> list[str]:
    """One line per step of a witness run: the turn of the innermost loop it
    belongs to, the `read()` and its α | β values, the comparison that holds,
    the output."""
    members = _loop_members(dipa)
    turns: dict[int, int] = {}
    seen_loop = False
    out = []
    for k, (pos, a, b) in enumerate(zip(positions, alpha, beta)):
        q = dipa.transitions[pos.transition].source
        if q in members:
            turns[q] = turns.get(q, 0) + 1
        inside = [h for h, m in members.items() if q in m]
        if inside:
            head = min(inside, key=lambda h: len(members[h]))
            seen_loop = True
            where = _line(dipa.loop_spans[head])
            label = f"turn {max(1, turns.get(head, 0))} of the loop at line {where}"
        else:
            label = "after the loop" if seen_loop else "before the loop"
        out.append(f"{label}: {_step_text(dipa, pos.transition, a.input, b.input, outputs[k])}")
    if len(out) > MAX_STEPS_SHOWN:
        out = out[:MAX_STEPS_SHOWN - 3] + [f"… ({len(out) - MAX_STEPS_SHOWN + 1} more steps) …"] + out[-2:]
    return out
