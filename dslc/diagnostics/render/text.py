"""Human-readable output in the style of rustc, with rich for colour.

Every label gets its own underline line below its source line, which keeps
the layout simple and stable for golden tests (colour off, fixed width).
"""

from __future__ import annotations

import textwrap
import unicodedata

from rich.text import Text

from dslc.diagnostics.model import Diagnostic, Label, Severity
from dslc.results import BlockResult, FileResult, Verdict

STYLE = {
    "error": "bold red", "warning": "bold yellow", "note": "bold cyan", "help": "bold green",
    "primary": "bold red", "secondary": "bold blue", "gutter": "bold blue", "ok": "bold green",
    "bad": "bold red", "unknown": "bold yellow",
}
WRAP = 100


def _width(s: str) -> int:
    w = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def _expand(line: str) -> str:
    return line.replace("\t", "    ")


def render_diagnostic(diag: Diagnostic, out: Text | None = None, title: str | None = None) -> Text:
    out = out if out is not None else Text()
    sev = diag.severity.value if isinstance(diag.severity, Severity) else str(diag.severity)
    head = f"{sev}[{diag.code}]" if diag.code else sev
    out.append(head, STYLE.get(sev, "bold"))
    out.append(": ")
    out.append((title or diag.message) + "\n", "bold")
    labels = [lab for lab in diag.labels if lab.span is not None]
    if labels:
        _render_snippet(labels, diag.primary, out, sev)
    gutter = " " * (_gutter_width(labels) + 1)
    for note in diag.notes:
        _append_wrapped(out, gutter, "note", note)
    for hint in diag.help:
        _append_wrapped(out, gutter, "help", hint)
    return out


def _append_wrapped(out: Text, gutter: str, kind: str, text: str) -> None:
    prefix = f"{gutter}= "
    lines = textwrap.wrap(text, width=max(40, WRAP - len(prefix) - len(kind) - 2),
                          break_long_words=False, break_on_hyphens=False) or [""]
    out.append(prefix)
    out.append(kind, STYLE[kind])
    out.append(": " + lines[0] + "\n")
    pad = " " * (len(prefix) + len(kind) + 2)
    for line in lines[1:]:
        out.append(pad + line + "\n")


def _gutter_width(labels: list[Label]) -> int:
    if not labels:
        return 1
    return max(len(str(lab.span.start_line_col[0])) for lab in labels)


def _render_snippet(labels: list[Label], primary: Label | None, out: Text, sev: str) -> None:
    primary = primary or labels[0]
    file = primary.span.file
    width = _gutter_width(labels)
    pad = " " * width
    line, col = primary.span.start_line_col
    out.append(f"{pad}--> ", STYLE["gutter"])
    out.append(f"{primary.span.path}:{line}:{col}\n")
    # Labels in other files are listed after the snippet.
    here = [lab for lab in labels if lab.span.file is file]
    elsewhere = [lab for lab in labels if lab.span.file is not file]
    by_line: dict[int, list[Label]] = {}
    for lab in here:
        by_line.setdefault(lab.span.start_line_col[0], []).append(lab)
    out.append(f"{pad} |\n", STYLE["gutter"])
    shown = sorted(by_line)
    previous = None
    for ln in shown:
        if previous is not None and ln - previous > 1:
            if ln - previous <= 3:
                for mid in range(previous + 1, ln):
                    _source_line(out, file, mid, width)
            else:
                out.append("...\n", STYLE["gutter"])
        _source_line(out, file, ln, width)
        src = _expand(file.line_text(ln))
        for lab in sorted(by_line[ln], key=lambda lab: lab.span.start):
            s_line, s_col = lab.span.start_line_col
            e_line, e_col = lab.span.end_line_col
            raw = file.line_text(ln)
            start_w = _width(_expand(raw[:s_col - 1]))
            if e_line == s_line:
                length = _width(_expand(raw[s_col - 1:e_col - 1]))
            else:
                length = _width(src) - start_w
            length = max(1, length)
            mark = "^" if lab is primary else "-"
            style = STYLE["primary"] if lab is primary else STYLE["secondary"]
            if lab is primary and sev == "warning":
                style = STYLE["warning"]
            out.append(f"{pad} | ", STYLE["gutter"])
            out.append(" " * start_w)
            out.append(mark * length + (" " + lab.message if lab.message else ""), style)
            out.append("\n")
        previous = ln
    for lab in elsewhere:
        line, col = lab.span.start_line_col
        out.append(f"{pad} = ", STYLE["gutter"])
        out.append(f"{lab.span.path}:{line}:{col}: {lab.message}\n")


def _source_line(out: Text, file, ln: int, width: int) -> None:
    out.append(f"{str(ln).rjust(width)} | ", STYLE["gutter"])
    out.append(_expand(file.line_text(ln)) + "\n")


def render_block_line(block: BlockResult, path: str) -> Text:
    where = path
    if block.span is not None:
        line, col = block.span.start_line_col
        where = f"{path}:{line}:{col}"
    out = Text()
    if block.verdict is Verdict.PRIVATE:
        out.append("✓ ", STYLE["ok"])
    elif block.verdict is Verdict.NOT_PRIVATE:
        out.append("✗ ", STYLE["bad"])
    elif block.verdict is Verdict.UNKNOWN:
        out.append("? ", STYLE["unknown"])
    else:
        out.append("! ", STYLE["error"])
    out.append(f"{block.kind} {block.name}", "bold")
    out.append(f" ({where}): ")
    text = block.summary or {"error": "could not be checked", "unknown": "unknown"}.get(block.verdict.value,
                                                                                     block.verdict.value)
    out.append(text + "\n")
    return out


def render_results(files: list[FileResult], explain: bool = False) -> Text:
    out = Text()
    counts = {v: 0 for v in Verdict}
    for f in files:
        for diag in f.diagnostics:
            render_diagnostic(diag, out)
            out.append("\n")
        for block in f.blocks:
            counts[block.verdict] += 1
            for diag in block.diagnostics:
                render_diagnostic(diag, out)
                out.append("\n")
            out.append_text(render_block_line(block, f.path))
            if explain and block.explain:
                why = Diagnostic("", f"why d = {block.extra.get('weight', block.d)}: the critical transitions "
                                     f"of `{block.name}` and their costs", severity=Severity.NOTE,
                                 labels=list(block.explain))
                why.note("d = wt(A) is the largest total cost of critical transitions (transitions on no "
                         "cycle) along a path; Lemma 3 of the DiPA paper makes the block dε-private for every ε")
                render_diagnostic(why, out)
            if explain or block.diagnostics:
                out.append("\n")
    nblocks = sum(counts.values())
    file_errors = sum(1 for f in files for d in f.diagnostics if d.is_error)
    parts = [f"{counts[Verdict.PRIVATE]} private", f"{counts[Verdict.NOT_PRIVATE]} not private"]
    if counts[Verdict.UNKNOWN]:
        parts.append(f"{counts[Verdict.UNKNOWN]} unknown")
    parts.append(f"{counts[Verdict.ERROR] + file_errors} error{'s' if counts[Verdict.ERROR] + file_errors != 1 else ''}")
    out.append(f"checked {nblocks} block{'s' if nblocks != 1 else ''} in {len(files)} "
               f"file{'s' if len(files) != 1 else ''}: " + ", ".join(parts) + "\n", "bold")
    return out
