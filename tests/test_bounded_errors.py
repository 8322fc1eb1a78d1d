"""Malformed `hmm` / `mdp` blocks: an E2xx error with a span on the right line,
exit status 2, and never a traceback."""

from __future__ import annotations

import json

import pytest

from dslc.cli import main

BASE = """\
hmm m {
    states a, b
    observations x, y
    param p in (0, 1)
    prior a: 1/2, b: 1/2
    a -> a: 1/2, b: 1/2
    b -> b
    a emits x: p, y: 1 - p
    b emits x: 1/2, y: 1/2
    secret s1 = {a}
    secret s2 = {b}
    protect s1, s2
    check ε = ln 3, k = 2
}
"""


def variant(old: str, new: str, base: str = BASE) -> str:
    assert old in base, old
    return base.replace(old, new + "   // <-", 1)


# (id, text, expected code); the error's primary span is on the line marked `// <-`.
CASES = [
    ("row-sum", variant("a -> a: 1/2, b: 1/2", "a -> a: 1/2, b: 1/3"), "E205"),
    ("prior-sum", variant("prior a: 1/2, b: 1/2", "prior a: 1/2, b: 1/4"), "E205"),
    ("emit-sum", variant("b emits x: 1/2, y: 1/2", "b emits x: 1/2, y: 0.4"), "E205"),
    ("symbolic-sum", variant("a emits x: p, y: 1 - p", "a emits x: p, y: 1 - p*p"), "E205"),
    ("negative", variant("a -> a: 1/2, b: 1/2", "a -> a: -1/2, b: 3/2"), "E206"),
    ("symbolic-negative", variant("a emits x: p, y: 1 - p", "a emits x: 2*p, y: 1 - 2*p"), "E206"),
    ("unknown-state-row", variant("a -> a: 1/2, b: 1/2", "a -> a: 1/2, c: 1/2"), "E201"),
    ("unknown-state-source", variant("b -> b", "c -> b"), "E201"),
    ("unknown-state-secret", variant("secret s2 = {b}", "secret s2 = {b, z}"), "E201"),
    ("unknown-observation", variant("b emits x: 1/2, y: 1/2", "b emits x: 1/2, w: 1/2"), "E202"),
    ("duplicate-state", variant("states a, b", "states a, b, a"), "E204"),
    ("duplicate-param", variant("param p in (0, 1)", "param p in (0, 1); param p = 1/2"), "E204"),
    ("missing-row", variant("states a, b", "states a, b").replace("    b -> b\n", ""), "E207"),
    ("missing-emits", variant("states a, b", "states a, b").replace("    b emits x: 1/2, y: 1/2\n", ""),
     "E207"),
    ("duplicate-row", variant("b -> b", "b -> b; b -> a"), "E208"),
    ("duplicate-entry", variant("a -> a: 1/2, b: 1/2", "a -> a: 1/2, a: 1/2"), "E208"),
    ("zero-secret", variant("secret s2 = {b}", "secret s2 = {b}")
     .replace("prior a: 1/2, b: 1/2", "prior a: 1, b: 0"), "E209"),
    ("symbolic-zero-secret", variant("secret s1 = {a}", "secret s1 = {a}")
     .replace("prior a: 1/2, b: 1/2", "prior a: p, b: 1 - p").replace("param p in (0, 1)", "param p in [0, 1]"),
     "E209"),
    ("pair-with-itself", variant("protect s1, s2", "protect s1, s1"), "E210"),
    ("unknown-secret", variant("protect s1, s2", "protect s1, s3"), "E211"),
    ("unknown-parameter", variant("a emits x: p, y: 1 - p", "a emits x: q, y: 1 - q"), "E212"),
    ("divide-by-parameter", variant("a emits x: p, y: 1 - p", "a emits x: 1/p, y: 1 - 1/p"), "E213"),
    ("epsilon-in-probability", variant("a emits x: p, y: 1 - p", "a emits x: ε, y: 1 - ε"), "E213"),
    ("negative-epsilon", variant("check ε = ln 3, k = 2", "check ε = ln(1/3), k = 2"), "E214"),
    ("ambiguous-ln", variant("check ε = ln 3, k = 2", "check ε = ln 3/2, k = 2"), "E214"),
    ("parameter-epsilon", variant("check ε = ln 3, k = 2", "check ε = p, k = 2"), "E213"),
    ("zero-horizon", variant("check ε = ln 3, k = 2", "check ε = ln 3, k = 0"), "E215"),
    ("fraction-horizon", variant("check ε = ln 3, k = 2", "check ε = ln 3, k = 1.5"), "E215"),
    ("no-horizon", variant("check ε = ln 3, k = 2", "check ε = ln 3"), "E215"),
    ("two-checks", variant("check ε = ln 3, k = 2", "check ε = ln 3, k = 2; check ε = ln 2, k = 3"), "E216"),
    ("contradiction", variant("protect s1, s2", "assume p > 1; protect s1, s2"), "E218"),
    ("empty-range", variant("param p in (0, 1)", "param p in (1, 0)"), "E219"),
    ("find-fixed", variant("check ε = ln 3, k = 2", "param q = 1/2; check ε = ln 3, k = 2; find q"), "E220"),
    ("find-unknown", variant("check ε = ln 3, k = 2", "check ε = ln 3, k = 2; find r"), "E220"),
    ("actions-in-hmm", variant("b -> b", "b on L -> b"), "E221"),
    ("mdp-unknown-action", variant("b -> b", "b on M -> b", BASE.replace("hmm m {", "mdp m {")
                                   .replace("observations x, y", "observations x, y; actions L")), "E203"),
    ("syntax", variant("b -> b", "b -> -> b"), "E001"),
]


def run(tmp_path, capsys, text: str) -> tuple[int, dict]:
    path = tmp_path / "m.dp"
    path.write_text(text, encoding="utf-8")
    code = main(["check", str(path), "--format", "json"])
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "internal error" not in out.err
    return code, json.loads(out.out)


@pytest.mark.parametrize("text,code", [(t, c) for _, t, c in CASES], ids=[i for i, _, _ in CASES])
def test_error(tmp_path, capsys, text, code):
    exit_code, report = run(tmp_path, capsys, text)
    assert exit_code == 2
    (block,) = report["files"][0]["blocks"]
    assert block["verdict"] == "error"
    diags = [d for d in block["diagnostics"] if d["code"] == code]
    assert diags, [d["code"] + ": " + d["message"] for d in block["diagnostics"]]
    marked = [i + 1 for i, line in enumerate(text.splitlines()) if "// <-" in line]
    assert diags[0]["span"]["line"] in marked, (diags[0], marked)
    assert diags[0]["help"] or code == "E001"


def test_base_is_valid(tmp_path, capsys):
    exit_code, report = run(tmp_path, capsys, BASE)
    (block,) = report["files"][0]["blocks"]
    assert block["verdict"] == "not-private"           # (x, x) tells s2 from s1 for small p
    assert {d["code"] for d in block["diagnostics"]} == {"DP101"}


def test_symbolic_failure_names_values(tmp_path, capsys):
    _, report = run(tmp_path, capsys, variant("a emits x: p, y: 1 - p", "a emits x: 2*p, y: 1 - 2*p"))
    d = next(d for d in report["files"][0]["blocks"][0]["diagnostics"] if d["code"] == "E206")
    assert "when p = " in d["message"]


@pytest.mark.parametrize("missing,code", [("protect s1, s2", "E217"), ("check ε = ln 3, k = 2", "E216"),
                                          ("prior a: 1/2, b: 1/2", "E207")])
def test_missing_statement_points_at_block_name(tmp_path, capsys, missing, code):
    _, report = run(tmp_path, capsys, BASE.replace(missing, ""))
    (block,) = report["files"][0]["blocks"]
    d = next(d for d in block["diagnostics"] if d["code"] == code)
    assert d["span"]["line"] == 1


def test_errors_in_text_format(tmp_path, capsys):
    path = tmp_path / "m.dp"
    path.write_text(variant("a -> a: 1/2, b: 1/2", "a -> a: 1/2, b: 1/3"), encoding="utf-8")
    code = main(["check", str(path), "--color", "never"])
    out = capsys.readouterr().out
    assert code == 2
    assert "error[E205]: the row of `a` sums to 5/6, not 1" in out
    assert f"{path}:6:5" in out


# ---------------------------------------------------------------- robustness
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dslc.pipeline import check_source  # noqa: E402
from dslc.source import SourceFile  # noqa: E402

TOKENS = ["states", "observations", "actions", "param", "assume", "prior", "secret", "protect", "check",
          "find", "emits", "on", "->", ":", ",", ";", "{", "}", "(", ")", "[", "]", "=", "in", "ln", "k",
          "ε", "p", "a", "b", "x", "0", "1/2", "-1", "1/0", "0.5", "*", "/", "+", "-", "\n", "\"s\""]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(TOKENS), st.booleans()), max_size=6))
def test_mutated_models_never_crash(edits):
    words = BASE.replace("\n", " \n ").split(" ")
    for pos, tok, insert in edits:
        i = pos % len(words)
        if insert:
            words.insert(i, tok)
        else:
            words[i] = tok
    text = " ".join(words)
    result = check_source(SourceFile("<fuzz>", text), {"timeout": 5})
    for block in result.blocks:
        if block.verdict.value == "error":
            assert block.diagnostics and all(d.span is not None for d in block.diagnostics)
