"""The language server's message framing: header names in any case, bounded
message sizes, and every framing error logged (answered where a request id
is known), never fatal and never losing the messages after it.

`Framer` is tested on byte strings (and a property test on random streams of
good and bad messages); the server is tested over real stdio with the probes
that used to end it (Content-Length 10^14 and 10^19) or silence it (a
lower-case header)."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dslc.limits import MAX_MESSAGE_BYTES
from dslc.lsp.framing import Framer, Problem
from tests.test_lsp_support import RawClient

PARSE_ERROR, INVALID_REQUEST = -32700, -32600


def events(data: bytes, **kwargs) -> list:
    framer = Framer(io.BufferedReader(io.BytesIO(data)), **kwargs)
    out = []
    while (event := framer.next()) is not None:
        out.append(bytes(event) if isinstance(event, (bytes, bytearray)) else event)
    return out


def frame(body: bytes, name: bytes = b"Content-Length", end: bytes = b"\r\n", extra: bytes = b"") -> bytes:
    return extra + name + b": %d" % len(body) + end + end + body


BODY = b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}'


def problems(out: list) -> list[str]:
    return [e.text for e in out if isinstance(e, Problem)]


def test_header_names_in_any_case_and_other_headers():
    data = (frame(BODY, b"content-length") + frame(BODY, b"CONTENT-LENGTH") + frame(BODY, b"Content-length", b"\n")
            + frame(BODY, extra=b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n")
            + b"Content-Length:%d\r\nX-Other: 1\r\n\r\n" % len(BODY) + BODY)
    assert events(data) == [BODY] * 5


@pytest.mark.parametrize("value, why", [
    (b"100000000000000", "above the limit"),
    (b"10000000000000000000", "above the limit"),
    (b"%d" % (MAX_MESSAGE_BYTES + 1), "above the limit"),
    (b"-5", "is not a number"),
    (b"12abc", "is not a number"),
    (b"1" * 5000, "is not a number"),
    (b"", "is not a number"),
])
def test_a_bad_content_length_drops_its_message_and_the_next_one_is_read(value, why):
    data = b"Content-Length: " + value + b"\r\n\r\n" + BODY + frame(BODY)
    out = events(data)
    assert out[-1] == BODY and BODY not in out[:-1]
    assert why in problems(out)[0] and problems(out)[0].startswith("dropped a message")
    assert "skipped" in problems(out)[1]


def test_other_framing_errors():
    cases = {
        b"Content-Length: 5\r\nContent-Length: 6\r\n\r\n": "two different Content-Length",
        b"Content-Type: x\r\n\r\n": "without Content-Length",
        b"Content-Length: 5\r\nno header here\r\n\r\n": "no `Name: value` header",
        b"garbage line\r\n": "skipped 14 bytes",
    }
    for head, why in cases.items():
        out = events(head + frame(BODY))
        assert out[-1] == BODY and any(why in p for p in problems(out)), (head, out)
    # the same Content-Length twice is no error; blank lines between messages are skipped
    assert events(b"Content-Length: 2\r\ncontent-length: 2\r\n\r\n{}\r\n\r\n" + frame(BODY)) == [b"{}", BODY]


def test_a_header_glued_to_an_unread_body_is_found():
    # the body of a dropped message has no line break: the next header follows it on its line
    data = b"Content-Length: abc\r\n\r\n" + b'{"text": "Content-Length: 3"}' + frame(BODY, b"content-length")
    out = events(data)
    assert out[-1] == BODY and len(problems(out)) == 2


def test_an_overlong_header_line_is_skipped_in_bounded_pieces():
    junk = b"x" * 3_000_000          # one line of 3 MB, then a header glued to it
    out = events(junk + frame(BODY), max_line=64)
    assert out == [Problem(f"skipped {len(junk)} bytes that are no message"), BODY]
    out = events(b"X-Long: " + junk + b"\r\n" + frame(BODY), max_line=64)
    assert out[-1] == BODY


def test_the_end_of_the_stream():
    assert events(b"") == []
    assert problems(events(b"Content-Length: 10\r\n\r\n{}")) == ["the connection ended inside a message (2 of 10 bytes)"]
    assert problems(events(b"Content-Length: 10\r\n")) == ["the connection ended inside a message header"]


class OutOfMemory(io.BytesIO):
    """A stream whose ``fail``-th read of a body fails as if memory ran out:
    in the read itself, or (``after``) once the piece was read."""

    def __init__(self, data: bytes, fail: int, after: bool):
        super().__init__(data)
        self.fail, self.after = fail, after

    def read(self, n=-1):
        self.fail -= 1
        if self.fail == 0 and not self.after:
            raise MemoryError
        piece = super().read(n)
        if self.fail == 0:
            return MemoryErrorOnAppend(piece)
        return piece


class MemoryErrorOnAppend(bytes):
    def __radd__(self, other):
        raise MemoryError


@pytest.mark.parametrize("fail", [1, 2, 3])
@pytest.mark.parametrize("after", [False, True])
def test_a_body_that_does_not_fit_in_memory_is_skipped(fail, after, monkeypatch):
    monkeypatch.setattr("dslc.lsp.framing.CHUNK", 2000)
    framer = Framer(OutOfMemory(frame(b"{" * 5000) + frame(BODY), fail, after))
    assert framer.next() == Problem("dropped a message of 5000 bytes: there is not enough memory to read it")
    assert framer.next() == BODY and framer.next() is None


def test_a_body_is_read_in_pieces():
    body = b'{"x": "' + b"y" * 3_000_000 + b'"}'
    assert events(frame(body) + frame(BODY)) == [body, BODY]


# A stream of good messages (random spelling of the header) and bad ones.
GOOD = st.builds(lambda name, end, text: frame(json.dumps({"jsonrpc": "2.0", "method": "m", "params": text}).encode(),
                                               name, end),
                 st.sampled_from([b"Content-Length", b"content-length", b"CONTENT-LENGTH", b"cOnTeNt-LeNgTh"]),
                 st.sampled_from([b"\r\n", b"\n"]),
                 st.text(max_size=20))
JUNK_BODY = st.binary(max_size=30).map(lambda b: b.replace(b":", b"").replace(b"\n", b"").replace(b"\r", b""))
BAD = st.one_of(
    st.builds(lambda n, body: b"Content-Length: %d\r\n\r\n" % n + body,
              st.sampled_from([10**14, 10**19, MAX_MESSAGE_BYTES + 1]), JUNK_BODY),
    st.builds(lambda v, body: b"Content-Length: " + v + b"\r\n\r\n" + body,
              st.sampled_from([b"-1", b"x", b"1e3", b"0x10"]), JUNK_BODY),
    st.builds(lambda body: body + b"\r\n", JUNK_BODY.filter(bool)),
    st.builds(lambda body: b"Content-Type: x\r\n\r\n" + body, JUNK_BODY),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), GOOD, BAD), max_size=8))
def test_every_good_message_after_bad_ones_is_read(items):
    data, want, bad = b"", [], 0
    for is_bad, good, junk in items:
        if is_bad:
            data += junk
            bad += 1
        data += good
        want.append(good[good.index(b"{"):])
    out = events(data)
    assert [e for e in out if not isinstance(e, Problem)] == want
    assert len(problems(out)) >= bad


# ------------------------------------------------------------ the real server

def hover() -> dict:
    return {"jsonrpc": "2.0", "method": "textDocument/hover",
            "params": {"textDocument": {"uri": "file:///none.dp"}, "position": {"line": 0, "character": 0}}}


def test_framing_errors_are_logged_and_the_server_goes_on(tmp_path):
    client = RawClient(tmp_path)
    try:
        client.initialize()
        request = json.dumps({**hover(), "id": 1000}).encode()
        client.send_raw(b"Content-Length: 100000000000000\r\n\r\n" + request)
        client.send_raw(b"Content-Length: 10000000000000000000\r\n\r\n" + request)
        client.send_raw(b"Content-Length: -4\r\n\r\n" + request)
        client.send_raw(b"Garbage header without a colon\r\n")
        # a lower-case header is a header: this request is answered
        body = json.dumps({**hover(), "id": 1001}).encode()
        client.send_raw(b"content-length: %d\r\ncontent-type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
                        % len(body) + body)
        # a body that is not JSON gets ParseError (id null); not JSON-RPC, InvalidRequest with its id
        client.send(b'{"jsonrpc": "2.0", "id": 1002, "method": ')
        client.send(b'{"id": 1003, "method": "textDocument/hover"}')
        client.send(b"[1, 2]")
        client.send(b"[" * 100_000)
        assert client.request("textDocument/hover", hover()["params"])["result"] is None
        answers = [m for m in client.notifications if "method" not in m]
        assert answers == [
            {"jsonrpc": "2.0", "id": 1001, "result": None},
            {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": answers[1]["error"]["message"]}},
            {"jsonrpc": "2.0", "id": 1003, "error": {"code": INVALID_REQUEST,
                                                     "message": "dropped a message that is not a JSON-RPC 2.0 message"}},
            {"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST,
                                                     "message": "dropped a message that is not a JSON object"}},
            {"jsonrpc": "2.0", "id": None, "error": {"code": PARSE_ERROR, "message": answers[4]["error"]["message"]}},
        ]
        assert client.request("shutdown")["result"] is None
        client.notify("exit")
        assert client.wait() == 0
        logged = [m["params"]["message"] for m in client.notifications if m.get("method") == "window/logMessage"]
        lines = client.log_lines()
        assert len(lines) == len(logged) and all(line.split(" ERROR dslc.lsp.server: ")[1] == m[len("dslc: "):]
                                                 for line, m in zip(lines, logged)), (lines, logged)
        text = "\n".join(lines)
        for said in ("Content-Length 100000000000000 is above the limit", "Content-Length 10000000000000000000 is",
                     "Content-Length '-4' is not a number", "is not JSON", "not a JSON-RPC 2.0 message"):
            assert said in text, said
        assert "Traceback" not in text and client.proc.stderr.read() == b""
    finally:
        client.close()
