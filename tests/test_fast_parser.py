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
RATES = ["ε", "eps", "ε/4", "2ε/9", "2/9 ε", "0.25*ε", "1/4*eps", "0", "ε / 2", "-ε", "3·ε", "2/ε",
         "３ε/٣", "٢ε", "1.٥ε"]                        # digits that are not 0-9: E021
MEANS = ["0", "-1/2", "1.5", "3", "-2", "0.", ".5", "1 + 1", "３", "٣", "1٢"]
NAMES = ["q0", "q1", "q2", "input", "output", "top", "s_1", "eps", "Lap", "read", "bot", "state", "epsx"]
OUTS = ["⊤", "⊥", "top", "bot", "insample", "insample'", "insample′", '"yes"', "a", "store", "outputx",
        "eps", "Lap", "read"]
# Reserved words where a guard compares (Lark: E001) and names that only start like them.
GUARDS = ["true", "insample >= x", "insample ≥ x", "insample < x", "insample<x", "insample > y",
          "insample <= x", "insample' >= x", "insample >= eps", "insample < Lap", "insample > read",
          "insample >= top", "insample <= bot", "insample >= epsx", "insample < Lap_", "insample >= top1",
          "insample >= input", "insample < store", "insample >= state"]
# A keyword run into the next word: Lark reads one unknown word (E020), never the keyword.
GLUED = [("noinput ", "noinput"), ("input ", "input"), ("output ", "output"), ("state ", "state"),
         ("store", "storex"), ("automaton ", "automaton"), ("-> ", "->"), ("Lap", "Lapx"),
         ("true ", "true"), ("insample ", "insample")]


def render(rng: random.Random) -> str:
    def w(allow_empty=True):
        choice = rng.choice(WS)
        return choice if (choice or allow_empty) else " "

    parts = ["automaton", w(False), rng.choice(["a", "b_2"]), w()]
    if rng.random() < 0.2:
        parts += [rng.choice(["budget", "sensitivity", "budget"]), w(False),
                  rng.choice(["3/2 ε", "2", "ε", "1 / 2", "x"]), w(False)]
    parts += ["{"]
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
    if rng.random() < 0.15:                      # a keyword glued to the next word
        old, new = rng.choice(GLUED)
        text = text.replace(old, new, 1)
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


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32))
def test_flat_reader_equals_per_state_reader(seed):
    """On the same random texts the flat reader gives the per-state reader's
    syntax tree (states parsed on demand), or declines."""
    import dslc.syntax.fast_automaton as fast
    text = render(random.Random(seed))
    src = SourceFile("t.dp", text)
    flat = parse_automaton_fast(src, 0, len(text), flat=True)
    if isinstance(flat, fast.FlatAutomatonBlock):
        fine = parse_automaton_fast(src, 0, len(text), flat=False)
        assert fine is not None, f"the flat reader accepted what the per-state reader rejects:\n{text}"
        assert (flat.span, flat.name, flat.name_span, flat.claims) == \
            (fine.span, fine.name, fine.name_span, fine.claims), text
        assert list(flat.states) == fine.states, text


# Every name position of an automaton, with the word to try in it.
NAME_POSITIONS = [
    "automaton {w} {{ state q input Lap(ε, 0) {{ true -> q output ⊤ store }} }}",
    "automaton a {{ state {w} input Lap(ε, 0) {{ true -> {w} output ⊤ store }} }}",
    "automaton a {{ state q input Lap(ε, 0) {{ true -> {w} output ⊤ store }} state {w} input Lap(ε, 0) {{ }} }}",
    "automaton a {{ state q input Lap(ε, 0) {{ insample >= {w} -> q output ⊤ }} }}",
    "automaton a {{ state q input Lap(ε, 0) {{ insample < {w} -> q }} }}",
    "automaton a {{ state q input Lap(ε, 0) {{ true -> q output {w} store }} }}",
]


def _lark_words() -> list[str]:
    from dslc.syntax.parser import _parser
    from dslc.syntax.recover import _keyword_words
    words = sorted({w for spellings in _keyword_words(_parser()[0]).values() for w in spellings})
    assert {"eps", "Lap", "read", "top", "bot", "state", "automaton", "chain", "T"} <= set(words)
    return words


def test_reserved_words_in_every_name_position():
    """Every keyword of the grammar (and the same word with a letter after it)
    in every name position: the fast readers accept exactly what Lark
    accepts, with the same tree, and decline what Lark rejects."""
    import dslc.syntax.fast_automaton as fast
    rejected = set()
    for template in NAME_POSITIONS:
        for word in _lark_words() + ["x", "eps1", "Lapx", "readx", "top_", "bottom"]:
            text = template.format(w=word)
            src = SourceFile("t.dp", text)
            try:
                slow = parse_block(src, "automaton", 0, len(text), fast=False)
            except DiagnosticError:
                slow = None
                rejected.add((template, word))
            for flat in (False, True):
                got = parse_automaton_fast(src, 0, len(text), flat=flat)
                if isinstance(got, fast.FlatAutomatonBlock):
                    got = ast_of_flat(got)
                assert got == slow, text          # None (declined) exactly where Lark rejects
    guard = NAME_POSITIONS[3]
    assert {w for t, w in rejected if t == guard} == set(fast.GUARD_RESERVED)


def ast_of_flat(block):
    from dslc.syntax import ast
    return ast.AutomatonBlock(block.span, block.name, block.name_span, states=list(block.states),
                              claims=block.claims)


def test_glued_keywords_and_other_digits_are_errors():
    """`noinputLap(ε, 0)` and `outputtop` are one word each (E020 that says so);
    digits other than 0-9 are E021, in every reader."""
    cases = {
        "automaton a { state q noinputLap(ε, 0) { true -> q output ⊤ store } }": ("E020", "noinputLap"),
        "automaton a { state q input Lap(ε, 0) { true -> q outputtop store } }": ("E020", "outputtop"),
        "automaton a { stateq input Lap(ε, 0) { } }": ("E020", "stateq"),
        "automaton a { state q input Lap(３ε/٣, 0) { true -> q output ⊤ store } }": ("E021", "３"),
        "automaton a { state q input Lap(ε, ٣) { true -> q output ⊤ store } }": ("E021", "٣"),
        "automaton a { state q input Lap(ε, 1٢) { true -> q output ⊤ store } }": ("E021", "٢"),
        "mechanism m { x := Lap(１２ε, 0) output x }": ("E021", "１２"),
        "automaton a { state q input Lap(ε, 0) { insample >= eps -> q } }": ("E001", "eps"),
    }
    for text, (code, where) in cases.items():
        src = SourceFile("t.dp", text)
        keyword = text.split()[0]
        if keyword == "automaton":
            assert parse_automaton_fast(src, 0, len(text)) is None, text
            assert parse_automaton_fast(src, 0, len(text), flat=True) is None, text
        try:
            parse_block(src, keyword, 0, len(text), fast=False)
        except DiagnosticError as exc:
            first = exc.diagnostics[0]
            assert first.code == code and text[first.span.start:first.span.end] == where, (text, first)
        else:
            raise AssertionError(f"accepted: {text}")


def test_fast_path_is_used_on_regular_text():
    text = "automaton a {\n" + "".join(
        f"  state q{i} input Lap(ε/4, 0) {{ insample < x -> q{i} output ⊥; insample >= x -> q{i+1} output ⊤ }}\n"
        for i in range(50)) + "  state q50 input Lap(ε, 0) { }\n}\n"
    src = SourceFile("t.dp", text)
    fast = parse_automaton_fast(src, 0, len(text))
    assert fast is not None
    assert fast == parse_block(src, "automaton", 0, len(text), fast=False)


# ---------------------------------------------------------------- the flat reader
# Large blocks are read flat (columns, no per-state objects) and lowered to a
# FlatDiPA.  On random automata -- private, leaking, with Definition 3 errors,
# lowering errors and texts the flat reader must decline -- the flat path and
# the per-state path give the same syntax tree, the same IR, and the same
# verdicts, d, diagnostics and spans in text and JSON.

FLAT_WS = [" ", " ", "  ", "\n  ", "\t", "\n", ""]
FLAT_RATES = ["ε/4", "ε/2", "ε", "2ε/9", "ε/9", "0.25*ε"]
FLAT_BAD_RATES = ["x", "-ε", "2/ε", "1", "ε / 0"]
FLAT_OUTS = ["⊤", "⊥", "top", "bot", "a", '"yes"', "insample", "insample'", "insample′"]


def flat_text(rng: random.Random, n: int) -> str:
    """An automaton of about n states: SVT gadgets in a row (private), random
    targets (leaking), and now and then a mistake (an error, or a text the
    flat reader declines)."""
    errors = rng.random() < 0.3
    category = rng.choice(["lowering", "definition 3"])
    svt = rng.random() < 0.5
    names = [rng.choice(["s", "q", "st_", "l"]) + str(i) for i in range(n)]
    if errors and category == "lowering" and rng.random() < 0.2:
        names[rng.randrange(1, n)] = names[rng.randrange(n)]            # E102
    ws = (lambda: " ") if rng.random() < 0.5 else (lambda: rng.choice(FLAT_WS) or " ")
    spaced = rng.random() < 0.3
    parts = ["automaton", " ", rng.choice(["big", "a_1"])]
    if rng.random() < 0.2:
        parts += [" budget ", rng.choice(["3/2 ε", "1000000 ε", "ε", "2"])]
    if rng.random() < 0.1:
        parts += [" sensitivity ", rng.choice(["2", "1/2", "0"])]
    parts.append(" {\n")
    symbols = [o for o in FLAT_OUTS if not o.startswith("insample")]

    def mistake(p: float, kind: str = "lowering") -> bool:
        return errors and kind == category and rng.random() < p

    for i, name in enumerate(names):
        def target(step=None):
            if mistake(0.01):
                return "nowhere"                                          # E101
            if step is not None:
                return names[min(n - 1, i + step)]
            return names[rng.randrange(n)] if not svt else names[min(n - 1, i + rng.choice([0, 1, 2]))]
        threshold = i == 0 or (svt and i % 2 == 0) or (not svt and rng.random() < 0.15)
        kind = "noinput" if threshold else "input"
        rate = rng.choice(FLAT_BAD_RATES if mistake(0.02) else ["0"] if mistake(0.02, "definition 3") else FLAT_RATES)
        draws = f"Lap({rate}, {rng.choice(['0', '1/2', '-1'])})"
        prime = rng.random() < 0.3
        if prime:
            draws += f", Lap'({rng.choice(FLAT_RATES)}, 0)"
        if mistake(0.01):
            draws = "Lap'(ε, 0)"                                           # E118
        trans = []
        if threshold:
            if i == 0 or rng.random() < 0.95:
                trans.append(f"true -> {target(1 if svt else None)} output {rng.choice(symbols)}" +
                             (" store" if i == 0 or svt or rng.random() < 0.3 else ""))
            if mistake(0.05, "definition 3"):
                trans.append(f"insample < x -> {target()}")                  # E106, E103
        else:
            o1 = rng.choice(["⊤", "top", "a"])
            o2 = rng.choice(["⊥", "bot", '"yes"', "insample"] + (["insample'", "insample′"] if prime else []))
            if rng.random() < 0.5:
                o1, o2 = o2, o1
            if mistake(0.02, "definition 3"):
                o2 = o1                                                       # E104
            g1, g2 = "insample < x", "insample >= x"
            if mistake(0.02):
                g2 = rng.choice(["insample < x", "insample > x", "insample >= y", "true"])
            leak = not svt and rng.random() < 0.1
            trans.append(f"{g1} -> {target(0 if svt else None)} output {o1}" + (" store" if leak else ""))
            if rng.random() < 0.95:
                trans.append(f"{g2} -> {target(1 if svt else None)} output {o2}")
            if mistake(0.01, "definition 3"):
                trans.append(f"true -> {target()}")                          # three transitions
        sep = rng.choice(["; ", " ;", ";"]) if not spaced else ";" + ws()
        body = sep.join(trans)
        if spaced:
            parts += [ws(), "state", ws(), name, ws(), kind, ws(), draws, ws(), "{", ws(), body, ws(), "}", "\n"]
        else:
            parts += ["  state ", name, " ", kind, " ", draws, " { ", body, " }\n"]
    parts.append("}\n")
    text = "".join(parts)
    if rng.random() < 0.05:                                               # the flat reader declines
        i = text.index("state", len(text) // 2)
        text = text[:i] + rng.choice(["// note\n", "/* c */ ", "state }"]) + text[i:]
    return text


def _outputs(text: str, options) -> tuple[str, str]:
    from dslc.diagnostics.render.json import render_json
    from dslc.diagnostics.render.text import render_results
    from dslc.pipeline import check_source
    files = [check_source(SourceFile("big.dp", text), options)]
    return render_json(files), render_results(files, explain=True).plain


def _both_paths(text: str, options, monkeypatch) -> tuple[tuple[str, str], tuple[str, str], bool]:
    import dslc.syntax.fast_automaton as fast
    monkeypatch.setattr(fast, "FLAT_MIN_CHARS", 10**12)
    slow = _outputs(text, options)
    monkeypatch.setattr(fast, "FLAT_MIN_CHARS", 0)
    from dslc.pipeline import compile_source
    flat = any(isinstance(c.syntax, fast.FlatAutomatonBlock) for c in compile_source(SourceFile("big.dp", text)))
    return _outputs(text, options), slow, flat


def test_flat_path_equals_per_state_path(monkeypatch):
    from dslc.pipeline import Options
    rng = random.Random(14)
    used = 0
    for trial in range(60):
        n = rng.choice([3, 12, 40, 300])
        options = Options(explain=True, details=True, lower_bound_work=0)
        text = flat_text(rng, n)
        fast_out, slow_out, flat = _both_paths(text, options, monkeypatch)
        used += flat
        assert fast_out[0] == slow_out[0], text
        assert fast_out[1] == slow_out[1], text
    assert used >= 40


def test_flat_path_on_the_examples_with_witnesses_and_lower_bounds(monkeypatch):
    """Witnesses and the search of d_lower read many states and transitions of
    the IR: on the examples' automata both paths give the same output."""
    import re
    from pathlib import Path
    from dslc.pipeline import Options
    root = Path(__file__).resolve().parent.parent
    flat = 0
    for path in sorted((root / "examples").glob("*.dp")) + sorted((root / "stdlib").glob("*.dp")):
        text = path.read_text(encoding="utf-8")
        if "automaton" not in text:
            continue
        text = re.sub(r"//[^\n]*", "", text)          # the flat reader declines comments
        for options in (Options(witness=True, explain=True, details=True, lower_bound_work=0), Options()):
            fast_out, slow_out, used = _both_paths(text, options, monkeypatch)
            assert fast_out == slow_out, path.name
        flat += used
    assert flat >= 4


def test_flat_syntax_and_ir_equal_per_state(monkeypatch):
    import dslc.syntax.fast_automaton as fast
    from dslc.ir.lower_automaton import lower_automaton
    rng = random.Random(7)
    for _ in range(40):
        text = flat_text(rng, rng.choice([5, 200]))
        src = SourceFile("big.dp", text)
        flat = parse_automaton_fast(src, 0, len(text), flat=True)
        fine = parse_automaton_fast(src, 0, len(text), flat=False)
        if not isinstance(flat, fast.FlatAutomatonBlock):
            continue
        assert fine is not None
        assert (flat.span, flat.name, flat.name_span, flat.claims) == (fine.span, fine.name, fine.name_span, fine.claims)
        assert list(flat.states) == fine.states
        assert [flat.states[i] for i in reversed(range(len(fine.states)))] == fine.states[::-1]
        a, da = lower_automaton(flat)
        b, db = lower_automaton(fine)
        assert da == db
        if a is not None:
            assert list(a.states) == b.states and list(a.transitions) == b.transitions
            assert (a.budget, a.sensitivity, a.budget_span, a.sensitivity_span) == \
                (b.budget, b.sensitivity, b.budget_span, b.sensitivity_span)


def test_splitter_hands_large_blocks_to_the_flat_reader():
    from dslc.syntax.split import split_blocks
    text = flat_text(random.Random(3), 800)
    text = "mechanism m { x := Lap(ε, 0) }\n" + text.replace("}\n}\n", "}\n}   \n\n") + "automaton z {\n}\n"
    src = SourceFile("t.dp", text)
    chunks, diags = split_blocks(src)
    assert [c.keyword for c in chunks] == ["mechanism", "automaton", "automaton"] and not diags
    big = chunks[1]
    assert text[big.end - 1] == "}" and text[big.end:big.end + 4] == "   \n"


def test_line_index_of_large_texts():
    """Large texts locate lines from counts per block of text (a few locations
    need no line table), then build the table when many are asked for: the
    same lines, columns, offsets and line texts either way."""
    rng = random.Random(5)
    for _ in range(20):
        text = "".join("x" * rng.choice([0, 1, 5, 80, 3000]) + rng.choice(["\n", "ε\n", ""])
                       for _ in range(rng.randint(0, 3000)))
        lazy, full = SourceFile("a", text), SourceFile("b", text)
        lazy._LAZY_LINES, lazy._BLOCK = 0, rng.choice([1, 7, 64, 1000])
        lazy._LAZY_LOOKUPS = rng.choice([5, 10**9])
        for o in [rng.randint(-3, len(text) + 3) for _ in range(200)] + [0, len(text)]:
            assert lazy.line_col(o) == full.line_col(o)
        lines = len(full.line_starts)
        assert lazy.line_count() == lines
        for line in list(range(-1, min(lines + 3, 50))) + [rng.randint(1, lines + 2) for _ in range(100)]:
            assert [lazy.offset(line, c) for c in (1, 2, 50, 10**6)] == [full.offset(line, c) for c in (1, 2, 50, 10**6)]
            assert lazy.line_text(line) == full.line_text(line)
