"""Property tests: the Markov Quilt and Wasserstein computations against the
literal definitions (tests/test_correlated_reference.py, which enumerates every
sequence of short chains)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dslc.correlated import calibrate as calmod
from dslc.ir import chain_structure as markov
from dslc.correlated.influence import EigenGap
from tests import test_correlated_reference as ref

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def distributions(draw, k, zeros=True):
    lo = 0 if zeros else 1
    w = draw(st.lists(st.integers(lo, 5), min_size=k, max_size=k).filter(lambda w: sum(w) > 0))
    return [Fraction(x, sum(w)) for x in w]


@st.composite
def chains(draw, max_T=5, ergodic=False):
    k = draw(st.sampled_from([2, 2, 3]))
    T = draw(st.integers(1, max_T if k == 2 else max_T - 1))
    n = draw(st.integers(1, 2))
    models = []
    for _ in range(n):
        P = [draw(distributions(k, zeros=not ergodic)) for _ in range(k)]
        q = "stationary" if draw(st.booleans()) else draw(distributions(k))
        models.append((q, P))
    eps = draw(st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3), Fraction(10)]))
    return k, T, eps, models


def _calibrate(k, T, eps, models, query="sum"):
    res = ref.check_text(ref.chain_text(models, T, eps, k, query))
    (block,) = res.blocks
    assume(block.verdict.value == "private")        # `stationary` on a chain without a unique π
    return block.analysis


def _exact_models(cal):
    return [(m.initial, m.transition) for m in cal.ir.models]


def _sigma(mech, cal) -> float:
    return float(mech.sort_key()) / float(cal.ir.query.lipschitz)


@SETTINGS
@given(chains())
def test_markov_quilt_equals_the_definition(case):
    k, T, eps, models = case
    cal = _calibrate(k, T, eps, models)
    truth = ref.sigma_max(_exact_models(cal), T, eps)
    mq = cal.mechanism("markov_quilt")
    got = _sigma(mq, cal)
    assert got >= truth * (1 - 1e-12)                        # never less noise than needed
    if mq.details["influence_is_exact"]:
        assert got <= truth * (1 + 1e-5) + 1e-9               # and exactly the mechanism's noise
    for key in ("markov_quilt_approx", "markov_quilt_combined"):
        m = cal.mechanism(key)
        if m is not None and m.applicable:
            assert _sigma(m, cal) >= truth * (1 - 1e-12), key


@SETTINGS
@given(chains())
def test_long_chain_bounds_are_sound(case):
    """The per-distance path for non-stationary chains (used when T > 100)
    only bounds the max-influence: forced here on short chains."""
    k, T, eps, models = case
    old = calmod.PER_NODE_MAX_T
    calmod.PER_NODE_MAX_T = 0
    try:
        cal = _calibrate(k, T, eps, models)
    finally:
        calmod.PER_NODE_MAX_T = old
    truth = ref.sigma_max(_exact_models(cal), T, eps)
    for m in cal.mechanisms:
        if m.key.startswith("markov_quilt") and m.applicable:
            assert _sigma(m, cal) >= truth * (1 - 1e-12), m.key


@SETTINGS
@given(chains(max_T=4))
def test_wasserstein_equals_the_definition(case):
    k, T, eps, models = case
    cal = _calibrate(k, T, eps, models)
    w = cal.mechanism("wasserstein")
    assert w.applicable
    truth = ref.wasserstein(_exact_models(cal), T, [Fraction(v) for v in range(k)])
    assert Fraction(w.details["W"]) == truth
    assert w.scale_exact == truth / eps


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.lists(distributions(k, zeros=False), min_size=k, max_size=k)))
def test_eigen_gap_lemma(P):
    """|P^t(x,y)/π(y) − 1| ≤ s^t (1 − π_min)/π_min with s² ≤ μ (the certified bound)."""
    pi = markov.stationary(P)
    model = type("M", (), {})()
    model.stationary, model.transition, model.stationary_start = pi, P, True
    gap = EigenGap(model)
    s = math.sqrt(float(gap.mu))
    K = float(gap.K)
    Pt = P
    for t in range(1, 16):
        if t > 1:
            Pt = markov.mat_pow(P, t)
        worst = max(abs(float(Pt[x][y] / pi[y]) - 1) for x in range(len(P)) for y in range(len(P)))
        assert worst <= s ** t * K * (1 + 1e-9) + 1e-12, (t, worst, s, K)
        # and the bound used for the forward ratio holds
        if gap.one_side(t) != math.inf:
            ratio = max(float(Pt[x][v] / Pt[y][v]) for x in range(len(P)) for y in range(len(P))
                        for v in range(len(P)))
            assert math.log(ratio) <= gap.forward(t) + 1e-12


@pytest.mark.parametrize("p,q", [(Fraction(1, 10), Fraction(1, 5)), (Fraction(1, 2), Fraction(1, 3)),
                                 (Fraction(9, 10), Fraction(4, 5))])
def test_two_state_gap_is_exact(p, q):
    """For two states s = |1 − p − q| and the certificate is exact."""
    P = [[1 - p, p], [q, 1 - q]]
    model = type("M", (), {})()
    model.stationary, model.transition, model.stationary_start = markov.stationary(P), P, True
    gap = EigenGap(model)
    assert gap.mu == (1 - p - q) ** 2 and gap.certificate == "exact"
