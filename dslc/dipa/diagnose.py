"""Turn the checker's findings into diagnostics that point at source lines."""

from __future__ import annotations

from itertools import compress
from operator import not_

from dslc import limits
from dslc.diagnostics.model import Diagnostic, Label, Severity
from dslc.dipa.check import (DISCLOSING_CYCLE, LEAKING_CYCLE, LEAKING_PAIR, VIOLATING_PATH,
                             CheckResult, Violation)
from dslc.dipa import program_terms
from dslc.ir.dipa import DiPA, Guard, fmt_fraction
from dslc.source import Span

MAX_LOOP_LABELS = 6


class _Labels:
    """Collects labels, at most one per span."""

    def __init__(self, diag: Diagnostic):
        self.diag = diag
        self.seen: set[tuple[int, int]] = set()

    def add(self, span: Span | None, message: str, primary: bool = False) -> None:
        if span is None:
            return
        key = (span.start, span.end)
        if key in self.seen:
            return
        self.seen.add(key)
        if primary:
            self.diag.labels.insert(0, Label(span, message, primary=True))
        else:
            self.diag.labels.append(Label(span, message))


def _t_span(dipa: DiPA, e: int, part: str = "guard") -> Span | None:
    t = dipa.transitions[e]
    if part == "guard":
        return t.guard_span if t.guard is not Guard.TRUE and t.guard_span else t.span
    if part == "store":
        return t.store_span or t.span
    if part == "output":
        return t.output_span or t.span
    return t.span


def _loop_labels(lab: _Labels, dipa: DiPA, cycle: list[int], text: str) -> None:
    """Label the loop a cycle runs through: the `loop` keyword in a mechanism,
    the cycle's transitions in an automaton."""
    loops = [dipa.loop_spans[dipa.transitions[e].source] for e in cycle
             if dipa.transitions[e].source in dipa.loop_spans]
    if loops:
        lab.add(loops[0], text)
        return
    count = 0
    for e in cycle:
        if count >= MAX_LOOP_LABELS:
            break
        t = dipa.transitions[e]
        before = len(lab.seen)
        lab.add(t.span, f"{text} ({dipa.states[t.source].name} → {dipa.states[t.target].name})")
        count += len(lab.seen) - before


def _states(dipa: DiPA, path: list[int], cycle: bool = False) -> str:
    if not path:
        return ""
    if program_terms.is_program(dipa):
        return program_terms.cycle_words(dipa, path) if cycle else f"through {program_terms.lines_of(dipa, path)}"
    names = [dipa.states[dipa.transitions[path[0]].source].name]
    names += [dipa.states[dipa.transitions[e].target].name for e in path]
    if len(names) > 8:
        names = names[:3] + ["…"] + names[-3:]
    return " → ".join(names)


def violation_diagnostic(dipa: DiPA, v: Violation) -> Diagnostic:
    kind = v.kind
    if kind == LEAKING_CYCLE:
        diag = Diagnostic(kind, "leaking cycle: a loop stores a fresh draw in `x` and compares with it again")
        lab = _Labels(diag)
        lab.add(_t_span(dipa, v.store, "store"), "stores the draw in `x` here", primary=True)
        lab.add(_t_span(dipa, v.compare), "the next turn compares a fresh draw with that `x`")
        _loop_labels(lab, dipa, v.cycle, "and the loop repeats")
        diag.note(f"{'the cycle ' if not program_terms.is_program(dipa) else ''}{_states(dipa, v.cycle, cycle=True)} both overwrites `x` and compares with it "
                  "(Definition 6); each turn lets adjacent inputs shift the outcome by a constant "
                  "factor, so the privacy loss grows with the number of turns and no d bounds it")
        diag.with_help("compare every fresh draw with a threshold stored once, outside the loop "
                       "(as the sparse vector technique does), or leave the loop after storing")
    elif kind == LEAKING_PAIR:
        lo, hi = ("insample < x", "insample >= x") if v.first_is_l else ("insample >= x", "insample < x")
        diag = Diagnostic(kind, f"leaking pair: a loop on `{lo}` can be followed by a loop on `{hi}` "
                                "with the same stored `x`")
        lab = _Labels(diag)
        want1 = Guard.LT if v.first_is_l else Guard.GE
        want2 = Guard.GE if v.first_is_l else Guard.LT
        e1 = next(e for e in v.cycle if dipa.transitions[e].guard is want1)
        e2 = next(e for e in v.cycle2 if dipa.transitions[e].guard is want2)
        lab.add(_t_span(dipa, e1, "main"), f"the first loop goes on here while `{lo}`", primary=True)
        lab.add(_t_span(dipa, e2, "main"), f"the second loop goes on here while `{hi}`")
        for e in v.path[:MAX_LOOP_LABELS]:
            lab.add(_t_span(dipa, e, "main"), "from the first loop to the second, keeping `x`")
        _loop_labels(lab, dipa, v.cycle2, "and repeats")
        diag.note("Definition 8 (leaking pair): whatever value `x` holds, adjacent inputs can make "
                  "one of the two loops gain a constant factor of probability on every turn")
        diag.with_help(f"after the first `{hi}` outcome, `halt`, or store a fresh threshold "
                       "before looping on the opposite comparison")
    elif kind == DISCLOSING_CYCLE:
        t = dipa.transitions[v.disclose]
        what = f"`{t.output}`"
        if program_terms.is_program(dipa) and t.output_span is not None:
            what = f"`{' '.join(t.output_span.text.split()).removeprefix('output ')}`"
        diag = Diagnostic(kind, f"disclosing cycle: a loop outputs the noisy input value {what} on every turn")
        lab = _Labels(diag)
        lab.add(_t_span(dipa, v.disclose, "output"), "outputs a fresh noisy input value", primary=True)
        _loop_labels(lab, dipa, v.cycle, "inside this loop")
        diag.note("Definition 9 (disclosing cycle): each turn releases another noisy copy of an "
                  "input, so the privacy cost adds up without bound")
        diag.with_help("output a symbol inside the loop and release a number only on a transition that leaves it")
    else:
        e0 = v.path[0] if v.case in ("a", "b") else v.path[-1]
        side = "insample >= x" if v.g_side else "insample < x"
        diag = Diagnostic(kind, "privacy-violating path: a released draw reveals which side of `x` "
                                "a loop depends on")
        lab = _Labels(diag)
        lab.add(_t_span(dipa, e0, "output"), "outputs the compared draw `insample`", primary=True)
        cyc_edge = next((e for e in v.cycle if dipa.transitions[e].guard is
                         (Guard.GE if v.g_side else Guard.LT)), None)
        if cyc_edge is not None:
            lab.add(_t_span(dipa, cyc_edge, "main"), f"this loop goes on here while `{side}`")
        for e in v.path[1:MAX_LOOP_LABELS] if v.case != "c" else v.path[:-1][:MAX_LOOP_LABELS]:
            lab.add(_t_span(dipa, e), "connected through here")
        which = {"a": "an assignment that outputs `insample`, followed by",
                 "b": "an output of `insample` on the opposite comparison, followed by",
                 "c": "a loop, then"}[v.case]
        diag.note(f"Definition 10 (privacy-violating path, case {v.case}): {which} a path "
                  f"{_states(dipa, v.path)} that keeps `x`; the released value bounds `x`, "
                  "and the loop then leaks on every turn")
        diag.with_help("output a second, independent draw instead of the compared one, "
                       "e.g. `output Lap(ε/9, q)` (insample′), as Numeric Sparse does")
    diag.data["witness"] = {
        "states": [dipa.states[q].name for q in _witness_states(dipa, v)],
    }
    return diag


def _witness_states(dipa: DiPA, v: Violation) -> list[int]:
    seq = v.cycle + v.path + v.cycle2
    out: list[int] = []
    for e in seq:
        for q in (dipa.transitions[e].source, dipa.transitions[e].target):
            if q not in out:
                out.append(q)
    return out


def truncated_note(kind: str, count: int) -> str:
    return f"{count} more witness(es) of {kind} are not listed"


def unreachable_diagnostic(dipa: DiPA, result: CheckResult) -> Diagnostic | None:
    if dipa.kind != "automaton":
        return None
    unreached = list(compress(range(len(result.reachable)), map(not_, result.reachable)))
    if not getattr(dipa, "terminal_free", False):        # a flat DiPA has no terminal state
        unreached = [q for q in unreached if not dipa.states[q].terminal]
    if not unreached:
        return None
    names = ", ".join(f"`{dipa.states[q].name}`" for q in unreached[:5])
    more = f" and {len(unreached) - 5} more" if len(unreached) > 5 else ""
    diag = Diagnostic("W001", f"unreachable state{'s' if len(unreached) > 1 else ''} {names}{more}",
                      severity=Severity.WARNING)
    for q in unreached[:5]:
        s = dipa.states[q]
        if s.name_span is not None:
            diag.labels.append(Label(s.name_span, "never reached from the initial state",
                                     primary=not diag.labels))
    diag.note("unreachable states do not affect the verdict")
    return diag


def explain_labels(dipa: DiPA, result: CheckResult) -> list[Label]:
    """Labels for --explain: every critical transition with its cost."""
    heaviest = set(result.heaviest)
    labels = []
    for i, (e, cost) in enumerate(result.critical):
        if not i & 1023:
            limits.checkpoint()
        t = dipa.transitions[e]
        s = dipa.states[t.source]
        if s.is_input:
            formula = f"2d = 2·{fmt_fraction(s.d)}"
            if t.output.kind.value == "insample'":
                formula = f"2d + d′ = 2·{fmt_fraction(s.d)} + {fmt_fraction(s.d_prime)}"
            what = "critical input transition"
        else:
            formula = f"d = {fmt_fraction(s.d)}"
            what = "critical non-input transition"
        if formula.endswith(f"= {fmt_fraction(cost)}"):
            text_cost = formula
        else:
            text_cost = f"{formula} = {fmt_fraction(cost)}"
        mark = " (on the heaviest path)" if e in heaviest else ""
        text = f"{what}, cost {text_cost}{mark}"
        if t.span is not None:
            labels.append(Label(t.span, text, primary=e in heaviest))
    return labels


def critical_json(dipa: DiPA, result: CheckResult) -> list[dict]:
    """JSON's ``details.critical``: every critical transition with its cost
    (the block's time budget is checked as it goes)."""
    heaviest = set(result.heaviest)
    out = []
    for i, (e, cost) in enumerate(result.critical):
        if not i & 1023:
            limits.checkpoint()
        t = dipa.transitions[e]
        item = {"from": dipa.states[t.source].name, "to": dipa.states[t.target].name,
                "guard": t.guard.value, "cost": fmt_fraction(cost), "on_heaviest_path": e in heaviest,
                "span": t.span.to_dict() if t.span is not None else None}
        out.append(item)
    return out
