"""Open documents: their text, version and incremental edits.

The server owns its copy of each open document; pygls' workspace never sees
the text (the server replaces pygls' built-in text synchronisation, see
``dslc/lsp/server.py``).  The change events of ``textDocument/didChange`` are
read here, from the JSON values of the message (:func:`parse_did_change`),
into immutable :class:`Change` values, so nothing between the wire and
:meth:`Document.apply` can alter a position.  Lines follow the protocol:
they end at ``\\n``, ``\\r\\n`` or ``\\r`` only (a form feed, U+0085, U+2028
are characters of their line); columns count code units of the negotiated
encoding (UTF-16 by default); a column past the end of its line means the end
of the line, a line past the last line the end of the document.

A document is a list of lines (each with its line break); an edit re-splits
only the lines it touches (and one neighbour on each side, where a ``\\r`` and
a ``\\n`` could join), so a keystroke in a 5 MB document costs microseconds
plus one list splice.  The whole text is joined once per check, not per
keystroke.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlparse

from dslc.diagnostics.render.lsp import UTF16, column_to_index

_BREAK = re.compile(r"\r\n?|\n")

UINTEGER = 2**31 - 1                 # the protocol's `uinteger` (lines, columns)
INTEGER = (-2**31, 2**31 - 1)        # its `integer` (versions)


@dataclass(frozen=True, slots=True)
class Change:
    """One content change: ``text`` replaces the range from ``start`` to
    ``end`` (protocol positions, ``(line, character)``), or the whole document
    when ``start`` is None."""
    text: str
    start: tuple[int, int] | None = None
    end: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class DidChange:
    """The params of ``textDocument/didChange``, as the server applies them."""
    uri: str
    version: int
    changes: tuple[Change, ...]


class InvalidChange(ValueError):
    """didChange params that do not fit the protocol; the message names the field."""


def _get(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict):
        raise InvalidChange(f"{where} should be an object, but was {_kind(obj)}")
    if key not in obj:
        raise InvalidChange(f"{where}.{key} is missing")
    return obj[key]


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _integer(value: Any, low: int, high: int, where: str) -> int:
    if type(value) is not int or not low <= value <= high:
        shown = repr(value) if isinstance(value, (int, float)) else _kind(value)
        raise InvalidChange(f"{where} should be an integer in [{low}:{high}], but was {shown}")
    return value


def _position(obj: Any, where: str) -> tuple[int, int]:
    return (_integer(_get(obj, "line", where), 0, UINTEGER, f"{where}.line"),
            _integer(_get(obj, "character", where), 0, UINTEGER, f"{where}.character"))


def parse_change(event: Any, where: str = "$") -> Change:
    """One ``TextDocumentContentChangeEvent``: ``{"range": …, "text": …}``
    (``rangeLength``, deprecated, is ignored) or ``{"text": …}``."""
    text = _get(event, "text", where)
    if not isinstance(text, str):
        raise InvalidChange(f"{where}.text should be a string, but was {_kind(text)}")
    if "range" not in event:
        return Change(text)
    rng = event["range"]
    return Change(text, _position(_get(rng, "start", f"{where}.range"), f"{where}.range.start"),
                  _position(_get(rng, "end", f"{where}.range"), f"{where}.range.end"))


def parse_did_change(params: Any) -> DidChange:
    """The params of ``textDocument/didChange`` read from their JSON values;
    :class:`InvalidChange` names the first field that does not fit."""
    doc = _get(params, "textDocument", "$.params")
    uri = _get(doc, "uri", "$.params.textDocument")
    if not isinstance(uri, str):
        raise InvalidChange(f"$.params.textDocument.uri should be a string, but was {_kind(uri)}")
    version = _integer(_get(doc, "version", "$.params.textDocument"), *INTEGER, "$.params.textDocument.version")
    events = _get(params, "contentChanges", "$.params")
    if not isinstance(events, list):
        raise InvalidChange(f"$.params.contentChanges should be an array, but was {_kind(events)}")
    return DidChange(uri, version, tuple(parse_change(e, f"$.params.contentChanges[{i}]")
                                         for i, e in enumerate(events)))


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

    def _locate(self, pos: tuple[int, int]) -> tuple[int, int]:
        """(line index, index in that line) of a protocol position, clamped:
        past the end of its line is the end of the line, past the last line
        the end of the document; a column inside a character (half of a
        surrogate pair) is the start of that character."""
        line, character = pos
        last = len(self.lines) - 1
        if line > last:
            return last, len(_content(self.lines[last]))
        line = max(0, line)
        return line, column_to_index(_content(self.lines[line]), character, self.encoding)

    def apply(self, change: Change) -> None:
        """Apply one content change (a ranged edit, or the whole text).  A
        range whose end comes before its start is taken in text order."""
        if change.start is None or change.end is None:
            self.lines = split_lines(change.text)
            self._text = change.text
            return
        (la, ca), (lb, cb) = sorted((self._locate(change.start), self._locate(change.end)))
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

    def change(self, uri: str, version: int | None, changes: tuple[Change, ...] | list[Change]) -> Document | None:
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

    def items(self) -> list[tuple[str, Document]]:
        return list(self._docs.items())
