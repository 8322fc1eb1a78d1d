"""The `dslc.showGraph` command of the language server: end to end over
stdio (pytest-lsp), and its argument parsing in process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from dslc.lsp.graph import COMMAND, parse_arguments
from tests.test_lsp_support import capabilities, config, open_doc, utf16_position, wait_diagnostics

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "examples" / "sorted_desc.dp"
SVT = ROOT / "examples" / "svt.dp"
SURVEY = ROOT / "examples" / "survey.dp"
RED = "#d62728"

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(lsp.InitializeParams(capabilities=capabilities()))
    lsp_client.init_result = result
    yield
    await lsp_client.shutdown_session()


async def show(client: LanguageClient, *arguments):
    return await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command=COMMAND, arguments=list(arguments)))


async def test_command_is_advertised(client: LanguageClient):
    provider = client.init_result.capabilities.execute_command_provider
    assert provider is not None and COMMAND in provider.commands


async def test_mermaid_of_the_block_under_the_cursor_marks_the_leak(client: LanguageClient):
    uri = SORTED.as_uri()
    text = SORTED.read_text(encoding="utf-8")
    open_doc(client, uri, text)
    await wait_diagnostics(client, uri, 1)
    cursor = utf16_position(text, text.index("s := Lap"))            # inside `mechanism sorted_desc`
    result = await show(client, uri, {"line": cursor.line, "character": cursor.character}, "mermaid")
    assert (result["block"], result["kind"], result["format"]) == ("sorted_desc", "mechanism", "mermaid")
    assert result["text"].startswith("flowchart LR\n")
    assert f"linkStyle 2 stroke:{RED}" in result["text"]
    # the default format is Mermaid; the automaton below is another block
    cursor = utf16_position(text, text.index("state q2"))
    result = await show(client, uri, {"line": cursor.line, "character": cursor.character})
    assert result["block"] == "sorted_desc_automaton" and result["format"] == "mermaid"


async def test_dot_and_svg_by_block_name(client: LanguageClient):
    uri = SORTED.as_uri()
    result = await show(client, uri, "sorted_desc_automaton", "dot")
    assert result["text"].startswith('digraph "sorted_desc_automaton" {')
    assert 'class="DP001"' in result["text"]
    if shutil.which("dot"):
        result = await show(client, {"uri": uri, "block": "sorted_desc_automaton", "format": "svg"})
        assert "<svg" in result["text"] and 'class="edge DP001"' in result["text"]


async def test_document_not_open_is_read_from_disk_and_explain_shows_costs(client: LanguageClient):
    result = await show(client, {"uri": SVT.as_uri(), "block": "svt_automaton", "format": "dot", "explain": True})
    assert "cost 2d = 2·1/4 = 1/2 (heaviest path)" in result["text"] and RED not in result["text"]
    result = await show(client, SURVEY.as_uri(), "survey_ln2", "mermaid")
    assert result["kind"] == "hmm" and f"stroke:{RED}" in result["text"]


@pytest.mark.parametrize("arguments,needle", [
    ([], "expected the arguments"),
    (["file:///x.dp"], "expected the arguments"),
    ([SORTED.as_uri(), "sorted_desc", "png"], "format must be one of"),
    ([SORTED.as_uri(), {"line": -1, "character": 0}], "non-negative"),
    ([SORTED.as_uri(), "sorted_dsc"], "did you mean `sorted_desc`?"),
    ([42, "sorted_desc"], "URI"),
    ([{"uri": SORTED.as_uri(), "block": "x", "colour": "red"}], "unknown argument"),
    (["file:///no/such/file.dp", "x"], "cannot be read"),
])
async def test_invalid_params_get_an_error_response(client: LanguageClient, arguments, needle):
    with pytest.raises(JsonRpcException) as info:
        await show(client, *arguments)
    assert info.value.code == -32602
    assert needle in info.value.message and "Traceback" not in info.value.message


async def test_a_block_with_errors_fails_the_request(client: LanguageClient):
    uri = (ROOT / "tests" / "golden" / "syntax_errors.dp").as_uri()
    with pytest.raises(JsonRpcException) as info:
        await show(client, uri, "missing_arrow")
    assert info.value.code == -32803 and "cannot be drawn" in info.value.message


async def test_parse_arguments_forms():
    r = parse_arguments(["file:///a.dp", {"line": 3, "character": 4}])
    assert (r.uri, r.position, r.block, r.format) == ("file:///a.dp", lsp.Position(3, 4), None, "mermaid")
    r = parse_arguments([{"uri": "file:///a.dp", "block": "b", "format": "svg", "explain": True}])
    assert (r.block, r.format, r.explain, r.position) == ("b", "svg", True, None)
