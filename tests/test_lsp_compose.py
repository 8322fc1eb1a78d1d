"""The language server follows imports (docs/composition.md), with a real
client over stdio (pytest-lsp): import errors are published at the import
line, go-to-definition on an imported or called name opens the block in its
file, hover on a call shows the callee's d, and a change of an imported
file checks its importers again.  Documents live in the client only."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.test_lsp_support import capabilities, change, config, open_doc, utf16_position, wait_diagnostics

ROOT = Path(__file__).resolve().parent.parent
TMP = Path("/tmp/dslc-lsp-compose-test")          # never written: the server reads the client's buffers

pytestmark = pytest.mark.asyncio(loop_scope="module")

LIB = """mechanism counted {
    x := Lap(0, 0)
    output Lap(ε, read())
    halt
}
"""

MAIN = """import counted from "lib.dp"
import above_threshold from stdlib

release r budget ε {
    above_threshold(T = 5) with ε/2
    counted with ε/4
}
"""


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


def pos(text: str, needle: str, start: int = 0) -> lsp.Position:
    return utf16_position(text, text.index(needle, start))


async def test_imports_definition_hover_and_importers(client: LanguageClient):
    lib_uri, main_uri = (TMP / "lib.dp").as_uri(), (TMP / "main.dp").as_uri()
    open_doc(client, lib_uri, LIB)
    await wait_diagnostics(client, lib_uri, 1)
    open_doc(client, main_uri, MAIN)
    published = await wait_diagnostics(client, main_uri, 1)
    assert list(published.diagnostics) == []             # the release fits: 1/2 + 2·1/4 = 1

    ident = lsp.TextDocumentIdentifier(main_uri)
    # a call's name: the callee's block in the imported (unsaved) file
    locations = await client.text_document_definition_async(
        lsp.DefinitionParams(ident, pos(MAIN, "counted with")))
    assert [(loc.uri, loc.range.start) for loc in locations] == [(lib_uri, lsp.Position(0, 10))]
    # a name of an import line: the block in the standard library
    locations = await client.text_document_definition_async(
        lsp.DefinitionParams(ident, pos(MAIN, "above_threshold from")))
    stdlib_file = (ROOT / "dslc" / "stdlib" / "above_threshold.dp").resolve()
    assert [loc.uri for loc in locations] == [stdlib_file.as_uri()]
    text = stdlib_file.read_text(encoding="utf-8")
    assert locations[0].range.start == pos(text, "above_threshold(T")

    hover = await client.text_document_hover_async(lsp.HoverParams(ident, pos(MAIN, "counted from")))
    assert hover.contents.value.startswith("**mechanism** `counted` — ✓ private, d ≤ 2")
    assert "from /tmp/dslc-lsp-compose-test/lib.dp" in hover.contents.value
    hover = await client.text_document_hover_async(lsp.HoverParams(ident, pos(MAIN, "above_threshold(T")))
    assert "**mechanism** `above_threshold` from stdlib/above_threshold.dp" in hover.contents.value
    assert "proven d = 1; called with ε/2: costs d·share = 1/2" in hover.contents.value

    # the imported file changes in the editor: its importer is checked again
    seen = len(client.published)
    change(client, lib_uri, 2, None, LIB.replace("Lap(ε, read())", "Lap(2ε, read())"))
    published = await wait_diagnostics(client, main_uri, 1, after=seen)
    assert [d.code for d in published.diagnostics] == ["DP005"]      # 1/2 + 4·1/4 > 1
    seen = len(client.published)
    change(client, lib_uri, 3, None, LIB.replace("counted", "tallied"))
    published = await wait_diagnostics(client, main_uri, 1, after=seen)
    codes = [d.code for d in published.diagnostics]
    assert "E171" in codes
    e171 = next(d for d in published.diagnostics if d.code == "E171")
    assert e171.range.start == lsp.Position(0, 7)                     # at the name in the import line
