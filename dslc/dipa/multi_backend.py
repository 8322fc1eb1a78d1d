"""The analysis and report of DiPA blocks with several stored variables
(:class:`dslc.ir.multi_dipa.MultiDiPA`; docs/multivariable.md).

``analyse`` runs :func:`dslc.dipa.multivar.check_multi`; ``report`` turns
its answer into the block's verdict, with the same labels as one-variable
blocks: DP001–DP004 on the transitions of the cycles and paths, `--explain`
costs of the transitions that make up d, and "unknown" as DP010 with the
reason.  Evidence (witnesses, the lower bound d_lower) is not computed for
several variables yet: ``Analysis.lower`` is the hook for it, and the JSON
says ``"d_lower": null`` with ``"d_lower_reason"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dslc.diagnostics.model import Diagnostic, Label
from dslc.dipa.multivar import (DISCLOSING_CYCLE, LEAKING_CYCLE, LEAKING_PAIR, NOT_PRIVATE, PRIVATE,
                                MultiResult, check_multi)
from dslc.ir.dipa import OutKind
from dslc.ir.multi_dipa import GE, LT, Literal, MultiDiPA
from dslc.numbers import fmt_fraction, fmt_rate
from dslc.results import BlockResult, Verdict

NO_LOWER_BOUND = "not searched: several variables"
MAX_LABELS = 6


@dataclass
class MultiAnalysis:
    check: MultiResult
    # evidence for several variables (dslc/dipa/multiprob.py, when it lands):
    # a lower bound d_lower ≤ d* ≤ d for "private", witnesses for "not private"
    lower: object = None
    witnesses: list = field(default_factory=list)


def analyse(m: MultiDiPA, options) -> MultiAnalysis:
    return MultiAnalysis(check_multi(m))


def _span(m: MultiDiPA, i: int, part: str = "main"):
    t = m.transitions[i]
    if part == "guard":
        return t.guard_span or t.span
    if part == "store":
        return t.store_span or t.span
    if part == "output":
        return t.output_span or t.span
    return t.span


def _add(diag: Diagnostic, seen: set, span, text: str, primary: bool = False) -> None:
    if span is None or (span.start, span.end) in seen:
        return
    seen.add((span.start, span.end))
    if primary and not any(lab.primary for lab in diag.labels):
        diag.labels.insert(0, Label(span, text, primary=True))
    else:
        diag.labels.append(Label(span, text))


def _loop(m: MultiDiPA, diag: Diagnostic, seen: set, trans: list[int], text: str) -> None:
    loops = [m.loop_spans[m.transitions[i].source] for i in trans if m.transitions[i].source in m.loop_spans]
    if loops:
        _add(diag, seen, loops[0], text)
        return
    for i in trans[:MAX_LABELS]:
        t = m.transitions[i]
        _add(diag, seen, t.span, f"{text} ({m.states[t.source].name} → {m.states[t.target].name})")


def violation_diagnostic(m: MultiDiPA, v) -> Diagnostic:
    var = v.variable
    ts = v.transitions
    seen: set = set()
    if v.kind == LEAKING_CYCLE:
        diag = Diagnostic(v.kind, f"leaking cycle: a loop stores a fresh draw in `{var}` and compares with it again")
        for i in ts:
            if var in m.transitions[i].assigns:
                _add(diag, seen, _span(m, i, "store"), f"stores the draw in `{var}` here", primary=True)
        for i in ts:
            if var in m.transitions[i].compares():
                _add(diag, seen, _span(m, i, "guard"), f"the next turn compares a fresh draw with that `{var}`")
        _loop(m, diag, seen, ts, "and the loop repeats")
        diag.note(f"Definition 6 for the variable `{var}` (docs/multivariable.md): each turn lets adjacent "
                  "inputs shift the outcome by a constant factor, so the loss grows with the number of turns")
        diag.with_help(f"store `{var}` once, outside the loop, and compare with it there, or leave the loop after storing")
    elif v.kind == LEAKING_PAIR:
        first, second = ("<", ">=") if v.subkind.endswith("AG") else (">=", "<")
        diag = Diagnostic(v.kind, f"leaking pair: a loop on `insample {first} {var}` can be followed by a loop "
                                  f"on `insample {second} {var}` with the same stored `{var}`")
        lit = Literal(var, LT if first == "<" else GE)
        for i in ts:
            if lit in m.transitions[i].guard:
                _add(diag, seen, _span(m, i), f"the first loop goes on here while `insample {first} {var}`",
                     primary=True)
        _loop(m, diag, seen, ts, "inside this loop")
        lit2 = lit.negated()
        loop2 = [i for i, t in enumerate(m.transitions)
                 if t.source in v.states and t.target in v.states and lit2 in t.guard]
        for i in loop2[:MAX_LABELS]:
            _add(diag, seen, _span(m, i), f"the second loop goes on here while `insample {second} {var}`")
        if not loop2:
            for q in v.states[:MAX_LABELS]:
                _add(diag, seen, m.states[q].name_span, f"reaches a loop on `insample {second} {var}` here")
        diag.note(f"Definition 8 for the variable `{var}` (docs/multivariable.md): whatever value `{var}` holds, "
                  "adjacent inputs can make one of the two loops gain a constant factor on every turn")
        diag.with_help(f"store a fresh `{var}` before looping on the opposite comparison, or `halt`")
    elif v.kind == DISCLOSING_CYCLE:
        diag = Diagnostic(v.kind, "disclosing cycle: a loop outputs a noisy input value on every turn")
        for i in ts:
            t = m.transitions[i]
            if t.output.is_real and m.states[t.source].is_input:
                _add(diag, seen, _span(m, i, "output"), "outputs a fresh noisy input value", primary=True)
        _loop(m, diag, seen, ts, "inside this loop")
        diag.note("Definition 9 (disclosing cycle): each turn releases another noisy copy of an input, "
                  "so the privacy cost adds up without bound")
        diag.with_help("output a symbol inside the loop and release a number only on a transition that leaves it")
    else:
        diag = Diagnostic(v.kind, f"privacy-violating path: a released draw reveals which side of `{var}` "
                                  "a loop depends on")
        for i in ts:
            _add(diag, seen, _span(m, i, "output"), "outputs the compared draw `insample`", primary=True)
        for q in v.states[:MAX_LABELS]:
            s = m.states[q]
            _add(diag, seen, s.name_span, "on the path")
        diag.note(f"Definition 10 for the variable `{var}` (case {v.subkind.split('/')[1]}, docs/multivariable.md): "
                  f"the released value bounds `{var}`, and a loop that compares with it then leaks on every turn")
        diag.with_help("output a second, independent draw instead of the compared one (`insample'`)")
    if not diag.labels and m.span is not None:
        _add(diag, seen, m.span, "in this block", primary=True)
    diag.data["witness"] = {"states": [m.states[q].name for q in v.states], "variable": var}
    return diag


def unknown_diagnostic(m: MultiDiPA, r: MultiResult) -> Diagnostic:
    if r.path:       # the coupling fails on a path: the message says so, the note gives the path
        diag = Diagnostic("DP010", f"no verdict for `{m.name}` (several variables): no generalised condition "
                                   "holds, and the shift coupling fails on a path")
        diag.note(r.reason)
    else:
        diag = Diagnostic("DP010", f"no verdict for `{m.name}` (several variables): {r.reason}")
    seen: set = set()
    for i in r.path[:MAX_LABELS]:
        _add(diag, seen, m.transitions[i].span, "on the path where the coupling fails", primary=True)
    if r.violations:
        for v in r.violations[:MAX_LABELS]:
            for i in v.transitions[:2]:
                _add(diag, seen, m.transitions[i].span, f"{v.kind} holds here", primary=True)
    if not diag.labels and m.span is not None:
        _add(diag, seen, m.span, "no verdict for this block", primary=True)
    diag.note("nothing is claimed about the privacy of this block (docs/multivariable.md says where the "
              "decision for several variables refuses)")
    diag.with_help("`dslc explain DP010` lists the cases; a smaller automaton or a larger --timeout may help")
    return diag


def charge_text(m: MultiDiPA, c) -> str:
    t = m.transitions[c.transition]
    s = m.states[t.source]
    if c.kind == "store":
        formula = f"2d = 2·{fmt_fraction(s.d)}" if s.is_input else f"d = {fmt_fraction(s.d)}"
        what = f"store of `{c.variable}` on a loop, compared later"
    elif not s.is_input:
        formula, what = f"d = {fmt_fraction(s.d)}", "critical non-input transition"
    elif t.output.kind is OutKind.INSAMPLE_PRIME:
        formula = f"2d + d′ = 2·{fmt_fraction(s.d)} + {fmt_fraction(s.d_prime)}"
        what = "critical input transition"
    else:
        formula, what = f"2d = 2·{fmt_fraction(s.d)}", "critical input transition"
    if not formula.endswith(f"= {fmt_fraction(c.cost)}"):
        formula += f" = {fmt_fraction(c.cost)}"
    return f"{what}, cost {formula} (on the heaviest path)"


def report(m: MultiDiPA, analysis: MultiAnalysis, result: BlockResult, options, path: str | None = None) -> None:
    r = analysis.check
    result.ir = m
    result.analysis = r
    _editor_features(m, result)
    result.details["states"] = len(m.states)
    result.details["transitions"] = len(m.transitions)
    result.details["variables"] = m.variables
    result.details["product_states"] = r.product_states
    result.details["route"] = r.route
    if r.verdict == PRIVATE:
        result.verdict = Verdict.PRIVATE
        result.d = r.d
        if r.d == 0:
            result.summary = ("differentially private for every ε > 0 with d = 0 "
                              f"(several variables: {r.reason})")
        else:
            result.summary = (f"{fmt_rate(r.d)}-differentially private for every ε > 0 with d = "
                              f"{fmt_fraction(r.d)} (several variables; lower bound not searched)")
        result.bounds = {"d_upper": fmt_fraction(r.d), "d_lower": None, "d_lower_reason": NO_LOWER_BOUND,
                         "d_lower_witness": None, "tight": r.d == 0}
        result.details["weight"] = fmt_fraction(r.d)
        result.details["strategy"] = r.strategy or None
        if options.explain:
            result.features["cost_note"] = (
                "with several variables d is the largest total, along a path of positive probability, of "
                "the costs of the transitions the shift coupling pays for, plus the stores on loops of "
                "variables compared later (docs/multivariable.md, \"The weight\"); an upper bound on "
                "the best constant" if r.route == "general" else
                "wt(A) is the largest total cost of critical transitions (transitions on no cycle) along "
                "a path; Lemma 3 of the DiPA paper makes the block dε-private for every ε with d = wt(A)")
            result.cost_labels = [Label(m.transitions[c.transition].span, charge_text(m, c), primary=True)
                                  for c in r.charges if m.transitions[c.transition].span is not None]
        if options.details:
            result.details["critical"] = [
                {"from": m.states[m.transitions[c.transition].source].name,
                 "to": m.states[m.transitions[c.transition].target].name,
                 "cost": fmt_fraction(c.cost), "kind": c.kind, "variable": c.variable,
                 "on_heaviest_path": True,
                 "span": m.transitions[c.transition].span.to_dict() if m.transitions[c.transition].span else None}
                for c in r.charges]
    elif r.verdict == NOT_PRIVATE:
        result.verdict = Verdict.NOT_PRIVATE
        result.summary = "not differentially private for any d: " + ", ".join(sorted(r.kinds))
        result.details["necessity"] = r.necessity
        result.details["weight"] = None
        for v in r.violations:
            result.diagnostics.append(violation_diagnostic(m, v))
    else:
        result.verdict = Verdict.UNKNOWN
        result.summary = ("unknown: no generalised condition holds, and the shift coupling fails on a path"
                          if r.path else f"unknown: {r.reason}")
        result.details["reason"] = r.reason
        result.details["weight"] = None
        result.diagnostics.append(unknown_diagnostic(m, r))


def _editor_features(m: MultiDiPA, result: BlockResult) -> None:
    """The outline's states and the hovers of transitions, for the language server."""
    symbols, hovers = [], []
    for q, s in enumerate(m.states):
        if s.terminal or s.span is None:
            continue
        roles = (["initial"] if q == m.initial else []) + ["input" if s.is_input else "noinput"]
        detail = ", ".join(roles) + f" · Lap({fmt_rate(s.d)})"
        if m.kind == "mechanism":
            symbols.append((s.name, "step · " + detail, s.span, s.span))
        else:
            symbols.append((s.name, detail, s.span, s.name_span or s.span))
    for t in m.transitions:
        if t.span is None:
            continue
        guard = " ∧ ".join(f"`{lit}`" for lit in t.guard) or "`true`"
        stores = ", ".join(f"`{v} := insample`" for v in sorted(t.assigns)) or "no store"
        hovers.append((t.span, f"**{m.states[t.source].name} → {m.states[t.target].name}**: guard {guard}; "
                               f"output `{t.output}`; {stores}"))
    result.features["symbols"] = symbols
    result.features["hover"] = hovers
