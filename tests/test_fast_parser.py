"""The regex fast path for large automata builds exactly Lark's AST, or declines."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.diagnostics.model import DiagnosticError
from dslc.source import SourceFile
from dslc.syntax.fast_automaton import parse_automaton_fast
from dslc.syntax.parser import parse_block

WS = [" ", "  ", "\n", "\n    ", "\t", " /* c */ ", " // note\n", ""]
RATES = ["ε", "eps", "ε/4", "2ε/9", "2/9 ε", "0.25*ε", "1/4*eps", "0", "ε / 2", "-ε", "3·ε", "2/ε"]
MEANS = ["0", "-1/2", "1.5", "3", "-2", "0.", ".5", "1 + 1"]
NAMES = ["q0", "q1", "q2", "input", "output", "top", "s_1"]
OUTS = ["⊤", "⊥", "top", "bot", "insample", "insample'", "insample′", '"yes"', "a", "store", "outputx"]
GUARDS = ["true", "insample >= x", "insample ≥ x", "insample < x", "insample<x", "insample > y",
          "insample <= x", "insample' >= x"]


def render(rng: random.Random) -> str:
    def w(allow_empty=True):
        choice = rng.choice(WS)
        return choice if (choice or allow_empty) else " "

    parts = ["automaton", w(False), rng.choice(["a", "b_2"]), w(), "{"]
    for _ in range(rng.randint(0, 4)):
        parts += [w(), "state", w(False), rng.choice(NAMES), w(False), rng.choice(["input", "noinput"]), w(False),
                  rng.choice(["Lap", "Lap'"]), w(), "(", w(), rng.choice(RATES), w(), ",", w(), rng.choice(MEANS),
                  w(), ")"]
        if rng.random() < 0.3:
            parts += [w(), ",", w(), rng.choice(["Lap'", "Lap′", "Lap"]), "(", rng.choice(RATES), ",",
                      rng.choice(MEANS), ")"]
        parts += [w(), "{"]
        for _ in range(rng.randint(0, 3)):
            parts += [w(), rng.choice(GUARDS), w(), rng.choice(["->", "→"]), w(), rng.choice(NAMES)]
            if rng.random() < 0.7:
                parts += [w(False), "output", w(False), rng.choice(OUTS)]
            if rng.random() < 0.4:
                parts += [w(False), "store"]
            if rng.random() < 0.3:
                parts += [w(), ";"]
        parts += [w(), "}"]
        if rng.random() < 0.2:
            parts += [";"]
    parts += [w(), "}"]
    text = "".join(parts)
    if rng.random() < 0.15:                      # a random corruption
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(["}", "{", ",", "->", "x", "//", "/*", ")", "(", ""]) + text[i:]
    return text


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_fast_path_equals_lark(seed):
    text = render(random.Random(seed))
    src = SourceFile("t.dp", text)
    fast = parse_automaton_fast(src, 0, len(text))
    try:
        slow = parse_block(src, "automaton", 0, len(text), fast=False)
    except DiagnosticError:
        slow = None
    if fast is not None:
        assert slow is not None, f"fast path accepted what Lark rejects:\n{text}"
        assert fast == slow, text


def test_fast_path_is_used_on_regular_text():
    text = "automaton a {\n" + "".join(
        f"  state q{i} input Lap(ε/4, 0) {{ insample < x -> q{i} output ⊥; insample >= x -> q{i+1} output ⊤ }}\n"
        for i in range(50)) + "  state q50 input Lap(ε, 0) { }\n}\n"
    src = SourceFile("t.dp", text)
    fast = parse_automaton_fast(src, 0, len(text))
    assert fast is not None
    assert fast == parse_block(src, "automaton", 0, len(text), fast=False)
