"""Ctrl-C during a Pufferfish check.

Python raises KeyboardInterrupt wherever the main thread happens to be when
SIGINT arrives.  While a query is built that is often inside a finalizer of
z3's Python objects (``AstRef.__del__``), where the exception is printed as
"Exception ignored in ..." and dropped — the check would carry on.  So while
a check runs, SIGINT only sets a flag, and :func:`checkpoint` (called in every
long loop of dslc.bounded, next to the time budget) raises KeyboardInterrupt
at the next safe point.  During ``solver.check()`` z3 installs its own
handler and answers "unknown (interrupted from keyboard)", which
:func:`dslc.bounded.smt.solver_gave_up` turns into KeyboardInterrupt too.
The CLI maps KeyboardInterrupt to exit status 130.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator

from dslc import limits

_interrupted = False


def checkpoint() -> None:
    """Raise KeyboardInterrupt after Ctrl-C, Cancelled when the time budget is spent."""
    if _interrupted:
        raise KeyboardInterrupt
    limits.checkpoint()


def _handler(signum, frame) -> None:
    global _interrupted
    _interrupted = True


@contextmanager
def deferred_sigint() -> Iterator[None]:
    """Within the block, SIGINT is noted and raised at the next :func:`checkpoint`
    (or at the end of the block).  Only in the main thread, and only when
    SIGINT has Python's default handler (nothing else relies on it)."""
    global _interrupted
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler):
        yield
        return
    _interrupted = False
    signal.signal(signal.SIGINT, _handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        if _interrupted:
            _interrupted = False
            raise KeyboardInterrupt
