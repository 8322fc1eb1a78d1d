"""The `dslc` command line.

Subcommands are small modules with ``add_parser(subparsers)`` and
``run(args) -> int``; :data:`COMMANDS` lists them.  No traceback ever reaches
a user: unexpected exceptions are reported as internal errors (exit 2).
"""

from __future__ import annotations

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
    ("dslc.commands.import_dipa", "import", "print the .dp automaton of a DiPAut .dipa file"),
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
    import argparse
    parser = argparse.ArgumentParser(prog="dslc", description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=version_line(),
                        help="show the version and whether the C module is in use, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name, name, help_line in COMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        module.add_parser(sub)
        command = sub.choices.get(name)
        if command is not None and "--color" not in command._option_string_actions:
            # every subcommand takes --color (those without coloured output accept and ignore it)
            command.add_argument("--color", choices=("auto", "always", "never"), default=None,
                                 help="colour: auto (default; NO_COLOR is honoured), always or never")
    return parser


def version_line() -> str:
    """`dslc --version`: the version and the C module's state (imports
    nothing heavy: no argparse parsers of the commands, no lark, no rich)."""
    from dslc import native
    return f"dslc {__version__} ({native.state()})"


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
    real = sys.stdout
    sys.stdout = _Output(real)
    try:
        status = _main(argv)
        if real is not None and not getattr(real, "closed", False):   # (the language server closes it)
            sys.stdout.flush()          # a full disk or a closed pipe is found here, not at exit
        return status
    except KeyboardInterrupt:
        _say("dslc: interrupted")
        return 130
    except OutputError as exc:
        _silence(real)
        _say(f"dslc: error: cannot write output: {exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - the last line of defence
        if os.environ.get("DSLC_DEBUG"):
            raise
        _say(f"dslc: internal error: {type(exc).__name__}: {exc}\n"
             "This is a bug in dslc, not in your file; set DSLC_DEBUG=1 for details.")
        return 2
    finally:
        sys.stdout = real


def _main(argv: list[str]) -> int:
    if argv[:1] in (["--version"], ["-V"]) and len(argv) == 1:     # fast: no parser is built
        print(version_line())
        return 0
    command = _command_of(argv)
    parser = build_parser(only=command) if command is not None else build_parser()
    try:
        args, extra = parser.parse_known_args(argv)
        if extra:
            # an unknown flag after a subcommand: that subcommand's usage, not the top-level one
            sub = _subparsers(parser).get(getattr(args, "command", None) or "")
            (sub or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as exc:        # argparse: usage errors exit 2, --help/--version 0
        return int(exc.code or 0)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    import argparse
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


class OutputError(Exception):
    """Standard output cannot be written (a full disk, a closed pipe, a closed
    descriptor): the command's result did not reach its reader."""


class _Output:
    """Standard output for the duration of a command: every write and flush
    that fails becomes :class:`OutputError`, which :func:`main` reports in one
    line with exit status 2.  That is the one place where output errors are
    handled, for every subcommand; a broken pipe (`dslc check x.dp | head -0`)
    is such an error too, never a success (the reader did not get the verdict)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        return self._do("write", text)

    def writelines(self, lines):
        return self._do("writelines", lines)

    def flush(self):
        return self._do("flush")

    def _do(self, method, *args):
        if self.stream is None:         # started with descriptor 1 closed
            raise OutputError("standard output is closed")
        try:
            return getattr(self.stream, method)(*args)
        except UnicodeError:            # not a fault of the stream
            raise
        except ValueError as exc:       # a closed file object
            raise OutputError(f"standard output is closed ({exc})") from None
        except OSError as exc:
            raise OutputError(exc.strerror or str(exc)) from None

    def isatty(self):
        try:
            return self.stream is not None and self.stream.isatty()
        except (OSError, ValueError):
            return False

    def __getattr__(self, name):
        if self.stream is None:
            raise AttributeError(name)
        return getattr(self.stream, name)


def _silence(stream) -> None:
    """After a failed write: point descriptor 1 at /dev/null, so the data still
    buffered in ``stream`` is dropped when Python flushes it at exit (instead
    of a second error and exit status 120)."""
    try:
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, fd)
        finally:
            os.close(null)
    except (AttributeError, ValueError, OSError):
        pass


def _say(line: str) -> None:
    """A line on standard error (which may be closed or full too: then nothing)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (AttributeError, ValueError, OSError):
        pass
