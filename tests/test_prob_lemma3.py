"""Lemma 3 of the DiPA paper, checked numerically on random private automata:
for equivalent paths ρ1, ρ2 on adjacent inputs, Pr[ε, ρ1] ≤ e^{dε} Pr[ε, ρ2]
with d = wt(A), within the error bound of the computed probabilities."""

from __future__ import annotations

import math
import random
from fractions import Fraction as F

from dslc.dipa.check import check
from dslc.dipa.prob import Step, path_probability
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, DiPA, Guard, State, Transition,
                          symbol)

RATES = [F(1, 4), F(1, 2), F(1), F(2, 9), F(1, 3)]
MEANS = [F(-1), F(0), F(1, 2), F(2)]
SYMBOLS = [symbol("⊥"), symbol("⊤")]
OUTPUTS = SYMBOLS + [OUT_INSAMPLE, OUT_INSAMPLE_PRIME]
AUTOMATA = 520


def random_dipa(rng: random.Random) -> DiPA:
    n = rng.randint(2, 5)
    a = DiPA("random")
    for i in range(n):
        a.add_state(State(f"q{i}", rng.random() < 0.7, rng.choice(RATES), rng.choice(MEANS),
                          rng.choice(RATES), rng.choice(MEANS)))
    out = lambda: rng.choice(OUTPUTS) if rng.random() < 0.35 else rng.choice(SYMBOLS)  # noqa: E731
    a.add_transition(Transition(0, Guard.TRUE, rng.randrange(1, n), out(), True))
    for q in range(1, n):
        target = lambda: rng.randrange(n)  # noqa: E731
        store = lambda: rng.random() < 0.2  # noqa: E731
        if not a.states[q].is_input:
            if rng.random() < 0.8:
                a.add_transition(Transition(q, Guard.TRUE, target(), out(), store()))
            continue
        shape = rng.choice(["true", "ge", "lt", "both", "both", "both"])
        if shape == "true":
            a.add_transition(Transition(q, Guard.TRUE, target(), out(), store()))
        elif shape in ("ge", "lt"):
            a.add_transition(Transition(q, Guard.GE if shape == "ge" else Guard.LT, target(), out(), store()))
        else:
            o1 = out()
            o2 = rng.choice([o for o in OUTPUTS if o != o1 and not (o.is_real and o1.is_real)])
            a.add_transition(Transition(q, Guard.GE, target(), o1, store()))
            a.add_transition(Transition(q, Guard.LT, target(), o2, store()))
    return a


def random_path_pair(rng: random.Random, a: DiPA) -> tuple[list[Step], list[Step]]:
    edges = a.out_edges()
    q = a.initial
    p1, p2 = [], []
    for _ in range(rng.randint(1, 7)):
        if not edges[q]:
            break
        e = rng.choice(edges[q])
        t = a.transitions[e]
        iv = None
        if t.output.is_real:
            lo = rng.choice([None, F(-1), F(0), F(1, 2)])
            hi = rng.choice([None] + [v for v in (F(0), F(1), F(3)) if lo is None or v > lo])
            iv = (lo, hi)
        if a.states[q].is_input:
            x = F(rng.randint(-6, 6), 4)
            y = x + F(rng.randint(-4, 4), 4)           # |x − y| ≤ 1: adjacent
            p1.append(Step(e, x, iv))
            p2.append(Step(e, y, iv))
        else:
            p1.append(Step(e, None, iv))
            p2.append(Step(e, None, iv))
        q = t.target
    return p1, p2


def test_lemma3_on_random_private_automata():
    rng = random.Random(20240603)
    checked = 0
    tried = 0
    worst = -math.inf
    while checked < AUTOMATA:
        tried += 1
        assert tried < 50 * AUTOMATA, "the generator makes too few private automata"
        a = random_dipa(rng)
        result = check(a)
        if not result.well_formed:
            continue
        d = result.weight
        eps = rng.choice([F(1, 2), F(1), F(2), F(5)])
        p1, p2 = random_path_pair(rng, a)
        if not p1:
            continue
        r1 = path_probability(a, p1, eps)
        r2 = path_probability(a, p2, eps)
        bound = math.exp(float(d * eps))
        for x, y in ((r1, r2), (r2, r1)):
            # Pr[ρ1] ≤ e^{dε} Pr[ρ2], allowing both computed values their error bounds
            lhs = x.probability - x.error
            rhs = (y.probability + y.error) * type(y.probability)(bound) * (1 + type(y.probability)("1e-12"))
            assert lhs <= rhs, (a, p1, p2, eps, d)
            if x.probability > 0 and y.probability > 0:
                worst = max(worst, float(x.log_probability - y.log_probability) - float(d * eps))
        checked += 1
    assert checked >= 500
    assert worst <= 1e-9
