"""A hand-written reader for `mechanism` blocks: Lark's AST without loading Lark.

Loading Lark and building its lexer costs about 60 ms, more than the rest
of a small check.  Mechanisms are small and their grammar is a handful of
rules (docs/language.md), so this module reads them by recursive descent
and builds exactly the AST that :mod:`dslc.syntax.parser` builds, spans
included (a parenthesised expression keeps the span of what is inside, as
Lark's builder does).

It is only a fast path, like :mod:`dslc.syntax.fast_automaton`: whenever it
meets anything it is not sure of (a syntax error, a keyword of another
block kind where a name should be, a block comment, a number too long,
nesting deeper than :data:`MAX_DEPTH`) it returns ``None`` and the caller
parses the block with Lark, which owns every syntax error.
``tests/test_fast_mechanism.py`` checks that both give equal ASTs on
random texts and on every mechanism of the examples.
"""

from __future__ import annotations

import re
from fractions import Fraction

from dslc import limits
from dslc.source import SourceFile, Span
from dslc.syntax import ast
from dslc.syntax.fast_automaton import _WS

MAX_DEPTH = 60       # parentheses, unary minus and nested statements read here; deeper goes to Lark

_TOKEN = re.compile(
    r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<number>\d+(?:\.\d*)?|\.\d+)"
    r"|(?P<string>\"[^\"\n]*\")"
    r"|(?P<punct>:=|>=|<=|[≥≤<>+\-*·/(),;{}=⊤⊥ε'′])")

# The words Lark's contextual lexer may read as keywords somewhere in a
# mechanism (the literal terminals accepted by the LALR states a mechanism
# parse can reach: expression states are shared with `hmm` blocks and
# automaton claims, hence `states`, `param`, `store` ...).  Where a name is
# expected, such a word makes the reader decline.  tests/test_fast_mechanism.py
# recomputes the set from Lark's parse table and checks it is covered.
_KEYWORDS = frozenset(
    "Lap actions assume bot break budget check else eps find halt if insample loop mechanism obs "
    "observations output param prior protect read secret sensitivity states store top true".split())

_CMP = {">=": ">=", "≥": ">=", "<=": "<=", "≤": "<=", "<": "<", ">": ">"}


class _Decline(Exception):
    pass


class _Tokens:
    """The block's tokens, read on demand: (kind, text, start, end)."""

    def __init__(self, source: SourceFile, start: int, end: int):
        self.file = source
        self.text = source.text
        self.pos = start
        self.end = end
        self.tok: tuple[str, str, int, int] | None = None
        self.depth = 0
        self._advance()

    def _advance(self) -> None:
        text, end = self.text, self.end
        pos = _WS.match(text, self.pos, end).end()
        if pos >= end:
            self.tok = ("end", "", end, end)
            self.pos = end
            return
        m = _TOKEN.match(text, pos, end)
        if m is None:
            raise _Decline
        kind = m.lastgroup
        word = m.group()
        if kind == "name" and word == "Lap" and m.end() < end and text[m.end()] in "'′":
            self.tok = ("lap'", text[pos:m.end() + 1], pos, m.end() + 1)
            self.pos = m.end() + 1
            return
        if kind == "punct" and word in "'′":
            raise _Decline
        self.tok = (kind if kind != "punct" else word, word, pos, m.end())
        self.pos = m.end()

    def next(self) -> tuple[str, str, int, int]:
        tok = self.tok
        self._advance()
        return tok

    def kind(self) -> str:
        return self.tok[0]

    def word(self) -> str:
        """The current token's text if it is a name (a keyword included), else ''."""
        return self.tok[1] if self.tok[0] == "name" else ""

    def expect(self, kind: str) -> tuple[str, str, int, int]:
        if self.tok[0] != kind:
            raise _Decline
        return self.next()

    def keyword(self, word: str) -> tuple[str, str, int, int]:
        if self.tok[0] != "name" or self.tok[1] != word:
            raise _Decline
        return self.next()

    def name(self) -> tuple[str, str, int, int]:
        """A name that is no keyword."""
        if self.tok[0] != "name" or self.tok[1] in _KEYWORDS:
            raise _Decline
        return self.next()

    def span(self, start: int, end: int) -> Span:
        return Span(self.file, start, end)

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Decline

    def leave(self) -> None:
        self.depth -= 1


def parse_mechanism_fast(source: SourceFile, start: int, end: int) -> ast.MechanismBlock | None:
    """The block's AST, or None when the fast path declines."""
    if source.text.find("/*", start, end) >= 0:
        return None
    try:
        t = _Tokens(source, start, end)
        head = t.keyword("mechanism")
        name = t.name()
        params: list[ast.Param] = []
        if t.kind() == "(":
            t.next()
            if t.kind() != ")":
                while True:
                    params.append(_param(t))
                    if t.kind() != ",":
                        break
                    t.next()
            t.expect(")")
        claims = []
        while t.word() in ("budget", "sensitivity"):
            kw = t.next()
            value = _expr(t)
            claims.append(ast.Claim(t.span(kw[2], value.span.end), kw[1], value, t.span(kw[2], kw[3])))
        body, close = _body(t)
        if t.kind() != "end":
            return None
    except _Decline:
        return None
    return ast.MechanismBlock(t.span(head[2], close.end), name[1], t.span(name[2], name[3]),
                              params=params, body=body, end_span=close, claims=claims)


def _param(t: _Tokens) -> ast.Param:
    name = t.name()
    default = None
    end = name[3]
    if t.kind() == "=":
        t.next()
        default = _expr(t)
        end = default.span.end
    return ast.Param(t.span(name[2], end), name[1], default)


def _body(t: _Tokens) -> tuple[list[ast.Stmt], Span]:
    """`{ statements }`: the statements and the span of the closing brace."""
    t.enter()
    t.expect("{")
    stmts: list[ast.Stmt] = []
    while True:
        kind = t.kind()
        if kind == "}":
            close = t.next()
            t.leave()
            return stmts, t.span(close[2], close[3])
        if kind == ";":
            t.next()
            continue
        limits.checkpoint()                  # a huge block still honours --timeout and Ctrl-C
        stmts.append(_stmt(t))


def _stmt(t: _Tokens) -> ast.Stmt:
    word = t.word()
    if word == "if":
        return _if(t)
    if word == "loop":
        kw = t.next()
        body, close = _body(t)
        return ast.Loop(t.span(kw[2], close.end), body, t.span(kw[2], kw[3]), close)
    if word == "output":
        kw = t.next()
        value = _expr(t)
        return ast.Output(t.span(kw[2], value.span.end), value)
    if word == "halt":
        kw = t.next()
        return ast.Halt(t.span(kw[2], kw[3]))
    if word == "break":
        kw = t.next()
        return ast.Break(t.span(kw[2], kw[3]))
    name = t.name()
    t.expect(":=")
    value = _expr(t)
    return ast.Assign(t.span(name[2], value.span.end), name[1], t.span(name[2], name[3]), value)


def _if(t: _Tokens) -> ast.If:
    t.enter()
    kw = t.keyword("if")
    left = _expr(t)
    op = t.next()
    if op[0] not in _CMP:
        raise _Decline
    right = _expr(t)
    cond = ast.Cond(t.span(left.span.start, right.span.end), _CMP[op[0]], left, right, t.span(op[2], op[3]))
    then, close = _body(t)
    end = close.end
    orelse = None
    if t.word() == "else":
        t.next()
        if t.word() == "if":
            inner = _if(t)
            orelse = [inner]
            end = inner.span.end
        else:
            orelse, close = _body(t)
            end = close.end
    t.leave()
    return ast.If(t.span(kw[2], end), cond, then, orelse, t.span(kw[2], kw[3]))


def _expr(t: _Tokens) -> ast.Expr:
    """sum := product (('+' | '-') product)*"""
    left = _product(t)
    while t.kind() in ("+", "-"):
        op = t.next()[0]
        right = _product(t)
        left = ast.BinOp(t.span(left.span.start, right.span.end), op, left, right)
    return left


def _is_eps(t: _Tokens) -> bool:
    return t.kind() == "ε" or t.word() == "eps"


def _product(t: _Tokens) -> ast.Expr:
    """product := unary (('*' | '·' | '/') unary | ε)*"""
    left = _unary(t)
    while True:
        kind = t.kind()
        if kind in ("*", "·", "/"):
            t.next()
            right = _unary(t)
            left = ast.BinOp(t.span(left.span.start, right.span.end), "/" if kind == "/" else "*", left, right)
        elif _is_eps(t):
            eps = t.next()
            left = ast.BinOp(t.span(left.span.start, eps[3]), "*", left, ast.Eps(t.span(eps[2], eps[3])))
        else:
            return left


def _unary(t: _Tokens) -> ast.Expr:
    if t.kind() == "-":
        t.enter()
        minus = t.next()
        operand = _unary(t)
        t.leave()
        return ast.Neg(t.span(minus[2], operand.span.end), operand)
    return _atom(t)


def _atom(t: _Tokens) -> ast.Expr:
    kind, word, a, b = t.tok
    if kind == "number":
        if len(word) > limits.MAX_NUMBER_DIGITS:
            raise _Decline                       # Lark's parser reports it (E011)
        t.next()
        return ast.Num(t.span(a, b), Fraction(word))
    if kind == "ε":
        t.next()
        return ast.Eps(t.span(a, b))
    if kind == "⊤" or kind == "⊥":
        t.next()
        return ast.Symbol(t.span(a, b), kind)
    if kind == "string":
        t.next()
        return ast.Symbol(t.span(a, b), word[1:-1])
    if kind == "(":
        t.enter()
        t.next()
        inner = _expr(t)
        t.expect(")")
        t.leave()
        return inner                             # Lark's builder keeps the inner span
    if kind == "lap'" or word == "Lap":
        t.next()
        t.expect("(")
        rate = _expr(t)
        t.expect(",")
        mean = _expr(t)
        close = t.expect(")")
        return ast.Draw(t.span(a, close[3]), kind == "lap'", rate, mean, t.span(a, b))
    if kind == "name":
        if word == "eps":
            t.next()
            return ast.Eps(t.span(a, b))
        if word == "top" or word == "bot":
            t.next()
            return ast.Symbol(t.span(a, b), "⊤" if word == "top" else "⊥")
        if word == "read":
            t.next()
            t.expect("(")
            close = t.expect(")")
            return ast.Read(t.span(a, close[3]))
        t.name()
        return ast.Name(t.span(a, b), word)
    raise _Decline
