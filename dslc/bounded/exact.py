"""Exact arithmetic for the Pufferfish check: rational bounds of e^ε, the
exact comparison of a rational ratio with e^ε, and the exhaustive
enumeration of observation sequences (a baseline and a cross-check).

Nothing here uses floating point.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from fractions import Fraction

from dslc.bounded.interrupt import checkpoint
from dslc.ir.hmm import NumericModel


def exp_bounds(x: Fraction, bits: int = 64) -> tuple[Fraction, Fraction]:
    """Rationals lo ≤ e^x ≤ hi with (hi - lo) / e^x about 2^-bits or less (x ≥ 0).

    For x > 0, e^x is irrational, so both inequalities are strict.
    """
    x = Fraction(x)
    if x < 0:
        raise ValueError("exp_bounds takes x >= 0")
    if x == 0:
        return Fraction(1), Fraction(1)
    # Taylor partial sums S_N ≤ e^x, and e^x ≤ S_N / (1 - x^(N+1)/(N+1)!) once that quotient < 1.
    target = Fraction(1, 2 ** (bits + 2))
    total = Fraction(0)
    term = Fraction(1)
    n = 0
    while True:
        total += term
        n += 1
        term = term * x / n                      # x^n / n!
        if term < target and term < 1:
            q = term                             # x^(N+1)/(N+1)! with N = n - 1
            # Remainder R_N ≤ q · e^x (Lagrange), so e^x ≤ S_N / (1 - q).
            upper = total / (1 - q)
            break
    scale = 2 ** bits
    lo = Fraction((total.numerator * scale) // total.denominator, scale)
    hi = Fraction(-((-upper.numerator * scale) // upper.denominator), scale)
    return lo, hi


def compare_with_exp(r: Fraction, x: Fraction, max_bits: int = 1 << 14) -> int:
    """The sign of r - e^x, decided exactly (x ≥ 0 rational).

    For x > 0, e^x is irrational and never equals a rational r, so refining
    the bounds always ends; ``max_bits`` only guards against absurd inputs.
    """
    if x == 0:
        return (r > 1) - (r < 1)
    bits = 64
    while bits <= max_bits:
        lo, hi = exp_bounds(x, bits)
        if r < lo:
            return -1
        if r > hi:
            return 1
        bits *= 4
    raise ArithmeticError("could not separate the ratio from e^ε")  # pragma: no cover


def exceeds(p_left: Fraction, p_right: Fraction, c_exact: Fraction | None, eps: Fraction | None) -> bool:
    """Is p_left > e^ε · p_right?  (c_exact = e^ε when rational, else ε is given.)"""
    if c_exact is not None:
        return p_left > c_exact * p_right
    assert eps is not None
    if p_right == 0:
        return p_left > 0
    return compare_with_exp(p_left / p_right, eps) > 0


def ratio(p_left: Fraction, p_right: Fraction) -> Fraction | None:
    """p_left / p_right, or None for an infinite ratio."""
    return None if p_right == 0 else p_left / p_right


# ------------------------------------------------------------------ enumeration
@dataclass
class EnumResult:
    violation: tuple[list[int], list[int], Fraction, Fraction] | None   # observations, actions, P_left, P_right
    sequences: int                 # leaves visited
    seconds: float
    complete: bool                 # False when the time budget ran out


def enumerate_check(model: NumericModel, left: list[Fraction], right: list[Fraction], k: int,
                    c_exact: Fraction | None, eps: Fraction | None, *,
                    prune: bool = False, deadline: float | None = None,
                    max_nodes: int | None = None) -> EnumResult:
    """Visit every observation sequence of length k (and every action
    sequence of length k-1) in depth-first order, sharing the forward vectors
    of common prefixes, and return the first sequence whose probability under
    ``left`` exceeds e^ε times its probability under ``right``.

    With ``prune`` a prefix of probability 0 under ``left`` is not extended:
    every extension has probability 0 under ``left``, and 0 > e^ε·p is false
    for every p ≥ 0, so none can violate (the answer is unchanged).

    The arithmetic is exact and in integers: with D and E the common
    denominators of the transition and emission rows and q the common
    denominator of a side's initial vector, a prefix of length t is carried
    as α·q·E^t·D^(t-1), an integer vector.  Both sides of a sequence share
    the scale E^k·D^(k-1), so Pr(ω | left) > c·Pr(ω | right) is
    Σα·q_right·c_den > c_num·Σβ·q_left, and the exact probabilities of a
    witness are Σα / (q_left·E^k·D^(k-1)) and likewise for β.

    ``max_nodes`` bounds the prefixes visited (``complete`` is then False);
    the time budget of :mod:`dslc.limits` is checked every few hundred nodes.
    """
    start = time.perf_counter()
    n = model.n_states
    n_obs = model.n_obs
    n_act = model.n_actions
    D = _lcm_den(p for rows in model.trans for row in rows for p in row.values())
    E = _lcm_den(p for row in model.emit for p in row.values())
    trans = [[sorted((s2, int(p * D)) for s2, p in row.items() if p) for row in rows] for rows in model.trans]
    emit = [[int(model.emit[s].get(o, 0) * E) for s in range(n)] for o in range(n_obs)]
    q_l = _lcm_den(left)
    q_r = _lcm_den(right)
    il = [int(x * q_l) for x in left]
    ir = [int(x * q_r) for x in right]
    cmp = _Comparator(c_exact, eps, q_l, q_r)
    scale_leaf = E ** k * D ** (k - 1)
    count = 0
    nodes = 0
    rng_n = range(n)

    def emitted(vec, em):
        return [v * e if v and e else 0 for v, e in zip(vec, em)]

    def step(vec, rows):
        nxt = [0] * n
        for s in rng_n:
            v = vec[s]
            if v:
                for s2, p in rows[s]:
                    nxt[s2] += v * p
        return nxt

    def result(hit):
        return EnumResult(hit, count, time.perf_counter() - start, True)

    stack: list[tuple[list[int], list[int], list[int], list[int]]] = []
    for o in range(n_obs - 1, -1, -1):
        stack.append((emitted(il, emit[o]), emitted(ir, emit[o]), [o], []))
    while stack:
        nodes += 1
        if not nodes & 255:
            checkpoint()
            if deadline is not None and time.perf_counter() > deadline:
                return EnumResult(None, count, time.perf_counter() - start, False)
            if max_nodes is not None and nodes > max_nodes:
                return EnumResult(None, count, time.perf_counter() - start, False)
        al, be, seq, aseq = stack.pop()
        if prune and not any(al):
            continue
        if len(seq) == k:
            count += 1
            sl, sr = sum(al), sum(be)
            if cmp.exceeds(sl, sr):
                return result((seq, aseq, Fraction(sl, q_l * scale_leaf), Fraction(sr, q_r * scale_leaf)))
            continue
        children = []
        for a in range(n_act):
            rows = trans[a]
            al2, be2 = step(al, rows), step(be, rows)
            aseq2 = aseq + [a] if n_act > 1 else aseq
            for o in range(n_obs):
                em = emit[o]
                children.append((emitted(al2, em), emitted(be2, em), seq + [o], aseq2))
        children.reverse()
        stack.extend(children)
    return result(None)


def _lcm_den(values) -> int:
    d = 1
    for v in values:
        den = Fraction(v).denominator
        if den != 1:
            d = d * den // math.gcd(d, den)
    return d


class _Comparator:
    """Is Σα/q_left > e^ε·Σβ/q_right, for integer sums on a common scale?"""

    def __init__(self, c_exact: Fraction | None, eps: Fraction | None, q_l: int, q_r: int):
        self.q_l, self.q_r = q_l, q_r
        self.c = c_exact
        if c_exact is None:
            assert eps is not None
            self.eps = eps
            self.lo, self.hi = exp_bounds(eps, 64)

    def exceeds(self, sl: int, sr: int) -> bool:
        if self.c is not None:
            return sl * self.q_r * self.c.denominator > self.c.numerator * sr * self.q_l
        if sr == 0:
            return sl > 0
        r = Fraction(sl * self.q_r, sr * self.q_l)
        if r < self.lo:
            return False
        if r > self.hi:
            return True
        return compare_with_exp(r, self.eps) > 0


def enumeration_work(model: NumericModel, left: list[Fraction], k: int, limit: int,
                     max_supports: int = 4096) -> int | None:
    """The work of :func:`enumerate_check` with ``prune`` for the side ``left``,
    computed before running it, or None when it exceeds ``limit`` (or the
    supports are too many to count).

    A prefix is extended iff its forward vector α is not 0, and α_t(s) > 0
    iff s is in the support set reached by the prefix (every quantity is
    non-negative, so no sum cancels): the number of prefixes of each length
    follows from a dynamic programme over support sets with counts — exact,
    not an estimate.  The work is Σ over extended prefixes of
    |actions|·(2·|row entries| + 2·|observations|·|states|) plus the leaves.
    """
    n, n_obs, n_act = model.n_states, model.n_obs, model.n_actions
    succ = [[frozenset(row) for row in rows] for rows in model.trans]
    emits = [frozenset(s for s in range(n) if model.emit[s].get(o)) for o in range(n_obs)]
    entries = max(sum(len(row) for row in rows) for rows in model.trans)
    per_node = n_act * (2 * entries + 2 * n_obs * n) + n
    support = frozenset(s for s in range(n) if left[s])
    layer: dict[frozenset, int] = {}
    for o in range(n_obs):
        s = support & emits[o]
        if s:
            layer[s] = layer.get(s, 0) + 1
    work = n_obs * 2 * n
    for _t in range(1, k):
        checkpoint()
        nodes = sum(layer.values())
        work += nodes * per_node
        if work > limit:
            return None
        nxt: dict[frozenset, int] = {}
        for sup, cnt in layer.items():
            for a in range(n_act):
                reach = frozenset().union(*(succ[a][s] for s in sup))
                for o in range(n_obs):
                    s2 = reach & emits[o]
                    if s2:
                        nxt[s2] = nxt.get(s2, 0) + cnt
            if len(nxt) > max_supports:
                return None
        layer = nxt
    work += sum(layer.values()) * (n + 4)
    return work if work <= limit else None


def all_sequences(model: NumericModel, k: int):
    """Every (observations, actions) pair of length k (literal, for tests)."""
    actions = itertools.product(range(model.n_actions), repeat=max(0, k - 1)) if model.n_actions > 1 else [()]
    for a in actions:
        for w in itertools.product(range(model.n_obs), repeat=k):
            yield list(w), list(a)


# ------------------------------------------------------------------ exact DP over sets of sequences
@dataclass
class ExploreResult:
    violation: tuple[list[int], list[int], Fraction, Fraction] | None
    widest: int                    # the largest number of distinct prefixes kept at one step
    seconds: float
    complete: bool                 # False when the time or width budget ran out


def explore_check(model: NumericModel, left: list[Fraction], right: list[Fraction], k: int,
                  c_exact: Fraction | None, eps: Fraction | None, *,
                  deadline: float | None = None, max_width: int | None = None) -> ExploreResult:
    """Exact dynamic programming over the *set* of observation (and action) prefixes.

    A prefix is summarised by its forward vectors (α, β).  Two prefixes whose
    pairs are proportional, (α', β') = λ·(α, β) with λ > 0, have the same
    ratio Pr(ω·u | left) / Pr(ω·u | right) for every continuation u (both
    probabilities are linear in the pair), so only one of them is kept; a
    prefix with α = 0 is dropped (no continuation can violate).  The answer is
    exactly that of enumerating every sequence; the work is the number of
    distinct normalised pairs, which is small for structured models and can
    be exponential in the worst case (``max_width`` bounds it).
    """
    start = time.perf_counter()
    n = model.n_states
    trans, emit = model.trans, model.emit

    def emitted(vec, o):
        return tuple(vec[s] * emit[s].get(o, 0) if vec[s] else Fraction(0) for s in range(n))

    def step(vec, a):
        return _step(trans[a], vec, n)

    def key(al, be):
        z = sum(al, Fraction(0)) + sum(be, Fraction(0))
        return tuple(x / z for x in al) + tuple(x / z for x in be)

    layer: dict[tuple, tuple] = {}
    for o in range(model.n_obs):
        al, be = emitted(left, o), emitted(right, o)
        if any(al):
            layer.setdefault(key(al, be), (al, be, [o], []))
    widest = len(layer)
    for _t in range(1, k):
        nxt_layer: dict[tuple, tuple] = {}
        for al, be, seq, aseq in layer.values():
            checkpoint()
            if deadline is not None and time.perf_counter() > deadline:
                return ExploreResult(None, widest, time.perf_counter() - start, False)
            for a in range(model.n_actions):
                al2, be2 = step(al, a), step(be, a)
                for o in range(model.n_obs):
                    al3 = emitted(al2, o)
                    if not any(al3):
                        continue
                    be3 = emitted(be2, o)
                    nxt_layer.setdefault(key(al3, be3), (al3, be3, seq + [o],
                                                         aseq + [a] if model.n_actions > 1 else aseq))
        layer = nxt_layer
        widest = max(widest, len(layer))
        if max_width is not None and widest > max_width:
            return ExploreResult(None, widest, time.perf_counter() - start, False)
    for al, be, seq, aseq in layer.values():
        checkpoint()
        pl, pr = sum(al, Fraction(0)), sum(be, Fraction(0))
        if exceeds(pl, pr, c_exact, eps):
            return ExploreResult((seq, aseq, pl, pr), widest, time.perf_counter() - start, True)
    return ExploreResult(None, widest, time.perf_counter() - start, True)


def _step(rows, vec, n: int) -> list:
    """One forward step: the distribution after a transition with ``rows``."""
    nxt = [Fraction(0)] * n
    for s in range(n):
        v = vec[s]
        if v:
            for s2, p in rows[s].items():
                nxt[s2] += v * p
    return nxt
