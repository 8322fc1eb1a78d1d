"""Split a file into its top-level blocks before parsing.

Each block is parsed on its own, so one syntax error does not hide the
verdicts of the other blocks.  The splitter understands comments, strings and
brace nesting; it reports text outside blocks (E007), unterminated comments
(E003) and braces nested deeper than :data:`MAX_DEPTH` (E005), which keeps the
statement compiler of mechanisms clear of Python's recursion limit.
(Parentheses need no limit: expressions are parsed and evaluated without
recursion; any other RecursionError becomes E005 in the driver.)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dslc.diagnostics.model import Diagnostic, error
from dslc.source import SourceFile, Span

from dslc.kinds import KEYWORDS as BLOCK_KEYWORDS  # noqa: E402
MAX_DEPTH = 200

_KW = "|".join(BLOCK_KEYWORDS)
# Between a block's keyword and its name: the spaces the grammar skips (the
# no-break space U+00A0 among them) and the unusual spaces that the parser
# reports as E021 and reads on past (dslc/syntax/lookalike.py), so the block
# keeps its name in every report.
_HEADER_SPACE = "[ \t\f\r\n\u00a0\u2000-\u200d\u202f\u205f\u2060\u3000\ufeff\u180e]"
_HEADER = re.compile(rf"({_KW})\b{_HEADER_SPACE}*([A-Za-z_][A-Za-z0-9_]*)?")
_TOKEN = re.compile(
    r"//[^\n]*+|/\*(?:[^*]|\*(?!/))*\*/|(?P<open_comment>/\*)|\"[^\"\n]*\"|(?P<brace>[{}])"
    rf"|(?P<newkw>(?<=\n)(?:{_KW})\b)",
    re.S,
)
_SKIP = re.compile(r"(?:\s+|//[^\n]*+|/\*(?:[^*]|\*(?!/))*\*/)*", re.S)


@dataclass
class Chunk:
    keyword: str
    name: str | None
    start: int
    end: int
    name_span: Span
    complete: bool = True         # False when the closing brace is missing
    fatal: Diagnostic | None = None  # an error found while splitting (nesting)


def split_blocks(source: SourceFile) -> tuple[list[Chunk], list[Diagnostic]]:
    text = source.text
    n = len(text)
    chunks: list[Chunk] = []
    diags: list[Diagnostic] = []
    pos = 0
    while True:
        pos = _SKIP.match(text, pos).end()
        if pos >= n:
            break
        if text.startswith("/*", pos):
            diags.append(error("E003", "unterminated block comment",
                               source.span(pos, pos + 2), "this `/*` is never closed")
                         .with_help("close the comment with `*/`"))
            break
        header = _HEADER.match(text, pos) or _misspelled_header(text, pos)
        if not header and text.startswith("}", pos):
            diag = error("E007", "this `}` closes no block", source.span(pos, pos + 1),
                         "no block is open here")
            if chunks:
                last = chunks[-1]
                line = source.line_col(last.end - 1)[0] if last.end > last.start else 1
                diag.secondary(last.name_span, f"this block already ended on line {line}")
                diag.with_help("remove this `}`, or look in the block above for a `}` too many "
                               "(or a missing `{`)")
            else:
                diag.with_help("remove this `}`")
            diags.append(diag)
            pos += 1
            continue
        if not header:
            end = _next_block_start(text, pos)
            line_end = text.find("\n", pos)
            line_end = n if line_end == -1 or line_end > end else line_end
            diags.append(error("E007", "expected a block (`automaton`, `mechanism`, `hmm`, `mdp` or `chain`)",
                               source.span(pos, max(pos + 1, min(line_end, pos + 80))),
                               "this is outside of any block")
                         .with_help("put declarations inside `automaton NAME { ... }` or "
                                    "`mechanism NAME { ... }`, or turn this line into a `//` comment"))
            pos = end
            continue
        keyword, name = header.group(1), header.group(2)
        keyword = _KEYWORD_OF.get(keyword, keyword)
        if name:
            name_span = source.span(header.start(2), header.end(2))
        else:
            name_span = source.span(header.start(1), header.end(1))
        chunk = _large_automaton(source, name, pos, header.end(), name_span) if keyword == "automaton" else None
        if chunk is None:
            chunk = _scan_block(source, keyword, name, pos, header.end(), name_span)
        chunks.append(chunk)
        pos = chunk.end
    return chunks, diags


_WORD_HEADER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]+([A-Za-z_][A-Za-z0-9_]*)?(?=[ \t]*[({])")
_KEYWORD_OF: dict[str, str] = {}


def _misspelled_header(text: str, pos: int) -> re.Match | None:
    """`mechansim m {`: a word close to a block keyword, then a name and `{`
    or `(`, is taken for that block (the parser reports the misspelling, E020,
    and checks the rest of the block)."""
    m = _WORD_HEADER.match(text, pos)
    if m is None or not m.group(2):
        return None
    from dslc.diagnostics.suggest import closest
    best = closest(m.group(1), BLOCK_KEYWORDS, ratio=None)
    if best is None:
        return None
    _KEYWORD_OF[m.group(1)] = best
    return m


def _next_block_start(text: str, pos: int) -> int:
    m = re.compile(rf"\n(?={_KW}\b)").search(text, pos)
    return m.start() + 1 if m else len(text)


def _large_automaton(source: SourceFile, name: str | None, start: int, pos: int,
                     name_span: Span) -> Chunk | None:
    """A large `automaton` block that the flat reader reads up to the next
    block (dslc/syntax/fast_automaton.py): its extent without a scan of every
    brace, and its columns read once."""
    from dslc.syntax.fast_automaton import FLAT_MIN_CHARS, read_block_flat
    limit = _next_block_start(source.text, pos)
    if limit - start < FLAT_MIN_CHARS:
        return None
    end = read_block_flat(source, start, limit)
    return None if end is None else Chunk("automaton", name, start, end, name_span)


def _scan_block(source: SourceFile, keyword: str, name: str | None,
                start: int, pos: int, name_span: Span) -> Chunk:
    text = source.text
    braces = 0           # nesting of { }
    opened = False
    overrun = False      # past a `}` that closed the block too early (see _closes_too_early)
    for m in _TOKEN.finditer(text, pos):
        if m.group("open_comment"):
            # An unterminated comment: the parser reports it at its place.
            return Chunk(keyword, name, start, len(text), name_span, complete=False)
        if m.group("newkw") is not None:
            if opened and (braces > 0 or overrun):
                # A new block starts at the beginning of a line while this one
                # is still open: assume its closing brace is missing.
                return Chunk(keyword, name, start, m.start(), name_span, complete=False)
            if not opened:
                return Chunk(keyword, name, start, m.start(), name_span, complete=False)
            continue
        ch = m.group("brace")
        if ch is None:
            continue
        if ch == "{":
            braces += 1
            opened = True
            if braces > MAX_DEPTH:
                diag = error("E005", f"braces are nested more than {MAX_DEPTH} levels deep",
                             source.span(m.start(), m.end()), "this brace is too deep")
                diag.with_help("flatten the program; deeply nested code is not supported")
                end = _next_block_start(text, m.end())
                return Chunk(keyword, name, start, end, name_span, complete=False, fatal=diag)
        else:
            braces -= 1
            if opened and braces <= 0:
                if _closes_too_early(text, start, m.start()):
                    overrun = True
                    continue
                return Chunk(keyword, name, start, m.end(), name_span, complete=not overrun)
    return Chunk(keyword, name, start, len(text), name_span, complete=False)


def _indent(text: str, pos: int) -> tuple[str, bool]:
    """(the indentation of the line holding ``pos``, whether ``pos`` starts it)."""
    line_start = text.rfind("\n", 0, pos) + 1
    prefix = text[line_start:pos]
    stripped = prefix.lstrip(" \t")
    return prefix[:len(prefix) - len(stripped)], not stripped


def _closes_too_early(text: str, header: int, close: int) -> bool:
    """A `}` that balances the block's braces but is indented deeper than the
    block's header, while a later `}` (before the next block) stands at the
    header's indentation: a `{` is missing inside the block (`loop` without
    its `{`), and the block really ends at that later `}`.  Reading on lets the
    parser report the missing `{` instead of stray text after the block."""
    indent, first = _indent(text, close)
    head_indent, _ = _indent(text, header)
    if not first or len(indent) <= len(head_indent):
        return False
    limit = _next_block_start(text, close + 1)
    closer = re.compile(rf"^{re.escape(head_indent)}\}}", re.M)
    return closer.search(text, close + 1, limit) is not None
