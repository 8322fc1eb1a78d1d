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
variables — Pr_α, Pr_β, the loss, the `dslc prob` lines — is computed by
:func:`event_probability` from the inputs and outputs alone
(:func:`dslc.dipa.multiprob.loss` calls it), the function `dslc prob`
replays them with.
"""

from __future__ import annotations

import decimal
from decimal import Decimal
from fractions import Fraction

from dslc.dipa.paths import MAX_MATCHING_PATHS, matching_paths
from dslc.dipa.prob import Probability, Step, TooExpensive
from dslc.ir.multi_dipa import merged_pieces

EVENT_BUDGET = 1_000_000      # terms carried by all the paths of one event


def event_probability(m, inputs: list[Fraction | None], outputs: list, epsilon: Fraction,
                      budget: int | None = EVENT_BUDGET, meter: list[int] | None = None,
                      limit: int = MAX_MATCHING_PATHS, merged: bool = False, **kw) -> tuple[Probability, int]:
    """Pr[ε, outputs | inputs] and the number of paths it adds up.

    ``outputs`` in the parsed form of `dslc prob --outputs`
    (:func:`dslc.dipa.paths.parse_outputs`).  The pieces of split branches are
    merged first (:func:`dslc.ir.multi_dipa.merged_pieces`: the union of the
    runs of g ∧ L and g ∧ ¬L is that of g, whatever the variable of L holds),
    so a split loop costs one path per turn, not two.  Raises PathTextError
    when no path fits or more than ``limit`` do, PathError as
    :func:`path_probability` does, TooExpensive when the paths together need
    more than ``budget`` terms (``meter`` counts them; ``kw`` goes to
    :func:`path_probability`)."""
    from dslc.dipa.multiprob import path_probability
    if not merged:                  # (``merged``: the caller passes m with its pieces merged already)
        m, _ = merged_pieces(m)
    paths = matching_paths(m, inputs, outputs, limit)
    meter = meter if meter is not None else [0]
    start = meter[0]
    parts = []
    for steps in paths:
        left = None if budget is None else budget - (meter[0] - start)
        if left is not None and left <= 0:
            raise TooExpensive("the output event needs more work than its budget")
        parts.append(path_probability(m, steps, epsilon, budget=left, meter=meter, **kw))
    digits = min(pr.digits for pr in parts)
    # exact sums of the Decimals (no rounding: the error bounds stay those of the parts)
    ctx = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                          traps=[decimal.Inexact])
    total = error = Decimal(0)
    for pr in parts:
        total = ctx.add(total, pr.probability)
        error = ctx.add(error, pr.error)
    log = decimal.Context(prec=max(digits, 28), Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
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


__all__ = ["event_probability", "inputs_of", "parsed_outputs"]
