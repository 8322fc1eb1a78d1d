"""The Wasserstein Mechanism (Algorithm 1 of the paper) for chains and a
scalar query F = Σ_t f(X_t) (`sum`: f = the state's value; `count(S)`:
f = [X_t = S]).

The secrets are the values of each record, s = "X_i = x"; the secret pairs
are (X_i = x, X_i = x′) with both of positive probability under θ.  For each
pair and θ the conditional laws μ = P(F | X_i = x, θ) and ν = P(F | X_i = x′, θ)
are enumerated exactly (a forward and a backward pass over (state, partial
sum), then one convolution per node), and

    W = max over pairs and θ of W∞(μ, ν),

the ∞-Wasserstein distance: the largest distance between the quantile
functions of μ and ν.  Everything is exact, so W and the noise scale W/ε are
rationals.  Adding Lap(W/ε) is ε-Pufferfish private (Theorem 3.2).

The enumeration is polynomial (T · k · S² for S distinct partial sums), but
it is only attempted when it fits :data:`BUDGET` elementary steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dslc import limits
from dslc.ir.chain import ChainIR
from dslc.ir import chain_structure as markov

BUDGET = 2_000_000


class TooLarge(Exception):
    pass


@dataclass
class WassersteinResult:
    W: Fraction
    model: str
    node: int
    pair: tuple[int, int]          # state indices x, x′


def values_of(ir: ChainIR) -> list[Fraction] | None:
    if ir.query.kind == "sum":
        return ir.state_values()
    if ir.query.kind == "count":
        return [Fraction(1 if j == ir.query.count_state else 0) for j in range(ir.k)]
    return None


def applicable(ir: ChainIR) -> str | None:
    """None when the mechanism can be tried, else the reason it cannot."""
    if ir.query.kind == "histogram":
        return "the query is vector-valued (histogram); the Wasserstein mechanism here is for scalar queries"
    if ir.query.kind == "lipschitz":
        return "the query is only known by its Lipschitz constant, so P(F | secret) cannot be enumerated"
    est = estimated_work(ir)
    if est > BUDGET:
        return (f"the model is too large to enumerate exactly (T = {ir.length}, {ir.k} states: "
                f"about {est:.1e} steps, the limit is {BUDGET:.0e})")
    return None


def estimated_work(ir: ChainIR) -> float:
    """Steps of the enumeration: per node and state, one convolution of the
    partial-sum laws before and after the node (S_i values at most
    min(k^min(i, 60), i·span + 1) for integer values of gcd g and spread
    span/g):

        |Θ|·k·Σ_{i=1..T} S_i·S_{T−i+1} + 4·T·k².

    Computed exactly in integers and in time independent of T (see
    :func:`partial_sum_work`)."""
    vals = values_of(ir)
    den = 1
    for v in vals:
        den = den * v.denominator // math.gcd(den, v.denominator)
    ints = [int(v * den) for v in vals]
    g = 0
    for v in ints:
        g = math.gcd(g, v - ints[0])
    span = (max(ints) - min(ints)) // g if g else 0
    T, k = ir.length, ir.k
    return float(len(ir.models) * k * partial_sum_work(k, span, T) + 4 * T * k * k)


CAP = 60          # S_i ≤ k^min(i, CAP)


def partial_sum_work(k: int, span: int, T: int) -> int:
    """Σ_{i=1..T} S(i)·S(T+1−i) with S(i) = min(k^min(i, 60), i·span + 1), exactly.

    For i ≥ 60, S(i) is linear (span·i + 1) until it reaches K = k^60, then
    constant K; likewise S(T+1−i) as a function of i.  The breakpoints 60 and
    c = ⌈(K − 1)/span⌉ of both factors cut 1..T into at most 9 intervals: on
    those where one factor's argument is below 60 the (at most 2·59) terms
    are added one by one; on the others both factors are linear or constant
    in i, so the sum of their product is a quadratic polynomial summed with
    Σ1, Σi, Σi² in closed form.  The work is O(1) in T."""
    if T <= 0:
        return 0
    m = T + 1

    def S(i: int) -> int:
        return min(k ** min(i, CAP), i * span + 1)

    K = k ** CAP
    if span == 0 or k == 1:
        return T                               # every S(i) = 1
    c = max(CAP, -(-(K - 1) // span))          # S(i) = K for i ≥ c (and i ≥ 60)
    cuts = sorted({1, CAP, c, m - CAP + 1, m - c + 1, T + 1})
    cuts = [x for x in cuts if 1 <= x <= T + 1]
    total = 0
    for lo, nxt in zip(cuts, cuts[1:]):
        hi = nxt - 1
        if lo > hi:
            continue
        if lo < CAP or m - hi < CAP:           # a short factor: add the terms one by one
            for i in range(lo, hi + 1):
                total += S(i) * S(m - i)
            continue
        # f(i) = p1·i + q1 and g(i) = S(m − i) = p2·i + q2 on the whole interval
        p1, q1 = (span, 1) if lo < c else (0, K)
        p2, q2 = (-span, span * m + 1) if m - lo < c else (0, K)
        n0 = hi - lo + 1
        s1 = (hi * (hi + 1) - (lo - 1) * lo) // 2
        s2 = (hi * (hi + 1) * (2 * hi + 1) - (lo - 1) * lo * (2 * lo - 1)) // 6
        total += p1 * p2 * s2 + (p1 * q2 + p2 * q1) * s1 + q1 * q2 * n0
    return total


def wasserstein(ir: ChainIR, budget: int = BUDGET) -> WassersteinResult:
    """Raises TooLarge when the enumeration exceeds ``budget`` steps."""
    vals = values_of(ir)
    assert vals is not None
    # integer values: f(x) = vint[x] / vden
    vden = 1
    for v in vals:
        vden = vden * v.denominator // math.gcd(vden, v.denominator)
    vint = [int(v * vden) for v in vals]
    counter = [0]
    best: WassersteinResult | None = None
    for model in ir.models:
        limits.checkpoint()
        res = _one_model(model.transition, model.initial, ir.length, vint, counter, budget)
        if res is not None:
            w = Fraction(res[0], vden)
            if best is None or w > best.W:
                best = WassersteinResult(w, model.name, res[1], res[2])
    if best is None:
        best = WassersteinResult(Fraction(0), ir.models[0].name, 1, (0, 0))
    return best


def _tick(counter, n, budget):
    counter[0] += n
    if counter[0] > budget:
        raise TooLarge


def _one_model(P, q, T, vals, counter, budget):
    """max over nodes and pairs of W∞, in units of 1/vden.

    Probabilities are integers on a common scale: P = M/d, q = n/e, so
    α_i(x, s) · e · d^(i−1) and β_i(x, t) · d^(T−i) are integers, and every
    conditional law at node i shares the scale e · d^(T−1)."""
    k = len(P)
    M, d = markov.integer_matrix(P)
    qn, qd = markov.integer_matrix([q])
    qn = qn[0]
    # alpha[i][x] = {s: P(X_i = x, f(X_1) + … + f(X_i) = s) · e · d^(i−1)}
    alpha = [None, [({vals[x]: qn[x]} if qn[x] else {}) for x in range(k)]]
    for _ in range(2, T + 1):
        limits.checkpoint()
        prev = alpha[-1]
        nxt = [dict() for _ in range(k)]
        for x in range(k):
            row = M[x]
            for s, p in prev[x].items():
                for y in range(k):
                    if row[y]:
                        key = s + vals[y]
                        nxt[y][key] = nxt[y].get(key, 0) + p * row[y]
            _tick(counter, len(prev[x]) * k, budget)
        alpha.append(nxt)
    # beta[i][x] = {t: P(f(X_{i+1}) + … + f(X_T) = t | X_i = x) · d^(T−i)}
    beta = [None] * (T + 1)
    beta[T] = [{0: 1} for _ in range(k)]
    for i in range(T - 1, 0, -1):
        limits.checkpoint()
        nxt = beta[i + 1]
        cur = [dict() for _ in range(k)]
        for x in range(k):
            for y in range(k):
                m = M[x][y]
                if m:
                    cx = cur[x]
                    for t, p in nxt[y].items():
                        key = t + vals[y]
                        cx[key] = cx.get(key, 0) + m * p
                    _tick(counter, len(nxt[y]), budget)
        beta[i] = cur
    best = None
    for i in range(1, T + 1):
        limits.checkpoint()
        conds = {}
        for x in range(k):
            if not alpha[i][x]:
                continue
            _tick(counter, len(alpha[i][x]) * len(beta[i][x]), budget)
            dist: dict[int, int] = {}
            bx = list(beta[i][x].items())
            for s, p in alpha[i][x].items():
                for t, r in bx:
                    dist[s + t] = dist.get(s + t, 0) + p * r
            conds[x] = sorted((v, p) for v, p in dist.items() if p)
        xs = sorted(conds)
        for ix, x in enumerate(xs):
            for y in xs[ix + 1:]:
                w = _w_inf_scaled(conds[x], conds[y])
                _tick(counter, len(conds[x]) + len(conds[y]), budget)
                if best is None or w > best[0]:
                    best = (w, i, (x, y))
    return best


def _w_inf_scaled(xs: list[tuple[int, int]], ys: list[tuple[int, int]]):
    """W∞ of two sorted finite distributions given by unnormalised integer
    weights; cumulative masses are compared by cross-multiplication."""
    mx = sum(p for _, p in xs)
    my = sum(p for _, p in ys)
    i = j = 0
    cx, cy = xs[0][1], ys[0][1]
    w = abs(xs[0][0] - ys[0][0])
    while i < len(xs) - 1 or j < len(ys) - 1:
        a, b = cx * my, cy * mx
        if a == b:
            i, j = i + 1, j + 1
            cx += xs[i][1]
            cy += ys[j][1]
        elif a < b:
            i += 1
            cx += xs[i][1]
        else:
            j += 1
            cy += ys[j][1]
        w = max(w, abs(xs[i][0] - ys[j][0]))
    return w


def w_inf(mu: dict, nu: dict) -> Fraction:
    """∞-Wasserstein distance of two finite distributions on the line:
    sup over t ∈ (0, 1) of |F_μ⁻¹(t) − F_ν⁻¹(t)|, exactly."""
    xs = sorted((v, p) for v, p in mu.items() if p > 0)
    ys = sorted((v, p) for v, p in nu.items() if p > 0)
    return _w_inf_scaled(xs, ys)
