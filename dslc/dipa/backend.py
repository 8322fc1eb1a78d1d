"""The phases of `automaton` and `mechanism` blocks (called by dslc.pipeline).

- ``lower``: the syntax tree to the DiPA IR, then Definition 3 and the other
  semantic checks (E1xx);
- ``analyse``: well-formedness and d = wt(A) in linear time (Theorem 2,
  Lemma 3, Corollary 4 of the DiPA paper), and a checked witness for every
  violation when asked;
- ``report``: the block's verdict, summary and diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dslc.diagnostics.model import DiagnosticError
from dslc.dipa.check import CheckResult, check
from dslc.dipa.diagnose import (critical_json, explain_labels, summary_line, truncated_note,
                                unreachable_diagnostic, violation_diagnostic)
from dslc.ir.dipa import DiPA
from dslc.ir.lower_automaton import lower_automaton
from dslc.ir.lower_mechanism import lower_mechanism
from dslc.ir.validate import validate_dipa
from dslc.numbers import fmt_fraction
from dslc.results import BlockResult, Verdict
from dslc.syntax import ast


def lower(block: ast.Block) -> tuple[DiPA | None, list]:
    if isinstance(block, ast.AutomatonBlock):
        dipa, diags = lower_automaton(block)
    else:
        try:
            dipa, diags = lower_mechanism(block)
        except DiagnosticError as exc:
            return None, exc.diagnostics
    if dipa is not None and not diags:
        diags = validate_dipa(dipa)
    return dipa, diags


@dataclass
class Analysis:
    check: CheckResult
    witnesses: list = field(default_factory=list)      # dslc.dipa.witness.Outcome per violation
    epsilon_problem: str | None = None


def analyse(dipa: DiPA, options) -> Analysis:
    found = check(dipa)
    analysis = Analysis(found)
    if not found.well_formed and options.witness:
        from dslc.dipa.witness import build_witnesses, parse_epsilon_option
        epsilon, analysis.epsilon_problem = parse_epsilon_option(options.epsilon)
        analysis.witnesses = build_witnesses(dipa, found, epsilon)
    return analysis


def report(dipa: DiPA, analysis: Analysis, result: BlockResult, options, path: str | None = None) -> None:
    found = analysis.check
    result.ir = dipa
    result.analysis = found
    result.details["states"] = len(dipa.states)
    result.details["transitions"] = len(dipa.transitions)
    if found.well_formed:
        result.verdict = Verdict.PRIVATE
        result.d = found.weight
        result.summary = summary_line(dipa, found.weight)
        # The per-transition lists are presentation for --explain and JSON;
        # they are skipped when the caller asks for neither (large automata).
        if options.explain:
            result.cost_labels = explain_labels(dipa, found)
        if options.details:
            result.details["critical"] = critical_json(dipa, found)
    else:
        result.verdict = Verdict.NOT_PRIVATE
        result.summary = "not differentially private for any d: " + ", ".join(sorted(found.kinds))
        diags = [violation_diagnostic(dipa, v) for v in found.violations]
        result.diagnostics.extend(diags)
        if analysis.witnesses:
            from dslc.dipa.witness import attach
            for diag, outcome in zip(diags, analysis.witnesses):
                attach(diag, outcome, dipa, found.kinds, path, result.name)
                if analysis.epsilon_problem:
                    diag.note(analysis.epsilon_problem)
        for kind, count in sorted(found.truncated.items()):
            last = [d for d in result.diagnostics if d.code == kind][-1]
            last.note(truncated_note(kind, count))
    warning = unreachable_diagnostic(dipa, found)
    if warning is not None:
        result.diagnostics.append(warning)
    result.details["weight"] = fmt_fraction(found.weight) if found.weight is not None else None
