"""`.dipa` files (DiPAut's format) through the phases: read with
:mod:`dslc.ir.dipaut_reader` (errors located at line:column of the file,
E134), then analysed and reported by the several-variable backend
(:mod:`dslc.dipa.multi_backend`) as one `automaton` block named after the
file, inside the same time budget and exception guard as a `.dp` block.
"""

from __future__ import annotations

import os

from dslc import limits
from dslc.diagnostics.model import DiagnosticError, error
from dslc.ir.multi_dipa import MultiDiPA
from dslc.results import BlockResult, FileResult, Verdict
from dslc.source import SourceFile

SUFFIX = ".dipa"


def is_dipaut(path: str) -> bool:
    return path.endswith(SUFFIX)


def block_name(path: str) -> str:
    """The block's name: the file's stem, as a `.dp` name (`two_range_1`, `example_25_…`)."""
    stem = os.path.basename(path)[: -len(SUFFIX)] if is_dipaut(path) else os.path.basename(path)
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in stem) or "dipaut"
    return name if not name[0].isdigit() else "a_" + name


def read_dipaut(source: SourceFile) -> MultiDiPA:
    """The automaton of a `.dipa` file; raises :class:`DiagnosticError` (E134) located in the file."""
    from dslc.ir.dipaut_reader import DipautSyntaxError, TooLarge, to_multi
    try:
        return to_multi(source.text, block_name(source.path), source=source)
    except DipautSyntaxError as exc:
        if exc.line is not None:
            starts = [0]
            for line in source.text.split("\n"):
                starts.append(starts[-1] + len(line) + 1)
            at = starts[min(exc.line - 1, len(starts) - 1)] + (exc.col or 0)
            at = min(at, len(source.text))
            span = source.span(at, min(max(at, starts[exc.line - 1] + (exc.end or 0)), len(source.text)))
        else:
            span = source.span(0, 0)
        raise DiagnosticError(error("E134", f"not DiPAut's `.dipa` language: {exc}", span, "here")
                              .with_help("one state per line, e.g. `(q1:non-input,1/4,0): l:= insample; "
                                         "output obot; goto q2` (`dslc explain E134`)")) from None
    except TooLarge as exc:
        raise DiagnosticError(error("E134", f"this `.dipa` file is too large to read: {exc}", source.span(0, 0),
                                    "here").with_help("split the `if … elseif …` chain")) from None


def check_dipaut_source(source: SourceFile, options) -> FileResult:
    from dslc.dipa import multi_backend
    from dslc.pipeline import internal_error
    from dslc.syntax.split import Chunk
    result = FileResult(source.path, source)
    name = block_name(source.path)
    block = BlockResult(name, "automaton", source.span(0, 0), Verdict.ERROR)
    result.blocks.append(block)
    try:
        with limits.scope(limits.Deadline(options.timeout, options.cancelled)):
            try:
                m = read_dipaut(source)
            except DiagnosticError as exc:
                block.diagnostics.extend(exc.diagnostics)
                return result
            block.span = m.span or block.span
            analysis = multi_backend.analyse(m, options)
            multi_backend.report(m, analysis, block, options, source.path)
    except limits.Cancelled as exc:
        if exc.reason == "cancelled":
            from dslc.pipeline import CheckCancelled
            raise CheckCancelled() from None
        seconds = exc.seconds if exc.seconds is not None else options.timeout
        block.verdict = Verdict.UNKNOWN
        block.summary = f"unknown: the time limit of {seconds:g} s was reached"
        block.diagnostics.append(
            error("E014", f"no verdict for `{name}` within the time limit of {seconds:g} s", block.span,
                  "checking stopped here")
            .note("nothing is claimed about the privacy of this file")
            .with_help("raise the limit with `--timeout SECONDS`"))
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - a bug must not become a traceback
        if os.environ.get("DSLC_DEBUG"):
            raise
        block.verdict = Verdict.ERROR
        block.diagnostics.append(internal_error(Chunk("automaton", name, 0, len(source.text), block.span), exc))
    return result


def import_text(source: SourceFile) -> str:
    """The `.dp` automaton equivalent to a `.dipa` file (`dslc import`)."""
    from dslc.ir.print_dipa import multi_automaton_text
    m = read_dipaut(source)
    header = (f"// imported from {os.path.basename(source.path)} (DiPAut's .dipa format) by `dslc import`;\n"
              "// `if … elseif …` branches are written as exclusive conjunctions (first match)\n")
    return multi_automaton_text(m, header=header)
