"""The DiPA backend: `automaton` and `mechanism` blocks.

Lower to the IR, validate Definition 3, decide well-formedness and compute
d = wt(A) (Theorem 2, Lemma 3, Corollary 4 of the DiPA paper).
"""

from __future__ import annotations

from dslc.diagnostics.model import DiagnosticError
from dslc.dipa.check import check
from dslc.dipa.diagnose import (critical_json, explain_labels, summary_line, truncated_note,
                                unreachable_diagnostic, violation_diagnostic)
from dslc.ir.dipa import DiPA, fmt_fraction
from dslc.ir.lower_automaton import lower_automaton
from dslc.ir.lower_mechanism import lower_mechanism
from dslc.ir.validate import validate_dipa
from dslc.results import BlockResult, Verdict
from dslc.source import SourceFile
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


def check_dipa_block(block: ast.Block, source: SourceFile, options: dict | None = None) -> BlockResult:
    result = BlockResult(block.name, block.kind, block.name_span, Verdict.ERROR)
    result.artifacts["ast"] = block
    dipa, diags = lower(block)
    if diags or dipa is None:
        result.diagnostics.extend(diags)
        if dipa is not None:
            result.artifacts["dipa"] = dipa
        return result
    return check_lowered(dipa, result, options or {}, path=source.path)


def check_lowered(dipa: DiPA, result: BlockResult, options: dict | None = None,
                  path: str | None = None) -> BlockResult:
    options = options or {}
    found = check(dipa)
    result.artifacts["dipa"] = dipa
    result.artifacts["check"] = found
    warning = unreachable_diagnostic(dipa, found)
    result.extra["states"] = len(dipa.states)
    result.extra["transitions"] = len(dipa.transitions)
    if found.well_formed:
        result.verdict = Verdict.PRIVATE
        result.d = found.weight
        result.summary = summary_line(dipa, found.weight)
        # The per-transition lists are presentation for --explain and JSON;
        # they are skipped when the caller asks for neither (large automata).
        if options.get("explain", True):
            result.explain = explain_labels(dipa, found)
        if options.get("details", True):
            result.extra["critical"] = critical_json(dipa, found)
    else:
        result.verdict = Verdict.NOT_PRIVATE
        kinds = sorted(found.kinds)
        result.summary = "not differentially private for any d: " + ", ".join(kinds)
        for v in found.violations:
            result.diagnostics.append(violation_diagnostic(dipa, v))
        if options.get("witness"):
            # Counterexamples: adjacent inputs and their privacy loss (issue 3).
            from dslc.dipa.witness import attach_witnesses
            attach_witnesses(dipa, found, result, options, path=path)
        for kind, count in sorted(found.truncated.items()):
            last = [d for d in result.diagnostics if d.code == kind][-1]
            last.note(truncated_note(kind, count))
    if warning is not None:
        result.diagnostics.append(warning)
    result.extra["weight"] = fmt_fraction(found.weight) if found.weight is not None else None
    return result

