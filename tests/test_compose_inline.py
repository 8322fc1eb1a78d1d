"""A release's calls inlined as one automaton (docs/composition.md, "Exact where possible").

- the inlined automaton is the chained program: call i's halts go to call
  i+1's start, variables and states renamed apart (a hand example whose d is
  strictly below the composed sum, and examples/release.dp where they are equal);
- on generated releases of random private automata with random shares, the
  inlined automaton is private with d never above the composed sum (sequential
  composition), and the same on generated releases of the standard library;
- a checker answer that contradicts composition is never printed as a figure.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace
from fractions import Fraction as F

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dslc import limits
from dslc.cli import main
from dslc.compose.inline import Part, as_part, chain, decide
from dslc.dipa import multivar
from dslc.dipa.check import check
from dslc.ir.dipa import DiPA
from dslc.pipeline import Options, check_path
from dslc.results import Verdict
from tests.dipa_strategies import dipas
from tests.sizes import examples
from tests.test_compose import DS, ROOT, check_text, release_text, shares, steps

FAST = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))

# examples/release_inlined.dp: `watch`'s heaviest path never halts (its comments
# give the costs, by hand: 5 on that path, 3 on the one that halts), so a second
# call runs only after the lighter path: inlined max(5, 3 + 5) = 8, composed 10.
EXAMPLE = ROOT / "examples" / "release_inlined.dp"
WATCH = EXAMPLE.read_text(encoding="utf-8").split("// Composed,")[0]
FAST_CHECK = Options(lower_bound_work=0)


def _inlined(block) -> dict:
    return block.bounds["inlined"]


def test_a_call_that_never_halts_keeps_later_calls_from_running():
    block = check_path(str(EXAMPLE), FAST_CHECK).blocks[1]
    assert block.verdict is Verdict.PRIVATE and block.d == 10            # the verdict stays on the sum
    assert _inlined(block) == {"d": "8", "composed": "10", "below_composed": True, "calls": [0, 1],
                               "groups_added": None, "states": 9, "variables": 2, "reason": None}
    assert block.features["release_notes"] == [
        "inlined as one automaton (2 calls in order, 9 states, 2 stored variables): d = 8, below the composed 10"]


def test_the_chain_is_the_calls_run_one_after_another(tmp_path):
    block = check_text(tmp_path, WATCH + "release r {\n    watch with ε\n    watch with ε/2\n}\n").blocks[1]
    first, second = (c.dipa for c in block.ir.calls())
    m = chain([as_part("w#1", first), as_part("w#2", second)])
    names = [s.name for s in m.states]
    # the first call's halting state is left out; the second call's stays
    assert names == ["w#1.q0", "w#1.q1", "w#1.q2", "w#1.q3",
                     "w#2.q0", "w#2.q1", "w#2.q2", "w#2.q3", "w#2.done"]
    assert m.variables == ["w#1.x", "w#2.x"] and m.initial == 0
    into_second = [m.describe(i) for i, t in enumerate(m.transitions) if t.target == 4]
    assert into_second == ["w#1.q1 --[insample < w#1.x / ⊥]--> w#2.q0"]
    assert [s.d for s in m.states[4:]] == [F(1, 2)] * 5                 # the second call's share
    # 5 + 5/2 composed; inlined max(5, 3 + 5/2)
    assert _inlined(block)["d"] == "11/2" and block.d == F(15, 2)


def test_examples_release_equals_the_composed_sum(capsys):
    code = main(["check", "--format", "json", "--lower-bound-work", "0", str(ROOT / "examples" / "release.dp")])
    block = json.loads(capsys.readouterr().out)["files"][0]["blocks"][0]
    assert code == 0
    # above_threshold halts on ⊤, so noisy_answer runs after every path of it: 1/2 + 1/4,
    # plus the group's 1/4 composed
    assert block["inlined"] == {"d": "1", "composed": "1", "below_composed": False, "calls": [0, 1],
                                "groups_added": "1/4", "states": 5, "variables": 1, "reason": None}


def test_one_call_in_sequence_is_not_inlined(tmp_path):
    text = "import noisy_answer from stdlib\nrelease r {\n  noisy_answer with ε/2\n" \
           "  on disjoint days { noisy_answer with ε/2 }\n}\n"
    x = _inlined(check_text(tmp_path, text).blocks[0])
    assert x["d"] is None and x["below_composed"] is None and x["states"] is None
    assert x["reason"] == "only one call runs in sequence (the others are in groups `on disjoint`): nothing to inline"


def test_a_sensitivity_is_taken_into_the_rates(tmp_path):
    text = WATCH.replace("automaton watch", "automaton watch sensitivity 2")
    block = check_text(tmp_path, text + "release r { watch with ε\n watch with ε }\n").blocks[1]
    assert block.d == 20 and _inlined(block)["d"] == "16"


def test_an_answer_that_contradicts_composition_is_not_a_figure(monkeypatch):
    monkeypatch.setattr(multivar, "check_multi", lambda m: multivar.MultiResult(multivar.PRIVATE, F(11)))
    block = check_path(str(EXAMPLE), FAST_CHECK)
    x = _inlined(block.blocks[1])
    assert x["d"] is None and "(d = 11) contradicts sequential composition (at most 10)" in x["reason"]
    assert block.blocks[1].features["release_notes"][0].startswith("not inlined as one automaton: ")


# ------------------------------------------------------------------ properties
def _scaled(dipa: DiPA, share: F) -> DiPA:
    return replace(dipa, states=[replace(s, d=s.d * share, d_prime=s.d_prime * share) for s in dipa.states])


def literal_chain(calls: list[DiPA]) -> DiPA:
    """The calls one after another as ONE single-variable automaton that they all share:
    each call stores x on its first transition before it compares x, so sharing x runs
    the same program as renaming it apart, and Theorem 2's linear-time checker decides it."""
    out, starts = DiPA("chain"), []
    for a in calls:
        starts.append(len(out.states))
        out.states.extend(replace(s) for s in a.states)
    for i, a in enumerate(calls):
        halts = {q for q, edges in enumerate(a.out_edges()) if not edges}
        for t in a.transitions:
            goes_on = t.target in halts and i + 1 < len(calls)
            target = starts[i + 1] + calls[i + 1].initial if goes_on else starts[i] + t.target
            out.transitions.append(replace(t, source=starts[i] + t.source, target=target))
    return out


def _reads_input(a: DiPA) -> bool:
    """A state that reads input and has a transition is reachable."""
    edges, seen, todo = a.out_edges(), {a.initial}, [a.initial]
    while todo:
        q = todo.pop()
        if a.states[q].is_input and edges[q]:
            return True
        for i in edges[q]:
            if a.transitions[i].target not in seen:
                seen.add(a.transitions[i].target)
                todo.append(a.transitions[i].target)
    return False


private = dipas(max_states=5, private_bias=True).filter(lambda d: check(d).well_formed)


@settings(FAST, max_examples=examples(150, 40))
@given(st.lists(st.tuples(private, shares), min_size=2, max_size=3))
def test_the_inlined_automaton_is_private_and_never_above_the_sum(calls):
    parts = []
    for i, (dipa, share) in enumerate(calls):
        a = _scaled(dipa, share)
        parts.append(Part(f"c#{i + 1}", a, 1, check(a).weight))
    composed = sum((p.d for p in parts), F(0))
    x = decide(parts, composed, None, list(range(len(parts))))
    assert x.reason is None, x.reason                  # private, and not above the sum
    assert x.d <= composed
    # the literal reference: the calls sharing one variable, checked by the one-variable
    # checker (an automaton that never reads input is 0-private: check_multi's general
    # route says so, the one-variable checker charges its draws all the same)
    shared = literal_chain([p.automaton for p in parts])
    reference = check(shared)
    assert reference.well_formed
    assert x.d == reference.weight or (x.d == 0 and not _reads_input(shared))


@settings(FAST, max_examples=examples(25, 8))
@given(items=steps)
def test_generated_releases_inline_below_or_at_the_sum(tmp_path_factory, items):
    block = check_text(tmp_path_factory.mktemp("r"), release_text(items, None)).blocks[0]
    x = _inlined(block)
    sequential = [c for k, c in items if k == "call"]
    groups = [max(DS[n] * s for n, s in c) for k, c in items if k == "group"]
    assert x["calls"] == [i for i, c in enumerate(block.bounds["calls"]) if c["group"] is None]
    assert x["groups_added"] == (str(sum(groups, F(0))) if groups else None)
    if len(sequential) < 2:
        assert x["d"] is None and "nothing to inline" in x["reason"]
        return
    assert x["reason"] is None and F(x["d"]) <= F(x["composed"]) == block.d
    assert x["below_composed"] == (F(x["d"]) < block.d)



def test_no_time_left_or_an_unknown_check_gives_no_figure(tmp_path, monkeypatch):
    block = check_path(str(EXAMPLE), FAST_CHECK).blocks[1]
    parts = [Part(f"watch#{c.index + 1}", c.dipa, 1, c.d) for c in block.ir.calls()]
    with limits.scope(limits.Deadline(0.001)):
        time.sleep(0.002)
        x = decide(parts, F(10), None, [0, 1])
    assert x.d is None and x.reason == "not checked: no time left" and x.states == 9
    monkeypatch.setattr(multivar, "check_multi", lambda m: multivar.MultiResult(multivar.UNKNOWN, reason="why"))
    x = decide(parts, F(10), None, [0, 1])
    assert x.d is None and x.reason == "the check of the inlined automaton is unknown: why"


def test_callees_with_several_variables_compose_and_inline(tmp_path):
    """two_svt (d = 2, two stored variables) called twice: composed 1 + 1, inlined with
    four variables; a callee whose check is unknown makes the release unknown (DP010)."""
    two = ROOT / "examples" / "two_svt.dp"
    block = check_text(tmp_path, f'import two_svt from "{two}"\nrelease r {{ two_svt with ε/2\n'
                                 f' two_svt with ε/2 }}\n').blocks[0]
    assert block.verdict is Verdict.PRIVATE and block.d == 2
    assert [c["d"] for c in block.bounds["calls"]] == ["1", "1"]
    x = _inlined(block)
    assert (x["d"], x["variables"], x["reason"]) == ("2", 4, None)
    unknown = ROOT / "tests" / "golden" / "codes" / "DP010.dp"
    block = check_text(tmp_path, f'import one_draw_two_loops from "{unknown}"\n'
                                 f'release r {{ one_draw_two_loops with ε }}\n').blocks[0]
    assert block.verdict is Verdict.UNKNOWN and block.d is None and block.summary == "unknown: a call has no verdict"
    (diag,) = block.diagnostics
    assert diag.code == "DP010" and diag.primary.span.text == "one_draw_two_loops with ε"
