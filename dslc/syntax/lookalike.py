"""Characters that look like `.dp` tokens but are other code points.

Editors, word processors and LaTeX produce them: `ϵ` (what `\\epsilon`
gives), `⩾`, `−` (U+2212 MINUS SIGN), `≔`, curly quotes, fullwidth ASCII,
unusual spaces.  None of them is accepted — `.dp` has exactly the spellings of
docs/language.md — but each is explained (E021) with the character's Unicode
name and what to write instead, and the parser carries on as if the intended
token had been written, so the rest of the block is still checked.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


@dataclass(frozen=True)
class LookAlike:
    char: str           # the character found
    intended: str       # what to write instead (shown in the message)
    terminal: str | None  # the grammar terminal it stands for (None: none, skip it)
    also: str = ""      # a second spelling ("or `eps`")
    why: str = ""       # where such a character usually comes from


def char_name(ch: str) -> str:
    """`U+03F5 GREEK LUNATE EPSILON SYMBOL`."""
    name = unicodedata.name(ch, "")
    code = f"U+{ord(ch):04X}"
    return f"{code} {name}" if name else code


def show(ch: str) -> str:
    """A character as it is quoted in a message: visible ones as they are,
    spaces and controls by their code point only."""
    if ch.isprintable() and not ch.isspace():
        return f"`{ch}` ({char_name(ch)})"
    return char_name(ch)


_EPS = ("ε", "EPS", "`eps`", "LaTeX's `\\epsilon` gives `ϵ`; `\\varepsilon` gives `ε`")

_TABLE: dict[str, tuple[str, str | None, str, str]] = {
    # epsilon
    "ϵ": _EPS,
    "∊": _EPS[:3] + ("",),
    "ɛ": _EPS[:3] + ("",),
    "𝜀": _EPS[:3] + ("",),
    "𝜖": _EPS[:3] + ("",),
    "𝛆": _EPS[:3] + ("",),
    "𝛜": _EPS[:3] + ("",),
    "Ɛ": _EPS[:3] + ("",),
    # comparisons and arrows
    "⩾": (">=", "GE", "`≥`", ""),
    "⩽": ("<=", "LE", "`≤`", ""),
    "≧": (">=", "GE", "`≥`", ""),
    "≦": ("<=", "LE", "`≤`", ""),
    "⟶": ("->", "ARROW", "`→`", ""),
    "➝": ("->", "ARROW", "`→`", ""),
    "⇾": ("->", "ARROW", "`→`", ""),
    "⇒": ("->", "ARROW", "`→`", ""),
    "≔": (":=", "ASSIGN", "", ""),
    "⩴": (":=", "ASSIGN", "", ""),
    # operators
    "−": ("-", "MINUS", "", "word processors and PDF copies turn `-` into it"),
    "–": ("-", "MINUS", "", "word processors turn `-` into it"),
    "—": ("-", "MINUS", "", "word processors turn `-` into it"),
    "‐": ("-", "MINUS", "", ""),
    "‑": ("-", "MINUS", "", ""),
    "×": ("*", "STAR", "`·`", ""),
    "∗": ("*", "STAR", "`·`", ""),
    "⋅": ("*", "STAR", "`·`", ""),
    "•": ("*", "STAR", "`·`", ""),
    "∙": ("*", "STAR", "`·`", ""),
    "÷": ("/", "SLASH", "", ""),
    "∕": ("/", "SLASH", "", ""),
    "⁄": ("/", "SLASH", "", ""),
    # symbols
    "⟂": ("⊥", "BOT", "`bot`", ""),
    "⊺": ("⊤", "TOP", "`top`", ""),
    ";": (";", "SEMICOLON", "", ""),          # U+037E GREEK QUESTION MARK
    "‚": (",", "COMMA", "", ""),
    # primes
    "’": ("'", None, "`′`", "word processors turn `'` into it"),
    "‘": ("'", None, "`′`", "word processors turn `'` into it"),
    "ʹ": ("'", None, "`′`", ""),
    "´": ("'", None, "`′`", ""),
    "`": ("'", None, "`′`", ""),
    "″": ("''", None, "", ""),
}

# Spaces other than the ones the grammar skips (space, tab, newline, U+00A0).
_SPACES = {"\u2000", "\u2001", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008",
           "\u2009", "\u200a", "\u200b", "\u202f", "\u205f", "\u3000", "\u2060", "\ufeff", "\u200c",
           "\u200d", "\u180e"}

SMART_QUOTES = {"“", "”", "„", "‟", "«", "»", "＂"}


def lookup(ch: str) -> LookAlike | None:
    """The look-alike entry of a character (None: not a known look-alike)."""
    entry = _TABLE.get(ch)
    if entry is not None:
        intended, terminal, also, why = entry
        return LookAlike(ch, intended, terminal, also, why)
    if ch in _SPACES:
        return LookAlike(ch, " ", None, "", "it is invisible in most editors")
    code = ord(ch)
    if code > 0x7F and ch.isdecimal():               # fullwidth, Arabic-Indic, Devanagari, ... digits
        return LookAlike(ch, str(unicodedata.decimal(ch)), "NUMBER", "",
                         "numbers in `.dp` are written with the digits 0-9 only")
    if 0xFF01 <= code <= 0xFF5E:                      # fullwidth ASCII
        ascii_ch = chr(code - 0xFEE0)
        return LookAlike(ch, ascii_ch, _ASCII_TERMINALS.get(ascii_ch), "",
                         "input methods for Chinese, Japanese and Korean type it")
    if code == 0x3000:
        return LookAlike(ch, " ", None, "", "")
    return None


_ASCII_TERMINALS = {"(": "LPAR", ")": "RPAR", "{": "LBRACE", "}": "RBRACE", ",": "COMMA",
                    ";": "SEMICOLON", ":": "COLON", "=": "EQUAL", "<": "LT", ">": "GT",
                    "+": "PLUS", "-": "MINUS", "*": "STAR", "/": "SLASH", "[": "LSQB", "]": "RSQB"}


def digit_run(text: str, pos: int) -> str:
    """The ASCII spelling of a run of non-ASCII decimal digits (`３٣` → `33`)."""
    out = []
    while pos < len(text) and ord(text[pos]) > 0x7F and text[pos].isdecimal():
        out.append(str(unicodedata.decimal(text[pos])))
        pos += 1
    return "".join(out)


def fullwidth_run(text: str, pos: int) -> str:
    """The ASCII spelling of a run of fullwidth characters (`ｏｕｔｐｕｔ` → `output`)."""
    out = []
    while pos < len(text) and 0xFF01 <= ord(text[pos]) <= 0xFF5E:
        out.append(chr(ord(text[pos]) - 0xFEE0))
        pos += 1
    return "".join(out)


# ------------------------------------------------------------------ decimals
def repeating_fraction(digits: str):
    """The fraction a truncated repeating decimal stands for, or None.

    ``digits`` is a decimal literal such as ``0.3333`` or ``0.1666``: if its
    fractional part ends in at least two repetitions of a block of at most six
    digits (three for a one-digit block), the value with that block repeated
    forever (``1/3``, ``1/6``); else None."""
    from fractions import Fraction
    if "." not in digits:
        return None
    whole, frac = digits.split(".", 1)
    whole = whole or "0"
    if not frac.isdigit() or not whole.isdigit():
        return None
    best = None
    for period in range(1, 7):
        reps = 3 if period == 1 else 2
        if len(frac) < period * reps:
            break
        block = frac[-period:]
        if block * reps != frac[-period * reps:] or set(block) == {"0"}:
            continue
        # the shortest prefix after which the block repeats
        start = len(frac) - period * reps
        while start >= period and frac[start - period:start] == block:
            start -= period
        while start > 0 and frac[start - 1] == frac[start - 1 + period]:
            start -= 1
        prefix, rep = frac[:start], frac[start:start + period]
        value = Fraction(int(whole + prefix or "0"), 10 ** len(prefix)) + \
            Fraction(int(rep), (10 ** period - 1) * 10 ** len(prefix))
        best = value
        break
    return best


def rounded_fraction(digits: str):
    """Like :func:`repeating_fraction`, also for a decimal whose last digit is
    rounded (`0.6667` → 2/3): the fraction that rounds to exactly ``digits``."""
    from fractions import Fraction
    value = repeating_fraction(digits)
    if value is not None or "." not in digits or len(digits.split(".", 1)[1]) < 4:
        return value
    value = repeating_fraction(digits[:-1])
    if value is None:
        return None
    places = len(digits.split(".", 1)[1])
    scaled = value * 10 ** places
    rounded = Fraction(int(scaled + Fraction(1, 2)), 10 ** places)
    return value if rounded == Fraction(digits) else None


_DECIMALS = None


_FOUR_DECIMALS = re.compile(r"\.[0-9]{4}")    # what every W002 literal contains


def decimal_warnings(source, start: int, end: int) -> list:
    """W002 for every decimal literal of ``source.text[start:end]`` that looks
    like a repeating decimal cut short (`0.3333`, `0.6667`): it is read
    exactly as written, which is rarely what was meant."""
    global _DECIMALS
    import re
    from dslc.diagnostics.model import Diagnostic, Severity
    if _DECIMALS is None:
        _DECIMALS = re.compile(r"//[^\n]*|/\*(?:[^*]|\*(?!/))*\*/|\"[^\"\n]*\"|"
                               r"(?<![A-Za-z0-9_.])(?P<num>[0-9]*\.[0-9]{4,})(?![A-Za-z0-9_.…])", re.S)
    text = source.text
    if _FOUR_DECIMALS.search(text, start, end) is None:      # no copy of the block, a fast scan
        return []
    out = []
    for m in _DECIMALS.finditer(text, start, end):
        digits = m.group("num")
        if digits is None:
            continue
        value = rounded_fraction(digits)
        if value is None:
            continue
        from fractions import Fraction
        exact = Fraction(digits)
        diag = Diagnostic("W002", f"`{digits}` is read as exactly {fraction_text(exact)}, "
                                  f"not as {fraction_text(value)}", severity=Severity.WARNING)
        diag.primary_at(source.span(m.start("num"), m.end("num")), f"exactly {fraction_text(exact)}")
        diag.note("numbers in `.dp` are exact; a decimal is read as written, and a verdict, d or a "
                  "probability computed from it is exact for that value")
        diag.with_help(f"write `{fraction_text(value)}` if that is the value you mean")
        out.append(diag)
        if len(out) >= 20:
            break
    return out


def fraction_text(value) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)


__all__ = ["LookAlike", "lookup", "char_name", "show", "SMART_QUOTES", "fullwidth_run",
           "digit_run", "repeating_fraction", "rounded_fraction", "decimal_warnings", "fraction_text"]
