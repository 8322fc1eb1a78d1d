"""Random programs, valid or not, never crash the pipeline: every problem is a
diagnostic with a code and a span."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.pipeline import check_source
from dslc.results import Verdict
from dslc.source import SourceFile

ATOMS = ["read()", "q", "s", "x", "y", "T", "0", "1/2", "-1", "ε", "q + 1", "2 * q", "Lap(ε, q)",
         "Lap(ε/4, read())", "Lap(2/ε, 0)", "Lap(ε, x)", "Lap(ε, s)", "⊤", "⊥", '"a"', "done"]
RATES = ["ε", "ε/2", "ε/4", "2ε/9", "0", "eps", "1/4*eps"]


def expr(rng):
    if rng.random() < 0.4:
        return f"Lap({rng.choice(RATES)}, {rng.choice(['0', 'q', 'read()', 'T', 'q + 1'])})"
    return rng.choice(ATOMS)


def stmts(rng, depth):
    out = []
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if r < 0.25:
            out.append(f"{rng.choice(['x', 'q', 's', 'y'])} := {expr(rng)}")
        elif r < 0.45:
            out.append(f"output {expr(rng)}")
        elif r < 0.6 and depth < 3:
            cond = f"{expr(rng)} {rng.choice(['>=', '<', '>', '<=', '≥'])} {rng.choice(['x', 'y', 's', expr(rng)])}"
            els = f" else {{ {'; '.join(stmts(rng, depth + 1))} }}" if rng.random() < 0.5 else ""
            out.append(f"if {cond} {{ {'; '.join(stmts(rng, depth + 1))} }}{els}")
        elif r < 0.72 and depth < 3:
            out.append(f"loop {{ {'; '.join(stmts(rng, depth + 1))} }}")
        elif r < 0.82:
            out.append(rng.choice(["halt", "break"]))
        else:
            out.append(f"q := read()")
    return out


def program(rng):
    body = "\n    ".join(stmts(rng, 0))
    head = f"mechanism m{rng.choice(['', '(T = 0)', '(T)', '()'])}"
    if rng.random() < 0.7:
        body = f"x := Lap({rng.choice(RATES)}, 0)\n    " + body
    text = f"{head} {{\n    {body}\n}}\n"
    if rng.random() < 0.2:
        i = rng.randrange(len(text))
        text = text[:i] + rng.choice(["{", "}", "(", ")", ";", ":=", "->", "if", "/*", "\x00", "ε"]) + text[i:]
    return text


def assert_clean(result):
    for d in result.all_diagnostics:
        assert d.code and d.message and d.span is not None
    for b in result.blocks:
        if b.verdict is Verdict.ERROR:
            assert any(d.is_error for d in b.diagnostics)
        if b.verdict is Verdict.PRIVATE:
            assert b.d is not None and b.d >= 0


@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_random_mechanisms_never_crash(seed):
    text = program(random.Random(seed))
    assert_clean(check_source(SourceFile("fuzz.dp", text)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="automaton mechanism state input noinput Lap(ε/4, 0) {}->;:=⊤⊥ insample>=<x q0 q1 true store output read() loop if else halt break\n/*", max_size=300))
def test_random_text_never_crashes(text):
    assert_clean(check_source(SourceFile("fuzz.dp", text)))
