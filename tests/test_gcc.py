"""`dslc check --format gcc` (quickfix lines) and `dslc explain CODE`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dslc.diagnostics.model import Diagnostic
from dslc.diagnostics.render.gcc import display_column, render_gcc
from dslc.pipeline import check_paths, check_source
from dslc.results import FileResult
from dslc.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
# What Vim's and Emacs' compilation parsers match (errorformat `%f:%l:%v: %t%*[^:]: %m`).
QUICKFIX = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|note): "
                      r"(?P<msg>.*) \[(?P<code>[A-Z]+\d+)\]$")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dslc", *args], cwd=ROOT, capture_output=True,
                          text=True, encoding="utf-8", env={**os.environ, "NO_COLOR": "1"})


def test_sorted_desc_lines():
    out = run("check", "--format", "gcc", "examples/sorted_desc.dp")
    assert out.returncode == 1 and out.stderr == ""
    lines = (ROOT / "examples" / "sorted_desc.dp").read_text(encoding="utf-8").split("\n")
    store = next(i for i, s in enumerate(lines, 1) if "x := s" in s)
    auto = next(i for i, s in enumerate(lines, 1) if "insample < x" in s)
    message = "leaking cycle: a loop stores a fresh draw in `x` and compares with it again"
    assert out.stdout.splitlines() == [
        f"examples/sorted_desc.dp:{store}:{lines[store - 1].index('x := s') + 1}: error: {message} [DP001]",
        f"examples/sorted_desc.dp:{auto}:{lines[auto - 1].index('store') + 1}: error: {message} [DP001]",
    ]


def test_one_parseable_line_per_diagnostic_for_all_examples():
    files = check_paths([str(ROOT / "examples")])
    text = render_gcc(files)
    lines = text.splitlines()
    diags = [d for f in files for d in f.all_diagnostics]
    assert len(lines) == len(diags) and text.endswith("\n")
    for line, d in zip(lines, diags):
        m = QUICKFIX.match(line)
        assert m, line
        assert m["code"] == d.code and m["sev"] == d.severity.value
        assert int(m["line"]) == d.span.start_line_col[0]


def test_columns_are_display_columns():
    assert display_column("abc", 3) == 3
    assert display_column("\tx", 2) == 9            # a tab advances to column 9
    assert display_column("ab\tx", 4) == 9
    assert display_column("ε≥⊤x", 4) == 4           # the .dp symbols are one column wide
    assert display_column("漢字x", 3) == 5           # wide characters take two
    assert display_column("e\u0301x", 3) == 2       # a combining accent takes none
    text = "automaton a {\n\tstate q0 noinput Lap(2/ε, 0) { true -> q0 store }\n}\n"
    [line] = render_gcc([check_source(SourceFile("t.dp", text))]).splitlines()
    col = text.split("\n")[1].index("2/ε")
    assert line.startswith(f"t.dp:2:{col + 8}: error: ")      # the tab counts 8, not 1


def test_multiline_message_and_missing_code_stay_on_one_line():
    f = FileResult("m.dp", SourceFile("m.dp", "x\n"))
    f.diagnostics.append(Diagnostic("E999", "first\nsecond"))
    f.diagnostics.append(Diagnostic("", "no code"))
    assert render_gcc([f]) == "m.dp:1:1: error: first second [E999]\nm.dp:1:1: error: no code\n"


def test_missing_file():
    out = run("check", "--format", "gcc", "no/such/file.dp")
    assert out.returncode == 2
    assert out.stdout.startswith("no/such/file.dp:1:1: error: no such file: no/such/file.dp [E004]")


def test_explain_prints_the_long_explanation():
    out = run("explain", "DP001")
    assert out.returncode == 0
    assert out.stdout.startswith("DP001: leaking-cycle\n")
    assert "Definition 6" in out.stdout and "Fix:" in out.stdout
    assert run("explain", "dp001").stdout == out.stdout
    bad = run("explain", "DP999")
    assert bad.returncode == 2 and "unknown code" in bad.stderr


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
def test_vim_quickfix_lands_on_the_error(tmp_path):
    """editors/vim's compiler settings put the cursor on the offending token,
    with a tab and non-ASCII symbols before it on the line."""
    src = tmp_path / "tab.dp"
    src.write_text("automaton a {\n\tstate q0 noinput Lap(ε/2, 0) { true → q9 output ⊤ store }\n}\n",
                   encoding="utf-8")
    script = tmp_path / "qf.vim"
    out = tmp_path / "qf.out"
    script.write_text(f"""set rtp^={ROOT / 'editors' / 'vim'}
filetype plugin on
edit {src}
let $PATH = '{Path(sys.executable).parent}:' . $PATH
let &makeprg = '{sys.executable} -m dslc check --format gcc %'
silent make
cfirst
call writefile([getline('.')[col('.') - 1 : col('.')]], '{out}')
qa!
""", encoding="utf-8")
    subprocess.run(["vim", "-N", "-u", "NONE", "-i", "NONE", "-es", "-S", str(script)], cwd=ROOT,
                   capture_output=True, timeout=60)
    assert out.read_text(encoding="utf-8").strip() == "q9"
