"""Max-influence of the Markov quilts of a chain (Song, Wang & Chaudhuri,
"Pufferfish Privacy Mechanisms for Correlated Data", Sections 4.3–4.4).

For node X_i of a chain X_1 → … → X_T and the quilt X_Q = {X_{i−a}, X_{i+b}}
(either side may be absent), the max-influence is

    e(X_Q | X_i) = max_{θ ∈ Θ} max_{x, x′} log sup_{u, v}
                   P(X_{i−a}=u, X_{i+b}=v | X_i=x) / P(X_{i−a}=u, X_{i+b}=v | X_i=x′)

over states x, x′ of positive probability at node i.  Given X_i the two
sides are independent, so the supremum factors into a *backward* ratio
max_u P(X_{i−a}=u | X_i=x)/P(X_{i−a}=u | X_i=x′) and a *forward* ratio
max_v P^b(x,v)/P^b(x′,v); both are exact rationals computed from integer
matrix powers, and the log is taken at the end (dslc.correlated.numeric).

Three ways to get the backward ratio, by how much the marginal p_i of X_i
is known (P(X_{i−a}=u | X_i=x) = p_{i−a}(u) P^a(u,x) / p_i(x)):

* per node (short chains): p_i exactly, for every node — the definition;
* stationary start (q = π): p_i = π at every node, so the ratio is
  max_u P^a(u,x)/P^a(u,x′) · π(x′)/π(x) and depends on a only — exact;
* any other start (long chains): p_i = p_{i−a} P^a is a mixture of rows of
  P^a, so p_i(x′)/p_i(x) ≤ max_w P^a(w,x′)/P^a(w,x); the resulting bound
  depends on a only and is an upper bound of the exact value.

Matrix powers are exact integers while their entries stay below
``BIT_LIMIT`` bits; beyond that they continue in binary64 with a certified
componentwise relative error (all terms are non-negative, so every product
and sum keeps a relative error bound; see :class:`ModelTables`).

The eigen-gap bound (:class:`EigenGap`) needs no matrix powers at all.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import compress
from operator import mul, sub, truediv

import flint

from dslc import limits
from dslc.ir.chain import ChainModel
from dslc.ir import chain_structure as markov
from dslc.correlated.numeric import INF, U, log_ratio, log_ratio_float

NEG = -INF
PD_MAX_STATES = 40          # the exact definiteness test certifies s² up to this many states
PD_BITS = 256               # the definiteness test rounds to this grid (with a certified margin)
BIT_LIMIT = 20_000          # exact integer powers while entries have at most this many bits
UNDERFLOW = 1e-280          # float entries below this (but not 0) stop the float path


def _add(x: float, y: float) -> float:
    """x + y where −∞ (an impossible pair) absorbs ∞."""
    if x == NEG or y == NEG:
        return NEG
    return x + y


class ModelTables:
    """Per-distance forward and backward log-ratios of one θ, as upper bounds.

    ``F[d][j]`` and ``B[d][j]`` (dicts keyed by the distance d) are indexed by
    the ordered pairs ``pairs[j] = (x, x′)`` of states that can be X_i; F is
    the forward term at distance d, B the backward term (marginal factor
    included).  Distances are requested in any order (:meth:`request`);
    P^d is reached from the largest power computed so far by one product
    with P^gap (exponentiation by squaring).

    Exact integers are used while the entries of M^d (P = M/den) stay below
    ``BIT_LIMIT`` bits.  Beyond, binary64: every entry of a product of
    non-negative matrices with componentwise relative errors δ₁, δ₂ has
    relative error at most (1+δ₁)(1+δ₂)(1+γ_k) − 1, γ_k = kU/(1−kU), since
    no cancellation can occur; ``delta`` carries that bound.  A float entry
    that underflows (below ``UNDERFLOW`` but not 0) ends the float path:
    larger distances are then unavailable (their influence counts as ∞).
    """

    def __init__(self, model: ChainModel, cap: int, force_bound: bool = False):
        self.model = model
        P = model.transition
        self.k = len(P)
        self.M, self.den = markov.integer_matrix(P)
        self.stationary = model.stationary_start and not force_bound
        if self.stationary:
            pi = model.stationary
            support = [x for x in range(self.k) if pi[x] > 0]
        else:
            support = sorted(markov.reachable(P, [x for x in range(self.k) if model.initial[x] > 0]))
        self.support = support
        self.pairs = [(x, y) for x in support for y in support if x != y]
        self.lpi = {}
        self.pi_int = None
        if self.stationary:
            self.pi_int = markov.integer_matrix([model.stationary])[0][0]
            for (x, y) in self.pairs:
                v, err = log_ratio(model.stationary[y], model.stationary[x])
                self.lpi[(x, y)] = v + err
        self.cap = cap
        self.Pf = [[float(p) for p in row] for row in P]
        self.gamma = self.k * U / (1 - self.k * U)
        self.F: dict[int, list[float]] = {}
        self.B: dict[int, list[float]] = {}
        self.last = self._identity()        # the largest power computed: (kind, matrix, δ, d)
        self.exact_upto = 0                 # largest distance computed with exact integers
        self.float_from: int | None = None  # first distance computed in binary64
        self.stopped_at: int | None = None  # float path ended (underflow) beyond this distance
        self.bits_per_step = math.log2(self.den)   # growth of the entries of M^d per step

    # -------------------------------------------------------------- powers
    def has(self, d: int) -> bool:
        return d in self.F

    def _identity(self):
        return ("int", [[1 if i == j else 0 for j in range(self.k)] for i in range(self.k)], 0.0, 0)

    def request(self, d: int) -> bool:
        """Make F[d], B[d] available; False when d is beyond reach."""
        if d in self.F:
            return True
        if d > self.cap or (self.stopped_at is not None and d > self.stopped_at):
            return False
        base = self.last if d >= self.last[3] else self._identity()
        power = self._product(base, self._power(d - base[3], d))
        if power is None:
            self.stopped_at = base[3] if self.stopped_at is None else min(self.stopped_at, base[3])
            return False
        kind, A, delta, _ = power
        if kind == "int":
            self.exact_upto = max(self.exact_upto, d)
            self._record_int(d, A)
        else:
            if self.float_from is None or d < self.float_from:
                self.float_from = d
            self._record_float(d, A, delta)
        if d >= self.last[3]:
            self.last = power
        return True

    def _power(self, g: int, target: int):
        """P^g as (kind, matrix, δ, g): exact M^g while M^target stays small."""
        if target * self.bits_per_step + self.k.bit_length() <= BIT_LIMIT:
            return ("int", markov.mat_pow_int(self.M, g), 0.0, g)
        result = self._identity()
        base = ("float", self.Pf, U / 2, 1)
        while g:
            limits.checkpoint()
            if g & 1:
                result = self._product(result, base)
            g >>= 1
            if g:
                base = self._product(base, base)
            if result is None or base is None:
                return None
        return result

    def _product(self, X, Y):
        """X·Y for powers of P; None when a float entry underflows."""
        if X is None or Y is None:
            return None
        if X[3] == 0:
            return Y
        if Y[3] == 0:
            return X
        d = X[3] + Y[3]
        if X[0] == "int" and Y[0] == "int":
            C = markov.mat_mul_int(X[1], Y[1])
            if max(x.bit_length() for row in C for x in row) <= BIT_LIMIT:
                return ("int", C, 0.0, d)
            return self._to_float(C, d)
        X = self._to_float(X[1], X[3]) if X[0] == "int" else X
        Y = self._to_float(Y[1], Y[3]) if Y[0] == "int" else Y
        if X is None or Y is None:
            return None
        cols = list(zip(*Y[1]))
        C = []
        for row in X[1]:
            limits.checkpoint()
            C.append([sum(map(mul, row, col)) for col in cols])
        if any(0 < x < UNDERFLOW for row in C for x in row):
            return None
        return ("float", C, (1 + X[2]) * (1 + Y[2]) * (1 + self.gamma) - 1, d)

    def _to_float(self, A, d: int):
        """M^d/den^d in binary64, each entry correctly rounded (δ = U/2)."""
        scale = self.den ** d
        C = [[x / scale for x in row] for row in A]
        if any(0 < x < UNDERFLOW for row in C for x in row):
            return None
        return ("float", C, U / 2, d)

    def _record_int(self, d: int, A: list[list[int]]) -> None:
        def lr(n, m):
            v, err = log_ratio(n, m)
            return v + err
        self._record(d, A, lr, exact=True)

    def _record_float(self, d: int, A: list[list[float]], delta: float) -> None:
        def lr(n, m):
            v, err = log_ratio_float(n, m, delta)
            return v + err
        self._record(d, A, lr)

    def _record(self, d: int, A, lr, exact: bool = False) -> None:
        if exact:
            # Integers: the largest ratio of each pair is found by exact
            # cross-multiplication and only its logarithm is taken.  With a
            # stationary start the backward ratio
            # P^d(u,x)·π(x′) / (P^d(u,x′)·π(x)) is formed as one exact ratio.
            self._record_exact(d, A, lr, self.pi_int if self.stationary else None)
            return
        # Floats: lr(n, m) is a non-decreasing function of the rounded
        # quotient n/m, so the largest lr of a pair is lr at its largest
        # quotient, found by one division per index (C loops).
        support = self.support
        rows = _Quotients(A)
        cols = _Quotients([[A[u][x] for u in support] for x in range(self.k)])
        fwd, raw = {}, {}
        for (x, y) in self.pairs:
            limits.checkpoint()
            fwd[(x, y)] = rows.log_max(x, y, lr)
            raw[(x, y)] = cols.log_max(x, y, lr)
        self._store(d, fwd, raw, None)

    def _store(self, d: int, fwd: dict, raw: dict, pin) -> None:
        """The forward and backward log-ratios of distance ``d``, per pair."""
        F, B = [], []
        for (x, y) in self.pairs:
            F.append(fwd[(x, y)])
            if pin is not None:
                B.append(raw[(x, y)])
            elif self.stationary:
                B.append(_add(raw[(x, y)], self.lpi[(x, y)]))
            else:
                B.append(_add(raw[(x, y)], raw[(y, x)]))
        self.F[d] = F
        self.B[d] = B

    def _record_exact(self, d: int, A: list[list[int]], lr, pin) -> None:
        support = self.support
        fwd, raw = {}, {}
        rows = _LogMatrix(A)
        cols = rows.columns(support)
        for (x, y) in self.pairs:
            limits.checkpoint()
            Ax, Ay = A[x], A[y]
            c = rows.candidates(x, y)
            fwd[(x, y)] = INF if c is None else _log_max_ratio([(Ax[v], Ay[v]) for v in c], lr)
            c = cols.candidates(x, y)
            if c is None:
                raw[(x, y)] = INF
            elif pin is not None:
                px, py = pin[x], pin[y]
                raw[(x, y)] = _log_max_ratio([(A[support[i]][x] * py, A[support[i]][y] * px) for i in c], lr)
            else:
                raw[(x, y)] = _log_max_ratio([(A[support[i]][x], A[support[i]][y]) for i in c], lr)
        self._store(d, fwd, raw, pin)

    # -------------------------------------------------------------- exact values
    def exact_ratio(self, a: int, b: int) -> Fraction | None:
        """The exact likelihood ratio exp(e) of the quilt (a, b) for this θ
        (the same quantity the tables bound), or None when it is infinite or
        too large to compute exactly."""
        if max(a, b) * self.bits_per_step > 8 * BIT_LIMIT:
            return None
        support = self.support
        Pa = markov.mat_pow_int(self.M, a) if a else None
        Pb = markov.mat_pow_int(self.M, b) if b else None
        rows = _LogMatrix(Pb) if b else None
        cols = _LogMatrix(Pa).columns(support) if a else None
        best: Fraction | None = Fraction(0) if self.pairs else Fraction(1)
        for (x, y) in self.pairs:
            limits.checkpoint()
            r = Fraction(1)
            if b:
                c = rows.candidates(x, y)
                f = None if c is None else _max_ratio([(Pb[x][v], Pb[y][v]) for v in c])
                if f is None:
                    return None
                r *= f
            if a:
                c = cols.candidates(x, y)
                g = None if c is None else _max_ratio([(Pa[support[i]][x], Pa[support[i]][y]) for i in c])
                if g is None:
                    return None
                if g == 0:
                    continue
                if self.stationary:
                    r *= g * self.model.stationary[y] / self.model.stationary[x]
                else:
                    c = cols.candidates(y, x)
                    h = None if c is None else _max_ratio([(Pa[support[i]][y], Pa[support[i]][x]) for i in c])
                    if h is None:
                        return None
                    r *= g * h
            best = max(best, r)
        return max(best, Fraction(1))


class _LogMatrix:
    """Natural logarithms of the entries of a non-negative integer matrix, to
    find the largest ratio n/m of two of its rows (or columns) without
    comparing k pairs of large integers exactly.

    ``math.log`` of an integer of b bits is within about b·10⁻¹⁶ of the exact
    value (a rounded mantissa plus the exponent times log 2), far below
    ``tol``.  So every index whose exact ratio is the largest has a log-ratio
    within ``tol`` of the largest computed one, and :meth:`candidates` keeps
    every such index; the caller's exact scan over the candidates (in their
    original order) then finds exactly the pair a scan over all indices finds.
    """

    HUGE = 1e300                         # n > 0 over m = 0 (an infinite ratio)

    def __init__(self, A: list[list[int]] | None, logs=None):
        if logs is None:
            log = math.log
            logs = [[log(v) if v else NEG for v in row] for row in A]
        self.num = logs                                              # 0 → −∞: skipped
        self.den = [[v if v != NEG else -1e308 for v in row] for row in logs]   # 0 → −1e308: n/0 = ∞
        largest = max((v for row in logs for v in row if v != NEG), default=0.0)
        self.tol = 1e-9 * (1.0 + abs(largest))

    def columns(self, keep: list[int]) -> "_LogMatrix":
        """The matrix of columns restricted to the rows ``keep`` (in that order)."""
        num = self.num
        return _LogMatrix(None, [[num[u][x] for u in keep] for x in range(len(num[0]) if num else 0)])

    def candidates(self, x: int, y: int) -> list[int] | None:
        """The indices i whose ratio num[x][i]/num[y][i] may be the largest
        (every index that is, in increasing order; [] when row x is 0), or
        None when some entry of row x is positive where row y has 0."""
        diffs = list(map(sub, self.num[x], self.den[y]))
        top = max(diffs, default=NEG)
        if top >= self.HUGE:
            return None
        if top == NEG:
            return []
        i = diffs.index(top)
        low = top - self.tol
        diffs[i] = NEG
        if max(diffs) < low:                 # the only index near the top
            return [i]
        diffs[i] = top
        return [j for j, v in enumerate(diffs) if v >= low]


class _Quotients:
    """Rows of non-negative floats, for the largest quotient of two rows."""

    def __init__(self, rows: list[list[float]]):
        self.rows = rows
        self.positive = [frozenset(compress(range(len(row)), row)) for row in rows]
        self.den = [[v if v else -1.0 for v in row] for row in rows]     # n/0 never the largest

    def log_max(self, x: int, y: int, lr) -> float:
        """max of lr(rows[x][i], rows[y][i]) over i with rows[x][i] > 0: ∞ when
        some such rows[y][i] is 0, −∞ when there is no such i."""
        if not self.positive[x]:
            return NEG
        if not self.positive[x] <= self.positive[y]:
            return INF
        q = list(map(truediv, self.rows[x], self.den[y]))
        i = q.index(max(q))
        return lr(self.rows[x][i], self.rows[y][i])


def _log_max_ratio(pairs: list, lr) -> float:
    """Upper bound of log max n/m over pairs of non-negative integers with
    n > 0: ∞ when some such m is 0, −∞ when every n is 0."""
    if len(pairs) == 1:                 # the usual case after _LogMatrix: no products
        n, m = pairs[0]
        return NEG if n == 0 else INF if m == 0 else lr(n, m)
    bn, bm = 0, 1
    for n, m in pairs:
        if n == 0:
            continue
        if m == 0:
            return INF
        if n * bm > bn * m:
            bn, bm = n, m
    return NEG if bn == 0 else lr(bn, bm)


def _max_ratio(pairs) -> Fraction | None:
    """max n/m over pairs with n > 0; None when some m is 0 (infinite);
    0 when every n is 0."""
    bn, bm = 0, 1                       # the best ratio so far, as a pair (no gcd per entry)
    for n, m in pairs:
        if n == 0:
            continue
        if m == 0:
            return None
        if n * bm > bn * m:
            bn, bm = n, m
    return Fraction(bn, bm)


# ---------------------------------------------------------------- per node
class NodeTables:
    """Exact per-node backward ratios for short chains (the definition).

    ``B(i, a)[j]`` uses the exact marginals p_i and the support of p_{i−a};
    ``pairs_at(i)`` are the pairs of states of positive probability at node i.
    """

    def __init__(self, model: ChainModel, T: int):
        self.model = model
        P = model.transition
        self.k = len(P)
        self.M, self.den = markov.integer_matrix(P)
        self.T = T
        self.marg = [None, list(model.initial)]
        for _ in range(2, T + 1):
            limits.checkpoint()
            self.marg.append(markov.vec_mat(self.marg[-1], P))
        self.powers = [None]
        cur = [[1 if i == j else 0 for j in range(self.k)] for i in range(self.k)]
        for _ in range(1, T):
            cur = markov.mat_mul_int(cur, self.M)
            self.powers.append(cur)
        self.pairs = [(x, y) for x in range(self.k) for y in range(self.k) if x != y]
        self._fwd: dict[int, list[float]] = {}
        self._fwd_exact: dict[int, list[Fraction | None]] = {}

    def valid(self, i: int) -> list[bool]:
        p = self.marg[i]
        return [p[x] > 0 and p[y] > 0 for (x, y) in self.pairs]

    def forward_exact(self, b: int) -> list[Fraction | None]:
        if b not in self._fwd_exact:
            limits.checkpoint()
            A = self.powers[b]
            self._fwd_exact[b] = [_max_ratio([(A[x][v], A[y][v]) for v in range(self.k)])
                                  for (x, y) in self.pairs]
        return self._fwd_exact[b]

    def backward_exact(self, i: int, a: int) -> list[Fraction | None]:
        A = self.powers[a]
        p_i, p_s = self.marg[i], self.marg[i - a]
        out = []
        for (x, y) in self.pairs:
            limits.checkpoint()
            if p_i[x] == 0 or p_i[y] == 0:
                out.append(Fraction(0))
                continue
            g = _max_ratio([(A[u][x], A[u][y]) for u in range(self.k) if p_s[u] > 0])
            out.append(None if g is None else g * p_i[y] / p_i[x])
        return out

    def forward(self, b: int) -> list[float]:
        if b not in self._fwd:
            self._fwd[b] = [_lg(r) for r in self.forward_exact(b)]
        return self._fwd[b]

    def backward(self, i: int, a: int) -> list[float]:
        return [_lg(r) for r in self.backward_exact(i, a)]


def _lg(r: Fraction | None) -> float:
    """Upper bound of log r (∞ for None, −∞ for 0)."""
    if r is None:
        return INF
    if r == 0:
        return NEG
    v, err = log_ratio(r.numerator, r.denominator)
    return v + err


# ---------------------------------------------------------------- eigen-gap
class EigenGap:
    """The eigen-gap upper bound of max-influence (MQMApprox).

    For an irreducible aperiodic chain with stationary π, let s be the
    second largest singular value of P on L²(π) (s² = the second largest
    eigenvalue of the multiplicative reversiblization P P*, with
    P*(x,y) = π(y)P(y,x)/π(x); 1 − s² is the eigen-gap).  Then for all x, y, t

        |P^t(x,y)/π(y) − 1| ≤ s^t · (1 − π_min)/π_min =: ρ_t,

    so every forward ratio P^b(x,v)/P^b(x′,v) is at most (1+ρ_b)/(1−ρ_b).
    The backward ratio is the same with the time reversal when the chain
    starts in π, and at most ((1+ρ_a)/(1−ρ_a))² from any start (the marginal
    p_i = p_{i−a}P^a is within the same band).  Proof: docs/correlated.md.

    ``mu`` is an exact rational certified ≥ s²: for two states s² is the
    trace of P P* − 1π (exact); otherwise a float eigenvalue estimate plus a
    margin, checked exactly by a positive-definiteness test, else the trace.
    """

    def __init__(self, model: ChainModel):
        self.model = model
        pi = model.stationary
        assert pi is not None and all(p > 0 for p in pi)
        P = model.transition
        k = len(P)
        self.pi_min = min(pi)
        self.K = (1 - self.pi_min) / self.pi_min
        # Π B′ with B′ = P P* − 1π  (symmetric, exact)
        # S[x][y] = π_x π_y (Σ_z P_xz P_yz / π_z − 1), exactly, with P = M/d and
        # 1/π_z = C_z / L for an integer L (the lcm of the numerators of π)
        # and C_z = L / num(π_z)·den(π_z): the sum is one integer over d²·L.
        M, d = markov.integer_matrix(P)
        L = 1
        for p in pi:
            L = L * p.numerator // math.gcd(L, p.numerator)
        C = [L // p.numerator * p.denominator for p in pi]
        # The definiteness test below needs every entry of S; the trace, all
        # that larger chains use, only the diagonal.
        # trace(PP* − 1π) = Σ_x S[x][x]/π_x = Σ_x π_x·T_xx/(d²L) − 1 (Σ π = 1),
        # with T_xy the integer sums below and π = n/D over a common D.
        full = 2 < k <= PD_MAX_STATES
        D = 1
        for p in pi:
            D = D * p.denominator // math.gcd(D, p.denominator)
        S = []
        diagonal = 0
        for x in range(k):
            limits.checkpoint()
            Mx = M[x]
            MC = [Mx[z] * C[z] for z in range(k)]
            if full:
                S.append([pi[x] * pi[y] * (Fraction(sum(MC[z] * M[y][z] for z in range(k) if M[y][z]),
                                                    d * d * L) - 1) for y in range(k)])
            diagonal += pi[x].numerator * (D // pi[x].denominator) * sum(MC[z] * Mx[z] for z in range(k) if Mx[z])
        trace = Fraction(diagonal, D * d * d * L) - 1
        self.certificate = "trace"
        mu = max(trace, Fraction(0))
        # The eigenvalue estimate is only used with the exact definiteness test
        # (k ≤ PD_MAX_STATES); for larger chains the trace is the certificate.
        if full:
            est = _largest_eigenvalue([[float(S[x][y]) / math.sqrt(float(pi[x]) * float(pi[y]))
                                        for y in range(k)] for x in range(k)])
            margin = max(1e-12, abs(est) * 1e-9)
            for _ in range(8):
                cand = Fraction(max(est, 0.0) + margin)
                if cand >= mu:
                    break
                if _positive_definite([[cand * pi[x] * (1 if x == y else 0) - S[x][y]
                                                     for y in range(k)] for x in range(k)]):
                    mu = cand
                    self.certificate = "eigenvalue"
                    break
                margin *= 16
        elif k == 2:
            self.certificate = "exact"
        self.mu = mu                              # certified ≥ s²
        self.factor_backward = 1 if model.stationary_start else 2
        if mu == 0:
            self.log_mu = NEG
        else:
            v, err = log_ratio(mu.numerator, mu.denominator)
            self.log_mu = v + err
        v, err = log_ratio(self.K.numerator, self.K.denominator) if self.K > 0 else (NEG, 0.0)
        self.log_K = v + err if self.K > 0 else NEG

    @property
    def gap(self) -> float:
        """1 − s² (lower bound): the eigen-gap of P P*."""
        return 1 - float(self.mu)

    def one_side(self, t: int) -> float:
        """Upper bound of log((1+ρ_t)/(1−ρ_t)); ∞ when ρ_t ≥ 1."""
        if self.log_mu == NEG or self.log_K == NEG:
            return 0.0
        lr = self.log_K + (t / 2) * self.log_mu
        lr += 4 * U * (abs(self.log_K) + abs(t / 2 * self.log_mu) + 1)
        if lr >= 0:
            return INF
        rho = math.exp(lr) * (1 + 4 * U)
        if rho >= 1:
            return INF
        value = math.log1p(2 * rho / (1 - rho))
        return value * (1 + 16 * U) + 1e-300

    def forward(self, t: int) -> float:
        return self.one_side(t)

    def backward(self, t: int) -> float:
        v = self.one_side(t)
        return v * self.factor_backward * (1 + 2 * U)

    def first_finite(self) -> int | None:
        """Smallest distance with a finite bound (ρ_t < 1)."""
        if self.log_mu == NEG or self.log_K == NEG:
            return 1
        if self.log_mu >= 0:
            return None
        t = max(1, int(2 * self.log_K / -self.log_mu))
        while self.one_side(t) == INF:
            limits.checkpoint()
            t += 1
        while t > 1 and self.one_side(t - 1) != INF:
            limits.checkpoint()
            t -= 1
        return t


def _largest_eigenvalue(A: list[list[float]]) -> float:
    """Largest eigenvalue of a small symmetric matrix (cyclic Jacobi)."""
    n = len(A)
    A = [row[:] for row in A]
    for _ in range(100):
        off = sum(A[i][j] ** 2 for i in range(n) for j in range(n) if i != j)
        if off < 1e-30:
            break
        for p in range(n - 1):
            limits.checkpoint()
            for q in range(p + 1, n):
                if abs(A[p][q]) < 1e-300:
                    continue
                theta = (A[q][q] - A[p][p]) / (2 * A[p][q])
                t = (1 if theta >= 0 else -1) / (abs(theta) + math.sqrt(theta * theta + 1))
                c = 1 / math.sqrt(t * t + 1)
                s = t * c
                for r in range(n):
                    arp, arq = A[r][p], A[r][q]
                    A[r][p] = c * arp - s * arq
                    A[r][q] = s * arp + c * arq
                for r in range(n):
                    apr, aqr = A[p][r], A[q][r]
                    A[p][r] = c * apr - s * aqr
                    A[q][r] = s * apr + c * aqr
    return max(A[i][i] for i in range(n))


def _positive_definite(S: list[list[Fraction]], bits: int = PD_BITS) -> bool:
    """A sound test that the symmetric rational matrix S is positive definite
    (True only if it is; False when it is not or cannot be certified).

    Exact rational arithmetic on S itself makes the numbers explode, so S is
    rounded to the grid 2^-bits: S = S̃ + Δ with |Δ_ij| ≤ 2^-(bits+1), hence
    ‖Δ‖₂ ≤ ‖Δ‖_F ≤ n·2^-(bits+1) and S ≽ S̃ − n·2^-bits·I.  The integer
    matrix N = 2^bits·S̃ − n·I is tested exactly: N is symmetric, so its
    eigenvalues are real, and they are all positive exactly when the
    coefficients of its characteristic polynomial det(λI − N) are all
    non-zero and alternate in sign (Descartes' rule of signs; 0 is a root
    when the constant term is 0).  The polynomial is python-flint's
    (``fmpz_mat.charpoly``)."""
    n = len(S)
    scale = 1 << bits
    entries = []
    for x, row in enumerate(S):
        limits.checkpoint()
        entries.extend((2 * v.numerator * scale + v.denominator) // (2 * v.denominator) - (n if x == y else 0)
                       for y, v in enumerate(row))
    coeffs = flint.fmpz_mat(n, n, entries).charpoly().coeffs()   # constant term first, leading 1 last
    limits.checkpoint()
    return all(c != 0 and (c > 0) == ((n - i) % 2 == 0) for i, c in enumerate(coeffs))


