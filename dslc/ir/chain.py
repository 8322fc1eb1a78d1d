"""IR of `chain` blocks: a class Θ of finite Markov chains, a series length,
a query and ε — everything exact (``Fraction``), every part with its span.

Built by :mod:`dslc.ir.lower_chain` from the AST; read by the Markov Quilt and
Wasserstein analyses (:mod:`dslc.correlated`).  See docs/correlated.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dslc.source import Span


@dataclass
class ChainState:
    label: str                   # as written: `sit`, `0`, `-1/2`
    value: Fraction | None       # numeric value (for `query = sum`), if any
    span: Span


@dataclass
class ChainModel:
    """One θ = (initial distribution q, transition matrix P)."""
    name: str
    span: Span
    transition: list[list[Fraction]]
    transition_span: Span
    row_spans: list[Span]
    initial: list[Fraction]          # q (the stationary distribution when `stationary`)
    initial_span: Span
    stationary_start: bool           # q = π (declared `stationary`, or equal to π)
    declared_stationary: bool        # written `initial = stationary`
    # Structure of P, filled in by validation:
    irreducible: bool = False
    period: int | None = None        # for irreducible chains
    stationary: list[Fraction] | None = None   # the unique π, if unique

    @property
    def ergodic(self) -> bool:
        return self.irreducible and self.period == 1


@dataclass
class ChainQuery:
    kind: str                        # "sum" | "histogram" | "count" | "lipschitz"
    span: Span
    lipschitz: Fraction              # L (L1 norm for histograms)
    count_state: int | None = None   # index of the counted state
    vector: bool = False             # histogram: one coordinate per state

    def describe(self, states: list[ChainState]) -> str:
        if self.kind == "count":
            return f"count({states[self.count_state].label})"
        if self.kind == "lipschitz":
            from dslc.numbers import fmt_fraction as fmt_q
            return f"lipschitz({fmt_q(self.lipschitz)})"
        return self.kind


@dataclass
class ChainIR:
    name: str
    name_span: Span
    span: Span
    states: list[ChainState]
    models: list[ChainModel]
    length: int
    length_span: Span
    query: ChainQuery
    epsilon: Fraction
    epsilon_span: Span
    method: str = "auto"             # auto | exact | approx
    method_span: Span | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def k(self) -> int:
        return len(self.states)

    def state_values(self) -> list[Fraction] | None:
        if all(s.value is not None for s in self.states):
            return [s.value for s in self.states]  # type: ignore[misc]
        return None
