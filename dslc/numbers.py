"""Exact numbers as text: one formatter for every rational dslc prints.

Weights, costs, probabilities of a model and noise scales are kept as
``fractions.Fraction`` and printed exactly (`1`, `5/9`, `-1/2`), never as
floats.  A rational whose numerator or denominator has more than
:data:`MAX_DIGITS` digits is shortened around its value (both ends of the
digit string are kept, and the number of digits is said), so a huge exact
value can always be printed.
"""

from __future__ import annotations

from fractions import Fraction

MAX_DIGITS = 60


def _int_text(n: int) -> str:
    if n.bit_length() < 190:                    # < 10^57: the common case, printed whole
        return str(n)
    sign = "-" if n < 0 else ""
    n = abs(n)
    bits = n.bit_length()
    if bits > 13_000:                           # beyond CPython's int → str limit: say its size
        digits = int(bits * 0.30103) + 1
        return f"{sign}<an integer of about {digits} digits>"
    text = str(n)
    if len(text) <= MAX_DIGITS:
        return sign + text
    return f"{sign}{text[:24]}…{text[-12:]} ({len(text)} digits)"


def fmt_fraction(q: Fraction | int) -> str:
    """Exact rational as text: `1`, `5/9`, `-1/2`."""
    if not isinstance(q, Fraction):
        q = Fraction(q)
    if q.denominator == 1:
        return _int_text(q.numerator)
    return f"{_int_text(q.numerator)}/{_int_text(q.denominator)}"


def fmt_rate(d: Fraction) -> str:
    """A rate dε as text: `ε`, `ε/4`, `2ε/9`, `0`."""
    d = Fraction(d)
    if d == 0:
        return "0"
    num = "" if d.numerator == 1 else _int_text(d.numerator)
    return f"{num}ε" + ("" if d.denominator == 1 else f"/{_int_text(d.denominator)}")
