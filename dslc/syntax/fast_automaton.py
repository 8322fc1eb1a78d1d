"""A fast path for parsing large `automaton` blocks.

Lark's LALR parser in pure Python costs ~20 µs per token, which makes a
100,000-state automaton take a minute.  Generated automata are regular in
shape, so this module reads an `automaton` block with a handful of anchored
regular expressions (one per state header and per transition) and builds
exactly the AST that :mod:`dslc.syntax.parser` builds, spans included.

It is only a fast path: whenever it meets anything it does not recognise it
returns ``None`` and the caller parses the block with Lark, which also owns
every syntax error.  ``tests/test_fast_parser.py`` checks that both parsers
give equal ASTs on random texts.

Large blocks (:data:`FLAT_MIN_CHARS` characters) are first read *flat*
(:func:`read_flat`): one regular expression per state, applied with
``findall`` to windows of the text, yields per state its name, the names
of its targets, and the rest of its text as a *shape* (the text between the
names: input kind, draws, guards, outputs, stores, spacing).  When the C
module is built, ``flat_rows`` in ``dslc/_native.c`` gives the same groups
for a window (or declines it, and the regular expression runs).  Generated
automata have a handful of distinct shapes; each is parsed once, by the
per-state reader below, with placeholder names.  No per-state object is
built: the result is a :class:`FlatAutomatonBlock`, whose columns the
lowering (:mod:`dslc.ir.lower_automaton`) turns into a flat DiPA directly,
and whose ``states`` are parsed on demand from the text, with exactly the
spans the per-state reader gives.  The flat reader accepts a subset of what
the per-state reader accepts (states with at most two transitions, no
comments) and declines the rest.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from itertools import chain, compress, repeat
from operator import eq, itemgetter

from dslc import limits
from dslc.source import SourceFile, Span
from dslc.syntax import ast

_WS = re.compile(r"(?:[ \t\f\r\n\u00a0]+|//[^\n]*+|/\*(?:[^*]|\*(?!/))*\*/)*", re.S)
_W = r"(?![A-Za-z0-9_])"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEAD = re.compile(r"automaton" + _W)
_NUMBER = re.compile(r"([0-9]+(\.[0-9]*)?|\.[0-9]+)")
_EPS = re.compile(r"ε|eps" + _W)
_OP = re.compile(r"[*·/+\-]")


class _Fail(Exception):
    pass


class _Reader:
    def __init__(self, source: SourceFile, start: int, end: int):
        self.file = source
        self.text = source.text
        self.pos = start
        self.end = end

    def ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos, self.end).end()

    def peek(self, regex) -> re.Match | None:
        self.ws()
        return regex.match(self.text, self.pos, self.end)

    def take(self, regex) -> re.Match:
        m = self.peek(regex)
        if m is None:
            raise _Fail
        self.pos = m.end()
        return m

    def lit(self, s: str) -> Span:
        self.ws()
        if not self.text.startswith(s, self.pos) or self.pos + len(s) > self.end:
            raise _Fail
        self.pos += len(s)
        return Span(self.file, self.pos - len(s), self.pos)

    def at(self, s: str) -> bool:
        self.ws()
        return self.text.startswith(s, self.pos) and self.pos + len(s) <= self.end

    def span(self, m: re.Match, group: int = 0) -> Span:
        return Span(self.file, m.start(group), m.end(group))


_S_COMMENTS = r"(?:[ \t\f\r\n\u00a0]+|//[^\n]*+|/\*(?:[^*]|\*(?!/))*\*/)*"
_S_PLAIN = r"[ \t\f\r\n\u00a0]*+"
_N = r"[A-Za-z_][A-Za-z0-9_]*+"
_ARG = r"([^(),]*?)"
# Words that are not names after a guard's comparison: there the grammar's
# parser state is shared with a mechanism's `if A >= B`, so its contextual
# lexer reads these as the keywords that start an expression (and Lark
# rejects `insample >= eps`).  tests/test_fast_parser.py derives the words
# Lark rejects in every name position and checks that this reader declines them.
GUARD_RESERVED = ("eps", "Lap", "read", "top", "bot", "DLap", "flip", "clamp")
_GUARD_NAME = rf"(?!(?:{'|'.join(GUARD_RESERVED)}){_W}){_N}"


def _patterns(_S: str) -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """The state-header, transition and separator patterns, for a given
    whitespace pattern (blocks without comments get a simpler, faster one)."""
    draw = rf"(Lap['′]|Lap{_W}){_S}\({_S}{_ARG}{_S},{_S}{_ARG}{_S}(\))"
    head = re.compile(
        rf"state{_W}{_S}({_N}){_S}(input|noinput){_W}{_S}{draw}(?:{_S},{_S}{draw})?{_S}\{{", re.S)
    trans = re.compile(
        rf"(?:(true){_W}|(insample)(?![A-Za-z0-9_'′]){_S}(>=|≥|<=|≤|<|>){_S}({_GUARD_NAME}))"
        rf"{_S}(?:->|→){_S}({_N})"
        rf"(?:{_S}(output){_W}{_S}(?:(insample['′])|(insample|top|bot){_W}|(⊤|⊥)|(\"[^\"\n]*\")|({_N})))?"
        rf"(?:{_S}(store){_W})?", re.S)
    skip = re.compile(rf"(?:{_S};)*{_S}", re.S)
    return head, trans, skip


_with_comments = lru_cache(maxsize=None)(lambda: _patterns(_S_COMMENTS))     # compiled when first needed
_WITHOUT_COMMENTS = _patterns(_S_PLAIN)


def parse_automaton_fast(source: SourceFile, start: int, end: int,
                         flat: bool | None = None) -> ast.AutomatonBlock | None:
    """The block's AST, or None when the fast path declines.  With ``flat``
    (by default for blocks of :data:`FLAT_MIN_CHARS` characters or more) the
    flat reader is tried first."""
    prepared = None if _PREPARED is None else _PREPARED.get(source, {}).pop((start, end), None)
    if prepared is not None:
        return prepared
    r = _Reader(source, start, end)
    text = source.text
    if flat is None:
        flat = end - start >= FLAT_MIN_CHARS
    try:
        head = r.take(_HEAD)
        name = r.take(_NAME)
        claims = _claims(r)
        r.lit("{")
        if flat:
            # no comments in the body, or the flat reader declines
            block = read_flat(source, head.start(), name, claims, r.pos, end)
            if block is not None:
                return block
        comments = text.find("//", start, end) >= 0 or text.find("/*", start, end) >= 0
        r.patterns = _with_comments() if comments else _WITHOUT_COMMENTS
        states: list[ast.StateDecl] = []
        skip = r.patterns[2]
        while True:
            r.pos = skip.match(text, r.pos, end).end()
            if text.startswith("}", r.pos):
                close_end = r.pos + 1
                r.pos = close_end
                break
            states.append(_state(r, text, end))
        r.ws()
        if r.pos != end:
            return None
    except _Fail:
        return None
    return ast.AutomatonBlock(Span(source, head.start(), close_end), name.group(), r.span(name),
                              states=states, claims=claims)


_CLAIM = re.compile(r"(budget|sensitivity)" + _W)


def _claims(r: _Reader) -> list[ast.Claim]:
    """`budget 3/2 ε`, `sensitivity 2` between the block's name and its body."""
    claims: list[ast.Claim] = []
    while True:
        m = r.peek(_CLAIM)
        if m is None:
            return claims
        r.pos = m.end()
        value = _expr(r)
        claims.append(ast.Claim(Span(r.file, m.start(), value.span.end), m.group(1), value, r.span(m)))


def _state(r: _Reader, text: str, end: int) -> ast.StateDecl:
    head, trans, skip = r.patterns
    m = head.match(text, r.pos, end)
    if m is None:
        raise _Fail
    file = r.file
    draws = [_draw(r, m, 3)]
    if m.group(7) is not None:
        draws.append(_draw(r, m, 7))
    r.pos = m.end()
    transitions = []
    while True:
        r.pos = skip.match(text, r.pos, end).end()
        if text.startswith("}", r.pos):
            close_end = r.pos + 1
            r.pos = close_end
            break
        t = trans.match(text, r.pos, end)
        if t is None:
            raise _Fail
        transitions.append(_transition(file, t))
        r.pos = t.end()
    return ast.StateDecl(Span(file, m.start(), close_end), m.group(1), Span(file, m.start(1), m.end(1)),
                         m.group(2) == "input", Span(file, m.start(2), m.end(2)), draws, transitions)


def _draw(r: _Reader, m: re.Match, g: int) -> ast.Draw:
    file = r.file
    rate = _expr_at(r, m.start(g + 1), m.end(g + 1))
    mean = _expr_at(r, m.start(g + 2), m.end(g + 2))
    kw = Span(file, m.start(g), m.end(g))
    return ast.Draw(Span(file, m.start(g), m.end(g + 3)), m.group(g) != "Lap", rate, mean, kw)


_TEMPLATES: dict[str, object] = {}


def _expr_at(r: _Reader, start: int, end: int) -> ast.Expr:
    """Parse an argument of `Lap` (compiled once per distinct text, then built in place)."""
    text = r.text[start:end]
    build = _TEMPLATES.get(text)
    if build is None:
        if "//" in text or "/*" in text:
            raise _Fail
        sub = _Reader(SourceFile("<template>", text), 0, len(text))
        template = _expr(sub)
        sub.ws()
        if sub.pos != len(text):
            raise _Fail
        build = _compile(template)
        if len(_TEMPLATES) < 10_000:
            _TEMPLATES[text] = build
    return build(r.file, start)


def _compile(node: ast.Expr):
    """A function (file, offset) -> a fresh copy of ``node`` with shifted spans."""
    a, b = node.span.start, node.span.end
    if isinstance(node, ast.Num):
        value = node.value
        return lambda f, d: ast.Num(Span(f, a + d, b + d), value)
    if isinstance(node, ast.Eps):
        return lambda f, d: ast.Eps(Span(f, a + d, b + d))
    if isinstance(node, ast.Neg):
        inner = _compile(node.operand)
        return lambda f, d: ast.Neg(Span(f, a + d, b + d), inner(f, d))
    if isinstance(node, ast.BinOp):
        left, right, op = _compile(node.left), _compile(node.right), node.op
        return lambda f, d: ast.BinOp(Span(f, a + d, b + d), op, left(f, d), right(f, d))
    raise _Fail


def _transition(file: SourceFile, t: re.Match) -> ast.TransitionDecl:
    g = t.groups()
    regs = t.regs                      # (start, end) of the match and of every group
    if g[0]:
        a, b = regs[1]
        guard = ast.GuardDecl(Span(file, a, b), "true")
        first = a
    else:
        op = g[2]
        first = regs[2][0]
        va, vb = regs[4]
        guard = ast.GuardDecl(Span(file, first, vb), _NORM.get(op, op), g[3], Span(file, va, vb))
    output = None
    if g[5]:
        for k in (6, 7, 8, 9, 10):
            if g[k] is not None:
                break
        span = Span(file, regs[6][0], regs[k + 1][1])
        v = g[k]
        if k == 6:
            output = ast.OutputDecl(span, "insample'")
        elif k == 7 and v == "insample":
            output = ast.OutputDecl(span, "insample")
        elif k == 7:
            output = ast.OutputDecl(span, "symbol", "⊤" if v == "top" else "⊥")
        elif k == 9:
            output = ast.OutputDecl(span, "symbol", v[1:-1])
        else:
            output = ast.OutputDecl(span, "symbol", v)
    store = Span(file, *regs[12]) if g[11] else None
    ta, tb = regs[5]
    return ast.TransitionDecl(Span(file, first, regs[0][1]), guard, g[4], Span(file, ta, tb), output, store)


_NORM = {"≥": ">=", "≤": "<="}


def _expr(r: _Reader) -> ast.Expr:
    """sum := product (('+'|'-') product)*, as in the grammar."""
    left = _product(r)
    while True:
        m = r.peek(_OP)
        if m is None or m.group() not in "+-":
            return left
        r.pos = m.end()
        right = _product(r)
        left = ast.BinOp(Span(r.file, left.span.start, right.span.end), m.group(), left, right)


def _product(r: _Reader) -> ast.Expr:
    left = _unary(r)
    while True:
        m = r.peek(_OP)
        if m is not None and m.group() in "*·/":
            r.pos = m.end()
            right = _unary(r)
            op = "*" if m.group() == "·" else m.group()
            left = ast.BinOp(Span(r.file, left.span.start, right.span.end), op, left, right)
            continue
        e = r.peek(_EPS)
        if e is not None:
            r.pos = e.end()
            eps = ast.Eps(r.span(e))
            left = ast.BinOp(Span(r.file, left.span.start, e.end()), "*", left, eps)
            continue
        return left


def _unary(r: _Reader) -> ast.Expr:
    m = r.peek(_OP)
    if m is not None and m.group() == "-":
        r.pos = m.end()
        operand = _unary(r)
        return ast.Neg(Span(r.file, m.start(), operand.span.end), operand)
    m = r.peek(_NUMBER)
    if m is not None:
        if len(m.group()) > limits.MAX_NUMBER_DIGITS:
            raise _Fail                     # Lark's parser reports it (E011)
        r.pos = m.end()
        return ast.Num(r.span(m), Fraction(m.group()))
    m = r.peek(_EPS)
    if m is not None:
        r.pos = m.end()
        return ast.Eps(r.span(m))
    raise _Fail




# ------------------------------------------------------------------ the flat reader
FLAT_MIN_CHARS = 50_000        # blocks at least this long are read flat
WINDOW_CHARS = 1 << 14         # the text is read in windows of about this many characters
LOCAL_TRIAL = 4096             # targets looked up near their state before judging whether that pays

_WS_CHARS = " \t\f\r\n\u00a0"
_MINUS_ONES = array("i", [-1]).tobytes()      # one -1 of an array("i"), as bytes
_SEP = r"[ \t\f\r\n\u00a0;]*+"          # ';' and spaces between items (the `skip` of plain blocks)
# A guard up to its arrow, as the per-state reader's transition pattern reads
# it; what a shape holds is checked by that reader, so a loose pattern here
# costs a decline at worst.
_GUARD_ARROW = rf"(?:true{_W}|insample(?![A-Za-z0-9_'′])[^-→{{}};]*+){_S_PLAIN}(?:->|→){_S_PLAIN}"
# What may follow a target: the per-state reader's output and store, exactly
# (transitions need no `;` between them).
_TAIL = (rf"(?:{_S_PLAIN}output{_W}{_S_PLAIN}(?:insample['′]|(?:insample|top|bot){_W}|⊤|⊥|\"[^\"\n]*\"|{_N}))?"
         rf"(?:{_S_PLAIN}store{_W})?")
# One state: its name, then the text up to its first target (or its `}`),
# the first target, the text up to the second target (or `}`), the second
# target, the rest up to `}`.  The last group catches anything else.
_FLAT_STATE = (
    rf"{_SEP}(?:state{_W}{_S_PLAIN}({_N})"
    rf"({_S_PLAIN}(?:input|noinput){_W}[^{{}}]*+\{{{_SEP}(?:\}}|{_GUARD_ARROW}()))"
    rf"(?(3)({_N})({_TAIL}{_SEP}(?:\}}|{_GUARD_ARROW}()))"
    rf"(?(6)({_N})({_TAIL}{_SEP}\}})))|(.))")
_flat_state = lru_cache(maxsize=None)(lambda: re.compile(_FLAT_STATE, re.S))   # compiled when first needed
_NAME_OF = itemgetter(0)
_TARGETS_OF = itemgetter(3, 6)
_SHAPE_OF = itemgetter(1, 4, 7)
_BAD_OF = itemgetter(8)


class Shape:
    """What states written alike share: input kind, draws, and per
    transition guard, output and store (ASTs with spans into a template)."""

    __slots__ = ("is_input", "draws", "transitions")

    def __init__(self, decl: ast.StateDecl):
        self.is_input = decl.is_input
        self.draws = decl.draws
        self.transitions = [(t.guard, t.output, t.store) for t in decl.transitions]


def _shape(key: tuple[str, str, str]) -> Shape | None:
    """Parse a shape: the state's text with every name replaced by `q`."""
    head, middle, rest = key
    text = "state q" + head + ("q" + middle if middle else "") + ("q" + rest if rest else "")
    r = _Reader(SourceFile("<shape>", text), 0, len(text))
    r.patterns = _WITHOUT_COMMENTS
    try:
        decl = _state(r, text, len(text))
    except _Fail:
        return None
    if r.pos != len(text) or len(decl.transitions) != bool(middle) + bool(rest):
        return None
    return Shape(decl)


class SpanNames:
    """The state names of a flat block as (start, end) offsets into the text,
    two per name in an array('q'): a name is sliced from the text when asked
    for, so a block of 10^7 states makes no string per state (the C reader
    and :func:`dslc.ir.lower_automaton._resolve` work on the offsets)."""

    __slots__ = ("text", "spans")

    def __init__(self, text: str):
        self.text = text
        self.spans = array("q")

    def __len__(self) -> int:
        return len(self.spans) >> 1

    def __getitem__(self, k: int) -> str:
        n = len(self.spans) >> 1
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("name index out of range")
        return self.text[self.spans[2 * k]:self.spans[2 * k + 1]]

    def __iter__(self):
        text, spans = self.text, self.spans
        return (text[spans[i]:spans[i + 1]] for i in range(0, len(spans), 2))


class FlatColumns:
    """The columns of a flat read: per state its name and shape, per
    transition its target's name; and the offsets of the windows, from
    which :meth:`state_decl` finds any state again.

    Two forms, one per reader: with the C module, ``names`` is a
    :class:`SpanNames` and ``target_spans`` holds every transition's target
    as offsets (``target_ids`` and ``targets`` are None); without it,
    ``names`` is a list of strings and the targets are ``target_ids`` and
    ``targets`` (below)."""

    def __init__(self, source: SourceFile, close: int, spans: bool = False):
        self.source = source
        self.close = close                           # offset of the block's closing `}`
        self.names: list[str] | SpanNames = SpanNames(source.text) if spans else []
        self.target_spans: array | None = array("q") if spans else None
        self.shape_id = array("i")
        self.shapes: list[Shape] = []
        # Per transition, the index of its target state when the name was found
        # among the states of its window or the next one, else -1 and the name
        # in ``targets`` (in order).  A name declared twice makes this a guess:
        # the lowering checks that every name is declared once before using it.
        self.target_ids: array | None = None if spans else array("i")
        self.targets: list[str] | None = None if spans else []     # dropped by the lowering
        self.wstart = array("q")                     # offset where each window starts
        self.wfirst = array("q")                     # index of each window's first state
        self._cursor = (-1, 0)                       # (state index, offset) of the next state

    def state_decl(self, k: int) -> ast.StateDecl:
        """State k parsed by the per-state reader, with its real spans."""
        text, close = self.source.text, self.close
        i, pos = self._cursor
        w = bisect_right(self.wfirst, k) - 1
        if not (self.wfirst[w] <= i <= k):
            i, pos = self.wfirst[w], self.wstart[w]
        match = _flat_state().match
        while i < k:
            pos = match(text, pos, close).end()
            i += 1
        r = _Reader(self.source, pos, close)
        r.patterns = _WITHOUT_COMMENTS
        r.pos = r.patterns[2].match(text, pos, close).end()
        try:
            decl = _state(r, text, close)
        except _Fail:
            decl = None
        if decl is None or decl.name != self.names[k] \
                or len(decl.transitions) != len(self.shapes[self.shape_id[k]].transitions):
            raise AssertionError(f"the flat and the per-state reader disagree on state {k}")
        self._cursor = (k + 1, r.pos)
        return decl


class OnDemand:
    """A read-only sequence of ``size`` items, each built by ``build(i)`` on
    first access; the last 65,536 indexed ones are kept, iteration keeps none
    (so reading every item of a 10^7-state block holds few in memory).  The
    states of a flat block (:class:`ast.StateDecl`) and the states and
    transitions of a :class:`~dslc.ir.flat_dipa.FlatDiPA` are such sequences."""

    KEPT = 1 << 16

    def __init__(self, size: int, build, what: str = "items"):
        self._size = size
        self._build = build
        self._what = what
        self._kept: dict[int, object] = {}

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._size))]
        if i < 0:
            i += self._size
        if not 0 <= i < self._size:
            raise IndexError("index out of range")
        item = self._kept.get(i)
        if item is None:
            if len(self._kept) >= self.KEPT:          # bounded: reading every item keeps few
                self._kept.clear()
            item = self._kept[i] = self._build(i)
        return item

    def __iter__(self):
        kept, build = self._kept, self._build
        for i in range(self._size):
            item = kept.get(i)
            yield item if item is not None else build(i)

    def __bool__(self) -> bool:
        return self._size > 0

    def __eq__(self, other) -> bool:
        try:
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        except TypeError:
            return NotImplemented

    def __repr__(self) -> str:
        return f"<{self._size} {self._what}, built on demand>"


# Blocks read flat by the splitter (read_block_flat), until the parser asks for
# them: a WeakKeyDictionary made by the first such block (weakref is not
# imported at start-up).
_PREPARED: "weakref.WeakKeyDictionary[SourceFile, dict[tuple[int, int], FlatAutomatonBlock]] | None" = None


def read_block_flat(source: SourceFile, start: int, limit: int) -> int | None:
    """For the splitter (:mod:`dslc.syntax.split`): the end of the `automaton`
    block that starts at ``start``, when the text up to ``limit`` (the next
    line that starts a block) is that block — a header, states that the flat
    reader accepts, a closing `}` and whitespace — else None.

    Such a text has no comment, no brace in a string and no block keyword at
    the start of a line, so the splitter's own scan would end the block at
    that `}` too; the block is kept for :func:`parse_automaton_fast`, which
    thus reads the text once."""
    text = source.text
    end = limit
    while end > start and text[end - 1] in _WS_CHARS:
        end -= 1
    if end <= start or text[end - 1] != "}" or end - start < FLAT_MIN_CHARS:
        return None
    r = _Reader(source, start, end)
    try:
        head = r.take(_HEAD)
        name = r.take(_NAME)
        claims = _claims(r)
        r.lit("{")
    except _Fail:
        return None
    block = read_flat(source, head.start(), name, claims, r.pos, end)
    if block is None:
        return None
    global _PREPARED
    if _PREPARED is None:
        import weakref
        _PREPARED = weakref.WeakKeyDictionary()
    _PREPARED.setdefault(source, {})[(start, end)] = block
    return end


class FlatAutomatonBlock(ast.AutomatonBlock):
    """An `automaton` block read by :func:`read_flat`: ``states`` is a
    :class:`OnDemand` sequence; ``flat`` holds the columns for the lowering."""

    flat: FlatColumns


def read_flat(source: SourceFile, head_start: int, name: re.Match, claims: list[ast.Claim],
              body_start: int, end: int) -> FlatAutomatonBlock | None:
    """Read the states of a block into columns, or None when anything does
    not fit (the caller then reads it state by state)."""
    text = source.text
    close = end
    while close > body_start and text[close - 1] in _WS_CHARS:
        close -= 1
    if close <= body_start or text[close - 1] != "}":
        return None
    close -= 1
    from dslc.native import module as native
    if native is not None:
        return _read_flat_spans(source, head_start, name, claims, body_start, close, native)
    cols = FlatColumns(source, close)
    names, targets, shapes, shape_id = cols.names, cols.targets, cols.shapes, cols.shape_id
    target_ids = cols.target_ids
    shape_map: dict[tuple[str, str, str], int] = {}
    findall = _flat_state().findall
    pending: tuple[int, list[str]] | None = None      # first state and targets of the previous window

    misses = [0, 0]                  # targets looked up locally, and not found there

    def resolve(first: int, wanted: list[str]) -> None:
        """Targets of the window from ``first``, looked up among the states of
        that window and the next (a chain's targets are there).  Once most
        lookups miss (targets spread over the whole block), every target is
        left to the lowering's lookup among all names."""
        if misses[0] >= LOCAL_TRIAL and misses[1] * 2 > misses[0]:
            target_ids.frombytes(_MINUS_ONES * len(wanted))
            targets.extend(wanted)
            return
        local = dict(zip(names[first:], range(first, len(names))))
        got = array("i", map(local.get, wanted, repeat(-1)))
        target_ids.extend(got)
        misses[0] += len(got)
        if -1 in got:
            missed = list(compress(wanted, map(eq, got, repeat(-1))))
            misses[1] += len(missed)
            targets.extend(missed)

    pos = body_start
    while pos < close:
        limits.checkpoint()
        stop = text.find("}", pos + WINDOW_CHARS, close)
        stop = close if stop < 0 else stop + 1
        rows = findall(text, pos, stop)
        if any(map(_BAD_OF, rows)):
            return None
        row_names = list(map(_NAME_OF, rows))
        row_targets = list(filter(None, chain.from_iterable(map(_TARGETS_OF, rows))))
        keys = list(map(_SHAPE_OF, rows))
        if row_names:
            cols.wstart.append(pos)
            first = len(names)
            cols.wfirst.append(first)
            names += row_names
            if pending is not None:
                resolve(*pending)
            pending = (first, row_targets)
            ids = _shape_ids(keys, shape_map, shapes)
            if ids is None:
                return None
            shape_id.extend(ids)
        pos = stop
    if pending is not None:
        resolve(*pending)
    return _flat_block(source, head_start, name, claims, close, cols)


def _flat_block(source: SourceFile, head_start: int, name: re.Match, claims: list[ast.Claim], close: int,
                cols: FlatColumns) -> FlatAutomatonBlock:
    block = FlatAutomatonBlock(Span(source, head_start, close + 1), name.group(),
                               Span(source, name.start(), name.end()),
                               states=OnDemand(len(cols.names), cols.state_decl, "states"), claims=claims)
    block.flat = cols
    return block


def _shape_ids(keys: list, shape_map: dict, shapes: list[Shape]) -> array | None:
    """The shape of every state of a window (new shapes parsed and added),
    or None when a new one does not parse."""
    ids = array("i", map(shape_map.get, keys, repeat(-1)))
    if -1 in ids:                        # shapes not seen before
        for key in set(compress(keys, map(eq, ids, repeat(-1)))):
            shape = _shape(key)
            if shape is None:
                return None
            shape_map[key] = len(shapes)
            shapes.append(shape)
        ids = array("i", map(shape_map.__getitem__, keys))
    return ids


def _read_flat_spans(source: SourceFile, head_start: int, name: re.Match, claims: list[ast.Claim],
                     body_start: int, close: int, native) -> FlatAutomatonBlock | None:
    """read_flat with the C module: names and targets as offsets into the
    text (:class:`SpanNames`), every target resolved later by the lowering."""
    text = source.text
    cols = FlatColumns(source, close, spans=True)
    name_spans, target_spans, shapes, shape_id = cols.names.spans, cols.target_spans, cols.shapes, cols.shape_id
    shape_map: dict[tuple[str, str, str], int] = {}
    rows_of = native.flat_rows
    pos = body_start
    while pos < close:
        limits.checkpoint()
        stop = text.find("}", pos + WINDOW_CHARS, close)
        stop = close if stop < 0 else stop + 1
        got = rows_of(text, pos, stop, 1)
        if got is None:                  # a row the regular expression would not read either
            return None
        row_names, row_targets, keys = got
        if keys:
            cols.wstart.append(pos)
            cols.wfirst.append(len(shape_id))
            name_spans.frombytes(row_names)
            target_spans.frombytes(row_targets)
            ids = _shape_ids(keys, shape_map, shapes)
            if ids is None:
                return None
            shape_id.extend(ids)
        pos = stop
    return _flat_block(source, head_start, name, claims, close, cols)
