"""`file:line:col: severity: message [CODE]`, one line per diagnostic (quickfix).

Columns are 1-based *display* columns, as GCC prints them by default
(``-fdiagnostics-column-unit=display``): a tab advances to the next multiple
of 8, wide characters count 2, combining marks 0.  That is what Emacs'
compilation mode (screen columns) and Vim's ``%v`` expect; for ASCII lines and
the `.dp` symbols ``ε ≥ ⊤ ⊥ →`` it equals the character column.
"""

from __future__ import annotations

import unicodedata

from dslc.results import FileResult

TABSTOP = 8


def display_column(line_text: str, char_col: int) -> int:
    """1-based display column of the 1-based character column ``char_col``."""
    width = 0
    for ch in line_text[:max(0, char_col - 1)]:
        if ch == "\t":
            width += TABSTOP - width % TABSTOP
        elif unicodedata.combining(ch):
            continue
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            width += 2
        else:
            width += 1
    return width + 1


def _one_line(text: str) -> str:
    return " ".join(text.split()) if ("\n" in text or "\r" in text) else text


def render_gcc(files: list[FileResult]) -> str:
    lines = []
    for f in files:
        for d in f.all_diagnostics:
            if d.span is not None:
                line, col = d.span.start_line_col
                col = display_column(d.span.file.line_text(line), col)
                where = f"{d.span.path}:{line}:{col}"
            else:
                where = f"{f.path}:1:1"
            code = f" [{d.code}]" if d.code else ""
            lines.append(f"{where}: {d.severity.value}: {_one_line(d.message)}{code}")
    return "\n".join(lines) + ("\n" if lines else "")
