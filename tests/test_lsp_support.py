"""Helpers for the end-to-end language server tests (pytest-lsp, real stdio); no tests here."""

from __future__ import annotations

import asyncio
import itertools
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

from lsprotocol import types as lsp
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

PUBLISH = lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
SERVER = [sys.executable, "-m", "dslc", "lsp"]
TIMEOUT = 120.0     # a guard against a hung server, not a timing assertion
ROOT = Path(__file__).resolve().parent.parent
GUARD = 60.0        # the same, for the raw client


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


class RawClient:
    """A raw JSON-RPC client of `dslc lsp` over real stdio, which can send what a
    well-behaved client library refuses to (bad params, bad framing)."""

    def __init__(self, tmp_path: Path):
        self.log = tmp_path / "server.log"
        self.proc = subprocess.Popen([sys.executable, "-m", "dslc", "lsp", "--log-file", str(self.log)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=ROOT)
        self.ids = itertools.count(1)
        self.messages: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def send(self, message: dict | bytes) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode("utf-8")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, method: str, params=None, **extra) -> dict:
        """Send a request and wait for its response (notifications meanwhile are kept)."""
        msg_id = next(self.ids)
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method, **extra}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            got = self.messages.get(timeout=GUARD)
            assert got is not None, f"the server closed the connection instead of answering {method}"
            if got.get("id") == msg_id and "method" not in got:
                return got
            self.notifications.append(got)

    def notify(self, method: str, params=None) -> None:
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def initialize(self) -> dict:
        response = self.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        self.notify("initialized", {})
        return response

    def wait(self) -> int:
        return self.proc.wait(timeout=GUARD)

    def log_lines(self) -> list[str]:
        return self.log.read_text(encoding="utf-8").splitlines() if self.log.exists() else []

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            f.close()
