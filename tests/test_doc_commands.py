"""Every command shown in README.md and docs/ runs, and prints what the docs
show (tests/doc_commands.py says how a doc shows a command)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_commands import ROOT, all_inline, all_shown, line_matches, output_matches

BIN = str(Path(sys.executable).parent)


def _env() -> dict[str, str]:
    env = dict(os.environ, PATH=BIN + os.pathsep + os.environ.get("PATH", ""), NO_COLOR="1", COLUMNS="100")
    env.pop("FORCE_COLOR", None)
    return env


def _run(command: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


SHOWN = all_shown()


@pytest.mark.parametrize("shown", SHOWN, ids=[c.id for c in SHOWN])
def test_shown_command_prints_what_the_doc_shows(shown):
    proc = _run(shown.command)
    actual = (proc.stdout + proc.stderr).splitlines()
    assert proc.returncode != 127, f"{shown.id}: `{shown.command}`: command not found"
    if shown.exit_code is not None:
        assert proc.returncode == shown.exit_code, (
            f"{shown.id}: `{shown.command}` exits {proc.returncode}, the doc says {shown.exit_code}")
    if shown.expected:
        assert output_matches(shown.expected, actual), (
            f"{shown.id}: `{shown.command}` printed:\n" + "\n".join(actual)
            + "\n\nthe doc shows:\n" + "\n".join(shown.expected))


INLINE = all_inline()
_PLACEHOLDER = re.compile(r"[A-Z]{2,}|<|…|\.\.\.|\bFILE\b|\bPATH\b")


def _runnable(command: str) -> bool:
    """A command in running text is run when it is a whole command (no
    placeholder such as FILE, `…` or `<…>`) over files of the repository."""
    if _PLACEHOLDER.search(command.replace("DSLC_", "")):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    return any(w.endswith((".dp", ".dipa")) or w.endswith("/") for w in words) and all(
        not w.endswith((".dp", ".dipa")) or (ROOT / w).exists() for w in words)


@pytest.mark.parametrize("inline", INLINE, ids=[c.id for c in INLINE])
def test_command_in_running_text_runs(inline):
    words = shlex.split(inline.command) if _runnable(inline.command) else []
    if not words:
        pytest.skip("a pattern, not a whole command")
    proc = _run(inline.command)
    assert proc.returncode in (0, 1), (
        f"{inline.id}: `{inline.command}` exits {proc.returncode}:\n{proc.stderr[-2000:]}")


_PATHS = re.compile(r"(?<![\w/.-])((?:examples|stdlib|docs|tests|benchmarks|dslc|grammar|editors|\.ci)/[\w./-]*\w)")


def test_docs_name_only_files_that_exist():
    from tests.doc_commands import DOCS
    missing = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in _PATHS.finditer(line):
                path = m.group(1).rstrip(".")
                if any(ch in path for ch in "*<>") or not path:
                    continue
                if not (ROOT / path).exists():
                    missing.append(f"{doc.relative_to(ROOT)}:{number}: {path}")
    assert missing == []


def test_the_matcher_fails_on_a_changed_line():
    assert output_matches(["a", "...", "c"], ["a", "x", "y", "c"])
    assert not output_matches(["a", "c"], ["a", "b"])
    assert line_matches("d ∈ [...] (tight)", "d ∈ [0.999, 1] (tight)")
    assert not line_matches("d ∈ [...] (tight)", "d ∈ [0.999, 1]")


_LOCATION = re.compile(r"((?:examples|stdlib|tests)/[\w/.-]+\.dp):(\d+):(\d+)")


def _locations_dslc_prints(path: str) -> set[tuple[int, int]]:
    """Every line:column that `dslc check --format json --witness` prints for a file."""
    import json
    proc = _run(f"dslc check --format json {shlex.quote(path)}")
    found: set[tuple[int, int]] = set()

    def walk(value):
        if isinstance(value, dict):
            line = value.get("line", value.get("start_line"))
            col = value.get("column", value.get("col", value.get("start_column")))
            if isinstance(line, int) and isinstance(col, int):
                found.add((line, col))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    walk(json.loads(proc.stdout))
    for m in _LOCATION.finditer(proc.stdout + _run(f"dslc check {shlex.quote(path)}").stdout):
        found.add((int(m.group(2)), int(m.group(3))))
    return found


def test_locations_in_the_docs_are_ones_dslc_prints():
    """A doc that cites `file.dp:LINE:COL` cites a place dslc reports."""
    from tests.doc_commands import DOCS
    cited: dict[str, set[tuple[int, int, str]]] = {}
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in _LOCATION.finditer(line):
                cited.setdefault(m.group(1), set()).add(
                    (int(m.group(2)), int(m.group(3)), f"{doc.relative_to(ROOT)}:{number}"))
    wrong = []
    for path, places in sorted(cited.items()):
        if not (ROOT / path).exists():
            wrong.append(f"{path} does not exist")
            continue
        printed = _locations_dslc_prints(path)
        wrong += [f"{where}: {path}:{line}:{col}" for line, col, where in sorted(places)
                  if (line, col) not in printed]
    assert wrong == []


def test_docs_stand_alone():
    """The docs refer to no file outside the repository."""
    from tests.doc_commands import DOCS
    outside = [f"{doc.relative_to(ROOT)}:{n}" for doc in DOCS
               for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
               if "LANGUAGE.md" in line or "../shared" in line or "shared/papers" in line]
    assert outside == []
