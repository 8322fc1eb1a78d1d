"""The one diagnostic model shared by every phase and every renderer.

A diagnostic is a one-line message that stands alone, a code from the
registry (:mod:`dslc.diagnostics.codes`), labelled spans (one primary, any
number of secondary), notes and help lines.  Backends build these; renderers
only format them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import Any

from dslc.source import Span


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value


class Verbatim(str):
    """A note printed as it is, on one line of its own: a command to paste into
    a shell.  Renderers never wrap it (a wrapped command runs as several)."""

    __slots__ = ()


@dataclass
class Label:
    span: Span
    message: str = ""
    primary: bool = False


@dataclass
class Diagnostic:
    code: str
    message: str
    severity: Severity = Severity.ERROR
    labels: list[Label] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    help: list[str] = field(default_factory=list)
    # Machine-readable extras (witness, counterexample, ...), copied to JSON.
    data: dict[str, Any] = field(default_factory=dict)

    # -- building -----------------------------------------------------------
    def primary_at(self, span: Span, message: str = "") -> "Diagnostic":
        self.labels.insert(0, Label(span, message, primary=True))
        return self

    def secondary(self, span: Span, message: str = "") -> "Diagnostic":
        self.labels.append(Label(span, message, primary=False))
        return self

    def note(self, text: str) -> "Diagnostic":
        self.notes.append(text)
        return self

    def with_help(self, text: str) -> "Diagnostic":
        self.help.append(text)
        return self

    # -- reading ------------------------------------------------------------
    @property
    def primary(self) -> Label | None:
        for label in self.labels:
            if label.primary:
                return label
        return self.labels[0] if self.labels else None

    @property
    def span(self) -> Span | None:
        label = self.primary
        return label.span if label else None

    @property
    def related(self) -> list[Label]:
        first = self.primary
        return [label for label in self.labels if label is not first]

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


def error(code: str, message: str, span: Span | None = None, label: str = "") -> Diagnostic:
    """Shorthand for an error diagnostic with a primary label."""
    diag = Diagnostic(code=code, message=message)
    if span is not None:
        diag.primary_at(span, label)
    return diag


class DiagnosticError(Exception):
    """Raised inside a phase to abort it with one or more diagnostics."""

    def __init__(self, *diagnostics: Diagnostic):
        super().__init__(diagnostics[0].message if diagnostics else "")
        self.diagnostics = list(diagnostics)
