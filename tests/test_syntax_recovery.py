"""Syntax errors: every independent mistake of a block, each explained once.

The parser recovers from syntax errors (dslc/syntax/recover.py): a block
with three typos gets three located errors, a mistake it recognises gets a
message in words with a help line, and one mistake gives one error, not a
cascade.  The rendered form of each code is in tests/golden/codes/.
"""

from __future__ import annotations

import random
import re
from fractions import Fraction
from pathlib import Path

import pytest

from dslc.diagnostics.suggest import closest, did_you_mean, edit_distance
from dslc.pipeline import check_source
from dslc.source import SourceFile
from dslc.syntax import recover
from dslc.syntax.lookalike import repeating_fraction
from dslc.syntax.split import split_blocks

ROOT = Path(__file__).resolve().parent.parent


def diags_of(text: str) -> list[tuple[str, int, str, list[str]]]:
    """(code, line, message, help) of every diagnostic, blocks in order."""
    result = check_source(SourceFile("t.dp", text))
    out = [(d.code, d.span.start_line_col[0], d.message, d.help) for d in result.diagnostics]
    for block in result.blocks:
        for d in block.diagnostics:
            assert d.span is not None and d.message
            out.append((d.code, d.span.start_line_col[0], d.message, d.help))
    return out


def test_three_typos_give_three_errors():
    text = """mechanism m(T = 0) {
    x := Lap(ε/2, T)
    lopo {
        q := raed()
        if Lap(ε/4, q) >= x { ouput ⊤; halt }
        output ⊥
    }
}
"""
    got = diags_of(text)
    assert [(c, line) for c, line, _, _ in got] == [("E020", 3), ("E020", 4), ("E020", 5)]
    assert [m for _, _, m, _ in got] == ["`lopo` is not a keyword; did you mean `loop`?",
                                         "`raed` is not a keyword; did you mean `read`?",
                                         "`ouput` is not a keyword; did you mean `output`?"]


def test_three_independent_mistakes_of_different_kinds():
    text = """automaton a {
    state q0 noinput Lap(ε/2, 0) { true q1 store }
    state q1 input Lap(ε/4, 0) {
        insample == x -> q1 output ⊥
        insample >= x -> q2 ouptut ⊤
    }
    state q2 input Lap(ε/4, 0) { }
}
"""
    got = diags_of(text)
    assert [(c, line) for c, line, _, _ in got] == [("E001", 2), ("E022", 4), ("E020", 5)]


def test_other_blocks_are_still_checked():
    text = """mechanism broken {
    x := Lap(ε, 0)
    lopo { output ⊥ }
}

automaton fine {
    state q0 noinput Lap(ε/2, 0) { true -> q1 output ⊥ store }
    state q1 input Lap(ε/4, 0) {
        insample < x -> q1 output ⊥
        insample >= x -> q2 output ⊤
    }
    state q2 input Lap(ε/4, 0) { }
}
"""
    result = check_source(SourceFile("t.dp", text))
    assert [b.verdict.value for b in result.blocks] == ["error", "private"]


# (program, code, line, words in the message, words in the help)
MISTAKES = [
    ("mechanism m {\n    x := Lap(ε, 0)\n    hlat\n}\n", "E020", 3, "did you mean `halt`", "`halt`"),
    ("automaton a {\n    stae q0 noinput Lap(ε, 0) { true -> q0 store }\n}\n", "E020", 2, "`state`", "`state`"),
    ("automaton a {\n    state q0 noinptu Lap(ε, 0) { true -> q0 store }\n}\n", "E020", 2, "`noinput`", ""),
    ("automatn a {\n    state q0 noinput Lap(ε, 0) { true -> q0 store }\n}\n", "E020", 1,
     "not a kind of block; did you mean `automaton`", ""),
    ("mechansim m {\n    x := Lap(ε, 0)\n}\n", "E020", 1, "did you mean `mechanism`", ""),
    ("hmm h {\n    staets a, b\n}\n", "E020", 2, "`states`", ""),
    ("chain c {\n    transiton = [[1]]\n}\n", "E020", 2, "`transition`", ""),
    ("chain c {\n    states = [0, 1]\n    query = summ\n}\n", "E020", 3, "`summ` is not a keyword", "`sum`"),
    ("automaton a {\n    state q0 noinput Lap(ε, 0) { true -> q0 outputs ⊤ store }\n}\n", "E020", 2,
     "`outputs` is not a keyword; did you mean `output`", ""),
    ("hmm h {\n    states a, b\n    a -> a: 1/2 b: 1/2\n}\n", "E001", 3, "found `:`",
     "a `,` or `:` is missing there"),
    ("mechanism m {\n    x := Lap(ϵ, 0)\n}\n", "E021", 2, "U+03F5 GREEK LUNATE EPSILON SYMBOL", "`ε` (or `eps`)"),
    ("mechanism m {\n    x := Lap(ε, −1)\n}\n", "E021", 2, "U+2212 MINUS SIGN", "`-`"),
    ("mechanism m {\n    x ≔ Lap(ε, 0)\n}\n", "E021", 2, "`≔`", "`:=`"),
    ("automaton a {\n    state q0 noinput Lap(ε, 0) { true -> q1 store }\n"
     "    state q1 input Lap(ε, 0) { insample ⩾ x -> q1 output ⊤ }\n}\n", "E021", 3, "`⩾`", "`>=` (or `≥`)"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    output “done”\n}\n", "E021", 3, "typographic quote", '"done"'),
    ("automaton a {\n    state q0 noinput Lap(ε, 0), Lap’(ε, 0) { true -> q0 store }\n}\n", "E021", 2,
     "`’`", "`'` (or `′`)"),
    ("mechanism m {\n    x := Lap（ε, 0)\n}\n", "E021", 2, "FULLWIDTH LEFT PARENTHESIS", "`(`"),
    ("mechanism m {\n    x :=\u2009Lap(ε, 0)\n}\n", "E021", 2, "U+2009 THIN SPACE", "ordinary space"),
    ("mechanism m {\n    x := Lap(ε/3, 0.3333…)\n}\n", "E008", 2, "`0.3333…` is not an exact number", "`1/3`"),
    ("mechanism m {\n    x := Lap(ε/3, 0.1666...)\n}\n", "E008", 2, "not an exact number", "`1/6`"),
    ("mechanism m {\n    x = Lap(ε, 0)\n}\n", "E022", 2, "assignment is written `:=`", ""),
    ("mechanism m {\n    x := Lap(ε, 0)\n    if Lap(ε, read()) == x { output ⊤ }\n}\n", "E022", 3,
     "`==` is not a comparison", ">="),
    ("mechanism m {\n    x := Lap(ε, 0)\n    if Lap(ε, read()) != x { output ⊤ }\n}\n", "E022", 3,
     "`!=` is not a comparison", ""),
    ("mechanism m {\n    x := Lap(ε, 0)\n    while Lap(ε, read()) >= x { output ⊥ }\n}\n", "E022", 3,
     "no `while` loop", "loop { if COND"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    for i in range(10) { output ⊥ }\n}\n", "E022", 3,
     "no `for` loop", "break"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    return ⊤\n}\n", "E022", 3, "no `return`", "output VALUE"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    print(⊤)\n}\n", "E022", 3, "no `print`", "output VALUE"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    if Lap(ε, read()) >= x { output ⊤ }\n"
     "    elif Lap(ε, read()) < x { output ⊥ }\n}\n", "E022", 4, "`else if`", ""),
    ("mechanism m {\n    x := Lap(ε, 0)\n    if Lap(ε, read()) >= x { output ⊤ };\n"
     "    else { output ⊥ }\n}\n", "E022", 4, "`else` without an `if`", "no `;`"),
    ("mechanism m {\n    let x := Lap(ε, 0)\n}\n", "E022", 2, "`let`", "assigned"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    loop { s := Lap(ε, read())\n"
     "        if s >= x or s < x { output ⊤ } }\n}\n", "E022", 4, "no `or`", "nest"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    loop { s := Lap(ε, read())\n"
     "        if s >= x || s < x { output ⊤ } }\n}\n", "E022", 4, "no `||`", "nest"),
    ("automaton a {\n    state q0 noinput Lap(ε, 0) { true => q0 store }\n}\n", "E022", 2, "`=>`", "`->`"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    loop { if Lap(ε, read()) >= x then { output ⊤ } }\n}\n",
     "E022", 3, "no `then`", "in braces"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    loop { output ⊥ } end\n}\n", "E022", 3, "no `end`", "`}`"),
    ("mechanism m {\n    x := Lap(ε, 0)\n    loop { if (Lap(ε, read()) >= x) { output ⊤ } }\n}\n",
     "E001", 3, "not written in parentheses", "bare"),
    ("automaton a {\n    state q0 noinput Lap(ε, 0) { true -> q1 store\n"
     "    state q1 input Lap(ε, 0) { }\n}\n", "E001", 3, "expected `}` before `state`", "line 2"),
    ("mechanism m {\n    x := Lap(ε, 0) /* a comment\n    output ⊥\n}\n", "E003", 2, "unterminated block comment", ""),
    ("mechanism m {\n    output \"done\n}\n", "E003", 2, "unterminated string", ""),
    ("mechanism m {\n    x := Lap(ε, 0) @\n}\n", "E003", 2, "unexpected character `@`", ""),
    ("mechanism m {\n    x := Lap(ε, 0)\n    loop {\n        output ⊥\n}\n", "E002", 3,
     "the `{` of line 3 is closed", "missing `}`"),
]


@pytest.mark.parametrize("text,code,line,message,help_", MISTAKES, ids=[f"{i}-{m[1]}" for i, m in enumerate(MISTAKES)])
def test_each_mistake_is_explained_once(text, code, line, message, help_):
    got = diags_of(text)
    assert len(got) == 1, got
    (c, ln, msg, helps), = got
    assert (c, ln) == (code, line), got
    assert message in msg, msg
    assert helps, "every syntax error has a help line"
    assert help_ in " ".join(helps), helps


def test_unclosed_brace_is_found_by_indentation():
    text = """mechanism m {
    x := Lap(ε, 0)
    loop {
        if Lap(ε, read()) >= x {
            output ⊤

        output ⊥
    }
}

automaton next_one {
    state q0 noinput Lap(ε/2, 0) { true -> q0 store }
}
"""
    result = check_source(SourceFile("t.dp", text))
    (d,) = result.blocks[0].diagnostics
    assert d.code == "E002" and d.span.start_line_col == (4, 32)          # the `{` of the `if`
    assert any("indented like line 3" in label.message for label in d.related)
    assert result.blocks[1].verdict.value == "private"                    # the next block is intact


def test_a_missing_open_brace_does_not_spill_into_stray_text():
    text = """mechanism m {
    x := Lap(ε, 0)
    loop
        output ⊥
    }
}
"""
    got = diags_of(text)
    assert [(c, line) for c, line, _, _ in got] == [("E001", 4)], got


def test_newlines_do_not_end_statements_and_the_error_says_so():
    text = """automaton a {
    state q0 noinput Lap(ε/2, 0)
        true -> q1 store
    }
    state q1 input Lap(ε/4, 0) {
        insample < x -> q1 output
        insample >= x -> q1 output ⊤
    }
}
"""
    (block,) = check_source(SourceFile("t.dp", text)).blocks
    first, second = block.diagnostics
    assert (first.code, first.span.start_line_col[0]) == ("E001", 3)
    assert [label.message for label in first.related] == ["this state is not finished"]
    assert "is something missing at the end of line 2?" in first.help[-1]
    assert (second.code, second.span.start_line_col[0]) == ("E001", 7)
    assert [label.message for label in second.related] == ["read as part of the transition of line 6"]


def test_mistakes_on_neighbouring_lines_are_both_reported():
    text = """automaton a {
    state q0 noinput Lap(ε/2, 0) { true -> q1 store }
    state q1 input Lap(ε/4, 0) {
        x > insample -> q1 output ⊥
        insample >= -> q1 output ⊤
    }
}
"""
    got = diags_of(text)
    assert [(c, line) for c, line, _, _ in got] == [("E001", 4), ("E001", 5)]
    assert got[1][2] == "expected a name, found `->`"      # `->`, not the `-` a lexer state saw


def test_python_style_bodies_give_one_error_per_colon():
    text = """mechanism m {
    x := Lap(ε, 0)
    loop:
        s := Lap(ε, read())
        if s >= x:
            output ⊤
        else:
            output ⊥
}
"""
    got = diags_of(text)
    assert [(c, line) for c, line, _, _ in got] == [("E022", 3), ("E022", 5), ("E022", 7)]
    assert {m for _, _, m, _ in got} == {"`.dp` writes bodies in braces, not after `:`"}


def test_at_most_twenty_errors_per_block():
    body = "".join(f"    x{i} := Lap(ε, 0) @\n" for i in range(30))
    result = check_source(SourceFile("t.dp", "mechanism m {\n" + body + "}\n"))
    diags = result.blocks[0].diagnostics
    assert len(diags) == recover.MAX_ERRORS
    assert "stops after 20 syntax errors" in diags[-1].notes[-1]


def test_keywords_are_not_taken_for_typos_of_each_other():
    # `input` is right here; the mistake is the missing draw, not a typo of `noinput`
    got = diags_of("automaton a {\n    state q0 input { true -> q0 store }\n}\n")
    assert [c for c, _, _, _ in got] == ["E001"]


def test_a_name_that_is_a_keyword_elsewhere_is_still_a_name():
    # `T` is a keyword of `chain` blocks; the repair must read it as a name here
    got = diags_of("mechanism m(T = 0) {\n    x := Lap(4 4ε/9, T)\n    output ⊥\n}\n")
    assert [(c, line) for c, line, _, _ in got] == [("E001", 2)]


# ------------------------------------------------------------------ one mistake, one error
_TOKEN = re.compile(r"//[^\n]*|\"[^\"\n]*\"|[A-Za-z_][A-Za-z0-9_']*|\d+(?:\.\d+)?|:=|->|>=|<=|\S")


def _mutants(seed: int, per_block: int):
    rng = random.Random(seed)
    files = sorted((ROOT / "examples").glob("*.dp")) + sorted((ROOT / "stdlib").glob("*.dp"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        chunks, _ = split_blocks(SourceFile(str(path), text))
        for chunk in chunks:
            body = text[chunk.start:chunk.end]
            toks = [m for m in _TOKEN.finditer(body) if not m.group().startswith("//")][3:]
            for _ in range(per_block):
                m = rng.choice(toks)
                if rng.random() < 0.5:
                    yield body[:m.start()] + body[m.end():]                  # a token left out
                else:
                    yield body[:m.end()] + " " + m.group() + body[m.end():]  # a token twice


def test_one_mistake_gives_one_error_almost_always():
    counts = []
    for text in _mutants(seed=15, per_block=6):
        result = check_source(SourceFile("m.dp", text), {"timeout": 10})
        diags = list(result.diagnostics) + [d for b in result.blocks for d in b.diagnostics]
        syntax = [d for d in diags if d.code in ("E001", "E002", "E003", "E007", "E008", "E020", "E021", "E022")]
        for d in diags:
            assert d.span is not None and d.message and d.code
        if syntax:
            counts.append(len(syntax))
    assert counts
    single = sum(1 for c in counts if c == 1) / len(counts)
    assert single >= 0.85, (single, sorted(counts))
    assert max(counts) <= 4


# ------------------------------------------------------------------ helpers
def test_edit_distance_counts_a_swap_of_neighbours_as_one():
    assert edit_distance("hlat", "halt") == 1
    assert edit_distance("ouput", "output") == 1
    assert edit_distance("mechansim", "mechanism") == 1
    assert edit_distance("abc", "xyz") == 3


def test_closest():
    keywords = ["output", "loop", "halt", "read", "if", "else", "break"]
    assert closest("lopo", keywords, ratio=None) == "loop"
    assert closest("OUTPUT", keywords, ratio=None) == "output"
    assert closest("fi", keywords, ratio=None) is None          # two letters: exact or case only
    assert closest("banana", keywords, ratio=None) is None
    assert did_you_mean("q12", ["q0", "q1", "q2"], "states") == "did you mean `q1`?"
    assert did_you_mean("zz", [], "states") == "no states are declared"
    assert did_you_mean("zzzzzz", ["a", "b"], "states") == "the declared states are `a`, `b`"


def test_decimals_cut_short_are_warned_about():
    result = check_source(SourceFile("t.dp", "mechanism m {\n    x := Lap(0.3333ε, 0.25)\n"
                                             "    // 0.6666 in a comment is not a number\n}\n"))
    (block,) = result.blocks
    assert block.verdict.value == "private"          # a warning: the verdict is for 3333/10000
    assert [(d.code, d.severity.value, d.span.start_line_col) for d in block.diagnostics] == \
        [("W002", "warning", (2, 14))]
    assert block.diagnostics[0].help == ["write `1/3` if that is the value you mean"]


@pytest.mark.parametrize("digits,value", [("0.3333", Fraction(1, 3)), ("0.333", Fraction(1, 3)),
                                          ("0.6666", Fraction(2, 3)), ("0.1666", Fraction(1, 6)),
                                          ("0.142857142857", Fraction(1, 7)), ("2.5000", None),
                                          ("0.25", None), ("0.1232323", Fraction(61, 495))])
def test_repeating_fraction(digits, value):
    assert repeating_fraction(digits) == value


@pytest.mark.parametrize("space", ["\u00a0", "\u2009", "\u3000", "\u200b", "\n", "\t "])
@pytest.mark.parametrize("keyword, body", [
    ("automaton", "{ state q input Lap(ε, 0) { true -> q output ⊤ store } }"),
    ("mechanism", "{ x := Lap(ε, 0) output x }"),
])
def test_a_block_keeps_its_name_after_any_space(space, keyword, body):
    """`automaton<NBSP>a` is the block `a`: the no-break space counts as a space
    (docs/language.md); other unusual spaces are E021 at their place, with a help
    line, and the block still has its name."""
    text = f"{keyword}{space}a {body}\n"
    result = check_source(SourceFile("t.dp", text))
    assert [b.name for b in result.blocks] == ["a"]
    codes = [(d.code, d.span.start, d.help) for b in result.blocks for d in b.diagnostics
             if d.code.startswith("E0")]
    if space in ("\u00a0", "\n", "\t "):
        assert codes == []
        assert result.blocks[0].verdict.value != "error"
    else:
        assert codes == [("E021", len(keyword), ["replace it with an ordinary space"])]
