"""Every example's recorded verdicts (`// expect:` lines) hold through the CLI's JSON."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = (sorted((ROOT / "examples").glob("*.dp")) + sorted((ROOT / "stdlib").glob("*.dp"))
            + sorted((ROOT / "tests" / "fixtures").glob("*.dp")))
EXPECT = re.compile(r"^//\s*expect:\s*(\S+)\s+(private|not-private|error|unknown)((?:\s+\S+=\S+)*)\s*$", re.M)


def expectations(path: Path) -> dict[str, dict]:
    out = {}
    for m in EXPECT.finditer(path.read_text(encoding="utf-8")):
        extra = dict(kv.split("=", 1) for kv in m.group(3).split())
        out[m.group(1)] = {"verdict": m.group(2), **extra}
    return out


def run_json(*paths: str) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", *paths],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example_verdicts(path):
    expected = expectations(path)
    assert expected, f"{path.name} records no `// expect:` lines"
    code, data = run_json(str(path.relative_to(ROOT)))
    blocks = {b["name"]: b for f in data["files"] for b in f["blocks"]}
    assert set(blocks) == set(expected), "every block has an expectation and vice versa"
    for name, exp in expected.items():
        block = blocks[name]
        assert block["verdict"] == exp["verdict"], (name, block["diagnostics"])
        if "d" in exp:
            assert block["d"] == exp["d"], name
        if "codes" in exp:
            codes = {d["code"] for d in block["diagnostics"] if d["severity"] == "error"}
            assert codes == set(exp["codes"].split(",")), (name, codes)
    verdicts = {b["verdict"] for b in blocks.values()}
    want = 1 if "not-private" in verdicts else 2 if verdicts & {"error", "unknown"} else 0
    assert code == want


def test_check_examples_folder_reports_the_five_dipa_verdicts():
    code, data = run_json("examples/")
    assert code == 1                      # a violation exists
    got = {b["name"]: (b["verdict"], b["d"], sorted({d["code"] for d in b["diagnostics"]}))
           for f in data["files"] for b in f["blocks"]}
    assert got["svt"] == ("private", "1", [])
    assert got["numeric_sparse"] == ("private", "1", [])
    assert got["sorted_desc"] == ("not-private", None, ["DP001"])
    assert got["svt_star"] == ("not-private", None, ["DP002"])
    assert got["numeric_sparse_mod"] == ("not-private", None, ["DP004"])
    # issue 13: Lee–Clifton's sparse vector declares `budget ε` and exceeds it
    assert got["lee_clifton"] == ("not-private", None, ["DP006"])
    assert got["lee_clifton_fixed"] == ("private", "1", [])


def test_max_d_gates_every_dipa_block_of_the_examples():
    code, data = run_json("--max-d", "1", "examples/svt.dp", "examples/numeric_sparse.dp",
                          "examples/lee_clifton.dp", "stdlib/")
    assert code == 1
    got = {b["name"]: (b["verdict"], b["budget"]["status"])
           for f in data["files"] for b in f["blocks"]}
    assert got.pop("lee_clifton") == ("not-private", "exceeded")
    assert got.pop("noisy_answer") == ("not-private", "not-proven")    # d = 2 is proven, d* = 1
    assert set(got.values()) == {("private", "met")}


def test_examples_and_stdlib_have_no_errors():
    """examples/ and stdlib/ show verdicts; broken inputs live in tests/."""
    code, data = run_json("examples/", "stdlib/")
    verdicts = {b["verdict"] for f in data["files"] for b in f["blocks"]}
    assert "error" not in verdicts and "unknown" not in verdicts
    assert not any(f["diagnostics"] for f in data["files"])
