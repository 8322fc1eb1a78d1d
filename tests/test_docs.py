"""The docs that are generated from code stay in step with it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_codes_md_matches_the_registry():
    proc = subprocess.run([sys.executable, "-m", "dslc", "explain", "--markdown"], capture_output=True,
                          text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0
    assert (ROOT / "docs" / "codes.md").read_text(encoding="utf-8") == proc.stdout, \
        "regenerate with: dslc explain --markdown > docs/codes.md"


def test_every_code_used_in_the_source_is_registered():
    import re
    from dslc.diagnostics import codes
    used = set()
    for path in (ROOT / "dslc").rglob("*.py"):
        used |= set(re.findall(r'"((?:DP|E|W)\d{3})"', path.read_text(encoding="utf-8")))
    missing = sorted(c for c in used if c not in codes.REGISTRY)
    assert not missing, missing


def test_readme_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    block = lines[lines.index("```sh") + 1: lines.index("```sh") + 3]
    assert "pip install -e ." in block[0] and "dslc check examples/svt.dp" in block[0]
    assert "pytest" in block[1]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pytest" in ci and "pip install" in ci
