"""The resource policy: input limits and the time budget of every command.

One policy for every command (docs/cli.md, "Limits"):

- inputs are regular files (or `-` for standard input) of at most
  :data:`MAX_FILE_BYTES`; FIFOs, devices and sockets are refused;
- a message to the language server has at most :data:`MAX_MESSAGE_BYTES`
  bytes (twice the largest file, room for its escapes in JSON);
- a number literal has at most :data:`MAX_NUMBER_DIGITS` digits, an exact
  value computed from the source at most :data:`MAX_EXACT_BITS` bits in its
  numerator and denominator, an expression at most :data:`MAX_TERMS`
  operators; braces nest at most :data:`MAX_NESTING` deep;
- every long loop calls :func:`checkpoint` (or :meth:`Deadline.check`), which
  raises :class:`Cancelled` once the time budget (``--timeout``) is spent or
  the caller cancelled (the language server cancels checks of stale text).

The budget is carried in a context variable, so deep code reaches it without
threading a parameter through every call: :func:`scope` installs one for the
duration of a block's check, :func:`current` reads it.  Each thread (the
language server checks on worker threads) has its own.
"""

from __future__ import annotations

import math
import time
from contextlib import contextmanager
from contextvars import ContextVar
from collections.abc import Callable, Iterator

MAX_FILE_BYTES = 256 * 2**20          # a 10^6-state automaton is about 134 MB
MAX_MESSAGE_BYTES = 2 * MAX_FILE_BYTES   # one language server message: room for the largest file as a JSON string
MAX_NUMBER_DIGITS = 1_000             # digits in one number literal
MAX_EXACT_BITS = 40_000               # bits of a numerator or denominator computed from the source
MAX_TERMS = 200_000                   # operators in one expression
MAX_NESTING = 200                     # braces inside one block
DEFAULT_TIMEOUT = 60.0                # seconds per block, unless --timeout says otherwise


class Cancelled(Exception):
    """The time budget is spent (``reason == "timeout"``) or the caller cancelled."""

    def __init__(self, reason: str = "timeout", seconds: float | None = None):
        super().__init__(reason)
        self.reason = reason
        self.seconds = seconds


class Deadline:
    """A time budget: ``seconds`` from now (None: unbounded) and an optional
    ``cancelled()`` callback polled at every check."""

    __slots__ = ("seconds", "start", "expires", "cancelled")

    def __init__(self, seconds: float | None = None, cancelled: Callable[[], bool] | None = None):
        if seconds is not None and not (seconds > 0 and math.isfinite(seconds)):
            raise ValueError(f"a time limit must be positive and finite, not {seconds!r}")
        self.seconds = seconds
        self.start = time.monotonic()
        self.expires = None if seconds is None else self.start + seconds
        self.cancelled = cancelled

    def expired(self) -> bool:
        return self.expires is not None and time.monotonic() >= self.expires

    def check(self) -> None:
        """Raise :class:`Cancelled` if the budget is spent or the caller cancelled."""
        if self.expires is not None and time.monotonic() >= self.expires:
            raise Cancelled("timeout", self.seconds)
        if self.cancelled is not None and self.cancelled():
            raise Cancelled("cancelled")

    def remaining(self) -> float | None:
        """Seconds left (never below 0), or None when unbounded."""
        if self.expires is None:
            return None
        return max(0.0, self.expires - time.monotonic())

    def remaining_ms(self, cap: float | None = None) -> int:
        """Milliseconds left for a solver's own time-out (at least 1)."""
        left = self.remaining()
        if left is None:
            left = cap if cap is not None else 10**7
        elif cap is not None:
            left = min(left, cap)
        return max(1, int(left * 1000))

    def elapsed(self) -> float:
        return time.monotonic() - self.start


UNBOUNDED = Deadline()
_current: ContextVar[Deadline] = ContextVar("dslc_deadline", default=UNBOUNDED)


def current() -> Deadline:
    """The budget of the work in progress (unbounded outside any :func:`scope`)."""
    return _current.get()


def checkpoint() -> None:
    """Raise :class:`Cancelled` if the current budget is spent or cancelled."""
    _current.get().check()


@contextmanager
def scope(deadline: Deadline) -> Iterator[Deadline]:
    """Make ``deadline`` the current budget inside the ``with`` block."""
    token = _current.set(deadline)
    try:
        yield deadline
    finally:
        _current.reset(token)


def parse_timeout(text: str | float | None) -> float:
    """A ``--timeout`` value: a positive, finite number of seconds."""
    if text is None:
        return DEFAULT_TIMEOUT
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError(f"--timeout `{text}` is not a number of seconds") from None
    if not (value > 0 and math.isfinite(value)):
        raise ValueError(f"--timeout must be a positive, finite number of seconds, not `{text}`")
    return value


class InputError(OSError):
    """An input that the policy refuses (not a regular file, too large, unreadable)."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.message = message
        self.help = help


def read_input(path: str, max_bytes: int = MAX_FILE_BYTES, what: str = "file") -> bytes:
    """The bytes of ``path`` under the input policy: `-` is standard input;
    anything else must be a regular file of at most ``max_bytes`` (FIFOs,
    devices, sockets and folders are refused without being opened for
    reading, so `/dev/zero` or a FIFO never blocks or fills memory)."""
    import os
    import stat
    import sys

    if path == "-":
        try:
            data = _read_bounded(sys.stdin.buffer, max_bytes, 0)
        except (OSError, ValueError, AttributeError) as exc:   # closed, unreadable or no standard input
            raise InputError(f"cannot read standard input: {exc}") from None
        if data is None:
            raise InputError(f"standard input has more than {max_bytes} bytes; the limit is {max_bytes}",
                             "inputs are limited in size; split the input or raise the limit")
        return data
    if "\x00" in path:
        raise InputError(f"the {what} name {path!r} contains a NUL character", "check the path")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"no such {what}: {path}", "check the path") from None
    except PermissionError:
        raise InputError(f"permission denied: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(path)
    if not stat.S_ISREG(st.st_mode):
        kind = ("a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode)
                or stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise InputError(f"{path} is {kind}, not a regular {what}",
                         "give a regular file, or `-` to read standard input")
    if st.st_size > max_bytes:
        raise InputError(f"{path} has {st.st_size} bytes; the limit is {max_bytes}",
                         "split the input into smaller files")
    try:
        # O_NONBLOCK: if the file was swapped for a FIFO after stat, open does not hang
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except PermissionError:
        raise InputError(f"permission denied: {path}") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise InputError(f"{path} is not a regular {what}", "give a regular file, or `-`")
        try:
            data = _read_bounded(f, max_bytes, st.st_size)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data is None:
        raise InputError(f"{path} has more than {max_bytes} bytes; the limit is {max_bytes}",
                         "split the input into smaller files")
    return data


READ_CHUNK = 1 << 20                  # bytes read at a time past a file's announced size


def _read_bounded(stream, max_bytes: int, size_hint: int) -> bytes | None:
    """The bytes of ``stream`` up to its end, or None once they pass
    ``max_bytes``.  Memory is taken as the bytes arrive: first the size the
    file announced (``size_hint``, 0 for a pipe), then :data:`READ_CHUNK` at
    a time, never ``max_bytes`` up front (under `ulimit -v` a small file
    must not fail for a limit it is far from)."""
    first = stream.read(min(size_hint, max_bytes) + 1)
    parts = [first]
    total = len(first)
    while first and total <= max_bytes:
        chunk = stream.read(min(READ_CHUNK, max_bytes + 1 - total))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    if total > max_bytes:
        return None
    return b"".join(parts)
