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
"""

from __future__ import annotations

import re
from fractions import Fraction

from dslc import limits
from dslc.source import SourceFile, Span
from dslc.syntax import ast

_WS = re.compile(r"(?:[ \t\f\r\n\u00a0]+|//[^\n]*+|/\*(?:[^*]|\*(?!/))*\*/)*", re.S)
_W = r"(?![A-Za-z0-9_])"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_HEAD = re.compile(r"automaton" + _W)
_NUMBER = re.compile(r"(\d+(\.\d*)?|\.\d+)")
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


def _patterns(_S: str) -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """The state-header, transition and separator patterns, for a given
    whitespace pattern (blocks without comments get a simpler, faster one)."""
    draw = rf"(Lap['′]|Lap{_W}){_S}\({_S}{_ARG}{_S},{_S}{_ARG}{_S}(\))"
    head = re.compile(
        rf"state{_W}{_S}({_N}){_S}(input|noinput){_W}{_S}{draw}(?:{_S},{_S}{draw})?{_S}\{{", re.S)
    trans = re.compile(
        rf"(?:(true){_W}|(insample)(?![A-Za-z0-9_'′]){_S}(>=|≥|<=|≤|<|>){_S}({_N}))"
        rf"{_S}(?:->|→){_S}({_N})"
        rf"(?:{_S}(output){_W}{_S}(?:(insample['′])|(insample|top|bot){_W}|(⊤|⊥)|(\"[^\"\n]*\")|({_N})))?"
        rf"(?:{_S}(store){_W})?", re.S)
    skip = re.compile(rf"(?:{_S};)*{_S}", re.S)
    return head, trans, skip


_WITH_COMMENTS = _patterns(_S_COMMENTS)
_WITHOUT_COMMENTS = _patterns(_S_PLAIN)


def parse_automaton_fast(source: SourceFile, start: int, end: int) -> ast.AutomatonBlock | None:
    r = _Reader(source, start, end)
    text = source.text
    chunk = text[start:end]
    r.patterns = _WITH_COMMENTS if ("//" in chunk or "/*" in chunk) else _WITHOUT_COMMENTS
    try:
        head = r.take(_HEAD)
        name = r.take(_NAME)
        r.lit("{")
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
                              states=states)


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


