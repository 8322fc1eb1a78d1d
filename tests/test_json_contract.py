"""`dslc check --format json` has the shape of LANGUAGE.md's contract."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
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
            assert b["kind"] in ("automaton", "mechanism", "hmm", "mdp", "chain", "release")
            assert b["verdict"] in ("private", "not-private", "error", "unknown")
            kinds.add(b["verdict"])
            if b["d"] is not None:
                assert RATIONAL.match(b["d"]) and b["verdict"] == "private"
            if b["kind"] in ("automaton", "mechanism", "release") and b["verdict"] == "private":
                assert b["d"] is not None
            if b["kind"] == "release" and b["verdict"] == "private":     # docs/composition.md
                assert b["d"] == b["d_upper"] and b["calls"]
                for c in b["calls"]:
                    assert set(c) == {"callee", "defined_in", "share", "group", "d_callee", "d", "d_lower",
                                      "tight", "line"}
                    assert all(RATIONAL.match(c[k]) for k in ("share", "d_callee", "d"))
                x = b["inlined"]
                assert set(x) == {"d", "composed", "below_composed", "calls", "groups_added", "states",
                                  "variables", "reason"} and x["composed"] == b["d"]
                assert (x["d"] is None) == (x["reason"] is not None) == (x["below_composed"] is None)
                if x["d"] is not None:
                    assert Fraction(x["d"]) <= Fraction(b["d"])
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


# ---------------------------------------------------------------------------
# output is a function of the input

_SLOW_CHILD = """
import sys, time
import dslc.dipa.lower_bound as lower_bound
import dslc.dipa.prob as prob
inner = prob.path_probability
def slow(*args, **kwargs):
    time.sleep(0.0005)                 # a machine several times slower
    return inner(*args, **kwargs)
prob.path_probability = lower_bound.path_probability = slow
from dslc.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _generated_programs(folder: Path, count: int = 30) -> Path:
    """Random private automata (the generator of tests/test_prob_lemma3.py,
    seed 13), among them some whose lower-bound search uses up its work."""
    import random
    from dslc.dipa.check import check
    from dslc.ir.print_dipa import automaton_text
    from dataclasses import replace
    from tests.test_prob_lemma3 import random_dipa
    rng = random.Random(13)
    blocks = []
    while len(blocks) < count:
        a = random_dipa(rng)
        found = check(a)
        if found.well_formed and found.weight > 0:
            blocks.append(automaton_text(replace(a, name=f"g{len(blocks)}"), indent="  "))
    path = folder / "generated.dp"
    path.write_text("\n".join(blocks), encoding="utf-8")
    return path


def _json_of(prefix: list[str], paths: list[str], env: dict) -> str:
    proc = subprocess.run(prefix + ["check", "--format", "json", "--quiet", *paths], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return re.sub(r'"seconds":\s*[0-9.eE+-]+', '"seconds": 0', proc.stdout)    # timings aside


def test_the_same_files_give_the_same_json_on_any_machine(tmp_path):
    """Byte-identical JSON (timings aside) for the examples, the standard
    library and generated programs: on repeated runs, on one core shared with
    a busy process (`taskset -c 0`), and on a machine made slower."""
    import os
    import shutil
    paths = ["examples", "stdlib", str(_generated_programs(tmp_path))]
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="100")
    first = _json_of([sys.executable, "-m", "dslc"], paths, env)
    doc = json.loads(first)
    assert any(b.get("d_lower") == "0.999" for f in doc["files"] for b in f["blocks"])
    assert sum(f["file"].endswith("generated.dp") for f in doc["files"]) == 1
    runs = {"slower": _json_of([sys.executable, "-c", _SLOW_CHILD], paths, env)}
    if shutil.which("taskset") and len(os.sched_getaffinity(0)) > 0:
        hog = subprocess.Popen(["taskset", "-c", "0", sys.executable, "-c", "while True: pass"])
        try:
            runs["one busy core"] = _json_of(["taskset", "-c", "0", sys.executable, "-m", "dslc"], paths, env)
        finally:
            hog.kill()
            hog.wait()
    for name, text in runs.items():
        assert text == first, name
