"""The evidence `dslc check` prints for blocks with several stored variables
(docs/multivariable.md, "Evidence in `dslc check`"): output events and their
probabilities against the direct interpreter, the lower bound and witnesses
replayed through `dslc prob`, budgets, and random automata.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import subprocess
import sys
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from dslc.cli import main
from dslc.dipa import multi_evidence
from dslc.dipa.interpret import run_program
from dslc.dipa.multievent import event_probability
from dslc.dipa.multiprob import verify
from dslc.dipa.multivar import NOT_PRIVATE, PRIVATE, check_multi
from dslc.dipa.paths import PathTextError, build_path, matching_paths, parse_outputs
from dslc.dipa.multiprob import path_probability
from dslc.dipa.sampler import Noise
from dslc.pipeline import check_source, read_source
from tests.dipa_strategies import dipas, multi_dipas
from tests.sizes import examples

ROOT = Path(__file__).resolve().parent.parent
FAST = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))


def _block(path: str, name: str):
    source, _ = read_source(str(ROOT / path))
    return next(b for b in check_source(source, {}).blocks if b.name == name)


def _dslc(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(args))
    return code, out.getvalue()


# ------------------------------------------------------------------ output events
@pytest.mark.parametrize("path,name,inputs,outputs,paths", [
    # the second `read` is printed by three branches (t >= hi, t < lo, between)
    ("examples/min_max.dp", "min_max", [0, 0, 0], "read,read,below", 3),
    ("examples/min_max.dp", "min_max", [0, 1, -1, 2], "read,read,inside,above", 3),
    ("examples/range_monitor.dp", "range_monitor", [0, 3], "inside,outside", None),
])
def test_event_probability_is_the_direct_interpreters_frequency(path, name, inputs, outputs, paths):
    b = _block(path, name)
    inputs = [Fraction(a) for a in inputs]
    want = parse_outputs(outputs)
    pr, n = event_probability(b.ir, inputs, [o for o in _with_silent_steps(b.ir, want)], Fraction(1))
    if paths is not None:
        assert n == paths
    rng = random.Random(7)
    runs = 4000
    hits = sum(run_program(b.syntax, inputs, Fraction(1), Noise(rng)).outputs == want for _ in range(runs))
    p = float(pr.probability)
    sd = math.sqrt(p * (1 - p) / runs)
    assert abs(hits / runs - p) <= 5 * sd + 1e-9, (hits / runs, p)


def _with_silent_steps(m, outputs):
    """The automaton's outputs: `_` for the silent steps before the first output
    (the mechanisms here store their thresholds silently first)."""
    q, out = m.initial, []
    edges = m.out_edges()
    while all(m.transitions[e].output.symbol is None and not m.transitions[e].output.is_real for e in edges[q]) \
            and edges[q]:
        out.append("")
        q = m.transitions[edges[q][0]].target
    return out + list(outputs)


@settings(FAST, max_examples=40)
@given(dipas(max_states=5))
def test_one_variable_paths_are_their_own_event(dipa):
    """With output distinction an output sequence is one path (DiPA): the same steps."""
    q, outputs, inputs = dipa.initial, [], []
    edges = dipa.out_edges()
    for _ in range(4):
        if not edges[q]:
            break
        t = dipa.transitions[edges[q][0]]
        outputs.append((None, None) if t.output.is_real else (t.output.symbol or ""))
        if dipa.states[q].is_input:
            inputs.append(Fraction(0))
        q = t.target
    if not outputs:
        return
    assert matching_paths(dipa, inputs, outputs) == [build_path(dipa, inputs, outputs)]


def test_an_output_sequence_no_path_prints_is_a_plain_error():
    b = _block("examples/range_monitor.dp", "range_monitor_automaton")
    with pytest.raises(PathTextError):
        matching_paths(b.ir, [Fraction(0)], ["", "", "above"])


# ------------------------------------------------------------------ dslc check's evidence replays
@pytest.mark.parametrize("path", ["examples/range_monitor.dp", "examples/min_max.dp", "examples/two_svt.dp"])
def test_printed_evidence_replays_with_dslc_prob(path):
    code, out = _dslc("check", "--format", "json", "--witness", path)
    blocks = json.loads(out)["files"][0]["blocks"]
    checked = 0
    for b in blocks:
        if b["verdict"] == "private":
            assert Fraction(b["d_lower"]) <= Fraction(b["d"])
            w = b["d_lower_witness"]
            if w is None:
                continue
            eps = Fraction(w["epsilon"])
            prs = [_replayed(c) for c in w["commands"]]
            assert prs == [Decimal(w["pr_alpha"]), Decimal(w["pr_beta"])]
            loss = (prs[0].ln() - prs[1].ln()) / Decimal(eps.numerator) * Decimal(eps.denominator)
            assert loss >= Decimal(b["d_lower"])
            checked += 1
        else:
            for diag in b["diagnostics"]:
                w = diag.get("data", {}).get("witness", {})
                if not w.get("found"):
                    continue
                prs = [_replayed(c) for c in w["commands"]]
                eps = Fraction(w["epsilon"])
                assert float(prs[0].ln() - prs[1].ln()) > 2 * eps
                checked += 1
    assert checked


def _replayed(command: str) -> Decimal:
    """Pr of a printed `dslc prob` line, run as printed."""
    import shlex
    args = shlex.split(command)
    assert args[:2] == ["dslc", "prob"]
    code, out = _dslc(*args[1:])
    assert code == 0
    return Decimal(out.splitlines()[0].split("= ")[-1])


def test_dslc_prob_prints_the_sum_over_the_paths():
    proc = subprocess.run([sys.executable, "-m", "dslc", "prob", "examples/min_max.dp", "--epsilon", "1",
                           "--inputs=0,0,0", "--outputs=read,read,below"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Pr[ε = 1, ρ] = 0.2916666666666666")     # 7/24
    assert "the sum over the 3 paths" in proc.stdout


# ------------------------------------------------------------------ budgets
def _check(text: str, *flags: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", *flags, "-"],
                          input=text, capture_output=True, text=True, cwd=ROOT, timeout=120)
    return json.loads(proc.stdout)["files"][0]["blocks"][0] | {"exit": proc.returncode}


RANGE = """mechanism range_monitor BUDGET {
    l := Lap(ε/4, 0)
    r := Lap(ε/4, 1)
    loop {
        s := Lap(ε/4, read())
        if s >= l && s < r { output "inside" } else { output "outside"; halt }
    }
}
"""


def test_a_budget_on_several_variables_is_met_not_proven_or_exceeded():
    met = _check(RANGE.replace("BUDGET", "budget ε"))
    assert (met["verdict"], met["budget"]["status"], met["exit"]) == ("private", "met", 0)
    loose = _check(RANGE.replace("BUDGET", "budget ε/2"))
    assert (loose["verdict"], loose["budget"]["status"], loose["exit"]) == ("not-private", "not-proven", 1)
    assert loose["diagnostics"][0]["code"] == "DP005" and loose["d"] is None and loose["d_upper"] == "1"
    low = Fraction(loose["d_lower"])
    assert 0 < low <= 1
    exceeded = _check(RANGE.replace("BUDGET", ""), "--max-d", str(low / 2))
    assert (exceeded["verdict"], exceeded["budget"]["status"]) == ("not-private", "exceeded")
    diag = exceeded["diagnostics"][0]
    assert diag["code"] == "DP006" and diag["data"]["witness"]["commands"]


def test_sensitivity_on_several_variables_is_refused_with_a_location():
    b = _check(RANGE.replace("BUDGET", "sensitivity 2"))
    assert b["verdict"] == "error" and b["diagnostics"][0]["code"] == "E133"
    assert b["diagnostics"][0]["span"]["line"] == 1


# ------------------------------------------------------------------ random automata
@settings(FAST, max_examples=examples(60, 20))
@given(multi_dipas(max_states=4))
def test_random_automata_evidence_is_an_output_event_that_proves_what_it_says(m):
    r = check_multi(m)
    if r.verdict == PRIVATE and r.d:
        lb = multi_evidence.lower_bound(m, r, work=6_000)
        assert not lb.problem and not lb.contradiction, (lb.problem, lb.contradiction)
        assert Fraction(lb.value) <= lb.exact <= r.d
        if lb.event is not None:
            again = verify(m, lb.event.alpha, lb.event.beta, lb.event.epsilon)
            assert again.observable and again.lower == lb.event.lower
            assert again.lower / _dec(lb.event.epsilon) >= lb.value
    elif r.verdict == NOT_PRIVATE:
        for shown in multi_evidence.witnesses(m, replace(r, violations=r.violations[:2]), work=20_000):
            if shown.event is None:
                assert shown.reason
                continue
            ev = shown.event
            assert ev.lower > 2 * _dec(ev.epsilon)
            assert ev.paths == 1          # "not private" needs output distinction
            single = path_probability(m, ev.alpha, ev.epsilon)
            assert abs(single.probability - ev.pr_alpha.probability) <= single.error + ev.pr_alpha.error


def _dec(x: Fraction) -> Decimal:
    return Decimal(x.numerator) / Decimal(x.denominator)


def test_witness_lines_of_a_dipaut_file_replay():
    code, out = _dslc("check", "--format", "json", "--witness",
                      "tests/fixtures/dipaut/examples/leaking_pair/example_8.dipa")
    (diag,) = json.loads(out)["files"][0]["blocks"][0]["diagnostics"]
    w = diag["data"]["witness"]
    assert w["found"]
    prs = [_replayed(c) for c in w["commands"]]
    assert prs == [Decimal(w["pr_alpha"]), Decimal(w["pr_beta"])]
    assert float(prs[0].ln() - prs[1].ln()) > 2 * Fraction(w["epsilon"])


def test_the_corpus_note_on_two_range_1_replays():
    """The fixture note's evidence for the one file dslc leaves unknown."""
    note = json.loads((ROOT / "tests/fixtures/dipaut/multivar.json").read_text())["files"][
        "simple_examples/two_range_1.dipa"]["why"]
    first = note.split("`dslc prob ")[1].split("`")[0]
    beta = note.split("the same with `")[1].split("`")[0]
    second = first.split(" --inputs=")[0] + " " + beta + " --outputs=" + first.split("--outputs=")[1]
    pa, pb = _replayed("dslc prob " + first), _replayed("dslc prob " + second)
    assert abs(float(pa.ln() - pb.ln()) - 2.088) < 5e-4


def test_a_witness_above_the_proven_d_makes_the_block_unknown_never_private(monkeypatch):
    """Were the checker's d too small, the verified lower bound would contradict it:
    the block must then get no verdict (DP010), not `private`."""
    from dslc.dipa import multi_backend

    def too_small(m):
        r = check_multi(m)
        return replace(r, d=r.d / 100) if r.verdict == PRIVATE else r

    monkeypatch.setattr(multi_backend, "check_multi", too_small)
    b = _block("examples/min_max.dp", "min_max")
    assert b.verdict.value == "unknown" and b.d is None
    assert b.diagnostics[0].code == "DP010" and "disagree" in b.diagnostics[0].message + str(b.diagnostics[0].notes)
