"""The engine choice for `hmm`/`mdp` checks (issue 14): numeric models whose
pruned enumeration is small are decided by enumeration, the others by SMT,
and the verdict never depends on the engine.

Random small models (tests/test_bounded_property.py's strategy, with larger
horizons) are checked by every engine — the automatic choice, SMT, the
pruned integer enumeration, the exact set-DP — and compared with each other
and with the literal semantics; the work counted before the enumeration is
compared with the work it does."""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.bounded import check as pcheck
from dslc.bounded.exact import (LOOKAHEAD_BITS, _lp_bound, continuation_bounds, enumerate_check,
                                enumeration_work, pruned_check)
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


def _wide(k: int) -> str:
    lines = ["hmm wide {", "states " + ", ".join(f"s{i}" for i in range(6)), "observations a, b, c",
             "prior s0: 1/2, s1: 1/2"]
    for i in range(6):
        lines.append(f"s{i} -> " + ", ".join(f"s{j}: 1/6" for j in range(6)))
        lines.append(f"s{i} emits a: 1/3, b: 1/3, c: 1/3")
    lines += ["secret x = {s0}", "secret y = {s1}", "protect x, y", f"check ε = ln 2, k = {k}", "}"]
    return "\n".join(lines)


def test_large_numeric_model_is_probed_then_smt():
    """Beyond the bound of the enumeration's work, `auto` tries the pruned
    enumeration under a work cap: here the look-ahead closes both directions
    at once; with no work at all, SMT decides every direction."""
    model = load_model(_wide(30))
    assert pcheck.choose_engine(model) == ("probe", None)
    outcome, engine, stats = pcheck.check_probe(model, 30)
    assert (outcome.verdict, engine, stats.complete) == ("private", "enum", True)
    outcome, engine, stats = pcheck.check_probe(model, 30, max_work=0)
    assert (outcome.verdict, engine, stats.complete) == ("private", "smt", False)


def test_enumeration_off_means_smt(monkeypatch):
    monkeypatch.setattr(pcheck, "ENUM_WORK_LIMIT", 0)
    assert pcheck.choose_engine(load_model(_wide(30))) == ("smt", None)
    assert pcheck.choose_engine(load_model(_wide(2))) == ("smt", None)


# ---------------------------------------------------------------- the pruned enumeration (issue 14)
def _sides(model, pair):
    num = model.numeric({})
    return (num, num.conditioned(model.secrets[pair.left].states),
            num.conditioned(model.secrets[pair.right].states))


def _plain(num, x, y, model):
    """Both directions' first violations by the unpruned enumeration (every sequence)."""
    c, e, k = model.epsilon.exact_bound, model.epsilon.value, model.horizon
    return [enumerate_check(num, x, y, k, c, e).violation, enumerate_check(num, y, x, k, c, e).violation]


VARIANTS = [{}, {"merge": False}, {"lookahead": False}, {"lookahead": False, "merge": False},
            {"ratio_prune": False}]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(), st.integers(1, 5))
def test_pruned_enumeration_equals_the_unpruned_one(text, k):
    """Same verdict, same violating directions and the very same witness (the
    first violating sequence in depth-first order, with its exact
    probabilities) as the enumeration of every sequence — for every
    combination of the prunings.  A prune that dropped a violating subtree
    would change the witness or the verdict here."""
    text = text.rsplit("k = ", 1)[0] + f"k = {k}\n}}"
    model = load_model(text)
    for pair in model.pairs:
        num, x, y = _sides(model, pair)
        expected = _plain(num, x, y, model)
        for options in VARIANTS:
            res = pruned_check(num, x, y, k, model.epsilon.exact_bound, model.epsilon.value, **options)
            assert res.complete
            assert res.violations == expected, (options, text)
        # one direction at a time, too
        for want in ((True, False), (False, True)):
            res = pruned_check(num, x, y, k, model.epsilon.exact_bound, model.epsilon.value, want=want)
            assert [v if w else None for v, w in zip(res.violations, want)] == \
                   [v if w else None for v, w in zip(expected, want)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(), st.integers(1, 4))
def test_check_level_engines_agree(text, k):
    """`enum` (pruned), `enum-plain`, `probe` (at several work caps, SMT for
    the rest) and SMT: same verdict and violating directions; the two
    enumerations report the same witnesses."""
    text = text.rsplit("k = ", 1)[0] + f"k = {k}\n}}"
    model = load_model(text)
    smt = pcheck.check_model(model, 30)
    pruned = pcheck.check_exact(model, 30, "enum")
    plain = pcheck.check_exact(model, 30, "enum-plain")
    assert smt.verdict == pruned.verdict == plain.verdict, text
    assert _directions(smt) == _directions(pruned) == _directions(plain), text
    assert [(v.observations, v.actions, v.p_left, v.p_right) for v in pruned.violations] == \
           [(v.observations, v.actions, v.p_left, v.p_right) for v in plain.violations]
    for cap in (0, 50, None):
        probe, _engine, _stats = pcheck.check_probe(model, 30, max_work=cap)
        assert probe.verdict == smt.verdict and _directions(probe) == _directions(smt), (cap, text)


def _continuations(num, r: int):
    """c_s(u) for every continuation u of r steps (actions and observations), per state s."""
    acts = list(itertools.product(range(num.n_actions), repeat=r))
    for a in acts:
        for w in itertools.product(range(num.n_obs), repeat=r):
            vec = []
            for s in range(num.n_states):
                # a continuation from s: r transitions, each followed by an emission
                alpha = [F(int(i == s)) for i in range(num.n_states)]
                for t in range(r):
                    nxt = [F(0)] * num.n_states
                    for i, v in enumerate(alpha):
                        if v:
                            for j, p in num.trans[a[t]][i].items():
                                nxt[j] += v * p
                    alpha = [nxt[j] * num.emit[j].get(w[t], F(0)) for j in range(num.n_states)]
                vec.append(sum(alpha, F(0)))
            yield vec


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(), st.integers(1, 3), st.data())
def test_continuation_bounds_hold_for_every_continuation(text, r, data):
    """The look-ahead lemma, by brute force: c_s(u) ≤ L_r(s, s')·c_s'(u) for
    every continuation u, and α·c(u) ≤ LP(α, β)·β·c(u) for random α, β."""
    model = load_model(text)
    num = model.numeric({})
    inv = continuation_bounds(num, r)
    assert inv is not None and len(inv) == r + 1
    scale = 1 << LOOKAHEAD_BITS
    n = num.n_states
    alpha = [F(x) for x in data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))]
    beta = [F(x) for x in data.draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))]
    bound = _lp_bound(alpha, beta, inv[r], scale)
    for c in _continuations(num, r):
        for s in range(n):
            for s2 in range(n):
                # inv = 1/L (rounded down): c_s·inv ≤ scale·c_s'
                assert c[s] * inv[r][s][s2] <= scale * c[s2]
        if bound is not None:
            assert sum(a * x for a, x in zip(alpha, c)) <= bound * sum(b * x for b, x in zip(beta, c))


BOUNDARY = """hmm edge {
    states s0, s1, u, v
    observations q, a, c
    prior s0: 1/2, s1: 1/2
    s0 -> u: 1/2, v: 1/2
    s1 -> u: 1/4, v: 3/4
    u -> u; v -> v
    s0 emits q; s1 emits q
    u emits a: 1/2, c: 1/2
    v emits a
    secret x = {s0}
    secret y = {s1}
    protect x, y
    check ε = EPS, k = K
}"""


def test_the_ratio_bound_closes_at_equality_and_not_above():
    """After (q, a) the forward vectors are α = (u: 1/4, v: 1/2) and
    β = (u: 1/8, v: 3/4): max α_s/β_s = 2 (and β_v/α_v = 3/2).  With e^ε = 2 every extension is
    private and the walk is cut there; with e^ε = 3/2 it must not be: (q, a, c)
    concentrates on u and has ratio exactly 2.  (e^(7/10) ≈ 2.014 > 2 > e^(1/2).)"""
    for eps, private in (("ln 2", True), ("ln(3/2)", False), ("1/2", False), ("7/10", True),
                         ("ln(1999/1000)", False), ("ln(2001/1000)", True)):
        for k in (3, 4, 6):
            model = load_model(BOUNDARY.replace("EPS", eps).replace("K", str(k)))
            num, x, y = _sides(model, model.pairs[0])
            expected = _plain(num, x, y, model)
            for options in VARIANTS:
                res = pruned_check(num, x, y, k, model.epsilon.exact_bound, model.epsilon.value, **options)
                assert res.violations == expected
                assert (res.violations == [None, None]) == private, (eps, k, options)
                if options.get("ratio_prune", True):
                    assert res.cut > 0          # the bound did close something
            if not private:              # x over y, with the ratio 2 of the state u
                assert expected[1] is None and expected[0][2] == 2 * expected[0][3]


DISJOINT = """mdp twin {
    states s0, s1, a0, a1, b0, b1
    observations q, h, t
    actions L, R
    prior s0: 1/2, s1: 1/2
    s0 -> a0: 1/2, a1: 1/2
    s1 -> b0: 1/2, b1: 1/2
    a0 on L -> a0: 2/3, a1: 1/3
    a0 on R -> a1
    a1 -> a0: 1/2, a1: 1/2
    b0 on L -> b0: 2/3, b1: 1/3
    b0 on R -> b1
    b1 -> b0: 1/2, b1: 1/2
    s0 emits q; s1 emits q
    a0 emits h: 3/4, t: 1/4
    a1 emits h: 1/4, t: 3/4
    b0 emits h: 2/3, t: 1/3
    b1 emits h: 1/3, t: 2/3
    secret x = {s0}
    secret y = {s1}
    protect x, y
    check ε = EPS, k = K
}"""


def test_look_ahead_closes_disjoint_supports():
    """The two secrets reach disjoint states (β_s = 0 wherever α_s > 0), so the
    plain ratio bound never applies; the look-ahead bounds the continuations
    and cuts the walk at depth 1 when e^ε is large enough — and the answer
    stays that of the unpruned enumeration for every ε."""
    for eps in ("ln 2", "ln 4", "ln 16", "ln 100", "ln 1000"):
        model = load_model(DISJOINT.replace("EPS", eps).replace("K", "6"))
        num, x, y = _sides(model, model.pairs[0])
        expected = _plain(num, x, y, model)
        plain = pruned_check(num, x, y, 6, model.epsilon.exact_bound, None, lookahead=False, merge=False)
        ahead = pruned_check(num, x, y, 6, model.epsilon.exact_bound, None)
        assert plain.violations == ahead.violations == expected
        if eps == "ln 1000":
            # private: the plain bound closes only prefixes of probability 0 on a side, so the walk
            # expands hundreds of prefixes; the look-ahead closes both directions at the three
            # prefixes of length 1
            assert expected == [None, None] and plain.nodes > 300
            assert ahead.nodes == 3 and ahead.cut == 3


def test_merging_keeps_the_repeated_survey_polynomial():
    """The repeated interactive survey (every answer carries information, ε
    tight): the plain ratio bound rarely cuts, merging proportional prefixes
    does.  (The look-ahead alone closes it at the root, so it is off here.)"""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_pufferfish import REPEATED
    from dataclasses import replace
    base = load_model(REPEATED)
    for k in (4, 6):
        model = replace(base, horizon=k, epsilon=replace(base.epsilon, ln_base=F(4) ** (k - 1)))
        num, x, y = _sides(model, model.pairs[0])
        merged = pruned_check(num, x, y, k, model.epsilon.exact_bound, None, lookahead=False)
        alone = pruned_check(num, x, y, k, model.epsilon.exact_bound, None, lookahead=False, merge=False)
        assert merged.violations == alone.violations == _plain(num, x, y, model) == [None, None]
        assert merged.merged > 0 and merged.work < alone.work
    # a hair tighter and the bound is violated: found with and without merging
    model = replace(base, horizon=5, epsilon=replace(base.epsilon, ln_base=F(4) ** 4 - F(1, 100)))
    num, x, y = _sides(model, model.pairs[0])
    expected = _plain(num, x, y, model)
    assert expected[0] is not None
    for options in VARIANTS:
        assert pruned_check(num, x, y, 5, model.epsilon.exact_bound, None, **options).violations == expected


def test_the_enumeration_bound_covers_the_pruned_walk():
    """The work counted beforehand (α ≠ 0 and β ≠ 0 prefixes) bounds what the
    pruned walk does, so `enum` never runs past its estimate."""
    for seed in range(6):
        model = load_model(_random_mdp(seed, 5))
        bound = pcheck.enumeration_estimate(model, 10 ** 12)
        stats = pcheck.prune_model(model)[2]
        assert bound is not None and stats.work <= bound


def _random_mdp(seed: int, k: int) -> str:
    import random
    rng = random.Random(seed)

    def row(m):
        w = [0 if rng.random() < 0.3 else rng.randint(1, 6) for _ in range(m)]
        if not any(w):
            w[rng.randrange(m)] = 1
        return ", ".join(f"{nm}: {F(x, sum(w))}" for nm, x in zip(names[:m], w) if x)
    names = ["s0", "s1", "s2", "s3"]
    lines = ["mdp r {", "states s0, s1, s2, s3", "observations o0, o1, o2", "actions A0, A1",
             "prior s0: 1/4, s1: 1/4, s2: 1/4, s3: 1/4"]
    for s in names:
        for a in ("A0", "A1"):
            lines.append(f"{s} on {a} -> {row(4)}")
        lines.append(f"{s} emits " + row(3).replace("s0", "o0").replace("s1", "o1").replace("s2", "o2"))
    lines += ["secret a = {s0}", "secret b = {s1}", "protect a, b", f"check ε = ln 1000, k = {k}", "}"]
    return "\n".join(lines)


# ---------------------------------------------------------------- the benchmark scripts run
def test_bench_scripts_run():
    """Tiny runs of the Pufferfish benchmarks (their figures are in
    docs/pufferfish.md, measured by the scripts, never asserted here); the
    scripts abort on any disagreement between engines."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    runs = [["benchmarks/bench_bounded_engines.py", "--kmin", "2", "--kmax", "3", "--seeds", "1", "--limit", "5",
             "--repeat", "1"],
            ["benchmarks/bench_bounded_engines.py", "--sweep", "12", "--kmax", "4"],
            ["benchmarks/bench_pufferfish.py", "--ks", "2,3", "--limit", "10"]]
    for args in runs:
        proc = subprocess.run([sys.executable, *args], cwd=root, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, (args, proc.stderr[-2000:])
        assert "| 3 |" in proc.stdout or "random models" in proc.stdout, proc.stdout[-2000:]


def test_an_enumeration_witness_is_recomputed_before_it_is_reported(monkeypatch):
    """The exact engines' witnesses go through the plain rational forward
    recursion: a witness whose probability the engine got wrong is a bug
    (an error), never a reported violation."""
    model = load_model(BOUNDARY.replace("EPS", "ln(3/2)").replace("K", "3"))
    decided, _undecided, _stats = pcheck.prune_model(model)
    found = [v for _d, v in decided if v is not None]
    assert found and all(v.p_left > 0 for v in found)
    real = pcheck.pruned_check

    def wrong(*args, **kwargs):
        res = real(*args, **kwargs)
        res.violations = [None if v is None else (v[0], v[1], v[2] * 2, v[3]) for v in res.violations]
        return res
    monkeypatch.setattr(pcheck, "pruned_check", wrong)
    with pytest.raises(RuntimeError, match="failed its exact re-check"):
        pcheck.prune_model(model)
