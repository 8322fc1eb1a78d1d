"""Exact arithmetic for the Pufferfish check: rational bounds of e^ε, the
exact comparison of a rational ratio with e^ε, and the exhaustive
enumeration of observation sequences (a baseline and a cross-check).

Nothing here uses floating point.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction

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
                    prune: bool = False, deadline: float | None = None) -> EnumResult:
    """Visit every observation sequence of length k (and every action
    sequence of length k-1) in depth-first order, sharing the forward vectors
    of common prefixes, and return the first sequence whose probability under
    ``left`` exceeds e^ε times its probability under ``right``.

    With ``prune`` a prefix of probability 0 on both sides is not extended
    (every extension has probability 0 on both sides and cannot violate).
    """
    start = time.perf_counter()
    n = model.n_states
    obs = range(model.n_obs)
    acts = range(model.n_actions)
    count = 0
    trans = model.trans
    emit = model.emit

    def emit_vec(vec, o):
        return [vec[s] * emit[s].get(o, 0) if vec[s] else Fraction(0) for s in range(n)]

    def step(vec, a):
        return _step(trans[a], vec, n)

    stack: list[tuple[list, list, list[int], list[int]]] = []
    for o in obs:
        stack.append((emit_vec(left, o), emit_vec(right, o), [o], []))
    stack.reverse()
    while stack:
        if deadline is not None and time.perf_counter() > deadline:
            return EnumResult(None, count, time.perf_counter() - start, False)
        al, be, seq, aseq = stack.pop()
        if prune and not any(al) and not any(be):
            continue
        if len(seq) == k:
            count += 1
            pl, pr = sum(al, Fraction(0)), sum(be, Fraction(0))
            if exceeds(pl, pr, c_exact, eps):
                return EnumResult((seq, aseq, pl, pr), count, time.perf_counter() - start, True)
            continue
        children = []
        for a in acts:
            al2, be2 = step(al, a), step(be, a)
            for o in obs:
                children.append((emit_vec(al2, o), emit_vec(be2, o), seq + [o],
                                 aseq + [a] if model.n_actions > 1 else aseq))
        stack.extend(reversed(children))
    return EnumResult(None, count, time.perf_counter() - start, True)


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
