"""What the commands `prob`, `run`, `calibrate` and `release` share: usage
errors, number arguments and the choice of a block."""

from __future__ import annotations

import argparse
import re
import sys
from contextlib import contextmanager
from fractions import Fraction

from dslc import limits

from dslc.dipa.paths import PathTextError, parse_number
from dslc.ir.dipa import DiPA


class UsageError(PathTextError):
    """A bad argument: message and optional help line; exit status 2."""


def allow_negative_values(parser) -> None:
    """Let `--inputs -1/2,0` pass a value that starts with a minus sign.

    argparse takes such a word for an option unless it looks like a negative
    number to it; widen its notion of a negative number (no option of these
    commands starts with `-` and a digit)."""
    if hasattr(parser, "_negative_number_matcher"):
        parser._negative_number_matcher = re.compile(r"^-[\d.∞]|^-inf")


def timeout_arg(text: str) -> float:
    """argparse type of ``--timeout``: positive and finite seconds."""
    try:
        return limits.parse_timeout(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_timeout(parser, what: str) -> None:
    parser.add_argument("--timeout", type=timeout_arg, default=limits.DEFAULT_TIMEOUT, metavar="SECONDS",
                        help=f"time allowed to {what}, every phase included (default "
                             f"{limits.DEFAULT_TIMEOUT:g}); past it the command stops with exit 2")


@contextmanager
def time_budget(seconds: float, what: str):
    """Run the body under a ``seconds`` budget; a spent budget becomes a
    UsageError naming ``what`` (exit 2, one line, never a partial result)."""
    try:
        with limits.scope(limits.Deadline(seconds)):
            yield
    except limits.Cancelled as exc:
        if exc.reason != "timeout":
            raise
        raise UsageError(f"{what} did not finish within the time limit of {seconds:g} s",
                         "raise it with --timeout SECONDS") from None


def fail(exc: PathTextError) -> int:
    print(f"dslc: error: {exc}", file=sys.stderr)
    if exc.help:
        print(f"  help: {exc.help}", file=sys.stderr)
    return 2


def parse_epsilon(text: str) -> Fraction:
    eps = parse_number(text, "ε")
    if eps <= 0:
        raise UsageError(f"ε must be positive, got {text.strip()}", "for example --epsilon 1 or --epsilon 1/2")
    return eps


def load_dipa(path: str, block: str | None) -> DiPA:
    """The lowered DiPA of a block of ``path``; UsageError if there is none."""
    return load_dipa_block(path, block).ir


def load_dipa_block(path: str, block: str | None, several_ok: bool = False):
    """The result of a valid DiPA block of ``path`` (its ``syntax`` is the
    AST and its ``ir`` the DiPA); UsageError if there is none.  A block with
    several stored variables (a MultiDiPA) only with ``several_ok``."""
    from dslc.pipeline import Options, check_source, read_source
    from dslc.results import Verdict

    source, problem = read_source(path)
    if source is None:
        raise UsageError(problem.message if problem else f"cannot read {path}")
    options = Options.of({"lower_bound_work": 0})     # the IR is wanted, not the bounds
    if path.endswith(".dipa"):            # DiPAut's format: one automaton named after the file
        from dslc.pipeline_dipaut import check_dipaut_source
        result = check_dipaut_source(source, options)
    else:
        result = check_source(source, options)
    dipas = [b for b in result.blocks if b.kind in ("automaton", "mechanism")]
    if block is None:
        if len(dipas) == 1:
            chosen = dipas[0]
        elif not dipas:
            names = ", ".join(f"`{b.name}`" for b in result.blocks) or "none"
            raise UsageError(f"{path} has no DiPA block (automaton or mechanism); blocks: {names}")
        else:
            names = ", ".join(b.name for b in dipas)
            raise UsageError(f"{path} has {len(dipas)} DiPA blocks: {names}",
                             f"choose one with --block NAME (e.g. --block {dipas[0].name})")
    else:
        matches = [b for b in result.blocks if b.name == block]
        if not matches:
            names = ", ".join(b.name for b in result.blocks) or "none"
            from dslc.diagnostics.suggest import did_you_mean
            close = did_you_mean(block, [b.name for b in result.blocks])
            raise UsageError(f"no block named `{block}` in {path}; blocks: {names}", *([close] if close else []))
        chosen = matches[0]
        if chosen.kind not in ("automaton", "mechanism"):
            raise UsageError(f"block `{block}` is a `{chosen.kind}` block, not a DiPA "
                             "(automaton or mechanism)")
    dipa = chosen.ir
    if type(dipa).__name__ == "DiscreteProgram":
        raise UsageError(f"block `{chosen.name}` has discrete noise and is checked by the bounded checker, "
                         "not as a DiPA", "`dslc prob` replays its probabilities (docs/discrete.md)")
    if chosen.verdict is Verdict.ERROR or dipa is None:
        first = next((d for d in chosen.diagnostics if d.is_error), None)
        why = f": {first.code} {first.message}" if first else ""
        raise UsageError(f"block `{chosen.name}` is not a valid DiPA{why}",
                         f"run `dslc check {path}` for the details")
    if not several_ok and not isinstance(dipa, DiPA):
        raise UsageError(f"block `{chosen.name}` has several stored variables; this command works on "
                         "blocks with one stored variable for now",
                         f"`dslc check {path}` decides it and `dslc run` runs it")
    return chosen


