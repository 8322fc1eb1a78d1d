"""Offsets <-> protocol positions (UTF-16 by default) and incremental edits,
against a slow literal implementation of the LSP rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types as lsp

from dslc.diagnostics.render.lsp import UTF8, UTF16, UTF32, PositionEncoder
from dslc.lsp.documents import Change, Document, uri_to_path

# BMP symbols of the language, astral characters (emoji, a math letter), line breaks.
ALPHABET = st.sampled_from(list("ab x{}") + ["ε", "⊤", "≥", "→", "′", "😀", "𝜀", "🦀", "\n", "\r", "\r\n", "\t"])
TEXTS = st.lists(ALPHABET, max_size=40).map("".join)


def units(ch: str, encoding: str) -> int:
    if encoding == UTF8:
        return len(ch.encode("utf-8"))
    if encoding == UTF16:
        return 2 if ord(ch) > 0xFFFF else 1
    return 1


def literal_position(text: str, offset: int, encoding: str) -> tuple[int, int]:
    """Walk the text character by character (the definition)."""
    line = col = 0
    i = 0
    while i < offset:
        ch = text[i]
        if ch == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            if i + 1 == offset:            # between \r and \n: end of the line
                return line, col
            line, col = line + 1, 0
            i += 2
            continue
        if ch in "\r\n":
            line, col = line + 1, 0
        else:
            col += units(ch, encoding)
        i += 1
    return line, col


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data(), st.sampled_from([UTF8, UTF16, UTF32]))
def test_position_matches_literal(text, data, encoding):
    enc = PositionEncoder(text, encoding)
    offset = data.draw(st.integers(0, len(text)))
    pos = enc.position(offset)
    assert (pos.line, pos.character) == literal_position(text, offset, encoding)


@settings(max_examples=300, deadline=None)
@given(TEXTS, st.data(), st.sampled_from([UTF8, UTF16, UTF32]))
def test_offset_inverts_position(text, data, encoding):
    enc = PositionEncoder(text, encoding)
    offset = data.draw(st.integers(0, len(text)))
    back = enc.offset(enc.position(offset))
    inside_crlf = 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n"
    assert back == (offset - 1 if inside_crlf else offset)


def test_bmp_symbols_count_one_unit_and_emoji_two():
    text = "ε ⊤ ≥ x\n// 😀 ε x"
    enc = PositionEncoder(text)
    # `x` after three BMP symbols: column 6 in every encoding but UTF-8
    assert enc.position(6) == lsp.Position(0, 6)
    # `x` on line 2 after an emoji (2 UTF-16 units) and ε (1)
    x = text.rindex("x")
    assert enc.position(x) == lsp.Position(1, 8)
    assert enc.offset(lsp.Position(1, 8)) == x
    # UTF-8: ε is 2 bytes, the emoji 4
    assert PositionEncoder(text, UTF8).position(x) == lsp.Position(1, 11)
    # a column inside the surrogate pair lands on the emoji itself
    emoji = text.index("😀")
    assert enc.offset(lsp.Position(1, 4)) == emoji
    assert enc.offset(lsp.Position(1, 3)) == emoji


def test_out_of_range_positions_clamp():
    enc = PositionEncoder("ab\ncd")
    assert enc.offset(lsp.Position(0, 99)) == 2
    assert enc.offset(lsp.Position(7, 0)) == 5
    assert enc.position(99) == lsp.Position(1, 2)


def literal_offset(text: str, line: int, character: int, encoding: str) -> int:
    for offset in range(len(text) + 1):
        if literal_position(text, offset, encoding) == (line, character):
            return offset
    raise AssertionError("position not in the text")


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.data())
def test_incremental_edit_matches_splice(text, data):
    """A ranged change replaces exactly the characters between its two positions."""
    doc = Document("file:///t.dp", text)
    a = data.draw(st.integers(0, len(text)))
    b = data.draw(st.integers(a, len(text)))
    # positions from the literal walker; skip offsets inside \r\n (no position names them)
    for o in (a, b):
        if 0 < o < len(text) and text[o - 1] == "\r" and text[o] == "\n":
            return
    new = data.draw(TEXTS)
    sa, sb = literal_position(text, a, UTF16), literal_position(text, b, UTF16)
    doc.apply(Change(new, sa, sb))
    assert doc.text == text[:a] + new + text[b:]
    assert literal_offset(text, *sa, UTF16) == a


def test_whole_document_change():
    doc = Document("file:///t.dp", "old")
    doc.apply(Change("new ε"))
    assert doc.text == "new ε"


def test_uri_to_path():
    assert uri_to_path("file:///tmp/a%20b/c.dp") == "/tmp/a b/c.dp"
    assert uri_to_path("untitled:Untitled-1") == "untitled:Untitled-1"


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 8), TEXTS), max_size=6))
def test_edit_sequences_keep_the_line_list_consistent(text, edits):
    """After any sequence of ranged edits the document equals the literal
    splices, and its lines are exactly the protocol lines of its text."""
    from dslc.lsp.documents import split_lines

    doc = Document("file:///t.dp", text)
    for start, length, new in edits:
        a = start % (len(text) + 1)
        b = min(len(text), a + length)
        a, b = [o + 1 if 0 < o < len(text) and text[o - 1] == "\r" and text[o] == "\n" else o
                for o in (a, b)]
        doc.apply(Change(new, literal_position(text, a, UTF16), literal_position(text, b, UTF16)))
        text = text[:a] + new + text[b:]
        assert doc.text == text
        assert doc.lines == split_lines(text)
        assert "".join(doc.lines) == text
