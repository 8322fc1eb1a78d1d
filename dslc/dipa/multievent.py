"""Output events of automata with several stored variables, and their losses.

An observer of a run sees its outputs, not its path.  A DiPA with one
variable has output distinction, so an output sequence is one path; an
automaton with several variables may split one branch into pieces with the
same output (``insample < l`` and ``insample >= l && insample >= r``, both
`outside`), and an output sequence is then the event of all the paths that
print it.  Its probability is the sum of theirs (the paths are disjoint
events), each computed exactly with an error bound by
:func:`dslc.dipa.multiprob.path_probability`; the error bounds add.

Everything dslc prints about a witness of an automaton with several
variables — Pr_α, Pr_β, the loss, the `dslc prob` lines — is recomputed here
from the inputs and outputs alone, the way `dslc prob` replays them
(:func:`event_loss`), so a witness found on one path is only shown when its
output event loses as much.
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from dslc.dipa.lower_bound import check_adjacent
from dslc.dipa.paths import matching_paths, output_tokens
from dslc.dipa.prob import Probability, Step, TooExpensive

EVENT_BUDGET = 1_000_000      # terms carried by all the paths of one event


def event_probability(m, inputs: list[Fraction | None], outputs: list, epsilon: Fraction,
                      budget: int | None = EVENT_BUDGET) -> tuple[Probability, int]:
    """Pr[ε, outputs | inputs] and the number of paths it adds up.

    ``outputs`` in the parsed form of `dslc prob --outputs`
    (:func:`dslc.dipa.paths.parse_outputs`).  Raises PathTextError when no path
    fits, PathError as :func:`path_probability` does, TooExpensive when the
    paths together need more than ``budget`` terms."""
    from dslc.dipa.multiprob import path_probability
    paths = matching_paths(m, inputs, outputs)
    meter = [0]                     # the work of all the paths counts against one budget
    parts = []
    for steps in paths:
        left = None if budget is None else budget - meter[0]
        if left is not None and left <= 0:
            raise TooExpensive("the output event needs more work than its budget")
        parts.append(path_probability(m, steps, epsilon, budget=left, meter=meter))
    digits = max(pr.digits for pr in parts)
    # exact sums of the Decimals (no rounding: the error bounds stay those of the parts)
    ctx = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                          traps=[decimal.Inexact])
    total = error = Decimal(0)
    for pr in parts:
        total = ctx.add(total, pr.probability)
        error = ctx.add(error, pr.error)
    log = decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    return Probability(total, error, digits, log.ln(total) if total > 0 else None), len(paths)


def parsed_outputs(m, steps: list[Step]) -> list:
    """The outputs of a path in the parsed form of `dslc prob --outputs`."""
    out = []
    for s in steps:
        o = m.transitions[s.transition].output
        if o.is_real:
            out.append(s.interval or (None, None))
        else:
            out.append(o.symbol if o.symbol is not None else "")
    return out


def inputs_of(steps: list[Step]) -> list[Fraction]:
    return [s.input for s in steps if s.input is not None]


@dataclass
class EventLoss:
    """ln(Pr_α / Pr_β) of one output event at ε, recomputed from inputs and outputs."""
    epsilon: Fraction
    alpha: list[Step]              # a path of the event on α (for the printed inputs and outputs)
    beta: list[Step]
    outputs: list[str]             # as `dslc prob --outputs` writes them
    pr_alpha: Probability
    pr_beta: Probability
    paths: int                     # paths of the automaton with these outputs (on α)
    value: Decimal                 # ln Pr_α − ln Pr_β
    lower: Decimal                 # ln(Pr_α − err_α) − ln(Pr_β + err_β), rounded down

    def to_json(self) -> dict:
        from dslc.dipa.prob import fmt_probability
        from dslc.numbers import fmt_fraction
        return {"epsilon": fmt_fraction(self.epsilon),
                "alpha": [fmt_fraction(a) for a in inputs_of(self.alpha)],
                "beta": [fmt_fraction(a) for a in inputs_of(self.beta)],
                "outputs": self.outputs,
                "paths": self.paths,
                "pr_alpha": fmt_probability(self.pr_alpha.probability),
                "pr_beta": fmt_probability(self.pr_beta.probability),
                "error_alpha": f"{float(self.pr_alpha.error):.3g}",
                "error_beta": f"{float(self.pr_beta.error):.3g}",
                "log_ratio": float(self.value),
                "log_ratio_lower": float(self.lower)}


def event_loss(m, alpha: list[Step], beta: list[Step], epsilon: Fraction,
               budget: int | None = EVENT_BUDGET) -> EventLoss | None:
    """The loss of the output event of the path ``alpha`` (whose inputs on β are
    ``beta``'s), recomputed from the inputs and outputs alone; None when no
    finite lower end is proven (Pr_α's lower end or Pr_β's upper end is 0).
    Raises WitnessError when the inputs are not adjacent (sensitivity 1)."""
    check_adjacent(m, alpha, beta, Fraction(1))
    outs = parsed_outputs(m, alpha)
    pa, n = event_probability(m, inputs_of(alpha), outs, epsilon, budget)
    pb, _ = event_probability(m, inputs_of(beta), outs, epsilon, budget)
    ctx = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN, rounding=decimal.ROUND_FLOOR)
    low_a = ctx.subtract(pa.probability, pa.error)
    high_b = ctx.add(pb.probability, pb.error)
    if low_a <= 0 or high_b <= 0 or pa.log_probability is None or pb.log_probability is None:
        return None
    lower = ctx.subtract(ctx.subtract(ctx.ln(low_a), ctx.ln(high_b)), Decimal("1e-40"))
    return EventLoss(Fraction(epsilon), alpha, beta, output_tokens(m, alpha), pa, pb, n,
                     pa.log_probability - pb.log_probability, lower)


__all__ = ["EventLoss", "event_loss", "event_probability", "inputs_of", "parsed_outputs"]
