"""The base protocol's message framing, read from a byte stream (stdin).

Every message is a header part and a JSON body::

    Content-Length: 52\\r\\n
    \\r\\n
    {"jsonrpc": "2.0", ...}

:class:`Framer` reads messages one at a time and never lets bad framing end
the server or fill its memory:

- header names are case-insensitive (``content-length`` is
  ``Content-Length``); headers other than ``Content-Length`` (such as
  ``Content-Type``) are ignored; lines may end with ``\\r\\n`` or ``\\n``;
- a header line longer than :data:`MAX_HEADER_LINE` bytes, a line that is not
  a header, a ``Content-Length`` that is not a decimal number, is above
  :data:`~dslc.limits.MAX_MESSAGE_BYTES`, or disagrees with an earlier one,
  and a header part without ``Content-Length``, are framing errors: the
  message is dropped (its body is not read, since its length is not
  trustworthy) and the framer resynchronises on the next line that holds a
  ``Content-Length`` header.  A body that is then read as header lines is
  skipped as one run of unreadable bytes; if the next message's header is
  glued to its end (a body has no line break of its own), the header is
  found there;
- a body is read in pieces, so memory grows with the bytes that arrive, not
  with the length a header claims.

:meth:`Framer.next` returns, in the order of the stream, the next body
(bytes), a :class:`Problem` (one per framing error, to be logged), or None at
the end of the stream.  Whether a body is JSON, and what to answer, is the
protocol's business (``dslc/lsp/server.py``).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import BinaryIO

from dslc.limits import MAX_MESSAGE_BYTES

MAX_HEADER_LINE = 8192          # bytes in one header line (a Content-Length line has about 25)
CHUNK = 1 << 20                 # bytes read at a time for a body or a line being skipped

_HEADER = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*")
_LENGTH = re.compile(rb"content-length:", re.IGNORECASE)
_DIGITS = re.compile(rb"[0-9]{1,20}")


@dataclass(frozen=True, slots=True)
class Problem:
    """A framing error: what was wrong, in one sentence."""
    text: str


def _show(data: bytes, limit: int = 40) -> str:
    text = data[:limit].decode("ascii", "backslashreplace")
    return repr(text + ("…" if len(data) > limit else ""))


class Framer:
    def __init__(self, stream: BinaryIO, max_body: int = MAX_MESSAGE_BYTES,
                 max_line: int = MAX_HEADER_LINE):
        self.stream = stream
        self.max_body = max_body
        self.max_line = max_line
        self._events: deque[bytes | bytearray | Problem] = deque()
        self._pending: bytes | None = None      # a header found glued to the end of skipped bytes
        self._skipped = 0                       # bytes of lines read that belong to no message
        self._ended = False

    def next(self) -> bytes | bytearray | Problem | None:
        """The next message body, framing error, or None at the end of the stream."""
        while not self._events and not self._ended:
            self._read()
        return self._events.popleft() if self._events else None

    # ------------------------------------------------------------------ lines
    def _line(self) -> tuple[bytes, int, int] | None:
        """The next line without its break, how many bytes of it were dropped
        (a line longer than ``max_line`` keeps only its last ``max_line``
        bytes, where a header glued to a body would be), and how many bytes
        it took in the stream.  None at the end of the stream."""
        if self._pending is not None:
            line, self._pending = self._pending, None
            return line, 0, 0                   # its bytes were counted with the line it came from
        data = self.stream.readline(self.max_line)
        if not data:
            return None
        size, dropped = len(data), 0
        if not data.endswith(b"\n") and len(data) >= self.max_line:
            while True:             # skip the rest of an overlong line, keeping its tail
                more = self.stream.readline(CHUNK)
                size += len(more)
                data += more
                done = not more or more.endswith(b"\n")
                if done or len(data) > 2 * self.max_line:
                    cut = max(1, len(data) - self.max_line)
                    dropped += cut
                    data = data[cut:]
                if done:
                    break
        if data.endswith(b"\n"):
            data = data[:-2] if data.endswith(b"\r\n") else data[:-1]
        return data, dropped, size

    def _report_skipped(self) -> None:
        if self._skipped:
            self._events.append(Problem(f"skipped {self._skipped} bytes that are no message"))
            self._skipped = 0

    # --------------------------------------------------------------- messages
    def _read(self) -> None:
        """Read one header part and, if it can be trusted, its body; append
        what was found (problems, the body) to the events."""
        length: int | None = None
        bad: str | None = None          # why this message's length cannot be trusted
        headers = 0
        while True:
            got = self._line()
            if got is None:
                self._ended = True
                self._report_skipped()
                if headers:
                    self._events.append(Problem("the connection ended inside a message header"))
                return
            line, dropped, size = got
            if not line and not dropped:
                if headers:
                    break               # the end of a header part
                self._report_skipped()
                continue                # blank lines between messages
            m = None if dropped else _HEADER.fullmatch(line)
            if m is None or m[1].lower() != b"content-length":
                # A body that was not read ends without a line break, so the
                # next message's header may be glued to it (to what is no
                # header, or to what reads as a header's name: `x}` or `!x`).
                at = [k.start() for k in _LENGTH.finditer(line, 0, len(line) if m is None else m.end(1) + 1)]
                if at and _HEADER.fullmatch(line, at[-1]):
                    self._pending = line[at[-1]:]
                    self._skipped += dropped + at[-1]
                    if headers:
                        self._events.append(Problem("dropped a message whose header was cut off "
                                                    "by another message's header"))
                        return
                    continue
            if m is None:
                if headers:
                    bad = bad or f"a header line that is no `Name: value` header ({_show(line)})"
                else:
                    self._skipped += size
                continue
            if not headers:
                self._report_skipped()
            headers += 1
            if m[1].lower() != b"content-length":
                continue                # Content-Type: only UTF-8 is defined; nothing to do
            value = m[2]
            if not _DIGITS.fullmatch(value):
                bad = bad or f"Content-Length {_show(value)} is not a number of bytes"
                continue
            n = int(value)
            if length is not None and n != length:
                bad = bad or f"two different Content-Length headers ({length} and {n})"
            elif n > self.max_body:
                bad = bad or (f"Content-Length {n} is above the limit of {self.max_body} bytes "
                              f"({self.max_body / 2**20:g} MiB)")
            length = n
        if bad is None and length is None:
            bad = "a message header without Content-Length"
        if bad is not None:
            self._events.append(Problem(f"dropped a message: {bad}"))
            return
        self._body(length)

    def _body(self, length: int) -> None:
        """``length`` bytes, read in pieces, as one event."""
        buf = bytearray()
        got = 0                         # bytes taken from the stream (a piece may not reach buf)
        try:
            while got < length:
                piece = self.stream.read(min(CHUNK, length - got))
                if not piece:
                    self._ended = True
                    self._events.append(Problem(f"the connection ended inside a message "
                                                f"({got} of {length} bytes)"))
                    return
                got += len(piece)
                buf += piece
        except MemoryError:
            buf = piece = None
            while got < length:         # skip the rest in small pieces
                piece = self.stream.read(min(1 << 16, length - got))
                if not piece:
                    self._ended = True
                    break
                got += len(piece)
            self._events.append(Problem(f"dropped a message of {length} bytes: "
                                        "there is not enough memory to read it"))
            return
        self._events.append(buf)
