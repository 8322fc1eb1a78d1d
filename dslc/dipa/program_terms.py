"""Paths and witnesses of a `mechanism` block in the program's own terms.

A `mechanism` is checked as the automaton it lowers to, but its author
never sees that automaton: state names (`q1`), `insample` and τ steps mean
nothing to them.  These helpers say the same facts with the program's
lines: which `read()` a step performs, which comparison holds, what it
outputs, and which turn of which `loop` it belongs to.  The step-by-step
sentences of a witness are rendered from the facts of the program's own run
(:mod:`dslc.dipa.program_run`).  Data in, text out; nothing here analyses.
"""

from __future__ import annotations

from dslc.ir.dipa import DiPA
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
        state = dipa.states[t.source]
        # an input step's first statement is where it reads (or the `loop` it
        # starts at, whose line is not one of the turn's lines)
        first = state.span if state.is_input and state.span is not None \
            and not state.span.text.startswith("loop") else None
        for span in (first, state.draw_span, t.guard_span, t.output_span, t.store_span):
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


def release_words(dipa: DiPA, e: int) -> str:
    """The value a transition releases, said of the program: `the value output at line 13 (`output s`)`."""
    span = dipa.transitions[e].output_span
    if span is None:
        return "the released value"
    return f"the value output at line {_line(span)} (`{_code(span)}`)"


def _reads(pairs: list) -> str:
    return ", ".join(f"{fmt_fraction(a)} | {fmt_fraction(b)}" for a, b in pairs)


def fact_text(f) -> str:
    """One statement of a witness's run (a :class:`~dslc.dipa.program_run.StepFact`)."""
    line = f"line {f.line}"
    reads = f"{line} reads {_reads(f.reads)}" if f.reads else ""
    if f.kind == "assign":
        if f.draws:
            drawn = " and ".join(f"`{d}`" for d in f.draws)
            return f"{reads + ' and draws' if reads else line + ' draws'} {drawn} into `{f.target}`"
        if f.reads:
            return f"{reads} into `{f.target}`"
        return f"{line} sets `{f.code}`"
    head = reads + "; " if reads else ""
    if f.kind == "compare":
        return f"{head}`{f.code}` {'holds' if f.held else 'is false'} ({line})"
    if f.kind == "output":
        if f.output is not None and f.output.startswith(("(", "[")):
            what = f.code.removeprefix("output").strip()
            return f"{head}outputs `{what}`, a value in {f.output} ({line})"
        return f"{head}outputs {f.output} ({line})"
    if f.kind == "break":
        return f"leaves the loop ({line})"
    if f.kind == "halt":
        return f"halts ({line})"
    return f"{head}{line}: `{f.code}`"                   # pragma: no cover - no other kind


def fact_lines(facts: list) -> list[str]:
    """One line per loop turn (and per stretch outside the loops) of a
    witness's run: where it is, then what each statement did."""
    groups: list[tuple[tuple, str, list[str]]] = []
    last_loop = None
    for f in facts:
        if f.loops:
            line, turn = f.loops[-1]
            label = f"turn {turn} of the loop at line {line}"
            if len(f.loops) > 1:
                outer, outer_turn = f.loops[-2]
                label += f" (in turn {outer_turn} of the loop at line {outer})"
            key = (f.loops, None)
            last_loop = f.loops[0][0]
        else:
            label = "at the start" if last_loop is None else f"after the loop at line {last_loop}"
            key = ((), last_loop)
        if not groups or groups[-1][0] != key:
            groups.append((key, label, []))
        groups[-1][2].append(fact_text(f))
    out = [f"{label}: " + "; ".join(texts) for _, label, texts in groups]
    if len(out) > MAX_STEPS_SHOWN:
        out = out[:MAX_STEPS_SHOWN - 3] + [f"… ({len(out) - MAX_STEPS_SHOWN + 1} lines left out) …"] \
            + out[-2:]
    return out
