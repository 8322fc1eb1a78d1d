"""Source files and spans.

A :class:`Span` is a pair of character offsets into a :class:`SourceFile`.
Line and column numbers are computed on demand (1-based, columns counted in
Unicode code points); the language server converts to UTF-16 itself.
"""

from __future__ import annotations

import bisect
from array import array
from functools import cached_property
from pathlib import Path
from typing import NamedTuple


class SourceFile:
    """The text of one input file and its line table.

    CR, LF and CRLF all end a line: the text is kept with every line end
    written as LF (a CRLF loses its CR, a lone CR becomes LF).  That moves no
    character to another line or column, so positions are the same as in the
    file the user sees — in the terminal and in the editor, whose language
    server splits lines the same way."""

    def __init__(self, path: str, text: str):
        self.path = path
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.text = text

    @classmethod
    def from_path(cls, path: str | Path) -> "SourceFile":
        """Read a file as UTF-8. Raises OSError / UnicodeDecodeError."""
        data = Path(path).read_bytes()
        return cls.from_bytes(str(path), data)

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> "SourceFile":
        if b"\x00" in data:
            raise UnicodeDecodeError("utf-8", data, data.index(b"\x00"),
                                     data.index(b"\x00") + 1, "NUL byte in text")
        text = data.decode("utf-8")
        if text.startswith("\ufeff"):
            text = text[1:]
        return cls(path, text)

    @cached_property
    def line_starts(self) -> list[int] | array:
        """0 and the offset after every line end (an array in C when dslc._native is built)."""
        if len(self.text) > self._LAZY_LINES:
            from dslc.native import module as _native
            if _native is not None:
                starts = array("q")
                starts.frombytes(_native.line_starts(self.text))
                return starts
        starts = [0]
        find = self.text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        return starts

    # Large texts (a generated automaton of a million lines) are not split into
    # lines to print one location: a count of line ends per block of text
    # (str.count, at memory speed) locates any line or offset.
    _LAZY_LINES = 1 << 20        # texts longer than this use the block counts
    _BLOCK = 1 << 16

    @cached_property
    def _newlines_before(self) -> list[int]:
        """Line ends in text[:b * _BLOCK], for every block b (and one past the end)."""
        text, size = self.text, self._BLOCK
        out = [0]
        total = 0
        count = text.count
        for i in range(0, len(text), size):
            total += count("\n", i, i + size)
            out.append(total)
        return out

    # A lookup in the block counts scans at most one block (about 10 µs); the
    # full table scans the whole text (about 0.25 s per 10^6 lines).  It is
    # built once the lookups have cost about as much as building it would: a
    # text renderer's few hundred lookups never build it for a 10^7-line file.
    _LAZY_LOOKUPS = 64           # the least number of lookups before the table is built

    def _lazy(self) -> bool:
        if len(self.text) <= self._LAZY_LINES or "line_starts" in self.__dict__:
            return False
        self._lookups = getattr(self, "_lookups", 0) + 1
        if self._lookups > max(self._LAZY_LOOKUPS, len(self.text) >> 15):
            self.line_starts                     # many locations (--explain, JSON): build the table
            return False
        return True

    def _line_start(self, line: int) -> int:
        """Offset of 1-based line ``line`` (which exists), from the block counts."""
        if line <= 1:
            return 0
        before = self._newlines_before
        want = line - 1                          # the line starts after this many line ends
        b = bisect.bisect_left(before, want) - 1
        pos = b * self._BLOCK
        find = self.text.find
        for _ in range(want - before[b]):
            pos = find("\n", pos) + 1
        return pos

    def line_count(self) -> int:
        return self._newlines_before[-1] + 1 if self._lazy() else len(self.line_starts)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        offset = max(0, min(offset, len(self.text)))
        if self._lazy():
            b = offset // self._BLOCK
            line = self._newlines_before[b] + self.text.count("\n", b * self._BLOCK, offset)
            return line + 1, offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        line = bisect.bisect_right(self.line_starts, offset) - 1
        return line + 1, offset - self.line_starts[line] + 1

    def offset(self, line: int, column: int) -> int:
        """Character offset of a 1-based (line, column)."""
        if self._lazy():
            line = max(1, min(line, self.line_count()))
            return min(self._line_start(line) + column - 1, len(self.text))
        starts = self.line_starts
        line = max(1, min(line, len(starts)))
        return min(starts[line - 1] + column - 1, len(self.text))

    def line_text(self, line: int) -> str:
        if self._lazy():
            if line < 1 or line > self.line_count():
                return ""
            start = self._line_start(line)
            end = self.text.find("\n", start)
            return self.text[start:end if end >= 0 else len(self.text)]
        starts = self.line_starts
        if line < 1 or line > len(starts):
            return ""
        start = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(self.text)
        return self.text[start:end]

    def span(self, start: int, end: int) -> "Span":
        return Span(self, start, end)

    def whole(self) -> "Span":
        return Span(self, 0, 0)

    def __repr__(self) -> str:
        return f"SourceFile({self.path!r})"


class Span(NamedTuple):
    """Offsets ``[start, end)`` into a source file.

    A named tuple rather than a dataclass: large automata create millions of
    spans, and a tuple is several times cheaper to build.
    """

    file: SourceFile
    start: int
    end: int

    @property
    def path(self) -> str:
        return self.file.path

    @property
    def start_line_col(self) -> tuple[int, int]:
        return self.file.line_col(self.start)

    @property
    def end_line_col(self) -> tuple[int, int]:
        return self.file.line_col(self.end)

    @property
    def text(self) -> str:
        return self.file.text[self.start:self.end]

    def to(self, other: "Span") -> "Span":
        """The smallest span covering both."""
        return Span(self.file, min(self.start, other.start), max(self.end, other.end))

    def to_dict(self) -> dict:
        line, col = self.start_line_col
        end_line, end_col = self.end_line_col
        return {"line": line, "column": col, "end_line": end_line, "end_column": end_col}

    def __str__(self) -> str:
        line, col = self.start_line_col
        return f"{self.path}:{line}:{col}"

    def __repr__(self) -> str:
        return f"Span({self.start}, {self.end})"


def display_path(path: str) -> str:
    """``path`` relative to the working folder when it is under it (as ruff
    prints paths), else as it is."""
    import os
    try:
        rel = os.path.relpath(path)
    except ValueError:               # another drive (Windows)
        return path
    return path if rel.startswith("..") else rel
