"""The multi-variable checker (dslc/dipa/multivar.py, docs/multivariable.md).

- On single-variable automata its general route gives dslc.dipa.check's verdict,
  d and conditions (and the default route is that checker).
- On random automata with 2-3 variables it equals tests/literal_multivar.py,
  which works from whole paths.
- Each refusal ("unknown") and the reader's first-match splitting, by example.
"""

from __future__ import annotations

from fractions import Fraction


import pytest
from hypothesis import HealthCheck, given, settings

from dslc import limits
from dslc.dipa.check import check
from dslc.dipa.multivar import NOT_PRIVATE, PRIVATE, UNKNOWN, build_product, check_multi
from dslc.ir.dipa import symbol
from dslc.ir.dipaut_reader import first_match_pieces, to_multi
from dslc.ir.multi_dipa import GE, LT, Literal, MState, MTransition, MultiDiPA, from_dipa, problems
from tests.dipa_strategies import dipas, multi_dipas
from tests.literal_multivar import literal_check, literal_product

FAST = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))


@settings(FAST, max_examples=150)
@given(dipas(max_states=7))
def test_general_route_equals_the_single_variable_checker(dipa):
    r = check(dipa)
    m = from_dipa(dipa)
    general = check_multi(m, general=True)
    assert general.verdict == (PRIVATE if r.well_formed else NOT_PRIVATE), general.reason
    if r.well_formed:
        assert general.d == r.weight
    else:
        assert general.subkinds == r.subkinds
    default = check_multi(m)
    assert (default.verdict, default.d, default.subkinds) == (general.verdict, general.d, general.subkinds)


@settings(FAST, max_examples=100)
@given(multi_dipas())
def test_checker_equals_the_literal_definitions(m):
    try:
        verdict, d, kinds = literal_check(m)
    except OverflowError:
        return
    r = check_multi(m, general=True)
    assert (r.verdict, r.d) == (verdict, d), r.reason
    if r.verdict == NOT_PRIVATE or r.violations:
        assert r.subkinds == kinds
    if r.path:                     # a coupling failure names a real path of positive probability
        assert r.verdict == UNKNOWN


@settings(FAST, max_examples=40)
@given(multi_dipas(max_states=4))
def test_the_order_product_is_the_literal_one(m):
    try:
        nodes, edges = literal_product(m)
    except Exception:
        return
    p = build_product(m)
    assert set(p.nodes) == set(nodes)
    assert {(p.nodes[a], t, p.nodes[b]) for a, t, b in p.edges} == set(edges)


# ------------------------------------------------------------------ by example
def _m(states, transitions):
    m = MultiDiPA("t")
    for name, is_input, d in states:
        m.states.append(MState(name, is_input, Fraction(d)))
    for src, guard, dst, out, stores in transitions:
        lits = tuple(Literal(v, op) for v, op in guard)
        m.transitions.append(MTransition(src, lits, dst, out, frozenset(stores)))
    return m


A, B = symbol("a"), symbol("b")


def test_range_monitor_is_private_with_the_paper_costs():
    # l, r drawn at non-input states (1/4 each), the input loop stays while l <= q < r,
    # exits (critical, 2 * 1/4) either way: d = 1 (DiPAut's m_range_examples/1.dipa)
    m = _m([("q1", False, "1/4"), ("q2", False, "1/4"), ("q3", True, "1/4"), ("q4", True, 0)],
           [(0, [], 1, A, "l"), (1, [], 2, A, "r"),
            (2, [("l", GE), ("r", LT)], 2, A, ""), (2, [("l", GE), ("r", GE)], 3, B, ""),
            (2, [("l", LT), ("r", LT)], 3, symbol("c"), "")])
    r = check_multi(m)
    assert (r.verdict, r.d) == (PRIVATE, 1)


def test_one_draw_stored_twice_with_opposite_demands_is_unknown_not_private():
    # a and b hold the same draw; a is compared in a G-cycle, then b in an L-cycle.
    # No per-variable condition holds (the AG/AL paths are per variable), the shift
    # coupling cannot give the draw -1 and +1: unknown, with the path.
    m = _m([("q0", True, "1/2"), ("q1", True, "1/2"), ("q2", True, "1/2"), ("q3", True, 0)],
           [(0, [], 1, A, "ab"), (1, [("a", GE)], 1, A, ""), (1, [("a", LT)], 2, B, ""),
            (2, [("b", LT)], 2, A, ""), (2, [("b", GE)], 3, B, "")])
    r = check_multi(m)
    assert r.verdict == UNKNOWN and r.path and "coupling fails" in r.reason
    assert literal_check(m)[0] == UNKNOWN


def test_a_comparison_before_any_store_is_unknown():
    m = _m([("q0", True, 1), ("q1", True, 1)], [(0, [("x", GE)], 1, A, "x"), (0, [("x", LT)], 1, B, "")])
    r = check_multi(m)
    assert r.verdict == UNKNOWN and "not stored" in r.reason


def test_overlapping_guards_are_refused():
    m = _m([("q0", True, 1), ("q1", True, 1)],
           [(0, [], 1, A, "x"), (1, [("x", GE)], 1, A, ""), (1, [], 0, B, "")])
    assert problems(m) and check_multi(m).verdict == UNKNOWN


def test_an_automaton_that_reads_no_input_is_private_with_d_0():
    # DiPAut's example_9_non_input: a leaking pair in shape, but every state is non-input
    text = ("(q1:non-input,1/4,0): x:= insample; output oinput; goto q2\n"
            "(q2:non-input,1/4,0): if (insample >= x) then output obot; goto q2 elseif (insample < x) then "
            "output otop; goto q3\n"
            "(q3:non-input,1/4,0): if (insample < x) then output obot; goto q3 elseif (insample > x) then "
            "output otop; goto q4\n")
    r = check_multi(to_multi(text))
    assert (r.verdict, r.d) == (PRIVATE, 0)
    # the same automaton with input states is not private (a leaking pair, Theorem 2)
    r2 = check_multi(to_multi(text.replace(":non-input", "").replace("(q1,", "(q1:non-input,")))
    assert r2.verdict == NOT_PRIVATE and "DP002/AL" in r2.subkinds and r2.necessity == "theorem"


def test_a_leak_in_two_variables_is_reported_with_its_variable():
    # SVT* on the upper end of a range: L_r cycle, then an AG_r path to a G_r cycle
    m = _m([("q1", False, "1/4"), ("q2", False, "1/4"), ("q3", True, "1/4"), ("q4", True, "1/4"),
            ("q5", True, 0)],
           [(0, [], 1, A, "l"), (1, [], 2, A, "r"),
            (2, [("l", GE), ("r", LT)], 2, A, ""), (2, [("l", GE), ("r", GE)], 3, B, ""),
            (3, [("r", GE)], 3, A, ""), (3, [("r", LT)], 4, B, "")])
    r = check_multi(m)
    assert r.verdict == NOT_PRIVATE and r.necessity == "sketch"
    [v] = [v for v in r.violations if v.kind == "DP002"]
    assert v.variable == "r" and v.subkind == "DP002/AG"


def test_output_distinction_missing_turns_a_condition_into_unknown():
    m = _m([("q0", False, 1), ("q1", True, 1), ("q2", True, 1), ("q3", True, 0)],
           [(0, [], 1, A, "x"), (1, [("x", LT)], 1, A, ""), (1, [("x", GE)], 2, B, ""),
            (2, [("x", GE)], 2, A, ""), (2, [("x", LT)], 3, A, "")])
    r = check_multi(m)
    assert r.verdict == UNKNOWN and r.subkinds == {"DP002/AG"} and "output distinction" in r.reason


def test_a_spent_time_budget_is_unknown():
    m = to_multi((__import__("pathlib").Path(__file__).parent / "fixtures/dipaut/m_range_examples/2.dipa")
                 .read_text())
    with limits.scope(limits.Deadline(1e-9)):
        r = check_multi(m)
    assert r.verdict == UNKNOWN and "budget" in r.reason
    assert check_multi(m, max_states=5).verdict == UNKNOWN


def test_first_match_pieces_are_exclusive_and_cover_the_branch():
    import itertools
    g = [(Literal("a", GE), Literal("b", LT)), (Literal("a", GE),), (Literal("b", GE), Literal("c", LT)), ()]
    pieces = first_match_pieces(g)
    flat = [p for ps in pieces for p in ps]
    for p, q in itertools.combinations(flat, 2):
        assert any(lit.negated() in q for lit in p)
    # every sign pattern of (a, b, c) falls in exactly the piece of the first branch that holds
    for signs in itertools.product((GE, LT), repeat=3):
        point = {Literal(v, s) for v, s in zip("abc", signs)}
        first = next(k for k, gk in enumerate(g) if set(gk) <= point)
        hits = [k for k, ps in enumerate(pieces) for p in ps if set(p) <= point]
        assert hits == [first]


def test_reader_stores_and_conjunctions():
    text = ("(q1,1/8,0): min:= insample,max:= insample; output oread; goto q2\n"
            "(q2,1/4,0, 1/4,0): if (insample > max && insample >= min) then max:= insample; output insampleprime; "
            "goto q2 elseif (insample <= max) then output obot; goto q3\n")
    m = to_multi(text)
    first, loop, *rest = m.transitions
    assert first.assigns == {"min", "max"} and not first.guard
    assert loop.guard == (Literal("max", GE), Literal("min", GE)) and loop.assigns == {"max"}
    assert [t.guard for t in rest] == [(Literal("max", LT),)] and rest[0].output == symbol("obot")
    assert m.states[1].d_prime == Fraction(1, 4) and m.states[2].d == 0
    assert loop.label == "q2 branch 1"



def test_a_draw_without_a_positive_scale_is_refused():
    m = _m([("q0", True, 0), ("q1", True, 1)], [(0, [], 1, A, "x")])
    r = check_multi(m)
    assert r.verdict == UNKNOWN and "positive d" in r.reason


def test_a_branch_chain_too_large_to_split_is_refused(monkeypatch):
    from dslc.ir import dipaut_reader
    monkeypatch.setattr(dipaut_reader, "MAX_PIECES", 100)
    lits = [tuple(Literal(f"v{i}{j}", GE) for j in range(3)) for i in range(5)]
    assert len(first_match_pieces(lits[:4] + [()])[-1]) == 81
    with pytest.raises(dipaut_reader.TooLarge):
        first_match_pieces(lits + [()])


TWO_SVT = ("(q1:non-input,1/2,0): t1:= insample; output obot; goto q2\n"
           "(q2:non-input,1/2,5): t2:= insample; output obot; goto q3\n"
           "(q3,1/4,0): if (insample < t1) then output obot; goto q3 elseif (insample >= t1) then output otop; goto q4\n"
           "(q4,1/4,0): if (insample < t2) then output obot; goto q4 elseif (insample >= t2) then output otop; goto q5\n")


def test_two_sparse_vector_loops_with_their_own_thresholds():
    # the thresholds cost 1/2 each (non-input), each loop's exit 2 * 1/4: d = 2
    r = check_multi(to_multi(TWO_SVT))
    assert (r.verdict, r.d) == (PRIVATE, 2)
    # the second loop also stays only above t1: after the L_t1-cycle, a G_t1-cycle (SVT*)
    bad = TWO_SVT.replace("(insample < t2) then", "(insample < t2 && insample >= t1) then")
    r = check_multi(to_multi(bad))
    assert r.verdict == NOT_PRIVATE and [(v.subkind, v.variable) for v in r.violations] == [("DP002/AG", "t1")]
