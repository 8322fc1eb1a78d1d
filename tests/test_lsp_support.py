"""Helpers for the end-to-end language server tests (pytest-lsp, real stdio); no tests here."""

from __future__ import annotations

import asyncio
import sys

from lsprotocol import types as lsp
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

PUBLISH = lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
SERVER = [sys.executable, "-m", "dslc", "lsp"]
TIMEOUT = 120.0     # a guard against a hung server, not a timing assertion


def make_client() -> LanguageClient:
    """pytest-lsp's test client, also recording every publishDiagnostics with
    its version (the stock client keeps only the latest list per URI)."""
    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {k: v for k, v in DEFAULT_CLIENT_FEATURES.items() if k != PUBLISH})
    client.published = []

    @client.feature(PUBLISH)
    def on_publish(ls: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
        ls.diagnostics[params.uri] = params.diagnostics
        ls.published.append(params)

    return client


def config(*extra: str) -> ClientServerConfig:
    return ClientServerConfig(server_command=SERVER + list(extra), client_factory=make_client)


def capabilities(*, related: bool = True, hierarchical: bool = True,
                 encodings: list[str] | None = None) -> lsp.ClientCapabilities:
    return lsp.ClientCapabilities(
        general=lsp.GeneralClientCapabilities(position_encodings=encodings) if encodings else None,
        text_document=lsp.TextDocumentClientCapabilities(
            synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=True),
            publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
                related_information=related, version_support=True, code_description_support=True,
                tag_support=lsp.ClientDiagnosticsTagOptions(value_set=[lsp.DiagnosticTag.Unnecessary])),
            hover=lsp.HoverClientCapabilities(content_format=[lsp.MarkupKind.Markdown]),
            document_symbol=lsp.DocumentSymbolClientCapabilities(
                hierarchical_document_symbol_support=hierarchical),
            definition=lsp.DefinitionClientCapabilities()))


async def wait_diagnostics(client: LanguageClient, uri: str, version: int | None,
                           after: int = 0) -> lsp.PublishDiagnosticsParams:
    """The first diagnostics published for ``uri`` at ``version`` (after the
    first ``after`` recorded publications).  Waits on publishDiagnostics
    notifications; the future is registered before the record is searched,
    so a notification cannot slip between the two."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while True:
        waiter = client.protocol.wait_for_notification_async(PUBLISH)
        for p in client.published[after:]:
            if p.uri == uri and p.version == version:
                return p
        await asyncio.wait_for(waiter, max(0.001, deadline - loop.time()))


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="dp", version=version, text=text)))


def change(client: LanguageClient, uri: str, version: int, rng: lsp.Range | None, text: str) -> None:
    event = (lsp.TextDocumentContentChangeWholeDocument(text=text) if rng is None
             else lsp.TextDocumentContentChangePartial(range=rng, text=text))
    client.text_document_did_change(lsp.DidChangeTextDocumentParams(
        lsp.VersionedTextDocumentIdentifier(uri=uri, version=version), [event]))


def save(client: LanguageClient, uri: str) -> None:
    client.text_document_did_save(lsp.DidSaveTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri)))


def utf16_position(text: str, offset: int) -> lsp.Position:
    """The literal definition: lines split at \\n, \\r\\n, \\r; UTF-16 columns."""
    before = text[:offset].replace("\r\n", "\n").replace("\r", "\n")
    line = before.count("\n")
    last = before[before.rfind("\n") + 1:]
    return lsp.Position(line, len(last.encode("utf-16-le")) // 2)
