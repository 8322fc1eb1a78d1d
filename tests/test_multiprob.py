"""Path probabilities, witnesses and lower bounds of multi-variable automata
(dslc/dipa/multiprob.py, docs/multivariable.md "Probabilities and evidence").

- exact values by example (orders of i.i.d. draws: 1/n!, the range monitor's
  1/((n+1)(n+2)));
- on single-variable paths the same numbers as dslc.dipa.prob.path_probability;
- against a literal Monte Carlo simulation of the path (6 standard deviations);
- output events: the sum over the paths with the same outputs, against exact
  values and a literal run of the automaton (Monte Carlo of the outputs);
- every "not private" of DiPAut's corpus and of random automata (some with
  branches split into pieces with equal outputs): a witness that is an output
  event, adjacent, and whose recomputed loss exceeds 2ε, or an explicit "not
  found"; every "private": an output event with d_lower ≤ d, whose
  probabilities a literal run confirms.
"""

from __future__ import annotations

import decimal
import math
import random
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.dipa import multiprob as mp
from dslc.dipa import prob
from dslc.dipa.multivar import NOT_PRIVATE, PRIVATE, build_product, check_multi
from dslc.dipa.paths import matching_paths
from dslc.dipa.prob import Step
from dslc.ir.dipa import OUT_INSAMPLE, OUT_INSAMPLE_PRIME, OutKind, symbol
from dslc.ir.dipaut_reader import to_multi
from dslc.ir.multi_dipa import GE, LT, Literal, MState, MTransition, MultiDiPA, from_dipa
from tests.dipaut_format import distinct_corpus_files
from tests.dipa_strategies import dipas, multi_dipas, split_multi_dipas, split_pieces

FAST = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
CORPUS = Path(__file__).parent / "fixtures" / "dipaut"
TOP = symbol("⊤")
HALF = Fraction(1, 2)


def _m(states, transitions) -> MultiDiPA:
    m = MultiDiPA("t")
    for name, is_input, d in states:
        m.states.append(MState(name, is_input, Fraction(d)))
    for src, guard, dst, out, stores in transitions:
        m.transitions.append(MTransition(src, tuple(Literal(v, op) for v, op in guard), dst, out,
                                         frozenset(stores)))
    return m


def _close(p: mp.Probability, exact: Fraction) -> bool:
    return abs(p.probability - Decimal(exact.numerator) / Decimal(exact.denominator)) <= p.error + Decimal("1e-25")


# ------------------------------------------------------------------ by example
def test_an_increasing_chain_of_iid_draws_has_probability_one_over_n_factorial():
    # x := draw; then n times: insample >= x, x := insample (all means 0, one rate)
    m = _m([("q0", True, 1), ("q1", True, 1)],
           [(0, (), 1, TOP, "x"), (1, (("x", GE),), 1, TOP, "x")])
    for n in (1, 2, 5):
        steps = [Step(0, Fraction(0))] + [Step(1, Fraction(0))] * n
        assert _close(mp.path_probability(m, steps, Fraction(1)), Fraction(1, math.factorial(n + 1)))


def test_the_range_monitor_counts_its_orders_exactly():
    # l, r stored; n draws with l <= insample < r (i.i.d.): Pr = 1/((n+1)(n+2)),
    # the 2-core of the constraint graph, summed over orders with twins
    m = _m([("a", True, 1), ("b", True, 1), ("c", True, 1)],
           [(0, (), 1, TOP, "l"), (1, (), 2, TOP, "r"), (2, (("l", GE), ("r", LT)), 2, TOP, ())])
    for n in (1, 3, 12):
        steps = [Step(0, Fraction(0)), Step(1, Fraction(0))] + [Step(2, Fraction(0))] * n
        assert _close(mp.path_probability(m, steps, Fraction(1, 3)), Fraction(1, (n + 1) * (n + 2)))


def test_contradictory_and_unstored_comparisons():
    m = _m([("a", True, 1), ("b", True, 1), ("c", True, 1)],
           [(0, (), 1, TOP, "lr"), (1, (("l", GE),), 2, TOP, ()), (2, (("r", LT), ("l", GE)), 2, TOP, ())])
    assert mp.path_probability(m, [Step(0, Fraction(0)), Step(1, Fraction(0))], Fraction(1)).probability > 0
    bad = _m([("a", True, 1), ("b", True, 1)], [(0, (("x", GE),), 1, TOP, ())])
    with pytest.raises(mp.PathError):
        mp.path_probability(bad, [Step(0, Fraction(0))], Fraction(1))
    with pytest.raises(mp.PathError):        # an input at... a step that starts elsewhere
        mp.path_probability(m, [Step(0, Fraction(0)), Step(2, Fraction(0))], Fraction(1))


def test_the_work_budget_is_an_error_never_a_number():
    m = _m([("a", True, 1), ("b", True, 1), ("c", True, 1)],
           [(0, (), 1, TOP, "l"), (1, (), 2, TOP, "r"), (2, (("l", GE), ("r", LT)), 2, TOP, ())])
    steps = [Step(0, Fraction(0)), Step(1, Fraction(0))] + [Step(2, Fraction(k, 7)) for k in range(14)]
    with pytest.raises(mp.TooExpensive):
        mp.path_probability(m, steps, Fraction(1), budget=2_000)


# ------------------------------------------------------------------ single variable: prob.py's numbers
def _walk(rnd: random.Random, n_trans, out_edges, initial, length):
    path, q = [], initial
    for _ in range(length):
        if not out_edges[q]:
            break
        i = rnd.choice(out_edges[q])
        path.append(i)
        q = n_trans[i].target
    return path


VALUES = [Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(3, 2)]


def _random_steps(m, path, rnd):
    steps = []
    for i in path:
        t = m.transitions[i]
        a = rnd.choice(VALUES) if m.states[t.source].is_input else None
        iv = None
        if t.output.is_real:
            iv = rnd.choice([(Fraction(0), None), (None, Fraction(1, 2)), (Fraction(-1), Fraction(1)), (None, None)])
        steps.append(Step(i, a, iv))
    return steps


@settings(FAST, max_examples=60)
@given(dipas(max_states=4), st.integers(0, 2**32), st.integers(1, 6), st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3)]))
def test_single_variable_paths_have_prob_py_numbers(dipa, seed, length, eps):
    m = from_dipa(dipa)
    rnd = random.Random(seed)
    path = _walk(rnd, m.transitions, m.out_edges(), m.initial, length)
    if not path:
        return
    steps = _random_steps(m, path, rnd)
    try:
        ours = mp.path_probability(m, steps, eps)
    except mp.PathError:
        return                     # compares x before the path stores it (prob.py assumes x0)
    ref = prob.path_probability(dipa, steps, eps)
    assert abs(ours.probability - ref.probability) <= ours.error + ref.error + Decimal("1e-18") * ref.probability + Decimal("1e-30")


# ------------------------------------------------------------------ literal reference: Monte Carlo
def _simulate(m: MultiDiPA, steps: list[Step], eps: Fraction, n: int, rng) -> float:
    """The path followed literally, n runs at once: the fraction of runs that take it."""
    ok = np.ones(n, dtype=bool)
    held: dict[str, np.ndarray] = {}
    for s in steps:
        t = m.transitions[s.transition]
        st_ = m.states[t.source]
        a = float(s.input) if s.input is not None else 0.0
        z = rng.laplace(float(st_.mu) + a, 1 / float(st_.d * eps), n)
        for lit in t.guard:
            ok &= (z >= held[lit.var]) if lit.op == GE else (z < held[lit.var])
        if s.interval is not None:
            lo, hi = s.interval
            w = z
            if t.output.kind is OutKind.INSAMPLE_PRIME:
                w = rng.laplace(float(st_.mu_prime) + a, 1 / float(st_.d_prime * eps), n)
            if lo is not None:
                ok &= w > float(lo)
            if hi is not None:
                ok &= w < float(hi)
        for v in t.assigns:
            held[v] = z
    return float(ok.mean())


def _product_walk(m, rnd, length):
    p = build_product(m)
    node, path = 0, []
    for _ in range(length):
        if not p.out[node]:
            break
        e = rnd.choice(p.out[node])
        path.append(p.edges[e][1])
        node = p.edges[e][2]
    return path


@settings(FAST, max_examples=30)
@given(multi_dipas(max_states=4), st.integers(0, 2**32), st.integers(1, 5))
def test_probabilities_agree_with_a_literal_simulation(m, seed, length):
    rnd = random.Random(seed)
    try:
        path = _product_walk(m, rnd, length)
    except Exception:
        return
    if not path:
        return
    steps = _random_steps(m, path, rnd)
    eps = rnd.choice([Fraction(1, 2), Fraction(1), Fraction(2)])
    try:
        ours = mp.path_probability(m, steps, eps)
    except (mp.PathError, mp.TooExpensive):
        return
    n = 40_000
    est = _simulate(m, steps, eps, n, np.random.default_rng(seed))
    p = float(ours.probability)
    assert abs(est - p) <= 6 * math.sqrt(max(p * (1 - p), 1e-6) / n) + 1e-4, (est, p)


@st.composite
def linear_paths(draw):
    """A chain automaton q0 → q1 → … whose steps compare with up to three of the
    variables stored so far and store into random ones: constraint graphs with
    cycles (the order sum) and twins.  The comparisons follow one imagined run,
    so the path is feasible."""
    n = draw(st.integers(2, 7))
    variables = ["a", "b", "c"]
    m = MultiDiPA("chain")
    held: dict[str, float] = {}
    for k in range(n):
        m.states.append(MState(f"q{k}", draw(st.booleans()), draw(st.sampled_from([Fraction(1, 2), Fraction(1)])),
                               Fraction(draw(st.integers(-1, 1)))))
        z = draw(st.integers(-8, 8)) / 4 + k / 1000
        compared = draw(st.lists(st.sampled_from(sorted(held)), min_size=min(2, len(held)), max_size=3,
                                 unique=True)) if held else []
        lits = tuple(sorted(Literal(v, GE if z >= held[v] else LT) for v in compared))
        stores = frozenset(draw(st.lists(st.sampled_from(variables), max_size=2, unique=True))) if k else frozenset("ab")
        out = OUT_INSAMPLE if draw(st.integers(0, 4)) == 0 else TOP
        m.transitions.append(MTransition(k, lits, k + 1, out, stores))
        held.update({v: z for v in stores})
    m.states.append(MState(f"q{n}", False, Fraction(1)))
    return m


@settings(FAST, max_examples=40)
@given(linear_paths(), st.integers(0, 2**32))
def test_order_sums_agree_with_a_literal_simulation(m, seed):
    rnd = random.Random(seed)
    steps = _random_steps(m, list(range(len(m.transitions))), rnd)
    eps = rnd.choice([Fraction(1, 2), Fraction(1)])
    ours = mp.path_probability(m, steps, eps)
    n = 40_000
    est = _simulate(m, steps, eps, n, np.random.default_rng(seed))
    p = float(ours.probability)
    assert abs(est - p) <= 6 * math.sqrt(max(p * (1 - p), 1e-6) / n) + 1e-4, (est, p)


# ------------------------------------------------------------------ output events
def _simulate_outputs(m: MultiDiPA, steps: list[Step], eps: Fraction, n: int, rng) -> float:
    """The automaton run literally, n runs at once, on the inputs of ``steps`` (consumed
    in order at input states): the fraction of runs whose first outputs are those of
    ``steps`` (a real output, insample or insample′, in the step's interval) -- the
    output event, whatever path the runs take."""
    inputs = [float(s.input) for s in steps if s.input is not None]
    st_ = m.states
    q = np.full(n, m.initial)
    used = np.zeros(n, dtype=int)
    ok = np.ones(n, dtype=bool)
    held = {v: np.full(n, np.nan) for v in m.variables}
    for s in steps:
        want = m.transitions[s.transition].output
        z, zp = np.full(n, np.nan), np.full(n, np.nan)
        for k, state in enumerate(st_):
            here = q == k
            if not here.any():
                continue
            a = np.zeros(n)
            if state.is_input:
                ok &= ~(here & (used >= len(inputs)))          # no input left: the run stops
                a[here] = [inputs[i] if i < len(inputs) else 0.0 for i in used[here]]
                used[here] += 1
            if state.d > 0:
                z[here] = rng.laplace(float(state.mu) + a[here], 1 / float(state.d * eps))
            if state.d_prime > 0:
                zp[here] = rng.laplace(float(state.mu_prime) + a[here], 1 / float(state.d_prime * eps))
        taken = np.zeros(n, dtype=bool)
        nxt = q.copy()
        stores = []
        for t in m.transitions:
            en = q == t.source
            for lit in t.guard:
                en &= (z >= held[lit.var]) if lit.op == GE else (z < held[lit.var])
            # an observer sees a symbol, or a number (whether it is insample or insample′)
            match = en & ((t.output == want) or (t.output.is_real and want.is_real))
            if s.interval is not None and t.output.is_real:
                w = zp if t.output.kind is OutKind.INSAMPLE_PRIME else z
                lo, hi = s.interval
                if lo is not None:
                    match &= w > float(lo)
                if hi is not None:
                    match &= w < float(hi)
            taken |= match
            nxt[en] = t.target
            stores += [(v, en) for v in t.assigns]
        for v, en in stores:
            held[v] = np.where(en, z, held[v])
        ok &= taken
        q = nxt
    return float(ok.mean())


def _range_monitor_split() -> MultiDiPA:
    """The range monitor with its `else` split into two pieces (as DiPAut's reader
    does): the output `⊥` does not determine the path."""
    bot = symbol("⊥")
    return _m([("a", False, 1), ("b", False, 1), ("c", True, 1), ("h", True, 1)],
              [(0, (), 1, TOP, "l"), (1, (), 2, TOP, "r"), (2, (("l", GE), ("r", LT)), 2, TOP, ()),
               (2, (("l", LT),), 3, bot, ()), (2, (("l", GE), ("r", GE)), 3, bot, ())])


def test_an_output_event_sums_the_paths_with_its_outputs():
    m = _range_monitor_split()
    z = Fraction(0)
    piece = [Step(0, None), Step(1, None), Step(3, z)]          # ⊥ by `insample < l`
    assert not mp.observable(m, piece)
    paths = matching_paths(m, [z], ["⊤", "⊤", "⊥"])
    assert sorted([s.transition for s in p] for p in paths) == [[0, 1, 3], [0, 1, 4]]
    lo = mp.loss(m, piece, piece, Fraction(1))
    assert lo.observable and lo.paths == 2
    # i.i.d. draws: Pr[l <= z < r] = 1/6, so the output ⊥ has probability 5/6 (the piece alone: 1/2)
    assert _close(lo.pr_alpha, Fraction(5, 6))
    assert _close(mp.path_probability(m, piece, Fraction(1)), Fraction(1, 2))
    # inside^2 then ⊥: 2 paths; and the literal run agrees
    steps = [Step(0, None), Step(1, None), Step(2, Fraction(1)), Step(2, Fraction(-1)), Step(4, HALF)]
    lo = mp.loss(m, steps, steps, Fraction(1, 2))
    est = _simulate_outputs(m, steps, Fraction(1, 2), 40_000, np.random.default_rng(7))
    p = float(lo.pr_alpha.probability)
    assert lo.paths == 2 and abs(est - p) <= 6 * math.sqrt(p * (1 - p) / 40_000), (est, p)


def test_pieces_of_a_split_branch_merge_back():
    # the chain of test_an_increasing_chain..., its loop split on y (stored at the start):
    # 2^n piece paths with the same outputs, one merged branch, probability 1/(n+1)!
    m = _m([("q0", True, 1), ("q1", True, 1)],
           [(0, (), 1, TOP, "xy"), (1, (("x", GE), ("y", GE)), 1, TOP, "x"), (1, (("x", GE), ("y", LT)), 1, TOP, "x")])
    merged, index = mp.merged_pieces(m)
    assert index == [0, 1, 1] and merged.transitions[1].guard == (Literal("x", GE),)
    n = 7
    steps = [Step(0, Fraction(0))] + [Step(1 + k % 2, Fraction(0)) for k in range(n)]
    assert len(matching_paths(m, [Fraction(0)] * (n + 1), ["⊤"] * (n + 1))) == 2 ** n   # the pieces' paths
    assert not mp.summable(m, steps, (m, list(range(3))))                                 # unmerged: > 64
    lo = mp.loss(m, steps, steps, Fraction(1))
    assert lo.observable and lo.paths == 1
    assert _close(lo.pr_alpha, Fraction(1, math.factorial(n + 1)))
    with pytest.raises(mp.PathError):
        mp.loss(m, steps, steps[:-1] + [Step(2, Fraction(0))], Fraction(1))


def test_a_leak_of_the_pieces_alone_is_not_reported():
    # q1's `true / a` split on b: the pieces leak b (a leaking cycle of paths), the
    # output `a` does not depend on the input at all
    a = symbol("a")
    m = _m([("q0", True, Fraction(1, 3)), ("q1", True, Fraction(1, 4))],
           [(0, (), 1, symbol("⊥"), "bc"), (1, (("b", GE),), 0, a, ()), (1, (("b", LT),), 0, a, ())])
    # the pieces as written show a leaking cycle of paths; the checker decides the
    # merged automaton, whose output does not depend on the input
    from dslc.dipa.multivar import MAX_PRODUCT, _decide
    assert _decide(m, False, MAX_PRODUCT).verdict == NOT_PRIVATE
    assert check_multi(m).verdict == PRIVATE


def _two_ways() -> MultiDiPA:
    """q releases insample either way, to q (which reads the next input) or to r
    (which reads none and then outputs ⊤)."""
    m = MultiDiPA("two-ways")
    m.states += [MState("s", False, Fraction(1)), MState("q", True, Fraction(1)), MState("r", False, Fraction(1))]
    m.transitions += [MTransition(0, (), 1, TOP, frozenset("x")),
                      MTransition(1, (Literal("x", GE),), 1, OUT_INSAMPLE),
                      MTransition(1, (Literal("x", LT),), 2, OUT_INSAMPLE),
                      MTransition(2, (), 1, TOP)]
    return m


def test_an_output_event_follows_the_inputs_each_path_reads():
    """The runs on inputs 0, 1 that print ⊤, a value, a value: q → q then either
    q → q or q → r (each reads its input at q); a run that went to r first
    prints ⊤ next.  The event is those two paths, and its probability their sum."""
    m = _two_ways()
    iv = (Fraction(0), None)
    steps = [Step(0, None), Step(1, Fraction(0), iv), Step(1, Fraction(1), iv)]
    other = steps[:2] + [Step(2, Fraction(1), iv)]
    assert not mp.observable(m, steps)
    lo = mp.loss(m, steps, steps, Fraction(1))
    assert lo.observable and lo.paths == 2
    a, b = (mp.path_probability(m, p, Fraction(1)) for p in (steps, other))
    exact = decimal.Context(prec=200)
    assert abs(lo.pr_alpha.probability - exact.add(a.probability, b.probability)) <= a.error + b.error


@settings(FAST, max_examples=40)
@given(split_multi_dipas(max_states=4, split_p=1.0), st.integers(0, 2**32), st.integers(1, 5))
def test_output_event_probabilities_agree_with_a_literal_run(m, seed, length):
    rnd = random.Random(seed)
    try:
        path = _product_walk(m, rnd, length)
    except Exception:
        return                       # the product refuses (a comparison before a store)
    if not path:
        return
    steps = _random_steps(m, path, rnd)
    eps = rnd.choice([Fraction(1, 2), Fraction(1)])
    try:
        lo = mp.loss(m, steps, steps, eps, event_only=True)
    except (mp.PathError, mp.TooExpensive):
        return
    if lo is None:
        return
    n = 40_000
    est = _simulate_outputs(m, steps, eps, n, np.random.default_rng(seed))
    p = float(lo.pr_alpha.probability)
    assert abs(est - p) <= 6 * math.sqrt(max(p * (1 - p), 1e-6) / n) + 1e-4, (est, p, lo.paths)


# ------------------------------------------------------------------ witnesses and lower bounds
def _check_witness(m, w: mp.MultiWitness):
    """A found witness is an output event, adjacent, and replays from its plain steps
    (transition, α input, β input, interval) at full precision with loss > 2ε."""
    if not w.found:
        assert w.reason.startswith(mp.NOT_FOUND) or w.reason == mp.NOT_AN_EVENT or w.reason.startswith("no path")
        return False
    assert w.loss.observable and w.loss.paths >= 1
    mp.check_adjacent(m, w.loss.alpha, w.loss.beta, Fraction(1))
    plain = [(a.transition, a.input, b.input, a.interval) for a, b in zip(w.loss.alpha, w.loss.beta)]
    alpha = [Step(t, x, iv) for t, x, _, iv in plain]
    beta = [Step(t, y, iv) for t, _, y, iv in plain]
    again = mp.verify(m, alpha, beta, w.loss.epsilon, budget=None)
    eps = Decimal(w.loss.epsilon.numerator) / Decimal(w.loss.epsilon.denominator)
    assert again is not None and again.observable and again.lower > 2 * eps
    assert abs(again.value - w.loss.value) <= Decimal("1e-6") * (1 + abs(again.value))
    lows = [low for _, _, low in w.rows]
    assert lows[-1] > 2 * float(eps) and all(b > a for a, b in zip(lows, lows[1:])), w.rows   # it grows
    assert w.rows[-1][0] == w.length
    return True


def _check_lower_bound(m, r, lb: mp.MultiLowerBound):
    assert lb.d_lower <= r.d
    if lb.loss is None:
        assert lb.d_lower == 0
        return
    assert lb.loss.observable and lb.loss.paths >= 1
    mp.check_adjacent(m, lb.loss.alpha, lb.loss.beta, Fraction(1))
    eps = Decimal(lb.loss.epsilon.numerator) / Decimal(lb.loss.epsilon.denominator)
    assert lb.loss.lower / eps >= Decimal(lb.d_lower.numerator) / Decimal(lb.d_lower.denominator)


def test_corpus_witnesses_and_lower_bounds():
    found = total = 0
    for f, text in distinct_corpus_files(CORPUS):
        m = to_multi(text)
        r = check_multi(m)
        if r.verdict == NOT_PRIVATE:
            for v in r.violations[:1]:
                total += 1
                if _check_witness(m, mp.witness(m, v)):
                    found += 1
        elif r.verdict == PRIVATE and r.d and "non_input" not in f.name:
            _check_lower_bound(m, r, mp.lower_bound(m, r, work=10_000))
    assert total == 23
    # measured: 21 of 23 at the default work; the two left are DP001 on a cycle of rate 1/6
    # whose order sums of 7+ turns exceed it (docs/multivariable.md)
    assert found >= 21, (found, total)


@settings(FAST, max_examples=40)
@given(split_multi_dipas(max_states=4))
def test_random_automata_witnesses_replay_and_lower_bounds_stay_below_d(m):
    r = check_multi(m)
    if r.verdict == NOT_PRIVATE:
        for v in r.violations[:2]:
            _check_witness(m, mp.witness(m, v, work=40_000))
    elif r.verdict == PRIVATE and r.d:
        _check_lower_bound(m, r, mp.lower_bound(m, r, work=8_000))


RATES = [Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(1, 3)]


@st.composite
def threshold_loops(draw):
    """Sparse-vector-like automata with k thresholds checked in turn (private):
    q0 stores t0; state i loops on `insample < t_i` and on `insample >= t_i`
    stores a fresh threshold (or releases insample′) and moves on."""
    k = draw(st.integers(1, 2))
    m = MultiDiPA("svt-k")
    m.states.append(MState("q0", draw(st.booleans()), draw(st.sampled_from(RATES))))
    variables = [f"t{i}" for i in range(k)]
    m.transitions.append(MTransition(0, (), 1, TOP, frozenset(variables)))
    for i in range(k):
        q = i + 1
        m.states.append(MState(f"q{q}", True, draw(st.sampled_from(RATES)), Fraction(0), draw(st.sampled_from(RATES))))
        v = variables[i]
        m.transitions.append(MTransition(q, (Literal(v, LT),), q, symbol("⊥"), frozenset()))
        out = draw(st.sampled_from([TOP, OUT_INSAMPLE_PRIME]))
        m.transitions.append(MTransition(q, (Literal(v, GE),), q + 1, out, frozenset()))
    m.states.append(MState("end", False, Fraction(1)))
    return m


@settings(FAST, max_examples=10)
@given(threshold_loops())
def test_threshold_loops_lower_bounds_stay_below_d(m):
    r = check_multi(m)
    assert r.verdict == PRIVATE
    lb = mp.lower_bound(m, r, work=30_000)
    assert 0 < lb.d_lower <= r.d
    eps = Decimal(lb.loss.epsilon.numerator) / Decimal(lb.loss.epsilon.denominator)
    assert lb.loss.lower / eps >= Decimal(lb.d_lower.numerator) / Decimal(lb.d_lower.denominator)


@st.composite
def split_threshold_loops(draw):
    return split_pieces(draw, draw(threshold_loops()))


@settings(FAST, max_examples=12)
@given(st.one_of(split_threshold_loops(), split_multi_dipas(max_states=4)), st.integers(0, 2**32))
def test_lower_bound_witnesses_are_output_events_of_a_literal_run(m, seed):
    """Pr_α and Pr_β of a lower bound's witness are the probabilities that a literal
    run of the automaton on α (β) gives the witness's outputs."""
    r = check_multi(m)
    if r.verdict != PRIVATE or not r.d:
        return
    lb = mp.lower_bound(m, r, work=8_000)
    _check_lower_bound(m, r, lb)
    if lb.loss is None:
        return
    n = 40_000
    for steps, pr in ((lb.loss.alpha, lb.loss.pr_alpha), (lb.loss.beta, lb.loss.pr_beta)):
        est = _simulate_outputs(m, steps, lb.loss.epsilon, n, np.random.default_rng(seed))
        p = float(pr.probability)
        assert abs(est - p) <= 6 * math.sqrt(max(p * (1 - p), 1e-6) / n) + 1e-4, (est, p, lb.loss.paths)
