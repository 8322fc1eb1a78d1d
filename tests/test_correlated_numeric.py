"""Where floats enter: log ratios, scores, rounding up, the binary64 matrix
powers with certified error bounds, and the exact W∞ computation."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.correlated import influence
from dslc.ir import chain_structure as markov
from dslc.correlated.numeric import fmt_up, log_ratio, score
from dslc.correlated.wasserstein import _w_inf_scaled, w_inf
from tests import test_correlated_reference as ref

getcontext().prec = 60


def _true_log(n, m) -> Decimal:
    return (Decimal(n) / Decimal(m)).ln()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 10 ** 30), st.integers(1, 10 ** 30))
def test_log_ratio_error_bound(n, m):
    value, err = log_ratio(n, m)
    assert abs(Decimal(value) - _true_log(n, m)) <= Decimal(err)


def test_log_ratio_near_one_and_huge():
    big = 10 ** 4000
    value, err = log_ratio(big + 1, big)
    assert value + err >= 0 and err < 1e-15
    value, err = log_ratio(7 ** 2000, 3)
    assert abs(value - (2000 * math.log(7) - math.log(3))) <= err + 1e-9
    assert log_ratio(5, 5) == (0.0, 0.0)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 500), st.fractions(Fraction(1, 100), 20), st.floats(0, 19.99))
def test_score_is_an_upper_bound(card, eps, e):
    s = score(card, float(eps), e)
    if e < float(eps) * (1 - 1e-9):
        assert Fraction(s) >= Fraction(card) / (eps - Fraction(e))


@given(st.floats(1e-12, 1e12))
def test_fmt_up_rounds_up(x):
    text = fmt_up(x)
    assert Fraction(text) >= Fraction(x)
    assert float(text) >= x                                 # the value release uses
    assert Fraction(text) <= Fraction(x) * (1 + Fraction(1, 10 ** 5))


@pytest.mark.parametrize("P", [
    [[Fraction(9, 10), Fraction(1, 10)], [Fraction(1, 5), Fraction(4, 5)]],
    [[Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)], [Fraction(1, 7), Fraction(5, 7), Fraction(1, 7)],
     [Fraction(1, 2), Fraction(0), Fraction(1, 2)]],
])
def test_float_powers_are_certified(P, monkeypatch):
    """With a tiny BIT_LIMIT the tables switch to binary64 almost at once;
    every entry must still be an upper bound of the exact value and close to it."""
    model = ref.check_text(ref.chain_text([("stationary", P)], 10, 1, len(P))).blocks[0].ir.models[0]
    exact = influence.ModelTables(model, cap=10 ** 6)
    monkeypatch.setattr(influence, "BIT_LIMIT", 16)
    floaty = influence.ModelTables(model, cap=10 ** 6)
    for d in (1, 2, 3, 5, 8, 40, 41, 200, 1000, 5000):
        assert floaty.request(d) and exact.request(d)
    assert floaty.float_from is not None and floaty.float_from <= 8
    for d in (1, 2, 3, 5, 8, 40, 41, 200, 1000):
        Pd = markov.mat_pow(P, d)
        for j, (x, y) in enumerate(floaty.pairs):
            if any(Pd[x][v] and not Pd[y][v] for v in range(len(P))):
                assert floaty.F[d][j] == exact.F[d][j] == math.inf
                continue
            true_f = max(math.log(Pd[x][v] / Pd[y][v]) for v in range(len(P)) if Pd[x][v])
            assert floaty.F[d][j] >= true_f - 1e-300
            assert floaty.F[d][j] - true_f < 1e-9
            assert exact.F[d][j] >= true_f - 1e-300 and exact.F[d][j] - true_f < 1e-9


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.integers(-5, 5), st.integers(1, 9), min_size=1, max_size=5),
       st.dictionaries(st.integers(-5, 5), st.integers(1, 9), min_size=1, max_size=5))
def test_w_inf_against_quantiles(a, b):
    ma, mb = sum(a.values()), sum(b.values())
    mu = {v: Fraction(p, ma) for v, p in a.items()}
    nu = {v: Fraction(p, mb) for v, p in b.items()}
    expected = ref.w_inf_quantiles(mu, nu)
    assert w_inf(mu, nu) == expected
    assert _w_inf_scaled(sorted(a.items()), sorted(b.items())) == expected
