"""Exact facts about one finite Markov chain: reachability, communicating
classes, period, the stationary distribution (exact rationals), and integer
matrix powers (P = M/d, so P^t = M^t/d^t and ratios of entries of P^t are
ratios of integers).  Exact linear algebra (solves, products, powers) is
python-flint's (``fmpq_mat``, ``fmpz_mat``)."""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm

import flint

Matrix = list[list[Fraction]]


def support_graph(P: Matrix) -> list[list[int]]:
    return [[j for j, p in enumerate(row) if p > 0] for row in P]


def reachable(P: Matrix, sources) -> set[int]:
    return _reach(support_graph(P), sources)


def _reach(succ: list[list[int]], sources) -> set[int]:
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
    succ = support_graph(P)
    reach = [_reach(succ, [i]) for i in range(k)]
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


def _fmpq_mat(A: list[list[Fraction]]) -> flint.fmpq_mat:
    return flint.fmpq_mat(len(A), len(A[0]) if A else 0,
                          [flint.fmpq(x.numerator, x.denominator) for row in A for x in row])


def _fmpz_mat(A: list[list[int]]) -> flint.fmpz_mat:
    return flint.fmpz_mat(len(A), len(A[0]) if A else 0, [x for row in A for x in row])


def _int_rows(A: flint.fmpz_mat) -> list[list[int]]:
    return [[int(x) for x in row] for row in A.tolist()]


def solve_exact(A: list[list[Fraction]], b: list[Fraction]) -> list[Fraction] | None:
    """Solve A x = b exactly (python-flint's rational matrices); None when
    singular.  The time budget is checked before and after the solve, which
    takes milliseconds at a few hundred states."""
    from dslc import limits
    n = len(A)
    if n == 0:
        return []
    limits.checkpoint()
    try:
        x = _fmpq_mat(A).solve(_fmpq_mat([[v] for v in b]))
    except ZeroDivisionError:
        return None
    limits.checkpoint()
    return [Fraction(int(v.p), int(v.q)) for v in x.entries()]


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
    """A·B for integer matrices (python-flint); the time budget is checked
    before and after the product."""
    from dslc import limits
    limits.checkpoint()
    C = _int_rows(_fmpz_mat(A) * _fmpz_mat(B))
    limits.checkpoint()
    return C


def mat_pow_int(M: list[list[int]], t: int) -> list[list[int]]:
    """M^t for a square integer matrix (python-flint); the time budget is
    checked before and after."""
    from dslc import limits
    limits.checkpoint()
    C = _int_rows(_fmpz_mat(M) ** t)
    limits.checkpoint()
    return C


def vec_mat(v: list[Fraction], P: Matrix) -> list[Fraction]:
    k = len(P)
    return [sum((v[i] * P[i][j] for i in range(k) if v[i]), Fraction(0)) for j in range(k)]


def mat_pow(P: Matrix, t: int) -> Matrix:
    """P^t exactly (Fractions)."""
    M, d = integer_matrix(P)
    Mt = mat_pow_int(M, t)
    dt = d ** t
    return [[Fraction(x, dt) for x in row] for row in Mt]
