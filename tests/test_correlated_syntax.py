"""`chain` blocks: syntax variants, validation errors (E24x/E25x) with spans."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.test_correlated_reference import check_text

GOOD = """chain c {
    states = [0, 1]
    initial = [1/2, 1/2]
    transition = [[6/7, 1/7], [1/7, 6/7]]
    length = 3
    query = sum
    ε = 10
}
"""


def block_of(text):
    res = check_text(text)
    assert not res.diagnostics, [d.message for d in res.diagnostics]
    (block,) = res.blocks
    return block


def codes(text):
    return [d.code for d in block_of(text).diagnostics]


def test_good_block_is_private_with_calibration():
    b = block_of(GOOD)
    assert b.verdict.value == "private" and b.kind == "chain" and b.d is None
    assert b.details["calibration"]["T"] == 3
    ir = b.ir
    assert ir.models[0].transition == [[Fraction(6, 7), Fraction(1, 7)], [Fraction(1, 7), Fraction(6, 7)]]
    assert ir.epsilon == 10 and ir.length == 3 and ir.query.lipschitz == 1


@pytest.mark.parametrize("variant", [
    GOOD.replace("length = 3", "T = 3"),
    GOOD.replace("ε = 10", "eps = 10"),
    GOOD.replace("ε = 10", "epsilon 10"),
    GOOD.replace(" = ", " "),                                   # `=` is optional
    GOOD.replace("\n    ", "; "),                               # `;` separators
    GOOD.replace("[[6/7, 1/7], [1/7, 6/7]]", "[[1 - 1/7, 1/7], [0.142857142857142857142857 * 0 + 1/7, 6/7],]"),
    GOOD.replace("initial = [1/2, 1/2]", "initial = stationary"),
    GOOD.replace("states = [0, 1]", "states = [off = 0, on = 1]"),
])
def test_equivalent_spellings(variant):
    b = block_of(variant)
    assert b.verdict.value == "private", [d.message for d in b.diagnostics]
    assert b.analysis.recommended.scale_text == "0.155849"


def test_models_and_queries():
    text = """chain act {
        states = [sit, walk, run]
        model a { initial = stationary; transition = [[1/2, 1/4, 1/4], [1/4, 1/2, 1/4], [1/4, 1/4, 1/2]] }
        model b { initial = [1, 0, 0]; transition = [[4/5, 1/10, 1/10], [1/10, 4/5, 1/10], [1/10, 1/10, 4/5]] }
        length = 50
        query = count(walk)
        ε = 1
    }"""
    b = block_of(text)
    ir = b.ir
    assert [m.name for m in ir.models] == ["a", "b"]
    assert ir.query.count_state == 1 and ir.query.lipschitz == 1
    assert ir.models[0].stationary_start and not ir.models[1].stationary_start
    hist = block_of(text.replace("count(walk)", "histogram"))
    assert hist.ir.query.lipschitz == 2
    lip = block_of(text.replace("count(walk)", "lipschitz(3/2)"))
    assert lip.ir.query.lipschitz == Fraction(3, 2)
    assert lip.analysis.mechanism("group_dp").scale_text == "75"   # 50 · 3/2 / 1


@pytest.mark.parametrize("change,code,at", [
    ("[[6/7, 1/7], [1/7, 6/7]]|[[6/7, 1/7], [0.3, 0.6]]", "E245", "[0.3, 0.6]"),
    ("[[6/7, 1/7], [1/7, 6/7]]|[[8/7, -1/7], [1/7, 6/7]]", "E245", "-1/7"),
    ("[[6/7, 1/7], [1/7, 6/7]]|[[6/7, 1/7]]", "E244", "[[6/7, 1/7]]"),
    ("[[6/7, 1/7], [1/7, 6/7]]|[[6/7, 1/7, 0], [1/7, 6/7]]", "E244", "[6/7, 1/7, 0]"),
    ("initial = [1/2, 1/2]|initial = [1/2, 1/3]", "E246", "[1/2, 1/3]"),
    ("initial = [1/2, 1/2]|initial = [1/2]", "E244", "[1/2]"),
    ("ε = 10|ε = 0", "E248", "0"),
    ("ε = 10|ε = -1/2", "E248", "-1/2"),
    ("[[6/7, 1/7], [1/7, 6/7]]|[[6/7, p], [1/7, 6/7]]", "E242", "p"),
    ("ε = 10|ε = 1/0", "E008", "0"),
    ("length = 3|length = 2.5", "E249", "2.5"),
    ("length = 3|length = 0", "E249", "0"),
    ("states = [0, 1]|states = [0, 0]", "E243", "0"),
    ("states = [0, 1]|states = []", "E243", "[]"),
    ("states = [0, 1]|states = [a, b]", "E250", "a"),
    ("query = sum|query = count(7)", "E250", "7"),
    ("query = sum|query = lipschitz(-1)", "E250", "-1"),
    ("ε = 10|ε = 10\n    method = fast", "E252", "fast"),
    ("ε = 10|ε = 10\n    ε = 1", "E241", "ε"),
    ("length = 3\n|", "E240", "c"),
    ("initial = [1/2, 1/2]\n|", "E240", "c"),
])
def test_validation_errors(change, code, at):
    old, new = change.split("|")
    assert old in GOOD
    b = block_of(GOOD.replace(old, new, 1))
    assert b.verdict.value == "error"
    assert code in [d.code for d in b.diagnostics], [(d.code, d.message) for d in b.diagnostics]
    diag = next(d for d in b.diagnostics if d.code == code)
    assert diag.span is not None and diag.span.text.startswith(at), diag.span.text
    assert diag.help, "every error has a help line"


def test_periodic_and_reducible_chains():
    periodic = GOOD.replace("[[6/7, 1/7], [1/7, 6/7]]", "[[0, 1], [1, 0]]")
    b = block_of(periodic)                       # exact method: fine, but only group DP's noise
    cal = b.analysis
    assert b.verdict.value == "private"
    assert not cal.mechanism("markov_quilt_approx").applicable
    assert "periodic" in cal.mechanism("markov_quilt_approx").reason
    assert codes(periodic + "".join([]).replace("", "")) == []
    approx = periodic.replace("ε = 10", "ε = 10\n    method = approx")
    assert codes(approx) == ["E251"]
    reducible = """chain r { states = [a, b, c]
        initial = stationary
        transition = [[1, 0, 0], [1/2, 0, 1/2], [0, 0, 1]]
        length = 4  query = histogram  ε = 1 }"""
    assert codes(reducible) == ["E247"]
    ok = reducible.replace("initial = stationary", "initial = [0, 1, 0]")
    assert codes(ok) == []
    assert codes(ok.replace("ε = 1", "ε = 1 method = approx")) == ["E251"]


def test_models_mixed_with_top_level_is_an_error():
    text = GOOD.replace("length = 3", "length = 3\n    model m { initial = stationary; "
                                      "transition = [[1/2, 1/2], [1/2, 1/2]] }")
    assert "E253" in codes(text)
    dup = GOOD.replace("    initial = [1/2, 1/2]\n    transition = [[6/7, 1/7], [1/7, 6/7]]\n",
                       "    model m { initial = stationary; transition = [[1/2, 1/2], [1/2, 1/2]] }\n"
                       "    model m { initial = stationary; transition = [[1/2, 1/2], [1/2, 1/2]] }\n")
    assert codes(dup) == ["E253"]
    missing = GOOD.replace("    initial = [1/2, 1/2]\n    transition = [[6/7, 1/7], [1/7, 6/7]]\n",
                           "    model m { initial = stationary }\n")
    assert codes(missing) == ["E253"]


def test_syntax_error_is_reported_not_raised():
    b = block_of(GOOD.replace("transition = [[", "transition = [[[", 1))
    assert b.verdict.value == "error" and b.diagnostics[0].code.startswith("E0")
    b = block_of(GOOD.replace("query = sum", "query = median"))
    assert b.verdict.value == "error" and b.diagnostics[0].code == "E001"
    assert "`sum`" in b.diagnostics[0].message


def test_explain_knows_the_codes():
    from dslc.diagnostics import codes as registry
    import dslc.diagnostics.codes_chain  # noqa: F401
    for code in ("E240", "E245", "E251", "E262", "E266"):
        info = registry.lookup(code)
        assert info is not None and info.explanation
