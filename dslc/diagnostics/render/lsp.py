"""Diagnostics as Language Server Protocol objects, with positions in the
client's units.

Spans are character (code point) offsets; the protocol counts columns in
UTF-16 code units unless the client negotiated another encoding, and splits
lines at ``\\n``, ``\\r\\n`` and ``\\r`` only.  :class:`PositionEncoder` does
both conversions for one text.  The SARIF renderer uses it too (SARIF regions
in UTF-16 code units).  Like every renderer this module only formats.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate, islice, repeat
from operator import add
from pathlib import Path
from urllib.parse import quote

from lsprotocol import types as lsp

from dslc.diagnostics import codes
from dslc.diagnostics.model import Diagnostic, Severity
from dslc.results import FileResult
from dslc.source import SourceFile, Span

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"
_BREAK = re.compile(r"\r\n?|\n")
SOURCE = "dslc"

SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.NOTE: lsp.DiagnosticSeverity.Information,
}
# Codes whose primary span is code that never runs (rendered faded).
UNNECESSARY = {"W001"}


def _units(s: str, encoding: str) -> int:
    """Length of ``s`` in code units of ``encoding``."""
    if encoding == UTF32 or s.isascii():
        return len(s)
    if encoding == UTF8:
        return len(s.encode("utf-8", "surrogatepass"))
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


class PositionEncoder:
    """Converts between character offsets of one text and protocol positions
    (0-based line, 0-based column in code units of ``encoding``)."""

    def __init__(self, text: str, encoding: str = UTF16):
        self.text = text
        self.encoding = str(encoding) if encoding else UTF16
        self._starts: list[int] | None = None
        self._ends: list[int] | None = None

    def _table(self) -> tuple[list[int], list[int]]:
        if self._starts is None:
            text = self.text
            if "\r" not in text:
                lengths = map(len, text.split("\n"))
                starts = list(accumulate(map(add, lengths, repeat(1)), initial=0))
                starts.pop()
                ends = [s - 1 for s in islice(starts, 1, None)]
                ends.append(len(text))
            else:
                starts, ends = [0], []
                for m in _BREAK.finditer(text):
                    ends.append(m.start())
                    starts.append(m.end())
                ends.append(len(text))
            self._starts, self._ends = starts, ends
        return self._starts, self._ends  # type: ignore[return-value]

    def position(self, offset: int) -> lsp.Position:
        starts, ends = self._table()
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(starts, offset) - 1
        start = starts[line]
        offset = min(offset, ends[line])          # inside a line break: end of the line
        return lsp.Position(line=line, character=_units(self.text[start:offset], self.encoding))

    def range(self, start: int, end: int) -> lsp.Range:
        return lsp.Range(start=self.position(start), end=self.position(max(start, end)))

    def span_range(self, span: Span) -> lsp.Range:
        return self.range(span.start, span.end)

    def offset(self, position: lsp.Position) -> int:
        """Character offset of a protocol position.  A line past the end gives
        the end of the text; a column past the end of its line gives the end
        of the line; a column inside a character (half of a surrogate pair)
        gives the start of that character."""
        starts, ends = self._table()
        if position.line < 0:
            return 0
        if position.line >= len(starts):
            return len(self.text)
        start, end = starts[position.line], ends[position.line]
        return start + column_to_index(self.text[start:end], position.character, self.encoding)


def column_to_index(line: str, units: int, encoding: str = UTF16) -> int:
    """Index into ``line`` (one line, without its break) of a column given in
    code units: past the end gives the end, inside a character (half of a
    surrogate pair) gives the start of that character."""
    want = max(0, units)
    if encoding == UTF32 or line.isascii() or (encoding == UTF16 and max(line) <= "\uffff"):
        return min(want, len(line))
    count = 0
    for i, ch in enumerate(line):
        width = len(ch.encode("utf-8", "surrogatepass")) if encoding == UTF8 else (2 if ord(ch) > 0xFFFF else 1)
        if count + width > want:
            return i
        count += width
    return len(line)


def path_uri(path: str) -> str:
    """A ``file:`` URI for a path (relative paths are made absolute)."""
    try:
        return Path(path).absolute().as_uri()
    except ValueError:
        return "file://" + quote(path)


class _Uris:
    """URI and encoder of every file a diagnostic may point into."""

    def __init__(self, uri: str, source: SourceFile | None, encoder: PositionEncoder | None,
                 encoding: str):
        self.encoding = encoding
        self.main = source
        self.by_file: dict[int, tuple[str, PositionEncoder]] = {}
        if source is not None:
            self.by_file[id(source)] = (uri, encoder or PositionEncoder(source.text, encoding))

    def get(self, span: Span) -> tuple[str, PositionEncoder]:
        key = id(span.file)
        if key not in self.by_file:
            self.by_file[key] = (path_uri(span.path), PositionEncoder(span.file.text, self.encoding))
        return self.by_file[key]


def _message(d: Diagnostic, related_inline: list[str]) -> str:
    lines = [d.message or d.code or "error"]
    first = d.primary
    if first is not None and first.message:
        lines.append(first.message)
    lines += [f"note: {n}" for n in d.notes]
    lines += [f"help: {h}" for h in d.help]
    lines += related_inline
    return "\n".join(lines)


def to_lsp_diagnostic(d: Diagnostic, uris: _Uris, *, related_information: bool = True,
                      tags: bool = True) -> lsp.Diagnostic:
    span = d.span
    if span is not None:
        _, encoder = uris.get(span)
        rng = encoder.span_range(span)
    else:
        rng = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    related: list[lsp.DiagnosticRelatedInformation] = []
    inline: list[str] = []
    for label in d.related:
        if label.span is None:
            continue
        uri, encoder = uris.get(label.span)
        where = encoder.span_range(label.span)
        text = label.message or "related location"
        if related_information:
            related.append(lsp.DiagnosticRelatedInformation(
                location=lsp.Location(uri=uri, range=where), message=text))
        else:
            # read by a person: the same line:column as the text and gcc renderers
            # (columns in characters), not the protocol's code units
            line, col = label.span.file.line_col(label.span.start)
            inline.append(f"{label.span.path}:{line}:{col}: {text}")
    info = codes.lookup(d.code) if d.code else None
    return lsp.Diagnostic(
        range=rng,
        message=_message(d, inline),
        severity=SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Error),
        code=d.code or None,
        code_description=lsp.CodeDescription(href=info.url) if info is not None else None,
        source=SOURCE,
        related_information=related or None,
        tags=[lsp.DiagnosticTag.Unnecessary] if tags and d.code in UNNECESSARY else None,
    )


def file_diagnostics(result: FileResult, uri: str, *, encoding: str = UTF16,
                     encoder: PositionEncoder | None = None, related_information: bool = True,
                     tags: bool = True) -> list[lsp.Diagnostic]:
    """Every diagnostic of a checked file (file level and all blocks), for
    ``textDocument/publishDiagnostics`` on ``uri``."""
    uris = _Uris(uri, result.source, encoder, encoding)
    return [to_lsp_diagnostic(d, uris, related_information=related_information, tags=tags)
            for d in result.all_diagnostics]


__all__ = ["PositionEncoder", "column_to_index", "file_diagnostics", "to_lsp_diagnostic", "path_uri",
           "UTF8", "UTF16", "UTF32"]
