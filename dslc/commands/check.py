"""`dslc check PATH...`"""

from __future__ import annotations

import argparse
import gc
import math
import os
import re
import sys
from fractions import Fraction
from typing import TYPE_CHECKING

from dslc import limits
from dslc.pipeline import Options, check_paths
from dslc.results import exit_status

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("text", "json", "gcc", "sarif")


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="check every block of .dp files or folders",
                       description="Check every block of the given .dp files (folders are searched "
                                   "recursively; `-` reads standard input; a named .dipa file is read in "
                                   "DiPAut's format). Exit status: 0 every block "
                                   "passes; 1 a privacy violation was found; 2 an input could not be "
                                   "checked; 130 interrupted.")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".dp file or folder, .dipa file, or - for standard input")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: text)")
    p.add_argument("--explain", action="store_true",
                   help="for private DiPA blocks, show the cost of each critical transition")
    p.add_argument("--witness", action="store_true",
                   help="for violations, construct adjacent inputs and show the privacy loss")
    p.add_argument("--epsilon", default=None, help="ε used for witness tables (default: chosen per witness)")
    p.add_argument("--timeout", type=timeout_arg, default=limits.DEFAULT_TIMEOUT, metavar="SECONDS",
                   help="time allowed to each block, every phase included (default 60); a block "
                        "that needs longer gets the verdict unknown (E014)")
    p.add_argument("--max-d", type=max_d_arg, default=None, metavar="D",
                   help="privacy budget for every automaton and mechanism block: pass only if proven "
                        "dε-private for every ε with d ≤ D (an exact number: 1, 3/2, 0.75); "
                        "budget not proven is DP005, budget exceeded DP006")
    p.add_argument("--lower-bound-work", type=work_arg, default=None, metavar="N",
                   help="work for the search of a lower bound on d, per private DiPA block, counted "
                        "so that the output never depends on the machine (default 40000, or 1000000 "
                        "when a budget is above the upper bound; 0: no search)")
    p.add_argument("--lower-bound-time", type=seconds_arg, default=None, metavar="SECONDS",
                   help="deprecated: the same as --lower-bound-work SECONDS×333333")
    p.add_argument("--max-file-size", type=size_arg, default=limits.MAX_FILE_BYTES, metavar="SIZE",
                   help="largest input file, in bytes or with K, M, G (default 256M; an automaton of "
                        "10^7 states is about 1.3G)")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                   help="colour in text output (NO_COLOR is honoured)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display on the terminal")
    p.set_defaults(func=run)


def timeout_arg(text: str) -> float:
    """argparse type of ``--timeout``: positive and finite seconds (as
    :func:`dslc.commands.common.timeout_arg`, whose imports a check does not need)."""
    try:
        return limits.parse_timeout(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def size_arg(text: str) -> int:
    """argparse type of ``--max-file-size``: a positive number of bytes, with
    an optional K, M or G (powers of 1024)."""
    m = re.fullmatch(r"\s*([0-9]+)\s*([KMG]?)i?B?\s*", text, re.I)
    if m is None or int(m.group(1)) == 0:
        raise argparse.ArgumentTypeError(f"`{text}` is not a size such as 256M, 2G or 1000000")
    return int(m.group(1)) * 1024 ** " KMG".index(m.group(2).upper() or " ")


def max_d_arg(text: str) -> Fraction:
    """argparse type of ``--max-d``: an exact, non-negative rational."""
    t = text.strip()
    if len(t) > 40:
        raise argparse.ArgumentTypeError(f"`{t[:40]}…` is too long for a budget")
    if t.startswith(("-", "−")) and _RATIONAL.match(t[1:]):
        raise argparse.ArgumentTypeError(f"the budget must not be negative, got {t}")
    try:
        if not _RATIONAL.match(t):
            raise ValueError
        value = Fraction(t)
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"`{t}` is not an exact number such as 1, 3/2 or 0.75 "
                                         "(d of the budget dε)") from None
    return value


def work_arg(text: str) -> int:
    """argparse type of ``--lower-bound-work``: a non-negative integer."""
    t = text.strip().replace("_", "")
    if not re.fullmatch(r"[0-9]{1,15}", t):
        raise argparse.ArgumentTypeError(f"`{text}` is not a whole number of work units such as 40000 (0: no search)")
    return int(t)


def seconds_arg(text: str) -> float:
    """argparse type of ``--lower-bound-time``: 0 or a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a number of seconds") from None
    if not (value >= 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"the time must be 0 or a positive number of seconds, not `{text}`")
    return value


_RATIONAL = re.compile(r"^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)(/[0-9]+)?$")


def console(color: str, stream=None) -> Console:
    from rich.console import Console
    no_color = color == "never" or (color == "auto" and os.environ.get("NO_COLOR"))
    return Console(file=stream or sys.stdout, highlight=False, soft_wrap=True,
                   no_color=bool(no_color), force_terminal=True if color == "always" else None,
                   emoji=False, markup=False)


def styled(color: str, stream) -> bool:
    """Whether text output gets colour (else it is written as plain text,
    without loading rich): as rich's console decides for ``console(color)``."""
    if color == "always":
        return True
    if color == "never" or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def run(args) -> int:
    # A short-lived process that builds many small objects and no cycles:
    # the cyclic garbage collector only costs time here (half of it on large
    # automata), so it is switched off for the run.
    gc.disable()
    options = Options(witness=args.witness, epsilon=args.epsilon, timeout=args.timeout,
                      explain=args.explain, details=args.format in ("json", "sarif"),
                      max_d=args.max_d, lower_bound_work=args.lower_bound_work,
                      lower_bound_time=args.lower_bound_time,
                      max_file_bytes=args.max_file_size)
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
        if styled(args.color, sys.stdout):
            console(args.color).print(render_results(files, explain=args.explain), end="")
        else:
            sys.stdout.write(render_results(files, explain=args.explain, styled=False).plain)
    return exit_status(files)
