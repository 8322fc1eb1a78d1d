"""`dslc check PATH...`"""

from __future__ import annotations

import gc
import os
import sys

from rich.console import Console

from dslc import limits
from dslc.commands.common import timeout_arg
from dslc.pipeline import Options, check_paths
from dslc.results import exit_status

FORMATS = ("text", "json", "gcc", "sarif")


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="check every block of .dp files or folders",
                       description="Check every block of the given .dp files (folders are searched "
                                   "recursively; `-` reads standard input). Exit status: 0 every block "
                                   "passes; 1 a privacy violation was found; 2 an input could not be "
                                   "checked; 130 interrupted.")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".dp file or folder, or - for standard input")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--explain", action="store_true",
                   help="for private DiPA blocks, show the cost of each critical transition")
    p.add_argument("--witness", action="store_true",
                   help="for violations, construct adjacent inputs and show the privacy loss")
    p.add_argument("--epsilon", default=None, help="ε used for witness tables (default: chosen per witness)")
    p.add_argument("--timeout", type=timeout_arg, default=limits.DEFAULT_TIMEOUT, metavar="SECONDS",
                   help="time allowed to each block, every phase included (default 60); a block "
                        "that needs longer gets the verdict unknown (E014)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour in text output (NO_COLOR is honoured)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display on the terminal")
    p.set_defaults(func=run)


def console(color: str, stream=None) -> Console:
    no_color = color == "never" or (color == "auto" and os.environ.get("NO_COLOR"))
    return Console(file=stream or sys.stdout, highlight=False, soft_wrap=True,
                   no_color=bool(no_color), force_terminal=True if color == "always" else None,
                   emoji=False, markup=False)


def run(args) -> int:
    # A short-lived process that builds many small objects and no cycles:
    # the cyclic garbage collector only costs time here (half of it on large
    # automata), so it is switched off for the run.
    gc.disable()
    options = Options(witness=args.witness, epsilon=args.epsilon, timeout=args.timeout,
                      explain=args.explain, details=args.format in ("json", "sarif"))
    from dslc.commands.progress import progress_display
    with progress_display(enabled=not args.quiet, what="checking") as show:
        files = check_paths(args.paths, options, progress=show)
    fmt = args.format
    if fmt == "json":
        from dslc.diagnostics.render.json import render_json
        sys.stdout.write(render_json(files) + "\n")
    elif fmt == "gcc":
        from dslc.diagnostics.render.gcc import render_gcc
        sys.stdout.write(render_gcc(files))
    elif fmt == "sarif":
        from dslc.diagnostics.render.sarif import render_sarif
        sys.stdout.write(render_sarif(files) + "\n")
    else:
        from dslc.diagnostics.render.text import render_results
        console(args.color).print(render_results(files, explain=args.explain), end="")
    return exit_status(files)
