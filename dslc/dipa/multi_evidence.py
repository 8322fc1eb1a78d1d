"""The evidence dslc prints for blocks with several stored variables: the lower
bound d_lower of a private block and the witness of each violation
(docs/multivariable.md, "Evidence").

The searches are :mod:`dslc.dipa.multiprob`'s (bounded by counted work).
What dslc prints is an *output event*: the inputs α, β and the outputs, whose
probabilities are the sums over every path that prints those outputs
(:mod:`dslc.dipa.multievent`, the function `dslc prob` replays them with),
recomputed at full precision by ``multiprob.verify`` after the search.  A
number is printed only when that recomputation proves it:

- d_lower is the event loss's proven lower end over ε, rounded down; a
  witness loss above the proven d is a contradiction
  (``MultiBound.contradiction``: the block's verdict becomes "unknown"), never
  printed as a bound;
- a violation's witness is shown only when the recomputed loss's lower end
  exceeds 2ε; otherwise the diagnostic says that no witness was found.

This module computes; :mod:`dslc.dipa.multi_backend` writes the text.
"""

from __future__ import annotations

import decimal
import os
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from dslc import limits
from dslc.dipa.lower_bound import SIGNIFICANT, TIGHT, TIME_RAN_OUT, fmt_decimal, round_down, round_down_above
from dslc.dipa.multiprob import Loss
from dslc.dipa.prob import TooExpensive
from dslc.ir.multi_dipa import MultiDiPA


@dataclass
class MultiBound:
    """d_lower for a private block with several variables, with the protocol of
    :class:`dslc.dipa.lower_bound.LowerBound` that :mod:`dslc.dipa.budget` reads."""
    value: Decimal = Decimal(0)          # d_lower, rounded down (printed)
    event: Loss | None = None            # the witness, an output event (None: no bound above 0)
    searched: bool = True
    reason: str | None = None
    spent: bool = False
    problem: str | None = None            # an internal problem: no bound (the verdict stands)
    contradiction: str | None = None      # a proven loss above the proven d: the verdict cannot stand
    work: int = 0

    @property
    def witness(self) -> Loss | None:
        return self.event

    @property
    def exact(self) -> Fraction:
        """The proven bound before rounding: the event loss's lower end over ε."""
        if self.event is None:
            return Fraction(0)
        return Fraction(self.event.lower) / self.event.epsilon

    @property
    def text(self) -> str:
        return fmt_decimal(self.value)

    def tight(self, upper: Fraction) -> bool:
        return upper == 0 or (self.event is not None and Fraction(self.value) >= TIGHT * upper)

    def exceeds(self, limit: Fraction) -> bool:
        return self.event is not None and self.exact > limit

    def shown_above(self, limit: Fraction) -> "MultiBound":
        if not self.exceeds(limit) or Fraction(self.value) > limit:
            return self
        return replace(self, value=round_down_above(_decimal(self.exact), limit))


def _decimal(x: Fraction) -> Decimal:
    """x rounded down to 60 digits (a printed lower bound must never round up)."""
    return decimal.Context(prec=60, rounding=decimal.ROUND_FLOOR).divide(Decimal(x.numerator),
                                                                        Decimal(x.denominator))


def _with_time_left(search):
    """Run ``search()`` under half of the block's remaining time (as the
    one-variable search does); None when the time ran out."""
    outer = limits.current()
    left = outer.remaining()
    if left is not None and left < 0.05:
        return None
    deadline = limits.Deadline(None if left is None else left / 2, outer.cancelled)
    try:
        with limits.scope(deadline):
            return search()
    except limits.Cancelled as exc:
        if exc.reason != "timeout":
            raise
        return None


def lower_bound(m: MultiDiPA, result, work: int | None = None) -> MultiBound:
    """d_lower ≤ d* ≤ d of a private ``check_multi`` result (module docstring)."""
    from dslc.dipa import multiprob
    if not result.d:
        return MultiBound(searched=False, reason="d = 0")
    if work is not None and work <= 0:
        return MultiBound(searched=False, reason="not searched")
    try:
        found = _with_time_left(lambda: multiprob.lower_bound(m, result, multiprob.LOWER_WORK if work is None
                                                               else work))
        if found is None:
            return MultiBound(searched=False, reason=TIME_RAN_OUT)
        bound = MultiBound(work=found.work, spent=found.work >= (work or multiprob.LOWER_WORK))
        event = found.loss
    except TooExpensive:
        return MultiBound(searched=False, reason="not found: the witness's output event is too expensive "
                                                 "to recompute")
    except (KeyboardInterrupt, MemoryError, limits.Cancelled):
        raise
    except Exception as exc:  # noqa: BLE001 - a lower bound must never cost the verdict
        if os.environ.get("DSLC_DEBUG"):
            raise
        return MultiBound(problem=f"{type(exc).__name__}: {exc}")
    if event is None or not event.observable or event.lower <= 0:
        return bound
    bound.event = event
    bound.value = round_down(_decimal(bound.exact), SIGNIFICANT)
    if bound.exact > result.d:
        bound.contradiction = (f"a witness loses {fmt_decimal(bound.value)}·ε at ε = {event.epsilon}, "
                               f"above the proven d = {result.d}")
    if bound.value <= 0:
        bound.event = None
    return bound


@dataclass
class ShownWitness:
    """One violation's witness as it is printed: the search's rows and the
    output event of its first instance above 2ε (None: not found)."""
    violation: object
    search: object                       # dslc.dipa.multiprob.MultiWitness (None: not searched)
    event: Loss | None = None
    reason: str = ""


def witnesses(m: MultiDiPA, result, work: int | None = None) -> list[ShownWitness]:
    from dslc.dipa import multiprob
    out = []
    for v in result.violations:
        try:
            w = _with_time_left(lambda v=v: multiprob.witness(m, v, multiprob.WITNESS_WORK if work is None
                                                              else work))
            if w is None:
                out.append(ShownWitness(v, None, reason="the time limit was reached first (raise it with "
                                                        "`--timeout`); the violation itself is proven"))
                continue
            if not w.found:
                out.append(ShownWitness(v, w, reason=w.reason))
                continue
        except TooExpensive:
            out.append(ShownWitness(v, None, reason="the output event of the path found is too expensive "
                                                    "to recompute"))
            continue
        except (KeyboardInterrupt, MemoryError, limits.Cancelled):
            raise
        except Exception as exc:  # noqa: BLE001 - a witness must never cost the verdict
            if os.environ.get("DSLC_DEBUG"):
                raise
            out.append(ShownWitness(v, None, reason=f"internal problem: {type(exc).__name__}: {exc}; "
                                                    "please report it"))
            continue
        try:        # at full precision, as `dslc prob` replays it (the search kept 6 digits)
            loss = _with_time_left(lambda: multiprob.verify(m, w.loss.alpha, w.loss.beta, w.loss.epsilon))
        except TooExpensive:
            loss = None
        if loss is None:
            out.append(ShownWitness(v, w, reason="the witness found could not be recomputed at full "
                                                 "precision within the time and work left"))
            continue
        if not loss.observable or Fraction(loss.lower) <= 2 * loss.epsilon:      # never expected
            out.append(ShownWitness(v, w, reason="the witness found is not an output event losing more "
                                                 "than 2ε"))
            continue
        out.append(ShownWitness(v, w, loss))
    return out


__all__ = ["MultiBound", "ShownWitness", "lower_bound", "witnesses"]
