"""`dslc lsp` on the error paths of the LSP specification, over real stdio
with a raw JSON-RPC client (so that it can send what a well-behaved client
library refuses to): invalid params get an error response, never silence;
requests before `initialize` and after `shutdown` get the errors the
specification names; `exit` sets the exit status; every error is one line
in the log.  No sleeps: every wait is for a message or for the process."""

from __future__ import annotations

import itertools
import json
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "examples" / "sorted_desc.dp"
GUARD = 60.0          # against a hung server; not a timing assertion

INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, NOT_INITIALIZED = -32600, -32601, -32602, -32002
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (WARNING|ERROR|CRITICAL) [\w.]+: \S.*$")


class RawClient:
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
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
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


@pytest.fixture
def client(tmp_path):
    c = RawClient(tmp_path)
    yield c
    c.close()


def error_code(response: dict) -> int | None:
    assert ("result" in response) != ("error" in response), response
    return response["error"]["code"] if "error" in response else None


def hover(uri: str, line, character) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}


def test_invalid_params_get_an_error_response_and_one_log_line(client: RawClient):
    client.initialize()
    uri = SORTED.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "dp", "version": 1, "text": SORTED.read_text(encoding="utf-8")}})

    bad = [
        ("textDocument/hover", hover(uri, -1, 0), "line"),
        ("textDocument/hover", hover(uri, 0, -5), "character"),
        ("textDocument/hover", hover(uri, "one", 0), "line"),
        ("textDocument/hover", {"position": {"line": 0, "character": 0}}, "textDocument"),
        ("textDocument/hover", "not an object", "hover"),
        ("textDocument/definition", hover(uri, 2**40, 0), "line"),
        ("textDocument/documentSymbol", {"textDocument": {}}, "uri"),
    ]
    for method, params, mentioned in bad:
        response = client.request(method, params)
        assert error_code(response) == INVALID_PARAMS, (method, params, response)
        message = response["error"]["message"]
        assert mentioned in message and "Traceback" not in message and "\n" not in message
        assert "data" not in response["error"] or "traceback" not in json.dumps(response["error"]["data"])

    # a notification with invalid params cannot be answered: it is dropped
    client.notify("textDocument/didOpen", {"textDocument": {"uri": "file:///no-text.dp", "version": 1}})
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri}, "contentChanges": "x"})

    # the spec allows null for these: unknown document, positions past the end
    assert client.request("textDocument/hover", hover("file:///not-open.dp", 0, 0))["result"] is None
    assert client.request("textDocument/definition", hover("file:///not-open.dp", 0, 0))["result"] is None
    assert client.request("textDocument/documentSymbol",
                          {"textDocument": {"uri": "file:///not-open.dp"}})["result"] is None
    assert client.request("textDocument/hover", hover(uri, 100000, 100000))["result"] is None
    assert client.request("textDocument/hover", hover("untitled:never", 3, 2**31 - 1))["result"] is None
    # an unknown method
    assert error_code(client.request("dslc/noSuchMethod", {})) == METHOD_NOT_FOUND
    # and the server still works: the real document was opened and is checked
    name = hover(uri, SORTED.read_text(encoding="utf-8").split("\n").index(
        next(l for l in SORTED.read_text(encoding="utf-8").split("\n") if l.startswith("mechanism"))), 12)
    value = client.request("textDocument/hover", name)["result"]["contents"]["value"]
    assert value.startswith("**mechanism** `sorted_desc` — ✗ not private")

    assert client.request("shutdown")["result"] is None
    client.notify("exit")
    assert client.wait() == 0

    lines = client.log_lines()
    assert lines and all(LOG_LINE.match(line) for line in lines), lines
    assert not any("Traceback" in line for line in lines)
    # one line per invalid message: 7 requests and 2 notifications
    assert sum("invalid params" in line for line in lines) == len(bad) + 2, lines


def test_requests_after_shutdown_get_invalid_request(client: RawClient):
    client.initialize()
    assert client.request("shutdown")["result"] is None
    response = client.request("textDocument/hover", hover("file:///x.dp", 0, 0))
    assert error_code(response) == INVALID_REQUEST and "shut down" in response["error"]["message"]
    assert error_code(client.request("textDocument/documentSymbol", {"textDocument": {"uri": "file:///x.dp"}})) \
        == INVALID_REQUEST
    assert error_code(client.request("shutdown")) == INVALID_REQUEST
    client.notify("exit")
    assert client.wait() == 0


def test_exit_without_shutdown_exits_with_1(client: RawClient):
    client.initialize()
    client.notify("exit")
    assert client.wait() == 1


def test_closed_connection_without_shutdown_exits_with_1(client: RawClient):
    client.initialize()
    client.proc.stdin.close()
    assert client.wait() == 1


def test_requests_before_initialize_get_server_not_initialized(client: RawClient):
    response = client.request("textDocument/hover", hover("file:///x.dp", 0, 0))
    assert error_code(response) == NOT_INITIALIZED
    client.initialize()
    assert client.request("textDocument/hover", hover("file:///x.dp", 0, 0))["result"] is None
    client.request("shutdown")
    client.notify("exit")
    assert client.wait() == 0
