"""IR of `hmm` and `mdp` blocks: finite Markov models with symbolic parameters.

Probabilities are polynomials (:class:`Poly`) in the symbolic parameters with
exact rational coefficients; a parameter given a value (`param q = 1/3`) is
substituted while lowering, so a model without symbolic parameters has
constant polynomials only.  Every part keeps the span it came from.

An `hmm` is stored as an MDP with one unnamed action, so the checker has a
single code path; :attr:`MarkovModel.is_mdp` tells them apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Iterable

from dslc.numbers import fmt_fraction
from dslc.source import Span

Monomial = tuple[tuple[str, int], ...]     # sorted (parameter, power) pairs


class Poly:
    """A polynomial with rational coefficients over named parameters."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[Monomial, Fraction] | None = None):
        self.terms: dict[Monomial, Fraction] = {m: Fraction(c) for m, c in (terms or {}).items() if c != 0}

    # -- construction
    @staticmethod
    def const(value) -> "Poly":
        return Poly({(): Fraction(value)})

    @staticmethod
    def var(name: str) -> "Poly":
        return Poly({((name, 1),): Fraction(1)})

    # -- arithmetic
    def __add__(self, other: "Poly") -> "Poly":
        out = dict(self.terms)
        for m, c in other.terms.items():
            out[m] = out.get(m, Fraction(0)) + c
        return Poly(out)

    def __neg__(self) -> "Poly":
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, other: "Poly") -> "Poly":
        return self + (-other)

    def __mul__(self, other: "Poly") -> "Poly":
        out: dict[Monomial, Fraction] = {}
        for m1, c1 in self.terms.items():
            for m2, c2 in other.terms.items():
                m = _mono_mul(m1, m2)
                out[m] = out.get(m, Fraction(0)) + c1 * c2
        return Poly(out)

    def scale(self, factor: Fraction) -> "Poly":
        return Poly({m: c * factor for m, c in self.terms.items()})

    # -- reading
    @property
    def is_const(self) -> bool:
        return all(m == () for m in self.terms)

    @property
    def value(self) -> Fraction:
        """The constant value (only for constant polynomials)."""
        assert self.is_const, "not a constant"
        return self.terms.get((), Fraction(0))

    @property
    def is_zero(self) -> bool:
        return not self.terms

    def variables(self) -> set[str]:
        return {name for m in self.terms for name, _ in m}

    def evaluate(self, env: dict[str, Fraction]) -> Fraction:
        total = Fraction(0)
        for m, c in self.terms.items():
            term = c
            for name, power in m:
                term *= env[name] ** power
            total += term
        return total

    def substitute(self, env: dict[str, Fraction]) -> "Poly":
        out: dict[Monomial, Fraction] = {}
        for m, c in self.terms.items():
            rest = []
            for name, power in m:
                if name in env:
                    c = c * env[name] ** power
                else:
                    rest.append((name, power))
            key = tuple(rest)
            out[key] = out.get(key, Fraction(0)) + c
        return Poly(out)

    def __eq__(self, other) -> bool:
        return isinstance(other, Poly) and self.terms == other.terms

    def __hash__(self) -> int:
        return hash(frozenset(self.terms.items()))

    def __repr__(self) -> str:
        return f"Poly({self})"

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for m, c in sorted(self.terms.items(), key=lambda mc: (-sum(p for _, p in mc[0]), mc[0])):
            mono = "*".join(name if p == 1 else f"{name}^{p}" for name, p in m)
            if not mono:
                text = fmt(abs(c))
            elif abs(c) == 1:
                text = mono
            else:
                text = f"{fmt(abs(c))}*{mono}"
            parts.append((c < 0, text))
        out = ("-" if parts[0][0] else "") + parts[0][1]
        for neg, text in parts[1:]:
            out += (" - " if neg else " + ") + text
        return out


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    if not a:
        return b
    if not b:
        return a
    powers: dict[str, int] = dict(a)
    for name, p in b:
        powers[name] = powers.get(name, 0) + p
    return tuple(sorted(powers.items()))


fmt = fmt_fraction


# ------------------------------------------------------------------ model
@dataclass
class ParamDecl:
    name: str
    span: Span                      # the whole `param` statement
    name_span: Span
    value: Fraction | None = None   # a fixed value (`param q = 1/3`)
    lo: Fraction | None = None
    hi: Fraction | None = None
    lo_open: bool = True
    hi_open: bool = True

    @property
    def symbolic(self) -> bool:
        return self.value is None

    def range_text(self) -> str:
        if self.lo is None and self.hi is None:
            return "any real"
        return (("(" if self.lo_open else "[") + fmt(self.lo) + ", " + fmt(self.hi)
                + (")" if self.hi_open else "]"))


@dataclass
class Constraint:
    """`left OP right` over the parameters (OP: = != < <= > >=)."""
    left: Poly
    op: str
    right: Poly
    span: Span

    def holds(self, env: dict[str, Fraction]) -> bool:
        a, b = self.left.evaluate(env), self.right.evaluate(env)
        return {"=": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[self.op]


@dataclass
class Epsilon:
    """ε as written.  ``ln_base`` set: ε = ln(ln_base), so e^ε = ln_base exactly.
    Otherwise ε = ``value`` (a rational); e^ε is irrational unless ε = 0."""
    text: str
    span: Span
    ln_base: Fraction | None = None
    value: Fraction | None = None

    @property
    def exact_bound(self) -> Fraction | None:
        """e^ε when it is rational, else None."""
        if self.ln_base is not None:
            return self.ln_base
        if self.value == 0:
            return Fraction(1)
        return None


@dataclass
class Secret:
    name: str
    span: Span
    name_span: Span
    states: list[int]


@dataclass
class SecretPair:
    left: int                       # indices into MarkovModel.secrets
    right: int
    span: Span


@dataclass
class Obligation:
    """A fact about symbolic probabilities that must hold under the
    constraints; the backend proves it with z3 (or reports an E2xx)."""
    kind: str                       # "sum-one" | "nonneg" | "positive"
    poly: Poly
    span: Span
    what: str                       # "the row of `pos`", "the probability of `yes`", ...


@dataclass
class MarkovModel:
    name: str
    kind: str                       # "hmm" | "mdp"
    name_span: Span
    span: Span
    states: list[str]
    state_spans: list[Span]
    observations: list[str]
    observation_spans: list[Span]
    actions: list[str]              # [] for an hmm (one implicit action)
    action_spans: list[Span]
    params: dict[str, ParamDecl]
    constraints: list[Constraint]
    prior: dict[int, Poly]
    prior_span: Span
    # trans[a][s] = {target: probability}; an hmm has one action (index 0).
    trans: list[list[dict[int, Poly]]]
    trans_spans: list[list[Span]]
    emit: list[dict[int, Poly]]     # emit[s] = {observation: probability}
    emit_spans: list[Span]
    secrets: list[Secret]
    pairs: list[SecretPair]
    epsilon: Epsilon
    horizon: int
    check_span: Span
    find: list[str] = field(default_factory=list)
    find_span: Span | None = None
    obligations: list[Obligation] = field(default_factory=list)

    @property
    def is_mdp(self) -> bool:
        return self.kind == "mdp"

    @property
    def n_actions(self) -> int:
        return max(1, len(self.actions))

    @property
    def symbolic_params(self) -> list[str]:
        return [name for name, p in self.params.items() if p.symbolic]

    def all_polys(self) -> Iterable[Poly]:
        yield from self.prior.values()
        for rows in self.trans:
            for row in rows:
                yield from row.values()
        for row in self.emit:
            yield from row.values()

    def numeric(self, env: dict[str, Fraction] | None = None) -> "NumericModel":
        """The model with every parameter replaced by its value in ``env``."""
        env = env or {}

        def val(p: Poly) -> Fraction:
            return p.value if p.is_const else p.evaluate(env)

        n = len(self.states)
        prior = [Fraction(0)] * n
        for s, p in self.prior.items():
            prior[s] = val(p)
        trans = [[{t: val(p) for t, p in row.items() if val(p) != 0} for row in rows] for rows in self.trans]
        emit = [{o: val(p) for o, p in row.items() if val(p) != 0} for row in self.emit]
        return NumericModel(n, len(self.observations), self.n_actions, prior, trans, emit)

    def secret_weights(self, secret: int) -> dict[int, Poly]:
        """The prior restricted to a secret (not normalised)."""
        return {s: self.prior[s] for s in self.secrets[secret].states if s in self.prior}

    def observation_names(self, seq: Iterable[int]) -> list[str]:
        return [self.observations[o] for o in seq]

    def action_names(self, seq: Iterable[int]) -> list[str]:
        return [self.actions[a] for a in seq] if self.actions else []


@dataclass
class NumericModel:
    """A Markov model with exact rational probabilities (sparse rows)."""
    n_states: int
    n_obs: int
    n_actions: int
    prior: list[Fraction]
    trans: list[list[dict[int, Fraction]]]      # [action][state] -> {target: p}
    emit: list[dict[int, Fraction]]             # [state] -> {observation: p}

    def conditioned(self, states: Iterable[int]) -> list[Fraction]:
        """The prior conditioned on the event ``states`` (its mass must be positive)."""
        states = set(states)
        mass = sum((self.prior[s] for s in states), Fraction(0))
        return [self.prior[s] / mass if s in states else Fraction(0) for s in range(self.n_states)]

    def forward(self, init: list[Fraction], observations: list[int], actions: list[int] | None = None) -> Fraction:
        """Pr(observations | init, actions): every state emits at t = 0 .. k-1;
        action ``actions[t]`` drives the step from t to t+1."""
        actions = actions or [0] * max(0, len(observations) - 1)
        alpha = [init[s] * self.emit[s].get(observations[0], Fraction(0)) for s in range(self.n_states)]
        for t in range(1, len(observations)):
            rows = self.trans[actions[t - 1]]
            nxt = [Fraction(0)] * self.n_states
            for s, a in enumerate(alpha):
                if a:
                    for s2, p in rows[s].items():
                        nxt[s2] += a * p
            o = observations[t]
            alpha = [nxt[s] * self.emit[s].get(o, Fraction(0)) for s in range(self.n_states)]
        return sum(alpha, Fraction(0))
