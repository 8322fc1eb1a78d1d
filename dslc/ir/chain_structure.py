"""Exact facts about one finite Markov chain: reachability, communicating
classes, period, the stationary distribution (exact rationals), and integer
matrix powers (P = M/d, so P^t = M^t/d^t and ratios of entries of P^t are
ratios of integers)."""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm

Matrix = list[list[Fraction]]


def support_graph(P: Matrix) -> list[list[int]]:
    return [[j for j, p in enumerate(row) if p > 0] for row in P]


def reachable(P: Matrix, sources) -> set[int]:
    succ = support_graph(P)
    seen = set(sources)
    stack = list(seen)
    while stack:
        u = stack.pop()
        for v in succ[u]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


def classes(P: Matrix) -> list[frozenset[int]]:
    """Communicating classes (strongly connected components), any order."""
    k = len(P)
    reach = [reachable(P, [i]) for i in range(k)]
    out: list[frozenset[int]] = []
    done: set[int] = set()
    for i in range(k):
        if i in done:
            continue
        cls = frozenset(j for j in reach[i] if i in reach[j])
        done |= cls
        out.append(cls)
    return out


def closed_classes(P: Matrix) -> list[frozenset[int]]:
    succ = support_graph(P)
    return [c for c in classes(P) if all(v in c for u in c for v in succ[u])]


def is_irreducible(P: Matrix) -> bool:
    return len(classes(P)) == 1


def period(P: Matrix) -> int:
    """Period of an irreducible chain (gcd of its cycle lengths)."""
    succ = support_graph(P)
    level = {0: 0}
    queue = [0]
    g = 0
    for u in queue:
        for v in succ[u]:
            if v not in level:
                level[v] = level[u] + 1
                queue.append(v)
            else:
                g = gcd(g, level[u] + 1 - level[v])
    return abs(g) if g else 0


def solve_exact(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """Solve A x = b exactly (Gauss–Jordan); None when singular.  The time
    budget (:func:`dslc.limits.checkpoint`) is checked once per row operation:
    a 100-state chain takes seconds."""
    from dslc import limits
    n = len(A)
    M = [list(row) + [b[i]] for i, row in enumerate(A)]
    for col in range(n):
        piv = next((r for r in range(col, n) if M[r][col] != 0), None)
        if piv is None:
            return None
        M[col], M[piv] = M[piv], M[col]
        inv = 1 / M[col][col]
        M[col] = [x * inv for x in M[col]]
        for r in range(n):
            if r != col and M[r][col] != 0:
                limits.checkpoint()
                f = M[r][col]
                M[r] = [x - f * y for x, y in zip(M[r], M[col])]
    return [M[r][n] for r in range(n)]


def stationary(P: Matrix) -> list[Fraction] | None:
    """The unique stationary distribution, or None when it is not unique
    (more than one closed class)."""
    closed = closed_classes(P)
    if len(closed) != 1:
        return None
    C = sorted(closed[0])
    n = len(C)
    # π_C (P_C − I) = 0 and Σ π_C = 1: replace the last equation by the sum.
    A = [[P[C[j]][C[i]] - (1 if i == j else 0) for j in range(n)] for i in range(n)]
    A[-1] = [Fraction(1)] * n
    b = [Fraction(0)] * (n - 1) + [Fraction(1)]
    sol = solve_exact(A, b)
    if sol is None:  # pragma: no cover - a closed class always has one
        return None
    pi = [Fraction(0)] * len(P)
    for idx, s in zip(C, sol):
        pi[idx] = s
    return pi


def integer_matrix(P: Matrix) -> tuple[list[list[int]], int]:
    """P = M/d with M integral and d the least common denominator."""
    d = 1
    for row in P:
        for p in row:
            d = lcm(d, p.denominator)
    return [[int(p * d) for p in row] for row in P], d


def mat_mul_int(A: list[list[int]], B: list[list[int]]) -> list[list[int]]:
    cols = list(zip(*B))
    return [[sum(a * b for a, b in zip(row, col)) if any(row) else 0 for col in cols] for row in A]


def mat_pow_int(M: list[list[int]], t: int) -> list[list[int]]:
    k = len(M)
    result = [[1 if i == j else 0 for j in range(k)] for i in range(k)]
    base = M
    while t:
        if t & 1:
            result = mat_mul_int(result, base)
        t >>= 1
        if t:
            base = mat_mul_int(base, base)
    return result


def vec_mat(v: list[Fraction], P: Matrix) -> list[Fraction]:
    k = len(P)
    return [sum((v[i] * P[i][j] for i in range(k) if v[i]), Fraction(0)) for j in range(k)]


def mat_pow(P: Matrix, t: int) -> Matrix:
    """P^t exactly (Fractions)."""
    M, d = integer_matrix(P)
    Mt = mat_pow_int(M, t)
    dt = d ** t
    return [[Fraction(x, dt) for x in row] for row in Mt]
