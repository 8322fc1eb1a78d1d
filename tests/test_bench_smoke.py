"""The remaining benchmark scripts run at tiny sizes and print their target
(the figures are in docs/, measured by the scripts, never asserted here).
bench_dipa/bench_dipaut: tests/test_bench_dipa_smoke.py; bench_bounded_engines
and bench_pufferfish: tests/test_bounded_engines.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str, timeout: int = 300) -> str:
    proc = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_bench_quilt_length_smoke():
    out = run("benchmarks/bench_quilt.py", "length-smoke")
    assert "target: time independent of T" in out
    assert sum(line.startswith("| ") for line in out.splitlines()) >= 3


def test_bench_lsp_small_document():
    out = run("benchmarks/bench_lsp.py", "--mb", "0.02", "--keystrokes", "2", "--runs", "1")
    assert "edit in one block -> diagnostics, 1 runs" in out
    assert "target (issue 14, 5 MB): ≤ 2000 ms" in out
    assert "didOpen -> first diagnostics" in out
