"""Robustness of `dslc lsp` over stdio: a long session of random edits, and a
5 MB document that must not hold up other requests."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from dslc.pipeline import check_source
from dslc.source import SourceFile
from tests.test_lsp_support import capabilities, change, config, open_doc, save, utf16_position, wait_diagnostics

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

pytestmark = pytest.mark.asyncio


@pytest_lsp.fixture(config=config())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=capabilities()))
    yield
    await lsp_client.shutdown_session()


# Pieces of `.dp` text (and of broken text) the random edits insert.
TOKENS = ["automaton", "mechanism", "state", "q0", "q1", "q2", "x", "s", "{", "}", "(", ")", " ",
          "\n", "\r\n", ";", "Lap(ε/4, 0)", "Lap(ε, read())", "insample", "insample'", "<", ">=", "≥",
          "->", "→", "output", "⊤", "⊥", "store", "x := s", "loop {", "if s < x {", "} else {", "halt",
          "break", "read()", "input", "noinput", "true", "//", "/*", "*/", "😀", "🦀", "ε", "\"",
          "0", "1/2", "-", "2/ε", "output ⊥; x := s"]


def utf16_offset(text: str, pos: lsp.Position) -> int:
    """Offset of a protocol position, by walking the text (lines at \\n, \\r\\n, \\r)."""
    line = col = 0
    i = 0
    while i < len(text):
        if line == pos.line and col >= pos.character:
            return i
        ch = text[i]
        if ch in "\r\n":
            if line == pos.line:
                return i
            i += 2 if text.startswith("\r\n", i) else 1
            line, col = line + 1, 0
            continue
        col += 2 if ord(ch) > 0xFFFF else 1
        i += 1
    return len(text)


def random_offset(rnd: random.Random, text: str) -> int:
    o = rnd.randint(0, len(text))
    if 0 < o < len(text) and text[o - 1] == "\r" and text[o] == "\n":
        o += 1                       # editors never address the middle of a line break
    return o


def random_edit(rnd: random.Random, text: str) -> tuple[int, int, str] | None:
    """(start, end, new) in character offsets; None for a whole-document replacement."""
    roll = rnd.random()
    if roll < 0.01:
        return None
    a = random_offset(rnd, text)
    if roll < 0.35:                  # delete a few characters
        b = min(len(text), a + rnd.randint(1, 12))
        if 0 < b < len(text) and text[b - 1] == "\r" and text[b] == "\n":
            b += 1
        return a, b, ""
    new = "".join(rnd.choice(TOKENS) for _ in range(rnd.randint(1, 3)))
    if roll < 0.6:                   # replace a few characters
        b = min(len(text), a + rnd.randint(1, 6))
        if 0 < b < len(text) and text[b - 1] == "\r" and text[b] == "\n":
            b += 1
        return a, b, new
    return a, a, new                 # insert


def norm(text: str, o: int) -> int:
    """No protocol position lies between \\r and \\n: such an offset means the end of its line."""
    return o - 1 if 0 < o < len(text) and text[o - 1] == "\r" and text[o] == "\n" else o


def fingerprint_spans(text: str, diags) -> list[tuple]:
    """(code, message, start, end, related) of the driver's diagnostics."""
    out = []
    for d in diags:
        start, end = (d.span.start, d.span.end) if d.span else (0, 0)
        related = tuple((norm(text, lab.span.start), norm(text, lab.span.end), lab.message or "related location")
                        for lab in d.related)
        out.append((d.code, d.message, norm(text, start), norm(text, end), related))
    return sorted(out)


def fingerprint_lsp(text: str, diags) -> list[tuple]:
    out = []
    for d in diags:
        related = tuple((utf16_offset(text, r.location.range.start), utf16_offset(text, r.location.range.end),
                         r.message) for r in d.related_information or ())
        out.append((d.code, d.message.split("\n")[0], utf16_offset(text, d.range.start),
                    utf16_offset(text, d.range.end), related))
    return sorted(out)


def fingerprint_json(text: str, run: dict) -> list[tuple]:
    src = SourceFile("t.dp", text)

    def offsets(span):
        return (norm(text, src.offset(span["line"], span["column"])),
                norm(text, src.offset(span["end_line"], span["end_column"])))

    out = []
    [f] = run["files"]
    for d in f["diagnostics"] + [d for b in f["blocks"] for d in b["diagnostics"]]:
        related = tuple((*offsets(r["span"]), r["message"] or "related location") for r in d["related"])
        start, end = offsets(d["span"]) if d["span"] else (0, 0)
        out.append((d["code"], d["message"], start, end, related))
    return sorted(out)


async def test_thousand_random_edits_end_alive_and_agree_with_dslc_check(client: LanguageClient, tmp_path):
    rnd = random.Random(20240605)
    valid = [(EXAMPLES / name).read_text(encoding="utf-8")
             for name in ("sorted_desc.dp", "svt.dp", "svt_star.dp", "numeric_sparse_mod.dp")]
    path = tmp_path / "random.dp"
    uri = path.as_uri()
    text = valid[0] + "\n" + valid[1]
    open_doc(client, uri, text)
    await wait_diagnostics(client, uri, 1)
    ident = lsp.TextDocumentIdentifier(uri)
    kinds = set()
    for version in range(2, 1002):
        edit = random_edit(rnd, text)
        if edit is None:
            text = rnd.choice(valid)
            change(client, uri, version, None, text)
        else:
            a, b, new = edit
            change(client, uri, version, lsp.Range(utf16_position(text, a), utf16_position(text, b)), new)
            text = text[:a] + new + text[b:]
        if version % 50 == 0:
            # a save checks at once; the published result must be a fresh check of our text
            save(client, uri)
            published = await wait_diagnostics(client, uri, version)
            expected = check_source(SourceFile(str(path), text))
            assert fingerprint_lsp(text, published.diagnostics) == \
                fingerprint_spans(text, expected.all_diagnostics), f"after edit {version}"
            kinds |= {d.code for d in expected.all_diagnostics} | {b.verdict.value for b in expected.blocks}
        if version % 100 == 25:
            pos = utf16_position(text, random_offset(rnd, text))
            await client.text_document_hover_async(lsp.HoverParams(ident, pos))
            await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(ident))
            await client.text_document_definition_async(lsp.DefinitionParams(ident, pos))
    # the session went through broken and checkable states
    assert any(k.startswith("E0") for k in kinds) and kinds & {"private", "not-private"}

    final = await wait_diagnostics(client, uri, 1001)
    path.write_text(text, encoding="utf-8", newline="")
    cli = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", str(path)],
                         capture_output=True, text=True, encoding="utf-8")
    assert cli.returncode in (0, 1, 2) and not cli.stderr
    assert fingerprint_lsp(text, final.diagnostics) == fingerprint_json(text, json.loads(cli.stdout))
    hover = await client.text_document_hover_async(lsp.HoverParams(ident, lsp.Position(0, 0)))
    assert hover is None or hover.contents.value


def five_megabytes() -> str:
    base = (EXAMPLES / "svt.dp").read_text(encoding="utf-8")
    parts, size, i = [], 0, 0
    while size < 5_000_000:
        part = base.replace("svt_automaton", f"a{i}").replace("mechanism svt(", f"mechanism m{i}(")
        parts.append(part)
        size += len(part.encode("utf-8"))
        i += 1
    return "".join(parts)


async def test_five_megabyte_document_does_not_hold_up_requests(client: LanguageClient, tmp_path):
    """Keystrokes in a 5 MB document (whose check takes seconds) are accepted
    and other requests answered while the check runs in the background.
    (Latencies are measured by benchmarks/bench_lsp.py.)"""
    small = (tmp_path / "small.dp").as_uri()
    small_text = (EXAMPLES / "svt.dp").read_text(encoding="utf-8")
    open_doc(client, small, small_text)
    await wait_diagnostics(client, small, 1)

    big = (tmp_path / "big.dp").as_uri()
    big_text = five_megabytes()
    open_doc(client, big, big_text)
    line = big_text[:big_text.index("// the next query answer")].count("\n")
    for version in range(2, 22):                   # typing in a comment of the first block
        change(client, big, version, lsp.Range(lsp.Position(line, 20), lsp.Position(line, 20)), "x")
    ident = lsp.TextDocumentIdentifier(small)
    name = utf16_position(small_text, small_text.index("svt("))
    for _ in range(3):
        hover = await client.text_document_hover_async(lsp.HoverParams(ident, name))
        assert hover.contents.value.startswith("**mechanism** `svt` — ✓ private")
        symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(ident))
        assert [s.name for s in symbols] == ["svt", "svt_automaton"]
    # answered while the big document's check was still running
    assert big not in {p.uri for p in client.published}
