"""Open documents: their text, version and incremental edits.

The server keeps its own copy of each open document rather than pygls'
workspace, so that line breaks follow the protocol (``\\n``, ``\\r\\n``,
``\\r`` only) and columns the negotiated encoding.  A document is a list of
lines (each with its line break); an edit re-splits only the lines it touches
(and one neighbour on each side, where a ``\\r`` and a ``\\n`` could join), so
a keystroke in a 5 MB document costs microseconds plus one list splice.  The
whole text is joined once per check, not per keystroke.
"""

from __future__ import annotations

import itertools
import re
from urllib.parse import unquote, urlparse

from lsprotocol import types as lsp

from dslc.diagnostics.render.lsp import UTF16, column_to_index

_BREAK = re.compile(r"\r\n?|\n")


def uri_to_path(uri: str) -> str:
    """A file system path for ``file:`` URIs; other URIs are kept as they are
    (used only to name the document in messages)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    path = unquote(parsed.path)
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    if len(path) >= 3 and path[0] == "/" and path[2] == ":":      # /C:/x on Windows
        path = path[1:]
    return path


def split_lines(text: str) -> list[str]:
    """Lines with their breaks; the last line (possibly empty) has none."""
    if "\r" not in text:
        parts = text.split("\n")
        last = parts.pop()
        lines = [p + "\n" for p in parts]
        lines.append(last)
        return lines
    lines, pos = [], 0
    for m in _BREAK.finditer(text):
        lines.append(text[pos:m.end()])
        pos = m.end()
    lines.append(text[pos:])
    return lines


def _content(line: str) -> str:
    return line.rstrip("\r\n")


class Document:
    def __init__(self, uri: str, text: str, version: int | None = None, encoding: str = UTF16):
        self.uri = uri
        self.version = version
        self.encoding = encoding
        self.generation = 0          # renewed on every change; results of older generations are stale
        self.lines = split_lines(text)
        self._text: str | None = text

    @property
    def path(self) -> str:
        return uri_to_path(self.uri)

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(self.lines)
        return self._text

    def _locate(self, pos: lsp.Position) -> tuple[int, int]:
        """(line index, index in that line) of a protocol position, clamped."""
        last = len(self.lines) - 1
        if pos.line > last:
            return last, len(_content(self.lines[last]))
        line = max(0, pos.line)
        return line, column_to_index(_content(self.lines[line]), pos.character, self.encoding)

    def apply(self, change: lsp.TextDocumentContentChangeEvent) -> None:
        """Apply one content change (a ranged edit, or the whole text)."""
        rng = getattr(change, "range", None)
        if rng is None:
            self.lines = split_lines(change.text)
            self._text = change.text
            return
        (la, ca), (lb, cb) = sorted((self._locate(rng.start), self._locate(rng.end)))
        lines = self.lines
        lo, hi = max(0, la - 1), min(len(lines), lb + 2)
        before = sum(len(x) for x in lines[lo:la])
        start = before + ca
        end = before + sum(len(x) for x in lines[la:lb]) + cb
        segment = "".join(lines[lo:hi])
        segment = segment[:start] + change.text + segment[end:]
        new = split_lines(segment)
        if hi < len(lines):          # the segment ends with a line break: no partial last line
            new.pop()
        lines[lo:hi] = new
        self._text = None


class Documents:
    """The open documents by URI.  Generations are unique over all documents
    and their reopenings, so a result can never be taken for another text's."""

    def __init__(self, encoding: str = UTF16):
        self.encoding = encoding
        self._docs: dict[str, Document] = {}
        self._generations = itertools.count(1)

    def open(self, uri: str, text: str, version: int | None) -> Document:
        doc = Document(uri, text, version, self.encoding)
        doc.generation = next(self._generations)
        self._docs[uri] = doc
        return doc

    def change(self, uri: str, version: int | None,
               changes: list[lsp.TextDocumentContentChangeEvent]) -> Document | None:
        doc = self._docs.get(uri)
        if doc is None:
            return None
        for change in changes:
            doc.apply(change)
        doc.version = version
        doc.generation = next(self._generations)
        return doc

    def close(self, uri: str) -> Document | None:
        return self._docs.pop(uri, None)

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)
