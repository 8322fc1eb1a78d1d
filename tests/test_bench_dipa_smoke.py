"""The DiPA benchmark scripts run (tiny sizes; the figures themselves are in
docs/benchmarks.md, measured by the scripts, never asserted here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))


def test_streamed_files_are_the_printed_automata(tmp_path):
    """gen_dipa.write_text (10^7 states without building the IR) writes exactly
    what to_text prints for the generator's automaton."""
    import gen_dipa
    for gen in ("svt_chain", "random_well_formed", "random_ill_formed"):
        for n in (1, 2, 3, 41, 400):
            path = tmp_path / f"{gen}_{n}.dp"
            gen_dipa.write_text(gen, n, path)
            assert path.read_text(encoding="utf-8") == gen_dipa.to_text(getattr(gen_dipa, gen)(n)), (gen, n)


def test_bench_dipa_runs():
    proc = subprocess.run([sys.executable, "benchmarks/bench_dipa.py", "--sizes", "60", "--ir",
                           "--startup-runs", "1"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| ")]
    assert sum(" 60 |" in r for r in rows) == 3                       # one row per generator
    assert "| svt_chain | 60 |" in proc.stdout and "private" in proc.stdout
    assert "× bare Python" in proc.stdout and "dslc check (automaton)" in proc.stdout


def test_bench_dipaut_without_dipaut_says_why():
    env = {k: v for k, v in os.environ.items() if k not in ("DIPAUT_DIR", "DIPAUT_PYTHON")}
    proc = subprocess.run([sys.executable, "benchmarks/bench_dipaut.py", "--dipaut", "/nonexistent",
                           "time", "--sizes", "30"], cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() or proc.stderr.strip()
