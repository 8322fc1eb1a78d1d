"""Where the other lines of a diagnostic go: `relatedInformation`, or
`file:line:col: text` lines in the message for clients that announce
relatedInformation but do not show it (Neovim before 0.12), or when the
initialization option {"relatedInformation": "message"} asks for it."""

from __future__ import annotations

from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from dslc.lsp.server import related_information
from tests.test_lsp_support import capabilities, config, open_doc, utf16_position, wait_diagnostics

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "examples" / "sorted_desc.dp"


def neovim(version: str) -> lsp.ClientInfo:
    return lsp.ClientInfo(name="Neovim", version=version)


@pytest.mark.parametrize("mode, supported, client, expected", [
    ("auto", True, None, True),
    ("auto", False, None, False),
    ("auto", True, lsp.ClientInfo(name="Visual Studio Code", version="1.95.0"), True),
    ("auto", True, neovim("0.7.2"), False),
    ("auto", True, neovim("0.11.4"), False),
    ("auto", True, neovim("0.11.99-dev"), False),
    ("auto", True, neovim("0.12.0"), True),
    ("auto", True, neovim("v0.13.1"), True),
    ("auto", True, neovim(""), False),                  # unknown version: assume it does not show them
    ("message", True, None, False),
    ("message", True, neovim("0.12.0"), False),
    ("related", True, neovim("0.7.2"), True),
    ("related", False, None, False),                     # never sent to a client that cannot take them
])
def test_related_information_decision(mode, supported, client, expected):
    assert related_information(mode, supported, client) is expected


async def session(lsp_client: LanguageClient, client_info, options) -> lsp.Diagnostic:
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=capabilities(related=True), client_info=client_info, initialization_options=options))
    uri = SORTED.as_uri()
    open_doc(lsp_client, uri, SORTED.read_text(encoding="utf-8"))
    published = await wait_diagnostics(lsp_client, uri, 1)
    return published.diagnostics[0]


def inline_lines(text: str) -> list[str]:
    """The `file:line:col: text` lines the message must carry for the mechanism's DP001."""
    out = []
    for needle, label in (("s < x", "the next turn compares a fresh draw with that `x`"),
                          ("loop {", "and the loop repeats")):
        pos = utf16_position(text, text.index(needle))
        out.append(f"{SORTED}:{pos.line + 1}:{pos.character + 1}: {label}")
    return out


@pytest_lsp.fixture(config=config())
async def nvim011(lsp_client: LanguageClient):
    lsp_client.first = await session(lsp_client, neovim("0.11.4"), None)
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_neovim_before_012_gets_the_lines_in_the_message(nvim011: LanguageClient):
    diag = nvim011.first
    text = SORTED.read_text(encoding="utf-8")
    assert diag.related_information is None
    for line in inline_lines(text):
        assert line in diag.message.split("\n")


@pytest_lsp.fixture(config=config())
async def option_message(lsp_client: LanguageClient):
    lsp_client.first = await session(lsp_client, lsp.ClientInfo(name="some editor"), {"relatedInformation": "message"})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_option_message_puts_the_lines_in_the_message(option_message: LanguageClient):
    diag = option_message.first
    assert diag.related_information is None
    assert diag.message.split("\n")[-2:] == inline_lines(SORTED.read_text(encoding="utf-8"))


@pytest_lsp.fixture(config=config())
async def nvim012(lsp_client: LanguageClient):
    lsp_client.first = await session(lsp_client, neovim("0.12.0"), {"relatedInformation": "auto", "debounce": 0.1})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_neovim_012_gets_related_information(nvim012: LanguageClient):
    diag = nvim012.first
    assert len(diag.related_information) == 2
    assert str(SORTED) not in diag.message


def test_inline_related_lines_count_columns_in_characters():
    """The `file:line:col` lines are read by a person (and by quickfix parsers):
    they count characters like the text and gcc formats, not UTF-16 units."""
    from dslc.diagnostics.render.lsp import file_diagnostics
    from dslc.pipeline import check_source
    from dslc.source import SourceFile

    text = SORTED.read_text(encoding="utf-8").replace("loop {", "loop { /* 😀😀 */", 1)
    text = text.replace("if s < x", "/*😀*/ if s < x", 1)
    result = check_source(SourceFile(str(SORTED), text), {})
    diags = file_diagnostics(result, SORTED.as_uri(), related_information=False)
    message = next(d.message for d in diags if d.code == "DP001")
    src = SourceFile(str(SORTED), text)
    line, col = src.line_col(text.index("s < x"))
    assert f"{SORTED}:{line}:{col}: the next turn compares a fresh draw with that `x`" in message
    assert col == text.split("\n")[line - 1].index("s < x") + 1
