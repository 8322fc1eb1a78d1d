"""Pufferfish checks of `hmm` / `mdp` blocks: the examples through the CLI,
exact re-checks of counterexamples, synthesis, and e^ε bounds."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction as F
from pathlib import Path

import pytest

from dslc.cli import main
from dslc.pipeline import check_source
from dslc.ir.lower_hmm import lower_markov
from dslc.bounded import check as pcheck
from dslc.bounded.exact import compare_with_exp, exp_bounds
from dslc.source import SourceFile
from dslc.syntax.parser import parse_block
from dslc.syntax.split import split_blocks

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_json(capsys, *args) -> tuple[int, dict]:
    code = main(["check", *args, "--format", "json"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, json.loads(out.out)


def blocks_of(report: dict) -> dict[str, dict]:
    return {b["name"]: b for f in report["files"] for b in f["blocks"]}


def load_model(text: str, name: str | None = None):
    src = SourceFile("<test>", text)
    chunks, diags = split_blocks(src)
    assert not diags
    chunk = chunks[0] if name is None else next(c for c in chunks if c.name == name)
    block = parse_block(src, chunk.keyword, chunk.start, chunk.end)
    model, diags = lower_markov(block)
    assert model is not None, [d.message for d in diags]
    return model


# ---------------------------------------------------------------- literal semantics
def literal_probability(model, env, init: dict[int, F], obs: list[int], acts: list[int]) -> F:
    """Σ over hidden state paths of init(s0)·Π o(s_t, w_t)·Π p_{a_t}(s_t, s_{t+1})."""
    num = model.numeric(env)
    total = F(0)
    for path in itertools.product(range(num.n_states), repeat=len(obs)):
        p = init.get(path[0], F(0))
        for t, s in enumerate(path):
            if not p:
                break
            p *= num.emit[s].get(obs[t], F(0))
            if t + 1 < len(path):
                p *= num.trans[acts[t] if acts else 0][s].get(path[t + 1], F(0))
        total += p
    return total


def literal_side(model, env, secret: int) -> dict[int, F]:
    num = model.numeric(env)
    states = model.secrets[secret].states
    mass = sum(num.prior[s] for s in states)
    return {s: num.prior[s] / mass for s in states}


def literal_private(model, env=None) -> bool:
    """Brute force over every observation and action sequence (slow, literal)."""
    env = env or {}
    num = model.numeric(env)
    k = model.horizon
    action_seqs = list(itertools.product(range(num.n_actions), repeat=k - 1)) if model.is_mdp else [()]
    for pair in model.pairs:
        for left, right in ((pair.left, pair.right), (pair.right, pair.left)):
            il, ir = literal_side(model, env, left), literal_side(model, env, right)
            for acts in action_seqs:
                for obs in itertools.product(range(num.n_obs), repeat=k):
                    pl = literal_probability(model, env, il, list(obs), list(acts))
                    pr = literal_probability(model, env, ir, list(obs), list(acts))
                    if above_bound(model, pl, pr):
                        return False
    return True


def above_bound(model, pl: F, pr: F) -> bool:
    c = model.epsilon.exact_bound
    if c is not None:
        return pl > c * pr
    if pr == 0:
        return pl > 0
    return compare_with_exp(pl / pr, model.epsilon.value) > 0


# ---------------------------------------------------------------- the examples
EXPECTED = {
    "survey": "private",
    "survey_ln2": "not-private",
    "survey_interactive": "not-private",
    "survey_interactive_ln4": "private",
    "geometric_independent": "private",
    "geometric_contagious": "not-private",
    "geometric_prior": "private",
    "geometric_paper_prior": "not-private",
}
FILES = ["survey.dp", "survey_interactive.dp", "geometric.dp"]


@pytest.fixture(scope="module")
def example_report():
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["check", *[str(EXAMPLES / f) for f in FILES], "--format", "json"])
    return code, json.loads(buf.getvalue())


def test_example_verdicts_json(example_report):
    code, report = example_report
    blocks = blocks_of(report)
    assert {n: b["verdict"] for n, b in blocks.items()} == EXPECTED
    assert code == 1                              # a violation was found
    for name, b in blocks.items():
        assert b["kind"] == ("mdp" if "interactive" in name else "hmm")
        assert b["d"] is None
        codes = {d["code"] for d in b["diagnostics"]}
        assert codes == ({"DP101"} if EXPECTED[name] == "not-private" else set())


def test_examples_expect_lines_match(example_report):
    """The `// expect:` lines of the example files agree with the verdicts."""
    _, report = example_report
    blocks = blocks_of(report)
    seen = 0
    for f in FILES:
        for line in (EXAMPLES / f).read_text(encoding="utf-8").splitlines():
            if line.startswith("// expect:"):
                name, verdict, *rest = line.split(":", 1)[1].split()
                assert blocks[name]["verdict"] == verdict
                for extra in rest:
                    if extra.startswith("codes="):
                        assert {d["code"] for d in blocks[name]["diagnostics"]} == set(extra[6:].split(","))
                seen += 1
    assert seen == len(EXPECTED)


def test_survey_ln2_counterexample(example_report):
    _, report = example_report
    diags = blocks_of(report)["survey_ln2"]["diagnostics"]
    data = {tuple(d["data"]["direction"]): d["data"] for d in diags}
    yes = data[("positive", "negative")]
    assert yes["observations"] == ["quiet", "yes"]
    assert yes["probabilities"] == {"positive": "3/4", "negative": "1/4"}
    assert yes["ratio"] == "3" and yes["bound"] == "e^ε = 2"
    assert data[("negative", "positive")]["observations"] == ["quiet", "no"]
    # the primary span is the `protect` line
    text = (EXAMPLES / "survey.dp").read_text(encoding="utf-8").splitlines()
    line = diags[0]["span"]["line"]
    assert text[line - 1].strip().startswith("protect positive, negative")


def test_interactive_survey_adversary_picks_h(example_report):
    _, report = example_report
    for d in blocks_of(report)["survey_interactive"]["diagnostics"]:
        assert d["data"]["actions"] == ["H"]
        assert d["data"]["ratio"] == "4"
        assert d["data"]["bound"] == "e^ε = 3"


def test_geometric_contagious_sequence(example_report):
    _, report = example_report
    diags = blocks_of(report)["geometric_contagious"]["diagnostics"]
    seqs = {tuple(d["data"]["observations"]) for d in diags}
    assert seqs == {("none", "0"), ("none", "2")}
    assert {d["data"]["ratio"] for d in diags} == {"4"}
    for d in diags:   # the witness names the value of the symbolic parameter
        q = F(d["data"]["parameters"]["q"])
        assert 0 < q < 1


def test_geometric_found_prior_is_private_and_not_binomial(example_report):
    _, report = example_report
    b = blocks_of(report)["geometric_prior"]
    found = {k: F(v) for k, v in b["details"]["found"].items()}
    assert set(found) == {"p0", "p1", "p2"}
    p0, p1, p2 = found["p0"], found["p1"], found["p2"]
    assert p0 + p1 + p2 == 1 and min(found.values()) > 0
    assert p1 * p1 != 4 * p0 * p2                        # not binomial
    model = load_model((EXAMPLES / "geometric.dp").read_text(encoding="utf-8"), "geometric_prior")
    assert literal_private(model, found)
    # in this model, ln 2-privacy holds exactly when p1^2 >= 4 p0 p2
    assert p1 * p1 >= 4 * p0 * p2


def test_paper_prior_is_not_private_here(example_report):
    """(1/2, 1/4, 1/4), found by the paper's z3, violates ln 2 in this model."""
    _, report = example_report
    diags = blocks_of(report)["geometric_paper_prior"]["diagnostics"]
    d = next(x for x in diags if x["data"]["direction"] == ["john_healthy", "john_sick"])
    assert d["data"]["observations"] == ["none", "0"]
    assert d["data"]["ratio"] == "27/10"


def test_text_output(capsys):
    code = main(["check", str(EXAMPLES / "survey.dp"), "--color", "never"])
    out = capsys.readouterr().out
    assert code == 1
    assert "✓ hmm survey" in out and "✗ hmm survey_ln2" in out
    assert "error[DP101]" in out and "(quiet, yes)" in out and "ratio 3 > e^ε = 2" in out


@pytest.mark.parametrize("name", FILES)
def test_text_verdict_lines(capsys, name):
    main(["check", str(EXAMPLES / name), "--color", "never"])
    out = capsys.readouterr().out
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    for block, verdict in EXPECTED.items():
        kind = "mdp" if "interactive" in block else "hmm"
        if f"{kind} {block} " not in text:
            continue
        mark = "✓" if verdict == "private" else "✗"
        assert f"{mark} {kind} {block} (" in out


def test_private_exit_zero(capsys, tmp_path):
    text = (EXAMPLES / "survey_interactive.dp").read_text(encoding="utf-8")
    start = text.index("mdp survey_interactive_ln4")
    path = tmp_path / "ok.dp"
    path.write_text(text[start:], encoding="utf-8")
    code, report = run_json(capsys, str(path))
    assert code == 0
    assert blocks_of(report)["survey_interactive_ln4"]["verdict"] == "private"


# ---------------------------------------------------------------- re-checks
def test_every_counterexample_is_exact(example_report):
    """Each DP101 of the examples, recomputed by the literal path sum, exceeds e^ε."""
    _, report = example_report
    for f in FILES:
        text = (EXAMPLES / f).read_text(encoding="utf-8")
        for name, b in blocks_of(report).items():
            if f"{'mdp' if 'interactive' in name else 'hmm'} {name} " not in text:
                continue
            model = load_model(text, name)
            for d in b["diagnostics"]:
                data = d["data"]
                env = {k: F(v) for k, v in data.get("parameters", {}).items()}
                left = next(i for i, s in enumerate(model.secrets) if s.name == data["direction"][0])
                right = next(i for i, s in enumerate(model.secrets) if s.name == data["direction"][1])
                obs = [model.observations.index(o) for o in data["observations"]]
                acts = [model.actions.index(a) for a in data["actions"]]
                pl = literal_probability(model, env, literal_side(model, env, left), obs, acts)
                pr = literal_probability(model, env, literal_side(model, env, right), obs, acts)
                assert F(data["probabilities"][data["direction"][0]]) == pl
                assert F(data["probabilities"][data["direction"][1]]) == pr
                assert above_bound(model, pl, pr)


def test_wrong_witness_is_never_printed(monkeypatch):
    """If the solver's witness does not survive the exact re-check, no violation is
    reported: the verdict is unknown (E231)."""
    model = load_model((EXAMPLES / "survey.dp").read_text(encoding="utf-8"), "survey")
    real = pcheck.Encoder.violation

    def lax(self, left, right, c, k=None):
        q = real(self, left, right, c, k)
        q.assertions = q.assertions[:-1]        # drop the ratio comparison: any sequence is a "witness"
        return q

    monkeypatch.setattr(pcheck.Encoder, "violation", lax)
    out = pcheck.check_model(model, 30)
    assert out.verdict == "unknown" and out.bug and not out.violations


def test_wrong_witness_through_cli(monkeypatch, capsys, tmp_path):
    text = (EXAMPLES / "survey.dp").read_text(encoding="utf-8")
    path = tmp_path / "survey_only.dp"
    path.write_text(text[:text.index("hmm survey_ln2")].replace("// expect", "//"), encoding="utf-8")
    real = pcheck.Encoder.violation

    def lax(self, left, right, c, k=None):
        q = real(self, left, right, c, k)
        q.assertions = q.assertions[:-1]
        return q

    monkeypatch.setattr(pcheck.Encoder, "violation", lax)
    monkeypatch.setattr(pcheck, "ENUM_WORK_LIMIT", 0)     # the SMT engine, not the enumeration
    code, report = run_json(capsys, str(path))
    b = blocks_of(report)["survey"]
    assert b["verdict"] == "unknown" and [d["code"] for d in b["diagnostics"]] == ["E231"]
    assert code == 2


# ---------------------------------------------------------------- symbolic parameters
SYMBOLIC_SURVEY = """
hmm s {
    states pos, neg, y, n
    observations quiet, yes, no
    param p in RANGE
    prior pos: 1/2, neg: 1/2
    pos -> y: p, n: 1 - p
    neg -> y: 1 - p, n: p
    y -> y; n -> n
    pos emits quiet; neg emits quiet; y emits yes; n emits no
    secret a = {pos}
    secret b = {neg}
    protect a, b
    check ε = ln 3, k = 2
    FIND
}
"""


def check_text(text: str, timeout: float = 30):
    result = check_source(SourceFile("<test>", text), {"timeout": timeout})
    assert len(result.blocks) == 1
    return result.blocks[0]


def test_symbolic_private_for_every_p():
    b = check_text(SYMBOLIC_SURVEY.replace("RANGE", "[1/4, 3/4]").replace("FIND", ""))
    assert b.verdict.value == "private", [d.message for d in b.diagnostics]
    assert "for every p in [1/4, 3/4]" in b.summary


def test_symbolic_violation_has_rational_witness():
    b = check_text(SYMBOLIC_SURVEY.replace("RANGE", "(1/2, 1)").replace("FIND", ""))
    assert b.verdict.value == "not-private"
    for d in b.diagnostics:
        p = F(d.data["parameters"]["p"])
        assert F(3, 4) < p < 1                       # p/(1-p) > 3 exactly when p > 3/4
        assert F(d.data["ratio"]) == p / (1 - p)


def test_find_value():
    b = check_text(SYMBOLIC_SURVEY.replace("RANGE", "(1/2, 1)").replace("FIND", "find p"))
    assert b.verdict.value == "private"
    p = F(b.details["found"]["p"])
    assert F(1, 2) < p <= F(3, 4)


def test_find_none():
    b = check_text(SYMBOLIC_SURVEY.replace("RANGE", "(4/5, 1)").replace("FIND", "find p"))
    assert b.verdict.value == "not-private"
    assert b.details["found"] is None
    assert [d.code for d in b.diagnostics] == ["DP101"]
    assert b.diagnostics[0].data["found"] is None


def test_irrational_epsilon():
    base = SYMBOLIC_SURVEY.replace("param p in RANGE", "param p = 3/4").replace("FIND", "")
    # e^1.1 ≈ 3.004 > 3: private; e^1 ≈ 2.718 < 3: not private
    assert check_text(base.replace("ε = ln 3", "ε = 1.1")).verdict.value == "private"
    b = check_text(base.replace("ε = ln 3", "ε = 1"))
    assert b.verdict.value == "not-private"
    assert b.diagnostics[0].data["bound"].startswith("e^ε = e^1 ≈ 2.718")


def test_timeout_gives_unknown(capsys):
    # the block's budget is spent: every phase stops with E014 (as for every block kind)
    code, report = run_json(capsys, str(EXAMPLES / "geometric.dp"), "--timeout", "0.000001")
    for b in blocks_of(report).values():
        assert b["verdict"] == "unknown"
        assert [d["code"] for d in b["diagnostics"]] == ["E014"]
    assert code == 2


def test_solver_time_out_inside_the_budget_is_e230():
    """The check's own limit (shorter than the block's budget) gives E230 with the time spent."""
    model = load_model((EXAMPLES / "geometric.dp").read_text(encoding="utf-8"), "geometric_independent")
    out = pcheck.check_model(model, 0.000001)
    assert out.verdict == "unknown" and "time limit" in out.reason and not out.bug


# ---------------------------------------------------------------- e^ε
@pytest.mark.parametrize("x", [F(1, 1000), F(1, 2), F(1), F(11, 10), F(7, 3), F(10), F(50)])
def test_exp_bounds(x):
    for bits in (16, 64, 256):
        lo, hi = exp_bounds(x, bits)
        assert lo < hi
        tol = max(2.0 ** -(bits - 2), 1e-15)          # relative width about 2^-bits
        assert math.isclose(float(lo), math.exp(x), rel_tol=tol)
        assert math.isclose(float(hi), math.exp(x), rel_tol=tol)
    lo, hi = exp_bounds(x, 256)
    lo2, hi2 = exp_bounds(x, 64)
    assert lo2 <= lo and hi <= hi2                   # tighter bounds nest inside looser ones


def test_exp_bounds_bracket_exactly():
    # e = 2.718281828459045235360287471352662497757...
    lo, hi = exp_bounds(F(1), 128)
    e_lo = F(2718281828459045235360287471352662497757, 10 ** 39)
    e_hi = e_lo + F(1, 10 ** 39)
    assert lo < e_hi and hi > e_lo
    assert compare_with_exp(F(2718281828459045235, 10 ** 18), F(1)) == -1
    assert compare_with_exp(F(2718281828459045236, 10 ** 18), F(1)) == 1
    assert compare_with_exp(F(1), F(0)) == 0


@pytest.mark.parametrize("engine", ["dp", "enum"])
def test_exact_engines_agree_with_smt(engine):
    from dslc.pipeline import check_path
    for f in FILES:
        smt = check_path(str(EXAMPLES / f), {"timeout": 30})
        other = check_path(str(EXAMPLES / f), {"timeout": 30, "pufferfish_engine": engine})
        assert [b.verdict for b in smt.blocks] == [b.verdict for b in other.blocks]
        for a, b in zip(smt.blocks, other.blocks):
            assert {tuple(d.data["direction"]) for d in a.diagnostics if d.code == "DP101"} == \
                   {tuple(d.data["direction"]) for d in b.diagnostics if d.code == "DP101"}


def test_mdp_with_one_action_names_it():
    text = """mdp one {
        states a, b
        observations x, y
        actions only
        prior a: 1/2, b: 1/2
        a -> a; b -> b
        a emits x: 3/4, y: 1/4
        b emits x: 1/4, y: 3/4
        secret s = {a}
        secret t = {b}
        protect s, t
        check ε = ln 2, k = 2
    }"""
    b = check_text(text)
    assert b.verdict.value == "not-private"
    assert all(d.data["actions"] == ["only"] for d in b.diagnostics)
    assert {d.data["ratio"] for d in b.diagnostics} == {"9"}
