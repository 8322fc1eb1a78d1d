"""python-flint's exact linear algebra (dslc.ir.chain_structure and the
definiteness test of the eigen-gap bound) against literal eliminations
(tests/test_correlated_reference.py)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.correlated import influence
from dslc.correlated.influence import INF, NEG, _positive_definite
from dslc.correlated.numeric import log_ratio_float
from dslc.ir import chain_structure as markov
from tests import test_correlated_reference as ref

SETTINGS = settings(max_examples=60, deadline=None)

fractions = st.builds(Fraction, st.integers(-6, 6), st.integers(1, 7))


@st.composite
def chains(draw):
    """A random transition matrix with zeros (possibly reducible)."""
    k = draw(st.integers(1, 7))
    P = []
    for x in range(k):
        w = draw(st.lists(st.integers(0, 5), min_size=k, max_size=k))
        w[draw(st.integers(0, k - 1))] += 1
        P.append([Fraction(v, sum(w)) for v in w])
    return P


@SETTINGS
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(st.lists(fractions, min_size=n, max_size=n), min_size=n, max_size=n),
    st.lists(fractions, min_size=n, max_size=n))))
def test_solve_equals_gauss_jordan(system):
    A, b = system
    got = markov.solve_exact(A, b)
    assert got == ref.gauss_jordan(A, b)
    assert got is None or all(type(v) is Fraction for v in got)


@SETTINGS
@given(chains())
def test_stationary_equals_the_literal_solve(P):
    pi = markov.stationary(P)
    closed = markov.closed_classes(P)
    if len(closed) != 1:
        assert pi is None
        return
    C = sorted(closed[0])
    n = len(C)
    A = [[P[C[j]][C[i]] - (1 if i == j else 0) for j in range(n)] for i in range(n)]
    A[-1] = [Fraction(1)] * n
    sol = ref.gauss_jordan(A, [Fraction(0)] * (n - 1) + [Fraction(1)])
    expect = [Fraction(0)] * len(P)
    for idx, s in zip(C, sol):
        expect[idx] = s
    assert pi == expect and sum(pi) == 1
    assert markov.vec_mat(pi, P) == pi


@SETTINGS
@given(chains(), st.integers(0, 9))
def test_integer_powers_equal_repeated_products(P, t):
    M, d = markov.integer_matrix(P)
    assert markov.mat_pow_int(M, t) == ref.mat_pow(M, t)
    assert markov.mat_mul_int(M, M) == ref.mat_mul(M, M)
    assert markov.mat_pow(P, t) == [[Fraction(v, d ** t) for v in row] for row in ref.mat_pow(M, t)]


@SETTINGS
@given(st.integers(1, 6).flatmap(lambda n: st.lists(st.lists(fractions, min_size=n, max_size=n),
                                                    min_size=n, max_size=n)),
       st.integers(-3, 3))
def test_definiteness_equals_sylvester(B, shift):
    """S = BᵀB + shift·I covers definite, semidefinite and indefinite S."""
    n = len(B)
    S = [[sum(B[z][x] * B[z][y] for z in range(n)) + (shift if x == y else 0) for y in range(n)]
         for x in range(n)]
    bits = 8
    N = [[(2 * v.numerator * (1 << bits) + v.denominator) // (2 * v.denominator) - (n if x == y else 0)
          for y, v in enumerate(row)] for x, row in enumerate(S)]
    assert _positive_definite(S, bits) == ref.leading_minors_positive(N)


class LiteralTables(influence.ModelTables):
    """The per-distance tables with every ratio compared exactly (dslc's
    scan before the logarithm filter of `_LogMatrix`)."""

    def _record_exact(self, d, A, lr, pin):
        fwd, raw = {}, {}
        for (x, y) in self.pairs:
            fwd[(x, y)] = influence._log_max_ratio([(A[x][v], A[y][v]) for v in range(self.k)], lr)
            if pin is not None:
                px, py = pin[x], pin[y]
                raw[(x, y)] = influence._log_max_ratio([(A[u][x] * py, A[u][y] * px) for u in self.support], lr)
            else:
                raw[(x, y)] = influence._log_max_ratio([(A[u][x], A[u][y]) for u in self.support], lr)
        self._store(d, fwd, raw, pin)

    def exact_ratio(self, a, b):
        Pa, Pb = ref.mat_pow(self.M, a), ref.mat_pow(self.M, b)
        best = Fraction(0) if self.pairs else Fraction(1)
        for (x, y) in self.pairs:
            r = Fraction(1)
            if b:
                f = influence._max_ratio([(Pb[x][v], Pb[y][v]) for v in range(self.k)])
                if f is None:
                    return None
                r *= f
            if a:
                g = influence._max_ratio([(Pa[u][x], Pa[u][y]) for u in self.support])
                if g is None:
                    return None
                if g == 0:
                    continue
                if self.stationary:
                    r *= g * self.model.stationary[y] / self.model.stationary[x]
                else:
                    h = influence._max_ratio([(Pa[u][y], Pa[u][x]) for u in self.support])
                    if h is None:
                        return None
                    r *= g * h
            best = max(best, r)
        return max(best, Fraction(1))


@st.composite
def models(draw):
    """A chain whose rows repeat (ties between ratios are common), started
    in π when π is unique and the draw says so, else in a random q."""
    P = draw(chains())
    k = len(P)
    pool = P[:draw(st.integers(1, k))]
    P = [list(draw(st.sampled_from(pool))) for _ in range(k)]
    model = type("Model", (), {})()
    model.transition = P
    model.stationary = markov.stationary(P)
    model.stationary_start = model.stationary is not None and draw(st.booleans())
    w = draw(st.lists(st.integers(0, 3), min_size=k, max_size=k).filter(any))
    model.initial = model.stationary if model.stationary_start else [Fraction(v, sum(w)) for v in w]
    return model


@SETTINGS
@given(models(), st.integers(0, 5), st.integers(0, 5))
def test_ratio_tables_equal_the_exact_scan(model, a, b):
    fast, slow = influence.ModelTables(model, cap=100), LiteralTables(model, cap=100)
    for d in range(1, 6):
        assert fast.request(d) and slow.request(d)
        assert fast.F[d] == slow.F[d] and fast.B[d] == slow.B[d]
    assert fast.exact_ratio(a, b) == slow.exact_ratio(a, b)


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([3, 41]))
def test_eigen_gap_trace_is_the_literal_trace(seed, k):
    """Above 40 states the certificate is trace(PP* − 1π) = Σ_x π_x(Σ_z P_xz²/π_z − 1),
    computed literally here; below, μ is at most that trace."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from bench_render import random_chain
    P = random_chain(k, seed)
    pi = markov.stationary(P)
    model = type("Model", (), {})()
    model.stationary, model.transition, model.stationary_start = pi, P, True
    trace = sum(pi[x] * (sum(P[x][z] ** 2 / pi[z] for z in range(k)) - 1) for x in range(k))
    gap = influence.EigenGap(model)
    if k > influence.PD_MAX_STATES:
        assert gap.certificate == "trace" and gap.mu == max(trace, 0)
    else:
        assert gap.mu <= max(trace, 0)


class LiteralFloatTables(influence.ModelTables):
    """The binary64 tables with lr taken at every index (before `_Quotients`)."""

    def _record_float(self, d, A, delta):
        def lr(n, m):
            v, err = log_ratio_float(n, m, delta)
            return v + err
        fwd, raw = {}, {}
        for (x, y) in self.pairs:
            best = NEG
            for v in range(self.k):
                if A[x][v]:
                    best = INF if not A[y][v] else max(best, lr(A[x][v], A[y][v]))
                    if best == INF:
                        break
            fwd[(x, y)] = best
            best = NEG
            for u in self.support:
                if A[u][x]:
                    best = INF if not A[u][y] else max(best, lr(A[u][x], A[u][y]))
                    if best == INF:
                        break
            raw[(x, y)] = best
        self._store(d, fwd, raw, None)


@SETTINGS
@given(models())
def test_float_tables_equal_lr_at_every_index(model):
    """With a tiny BIT_LIMIT every distance past the first uses binary64."""
    import pytest
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(influence, "BIT_LIMIT", 16)
        fast, slow = influence.ModelTables(model, cap=10**6), LiteralFloatTables(model, cap=10**6)
        for d in (1, 2, 3, 5, 9, 40):
            assert fast.request(d) == slow.request(d)
            if fast.has(d):
                assert fast.F[d] == slow.F[d] and fast.B[d] == slow.B[d]
