"""Diagnostics rendered for the protocol (dslc/diagnostics/render/lsp.py)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp

from dslc.diagnostics.codes import lookup
from dslc.diagnostics.render.lsp import UTF8, file_diagnostics
from dslc.pipeline import check_source
from dslc.lsp.analysis import analyse
from dslc.source import SourceFile
from tests.test_lsp_support import utf16_position

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "examples" / "sorted_desc.dp"
URI = "file:///doc.dp"


def rng(l1, c1, l2, c2):
    return lsp.Range(lsp.Position(l1, c1), lsp.Position(l2, c2))


def span(text: str, needle: str, after: str = "", length: int | None = None) -> lsp.Range:
    start = text.index(needle, text.index(after))
    return lsp.Range(utf16_position(text, start), utf16_position(text, start + (length or len(needle))))


def diagnostics(text: str, **kw):
    return file_diagnostics(check_source(SourceFile("/doc.dp", text)), URI, **kw)


def test_sorted_desc_leaking_cycle_with_related_lines():
    text = SORTED.read_text(encoding="utf-8")
    diags = diagnostics(text)
    assert [d.code for d in diags] == ["DP001", "DP001"]
    mech, auto = diags
    # mechanism: primary at `x := s`; related: the comparison `s < x` and the `loop`
    assert mech.range == span(text, "x := s")
    assert mech.severity == lsp.DiagnosticSeverity.Error
    assert mech.source == "dslc"
    assert mech.code_description.href == lookup("DP001").url
    assert mech.message.splitlines()[0].startswith("leaking cycle")
    assert any(line.startswith("help: ") for line in mech.message.splitlines())
    related = [(r.location.uri, r.location.range) for r in mech.related_information]
    assert related == [(URI, span(text, "s < x")), (URI, span(text, "loop {", length=4))]
    assert mech.related_information[0].message == "the next turn compares a fresh draw with that `x`"
    # automaton: the self-loop `insample < x -> q1 output ⊥ store` stores and compares
    assert auto.range == span(text, "store", after="insample < x")
    loop_line = span(text, "insample < x").start.line
    assert {r.location.range.start.line for r in auto.related_information} == {loop_line}


def test_columns_are_utf16_code_units():
    """An emoji (2 UTF-16 units, 1 code point) before the violation on its line."""
    text = SORTED.read_text(encoding="utf-8").replace(
        "        if s < x { output ⊥; x := s }", "/*😀*/   if s < x { output ⊥; x := s }")
    mech = diagnostics(text)[0]
    line = span(text, "x := s").start.line
    prefix = text.split("\n")[line].split("x := s")[0]
    assert len(prefix.encode("utf-16-le")) // 2 == len(prefix) + 1
    assert mech.range == rng(line, len(prefix) + 1, line, len(prefix) + 7)
    assert mech.related_information[0].location.range == span(text, "s < x")
    # in UTF-8 the emoji is 4 bytes and ⊥ 3
    mech8 = diagnostics(text, encoding=UTF8)[0]
    assert mech8.range.start.character == len(prefix.encode("utf-8"))


def test_related_information_inline_when_client_lacks_support():
    text = SORTED.read_text(encoding="utf-8")
    mech = diagnostics(text, related_information=False)[0]
    assert mech.related_information is None
    cmp, loop = span(text, "s < x").start, span(text, "loop {").start
    assert (f"/doc.dp:{cmp.line + 1}:{cmp.character + 1}: the next turn compares a fresh draw with that `x`"
            in mech.message)
    assert f"/doc.dp:{loop.line + 1}:{loop.character + 1}: and the loop repeats" in mech.message


UNREACHABLE = """automaton a {
    state q0 noinput Lap(ε, 0) { true -> q1 output ⊥ store }
    state q1 input Lap(ε, 0) { }
    state lost input Lap(ε, 0) { }
}
"""


def test_warning_is_tagged_unnecessary():
    diags = diagnostics(UNREACHABLE)
    assert [d.code for d in diags] == ["W001"]
    assert diags[0].severity == lsp.DiagnosticSeverity.Warning
    assert diags[0].tags == [lsp.DiagnosticTag.Unnecessary]
    assert diags[0].range == rng(3, 10, 3, 14)
    assert diagnostics(UNREACHABLE, tags=False)[0].tags is None


def test_syntax_error_has_code_and_range():
    diags = diagnostics("automaton a {\n    state q0 noinput Lap(ε, 0) { true -> }\n}\n")
    assert len(diags) == 1 and diags[0].code.startswith("E0")
    assert diags[0].range.start.line == 1
    assert diags[0].code_description.href == lookup(diags[0].code).url


def test_internal_error_outside_blocks_becomes_one_diagnostic(monkeypatch):
    """The driver fails, and so does splitting the file into blocks."""
    import dslc.lsp.analysis as analysis

    def broken(*args, **kwargs):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(analysis, "check_source", broken)
    monkeypatch.setattr(analysis, "split_blocks", broken)
    result = analyse(URI, "/doc.dp", "automaton a { }", 1, 1)
    assert result.result is None
    [diag] = result.diagnostics
    assert "internal error" in diag.message and "boom" in diag.message
    assert diag.severity == lsp.DiagnosticSeverity.Error
