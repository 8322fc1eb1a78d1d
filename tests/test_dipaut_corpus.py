"""Our checker and the literal definitions against DiPAut's verdicts on its own corpus.

tests/fixtures/dipaut/ holds the `.dipa` files of DiPAut (the DiPA authors'
tool, MIT), a few of ours (ours/) and expected.json, DiPAut's verdict and weight d on each, recorded
by `benchmarks/bench_dipaut.py corpus` (DiPAut itself is not needed here).
Each file in the single-variable model is read by tests/dipaut_format.py
into our IR and decided by `dslc.dipa.check.check` and by
tests/literal_dipa.literal_check; both must give DiPAut's verdict, its d when
private, and -- when DiPAut rejects -- the condition it detected, and none of
the conditions it ran before and found absent.  Files outside the model
(generalised DiPAs, breaches of Definition 3) are skipped with the reason here;
tests/test_multivar_corpus.py decides all 58 DiPAut files with several variables.
Where DiPAut is wrong by the paper's definitions (disagreements.json: two
faults of DiPAut found by the differential test), we require the paper's
answer and that DiPAut's recorded one still differs.

Files whose initial transition outputs insample (DiPAut's example 23 and the
privacy-violating-path examples) are compared on the IR the converter
builds: our `automaton` lowering reports E105 for them today.  The whole
pipeline (`.dp` text -> driver) is also run on every in-model file; for
those files it must either agree with DiPAut or stop at E105.
"""

from __future__ import annotations

import hashlib
import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from dslc.dipa.check import check
from dslc.ir.dipa import Guard, OutKind
from tests.dipaut_format import (DipautSyntaxError, OutsideModel, from_dipa, parse, to_dipa,
                                 to_dp_text)
from tests.literal_dipa import literal_check

FIXTURES = Path(__file__).parent / "fixtures" / "dipaut"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
FILES = EXPECTED["files"]
# Where DiPAut is wrong by the paper's definitions: the correct answer and why.
DISAGREE = json.loads((FIXTURES / "disagreements.json").read_text(encoding="utf-8"))["files"]
KIND_OF_TEST = {"Leaking Cycle": "DP001", "Disclosing Cycle": "DP003", "Leaking Pair": "DP002",
                "Privacy Violating Path": "DP004"}


def _text(rel: str) -> str:
    return (FIXTURES / rel).read_text(encoding="utf-8")


def test_every_fixture_has_a_recorded_verdict_and_is_unchanged():
    on_disk = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*.dipa"))
    assert on_disk == sorted(FILES)
    for rel, entry in FILES.items():
        assert hashlib.sha256(_text(rel).encode()).hexdigest() == entry["sha256"], rel
    assert len(EXPECTED["dipaut"]["commit"]) == 40


def test_the_corpus_is_not_vacuous():
    inside = [rel for rel, e in FILES.items() if "skip" not in e and rel not in DISAGREE]
    assert len(inside) >= 25
    assert {e["private"] for rel, e in FILES.items() if rel in inside} == {True, False}
    detected = {e["detected"] for rel, e in FILES.items() if rel in inside and not e["private"]}
    assert detected == set(KIND_OF_TEST)          # every condition occurs in the model
    assert any("initial transition" in FILES[rel]["model"] and FILES[rel]["private"] for rel in inside)


def _ours(rel: str):
    """(converted, check result, literal kinds, literal weight), or skip if outside the model."""
    entry = FILES[rel]
    try:
        conv = to_dipa(_text(rel), Path(rel).stem)
    except OutsideModel as exc:
        assert entry.get("skip") == exc.reason, "classification changed: regenerate expected.json"
        pytest.skip(f"outside the single-variable DiPA model: {exc.reason}")
    assert "skip" not in entry, f"recorded as outside the model: {entry['skip']}"
    result = check(conv.dipa, max_per_kind=10**6)
    kinds, weight = literal_check(conv.dipa)
    return conv, result, kinds, weight


@pytest.mark.parametrize("rel", sorted(set(FILES) - set(DISAGREE)))
def test_verdict_and_d_agree_with_dipaut(rel):
    entry = FILES[rel]
    conv, result, kinds, weight = _ours(rel)
    assert result.well_formed == entry["private"], (result.subkinds, entry)
    assert (not kinds) == entry["private"], (kinds, entry)
    assert result.subkinds == kinds                # the fast checker is the literal one
    if entry["private"]:
        assert result.weight == Fraction(entry["d"]) == weight
    else:
        # DiPAut stops at the first condition it detects: that one is ours too,
        # and the ones it ran before and found absent are absent for us as well.
        assert KIND_OF_TEST[entry["detected"]] in result.kinds, (entry["reported"], result.subkinds)
        for name, detected in entry["reported"]:
            assert (KIND_OF_TEST[name] in result.kinds) == detected, (name, entry["reported"], result.subkinds)


@pytest.mark.parametrize("rel", sorted(DISAGREE))
def test_where_dipaut_is_wrong_we_follow_the_definitions(rel):
    """Each documented disagreement: dslc and the literal definitions give the answer
    analysed in disagreements.json, and DiPAut's recorded verdict still differs from it
    (if a newer DiPAut agrees, move the file back to the plain comparison)."""
    entry, right = FILES[rel], DISAGREE[rel]["correct"]
    conv, result, kinds, weight = _ours(rel)
    assert result.well_formed == right["private"] and (not kinds) == right["private"]
    if right["private"]:
        assert result.weight == weight == Fraction(right["d"])
        assert entry["private"] and Fraction(entry["d"]) != Fraction(right["d"])
    else:
        assert result.subkinds == kinds == set(right["kinds"])
        assert entry["private"]


def test_a_documented_disagreement_turned_around_fails():
    """The disagreement test can fail: a DiPAut verdict equal to the correct one is caught."""
    rel = "ours/numeric_sparse_once_ge_first.dipa"
    assert FILES[rel]["d"] != DISAGREE[rel]["correct"]["d"]
    twin = "ours/numeric_sparse_once_lt_first.dipa"          # same automaton, branches swapped
    assert FILES[twin]["d"] == DISAGREE[rel]["correct"]["d"] and twin not in DISAGREE


def _pipeline_files():
    return sorted(rel for rel, e in FILES.items() if "skip" not in e)


@pytest.mark.parametrize("rel", _pipeline_files())
def test_the_pipeline_agrees_or_stops_at_e105(rel):
    """The same automaton as a `.dp` block through split, parse, lowering, Definition 3
    and the check.  Only an initial transition that outputs a real value may stop it (E105)."""
    try:
        from dslc.pipeline import check_source
    except ImportError:                            # before the pipeline moved out of dslc.driver
        from dslc.driver import check_source
    from dslc.source import SourceFile
    entry = dict(FILES[rel])
    if rel in DISAGREE:
        entry.update(DISAGREE[rel]["correct"])
    conv = to_dipa(_text(rel), "a")
    res = check_source(SourceFile("corpus.dp", to_dp_text(conv.dipa)))
    [block] = res.blocks
    codes = {d.code for d in res.all_diagnostics if d.is_error}
    if block.verdict.value == "error":
        assert conv.initial_real_output and codes == {"E105"}, codes
        return
    assert block.verdict.value == ("private" if entry["private"] else "not-private"), codes
    if entry["private"]:
        assert block.d == Fraction(entry["d"])


# ------------------------------------------------------------------ the converter itself
def test_guard_spellings_follow_dipaut():
    """DiPAut files `>` and `>=` under G (insample >= x), `<` and `<=` under L."""
    base = "(q1:non-input,1/4,0): x:= insample; output oa; goto q2\n"
    for op, guard in ((">=", Guard.GE), (">", Guard.GE), ("<", Guard.LT), ("<=", Guard.LT)):
        conv = to_dipa(base + f"(q2,1/2,0): if (insample {op} x) then output ob; goto q3\n")
        [t] = [t for t in conv.dipa.transitions if t.source == 1]
        assert t.guard is guard and not t.store and t.target == 2


def test_states_parameters_outputs_and_terminals():
    text = ("(q1:non-input,1/4,0): x:= insample; output insample; goto q3\n"
            "(q3,1/2,3, 1/3,4): if (insample<= x) then output obot; goto q3 "
            "elseif (insample > x) then x:= insample; output insampleprime; goto q2\n")
    conv = to_dipa(text)
    d = conv.dipa
    assert conv.initial_real_output and conv.variable == "x" and d.initial == 0
    q1, q2, q3 = d.states                               # qN is state N-1, whatever the line order
    assert (q1.is_input, q1.d, q1.mu) == (False, Fraction(1, 4), 0)
    assert (q3.is_input, q3.d, q3.mu, q3.d_prime, q3.mu_prime) == (True, Fraction(1, 2), 3, Fraction(1, 3), 4)
    assert not d.out_edges()[1]                         # only a goto target: terminal
    lt, ge = sorted((t for t in d.transitions if t.source == 2), key=lambda t: t.guard is Guard.GE)
    assert (lt.guard, lt.target, lt.output.symbol, lt.store) == (Guard.LT, 2, "obot", False)
    assert (ge.guard, ge.target, ge.output.kind, ge.store) == (Guard.GE, 1, OutKind.INSAMPLE_PRIME, True)
    [init] = [t for t in d.transitions if t.source == 0]
    assert init.guard is Guard.TRUE and init.store and init.output.kind is OutKind.INSAMPLE


@pytest.mark.parametrize("text, reason", [
    ("(q1,1,0): a:= insample; output oa; goto q2\n(q2,1,0): b:= insample; output oa; goto q1\n",
     "2 stored variables"),
    ("(q1,1,0): x:= insample; output oa; goto q2\n"
     "(q2,1,0): if (insample < x && insample > x) then output oa; goto q2\n", "conjunctions"),
    ("(q1,1,0): x:= insample, y:= insample; output oa; goto q2\n", "parallel assignments"),
    ("(q1,1,0): x:= insample; output oa; goto q2\n"
     "(q2,1,0): if (insample < x) then output oa; goto q2 elseif (insample <= x) then output ob; goto q1\n",
     "determinism"),
    ("(q1,1,0): x:= insample; output oa; goto q2\n(q2:non-input,1,0): if (insample < x) then output oa; goto q2\n",
     "non-input"),
    ("(q1,1,0): x:= insample; output oa; goto q2\n"
     "(q2,1,0): if (insample < x) then output oa; goto q2 elseif (insample >= x) then output oa; goto q1\n",
     "output distinction"),
    ("(q1,1,0): output oa; goto q2\n(q2,1,0): x:= insample; output oa; goto q1\n", "initialization"),
])
def test_outside_the_model(text, reason):
    with pytest.raises(OutsideModel, match=reason):
        to_dipa(text)


@pytest.mark.parametrize("text", [
    "(q1,1,0): x:= insample; output oa; goto q3\n",                       # gap: no q2
    "(q1,1,0): x:= insample; output oa; goto q2\n\n",                     # blank line
    "(q1,1,0): x:= insample; output insampleprime; goto q2\n",            # no d', mu'
    "(q1,1,0): output oa; goto q1\n(q2,1,0): if (insample < x) then x:= insample; output oa; goto q1\n"
    "(q3,1,0): x:= insample; output oa; goto q2\n",                       # x compared before assigned
    "(q1,-1,0): x:= insample; output oa; goto q2\n",                      # no signs
    "(q1,1,0): x:= insample; output oa; goto q2\n(q1,1,0): x:= insample; output oa; goto q2\n",
])
def test_text_dipaut_cannot_read(text):
    with pytest.raises(DipautSyntaxError):
        parse(text)


def test_writer_and_reader_round_trip_random_automata():
    """from_dipa then to_dipa keeps the reachable automaton, hence every verdict and d."""
    from tests.dipaut_format import random_dipa, reachable_part
    rng = random.Random(7)
    for i in range(300):
        dipa = random_dipa(rng, ["normal", "private", "dense", "initreal"][i % 4])
        part = reachable_part(dipa)
        back = to_dipa(from_dipa(dipa)).dipa
        assert len(back.states) == len(part.states)
        key = lambda d: sorted((t.source, t.guard.value, t.target, str(t.output) if t.output.is_real else "sym",
                                t.store) for t in d.transitions)  # noqa: E731
        assert key(back) == key(part)
        for q, (a, b) in enumerate(zip(part.states, back.states)):
            if part.out_edges()[q]:                     # terminal states keep no parameters
                assert (a.is_input, a.d, a.mu) == (b.is_input, b.d, b.mu)
        r1, r2 = check(dipa), check(back)
        assert r1.subkinds == r2.subkinds and r1.weight == r2.weight
