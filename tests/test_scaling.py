"""The checker is iterative: large automata never reach Python's recursion limit.
(Speed is measured by benchmarks/bench_dipa.py, not here.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import sys
sys.path.insert(0, "benchmarks")
from gen_dipa import svt_chain, sorted_chain, random_ill_formed, to_text
from dslc.dipa.check import check
from dslc.source import SourceFile
from dslc.pipeline import check_source
big = svt_chain(200_000)
bad = sorted_chain(20_000)
wild = random_ill_formed(50_000)
text = to_text(svt_chain(20_000))
sys.setrecursionlimit(120)
r = check(big)
assert r.well_formed and r.weight == 100_000, r.weight
r = check(bad)
assert r.kinds == {"DP001"} and len(r.violations) == 10 and r.truncated["DP001"] == 10_000 - 10
r = check(wild)
assert not r.well_formed
ts = wild.transitions
def walk(path):
    return all(ts[a].target == ts[b].source for a, b in zip(path, path[1:]))
for v in r.violations:            # witnesses through the giant component's hub are real walks
    assert walk(v.prefix + (v.cycle or v.path)) and walk(v.cycle + v.cycle[:1]) and walk(v.path)
    if v.cycle2:
        assert walk(v.cycle2 + v.cycle2[:1])
f = check_source(SourceFile("big.dp", text))
assert f.blocks[0].verdict.value == "private" and str(f.blocks[0].d) == "10000"
print("ok")
"""


def test_large_automata_under_a_tiny_recursion_limit():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=ROOT,
                          timeout=600)
    assert proc.stdout.strip() == "ok", proc.stderr[-2000:]
