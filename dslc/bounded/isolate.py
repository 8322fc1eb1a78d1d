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
    pid = os.fork()
    if pid == 0:                                   # the child: solve, answer, exit at once
        try:
            os.close(read_fd)
            signal.signal(signal.SIGINT, signal.SIG_IGN)   # the parent decides; it kills us
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


def _index(m: z3.ModelRef, var) -> int:
    from dslc.bounded.smt import z3_approx
    return int(z3_approx(m.eval(var, model_completion=True)))
