"""Text for a terminal: control characters made visible, widths in cells.

Source text and file names reach the terminal through these functions only,
so an ESC byte in a `.dp` file (``"\\x1b[2J"`` clears the screen) or a
newline in a file name (which would forge a quickfix line in gcc format) is
printed as a visible escape such as ``\\u{1b}`` instead.  Bidirectional
overrides are escaped too, so the printed code reads as it is parsed.
Widths come from rich (wide characters count 2, combining marks 0).
"""

from __future__ import annotations

import re

TABSTOP = 8
_CONTROL = re.compile("[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]")
_CONTROL_LINES = re.compile("[\\x00-\\x1f\\x7f-\\x9f\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]")


def _escape(m: re.Match) -> str:
    return "\\u{%x}" % ord(m.group(0))


def visible(text: str, one_line: bool = False) -> str:
    """``text`` with control characters escaped (and with ``one_line``, tabs
    and line ends too: for file names and one-line formats)."""
    pattern = _CONTROL_LINES if one_line else _CONTROL
    return pattern.sub(_escape, text) if pattern.search(text) else text


def cell_len(text: str) -> int:
    """Terminal cells taken by ``text``: its length when it is printable
    ASCII, else rich's count (rich is imported only then)."""
    if text.isascii() and text.isprintable():
        return len(text)
    from rich.cells import cell_len as rich_cell_len
    return rich_cell_len(text)


def cells(text: str) -> int:
    """Terminal cells taken by ``text`` (already free of tabs and controls)."""
    return cell_len(text)


def display_column(line_text: str, char_col: int, tabstop: int = TABSTOP) -> int:
    """1-based display column of the 1-based character column ``char_col``:
    a tab advances to the next multiple of ``tabstop``, wide characters count 2,
    combining marks 0 (GCC's ``-fdiagnostics-column-unit=display``)."""
    width = 0
    for part in re.split("(\t)", line_text[:max(0, char_col - 1)]):
        if part == "\t":
            width += tabstop - width % tabstop
        elif part:
            width += cell_len(part)
    return width + 1
