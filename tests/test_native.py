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

from tests.sizes import examples

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


@settings(max_examples=examples(300, 30), deadline=None)
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


# ---------------------------------------------------------------- bad arguments
# Each function of the module, called with one bad argument at a time (a
# negative size, an index out of range, a buffer too short or of the wrong
# item type): ValueError (TypeError for an object that is no buffer), never a
# crash.  The calls run in a child process, so that a crash fails this test
# instead of killing pytest.  Each group starts with a valid call ("ok").
_BAD_CALLS = r'''
import json, sys
from array import array
from dslc.native import module as m
A = lambda *v: array("i", v)
Q = lambda *v: array("q", v)
W = dict(crit=A(0), src=A(0), dst=A(1), comp=A(1, 0), rate=A(0, 0), inp=b"\0\0", prime=b"\0",
         plain=Q(1, 1), extra=Q(0), ncomp=2, init=1, costs=Q(0), dist=Q(0, 0), best=A(0, 0))
def weigh(**kw):
    a = dict(W, **kw)
    return m.weigh(a["crit"], a["src"], a["dst"], a["comp"], a["rate"], a["inp"], a["prime"], a["plain"],
                   a["extra"], a["ncomp"], a["init"], a["costs"], a["dist"], a["best"])
B = dict(start=A(0, 1, 1), adj=A(1), order=None, ok=None, comp=None, c=0, parent=A(-1, -2), tag=None,
         queue=A(0, 0), qlen=1, m=1)
def bfs(**kw):
    a = dict(B, **kw)
    return m.bfs(a["start"], a["adj"], a["order"], a["ok"], a["comp"], a["c"], a["parent"], a["tag"],
                 a["queue"], a["qlen"], a["m"])
CALLS = {
    "tarjan ok": lambda: m.tarjan(A(0, 1, 1), A(1), 0, A(0, 0)),
    "tarjan init -1": lambda: m.tarjan(A(0, 1, 1), A(1), -1, A(0, 0)),
    "tarjan init past the end": lambda: m.tarjan(A(0, 1, 1), A(1), 2, A(0, 0)),
    "tarjan no states": lambda: m.tarjan(A(0), A(), 0, A()),
    "tarjan start short": lambda: m.tarjan(A(0, 1), A(1), 0, A(0, 0)),
    "tarjan start decreasing": lambda: m.tarjan(A(0, 2, 1), A(1), 0, A(0, 0)),
    "tarjan adj out of range": lambda: m.tarjan(A(0, 1, 1), A(9), 0, A(0, 0)),
    "tarjan adj negative": lambda: m.tarjan(A(0, 1, 1), A(-1), 0, A(0, 0)),
    "tarjan comp of int64": lambda: m.tarjan(A(0, 1, 1), A(1), 0, Q(0, 0)),
    "postorder ok": lambda: m.postorder(A(0, 1, 1), A(1), 0, A(0, 0)),
    "postorder init past the end": lambda: m.postorder(A(0, 1, 1), A(1), 5, A(0, 0)),
    "postorder adj out of range": lambda: m.postorder(A(0, 1, 1), A(2), 0, A(0, 0)),
    "bfs ok": lambda: bfs(),
    "bfs qlen -1": lambda: bfs(qlen=-1),
    "bfs qlen past the states": lambda: bfs(qlen=3),
    "bfs queue short": lambda: bfs(queue=A(0)),
    "bfs root out of range": lambda: bfs(queue=A(7, 0)),
    "bfs ok short": lambda: bfs(ok=b""),
    "bfs order out of range": lambda: bfs(order=A(4)),
    "bfs order with m -1": lambda: bfs(order=A(0), m=-1),
    "bfs comp short": lambda: bfs(comp=A(0)),
    "bfs tag short": lambda: bfs(tag=A(0)),
    "group ok": lambda: m.group(2, A(1, 0), None, A(0, 0, 0), A(0, 0)),
    "group n -1": lambda: m.group(-1, A(), None, A(), A()),
    "group n -5": lambda: m.group(-5, A(0), None, A(), A(0)),
    "group key out of range": lambda: m.group(2, A(0, 5), None, A(0, 0, 0), A(0, 0)),
    "group key negative": lambda: m.group(2, A(0, -1), None, A(0, 0, 0), A(0, 0)),
    "group edge out of range": lambda: m.group(2, A(0, 1), A(7), A(0, 0, 0), A(0)),
    "group edge negative": lambda: m.group(2, A(0, 1), A(-1), A(0, 0, 0), A(0)),
    "group rstart short": lambda: m.group(2, A(0, 1), None, A(0, 0), A(0, 0)),
    "group rorder short": lambda: m.group(2, A(0, 1), None, A(0, 0, 0), A(0)),
    "critical ok": lambda: m.critical(A(0), A(1), A(1, 0), A(0, 0), 1),
    "critical nclasses -1": lambda: m.critical(A(0), A(1), A(1, 0), A(0, 0), -1),
    "critical src out of range": lambda: m.critical(A(5), A(1), A(1, 0), A(0, 0), 1),
    "critical dst negative": lambda: m.critical(A(0), A(-3), A(1, 0), A(0, 0), 1),
    "critical dst short": lambda: m.critical(A(0), A(), A(1, 0), A(0, 0), 1),
    "critical rate class out of range": lambda: m.critical(A(0), A(1), A(1, 0), A(0, 4), 1),
    "weigh ok": lambda: weigh(),
    "weigh src out of range": lambda: weigh(src=A(10**6)),
    "weigh src negative": lambda: weigh(src=A(-10**6)),
    "weigh dst out of range": lambda: weigh(dst=A(10**6)),
    "weigh crit out of range": lambda: weigh(crit=A(3)),
    "weigh crit not increasing": lambda: weigh(crit=A(0, 0), costs=Q(0, 0)),
    "weigh ncomp -1": lambda: weigh(ncomp=-1),
    "weigh ncomp -1, empty arrays": lambda: weigh(crit=A(), costs=Q(), ncomp=-1, dist=Q(), best=A(), init=0),
    "weigh init_comp out of range": lambda: weigh(init=2),
    "weigh init_comp -1": lambda: weigh(init=-1),
    "weigh comp out of range": lambda: weigh(comp=A(9, 0)),
    "weigh rate class out of range": lambda: weigh(rate=A(3, 0)),
    "weigh plain short": lambda: weigh(plain=Q(1)),
    "weigh plain of int32": lambda: weigh(plain=A(1, 1, 1, 1)),
    "weigh costs short": lambda: weigh(costs=Q()),
    "weigh dist short": lambda: weigh(dist=Q(0)),
    "weigh best short": lambda: weigh(best=A(0)),
    "weigh is_input short": lambda: weigh(inp=b"\0"),
    "weigh prime short": lambda: weigh(prime=b""),
    "take ok": lambda: m.take(A(5, 6), A(1, 0)),
    "take index -1": lambda: m.take(A(5, 6), A(-1)),
    "take index past the end": lambda: m.take(A(5, 6), A(2)),
    "take from nothing": lambda: m.take(A(), A(0)),
    "expand ok": lambda: m.expand(b"\1\2"),
    "spread ok": lambda: m.spread(A(4, 5), A(0, 1, 2), A(1, 0)),
    "spread start empty": lambda: m.spread(A(4, 5), A(), A()),
    "spread start not ending at len": lambda: m.spread(A(4, 5), A(0, 1, 3), A(1)),
    "spread start not from 0": lambda: m.spread(A(4, 5), A(-1, 1, 2), A(0)),
    "spread start decreasing": lambda: m.spread(A(4, 5), A(0, 3, 2), A(0)),
    "spread id out of range": lambda: m.spread(A(4, 5), A(0, 1, 2), A(2)),
    "spread id negative": lambda: m.spread(A(4, 5), A(0, 1, 2), A(-1)),
    "firsts ok": lambda: m.firsts(A(0, 1), A(0, 1), A(0, 1), 2),
    "firsts nth 0": lambda: m.firsts(A(0, 1), A(0, 1), A(0, 1), 2, 0),
    "firsts ncomp -1": lambda: m.firsts(A(0, 1), A(0, 1), A(0, 1), -1),
    "firsts keep short": lambda: m.firsts(A(0, 1), A(0, 1), A(0, 1), 2, 1, b"\1"),
    "firsts edge out of range": lambda: m.firsts(A(0, 1), A(0, 1), A(0, 5), 2),
    "firsts src out of range": lambda: m.firsts(A(0, 1), A(0, 9), A(0, 1), 2),
    "firsts comp out of range": lambda: m.firsts(A(0, 4), A(0, 1), A(0, 1), 2),
    "where ok": lambda: m.where(b"\0\1"),
    "where no buffer": lambda: m.where(3),
    "same_component ok": lambda: m.same_component(A(0, 1), A(0, 0)),
    "same_component lengths differ": lambda: m.same_component(A(0, 1), A(0)),
    "first_reached ok": lambda: m.first_reached(A(-1, 0), b"\1\1", A(0, 1)),
    "first_reached among short": lambda: m.first_reached(A(-1, 0), b"\1", A(0, 1)),
    "first_reached comp short": lambda: m.first_reached(A(-1, 0), b"\1\1", A(0)),
    "first_reached comp out of range": lambda: m.first_reached(A(-1, 0), b"\1\1", A(0, 7)),
    "seed ok": lambda: m.seed(b"\1\0", A(0, 0), A(0, 0), A(0, 0)),
    "seed parent short": lambda: m.seed(b"\1\0", A(0), A(0, 0), A(0, 0)),
    "seed queue short": lambda: m.seed(b"\1\0", A(0, 0), A(0, 0), A(0)),
    "resolve_spans ok": lambda: m.resolve_spans("ab a", Q(0, 2), Q(0, 2)),
    "resolve_spans past the text": lambda: m.resolve_spans("ab", Q(0, 3), Q()),
    "resolve_spans start negative": lambda: m.resolve_spans("ab", Q(-1, 1), Q()),
    "resolve_spans start after end": lambda: m.resolve_spans("ab", Q(2, 1), Q()),
    "resolve_spans half a pair": lambda: m.resolve_spans("ab", Q(0), Q()),
    "resolve_spans target past the text": lambda: m.resolve_spans("ab", Q(0, 2), Q(1, 9)),
    "line_starts no str": lambda: m.line_starts(b"a\n"),
    "flat_rows ok": lambda: m.flat_rows("state q input Lap(ε, 0) { }", 0, 27),
    "flat_rows pos -1": lambda: m.flat_rows("state", -1, 5),
    "flat_rows stop past the text": lambda: m.flat_rows("state", 0, 6),
    "flat_rows pos after stop": lambda: m.flat_rows("state", 4, 2),
}
out = {}
for name, call in CALLS.items():
    try:
        call()
        out[name] = "ok"
    except Exception as exc:
        out[name] = type(exc).__name__
json.dump(out, sys.stdout)
'''


def test_bad_arguments_raise_value_error_never_crash():
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    run = subprocess.run([sys.executable, "-c", _BAD_CALLS], capture_output=True, text=True, env=env,
                         cwd=root, timeout=120)
    assert run.returncode == 0, f"the child died ({run.returncode}): {run.stderr[-2000:]}"
    got = json.loads(run.stdout)
    assert len(got) > 90
    for name, outcome in got.items():
        if name.endswith(" ok"):
            assert outcome == "ok", (name, outcome)
        elif name in ("where no buffer", "line_starts no str"):
            assert outcome == "TypeError", (name, outcome)
        else:
            assert outcome == "ValueError", (name, outcome)
