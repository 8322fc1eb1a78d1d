"""`dslc run`: the sampler (an interpreter of the DiPA IR)."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from fractions import Fraction as F

import pytest

from dslc.cli import main
from dslc.dipa.prob import Step, path_probability
from dslc.dipa.sampler import laplace, run_once, sample
from dslc.pipeline import check_source, read_source


def run_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dslc", "run", *args], capture_output=True, text=True)


def test_negative_inputs_are_values():
    res = run_cli("examples/svt.dp", "--block", "svt", "--epsilon", "1", "--inputs", "-1/2,-3,2.5", "--seed", "4")
    assert res.returncode == 0, res.stderr


def test_seed_is_reproducible():
    args = ["examples/svt.dp", "--block", "svt", "--epsilon", "1", "--inputs", "0.5,1,-2,3", "--seed", "42"]
    first, second = run_cli(*args), run_cli(*args)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout and first.stdout.strip()


def test_seeded_samples_are_reproducible(capsys):
    args = ["run", "examples/numeric_sparse.dp", "--block", "numeric_sparse", "--epsilon", "1/2",
            "--inputs", "0,1,2", "--samples", "300", "--seed", "9", "--format", "json"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first
    doc = json.loads(first)
    assert doc["samples"] == 300 and sum(r["count"] for r in doc["histogram"]) == 300


def test_outputs_follow_the_automaton(capsys):
    assert main(["run", "examples/svt.dp", "--block", "svt_automaton", "--epsilon", "1",
                 "--inputs", "0,0,0", "--seed", "1", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    outs = doc["outputs"]
    assert outs[0] == "⊥"                                   # the threshold step
    assert all(o == "⊥" for o in outs[1:-1]) and outs[-1] in ("⊥", "⊤")
    assert doc["states"][0] == "q0"


def test_histogram_matches_probabilities():
    src, _ = read_source("examples/svt.dp")
    dipa = [b for b in check_source(src, {}).blocks if b.name == "svt_automaton"][0].ir
    n = 20000
    hist = sample(dipa, [F(0), F(1)], F(1), n, seed=3)
    p = float(path_probability(dipa, [Step(0), Step(1, F(0)), Step(2, F(1))], F(1)).probability)
    freq = hist.counts.get(("⊥", "⊥", "⊤"), 0) / n
    assert abs(freq - p) <= 4.5 * math.sqrt(p * (1 - p) / n)


def test_laplace_draws():
    rng = random.Random(5)
    xs = [laplace(rng, 2.0, 1.0) for _ in range(20000)]
    mean = sum(xs) / len(xs)
    mad = sum(abs(x - 1.0) for x in xs) / len(xs)        # E|X − μ| = 1/rate
    assert abs(mean - 1.0) < 0.03 and abs(mad - 0.5) < 0.02


def test_real_outputs_are_printed(capsys):
    assert main(["run", "examples/numeric_sparse.dp", "--block", "numeric_sparse", "--epsilon", "1",
                 "--inputs", "100", "--seed", "2"]) == 0
    out = capsys.readouterr().out.split()
    # the program runs as written: no silent step, the answer is released
    assert len(out) == 1 and float(out[0]) > 50        # far above the threshold
    assert main(["run", "examples/numeric_sparse.dp", "--block", "numeric_sparse_automaton", "--epsilon", "1",
                 "--inputs", "100", "--seed", "2"]) == 0
    out = capsys.readouterr().out.split()
    assert out[0] == "⊥" and float(out[1]) > 50        # the automaton outputs ⊥ on its first step


BAD = [
    (["--epsilon", "0"], "ε must be positive"),
    (["--epsilon", "-2"], "ε must be positive"),
    (["--epsilon", "e"], "is not a number"),
    (["--epsilon", "1", "--inputs", "0.5,one"], "input 2 `one` is not a number"),
    (["--epsilon", "1", "--inputs", "0.5,,1"], "input 2 is empty"),
    (["--epsilon", "1", "--seed", "x"], "--seed `x` is not an integer"),
    (["--epsilon", "1", "--samples", "0"], "--samples must be at least 1"),
]


@pytest.mark.parametrize("args,message", BAD)
def test_bad_arguments_exit_2(args, message):
    res = run_cli("examples/svt.dp", "--block", "svt", *args)
    assert res.returncode == 2
    assert message in res.stderr
    assert "Traceback" not in res.stderr and res.stdout == ""


def test_block_selection_errors(capsys, tmp_path):
    assert main(["run", "examples/svt.dp", "--epsilon", "1"]) == 2
    assert "choose one with --block" in capsys.readouterr().err
    bad = tmp_path / "bad.dp"
    bad.write_text("automaton a {\n  state q0 input Lap(ε, 0) { insample >= x -> q0 output ⊥ }\n}\n")
    assert main(["run", str(bad), "--epsilon", "1"]) == 2
    assert "not a valid DiPA" in capsys.readouterr().err
    assert main(["run", str(tmp_path / "none.dp"), "--epsilon", "1"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_run_once_stops_when_input_is_used_up():
    src, _ = read_source("examples/svt.dp")
    dipa = [b for b in check_source(src, {}).blocks if b.name == "svt_automaton"][0].ir
    res = run_once(dipa, [F(-100)] * 3, F(1), random.Random(0))
    assert res.outputs == ["⊥", "⊥", "⊥", "⊥"] and res.stopped == "the input is used up"
