"""`dslc lsp` on the error paths of the LSP specification, over real stdio
with a raw JSON-RPC client (so that it can send what a well-behaved client
library refuses to): invalid params get an error response, never silence;
requests before `initialize` and after `shutdown` get the errors the
specification names; `exit` sets the exit status; every error is one line
in the log.  No sleeps: every wait is for a message or for the process."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.test_lsp_support import RawClient

ROOT = Path(__file__).resolve().parent.parent
SORTED = ROOT / "examples" / "sorted_desc.dp"

INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, NOT_INITIALIZED = -32600, -32601, -32602, -32002
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (WARNING|ERROR|CRITICAL) [\w.]+: \S.*$")


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
