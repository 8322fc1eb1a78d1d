"""End to end: `dslc lsp` driven by a real client over stdio (pytest-lsp).

No sleeps: every wait is on a publishDiagnostics notification or on the
answer to a request.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from dslc.diagnostics.codes import lookup
from tests.test_lsp_support import capabilities, change, config, open_doc, utf16_position, wait_diagnostics

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "examples" / "sorted_desc.dp"
SVT = ROOT / "examples" / "svt.dp"
TMP = Path("/tmp/dslc-lsp-test")          # documents live in the client only; never written

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


def rng(l1, c1, l2, c2):
    return lsp.Range(lsp.Position(l1, c1), lsp.Position(l2, c2))


def at(text: str, offset: int, length: int) -> lsp.Range:
    return lsp.Range(utf16_position(text, offset), utf16_position(text, offset + length))


def doc_range(text: str, needle: str, start: int = 0) -> lsp.Range:
    return at(text, text.index(needle, start), len(needle))


async def test_open_sorted_desc_publishes_dp001_with_cycle_lines(client: LanguageClient):
    uri = SORTED.as_uri()
    text = SORTED.read_text(encoding="utf-8")
    open_doc(client, uri, text)
    published = await wait_diagnostics(client, uri, 1)
    mech, auto = published.diagnostics
    assert (mech.code, auto.code) == ("DP001", "DP001")
    assert mech.code_description.href == lookup("DP001").url
    # `x := s` stores on line 10; the comparison `s < x` (line 10) and `loop` (line 8) are related
    assert mech.range == doc_range(text, "x := s")
    assert [(r.location.uri, r.location.range) for r in mech.related_information] == [
        (uri, doc_range(text, "s < x")), (uri, at(text, text.index("loop {"), 4))]
    assert auto.range == doc_range(text, "store", text.index("insample < x"))
    loop_line = doc_range(text, "insample < x").start.line
    assert {r.location.range.start.line for r in auto.related_information} == {loop_line}

    # fixing the file clears the diagnostics: the loop no longer stores its draw
    fixed = text.replace("output ⊥; x := s }", "output ⊥ }").replace(
        "insample < x  -> q1 output ⊥ store", "insample < x  -> q1 output ⊥")
    change(client, uri, 2, doc_range(text, "; x := s"), "")
    mid = text.replace("; x := s", "")
    change(client, uri, 3, doc_range(mid, " store", mid.index("insample < x")), "")
    published = await wait_diagnostics(client, uri, 3)
    assert list(published.diagnostics) == []
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), doc_range(fixed, "sorted_desc", fixed.index("mechanism")).start))
    assert "✓ private, d ∈ [3.99, 4]" in hover.contents.value


async def test_hover_symbols_and_definition_answer(client: LanguageClient):
    uri = SVT.as_uri()
    text = SVT.read_text(encoding="utf-8")
    open_doc(client, uri, text)
    ident = lsp.TextDocumentIdentifier(uri)
    hover = await client.text_document_hover_async(lsp.HoverParams(ident, doc_range(text, "svt(").start))
    assert hover.contents.value.startswith("**mechanism** `svt` — ✓ private, d ∈ [0.999, 1]")
    assert hover.range == doc_range(text, "svt", text.index("mechanism"))
    draw = doc_range(text, "Lap(ε/4, 0)").start
    hover = await client.text_document_hover_async(lsp.HoverParams(ident, draw))
    assert "**draw of state** `q1` of automaton `svt_automaton`" in hover.contents.value
    assert "on a cycle" in hover.contents.value and "2·1/4 = 1/2 (on the heaviest path)" in hover.contents.value

    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(ident))
    assert [s.name for s in symbols] == ["svt", "svt_automaton"]
    assert [c.name for c in symbols[1].children] == ["q0", "q1", "q2"]
    assert symbols[1].detail == "automaton · private, d ∈ [0.999, 1]"

    target = doc_range(text, "q2", text.index("insample >= x -> q2")).start
    locations = await client.text_document_definition_async(lsp.DefinitionParams(ident, target))
    assert [(loc.uri, loc.range) for loc in locations] == [
        (uri, at(text, text.index("state q2") + len("state "), 2))]
    await wait_diagnostics(client, uri, 1)


EMOJI = """// a comment with emoji 😀🦀 before the automaton
automaton loopy {
    /* 😀 */ state q0 noinput Lap(ε, 0) { true -> q1 output ⊤ store }
    /* 🦀🦀 */ state q1 input Lap(ε, 0) { insample ≥ x -> q1 output ⊤ store; insample < x -> q2 output ⊥ }
    state q2 input Lap(ε, 0) { }
}
"""


async def test_positions_are_utf16_with_emoji_and_bmp_symbols(client: LanguageClient):
    uri = (TMP / "emoji.dp").as_uri()
    open_doc(client, uri, EMOJI)
    published = await wait_diagnostics(client, uri, 1)
    [diag] = [d for d in published.diagnostics if d.code == "DP001"]
    line = EMOJI.split("\n")[3]
    store = line.index("store")
    # 2 emoji before `store` on its line: +2 UTF-16 units over the code point column;
    # ≥ and ε are in the BMP and count 1
    assert diag.range == rng(3, store + 2, 3, store + 7)
    assert diag.range == doc_range(EMOJI, "store", EMOJI.index("🦀🦀"))
    # the client's position of `q1` after the emoji finds the state
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), doc_range(EMOJI, "q1 input").start))
    assert hover.contents.value.startswith("**state** `q1` of automaton `loopy`")
    assert hover.range == rng(3, line.index("q1") + 2, 3, line.index("q1") + 4)
    # an edit after an emoji lands where the client means it: remove the loop's `store`
    change(client, uri, 2, diag.range, "")
    published = await wait_diagnostics(client, uri, 2)
    assert "DP001" not in [d.code for d in published.diagnostics]


async def test_unparseable_text_gets_a_syntax_error_and_the_server_lives(client: LanguageClient):
    uri = (TMP / "broken.dp").as_uri()
    open_doc(client, uri, "automaton a {\n    state q0 noinput Lap(ε, 0) { true -> }\n")
    published = await wait_diagnostics(client, uri, 1)
    assert [d.code[:2] for d in published.diagnostics] == ["E0"]
    hover = await client.text_document_hover_async(lsp.HoverParams(
        lsp.TextDocumentIdentifier(uri), lsp.Position(1, 20)))
    assert hover is None
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    assert [s.name for s in symbols] == ["a"]


async def test_close_clears_diagnostics(client: LanguageClient):
    uri = (TMP / "closing.dp").as_uri()
    open_doc(client, uri, SORTED.read_text(encoding="utf-8"))
    await wait_diagnostics(client, uri, 1)
    seen = len(client.published)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    published = await wait_diagnostics(client, uri, None, after=seen)
    assert list(published.diagnostics) == []


async def test_outline_of_a_document_with_many_blocks(client: LanguageClient):
    """Documents with many blocks get their outline built and serialised off the
    event loop (sent as pre-serialised JSON); the client sees the same symbols."""
    base = SVT.read_text(encoding="utf-8")
    text = "".join(base.replace("svt_automaton", f"a{i}").replace("mechanism svt(", f"mechanism m{i}(")
                   for i in range(40))
    uri = (TMP / "many.dp").as_uri()
    open_doc(client, uri, text)
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    assert [s.name for s in symbols] == [name for i in range(40) for name in (f"m{i}", f"a{i}")]
    last = symbols[-1]
    assert isinstance(last, lsp.DocumentSymbol) and [c.name for c in last.children] == ["q0", "q1", "q2"]
    assert last.selection_range == doc_range(text, "a39", text.index("automaton a39"))
    assert last.detail == "automaton · private, d ∈ [0.999, 1]"


async def test_reopening_with_other_text_never_shows_the_old_result(client: LanguageClient):
    uri = (TMP / "reopened.dp").as_uri()
    ident = lsp.TextDocumentIdentifier(uri)
    open_doc(client, uri, SORTED.read_text(encoding="utf-8"))         # a check of this starts...
    seen = len(client.published)
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(ident))
    await wait_diagnostics(client, uri, None, after=seen)
    seen = len(client.published)
    open_doc(client, uri, SVT.read_text(encoding="utf-8"))            # ...and this text replaces it
    published = await wait_diagnostics(client, uri, 1, after=seen)
    assert list(published.diagnostics) == []
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(ident))
    assert [s.name for s in symbols] == ["svt", "svt_automaton"]
    assert all(not p.diagnostics for p in client.published[seen:] if p.uri == uri)
