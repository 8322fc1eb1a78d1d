"""`file:line:col: severity: message [CODE]`, one line per diagnostic (quickfix).

Columns are 1-based *display* columns, as GCC prints them by default
(``-fdiagnostics-column-unit=display``): a tab advances to the next multiple
of 8, wide characters count 2, combining marks 0.  That is what Emacs'
compilation mode (screen columns) and Vim's ``%v`` expect; for ASCII lines and
the `.dp` symbols ``ε ≥ ⊤ ⊥ →`` it equals the character column.
"""

from __future__ import annotations

from dslc.diagnostics.render.display import display_column, visible
from dslc.results import FileResult


def _one_line(text: str) -> str:
    return visible(" ".join(text.split()) if ("\n" in text or "\r" in text) else text, one_line=True)


def render_gcc(files: list[FileResult]) -> str:
    lines = []
    for f in files:
        for d in f.all_diagnostics:
            if d.span is not None:
                line, col = d.span.start_line_col
                col = display_column(d.span.file.line_text(line), col)
                where = f"{visible(d.span.path, one_line=True)}:{line}:{col}"
            else:
                where = f"{visible(f.path, one_line=True)}:1:1"
            code = f" [{d.code}]" if d.code else ""
            lines.append(f"{where}: {d.severity.value}: {_one_line(d.message)}{code}")
    return "\n".join(lines) + ("\n" if lines else "")
