"""Well-formedness of symbolic models, proved by z3.

Lowering leaves facts about symbolic probabilities as obligations (a row sums
to 1, an entry is ≥ 0, a secret has positive prior probability); each must
hold for *every* parameter value allowed by the `param` ranges and `assume`
lines.  A failed proof becomes an E2xx diagnostic that names parameter values
for which the fact is false.  The constraints themselves must be satisfiable
(E218), or every verdict would hold vacuously.
"""

from __future__ import annotations

import time

import z3

from dslc import limits
from dslc.bounded.interrupt import checkpoint
from dslc.diagnostics.model import Diagnostic, error
from dslc.ir.hmm import MarkovModel, Obligation, fmt
from dslc.bounded.smt import poly_to_z3, rv, solver_gave_up, z3_approx, z3_value

CODES = {"sum-one": "E205", "nonneg": "E206", "positive": "E209"}


class ValidationTimeout(Exception):
    """The time limit ran out before the model was shown well formed."""


def _undecided_result(s: z3.Solver, deadline: float) -> None:
    reason = solver_gave_up(s)          # Ctrl-C and the block's budget end the check here
    if "timeout" in reason or "canceled" in reason or time.perf_counter() >= deadline:
        raise ValidationTimeout(reason)


def _constraint(c, variables, ctx):
    left = poly_to_z3(c.left, variables, ctx)
    right = poly_to_z3(c.right, variables, ctx)
    return {"=": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
            ">": left > right, ">=": left >= right}[c.op]


def _values_text(m: z3.ModelRef, variables: dict[str, z3.ArithRef], used: set[str]) -> str:
    parts = []
    for name, var in variables.items():
        if name not in used:
            continue
        val = m.eval(var, model_completion=True)
        exact = z3_value(val)
        parts.append(f"{name} = {fmt(exact)}" if exact is not None
                     else f"{name} ≈ {float(z3_approx(val, 20)):.6g}")
    return ", ".join(parts)


def prove_obligations(model: MarkovModel, seconds: float = 20.0) -> list[Diagnostic]:
    if not model.symbolic_params:
        return []
    deadline = time.perf_counter() + seconds
    ctx = z3.Context()
    variables = {p: z3.Real(p, ctx) for p in model.symbolic_params}
    diags: list[Diagnostic] = []

    def solver():
        checkpoint()
        left = deadline - time.perf_counter()
        if left <= 0:
            raise ValidationTimeout("timeout")
        s = z3.SolverFor("QF_NRA", ctx=ctx)
        s.set("timeout", limits.current().remaining_ms(left))
        return s

    # The constraints must be satisfiable.
    s = solver()
    tracked = []
    for i, c in enumerate(model.constraints):
        label = z3.Bool(f"c{i}", ctx)
        s.assert_and_track(_constraint(c, variables, ctx), label)
        tracked.append((label, c))
    result = s.check()
    if result == z3.unsat:
        core = {str(x) for x in s.unsat_core()}
        spans = [c.span for label, c in tracked if str(label) in core] or [c.span for _, c in tracked]
        spans.sort(key=lambda sp: -sp.start)        # the latest constraint is the primary one
        d = error("E218", "the parameter constraints cannot all hold", spans[0],
                  "contradicts the other constraints")
        for sp in spans[1:]:
            if sp != spans[0]:
                d.secondary(sp, "together with this")
        d.with_help("every verdict would hold vacuously; relax a range or an `assume` line")
        return [d]
    if result == z3.unknown:
        _undecided_result(s, deadline)
        return [error("E224", "z3 could not decide whether the parameter constraints can hold",
                      model.constraints[0].span if model.constraints else model.name_span,
                      "undecided").with_help("simplify the `assume` lines")]

    base = [_constraint(c, variables, ctx) for c in model.constraints]
    for ob in model.obligations:
        expr = poly_to_z3(ob.poly, variables, ctx)
        bad = {"sum-one": expr != rv(1, ctx), "nonneg": expr < 0, "positive": expr <= 0}[ob.kind]
        s = solver()
        s.add(*base)
        s.add(bad)
        result = s.check()
        if result == z3.unsat:
            continue
        if result == z3.unknown:
            _undecided_result(s, deadline)
            diags.append(_undecided(ob))
            continue
        m = s.model()
        where = _values_text(m, variables, ob.poly.variables() or set(variables))
        value = m.eval(expr, model_completion=True)
        exact = z3_value(value)
        shown = fmt(exact) if exact is not None else f"≈ {float(z3_approx(value, 20)):.6g}"
        diags.append(_failed(ob, where, shown))
    return diags


def _failed(ob: Obligation, where: str, shown: str) -> Diagnostic:
    code = CODES[ob.kind]
    if ob.kind == "sum-one":
        d = error(code, f"{ob.what} does not always sum to 1: it is {shown} when {where}", ob.span,
                  f"sums to {ob.poly}")
        d.with_help("make the row sum to 1 for every allowed value, or add constraints (`param p in (0, 1)`, "
                    "`assume ...`) that exclude these values")
    elif ob.kind == "nonneg":
        d = error(code, f"{ob.what} can be negative: it is {shown} when {where}", ob.span,
                  f"`{ob.poly}` < 0 for some allowed values")
        d.with_help("restrict the parameter ranges (`param p in (0, 1/2)`) or add an `assume` line")
    else:
        d = error(code, f"{ob.what} can be 0: it is {shown} when {where}", ob.span,
                  "conditioning on a secret of probability 0 is undefined")
        d.with_help("use open ranges (`param p in (0, 1)`) or add an `assume` line that keeps it positive")
    return d


def _undecided(ob: Obligation) -> Diagnostic:
    what = {"sum-one": "sums to 1", "nonneg": "is never negative", "positive": "is always positive"}[ob.kind]
    return (error("E224", f"z3 could not prove that {ob.what} {what}", ob.span, "undecided")
            .with_help("simplify the expression or add constraints; dslc does not check models it cannot "
                       "show to be well formed"))
