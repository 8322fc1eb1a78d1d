"""`dslc check --format json` has the shape of LANGUAGE.md's contract."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RATIONAL = re.compile(r"^-?\d+(/\d+)?$")


def check_span(span):
    assert set(span) >= {"line", "column", "end_line", "end_column"}
    assert all(isinstance(span[k], int) and span[k] >= 1 for k in span)
    assert (span["end_line"], span["end_column"]) >= (span["line"], span["column"])


def check_diag(d):
    assert re.match(r"^(DP\d{3}|E\d{3}|W\d{3})$", d["code"])
    assert d["severity"] in ("error", "warning", "note")
    assert isinstance(d["message"], str) and d["message"] and "\n" not in d["message"]
    check_span(d["span"])
    for r in d["related"]:
        assert isinstance(r["message"], str)
        check_span(r["span"])


def test_json_shape_for_examples_and_errors():
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", "examples/",
                           "tests/golden/"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    data = json.loads(proc.stdout)
    assert set(data) == {"files"}
    kinds = set()
    for f in data["files"]:
        assert isinstance(f["file"], str) and f["file"].endswith(".dp")
        for d in f["diagnostics"]:
            check_diag(d)
        for b in f["blocks"]:
            assert isinstance(b["name"], str)
            assert b["kind"] in ("automaton", "mechanism", "hmm", "mdp", "chain")
            assert b["verdict"] in ("private", "not-private", "error", "unknown")
            kinds.add(b["verdict"])
            if b["d"] is not None:
                assert RATIONAL.match(b["d"]) and b["verdict"] == "private"
            if b["kind"] in ("automaton", "mechanism") and b["verdict"] == "private":
                assert b["d"] is not None
            if b["verdict"] == "not-private":
                assert any(d["code"].startswith("DP") for d in b["diagnostics"])
            if b["verdict"] == "error":
                assert any(d["severity"] == "error" for d in b["diagnostics"])
            for d in b["diagnostics"]:
                check_diag(d)
    assert {"private", "not-private", "error"} <= kinds


def test_dp_diagnostics_point_at_the_cycle_lines():
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json",
                           "examples/sorted_desc.dp"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    data = json.loads(proc.stdout)
    mech = data["files"][0]["blocks"][0]
    (diag,) = mech["diagnostics"]
    lines = {diag["span"]["line"]} | {r["span"]["line"] for r in diag["related"]}
    text = (ROOT / "examples/sorted_desc.dp").read_text().splitlines()
    assert "x := s" in text[diag["span"]["line"] - 1]          # the store
    assert any("loop" in text[n - 1] for n in lines)           # the loop
    assert any("s < x" in text[n - 1] for n in lines)          # the comparison
