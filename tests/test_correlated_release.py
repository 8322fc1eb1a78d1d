"""`dslc release`: reproducible with --seed, the right Laplace scale, and
every bad input is a coded error with exit status 2 (never a traceback)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from dslc.correlated import release as rel
from tests.test_correlated_reference import check_text

ROOT = Path(__file__).resolve().parent.parent
WORKED = ROOT / "examples" / "chain_worked.dp"

HIST = """chain day {
    states = [sit, walk, run]
    initial = stationary
    transition = [[9/10, 1/12, 1/60], [1/5, 3/4, 1/20], [1/10, 3/10, 3/5]]
    length = 60
    query = histogram
    ε = 1
}
"""


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def dslc(*args):
    """Run the CLI in-process (fast); stdout/stderr captured."""
    import contextlib
    import io

    from dslc.cli import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*map(str, args), *(["--color", "never"] if args and args[0] == "release" else [])])
    return Result(code, out.getvalue(), err.getvalue())


def dslc_process(*args):
    return subprocess.run([sys.executable, "-m", "dslc", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


@pytest.fixture
def series(tmp_path):
    def make(text, name="s.csv"):
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        return p
    return make


def test_seed_reproduces_and_differs(series):
    data = series("0\n1\n1\n")
    a = dslc("release", WORKED, "--data", data, "--seed", 7)
    b = dslc("release", WORKED, "--data", data, "--seed", 7)
    c = dslc("release", WORKED, "--data", data, "--seed", 8)
    assert a.returncode == b.returncode == c.returncode == 0, a.stderr
    assert a.stdout == b.stdout != c.stdout
    value = float(a.stdout)
    assert abs(value - 2) < 10 * 0.155849              # the sum is 2; the noise is small
    assert "Lap(scale 0.155849)" in a.stderr            # says what was added
    assert "2" not in a.stdout.replace(repr(value), "")  # nothing but the released value


def test_end_to_end_process(series):
    data = series("0\n1\n1\n")
    ok = dslc_process("release", WORKED, "--data", data, "--seed", 7)
    assert ok.returncode == 0 and float(ok.stdout) == float(dslc("release", WORKED, "--data", data,
                                                                  "--seed", 7).stdout)
    bad = dslc_process("release", WORKED, "--data", series("0\n7\n1\n", "bad.csv"))
    assert bad.returncode == 2 and "[E262]" in bad.stderr and "Traceback" not in bad.stderr


def test_os_randomness_without_seed(series):
    data = series("0\n1\n1\n")
    outs = {dslc("release", WORKED, "--data", data).stdout for _ in range(3)}
    assert len(outs) == 3


def test_json_and_histogram(series, tmp_path):
    dp = tmp_path / "day.dp"
    dp.write_text(HIST, encoding="utf-8")
    data = series("sit\nsit\nwalk\nrun\nsit\nwalk\n" * 10)
    out = dslc("release", dp, "--data", data, "--seed", 1, "--format", "json")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    assert set(res["released"]) == {"sit", "walk", "run"}
    assert res["mechanism"] == "markov_quilt" and res["seed"] == 1 and res["records"] == 60
    assert "true" not in out.stdout.lower()


def test_columns_and_header(series):
    data = series("time,state\n1,0\n2,1\n3,\"1\"\n")
    out = dslc("release", WORKED, "--data", data, "--header", "--column", "state", "--seed", 3)
    assert out.returncode == 0, out.stderr
    same = dslc("release", WORKED, "--data", data, "--header", "--column", 2, "--seed", 3)
    assert same.stdout == out.stdout
    numeric = series("0.0\n2/2\n1\n", "n.csv")            # numbers compare exactly
    assert dslc("release", WORKED, "--data", numeric, "--seed", 3).returncode == 0


@pytest.mark.parametrize("content,code,where", [
    ("0\n2\n1\n", "E262", "s.csv:2:1"),                 # a state outside the space
    ("0\nwalk\n1\n", "E262", "s.csv:2:1"),
    ("state\n0\n1\n1\n", "E262", "s.csv:1:1"),         # a header without --header
    ("0\n1\n", "E263", None),                          # too short
    ("0\n1\n1\n0\n", "E263", None),                    # too long
    ("", "E261", None),                                # empty
    ("\n\n", "E261", None),
])
def test_bad_data(series, content, code, where):
    data = series(content)
    out = dslc("release", WORKED, "--data", data, "--seed", 1)
    assert out.returncode == 2
    assert f"[{code}]" in out.stderr and "Traceback" not in out.stderr + out.stdout
    assert out.stdout == ""                             # nothing released
    if where:
        assert where in out.stderr


def test_bad_files_and_blocks(tmp_path, series):
    data = series("0\n1\n1\n")
    cases = [
        (("release", WORKED, "--data", tmp_path / "missing.csv"), "E260"),
        (("release", WORKED, "--data", tmp_path), "E260"),
        (("release", tmp_path / "missing.dp", "--data", data), "E004"),
        (("release", WORKED, "--data", data, "--block", "nope"), "E264"),
        (("release", ROOT / "examples" / "svt.dp", "--data", data), "E264"),
        (("release", ROOT / "tests" / "fixtures" / "chain_errors.dp", "--data", data, "--block", "bad_row"), "E245"),
        (("release", ROOT / "tests" / "fixtures" / "chain_errors.dp", "--data", data), "E264"),
        (("release", WORKED, "--data", data, "--column", "state"), "E261"),
    ]
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"0\n\xff\xfe\n")
    cases.append((("release", WORKED, "--data", binary), "E260"))
    lip = tmp_path / "lip.dp"
    lip.write_text(WORKED.read_text(encoding="utf-8").replace("query = sum", "query = lipschitz(1)"))
    cases.append((("release", lip, "--data", data), "E265"))
    hist = tmp_path / "hist.dp"
    hist.write_text(HIST)
    cases.append((("release", hist, "--data", data, "--mechanism", "wasserstein"), "E266"))
    for args, code in cases:
        out = dslc(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert f"[{code}]" in out.stderr, (args, out.stderr)
        assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    js = dslc("release", WORKED, "--data", tmp_path / "missing.csv", "--format", "json")
    assert js.returncode == 2 and json.loads(js.stdout)["diagnostics"][0]["code"] == "E260"


# ------------------------------------------------------------------ the noise
N = 10_000


def _noises(scale: float) -> list[float]:
    """The noise of 10,000 releases with seeds 0..9999 (what `--seed s` adds)."""
    return [rel.release([Fraction(0)], scale, rel.make_rng(s))[0] for s in range(N)]


def _laplace_cdf(x: float, b: float) -> float:
    return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)


def _ks(sample: list[float], b: float) -> float:
    xs = sorted(sample)
    n = len(xs)
    return max(max(abs(_laplace_cdf(x, b) - i / n), abs(_laplace_cdf(x, b) - (i + 1) / n))
               for i, x in enumerate(xs))


def test_spread_matches_the_stated_scale():
    """Over 10,000 seeded releases of the worked example, the noise is
    Lap(0.155849): mean |noise| = b within 3% (its standard error is 1%),
    and a Kolmogorov–Smirnov distance to Lap(b) below 0.0195 (the 0.1% critical
    value for n = 10,000).  Scales 10% off, √2 off (a standard deviation
    mistaken for a scale) or 1/b (a rate for a scale) fail both checks."""
    res = check_text(WORKED.read_text(encoding="utf-8"))
    cal = res.blocks[0].analysis
    b = cal.recommended.scale_value
    assert b == 0.155849
    noise = _noises(b)
    assert noise == _noises(b)                                   # reproducible
    mad = sum(abs(x) for x in noise) / N
    assert abs(mad / b - 1) < 0.03
    assert abs(sum(noise) / N) < 0.05 * b                        # centred
    assert _ks(noise, b) < 0.0195
    for wrong in (b * 1.1, b / 1.1, b * math.sqrt(2), b / math.sqrt(2), 1 / b):
        assert abs(mad / wrong - 1) >= 0.06                      # twice the tolerance away
    for wrong in (b * math.sqrt(2), b / math.sqrt(2), 1 / b):
        assert _ks(noise, wrong) >= 0.0195


def test_sampler_edges():
    class Zero:
        def random(self):
            return 0.0

        def getrandbits(self, n):
            return 1

    class Top(Zero):
        def random(self):
            return 1 - 2 ** -53

    assert rel.laplace(Zero(), 2.0) == 0.0
    assert math.isfinite(rel.laplace(Top(), 2.0)) and rel.laplace(Top(), 2.0) > 0
    assert rel.laplace(rel.make_rng(1), 0) == 0.0
    vals = rel.evaluate(check_text(HIST).blocks[0].ir, [0, 0, 1, 2, 0, 1])
    assert vals == [3, 2, 1]
