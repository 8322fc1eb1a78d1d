"""Text output without colour is written without rich (start-up, issue 14):
the plain rendering has exactly the characters rich's console prints."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from dslc.commands.check import console, styled
from dslc.diagnostics.render.text import render_results
from dslc.pipeline import Options, check_paths

ROOT = Path(__file__).resolve().parent.parent
INPUTS = (sorted((ROOT / "examples").glob("*.dp")) + sorted((ROOT / "tests" / "golden").glob("*.dp"))
          + sorted((ROOT / "tests" / "golden" / "codes").glob("*.dp")))


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_plain_text_is_what_rich_prints(path):
    files = check_paths([str(path)], Options(explain=True, witness=path.parent.name == "golden",
                                             lower_bound_work=0))
    for explain in (False, True):
        buffer = io.StringIO()
        console("never", buffer).print(render_results(files, explain=explain), end="")
        assert render_results(files, explain=explain, styled=False).plain == buffer.getvalue()


def test_colour_only_on_terminals(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True
    for name in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    assert styled("auto", Tty()) and not styled("auto", io.StringIO())
    assert styled("always", io.StringIO()) and not styled("never", Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not styled("auto", Tty())
