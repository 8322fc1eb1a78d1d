"""A slow, literal implementation of Pr[ε, x, ρ] (Section III-C of the DiPA
paper) by numerical quadrature, to test dslc.dipa.prob against.

Each integral over the stored value is a composite Gauss–Legendre rule on
pieces split at every mean and interval end of the path, with the tails cut
where the densities are below e^{-40}.  Floats throughout; accurate to about
1e-9 for the short paths the tests use.
"""

from __future__ import annotations

import math
from fractions import Fraction

from dslc.dipa.prob import Step
from dslc.ir.dipa import DiPA, Guard, OutKind

# 12-point Gauss–Legendre nodes and weights on [-1, 1]
_GL_X = [-0.9815606342467192, -0.9041172563704749, -0.7699026741943047, -0.5873179542866175,
         -0.3678314989981802, -0.1252334085114689, 0.1252334085114689, 0.3678314989981802,
         0.5873179542866175, 0.7699026741943047, 0.9041172563704749, 0.9815606342467192]
_GL_W = [0.0471753363865118, 0.1069393259953184, 0.1600783285433462, 0.2031674267230659,
         0.2334925365383548, 0.2491470458134028, 0.2491470458134028, 0.2334925365383548,
         0.2031674267230659, 0.1600783285433462, 0.1069393259953184, 0.0471753363865118]


def _upper(rate: float, mean: float, t: float) -> float:
    """Prob[Z ≥ t], Z ~ Lap(rate, mean)."""
    if t == -math.inf:
        return 1.0
    if t == math.inf:
        return 0.0
    if t < mean:
        return 1.0 - 0.5 * math.exp(rate * (t - mean))
    return 0.5 * math.exp(-rate * (t - mean))


def _mass(rate, mean, lo, hi) -> float:
    return max(0.0, _upper(rate, mean, lo) - _upper(rate, mean, hi))


def literal_probability(dipa: DiPA, steps: list[Step], epsilon, x0=0.0) -> float:
    eps = float(epsilon)
    rows = []
    points = []
    rates = []
    for s in steps:
        t = dipa.transitions[s.transition]
        q = dipa.states[t.source]
        a = float(s.input) if s.input is not None else 0.0
        lo, hi = (-math.inf, math.inf)
        if s.interval is not None:
            lo = -math.inf if s.interval[0] is None else float(s.interval[0])
            hi = math.inf if s.interval[1] is None else float(s.interval[1])
        rate = float(q.d) * eps
        rows.append((t, rate, float(q.mu) + a, float(q.d_prime) * eps, float(q.mu_prime) + a, lo, hi))
        points += [float(q.mu) + a] + [v for v in (lo, hi) if math.isfinite(v)]
        if rate > 0:
            rates.append(rate)
    pts = sorted(set(points))
    dmin, dmax = min(rates), max(rates)
    # integration pieces: tails of 40/dmin beyond the extreme points, pieces ≤ 0.5/dmax wide
    base = [pts[0] - 36 / dmin] + pts + [pts[-1] + 36 / dmin]

    def nodes(lo: float, hi: float) -> list[tuple[float, float]]:
        """Quadrature nodes on (lo, hi) ∩ the cut range, split at every breakpoint."""
        if lo >= hi:
            return []
        cuts = sorted({c for c in base if lo < c < hi} | {c for c in (lo, hi) if math.isfinite(c)})
        if not math.isfinite(lo) or lo < base[0]:
            cuts = [base[0]] + [c for c in cuts if c > base[0]]
        if not math.isfinite(hi) or hi > base[-1]:
            cuts = [c for c in cuts if c < base[-1]] + [base[-1]]
        out = []
        for a, b in zip(cuts, cuts[1:]):
            if b <= a:
                continue
            tail = a < pts[0] or b > pts[-1]
            k = max(1, math.ceil((b - a) * (dmin if tail else dmax) / 2))
            h = (b - a) / k
            for i in range(k):
                mid = a + (i + 0.5) * h
                for xg, wg in zip(_GL_X, _GL_W):
                    out.append((mid + xg * h / 2, wg * h / 2))
        return out

    def pr(x: float, k: int) -> float:
        if k == len(rows):
            return 1.0
        t, rate, nu, rate_p, nu_p, lo, hi = rows[k]
        kp = 1.0
        if t.output.kind is OutKind.INSAMPLE_PRIME:
            kp = _mass(rate_p, nu_p, lo, hi)
            lo, hi = -math.inf, math.inf
        elif t.output.kind is not OutKind.INSAMPLE:
            lo, hi = -math.inf, math.inf
        if t.guard is Guard.GE:
            lo = max(lo, x)
        elif t.guard is Guard.LT:
            hi = min(hi, x)
        if not t.store:
            if t.guard is Guard.TRUE and t.output.kind is not OutKind.INSAMPLE:
                return kp * pr(x, k + 1)
            return kp * _mass(rate, nu, lo, hi) * pr(x, k + 1)
        total = 0.0
        for z, w in nodes(lo, hi):
            total += w * 0.5 * rate * math.exp(-rate * abs(z - nu)) * pr(z, k + 1)
        return kp * total

    return pr(float(x0), 0)


# ---------------------------------------------------------------------------
# the engine against the literal implementation

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dslc.dipa.prob import path_probability  # noqa: E402
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, State, Transition,  # noqa: E402
                          symbol)

_RATES = [Fraction(1, 2), Fraction(1), Fraction(3, 4)]
_POINTS = [Fraction(-1), Fraction(-1, 2), Fraction(0), Fraction(1, 3), Fraction(1)]


@st.composite
def paths(draw):
    """A random DiPA and a random path through it with at most two assignments."""
    n = draw(st.integers(2, 4))
    a = DiPA("r")
    for i in range(n):
        a.add_state(State(f"q{i}", draw(st.booleans()), draw(st.sampled_from(_RATES)),
                          draw(st.sampled_from(_POINTS)), draw(st.sampled_from(_RATES)),
                          draw(st.sampled_from(_POINTS))))
    outs = [symbol("⊥"), symbol("⊤"), OUT_INSAMPLE, OUT_INSAMPLE_PRIME]
    a.add_transition(Transition(0, Guard.TRUE, draw(st.integers(0, n - 1)),
                                draw(st.sampled_from(outs)), True))
    for q in range(1, n):
        target = draw(st.integers(0, n - 1))
        if not a.states[q].is_input:
            a.add_transition(Transition(q, Guard.TRUE, target, draw(st.sampled_from(outs)), draw(st.booleans())))
            continue
        o1 = draw(st.sampled_from(outs))
        o2 = draw(st.sampled_from([o for o in outs if o != o1 and not (o.is_real and o1.is_real)]))
        a.add_transition(Transition(q, Guard.GE, target, o1, draw(st.booleans())))
        a.add_transition(Transition(q, Guard.LT, draw(st.integers(0, n - 1)), o2, draw(st.booleans())))
    edges = a.out_edges()
    steps, q, stores = [], 0, 0
    for _ in range(draw(st.integers(1, 4))):
        choices = [e for e in edges[q] if stores < 2 or not a.transitions[e].store]
        if not choices:
            break
        e = draw(st.sampled_from(choices))
        t = a.transitions[e]
        stores += t.store
        inp = draw(st.sampled_from(_POINTS)) if a.states[q].is_input else None
        iv = None
        if t.output.is_real:
            lo = draw(st.sampled_from([None] + _POINTS))
            hi = draw(st.sampled_from([None] + [p for p in _POINTS if lo is None or p > lo]))
            iv = (lo, hi)
        steps.append(Step(e, inp, iv))
        q = t.target
    return a, steps, draw(st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(2)]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paths())
def test_engine_matches_literal_definition(case):
    dipa, steps, eps = case
    got = path_probability(dipa, steps, eps)
    want = literal_probability(dipa, steps, eps)
    assert abs(float(got.probability) - want) <= 1e-8 * want + 1e-13
    assert float(got.error) <= float(got.probability) * 1e-15 + 1e-30
