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


_S = r"(?:[ \t\f\r\n\u00a0]+|//[^\n]*+|/\*(?:[^*]|\*(?!/))*\*/)*"
_N = r"[A-Za-z_][A-Za-z0-9_]*+"
_ARG = r"([^(),]*?)"
_DRAW = rf"(Lap['′]|Lap{_W}){_S}\({_S}{_ARG}{_S},{_S}{_ARG}{_S}(\))"
_STATE_HEAD = re.compile(
    rf"state{_W}{_S}({_N}){_S}(input|noinput){_W}{_S}{_DRAW}(?:{_S},{_S}{_DRAW})?{_S}\{{", re.S)
_TRANS = re.compile(
    rf"(?:(true){_W}|(insample)(?![A-Za-z0-9_'′]){_S}(>=|≥|<=|≤|<|>){_S}({_N}))"
    rf"{_S}(?:->|→){_S}({_N})"
    rf"(?:{_S}(output){_W}{_S}(?:(insample['′])|(insample|top|bot){_W}|(⊤|⊥)|(\"[^\"\n]*\")|({_N})))?"
    rf"(?:{_S}(store){_W})?", re.S)
_SKIP = re.compile(rf"(?:{_S};)*{_S}", re.S)


def parse_automaton_fast(source: SourceFile, start: int, end: int) -> ast.AutomatonBlock | None:
    r = _Reader(source, start, end)
    try:
        head = r.take(_HEAD)
        name = r.take(_NAME)
        r.lit("{")
        states: list[ast.StateDecl] = []
        text = source.text
        while True:
            r.pos = _SKIP.match(text, r.pos, end).end()
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
    m = _STATE_HEAD.match(text, r.pos, end)
    if m is None:
        raise _Fail
    file = r.file
    draws = [_draw(r, m, 3)]
    if m.group(7) is not None:
        draws.append(_draw(r, m, 7))
    r.pos = m.end()
    transitions = []
    while True:
        r.pos = _SKIP.match(text, r.pos, end).end()
        if text.startswith("}", r.pos):
            close_end = r.pos + 1
            r.pos = close_end
            break
        t = _TRANS.match(text, r.pos, end)
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


_TEMPLATES: dict[str, ast.Expr] = {}


def _expr_at(r: _Reader, start: int, end: int) -> ast.Expr:
    """Parse an argument of `Lap` (cached by its text, then shifted into place)."""
    text = r.text[start:end]
    template = _TEMPLATES.get(text)
    if template is None:
        if "//" in text or "/*" in text:
            raise _Fail
        sub = _Reader(SourceFile("<template>", text), 0, len(text))
        template = _expr(sub)
        sub.ws()
        if sub.pos != len(text):
            raise _Fail
        if len(_TEMPLATES) < 10_000:
            _TEMPLATES[text] = template
    return _shift(template, start, r.file)


def _shift(node: ast.Expr, delta: int, file: SourceFile) -> ast.Expr:
    span = Span(file, node.span.start + delta, node.span.end + delta)
    if isinstance(node, ast.Num):
        return ast.Num(span, node.value)
    if isinstance(node, ast.Eps):
        return ast.Eps(span)
    if isinstance(node, ast.Neg):
        return ast.Neg(span, _shift(node.operand, delta, file))
    if isinstance(node, ast.BinOp):
        return ast.BinOp(span, node.op, _shift(node.left, delta, file), _shift(node.right, delta, file))
    raise _Fail


def _transition(file: SourceFile, t: re.Match) -> ast.TransitionDecl:
    if t.group(1):
        guard = ast.GuardDecl(Span(file, t.start(1), t.end(1)), "true")
    else:
        op = t.group(3)
        norm = {"≥": ">=", "≤": "<="}.get(op, op)
        guard = ast.GuardDecl(Span(file, t.start(2), t.end(4)), norm, t.group(4),
                              Span(file, t.start(4), t.end(4)))
    output = None
    if t.group(6):
        for g in (7, 8, 9, 10, 11):
            if t.group(g) is not None:
                break
        span = Span(file, t.start(6), t.end(g))
        v = t.group(g)
        if g == 7:
            output = ast.OutputDecl(span, "insample'")
        elif g == 8 and v == "insample":
            output = ast.OutputDecl(span, "insample")
        elif g == 8:
            output = ast.OutputDecl(span, "symbol", "⊤" if v == "top" else "⊥")
        elif g == 10:
            output = ast.OutputDecl(span, "symbol", v[1:-1])
        else:
            output = ast.OutputDecl(span, "symbol", v)
    store = Span(file, t.start(12), t.end(12)) if t.group(12) else None
    return ast.TransitionDecl(Span(file, t.start(1) if t.group(1) else t.start(2), t.end()), guard,
                              t.group(5), Span(file, t.start(5), t.end(5)), output, store)




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
        r.pos = m.end()
        return ast.Num(r.span(m), Fraction(m.group()))
    m = r.peek(_EPS)
    if m is not None:
        r.pos = m.end()
        return ast.Eps(r.span(m))
    raise _Fail


