"""The checker's C loops (dslc/_native.c) give exactly what its Python loops give.

Both are run on the same automata, with the module switched off for the
second run: every field of the result must be equal, witnesses included
(same components, same numbering, same search trees).  The hub trees of
large components are exercised on small automata by lowering the threshold.
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import dslc.dipa.check as checker
from benchmarks.gen_dipa import random_ill_formed, random_well_formed, svt_chain, sorted_chain
from tests.dipa_strategies import dipas

from dslc.native import module as native

if native is None:
    pytest.skip("the C part is not built (no compiler at install), or built from another _native.c",
                allow_module_level=True)


def _both(dipa, monkeypatch, hub: int | None = None):
    if hub is not None:
        monkeypatch.setattr(checker, "HUB_THRESHOLD", hub)
    fast = checker.check(dipa, max_per_kind=10**6)
    with monkeypatch.context() as m:
        m.setattr(checker, "_native", None)
        slow = checker.check(dipa, max_per_kind=10**6)
    return fast, slow


def _same(fast, slow):
    assert fast.violations == slow.violations
    assert fast.truncated == slow.truncated
    assert fast.weight == slow.weight
    assert list(fast.reachable) == list(slow.reachable)
    assert list(fast.component) == list(slow.component)
    assert bytes(fast.on_cycle) == bytes(slow.on_cycle)
    assert fast.critical_scaled == slow.critical_scaled
    assert list(fast.heaviest) == list(slow.heaviest)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(dipas(max_states=10), st.sampled_from([None, 0, 2]))
def test_native_loops_give_the_python_result(monkeypatch, dipa, hub):
    _same(*_both(dipa, monkeypatch, hub))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(dipas(max_states=6, dense=True), st.sampled_from([None, 0]))
def test_native_loops_give_the_python_result_dense(monkeypatch, dipa, hub):
    _same(*_both(dipa, monkeypatch, hub))


@pytest.mark.parametrize("make", [random_ill_formed, random_well_formed, svt_chain, sorted_chain])
@pytest.mark.parametrize("hub", [None, 50])
def test_native_loops_on_generated_automata(monkeypatch, make, hub):
    fast, slow = _both(make(3000), monkeypatch, hub)
    _same(fast, slow)


def test_native_loops_refuse_bad_arrays():
    start, adj, comp = array("i", [0, 1, 2]), array("i", [1, 0]), array("i", [-1, -1])
    assert native.tarjan(start, adj, 0, comp) == (1, 2)
    assert list(comp) == [0, 0]
    with pytest.raises(ValueError):
        native.tarjan(start, array("i", [1, 5]), 0, comp)          # a target out of range
    with pytest.raises(ValueError):
        native.tarjan(array("i", [0, 2, 1]), adj, 0, comp)         # start decreasing
    with pytest.raises(ValueError):
        native.tarjan(start, adj, 3, comp)                         # init out of range
    with pytest.raises(ValueError):
        native.postorder(start, array("l", [1, 0]), 0, comp)       # not array('i')
    parent = array("i", [-1, -2])
    with pytest.raises(ValueError):
        native.bfs(start, adj, None, b"\x01", None, 0, parent, None, array("i", [0, 0]), 1, 2)  # ok too short
    with pytest.raises(ValueError):
        native.bfs(start, adj, array("i", [0, 9]), None, None, 0, parent, None, array("i", [0, 0]), 1, 2)
    with pytest.raises(ValueError):
        native.group(2, array("i", [0, 7]), None, array("i", [0, 0, 0]), array("i", [0, 0]))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "s1", "s10", "é", "名", "q'", "x" * 40]), max_size=12),
       st.data())
def test_name_resolution_of_the_python_reader(names, data):
    """The reader without C (strings, some targets found near their state):
    the index of every target, ids already known kept, None for a name
    declared twice or a target not declared (a literal check)."""
    import dslc.ir.lower_automaton as lowering
    pool = names + ["zz", "s100"]
    m = data.draw(st.integers(0, 10))
    ids = array("i", [data.draw(st.sampled_from([-1] + list(range(len(names))))) if names else -1
                      for _ in range(m)])
    targets = [data.draw(st.sampled_from(pool)) for _ in range(ids.count(-1))]
    got = lowering._resolve(list(names), array("i", ids), list(targets))
    if len(set(names)) != len(names) or any(t not in names for t in targets):
        assert got is None
    else:
        rest = iter(targets)
        assert list(got) == [i if i != -1 else names.index(next(rest)) for i in ids]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "s1", "s10", "é", "名", "q'", "😀x", "x" * 40]), max_size=12),
       st.lists(st.sampled_from(["a", "b", "s1", "s10", "é", "名", "q'", "😀x", "zz", "s100"]), max_size=12),
       st.sampled_from(["", "é", "😀"]))
def test_native_resolution_from_offsets_gives_the_python_result(names, targets, filler):
    """resolve_spans (names and targets as offsets into one text, as the C
    reader gives them) agrees with the lowering's dictionary: the same index
    for every target, None for a name declared twice or a target not declared."""
    import dslc.ir.lower_automaton as lowering
    from dslc.syntax.fast_automaton import SpanNames
    parts, name_spans, target_spans, pos = [], array("q"), array("q"), 0
    for word, spans in [(w, name_spans) for w in names] + [(w, target_spans) for w in targets]:
        parts.append(word + " " + filler)         # the filler sets the text's kind (1, 2 or 4 bytes)
        spans.extend([pos, pos + len(word)])
        pos += len(word) + 1 + len(filler)
    text = "".join(parts)
    fast = lowering._resolve_spans(text, name_spans, target_spans)
    slow = lowering._resolve(list(names), array("i", [-1] * len(targets)), list(targets))
    assert (None if fast is None else list(fast)) == (None if slow is None else list(slow))
    shown = SpanNames(text)
    shown.spans.extend(name_spans)
    assert len(shown) == len(names) and list(shown) == names
    assert [shown[k] for k in range(-len(names), len(names))] == names + names
    with pytest.raises(ValueError):
        native.resolve_spans(text, array("q", [0, len(text) + 1]), array("q"))      # outside the text
    with pytest.raises(ValueError):
        native.resolve_spans(text, array("q", [0]), array("q"))                     # not pairs


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 255), max_size=40))
def test_native_expand_gives_the_python_sources(counts):
    """expand: the source of every transition of consecutive rows (FlatDiPA's src)."""
    from itertools import chain, repeat
    got = array("i")
    got.frombytes(native.expand(bytes(counts)))
    assert list(got) == list(chain.from_iterable(map(repeat, range(len(counts)), counts)))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(-5, 5), max_size=3), min_size=1, max_size=8), st.data())
def test_native_spread_gives_the_python_rows(rows, data):
    """spread: the rows of the given ids one after the other (the kinds of a
    flat block's transitions, from its states' shapes)."""
    from itertools import accumulate, chain
    ids = data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=30))
    start = array("i", [0])
    start.extend(accumulate(map(len, rows)))
    got = array("i")
    got.frombytes(native.spread(array("i", chain.from_iterable(rows)), start, array("i", ids)))
    assert list(got) == [v for j in ids for v in rows[j]]
    with pytest.raises(ValueError):
        native.spread(array("i", chain.from_iterable(rows)), start, array("i", [len(rows)]))
    if len(start) > 1 and start[-1] > 0:
        with pytest.raises(ValueError):
            native.spread(array("i", chain.from_iterable(rows)), array("i", list(start)[:-1] + [0]), array("i", []))


def test_flat_lowering_is_the_same_without_the_native_loops(monkeypatch):
    """A flat block's columns (sources, kinds, rate classes) with and without C."""
    from benchmarks.gen_dipa import random_ill_formed, to_text
    import dslc.ir.flat_dipa as flat
    import dslc.ir.lower_automaton as lowering
    from dslc.pipeline import check_source
    from dslc.source import SourceFile

    text = to_text(random_ill_formed(3000))

    def columns():
        src = SourceFile("g.dp", text)
        result = check_source(src).blocks[0]
        return result.ir.own_columns(), result.ir._kind_id

    fast = columns()
    with monkeypatch.context() as m:
        import dslc.native
        m.setattr(dslc.native, "module", None)           # the reader's strings, no offsets
        m.setattr(flat, "_native", None)
        m.setattr(lowering, "_native", None)
        slow = columns()
    assert fast[0] == slow[0] and list(fast[1]) == list(slow[1])
    assert fast[0].start is not None and len(fast[0].src) == fast[0].m > 3000


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(["a", "\n", "é", "名", "😀", " ", "\r"]), max_size=60))
def test_native_line_table_gives_the_python_one(text):
    from dslc.source import SourceFile
    src = SourceFile("t.dp", text)
    python_table = [0] + [i + 1 for i, c in enumerate(src.text) if c == "\n"]
    assert list(array("q", native.line_starts(src.text))) == python_table
    big = SourceFile("big.dp", src.text * 3 + "x" * (SourceFile._LAZY_LINES + 1) + src.text)
    expected = [0] + [i + 1 for i, c in enumerate(big.text) if c == "\n"]
    assert list(big.line_starts) == expected


def test_a_build_from_another_source_is_not_used(monkeypatch, tmp_path):
    """An editable install keeps its old build after a pull: dslc must not call it."""
    import importlib

    import dslc.native
    assert dslc.native.module is native and native.SOURCE_CRC32
    fake = tmp_path / "dslc"
    fake.mkdir()
    (fake / "_native.c").write_text("/* changed */\n")
    monkeypatch.setattr(dslc.native, "__file__", str(fake / "native.py"))
    assert dslc.native._load() is None
    importlib.reload(dslc.native)
    assert dslc.native.module is native


def test_DSLC_NATIVE_0_runs_the_python_loops(monkeypatch):
    import dslc.native
    monkeypatch.setenv("DSLC_NATIVE", "0")
    assert dslc.native._load() is None
    monkeypatch.delenv("DSLC_NATIVE")
    assert dslc.native._load() is native


# ---------------------------------------------------------------- the flat reader's rows

ROW_PARTS = ["state", "state ", " ", "\n", "\t", ";", "\u00a0", "s1", "q_2", "x", "input", "noinput", "inputx",
             "Lap(ε/4, 0)", "Lap'(ε, 1)", ",", "{", "}", "true", "truex", "insample", "insample'", "insample′",
             ">=", "<", "≥", "->", "→", "-", "- >", "output", "outputx", "store", "storex", "⊤", "⊥", "top",
             "bot", '"yes"', '"a\nb"', "'", "′", "(", "·", "é", "//", "/*", "x1y"]


def _row_text(rng) -> str:
    """Mostly well-formed states (0–3 transitions); now and then a transition
    or a state of random parts, which the rows must decline exactly where the
    regular expression does."""
    def pick(clean, odd):
        return rng.choice(odd if rng.random() < 0.015 else clean)

    def sp():
        return pick(["", " ", "  ", "\n", "\u00a0"], [" ; ", ";", "\t;\n"])

    out = []
    junk = rng.random() < 0.3
    for _ in range(rng.randint(0, 6)):
        if junk and rng.random() < 0.3:
            out.append("".join(rng.choice(ROW_PARTS) for _ in range(rng.randint(1, 6))))
            continue
        t = [sp(), "state ", pick(["s1", "q_2", "a"], ["1s", "state", ""]), " ",
             pick(["input", "noinput"], ["inputx", "in put"]), " ",
             pick(["Lap(ε/4, 0)", "Lap(ε, 0), Lap'(ε/9, 0)", "x"], ["}", "{ {"]), sp(), "{", sp()]
        for _ in range(rng.choice([0, 1, 2, 2, 2, 2, 2, 3])):
            t += [pick(["true", "insample >= x", "insample<x", "insample ≥ y"], ["insample' >= x", "truex", "-"]),
                  sp(), pick(["->", "→"], ["- >", "=>"]), sp(), pick(["s1", "q_2", "store", "output"], ["1", "⊤"])]
            if rng.random() < 0.6:
                t += [pick([" ", "\n"], [""]), "output", pick([" "], ["", "\t"]),
                      pick(["⊤", "⊥", "top", "bot", "insample", "insample'", "insample′", '"y"', "a", "store"],
                           ['"', "'", "1", "output"])]
            if rng.random() < 0.4:
                t += [pick([" "], ["", "\n"]), pick(["store"], ["storex", "store'"])]
            t.append(sp())
        t.append("}")
        out.append("".join(t))
    return "".join(out)


@settings(max_examples=3000, deadline=None)
@given(st.integers(0, 2**32))
def test_native_flat_rows_give_the_regular_expression_rows(seed):
    import random

    from dslc.syntax.fast_automaton import _BAD_OF, _NAME_OF, _SHAPE_OF, _TARGETS_OF, _flat_state
    rng = random.Random(seed)
    text = _row_text(rng)
    pos = rng.randint(0, min(3, len(text)))
    stop = rng.randint(pos, len(text)) if rng.random() < 0.3 else len(text)
    rows = _flat_state().findall(text, pos, stop)
    got = native.flat_rows(text, pos, stop)
    if any(map(_BAD_OF, rows)):
        assert got is None, text[pos:stop]
    else:
        assert got is not None, text[pos:stop]
        names, targets, shapes = got
        assert names == list(map(_NAME_OF, rows))
        assert targets == [t for r in rows for t in _TARGETS_OF(r) if t]
        assert shapes == list(map(_SHAPE_OF, rows))
    # the same rows with names and targets as offsets into the text
    spans = native.flat_rows(text, pos, stop, 1)
    assert (spans is None) == (got is None)
    if spans is not None:
        name_spans, target_spans = array("q"), array("q")
        name_spans.frombytes(spans[0])
        target_spans.frombytes(spans[1])
        assert [text[a:b] for a, b in zip(name_spans[::2], name_spans[1::2])] == got[0]
        assert [text[a:b] for a, b in zip(target_spans[::2], target_spans[1::2])] == got[1]
        assert spans[2] == got[2]


def test_the_random_rows_exercise_both_outcomes():
    import random
    got = [native.flat_rows(t, 0, len(t)) for t in (_row_text(random.Random(seed)) for seed in range(1000))]
    accepted = [g for g in got if g is not None]
    assert 0.3 < len(accepted) / len(got) < 0.9
    assert sum(1 for g in accepted for key in g[2] if key[2]) > 200      # states with two transitions
