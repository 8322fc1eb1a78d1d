"""`dslc graph FILE [--block NAME] --format dot|mermaid|json|svg [--explain]`

The picture of a block: the automaton a DiPA block lowers to, the states,
observations and probabilities of an `hmm`/`mdp`, the chain of a `chain`
block, with the edges of every violation drawn red (docs/cli.md).
"""

from __future__ import annotations

import sys

from dslc import limits
from dslc.diagnostics.suggest import did_you_mean

FORMATS = ("dot", "mermaid", "json", "svg")


def timeout_arg(text: str) -> float:
    """argparse type of ``--timeout``: positive and finite seconds."""
    import argparse
    try:
        return limits.parse_timeout(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_parser(sub) -> None:
    p = sub.add_parser("graph", help="draw the automaton or model of a block (DOT, Mermaid, JSON, SVG)",
                       description="Print the graph of the blocks of FILE: for `automaton` and `mechanism` "
                                   "blocks the DiP automaton (a mechanism's states labelled with their "
                                   "source lines), for `hmm`/`mdp` and `chain` blocks the states and "
                                   "probabilities. The edges of every violation's cycle or path are red "
                                   "and carry class=\"CODE\". Exit status: 0 drawn; 2 the file or block "
                                   "cannot be drawn.")
    p.add_argument("file", metavar="FILE", help=".dp file, or - for standard input")
    p.add_argument("--block", default=None, metavar="NAME", help="draw only this block (default: every block)")
    p.add_argument("--format", choices=FORMATS, default="dot", help="output format (default: dot); "
                   "svg runs Graphviz's `dot -Tsvg`")
    p.add_argument("--explain", action="store_true",
                   help="for private DiPA blocks, label each critical transition with its cost")
    p.add_argument("--timeout", type=timeout_arg, default=limits.DEFAULT_TIMEOUT, metavar="SECONDS",
                   help="time allowed to the check of each block (default 60)")
    p.set_defaults(func=run)


def _error(message: str, help: str | None = None) -> int:
    from dslc.diagnostics.render.display import visible
    print(f"dslc: error: {visible(message, one_line=True)}", file=sys.stderr)
    if help:
        print(f"  help: {visible(help, one_line=True)}", file=sys.stderr)
    return 2


def _print_diagnostics(diags) -> None:
    from dslc.commands.check import console
    from dslc.diagnostics.render.text import render_diagnostic

    out = console("auto", sys.stderr)
    for d in diags:
        out.print(render_diagnostic(d), end="\n")


def run(args) -> int:
    from dslc.diagnostics.render.graph import GraphvizFailed, GraphvizMissing, render
    from dslc.graph import NotDrawable, block_graph
    from dslc.pipeline import Options, check_path
    from dslc.results import Verdict

    import os
    try:
        folder = os.path.isdir(args.file)
    except (ValueError, OSError):                  # a NUL byte in the name: refused below
        folder = False
    if folder:
        return _error(f"{args.file} is a folder", "`dslc graph` draws the blocks of one file; "
                                                  "give a .dp file (and --block NAME for one block)")
    options = Options(explain=args.explain, details=False, witness=False, timeout=args.timeout)
    try:
        result = check_path(args.file, options)
    except (OSError, ValueError) as exc:           # unreadable standard input, a NUL in the name
        return _error(f"cannot read {args.file}: {exc}")
    if result.source is None:                      # missing, unreadable, not UTF-8, too large
        _print_diagnostics(result.diagnostics)
        return 2
    blocks = result.blocks
    if args.block is not None:
        blocks = [b for b in result.blocks if b.name == args.block][:1]
        if not blocks:
            names = [b.name for b in result.blocks]
            hint = did_you_mean(args.block, names) or "blocks: " + (", ".join(names) if names else "none")
            return _error(f"no block named `{args.block}` in {args.file}", hint)
    else:
        file_errors = [d for d in result.diagnostics if d.is_error]
        if file_errors:
            _print_diagnostics(result.diagnostics)
            return 2
    broken = [b for b in blocks if b.verdict is Verdict.ERROR]
    if broken:
        _print_diagnostics([d for b in broken for d in b.diagnostics])
        names = ", ".join(f"`{b.name}`" for b in broken)
        return _error(f"cannot draw {names}: the block has errors" if len(broken) == 1
                      else f"cannot draw {names}: the blocks have errors",
                      f"run `dslc check {args.file}` for the details")
    if not blocks:
        return _error(f"{args.file} holds no block to draw")
    graphs = []
    for b in blocks:
        try:
            graphs.append(block_graph(b, explain=args.explain))
        except NotDrawable as exc:
            return _error(exc.message, exc.help)
    try:
        text = render(graphs, args.format, args.file)
    except GraphvizMissing as exc:
        return _error(str(exc), GraphvizMissing.help)
    except GraphvizFailed as exc:
        return _error(str(exc), "use --format dot and render the DOT with another tool")
    sys.stdout.write(text)
    return 0
