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

FORMATS = ("text", "concise", "json", "gcc", "sarif", "github", "junit")


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="check every block of .dp files or folders",
                       description="Check every block of the given .dp files (folders are searched "
                                   "recursively, as ruff searches them; `-` reads standard input; a named .dipa file is read in DiPAut's format; no "
                                   "path: the project of the configuration, or the working folder). "
                                   "Settings come from [tool.dslc] in pyproject.toml or a dslc.toml; "
                                   "flags override them. Exit status: 0 every block passes; 1 a privacy "
                                   "violation was found; 2 an input could not be checked; 130 interrupted.")
    p.add_argument("paths", nargs="*", metavar="PATH", help=".dp file or folder, .dipa file, or - for standard input")
    p.add_argument("--format", "--output-format", dest="format", choices=FORMATS, default=None,
                   help="output format (default: text, or `output-format` of the configuration)")
    p.add_argument("--output-file", "-o", metavar="FILE", default=None,
                   help="write the output to FILE instead of standard output")
    p.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when a violation is found (still 2 when an input cannot be checked)")
    p.add_argument("--explain", action="store_true",
                   help="for private DiPA blocks, show the cost of each critical transition (with "
                        "--format json: list every critical transition, however many)")
    p.add_argument("--witness", action="store_true",
                   help="for violations, construct adjacent inputs and show the privacy loss")
    p.add_argument("--epsilon", default=None, help="ε used for witness tables (default: chosen per witness)")
    p.add_argument("--timeout", type=timeout_arg, default=None, metavar="SECONDS",
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
    p.add_argument("--max-file-size", type=size_arg, default=None, metavar="SIZE",
                   help="largest input file, in bytes or with K, M, G (default 256M; an automaton of "
                        "10^7 states is about 1.3G)")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="print only the findings: no progress, no verdict lines, no count")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print, on standard error, the configuration used and the time of each block")
    # discrete mechanisms (docs/discrete.md)
    p.add_argument("--backend", choices=("auto", "bounded"), default="auto",
                   help="mechanisms: `bounded` checks them with the bounded checker (exact, up to a "
                        "horizon) instead of as DiP automata (default auto: discrete noise goes there)")
    p.add_argument("--horizon", type=horizon_arg, default=None, metavar="K",
                   help="bounded mechanisms: the number of reads checked (default: the block's `horizon`, or 4)")
    g = p.add_argument_group("file discovery and configuration")
    g.add_argument("--config", metavar="FILE", default=None,
                   help="the configuration file (default: dslc.toml or pyproject.toml found above the paths)")
    g.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    g.add_argument("--exclude", type=_patterns, action="extend", default=None, metavar="PATTERNS",
                   help="comma-separated glob patterns to leave out (replaces the default list)")
    g.add_argument("--extend-exclude", type=_patterns, action="extend", default=None, metavar="PATTERNS",
                   help="comma-separated glob patterns to leave out, in addition to the default list")
    g.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                   help="skip files that .gitignore files ignore (default: on)")
    g.add_argument("--force-exclude", action=argparse.BooleanOptionalAction, default=None,
                   help="apply the exclusions to files named on the command line too (default: off)")
    g.add_argument("--stdin-filename", metavar="PATH", default=None,
                   help="the name of the file read from standard input, in diagnostics")
    p.set_defaults(func=run)


def _patterns(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def horizon_arg(text: str) -> int:
    """argparse type of ``--horizon``: an integer from 1 to 64."""
    try:
        k = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not 1 <= k <= 64:
        raise argparse.ArgumentTypeError("the horizon must be between 1 and 64")
    return k


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
    from dslc.commands.check_run import run_check
    return run_check(args)
