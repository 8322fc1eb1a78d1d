"""The DiPA intermediate representation (Definition 3 of the DiPA paper).

States carry their input flag and parameters (d, μ, d′, μ′) as exact
rationals; transitions carry guard, target, output and the store flag.  Both
keep the source spans they were lowered from, so every later diagnostic can
point at the user's lines.  Spans are optional: benchmarks build large
automata directly.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction

from dslc.numbers import fmt_fraction, fmt_rate  # noqa: F401  (re-exported)
from dslc.source import Span


class Guard(str, enum.Enum):
    TRUE = "true"
    GE = "insample >= x"
    LT = "insample < x"

    @property
    def short(self) -> str:
        return {"true": "true", "insample >= x": ">=", "insample < x": "<"}[self.value]


class OutKind(str, enum.Enum):
    SYMBOL = "symbol"
    INSAMPLE = "insample"
    INSAMPLE_PRIME = "insample'"


@dataclass(frozen=True, slots=True)
class Output:
    kind: OutKind
    symbol: str | None = None        # None with SYMBOL: the silent output

    @property
    def is_real(self) -> bool:
        return self.kind is not OutKind.SYMBOL

    def __str__(self) -> str:
        if self.kind is OutKind.SYMBOL:
            return self.symbol if self.symbol is not None else "(silent)"
        return self.kind.value


SILENT = Output(OutKind.SYMBOL, None)
OUT_INSAMPLE = Output(OutKind.INSAMPLE)
OUT_INSAMPLE_PRIME = Output(OutKind.INSAMPLE_PRIME)


def symbol(name: str) -> Output:
    return Output(OutKind.SYMBOL, name)


@dataclass(slots=True)
class State:
    name: str
    is_input: bool
    d: Fraction
    mu: Fraction
    d_prime: Fraction = Fraction(0)   # a shared immutable default
    mu_prime: Fraction = Fraction(0)
    span: Span | None = None          # declaration, or the step's first statement
    name_span: Span | None = None
    draw_span: Span | None = None     # the Lap(...) that gives d and μ
    prime_span: Span | None = None    # the Lap'(...) (or second draw) that gives d′ and μ′
    terminal: bool = False            # a halt state made by lowering


@dataclass(slots=True)
class Transition:
    source: int
    guard: Guard
    target: int
    output: Output
    store: bool
    span: Span | None = None
    guard_span: Span | None = None
    output_span: Span | None = None
    store_span: Span | None = None
    target_span: Span | None = None


@dataclass
class DiPA:
    name: str
    states: list[State] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)
    initial: int = 0
    span: Span | None = None          # the block's name
    kind: str = "automaton"
    loop_spans: dict[int, Span] = field(default_factory=dict)  # state -> `loop` keyword (mechanisms)
    # The header's declarations (dslc/ir/claims.py): `budget Dε` and `sensitivity Δ`.
    budget: Fraction | None = None
    budget_span: Span | None = None
    sensitivity: Fraction = Fraction(1)
    sensitivity_span: Span | None = None

    def add_state(self, state: State) -> int:
        self.states.append(state)
        return len(self.states) - 1

    def add_transition(self, t: Transition) -> int:
        self.transitions.append(t)
        return len(self.transitions) - 1

    def out_edges(self) -> list[list[int]]:
        edges: list[list[int]] = [[] for _ in self.states]
        for i, t in enumerate(self.transitions):
            edges[t.source].append(i)
        return edges

    def describe_transition(self, i: int) -> str:
        t = self.transitions[i]
        text = f"{self.states[t.source].name} --[{t.guard.value}"
        text += f" / {t.output}" + (", store" if t.store else "") + f"]--> {self.states[t.target].name}"
        return text
