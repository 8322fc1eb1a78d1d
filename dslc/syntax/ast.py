"""AST of `.dp` blocks.  Every node carries the span it was parsed from."""

from __future__ import annotations

from dslc.record import record, field
from fractions import Fraction

from dslc import limits
from dslc.source import Span


@record
class Node:
    span: Span


# ------------------------------------------------------------- expressions
@record
class Expr(Node):
    pass


@record
class Num(Expr):
    value: Fraction


class NumberTooLong(ValueError):
    """A literal with more than :data:`limits.MAX_NUMBER_DIGITS` characters (E011)."""


def number_value(text: str) -> Fraction:
    """The exact value of a number literal (`3`, `0.25`, `.5`).  Checked for
    length first: CPython cannot even read an integer of 5,000 digits."""
    if len(text) > limits.MAX_NUMBER_DIGITS:
        raise NumberTooLong(f"a number of {len(text)} characters")
    return Fraction(text)


@record
class Eps(Expr):
    pass


@record
class Name(Expr):
    name: str


@record
class Symbol(Expr):
    """An output symbol: ⊤, ⊥ or a quoted string."""
    name: str


@record
class BinOp(Expr):
    op: str          # + - * /
    left: Expr
    right: Expr


@record
class Neg(Expr):
    operand: Expr


@record
class Draw(Expr):
    """`Lap(rate, mean)` or `Lap'(rate, mean)`."""
    prime: bool
    rate: Expr
    mean: Expr
    keyword_span: Span


@record
class Read(Expr):
    pass


# ------------------------------------------------------------- automaton
@record
class GuardDecl(Node):
    kind: str                 # "true" | ">=" | "<" | ">" | "<="
    variable: str | None = None
    variable_span: Span | None = None


@record
class OutputDecl(Node):
    kind: str                 # "symbol" | "insample" | "insample'"
    symbol: str | None = None


@record
class TransitionDecl(Node):
    guard: GuardDecl
    target: str
    target_span: Span
    output: OutputDecl | None
    store_span: Span | None

    @property
    def store(self) -> bool:
        return self.store_span is not None


@record
class StateDecl(Node):
    name: str
    name_span: Span
    is_input: bool
    input_span: Span
    draws: list[Draw]
    transitions: list[TransitionDecl]


@record
class Block(Node):
    name: str
    name_span: Span

    kind = "block"


@record
class Claim(Node):
    """A declaration between a DiPA block's name and its body:
    `budget 3/2 ε` or `sensitivity 2` (docs/language.md, "Budgets")."""
    kind: str                 # "budget" | "sensitivity"
    value: Expr
    keyword_span: Span


@record
class AutomatonBlock(Block):
    states: list[StateDecl] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    kind = "automaton"


# ------------------------------------------------------------- mechanism
@record
class Stmt(Node):
    pass


@record
class Assign(Stmt):
    target: str
    target_span: Span
    value: Expr


@record
class Cond(Node):
    op: str                   # >= < > <=
    left: Expr
    right: Expr
    op_span: Span


@record
class If(Stmt):
    cond: Cond
    then: list[Stmt]
    orelse: list[Stmt] | None
    keyword_span: Span


@record
class Loop(Stmt):
    body: list[Stmt]
    keyword_span: Span
    end_span: Span            # the closing brace: where the back edge is


@record
class Output(Stmt):
    value: Expr


@record
class Halt(Stmt):
    pass


@record
class Break(Stmt):
    pass


@record
class Param(Node):
    name: str
    default: Expr | None


@record
class MechanismBlock(Block):
    params: list[Param] = field(default_factory=list)
    body: list[Stmt] = field(default_factory=list)
    end_span: Span | None = None   # closing brace of the body
    claims: list[Claim] = field(default_factory=list)
    kind = "mechanism"
