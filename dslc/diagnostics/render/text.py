"""Human-readable output in the style of rustc, with rich for colour.

Every label gets its own underline line below its source line, which keeps
the layout simple and stable for golden tests (colour off, fixed width).
Source text and file names are printed through
:func:`dslc.diagnostics.render.display.visible` (control characters escaped);
a source line wider than :data:`MAX_LINE` cells is shown as a window around
its labels, cut with `…`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dslc import limits
from dslc.diagnostics.model import Diagnostic, Label, Severity, Verbatim
from dslc.diagnostics.render.display import cells, visible
from dslc.results import BlockResult, FileResult, Verdict
from dslc.source import display_path

if TYPE_CHECKING:
    from rich.text import Text


class PlainText:
    """What the renderer uses of rich's ``Text``, without styles: output that
    is not coloured needs neither rich's import nor its rendering."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def append(self, text: str, style=None) -> "PlainText":
        self._parts.append(text)
        return self

    def append_text(self, other) -> "PlainText":
        self._parts.append(other.plain)
        return self

    @property
    def plain(self) -> str:
        return "".join(self._parts)

    def __str__(self) -> str:
        return self.plain


def new_text(styled: bool = True):
    """An empty rich ``Text`` (styled) or :class:`PlainText`."""
    if not styled:
        return PlainText()
    from rich.text import Text
    return Text()


STYLE = {
    "error": "bold red", "warning": "bold yellow", "note": "bold cyan", "help": "bold green",
    "primary": "bold red", "secondary": "bold blue", "gutter": "bold blue", "ok": "bold green",
    "bad": "bold red", "unknown": "bold yellow",
}
WRAP = 100
MAX_LINE = 100        # source lines wider than this are shown as a window around their labels
CONTEXT = 24          # cells of context kept left of the first label in a window


def _clean(text: str) -> str:
    """Source text as printed: tabs as 4 spaces, control characters escaped."""
    return visible(text.replace("\t", "    "))


def _window(raw: str, marks: list[tuple[int, int]]) -> tuple[int, int]:
    """The characters [lo, hi) of a source line to print: the whole line when
    it fits in :data:`MAX_LINE` cells, else a stretch around ``marks``
    (character ranges of the labels on it)."""
    if len(raw) <= MAX_LINE and cells(_clean(raw)) <= MAX_LINE:
        return 0, len(raw)
    first = min((a for a, _ in marks), default=0)
    last = max((b for _, b in marks), default=0)
    lo = first
    while lo > 0 and first - lo < 4 * CONTEXT and cells(_clean(raw[lo - 1:first])) <= CONTEXT:
        lo -= 1
    hi = max(last, lo + 1)
    if cells(_clean(raw[lo:hi])) > MAX_LINE - 2:
        # a label wider than the window (a 1,000-digit number): show its start, cut with `…`
        hi = lo + 1
        while hi < len(raw) and cells(_clean(raw[lo:hi + 1])) <= MAX_LINE - 2:
            hi += 1
        return lo, hi
    while hi < len(raw) and hi - lo < 4 * MAX_LINE and cells(_clean(raw[lo:hi + 1])) <= MAX_LINE - 2:
        hi += 1
    return lo, min(hi, len(raw))


def _shown(raw: str, lo: int, hi: int) -> tuple[str, int]:
    """The printed text of raw[lo:hi], with `…` where it was cut, and the
    cells taken by the leading `…`."""
    head = "…" if lo > 0 else ""
    return head + _clean(raw[lo:hi]) + ("…" if hi < len(raw) else ""), len(head)


def render_diagnostic(diag: Diagnostic, out: Text | None = None, title: str | None = None) -> Text:
    out = out if out is not None else new_text()
    sev = diag.severity.value if isinstance(diag.severity, Severity) else str(diag.severity)
    head = f"{sev}[{diag.code}]" if diag.code else sev
    out.append(head, STYLE.get(sev, "bold"))
    out.append(": ")
    out.append(visible(title or diag.message) + "\n", "bold")
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
    """`= note: text`, wrapped; a line break in the text starts a new line
    (indented two more columns), so a note can hold a short list."""
    prefix = f"{gutter}= "
    if isinstance(text, Verbatim):        # a command to paste: one line, never wrapped
        out.append(prefix)
        out.append(kind, STYLE[kind])
        out.append(": " + visible(text, one_line=True) + "\n")
        return
    width = max(40, WRAP - len(prefix) - len(kind) - 2)
    pad = " " * (len(prefix) + len(kind) + 2)
    lines: list[str] = []
    import textwrap                      # only for notes and help: not at start-up
    for k, paragraph in enumerate(text.split("\n")):
        wrapped = textwrap.wrap(paragraph, width=width - (2 if k else 0), break_long_words=False,
                                break_on_hyphens=False) or [""]
        lines += wrapped if k == 0 else ["  " + w for w in wrapped[:1]] + ["    " + w for w in wrapped[1:]]
    out.append(prefix)
    out.append(kind, STYLE[kind])
    out.append(": " + visible(lines[0]) + "\n")
    for line in lines[1:]:
        out.append(pad + visible(line) + "\n")


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
    out.append(f"{visible(primary.span.path, one_line=True)}:{line}:{col}\n")
    if not file.text:                      # nothing to show (an unreadable or empty file)
        return
    # Labels in other files are listed after the snippet.
    here = [lab for lab in labels if lab.span.file is file]
    elsewhere = [lab for lab in labels if lab.span.file is not file]
    by_line: dict[int, list[Label]] = {}
    for lab in here:
        by_line.setdefault(lab.span.start_line_col[0], []).append(lab)
    out.append(f"{pad} |\n", STYLE["gutter"])
    previous = None
    for i, ln in enumerate(sorted(by_line)):
        if not i & 1023:
            limits.checkpoint()
        if previous is not None and ln - previous > 1:
            if ln - previous <= 3:
                for mid in range(previous + 1, ln):
                    _source_line(out, file, mid, width, [])
            else:
                out.append("...\n", STYLE["gutter"])
        raw = file.line_text(ln)
        marks = []
        for lab in by_line[ln]:
            s_col = lab.span.start_line_col[1] - 1
            e_line, e_col = lab.span.end_line_col
            marks.append((s_col, e_col - 1 if e_line == ln else len(raw)))
        lo, hi = _source_line(out, file, ln, width, marks)
        for lab, (a, b) in sorted(zip(by_line[ln], marks), key=lambda p: p[0].span.start):
            a, b = max(a, lo), min(max(b, a), hi)
            _, head = _shown(raw, lo, hi)
            start_w = head + cells(_clean(raw[lo:a]))
            length = max(1, cells(_clean(raw[a:b])))
            mark = "^" if lab is primary else "-"
            style = STYLE["primary"] if lab is primary else STYLE["secondary"]
            if lab is primary and sev == "warning":
                style = STYLE["warning"]
            out.append(f"{pad} | ", STYLE["gutter"])
            out.append(" " * start_w)
            out.append(mark * length + (" " + visible(lab.message) if lab.message else ""), style)
            out.append("\n")
        previous = ln
    for lab in elsewhere:
        line, col = lab.span.start_line_col
        out.append(f"{pad} = ", STYLE["gutter"])
        out.append(f"{visible(display_path(lab.span.path), one_line=True)}:{line}:{col}: {visible(lab.message)}\n")


def _source_line(out: Text, file, ln: int, width: int, marks: list[tuple[int, int]]) -> tuple[int, int]:
    """Print source line ``ln`` (a window of it when it is long); return the window."""
    raw = file.line_text(ln)
    lo, hi = _window(raw, marks)
    out.append(f"{str(ln).rjust(width)} | ", STYLE["gutter"])
    out.append(_shown(raw, lo, hi)[0] + "\n")
    return lo, hi


def render_block_line(block: BlockResult, path: str, styled: bool = True) -> Text:
    where = visible(path, one_line=True)
    if block.span is not None:
        line, col = block.span.start_line_col
        where = f"{where}:{line}:{col}"
    out = new_text(styled)
    if block.verdict is Verdict.PRIVATE:
        out.append("✓ ", STYLE["ok"])
    elif block.verdict is Verdict.NOT_PRIVATE:
        out.append("✗ ", STYLE["bad"])
    elif block.verdict is Verdict.UNKNOWN:
        out.append("? ", STYLE["unknown"])
    else:
        out.append("! ", STYLE["error"])
    out.append(f"{block.kind} {visible(block.name, one_line=True)}", "bold")
    out.append(f" ({where}): ")
    text = block.summary or {"error": "could not be checked", "unknown": "unknown"}.get(block.verdict.value,
                                                                                     block.verdict.value)
    out.append(visible(text) + "\n")
    return out


def render_results(files: list[FileResult], explain: bool = False, styled: bool = True,
                   quiet: bool = False) -> Text:
    """Every file's diagnostics and verdicts, and a count; a rich ``Text``,
    or with ``styled=False`` a :class:`PlainText` (the same characters).
    With ``quiet``, the diagnostics alone (`dslc check -q`)."""
    out = new_text(styled)
    counts = {v: 0 for v in Verdict}
    for f in files:
        for diag in f.diagnostics:
            render_diagnostic(diag, out)
            out.append("\n")
        for block in f.blocks:
            limits.checkpoint()
            counts[block.verdict] += 1
            for diag in block.diagnostics:
                limits.checkpoint()
                render_diagnostic(diag, out)
                out.append("\n")
            if quiet:
                continue
            out.append_text(render_block_line(block, f.path, styled))
            if block.kind == "release" and block.cost_labels:
                # a release's costs per call are part of its report (dslc/compose)
                costs = Diagnostic("", f"what the calls of `{block.name}` cost (d·share; sequential calls add, "
                                       f"a group `on disjoint` costs its largest)",
                                   severity=Severity.NOTE, labels=list(block.cost_labels))
                for note in block.features.get("release_notes", []):
                    costs.note(note)
                render_diagnostic(costs, out)
                if not block.diagnostics:
                    out.append("\n")
            elif explain and block.cost_labels:
                upper = block.bounds.get("d_upper", block.details.get("weight", block.d))
                why = Diagnostic("", f"why d ≤ {upper}: the critical transitions "
                                     f"of `{block.name}` and their costs", severity=Severity.NOTE,
                                 labels=list(block.cost_labels))
                why.note(block.features.get("cost_note") or   # a backend's own wording (several variables)
                         "wt(A) is the largest total cost of critical transitions (transitions on no "
                         "cycle) along a path; Lemma 3 of the DiPA paper makes the block dε-private for every ε"
                         " with d = wt(A)" + (f" times the declared sensitivity {block.bounds['sensitivity']}"
                                              if "sensitivity" in block.bounds else "")
                         + ", an upper bound on the best constant")
                for note in block.features.get("lower_bound_notes", []):
                    why.note(note)
                render_diagnostic(why, out)
            if explain or block.diagnostics:
                out.append("\n")
    if quiet:
        return out
    nblocks = sum(counts.values())
    file_errors = sum(1 for f in files for d in f.diagnostics if d.is_error)
    parts = [f"{counts[Verdict.PRIVATE]} private", f"{counts[Verdict.NOT_PRIVATE]} not private"]
    if counts[Verdict.UNKNOWN]:
        parts.append(f"{counts[Verdict.UNKNOWN]} unknown")
    parts.append(f"{counts[Verdict.ERROR] + file_errors} error{'s' if counts[Verdict.ERROR] + file_errors != 1 else ''}")
    out.append(f"checked {nblocks} block{'s' if nblocks != 1 else ''} in {len(files)} "
               f"file{'s' if len(files) != 1 else ''}: " + ", ".join(parts) + "\n", "bold")
    return out
