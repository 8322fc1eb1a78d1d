"""The `dslc` command line.

Subcommands are small modules with ``add_parser(subparsers)`` and
``run(args) -> int``; :data:`COMMANDS` lists them.  No traceback ever reaches
a user: unexpected exceptions are reported as internal errors (exit 2).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from dslc import __version__

# The subcommands: (module, name, one line of help).  Each module has
# ``add_parser(subparsers)`` and ``run(args) -> int``; only the module of the
# command being run is imported (start-up stays fast), the others appear in
# `dslc --help` through their line here.
COMMANDS = [
    ("dslc.commands.check", "check", "check every block of .dp files or folders"),
    ("dslc.commands.explain", "explain", "explain a diagnostic code (e.g. DP001)"),
    ("dslc.commands.prob", "prob", "probability of one path of a DiPA block"),
    ("dslc.commands.run", "run", "run a DiPA block on inputs (sampler)"),
    ("dslc.commands.audit", "audit", "test a Python implementation against a DiPA block (statistics)"),
    ("dslc.commands.graph", "graph", "draw the automaton or model of a block (DOT, Mermaid, JSON, SVG)"),
    ("dslc.commands.lsp", "lsp", "run the language server (LSP over stdio) for editors"),
    ("dslc.commands.calibrate", "calibrate", "noise scales for every `chain` block (Markov Quilt, Wasserstein, group DP)"),
    ("dslc.commands.release", "release", "release the query of a series with calibrated Laplace noise"),
]


DESCRIPTION = """\
dslc checks differential-privacy mechanisms written in `.dp` files.

  dslc check svt.dp            verdict for every block (exit 0 private, 1 violation, 2 error)
  dslc check examples/ --format json
  dslc explain DP001           what a diagnostic code means
"""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, the parser of that command alone
    (the other modules are not imported, and their parsers not built: the
    command is already known, so `dslc --help` is the only place they show)."""
    parser = argparse.ArgumentParser(prog="dslc", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dslc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name, name, help_line in COMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        module.add_parser(sub)
    return parser


def _command_of(argv: list[str]) -> str | None:
    """The subcommand named in ``argv`` (the first word that is not an option)."""
    names = {name for _, name, _ in COMMANDS}
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in names else None
    return None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = _command_of(argv)
    parser = build_parser(only=command) if command is not None else build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:        # argparse: usage errors exit 2, --help/--version 0
        return int(exc.code or 0)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("dslc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if os.environ.get("DSLC_DEBUG"):
            raise
        print(f"dslc: internal error: {type(exc).__name__}: {exc}\n"
              "This is a bug in dslc, not in your file; set DSLC_DEBUG=1 for details.", file=sys.stderr)
        return 2
