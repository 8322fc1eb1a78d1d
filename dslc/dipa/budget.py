"""Privacy budgets of DiPA blocks: the two-sided bound on d and its verdict.

A private block gets d_lower ≤ d* ≤ d, where d = Δ·wt(A) is the checker's
proven upper bound (Δ the declared sensitivity) and d_lower comes from a
checked witness (:mod:`dslc.dipa.lower_bound`).  A budget D — declared with
`budget Dε` or given as `dslc check --max-d D` — is

- *met* when d ≤ D (the block is proven Dε-private for every ε);
- *exceeded* (DP006) when d_lower > D: a concrete pair of adjacent inputs
  loses more than Dε at some ε, so no proof can exist;
- *not proven* (DP005) otherwise: d > D, and no witness beats D.

Both failures are errors: the block's verdict is "not-private" and the exit
status 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, Label
from dslc.dipa.check import CheckResult
from dslc.dipa.lower_bound import LowerBound, fmt_decimal, witness_json, witness_notes
from dslc.ir.dipa import DiPA, OutKind, fmt_fraction, fmt_rate
from dslc.source import Span

MET, EXCEEDED, NOT_PROVEN = "met", "exceeded", "not-proven"
MAX_COST_LABELS = 6


@dataclass
class Budget:
    limit: Fraction               # D
    source: str                   # "declaration" or "--max-d"
    span: Span | None             # the declaration (None for --max-d)

    @property
    def text(self) -> str:
        """`ε`, `3ε/2`, or `0`."""
        return fmt_rate(self.limit) if self.limit else "0"

    @property
    def where(self) -> str:
        return "its budget" if self.source == "declaration" else "--max-d"


def effective_budget(dipa: DiPA, max_d: Fraction | None) -> Budget | None:
    """The tighter of the block's declaration and ``--max-d`` (a tie goes to the declaration)."""
    declared = Budget(dipa.budget, "declaration", dipa.budget_span) if dipa.budget is not None else None
    flag = Budget(Fraction(max_d), "--max-d", None) if max_d is not None else None
    if declared is None or (flag is not None and flag.limit < declared.limit):
        return flag
    return declared


def status(upper: Fraction, lb: LowerBound | None, budget: Budget) -> str:
    """Compares the exact bounds with D: the upper bound d, and the witness's
    verified lower bound before it is rounded for printing."""
    if upper <= budget.limit:
        return MET
    if lb is not None and lb.exceeds(budget.limit):
        return EXCEEDED
    return NOT_PROVEN


def settle(upper: Fraction, lb: LowerBound | None, budget: Budget) -> tuple[str, LowerBound | None]:
    """The budget's status, and the lower bound as it is printed: with as many
    digits as it takes to show that it exceeds D when it does."""
    state = status(upper, lb, budget)
    if state == EXCEEDED:
        lb = lb.shown_above(budget.limit)
    return state, lb


# ---------------------------------------------------------------------------
# text

def interval_text(upper: Fraction, lb: LowerBound | None) -> str:
    """`d ∈ [0.999, 1] (tight)`, `d ≤ 1 (lower bound not searched: …)`."""
    d = fmt_fraction(upper, short=True)
    if lb is not None and lb.problem:
        return f"d ≤ {d} (no lower bound: an internal problem, please report it: {lb.problem})"
    if lb is None or not lb.searched:
        why = f" (lower bound {lb.reason})" if lb is not None and lb.reason else ""
        return f"d ≤ {d}{why}"
    if lb.witness is None:
        # "d ∈ [0, …]" is true but says nothing: say what the search did instead
        if lb.spent:
            return f"d ≤ {d} (no lower bound above 0 found with the work given; see --lower-bound-work)"
        return f"d ≤ {d} (no lower bound above 0 found)"
    text = f"d ∈ [{lb.text}, {d}]"
    if lb.tight(upper):
        text += " (tight)"
    return text


def summary_line(upper: Fraction, lb: LowerBound | None, budget: Budget | None, state: str | None) -> str:
    if upper == 0:
        text = "differentially private for every ε > 0 with d = 0 (no critical transition costs anything)"
    elif state in (EXCEEDED, NOT_PROVEN):
        what = "exceeds" if state == EXCEEDED else "not proven within"
        target = f"{budget.where} {budget.text}" if budget.source == "declaration" \
            else f"--max-d {fmt_fraction(budget.limit)}"
        return f"{what} {target}: {interval_text(upper, lb)}"
    else:
        text = f"{fmt_rate(upper)}-differentially private for every ε > 0 with {interval_text(upper, lb)}"
    if budget is not None and state == MET:
        text += (f", within its budget {budget.text}" if budget.source == "declaration"
                 else f", within --max-d {fmt_fraction(budget.limit)}")
    return text


# ---------------------------------------------------------------------------
# JSON

def bounds_json(dipa: DiPA, upper: Fraction, lb: LowerBound | None, budget: Budget | None,
                state: str | None, path: str | None, block: str) -> dict:
    out: dict = {"d_upper": fmt_fraction(upper)}
    if lb is not None and lb.searched and not lb.problem:
        out["d_lower"] = fmt_decimal(lb.value)
        out["d_lower_witness"] = witness_json(dipa, lb.witness, path, block) if lb.witness else None
        out["tight"] = lb.tight(upper)
    else:
        out["d_lower"] = None
        out["d_lower_witness"] = None
        out["tight"] = upper == 0
    if dipa.sensitivity != 1:
        out["sensitivity"] = fmt_fraction(dipa.sensitivity)
    if budget is not None:
        out["budget"] = {"max_d": fmt_fraction(budget.limit), "source": budget.source, "status": state}
    return out


# ---------------------------------------------------------------------------
# diagnostics

def cost_text(dipa: DiPA, e: int, cost: Fraction) -> str:
    """cost(t) with its formula: `2d = 2·3/4 = 3/2`, times Δ when declared."""
    t = dipa.transitions[e]
    s = dipa.states[t.source]
    if s.is_input:
        formula = f"2d = 2·{fmt_fraction(s.d)}"
        if t.output.kind is OutKind.INSAMPLE_PRIME:
            formula = f"2d + d′ = 2·{fmt_fraction(s.d)} + {fmt_fraction(s.d_prime)}"
    else:
        formula = f"d = {fmt_fraction(s.d)}"
    delta = dipa.sensitivity
    if delta != 1:
        formula = f"Δ·({formula}) with Δ = {fmt_fraction(delta)}"
        cost = cost * delta
    if formula.endswith(f"= {fmt_fraction(cost)}") or formula == f"d = {fmt_fraction(cost)}":
        return formula
    return f"{formula} = {fmt_fraction(cost)}"


def budget_head(block, upper: Fraction, lb, budget: Budget, state: str) -> Diagnostic:
    """DP006 or DP005 with its message and the budget's label, for any block with a
    ``name`` and ``span`` (one variable or several) and a lower bound whose
    ``witness`` has an ``epsilon``."""
    limit = budget.limit
    if state == EXCEEDED:
        diag = Diagnostic("DP006", f"budget exceeded: adjacent inputs of `{block.name}` lose more than "
                                   f"{budget.text} (at least {lb.text}·ε at ε = {fmt_fraction(lb.witness.epsilon)})")
    else:
        diag = Diagnostic("DP005", f"budget not proven: `{block.name}` is proven {fmt_rate(upper)}-private, "
                                   f"not {budget.text}-private")
    if budget.span is not None:
        diag.labels.append(Label(budget.span, f"the budget: d ≤ {fmt_fraction(limit)}", primary=True))
    elif block.span is not None:
        diag.labels.append(Label(block.span, f"--max-d {fmt_fraction(limit)} applies to this block",
                                 primary=True))
    return diag


def budget_diagnostic(dipa: DiPA, found: CheckResult, upper: Fraction, lb: LowerBound | None,
                      budget: Budget, state: str, path: str | None, block: str) -> Diagnostic:
    limit = budget.limit
    diag = budget_head(dipa, upper, lb, budget, state)
    # the transitions that make up d, and those that alone exceed the budget
    costs = dict(found.critical)
    heavy = [e for e in found.heaviest]
    alone = [e for e, c in found.critical if c * dipa.sensitivity > limit and e not in heavy]
    shown = 0
    for e in heavy + alone:
        t = dipa.transitions[e]
        if t.span is None or shown >= MAX_COST_LABELS or costs[e] == 0:
            continue
        cost = costs[e] * dipa.sensitivity
        text = f"cost {cost_text(dipa, e, costs[e])}"
        if cost > limit:
            text += f", alone above the budget {fmt_fraction(limit)}"
        elif e in heavy:
            text += " (on the heaviest path)"
        diag.labels.append(Label(t.span, text))
        shown += 1
    d_text = fmt_fraction(upper)
    diag.note(f"{interval_text(upper, lb)}; the budget needs d ≤ {fmt_fraction(limit)}"
              + ("" if budget.source == "declaration" else " (from --max-d)"))
    if state == EXCEEDED:
        diag.note(f"the witness below shows a loss above {budget.text}, so no proof of the budget can "
                  f"exist: the block is not {budget.text}-differentially private")
        for note in witness_notes(dipa, lb, path, block):
            diag.note(note)
        diag.data["witness"] = witness_json(dipa, lb.witness, path, block)
    else:
        found_text = (f"the best lower bound found is d ≥ {lb.text}" if lb is not None and lb.searched
                      else "no lower bound was searched")
        diag.note(f"d = {d_text} is an upper bound (the cost of the heaviest path, Lemma 3 of the DiPA "
                  f"paper) and may be loose; {found_text}, and no pair of adjacent inputs was found "
                  f"that loses more than {budget.text}")
        diag.note("search longer for such a pair with `--lower-bound-work N`")
    diag.with_help(fitting_rates(dipa, upper, limit))
    return diag


def fitting_rates(dipa: DiPA, upper: Fraction, limit: Fraction) -> str:
    """The help line: the rates that would fit the budget (every rate scaled by D/d)."""
    if limit == 0:
        return "only a block whose critical transitions cost nothing meets a budget of 0"
    k = limit / upper
    seen: list[tuple[str, Fraction]] = []
    for s in dipa.states:
        for span, d in ((s.draw_span, s.d), (s.prime_span, s.d_prime)):
            if span is None or d == 0:
                continue
            item = (span.text, d)
            if item not in seen:
                seen.append(item)
    parts = [f"`{text}` → rate {fmt_rate(d * k)}" for text, d in seen[:4]]
    more = f" (and {len(seen) - 4} more)" if len(seen) > 4 else ""
    head = f"to fit the budget, multiply every rate by {fmt_fraction(k)}"
    if parts:
        return f"{head}: " + ", ".join(parts) + more
    return head
