"""Hover, document symbols and go-to-definition (in process, on an Analysis)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp

from dslc.diagnostics.model import Diagnostic
from dslc.lsp import features
from dslc.lsp.analysis import Analysis, analyse
from dslc.results import BlockResult, Verdict
from tests.test_lsp_support import utf16_position

ROOT = Path(__file__).resolve().parent.parent
URI = "file:///doc.dp"


def load(name: str) -> tuple[Analysis, str]:
    text = (ROOT / "examples" / name).read_text(encoding="utf-8")
    return analyse(URI, f"/{name}", text, 1, 1), text


def at(text: str, needle: str, delta: int = 0, after: str = "") -> lsp.Position:
    """Position of the first `needle` (after the first `after`), plus `delta` characters."""
    return utf16_position(text, text.index(needle, text.index(after)) + delta)


def span(text: str, needle: str, after: str = "") -> lsp.Range:
    start = text.index(needle, text.index(after))
    return lsp.Range(utf16_position(text, start), utf16_position(text, start + len(needle)))


def hover_text(analysis: Analysis, pos: lsp.Position) -> str:
    h = features.hover(analysis, pos)
    assert h is not None
    assert h.contents.kind == lsp.MarkupKind.Markdown
    return h.contents.value


def test_hover_block_name_gives_verdict_and_d():
    a, text = load("svt.dp")
    hover = features.hover(a, at(text, "svt(", after="mechanism"))
    assert hover.contents.value.startswith("**mechanism** `svt` — ✓ private, d ∈ [0.999, 1]")
    assert "d = wt(A) = 1/2 + 1/2" in hover.contents.value
    assert hover.range == span(text, "svt", after="mechanism")


def test_hover_block_name_not_private_lists_violation():
    a, text = load("sorted_desc.dp")
    value = hover_text(a, at(text, "sorted_desc_automaton", 3, after="automaton"))
    assert "✗ not private" in value and "d =" not in value
    line = text[:text.index("output ⊥ store", text.index("q1 input"))].count("\n") + 1
    assert f"- `DP001` (line {line}): leaking cycle" in value


def test_hover_state_role_and_costs():
    a, text = load("svt.dp")
    value = hover_text(a, at(text, "q1", after="state q1"))
    assert value.startswith("**state** `q1` of automaton `svt_automaton`")
    assert "role: input; compares its draw with `x`" in value
    assert "insample ~ Lap(ε/4, input)" in value
    assert "`q1 --[insample < x / ⊥]--> q1` — on a cycle" in value
    assert "`q1 --[insample >= x / ⊤]--> q2` — critical input transition, cost 2" in value
    assert "= 1/2 (on the heaviest path)" in value


def test_hover_draw_of_initial_state():
    a, text = load("svt.dp")
    value = hover_text(a, at(text, "Lap", 2, after="x :="))      # `x := Lap(ε/2, T)`
    assert value.startswith("**draw of step** `q0` of mechanism `svt`")
    assert "role: initial; non-input (reads no input); stores its draw in `x`" in value
    assert "insample ~ Lap(ε/2, 0)" in value
    assert "critical non-input transition, cost" in value and "1/2" in value


def test_hover_draw_on_leaking_cycle_names_the_witness():
    a, text = load("sorted_desc.dp")
    value = hover_text(a, at(text, "Lap", after="s :="))
    assert "stores its draw in `x`" in value
    assert "on a cycle" in value and "critical, cost 2" in value
    assert "on the witness of `DP001` (leaking-cycle)" in value


def test_hover_shared_condition_shows_both_branches():
    a, text = load("sorted_desc.dp")
    value = hover_text(a, at(text, "<", after="if s"))
    assert value.startswith("**transitions**")
    assert "q1 --[insample < x / ⊥, store]--> q1" in value
    assert "q1 --[insample >= x / ⊤]--> halt" in value


def test_hover_outside_anything_is_none():
    a, text = load("svt.dp")
    assert features.hover(a, lsp.Position(0, 3)) is None          # a comment
    assert features.hover(a, lsp.Position(500, 0)) is None


def test_document_symbols_blocks_and_states():
    a, text = load("svt.dp")
    syms = features.document_symbols(a)
    assert [(s.name, s.kind, s.detail) for s in syms] == [
        ("svt", lsp.SymbolKind.Module, "mechanism · private, d ∈ [0.999, 1]"),
        ("svt_automaton", lsp.SymbolKind.Module, "automaton · private, d ∈ [0.999, 1]")]
    auto = syms[1]
    start = text.index("automaton svt_automaton")
    end = text.index("\n}", text.index("state q2")) + 2          # after the block's closing brace
    assert auto.range == lsp.Range(utf16_position(text, start), utf16_position(text, end))
    assert [c.name for c in auto.children] == ["q0", "q1", "q2"]
    assert auto.children[1].selection_range == span(text, "q1", after="state q1")
    for sym in syms:
        for child in sym.children:
            assert sym.range.start.line <= child.range.start.line <= child.range.end.line <= sym.range.end.line
    flat = features.document_symbols(a, hierarchical=False)
    assert [(s.name, s.container_name) for s in flat][:4] == [
        ("svt", None), ("q0", "svt"), ("q1", "svt"), ("svt_automaton", None)]


def test_definition_of_a_transition_target():
    a, text = load("svt.dp")
    pos = at(text, "q2", after="insample >= x ->")
    [loc] = features.definition(a, pos)
    assert loc.uri == URI
    assert loc.range == span(text, "q2", after="state q2")
    # the end of the name counts too (a caret right after `q2`)
    assert features.definition(a, lsp.Position(pos.line, pos.character + 2)) == [loc]
    # mechanisms have no state names to jump to
    assert features.definition(a, at(text, "x :=")) is None


def test_other_block_kinds_are_handled_generically():
    """A block without a DiPA (e.g. an hmm) still gets a symbol and a hover;
    backends can add symbols and hovers through `features`."""
    text = "hmm survey {\n    state a\n}\n"
    a = analyse(URI, "/doc.dp", text, 1, 1)
    src = a.result.source
    block = BlockResult("survey", "hmm", src.span(4, 10), Verdict.UNKNOWN,
                        diagnostics=[Diagnostic("DP101", "a secret pair is distinguishable")])
    block.features["symbols"] = [("a", "hidden state", src.span(17, 24), src.span(23, 24))]
    block.features["hover"] = [(src.span(23, 24), "hidden state `a`")]
    a.result.blocks[:] = [block]
    a.extents[0].block = block
    [sym] = features.document_symbols(a)
    assert sym.name == "survey" and sym.detail == "hmm · unknown"
    assert [(c.name, c.detail) for c in sym.children] == [("a", "hidden state")]
    assert "? unknown" in hover_text(a, lsp.Position(0, 5))
    assert "`DP101`" in hover_text(a, lsp.Position(0, 5))
    assert hover_text(a, lsp.Position(1, 10)) == "hidden state `a`"


import pytest  # noqa: E402


@pytest.mark.parametrize("name, block, kind, verdict", [
    ("survey.dp", "survey", "hmm", "✓ private"),
    ("survey.dp", "survey_ln2", "hmm", "✗ not private"),
    ("survey_interactive.dp", "survey_interactive", "mdp", "✗ not private"),
    ("chain_worked.dp", "worked", "chain", "✓ private"),
])
def test_every_block_kind_has_hover_and_outline(name, block, kind, verdict):
    a, text = load(name)
    value = hover_text(a, at(text, f"{kind} {block}", len(kind) + 1))
    assert value.startswith(f"**{kind}** `{block}` — {verdict}")
    result = next(b for b in a.result.blocks if b.name == block)
    assert result.summary and result.summary in value
    for d in result.diagnostics:
        assert f"`{d.code}`" in value
    [sym] = [s for s in features.document_symbols(a) if s.name == block]
    assert sym.detail.startswith(f"{kind} · {result.verdict.value}")


def test_hmm_states_observations_and_secrets():
    a, text = load("survey.dp")
    [survey] = [s for s in features.document_symbols(a) if s.name == "survey"]
    assert [(c.name, c.detail) for c in survey.children] == [
        ("pos", "state"), ("neg", "state"), ("said_yes", "state"), ("said_no", "state"),
        ("quiet", "observation"), ("yes", "observation"), ("no", "observation"),
        ("positive", "secret"), ("negative", "secret")]
    declared = span(text, "neg", after="states pos")
    assert survey.children[1].selection_range == declared
    # a use of `neg` in a transition: hover and definition
    use = at(text, "neg", after="prior")
    value = hover_text(a, use)
    assert value.startswith("**state** `neg` of hmm `survey`") and "in secret `negative`" in value
    [loc] = features.definition(a, use)
    assert loc.range == declared
    secret = at(text, "positive", after="protect")
    assert features.definition(a, secret)[0].range == span(text, "positive", after="secret")
    assert "states `pos`" in hover_text(a, secret)


def test_chain_states_have_symbols_and_hover():
    a, text = load("chain_power.dp")
    [household] = [s for s in features.document_symbols(a) if s.name == "household"]
    assert [(c.name, c.detail) for c in household.children] == [
        ("low", "chain state"), ("mid", "chain state"), ("high", "chain state")]
    value = hover_text(a, at(text, "mid", after="chain household"))
    assert value.startswith("**chain state** `mid` of chain `household`")
    assert "value 1" in value and "π = " in value
