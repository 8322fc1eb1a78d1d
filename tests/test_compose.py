"""Programs of mechanisms (docs/composition.md): imports, calls with a share
of ε, releases composed against a budget, the project's budget.

- a call's cost is the checked cost of the instantiated, scaled program
  text (every ε of the callee written as S·ε, its parameters set);
- composition equals a hand computation on generated releases;
- import errors are located; a file imported twice is read once.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.cli import main
from dslc.compose import program
from dslc.compose.project import BudgetConfigError, parse_budget
from dslc.pipeline import Options, check_path, check_source
from dslc.results import Verdict
from dslc.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
STDLIB = ROOT / "dslc" / "stdlib"
FAST = Options(lower_bound_work=0)


def check_text(tmp_path: Path, text: str, name: str = "main.dp", options: Options = FAST):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return check_path(str(path), options)


def scaled_text(text: str, share: F, args: dict[str, str]) -> str:
    """The callee's text with every ε written as share·ε and its parameters set."""
    s = f"(({share.numerator}/{share.denominator})*ε)"
    body = re.sub(r"//[^\n]*", "", text)
    body = re.sub(r"(?<=[0-9)])\s*ε", "*" + s, body)
    body = re.sub(r"(?<![0-9)*])ε", s, body)
    for name, value in args.items():
        body = re.sub(rf"\b{name}\s*=\s*[^,)]+", f"{name} = {value}", body, count=1)
    return body


# ------------------------------------------------------------------ calls
CALLABLE = ["above_threshold", "below_threshold", "noisy_answer", "numeric_above_threshold", "sparse_two"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(CALLABLE), num=st.integers(1, 7), den=st.integers(1, 9),
       threshold=st.integers(-5, 50))
def test_a_call_costs_what_the_instantiated_scaled_program_costs(tmp_path, name, num, den, threshold):
    share = F(num, den)
    text = (STDLIB / f"{name}.dp").read_text(encoding="utf-8")
    args = {"T": str(threshold)} if "(T = 0)" in text else {}
    arg_text = f"(T = {threshold})" if args else ""
    release = check_text(tmp_path, f"import {name} from stdlib\nrelease r {{ {name}{arg_text} with "
                                   f"{num}/{den} ε }}\n", options=Options()).blocks[0]
    direct = check_source(SourceFile("direct.dp", scaled_text(text, share, args)), Options()).blocks[0]
    assert direct.verdict is Verdict.PRIVATE and release.verdict is Verdict.PRIVATE, release.diagnostics
    call = release.bounds["calls"][0]
    assert F(call["d"]) == direct.d == F(call["d_callee"]) * share
    assert release.d == direct.d
    assert call["d_lower"] == direct.bounds["d_lower"]


def test_arguments_set_parameters_that_are_multiples_of_epsilon(tmp_path):
    text = """
mechanism svt(T = 0, e1 = ε/2, e2 = ε/4) {
    x := Lap(e1, T)
    loop { if Lap(e2, read()) >= x { output ⊤; halt }  output ⊥ }
}
release r { svt(e1 = ε, e2 = ε) with ε/2 }
"""
    r = check_text(tmp_path, text).blocks[1]
    # rates ε/2 and ε/2 after the share: d = 1/2 (the threshold's draw) + 2·1/2 ... as checked directly
    direct = check_source(SourceFile("d.dp", "mechanism s { x := Lap(ε/2, 0)\n loop { if Lap(ε/2, read()) >= x "
                                             "{ output ⊤; halt }  output ⊥ } }"), FAST).blocks[0]
    assert r.d == direct.d


# ------------------------------------------------------------------ composition
DS = {"above_threshold": F(1), "noisy_answer": F(2), "sparse_two": F(1)}

shares = st.builds(F, st.integers(1, 6), st.integers(1, 12))
calls = st.tuples(st.sampled_from(sorted(DS)), shares)
steps = st.lists(st.one_of(calls.map(lambda c: ("call", c)),
                           st.lists(calls, min_size=1, max_size=3).map(lambda g: ("group", g))),
                 min_size=1, max_size=5)


def release_text(items, budget: F | None) -> str:
    lines = ["import above_threshold, noisy_answer, sparse_two from stdlib", ""]
    head = f"release r budget {budget.numerator}/{budget.denominator} ε {{" if budget is not None else "release r {"
    lines.append(head)
    for i, (kind, item) in enumerate(items):
        if kind == "call":
            lines.append(f"    {item[0]} with {item[1].numerator}/{item[1].denominator} ε")
        else:
            lines.append(f"    on disjoint part{i} {{")
            lines += [f"        {n} with {s.numerator}/{s.denominator} ε" for n, s in item]
            lines.append("    }")
    lines.append("}")
    return "\n".join(lines) + "\n"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=steps, budget=st.one_of(st.none(), st.builds(F, st.integers(0, 8), st.integers(1, 4))))
def test_composition_equals_a_hand_computation(tmp_path, items, budget):
    cost = [DS[c[0]] * c[1] if k == "call" else max(DS[n] * s for n, s in c) for k, c in items]
    total = sum(cost, F(0))
    block = check_text(tmp_path, release_text(items, budget)).blocks[0]
    assert F(block.bounds["d_upper"]) == total
    flat = [c for k, c in items for c in ([c] if k == "call" else c)]
    assert [F(c["d"]) for c in block.bounds["calls"]] == [DS[n] * s for n, s in flat]
    if budget is None or total <= budget:
        assert block.verdict is Verdict.PRIVATE and block.d == total
        if budget is not None:
            assert block.bounds["budget"]["status"] == "met"
        return
    assert block.verdict is Verdict.NOT_PRIVATE and block.d is None
    (diag,) = block.diagnostics
    assert diag.code == "DP005"               # lower bounds off: never "exceeded"
    # the primary label is the call at which the running total first passes the budget
    running, at = F(0), None
    for (k, c), x in zip(items, cost):
        running += x
        if running > budget:
            at = c if k == "call" else max(c, key=lambda nc: DS[nc[0]] * nc[1])
            break
    line = diag.primary.span.text
    assert line.startswith(at[0]) and f"{at[1].numerator}/{at[1].denominator} ε" in line
    # the help line's shares fit the budget exactly
    if budget:
        k = budget / total
        assert f"multiply every share by {k.numerator}" in diag.help[0]


def test_a_call_whose_witness_beats_the_budget_is_dp006(tmp_path):
    text = "import above_threshold, noisy_answer from stdlib\nrelease r budget ε {\n" \
           "  noisy_answer with ε/8\n  above_threshold(T = 3) with 3/2 ε\n}\n"
    block = check_text(tmp_path, text, options=Options()).blocks[0]
    (diag,) = block.diagnostics
    assert diag.code == "DP006" and diag.primary.span.text.startswith("above_threshold")
    assert block.bounds["budget"]["status"] == "exceeded"


def test_a_call_of_a_mechanism_that_is_not_private_is_dp030(tmp_path):
    result = check_path(str(ROOT / "tests" / "golden" / "codes" / "DP030.dp"), FAST)
    r = [b for b in result.blocks if b.kind == "release"][0]
    assert r.verdict is Verdict.NOT_PRIVATE and [d.code for d in r.diagnostics] == ["DP030"]


# ------------------------------------------------------------------ imports
def test_imports_are_relative_to_the_importing_file_and_read_once(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "m.dp").write_text("mechanism m { x := Lap(0, 0)\n output Lap(ε, read())\n halt }\n")
    for name in ("a.dp", "b.dp"):
        (tmp_path / name).write_text(f'import m from "lib/m.dp"\nrelease {name[0]} {{ m with ε/2 }}\n')
    ra = check_path(str(tmp_path / "a.dp"), FAST)
    rb = check_path(str(tmp_path / "b.dp"), FAST)
    assert ra.blocks[0].d == rb.blocks[0].d == 1
    ma = program.module_of(ra.source).imports["m"].module
    mb = program.module_of(rb.source).imports["m"].module
    assert ma is mb                      # the imported file was read and split once
    assert program.importers_of(str(tmp_path / "lib" / "m.dp")) >= {str((tmp_path / n).resolve())
                                                                     for n in ("a.dp", "b.dp")}


@pytest.mark.parametrize("text,code,where", [
    ('import m from "nowhere.dp"\n', "E170", '"nowhere.dp"'),
    ("import nosuch from stdlib\n", "E171", "nosuch"),
    ("import noisy_answer, noisy_answer from stdlib\n", "E173", "noisy_answer"),
    ("import m from elsewhere\n", "E170", "elsewhere"),
])
def test_import_errors_are_located(tmp_path, text, code, where):
    result = check_text(tmp_path, text + "mechanism k { x := Lap(0, 0)\n output Lap(ε, read())\n halt }\n")
    (diag,) = result.diagnostics
    assert diag.code == code and diag.primary.span.text == where
    assert result.blocks[0].verdict is Verdict.PRIVATE       # the other blocks keep their verdicts


def test_an_import_cycle_is_located_in_the_importing_file(tmp_path):
    (tmp_path / "a.dp").write_text('import b from "b.dp"\nmechanism a { x := Lap(0, 0)\n output Lap(ε, read())\n halt }\n')
    (tmp_path / "b.dp").write_text('import a from "a.dp"\nmechanism b { x := Lap(0, 0)\n output Lap(ε, read())\n halt }\n')
    for name in ("a.dp", "b.dp"):
        result = check_path(str(tmp_path / name), FAST)
        assert [d.code for d in result.diagnostics] == ["E172"], name
        assert result.diagnostics[0].primary.span.start_line_col[0] == 1


def test_the_standard_library_ships_inside_the_package():
    assert program.STDLIB == STDLIB.resolve()
    assert {p.stem for p in STDLIB.glob("*.dp")} >= set(CALLABLE)
    assert (ROOT / "stdlib").resolve() == STDLIB.resolve()     # one copy: the repository's stdlib/ is a link


# ------------------------------------------------------------------ project budget
@pytest.mark.parametrize("text,value", [("1ε", F(1)), ("ε/2", F(1, 2)), ("3/2 ε", F(3, 2)), ("2eps", F(2)),
                                        (1, F(1)), ("0.5", F(1, 2))])
def test_project_budget_values(text, value):
    assert parse_budget(text) == value


@pytest.mark.parametrize("text", ["-1ε", "1 + ε", "lots", True, [1]])
def test_bad_project_budget_values(text):
    with pytest.raises(BudgetConfigError):
        parse_budget(text)


def test_the_project_budget_applies_to_every_release(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.dslc]\nbudget = "1ε"\n')
    (tmp_path / "rel").mkdir()
    (tmp_path / "rel" / "fits.dp").write_text("import noisy_answer from stdlib\nrelease fits { noisy_answer with ε/4 }\n")
    (tmp_path / "rel" / "over.dp").write_text("import noisy_answer from stdlib\n"
                                              "release over budget 2ε { noisy_answer with 3/4 ε }\n")
    code = main(["check", "--format", "json", "--lower-bound-work", "0", str(tmp_path / "rel")])
    doc = json.loads(capsys.readouterr().out)
    blocks = {b["name"]: b for f in doc["files"] for b in f["blocks"]}
    assert code == 1
    assert blocks["fits"]["verdict"] == "private"
    assert blocks["fits"]["budget"] == {"max_d": "1", "source": "project", "status": "met", "used": "1/2",
                                        "file": str(tmp_path / "pyproject.toml")}
    assert blocks["over"]["verdict"] == "not-private"
    assert blocks["over"]["budget"]["source"] == "project"           # tighter than its own 2ε
    assert blocks["over"]["diagnostics"][0]["code"] == "DP005"
    main(["check", "--color", "never", "--lower-bound-work", "0", str(tmp_path / "rel")])
    text = capsys.readouterr().out
    assert "uses ε/2 of the project's budget ε (50%)" in text


def test_a_bad_project_budget_is_an_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.dslc]\nbudget = "plenty"\n')
    result = check_text(tmp_path, "import noisy_answer from stdlib\nrelease r { noisy_answer with ε/4 }\n")
    (diag,) = result.blocks[0].diagnostics
    assert diag.code == "E178" and "budget" in diag.message and "plenty" in diag.message


# ------------------------------------------------------------------ JSON contract
def test_release_json_contract(capsys):
    code = main(["check", "--format", "json", str(ROOT / "examples" / "release.dp")])
    block = json.loads(capsys.readouterr().out)["files"][0]["blocks"][0]
    assert code == 0
    assert (block["kind"], block["verdict"], block["d"]) == ("release", "private", "1")
    assert [(c["callee"], c["share"], c["d"], c["group"]) for c in block["calls"]] == [
        ("above_threshold", "1/2", "1/2", None), ("noisy_answer", "1/8", "1/4", None),
        ("noisy_answer", "1/8", "1/4", "regions")]
    assert all(F(c["d_lower"]) <= F(c["d"]) for c in block["calls"])
    assert block["budget"]["status"] == "met"


@pytest.mark.parametrize("imported,name", [("examples/survey.dp", "survey"), ("examples/chain_power.dp", "household")])
def test_calls_of_pufferfish_blocks_are_refused(tmp_path, imported, name):
    """Pufferfish privacy does not compose in general: no cost is added (E177)."""
    rel = ROOT / imported
    text = f'import {name} from "{rel}"\nrelease r budget ε {{ {name} with ε/2 }}\n'
    block = check_text(tmp_path, text).blocks[0]
    assert block.verdict is Verdict.ERROR
    (diag,) = block.diagnostics
    assert diag.code == "E177" and diag.primary.span.text == name
    assert "Pufferfish" in diag.notes[0]


def test_a_release_of_disjoint_groups_costs_its_largest_call(tmp_path):
    text = ("import above_threshold, noisy_answer from stdlib\n"
            "release r { on disjoint days { above_threshold with ε; noisy_answer with ε/4 } }\n")
    block = check_text(tmp_path, text).blocks[0]
    assert block.d == 1 and block.bounds["calls"][1]["group"] == "days"
