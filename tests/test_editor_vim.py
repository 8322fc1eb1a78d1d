"""Vim's quickfix list from `:make` with editors/vim (compiler dslc:
`dslc check --format gcc %`, errorformat with %v), in real Vim (ex mode,
no user configuration), against the CLI's lines and columns."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.editor_support import ROOT, cli_diagnostics, editor_env

VIM = shutil.which("vim")


@pytest.mark.skipif(VIM is None, reason="no Vim on PATH (apt-get install vim)")
def test_make_fills_the_quickfix_list_at_the_clis_positions(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    # a tab before the leak: gcc's columns are display columns, read with %v
    text = (ROOT / "examples" / "sorted_desc.dp").read_text(encoding="utf-8").replace(
        "        if s < x {", "\tif s < x {")
    leaky = work / "leaky.dp"
    leaky.write_text(text, encoding="utf-8")
    out = tmp_path / "qf.txt"
    env = editor_env(tmp_path / "home")
    script = [
        f"set runtimepath^={ROOT / 'editors' / 'vim'}",
        "filetype plugin on",
        "edit leaky.dp",
        "silent make",
        "let lines = map(getqflist(), 'v:val.lnum . \":\" . v:val.col . \":\" . v:val.vcol . \":\" . v:val.type . \":\" . v:val.text')",
        f"call writefile([&filetype, &makeprg] + lines, '{out}')",
        "qall!",
    ]
    run = subprocess.run([VIM, "-N", "-u", "NONE", "-i", "NONE", "-n", "-es", *[a for s in script for a in ("-c", s)]],
                         cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert out.exists(), f"vim exit {run.returncode}: {run.stdout} {run.stderr}"
    filetype, makeprg, *entries = out.read_text(encoding="utf-8").splitlines()
    assert filetype == "dp" and makeprg.startswith("dslc check --format gcc")
    expected = cli_diagnostics(leaky)
    lines = text.split("\n")
    got = []
    for entry in entries:
        lnum, col, vcol, kind, message = entry.split(":", 4)
        assert vcol == "1"                     # the column is a screen column (%v)
        # the screen column of the CLI's character column
        line = lines[int(lnum) - 1]
        screen = int(col)
        chars = next(i for i in range(len(line) + 1)
                     if len(line[:i].expandtabs(8)) + 1 >= screen)
        got.append((int(lnum), chars + 1, kind, message))
    assert [(g[0], g[1]) for g in got] == [(d["span"]["line"], d["span"]["column"]) for d in expected]
    assert all(g[2] == "e" for g in got)
    assert [g[3] for g in got] == [f"{d['message']} [{d['code']}]" for d in expected]
