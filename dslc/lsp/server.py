"""`dslc lsp`: the language server (pygls, stdio).

Diagnostics come from the same driver as ``dslc check``; the server adds
scheduling only:

- a document is checked on open and on save at once, and after changes once
  the user pauses for :data:`DEBOUNCE` seconds;
- checks run in worker threads, never on the event loop, so a keystroke in a
  5 MB document costs a splice of its line list on the loop and nothing more;
- at most one check per document runs at a time; a result whose document
  changed meanwhile is dropped (stale) and the newest text is checked next;
- hover, symbols and definition wait (asynchronously, with a time limit) for
  the check of the current text, starting it at once if it was only
  scheduled; they never answer from a stale result.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import json
import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method

from dslc import __version__
from dslc.diagnostics.render.lsp import UTF16
from dslc.lsp import features
from dslc.lsp.analysis import Analysis, analyse
from dslc.lsp.documents import Documents

log = logging.getLogger(__name__)

DEBOUNCE = 0.25          # seconds of quiet after a change before checking
REQUEST_WAIT = 5.0       # seconds a hover/symbol/definition request waits for a check
WORKERS = 2


class Worker:
    """A few daemon threads running checks.

    Daemon threads (unlike ``ThreadPoolExecutor``'s) do not hold up the exit
    of the server when the client asks it to stop in the middle of a long check.
    """

    def __init__(self, threads: int = WORKERS):
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._run, name=f"dslc-check-{i}", daemon=True)
                         for i in range(threads)]
        for t in self._threads:
            t.start()

    def submit(self, fn: Callable[..., Any], *args, **kwargs) -> concurrent.futures.Future:
        future: concurrent.futures.Future = concurrent.futures.Future()
        self._queue.put((future, fn, args, kwargs))
        return future

    def _run(self) -> None:
        while True:
            future, fn, args, kwargs = self._queue.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - reported through the future
                future.set_exception(exc)


class RawJSON(str):
    """A request result already serialised to JSON (off the event loop)."""


class _Protocol(LanguageServerProtocol):
    """Text synchronisation is handled by :class:`Documents` (protocol line
    breaks, negotiated encoding); pygls' own copy of the documents is not kept.
    Results given as :class:`RawJSON` are sent as they are."""

    def _send_data(self, data: Any):
        result = getattr(data, "result", None)
        if not isinstance(result, RawJSON) or self.writer is None:
            return super()._send_data(data)
        body = f'{{"jsonrpc": "2.0", "id": {json.dumps(data.id)}, "result": {result}}}'.encode("utf-8")
        if self._include_headers:
            body = (f"Content-Length: {len(body)}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n").encode("ascii") + body
        res = self.writer.write(body)
        if inspect.isawaitable(res):
            asyncio.ensure_future(res)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: lsp.DidOpenTextDocumentParams):
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: lsp.DidChangeTextDocumentParams):
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: lsp.DidCloseTextDocumentParams):
        if (handler := self.fm.features.get(lsp.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


@dataclass
class _State:
    timer: asyncio.TimerHandle | None = None
    running: int | None = None              # generation being checked
    again: bool = False                     # re-check when the running check ends
    analysis: Analysis | None = None        # latest result for the current text
    waiters: list[asyncio.Future] = field(default_factory=list)


class DslcServer(LanguageServer):
    def __init__(self, debounce: float = DEBOUNCE, workers: int = WORKERS):
        super().__init__("dslc", __version__, protocol_cls=_Protocol,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.documents = Documents()
        self.states: dict[str, _State] = {}
        self.worker = Worker(workers)
        self.requests = Worker(1)      # heavy request work (symbols of a large document)
        self.related_information = True
        self.tags = True
        self.hierarchical_symbols = True

    # -------------------------------------------------------------- scheduling
    def schedule(self, uri: str, delay: float, republish: bool = False) -> None:
        """Check the document after ``delay`` seconds (0: now).  With
        ``republish``, a result that is already current is published again."""
        st = self.states.setdefault(uri, _State())
        if st.timer is not None:
            st.timer.cancel()
            st.timer = None
        if delay <= 0:
            self._start(uri, republish)
        else:
            st.timer = asyncio.get_running_loop().call_later(delay, self._start, uri)

    def _publish(self, analysis: Analysis) -> None:
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=analysis.uri, diagnostics=analysis.diagnostics, version=analysis.version))

    def _start(self, uri: str, republish: bool = False) -> None:
        st = self.states.get(uri)
        doc = self.documents.get(uri)
        if st is None or doc is None:
            return
        st.timer = None
        if st.running is not None:
            st.again = st.running != doc.generation
            return
        if st.analysis is not None and st.analysis.generation == doc.generation:
            if republish:
                self._publish(st.analysis)
            self._wake(st)
            return
        st.running = doc.generation
        generation = doc.generation

        def cancelled() -> bool:
            # Read from the worker thread between blocks: stop checking text
            # that has changed since (the newest text is checked next).
            current = self.documents.get(uri)
            return current is None or current.generation != generation

        future = self.worker.submit(
            analyse, uri, doc.path, doc.text, doc.generation, doc.version,
            encoding=self.documents.encoding, related_information=self.related_information,
            tags=self.tags, cancelled=cancelled)
        started, generation = time.perf_counter(), doc.generation
        asyncio.wrap_future(future).add_done_callback(lambda f: self._done(uri, f, generation, started))

    def _done(self, uri: str, future: asyncio.Future, generation: int, started: float) -> None:
        st = self.states.get(uri)
        doc = self.documents.get(uri)
        if st is None or doc is None or st.running != generation:   # closed or reopened meanwhile
            return
        log.debug("check of %s (generation %s) took %.0f ms%s", uri, generation,
                  (time.perf_counter() - started) * 1000,
                  "" if generation == doc.generation else " (stale)")
        st.running = None
        analysis: Analysis | None = None
        if not future.cancelled() and future.exception() is None:
            analysis = future.result()
        else:  # pragma: no cover - analyse() never raises
            log.error("check of %s failed: %r", uri, future.exception())
        if analysis is not None and analysis.generation == doc.generation:
            st.analysis = analysis
            self._publish(analysis)
        elif st.timer is None:                       # stale: check the newest text now
            st.again = True
        self._wake(st)
        if st.again and st.timer is None:
            st.again = False
            self._start(uri)

    @staticmethod
    def _wake(st: _State) -> None:
        waiters, st.waiters = st.waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    async def current(self, uri: str, timeout: float = REQUEST_WAIT) -> Analysis | None:
        """The analysis of the document's current text, checking it now if it
        was only scheduled; None if it is not ready within ``timeout``."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            doc = self.documents.get(uri)
            st = self.states.get(uri)
            if doc is None or st is None:
                return None
            if st.analysis is not None and st.analysis.generation == doc.generation:
                return st.analysis
            if st.running is None:
                self.schedule(uri, 0)
                if st.analysis is not None and st.analysis.generation == doc.generation:
                    return st.analysis
            waiter = loop.create_future()
            st.waiters.append(waiter)
            left = deadline - loop.time()
            if left <= 0:
                return None
            try:
                await asyncio.wait_for(waiter, left)
            except asyncio.TimeoutError:
                return None

    def forget(self, uri: str) -> None:
        st = self.states.pop(uri, None)
        if st is not None:
            if st.timer is not None:
                st.timer.cancel()
            self._wake(st)


def _caps(params: lsp.InitializeParams) -> tuple[bool, bool, bool]:
    td = params.capabilities.text_document
    pub = td.publish_diagnostics if td is not None else None
    sym = td.document_symbol if td is not None else None
    related = bool(pub and pub.related_information)
    tags = bool(pub and pub.tag_support)
    hierarchical = bool(sym and sym.hierarchical_document_symbol_support)
    return related, tags, hierarchical


def create_server(debounce: float = DEBOUNCE) -> DslcServer:
    server = DslcServer(debounce=debounce)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: DslcServer, params: lsp.InitializeParams) -> None:
        from dslc.commands.explain import _load_all
        _load_all()                                   # codes of every backend, for codeDescription
        ls.related_information, ls.tags, ls.hierarchical_symbols = _caps(params)
        ls.documents.encoding = str(ls.workspace.position_encoding or UTF16)
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("debounce"), (int, float)):
            ls.debounce = max(0.0, float(options["debounce"]))

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DslcServer, params: lsp.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.forget(doc.uri)
        ls.documents.open(doc.uri, doc.text, doc.version)
        ls.schedule(doc.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DslcServer, params: lsp.DidChangeTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ls.documents.change(uri, params.text_document.version, params.content_changes) is not None:
            ls.schedule(uri, ls.debounce)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
    def did_save(ls: DslcServer, params: lsp.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = ls.documents.get(uri)
        if doc is None:
            return
        if params.text is not None and params.text != doc.text:
            ls.documents.change(uri, doc.version, [lsp.TextDocumentContentChangeWholeDocument(params.text)])
        ls.schedule(uri, 0, republish=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DslcServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.close(uri)
        ls.forget(uri)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: DslcServer, params: lsp.HoverParams) -> lsp.Hover | None:
        analysis = await ls.current(params.text_document.uri)
        return features.hover(analysis, params.position) if analysis else None

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def symbols(ls: DslcServer, params: lsp.DocumentSymbolParams):
        analysis = await ls.current(params.text_document.uri)
        if analysis is None:
            return None
        if len(analysis.extents) < 50:
            return features.document_symbols(analysis, hierarchical=ls.hierarchical_symbols)
        # thousands of blocks: build and serialise the tree off the event loop

        def build() -> RawJSON:
            started = time.perf_counter()
            symbols = features.document_symbols(analysis, hierarchical=ls.hierarchical_symbols)
            raw = RawJSON(json.dumps(ls.protocol._converter.unstructure(symbols)))
            log.debug("documentSymbol: %d blocks in %.0f ms", len(analysis.extents),
                      (time.perf_counter() - started) * 1000)
            return raw

        return await asyncio.wrap_future(ls.requests.submit(build))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def definition(ls: DslcServer, params: lsp.DefinitionParams):
        analysis = await ls.current(params.text_document.uri)
        return features.definition(analysis, params.position) if analysis else None

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: DslcServer, params: None) -> None:
        for uri in list(ls.states):
            ls.forget(uri)

    return server


def serve(debounce: float = DEBOUNCE) -> int:
    """Run the server over stdin/stdout until the client exits."""
    create_server(debounce).start_io()
    return 0
