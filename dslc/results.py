"""Results of checking: one per block, grouped by file.

Backends fill these in; renderers format them.  Nothing here prints.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import Any

from dslc.diagnostics.model import Diagnostic, Label
from dslc.source import SourceFile, Span


class Verdict(str, enum.Enum):
    PRIVATE = "private"
    NOT_PRIVATE = "not-private"
    ERROR = "error"
    UNKNOWN = "unknown"


@dataclass
class BlockResult:
    """What checking one block produced.

    The verdict and its presentation (``summary``, ``diagnostics``,
    ``cost_labels``, ``details``) are what renderers read.  The products of
    the phases — ``syntax`` (the block's syntax tree), ``ir`` (what it lowers
    to: a :class:`~dslc.ir.dipa.DiPA`, a Markov model, a chain) and
    ``analysis`` (the backend's result: the DiPA checker's ``CheckResult``, the
    bounded check's outcome, the chain's calibration) — are kept for
    in-process consumers (the language server, ``prob``/``run``/``release``)
    and never serialised.
    """
    name: str
    kind: str                      # automaton | mechanism | hmm | mdp | chain
    span: Span | None              # the block's header (name) span
    verdict: Verdict
    d: Fraction | None = None      # DiPA blocks that are private
    diagnostics: list[Diagnostic] = field(default_factory=list)
    summary: str = ""              # one line for the text renderer ("ε-differentially private ...")
    cost_labels: list[Label] = field(default_factory=list)   # the costs shown with --explain
    details: dict[str, Any] = field(default_factory=dict)    # backend facts, copied into JSON "details"
    # DiPA blocks whose automaton is well-formed: d_upper, d_lower, d_lower_witness,
    # tight, budget (docs/checker.md) — keys of the block's JSON object itself
    bounds: dict[str, Any] = field(default_factory=dict)
    syntax: Any = field(default=None, repr=False)    # phase products (see above)
    ir: Any = field(default=None, repr=False)
    analysis: Any = field(default=None, repr=False)
    features: dict[str, Any] = field(default_factory=dict, repr=False)  # editor extras: "symbols", "hover"


@dataclass
class FileResult:
    path: str
    source: SourceFile | None
    blocks: list[BlockResult] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)  # not inside any block

    @property
    def all_diagnostics(self) -> list[Diagnostic]:
        out = list(self.diagnostics)
        for block in self.blocks:
            out.extend(block.diagnostics)
        return out


def exit_status(files: list[FileResult]) -> int:
    """0: every block passes; 1: a violation was found; 2: something could not be checked.

    A violation wins over an error so that CI fails loudly on a real leak
    even when another file is broken.  (Documented in docs/cli.md.)
    """
    verdicts = [b.verdict for f in files for b in f.blocks]
    if any(v is Verdict.NOT_PRIVATE for v in verdicts):
        return 1
    if any(v in (Verdict.ERROR, Verdict.UNKNOWN) for v in verdicts):
        return 2
    if any(d.is_error for f in files for d in f.diagnostics):
        return 2
    return 0
