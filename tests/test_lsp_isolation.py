"""A bug inside one block never hides the diagnostics of the others in the
language server (in process, on `analyse`)."""

from __future__ import annotations

import logging
from pathlib import Path

from lsprotocol import types as lsp

import dslc.pipeline
from dslc.lsp.analysis import analyse

ROOT = Path(__file__).resolve().parent.parent
SORTED = (ROOT / "examples" / "sorted_desc.dp").read_text(encoding="utf-8")
URI = "file:///doc.dp"


def test_a_failing_block_gets_its_own_diagnostic_and_the_others_keep_theirs(monkeypatch, caplog):
    real = dslc.pipeline.parse_block

    def parse(source, keyword, start, end, *args, **kwargs):
        if keyword == "mechanism":
            raise ValueError("a bug in the mechanism parser\nwith a second line")
        return real(source, keyword, start, end, *args, **kwargs)

    monkeypatch.setattr(dslc.pipeline, "parse_block", parse)
    with caplog.at_level(logging.ERROR, logger="dslc"):
        analysis = analyse(URI, "/doc.dp", SORTED, 1, 1)
    by_line = {d.range.start.line: d for d in analysis.diagnostics}
    mech_line = SORTED[:SORTED.index("mechanism sorted_desc")].count("\n")
    auto_store = SORTED.index("store", SORTED.index("insample < x"))
    auto_line = SORTED[:auto_store].count("\n")
    # the automaton block is checked as usual: its leaking cycle is there
    assert by_line[auto_line].code == "DP001"
    # the mechanism block: one located internal error, no traceback
    failed = by_line[mech_line]
    assert failed.severity == lsp.DiagnosticSeverity.Error
    assert "internal error" in failed.message and "ValueError: a bug in the mechanism parser" in failed.message
    assert "Traceback" not in failed.message and "with a second line" not in failed.message
    assert failed.range.start.character == len("mechanism ")
    assert len(analysis.diagnostics) == 2
    # hover and outline still work on the other block
    assert [e.block.name for e in analysis.extents] == ["sorted_desc", "sorted_desc_automaton"]
    # each log record is one line
    assert caplog.records and all("\n" not in r.getMessage() for r in caplog.records)


def test_five_thousand_digits_beside_a_leak(monkeypatch):
    """Issue 10's reproducer: a number CPython cannot print, in one block."""
    text = "mechanism big {\n    x := Lap(ε, " + "9" * 5000 + ")\n    output x\n}\n" + SORTED
    analysis = analyse(URI, "/doc.dp", text, 1, 1)
    codes = [d.code for d in analysis.diagnostics]
    assert codes.count("DP001") == 2
    assert all("Traceback" not in d.message for d in analysis.diagnostics)
