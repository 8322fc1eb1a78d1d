"""The Markov Quilt Mechanism for chains (Algorithm 2 of the paper, with
the chain structure of Section 4.3): for every node X_i search the quilts
X_Q = {X_{i−a}, X_{i+b}} (a side may be absent; the trivial quilt ∅ is
always there), score each by card(X_N)/(ε − e(X_Q|X_i)), keep the best per
node, and take the maximum over nodes: σ_max.  The noise is Lap(L·σ_max).

Two searches share this module:

* :func:`search_nodes` — every node on its own, with exact per-node
  max-influences (short chains);
* :func:`search_distances` — for long chains, whose max-influences depend on
  the distances (a, b) only: the per-distance tables are built once, the
  nodes far from both ends all have the same best quilt, and only the nodes
  near the ends are searched one by one.

Pruning never changes the answer: a quilt whose card(X_N) is at least ε·U,
where U is a proven upper bound of every σ_i, cannot be the best of any
node, and every σ_i reported is the score of a real quilt of node i.
"""

from __future__ import annotations

import bisect
import heapq
import math
from dataclasses import dataclass, field
from fractions import Fraction

from dslc import limits
from dslc.correlated.influence import NEG, EigenGap, ModelTables, NodeTables, _add
from dslc.correlated.numeric import INF, score

DENSE = 256            # search every distance up to this; geometric steps beyond
GEOMETRIC = 1.03


@dataclass
class Quilt:
    node: int
    a: int                  # 0: no left side
    b: int                  # 0: no right side
    T: int
    influence: float        # upper bound of the max-influence used for the score
    score: float            # upper bound of card/(ε − e)
    exact_score: Fraction | None = None   # when the influence is exactly 0

    @property
    def card(self) -> int:
        return card(self.node, self.a, self.b, self.T)

    @property
    def left(self) -> int | None:
        return self.node - self.a if self.a else None

    @property
    def right(self) -> int | None:
        return self.node + self.b if self.b else None

    def describe(self) -> str:
        parts = [f"X{n}" for n in (self.left, self.right) if n is not None]
        return "{" + ", ".join(parts) + "}" if parts else "∅"

    def nearby(self) -> str:
        lo = (self.left + 1) if self.left else 1
        hi = (self.right - 1) if self.right else self.T
        return f"X{lo}" if lo == hi else f"X{lo}..X{hi}"


def card(i: int, a: int, b: int, T: int) -> int:
    """card(X_N) of quilt {X_{i−a}, X_{i+b}} of node i (0 = side absent)."""
    return (a if a else i) + (b if b else T - i + 1) - 1


@dataclass
class SearchResult:
    sigma: float                       # σ_max, an upper bound (float)
    sigma_exact: Fraction | None       # σ_max exactly, when the worst quilt has influence 0
    worst: Quilt                       # active quilt of a worst node
    nodes_at_max: int
    path: str                          # "per-node" | "per-distance"
    searched: int = 0                  # largest distance searched
    distances: int = 0                 # number of distances searched
    dense: bool = True
    notes: list[str] = field(default_factory=list)


def _exact_trivial(T: int, eps: Fraction) -> Fraction:
    return Fraction(T) / eps


def _zero_score(c: int, eps: Fraction) -> tuple[float, Fraction]:
    q = Fraction(c) / eps
    return float(q), q


# ================================================================ influences
class DistanceInfluence:
    """e(a, b) for long chains: the maximum over θ of the per-distance
    tables (exact/float) and/or the eigen-gap bound, whichever is smaller
    (both are upper bounds of the max-influence, so their minimum is one)."""

    def __init__(self, tables: list[ModelTables] | None, gaps: list[EigenGap] | None):
        self.tables = tables or []
        self.gaps = gaps
        self._flat: dict[int, tuple[list[float], list[float]] | None] = {}
        self._fcache: dict[int, list[float]] = {}
        self._bcache: dict[int, list[float]] = {}

    def flat(self, d: int):
        """(B, F) at distance d over all θ and pairs, or None (unavailable)."""
        if d not in self._flat:
            if all(t.request(d) for t in self.tables):
                self._flat[d] = ([x for t in self.tables for x in t.B[d]],
                                 [x for t in self.tables for x in t.F[d]])
            else:
                self._flat[d] = None
        return self._flat[d]

    def exact(self, a: int, b: int) -> float:
        if not self.tables:
            return INF
        if a and b:
            fa, fb = self.flat(a), self.flat(b)
            if fa is None or fb is None:
                return INF
            best = max((x + y for x, y in zip(fa[0], fb[1]) if x != NEG), default=NEG)
        elif a:
            fa = self.flat(a)
            if fa is None:
                return INF
            best = max(fa[0], default=NEG)
        elif b:
            fb = self.flat(b)
            if fb is None:
                return INF
            best = max(fb[1], default=NEG)
        else:
            return 0.0
        return max(best, 0.0)

    def _gap_f(self, t: int) -> list[float]:
        if t not in self._fcache:
            self._fcache[t] = [g.forward(t) for g in self.gaps]
        return self._fcache[t]

    def _gap_b(self, t: int) -> list[float]:
        if t not in self._bcache:
            self._bcache[t] = [g.backward(t) for g in self.gaps]
        return self._bcache[t]

    def approx(self, a: int, b: int) -> float:
        if self.gaps is None:
            return INF
        fb = self._gap_b(a) if a else [0.0] * len(self.gaps)
        ff = self._gap_f(b) if b else [0.0] * len(self.gaps)
        return max(x + y for x, y in zip(fb, ff))

    def __call__(self, a: int, b: int) -> float:
        if not a and not b:
            return 0.0
        e = self.exact(a, b)
        if e == 0.0:
            return 0.0
        return min(e, self.approx(a, b))

    def is_exact_zero(self, a: int, b: int) -> bool:
        """The max-influence is exactly 0 (every bound is built so that 0.0
        only comes out of exact zeros: ratios equal to 1, or s = 0)."""
        return self(a, b) == 0.0


def candidate_distances():
    """1, 2, …, DENSE, then steps of GEOMETRIC."""
    d = 0
    while d < DENSE:
        d += 1
        yield d
    x = float(d)
    while True:
        x *= GEOMETRIC
        if int(x) > d:
            d = int(x)
            yield d


# ================================================================ long chains
def search_distances(T: int, eps: Fraction, infl: DistanceInfluence, cap: int) -> SearchResult:
    eps_f = float(eps)
    notes: list[str] = []
    # 1. An upper bound U of every σ_i: the quilt {X_{i−r}, X_{i+r}}, with a
    #    side dropped where it would fall off the chain, has card ≤ 2r − 1 and
    #    influence ≤ e(r, r) at every node (docs/correlated.md).
    U_float, U_exact = _zero_score(T, eps)
    U = U_float
    best_r = 0
    diag: dict[int, float] = {}
    capped = False
    for r in candidate_distances():
        limits.checkpoint()
        if (2 * r - 1) / eps_f >= U:
            break
        if r > cap:
            capped = True
            break
        diag[r] = infl(r, r)
        s = score(2 * r - 1, eps_f, diag[r])
        if s < U:
            U, best_r = s, r
    if capped:
        notes.append(f"quilts were searched up to distance {cap}")
    R = max(0, min(T - 1, math.ceil(eps_f * U) + 1, cap))
    D = [d for d in diag if d <= R]
    for d in candidate_distances():
        limits.checkpoint()
        if d > R:
            break
        if d not in diag:
            D.append(d)
    D = sorted(set(D) | ({R} if R else set()))
    dense = len(D) == R
    if not dense:
        notes.append(f"distances up to {DENSE} are all searched, then steps of "
                     f"{round((GEOMETRIC - 1) * 100)}% up to {R} ({len(D)} distances)")
    nD = len(D)
    for d in D:
        limits.checkpoint()
        if d not in diag:
            diag[d] = infl(d, d)

    # 2. One-sided and two-sided influences over D.
    E_left = [infl(0, b) for b in D]        # quilt {X_{i+b}}: no left side
    E_right = [infl(a, 0) for a in D]       # quilt {X_{i−a}}
    finite_left = [(b, E_left[j], infl.is_exact_zero(0, b)) for j, b in enumerate(D) if E_left[j] < eps_f]
    finite_right = [(a, E_right[j], infl.is_exact_zero(a, 0)) for j, a in enumerate(D) if E_right[j] < eps_f]

    limit = eps_f * U + 1
    PM = [[(INF, 0, 0)] * nD for _ in range(nD)]   # prefix minimum of two-sided scores
    for ia, a in enumerate(D):
        limits.checkpoint()
        row = PM[ia]
        above = PM[ia - 1] if ia else None
        for ib, b in enumerate(D):
            c = a + b - 1
            s = INF
            # e(a, b) ≥ e(m, m) for m = max(a, b) (max-influence only shrinks
            # with distance), so an infinite diagonal rules the pair out.
            if c < limit and diag[a if a >= b else b] != INF:
                e = infl(a, b)
                if e < eps_f:
                    s = (_zero_score(c, eps)[0] if e == 0.0 and infl.is_exact_zero(a, b)
                         else score(c, eps_f, e))
            best = (s, a, b)
            if above is not None and above[ib][0] < best[0]:
                best = above[ib]
            if ib and row[ib - 1][0] < best[0]:
                best = row[ib - 1]
            row[ib] = best

    def node_best(i: int) -> Quilt:
        bq = Quilt(i, 0, 0, T, 0.0, U_float, U_exact)
        na = bisect.bisect_right(D, i - 1)
        nb = bisect.bisect_right(D, T - i)
        if na and nb:
            s, a, b = PM[na - 1][nb - 1]
            if s < bq.score:
                bq = _quilt(i, a, b, T, infl, s, eps)
        for b, e, z in finite_left:
            if b > T - i:
                break
            c = i + b - 1
            if c / eps_f >= bq.score:
                break
            s = _zero_score(c, eps)[0] if z else score(c, eps_f, e)
            if s < bq.score:
                bq = _quilt(i, 0, b, T, infl, s, eps)
        for a, e, z in finite_right:
            if a > i - 1:
                break
            c = T - i + a
            if c / eps_f >= bq.score:
                break
            s = _zero_score(c, eps)[0] if z else score(c, eps_f, e)
            if s < bq.score:
                bq = _quilt(i, a, 0, T, infl, s, eps)
        return bq

    # 3. Nodes far from both ends share one best quilt.
    maxD = D[-1] if D else 0
    interior = None
    if nD:
        s, a, b = PM[nD - 1][nD - 1]
        if s < U_float:
            reach = math.ceil(eps_f * s) + 1
            lo = max(maxD + 1, reach)
            hi = min(T - maxD, T + 1 - reach)
            if lo <= hi:
                interior = (lo, hi, _quilt(lo, a, b, T, infl, s, eps))
    results: list[Quilt] = []
    nothing = not finite_left and not finite_right and (not nD or PM[nD - 1][nD - 1][0] == INF)
    if nothing:
        # no quilt but the trivial one is valid anywhere: σ_i = T/ε for all i
        results.append(Quilt(1, 0, 0, T, 0.0, U_float, U_exact))
        worst, sigma, sigma_exact, _ = _worst(results, None, 0)
        return SearchResult(sigma, sigma_exact, worst, T, "per-distance",
                            searched=maxD, distances=nD, dense=dense, notes=notes)
    if interior is None:
        nodes = range(1, T + 1)
    else:
        lo, hi, q = interior
        nodes = list(range(1, lo)) + list(range(hi + 1, T + 1))
    for n, i in enumerate(nodes):
        if not n & 255:
            limits.checkpoint()
        results.append(node_best(i))
    count_extra = 0
    if interior is not None:
        lo, hi, q = interior
        results.append(q)
        count_extra = hi - lo
    worst, sigma, sigma_exact, at_max = _worst(results, interior, count_extra)
    return SearchResult(sigma, sigma_exact, worst, at_max, "per-distance",
                        searched=maxD, distances=nD, dense=dense, notes=notes)


def _quilt(i, a, b, T, infl, s, eps) -> Quilt:
    zero = infl.is_exact_zero(a, b)
    return Quilt(i, a, b, T, 0.0 if zero else infl(a, b), s,
                 Fraction(card(i, a, b, T)) / eps if zero else None)


def _worst(results: list[Quilt], interior, count_extra: int):
    """The largest σ_i (floats first; exact comparison among the near-ties)."""
    top_f = max(q.score for q in results)
    near = [q for q in results if q.score >= top_f * (1 - 1e-9)]

    def key(q: Quilt):
        return q.exact_score if q.exact_score is not None else Fraction(q.score)
    top = max(key(q) for q in near)
    at_max = 0
    first = None
    for q in near:
        if key(q) == top:
            at_max += 1 + (count_extra if interior is not None and q is interior[2] else 0)
            if first is None or q.node < first.node:
                first = q
    if first.exact_score is not None:
        return first, float(first.exact_score), first.exact_score, at_max
    return first, first.score, None, at_max


# ================================================================ short chains
def search_nodes(T: int, eps: Fraction, nodes: list[NodeTables] | None,
                 gaps: list[EigenGap] | None) -> SearchResult:
    """Every node, every quilt within reach, exact per-node influences
    (``nodes``) and/or the eigen-gap bound (``gaps``)."""
    eps_f = float(eps)
    approx = DistanceInfluence(None, gaps)
    results: list[Quilt] = []
    for i in range(1, T + 1):
        limits.checkpoint()
        valid = [nt.valid(i) for nt in nodes] if nodes else []
        back_cache: dict[int, list[list[float]]] = {}

        def influence(a: int, b: int) -> tuple[float, bool]:
            if not a and not b:
                return 0.0, True
            if nodes:
                best = NEG
                for n, nt in enumerate(nodes):
                    F = nt.forward(b) if b else None
                    if a:
                        if a not in back_cache:
                            back_cache[a] = [m.backward(i, a) for m in nodes]
                        Bv = back_cache[a][n]
                    for j, ok in enumerate(valid[n]):
                        if not ok:
                            continue
                        if a and b:
                            v = _add(Bv[j], F[j])
                        elif a:
                            v = Bv[j]
                        else:
                            v = F[j]
                        best = max(best, v)
                e = max(best, 0.0)
                if e == 0.0:
                    return 0.0, True
            else:
                e = INF
            return min(e, approx.approx(a, b)), False

        zf, zq = _zero_score(T, eps)
        bq = Quilt(i, 0, 0, T, 0.0, zf, zq)

        def consider(a: int, b: int) -> None:
            nonlocal bq
            c = card(i, a, b, T)
            if c / eps_f >= bq.score:
                return
            e, zero = influence(a, b)
            if e >= eps_f:
                return
            if zero:
                s, q = _zero_score(c, eps)
                if s < bq.score:
                    bq = Quilt(i, a, b, T, 0.0, s, q)
            else:
                s = score(c, eps_f, e)
                if s < bq.score:
                    bq = Quilt(i, a, b, T, e, s)

        for b in range(1, T - i + 1):            # no left side: card i + b − 1
            if (i + b - 1) / eps_f >= bq.score:
                break
            consider(0, b)
        for a in range(1, i):
            limits.checkpoint()
            if a / eps_f >= bq.score and (T - i + a) / eps_f >= bq.score:
                break
            consider(a, 0)                       # no right side: card T − i + a
            for b in range(1, T - i + 1):        # both sides: card a + b − 1
                if (a + b - 1) / eps_f >= bq.score:
                    break
                consider(a, b)
        results.append(bq)
    worst, sigma, sigma_exact, at_max = _worst(results, None, 0)
    return SearchResult(sigma, sigma_exact, worst, at_max, "per-node", searched=T - 1, distances=T - 1)


def node_quilts(T: int, eps: Fraction, i: int, nodes: list[NodeTables] | None,
                infl: DistanceInfluence | None, reach: int, limit: int = 60
                ) -> list[tuple[Quilt, Fraction | None, bool]]:
    """The quilts of node i whose sides are at most ``reach`` away, with
    influence, score and exact ratio (``dslc calibrate --node``), best first;
    at most ``limit`` rows.  The flag says whether the ratio is the exact
    max-influence (else it is the exact value of an upper bound)."""
    eps_f = float(eps)

    def quilts():
        for a in [0] + list(range(1, min(i - 1, reach) + 1)):
            limits.checkpoint()
            for b in [0] + list(range(1, min(T - i, reach) + 1)):
                c = card(i, a, b, T)
                if nodes:
                    ratio = Fraction(1) if not a and not b else _node_ratio(nodes, i, a, b)
                    e = INF if ratio is None else _log_up(ratio)
                    zero = ratio == 1
                else:
                    e = infl(a, b)
                    zero = infl.is_exact_zero(a, b)
                if zero:
                    yield Quilt(i, a, b, T, 0.0, float(Fraction(c) / eps), Fraction(c) / eps)
                else:
                    yield Quilt(i, a, b, T, e, score(c, eps_f, e))

    # the best `limit` quilts in (score, card) order, ties in generation order
    # (heapq.nsmallest is sorted(...)[:limit] in O(limit) memory)
    rows = heapq.nsmallest(limit, quilts(), key=lambda q: (q.score, q.card))
    out = []
    for q in rows[:limit]:
        limits.checkpoint()
        exact = True
        if q.exact_score is not None:
            ratio = Fraction(1)
        elif nodes:
            ratio = _node_ratio(nodes, i, q.a, q.b)
        elif infl is not None and infl.tables and infl.exact(q.a, q.b) <= q.influence:
            ratios = [t.exact_ratio(q.a, q.b) for t in infl.tables]
            ratio = None if any(r is None for r in ratios) else max(ratios)
            exact = all(t.stationary for t in infl.tables)
        else:
            ratio, exact = None, False
        out.append((q, ratio, exact))
    return out


def _node_ratio(nodes: list[NodeTables], i: int, a: int, b: int) -> Fraction | None:
    """The exact likelihood ratio exp(e) of quilt (a, b) at node i (None: ∞)."""
    best = Fraction(1)
    for nt in nodes:
        valid = nt.valid(i)
        Fv = nt.forward_exact(b) if b else None
        Bv = nt.backward_exact(i, a) if a else None
        for j, ok in enumerate(valid):
            if not ok:
                continue
            parts = ([Bv[j]] if a else []) + ([Fv[j]] if b else [])
            if any(p == 0 for p in parts if p is not None):
                continue
            if any(p is None for p in parts):
                return None
            r = Fraction(1)
            for p in parts:
                r *= p
            best = max(best, r)
    return best


def _log_up(r: Fraction) -> float:
    from dslc.correlated.numeric import log_ratio
    v, err = log_ratio(r.numerator, r.denominator)
    return max(0.0, v + err)
