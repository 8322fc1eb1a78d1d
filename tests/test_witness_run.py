"""A witness's sentences are what the program does, and its replay lines run.

For every witness of a `mechanism` (the examples, the standard library and
generated programs) the printed step-by-step sentences are checked against
the direct interpreter (dslc.dipa.interpret): the test runs the program
itself on the printed α and β with the printed draws, recomputes each
statement's facts (what it read, whether its condition held, what it
output), checks them against the printed outputs and against the program's
control flow (a condition that held is followed by its `then` block), and
compares them with the witness's facts and the sentences rendered from them.

Every `replay:` line of every example's text output is pasted into
`bash -c` as it is printed: it runs (exit 0) and prints the probability the
note next to it gives.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings

from dslc.dipa.interpret import run_program
from dslc.dipa.paths import parse_outputs
from dslc.dipa.program_run import StepFact
from dslc.dipa.program_terms import fact_lines
from dslc.numbers import fmt_fraction
from dslc.pipeline import Options, check_source
from dslc.results import Verdict
from dslc.source import SourceFile
from dslc.syntax import ast
from tests.mechanism_strategies import structured

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("examples/*.dp"), *ROOT.glob("stdlib/*.dp")])


def mechanism_witnesses(path: str, text: str | None = None) -> list[tuple[ast.MechanismBlock, dict]]:
    """(the block's syntax tree, the witness's JSON data) of every mechanism witness."""
    source = SourceFile(path, text if text is not None else (ROOT / path).read_text(encoding="utf-8"))
    out = []
    for block in check_source(source, Options(witness=True, lower_bound_time=0)).blocks:
        if block.kind != "mechanism" or block.verdict is not Verdict.NOT_PRIVATE:
            continue
        for diag in block.diagnostics:
            w = diag.data.get("witness")
            if w and "table" in w:
                out.append((block.syntax, w))
    return out


def _then_lines(program: ast.MechanismBlock) -> dict[tuple[int, str], tuple[range, range]]:
    """For each `if` (by its condition's line and text): the lines of its `then`
    block and of its `else` block (programs checked this way keep a `then`
    block's lines apart from the statements after it)."""
    def line(span) -> int:
        return span.file.line_col(span.start)[0]

    def lines(stmts) -> range:
        if not stmts:
            return range(0)
        return range(line(stmts[0].span), stmts[-1].span.file.line_col(stmts[-1].span.end)[0] + 1)

    out = {}
    todo = list(program.body)
    while todo:
        s = todo.pop()
        if isinstance(s, ast.If):
            out[(line(s.cond.span), " ".join(s.cond.span.text.split()))] = (lines(s.then), lines(s.orelse or []))
            todo += list(s.then) + list(s.orelse or [])
        elif isinstance(s, ast.Loop):
            todo += list(s.body)
    return out


def recompute(program: ast.MechanismBlock, w: dict) -> list[StepFact]:
    """The facts of the program's run on the printed α, β and draws, checked
    against the printed outputs; independent of the witness's own facts."""
    alpha = [F(a) for a in w["alpha"] if a != "τ"]
    beta = [F(b) for b in w["beta"] if b != "τ"]
    draws = [F(d) for d in w["program_run"]["draws"]]
    eps = F(w["epsilon"])
    ra = run_program(program, alpha, eps, None, trace=True, values=draws)
    rb = run_program(program, beta, eps, None, trace=True, values=draws)
    assert ra.outputs == rb.outputs
    printed = [o for o in parse_outputs(",".join(w["outputs"])) if o != ""]
    tokens = [t for t in w["outputs"] if t != "_"]
    assert len(ra.outputs) >= len(printed), (ra.outputs, w["outputs"])
    for got, want in zip(ra.outputs, printed):
        if isinstance(want, str):
            assert isinstance(got, str) and got.strip("\"'") == want, (got, want)
        else:
            lo, hi = want
            assert not isinstance(got, str) and (lo is None or got > lo) and (hi is None or got < hi)
    assert ra.inputs_used == len(alpha) and rb.inputs_used == len(beta)
    facts, outputs = [], 0
    for fa, fb in zip(ra.facts, rb.facts):
        assert (fa.kind, fa.line, fa.code, fa.loops, fa.held) == (fb.kind, fb.line, fb.code, fb.loops, fb.held)
        token = None
        if fa.kind == "output":
            if outputs == len(tokens):
                break
            token, outputs = tokens[outputs], outputs + 1
        facts.append(StepFact(fa.kind, fa.line, fa.code, fa.loops, list(zip(fa.reads, fb.reads)),
                              list(fa.draws), fa.held, fa.target, token))
    assert outputs == len(tokens)
    # a condition that held is followed by its `then` block, one that failed is not
    blocks = _then_lines(program)
    for f, after in zip(facts, facts[1:]):
        if f.kind == "compare":
            then, orelse = blocks[(f.line, f.code)]
            if f.held:
                assert not then or after.line in then, (f, after)
            else:
                assert after.line not in then, (f, after)
    return facts


def check_witness(program: ast.MechanismBlock, w: dict) -> None:
    assert "program_run" in w, w.get("program_run_problem")
    # the rule is written for the program, in its own words (one-variable witnesses;
    # a several-variable witness, which has "found", gives its path and numbers only)
    if "found" not in w:
        assert w["program_rule"] and not re.search(r"insample|\bq\d+\b|τ|the draw must|every a ",
                                                   w["program_rule"])
    facts = recompute(program, w)
    assert [f.to_json() for f in facts] == w["program_run"]["facts"]
    assert fact_lines(facts) == w["program_steps"]
    # every `read()` of the run is one printed input, in order
    reads = [r for f in facts for r in f.reads]
    assert [fmt_fraction(a) for a, _ in reads] == [a for a in w["alpha"] if a != "τ"]
    assert [fmt_fraction(b) for _, b in reads] == [b for b in w["beta"] if b != "τ"]


@pytest.mark.parametrize("path", FILES)
def test_every_example_witness_says_what_the_program_does(path):
    for program, w in mechanism_witnesses(path):
        check_witness(program, w)


def test_the_examples_have_mechanism_witnesses():
    """Guard against a vacuous test: the examples do have mechanism witnesses."""
    count = sum(len(mechanism_witnesses(p)) for p in FILES)
    assert count >= 4


def test_svt_star_says_which_comparisons_fail():
    ((program, w),) = mechanism_witnesses("examples/svt_star.dp")
    steps = w["program_steps"]
    assert steps[1].startswith("turn 1 of the loop at line 9: line 10 reads -1/2 | 1/2; "
                               "`Lap(ε/4, read()) >= x` is false (line 10); outputs ⊥ (line 11)")
    assert any("`Lap(ε/4, read()) >= x` holds (line 10); outputs ⊤ (line 10); leaves the loop" in s
               for s in steps)
    assert any("`Lap(ε/4, read()) < x` is false (line 14); outputs ⊤ (line 15)" in s for s in steps)


def test_numeric_sparse_mod_reads_on_line_10_and_speaks_plainly():
    ((program, w),) = mechanism_witnesses("examples/numeric_sparse_mod.dp")
    steps = w["program_steps"]
    assert "line 10 reads 0 | 1 into `q`; line 11 draws `Lap(2ε/9, q)` into `s`; `s >= x` is false" in steps[1]
    assert steps[-1].endswith("`s >= x` holds (line 12); outputs `s`, a value in (-inf,0) (line 13); "
                              "halts (line 14)")
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--witness", "--color", "never",
                           "examples/numeric_sparse_mod.dp"], capture_output=True, text=True, cwd=ROOT,
                          env=_env(), timeout=300)
    text = " ".join(proc.stdout.split())
    rule = text.split("witness (Lemma 9): the program runs")[1].split("= note:")[0]
    # the lines of a turn include the `read()` on line 10
    assert rule.startswith(" line 8 once, then ℓ turns of the loop at line 9 (lines 10–16), then lines 10–13 once;")
    assert "the value output at line 13 (`output s`) must lie in (−∞, 0)" in rule
    for garbled in ("released the draw", "every a `<`", "comparison with `x` comparison", "insample"):
        assert garbled not in rule, garbled


@settings(max_examples=20, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(structured())
def test_generated_programs_witnesses_say_what_the_program_does(text):
    # one statement per line and every block's braces on lines of their own, so
    # that lines tell statements and blocks apart
    text = text.replace("; ", ";\n").replace("{ ", "{\n").replace(" }", "\n}")
    found = mechanism_witnesses("gen.dp", text)
    assume(found)
    for program, w in found:
        check_witness(program, w)


# ---------------------------------------------------------------------------
# replay lines run when pasted

REPLAY = re.compile(r"^\s*= note: replay: (.*)$")
PR = re.compile(r"Pr_α = (\S+?),? .*Pr_β = (\S+?)(?:,| |$)")


def _env() -> dict:
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", PYTHONPATH=str(ROOT))
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


@pytest.mark.parametrize("path", [p for p in FILES if "chain" not in p])
def test_every_replay_line_runs_when_pasted(path):
    env = _env()
    proc = subprocess.run([sys.executable, "-m", "dslc", "check", "--witness", "--explain", "--color", "never",
                           path], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)
    lines = proc.stdout.splitlines()
    commands = []
    for k, line in enumerate(lines):
        m = REPLAY.match(line)
        if not m:
            continue
        # the line after a replay line never continues it
        assert k + 1 < len(lines) and not lines[k + 1].startswith(" " * 12), lines[k + 1]
        # the probability it must print: the nearest `Pr_α = …, Pr_β = …` note above it
        pr = next(PR.search(" ".join(lines[j:j + 2])) for j in range(k, -1, -1)
                  if PR.search(" ".join(lines[j:j + 2])))
        first = not REPLAY.match(lines[k - 1])
        commands.append((m.group(1), pr.group(1) if first else pr.group(2)))
    if not commands:
        assert "replay" not in proc.stdout
        return
    for command, want in commands:
        run = subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=ROOT, env=env,
                             timeout=300)
        assert run.returncode == 0, (command, run.stderr)
        assert f"] = {want}\n" in run.stdout, (command, want, run.stdout)


def test_a_run_that_does_not_match_is_not_shown_and_the_witness_stays(monkeypatch):
    """A bug in the run's reconstruction costs the sentences, never the witness or the verdict."""
    from dslc.dipa import program_run

    def broken(*args, **kwargs):
        raise program_run.RunMismatch("line 10 outputs ⊤, the witness ⊥")
    monkeypatch.setattr(program_run, "witness_run", broken)
    monkeypatch.delenv("DSLC_DEBUG", raising=False)
    source = SourceFile("examples/svt_star.dp", (ROOT / "examples/svt_star.dp").read_text(encoding="utf-8"))
    block = check_source(source, Options(witness=True, lower_bound_time=0)).blocks[0]
    assert block.verdict is Verdict.NOT_PRIVATE
    (diag,) = block.diagnostics
    w = diag.data["witness"]
    assert "program_steps" not in w and "line 10 outputs ⊤" in w["program_run_problem"]
    assert any(n.startswith("the step-by-step run is not shown") and "please report it" in n for n in diag.notes)
    assert any(n.startswith("replay: ") for n in diag.notes)
