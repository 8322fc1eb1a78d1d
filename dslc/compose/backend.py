"""The phases of `release` blocks (and the `import` lines, read by the pipeline).

- ``lower_in_file``: the release's calls resolved in its file's module
  (:mod:`dslc.compose.program`) to a :class:`~dslc.compose.release.ReleaseIR`;
- ``analyse``: each call instantiated and checked, then composed
  (:func:`dslc.compose.release.analyse_release`);
- ``report``: the verdict, the budget's use, per-call costs and the
  diagnostics (DP005/DP006 at the call that overflows, DP030).
"""

from __future__ import annotations

from dslc.compose import release as rel
from dslc.compose.inline import Inlined
from dslc.compose.program import module_of, module_path
from dslc.diagnostics.model import Diagnostic, Label, error
from dslc.dipa.lower_bound import fmt_decimal
from dslc.numbers import fmt_fraction, fmt_rate
from dslc.results import BlockResult, Verdict
from dslc.source import SourceFile
from dslc.syntax import ast


def lower(block: ast.Block):
    """Without its file a release cannot be resolved (the pipeline calls
    :func:`lower_in_file`)."""
    raise NotImplementedError("release blocks are lowered with lower_in_file")


def lower_in_file(block: ast.Block, source: SourceFile, options):
    if isinstance(block, ast.ImportDecl):        # pragma: no cover - the pipeline reads imports itself
        return None, []
    module = module_of(source)
    ir, diags = rel.lower_release(block, module)
    if ir is not None:
        from dslc.compose.project import BudgetConfigError, project_budget
        try:
            found = project_budget(source.path)
        except BudgetConfigError as exc:
            return None, [error("E178", str(exc), block.name_span, "the project's budget applies to this release")
                          .with_help('write e.g. `[tool.dslc]` `budget = "1ε"` in pyproject.toml')]
        ir.project_budget = (found.limit, found.path) if found is not None else None
    return ir, diags


def analyse(ir: rel.ReleaseIR, options) -> rel.Composition:
    return rel.analyse_release(ir, options, getattr(ir, "project_budget", None))


def _budget_where(b: rel.ReleaseBudget) -> str:
    if b.source == "declaration":
        return f"its budget {b.text}"
    if b.source == "project":
        return f"the project's budget {b.text}"
    return f"--max-d {fmt_fraction(b.limit)}"


def _lower_text(c: rel.CallIR) -> str:
    v = c.d_lower
    return fmt_decimal(v) if v is not None else "–"


def report(ir: rel.ReleaseIR, comp: rel.Composition, result: BlockResult, options, path: str | None = None) -> None:
    result.ir = ir
    result.analysis = comp
    result.details["calls"] = len(ir.calls())
    if comp.failed:
        whys = {why for _, _, why in comp.failed}
        result.verdict = (Verdict.ERROR if "errors" in whys else Verdict.NOT_PRIVATE if "not-private" in whys
                          else Verdict.UNKNOWN)
        for c, diags, why in comp.failed:
            if why == "errors":
                first = diags[0] if diags else None
                diag = error("E175", f"`{c.callee}` cannot be instantiated by this call"
                             + (f": {first.message}" if first is not None else ""), c.span, "this call")
                diag.secondary(c.definition.span, "defined here")
                if first is not None and first.span is not None and first.span.file is not c.span.file:
                    diag.secondary(first.span, first.labels[0].message if first.labels else "")
                diag.with_help("check the arguments; the callee's own report shows its errors")
            elif why == "unknown":
                diag = Diagnostic("DP010", f"no verdict for `{c.callee}` (several variables), so none for "
                                           f"the release")
                diag.labels.append(Label(c.span, "this call has no proven cost", primary=True))
                diag.secondary(c.definition.span, "defined here")
                diag.note(c.analysis.check.reason)
                diag.with_help(f"`dslc check` on the file of `{c.callee}` shows why")
            else:
                found = c.analysis.check
                diag = Diagnostic("DP030", f"`{c.callee}` is not differentially private "
                                           f"({', '.join(sorted(found.kinds))}), so the release is not either")
                diag.labels.append(Label(c.span, "this call has no proven cost", primary=True))
                diag.secondary(c.definition.span, "defined here")
                diag.note("composition adds the proven constants of the calls; this call has none")
                diag.with_help(f"fix `{c.callee}` first: `dslc check` on its file shows why")
            result.diagnostics.append(diag)
        result.summary = {Verdict.NOT_PRIVATE: "not differentially private: a call is not",
                          Verdict.UNKNOWN: "unknown: a call has no verdict"}.get(result.verdict,
                                                                               "a call could not be instantiated")
        _editor_features(ir, result)
        return
    total, b = comp.d, comp.budget
    result.d = total
    result.verdict = Verdict.PRIVATE
    result.bounds = {
        "d_upper": fmt_fraction(total),
        "d_lower": fmt_decimal(comp.d_lower) if comp.d_lower is not None else None,
        "calls": [_call_json(c, ir) for c in ir.calls()],
        "budget": ({"max_d": fmt_fraction(b.limit), "source": b.source, "status": comp.status,
                    "used": fmt_fraction(total / b.limit) if b.limit else None}
                   | ({"file": b.project_file} if b.project_file else {})) if b is not None else None,
        "inlined": _inlined_json(comp.inlined) if comp.inlined is not None else None,
    }
    if comp.inlined is not None:
        result.features["release_notes"] = [_inlined_note(comp.inlined)]
    lower = f", d ≥ {fmt_decimal(comp.d_lower)}" if comp.d_lower is not None else ""
    composed = f"{fmt_rate(total)}-differentially private for every ε > 0 by composition of " \
               f"{len(ir.calls())} call{'s' if len(ir.calls()) != 1 else ''} (d = {fmt_fraction(total)}{lower})"
    if b is None:
        result.summary = composed
    elif comp.status == "met":
        share = f" ({fmt_percent(total / b.limit)})" if b.limit else ""
        result.summary = f"{composed}; uses {fmt_rate(total) if total else '0'} of {_budget_where(b)}{share}"
    else:
        result.verdict = Verdict.NOT_PRIVATE
        result.d = None
        what = "exceeds" if comp.status == "exceeded" else "not proven within"
        result.summary = f"{what} {_budget_where(b)}: the calls cost d = {fmt_fraction(total)}{lower}"
        result.diagnostics.append(_budget_diagnostic(ir, comp))
    result.cost_labels = _cost_labels(ir, comp)
    _editor_features(ir, result)


def _editor_features(ir: rel.ReleaseIR, result: BlockResult) -> None:
    """Hover on a call's name: the callee, its d and the call's cost; the
    language server's go-to-definition follows ``definitions`` into the
    callee's file."""
    hovers, definitions = [], []
    for c in ir.calls():
        where = module_path(c.definition.module.source)
        text = f"**{c.definition.chunk.keyword}** `{c.callee}` from {where}"
        if c.d is not None:
            text += (f"\n\nproven d = {fmt_fraction(c.d / c.share)}; called with {fmt_rate(c.share)}: "
                     f"costs d·share = {fmt_fraction(c.d)} (lower bound {_lower_text(c)})")
        hovers.append((c.callee_span, text))
        definitions.append((c.callee_span, c.definition.span))
    result.features["hover"] = hovers
    result.features["definitions"] = definitions


def fmt_percent(q) -> str:
    pct = q * 100
    return f"{fmt_fraction(pct)}%" if pct.denominator == 1 else f"{float(pct):.1f}%".replace(".0%", "%")


def _call_json(c: rel.CallIR, ir: rel.ReleaseIR) -> dict:
    lb = c.lower
    return {
        "callee": c.callee,
        "defined_in": module_path(c.definition.module.source),
        "share": fmt_fraction(c.share),
        "group": ir.steps[c.group].partition if c.group is not None else None,
        "d_callee": fmt_fraction(c.d / c.share),
        "d": fmt_fraction(c.d),
        "d_lower": fmt_decimal(c.d_lower) if c.d_lower is not None else None,
        "tight": bool(lb is not None and lb.tight(c.d)),
        "line": c.span.start_line_col[0] if c.span is not None else None,
    }


def _inlined_json(x: Inlined) -> dict:
    def num(q):
        return fmt_fraction(q) if q is not None else None
    return {"d": num(x.d), "composed": num(x.composed), "below_composed": x.below_composed, "calls": x.calls,
            "groups_added": num(x.groups_added), "states": x.states, "variables": x.variables, "reason": x.reason}


def _inlined_note(x: Inlined) -> str:
    """The release's note on its calls run as one automaton (docs/composition.md)."""
    if x.d is None:
        return f"not inlined as one automaton: {x.reason}"
    k, v = len(x.calls), x.variables
    what = f"inlined as one automaton ({k} calls in order, {x.states} states, {v} stored variable{'s' * (v != 1)})"
    if x.groups_added is not None:
        what += f" plus {fmt_fraction(x.groups_added)} for the groups `on disjoint`"
    compared = (f"below the composed {fmt_fraction(x.composed)}" if x.below_composed
                else "equal to the composed sum")
    return f"{what}: d = {fmt_fraction(x.d)}, {compared}"


def _cost_labels(ir: rel.ReleaseIR, comp: rel.Composition) -> list[Label]:
    """One label per call (its cost d·share and lower bound) and per group (its maximum)."""
    labels = []
    for s, cost in zip(ir.steps, comp.step_costs):
        if isinstance(s, rel.GroupIR):
            labels.append(Label(s.keyword_span, f"parallel composition: the largest call costs {fmt_fraction(cost)}"))
        for c in (s.calls if isinstance(s, rel.GroupIR) else [s]):
            base = fmt_fraction(c.d / c.share)
            labels.append(Label(c.span, f"cost {base}·{fmt_fraction(c.share)} = {fmt_fraction(c.d)}"
                                        f" (lower bound {_lower_text(c)})"))
    return labels


def _budget_diagnostic(ir: rel.ReleaseIR, comp: rel.Composition) -> Diagnostic:
    b, total, c = comp.budget, comp.d, comp.overflow
    limit = b.limit
    if comp.status == "exceeded":
        lb = c.lower.shown_above(limit)
        w = lb.witness
        diag = Diagnostic("DP006", f"budget exceeded: the call of `{c.callee}` alone loses more than "
                                   f"{b.text} (at least {lb.text}·ε at ε = {fmt_fraction(w.epsilon)})")
        at = "its witness alone is above the budget"
    else:
        diag = Diagnostic("DP005", f"budget not proven: release `{ir.name}` costs {fmt_rate(total)}, "
                                   f"not at most {b.text}")
        at = "the calls up to here cost more than the budget"
    diag.labels.append(Label(c.span, f"{at} ({fmt_fraction(c.d)} here)", primary=True))
    if b.span is not None:
        diag.labels.append(Label(b.span, f"the budget: d ≤ {fmt_fraction(limit)}"))
    elif b.source == "project":
        diag.labels.append(Label(ir.span, f"the project's budget d ≤ {fmt_fraction(limit)} applies"))
    costs = " + ".join(fmt_fraction(x) for x in comp.step_costs)
    diag.note(f"sequential composition adds the costs of the calls (a group `on disjoint` costs its "
              f"largest call): {costs} = {fmt_fraction(total)} > {fmt_fraction(limit)}"
              + (f" (from {b.project_file})" if b.project_file else ""))
    if comp.status == "exceeded":
        diag.note(f"the release's output includes this call's, so it loses at least as much: the release is not "
                  f"{b.text}-differentially private")
    else:
        diag.note("d is an upper bound; no call was found that alone loses more than the budget")
    diag.with_help(rel.rebalanced(ir, total, limit))
    return diag
