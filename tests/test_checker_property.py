"""The linear-time checker agrees with a literal implementation of the definitions."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from dslc.dipa.check import check
from dslc.ir.validate import validate_dipa
from tests.dipa_strategies import dipas
from tests.literal_dipa import literal_check


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dipas())
def test_fast_checker_matches_literal_definitions(dipa):
    assert validate_dipa(dipa) == []          # the generator only makes DiPAs
    fast = check(dipa, max_per_kind=10**6)
    kinds, weight = literal_check(dipa)
    assert fast.subkinds == kinds
    assert fast.well_formed == (not kinds)
    if not kinds:
        assert fast.weight == weight


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dipas(private_bias=True))
def test_fast_checker_matches_literal_definitions_mostly_private(dipa):
    fast = check(dipa, max_per_kind=10**6)
    kinds, weight = literal_check(dipa)
    assert fast.subkinds == kinds
    if not kinds:
        assert fast.weight == weight


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dipas(max_states=5, dense=True))
def test_fast_checker_matches_literal_definitions_dense(dipa):
    """Small automata full of stores and real outputs: where the cases of
    Definition 10 and the AG/AL distinction matter most."""
    fast = check(dipa, max_per_kind=10**6)
    kinds, weight = literal_check(dipa)
    assert fast.subkinds == kinds
    if not kinds:
        assert fast.weight == weight


@pytest.mark.parametrize("kind", ["DP001", "DP002/AG", "DP002/AL", "DP003", "DP004/a/AG", "DP004/a/AL",
                                  "DP004/b/AG", "DP004/b/AL", "DP004/c/AG", "DP004/c/AL"])
def test_generator_produces_both_verdicts(kind):
    """Guard against a vacuous property: both verdicts and every kind occur
    (one test per kind, so that pytest-xdist runs them side by side)."""
    from hypothesis import find
    from tests.dipa_strategies import dipas as gen
    find(gen(), lambda d: kind in check(d, max_per_kind=10**6).subkinds,
         settings=settings(max_examples=5000, deadline=None))


def test_generator_produces_private_blocks():
    from hypothesis import find
    from tests.dipa_strategies import dipas as gen
    find(gen(), lambda d: check(d).well_formed and check(d).weight > 0,
         settings=settings(max_examples=5000, deadline=None))


def test_regression_cases_a_and_b_from_the_same_state():
    """Found by the dense property in CI: a case-(a) root and a case-(b) root that
    enter the same state must both be reported (one search per case)."""
    from fractions import Fraction
    from dslc.ir.dipa import OUT_INSAMPLE, DiPA, Guard, State, Transition, symbol
    z = Fraction(0)
    d = DiPA("r")
    for i in range(5):
        d.add_state(State(f"q{i}", i > 0, z, z))
    top = symbol("⊤")
    d.add_transition(Transition(0, Guard.TRUE, 1, top, True))
    d.add_transition(Transition(1, Guard.GE, 2, OUT_INSAMPLE, False))
    d.add_transition(Transition(1, Guard.LT, 0, top, True))
    d.add_transition(Transition(2, Guard.TRUE, 3, top, True))
    d.add_transition(Transition(3, Guard.TRUE, 4, top, True))
    d.add_transition(Transition(4, Guard.LT, 2, OUT_INSAMPLE, True))
    kinds, _ = literal_check(d)
    assert {"DP004/a/AL", "DP004/b/AL"} <= kinds
    assert check(d, max_per_kind=10**6).subkinds == kinds
