"""Path probabilities Pr[ε, x, ρ] of a DiPA (Section III-C of the DiPA paper).

Method
------
Pr[ε, x, ρ] is defined backwards along the path: a non-assignment step
multiplies by a factor g(x) (the probability that the fresh draw satisfies
the guard against the stored value x and lands in the output interval), an
assignment step integrates the Laplace density of the fresh draw z against
the probability of the rest of the path started with x = z.  Every function
that occurs is *piecewise exponential-polynomial* in x: on each interval
between breakpoints (the draws' means, shifted by the inputs, and the ends of
output intervals) it is a finite sum

    c · (x − a)^m · e^{r ε (x − a)}          (r rational, m ≥ 0 an integer)

anchored at a point a of the interval.  Products, re-anchoring and integrals
of such sums are again such sums, in closed form, so the only error is the
rounding of the coefficients: breakpoints, rates r and degrees m are exact
(fractions.Fraction), coefficients are `decimal.Decimal` numbers at a chosen
precision.  Expanding products like (1 − ½e^{−y})^64 cancels many digits, so
the whole computation is run twice, at P and at 2P significant digits, and
the reported error bound is |p_P − p_2P| (the P-digit result's error; the
2P-digit value that is returned is far more accurate still).  P doubles,
starting at 40, until that bound is below ``rel_tol`` · p.  Ratios such as
e^30 (or e^300) are no problem: Decimal has an exponent range of ±10^6.

Non-input steps read no input (τ); an input step's draws have mean μ + a.
A draw with rate 0 has no distribution; a path that needs one is rejected (a
store of rate 0 that no later step of the path compares with is not needed).
"""

from __future__ import annotations

import decimal
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from math import comb, factorial, lcm

from dslc import limits
from dslc.ir.dipa import DiPA, Guard, OutKind

Interval = tuple  # (lo, hi): Fraction or None for −∞ / +∞


class PathError(ValueError):
    """The path does not fit the automaton (or needs a draw of rate 0)."""


class TooExpensive(ArithmeticError):
    """The computation would exceed the work budget it was given."""


@dataclass(frozen=True)
class Step:
    """One step of a path: the transition taken, the input read (None = τ)
    and, for a transition that outputs a real value, the interval (lo, hi)
    the value lies in (None = unbounded on that side)."""

    transition: int
    input: Fraction | None = None
    interval: Interval | None = None


@dataclass
class Probability:
    probability: Decimal          # the value (2P-digit computation)
    error: Decimal                # bound on |probability − Pr| (see module docstring)
    digits: int                   # P of the final comparison
    log_probability: Decimal | None

    def to_json(self) -> dict:
        return {"probability": float(self.probability),
                "log_probability": float(self.log_probability) if self.log_probability is not None
                else float("-inf"),
                "error": float(self.error)}


# ---------------------------------------------------------------------------
# piecewise exponential polynomials, on an integer grid
#
# All points (means, inputs, interval ends, x0) are rationals; they are scaled
# by the lcm B of their denominators to integers.  All rates are scaled by the
# lcm R of theirs.  A term with key (m, r) on a piece anchored at integer a
# stands for  c · δ^m · e^{(r/R) ε δ}  with δ = x − a/B (real units), so at a
# grid point p the exponential is e^{u · r · (p − a)} with u = ε/(R·B).

Z = Decimal(0)


_CONSTANTS: dict[tuple, tuple[dict, dict, dict]] = {}


class _Engine:
    def __init__(self, epsilon: Fraction, prec: int, R: int, B: int):
        self.ctx = decimal.Context(prec=prec, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                                   traps=[decimal.InvalidOperation, decimal.DivisionByZero])
        self.R, self.B = R, B
        with decimal.localcontext(self.ctx):
            self.eps = Decimal(epsilon.numerator) / Decimal(epsilon.denominator)
            self.unit = self.eps / Decimal(R * B)
        # the constants depend on (ε, precision, R, B) only: the paths α and β
        # of a witness, computed one after the other, share them
        key = (epsilon, prec, R, B)
        shared = _CONSTANTS.get(key)
        if shared is None:
            if len(_CONSTANTS) >= 16:
                _CONSTANTS.clear()
            shared = _CONSTANTS[key] = ({}, {}, {})
        self._exp, self._len, self._s = shared       # dict[int, Decimal] each
        self.inv_s: dict[int, Decimal] = {}
        self.tau: Decimal | None = None       # truncation threshold (absolute)
        self.dropped = Decimal(0)             # sum of the sups of dropped terms
        self.budget: int | None = None        # most terms to carry, summed over the steps
        self.counted = False                  # count the terms carried (a budget or a meter)
        self.work = 0

    # cached constants (call inside the engine's context)
    def E(self, n: int) -> Decimal:
        """e^{u n}."""
        v = self._exp.get(n)
        if v is None:
            v = (self.unit * n).exp() if n else Decimal(1)
            self._exp[n] = v
        return v

    def L(self, dp: int) -> Decimal:
        """dp / B as a Decimal."""
        v = self._len.get(dp)
        if v is None:
            v = Decimal(dp) / Decimal(self.B)
            self._len[dp] = v
        return v

    def S(self, r: int) -> Decimal:
        """(r/R) ε."""
        v = self._s.get(r)
        if v is None:
            v = self.eps * Decimal(r) / Decimal(self.R)
            self._s[r] = v
        return v


    def inverse_s(self, r: int) -> Decimal:
        v = 1 / self.S(r)
        self.inv_s[r] = v
        return v


class PW:
    """A piecewise exponential polynomial in x.

    ``bps`` are the sorted integer breakpoints b_1 < … < b_n; piece 0 is
    (−∞, b_1), piece i is [b_i, b_{i+1}), piece n is [b_n, ∞).  ``pieces[i]``
    maps (m, r) to a coefficient (see above) with anchor b_i (piece 0: b_1;
    0 when there is no breakpoint).
    """

    __slots__ = ("bps", "pieces")

    def __init__(self, bps: list[int], pieces: list[dict]):
        self.bps = bps
        self.pieces = pieces

    def anchor(self, i: int) -> int:
        return _anchor(self.bps, i)

    @staticmethod
    def const(value: Decimal) -> "PW":
        return PW([], [{(0, 0): value} if value else {}])


def _anchor(bps: list[int], i: int) -> int:
    if not bps:
        return 0
    return bps[0] if i == 0 else bps[i - 1]


def _reanchor(terms: dict, dp: int, en: _Engine) -> dict:
    """Terms anchored at a, rewritten for anchor a + dp."""
    if dp == 0 or not terms:
        return dict(terms)
    out: dict = {}
    get = out.get
    delta = en.L(dp)
    for (m, r), coef in terms.items():
        base = coef * en.E(r * dp) if r else coef
        if m == 0:
            key = (0, r)
            out[key] = get(key, Z) + base
            continue
        power = Decimal(1)
        for i in range(m, -1, -1):           # (δ' + Δ)^m = Σ C(m, i) Δ^{m−i} δ'^i
            key = (i, r)
            out[key] = get(key, Z) + base * comb(m, i) * power
            power = power * delta
    return out


def _piece_of(bps: list[int], point: int, left: bool) -> int:
    """The piece holding points just left of (left=True) or just right of ``point``."""
    return bisect_left(bps, point) if left else bisect_right(bps, point)


def _refine(f: PW, bps: list[int], en: _Engine) -> list[dict]:
    """f's pieces on the finer breakpoints ``bps`` ⊇ f.bps."""
    if bps == f.bps:
        return f.pieces
    out = []
    for i in range(len(bps) + 1):
        if not bps:
            j = 0
        elif i == 0:
            j = _piece_of(f.bps, bps[0], left=True)
        else:
            j = _piece_of(f.bps, bps[i - 1], left=False)
        out.append(_reanchor(f.pieces[j], _anchor(bps, i) - f.anchor(j), en))
    return out


def _merge_bps(*lists: list[int]) -> list[int]:
    s: set[int] = set()
    for lst in lists:
        s.update(lst)
    return sorted(s)


def _mul_terms(t1: dict, t2: dict) -> dict:
    if len(t1) < len(t2):
        t1, t2 = t2, t1
    out: dict = {}
    get = out.get
    for (m2, r2), c2 in t2.items():
        for (m1, r1), c1 in t1.items():
            key = (m1 + m2, r1 + r2)
            out[key] = get(key, Z) + c1 * c2
    return out


def _multiply(f: PW, g: PW, en: _Engine) -> PW:
    bps = _merge_bps(f.bps, g.bps)
    fp = _refine(f, bps, en)
    gp = _refine(g, bps, en)
    return PW(bps, [_mul_terms(a, b) for a, b in zip(fp, gp)])


def _eval_terms(terms: dict, dp: int, en: _Engine) -> Decimal:
    """Σ c δ^m e^{…} at δ = dp/B."""
    total = Z
    if dp == 0:                                   # at the anchor only m = 0 terms count
        for (m, r), coef in terms.items():
            if not m:
                total += coef
        return total
    delta = en.L(dp)
    exps = en._exp
    E = en.E
    for (m, r), coef in terms.items():
        if r:
            n = r * dp
            e = exps.get(n)
            if e is None:
                e = E(n)
            coef = coef * e
        if m:
            coef = coef * (delta if m == 1 else delta ** m)
        total += coef
    return total


def _mul_density(f: PW, rho: int, nu: int, half: Decimal, en: _Engine) -> PW:
    """f(z) · (dε/2) e^{−dε|z − ν|} (rate dε = (rho/R) ε, half = dε/2)."""
    bps = f.bps if nu in f.bps else _merge_bps(f.bps, [nu])
    pieces = _refine(f, bps, en)
    k = bisect_left(bps, nu)                # pieces 0..k lie left of ν
    out = []
    for i, terms in enumerate(pieces):
        a = _anchor(bps, i)
        if i <= k:
            scale, shift = half * en.E(rho * (a - nu)), rho
        else:
            scale, shift = half * en.E(-rho * (a - nu)), -rho
        out.append({(m, r + shift): c * scale for (m, r), c in terms.items()})
    return PW(bps, out)


def _restrict(f: PW, lo: int | None, hi: int | None, en: _Engine) -> PW:
    """f · 1[lo < x < hi]."""
    if lo is None and hi is None:
        return f
    extra = [p for p in (lo, hi) if p is not None]
    bps = _merge_bps(f.bps, extra)
    pieces = _refine(f, bps, en)
    out = []
    for i, terms in enumerate(pieces):
        # piece i is [bps[i-1], bps[i]); it lies in (lo, hi) iff its ends do
        left = bps[i - 1] if i > 0 else None
        right = bps[i] if i < len(bps) else None
        inside = (lo is None or (left is not None and left >= lo)) and \
                 (hi is None or (right is not None and right <= hi))
        out.append(terms if inside else {})
    return PW(bps, out)


def _antiderivative(terms: dict, en: _Engine) -> dict:
    """An antiderivative (in x) of Σ c δ^m e^{sδ}, same anchor."""
    out: dict = {}
    get = out.get
    inv = en.inv_s
    for (m, r), coef in terms.items():
        if r == 0:
            key = (m + 1, 0)
            out[key] = get(key, Z) + coef / (m + 1)
            continue
        w = inv.get(r)
        if w is None:
            w = en.inverse_s(r)
        if m == 0:                                 # ∫ e^{sδ} = e^{sδ}/s
            key = (0, r)
            out[key] = get(key, Z) + coef * w
        elif m == 1:                               # ∫ δ e^{sδ} = e^{sδ}(δ/s − 1/s²)
            key = (1, r)
            v = coef * w
            out[key] = get(key, Z) + v
            key = (0, r)
            out[key] = get(key, Z) - v * w
        else:
            # ∫ δ^m e^{sδ} dδ = e^{sδ} Σ_{i=0}^{m} (−1)^{m−i} m!/i! δ^i / s^{m−i+1}
            v = coef * w
            for i in range(m, -1, -1):            # v = coef · m!/i! · (−1)^{m−i} / s^{m−i+1}
                key = (i, r)
                out[key] = get(key, Z) + v
                v = -v * i * w
    return out


def _check_decays(terms: dict, towards: int) -> None:
    """On an unbounded piece the integrand must decay (towards −1: −∞)."""
    for (m, r), coef in terms.items():
        if coef and (r == 0 or (r > 0) != (towards < 0)):
            raise ArithmeticError("integrand does not decay on an unbounded piece")


def _integrate(h: PW, direction: str, en: _Engine) -> PW:
    """x ↦ ∫ over z ≥ x ("ge"), z < x ("lt") or all z ("all") of h(z) dz."""
    n = len(h.bps)
    bps = h.bps
    anti = [_antiderivative(t, en) for t in h.pieces]
    left_val, right_val = [], []
    for i in range(n + 1):
        a = _anchor(bps, i)
        if i == 0:
            _check_decays(h.pieces[0], -1)
            left_val.append(Z)
        else:
            left_val.append(_eval_terms(anti[i], bps[i - 1] - a, en))
        if i == n:
            _check_decays(h.pieces[n], +1)
            right_val.append(Z)
        else:
            right_val.append(_eval_terms(anti[i], bps[i] - a, en))
    full = [right_val[i] - left_val[i] for i in range(n + 1)]
    if direction == "all":
        return PW.const(sum(full, Z))
    pieces: list[dict] = []
    acc = Z
    if direction == "lt":
        for i in range(n + 1):
            terms = anti[i]
            terms[(0, 0)] = terms.get((0, 0), Z) + (acc - left_val[i])
            pieces.append(terms)
            acc += full[i]
    else:
        for i in range(n, -1, -1):
            terms = {k: -v for k, v in anti[i].items()}
            terms[(0, 0)] = terms.get((0, 0), Z) + (acc + right_val[i])
            pieces.append(terms)
            acc += full[i]
        pieces.reverse()
    return PW(list(bps), pieces)


def _scale(f: PW, k: Decimal) -> PW:
    return PW(f.bps, [{key: v * k for key, v in p.items()} for p in f.pieces])


def _prune(f: PW) -> PW:
    """Drop zero coefficients."""
    for terms in f.pieces:
        for k in [k for k, v in terms.items() if not v]:
            del terms[k]
    return f


def _term_sup(m: int, r: int, coef: Decimal, i: int, bps: list[int], en: _Engine) -> Decimal | None:
    """sup over piece i of |c δ^m e^{sδ}| (an upper bound), None if unbounded."""
    n = len(bps)
    c = abs(coef)
    if n == 0:
        return c if (m == 0 and r == 0) else None
    if 0 < i < n:                                   # δ ∈ [0, w]
        w = bps[i] - bps[i - 1]
        if r > 0:
            c = c * en.E(r * w)
        if m:
            c = c * en.L(w) ** m
        return c
    decays = (r > 0) if i == 0 else (r < 0)        # piece 0: δ ≤ 0; piece n: δ ≥ 0
    if m == 0:
        return c if (decays or r == 0) else None
    if not decays:
        return None
    t = Decimal(m) / abs(en.S(r))                   # max of |δ|^m e^{−|s||δ|} at |δ| = m/|s|
    return c * t ** m * (-Decimal(m)).exp()


def _truncate(f: PW, en: _Engine) -> PW:
    """Drop the terms whose sup on their piece is ≤ en.tau; add the sups to en.dropped.

    Every later step maps a function F to one whose sup-norm is at most
    sup|F| (multiplication by a probability, integration against a
    sub-probability density), so the final value moves by at most the sum of
    what is dropped: ``en.dropped`` is a rigorous bound on this error.
    """
    tau = en.tau
    bps = f.bps
    if en.counted:
        en.work += sum(len(t) for t in f.pieces)
        if en.budget is not None and en.work > en.budget:
            raise TooExpensive("the path is too long or too varied to compute within the budget")
    n = len(bps)
    last = len(f.pieces) - 1
    for i, terms in enumerate(f.pieces):
        drop = []
        outer = n and (i == 0 or i == last)
        for (m, r), coef in terms.items():
            if not coef:
                drop.append((m, r))
                continue
            if tau is None:
                continue
            if m == 0 and outer:                    # the common case of _term_sup, inline
                if r == 0 or ((r > 0) if i == 0 else (r < 0)):
                    sup = abs(coef)
                else:
                    continue
            else:
                sup = _term_sup(m, r, coef, i, bps, en)
                if sup is None:
                    continue
            if sup <= tau:
                drop.append((m, r))
                en.dropped += sup
        for k in drop:
            del terms[k]
    return f


def _mass(en: _Engine, rho: int, nu: int, lo: int | None, hi: int | None) -> Decimal:
    """Prob[lo < Z < hi] for Z ~ Lap((rho/R) ε, ν/B)."""
    if lo is not None and hi is not None and lo >= hi:
        return Z
    half = Decimal("0.5")

    def upper(t):                       # Prob[Z ≥ t]
        if t is None:
            return Decimal(1)
        if t < nu:
            return 1 - half * en.E(rho * (t - nu))
        return half * en.E(-rho * (t - nu))

    return upper(lo) - (Z if hi is None else upper(hi))


# ---------------------------------------------------------------------------
# the recursion of Section III-C

def _lcm_den(values) -> int:
    out = 1
    for v in values:
        den = _fraction(v).denominator
        if den != 1:
            out = lcm(out, den)
    return out


def _fraction(v) -> Fraction:
    """Fraction(v), without the constructor's cost when v is one already."""
    return v if type(v) is Fraction else Fraction(v)


def input_shift(state, step: Step) -> Fraction:
    """The input a step reads (0 at a non-input state, which reads τ); PathError
    when the step gives an input where the state reads none, or the reverse."""
    if state.is_input:
        if step.input is None:
            raise PathError(f"state `{state.name}` reads an input, but the step has none")
        return _fraction(step.input)
    if step.input is not None:
        raise PathError(f"state `{state.name}` reads no input (τ), but the step has one")
    return Fraction(0)


class _Prepared:
    """The path's steps with every rational scaled to the integer grid."""

    def __init__(self, dipa: DiPA, steps: list[Step], x0: Fraction):
        rates: list[Fraction] = []
        points: list[Fraction] = [Fraction(x0)]
        self.rows = []
        for step in steps:
            if not 0 <= step.transition < len(dipa.transitions):
                raise PathError(f"no transition {step.transition}")
        # A store whose value no later step compares with (up to the next store)
        # does not enter the probability; with rate 0 (`x := Lap(0, 0)`, "stored
        # but never used") it is taken as a step that stores nothing.
        compared_later = False
        unused = set()
        for k in range(len(steps) - 1, -1, -1):
            t = dipa.transitions[steps[k].transition]
            if t.store and not compared_later:
                unused.add(k)
            if t.store:
                compared_later = False
            if t.guard is not Guard.TRUE:
                compared_later = True
        for k, step in enumerate(steps):
            t = dipa.transitions[step.transition]
            s = dipa.states[t.source]
            if k in unused and s.d <= 0 and t.guard is Guard.TRUE and t.output.kind is not OutKind.INSAMPLE:
                t = replace(t, store=False)
            shift = input_shift(s, step)
            nu, nu_p = _fraction(s.mu) + shift, _fraction(s.mu_prime) + shift
            lo = hi = None
            if step.interval is not None:
                if not t.output.is_real:
                    raise PathError("an interval was given for a step that outputs a symbol")
                lo, hi = (None if v is None else _fraction(v) for v in step.interval)
            d, dp = _fraction(s.d), _fraction(s.d_prime)
            uses_insample = t.guard is not Guard.TRUE or t.store or t.output.kind is OutKind.INSAMPLE
            if uses_insample and d <= 0:
                raise PathError(f"state `{s.name}` draws insample with rate 0, which has no distribution")
            if t.output.kind is OutKind.INSAMPLE_PRIME and dp <= 0:
                raise PathError(f"state `{s.name}` outputs insample′ drawn with rate 0, "
                                "which has no distribution")
            rates += [d, dp]
            points += [nu, nu_p] + [v for v in (lo, hi) if v is not None]
            self.rows.append((t, d, dp, nu, nu_p, lo, hi))
        self.R = _lcm_den(rates)
        self.B = _lcm_den(points)
        self.x0 = Fraction(x0)

    def rate(self, d: Fraction) -> int:
        return int(d * self.R)

    def point(self, p: Fraction | None) -> int | None:
        return None if p is None else int(p * self.B)


def _probability_function(prep: _Prepared, en: _Engine) -> PW:
    """Pr[ε, x, ρ] as a function of the initial value x."""
    f = PW.const(Decimal(1))
    for t, d, dprime, nu, nu_p, lo, hi in reversed(prep.rows):
        limits.checkpoint()
        rho = prep.rate(d)
        nu_i, lo_i, hi_i = prep.point(nu), prep.point(lo), prep.point(hi)
        k_prime = Decimal(1)
        if t.output.kind is OutKind.INSAMPLE_PRIME:
            k_prime = _mass(en, prep.rate(dprime), prep.point(nu_p), lo_i, hi_i)
            lo_i = hi_i = None                   # the interval constrains insample′ only
        elif t.output.kind is not OutKind.INSAMPLE:
            lo_i = hi_i = None
        half = en.S(rho) / 2 if rho else Z
        if not t.store:
            if t.guard is Guard.TRUE:
                k = _mass(en, rho, nu_i, lo_i, hi_i) if t.output.kind is OutKind.INSAMPLE else Decimal(1)
                f = _scale(f, k * k_prime)
            else:
                density = _mul_density(PW.const(Decimal(1)), rho, nu_i, half, en)
                g = _integrate(_restrict(density, lo_i, hi_i, en),
                               "ge" if t.guard is Guard.GE else "lt", en)
                f = _multiply(_prune(g), f, en)
                if k_prime != 1:
                    f = _scale(f, k_prime)
        else:
            h = _restrict(_mul_density(f, rho, nu_i, half, en), lo_i, hi_i, en)
            direction = {Guard.TRUE: "all", Guard.GE: "ge", Guard.LT: "lt"}[t.guard]
            f = _integrate(_prune(h), direction, en)
            if k_prime != 1:
                f = _scale(f, k_prime)
        f = _truncate(f, en)
    return f


def _run(prep: _Prepared, epsilon: Fraction, prec: int, tau: Decimal | None,
         budget: int | None = None, meter: list[int] | None = None) -> tuple[Decimal, Decimal]:
    """(value, bound on the truncation error) at ``prec`` digits; the terms
    carried are added to ``meter[0]`` (also when the budget stops the run)."""
    en = _Engine(epsilon, prec, prep.R, prep.B)
    en.tau = tau
    en.budget = budget
    en.counted = budget is not None or meter is not None
    try:
        with decimal.localcontext(en.ctx):
            f = _probability_function(prep, en)
            x = prep.point(prep.x0)
            i = bisect_right(f.bps, x)
            return +_eval_terms(f.pieces[i], x - f.anchor(i), en), en.dropped
    finally:
        if meter is not None:
            meter[0] += en.work


def fmt_probability(p: Decimal) -> str:
    """A probability as `dslc prob` prints it (17 significant digits)."""
    return f"{p:.17g}"


def path_probability(dipa: DiPA, steps: list[Step], epsilon: Fraction, x0: Fraction = Fraction(0),
                     rel_tol: float = 1e-20, start_digits: int = 40, max_digits: int = 1280,
                     budget: int | None = None, meter: list[int] | None = None) -> Probability:
    """Pr[ε, x0, ρ] with an error bound (see the module docstring).

    Raises PathError when the path does not fit the automaton, TooExpensive
    when a run carries more than ``budget`` terms, summed over the steps.
    ``meter[0]`` (when given) grows by the terms every run carried: a count of
    the work done that does not depend on the machine or its load.
    """
    epsilon = Fraction(epsilon)
    if epsilon <= 0:
        raise PathError("ε must be positive")
    prep = _Prepared(dipa, steps, Fraction(x0))
    digits = start_digits
    tol = Decimal(rel_tol)
    tau: Decimal | None = Decimal("1e-60")
    for attempt in range(8):
        # rounding: compare P and 2P digits, doubling P until they agree
        low, _ = _run(prep, epsilon, digits, tau, budget, meter)
        while True:
            high, dropped = _run(prep, epsilon, 2 * digits, tau, budget, meter)
            rounding = abs(high - low)
            if rounding <= tol * abs(high) or 2 * digits >= max_digits or (high == 0 and rounding == 0):
                break
            digits *= 2
            low = high
        # truncation: the dropped terms must be negligible against the result
        if tau is None or dropped <= tol * abs(high) / 4 or (high == 0 and dropped == 0):
            break
        if attempt == 6:
            tau = None                                  # last resort: drop nothing
        elif abs(high) > 4 * dropped and rounding <= tol * abs(high):
            tau = tau * tol * abs(high) / (4 * dropped) / 1000
        else:                                           # the value is lost in what was dropped
            tau = tau * Decimal("1e-40")
    err = rounding + dropped
    ctx = decimal.Context(prec=2 * digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    if high < 0:                         # only rounding can make it negative
        high = Decimal(0)
    log_p = ctx.ln(high) if high > 0 else None
    return Probability(high, err, 2 * digits, log_p)
