"""Slow literal implementations for the `chain` tests (no tests here).

Everything is computed from the definitions by enumerating all k^T
sequences of the chain: the max-influence of a quilt is the largest ratio of
conditional probabilities of the quilt's values given X_i = x vs x′, the
Markov Quilt score is card(X_N)/(ε − e), and the Wasserstein distance is
taken between the conditional laws of F(X) given X_i.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from dslc.pipeline import check_source
from dslc.source import SourceFile


def joint(q, P, T):
    k = len(P)
    out = {}
    for s in itertools.product(range(k), repeat=T):
        p = Fraction(q[s[0]])
        for t in range(1, T):
            if p == 0:
                break
            p *= P[s[t - 1]][s[t]]
        out[s] = p
    return out


def max_influence_ratio(models, T, i, quilt):
    """exp(e(X_quilt | X_i)) over Θ = models [(q, P)], exactly; None for ∞."""
    k = len(models[0][1])
    best = Fraction(1)
    for q, P in models:
        pr = joint(q, P, T)
        marg = [sum(p for s, p in pr.items() if s[i - 1] == x) for x in range(k)]
        cond = [dict() for _ in range(k)]
        for s, p in pr.items():
            if p:
                z = tuple(s[j - 1] for j in quilt)
                cond[s[i - 1]][z] = cond[s[i - 1]].get(z, 0) + p
        for x in range(k):
            for y in range(k):
                if x == y or marg[x] == 0 or marg[y] == 0:
                    continue
                for z, p in cond[x].items():
                    py = cond[y].get(z, 0) / marg[y]
                    if py == 0:
                        return None
                    best = max(best, (p / marg[x]) / py)
    return best


def quilts(T, i):
    """(a, b, quilt nodes, card) for every quilt {X_{i−a}, X_{i+b}} of node i."""
    for a in range(0, i):
        for b in range(0, T - i + 1):
            nodes = ([i - a] if a else []) + ([i + b] if b else [])
            card = (a if a else i) + (b if b else T - i + 1) - 1
            yield a, b, nodes, card


def sigma_max(models, T, eps):
    """σ_max of the Markov Quilt mechanism over all quilts of all nodes."""
    eps = float(eps)
    worst = 0.0
    for i in range(1, T + 1):
        best = T / eps
        for a, b, nodes, card in quilts(T, i):
            if not nodes:
                continue
            r = max_influence_ratio(models, T, i, nodes)
            if r is None:
                continue
            e = math.log(r)
            if e < eps:
                best = min(best, card / (eps - e))
        worst = max(worst, best)
    return worst


def wasserstein(models, T, values):
    """max over θ, nodes and pairs of W∞(P(F | X_i = x), P(F | X_i = x′))."""
    k = len(values)
    best = Fraction(0)
    for q, P in models:
        pr = joint(q, P, T)
        for i in range(1, T + 1):
            conds = {}
            for x in range(k):
                d = {}
                for s, p in pr.items():
                    if p and s[i - 1] == x:
                        f = sum(values[v] for v in s)
                        d[f] = d.get(f, 0) + p
                m = sum(d.values())
                if m:
                    conds[x] = {f: p / m for f, p in d.items()}
            for x in conds:
                for y in conds:
                    if x < y:
                        best = max(best, w_inf_quantiles(conds[x], conds[y]))
    return best


def w_inf_quantiles(mu, nu):
    """W∞ from quantile functions evaluated at every breakpoint (midpoints)."""
    def cdf_points(d):
        c, out = Fraction(0), []
        for v in sorted(d):
            c += d[v]
            out.append((c, v))
        return out

    def quantile(points, t):
        for c, v in points:
            if t <= c:
                return v
        return points[-1][1]
    pm, pn = cdf_points(mu), cdf_points(nu)
    cuts = sorted({Fraction(0)} | {c for c, _ in pm} | {c for c, _ in pn})
    w = Fraction(0)
    for lo, hi in zip(cuts, cuts[1:]):
        t = (lo + hi) / 2
        w = max(w, abs(quantile(pm, t) - quantile(pn, t)))
    return w


def chain_text(models, T, eps, k, query="sum", extra="", name="c"):
    """A `chain` block for models [(q or "stationary", P)] over states 0..k−1."""
    def vec(v):
        return "[" + ", ".join(str(Fraction(x)) for x in v) + "]"
    lines = [f"chain {name} {{", f"    states = [{', '.join(str(i) for i in range(k))}]"]
    for n, (q, P) in enumerate(models):
        init = "stationary" if isinstance(q, str) else vec(q)
        lines.append(f"    model m{n} {{ initial = {init}; transition = [" + ", ".join(vec(r) for r in P) + "] }")
    lines += [f"    length = {T}", f"    query = {query}", f"    ε = {eps}", extra, "}"]
    return "\n".join(lines) + "\n"


def check_text(text: str, path: str = "test.dp"):
    import dslc.correlated.backend  # noqa: F401
    return check_source(SourceFile(path, text))


# ---------------------------------------------------------------- linear algebra
def gauss_jordan(A, b):
    """Solve A x = b by Gauss–Jordan elimination on Fractions; None when
    singular (dslc's own elimination before python-flint)."""
    n = len(A)
    M = [[Fraction(v) for v in row] + [Fraction(b[i])] for i, row in enumerate(A)]
    for col in range(n):
        piv = next((r for r in range(col, n) if M[r][col] != 0), None)
        if piv is None:
            return None
        M[col], M[piv] = M[piv], M[col]
        inv = 1 / M[col][col]
        M[col] = [x * inv for x in M[col]]
        for r in range(n):
            if r != col and M[r][col] != 0:
                f = M[r][col]
                M[r] = [x - f * y for x, y in zip(M[r], M[col])]
    return [M[r][n] for r in range(n)]


def mat_mul(A, B):
    return [[sum(A[i][z] * B[z][j] for z in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def mat_pow(M, t):
    k = len(M)
    out = [[1 if i == j else 0 for j in range(k)] for i in range(k)]
    for _ in range(t):
        out = mat_mul(out, M)
    return out


def leading_minors_positive(N):
    """Sylvester's criterion on an integer matrix by fraction-free (Bareiss)
    elimination: every leading principal minor is positive."""
    n = len(N)
    A = [list(row) for row in N]
    prev = 1
    for c in range(n):
        piv = A[c][c]
        if piv <= 0:
            return False
        for r in range(c + 1, n):
            f = A[r][c]
            A[r] = [(piv * x - f * y) // prev if j > c else 0 for j, (x, y) in enumerate(zip(A[r], A[c]))]
        prev = piv
    return True
