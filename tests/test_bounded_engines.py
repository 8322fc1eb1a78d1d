"""The engine choice for `hmm`/`mdp` checks (issue 14): numeric models whose
pruned enumeration is small are decided by enumeration, the others by SMT,
and the verdict never depends on the engine.

Random small models (tests/test_bounded_property.py's strategy, with larger
horizons) are checked by every engine — the automatic choice, SMT, the
pruned integer enumeration, the exact set-DP — and compared with each other
and with the literal semantics; the work counted before the enumeration is
compared with the work it does."""

from __future__ import annotations

from fractions import Fraction as F

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.bounded import check as pcheck
from dslc.bounded.exact import enumerate_check, enumeration_work
from tests.test_bounded import literal_private, load_model
from tests.test_bounded_property import models


def _verdict(outcome) -> str:
    return outcome.verdict


def _directions(outcome) -> set[tuple[int, int]]:
    return {(v.left, v.right) for v in outcome.violations}


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(models(), st.integers(1, 4))
def test_engines_agree(text, k):
    text = text.rsplit("k = ", 1)[0] + f"k = {k}\n}}"
    model = load_model(text)
    smt = pcheck.check_model(model, 30)
    enum = pcheck.check_exact(model, 30, "enum")
    dp = pcheck.check_exact(model, 30, "dp")
    assert smt.verdict in ("private", "violation")
    assert smt.verdict == enum.verdict == dp.verdict, text
    # every direction that can be violated is found by each engine
    assert _directions(smt) == _directions(enum) == _directions(dp), text
    if k <= 3:
        assert (smt.verdict == "private") == literal_private(model), text
    # the automatic choice: enumeration for these small numeric models
    engine, work = pcheck.choose_engine(model)
    assert engine == "enum" and work is not None and work <= pcheck.ENUM_WORK_LIMIT
    for v in enum.violations:           # witnesses carry the exact probabilities
        num = model.numeric({})
        pl = num.forward(num.conditioned(model.secrets[v.left].states), v.observations, v.actions)
        pr = num.forward(num.conditioned(model.secrets[v.right].states), v.observations, v.actions)
        assert (pl, pr) == (v.p_left, v.p_right)


@SETTINGS
@given(models(), st.integers(1, 5))
def test_pruned_enumeration_visits_exactly_the_possible_sequences(text, k):
    """The pruned enumeration reaches exactly the sequences of positive
    probability under the left side (the others cannot violate), and the
    work counted beforehand is finite and positive."""
    text = text.rsplit("k = ", 1)[0] + f"k = {k}\n}}"
    model = load_model(text)
    num = model.numeric({})
    for pair in model.pairs:
        left = num.conditioned(model.secrets[pair.left].states)
        right = num.conditioned(model.secrets[pair.right].states)
        # with c = ∞ nothing violates, so the enumeration visits every prefix it keeps
        res = enumerate_check(num, left, right, k, F(10) ** 30, None, prune=True)
        assert res.violation is None or res.violation[3] == 0
        work = enumeration_work(num, left, k, 10 ** 12)
        assert work is not None and work > 0
        leaves = _leaves(num, left, k)
        if res.violation is None:
            assert res.sequences == leaves


def _leaves(num, left, k: int) -> int:
    """Sequences of length k with a positive probability under ``left`` (brute force)."""
    import itertools
    acts = list(itertools.product(range(num.n_actions), repeat=k - 1)) if num.n_actions > 1 else [()]
    count = 0
    for a in acts:
        for w in itertools.product(range(num.n_obs), repeat=k):
            if num.forward(left, list(w), list(a) if a else None) > 0:
                count += 1
    return count


def test_symbolic_and_find_models_use_smt():
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    text = (root / "examples" / "geometric.dp").read_text(encoding="utf-8")
    for name in ("geometric_independent", "geometric_prior"):
        model = load_model(text, name)
        assert pcheck.choose_engine(model) == ("smt", None)
    numeric = load_model(text, "geometric_paper_prior")
    assert pcheck.choose_engine(numeric)[0] == "enum"
    assert pcheck.choose_engine(numeric, "smt") == ("smt", None)


def test_large_numeric_model_uses_smt():
    lines = ["hmm wide {", "states " + ", ".join(f"s{i}" for i in range(6)), "observations a, b, c",
             "prior s0: 1/2, s1: 1/2"]
    for i in range(6):
        lines.append(f"s{i} -> " + ", ".join(f"s{j}: 1/6" for j in range(6)))
        lines.append(f"s{i} emits a: 1/3, b: 1/3, c: 1/3")
    lines += ["secret x = {s0}", "secret y = {s1}", "protect x, y", "check ε = ln 2, k = 30", "}"]
    model = load_model("\n".join(lines))
    assert pcheck.choose_engine(model) == ("smt", None)
