"""The analysis and report of DiPA blocks with several stored variables
(:class:`dslc.ir.multi_dipa.MultiDiPA`; docs/multivariable.md).

``analyse`` runs :func:`dslc.dipa.multivar.check_multi`, then the evidence of
:mod:`dslc.dipa.multi_evidence`: the lower bound d_lower of a private block
(and its budget, `budget Dε` or `--max-d`), and with ``--witness`` a witness
per violation.  ``report`` turns the answer into the block's verdict, with
the same labels as one-variable blocks: DP001–DP004 on the transitions of the
cycles and paths, DP005/DP006 for budgets, `--explain` costs of the
transitions that make up d, and "unknown" as DP010 with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, Label, Verbatim
from dslc.dipa import multi_evidence
from dslc.dipa.multi_evidence import MultiBound, ShownWitness
from dslc.dipa.multievent import inputs_of
from dslc.dipa.multiprob import Loss
from dslc.dipa.paths import output_tokens
from dslc.dipa.prob import fmt_probability
from dslc.dipa.multivar import (DISCLOSING_CYCLE, LEAKING_CYCLE, LEAKING_PAIR, NOT_PRIVATE, PRIVATE, UNKNOWN,
                                MultiResult, check_multi)
from dslc.ir.dipa import OutKind
from dslc.ir.multi_dipa import GE, LT, Literal, MultiDiPA
from dslc.numbers import fmt_fraction, fmt_rate
from dslc.results import BlockResult, Verdict

MAX_LABELS = 6


@dataclass
class MultiAnalysis:
    check: MultiResult
    lower: MultiBound | None = None                     # d_lower ≤ d* ≤ d of a private block
    witnesses: list[ShownWitness] = field(default_factory=list)   # per violation, with --witness
    budget: object = None                               # dslc.dipa.budget.Budget
    budget_status: str | None = None


def analyse(m: MultiDiPA, options) -> MultiAnalysis:
    from dslc.dipa import budget as budgets
    from dslc.dipa import lower_bound as one_variable
    analysis = MultiAnalysis(check_multi(m))
    r = analysis.check
    if r.verdict == PRIVATE:
        work = one_variable.work_option(getattr(options, "lower_bound_work", None),
                                        getattr(options, "lower_bound_time", None))
        analysis.lower = multi_evidence.lower_bound(m, r, work)
        if analysis.lower.contradiction:      # a verified loss above the proven d: no verdict
            analysis.check = replace(r, verdict=UNKNOWN, d=None, reason="the checker's d and a verified witness "
                                     f"disagree ({analysis.lower.contradiction}); please report it")
            return analysis
        analysis.budget = budgets.effective_budget(m, getattr(options, "max_d", None))
        if analysis.budget is not None:
            analysis.budget_status, analysis.lower = budgets.settle(r.d, analysis.lower, analysis.budget)
    elif r.verdict == NOT_PRIVATE and options.witness:
        analysis.witnesses = multi_evidence.witnesses(m, r)
    return analysis


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
        from dslc.dipa import budget as budgets
        state, lb = analysis.budget_status, analysis.lower
        result.verdict = Verdict.PRIVATE
        result.d = r.d
        if r.d == 0:
            result.summary = ("differentially private for every ε > 0 with d = 0 "
                              f"(several variables: {r.reason})")
        else:
            result.summary = budgets.summary_line(r.d, lb, analysis.budget, state) + " (several variables)"
        result.bounds = bounds_json(m, r.d, lb, analysis.budget, state, path, result.name)
        if state in (budgets.EXCEEDED, budgets.NOT_PROVEN):
            result.verdict = Verdict.NOT_PRIVATE
            result.d = None
            result.diagnostics.append(budget_diagnostic(m, r, lb, analysis.budget, state, path, result.name))
        elif options.explain and lb is not None and lb.event is not None:
            result.features["lower_bound_notes"] = event_notes(m, lb.event, path, result.name,
                                                               f"lower bound d ≥ {lb.text}")
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
        for k, v in enumerate(r.violations):
            diag = violation_diagnostic(m, v)
            if k < len(analysis.witnesses):
                attach_witness(diag, m, analysis.witnesses[k], path, result.name, result.syntax)
            result.diagnostics.append(diag)
    else:
        result.verdict = Verdict.UNKNOWN
        result.summary = ("unknown: no generalised condition holds, and the shift coupling fails on a path"
                          if r.path else f"unknown: {r.reason}")
        result.details["reason"] = r.reason
        result.details["weight"] = None
        result.diagnostics.append(unknown_diagnostic(m, r))


# --------------------------------------------------------------------------- evidence as text and JSON

def _short(items: list[str], limit: int = 12) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit - 4]) + ", …, " + ", ".join(items[-3:])


def _commands(m: MultiDiPA, event: Loss, path: str | None, block: str) -> list[str]:
    from dslc.dipa.witness import prob_command
    outputs = output_tokens(m, event.alpha)
    return [prob_command(path, block, event.epsilon, event.alpha, outputs),
            prob_command(path, block, event.epsilon, event.beta, outputs)]


def event_json(m: MultiDiPA, event: Loss, path: str | None, block: str) -> dict:
    """An output event's witness in JSON (the keys of a one-variable witness, plus
    ``paths`` and ``log_ratio_lower``)."""
    return {"epsilon": fmt_fraction(event.epsilon),
            "alpha": [fmt_fraction(a) for a in inputs_of(event.alpha)],
            "beta": [fmt_fraction(a) for a in inputs_of(event.beta)],
            "outputs": output_tokens(m, event.alpha),
            "paths": event.paths,
            "pr_alpha": fmt_probability(event.pr_alpha.probability),
            "pr_beta": fmt_probability(event.pr_beta.probability),
            "error_alpha": f"{float(event.pr_alpha.error):.3g}",
            "error_beta": f"{float(event.pr_beta.error):.3g}",
            "log_ratio": float(event.value),
            "log_ratio_lower": float(event.lower),
            "commands": _commands(m, event, path, block)}


def event_notes(m: MultiDiPA, event: Loss, path: str | None, block: str, head: str) -> list:
    """The notes that show one output event's loss, with the lines that replay it."""
    eps = fmt_fraction(event.epsilon)
    summed = (f"; each probability adds up the {event.paths} paths that print these outputs"
              if event.paths > 1 else "")
    return [
        f"{head}: at ε = {eps}, ln(Pr_α/Pr_β) = {float(event.value):.6g} (proven at least "
        f"{float(event.lower):.6g}) on these adjacent inputs (each pair differs by at most 1){summed}:",
        f"α = {_short([fmt_fraction(a) for a in inputs_of(event.alpha)])}",
        f"β = {_short([fmt_fraction(a) for a in inputs_of(event.beta)])}",
        f"outputs = {_short(output_tokens(m, event.alpha))}   (_: a step that outputs nothing)",
        f"Pr_α = {fmt_probability(event.pr_alpha.probability)} (error ≤ {float(event.pr_alpha.error):.3g}), "
        f"Pr_β = {fmt_probability(event.pr_beta.probability)} (error ≤ {float(event.pr_beta.error):.3g})",
        *(Verbatim("replay: " + c) for c in _commands(m, event, path, block)),
    ]


def bounds_json(m: MultiDiPA, upper: Fraction, lb: MultiBound | None, budget, state: str | None,
                path: str | None, block: str) -> dict:
    out: dict = {"d_upper": fmt_fraction(upper)}
    if lb is not None and lb.searched and not lb.problem:
        out["d_lower"] = lb.text
        out["d_lower_witness"] = event_json(m, lb.event, path, block) if lb.event is not None else None
        out["tight"] = lb.tight(upper)
    else:
        out["d_lower"] = None
        out["d_lower_reason"] = lb.reason if lb is not None else "not searched"
        out["d_lower_witness"] = None
        out["tight"] = upper == 0
    if budget is not None:
        out["budget"] = {"max_d": fmt_fraction(budget.limit), "source": budget.source, "status": state}
    return out


def budget_diagnostic(m: MultiDiPA, r: MultiResult, lb: MultiBound | None, budget, state: str,
                      path: str | None, block: str) -> Diagnostic:
    """DP006 (a witness loses more than the budget) or DP005 (d above it, no witness beats it)."""
    from dslc.dipa import budget as budgets
    limit = budget.limit
    diag = budgets.budget_head(m, r.d, lb, budget, state)
    seen: set = set()
    for c in r.charges[:MAX_LABELS]:
        if c.cost:
            _add(diag, seen, m.transitions[c.transition].span, charge_text(m, c))
    diag.note(f"{budgets.interval_text(r.d, lb)}; the budget needs d ≤ {fmt_fraction(limit)}"
              + ("" if budget.source == "declaration" else " (from --max-d)"))
    if state == budgets.EXCEEDED:
        diag.note(f"the witness below shows a loss above {budget.text}, so no proof of the budget can "
                  f"exist: the block is not {budget.text}-differentially private")
        for note in event_notes(m, lb.event, path, block, f"lower bound d ≥ {lb.text}"):
            diag.note(note)
        diag.data["witness"] = event_json(m, lb.event, path, block)
    else:
        found = (f"the best lower bound found is d ≥ {lb.text}" if lb is not None and lb.event is not None
                 else "no lower bound above 0 was found")
        diag.note(f"d = {fmt_fraction(r.d)} is an upper bound (the shift coupling's cost, docs/multivariable.md) "
                  f"and may be loose; {found}, and no pair of adjacent inputs was found that loses more "
                  f"than {budget.text}")
        diag.note("search longer for such a pair with `--lower-bound-work N`")
    diag.with_help(budgets.fitting_rates(m, r.d, limit))
    return diag


def _step_name(m: MultiDiPA, e: int) -> str:
    """The target of transition e, with the line of a mechanism's transition."""
    t = m.transitions[e]
    name = m.states[t.target].name
    if m.kind == "mechanism" and t.span is not None:
        name += f" (line {t.span.start_line_col[0]})"
    return name


def _segments_text(m: MultiDiPA, segments) -> str:
    parts = []
    for _name, trans, repeated in segments:
        if not trans:
            continue
        names = " → ".join(_step_name(m, e) for e in trans)
        parts.append(f"[→ {names}]^n" if repeated else f"→ {names}")
    first = next((trans for _n, trans, _r in segments if trans), None)
    start = m.states[m.transitions[first[0]].source].name if first else "?"
    return start + " " + " ".join(parts)


def attach_witness(diag: Diagnostic, m: MultiDiPA, shown: ShownWitness, path: str | None, block: str,
                   program=None) -> None:
    """The witness's notes and JSON on its violation's diagnostic (presentation only)."""
    data = diag.data.setdefault("witness", {})
    w = shown.search
    if shown.event is None:
        data.update({"found": False, "reason": shown.reason})
        diag.note(f"no witness: {shown.reason}")
        return
    event = shown.event
    eps = event.epsilon
    segments = [{"name": n, "repeated": rep, "transitions": [m.describe(e) for e in trans]}
                for n, trans, rep in w.shape.segments]
    rows = [{"l": n, "log_ratio": a, "log_ratio_lower": b} for n, a, b in w.rows]
    data.update({"found": True, "path": _segments_text(m, w.shape.segments), "segments": segments,
                 "l": w.length, "table": rows, **event_json(m, event, path, block),
                 "exceeds_2_epsilon": True})
    diag.note(f"witness: the path {_segments_text(m, w.shape.segments)}, each bracketed part taken n times")
    table = ", ".join(f"n={n}: {a:.3g}" for n, a, _b in w.rows)
    diag.note(f"ln(Pr_α/Pr_β) of the path at ε = {fmt_fraction(eps)}: {table}")
    notes = event_notes(m, event, path, block, f"at n = {w.length} the loss exceeds 2ε = {fmt_fraction(2 * eps)}")
    if program is not None and m.kind == "mechanism":
        # what the program itself does on α and β with draws that follow the path
        from dslc.dipa.program_terms import fact_lines
        from dslc.dipa.witness import checked_run, run_note
        run, problem = checked_run(program, m, event.alpha, event.beta, eps)
        if run is not None:
            data["program_steps"] = fact_lines(run.facts)
            data["program_run"] = run.to_json()
            notes.insert(4, run_note(run))
        elif problem is not None:
            data["program_run_problem"] = problem
            notes.insert(4, problem)
    for note in notes:
        diag.note(note)


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
