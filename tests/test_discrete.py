"""Discrete mechanisms checked by the bounded checker (docs/discrete.md): the
examples' JSON verdicts and goldens, located errors, and the engine against a
brute-force reference on generated programs."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

from dslc.bounded.mechanism import check, output_distributions, Machine
from dslc.ir.lower_mechanism_bounded import lower_discrete
from dslc.source import SourceFile
from dslc.syntax.parser import parse_block

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "discrete"


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "dslc", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=240)


def verdicts(*args: str) -> dict[str, dict]:
    out = run("check", "--format", "json", *args)
    data = json.loads(out.stdout)
    return {b["name"]: b for f in data["files"] for b in f["blocks"]}


CASES = [
    # (file, extra args, {block: (verdict, d)})
    ("examples/discrete/randomized_response.dp", [], {"randomized_response": ("private", "1"),
                                                      "randomized_response_wrong": ("not-private", None)}),
    ("examples/discrete/randomized_response.dp", ["--horizon", "2"],
     {"randomized_response": ("private", "1"), "randomized_response_wrong": ("not-private", None)}),
    ("examples/discrete/geometric.dp", [], {"geometric": ("private", "1")}),
    ("examples/discrete/noisy_max.dp", [], {"noisy_max": ("private", "3/2"),
                                            "noisy_max_buggy": ("not-private", None)}),
    ("examples/discrete/svt.dp", [], {"svt_discrete": ("private", "3/2")}),
    ("tests/golden/discrete/errors.dp", [], {"no_domain": ("error", None), "unclamped": ("error", None),
                                             "mixed": ("error", None), "bad_coin": ("error", None)}),
]


@pytest.mark.parametrize("path,args,expected", CASES, ids=lambda c: str(c)[:40])
def test_json_verdicts(path, args, expected):
    blocks = verdicts(path, *args)
    assert set(blocks) == set(expected)
    for name, (verdict, d) in expected.items():
        assert blocks[name]["verdict"] == verdict, name
        if d is not None:
            assert blocks[name]["d"] == d, name


@pytest.mark.parametrize("golden,args", [
    ("randomized_response.out", ["examples/discrete/randomized_response.dp"]),
    ("noisy_max.out", ["examples/discrete/noisy_max.dp"]),
    ("geometric.out", ["examples/discrete/geometric.dp"]),
    ("errors.out", ["tests/golden/discrete/errors.dp"]),
])
def test_golden(golden, args):
    out = run("check", "--color", "never", *args)
    text = out.stdout + out.stderr
    path = GOLDEN / golden
    if os.environ.get("DSLC_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


def test_backend_bounded_on_a_laplace_mechanism_is_a_located_error():
    blocks = verdicts("examples/svt.dp", "--backend", "bounded")
    assert blocks["svt"]["verdict"] == "error"
    assert {"E151", "E159"} <= {d["code"] for d in blocks["svt"]["diagnostics"]}
    # the automaton is untouched by the option
    assert blocks["svt_automaton"]["verdict"] == "private"


def test_witness_json_has_both_probabilities():
    w = verdicts("examples/discrete/randomized_response.dp")["randomized_response_wrong"]
    wit = w["details"]["witness"]
    assert wit["pr_alpha"] == "e^(8ε) / (1 + 4·e^(2ε) + 6·e^(4ε) + 4·e^(6ε) + e^(8ε))"
    a, b = Fraction(wit["pr_alpha_value"]), Fraction(wit["pr_beta_value"])
    assert a / b == 4          # e^(2ε) at ε = ln 2, above the budget e^ε = 2


# ------------------------------------------------------------ brute force
def program(text: str):
    src = SourceFile("gen.dp", text)
    block = parse_block(src, "mechanism", 0, len(text))
    prog, diags = lower_discrete(block)
    assert not diags, [d.message for d in diags]
    return prog


def ref_dlap(t: Fraction, r: int, mu: int, lo: int, hi: int) -> dict[int, Fraction]:
    """Clamped two-sided geometric by literal summation: interior points
    (1−a)/(1+a)·a^|k−μ|, each end gets 1 minus the rest (a = t^r)."""
    a = t ** r
    c = (1 - a) / (1 + a)
    if lo == hi:
        return {lo: Fraction(1)}
    p = {k: c * a ** abs(k - mu) for k in range(lo + 1, hi)}
    # upper tail: Σ_{j ≥ hi−μ} P(Z = j), summed as a geometric series by hand
    n = hi - mu
    if n >= 1:
        up = c * a ** n / (1 - a)
    else:
        # P(Z ≥ n) = 1 − P(Z ≤ n − 1) = 1 − P(Z ≥ 1 − n)
        up = 1 - c * a ** (1 - n) / (1 - a)
    p[hi] = up
    p[lo] = 1 - sum(p.values())
    return p


def ref_run(kind: str, params: dict, inputs: tuple[int, ...], t: Fraction) -> dict[tuple, Fraction]:
    """The output distribution of a generated program, enumerated literally."""
    dists = []
    for q in inputs:
        if kind == "cmp":
            a = t ** params["r"]
            c = (1 - a) / (1 + a)

            def ge(n):                 # P(Z ≥ n), summed term by term down to 0, then the series
                if n >= 1:
                    return c * a ** n / (1 - a)
                return sum(c * a ** abs(j) for j in range(n, 1)) + c * a / (1 - a)
            x, op = params["x"], params["op"]
            # q + Z op x  with Z integer
            p = {">=": ge(x - q), ">": ge(x - q + 1), "<": 1 - ge(x - q), "<=": 1 - ge(x - q + 1)}[op]
            dists.append({1: p, 0: 1 - p})
            continue
        if kind == "geo":
            dists.append(ref_dlap(t, params["r"], q + params["shift"], params["lo"], params["hi"]))
        else:
            p = params["num"] / (params["num"] + t ** params["r"] * params["den"])
            dists.append({q: p, params["other"]: 1 - p} if q != params["other"] else {q: Fraction(1)})
    out: dict[tuple, Fraction] = {}
    for combo in itertools.product(*[list(d.items()) for d in dists]):
        o = tuple(v for v, _ in combo)
        pr = Fraction(1)
        for _, p in combo:
            pr *= p
        out[o] = out.get(o, Fraction(0)) + pr
    return out


def source(kind: str, params: dict, n: int, adjacent: str, k: int) -> str:
    if kind == "cmp":
        body = (f"q := read()\n if DLap({params['r']}ε, q) {params['op']} {params['x']} {{ output 1 }} "
                f"else {{ output 0 }}")
    elif kind == "geo":
        body = (f"q := read()\n output clamp(DLap({params['r']}ε, q + {params['shift']}), "
                f"{params['lo']}, {params['hi']})")
    else:
        body = (f"q := read()\n if q >= {params['other']} {{ if q <= {params['other']} {{ output q }} else {{ "
                f"if flip({params['num']} / ({params['num']} + {params['den']} * e^(-{params['r']}ε))) "
                f"{{ output q }} else {{ output {params['other']} }} }} }} else {{ "
                f"if flip({params['num']} / ({params['num']} + {params['den']} * e^(-{params['r']}ε))) "
                f"{{ output q }} else {{ output {params['other']} }} }}")
    return f"mechanism gen input in [0, {n}] adjacent {adjacent} horizon {k} {{ loop {{ {body} }} }}"


programs = st.one_of(
    st.fixed_dictionaries({"kind": st.just("cmp"), "r": st.integers(1, 2), "x": st.integers(-1, 3),
                           "op": st.sampled_from([">=", ">", "<", "<="])}),
    st.fixed_dictionaries({"kind": st.just("geo"), "r": st.integers(1, 2), "shift": st.integers(-1, 1),
                           "lo": st.integers(-1, 1), "hi": st.integers(1, 3)}),
    st.fixed_dictionaries({"kind": st.just("coin"), "r": st.integers(1, 2), "num": st.integers(1, 3),
                           "den": st.integers(1, 3), "other": st.integers(0, 1)}),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs, st.integers(1, 2), st.sampled_from(["1", "any"]), st.integers(1, 2))
def test_engine_agrees_with_brute_force(params, n, adjacent, k):
    kind = params["kind"]
    prog = program(source(kind, params, n, adjacent, k))
    machine = Machine(prog)
    samples = [Fraction(1, 2), Fraction(1, 3), Fraction(9, 10), Fraction(1, 50)]
    # 1. every output probability, exactly, at several ε
    for inputs in itertools.product(range(n + 1), repeat=k):
        dist = output_distributions(machine, inputs)
        for t in samples:
            ref = ref_run(kind, params, inputs, t)
            got = {o: p.at(t) for o, p in dist.items()}
            assert {o: p for o, p in ref.items() if p} == {o: p for o, p in got.items() if p}
    # 2. the verdict and d against the sampled reference
    result = check(prog)
    worst = Fraction(0)
    support_gap = False
    for alpha in itertools.product(range(n + 1), repeat=k):
        for beta in itertools.product(range(n + 1), repeat=k):
            diff = [abs(a - b) for a, b in zip(alpha, beta)]
            if adjacent == "any" and sum(1 for d in diff if d) != 1:
                continue
            if adjacent == "1" and (max(diff) > 1 or alpha == beta):
                continue
            for t in samples:
                ra, rb = ref_run(kind, params, alpha, t), ref_run(kind, params, beta, t)
                for o, pa in ra.items():
                    pb = rb.get(o, Fraction(0))
                    if pa and not pb:
                        support_gap = True
                    elif pa > pb:
                        # the least multiple d of 1/L with t^d·pa ≤ pb at this t: d ≤ engine's d
                        m = 0
                        while (t ** m) * pa > pb and m < 200:
                            m += 1
                        worst = max(worst, Fraction(m))
    if support_gap:
        assert result.status == "not-private"
        return
    if result.status == "not-private":
        # only "the ratio stays apart as ε → 0": then no finite d at all
        assert result.witness.kind == "small-eps"
        w = result.witness
        assert w.pr_alpha.at(Fraction(1)) > w.pr_beta.at(Fraction(1))
        return
    assert result.status == "private"
    assert worst <= result.d * prog.L
    # the engine's d is least: d − 1/L fails on its witness pair (exactly, at its point)
    if result.d > 0 and result.d_lower_strict:
        w = result.lower_witness
        s = 1 / w.epsilon_base
        assert s ** (result.d * prog.L - 1) * w.pr_alpha.at(s) > w.pr_beta.at(s)
    elif result.d > 0:
        assert result.d_lower == result.d


def test_stateless_lifting_agrees_with_full_enumeration():
    """The independence shortcut (one configuration at every read) gives the
    same verdict and d as the enumeration of every sequence."""
    import dslc.bounded.mechanism as mech
    for adjacent, k in (("any", 3), ("1", 2), ("1", 3)):
        text = (f"mechanism g input in [0, 2] adjacent {adjacent} horizon {k} {{ loop {{ q := read()\n"
                f" output clamp(DLap(ε, q), 0, 2) }} }}")
        prog = program(text)
        lifted = check(prog)
        assert lifted.stateless
        saved = mech._stateless
        mech._stateless = lambda *_: False
        try:
            full = check(prog)
        finally:
            mech._stateless = saved
        assert not full.stateless
        assert (lifted.status, lifted.d) == (full.status, full.d), adjacent


def test_clamped_threshold_makes_svt_lose_more_with_the_horizon():
    """Clamping the noisy threshold is not post-processing: the clamped end is
    reused by every query, so d grows with the horizon (k/4 here)."""
    prog = program((ROOT / "examples/discrete/svt.dp").read_text().split("\n", 5)[5])
    assert [check(prog, k).d for k in (4, 8)] == [1, 2]


def test_loss_at_one_epsilon_is_enclosed():
    """`--epsilon E`: the least d at that ε alone, enclosed by ball arithmetic;
    randomized response loses exactly ε, and d(E) never exceeds the all-ε d."""
    blocks = verdicts("examples/discrete/randomized_response.dp", "examples/discrete/noisy_max.dp",
                      "--epsilon", "1/2")
    rr = blocks["randomized_response"]["details"]["at_epsilon"]
    assert Fraction(rr["d_lower"]) <= 1 <= Fraction(rr["d_upper"])
    assert Fraction(rr["d_upper"]) - Fraction(rr["d_lower"]) <= Fraction(2, 10 ** 6)
    nm = blocks["noisy_max"]["details"]["at_epsilon"]
    assert Fraction(nm["d_upper"]) <= Fraction(blocks["noisy_max"]["d"])
