"""One check of one document version, as the server keeps it.

:func:`analyse` runs in a worker thread: it calls the driver exactly as
``dslc check`` does (no second analysis), finds the extent of every block
(for document symbols and position look-ups) and renders the diagnostics for
the protocol, so the event loop only has to send them.  With a
:class:`~dslc.lsp.blocks.BlockCache` only the blocks whose text changed since
the last check are checked again; the others' results are moved to their new
place (:mod:`dslc.lsp.blocks`).
"""

from __future__ import annotations

import bisect
import logging
import traceback
from dataclasses import dataclass, field

from lsprotocol import types as lsp

from dslc.diagnostics.model import Diagnostic, Label
from dslc.diagnostics.render.lsp import SOURCE, UTF16, PositionEncoder, file_diagnostics
from dslc.lsp.blocks import BlockCache, Extent, Round, TrackedSource
from dslc.pipeline import CheckCancelled, check_source
from dslc.results import BlockResult, FileResult, Verdict
from dslc.source import SourceFile, Span
from dslc.syntax.split import split_blocks

log = logging.getLogger(__name__)

# The options `dslc check` uses by default, so that the editor shows what CI shows;
# without the per-transition lists of JSON's "details" (`Options.details`),
# which the editor never shows and which would tie every DiPA block's result
# to the line it starts on (see dslc/lsp/blocks.py).
CHECK_OPTIONS = {"witness": False, "epsilon": None, "timeout": 60.0, "details": False}


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
    run: Round | None = field(default=None, repr=False)    # a check through the cache: what it did

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


def _summary(exc: BaseException) -> str:
    text = str(exc).split("\n", 1)[0]
    if len(text) > 200:
        text = text[:197] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def block_internal_error(span: Span, what: str, exc: BaseException) -> Diagnostic:
    """A bug inside one block, located at its name (the other blocks keep their results)."""
    return Diagnostic("E000", f"internal error while checking {what}: {_summary(exc)}",
                      labels=[Label(span, "dslc failed on this block", primary=True)],
                      help=["this is a bug in dslc, not in your file; the other blocks were checked"])


def render(result: FileResult, uri: str, encoder: PositionEncoder, **kw) -> list[lsp.Diagnostic]:
    """The diagnostics of ``result`` for the protocol; a block whose
    diagnostics cannot be rendered gets one internal-error diagnostic."""
    try:
        return file_diagnostics(result, uri, encoder=encoder, **kw)
    except Exception as exc:  # noqa: BLE001 - render block by block
        log.error("internal error while rendering the diagnostics of %s: %s", uri, _summary(exc))
    out: list[lsp.Diagnostic] = []
    parts = [FileResult(result.path, result.source, diagnostics=list(result.diagnostics))]
    parts += [FileResult(result.path, result.source, blocks=[b]) for b in result.blocks]
    for part in parts:
        try:
            out += file_diagnostics(part, uri, encoder=encoder, **kw)
        except Exception as exc:  # noqa: BLE001
            span = part.blocks[0].span if part.blocks else None
            fallback = FileResult(result.path, result.source, diagnostics=[block_internal_error(
                span or result.source.span(0, 0), "the diagnostics of this block", exc)])
            out += file_diagnostics(fallback, uri, encoder=encoder, **kw)
    return out


def analyse(uri: str, path: str, text: str, generation: int, version: int | None, *,
            encoding: str = UTF16, related_information: bool = True, tags: bool = True,
            options: dict | None = None, cancelled=None, cache: BlockCache | None = None) -> Analysis:
    """Check ``text`` as the file ``path`` and render the result for ``uri``.
    With ``cache``, blocks whose text is unchanged since an earlier check
    through the same cache are not checked again (the diagnostics are the
    same).  Never raises: a bug in one block becomes an internal-error
    diagnostic at that block (the others keep theirs); a bug outside the
    blocks one internal-error diagnostic at the top of the file."""
    encoder = PositionEncoder(text, encoding)
    try:
        opts = dict(options or CHECK_OPTIONS)
        if cancelled is not None:
            opts["cancelled"] = cancelled
        run: Round | None = None
        if cache is not None:
            source: SourceFile = TrackedSource(path, text)
            result, run = cache.check(source, opts)      # every block isolated by the pipeline
        else:
            source = SourceFile(path, text)
            result = check_source(source, opts)
        for d in result.all_diagnostics:
            if d.code == "E000":
                log.error("%s: %s", uri, d.message)
        diagnostics = render(result, uri, encoder, encoding=encoding,
                             related_information=related_information, tags=tags)
        try:
            extents = run.placed if run is not None else block_extents(source, result)
        except Exception as exc:  # noqa: BLE001 - no hover or outline, but the diagnostics stand
            log.error("internal error while locating the blocks of %s: %s", uri, _summary(exc))
            extents = []
    except CheckCancelled:       # the text changed meanwhile: nothing to publish
        return Analysis(uri, generation, version, text, None, [], encoder)
    except Exception as exc:  # noqa: BLE001 - the server must survive any bug in a phase
        log.error("internal error while checking %s: %s", uri, _summary(exc))
        log.debug("%s", traceback.format_exc())
        return Analysis(uri, generation, version, text, None, [internal_error(exc)], encoder)
    analysis = Analysis(uri, generation, version, text, result, diagnostics, encoder, extents, run=run)
    analysis._starts = [e.start for e in extents]
    return analysis
