"""AST of `chain` blocks and the builder callbacks that make it.

The grammar rules live in grammar/dp.lark (section `chain`).  Every callback
is named after its rule, prefixed `chain_`; the parser keeps all tokens, so
children include punctuation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from lark import Token

from dslc.source import Span
from dslc.syntax import ast


@dataclass
class ChainEntry(ast.Node):
    value: ast.Expr
    assigned: ast.Expr | None = None       # `walk = 1` in `states`


@dataclass
class ChainList(ast.Node):
    entries: list[ChainEntry]


@dataclass
class ChainMatrix(ast.Node):
    rows: list[ChainList]


@dataclass
class ChainSetting(ast.Node):
    key: str                  # states initial transition length query epsilon method
    key_span: Span
    value: object             # ChainList | ChainMatrix | ChainQueryKind | Token text | "stationary"
    value_span: Span


@dataclass
class ChainQueryKind(ast.Node):
    kind: str                 # sum histogram count lipschitz
    arg: ast.Expr | None = None


@dataclass
class ChainModelDecl(ast.Node):
    name: str
    name_span: Span
    settings: list[ChainSetting] = field(default_factory=list)


@dataclass
class ChainBlock(ast.Block):
    settings: list[ChainSetting] = field(default_factory=list)
    models: list[ChainModelDecl] = field(default_factory=list)
    kind = "chain"


class ChainBuilder:
    """Mixin for the parser's transformer (see dslc.syntax.parser._Builder)."""

    def chain_block(self, children):
        name = children[1]
        settings = [c for c in children if isinstance(c, ChainSetting)]
        models = [c for c in children if isinstance(c, ChainModelDecl)]
        return ChainBlock(self._span(children), str(name), self._tok(name),
                          settings=settings, models=models)

    def chain_make_setting(self, key: str, children, value, value_span):
        return ChainSetting(self._span(children), key, self._tok(children[0]), value, value_span)

    def chain_states(self, children):
        return self.chain_make_setting("states", children, children[-1], children[-1].span)

    def chain_initial(self, children):
        last = children[-1]
        if isinstance(last, Token):
            return self.chain_make_setting("initial", children, "stationary", self._tok(last))
        return self.chain_make_setting("initial", children, last, last.span)

    def chain_transition(self, children):
        return self.chain_make_setting("transition", children, children[-1], children[-1].span)

    def chain_length(self, children):
        tok = children[-1]
        return self.chain_make_setting("length", children, str(tok), self._tok(tok))

    def chain_query(self, children):
        return self.chain_make_setting("query", children, children[-1], children[-1].span)

    def chain_query_kind(self, children):
        kw = children[0]
        kind = {"CHAIN_SUM": "sum", "CHAIN_HISTOGRAM": "histogram", "CHAIN_COUNT": "count",
                "CHAIN_LIPSCHITZ": "lipschitz"}.get(kw.type, str(kw))
        arg = None
        for c in children[1:]:
            if isinstance(c, ast.Expr):
                arg = c
            elif isinstance(c, Token) and c.type == "NAME":
                arg = ast.Name(self._tok(c), str(c))
        return ChainQueryKind(self._span(children), kind, arg)

    def chain_epsilon(self, children):
        return self.chain_make_setting("epsilon", children, children[-1], children[-1].span)

    def chain_method(self, children):
        tok = children[-1]
        return self.chain_make_setting("method", children, str(tok), self._tok(tok))

    def chain_model(self, children):
        name = children[1]
        settings = [c for c in children if isinstance(c, ChainSetting)]
        return ChainModelDecl(self._span(children), str(name), self._tok(name), settings)

    def chain_list(self, children):
        return ChainList(self._span(children), [c for c in children if isinstance(c, ChainEntry)])

    def chain_entry(self, children):
        first = children[0]
        if isinstance(first, Token):            # a NAME
            first = ast.Name(self._tok(first), str(first))
        exprs = self._nodes(children[1:], ast.Expr)
        return ChainEntry(self._span(children), first, exprs[0] if exprs else None)

    # ---- exact numbers: + - * / and parentheses over NUMBER
    def chain_number(self, children):
        num = self._num(children[0])
        num.span = self._span(children)
        return num

    def chain_neg(self, children):
        return ast.Neg(self._span(children), children[1])

    def chain_paren(self, children):
        inner = children[1]
        inner.span = self._span(children)
        return inner

    def chain_binop(self, children):
        left, op, right = children
        return ast.BinOp(self._span(children), str(op), left, right)

    def chain_matrix(self, children):
        return ChainMatrix(self._span(children), [c for c in children if isinstance(c, ChainList)])
