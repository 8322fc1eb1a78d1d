"""Witnesses for DiPA violations (dslc.dipa.witness, `dslc check --witness`)."""

from __future__ import annotations

import json
from pathlib import Path
import math
from fractions import Fraction as F

import pytest

from dslc.cli import main
from dslc.dipa.paths import build_path, parse_inputs, parse_output, split_list
from dslc.dipa.check import check
from dslc.dipa.prob import path_probability
from dslc.dipa.witness import construct, evaluate, log_ratio
from dslc.pipeline import check_source, read_source
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, DiPA, Guard, State, Transition,
                          symbol)

BOT, TOP = symbol("⊥"), symbol("⊤")
EXAMPLES = {"examples/sorted_desc.dp": "DP001", "examples/svt_star.dp": "DP002",
            "examples/numeric_sparse_mod.dp": "DP004"}


def witness_json(capsys, path: str) -> list[tuple[str, dict]]:
    code = main(["check", path, "--witness", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 1
    doc = json.loads(out)
    found = []
    for block in doc["files"][0]["blocks"]:
        for diag in block["diagnostics"]:
            if diag["code"].startswith("DP00"):
                found.append((block["name"], diag))
    return found


def dipa_of(path: str, name: str) -> DiPA:
    src, _ = read_source(path)
    return [b for b in check_source(src, {}).blocks if b.name == name][0].ir


@pytest.mark.parametrize("path", sorted(EXAMPLES))
def test_examples_witness_table_grows(capsys, path):
    found = witness_json(capsys, path)
    assert len(found) == 2                      # the mechanism and the automaton
    for name, diag in found:
        assert diag["code"] == EXAMPLES[path]
        w = diag["data"]["witness"]
        assert "states" in w                    # the diagnostic's own witness data stays
        eps = F(w["epsilon"])
        assert 0 < eps <= 8 and w["epsilon_chosen"] is True
        table = {row["l"]: row["log_ratio"] for row in w["table"]}
        assert sorted(table) == [1, 2, 4, 8, 16, 32, 64]
        assert table[64] > 5 and table[64] >= 4 * table[8]
        assert all(table[a] < table[b] for a, b in zip([1, 2, 4, 8, 16, 32], [2, 4, 8, 16, 32, 64]))
        assert w["grows"] is True
        # the text notes state α, β, the outputs and the ε used
        notes = "\n".join(diag["notes"])
        assert "α = " in notes and "β = " in notes and "outputs = " in notes
        assert f"at ε = {w['epsilon']}" in notes


@pytest.mark.parametrize("path", sorted(EXAMPLES))
def test_examples_witness_is_adjacent_and_realises_outputs(capsys, path):
    for name, diag in witness_json(capsys, path):
        w = diag["data"]["witness"]
        dipa = dipa_of(path, name)
        alpha = parse_inputs(",".join(w["alpha"]), allow_tau=True)
        beta = parse_inputs(",".join(w["beta"]), allow_tau=True)
        assert len(alpha) == len(beta) == len(w["outputs"])
        for a, b in zip(alpha, beta):
            assert (a is None) == (b is None)
            assert a is None or abs(a - b) <= 1
        outputs = [parse_output(o, k) for k, o in enumerate(w["outputs"])]
        # the stated outputs are a path of the automaton on both inputs ...
        pa = path_probability(dipa, build_path(dipa, alpha, outputs), F(w["epsilon"]))
        pb = path_probability(dipa, build_path(dipa, beta, outputs), F(w["epsilon"]))
        assert pa.probability > 0 and pb.probability > 0
        # ... whose probabilities are the table's row for ℓ = 2
        row = next(r for r in w["table"] if r["l"] == w["l"])
        assert math.isclose(float(pa.log_probability), row["log_pr_alpha"], rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(float(pa.log_probability - pb.log_probability), row["log_ratio"], rel_tol=1e-9)


def test_sorted_desc_is_example4():
    """Lemma 6 on Fig. 3 gives exactly the inputs of Example 4."""
    dipa = dipa_of("examples/sorted_desc.dp", "sorted_desc_automaton")
    w = construct(dipa, check(dipa).violations[0])
    inst = w.instance(2)
    assert inst.alpha_inputs == [0, -1, -2, -3, -4]
    assert inst.beta_inputs == [0, -2, -1, -4, -3]


def test_svt_star_is_example5():
    """Lemma 7 on Fig. 4: the loops' inputs of Example 5 (−½ / +½ swapped)."""
    dipa = dipa_of("examples/svt_star.dp", "svt_star_automaton")
    inst = construct(dipa, check(dipa).violations[0]).instance(3)
    h = F(1, 2)
    assert inst.alpha_inputs == [-h, -h, -h, 0, h, h, h]
    assert inst.beta_inputs == [h, h, h, 0, -h, -h, -h]


def test_epsilon_from_options(capsys):
    code = main(["check", "examples/numeric_sparse_mod.dp", "--witness", "--epsilon", "3/2",
                 "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 1
    w = doc["files"][0]["blocks"][0]["diagnostics"][0]["data"]["witness"]
    assert w["epsilon"] == "3/2" and w["epsilon_chosen"] is False
    # Lemma 9: the ratio is exactly e^{ℓ·dε} with d = 2/9 (one comparison per turn)
    for row in w["table"]:
        assert math.isclose(row["log_ratio"], row["l"] * 2 / 9 * 1.5, rel_tol=1e-9)


def test_text_mode_is_short(capsys):
    code = main(["check", "examples/sorted_desc.dp", "--witness", "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(l for l in out.splitlines() if "ln(Pr_α/Pr_β)" in l)
    assert "ℓ=1:" in line and "ℓ=8:" in line and "ℓ=16:" not in line
    assert "α = 0, -1, -2, -3, -4" in out and "β = 0, -2, -1, -4, -3" in out


def test_no_witness_without_flag(capsys):
    main(["check", "examples/sorted_desc.dp", "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    w = doc["files"][0]["blocks"][0]["diagnostics"][0]["data"]["witness"]
    assert "table" not in w


# ---------------------------------------------------------------------------
# the constructions on small automata, including the mirror cases

def automaton(states, transitions) -> DiPA:
    a = DiPA("t")
    for s in states:
        a.add_state(State(*s))
    for t in transitions:
        a.add_transition(Transition(*t))
    return a


def only(a: DiPA, kind: str):
    vs = [v for v in check(a).violations if v.kind == kind]
    assert vs, check(a).violations
    return vs[0]


def table(a: DiPA, v, eps=None, lengths=(1, 4, 16)):
    w = evaluate(a, construct(a, v), eps, lengths)
    assert w.problem is None
    for length in lengths:
        inst = w.instance(length)
        for x, y in zip(inst.alpha, inst.beta):
            assert x.transition == y.transition and x.interval == y.interval
            assert (x.input is None) == (y.input is None)
            assert x.input is None or abs(x.input - y.input) <= 1
    return {r.length: r.log_ratio for r in w.rows}, w


def test_disclosing_cycle_exact_ratio():
    # a loop that releases insample on `insample >= x`: ratio e^{ℓ·dε} exactly
    a = automaton([("q0", False, F(1), F(0)), ("q1", True, F(1, 3), F(2))],
                  [(0, Guard.TRUE, 1, BOT, True), (1, Guard.GE, 1, OUT_INSAMPLE, False),
                   (1, Guard.LT, 1, BOT, False)])
    rows, w = table(a, only(a, "DP003"), F(2))
    for length, value in rows.items():
        assert math.isclose(value, length * 2 / 3, rel_tol=1e-9)


def test_disclosing_cycle_lt_and_insample_prime():
    # release on `insample < x` (interval (−∞, 0)) and an insample′ release on a true guard
    a = automaton([("q0", False, F(1), F(0)), ("q1", True, F(1, 2), F(0)), ("q2", True, F(1), F(1), F(1, 4), F(3))],
                  [(0, Guard.TRUE, 1, BOT, True), (1, Guard.LT, 1, OUT_INSAMPLE, False),
                   (1, Guard.GE, 2, TOP, False), (2, Guard.TRUE, 2, OUT_INSAMPLE_PRIME, False)])
    for v in [v for v in check(a).violations if v.kind == "DP003"]:
        rows, _ = table(a, v, F(1))
        d = F(1, 2) if a.transitions[v.disclose].guard is Guard.LT else F(1, 4)
        for length, value in rows.items():
            assert math.isclose(value, length * float(d), rel_tol=1e-9)


def test_violating_path_cases_a_and_b():
    # case a: an assignment that releases insample, then a G-loop
    a = automaton([("q0", False, F(1), F(0)), ("q1", True, F(1), F(0)), ("q2", True, F(1, 2), F(0))],
                  [(0, Guard.TRUE, 1, BOT, True), (1, Guard.TRUE, 2, OUT_INSAMPLE, True),
                   (2, Guard.GE, 2, TOP, False), (2, Guard.LT, 2, BOT, False)])
    vs = [v for v in check(a).violations if v.kind == "DP004"]
    assert {v.case for v in vs} >= {"a"}
    for v in vs:
        rows, _ = table(a, v, F(1))
        assert rows[16] > rows[4] > rows[1] > 0
    # case b (mirror): a `>=` step releasing insample, then an L-loop
    b = automaton([("q0", False, F(1), F(0)), ("q1", True, F(1), F(0)), ("q2", True, F(1, 2), F(0))],
                  [(0, Guard.TRUE, 1, BOT, True), (1, Guard.GE, 2, OUT_INSAMPLE, False),
                   (1, Guard.LT, 1, BOT, False),
                   (2, Guard.LT, 2, BOT, False), (2, Guard.GE, 2, TOP, False)])
    for v in [v for v in check(b).violations if v.kind in ("DP004",)]:
        rows, _ = table(b, v, F(1))
        assert rows[16] > rows[4] > rows[1] > 0


def test_leaking_cycle_with_noninput_store():
    # x := fresh draw in a non-input state inside the loop, compared next turn
    a = automaton([("q0", False, F(1), F(0)), ("q1", True, F(1), F(0)), ("q2", False, F(1), F(0))],
                  [(0, Guard.TRUE, 1, BOT, True), (1, Guard.GE, 2, TOP, False),
                   (1, Guard.LT, 3 - 1, BOT, False), (2, Guard.TRUE, 1, BOT, True)])
    # both branches lead to q2 → the comparison's outcome is visible each turn
    a.transitions[2].target = 2
    v = only(a, "DP001")
    rows, w = table(a, v, F(4), lengths=(1, 8, 16))
    assert rows[16] > rows[8] > rows[1] > 0
    assert rows[16] >= 1.8 * rows[8]


def test_leaking_pair_mirror():
    # a G-loop first, then (AL) an L-loop
    a = automaton([("q0", False, F(1, 2), F(0)), ("q1", True, F(1, 4), F(0)), ("q2", True, F(1, 4), F(0)),
                   ("q3", True, F(1, 4), F(0))],
                  [(0, Guard.TRUE, 1, BOT, True), (1, Guard.GE, 1, TOP, False), (1, Guard.LT, 2, BOT, False),
                   (2, Guard.LT, 2, BOT, False), (2, Guard.GE, 3, TOP, False)])
    v = only(a, "DP002")
    rows, _ = table(a, v, F(1), lengths=(1, 8, 32))
    assert rows[32] > 5 and rows[32] >= 3 * rows[8]


@pytest.mark.parametrize("example", ["sorted_desc", "svt_star", "numeric_sparse_mod", "noisy_stream"])
def test_mechanism_witnesses_speak_the_programs_language(example):
    """A `mechanism` author sees lines, turns and read() values — never state
    names, `insample` or τ — and the step list reads exactly the replayed inputs."""
    import re
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", f"examples/{example}.dp", "--witness",
                           "--format", "json"], capture_output=True, text=True, cwd=root)
    doc = json.loads(proc.stdout)
    block = next(b for f in doc["files"] for b in f["blocks"] if b["kind"] == "mechanism")
    witnesses = [d["data"]["witness"] for d in block["diagnostics"] if "witness" in d.get("data", {})]
    assert witnesses
    for w in witnesses:
        text = " ".join(w["program_steps"]) + " " + w["program_path"]
        assert not re.search(r"\bq\d+\b|insample|τ", text), text
        reads = [m.group(1) for s in w["program_steps"] for m in re.finditer(r"reads (\S+) \|", s)]
        replayed = w["commands"][0].split("--inputs=")[1].split()[0].strip("'").split(",")
        if "lines left out" not in text:
            assert reads == [a for a in replayed if a]
        assert "turn 1 of the loop at line" in text
