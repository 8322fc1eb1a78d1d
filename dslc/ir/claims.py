"""The declarations of a DiPA block's header: `budget` and `sensitivity`.

    mechanism svt(T = 0) budget ε { … }
    automaton a sensitivity 2 budget 3/2 ε { … }

- ``budget B``: B is a non-negative rational multiple of ε, Dε; the block
  passes only if it is proven Dε-differentially private for every ε > 0
  (DP005/DP006 otherwise, docs/checker.md "Budgets").
- ``sensitivity Δ``: Δ is a positive rational; adjacent inputs differ by at
  most Δ (instead of 1), so every cost scales by Δ.

Both are evaluated exactly, with the block's parameters (a budget may be
written `budget 2*e1` for a parameter `e1 = ε/2`).  Each may appear once;
anything else is E125.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.ir.linear import NotLinear, Resolver, evaluate
from dslc.source import Span
from dslc.syntax import ast


@dataclass
class Claims:
    budget: Fraction | None = None          # D of `budget Dε`
    budget_span: Span | None = None         # the whole declaration
    sensitivity: Fraction = Fraction(1)
    sensitivity_span: Span | None = None


def lower_claims(claims: list[ast.Claim], resolve: Resolver) -> tuple[Claims, list[Diagnostic]]:
    out = Claims()
    diags: list[Diagnostic] = []
    seen: dict[str, ast.Claim] = {}
    for claim in claims:
        if claim.kind in ("input", "adjacent", "horizon"):
            diags.append(error("E158", f"`{claim.kind}` is for mechanisms checked by the bounded checker",
                               claim.span, "not for a DiP automaton")
                         .with_help("declare it on a `mechanism` block (docs/discrete.md)"))
            continue
        if claim.kind in seen:
            diags.append(error("E125", f"`{claim.kind}` is declared twice", claim.span, "declared again here")
                         .secondary(seen[claim.kind].span, "first declared here")
                         .with_help(f"keep one `{claim.kind}` declaration"))
            continue
        seen[claim.kind] = claim
        try:
            value = evaluate(claim.value, resolve)
        except NotLinear as exc:
            diags.append(_bad(claim, exc.reason))
            continue
        except DiagnosticError as exc:
            diags.extend(exc.diagnostics)
            continue
        if claim.kind == "budget":
            if value.const != 0 or value.input != 0:
                diags.append(_bad(claim, "it is not a multiple of ε"))
            elif value.eps < 0:
                diags.append(_bad(claim, "it is negative"))
            else:
                out.budget, out.budget_span = value.eps, claim.span
        else:
            if value.eps != 0 or value.input != 0:
                diags.append(_bad(claim, "it depends on ε" if value.eps != 0 else "it is not a constant"))
            elif value.const <= 0:
                diags.append(_bad(claim, "it is not positive"))
            else:
                out.sensitivity, out.sensitivity_span = value.const, claim.span
    return out, diags


def _bad(claim: ast.Claim, reason: str) -> Diagnostic:
    text = claim.value.span.text
    if claim.kind == "budget":
        diag = error("E125", f"a budget is a non-negative multiple of ε, but `{text}` is not",
                     claim.value.span, reason)
        diag.note("`budget Dε` asks the checker to prove the block Dε-differentially private for every ε")
        diag.with_help(f"write e.g. `budget ε` or `budget 3/2 ε`" +
                       (f" (for d = {text}: `budget {text} ε`)" if reason == "it is not a multiple of ε"
                        and text.replace("/", "").replace(".", "").isdigit() else ""))
        return diag
    diag = error("E125", f"a sensitivity is a positive number, but `{text}` is not", claim.value.span, reason)
    diag.note("`sensitivity Δ` says that adjacent inputs differ by at most Δ (1 when not declared)")
    diag.with_help("write e.g. `sensitivity 2` or `sensitivity 1/2`")
    return diag
