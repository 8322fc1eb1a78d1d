"""Path probabilities Pr[ε, ρ] (dslc.dipa.prob) and `dslc prob`."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction as F

import pytest

from dslc.cli import main
from dslc.dipa.prob import PathError, Step, path_probability
from dslc.dipa.sampler import path_frequency
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, DiPA, Guard, State, Transition,
                          symbol)

BOT, TOP = symbol("⊥"), symbol("⊤")


def rho1(e: float) -> float:
    return (24 * math.exp(3 * e / 4) - 1 + 8 * math.exp(e / 4) - 21 * math.exp(e / 2)) / (48 * math.exp(3 * e / 4))


def rho2(e: float) -> float:
    return (-22 + 32 * math.exp(e / 4) - 3 * e) / (48 * math.exp(e / 2))


def prob_cli(capsys, *args) -> dict:
    code = main(["prob", *args, "--format", "json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)


# ---------------------------------------------------------------------------
# Example 3 of the DiPA paper, through the command line

@pytest.mark.parametrize("eps", ["0.5", "1", "2"])
@pytest.mark.parametrize("block,first", [("svt_automaton", "bot"), ("svt", "_")])
def test_example3_closed_forms(capsys, eps, block, first):
    e = float(F(eps))
    for inputs, exact in (("0,1", rho1(e)), ("1,1", rho2(e))):
        got = prob_cli(capsys, "examples/svt.dp", "--block", block, "--epsilon", eps,
                       "--inputs", inputs, "--outputs", f"{first},bot,top")
        assert abs(got["probability"] - exact) <= 1e-9 * exact
        assert abs(got["log_probability"] - math.log(exact)) <= 1e-9
        assert 0 <= got["error"] <= 1e-12 * exact


def test_example3_text_output(capsys):
    assert main(["prob", "examples/svt.dp", "--block", "svt_automaton", "--epsilon", "1",
                 "--inputs", "τ,0,1", "--outputs", "⊥,⊥,⊤"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Pr[ε = 1, ρ] = 0.2505221308429281")
    assert "error ≤" in out


# ---------------------------------------------------------------------------
# Lemma 5 of the DiPA paper: Prob[X1 ≤ X2] for two Laplace draws

def lemma5(k1: float, m1: float, k2: float, m2: float) -> float:
    """Lemma 5, with the distinct-rate case corrected: the paper prints the
    denominators as 2(k2² − k1²); the difference of the two draws has the
    tail (k2² e^{−k1 D} − k1² e^{−k2 D}) / (2(k2² − k1²)), so inside the
    bracket they are (k2² − k1²) (this also gives the paper's equal-rate
    formula as the limit k2 → k1, and agrees with sampling)."""
    d = abs(m2 - m1)
    sgn = (m2 > m1) - (m2 < m1)
    if k1 != k2:
        inner = 1 - k2 ** 2 / (k2 ** 2 - k1 ** 2) * math.exp(-k1 * d) \
            + k1 ** 2 / (k2 ** 2 - k1 ** 2) * math.exp(-k2 * d)
    else:
        inner = 1 - math.exp(-k1 * d) * (1 + k1 * d / 2)
    return 0.5 * (1 + sgn * inner)


def two_step(d1: F, m1: F, d2: F) -> DiPA:
    a = DiPA("two")
    a.add_state(State("s", False, d1, m1))
    a.add_state(State("t", True, d2, F(0)))
    a.add_state(State("u", True, F(1), F(0)))
    a.add_transition(Transition(0, Guard.TRUE, 1, BOT, True))
    a.add_transition(Transition(1, Guard.GE, 2, TOP, False))
    a.add_transition(Transition(1, Guard.LT, 2, BOT, False))
    return a


@pytest.mark.parametrize("d1,d2", [(F(1), F(1)), (F(1, 2), F(1)), (F(1), F(1, 4)), (F(2, 9), F(1, 3))])
@pytest.mark.parametrize("m1,m2", [(F(0), F(0)), (F(0), F(1)), (F(1, 2), F(-3)), (F(2), F(7, 3))])
@pytest.mark.parametrize("eps", [F(1, 2), F(3)])
def test_lemma5(d1, d2, m1, m2, eps):
    a = two_step(d1, m1, d2)
    got = path_probability(a, [Step(0), Step(1, m2)], eps)
    exact = lemma5(float(d1 * eps), float(m1), float(d2 * eps), float(m2))
    assert abs(float(got.probability) - exact) <= 1e-12 * exact


# ---------------------------------------------------------------------------
# ratios far beyond what sampling can see

def disclosing(d: F) -> DiPA:
    a = DiPA("disc")
    a.add_state(State("s", False, F(1), F(0)))
    a.add_state(State("t", True, d, F(0)))
    a.add_transition(Transition(0, Guard.TRUE, 1, BOT, True))
    a.add_transition(Transition(1, Guard.GE, 1, OUT_INSAMPLE, False))
    a.add_transition(Transition(1, Guard.LT, 1, BOT, False))
    return a


@pytest.mark.parametrize("eps,turns", [(F(1), 30), (F(1, 2), 64), (F(8), 64)])
def test_ratio_e30_and_beyond(eps, turns):
    """Releasing insample ∈ (0, ∞) on inputs 0 vs −1: the ratio is exactly e^{turns·dε}."""
    a = disclosing(F(1))
    iv = (F(0), None)
    pa = path_probability(a, [Step(0)] + [Step(1, F(0), iv)] * turns, eps)
    pb = path_probability(a, [Step(0)] + [Step(1, F(-1), iv)] * turns, eps)
    ratio = float(pa.log_probability - pb.log_probability)
    assert abs(ratio - turns * float(eps)) <= 1e-9 * turns * float(eps)
    assert pa.error <= abs(pa.probability) / 10 ** 15 and pb.error <= abs(pb.probability) / 10 ** 15


def test_insample_prime_and_intervals():
    """A true-guard step releasing insample′ in (lo, hi): the Laplace mass, times the rest."""
    a = DiPA("prime")
    a.add_state(State("s", False, F(1), F(0)))
    a.add_state(State("t", True, F(1), F(0), F(1, 2), F(1)))
    a.add_transition(Transition(0, Guard.TRUE, 1, BOT, True))
    a.add_transition(Transition(1, Guard.TRUE, 1, OUT_INSAMPLE_PRIME, False))
    got = path_probability(a, [Step(0), Step(1, F(2), (F(2), F(5)))], F(2))
    # insample′ ~ Lap(1, 3): Prob[2 < Z < 5] = 1 − ½e^{−1} − ½e^{−2}
    exact = 1 - 0.5 * math.exp(-1) - 0.5 * math.exp(-2)
    assert abs(float(got.probability) - exact) <= 1e-13


def test_monte_carlo_cross_check():
    """Sampling agrees with the computed probability where the ratio is small."""
    from dslc.pipeline import check_source, read_source
    src, _ = read_source("examples/sorted_desc.dp")
    dipa = [b for b in check_source(src, {}).blocks if b.name == "sorted_desc_automaton"][0].ir
    steps = [Step(0, F(0)), Step(1, F(-1)), Step(1, F(-2)), Step(2, F(0))]
    p = float(path_probability(dipa, steps, F(1)).probability)
    n = 15000
    freq = path_frequency(dipa, steps, F(1), n, seed=7)
    assert abs(freq - p) <= 4.5 * math.sqrt(p * (1 - p) / n)


def test_path_errors():
    a = two_step(F(1), F(0), F(1))
    with pytest.raises(PathError):
        path_probability(a, [Step(0), Step(1)], F(1))          # input state without input
    with pytest.raises(PathError):
        path_probability(a, [Step(0, F(1))], F(1))             # τ state with an input
    with pytest.raises(PathError):
        path_probability(a, [Step(0)], F(0))                   # ε ≤ 0
    zero = two_step(F(1), F(0), F(0))
    with pytest.raises(PathError):
        path_probability(zero, [Step(0), Step(1, F(0))], F(1))  # comparison of a rate-0 draw


# ---------------------------------------------------------------------------
# command-line errors: message, exit 2, no traceback

BAD = [
    (["--epsilon", "0", "--inputs", "0,1", "--outputs", "bot,bot,top"], "ε must be positive"),
    (["--epsilon", "-1", "--inputs", "0,1", "--outputs", "bot,bot,top"], "ε must be positive"),
    (["--epsilon", "one", "--inputs", "0,1", "--outputs", "bot,bot,top"], "not a number"),
    (["--epsilon", "1", "--inputs", "0,x", "--outputs", "bot,bot,top"], "input 2 `x` is not a number"),
    (["--epsilon", "1", "--inputs", "0", "--outputs", "bot,bot,top"], "reads 2 inputs, but 1 was given"),
    (["--epsilon", "1", "--inputs", "0,1,2", "--outputs", "bot,bot,top"], "reads 2 inputs, but 3 were given"),
    (["--epsilon", "1", "--inputs", "0,1", "--outputs", "bot,top,top"], "no transition that outputs ⊤"),
    (["--epsilon", "1", "--inputs", "0,1", "--outputs", "bot,bot,(0,inf)"], "no transition that outputs (interval)"),
    (["--epsilon", "1", "--inputs", "0,1", "--outputs", "bot,bot,(0,"], "not an interval"),
]


@pytest.mark.parametrize("args,message", BAD)
def test_cli_errors(capsys, args, message):
    code = main(["prob", "examples/svt.dp", "--block", "svt_automaton", *args])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_cli_block_errors(capsys, tmp_path):
    assert main(["prob", "examples/svt.dp", "--epsilon", "1", "--outputs", "bot"]) == 2
    assert "--block" in capsys.readouterr().err                      # two DiPA blocks
    assert main(["prob", "examples/svt.dp", "--block", "nope", "--epsilon", "1", "--outputs", "bot"]) == 2
    assert "no block named `nope`" in capsys.readouterr().err
    assert main(["prob", str(tmp_path / "missing.dp"), "--epsilon", "1", "--outputs", "bot"]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.dp"
    bad.write_text("automaton a {\n  state q0 noinput Lap(ε, 0) { true -> q9 output ⊥ store }\n}\n")
    assert main(["prob", str(bad), "--epsilon", "1", "--outputs", "bot"]) == 2
    assert "not a valid DiPA" in capsys.readouterr().err


def test_cancellation_and_truncation_against_plain_high_precision():
    """A path whose expansion cancels ~60 digits (a leaking pair's loops, ε = 4):
    the reported value and bound agree with an untruncated 400-digit run."""
    from dslc.dipa import prob as P
    from dslc.pipeline import check_source, read_source
    src, _ = read_source("examples/svt_star.dp")
    dipa = [b for b in check_source(src, {}).blocks if b.name == "svt_star_automaton"][0].ir
    h = F(1, 2)
    steps = [Step(0)] + [Step(1, h)] * 24 + [Step(2, F(0))] + [Step(3, -h)] * 24
    got = path_probability(dipa, steps, F(4))
    exact, _ = P._run(P._Prepared(dipa, steps, F(0)), F(4), 400, None)
    assert abs(got.probability - exact) <= got.error
    assert got.error <= exact / 10 ** 15
