"""Exact rational functions of s = e^(−ε/L) for discrete mechanisms (docs/discrete.md).

Every probability of a discrete mechanism is a quotient of polynomials in s
with rational coefficients (python-flint's ``fmpq_poly``), where L is the
common denominator of the noise rates: DLap(dε, μ) has P(k) =
(1 − s^(dL))/(1 + s^(dL)) · s^(dL·|k − μ|), and e^ε = s^(−L).

:func:`nonneg_on_unit` decides exactly whether a polynomial is ≥ 0 on the
open interval (0, 1) (every ε > 0): a Bernstein-coefficient test first, then
Sturm's theorem with exact rational bisection.  It also returns a rational
point where the polynomial is negative, when there is one.
"""

from __future__ import annotations

from fractions import Fraction

from flint import fmpq, fmpq_poly

from dslc import limits

S = fmpq_poly([0, 1])
ONE_POLY = fmpq_poly([1])


def _q(x: Fraction) -> fmpq:
    return fmpq(x.numerator, x.denominator)


def _frac(x: fmpq) -> Fraction:
    return Fraction(int(x.p), int(x.q))


class RatFunc:
    """num/den in s, reduced, with den positive at s = 1/2 and monic up to sign."""

    __slots__ = ("num", "den", "_key")

    def __init__(self, num: fmpq_poly, den: fmpq_poly = ONE_POLY, reduce: bool = True):
        if reduce and den != ONE_POLY:
            if num == 0:
                den = ONE_POLY
            else:
                g = num.gcd(den)
                if g != ONE_POLY:
                    num, den = num // g, den // g
                lead = den.coeffs()[-1]
                if lead != 1:
                    num, den = num / lead, den / lead
                if den(fmpq(1, 2)) < 0:
                    num, den = -num, -den
        self.num, self.den = num, den
        self._key = None

    @staticmethod
    def const(x) -> "RatFunc":
        return RatFunc(fmpq_poly([_q(Fraction(x))]))

    @staticmethod
    def power(n: int) -> "RatFunc":
        """s^n (n may be negative)."""
        if n >= 0:
            return RatFunc(S ** n)
        return RatFunc(ONE_POLY, S ** (-n))

    def __add__(self, o: "RatFunc") -> "RatFunc":
        if self.den == o.den:
            return RatFunc(self.num + o.num, self.den)
        return RatFunc(self.num * o.den + o.num * self.den, self.den * o.den)

    def __sub__(self, o: "RatFunc") -> "RatFunc":
        return self + (-o)

    def __neg__(self) -> "RatFunc":
        return RatFunc(-self.num, self.den, reduce=False)

    def __mul__(self, o: "RatFunc") -> "RatFunc":
        if o.den == ONE_POLY and self.den == ONE_POLY:
            return RatFunc(self.num * o.num)
        return RatFunc(self.num * o.num, self.den * o.den)

    def __truediv__(self, o: "RatFunc") -> "RatFunc":
        if o.is_zero:
            raise ZeroDivisionError("division by a zero rational function")
        return RatFunc(self.num * o.den, self.den * o.num)

    @property
    def is_zero(self) -> bool:
        return self.num == 0

    @property
    def is_const(self) -> bool:
        return self.num.degree() <= 0 and self.den.degree() <= 0

    def key(self) -> tuple:
        if self._key is None:
            # exact, and of Python integers (an fmpq hashes slowly)
            self._key = (tuple(map(int, self.num.numer().coeffs())), int(self.num.denom()),
                         tuple(map(int, self.den.numer().coeffs())), int(self.den.denom()))
        return self._key

    def __eq__(self, o) -> bool:
        return isinstance(o, RatFunc) and self.key() == o.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def at(self, s: Fraction) -> Fraction | None:
        """The value at a rational s (None at a pole)."""
        d = self.den(_q(s))
        if d == 0:
            return None
        return _frac(self.num(_q(s)) / d)

    def valuation(self) -> int:
        """The order of s at 0 (num's lowest power minus den's)."""
        return _order(self.num) - _order(self.den)

    def low_coeff(self) -> Fraction:
        """The coefficient of the lowest power of s (num's over den's)."""
        return _frac(self.num.coeffs()[_order(self.num)]) / _frac(self.den.coeffs()[_order(self.den)])

    def text(self, L: int) -> str:
        """Closed form in e^ε: s = e^(−ε/L); num and den are multiplied by
        e^(Dε/L), D the larger degree, so both are polynomials in e^(ε/L)."""
        if self.is_zero:
            return "0"
        top = max(self.num.degree(), self.den.degree())
        num_text = _x_text(self.num, top, L)
        den_text = _x_text(self.den, top, L)
        if den_text == "1":
            return num_text
        wrap = (lambda t: t if " " not in t else f"({t})")
        return f"{wrap(num_text)} / {wrap(den_text)}"


def _order(p: fmpq_poly) -> int:
    c = p.coeffs()
    for i, v in enumerate(c):
        if v != 0:
            return i
    return 0


def _x_text(p: fmpq_poly, top: int, L: int) -> str:
    terms = [(top - i, _frac(v)) for i, v in enumerate(p.coeffs()) if v != 0]
    terms.sort()
    return " + ".join(_term(c, e, L) for e, c in terms).replace("+ -", "- ")


def _term(coeff: Fraction, power: int, L: int) -> str:
    from dslc.numbers import fmt_fraction
    e = Fraction(power, L)
    if e == 0:
        return fmt_fraction(coeff)
    if e == 1:
        base = "e^ε"
    elif e.denominator == 1:
        base = f"e^({e.numerator}ε)"
    else:
        base = f"e^({fmt_fraction(e)}·ε)"
    if coeff == 1:
        return base
    if coeff == -1:
        return "-" + base
    return f"{fmt_fraction(coeff)}·{base}"


# ------------------------------------------------------------ sign on (0, 1)
def _sturm(p: fmpq_poly) -> list[fmpq_poly]:
    seq = [p, p.derivative()]
    while seq[-1] != 0 and seq[-1].degree() > 0:
        r = seq[-2] % seq[-1]
        if r == 0:
            break
        seq.append(-r)
    return seq


def _variations(seq: list[fmpq_poly], x: fmpq) -> int:
    signs = [v for v in (q(x) for q in seq) if v != 0]
    return sum(1 for a, b in zip(signs, signs[1:]) if (a > 0) != (b > 0))


def _bernstein_nonneg(p: fmpq_poly) -> bool:
    """All Bernstein coefficients of p on [0, 1] are ≥ 0 (sufficient for p ≥ 0
    there).  With s = x/(1 + x), (1 + x)^n·p(s) = Σ C(n, i)·b_i·x^i, so the
    Bernstein coefficients b_i have the signs of this polynomial's."""
    c = p.coeffs()
    n = len(c) - 1
    if n < 0:
        return True
    one_plus_x = fmpq_poly([1, 1])
    q = fmpq_poly([0])
    power = ONE_POLY                       # (1 + x)^(n − j), from j = n down
    for j in range(n, -1, -1):
        if c[j] != 0:
            q += c[j] * S ** j * power
        power *= one_plus_x
    return all(v >= 0 for v in q.coeffs())


def nonneg_on_unit(p: fmpq_poly) -> tuple[bool, Fraction | None]:
    """Is p(s) ≥ 0 for every s in (0, 1)?  (True, None), or (False, s0) with
    a rational s0 in (0, 1) where p(s0) < 0."""
    if p == 0:
        return True, None
    if all(v >= 0 for v in p.coeffs()):
        return True, None
    if _bernstein_nonneg(p):
        return True, None
    # strip the roots at 0 (no sign change on (0,1)) and at 1 (s − 1 < 0 there)
    sign = 1
    while p(0) == 0:
        p = p // S
    one = fmpq_poly([-1, 1])
    while p(1) == 0:
        p = p // one
        sign = -sign
    if sign < 0:
        p = -p
    seq = _sturm(p)
    points = [fmpq(0), fmpq(1)]
    stack = [(fmpq(0), fmpq(1))]
    while stack:
        limits.checkpoint()
        a, b = stack.pop()
        n = _variations(seq, a) - _variations(seq, b)
        if n <= 1:                     # its ends are sample points already
            continue
        m = (a + b) / 2
        k = 1
        while p(m) == 0:               # a sample point must not be a root
            m = a + (b - a) * fmpq(2 ** k - 1, 2 ** (k + 1))
            k += 1
        points.append(m)
        stack.append((a, m))
        stack.append((m, b))
    # p has no root at 0 or 1 now; its sign is constant between the isolated roots,
    # and every gap between them contains a sample point (or an end).
    for x in sorted(points):
        if p(x) < 0:
            if x == 0 or x == 1:
                # the sign at an end holds just inside it: find an interior point
                y = fmpq(1, 2 ** 30) if x == 0 else 1 - fmpq(1, 2 ** 30)
                while p(y) >= 0:
                    y = y / 2 if x == 0 else 1 - (1 - y) / 2
                return False, _frac(y)
            return False, _frac(x)
    return True, None
