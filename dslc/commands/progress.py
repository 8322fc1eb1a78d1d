"""Progress of long work on the terminal: rich on stderr, silent when stderr
is not a terminal or with ``--quiet`` (so pipes, CI logs and golden files never
see it)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from collections.abc import Callable, Iterator

DELAY = 0.5       # seconds before anything is shown: short runs stay silent


@contextmanager
def progress_display(enabled: bool = True, what: str = "working",
                     total: int | None = None) -> Iterator[Callable[..., None]]:
    """Yields ``show(text, advance=0)``; draws a status line (and a bar when
    ``total`` is known) on stderr while the block runs.  Rich is imported by
    the timer, so a run shorter than :data:`DELAY` never loads it."""
    if not enabled or not sys.stderr.isatty():
        yield lambda *a, **k: None
        return
    import threading

    lock = threading.Lock()
    state = {"progress": None, "task": None, "description": what, "completed": 0, "stopped": False,
             "total": total}

    def start() -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        columns = [SpinnerColumn(), TextColumn("{task.description}")]
        if total is not None:
            columns += [BarColumn(), TextColumn("{task.completed}/{task.total}")]
        columns.append(TimeElapsedColumn())
        progress = Progress(*columns, console=Console(file=sys.stderr), transient=True)
        with lock:
            if state["stopped"]:
                return
            state["task"] = progress.add_task(state["description"], total=state["total"],
                                              completed=state["completed"])
            state["progress"] = progress
            progress.start()

    timer = threading.Timer(DELAY, start)      # short runs never draw anything
    timer.daemon = True
    timer.start()

    def show(text: str | None = None, advance: int = 0, completed: int | None = None) -> None:
        """``completed`` sets the count instead of advancing it (a bar's
        total must be given to ``progress_display``)."""
        with lock:
            if text is not None:
                state["description"] = f"{what} {text}"
            if completed is not None:
                advance = completed - state["completed"]
            state["completed"] += advance
            progress = state["progress"]
            if progress is not None:
                if text is not None:
                    progress.update(state["task"], description=state["description"])
                if advance:
                    progress.advance(state["task"], advance)

    try:
        yield show
    finally:
        timer.cancel()
        timer.join()
        with lock:
            state["stopped"] = True
            if state["progress"] is not None:
                state["progress"].stop()
