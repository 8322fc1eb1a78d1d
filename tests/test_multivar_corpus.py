"""DiPAut's 58 corpus files through the multi-variable reader and checker.

tests/fixtures/dipaut/multivar.json records dslc's answer on each file, its
agreement with DiPAut's recorded verdict (expected.json) and, for every
difference, why (benchmarks/multivar_corpus.py writes it; the reasons are in
tests/dipaut_format.py).  The files that read no input are never "not private".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dslc.dipa.multivar import NOT_PRIVATE, PRIVATE, check_multi
from dslc.ir.dipaut_reader import to_multi
from tests.dipaut_format import agreement

FIXTURES = Path(__file__).parent / "fixtures" / "dipaut"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))["files"]
RECORD = json.loads((FIXTURES / "multivar.json").read_text(encoding="utf-8"))
FILES = RECORD["files"]


def test_all_58_files_of_dipauts_corpus_are_recorded():
    on_disk = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.dipa")
                     if not p.relative_to(FIXTURES).as_posix().startswith("ours/"))
    assert len(on_disk) == 58 and sorted(FILES) == on_disk
    counts = {k: sum(e["agreement"] == k for e in FILES.values()) for k in ("agree", "differ", "unknown")}
    assert counts == RECORD["summary"] == {"agree": 44, "differ": 13, "unknown": 1}


@pytest.mark.parametrize("rel", sorted(FILES))
def test_answer_and_agreement_as_recorded(rel):
    entry = FILES[rel]
    r = check_multi(to_multi((FIXTURES / rel).read_text(encoding="utf-8"), Path(rel).stem))
    assert (r.verdict, None if r.d is None else str(r.d), sorted(r.subkinds)) == \
        (entry["verdict"], entry["d"], entry["kinds"])
    verdict, why = agreement(rel, EXPECTED[rel], r)
    assert verdict == entry["agreement"]
    if verdict != "agree":
        assert why and "UNEXPLAINED" not in why and entry["why"] == why
    if "non_input" in rel and r.verdict != PRIVATE:
        pytest.fail("a file that reads no input must be private (d = 0) or refused")
    if rel.count("non_input") and verdict == "differ":
        assert r.d == 0


def test_the_files_that_read_no_input():
    no_input = [rel for rel in FILES if "non_input" in rel and FILES[rel]["agreement"] == "differ"]
    assert len(no_input) == 13
    assert all(FILES[rel]["verdict"] == PRIVATE and FILES[rel]["d"] == "0" for rel in no_input)
    assert sum(not EXPECTED[rel]["private"] for rel in no_input) == 8


@pytest.mark.parametrize("rel", sorted(r for r in EXPECTED if r.startswith("ours/")) +
                         [r for r in sorted(FILES) if FILES[r]["route"] == "single-variable"][::4])
def test_general_route_on_single_variable_files(rel):
    m = to_multi((FIXTURES / rel).read_text(encoding="utf-8"))
    a, b = check_multi(m), check_multi(m, general=True)
    assert (a.verdict, a.d) == (b.verdict, b.d)
    assert a.route == "single-variable" and b.route == "general"
    if a.verdict == NOT_PRIVATE:
        assert a.subkinds == b.subkinds


def test_the_writer_round_trips_the_corpus():
    """tests/dipaut_format.multi_to_dipaut (used by the differential run against DiPAut)
    writes text that reads back to an automaton with the same answer."""
    from tests.dipaut_format import multi_to_dipaut
    for rel in FILES:
        m = to_multi((FIXTURES / rel).read_text(encoding="utf-8"))
        text = multi_to_dipaut(m)
        a, b = check_multi(m), check_multi(to_multi(text))
        assert (a.verdict, a.d, a.subkinds) == (b.verdict, b.d, b.subkinds), rel
