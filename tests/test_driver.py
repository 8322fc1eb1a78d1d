"""The pipeline's contract with its callers (CLI, language server)."""

from __future__ import annotations

import pytest

from dslc.pipeline import CheckCancelled, check_source
from dslc.results import Verdict, exit_status
from dslc.source import SourceFile

TWO = """automaton a { state q0 noinput Lap(ε, 0) { true -> q1 store } state q1 input Lap(ε, 0) { } }
mechanism b { x := Lap(ε, 0); loop { s := Lap(ε, read()); if s < x { output ⊥; x := s } else { output ⊤; halt } } }
"""


def test_cancellation_is_checked_between_blocks():
    calls = []

    def cancelled():
        calls.append(1)
        return len(calls) > 1          # let the first block through, stop before the second

    with pytest.raises(CheckCancelled):
        check_source(SourceFile("t.dp", TWO), {"cancelled": cancelled})
    assert len(calls) == 2


def test_one_broken_block_does_not_hide_the_others():
    text = "automaton broken { state q0 }\n" + TWO
    result = check_source(SourceFile("t.dp", text))
    verdicts = [(b.name, b.verdict) for b in result.blocks]
    assert verdicts == [("broken", Verdict.ERROR), ("a", Verdict.PRIVATE), ("b", Verdict.NOT_PRIVATE)]
    assert exit_status([result]) == 1


def test_duplicate_block_names():
    result = check_source(SourceFile("t.dp", TWO + TWO.replace("mechanism b", "mechanism c")))
    codes = [d.code for b in result.blocks for d in b.diagnostics]
    assert "E009" in codes


def test_every_block_result_carries_its_phase_products():
    """Typed phase products, not a dict to reach into: `syntax`, `ir`, `analysis`."""
    from pathlib import Path

    from dslc.ir.dipa import DiPA
    from dslc.ir.lower_mechanism_bounded import DiscreteProgram
    from dslc.ir.multi_dipa import MultiDiPA
    from dslc.pipeline import check_path

    examples = Path(__file__).resolve().parent.parent / "examples"
    seen = set()
    for path in sorted(examples.glob("*.dp")):
        for b in check_path(str(path), {"timeout": 30}).blocks:
            if b.verdict.value == "error":
                continue
            seen.add(b.kind)
            assert b.syntax is not None and b.ir is not None and b.analysis is not None, (path, b.name)
            if b.kind in ("automaton", "mechanism") and isinstance(b.ir, DiPA):
                assert b.analysis.weight is not None or b.analysis.violations
            elif b.kind in ("automaton", "mechanism"):     # several variables or discrete noise
                assert isinstance(b.ir, (MultiDiPA, DiscreteProgram)), (path, b.name, type(b.ir))
    assert {"automaton", "mechanism", "chain"} <= seen
