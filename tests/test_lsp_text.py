"""The language server's own copy of a document: edits are applied with the
protocol's line ends (`\\n`, `\\r\\n`, `\\r` only) and UTF-16 columns, clamped as
the specification says, from params read straight from the JSON values.

A property test compares `Document` with a literal reference of the
specification; the server tests send the edits that pygls' own change
handler used to move (after a form feed, U+0085, U+2028, past the end of a
last line without a line break) to the real server over stdio, and compare
what it publishes with a check of the reference text."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pygls.protocol import default_converter

from dslc.lsp.analysis import analyse
from dslc.lsp.documents import (Change, Document, InvalidChange, parse_change, parse_did_change, split_lines,
                                uri_to_path)
from tests.test_lsp_support import RawClient

# ------------------------------------------------------------------ reference

BREAKS = ("\r\n", "\n", "\r")


def reference_lines(text: str) -> list[tuple[str, str]]:
    """The specification, literally: (content, line end) of every line; a
    line ends at `\\r\\n`, `\\n` or `\\r` and nowhere else."""
    lines, content, i = [], "", 0
    while i < len(text):
        for brk in BREAKS:
            if text.startswith(brk, i):
                lines.append((content, brk))
                content, i = "", i + len(brk)
                break
        else:
            content += text[i]
            i += 1
    lines.append((content, ""))
    return lines


def reference_offset(text: str, line: int, character: int) -> int:
    """The offset of a position: a line past the last is the end of the
    document; a column counts UTF-16 code units, one past the end of the line
    is the end of the line, one inside a character (half of a surrogate
    pair) is that character's start."""
    lines = reference_lines(text)
    if line >= len(lines):
        return len(text)
    offset = sum(len(c) + len(b) for c, b in lines[:line])
    units = 0
    for ch in lines[line][0]:
        units += 2 if ord(ch) > 0xFFFF else 1
        if units > character:
            break
        offset += 1
    return offset


def reference_apply(text: str, change: Change) -> str:
    if change.start is None:
        return change.text
    a, b = sorted((reference_offset(text, *change.start), reference_offset(text, *change.end)))
    return text[:a] + change.text + text[b:]


# Characters that Python's str.splitlines takes for line ends and the protocol does not,
# the three protocol line ends, astral characters (two UTF-16 units) and BMP ones.
ODD_BREAKS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
ALPHABET = st.sampled_from(["a", "b", " ", "{", "}", "ε", "≥", "😀", "𝜀", "\n", "\r", "\r\n", *ODD_BREAKS])
TEXTS = st.lists(ALPHABET, max_size=30).map("".join)


@st.composite
def changes(draw, text: str) -> Change:
    if draw(st.integers(0, 15)) == 0:
        return Change(draw(TEXTS))
    lines = len(reference_lines(text))
    longest = max(len(c) * 2 for c, _ in reference_lines(text))

    def position():
        return (draw(st.integers(0, lines + 1)), draw(st.integers(0, longest + 2)))
    return Change(draw(TEXTS), position(), position())


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data())
def test_random_edit_sequences_match_the_reference(text, data):
    doc = Document("file:///t.dp", text)
    for _ in range(data.draw(st.integers(1, 6))):
        change = data.draw(changes(text))
        doc.apply(change)
        text = reference_apply(text, change)
        assert doc.text == text
        assert doc.lines == ["".join(line) for line in reference_lines(text)]


def test_the_reference_keeps_odd_breaks_inside_their_line():
    text = "// a\fb\x85c\u2028d\u2029e\n"
    assert reference_lines(text) == [("// a\fb\x85c\u2028d\u2029e", "\n"), ("", "")]
    assert split_lines(text) == [text, ""]
    assert reference_offset(text, 0, 100) == len(text) - 1
    assert reference_offset("a😀b", 0, 2) == 1 and reference_offset("a😀b", 0, 3) == 2


def test_positions_clamp_as_the_specification_says():
    doc = Document("file:///t.dp", "ab\r\ncd")
    doc.apply(Change("X", (0, 99), (0, 99)))          # past the end of a line: its end, not the next line
    assert doc.text == "abX\r\ncd"
    doc.apply(Change("Y", (7, 0), (9, 3)))            # past the last line: the end of the document
    assert doc.text == "abX\r\ncdY"
    doc.apply(Change("Z", (1, 5), (1, 5)))            # past the end of a last line without a break
    assert doc.text == "abX\r\ncdYZ"
    doc.apply(Change("", (1, 1), (0, 1)))             # end before start: taken in text order
    assert doc.text == "adYZ"


def test_a_change_is_immutable():
    change = Change("x", (0, 1), (0, 2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        change.start = (0, 0)


# -------------------------------------------------------- reading the params

def test_did_change_params_are_read_from_json_values():
    params = {"textDocument": {"uri": "file:///a.dp", "version": 3},
              "contentChanges": [{"range": {"start": {"line": 1, "character": 2},
                                            "end": {"line": 1, "character": 4}},
                                  "rangeLength": 2, "text": "ε"},
                                 {"text": "whole"}]}
    got = parse_did_change(params)
    assert got.uri == "file:///a.dp" and got.version == 3
    assert got.changes == (Change("ε", (1, 2), (1, 4)), Change("whole"))


@pytest.mark.parametrize("params, field", [
    ("x", "$.params should be an object"),
    ({"contentChanges": []}, "$.params.textDocument is missing"),
    ({"textDocument": {"uri": 1, "version": 1}, "contentChanges": []}, "$.params.textDocument.uri"),
    ({"textDocument": {"uri": "u", "version": True}, "contentChanges": []}, "$.params.textDocument.version"),
    ({"textDocument": {"uri": "u", "version": 2**31}, "contentChanges": []}, "$.params.textDocument.version"),
    ({"textDocument": {"uri": "u", "version": 1}, "contentChanges": "x"}, "$.params.contentChanges should be an array"),
    ({"textDocument": {"uri": "u", "version": 1}, "contentChanges": [{}]}, "$.params.contentChanges[0].text is missing"),
    ({"textDocument": {"uri": "u", "version": 1}, "contentChanges": [{"text": "a"}, {"text": 5}]},
     "$.params.contentChanges[1].text should be a string"),
])
def test_invalid_did_change_params_name_their_field(params, field):
    with pytest.raises(InvalidChange, match=None) as info:
        parse_did_change(params)
    assert field in str(info.value)


@pytest.mark.parametrize("value", [-1, 2**31, 1.0, "1", None, True])
def test_positions_are_unsigned_31_bit_integers(value):
    event = {"range": {"start": {"line": 0, "character": value}, "end": {"line": 0, "character": 0}}, "text": ""}
    with pytest.raises(InvalidChange, match=r"\$\.range\.start\.character should be an integer in \[0:2147483647\]"):
        parse_change(event)
    event = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": value, "character": 0}}, "text": ""}
    with pytest.raises(InvalidChange, match=r"\$\.range\.end\.line"):
        parse_change(event)


def test_a_null_range_is_not_a_whole_document_change():
    with pytest.raises(InvalidChange, match=r"\$\.range should be an object, but was null"):
        parse_change({"range": None, "text": "x"})


# ------------------------------------------------------------ the real server

VALID = "mechanism m { x := Lap(ε, read()); output ⊥ }"
ANOTHER = "mechanism n { x := Lap(ε, read()); output ⊥ }"


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


# (name, text, change, valid after the change).  The first five are edits
# that pygls' change handler moved before the server applied them (E007 or
# E002 where the text is valid).
SCENARIOS = [
    ("form feed", f"{VALID} // a\fb\n", Change(f"\n{ANOTHER}", (0, units(VALID) + 7), (0, units(VALID) + 7)), True),
    ("U+0085", f"{VALID} // a\x85b\n", Change(f"\n{ANOTHER}", (0, units(VALID) + 7), (0, units(VALID) + 7)), True),
    ("U+2028", f"{VALID} // a\u2028b\n", Change(f"\n{ANOTHER}", (0, units(VALID) + 7), (0, units(VALID) + 7)), True),
    ("U+2028, a range", f"{VALID} // a\u2028b\nstray", Change(f"\n{ANOTHER}", (0, units(VALID) + 7), (1, 5)), True),
    ("past the end of a last line", VALID, Change(f"\n{ANOTHER}", (0, 10_000), (0, 10_000)), True),
    ("past the last line", f"{VALID}\n", Change(ANOTHER, (5, 3), (9, 0)), True),
    ("CRLF", f"// x\r\n{VALID}\r\n// y", Change(f"\r\n{ANOTHER}", (1, units(VALID)), (1, units(VALID))), True),
    ("CR", f"// x\r{VALID}\r// y\r", Change(f"\r{ANOTHER}", (1, units(VALID)), (2, 4)), True),
    ("CR then LF join into one line end", f"{VALID} //\rstray", Change("\n", (1, 0), (1, 5)), True),
    ("surrogate pairs, end of line", f"{VALID} // 😀😀\n",
     Change(f"\n{ANOTHER}", (0, units(f"{VALID} // 😀😀")), (0, units(f"{VALID} // 😀😀"))), True),
    # columns counted in code points would put the break after `b`, in a comment
    ("surrogate pairs, stray text", f"// 😀😀ab\n{VALID}", Change("\n", (0, units("// 😀😀")), (0, units("// 😀😀a"))), False),
    ("inside a surrogate pair", f"// 😀b\n{VALID}", Change("\n", (0, 4), (0, 6)), True),
]


def published(client: RawClient, uri: str, version: int) -> list[dict]:
    """The diagnostics published for ``uri`` at ``version``: a documentSymbol
    request waits for the check of the current text, whose diagnostics are
    published before the answer."""
    client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    for n in reversed(client.notifications):
        if (n.get("method") == "textDocument/publishDiagnostics" and n["params"]["uri"] == uri
                and n["params"].get("version") == version):
            return n["params"]["diagnostics"]
    raise AssertionError(f"nothing published for {uri} at version {version}")


def expected(uri: str, text: str) -> list[dict]:
    """What a check of ``text`` publishes (the client announced no capabilities)."""
    analysis = analyse(uri, uri_to_path(uri), text, 1, 1, related_information=False, tags=False)
    return json.loads(json.dumps(default_converter().unstructure(analysis.diagnostics)))


def test_the_server_applies_edits_where_the_protocol_puts_them(tmp_path):
    client = RawClient(tmp_path)
    try:
        client.initialize()
        for i, (name, text, change, valid) in enumerate(SCENARIOS):
            uri = f"file:///scenario{i}.dp"
            client.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "dp", "version": 1, "text": text}})
            event = {"text": change.text}
            if change.start is not None:
                event["range"] = {"start": dict(zip(("line", "character"), change.start)),
                                  "end": dict(zip(("line", "character"), change.end))}
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                     "contentChanges": [event]})
            after = reference_apply(text, change)
            got = published(client, uri, 2)
            assert got == expected(uri, after), name
            assert (got == []) == valid, (name, after, got)
        # a change list with one invalid change is dropped whole
        uri = "file:///scenario0.dp"
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [
            {"text": "stray"},
            {"range": {"start": {"line": -1, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ""}]})
        assert published(client, uri, 2) == []
        assert not any(n["params"].get("version") == 3 for n in client.notifications
                       if n.get("method") == "textDocument/publishDiagnostics")
        assert client.request("shutdown")["result"] is None
        client.notify("exit")
        assert client.wait() == 0
        [line] = client.log_lines()
        assert line.endswith("WARNING dslc.lsp.server: invalid params for textDocument/didChange: "
                             "$.params.contentChanges[1].range.start.line should be an integer in "
                             "[0:2147483647], but was -1")
    finally:
        client.close()
