"""End to end with a different client: UTF-8 positions, no relatedInformation,
flat symbols, and a debounce so long that only saves and requests trigger
checks (which makes the scheduling observable without timing anything)."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.test_lsp_support import capabilities, change, config, open_doc, save, wait_diagnostics

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "examples" / "sorted_desc.dp"

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=config("--debounce", "3600"), scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.init_result = await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=capabilities(related=False, hierarchical=False, encodings=["utf-8", "utf-16"])))
    yield
    await lsp_client.shutdown_session()


async def test_capabilities(client: LanguageClient):
    caps = client.init_result.capabilities
    assert caps.position_encoding == lsp.PositionEncodingKind.Utf8
    assert caps.text_document_sync.change == lsp.TextDocumentSyncKind.Incremental
    assert caps.text_document_sync.open_close and caps.text_document_sync.save
    assert caps.hover_provider and caps.document_symbol_provider and caps.definition_provider
    assert client.init_result.server_info.name == "dslc"


async def test_changes_wait_for_save_and_utf8_columns(client: LanguageClient):
    uri = "untitled:Untitled-1"
    text = SORTED.read_text(encoding="utf-8")
    open_doc(client, uri, text)
    first = await wait_diagnostics(client, uri, 1)
    mech = first.diagnostics[0]
    store = text.index("x := s")
    line = text[:store].count("\n")
    col = len(text[text.rindex("\n", 0, store) + 1:store].encode("utf-8"))        # ⊥ is 3 bytes
    assert mech.range == lsp.Range(lsp.Position(line, col), lsp.Position(line, col + 6))
    # no relatedInformation capability: the related places are in the message
    assert mech.related_information is None
    cmp = text.index("s < x")
    cmp_col = len(text[text.rindex("\n", 0, cmp) + 1:cmp].encode("utf-8"))
    assert (f"untitled:Untitled-1:{line + 1}:{cmp_col + 1}: the next turn compares a fresh draw with that `x`"
            in mech.message)

    seen = len(client.published)
    for version in range(2, 12):                   # ten edits: typing ` ` at the start of a line
        change(client, uri, version, lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)), " ")
    save(client, uri)
    saved = await wait_diagnostics(client, uri, 11, after=seen)
    # the debounce never fired: the only publication since the edits is the saved version
    assert [p.version for p in client.published[seen:]] == [11]
    assert [d.code for d in saved.diagnostics] == ["DP001", "DP001"]
    assert saved.diagnostics[0].range.start.line == line

    # a request after an edit checks at once instead of waiting for the debounce
    top = text[:text.index("mechanism sorted_desc")].count("\n")
    change(client, uri, 12, lsp.Range(lsp.Position(top, 0), lsp.Position(top, 0)), "\n\n")
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri)))
    assert isinstance(symbols[0], lsp.SymbolInformation)
    assert [(s.name, s.container_name) for s in symbols][:3] == [
        ("sorted_desc", None), ("q0", "sorted_desc"), ("q1", "sorted_desc")]
    assert symbols[0].location.range.start.line == top + 2        # moved down by two lines
    moved = await wait_diagnostics(client, uri, 12)
    assert moved.diagnostics[0].range.start.line == line + 2
