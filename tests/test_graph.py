"""`dslc graph`: pictures of blocks (DOT, Mermaid, JSON, SVG).

Golden files under tests/golden/graph/ hold the DOT and Mermaid of every
example; regenerate them with
`DSLC_UPDATE_GOLDEN=1 python3 -m pytest tests/test_graph.py` and review the
diff like any other change.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

from dslc.diagnostics.render.graph import (dot_string, graph_json, mermaid_text, render, render_dot,
                                           render_mermaid)
from dslc.graph import NotDrawable, block_graph
from dslc.pipeline import check_path
from dslc.results import Verdict

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "graph"
# every example with a picture (a `release` composes other blocks and has none: test_release_has_no_picture)
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.dp") if not p.name.startswith("release"))
HAVE_DOT = shutil.which("dot") is not None
RED = "#d62728"


def dslc(*args: str, stdin: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "dslc", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, input=stdin, env=env)
    assert "Traceback" not in proc.stderr
    return proc


_FILES: dict[str, object] = {}


def checked(path: Path):
    key = str(path)
    if key not in _FILES:
        _FILES[key] = check_path(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else key)
    return _FILES[key]


def graphs_of(path: Path, explain: bool = False) -> list[nx.MultiDiGraph]:
    return [block_graph(b, explain=explain) for b in checked(path).blocks]


# ---------------------------------------------------------------- golden files
# the examples drawn in golden files (every example, new ones included, is
# drawn by the tests below; goldens are for the ones with settled verdicts)
GOLDEN_EXAMPLES = ["chain_activity", "chain_power", "chain_worked", "geometric", "noisy_stream",
                   "numeric_sparse", "numeric_sparse_mod", "sorted_desc", "survey", "survey_interactive",
                   "svt", "svt_star"]
GOLDEN_CASES = [(name, fmt, []) for name in GOLDEN_EXAMPLES for fmt in ("dot", "mermaid")]
GOLDEN_CASES += [("svt_explain", "dot", ["--explain"]), ("svt_explain", "mermaid", ["--explain"])]
SUFFIX = {"dot": ".dot", "mermaid": ".mmd"}


@pytest.mark.parametrize("name,fmt,extra", GOLDEN_CASES, ids=[f"{c[0]}.{c[1]}" for c in GOLDEN_CASES])
def test_golden(name, fmt, extra):
    source = "svt" if name == "svt_explain" else name
    proc = dslc("graph", f"examples/{source}.dp", "--format", fmt, *extra)
    assert proc.returncode == 0, proc.stderr
    path = GOLDEN / f"{name}{SUFFIX[fmt]}"
    if os.environ.get("DSLC_UPDATE_GOLDEN"):
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(proc.stdout, encoding="utf-8")
    assert path.exists(), f"missing golden file {path.name}; run with DSLC_UPDATE_GOLDEN=1"
    assert proc.stdout == path.read_text(encoding="utf-8")


# ---------------------------------------------------------------- every block renders
def _blocks():
    return [(p, b.name) for p in EXAMPLES for b in checked(p).blocks]


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_every_example_block_renders_in_every_text_format(path):
    result = checked(path)
    assert result.blocks
    for block in result.blocks:
        for explain in (False, True):
            g = block_graph(block, explain=explain)
            assert isinstance(g, nx.DiGraph) and g.number_of_nodes() > 0
            dot = render([g], "dot", str(path))
            assert dot.startswith(f"digraph {dot_string(block.name)} {{") and dot.rstrip().endswith("}")
            mermaid = render([g], "mermaid")
            assert mermaid.startswith("flowchart LR\n")
            _check_mermaid(mermaid)
            data = json.loads(render([g], "json", str(path)))
            assert [x["block"] for x in data["graphs"]] == [block.name]


def test_leak_is_marked_on_not_private_blocks_and_nowhere_on_private_ones():
    seen = {Verdict.PRIVATE: 0, Verdict.NOT_PRIVATE: 0}
    for path in EXAMPLES:
        for block in checked(path).blocks:
            g = block_graph(block)
            marked = [d for _, _, d in g.edges(data=True) if any(c.startswith("DP") for c in d["classes"])]
            dot = render_dot([g])
            if block.verdict is Verdict.NOT_PRIVATE:
                assert marked, block.name
                assert RED in dot and g.graph["violations"]
                codes = {d.code for d in block.diagnostics if d.is_error}
                assert {v["code"] for v in g.graph["violations"]} == codes
            else:
                assert block.verdict is Verdict.PRIVATE
                assert not marked and RED not in dot and not g.graph["violations"], block.name
                assert "linkStyle" not in render_mermaid([g]) or "stroke:" + RED not in render_mermaid([g])
            seen[block.verdict] += 1
    assert seen[Verdict.PRIVATE] and seen[Verdict.NOT_PRIVATE]


def _check_mermaid(text: str) -> None:
    """What can be checked without Mermaid itself: every label's quotes are
    balanced, subgraphs are closed, and every linkStyle index names a link."""
    links = 0
    depth = 0
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("%%"):
            continue
        assert s.count('"') % 2 == 0, line
        if s.startswith("subgraph "):
            depth += 1
        elif s == "end":
            depth -= 1
        elif " --> " in s or " -.-> " in s or "-->|" in s or "-.->|" in s:
            links += 1
        elif s.startswith("linkStyle "):
            for i in s.split()[1].split(","):
                assert 0 <= int(i) < links, line
    assert depth == 0


# ---------------------------------------------------------------- the leak of sorted_desc
def test_sorted_desc_cycle_is_red_with_class_dp001():
    proc = dslc("graph", "examples/sorted_desc.dp", "--block", "sorted_desc", "--format", "dot")
    assert proc.returncode == 0, proc.stderr
    edges = [line for line in proc.stdout.splitlines() if "->" in line and "start" not in line]
    red = [line for line in edges if 'class="DP001"' in line]
    # the loop q1 --[insample < x / ⊥, store]--> q1 is the leaking cycle, and red
    assert red == ['  "s1" -> "s1" [label="insample < x / ⊥, store", class="DP001", color="#d62728", '
                   'fontcolor="#d62728", penwidth=2];']
    assert all(RED not in line for line in edges if line not in red)
    assert "leaking cycle" in proc.stdout
    # the mechanism's states are labelled with their source lines
    assert "line 11: s := Lap(ε, read())" in proc.stdout

    proc = dslc("graph", "examples/sorted_desc.dp", "--block", "sorted_desc", "--format", "mermaid")
    lines = proc.stdout.splitlines()
    links = [line.strip() for line in lines if "-->" in line]
    [style] = [line.strip() for line in lines if line.strip().startswith("linkStyle")]
    index = int(style.split()[1])
    assert links[index] == 'b0_s1 -->|"insample #lt; x / ⊥, store"| b0_s1'
    assert f"stroke:{RED}" in style


def test_violating_observation_sequence_of_an_hmm_is_highlighted():
    [private, leaky] = graphs_of(ROOT / "examples" / "survey.dp")
    [v1, v2] = leaky.graph["violations"]
    assert v1["code"] == "DP101" and v1["observations"] == ["quiet", "yes"]
    assert (v1["p_left"], v1["p_right"]) == ("3/4", "1/4")
    names = {n: d["name"] for n, d in leaky.nodes(data=True)}
    red = {(names[u], names[v], d["label"][0]) for u, v, d in leaky.edges(data=True) if "DP101" in d["classes"]}
    # ω = (quiet, yes) from `positive` and ω = (quiet, no) from `negative`: the answers that give it away
    assert red == {("pos", "quiet", "1"), ("pos", "said_yes", "3/4"), ("said_yes", "yes", "1"),
                   ("neg", "quiet", "1"), ("neg", "said_no", "3/4"), ("said_no", "no", "1")}
    assert not private.graph["violations"]


def test_mdp_edges_carry_actions_and_exact_probabilities():
    [leaky, _] = graphs_of(ROOT / "examples" / "survey_interactive.dp")
    labels = {d["label"][0] for _, _, d in leaky.edges(data=True) if d["role"] == "transition"}
    assert {"L: 3/4", "H: 4/5", "L: 1/4", "H: 1/5", "1"} <= labels
    [v, _] = leaky.graph["violations"]
    assert v["actions"] == ["H"]
    red = [d["label"][0] for _, _, d in leaky.edges(data=True) if "DP101" in d["classes"] and d["role"] == "transition"]
    assert red == ["H: 4/5", "H: 4/5"]


def test_chain_picture_has_exact_probabilities_for_every_model():
    [g] = graphs_of(ROOT / "examples" / "chain_activity.dp")
    labels = sorted(d["label"][0] for _, _, d in g.edges(data=True))
    assert "calm: 1/12" in labels and "active: 7/10" in labels
    assert len(labels) == 18
    assert g.nodes["s0"]["label"] == ["sit", "calm: π = 51/79", "active: q = 1"]


def test_explain_shows_costs_of_critical_transitions_on_private_blocks_only():
    [mech, auto] = graphs_of(ROOT / "examples" / "svt.dp", explain=True)
    costs = {d["label"][0]: d["label"][1] for _, _, d in auto.edges(data=True) if d["cost"] is not None}
    assert costs == {"true / ⊥, store": "cost d = 1/2 (heaviest path)",
                     "insample >= x / ⊤": "cost 2d = 2·1/4 = 1/2 (heaviest path)"}
    assert any("d = wt(A) = 1" in n for n in auto.graph["notes"])
    assert mech.graph["title"] == "mechanism svt: private, d = 1"
    [leaky, _] = graphs_of(ROOT / "examples" / "sorted_desc.dp", explain=True)
    assert all(d["cost"] is None for _, _, d in leaky.edges(data=True))
    dot = dslc("graph", "examples/svt.dp", "--explain", "--block", "svt_automaton").stdout
    assert 'class="heaviest"' in dot and "cost 2d = 2·1/4 = 1/2" in dot


def test_a_block_over_its_budget_has_its_heaviest_path_red():
    path = ROOT / "examples" / "lee_clifton.dp"
    if not path.exists():
        pytest.skip("examples/lee_clifton.dp is not there")
    for block, g in zip(checked(path).blocks, graphs_of(path)):
        codes = {d.code for d in block.diagnostics if d.is_error}
        red = [d for _, _, d in g.edges(data=True) if codes & set(d["classes"])]
        if block.verdict is Verdict.NOT_PRIVATE:
            # the critical transitions of the heaviest path, with their costs
            assert red and all(d["cost"] is not None for d in red)
            assert {v["code"] for v in g.graph["violations"]} == codes
        else:
            assert not red and not g.graph["violations"]


# ---------------------------------------------------------------- JSON
def test_json_structure():
    proc = dslc("graph", "examples/numeric_sparse_mod.dp", "--format", "json")
    assert proc.returncode == 0
    data = json.loads(proc.stdout)
    assert data["file"] == "examples/numeric_sparse_mod.dp"
    assert [g["block"] for g in data["graphs"]] == ["numeric_sparse_mod", "numeric_sparse_mod_automaton"]
    for g in data["graphs"]:
        assert set(g) >= {"block", "kind", "verdict", "title", "summary", "notes", "initial", "nodes", "edges",
                          "violations"}
        ids = [n["id"] for n in g["nodes"]]
        assert len(ids) == len(set(ids)) and g["initial"] == ["s0"]
        for n in g["nodes"]:
            assert set(n) >= {"id", "name", "label", "role", "initial", "classes", "line"}
        edge_ids = [e["id"] for e in g["edges"]]
        assert len(edge_ids) == len(set(edge_ids))
        for e in g["edges"]:
            assert e["source"] in ids and e["target"] in ids
            assert set(e) >= {"id", "label", "role", "classes", "guard", "output", "store", "line"}
        [v] = g["violations"]
        assert v["code"] == "DP004" and v["edges"] and set(v["edges"]) <= set(edge_ids)
        for e in g["edges"]:
            assert ("DP004" in e["classes"]) == (e["id"] in v["edges"])
    mech = data["graphs"][0]
    assert [n["line"] for n in mech["nodes"]] == [8, 10, 14]

    def no_floats(x):
        if isinstance(x, dict):
            return all(no_floats(v) for v in x.values())
        if isinstance(x, list):
            return all(no_floats(v) for v in x)
        return not isinstance(x, float)

    for path in EXAMPLES:
        out = json.loads(render(graphs_of(path), "json", str(path)))
        assert no_floats(out), path.name         # exact numbers are strings such as "5/9"
    assert graph_json(graphs_of(ROOT / "examples" / "chain_worked.dp")[0])["nodes"][0]["initial_probability"] == ["1/2"]


# ---------------------------------------------------------------- Graphviz
@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed (apt-get install graphviz)")
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_graphviz_accepts_the_dot(path):
    for explain in (False, True):
        dot = render(graphs_of(path, explain), "dot", str(path))
        proc = subprocess.run(["dot", "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=120)
        assert proc.returncode == 0 and not proc.stderr, proc.stderr.decode()
        assert b"<svg" in proc.stdout


@pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed (apt-get install graphviz)")
def test_svg_format_runs_dot_and_keeps_the_classes():
    proc = dslc("graph", "examples/sorted_desc.dp", "--block", "sorted_desc_automaton", "--format", "svg")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("<?xml") and "</svg>" in proc.stdout
    assert 'class="edge DP001"' in proc.stdout and 'stroke="#d62728"' in proc.stdout


def test_svg_without_graphviz_says_how_to_get_it(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))      # no `dot` there
    proc = subprocess.run([sys.executable, "-m", "dslc", "graph", "examples/svt.dp", "--format", "svg"],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Graphviz" in proc.stderr and "apt-get install graphviz" in proc.stderr and "--format dot" in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- escaping
WEIRD = ('automaton weird {\n'
         '    state q0 noinput Lap(ε, 0) { true -> q1 output "a\\b <i>&amp; #35; `x` |p| \x1b[2J ⊤ \'q\'" store }\n'
         '    state q1 input Lap(ε, 0) { insample < x -> q1 output "q\\" ; insample >= x -> q2 output ⊥ }\n'
         '    state q2 input Lap(ε, 0) { }\n'
         '}\n')


def test_labels_are_escaped(tmp_path):
    path = tmp_path / "weird.dp"
    path.write_text(WEIRD, encoding="utf-8")
    [g] = graphs_of(path)
    dot = render_dot([g])
    assert '"true / a\\\\b <i>&amp;amp; #35; `x` |p| \\\\u{1b}[2J ⊤ \'q\', store"' in dot
    assert "\x1b" not in dot
    mermaid = render_mermaid([g])
    assert "\x1b" not in mermaid
    _check_mermaid(mermaid)
    assert '"true / a#92;b #lt;i#gt;#amp;amp; #35;35; #96;x#96; #124;p#124; #92;u{1b}[2J ⊤ \'q\', store"' in mermaid
    if HAVE_DOT:
        svg = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True, timeout=60).stdout.decode()
        assert "true / a\\b &lt;i&gt;&amp;amp; #35; `x` |p| \\u{1b}[2J ⊤ &#39;q&#39;, store" in svg


def test_escape_functions():
    assert dot_string('say "hi"\\') == '"say \\"hi\\"\\\\"'
    assert dot_string("a\nb\tc") == '"a\\\\u{a}b\\\\u{9}c"'
    assert mermaid_text('x"y<z>') == "x#quot;y#lt;z#gt;"
    assert mermaid_text("ε ⊤ ⊥") == "ε ⊤ ⊥"


# ---------------------------------------------------------------- errors
def test_syntax_errors_give_the_usual_diagnostics_and_exit_2():
    proc = dslc("graph", "tests/golden/syntax_errors.dp")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "error[E001]: expected `->` followed by the target state" in proc.stderr
    assert "cannot draw" in proc.stderr


def test_unknown_block_says_did_you_mean():
    proc = dslc("graph", "examples/svt.dp", "--block", "svt_automatn")
    assert proc.returncode == 2 and proc.stdout == ""
    assert "no block named `svt_automatn`" in proc.stderr and "did you mean `svt_automaton`?" in proc.stderr
    proc = dslc("graph", "examples/svt.dp", "--block", "zzz")
    assert proc.returncode == 2 and "blocks: svt, svt_automaton" in proc.stderr


def test_missing_file_and_empty_input_exit_2():
    proc = dslc("graph", "no/such/file.dp")
    assert proc.returncode == 2 and "E004" in proc.stderr
    proc = dslc("graph", "-", stdin="")
    assert proc.returncode == 2 and "E006" in proc.stderr
    proc = dslc("graph", "examples/svt.dp", "--format", "png")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    proc = dslc("graph", "examples")
    assert proc.returncode == 2 and "is a folder" in proc.stderr


def test_hostile_file_names_never_crash(capsys):
    from dslc.cli import main
    for name in ("a\x00b.dp", "\x1b[2J", ""):
        assert main(["graph", name.encode().decode("unicode_escape")]) == 2
        out, err = capsys.readouterr()
        assert out == "" and "internal error" not in err and "\x1b" not in err


def test_a_broken_block_does_not_stop_another_from_being_drawn(tmp_path):
    text = (ROOT / "examples" / "svt.dp").read_text(encoding="utf-8") + "\nautomaton broken { state q0 }\n"
    path = tmp_path / "two.dp"
    path.write_text(text, encoding="utf-8")
    proc = dslc("graph", str(path))
    assert proc.returncode == 2 and "cannot draw `broken`" in proc.stderr
    proc = dslc("graph", str(path), "--block", "svt_automaton", "--format", "mermaid")
    assert proc.returncode == 0 and proc.stdout.startswith("flowchart LR")


def test_not_drawable_error_for_a_broken_block():
    result = checked(ROOT / "tests" / "golden" / "syntax_errors.dp")
    with pytest.raises(NotDrawable, match="has errors"):
        block_graph(result.blocks[0])


def test_reads_standard_input():
    text = (ROOT / "examples" / "chain_worked.dp").read_text(encoding="utf-8")
    proc = dslc("graph", "-", "--format", "mermaid", stdin=text)
    assert proc.returncode == 0
    assert re.search(r'b0_s0 -->\|"6/7"\| b0_s0', proc.stdout)




def test_release_has_no_picture():
    proc = dslc("graph", "examples/release.dp")
    assert proc.returncode == 2 and "`release` blocks have no picture" in proc.stderr
    assert "Traceback" not in proc.stderr
