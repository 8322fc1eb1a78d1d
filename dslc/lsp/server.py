"""`dslc lsp`: the language server (pygls 2, stdio).

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

pygls is used for what it does well: features registered with
``LanguageServer.feature``, the converter made by our ``converter_factory``,
dispatching messages and writing responses.  The server replaces three of its
parts, in a protocol subclass (:class:`_Protocol`) and :meth:`DslcServer.start_io`:

- the message framing on stdin (:mod:`dslc.lsp.framing`): header names in
  any case, bounded message sizes, and every framing error logged (and
  answered where a request id is known) instead of ending the server or
  losing every later message;
- the text synchronisation: pygls' built-in handlers of ``didOpen``,
  ``didChange`` and ``didClose`` keep a copy in its workspace and, before the
  server's handler runs, clamp the positions of a change *in place* by its own
  line splitting (``str.splitlines``, which also breaks at a form feed,
  U+0085, U+2028).  The subclass's handlers only call the server's, and
  ``didChange`` params are read by :func:`dslc.lsp.documents.parse_did_change`
  straight from the JSON values, so the server's own copy
  (:class:`~dslc.lsp.documents.Documents`) receives the positions the client
  sent;
- the error paths of the LSP specification that pygls 2 leaves out (see
  :class:`_Protocol`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import gc
import inspect
import json
import logging
import queue
import re
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import cattrs
from cattrs.v import format_exception
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInternalError
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, default_converter
from pygls.protocol.json_rpc import JsonRPCNotification, RPCRequest
from pygls.protocol.language_server import lsp_method

from dslc import __version__
from dslc.diagnostics.render.lsp import UTF16
from dslc.lsp import features
from dslc.lsp import graph as lsp_graph
from dslc.lsp.analysis import Analysis, analyse
from dslc.lsp.blocks import BlockCache
from dslc.lsp.documents import Change, DidChange, Documents, InvalidChange, parse_did_change
from dslc.lsp.framing import Framer, Problem

log = logging.getLogger(__name__)

DEBOUNCE = 0.25          # seconds of quiet after a change before checking
FREEZE_BLOCKS = 1000     # a large document, for the garbage collector (see settle)
REQUEST_WAIT = 5.0       # seconds a hover/symbol/definition request waits for a check
WORKERS = 2

# JSON-RPC and LSP error codes
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002

# Values of the initialization option "relatedInformation".
RELATED_MODES = ("auto", "message", "related")


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


class Unstructured(list):
    """A request result already turned into JSON values (lists, dicts) in a
    worker thread; the converter passes it through unchanged."""


def make_converter() -> cattrs.Converter:
    converter = default_converter()
    converter.register_unstructure_hook(Unstructured, lambda value: value)
    return converter


@dataclass
class _Rejected:
    """A message whose params do not fit its method (see :meth:`_Protocol.structure_message`)."""
    id: Any
    method: str
    reason: str


def _describe(exc: BaseException, type_) -> str:
    if isinstance(exc, ValueError) and str(exc):          # lsprotocol's range checks say what was wrong
        return str(exc).split("\n", 1)[0]
    return format_exception(exc, type_)


def _reason(exc: BaseException) -> str:
    """One line saying which field of the params is wrong, and how."""
    try:
        lines = cattrs.transform_error(exc, format_exception=_describe)
    except Exception:  # noqa: BLE001 - any summary will do
        lines = []
    # paths in the protocol's spelling: $.params.text_document -> $.params.textDocument
    lines = [re.sub(r"(@ \$\S*)", lambda m: re.sub(r"_([a-z])", lambda c: c[1].upper(), m[1]), line)
             for line in lines]
    return "; ".join(lines) or f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"


class _Protocol(LanguageServerProtocol):
    """pygls' protocol, with the server's own text synchronisation (see the
    module's docstring) and message bodies (:meth:`receive`), plus the error
    paths of the LSP specification that pygls 2 leaves out (it never answers
    such requests, and logs tracebacks):

    - a body that is not JSON gets ``ParseError`` (id null, as JSON-RPC asks),
      one that is not a JSON-RPC message ``InvalidRequest``;
    - a request whose params do not fit its method (a negative line, a
      missing ``textDocument``) gets ``InvalidParams``; such a notification
      is dropped with one log line;
    - a request before ``initialize`` gets ``ServerNotInitialized``, a
      notification before it (other than ``exit``) is dropped;
    - a request after ``shutdown`` gets ``InvalidRequest`` (pygls drops it);
    - :attr:`exit_code` is 0 for ``exit`` after ``shutdown``, else 1.

    Error responses are written to the protocol's writer with the message
    framing of the transport.
    """

    def __init__(self, server, converter: cattrs.Converter):
        super().__init__(server, converter)
        self.converter = converter
        self.initialized = False
        self.shut_down = False
        self.exit_code: int | None = None
        self._headers = True

    def set_writer(self, writer, include_headers: bool = True):
        super().set_writer(writer, include_headers)
        self._headers = include_headers

    def structure_message(self, data: dict[str, Any]):
        method = data.get("method") if isinstance(data, dict) and "jsonrpc" in data else None
        if method == lsp.TEXT_DOCUMENT_DID_CHANGE:
            try:
                params = parse_did_change(data.get("params"))
            except InvalidChange as exc:
                return _Rejected(data.get("id"), method, str(exc))
            return JsonRPCNotification(method=method, jsonrpc=data["jsonrpc"], params=params)
        message_type = self.get_message_type(method) if isinstance(method, str) else None
        if message_type is not None:
            try:
                return self.converter.structure(data, message_type)
            except Exception as exc:  # noqa: BLE001 - any failure means invalid params
                return _Rejected(data.get("id"), method, _reason(exc))
        return super().structure_message(data)

    def handle_message(self, message):
        method = getattr(message, "method", None)
        if isinstance(message, _Rejected):
            log.warning("invalid params for %s: %s", message.method, message.reason)
            if message.id is not None:
                self.reply_error(message.id, INVALID_PARAMS,
                                 f"invalid params for {message.method}: {message.reason}")
            return
        request = isinstance(message, RPCRequest)
        if method == lsp.EXIT:
            self.exit_code = 0 if self.shut_down else 1
        elif self.shut_down and request:
            self.reply_error(message.id, INVALID_REQUEST,
                             f"{method}: the server has been shut down; only `exit` is accepted")
            return
        elif not self.initialized and method not in (lsp.INITIALIZE, None):
            if request:
                self.reply_error(message.id, SERVER_NOT_INITIALIZED,
                                 f"{method}: the server has not been initialized")
            else:
                log.warning("dropped %s: the server has not been initialized", method)
            return
        super().handle_message(message)
        if method == lsp.INITIALIZE:
            self.initialized = True
        elif method == lsp.SHUTDOWN:
            self.shut_down = True

    # The built-in text synchronisation of pygls, without its workspace copy.
    @lsp_method(lsp.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: lsp.DidOpenTextDocumentParams):
        yield from self._user_handler(lsp.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params):
        yield from self._user_handler(lsp.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: lsp.DidCloseTextDocumentParams):
        yield from self._user_handler(lsp.TEXT_DOCUMENT_DID_CLOSE, params)

    def _user_handler(self, method: str, params):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    # Message bodies, from the framer.
    def receive(self, body: bytes | bytearray) -> None:
        """Handle one message body: JSON, a JSON-RPC message, then pygls'
        dispatch.  Nothing raised here ends the server (``exit`` aside)."""
        try:
            data = json.loads(body.decode("utf-8"))
        except (ValueError, RecursionError) as exc:       # UnicodeDecodeError is a ValueError
            reason = str(exc).split("\n", 1)[0] or type(exc).__name__
            self.framing_error(f"dropped a message that is not JSON ({reason})", PARSE_ERROR)
            return
        except MemoryError:
            self.framing_error(f"dropped a message of {len(body)} bytes: there is not enough memory "
                               "to read it")
            return
        if not (isinstance(data, dict) and data.get("jsonrpc") == "2.0"
                and isinstance(data.get("method", ""), str)):
            msg_id = data.get("id") if isinstance(data, dict) else None
            known = isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool)
            what = "a JSON-RPC 2.0 message" if isinstance(data, dict) else "a JSON object"
            self.framing_error(f"dropped a message that is not {what}", INVALID_REQUEST,
                               msg_id if known else None)
            return
        try:
            message = self.structure_message(data)
        except Exception as exc:  # noqa: BLE001 - pygls raises for a response it cannot read
            log.error("dropped a message that cannot be read: %s", _reason(exc))
            return
        try:
            self.handle_message(message)
        except Exception:  # noqa: BLE001 - the server must survive any message
            log.exception("failed to handle %s", getattr(message, "method", "a response"))

    def framing_error(self, text: str, code: int | None = None, msg_id: Any = None) -> None:
        """A message that could not be read: one log line, the same line to
        the client's log (``window/logMessage``), and an error response with
        ``code`` (``msg_id`` null where the id is not known)."""
        log.error("%s", text)
        if self.writer is None:
            return
        self.notify(lsp.WINDOW_LOG_MESSAGE, lsp.LogMessageParams(type=lsp.MessageType.Error,
                                                                 message=f"dslc: {text}"))
        if code is not None:
            self.reply_error(msg_id, code, text)

    def reply_error(self, msg_id: Any, code: int, message: str) -> None:
        """Answer request ``msg_id`` (None: a message whose id is not known)
        with an error (on the event loop thread)."""
        if self.writer is None:
            return
        response = {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
        body = json.dumps(response).encode("utf-8")
        if self._headers:
            body = f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body
        res = self.writer.write(body)
        if inspect.isawaitable(res):
            asyncio.ensure_future(res)


def request_handler(fn):
    """A request handler whose unexpected errors become one InternalError
    response (no Python traceback for the client; pygls logs one line)."""
    @functools.wraps(fn)
    async def wrapper(ls, params):
        try:
            result = fn(ls, params)
            if inspect.isawaitable(result):
                result = await result
            return result
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the server must survive any bug in a feature
            raise JsonRpcInternalError(
                message=f"dslc: internal error in {fn.__name__}: {type(exc).__name__}: {exc}") from None
    return wrapper


def settle() -> None:
    """Move the objects alive now out of the cyclic garbage collector's sight
    (after the young ones are collected).  The server calls it after every
    check of a document of FREEZE_BLOCKS blocks or more, and every
    FREEZE_BLOCKS blocks checked: the results of a large document (millions
    of objects for 5 MB) live as long as its text, and the collector would
    otherwise walk all of them every few edits (seconds each time).  They
    hold no reference cycles (tested), so reference counting frees them when
    the document changes or closes."""
    gc.collect(1)
    gc.freeze()


@dataclass
class _State:
    timer: asyncio.TimerHandle | None = None
    running: int | None = None              # generation being checked
    again: bool = False                     # re-check when the running check ends
    analysis: Analysis | None = None        # latest result for the current text
    waiters: list[asyncio.Future] = field(default_factory=list)
    cache: BlockCache = field(default_factory=lambda: BlockCache(settle, FREEZE_BLOCKS))   # earlier results


class DslcServer(LanguageServer):
    def __init__(self, debounce: float = DEBOUNCE, workers: int = WORKERS):
        super().__init__("dslc", __version__, protocol_cls=_Protocol, converter_factory=make_converter,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.debounce = debounce
        self.documents = Documents()
        self.states: dict[str, _State] = {}
        self.worker = Worker(workers)
        self.requests = Worker(1)      # heavy request work (symbols of a large document)
        self.related_information = True
        self.tags = True
        self.hierarchical_symbols = True

    def start_io(self, stdin=None, stdout=None) -> None:
        """Serve over stdin/stdout until ``exit`` or the end of stdin.
        Messages are read by :class:`~dslc.lsp.framing.Framer` (one blocking
        read per message in pygls' thread pool, as pygls' own reader does)."""
        framer = Framer(stdin or sys.stdin.buffer)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        try:
            asyncio.run(self._read_messages(framer))
        except BrokenPipeError:
            log.error("the connection to the client is lost")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _read_messages(self, framer: Framer) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                event = await loop.run_in_executor(self.thread_pool, framer.next)
            except OSError as exc:
                log.error("cannot read from the client: %s", exc)
                return
            if event is None:
                return
            if isinstance(event, Problem):
                self.protocol.framing_error(event.text)
            else:
                self.protocol.receive(event)
            event = None        # a large body is freed before the next read

    def report_server_error(self, error: Exception, source) -> None:
        """An error outside a request (in a notification handler, or a
        message that cannot be read): one log line, and pygls' message to the
        user (``window/showMessage``)."""
        log.error("%s: %s", getattr(source, "__name__", source), error)
        super().report_server_error(error, source)

    # ------------------------------------------------------------ configuration
    def configure(self, params: lsp.InitializeParams) -> None:
        """Read the client's capabilities and the initialization options."""
        td = params.capabilities.text_document
        pub = td.publish_diagnostics if td is not None else None
        sym = td.document_symbol if td is not None else None
        self.tags = bool(pub and pub.tag_support)
        self.hierarchical_symbols = bool(sym and sym.hierarchical_document_symbol_support)
        self.documents.encoding = str(self.workspace.position_encoding or UTF16)
        options = params.initialization_options if isinstance(params.initialization_options, dict) else {}
        debounce = options.get("debounce")
        if isinstance(debounce, (int, float)) and not isinstance(debounce, bool):
            if debounce == debounce and 0 <= debounce < float("inf"):
                self.debounce = float(debounce)
            else:
                log.warning("ignored the initialization option debounce = %r (seconds, 0 or more)", debounce)
        mode = options.get("relatedInformation", "auto")
        if mode not in RELATED_MODES:
            log.warning("ignored the initialization option relatedInformation = %r (one of %s)",
                        mode, ", ".join(RELATED_MODES))
            mode = "auto"
        supported = bool(pub and pub.related_information)
        self.related_information = related_information(mode, supported, params.client_info)


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
            tags=self.tags, cancelled=cancelled, cache=st.cache)
        started, generation = time.perf_counter(), doc.generation
        asyncio.wrap_future(future).add_done_callback(lambda f: self._done(uri, f, generation, started))

    def _done(self, uri: str, future: asyncio.Future, generation: int, started: float) -> None:
        st = self.states.get(uri)
        doc = self.documents.get(uri)
        if st is None or doc is None or st.running != generation:   # closed or reopened meanwhile
            return
        st.running = None
        analysis: Analysis | None = None
        if not future.cancelled() and future.exception() is None:
            analysis = future.result()
        else:  # pragma: no cover - analyse() never raises
            log.error("check of %s failed: %r", uri, future.exception())
        run = analysis.run if analysis is not None else None
        log.debug("check of %s (generation %s) took %.0f ms%s%s", uri, generation,
                  (time.perf_counter() - started) * 1000,
                  "" if generation == doc.generation else " (stale)",
                  f"; {len(run.checked)} blocks checked, {run.reused} reused" if run is not None else "")
        if analysis is not None and analysis.generation == doc.generation:
            st.analysis = analysis
            self._publish(analysis)
        elif st.timer is None:                       # stale: check the newest text now
            st.again = True
        if run is not None and len(analysis.extents) >= FREEZE_BLOCKS:
            settle()
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

    def imported_changed(self, uri: str, text: str | None) -> None:
        """A document changed, opened or closed: imports read its text as the
        editor holds it, and the open documents that import it are checked
        again (dslc/compose/program.py)."""
        from dslc.compose import program
        from dslc.lsp.documents import uri_to_path
        doc_path = uri_to_path(uri)
        program.set_overlay(doc_path, text)
        importers = program.importers_of(doc_path)
        if not importers:
            return
        for other, doc in list(self.documents.items()):
            if other == uri or program.real_path(doc.path) not in importers:
                continue
            st = self.states.get(other)
            if st is not None and st.running is None:
                st.analysis = None          # the text is the same, the result is not
            self.schedule(other, self.debounce)

    def forget(self, uri: str) -> None:
        st = self.states.pop(uri, None)
        if st is not None:
            if st.timer is not None:
                st.timer.cancel()
            self._wake(st)


def related_information(mode: str, supported: bool, client: lsp.ClientInfo | None) -> bool:
    """Send the secondary labels of a diagnostic as ``relatedInformation``
    (True) or as ``file:line:col: text`` lines at the end of its message.

    ``auto``: relatedInformation when the client announces support for it,
    except Neovim before 0.12, which announces it but does not show it;
    ``message``: always in the message; ``related``: whenever announced."""
    if mode == "message" or not supported:
        return False
    if mode == "related":
        return True
    if client is not None and client.name == "Neovim":
        m = re.match(r"v?(\d+)\.(\d+)", client.version or "")
        return m is not None and (int(m[1]), int(m[2])) >= (0, 12)
    return True


def create_server(debounce: float = DEBOUNCE) -> DslcServer:
    server = DslcServer(debounce=debounce)

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: DslcServer, params: lsp.InitializeParams) -> None:
        ls.configure(params)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: DslcServer, params: lsp.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.forget(doc.uri)
        ls.documents.open(doc.uri, doc.text, doc.version)
        ls.schedule(doc.uri, 0)
        ls.imported_changed(doc.uri, doc.text)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: DslcServer, params: DidChange) -> None:
        uri = params.uri
        if ls.documents.change(uri, params.version, params.changes) is None:
            log.warning("ignored a change of %s, which is not open", uri)
            return
        ls.schedule(uri, ls.debounce)
        ls.imported_changed(uri, ls.documents.get(uri).text)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
    def did_save(ls: DslcServer, params: lsp.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        doc = ls.documents.get(uri)
        if doc is None:
            return
        if params.text is not None and params.text != doc.text:
            ls.documents.change(uri, doc.version, [Change(params.text)])
        ls.schedule(uri, 0, republish=True)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: DslcServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.documents.close(uri)
        ls.forget(uri)
        ls.imported_changed(uri, None)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    @request_handler
    async def hover(ls: DslcServer, params: lsp.HoverParams) -> lsp.Hover | None:
        analysis = await ls.current(params.text_document.uri)
        return features.hover(analysis, params.position) if analysis else None

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @request_handler
    async def document_symbol(ls: DslcServer, params: lsp.DocumentSymbolParams):
        analysis = await ls.current(params.text_document.uri)
        if analysis is None:
            return None
        if len(analysis.extents) < 50:
            return features.document_symbols(analysis, hierarchical=ls.hierarchical_symbols)
        # thousands of blocks: build the tree and turn it into JSON values off the event loop

        def build() -> Unstructured:
            started = time.perf_counter()
            symbols = features.document_symbols(analysis, hierarchical=ls.hierarchical_symbols)
            values = Unstructured(ls.protocol.converter.unstructure(symbols))
            log.debug("documentSymbol: %d blocks in %.0f ms", len(analysis.extents),
                      (time.perf_counter() - started) * 1000)
            return values

        return await asyncio.wrap_future(ls.requests.submit(build))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    @request_handler
    async def definition(ls: DslcServer, params: lsp.DefinitionParams):
        analysis = await ls.current(params.text_document.uri)
        return features.definition(analysis, params.position) if analysis else None

    @server.command(lsp_graph.COMMAND)
    async def show_graph(ls: DslcServer, *args):
        return await lsp_graph.show_graph(ls, args)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: DslcServer, params: None) -> None:
        for uri in list(ls.states):
            ls.forget(uri)

    return server


def serve(debounce: float = DEBOUNCE) -> int:
    """Run the server over stdin/stdout until the client exits.  Returns the
    exit status the protocol asks for: 0 after ``shutdown``, 1 otherwise
    (``exit`` without ``shutdown``, or the client closed the connection)."""
    server = create_server(debounce)
    server.start_io()
    protocol = server.protocol
    if protocol.exit_code is not None:
        return protocol.exit_code
    return 0 if protocol.shut_down else 1
