"""A release inlined as one automaton (docs/composition.md, "Exact where possible").

The top-level calls of a release, in order, become ONE online program over
one stream of queries: call 1 runs until it halts, then call 2 starts on the
next query, and so on.  Each call keeps its own stored variables, renamed
apart by the call's number (``above_threshold#1.x``), and its states are
prefixed the same way.  A transition of call i into a halting state (one
without transitions) goes instead to call i+1's initial state.  On a path
where call i never halts, the later calls do not run.

That program is decided by the several-variable checker
(:func:`dslc.dipa.multivar.check_multi`).  Its constant is that of one
sequential program, so the release's verdict and budget stay on the composed
sum (which holds however the calls are run); the inlined d is reported beside
it.  Sequential composition bounds the inlined program by the sum, so an
inlined d above it, or "not private" while every call is private, is a
checker bug: it is reported as unavailable, never as a fact.

Groups ``on disjoint`` are not inlined (an automaton's neighbouring inputs
differ by at most 1 in every query; it cannot say that only one part
changes): their composed costs are added to the inlined d.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction

from dslc import limits
from dslc.compose.release import CallIR, Composition, GroupIR, ReleaseIR, step_cost
from dslc.ir.dipa import DiPA
from dslc.ir.multi_dipa import Literal, MultiDiPA, from_dipa
from dslc.numbers import fmt_fraction

MIN_SECONDS = 0.05      # below this much time left, the inlined check is not started


@dataclass
class Inlined:
    """The inlined figure of a release, or why there is none."""
    calls: list[int]                       # CallIR.index of the inlined calls, in order
    composed: Fraction                     # the release's composed d
    groups_added: Fraction | None          # the composed cost of its groups (None: no group)
    d: Fraction | None = None              # inlined d of the calls + groups_added
    states: int | None = None              # of the inlined automaton
    variables: int | None = None
    reason: str | None = None              # why d is None

    @property
    def below_composed(self) -> bool | None:
        return None if self.d is None else self.d < self.composed


@dataclass
class Part:
    """One call as a piece of the chained program."""
    prefix: str                            # "above_threshold#1"
    automaton: DiPA | MultiDiPA            # instantiated, every rate × share
    sensitivity: Fraction = Fraction(1)
    d: Fraction | None = None              # the call's proven cost


# ------------------------------------------------------------------ the chained automaton
def as_part(prefix: str, automaton, sensitivity=1) -> MultiDiPA:
    """The call's automaton with its variables and states renamed ``prefix.…``, and
    with sensitivity 1: a query of sensitivity Δ divided by Δ has sensitivity 1, so
    every rate is multiplied by Δ and every mean divided by it (comparisons and the
    order of draws are unchanged; a released value is divided by Δ, a bijection).
    A store into a variable that no transition compares is dropped: nothing reads
    it (``noisy_answer`` stores a draw of rate 0 only to meet Definition 3)."""
    delta = Fraction(sensitivity)
    m = from_dipa(automaton) if isinstance(automaton, DiPA) else automaton
    name = {v: f"{prefix}.{v}" for v in m.variables}
    read = {name[v] for t in m.transitions for v in t.compares()}
    out = MultiDiPA(prefix, initial=m.initial, kind=m.kind)
    for s in m.states:
        out.states.append(replace(s, name=f"{prefix}.{s.name}", d=s.d * delta, d_prime=s.d_prime * delta,
                                  mu=s.mu / delta if delta else s.mu,
                                  mu_prime=s.mu_prime / delta if delta else s.mu_prime))
    for t in m.transitions:
        out.transitions.append(replace(t, guard=tuple(Literal(name[lit.var], lit.op) for lit in t.guard),
                                       assigns=frozenset(name[v] for v in t.assigns) & read,
                                       label=f"{prefix} {t.label}".strip()))
    return out


def chain(parts: list[MultiDiPA], name: str = "inlined") -> MultiDiPA:
    """The parts run one after another: a transition of part i into a halting state
    (a state without transitions) goes to part i+1's entry instead.  Halting states of
    every part but the last are left out; those of the last part stay."""
    halting = [{q for q, edges in enumerate(p.out_edges()) if not edges} for p in parts]
    number: list[dict[int, int]] = []          # part -> its state -> state of the chain
    out = MultiDiPA(name)
    for i, p in enumerate(parts):
        keep = {}
        for q, s in enumerate(p.states):
            if i == len(parts) - 1 or q not in halting[i]:
                keep[q] = len(out.states)
                out.states.append(s)
        number.append(keep)
    entry = [0] * len(parts)
    for i in reversed(range(len(parts))):
        p = parts[i]
        later = i + 1 < len(parts)
        entry[i] = entry[i + 1] if later and p.initial in halting[i] else number[i][p.initial]
    for i, p in enumerate(parts):
        for t in p.transitions:
            target = entry[i + 1] if t.target not in number[i] else number[i][t.target]
            out.transitions.append(replace(t, source=number[i][t.source], target=target))
    out.initial = entry[0]
    return out


# ------------------------------------------------------------------ the decision
def decide(parts: list[Part], composed: Fraction, groups: Fraction | None, calls: list[int]) -> Inlined:
    """Chain ``parts`` (at least two, each with its proven cost) and decide the chain
    within half of the time left."""
    from dslc.dipa.multivar import PRIVATE, UNKNOWN, check_multi
    result = Inlined(calls, composed, groups)
    m = chain([as_part(p.prefix, p.automaton, p.sensitivity) for p in parts])
    result.states, result.variables = len(m.states), len(m.variables)
    outer = limits.current()
    left = outer.remaining()
    if left is not None and left < MIN_SECONDS:
        result.reason = "not checked: no time left"
        return result
    with limits.scope(limits.Deadline(None if left is None else left / 2, outer.cancelled)):
        found = check_multi(m)
    if found.verdict == UNKNOWN:
        result.reason = f"the check of the inlined automaton is unknown: {found.reason}"
        return result
    total = sum((p.d for p in parts), Fraction(0))
    if found.verdict != PRIVATE or found.d > total:
        said = "not private" if found.verdict != PRIVATE else f"d = {fmt_fraction(found.d)}"
        result.reason = (f"the checker's answer for the inlined automaton ({said}) contradicts sequential "
                         f"composition (at most {fmt_fraction(total)}): a bug in dslc, so no figure is given")
        return result
    result.d = found.d + (groups or 0)
    return result


def inline_release(ir: ReleaseIR, comp: Composition) -> Inlined | None:
    """The inlined figure of a composed release (None when the composition has no d)."""
    if comp.d is None:
        return None
    calls = [s for s in ir.steps if isinstance(s, CallIR)]
    groups = [s for s in ir.steps if isinstance(s, GroupIR)]
    added = sum((step_cost(g) for g in groups), Fraction(0)) if groups else None
    numbers = [c.index for c in calls]
    if len(calls) < 2:
        what = ("every call is in a group `on disjoint`" if not calls else
                "only one call runs in sequence (the others are in groups `on disjoint`)" if groups else
                "the release makes one call")
        return Inlined(numbers, comp.d, added, reason=f"{what}: nothing to inline")
    for c in calls:
        if not isinstance(c.dipa, (DiPA, MultiDiPA)):
            return Inlined(numbers, comp.d, added, reason=f"`{c.callee}` is not a DiP automaton")
    parts = [Part(f"{c.callee}#{c.index + 1}", c.dipa, getattr(c.dipa, "sensitivity", 1), c.d) for c in calls]
    return decide(parts, comp.d, added, numbers)


__all__ = ["inline_release", "Inlined", "Part", "as_part", "chain", "decide"]
