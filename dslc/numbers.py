"""Exact numbers as text: one formatter for every rational dslc prints.

Weights, costs, probabilities of a model and noise scales are kept as
``fractions.Fraction`` and printed exactly (`1`, `5/9`, `-1/2`), never as
floats, with every digit (also beyond CPython's 4,300-digit limit on int →
str).  For display, ``short=True`` cuts a numerator or denominator of more
than :data:`MAX_DIGITS` digits to its ends and says how many digits it has.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

MAX_DIGITS = 60


def _digits(n: int) -> str:
    """All the digits of ``n`` (above CPython's int → str limit too: via Decimal)."""
    if n.bit_length() < 13_000:                 # below the 4,300-digit limit
        return str(n)
    with decimal.localcontext() as ctx:
        ctx.prec = decimal.MAX_PREC
        ctx.Emax = decimal.MAX_EMAX
        return str(decimal.Decimal(n))


def _int_text(n: int, short: bool) -> str:
    text = _digits(n)
    digits = len(text) - (text[0] == "-")
    if not short or digits <= MAX_DIGITS:
        return text
    sign = "-" if n < 0 else ""
    body = text.lstrip("-")
    return f"{sign}{body[:24]}…{body[-12:]} ({digits} digits)"


def fmt_fraction(q: Fraction | int, short: bool = False) -> str:
    """Exact rational as text: `1`, `5/9`, `-1/2` — every digit, however many.
    With ``short``, numerators and denominators of more than :data:`MAX_DIGITS`
    digits are shortened for display (`12345…6789 (846 digits)`)."""
    if not isinstance(q, Fraction):
        q = Fraction(q)
    if q.denominator == 1:
        return _int_text(q.numerator, short)
    return f"{_int_text(q.numerator, short)}/{_int_text(q.denominator, short)}"


def fmt_rate(d: Fraction) -> str:
    """A rate dε as text: `ε`, `ε/4`, `2ε/9`, `0`."""
    d = Fraction(d)
    if d == 0:
        return "0"
    num = "" if d.numerator == 1 else _int_text(d.numerator, True)
    return f"{num}ε" + ("" if d.denominator == 1 else f"/{_int_text(d.denominator, True)}")
