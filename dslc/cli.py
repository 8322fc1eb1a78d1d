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

# Modules that define subcommands (module path, command name).
COMMANDS = [
    ("dslc.commands.check", "check"),
    ("dslc.commands.explain", "explain"),
    ("dslc.commands.prob", "prob"),
    ("dslc.commands.run", "run"),
    ("dslc.commands.lsp", "lsp"),
    ("dslc.commands.calibrate", "calibrate"),
    ("dslc.commands.release", "release"),
]

DESCRIPTION = """\
dslc checks differential-privacy mechanisms written in `.dp` files.

  dslc check svt.dp            verdict for every block (exit 0 private, 1 violation, 2 error)
  dslc check examples/ --format json
  dslc explain DP001           what a diagnostic code means
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dslc", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"dslc {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name, _ in COMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        module.add_parser(sub)
    return parser


class _Parser(argparse.ArgumentParser):
    pass


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
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
