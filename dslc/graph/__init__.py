"""Pictures of blocks, as data: the graph a checked block stands for.

:func:`block_graph` turns the result of one block (the pipeline's
:class:`~dslc.results.BlockResult`, with the IR and the checker's findings in
its ``ir`` and ``analysis``) into a :class:`networkx.MultiDiGraph` — a ``DiGraph`` that
keeps one edge per transition even when two transitions join the same pair
of states.  The renderers of :mod:`dslc.diagnostics.render.graph` export it
to DOT, Mermaid and JSON; nothing here formats or prints.

Every graph has the same shape, whatever the block kind:

- ``G.graph``: ``name``, ``kind``, ``verdict``, ``title`` (one line),
  ``notes`` (lines), ``summary`` (the verdict line of `dslc check`),
  ``violations`` (one dict per violation: ``code``,
  ``message``, ``edges`` — the ids of the edges of its cycle or path — and
  kind-specific facts), ``explain`` (costs shown).
- nodes (ids ``s0``, ``s1``, … for states, ``o0``, … for observations):
  ``name``, ``label`` (a list of lines), ``role`` (``state``,
  ``observation``), ``initial``, ``terminal``, ``classes`` (the codes of the
  violations the node lies on), ``line`` (its source line, or None).
- edges (keys ``t0``, ``t1``, … in the IR's order): ``id`` (the key),
  ``label`` (lines), ``role`` (``transition``, ``emission``), ``classes``
  (violation codes; ``heaviest`` for the heaviest path under ``--explain``),
  ``line`` and kind-specific facts (guard, output, store, cost, probability).

Every value is a string, a number, a bool, None or a list or dict of them,
so the JSON export is the graph itself.  Exact numbers are strings made by
:mod:`dslc.numbers` (``5/9``), never floats.
"""

from __future__ import annotations

import networkx as nx

from dslc.results import BlockResult, Verdict


class NotDrawable(Exception):
    """A block that has no picture (errors, no verdict): message and help line."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.message = message
        self.help = help


def new_graph(block: BlockResult, title: str, notes: list[str] | None = None) -> nx.MultiDiGraph:
    return nx.MultiDiGraph(name=block.name, kind=block.kind, verdict=block.verdict.value, title=title,
                           notes=list(notes or []), violations=[], explain=False,
                           summary=block.summary or "")


def verdict_text(block: BlockResult) -> str:
    if block.verdict is Verdict.PRIVATE:
        return "private"
    if block.verdict is Verdict.NOT_PRIVATE:
        codes = sorted({d.code for d in block.diagnostics if d.is_error})
        return "not private" + (f": {', '.join(codes)}" if codes else "")
    return block.verdict.value


def violation_title(code: str) -> str:
    """`leaking cycle` for DP001: the registry's title of a code, in words."""
    from dslc.diagnostics.codes import lookup
    info = lookup(code)
    return info.title.replace("-", " ") if info is not None else code


def mark(g: nx.MultiDiGraph, edges: list[tuple[str, str, str]], code: str) -> None:
    """Add ``code`` to the classes of the edges (u, v, key) and of their ends."""
    for u, v, k in edges:
        classes = g.edges[u, v, k]["classes"]
        if code not in classes:
            classes.append(code)
        for node in (u, v):
            nclasses = g.nodes[node]["classes"]
            if code not in nclasses:
                nclasses.append(code)


def block_graph(block: BlockResult, explain: bool = False) -> nx.MultiDiGraph:
    """The picture of a checked block; :class:`NotDrawable` if it has none."""
    if block.verdict is Verdict.ERROR:
        first = next((d for d in block.diagnostics if d.is_error), None)
        why = f": {first.code} {first.message}" if first else ""
        raise NotDrawable(f"{block.kind} `{block.name}` has errors and cannot be drawn{why}",
                          "fix the errors that `dslc check` reports")
    ir, analysis = block.ir, block.analysis
    if type(ir).__name__ == "DiscreteProgram":
        raise NotDrawable(f"mechanism `{block.name}` has discrete noise: it is checked by the bounded "
                          "checker and has no automaton to draw", "see docs/discrete.md")
    if block.kind in ("automaton", "mechanism"):
        from dslc.graph.dipa import dipa_graph
        if ir is None or analysis is None:
            raise _no_verdict(block)
        return dipa_graph(block, ir, analysis, explain=explain)
    if block.kind in ("hmm", "mdp"):
        from dslc.graph.markov import markov_graph
        if ir is None:
            raise _no_verdict(block)
        return markov_graph(block, ir, getattr(analysis, "outcome", None))
    if block.kind == "chain":
        from dslc.graph.chain import chain_graph
        if ir is None:
            raise _no_verdict(block)
        return chain_graph(block, ir)
    if block.kind == "release":
        raise NotDrawable("`release` blocks have no picture",
                          "a release composes other blocks: draw those (`dslc graph FILE --block NAME` on the "
                          "file that defines each callee)")
    raise NotDrawable(f"`{block.kind}` blocks have no picture")


def _no_verdict(block: BlockResult) -> NotDrawable:
    if block.verdict is Verdict.UNKNOWN:
        return NotDrawable(f"{block.kind} `{block.name}` got no verdict ({block.summary or 'unknown'})",
                           "raise the limit with `--timeout SECONDS`")
    return NotDrawable(f"{block.kind} `{block.name}` cannot be drawn: it was not analysed")


__all__ = ["NotDrawable", "block_graph", "new_graph", "verdict_text", "violation_title", "mark"]
