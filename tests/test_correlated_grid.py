"""Binary chains, T = 100, ε = 1: the Markov Quilt noise is never above group
DP's (T·L/ε = 100) and far below it for fast-mixing chains (docs/correlated.md
has the full table, from benchmarks/bench_quilt.py grid)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from tests.test_correlated_reference import check_text

GRID = [F(1, 100), F(1, 10), F(1, 5), F(1, 2), F(4, 5), F(19, 20)]
FAST = {F(1, 5), F(1, 2), F(4, 5)}


def calibrate(p, q, T=100, eps=1, query="lipschitz(1)", initial="stationary"):
    text = (f"chain c {{ states = [0, 1]  initial = {initial}\n"
            f"  transition = [[{1 - p}, {p}], [{q}, {1 - q}]]\n"
            f"  length = {T}  query = {query}  ε = {eps} }}")
    (block,) = check_text(text).blocks
    assert block.verdict.value == "private"
    return block.analysis


@pytest.mark.parametrize("p", GRID)
def test_never_above_group_dp_and_far_below_when_fast(p):
    for q in GRID:
        cal = calibrate(p, q)
        group = cal.mechanism("group_dp").sort_key()
        assert group == 100
        for m in cal.mechanisms:
            if m.key.startswith("markov_quilt") and m.applicable:
                assert m.sort_key() <= group, (p, q, m.key)
        mq = cal.mechanism("markov_quilt").sort_key()
        if p in FAST and q in FAST:
            assert mq <= 15, (p, q, mq)                  # ≥ 6.6× less noise than group DP
        if p + q == 1:                                   # independent records: Lap(1/ε) exactly
            assert cal.mechanism("markov_quilt").scale_exact == 1
        assert cal.mechanism("markov_quilt").details["influence_is_exact"]


def test_golden_values_of_the_docs_table():
    table = {(F(1, 10), F(1, 5)): "22.2984", (F(1, 5), F(1, 5)): "13.0752", (F(2, 5), F(2, 5)): "3.5718",
             (F(1, 100), F(1, 100)): "100", (F(1, 20), F(1, 20)): "68.7869", (F(1, 100), F(1, 2)): "20.2336"}
    for (p, q), scale in table.items():
        assert calibrate(p, q).mechanism("markov_quilt").scale_text == scale


def test_slow_chain_gains_with_length():
    """p = q = 1/100 mixes in about a hundred steps: no gain at T = 100, but a
    per-node noise independent of T for long series."""
    short = calibrate(F(1, 100), F(1, 100)).mechanism("markov_quilt").sort_key()
    long1 = calibrate(F(1, 100), F(1, 100), T=10_000).mechanism("markov_quilt")
    long2 = calibrate(F(1, 100), F(1, 100), T=1_000_000).mechanism("markov_quilt")
    assert short == 100
    assert long1.scale_text == long2.scale_text == "364.398"


def test_eigen_gap_never_below_exact():
    for p in GRID:
        for q in (F(1, 10), F(1, 2)):
            cal = calibrate(p, q, T=1000)
            exact, approx = cal.mechanism("markov_quilt"), cal.mechanism("markov_quilt_approx")
            assert approx.applicable and approx.sort_key() >= exact.sort_key() * (1 - F(1, 10 ** 6))
