"""Where floating point enters, and how it is kept on the safe side.

Chain probabilities, matrix powers and the likelihood ratios that define a
max-influence are exact (integers / ``Fraction``).  A max-influence is the
logarithm of such a ratio, and a Markov Quilt score card/(ε − e) involves it,
so both are real numbers computed in IEEE binary64.  Every such float is an
*upper bound* of the real quantity:

* :func:`log_ratio` returns log(n/m) and a bound on its absolute error;
  callers add the bound (``+ err``) before using the value;
* :func:`score` divides with an outward margin, so the returned score is at
  least card/(ε − e) for the true e ≤ the given bound;
* :func:`fmt_up` prints a scale rounded *up* to 6 significant digits, and the
  printed number is the one `dslc release` uses.

U = 2**-52 is used as a generous unit roundoff (twice the binary64 one).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Decimal, localcontext
from fractions import Fraction

from dslc.numbers import fmt_fraction

U = 2.0 ** -52
INF = math.inf


fmt_q = fmt_fraction


def log_ratio(n: int | Fraction, m: int | Fraction) -> tuple[float, float]:
    """(log(n/m), absolute error bound) for exact positive n, m.

    n/m is rounded once (int true division is correctly rounded in Python,
    for integers of any size), so log1p/log see a relative error ≤ U; near 1
    the log1p form avoids cancellation.  Ratios beyond the float range use
    log(n) − log(m) of the integers.
    """
    if n == m:
        return 0.0, 0.0
    if isinstance(n, Fraction) or isinstance(m, Fraction):
        q = Fraction(n) / Fraction(m)
        n, m = q.numerator, q.denominator
    try:
        if abs(n - m) * 4 < m:
            value = math.log1p((n - m) / m)
        else:
            r = n / m
            if r == 0.0 or math.isinf(r) or r < 1e-300:
                raise OverflowError
            value = math.log(r)
    except (OverflowError, ZeroDivisionError, ValueError):
        ln, lm = math.log(n), math.log(m)
        return ln - lm, 8 * U * (abs(ln) + abs(lm) + 1)
    return value, 2 * U + 4 * U * abs(value)


def log_ratio_float(x: float, y: float, rel_err: float) -> tuple[float, float]:
    """log(x/y) for floats that are each within relative ``rel_err`` of the truth."""
    value = math.log(x / y)
    return value, 2.2 * rel_err + 4 * U * (abs(value) + 1)


def score(card: int, eps: float, e_up: float) -> float:
    """An upper bound of card/(ε − e) for every e ≤ ``e_up`` (∞ when ε ≤ e_up).

    ``eps`` is float(ε) (relative error ≤ U/2); the subtraction and the
    division add one rounding each, absorbed by the margins below.
    """
    if e_up == INF:
        return INF
    denom = eps - e_up - 4 * U * (abs(eps) + abs(e_up))
    if denom <= 0:
        return INF
    return card / denom * (1 + 4 * U)


def fmt_up(x: float, digits: int = 6) -> str:
    """x rounded up to ``digits`` significant digits, as a plain decimal."""
    if x == 0:
        return "0"
    with localcontext() as ctx:
        ctx.prec = digits
        ctx.rounding = ROUND_CEILING
        d = +Decimal(x)          # rounds the exact binary value up
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def fmt_float(x: float, digits: int = 4) -> str:
    """A float for display only (never a noise scale)."""
    if x == INF:
        return "∞"
    return f"{x:.{digits}f}"
