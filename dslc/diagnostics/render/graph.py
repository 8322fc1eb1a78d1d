"""Pictures of blocks as text: DOT (Graphviz), Mermaid and JSON, from the
graphs of :mod:`dslc.graph`; SVG through Graphviz's ``dot`` when it is
installed.  Renderers never analyse: every fact drawn is in the graph.

Edges on a violation's cycle or path carry ``class="DP00N"`` (the codes of
their violations) and are red; in Mermaid they get a red ``linkStyle``.
Labels are escaped for each format: control characters are made visible
(``\\u{1b}``), quotes, backslashes, ``<``, ``>``, ``&`` and ``#`` cannot end
or change a label; ε, ⊤, ⊥ and other Unicode text is written as is (UTF-8).
"""

from __future__ import annotations

import json
import shutil
import subprocess

import networkx as nx

from dslc.diagnostics.render.display import visible

FORMATS = ("dot", "mermaid", "json", "svg")
RED = "#d62728"
FONT = "Helvetica"
DOT_TIMEOUT = 60.0       # seconds for `dot -Tsvg`


def _is_violation(cls: str) -> bool:
    return cls.startswith("DP")


# ---------------------------------------------------------------- DOT
def dot_string(text: str) -> str:
    """A DOT double-quoted string holding ``text`` literally (one line)."""
    text = visible(text, one_line=True)
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    # Graphviz reads HTML entities in labels: write `&` as one
    text = text.replace("&", "&amp;")
    return f'"{text}"'


def _dot_label(lines: list[str], align: str = "\\n") -> str:
    body = "".join(dot_string(line)[1:-1] + align for line in lines)
    if align == "\\n":
        body = body[:-2]
    return f'"{body}"'


def _attrs(pairs: list[tuple[str, str]]) -> str:
    return "[" + ", ".join(f"{k}={v}" for k, v in pairs) + "]"


def _dot_block(g: nx.MultiDiGraph, prefix: str, indent: str) -> list[str]:
    out: list[str] = []

    def nid(node: str) -> str:
        return dot_string(prefix + node)

    initial = [n for n, d in g.nodes(data=True) if d.get("initial")]
    if initial:
        out.append(f'{indent}{nid("start")} [shape=point, width=0.08, label="", class="start"];')
    for n, d in g.nodes(data=True):
        classes = [d.get("role", "state")] + (["initial"] if d.get("initial") else []) + list(d["classes"])
        attrs = [("label", _dot_label(d["label"])), ("class", dot_string(" ".join(classes)))]
        if d.get("role") == "observation":
            attrs += [("shape", "box"), ("style", '"filled"'), ("fillcolor", '"#eeeeee"')]
        if d.get("terminal"):
            attrs.append(("peripheries", "2"))
        if any(_is_violation(c) for c in d["classes"]):
            attrs += [("color", f'"{RED}"'), ("fontcolor", f'"{RED}"'), ("penwidth", "2")]
        out.append(f"{indent}{nid(n)} {_attrs(attrs)};")
    for n in initial:
        out.append(f'{indent}{nid("start")} -> {nid(n)} [class="start"];')
    for u, v, k, d in g.edges(keys=True, data=True):
        attrs = [("label", _dot_label(d["label"]))]
        if d["classes"]:
            attrs.append(("class", dot_string(" ".join(d["classes"]))))
        if d.get("role") == "emission":
            attrs += [("style", "dashed"), ("arrowhead", "open")]
        if any(_is_violation(c) for c in d["classes"]):
            attrs += [("color", f'"{RED}"'), ("fontcolor", f'"{RED}"'), ("penwidth", "2")]
        elif "heaviest" in d["classes"]:
            attrs += [("penwidth", "2.5"), ("style", "bold")]
        out.append(f"{indent}{nid(u)} -> {nid(v)} {_attrs(attrs)};")
    return out


def _caption(g: nx.MultiDiGraph) -> list[str]:
    return [g.graph["title"]] + list(g.graph.get("notes", []))


def render_dot(graphs: list[nx.MultiDiGraph], name: str = "dslc") -> str:
    """One ``digraph``; several blocks become one cluster each."""
    one = len(graphs) == 1
    title = graphs[0].graph["name"] if one else name
    out = [f"digraph {dot_string(title)} {{"]
    graph_attrs = [("rankdir", "LR"), ("fontname", f'"{FONT}"'), ("fontsize", "12"),
                   ("labelloc", "t"), ("labeljust", "l")]
    if one:
        graph_attrs.append(("label", _dot_label(_caption(graphs[0]), "\\l")))
    out.append(f"  graph {_attrs(graph_attrs)};")
    out.append(f'  node [fontname="{FONT}", fontsize=11, shape=box, style=rounded];')
    out.append(f'  edge [fontname="{FONT}", fontsize=10];')
    if one:
        out += _dot_block(graphs[0], "", "  ")
    else:
        for i, g in enumerate(graphs):
            out.append(f'  subgraph "cluster_{i}" {{')
            out.append(f"    graph {_attrs([('label', _dot_label(_caption(g), chr(92) + 'l'))])};")
            out += _dot_block(g, f"b{i}_", "    ")
            out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- Mermaid
_MERMAID_ESCAPES = {'"': "#quot;", "#": "#35;", "&": "#amp;", "<": "#lt;", ">": "#gt;",
                    "`": "#96;", "|": "#124;", "\\": "#92;"}


def mermaid_text(text: str) -> str:
    """``text`` for inside a quoted Mermaid label (entity codes for the
    characters Mermaid would read as syntax or HTML)."""
    text = visible(text, one_line=True)
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in text)


def _mermaid_label(lines: list[str]) -> str:
    return '"' + "<br/>".join(mermaid_text(line) for line in lines) + '"'


def render_mermaid(graphs: list[nx.MultiDiGraph]) -> str:
    """A Mermaid flowchart (renders in GitHub Markdown): one subgraph per block."""
    out = ["flowchart LR"]
    red_links: list[int] = []
    bold_links: list[int] = []
    node_classes: dict[str, list[str]] = {}
    link = 0
    for i, g in enumerate(graphs):
        p = f"b{i}_"
        for line in _caption(g):
            out.append(f"  %% {visible(line, one_line=True)}")
        out.append(f"  subgraph b{i} [{_mermaid_label([g.graph['title']])}]")
        out.append("    direction LR")
        initial = [n for n, d in g.nodes(data=True) if d.get("initial")]
        if initial:
            out.append(f'    {p}start((" "))')
            node_classes.setdefault("start", []).append(f"{p}start")
        for n, d in g.nodes(data=True):
            shape = ("[", "]") if d.get("role") == "observation" else ("(", ")")
            if d.get("terminal"):
                shape = ("((", "))")
            out.append(f"    {p}{n}{shape[0]}{_mermaid_label(d['label'])}{shape[1]}")
            for c in d["classes"]:
                if _is_violation(c):
                    node_classes.setdefault("leak", []).append(f"{p}{n}")
                    break
            if d.get("role") == "observation":
                node_classes.setdefault("observation", []).append(f"{p}{n}")
        for n in initial:
            out.append(f"    {p}start --> {p}{n}")
            link += 1
        for u, v, k, d in g.edges(keys=True, data=True):
            arrow = "-.->" if d.get("role") == "emission" else "-->"
            out.append(f"    {p}{u} {arrow}|{_mermaid_label(d['label'])}| {p}{v}")
            if any(_is_violation(c) for c in d["classes"]):
                red_links.append(link)
            elif "heaviest" in d["classes"]:
                bold_links.append(link)
            link += 1
        out.append("  end")
    out.append("  classDef start fill:#000,stroke:#000")
    out.append(f"  classDef leak stroke:{RED},stroke-width:2px,color:{RED}")
    out.append("  classDef observation fill:#eee,stroke:#888")
    for cls, nodes in node_classes.items():
        out.append(f"  class {','.join(nodes)} {cls}")
    if bold_links:
        out.append(f"  linkStyle {','.join(map(str, bold_links))} stroke-width:3px")
    if red_links:
        out.append(f"  linkStyle {','.join(map(str, red_links))} stroke:{RED},stroke-width:2px,color:{RED}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- JSON
def graph_json(g: nx.MultiDiGraph) -> dict:
    """A graph as JSON values: its attributes, nodes and edges (in order)."""
    return {
        "block": g.graph["name"],
        "kind": g.graph["kind"],
        "verdict": g.graph["verdict"],
        "title": g.graph["title"],
        "summary": g.graph.get("summary", ""),
        "notes": list(g.graph.get("notes", [])),
        "initial": [n for n, d in g.nodes(data=True) if d.get("initial")],
        "nodes": [{"id": n, **d} for n, d in g.nodes(data=True)],
        "edges": [{"source": u, "target": v, **d} for u, v, _, d in g.edges(keys=True, data=True)],
        "violations": list(g.graph.get("violations", [])),
    }


def render_json(graphs: list[nx.MultiDiGraph], path: str | None = None) -> str:
    return json.dumps({"file": path, "graphs": [graph_json(g) for g in graphs]}, ensure_ascii=False,
                      indent=1)


# ---------------------------------------------------------------- SVG
class GraphvizMissing(Exception):
    """`dot` is not on PATH."""

    message = "`--format svg` needs Graphviz's `dot`, which is not on PATH"
    help = ("install Graphviz (`apt-get install graphviz`, `brew install graphviz`), "
            "or use `--format dot` and render the DOT elsewhere")


class GraphvizFailed(Exception):
    """`dot` ran and failed."""


def render_svg(dot: str, timeout: float = DOT_TIMEOUT) -> str:
    exe = shutil.which("dot")
    if exe is None:
        raise GraphvizMissing(GraphvizMissing.message)
    try:
        proc = subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise GraphvizFailed(f"`dot -Tsvg` did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise GraphvizFailed(f"could not run `dot`: {exc}") from None
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GraphvizFailed(f"`dot -Tsvg` failed: {err[0] if err else f'exit status {proc.returncode}'}")
    return proc.stdout.decode("utf-8", "replace")


def render(graphs: list[nx.MultiDiGraph], fmt: str, path: str | None = None) -> str:
    """The text of ``graphs`` in format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "dot":
        return render_dot(graphs, path or "dslc")
    if fmt == "mermaid":
        return render_mermaid(graphs)
    if fmt == "json":
        return render_json(graphs, path) + "\n"
    if fmt == "svg":
        return render_svg(render_dot(graphs, path or "dslc"))
    raise ValueError(f"unknown graph format {fmt!r}")


__all__ = ["FORMATS", "render", "render_dot", "render_mermaid", "render_json", "render_svg", "graph_json",
           "dot_string", "mermaid_text", "GraphvizMissing", "GraphvizFailed"]
