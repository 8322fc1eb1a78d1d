"""Incremental re-checks in the language server (dslc/lsp/blocks.py), in process.

After an edit only the blocks whose text changed are checked again; the
published diagnostics, hover, symbols and go-to-definition are exactly those
of a fresh check of the whole text.  Counts come from a wrapper around the
pipeline's `check_block`, never from timing.
"""

from __future__ import annotations

import gc
import random
import re
from collections import Counter
from pathlib import Path

import pytest
from lsprotocol import types as lsp

import dslc.pipeline
from dslc.lsp import features
from dslc.lsp.analysis import Analysis, analyse
from dslc.lsp.blocks import BlockCache, MovedBlockResult, Mover, NotMovable
from dslc.source import SourceFile
from dslc.syntax.split import split_blocks

ROOT = Path(__file__).resolve().parent.parent
URI = "file:///doc.dp"
PATH = "/doc.dp"


def read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def blocks_of(text: str, names: set[str]) -> str:
    """The blocks called ``names`` of ``text``, with the comments before them."""
    source = SourceFile("x.dp", text)
    chunks, _ = split_blocks(source)
    out, pos = [], 0
    for c in chunks:
        if c.name in names:
            out.append(text[pos:c.end] + "\n")
        pos = c.end
    return "".join(out)


# Every block kind, verdicts of every sort, syntax and semantic errors,
# messages that name lines ("lines 10–11", "the step at line 3"), a warning
# (W002), and a block without its closing brace in the middle (its error
# points into the next block).
DOCUMENT = (
    read("examples/svt.dp")
    + read("examples/sorted_desc.dp")
    + read("examples/survey.dp")
    + read("examples/chain_worked.dp")
    + blocks_of(read("tests/golden/mechanism_errors.dp"), {"two_stored", "spin", "two_reads"})
    + blocks_of(read("tests/golden/dipa_errors.dp"), {"unknown_target", "duplicate"})
    + blocks_of(read("tests/golden/syntax_errors.dp"), {"missing_arrow", "three_typos"})
    + "automaton open_block {\n    state q0 noinput Lap(ε/2, 0) {\n        true -> q0 output ⊤\n}\n"
    + "mechanism decimals {\n    x := Lap(0.3333 * ε, 0)\n    output ⊤\n}\n"
    + read("examples/numeric_sparse.dp")
)


def full(text: str) -> Analysis:
    """A fresh check of the whole text, as before the cache."""
    return analyse(URI, PATH, text, 1, 1)


def incremental(cache: BlockCache, text: str, generation: int = 2) -> Analysis:
    return analyse(URI, PATH, text, generation, generation, cache=cache)


def position(text: str, offset: int) -> lsp.Position:
    before = text[:offset]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1:]
    return lsp.Position(line, len(column.encode("utf-16-le")) // 2)


def probe_offsets(text: str) -> list[int]:
    """Every word of the text (names, states, keywords, numbers)."""
    return [m.start() for m in re.finditer(r"[A-Za-zε_][A-Za-z0-9_]*|\d+", text)]


def assert_same(got: Analysis, want: Analysis, text: str) -> None:
    assert got.result is not None and want.result is not None
    assert got.diagnostics == want.diagnostics                       # ranges, messages, related lines
    assert [(e.start, e.end, e.block.name, e.block.verdict) for e in got.extents] == \
        [(e.start, e.end, e.block.name, e.block.verdict) for e in want.extents]
    assert features.document_symbols(got) == features.document_symbols(want)
    assert features.document_symbols(got, hierarchical=False) == \
        features.document_symbols(want, hierarchical=False)
    for offset in probe_offsets(text):
        pos = position(text, offset)
        assert features.hover(got, pos) == features.hover(want, pos), text[offset:offset + 20]
        assert features.definition(got, pos) == features.definition(want, pos), text[offset:offset + 20]


@pytest.fixture
def checked(monkeypatch) -> Counter:
    """The names of the blocks the pipeline checks, counted."""
    counts: Counter = Counter()
    real = dslc.pipeline.check_block

    def counting(source, chunk, options):
        counts[chunk.name] += 1
        return real(source, chunk, options)

    monkeypatch.setattr(dslc.pipeline, "check_block", counting)
    return counts


# ------------------------------------------------------------------ edits
def chunks(text: str):
    return split_blocks(SourceFile(PATH, text))[0]


def insert_lines_above(text: str, rng: random.Random) -> str:
    c = rng.choice(chunks(text))
    return text[:c.start] + rng.choice(["\n", "\n\n", "// a comment\n", "   \n"]) + text[c.start:]


def edit_inside(text: str, rng: random.Random) -> str:
    c = rng.choice(chunks(text))
    at = rng.randrange(c.start, c.end)
    kind = rng.random()
    if kind < 0.3:
        return text[:at] + text[at + 1:]                                  # delete a character
    if kind < 0.5:
        line_end = text.find("\n", at)
        line_end = len(text) if line_end < 0 else line_end
        return text[:line_end] + "\n" + text[line_end:]                   # a new line inside the block
    return text[:at] + rng.choice([" ", "x", "1", "}", "{", ";", "// c", "ε", "\n"]) + text[at:]


def delete_block(text: str, rng: random.Random) -> str:
    c = rng.choice(chunks(text))
    return text[:c.start] + text[c.end:]


def duplicate_name(text: str, rng: random.Random) -> str:
    named = [c for c in chunks(text) if c.name]
    a, b = rng.sample(named, 2)
    return text[:b.name_span.start] + a.name + text[b.name_span.end:]


def paste_block(text: str, rng: random.Random) -> str:
    """A copy of a block (same name) at the end of the text, or of a block of the original."""
    source = rng.choice([text, DOCUMENT])
    c = rng.choice(chunks(source))
    return text + "\n" + source[c.start:c.end] + "\n"


EDITS = [insert_lines_above, edit_inside, delete_block, duplicate_name, paste_block]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edits_publish_what_a_full_check_publishes(seed):
    rng = random.Random(seed)
    cache = BlockCache()
    text = DOCUMENT
    assert_same(incremental(cache, text, 1), full(text), text)
    for step in range(15):
        edit = EDITS[step % len(EDITS)] if step < len(EDITS) else rng.choice(EDITS)
        text = edit(text, rng)
        if rng.random() < 0.1:
            text = DOCUMENT                        # undo everything (the entries of deleted blocks are gone)
        assert_same(incremental(cache, text, step + 2), full(text), text)


def test_only_changed_blocks_are_checked_again(checked):
    cache = BlockCache()
    first = incremental(cache, DOCUMENT, 1)
    names = [c.name for c in chunks(DOCUMENT)]
    assert sorted(checked) == sorted(set(names)) and len(first.run.checked) == len(names)

    # lines above a block move it and every block after it: none is checked again but
    # open_block (no closing brace: never cached) and those whose check looked a line
    # up: sorted_desc (its DP001 names "the loop at line 39"), missing_arrow (the
    # parser's recovery compares lines)
    checked.clear()
    text = DOCUMENT.replace("mechanism svt(", "// a new comment\n\n\nmechanism svt(")
    a = incremental(cache, text)
    assert "sorted_desc" in checked and set(checked) <= {"open_block", "sorted_desc", "missing_arrow"}
    assert a.run.reused == len(names) - len(checked)
    assert a.diagnostics == full(text).diagnostics

    # an edit inside one block: that block alone
    checked.clear()
    text = text.replace("output ⊥\n    }\n}", "output ⊥  // still\n    }\n}", 1)
    a = incremental(cache, text)
    assert set(checked) - {"open_block"} == {"svt"}
    assert a.diagnostics == full(text).diagnostics

    # a deleted block: the diagnostics of the others move up (and lines up)
    checked.clear()
    start = text.index("automaton svt_automaton")
    end = text.index("\n}\n", start) + 3
    text = text[:start] + text[end:]
    a = incremental(cache, text)
    assert set(checked) <= {"open_block", "sorted_desc", "missing_arrow"}
    assert a.diagnostics == full(text).diagnostics

    # a second block of the same name: only the renamed block; E009 comes from the pipeline
    checked.clear()
    text = text.replace("mechanism sorted_desc", "mechanism svt", 1)
    a = incremental(cache, text)
    assert set(checked) - {"open_block"} == {"svt"}
    assert "E009" in [d.code for d in a.diagnostics]
    assert a.diagnostics == full(text).diagnostics


def test_a_result_naming_a_line_is_checked_again_when_its_line_moves(checked):
    """sorted_desc's DP001 names the lines of its cycle ("lines 10–11"): it
    is reused while it stays on its line and checked again when it moves to
    another one; a block whose result names no line is reused anywhere."""
    text = read("examples/svt.dp") + read("examples/sorted_desc.dp")
    assert "the loop at line 39 (lines 40–41)" in full(text).diagnostics[0].message
    cache = BlockCache()
    incremental(cache, text, 1)
    checked.clear()
    same_line = text.replace("automaton svt_automaton {", "automaton svt_automaton  {")
    a = incremental(cache, same_line)
    assert set(checked) == {"svt_automaton"}                 # the edited block only
    assert a.diagnostics == full(same_line).diagnostics
    checked.clear()
    moved = same_line.replace("mechanism svt(", "\n\nmechanism svt(")
    a = incremental(cache, moved)
    assert "svt" not in checked and "svt_automaton" not in checked
    assert set(checked) <= {"sorted_desc", "sorted_desc_automaton"} and "sorted_desc" in checked
    assert a.diagnostics == full(moved).diagnostics


def test_moved_results_are_complete_on_first_read():
    cache = BlockCache()
    text = read("examples/svt.dp")
    incremental(cache, text, 1)
    a = incremental(cache, "\n\n" + text)
    block = a.extents[0].block
    assert isinstance(block, MovedBlockResult)
    assert "ir" not in vars(block)                          # not moved until read
    fresh = full("\n\n" + text).extents[0].block
    def where(spans):
        return [(s.start, s.end) for s in spans]

    assert where(s.span for s in block.ir.states) == where(s.span for s in fresh.ir.states)
    assert where(t.span for t in block.ir.transitions) == where(t.span for t in fresh.ir.transitions)
    assert all(t.span.file is a.result.source for t in block.ir.transitions)
    assert where(n.span for n in block.syntax.body) == where(n.span for n in fresh.syntax.body)
    assert block.bounds == fresh.bounds and block.features.keys() == fresh.features.keys()
    assert block.analysis.weight == fresh.analysis.weight


def test_the_cache_holds_only_the_blocks_of_the_last_check():
    cache = BlockCache()
    incremental(cache, DOCUMENT, 1)
    cached = len(cache)
    assert 0 < cached < len(chunks(DOCUMENT))                # the open block is not cached
    text = read("examples/svt.dp")
    for generation in range(2, 6):                           # edits never add up
        text = text.replace("Lap(ε/2, T)", f"Lap(ε/{generation}, T)")
        incremental(cache, text, generation)
        assert len(cache) == 2
    incremental(cache, "", 7)
    assert len(cache) == 0


def test_a_cancelled_check_keeps_what_it_checked(checked):
    cache = BlockCache()
    text = read("examples/svt.dp") + read("examples/sorted_desc.dp")
    # the text changes (the server cancels) once two blocks are checked and cached
    a = analyse(URI, PATH, text, 1, 1, cache=cache, cancelled=lambda: len(cache) >= 2)
    assert a.result is None and a.diagnostics == []
    assert sorted(checked) == ["svt", "svt_automaton"]
    checked.clear()
    a = incremental(cache, text)
    assert sorted(checked) == ["sorted_desc", "sorted_desc_automaton"]
    assert a.diagnostics == full(text).diagnostics


def test_other_options_are_other_keys(checked):
    cache = BlockCache()
    text = read("examples/svt.dp")
    incremental(cache, text, 1)
    checked.clear()
    analyse(URI, PATH, text, 2, 2, cache=cache, options={"timeout": 60.0, "max_d": "1/2"})
    assert sorted(checked) == ["svt", "svt_automaton"]


def test_runs_out_of_time_and_internal_errors_are_not_cached(monkeypatch, checked):
    real = dslc.pipeline.BlockCompilation._run

    def broken(self):
        if self.chunk.name == "svt":
            raise ValueError("a bug")
        return real(self)

    monkeypatch.setattr(dslc.pipeline.BlockCompilation, "_run", broken)
    cache = BlockCache()
    text = read("examples/svt.dp")
    a = incremental(cache, text, 1)
    assert [d.code for d in a.diagnostics] == ["E000"]
    checked.clear()
    incremental(cache, text + "\n")
    assert sorted(checked) == ["svt"]


def test_the_mover_refuses_what_it_cannot_move():
    source = SourceFile("a.dp", "automaton a { }\nautomaton b { }\n")
    frame = SourceFile("a.dp", "automaton b { }")
    mover = Mover(source, frame, -16, 16, 31)
    assert mover([source.span(26, 27)]) == [frame.span(10, 11)]
    for bad in (source.span(0, 1), source, {"text": source.text}, (lambda: source.span(20, 21))):
        with pytest.raises(NotMovable):
            Mover(source, frame, -16, 16, 31)(bad)


def test_a_block_without_its_closing_brace_is_checked_every_time(checked):
    """Its error depends on what follows it: the next block, if any."""
    svt = read("examples/svt.dp")
    text = svt + "automaton typing {\n    state q0 noinput Lap(ε, 0) {\n        true -> q0 output ⊤\n"
    cache = BlockCache()
    incremental(cache, text, 1)
    checked.clear()
    longer = text + "automaton next { state q0 noinput Lap(ε, 0) { } }\n"
    a = incremental(cache, longer)
    assert sorted(checked) == ["next", "typing"]
    assert a.diagnostics == full(longer).diagnostics
    assert any("the next block starts here" in r.message
               for d in a.diagnostics for r in d.related_information or ())


def test_results_hold_no_reference_cycles():
    """The server freezes the results of large documents (gc.freeze) and
    relies on reference counting to free them: they must hold no cycles."""
    cache = BlockCache()
    first = incremental(cache, DOCUMENT, 1)
    moved = incremental(cache, "\n" + DOCUMENT)
    for a in (first, moved):
        features.document_symbols(a)
        for offset in probe_offsets(DOCUMENT)[::7]:
            features.hover(a, position(a.text, offset))
    assert any(isinstance(e.block, MovedBlockResult) and "ir" in vars(e.block) for e in moved.extents)
    gc.collect()                          # garbage of the checks themselves (exceptions of the parser)
    held = _reachable([first, moved, cache])
    del first, moved, a, cache
    # what the collector frees must not be part of the results (other threads of the
    # suite may make garbage of their own meanwhile: only the results' count)
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        cyclic = [type(o).__name__ for o in gc.garbage if id(o) in held]
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
    assert cyclic == []


def _reachable(roots: list) -> set[int]:
    """The ids of every object the roots reach (gc.get_referents, transitively)."""
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        o = todo.pop()
        if id(o) in seen:
            continue
        seen.add(id(o))
        todo.extend(gc.get_referents(o))
    return seen
