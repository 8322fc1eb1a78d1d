"""The phases of `automaton` and `mechanism` blocks (called by dslc.pipeline).

- ``lower``: the syntax tree to the DiPA IR, then Definition 3 and the other
  semantic checks (E1xx);
- ``analyse``: well-formedness and d = Δ·wt(A) in linear time (Theorem 2,
  Lemma 3, Corollary 4 of the DiPA paper); for a private block a proven
  lower bound d_lower ≤ d* ≤ d from a searched witness
  (:mod:`dslc.dipa.lower_bound`), and its budget (:mod:`dslc.dipa.budget`);
  a checked witness for every violation when asked;
- ``report``: the block's verdict, summary and diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from dslc.diagnostics.model import DiagnosticError
from dslc.dipa.check import CheckResult, check
from dslc.dipa.diagnose import (critical_json, explain_labels, truncated_note, unreachable_diagnostic,
                                violation_diagnostic)
from dslc.ir.dipa import DiPA
from dslc.ir.lower_automaton import lower_automaton
from dslc.ir.validate import validate_dipa
from dslc.numbers import fmt_fraction
from dslc.results import BlockResult, Verdict
from dslc.syntax import ast

# JSON lists the critical transitions (``details.critical``) of a block with
# at most this many of them; above, only when asked (``Options.critical_list``,
# `--format json --explain`; docs/cli.md).
CRITICAL_LIST_MAX = 1000


def lower(block: ast.Block) -> tuple[DiPA | None, list]:
    if isinstance(block, ast.MechanismBlock):
        # discrete noise or a finite input domain: the bounded checker (docs/discrete.md)
        from dslc.ir.lower_mechanism_bounded import uses_discrete
        if uses_discrete(block):
            from dslc.bounded.discrete_backend import lower as lower_discrete
            return lower_discrete(block)
    if isinstance(block, ast.AutomatonBlock):
        dipa, diags = lower_automaton(block)
    else:
        from dslc.ir.lower_mechanism import lower_mechanism     # imported for mechanisms only
        try:
            dipa, diags = lower_mechanism(block)
        except DiagnosticError as exc:
            return None, exc.diagnostics
    if dipa is not None and not diags and isinstance(dipa, DiPA):   # several variables: checked in lowering
        diags = validate_dipa(dipa)
    return dipa, diags


@dataclass
class Analysis:
    check: CheckResult
    witnesses: list = field(default_factory=list)      # dslc.dipa.witness.Outcome per violation
    epsilon_problem: str | None = None
    upper: Fraction | None = None                      # d = Δ·wt(A) when well-formed
    lower: object = None                               # dslc.dipa.lower_bound.LowerBound
    budget: object = None                              # dslc.dipa.budget.Budget
    budget_status: str | None = None                   # "met", "exceeded", "not-proven"
    witness_notes: list[str] = field(default_factory=list)


def analyse(dipa: DiPA, options) -> Analysis:
    if not isinstance(dipa, DiPA) and type(dipa).__name__ == "DiscreteProgram":
        from dslc.bounded import discrete_backend
        return discrete_backend.analyse(dipa, options)
    if not isinstance(dipa, DiPA):            # several variables (dslc/dipa/multi_backend.py)
        from dslc.dipa import multi_backend
        return multi_backend.analyse(dipa, options)
    found = check(dipa)
    analysis = Analysis(found)
    if found.well_formed:
        _bounds(dipa, found, analysis, options)
    elif options.witness:
        from dslc.dipa.witness import build_witnesses, parse_epsilon_option
        epsilon, analysis.epsilon_problem = parse_epsilon_option(options.epsilon)
        if dipa.sensitivity < 1:
            analysis.witnesses = _witnesses_in_units_of_sensitivity(dipa, found, epsilon)
            analysis.witness_notes.append(
                f"adjacent inputs differ by at most the declared sensitivity "
                f"{fmt_fraction(dipa.sensitivity)}: the construction's steps of 1 are taken in "
                f"units of {fmt_fraction(dipa.sensitivity)}")
        else:
            analysis.witnesses = build_witnesses(dipa, found, epsilon)
    return analysis


def _bounds(dipa: DiPA, found: CheckResult, analysis: Analysis, options) -> None:
    """d = Δ·wt(A), the lower bound's search and the budget."""
    from dslc.dipa import budget as budgets
    from dslc.dipa import lower_bound
    upper = found.weight * dipa.sensitivity
    analysis.upper = upper
    budget = budgets.effective_budget(dipa, getattr(options, "max_d", None))
    analysis.budget = budget
    work = lower_bound.work_option(getattr(options, "lower_bound_work", None),
                                   getattr(options, "lower_bound_time", None))
    target = None
    if work is None:
        work = lower_bound.SEARCH_WORK
        if budget is not None and upper > budget.limit:
            work = lower_bound.BUDGET_SEARCH_WORK
    if budget is not None and upper > budget.limit:
        target = budget.limit
    analysis.lower = lower_bound.search(dipa, found, upper, work, target)
    if budget is not None:
        analysis.budget_status, analysis.lower = budgets.settle(upper, analysis.lower, budget)


def _witnesses_in_units_of_sensitivity(dipa: DiPA, found: CheckResult, epsilon) -> list:
    """Violation witnesses when adjacent inputs differ by at most Δ < 1: built on
    the automaton in units of Δ (rates ×Δ, means ÷Δ, the same probabilities for
    inputs ÷Δ), then written back in the block's units and checked again."""
    from dslc.dipa.prob import Step
    from dslc.dipa.witness import Instance, build_witnesses, show
    delta = dipa.sensitivity
    scaled = replace(dipa, states=[replace(s, d=s.d * delta, mu=s.mu / delta, d_prime=s.d_prime * delta,
                                           mu_prime=s.mu_prime / delta) for s in dipa.states])

    def back(step: Step) -> Step:
        iv = None if step.interval is None else tuple(None if v is None else v * delta for v in step.interval)
        return Step(step.transition, None if step.input is None else step.input * delta, iv)

    outcomes = build_witnesses(scaled, found, epsilon)
    for o in outcomes:
        if o.witness is None:
            continue
        inner = o.witness.builder
        o.witness.builder = lambda length, inner=inner: (
            lambda i: Instance(i.length, [back(s) for s in i.alpha], [back(s) for s in i.beta]))(inner(length))
        try:
            o.shown = show(dipa, o.witness)
        except Exception as exc:  # noqa: BLE001 - one bad witness must not lose the verdict
            o.witness, o.shown, o.problem = None, None, f"{type(exc).__name__}: {exc}"
    return outcomes


def report(dipa: DiPA, analysis: Analysis, result: BlockResult, options, path: str | None = None) -> None:
    if not isinstance(dipa, DiPA) and type(dipa).__name__ == "DiscreteProgram":
        from dslc.bounded import discrete_backend
        return discrete_backend.report(dipa, analysis, result, options, path)
    if not isinstance(dipa, DiPA):            # several variables (dslc/dipa/multi_backend.py)
        from dslc.dipa import multi_backend
        return multi_backend.report(dipa, analysis, result, options, path)
    found = analysis.check
    result.ir = dipa
    result.analysis = found
    result.details["states"] = len(dipa.states)
    result.details["transitions"] = len(dipa.transitions)
    if found.well_formed:
        from dslc.dipa import budget as budgets
        upper = analysis.upper if analysis.upper is not None else found.weight * dipa.sensitivity
        state = analysis.budget_status
        result.verdict = Verdict.PRIVATE
        result.d = upper
        result.summary = budgets.summary_line(upper, analysis.lower, analysis.budget, state)
        result.bounds = budgets.bounds_json(dipa, upper, analysis.lower, analysis.budget, state,
                                            path, result.name)
        if state in (budgets.EXCEEDED, budgets.NOT_PROVEN):
            result.verdict = Verdict.NOT_PRIVATE
            result.d = None
            result.diagnostics.append(budgets.budget_diagnostic(
                dipa, found, upper, analysis.lower, analysis.budget, state, path, result.name))
        if options.explain and analysis.lower is not None:
            from dslc.dipa.lower_bound import witness_notes
            result.features["lower_bound_notes"] = witness_notes(dipa, analysis.lower, path, result.name)
        if dipa.sensitivity != 1:
            result.details["sensitivity"] = fmt_fraction(dipa.sensitivity)
        # The per-transition lists are presentation for --explain and JSON;
        # they are skipped when the caller asks for neither, and JSON lists
        # the critical transitions of a large automaton only when asked
        # (its size then stays that of the verdict, not of the automaton).
        if options.explain:
            result.cost_labels = explain_labels(dipa, found)
        if options.details:
            count = len(found.critical_scaled)          # without building the Fractions of `critical`
            result.details["critical_count"] = count
            if options.critical_list or count <= CRITICAL_LIST_MAX:
                result.details["critical"] = critical_json(dipa, found)
    else:
        result.verdict = Verdict.NOT_PRIVATE
        result.summary = "not differentially private for any d: " + ", ".join(sorted(found.kinds))
        diags = [violation_diagnostic(dipa, v) for v in found.violations]
        result.diagnostics.extend(diags)
        if analysis.witnesses:
            from dslc.dipa.witness import attach
            for diag, outcome in zip(diags, analysis.witnesses):
                attach(diag, outcome, dipa, found.kinds, path, result.name, result.syntax)
                if analysis.epsilon_problem:
                    diag.note(analysis.epsilon_problem)
                for note in analysis.witness_notes:
                    diag.note(note)
        for kind, count in sorted(found.truncated.items()):
            last = [d for d in result.diagnostics if d.code == kind][-1]
            last.note(truncated_note(kind, count))
    warning = unreachable_diagnostic(dipa, found)
    if warning is not None:
        result.diagnostics.append(warning)
    result.details["weight"] = fmt_fraction(found.weight) if found.weight is not None else None
