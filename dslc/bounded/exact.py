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
    n, n_obs, n_act, D, E, trans, emit = _integer_rows(model)
    q_l = _lcm_den(left)
    q_r = _lcm_den(right)
    il = [int(x * q_l) for x in left]
    ir = [int(x * q_r) for x in right]
    cmp = _Comparator(c_exact, eps, q_l, q_r)
    scale_leaf = E ** k * D ** (k - 1)
    count = 0
    nodes = 0

    def emitted(vec, em):
        return [v * e if v and e else 0 for v, e in zip(vec, em)]

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
        stack.extend(reversed(_int_children(al, be, seq, aseq, trans, emit, n)))
    return result(None)


# ------------------------------------------------------------------ pruned enumeration (both directions)
MEMO_LIMIT = 500_000        # normalised prefixes remembered for merging (about 0.1 KB each at k = 64)
LOOKAHEAD_BITS = 40         # the continuation bounds are rounded to multiples of 2^-40 (the safe way)
LOOKAHEAD_WORK = 300_000    # the continuation bounds are computed for as many steps as this much work allows


def node_cost(model: NumericModel) -> int:
    """The work of expanding one prefix in :func:`pruned_check` (both sides,
    every action and observation, the ratio tests), in the elementary
    operations :func:`enumeration_work` counts."""
    n, n_obs, n_act = model.n_states, model.n_obs, model.n_actions
    entries = max(sum(len(row) for row in rows) for rows in model.trans)
    lp = 2 * n * n if _lookahead_steps(model, 1) else 0       # the two look-ahead LPs
    return n_act * (2 * entries + 2 * n_obs * n) + lp + 6 * n


def _lookahead_steps(model: NumericModel, r_max: int) -> int:
    """How many steps of continuation bounds :data:`LOOKAHEAD_WORK` affords (≤ r_max)."""
    n, n_obs, n_act = model.n_states, model.n_obs, model.n_actions
    return min(r_max, LOOKAHEAD_WORK // (n * n * n_act * n_obs * (n * n + 4)))


def continuation_bounds(model: NumericModel, r_max: int) -> list[list[list[int]]] | None:
    """Lower bounds of 1/L_r(s, s') for r = 0 .. r_max, as integers over
    2^LOOKAHEAD_BITS, where L_r(s, s') bounds c_s(u) / c_s'(u) for every
    continuation u of r steps (r transitions, each followed by an emission,
    under any action sequence; c_s(u) is the probability of u from state s).
    0 means no bound (c_s' can vanish where c_s does not).  Only the first
    steps that :data:`LOOKAHEAD_WORK` affords are computed (about 0.1 s per
    100,000; the list is then shorter than r_max + 1); None when not one.

    Induction on r.  L_0 = 1 (c ≡ 1) and L_r(s, s) = 1.  For r ≥ 1 and one
    first action a and observation o, c_s = p·c' and c_s' = q·c' with
    p = T_a(s, ·)∘e(·, o), q = T_a(s', ·)∘e(·, o) and c' the continuation of
    r - 1 steps.  By induction c'_j ≥ c'_i / L_{r-1}(i, j), so
    q·c' ≥ c'_i · Σ_j q_j / L_{r-1}(i, j): R_i = c'_i / (q·c') ≤ K_i with
    K_i = 1 / Σ_j q_j / L_{r-1}(i, j), and q·R = 1.  Hence
    p·c' / q·c' = p·R ≤ max { p·R : q·R ≤ 1, 0 ≤ R ≤ K } (:func:`_lp_bound`;
    if q·c' = 0 then c'_i = 0 wherever K_i is finite, so p·c' = 0 too), and
    L_r(s, s') is the largest of these over a and o.  Rounding 1/L down
    (L up) keeps every bound valid.
    """
    n, n_obs, n_act = model.n_states, model.n_obs, model.n_actions
    r_max = _lookahead_steps(model, r_max)
    if r_max < 1:
        return None
    scale = 1 << LOOKAHEAD_BITS
    # p and q on one integer scale (the LP's value is invariant under scaling both alike)
    D = _lcm_den(p for rows in model.trans for row in rows for p in row.values())
    E = _lcm_den(p for row in model.emit for p in row.values())
    vec = [[[{s2: int(p * D) * int(model.emit[s2][o] * E) for s2, p in model.trans[a][s].items()
              if model.emit[s2].get(o)}
             for s in range(n)] for o in range(n_obs)] for a in range(n_act)]
    inv = [[[scale] * n for _ in range(n)]]
    for _r in range(1, r_max + 1):
        checkpoint()
        prev = inv[-1]
        cur = [[0] * n for _ in range(n)]
        for s in range(n):
            for s2 in range(n):
                if s == s2:
                    cur[s][s2] = scale
                    continue
                worst: Fraction | None = Fraction(1)      # L ≥ 1 anyway (both sides sum to 1 over u)
                for a in range(n_act):
                    for o in range(n_obs):
                        p = vec[a][o][s]
                        if not p:
                            continue
                        v = _lp_bound(p, vec[a][o][s2], prev, scale)
                        if v is None:
                            worst = None
                            break
                        if v > worst:
                            worst = v
                    if worst is None:
                        break
                # 1/L rounded down
                cur[s][s2] = 0 if worst is None else (scale * worst.denominator) // worst.numerator
        inv.append(cur)
    return inv


def _lp_bound(p, q, inv: list[list[int]], scale: int) -> Fraction | None:
    """max Σ p_i·R_i subject to Σ q_i·R_i ≤ 1 and 0 ≤ R_i ≤ K_i, where
    K_i = scale / Σ_j q_j·inv[i][j]; None when unbounded (some p_i > 0 with
    no K_i).  ``p``, ``q``: non-negative, both dicts or both lists (of int or
    Fraction).  Filling greedily by p_i/q_i (states with q_i = 0 first, at
    K_i) is optimal for this fractional knapsack."""
    if isinstance(p, dict):
        items, qs, qget = p.items(), list(q.items()), q.get
    else:
        items = enumerate(p)
        qs = [(j, v) for j, v in enumerate(q) if v]
        qget = (lambda i, _d=0: q[i])
    total = Fraction(0)
    ranked = []
    for i, pi in items:
        if not pi:
            continue
        row = inv[i]
        den = sum(qj * row[j] for j, qj in qs)
        if not den:
            return None
        qi = qget(i, 0)
        if qi:
            ranked.append((Fraction(pi) / qi, pi, qi, Fraction(scale) / den))
        else:
            total += pi * Fraction(scale) / den
    ranked.sort(key=lambda item: item[0], reverse=True)
    budget = Fraction(1)
    for _ratio, pi, qi, cap in ranked:
        if budget <= 0:
            break
        take = min(cap, budget / qi)
        total += pi * take
        budget -= qi * take
    return total


@dataclass
class PrunedResult:
    """The outcome of :func:`pruned_check` for the two directions of a pair.

    ``violations[0]``: the first sequence (depth-first order) with
    Pr(ω | x) > e^ε·Pr(ω | y); ``violations[1]``: the first with
    Pr(ω | y) > e^ε·Pr(ω | x) — each (observations, actions, P_more, P_less)
    or None.  With ``complete`` False a direction without a violation is
    undecided.
    """
    violations: list
    nodes: int                     # prefixes expanded
    sequences: int                 # leaves compared
    cut: int                       # prefixes whose subtree a ratio bound proved safe
    merged: int                    # prefixes skipped as proportional to one already walked
    work: int                      # node_cost × prefixes expanded
    seconds: float
    complete: bool                 # False when the time or work budget ran out


class Lookahead:
    """The continuation bounds of a model, computed on first use (shared by
    the pairs of one check)."""

    def __init__(self, model: NumericModel, r_max: int):
        self.model, self.r_max = model, r_max
        self._bounds: list | None = None
        self._done = False

    def get(self) -> list | None:
        if not self._done:
            self._bounds = continuation_bounds(self.model, self.r_max)
            self._done = True
        return self._bounds


def pruned_check(model: NumericModel, x: list[Fraction], y: list[Fraction], k: int,
                 c_exact: Fraction | None, eps: Fraction | None, *,
                 want: tuple[bool, bool] = (True, True), ratio_prune: bool = True, lookahead: bool = True,
                 merge: bool = True, deadline: float | None = None, max_work: int | None = None,
                 memo_limit: int = MEMO_LIMIT, bounds: Lookahead | None = None) -> PrunedResult:
    """Both directions of a pair (x over y, y over x) in one depth-first walk
    over the observation (and action) prefixes — the order of
    :func:`enumerate_check` — with its exact integer arithmetic and three
    prunings that keep the answer exact.

    Both sides share the transition and emission rows; only the initial
    vectors differ.  So for a prefix with forward vectors α (from x) and β
    (from y), every continuation u (observations and actions) has
    Pr(prefix·u | x) = Σ_s α_s·c_s(u) and Pr(prefix·u | y) = Σ_s β_s·c_s(u),
    with the same c_s(u) ≥ 0 on both sides.

    * **Ratio bound** (``ratio_prune``).  If α_s ≤ c·β_s for every state s
      with α_s > 0 (c = e^ε, or a rational lower bound of it when e^ε is
      irrational), then Σ α_s·c_s(u) ≤ c·Σ β_s·c_s(u) for every u: no
      extension violates "x over y", and that direction is closed for the
      whole subtree.  A prefix with α = 0 is the case of an empty support.
      Likewise for "y over x".  A prefix is skipped when no wanted direction
      is open.
    * **Look-ahead** (``lookahead``).  When the ratio bound fails (e.g. some
      β_s = 0 < α_s), the continuation bounds of
      :func:`continuation_bounds` for the remaining r = k - t steps give
      α·c(u) ≤ LP(α, β)·β·c(u) for every u (:func:`_lp_bound`), and the
      direction is closed when LP(α, β) ≤ c.  (The plain ratio bound is the
      special case without look-ahead; the LP value never exceeds it.)
    * **Merging** (``merge``).  Two prefixes of the same length whose pairs
      are proportional, (α', β') = λ·(α, β), have the same ratio for every
      continuation.  A prefix proportional to one whose subtree has been
      walked already (depth-first: every earlier prefix of the same length
      is finished) is skipped: that subtree held no violation of a direction
      still open.  At most ``memo_limit`` prefixes are remembered.

    None of them removes a violating sequence of an open direction, so each
    direction's witness is exactly the first violation of the plain
    depth-first enumeration.  ``want`` selects the directions; ``max_work``
    (in :func:`node_cost` units) and ``deadline`` bound the walk
    (``complete`` is then False; a violation found before still stands).
    """
    start = time.perf_counter()
    n, n_obs, n_act, D, E, trans, emit = _integer_rows(model)
    q_x, q_y = _lcm_den(x), _lcm_den(y)
    ix = [int(v * q_x) for v in x]
    iy = [int(v * q_y) for v in y]
    cmp_xy = _Comparator(c_exact, eps, q_x, q_y)
    cmp_yx = _Comparator(c_exact, eps, q_y, q_x)
    # On the integer scale α = A/(q_x·S), β = B/(q_y·S):  α_s ≤ c·β_s  ⇔  A_s·q_y·c_den ≤ c_num·B_s·q_x.
    c_low = c_exact if c_exact is not None else cmp_xy.lo         # lo < e^ε when e^ε is irrational
    kx_a, kx_b = q_y * c_low.denominator, c_low.numerator * q_x    # x over y: A·kx_a ≤ B·kx_b
    ky_b, ky_a = q_x * c_low.denominator, c_low.numerator * q_y    # y over x: B·ky_b ≤ A·ky_a
    c_x, c_y = c_low * q_x, c_low * q_y         # look-ahead: LP(A, B)·q_y ≤ c·q_x, LP(B, A)·q_x ≤ c·q_y
    scale = 1 << LOOKAHEAD_BITS
    if ratio_prune and lookahead and k > 1:
        bounds = bounds or Lookahead(model, k - 1)
    else:
        bounds = None
    scale_leaf = E ** k * D ** (k - 1)
    per_node = node_cost(model)
    violations: list = [None, None]
    done = (0 if want[0] else 1) | (0 if want[1] else 2)
    nodes = leaves = cut = merged = work = 0
    memo: list[set] = [set() for _ in range(k)]
    remembered = 0
    lp_tries = lp_hits = 0

    def step(vec, rows):
        return _int_step(vec, rows, n)

    def finish(complete: bool) -> PrunedResult:
        return PrunedResult(violations, nodes, leaves, cut, merged, work, time.perf_counter() - start, complete)

    def leaf(sa: int, sb: int, act: int, seq, aseq) -> None:
        nonlocal done, leaves
        leaves += 1
        if act & 1 and cmp_xy.exceeds(sa, sb):
            violations[0] = (list(seq), list(aseq), Fraction(sa, q_x * scale_leaf), Fraction(sb, q_y * scale_leaf))
            done |= 1
        if act & 2 and cmp_yx.exceeds(sb, sa):
            violations[1] = (list(seq), list(aseq), Fraction(sb, q_y * scale_leaf), Fraction(sa, q_x * scale_leaf))
            done |= 2

    if done == 3:
        return finish(True)
    if k == 1:
        for o in range(n_obs):
            em = emit[o]
            leaf(sum(v * e for v, e in zip(ix, em)), sum(v * e for v, e in zip(iy, em)), 3 & ~done, [o], [])
            if done == 3:
                break
        return finish(True)
    # the stack holds (α, β, observations, actions, open directions: bit 1 = x over y, bit 2 = y over x)
    stack: list = []
    for o in range(n_obs - 1, -1, -1):
        em = emit[o]
        stack.append(([v * e for v, e in zip(ix, em)], [v * e for v, e in zip(iy, em)], [o], [], 3))
    while stack:
        A, B, seq, aseq, act = stack.pop()
        act &= ~done
        if not act:
            continue
        nodes += 1
        if not nodes & 255:
            checkpoint()
            if deadline is not None and time.perf_counter() > deadline:
                return finish(False)
        if max_work is not None and work > max_work:
            return finish(False)
        if ratio_prune:
            if act & 1 and all(a * kx_a <= b * kx_b for a, b in zip(A, B) if a):
                act &= ~1
            if act & 2 and all(b * ky_b <= a * ky_a for a, b in zip(A, B) if b):
                act &= ~2
            if act and bounds is not None:
                inv = bounds.get()
                if inv is not None and k - len(seq) < len(inv):
                    inv = inv[k - len(seq)]
                    lp_tries += 1
                    open_before = act
                    if act & 1:
                        v = _lp_bound(A, B, inv, scale)
                        if v is not None and v * q_y <= c_x:
                            act &= ~1
                    if act & 2:
                        v = _lp_bound(B, A, inv, scale)
                        if v is not None and v * q_x <= c_y:
                            act &= ~2
                    if act != open_before:
                        lp_hits += 1
                    elif lp_tries >= 4096 and lp_hits * 100 < lp_tries:
                        bounds = None       # it (almost) never closes anything here: save its cost
            if not act:
                cut += 1
                continue
        t = len(seq)
        if merge:
            g = math.gcd(*A, *B)
            if not g:               # α = β = 0: 0 > c·0 is false both ways
                continue
            key = tuple(v // g for v in A) + tuple(v // g for v in B)
            seen = memo[t]
            if key in seen:
                merged += 1
                continue
            if remembered < memo_limit:
                seen.add(key)
                remembered += 1
        work += per_node
        if t == k - 1:
            # the children are leaves: compare them here, in depth-first order
            for a in range(n_act):
                rows = trans[a]
                A2, B2 = step(A, rows), step(B, rows)
                aseq2 = aseq + [a] if n_act > 1 else aseq
                for o in range(n_obs):
                    em = emit[o]
                    sa = sum(v * e for v, e in zip(A2, em) if v)
                    sb = sum(v * e for v, e in zip(B2, em) if v)
                    if sa or sb:
                        leaf(sa, sb, act & ~done, seq + [o], aseq2)
                        if done == 3:
                            return finish(True)
            continue
        stack.extend((*child, act) for child in reversed(_int_children(A, B, seq, aseq, trans, emit, n)))
    return finish(True)


def _lcm_den(values) -> int:
    d = 1
    for v in values:
        den = Fraction(v).denominator
        if den != 1:
            d = d * den // math.gcd(d, den)
    return d


def _integer_rows(model):
    """The rows on an integer scale: D and E, the common denominators of the
    transition and emission rows; ``trans[a][s]`` the sorted (s′, p·D) with
    p > 0; ``emit[o][s]`` = e(s, o)·E."""
    n = model.n_states
    D = _lcm_den(p for rows in model.trans for row in rows for p in row.values())
    E = _lcm_den(p for row in model.emit for p in row.values())
    trans = [[sorted((s2, int(p * D)) for s2, p in row.items() if p) for row in rows] for rows in model.trans]
    emit = [[int(model.emit[s].get(o, 0) * E) for s in range(n)] for o in range(model.n_obs)]
    return n, model.n_obs, model.n_actions, D, E, trans, emit


def _int_children(A: list[int], B: list[int], seq: list[int], aseq: list[int], trans, emit,
                  n: int) -> list[tuple]:
    """The children of an enumeration node in walk order (action, then
    observation): per child the two integer vectors after the step and the
    emission, the observations and the actions (kept only with several)."""
    n_act = len(trans)
    children = []
    for a in range(n_act):
        rows = trans[a]
        A2, B2 = _int_step(A, rows, n), _int_step(B, rows, n)
        aseq2 = aseq + [a] if n_act > 1 else aseq
        for o, em in enumerate(emit):
            children.append(([v * e if v else 0 for v, e in zip(A2, em)],
                             [v * e if v else 0 for v, e in zip(B2, em)], seq + [o], aseq2))
    return children


def _int_step(vec: list[int], rows, n: int) -> list[int]:
    """One forward step on the integer scale of :func:`_integer_rows`."""
    nxt = [0] * n
    for s in range(n):
        v = vec[s]
        if v:
            for s2, p in rows[s]:
                nxt[s2] += v * p
    return nxt


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
    supports are too many to count).  Summed over x and y, it bounds the work
    of :func:`pruned_check` for the pair (x, y): that walk expands only
    prefixes with α ≠ 0 or β ≠ 0 (a direction whose side is 0 is closed by
    the ratio bound), each at :func:`node_cost`.

    A prefix is extended iff its forward vector α is not 0, and α_t(s) > 0
    iff s is in the support set reached by the prefix (every quantity is
    non-negative, so no sum cancels): the number of prefixes of each length
    follows from a dynamic programme over support sets with counts — exact,
    not an estimate.  The work is Σ over extended prefixes of
    :func:`node_cost` plus the leaves.
    """
    n, n_obs, n_act = model.n_states, model.n_obs, model.n_actions
    succ = [[frozenset(row) for row in rows] for rows in model.trans]
    emits = [frozenset(s for s in range(n) if model.emit[s].get(o)) for o in range(n_obs)]
    per_node = node_cost(model)
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
