"""Solving a large SMT query in a child process that can be stopped.

z3 honours its `timeout` (and `Z3_interrupt`) only at certain points: on
some large linear queries it keeps working for minutes past the limit — the
time-out of a 200-state hmm at k = 12 and 2 s came after 150 s.  A query
above :data:`ISOLATE_TERMS` terms is therefore checked in a forked child
(the built solver is inherited, nothing is serialised): the parent waits at
most until the time budget is spent, checking for Ctrl-C every 50 ms, and
kills the child if it has not answered.  The child reports sat/unsat/unknown
and, for sat, the observation and action indices of the model (all the
parent needs to re-check the witness exactly; with symbolic parameters the
parent fixes those indices and asks its own solver for the parameters).

Only where `os.fork` exists and in the main thread; elsewhere (and for small
queries) the solver runs in-process as before.
"""

from __future__ import annotations

import json
import os
import select
import signal
import threading
import time

import z3

from dslc.bounded.interrupt import checkpoint

ISOLATE_TERMS = 5_000          # queries above this many terms are solved in a child process
POLL = 0.05                    # seconds between checks for Ctrl-C and the time budget


def available() -> bool:
    return hasattr(os, "fork") and threading.current_thread() is threading.main_thread()


class Gave(Exception):
    """The child did not answer before ``deadline`` (the caller's own limit)."""


def check(solver: z3.Solver, w_vars: list, a_vars: list, deadline: float) -> tuple[object, str, tuple | None]:
    """``solver.check()`` in a child: (z3.sat | z3.unsat | z3.unknown, reason,
    (w, a) for sat).  Raises KeyboardInterrupt / limits.Cancelled (through
    :func:`checkpoint`) and :class:`Gave` past ``deadline`` (perf_counter);
    the child is killed in every such case."""
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:                                   # the child: solve, answer, exit at once
        try:
            os.close(read_fd)
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent decides; it kills us
            for sig in _PASSED_ON:
                signal.signal(sig, signal.SIG_DFL)
            _die_with(parent)
            _let_go_of_streams(write_fd)
            r = solver.check()
            out: dict = {"r": str(r)}
            if r == z3.sat:
                m = solver.model()
                out["w"] = [_index(m, v) for v in w_vars]
                out["a"] = [_index(m, v) for v in a_vars]
            elif r == z3.unknown:
                out["reason"] = solver.reason_unknown()
            os.write(write_fd, json.dumps(out).encode() + b"\n")
        except BaseException:                      # noqa: BLE001 - report, never run the parent's code
            try:
                os.write(write_fd, b'{"r": "unknown", "reason": "the solver process failed"}\n')
            except OSError:
                pass
        os._exit(0)
    os.close(write_fd)
    data = b""
    done = False
    previous = _kill_on_termination(pid)
    try:
        while True:
            checkpoint()                            # Ctrl-C and the block's budget
            if time.perf_counter() > deadline:
                raise Gave()
            ready, _, _ = select.select([read_fd], [], [], POLL)
            if ready:
                chunk = os.read(read_fd, 65536)
                if not chunk:
                    break
                data += chunk
                if data.endswith(b"\n"):
                    break
        done = True
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        os.close(read_fd)
        if not done:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    try:
        out = json.loads(data.decode() or "{}")
    except ValueError:
        out = {}
    r = {"sat": z3.sat, "unsat": z3.unsat}.get(out.get("r"), z3.unknown)
    witness = (out.get("w", []), out.get("a", [])) if r == z3.sat else None
    return r, out.get("reason", "the solver process failed" if not out else ""), witness


# Signals that end the parent: while a child solves, the parent kills it
# first and then lets the signal take its usual course.
_PASSED_ON = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
_PR_SET_PDEATHSIG = 1


def _kill_on_termination(pid: int) -> dict:
    """While the parent waits: SIGTERM or SIGHUP kill the child, then reach the
    parent's own handler (by default: the parent dies of the signal, exit
    status 128 + n).  Returns the handlers to restore."""
    previous = {}

    def handler(signum, frame):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        signal.signal(signum, previous.pop(signum, signal.SIG_DFL))
        os.kill(os.getpid(), signum)        # delivered again, to the handler the parent had

    for sig in _PASSED_ON:
        old = signal.getsignal(sig)
        if old is signal.SIG_IGN or old is None:   # ignored, or set outside Python: left alone
            continue
        previous[sig] = old
        signal.signal(sig, handler)
    return previous


def _die_with(parent: int) -> None:
    """In the child: the kernel sends SIGKILL when the parent dies, whatever
    kills it (Linux's PR_SET_PDEATHSIG; elsewhere the parent's handlers above
    are the only guard).  A parent already gone before that: exit now."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError, ImportError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def _let_go_of_streams(keep: int) -> None:
    """In the child: standard input, output and error become /dev/null, so a
    child never holds the caller's pipes open (a caller reading dslc's output
    to its end must not wait for a solver it no longer needs)."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        if fd != keep and fd != null:
            try:
                os.dup2(null, fd)
            except OSError:
                pass
    if null > 2 and null != keep:
        os.close(null)


def _index(m: z3.ModelRef, var) -> int:
    from dslc.bounded.smt import z3_approx
    return int(z3_approx(m.eval(var, model_completion=True)))
