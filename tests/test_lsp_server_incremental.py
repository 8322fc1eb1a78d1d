"""End to end: after an edit `dslc lsp` checks only the blocks that changed
(pytest-lsp over stdio), and publishes what a fresh check of the text gives.

How many blocks a check ran through the pipeline is read from the server's
own log (`--verbose --log-file`), whose line is written before the
diagnostics are sent.  No sleeps: every wait is on a publishDiagnostics
notification or on the answer to a request.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient

from dslc.lsp import features
from dslc.lsp.analysis import analyse
from dslc.lsp.documents import uri_to_path
from tests.test_lsp_support import capabilities, change, config, open_doc, utf16_position, wait_diagnostics

ROOT = Path(__file__).resolve().parent.parent
LOG = Path(tempfile.mkdtemp(prefix="dslc-lsp-incremental-")) / "server.log"
TEXT = "".join((ROOT / "examples" / name).read_text(encoding="utf-8")
               for name in ("svt.dp", "sorted_desc.dp", "numeric_sparse.dp"))
URI = "file:///tmp/dslc-lsp-test/incremental.dp"          # lives in the client only

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=config("--verbose", "--log-file", str(LOG)), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


def last_check() -> tuple[int, int]:
    """(blocks checked, blocks reused) of the last check of URI in the server's log."""
    found = re.findall(rf"check of {re.escape(URI)} .*; (\d+) blocks checked, (\d+) reused",
                       LOG.read_text(encoding="utf-8"))
    assert found, "no check logged"
    return int(found[-1][0]), int(found[-1][1])


def fresh(text: str):
    """What a check of the whole text gives, in process."""
    return analyse(URI, uri_to_path(URI), text, 1, 1)


def wire(value):
    """As sent over the protocol (the client reads lists where the server wrote tuples)."""
    return CONVERTER.unstructure(value)


CONVERTER = default_converter()


def at(text: str, needle: str, after: str = "") -> lsp.Range:
    start = text.index(needle, text.index(after))
    return lsp.Range(utf16_position(text, start), utf16_position(text, start + len(needle)))


async def test_edits_check_only_the_changed_blocks(client: LanguageClient):
    text = TEXT
    open_doc(client, URI, text)
    published = await wait_diagnostics(client, URI, 1)
    assert last_check() == (6, 0)
    assert wire(published.diagnostics) == wire(fresh(text).diagnostics)

    # an edit inside one block: that block is checked, the other five reused
    where = at(text, "output ⊥", after="mechanism svt(")
    change(client, URI, 2, lsp.Range(where.end, where.end), "  // below the threshold")
    text = text.replace("output ⊥", "output ⊥  // below the threshold", 1)
    published = await wait_diagnostics(client, URI, 2)
    assert last_check() == (1, 5)
    assert wire(published.diagnostics) == wire(fresh(text).diagnostics)

    # lines above numeric_sparse move it and its automaton: nothing is checked
    where = at(text, "mechanism numeric_sparse")
    change(client, URI, 3, lsp.Range(where.start, where.start), "// two lines\n\n")
    text = text.replace("mechanism numeric_sparse", "// two lines\n\nmechanism numeric_sparse")
    published = await wait_diagnostics(client, URI, 3)
    assert last_check() == (0, 6)
    assert wire(published.diagnostics) == wire(fresh(text).diagnostics)

    # hover, definition and the outline answer from the moved results as from a fresh check
    ident = lsp.TextDocumentIdentifier(URI)
    want = fresh(text)
    for needle, after in (("numeric_sparse_automaton", "automaton numeric_sparse"),
                          ("q1", "state q1 input Lap(2ε/9"), ("Lap(2ε/9, q)", "mechanism numeric_sparse")):
        pos = at(text, needle, after).start
        hover = await client.text_document_hover_async(lsp.HoverParams(ident, pos))
        assert wire(hover) == wire(features.hover(want, pos))
        assert hover is not None and "numeric_sparse" in hover.contents.value
    pos = at(text, "q2", after="insample >= x -> q2 output insample'").start
    [location] = await client.text_document_definition_async(lsp.DefinitionParams(ident, pos))
    assert wire([location]) == wire(features.definition(want, pos))
    assert location.range == at(text, "q2", after="state q2 input Lap(2ε/9")       # its declaration
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(ident))
    assert wire(symbols) == wire(features.document_symbols(want))

    # a second block named `svt`: the renamed block is checked, and E009 is there
    where = at(text, "numeric_sparse_automaton", after="automaton numeric_sparse")
    change(client, URI, 4, where, "svt")
    text = text.replace("automaton numeric_sparse_automaton", "automaton svt")
    published = await wait_diagnostics(client, URI, 4)
    assert last_check() == (1, 5)
    assert "E009" in [d.code for d in published.diagnostics]
    assert wire(published.diagnostics) == wire(fresh(text).diagnostics)
