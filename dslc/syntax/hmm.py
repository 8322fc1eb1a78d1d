"""Syntax of `hmm` and `mdp` blocks: AST nodes and the parser callbacks.

The grammar rules are in grammar/dp.lark (section "hmm / mdp").  The parser
keeps every token, so each callback receives punctuation too; spans run from
a node's first token to its last (see :class:`dslc.syntax.parser._Builder`).
Every callback name starts with ``hmm_``, ``mdp_`` or ``markov_`` so it never
collides with the rule callbacks of other block kinds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from lark import Token

from dslc.source import Span
from dslc.syntax import ast


# ------------------------------------------------------------------ AST
@dataclass
class MLabel(ast.Node):
    """A name of a state, observation or action (a name, an integer or a string)."""
    name: str


@dataclass
class MEntry(ast.Node):
    """`label: probability` inside a distribution (the probability defaults to 1)."""
    label: MLabel
    prob: ast.Expr | None


@dataclass
class MItem(ast.Node):
    """Base of the statements of a model."""


@dataclass
class MDeclare(MItem):
    what: str                    # "states" | "observations" | "actions"
    labels: list[MLabel]
    keyword_span: Span


@dataclass
class MRange(ast.Node):
    lo: ast.Expr
    hi: ast.Expr
    lo_open: bool
    hi_open: bool


@dataclass
class MParam(MItem):
    name: str
    name_span: Span
    range: MRange | None
    value: ast.Expr | None


@dataclass
class MAssume(MItem):
    left: ast.Expr
    op: str                      # = != < <= > >=
    right: ast.Expr
    op_span: Span


@dataclass
class MPrior(MItem):
    entries: list[MEntry]
    keyword_span: Span


@dataclass
class MRow(MItem):
    """`source [on action] -> target: p, ...`"""
    source: MLabel
    action: MLabel | None
    entries: list[MEntry]


@dataclass
class MEmits(MItem):
    """`source emits observation: p, ...`"""
    source: MLabel
    entries: list[MEntry]


@dataclass
class MSecret(MItem):
    name: str
    name_span: Span
    states: list[MLabel]


@dataclass
class MProtect(MItem):
    left: str
    left_span: Span
    right: str
    right_span: Span


@dataclass
class MEpsilon(ast.Node):
    """ε as written: `ln R` (``ln_of`` set) or a plain expression (``value`` set)."""
    ln_of: ast.Expr | None = None
    value: ast.Expr | None = None
    ambiguous: bool = False      # `ln 3/2`: ln(3/2) or (ln 3)/2?  Rejected with E214.


@dataclass
class MCheck(MItem):
    epsilon: MEpsilon
    horizons: list[tuple[str, Span]]   # the text and span of each NUMBER after `k =`
    keyword_span: Span


@dataclass
class MFind(MItem):
    names: list[tuple[str, Span]]


@dataclass
class MarkovBlock(ast.Block):
    items: list[MItem] = field(default_factory=list)
    kind = "markov"


@dataclass
class HmmBlock(MarkovBlock):
    kind = "hmm"


@dataclass
class MdpBlock(MarkovBlock):
    kind = "mdp"


# ------------------------------------------------------------------ builder
class MarkovBuilderMixin:
    """Parser callbacks for the hmm / mdp rules (mixed into the shared builder)."""

    def _markov_block(self, cls, children):
        name = children[1]
        items = [c for c in children if isinstance(c, MItem)]
        return cls(self._span(children), str(name), self._tok(name), items=items)

    def hmm_block(self, children):
        return self._markov_block(HmmBlock, children)

    def mdp_block(self, children):
        return self._markov_block(MdpBlock, children)

    def markov_label(self, children):
        tok = children[0]
        text = str(tok)
        if tok.type == "STRING":
            text = text[1:-1]
        return MLabel(self._tok(tok), text)

    def markov_labels(self, children):
        return [c for c in children if isinstance(c, MLabel)]

    def _markov_declare(self, what, children):
        labels = next(c for c in children if isinstance(c, list))
        return MDeclare(self._span(children), what, labels, self._tok(children[0]))

    def markov_states(self, children):
        return self._markov_declare("states", children)

    def markov_observations(self, children):
        return self._markov_declare("observations", children)

    def markov_actions(self, children):
        return self._markov_declare("actions", children)

    def markov_param(self, children):
        name = children[1]
        rng = next((c for c in children if isinstance(c, MRange)), None)
        value = None
        if rng is None:
            exprs = [c for c in children[2:] if isinstance(c, ast.Expr)]
            value = exprs[0] if exprs else None
        return MParam(self._span(children), str(name), self._tok(name), rng, value)

    def markov_range(self, children):
        lo, hi = [c for c in children if isinstance(c, ast.Expr)]
        toks = [c for c in children if isinstance(c, Token)]
        opener = toks[1]
        closer = toks[-1]
        return MRange(self._span(children), lo, hi, str(opener) == "(", str(closer) == ")")

    def markov_rel(self, children):
        tok = children[0]
        text = {"==": "=", "≠": "!=", "≥": ">=", "≤": "<="}.get(str(tok), str(tok))
        return (text, self._tok(tok))

    def markov_assume(self, children):
        left, (op, op_span), right = children[1], children[2], children[3]
        return MAssume(self._span(children), left, op, right, op_span)

    def markov_entry(self, children):
        label = children[0]
        exprs = [c for c in children[1:] if isinstance(c, ast.Expr)]
        return MEntry(self._span(children), label, exprs[0] if exprs else None)

    def markov_dist(self, children):
        return [c for c in children if isinstance(c, MEntry)]

    def markov_prior(self, children):
        entries = next(c for c in children if isinstance(c, list))
        return MPrior(self._span(children), entries, self._tok(children[0]))

    def markov_row(self, children):
        labels = [c for c in children if isinstance(c, MLabel)]
        entries = next(c for c in children if isinstance(c, list))
        action = labels[1] if len(labels) > 1 else None
        return MRow(self._span(children), labels[0], action, entries)

    def markov_emits(self, children):
        entries = next(c for c in children if isinstance(c, list))
        return MEmits(self._span(children), children[0], entries)

    def markov_secret(self, children):
        name = children[1]
        states = [c for c in children if isinstance(c, MLabel)]
        return MSecret(self._span(children), str(name), self._tok(name), states)

    def markov_protect(self, children):
        names = [c for c in children if isinstance(c, Token) and c.type == "NAME"]
        left, right = names[0], names[1]
        return MProtect(self._span(children), str(left), self._tok(left), str(right), self._tok(right))

    def markov_eps_value(self, children):
        return MEpsilon(self._span(children), value=children[0])

    def markov_eps_ln(self, children):
        arg = [c for c in children[1:] if isinstance(c, ast.Expr)]
        if arg:
            inner = arg[0]
        else:
            tok = children[1]
            inner = self._num(tok)
        return MEpsilon(self._span(children), ln_of=inner)

    def markov_eps_ln_ambiguous(self, children):
        return MEpsilon(self._span(children), ambiguous=True)

    def markov_setting(self, children):
        return ("k", children[-1])

    def markov_check(self, children):
        eps = next(c for c in children if isinstance(c, MEpsilon))
        horizons = [(str(c[1]), self._tok(c[1])) for c in children
                    if isinstance(c, tuple) and c[0] == "k"]
        return MCheck(self._span(children), eps, horizons, self._tok(children[0]))

    def markov_find(self, children):
        names = [(str(c), self._tok(c)) for c in children[1:] if isinstance(c, Token) and c.type == "NAME"]
        return MFind(self._span(children), names)
