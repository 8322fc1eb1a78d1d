"""One check of one document version, as the server keeps it.

:func:`analyse` runs in a worker thread: it calls the driver exactly as
``dslc check`` does (no second analysis), finds the extent of every block
(for document symbols and position look-ups) and renders the diagnostics for
the protocol, so the event loop only has to send them.
"""

from __future__ import annotations

import bisect
import logging
import traceback
from dataclasses import dataclass, field

from lsprotocol import types as lsp

from dslc.diagnostics.render.lsp import SOURCE, UTF16, PositionEncoder, file_diagnostics
from dslc.driver import CheckCancelled, check_source
from dslc.results import BlockResult, FileResult
from dslc.source import SourceFile
from dslc.syntax.split import split_blocks

log = logging.getLogger(__name__)

# The options `dslc check` uses by default, so that the editor shows what CI shows.
CHECK_OPTIONS = {"witness": False, "epsilon": None, "timeout": 60.0}


@dataclass
class Extent:
    start: int
    end: int
    block: BlockResult


@dataclass
class Analysis:
    uri: str
    generation: int
    version: int | None
    text: str
    result: FileResult | None
    diagnostics: list[lsp.Diagnostic]
    encoder: PositionEncoder
    extents: list[Extent] = field(default_factory=list)   # sorted by start
    _starts: list[int] = field(default_factory=list, repr=False)

    def block_at(self, offset: int) -> BlockResult | None:
        """The block whose text contains ``offset`` (its closing brace included)."""
        i = bisect.bisect_right(self._starts, offset) - 1
        if i >= 0 and offset <= self.extents[i].end:
            return self.extents[i].block
        return None


def block_extents(source: SourceFile, result: FileResult) -> list[Extent]:
    """Pair every block result with the text range of its block.

    Uses the driver's own splitter; a block is matched by its name span, and a
    block that cannot be matched gets the extent of its name."""
    chunks, _ = split_blocks(source)
    by_name = {c.name_span.start: c for c in chunks}
    out = []
    for b in result.blocks:
        if b.span is None:
            continue
        chunk = by_name.get(b.span.start)
        if chunk is not None:
            out.append(Extent(chunk.start, chunk.end, b))
        else:
            out.append(Extent(b.span.start, b.span.end, b))
    out.sort(key=lambda e: e.start)
    return out


def internal_error(exc: BaseException) -> lsp.Diagnostic:
    return lsp.Diagnostic(
        range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
        message=f"dslc: internal error while checking this file: {type(exc).__name__}: {exc}\n"
                "This is a bug in dslc, not in your file.",
        severity=lsp.DiagnosticSeverity.Error, source=SOURCE)


def analyse(uri: str, path: str, text: str, generation: int, version: int | None, *,
            encoding: str = UTF16, related_information: bool = True, tags: bool = True,
            options: dict | None = None, cancelled=None) -> Analysis:
    """Check ``text`` as the file ``path`` and render the result for ``uri``.
    Never raises: a bug in a phase becomes one internal-error diagnostic."""
    encoder = PositionEncoder(text, encoding)
    source = SourceFile(path, text)
    try:
        opts = dict(options or CHECK_OPTIONS)
        if cancelled is not None:
            opts["cancelled"] = cancelled
        result = check_source(source, opts)
        diagnostics = file_diagnostics(result, uri, encoding=encoding, encoder=encoder,
                                       related_information=related_information, tags=tags)
        extents = block_extents(source, result)
    except CheckCancelled:       # the text changed meanwhile: nothing to publish
        return Analysis(uri, generation, version, text, None, [], encoder)
    except Exception as exc:  # noqa: BLE001 - the server must survive any bug in a phase
        log.error("internal error while checking %s: %s: %s", uri, type(exc).__name__, exc)
        log.debug("%s", traceback.format_exc())
        return Analysis(uri, generation, version, text, None, [internal_error(exc)], encoder)
    analysis = Analysis(uri, generation, version, text, result, diagnostics, encoder, extents)
    analysis._starts = [e.start for e in extents]
    return analysis
