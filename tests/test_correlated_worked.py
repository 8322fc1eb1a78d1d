"""The paper's worked example of the Markov Quilt mechanism (Section 4):
T = 3, q = (1/2, 1/2), P = [[6/7, 1/7], [1/7, 6/7]], ε = 10."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

from dslc.ir import chain_structure as markov
from dslc.correlated.influence import NodeTables
from dslc.correlated.mqm import node_quilts, search_nodes
from tests.test_correlated_reference import check_text, max_influence_ratio

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "chain_worked.dp"
P = [[Fraction(6, 7), Fraction(1, 7)], [Fraction(1, 7), Fraction(6, 7)]]
Q = [Fraction(1, 2), Fraction(1, 2)]
# the paper: quilt -> (max-influence as exp(e), score to 4 places)
PAPER = {"∅": (Fraction(1), 0.3), "{X1}": (Fraction(6), 0.2437), "{X3}": (Fraction(6), 0.2437),
         "{X1, X3}": (Fraction(36), 0.1558)}


def _calibration():
    res = check_text(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE))
    (block,) = res.blocks
    assert block.verdict.value == "private"
    return block, block.analysis


def test_correlateds_of_x2_match_the_paper():
    block, cal = _calibration()
    rows = node_quilts(3, Fraction(10), 2, cal.node_tables, cal.distance_influence, reach=2)
    got = {q.describe(): (ratio, q.score) for q, ratio, exact in rows}
    assert set(got) == set(PAPER)
    for name, (ratio, score) in PAPER.items():
        assert got[name][0] == ratio, name                       # exact: 1, 6, 6, 36
        assert round(got[name][1], 4) == score, name
    # the ratios agree with the definition, enumerated over all 8 sequences
    for name, nodes in {"{X1}": [1], "{X3}": [3], "{X1, X3}": [1, 3]}.items():
        assert max_influence_ratio([(Q, P)], 3, 2, nodes) == PAPER[name][0]


def test_active_quilt_of_x2_and_noise():
    block, cal = _calibration()
    mq = cal.mechanism("markov_quilt")
    active = mq.details["active_quilt"]
    assert mq.details["worst_node"] == 2 and mq.details["nodes_at_max"] == 1
    assert active["quilt"] == "{X1, X3}" and active["card"] == 1
    assert active["max_influence"] == "log(36)"
    sigma = 1 / (10 - math.log(36))
    assert mq.scale_text == "0.155849"
    assert sigma <= mq.scale_value <= sigma * (1 + 1e-5)       # rounded up, never down
    assert cal.recommended.key == "markov_quilt"
    assert cal.mechanism("group_dp").scale_text == "3/10"
    assert block.summary.startswith("Markov Quilt mechanism: Lap(scale 0.155849) is ε-Pufferfish private")


def test_per_node_search_agrees():
    """The literal per-node search (exact marginals) gives the same answer."""
    model = _calibration()[1].ir.models[0]
    res = search_nodes(3, Fraction(10), [NodeTables(model, 3)], None)
    assert res.worst.node == 2 and res.worst.describe() == "{X1, X3}"
    assert abs(res.sigma - 1 / (10 - math.log(36))) < 1e-12
    assert markov.stationary(P) == Q


def test_cli_json_node_table():
    out = subprocess.run([sys.executable, "-m", "dslc", "calibrate", str(EXAMPLE), "--node", "2",
                          "--format", "json"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    (block,) = data["blocks"]
    rows = {r["quilt"]: r for r in block["node_quilts"]}
    assert {k: (v["max_influence_ratio"], round(float(Fraction(v["score"])), 4)) for k, v in rows.items()} == {
        "∅": ("1", 0.3), "{X1}": ("6", 0.2437), "{X3}": ("6", 0.2437), "{X1, X3}": ("36", 0.1558)}
    assert rows["∅"]["score"] == "3/10"             # exact where no log is involved
    cal = block["calibration"]
    assert cal["recommended"] == "markov_quilt"
    mq = next(m for m in cal["mechanisms"] if m["key"] == "markov_quilt")
    assert mq["active_quilt"]["quilt"] == "{X1, X3}"
    assert mq["active_quilt"]["max_influence_exact_ratio"] == "36"


def test_check_json_contract():
    out = subprocess.run([sys.executable, "-m", "dslc", "check", str(EXAMPLE), "--format", "json"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0
    (block,) = json.loads(out.stdout)["files"][0]["blocks"]
    assert block["kind"] == "chain" and block["verdict"] == "private" and block["d"] is None
    assert block["details"]["calibration"]["recommended_scale"] == "0.155849"
    assert block["summary"].startswith("Markov Quilt mechanism: Lap(scale 0.155849)")
