"""`file:line:col: severity: message [CODE]`, one line per diagnostic (quickfix)."""

from __future__ import annotations

from dslc.results import FileResult


def render_gcc(files: list[FileResult]) -> str:
    lines = []
    for f in files:
        for d in f.all_diagnostics:
            if d.span is not None:
                line, col = d.span.start_line_col
                where = f"{d.span.path}:{line}:{col}"
            else:
                where = f"{f.path}:1:1"
            lines.append(f"{where}: {d.severity.value}: {d.message} [{d.code}]")
    return "\n".join(lines) + ("\n" if lines else "")
