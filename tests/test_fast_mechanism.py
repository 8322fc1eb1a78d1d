"""The hand-written mechanism reader builds exactly Lark's AST, or declines."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc.diagnostics.model import DiagnosticError
from dslc.source import SourceFile
from dslc.syntax import fast_mechanism
from dslc.syntax.fast_mechanism import parse_mechanism_fast
from dslc.syntax.parser import parse_block
from dslc.syntax.split import split_blocks

ROOT = Path(__file__).resolve().parent.parent
WS = [" ", "  ", "\n", "\n    ", "\t", " // note\n", "", "\u00a0"]
NAMES = ["x", "T", "i", "count_1", "q", "_a", "iffy", "Lapx", "epsx"] * 3 + ["eps", "top", "read", "sum", "state"]
ATOMS = ["0", "1", "3/4", "2.5", ".5", "1.", "ε", "eps", "⊤", "⊥", "top", "bot", '"yes"', '""', "read()",
         "x", "T", "i", "12345678901234567890"]
CMPS = [">=", "≥", "<", ">", "<=", "≤", "==", "="]


def render(rng: random.Random) -> str:
    def w(required=False):
        choice = rng.choice(WS)
        return choice if (choice or not required) else " "

    def expr(depth=0) -> str:
        r = rng.random()
        if depth > 3 or r < 0.35:
            return rng.choice(ATOMS)
        if r < 0.55:
            return expr(depth + 1) + w() + rng.choice(["+", "-", "*", "·", "/"]) + w() + expr(depth + 1)
        if r < 0.65:
            return "-" + w() + expr(depth + 1)
        if r < 0.75:
            return "(" + w() + expr(depth + 1) + w() + ")"
        if r < 0.85:
            return rng.choice(["Lap", "Lap'", "Lap′"]) + w() + "(" + expr(depth + 1) + "," + w() + \
                expr(depth + 1) + ")"
        return expr(depth + 1) + w() + rng.choice(["ε", "eps", "εx"])

    def stmts(depth=0) -> str:
        out = []
        for _ in range(rng.randint(0, 3)):
            r = rng.random()
            if r < 0.35:
                out.append(rng.choice(NAMES) + w() + ":=" + w() + expr())
            elif r < 0.5 and depth < 3:
                s = "if" + w(True) + expr() + w() + rng.choice(CMPS) + w() + expr() + w() + body(depth + 1)
                if rng.random() < 0.5:
                    s += w() + "else" + w() + (body(depth + 1) if rng.random() < 0.6 else
                                                "if x < 1 " + body(depth + 1))
                out.append(s)
            elif r < 0.6 and depth < 3:
                out.append("loop" + w() + body(depth + 1))
            elif r < 0.8:
                out.append("output" + w(True) + expr())
            elif r < 0.9:
                out.append(rng.choice(["halt", "break", ";"]))
            else:
                out.append(rng.choice(["else {}", "x = 1", "output", "loop", "}"]))
        return "".join(w() + s + rng.choice(["", ";", "\n"]) for s in out)

    def body(depth=0) -> str:
        return "{" + stmts(depth) + w() + "}"

    parts = ["mechanism", w(True), rng.choice(["m", "svt_2", "m", "sum"])]
    if rng.random() < 0.5:
        ps = [rng.choice(NAMES) + (w() + "=" + w() + expr() if rng.random() < 0.5 else "")
              for _ in range(rng.randint(0, 3))]
        parts += [w(), "(", ("," + w()).join(ps), rng.choice(["", "", ","]), ")"]
    for _ in range(rng.randint(0, 2)):
        parts += [w(True), rng.choice(["budget", "sensitivity"]), w(True), expr()]
    parts += [w(), body(), w()]
    text = "".join(parts)
    if rng.random() < 0.15:                       # a random corruption
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(["}", "{", ",", ":=", "x", "//", "/*", ")", "(", "'", "-", "ε"]) + text[i:]
    return text


def _lark(src: SourceFile, start: int, end: int):
    try:
        return parse_block(src, "mechanism", start, end, fast=False)
    except DiagnosticError:
        return None


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_fast_mechanism_reader_equals_lark(seed):
    text = render(random.Random(seed))
    src = SourceFile("t.dp", text)
    fast = parse_mechanism_fast(src, 0, len(text))
    slow = _lark(src, 0, len(text))
    if fast is not None:
        assert slow is not None, f"the fast reader accepted what Lark rejects:\n{text}"
        assert fast == slow, text


def test_the_random_texts_exercise_both_outcomes():
    """The generator is not vacuous: the reader accepts many texts and declines many."""
    outcomes = [parse_mechanism_fast(SourceFile("t.dp", t), 0, len(t)) is not None
                for t in (render(random.Random(seed)) for seed in range(600))]
    assert 0.15 < sum(outcomes) / len(outcomes) < 0.9


def _mechanisms():
    files = sorted(ROOT.glob("examples/*.dp")) + sorted(ROOT.glob("stdlib/*.dp")) + \
        sorted(ROOT.glob("tests/**/*.dp"))
    for path in files:
        try:
            src = SourceFile(str(path), path.read_text(encoding="utf-8"))
        except UnicodeDecodeError:                # the hostile-input files
            continue
        chunks, _ = split_blocks(src)
        for c in chunks:
            if c.keyword == "mechanism" and c.complete:
                yield pytest.param(src, c.start, c.end, id=f"{path.name}:{c.name}")


@pytest.mark.parametrize("src,start,end", list(_mechanisms()))
def test_fast_mechanism_reader_on_every_mechanism_file(src, start, end):
    fast = parse_mechanism_fast(src, start, end)
    slow = _lark(src, start, end)
    if fast is not None:
        assert fast == slow


def test_fast_mechanism_reader_reads_the_examples():
    """The point of the reader: a check of an example never loads Lark."""
    read = [parse_mechanism_fast(src, s, e) is not None
            for src, s, e in (p.values for p in _mechanisms()) if "examples" in src.path]
    assert read and all(read)


def test_every_word_lark_may_read_as_a_keyword_in_a_mechanism_is_declined_as_a_name():
    """The LALR states reachable from the mechanism start state (by shifts and
    gotos) accept these literal terminals; the contextual lexer may turn a
    name spelled like one into that keyword, so the reader must not read it
    as a name."""
    import re

    from dslc.syntax.parser import START_RULES, _parser
    lark_parser, _ = _parser()
    table = lark_parser.parser.parser.parser.parse_table
    start = table.start_states[START_RULES["mechanism"]]
    seen, todo = {start}, [start]
    while todo:
        for _symbol, (action, target) in table.states[todo.pop()].items():
            if action.name == "Shift" and target not in seen:
                seen.add(target)
                todo.append(target)
    terminals = {t.name: t.pattern for t in lark_parser.terminals}
    words = {terminals[name].value for s in seen for name in table.states[s]
             if name in terminals and terminals[name].type == "str"
             and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", terminals[name].value)}
    assert len(seen) > 50 and {"if", "loop", "Lap", "states"} <= words
    assert words <= fast_mechanism._KEYWORDS


def test_fast_mechanism_reader_declines_deep_nesting():
    text = "mechanism m { x := " + "(" * 500 + "1" + ")" * 500 + " }"
    src = SourceFile("t.dp", text)
    assert parse_mechanism_fast(src, 0, len(text)) is None
    shallow = "mechanism m { x := " + "(" * (fast_mechanism.MAX_DEPTH - 1) + "1" + \
        ")" * (fast_mechanism.MAX_DEPTH - 1) + " }"
    src = SourceFile("t.dp", shallow)
    fast = parse_mechanism_fast(src, 0, len(shallow))
    assert fast is not None and fast == _lark(src, 0, len(shallow))


def test_the_reader_honours_the_time_limit():
    """A huge mechanism read without Lark still stops at --timeout (and Ctrl-C)."""
    from dslc import limits
    text = "mechanism m {" + " x := read()" * 5000 + " }"
    with limits.scope(limits.Deadline(None, cancelled=lambda: True)):    # Ctrl-C, or a newer edit
        with pytest.raises(limits.Cancelled):
            parse_mechanism_fast(SourceFile("t.dp", text), 0, len(text))
    assert parse_mechanism_fast(SourceFile("t.dp", text), 0, len(text)) is not None
