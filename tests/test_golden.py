"""Golden files: the rendered text of diagnostics (colour off, fixed width).

Regenerate with `DSLC_UPDATE_GOLDEN=1 python3 -m pytest tests/test_golden.py`
and review the diff like any other change.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"

CASES = [
    # (golden file, command line arguments)
    ("svt_explain.out", ["examples/svt.dp", "--explain"]),
    ("numeric_sparse_explain.out", ["examples/numeric_sparse.dp", "--explain"]),
    ("sorted_desc.out", ["examples/sorted_desc.dp"]),
    ("svt_star.out", ["examples/svt_star.dp"]),
    ("numeric_sparse_mod.out", ["examples/numeric_sparse_mod.dp"]),
    ("noisy_stream.out", ["examples/noisy_stream.dp"]),
    ("syntax_errors.out", ["tests/golden/syntax_errors.dp"]),
    ("dipa_errors.out", ["tests/golden/dipa_errors.dp"]),
    ("mechanism_errors.out", ["tests/golden/mechanism_errors.dp"]),
    # witnesses: a mechanism's in the program's terms, an automaton's as a path of states
    ("sorted_desc_witness.out", ["examples/sorted_desc.dp", "--witness"]),
    ("noisy_stream_witness.out", ["examples/noisy_stream.dp", "--witness"]),
    ("two_cycle_witness.out", ["tests/golden/two_cycle.dp", "--witness"]),
    # releases (docs/composition.md): a budget that fits, one that is overspent
    ("release.out", ["examples/release.dp"]),
    ("release_overspent.out", ["examples/release_overspent.dp"]),
    ("release_json.out", ["examples/release.dp", "--format", "json"]),
    # several stored variables: verdicts with --explain, errors, unknown, a .dipa file
    ("several_variables_explain.out", ["examples/range_monitor.dp", "examples/min_max.dp",
                                       "examples/two_svt.dp", "--explain"]),
    # a several-variable violation's witness (the program's run, replay lines) and budgets
    ("several_variables_witness.out", ["examples/two_svt.dp", "--witness"]),
    ("several_variables_budget.out", ["examples/min_max.dp", "--max-d", "0.3"]),
    ("several_errors.out", ["tests/golden/several_errors.dp", "tests/golden/several_unknown.dipa",
                            "tests/golden/dipaut_syntax.dipa"]),
    ("gcc.out", ["examples/sorted_desc.dp", "examples/svt_star.dp", "tests/golden/dipa_errors.dp",
                 "--format", "gcc"]),
]


def render(args: list[str]) -> str:
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--color", "never", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    assert "Traceback" not in proc.stderr
    return proc.stdout + (f"[exit {proc.returncode}]\n")


@pytest.mark.parametrize("name,args", CASES, ids=[c[0] for c in CASES])
def test_golden(name, args):
    got = render(args)
    path = GOLDEN / name
    if os.environ.get("DSLC_UPDATE_GOLDEN"):
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"missing golden file {name}; run with DSLC_UPDATE_GOLDEN=1"
    assert got == path.read_text(encoding="utf-8")
