"""A golden test for every diagnostic code.

``tests/golden/codes/CODE.dp`` is the smallest program that triggers CODE.
Each diagnostic it must produce is written beside the code, on the line the
diagnostic points at (its primary span), as in craftinginterpreters' tests:

    state q0 noinput Lap(ε, 0) { true -> q9 store }   // error[E101]

``// warning[W001]`` for warnings, several on one line for several
diagnostics (``// error[E021] error[E021]``); ``// error[E262] at E262.csv:2`` when the
diagnostic points into another file of the folder, ``at -`` when it points
nowhere (a problem of the command line).  A line
``// command: ARGS`` gives the command line (default ``check``; ``{file}``
is the program, ``{dir}`` the folder).  ``CODE.txt`` is the rendered text
output (colour off) with the exit status; regenerate all of them with
``DSLC_UPDATE_GOLDEN=1 python -m pytest -q tests/test_codes_golden.py`` and
review the diff.

The test checks that every code of the registry has such a file (or an entry
in :data:`EXEMPT` that says why not and where it is tested instead), that
the diagnostics produced are exactly the annotated ones (code, severity,
file and line), and that the text output matches ``CODE.txt``.
"""

from __future__ import annotations

import gc
import io
import os
import re
import shlex
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from dslc.cli import main
from dslc.diagnostics.codes import REGISTRY

ROOT = Path(__file__).resolve().parent.parent
CODES = ROOT / "tests" / "golden" / "codes"
REL = CODES.relative_to(ROOT).as_posix()

# Codes without a golden program, and why; each is tested elsewhere.
EXEMPT = {
    "E190": "a configuration file, not a program: tests/test_toolchain.py",
    "E191": "a configuration file, not a program: tests/test_toolchain.py",
    "E192": "a configuration file, not a program: tests/test_toolchain.py",
    "E000": "an internal error is a bug in dslc, which no program should trigger; "
            "tests/test_lsp_isolation.py makes a backend raise and checks E000",
    "E010": "needs an input above 256 MiB; test_input_too_large below lowers the limit instead",
    "E012": "needs 200,001 operators in one expression (a 400 KB file); "
            "test_expression_too_long below lowers the limit instead",
    "E013": "raised only when Python runs out of memory; test_out_of_memory below simulates it",
    "E014": "a time-out depends on the speed of the machine; test_time_limit below makes a block "
            "outlast its budget deterministically",
    "E112": "a mechanism with a second stored variable is now lowered to an automaton with several "
            "variables (docs/language.md); tests/test_lowering_validation.py and "
            "tests/test_multivar_language.py check those programs, and the code stays registered",
    "E224": "z3's nonlinear real arithmetic is complete, so it answers `unknown` only when it runs out of "
            "resources (out of time is E230, E230.dp); test_cannot_prove_well_formed below simulates it",
    "E231": "a solver witness that fails its exact re-check is a solver bug; "
            "tests/test_bounded.py::test_wrong_witness_through_cli forges one",
}

_ANNOTATION = re.compile(r"\b(error|warning)\[([A-Z]+\d+)\](?:\s+at\s+(?:(-)|([^\s:]+):(\d+)))?")
_RENDERED = re.compile(r"^(error|warning)\[([A-Z]+\d+)\]:.*\n(?:\s*--> (.+?):(\d+):\d+)?", re.M)


def golden_codes() -> list[str]:
    return sorted(p.stem for p in CODES.glob("*.dp"))


def command(path: Path) -> list[str]:
    text = path.read_bytes().decode("utf-8", errors="replace")
    m = re.search(r"^// command: (.+)$", text, re.M)
    words = shlex.split(m.group(1)) if m else ["check"]
    rel = path.relative_to(ROOT).as_posix()
    args = [w.replace("{file}", rel).replace("{dir}", REL) for w in words]
    if not any("{file}" in w for w in words):
        args.append(rel)
    return [args[0], "--color", "never", *args[1:]]


def render(path: Path, monkeypatch) -> str:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    out, err = io.StringIO(), io.StringIO()
    try:
        with redirect_stdout(out), redirect_stderr(err):
            status = main(command(path))
    finally:
        gc.enable()                      # `dslc check` switches the collector off for its run
    text = out.getvalue() + err.getvalue()
    assert "Traceback" not in text and "internal error" not in text
    return text + f"[exit {status}]\n"


def expected(path: Path) -> Counter:
    """(severity, code, file, line) of every annotation."""
    out: Counter = Counter()
    text = path.read_bytes().decode("utf-8", errors="replace")
    for number, line in enumerate(text.splitlines(), 1):
        comment = line.find("//")
        if comment == -1:
            continue
        for m in _ANNOTATION.finditer(line, comment):
            if m.group(3):
                out[(m.group(1), m.group(2), "-", 0)] += 1
            elif m.group(4):
                out[(m.group(1), m.group(2), m.group(4), int(m.group(5)))] += 1
            else:
                out[(m.group(1), m.group(2), path.name, number)] += 1
    return out


def produced(rendered: str) -> Counter:
    out: Counter = Counter()
    for m in _RENDERED.finditer(rendered):
        where = (Path(m.group(3)).name, int(m.group(4))) if m.group(3) else ("-", 0)
        out[(m.group(1), m.group(2), *where)] += 1
    return out


def test_every_code_has_a_golden_program_or_a_reason():
    have = set(golden_codes())
    missing = sorted(c for c in REGISTRY if c not in have and c not in EXEMPT)
    assert not missing, f"add tests/golden/codes/CODE.dp for {missing}"
    stale = sorted(c for c in have | set(EXEMPT) if c not in REGISTRY)
    assert not stale, f"not in the registry: {stale}"
    assert not have & set(EXEMPT)


@pytest.mark.parametrize("code", golden_codes())
def test_code(code, monkeypatch):
    path = CODES / f"{code}.dp"
    want = expected(path)
    assert any(k[1] == code for k in want), f"{path.name} has no `// error[{code}]` annotation"
    got = render(path, monkeypatch)
    assert produced(got) == want, got
    golden = CODES / f"{code}.txt"
    if os.environ.get("DSLC_UPDATE_GOLDEN"):
        golden.write_text(got, encoding="utf-8")
    assert golden.exists(), f"missing {golden.name}; run with DSLC_UPDATE_GOLDEN=1"
    assert got == golden.read_text(encoding="utf-8")


# ------------------------------------------------------------------ the exempt codes
def test_input_too_large(tmp_path):
    from dslc.pipeline import check_path
    path = tmp_path / "big.dp"
    path.write_text("automaton a { state q0 noinput Lap(ε, 0) { true -> q0 store } }\n")
    result = check_path(str(path), {"max_file_bytes": 16})
    assert [d.code for d in result.diagnostics] == ["E010"]


def test_expression_too_long(monkeypatch):
    from dslc import limits
    from dslc.pipeline import check_source
    from dslc.source import SourceFile
    monkeypatch.setattr(limits, "MAX_TERMS", 5)         # instead of a 400 KB file
    text = "mechanism m {\n    x := Lap(ε, " + "+".join(["1"] * 7) + ")\n}\n"
    (block,) = check_source(SourceFile("m.dp", text)).blocks
    assert [d.code for d in block.diagnostics] == ["E012"]
    assert block.diagnostics[0].span.start_line_col == (2, 17)


def test_out_of_memory(monkeypatch):
    import dslc.pipeline as pipeline
    from dslc.source import SourceFile

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(pipeline, "parse_block", no_memory)
    result = pipeline.check_source(SourceFile("m.dp", "mechanism m { x := Lap(ε, 0) }\n"))
    (block,) = result.blocks
    assert [d.code for d in block.diagnostics] == ["E013"]
    assert block.diagnostics[0].span.start_line_col == (1, 11)


def test_time_limit(monkeypatch):
    import time

    import dslc.pipeline as pipeline
    from dslc import limits
    from dslc.source import SourceFile
    real = pipeline.parse_block

    def slow(*args, **kwargs):
        time.sleep(0.05)
        limits.checkpoint()
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "parse_block", slow)
    result = pipeline.check_source(SourceFile("m.dp", "mechanism m { x := Lap(ε, 0) }\n"), {"timeout": 0.01})
    (block,) = result.blocks
    assert block.verdict.value == "unknown"
    assert [d.code for d in block.diagnostics] == ["E014"]


def test_cannot_prove_well_formed(monkeypatch):
    import z3

    from dslc.bounded import validate
    from dslc.pipeline import check_source
    from dslc.source import SourceFile
    real = z3.SolverFor

    class Undecided:
        def __init__(self, *args, **kwargs):
            self.solver = real(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(self.solver, name)

        def check(self, *args):
            return z3.unknown

        def reason_unknown(self):
            return "incomplete"

    monkeypatch.setattr(validate.z3, "SolverFor", Undecided)
    text = (CODES / "E212.dp").read_text(encoding="utf-8").replace("states a, b", "states a, b\n    param q in (0, 1)")
    result = check_source(SourceFile("m.dp", text))
    (block,) = result.blocks
    assert "E224" in [d.code for d in block.diagnostics]
