"""AST of `.dp` blocks.  Every node carries the span it was parsed from."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dslc import limits
from dslc.source import Span


@dataclass
class Node:
    span: Span


# ------------------------------------------------------------- expressions
@dataclass
class Expr(Node):
    pass


@dataclass
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


@dataclass
class Eps(Expr):
    pass


@dataclass
class Name(Expr):
    name: str


@dataclass
class Symbol(Expr):
    """An output symbol: ⊤, ⊥ or a quoted string."""
    name: str


@dataclass
class BinOp(Expr):
    op: str          # + - * /
    left: Expr
    right: Expr


@dataclass
class Neg(Expr):
    operand: Expr


@dataclass
class Draw(Expr):
    """`Lap(rate, mean)` or `Lap'(rate, mean)`."""
    prime: bool
    rate: Expr
    mean: Expr
    keyword_span: Span


@dataclass
class Read(Expr):
    pass


# ------------------------------------------------------------- automaton
@dataclass
class GuardDecl(Node):
    kind: str                 # "true" | ">=" | "<" | ">" | "<="
    variable: str | None = None
    variable_span: Span | None = None


@dataclass
class OutputDecl(Node):
    kind: str                 # "symbol" | "insample" | "insample'"
    symbol: str | None = None


@dataclass
class TransitionDecl(Node):
    guard: GuardDecl
    target: str
    target_span: Span
    output: OutputDecl | None
    store_span: Span | None
    # `store l, r`: the variables named, with their spans (empty: plain `store`, which is `store x`)
    store_vars: list[tuple[str, Span]] = field(default_factory=list)

    @property
    def store(self) -> bool:
        return self.store_span is not None


@dataclass
class StateDecl(Node):
    name: str
    name_span: Span
    is_input: bool
    input_span: Span
    draws: list[Draw]
    transitions: list[TransitionDecl]


@dataclass
class Block(Node):
    name: str
    name_span: Span

    kind = "block"


@dataclass
class Claim(Node):
    """A declaration between a DiPA block's name and its body:
    `budget 3/2 ε` or `sensitivity 2` (docs/language.md, "Budgets")."""
    kind: str                 # "budget" | "sensitivity"
    value: Expr
    keyword_span: Span


@dataclass
class AutomatonBlock(Block):
    states: list[StateDecl] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    kind = "automaton"
    variables_decl = None         # a VariablesDecl (several variables), set by the parser


# ------------------------------------------------------------- mechanism
@dataclass
class Stmt(Node):
    pass


@dataclass
class Assign(Stmt):
    target: str
    target_span: Span
    value: Expr


@dataclass
class Cond(Node):
    op: str                   # >= < > <=
    left: Expr
    right: Expr
    op_span: Span


@dataclass
class If(Stmt):
    cond: Cond
    then: list[Stmt]
    orelse: list[Stmt] | None
    keyword_span: Span


@dataclass
class Loop(Stmt):
    body: list[Stmt]
    keyword_span: Span
    end_span: Span            # the closing brace: where the back edge is


@dataclass
class Output(Stmt):
    value: Expr


@dataclass
class Halt(Stmt):
    pass


@dataclass
class Break(Stmt):
    pass


@dataclass
class Param(Node):
    name: str
    default: Expr | None


@dataclass
class MechanismBlock(Block):
    params: list[Param] = field(default_factory=list)
    body: list[Stmt] = field(default_factory=list)
    end_span: Span | None = None   # closing brace of the body
    claims: list[Claim] = field(default_factory=list)
    kind = "mechanism"


# ------------------------------------------------------------- programs of mechanisms
# Imports and releases (dslc/compose/, docs/composition.md).
@dataclass
class ImportDecl(Block):
    """`import a, b from stdlib` / `import m from "other.dp"` (``name`` is the first name)."""
    names: list[tuple[str, Span]] = field(default_factory=list)
    origin: str = ""                 # "stdlib" or the path as written (without quotes)
    origin_span: Span | None = None
    stdlib: bool = False
    kind = "import"


@dataclass
class CallArg(Node):
    name: str
    name_span: Span
    value: Expr


@dataclass
class Call(Node):
    """`m(P = 1) with ε/2`: one run of a mechanism with a share of ε."""
    callee: str
    callee_span: Span
    args: list[CallArg]
    share: Expr


@dataclass
class Disjoint(Node):
    """`on disjoint parts { calls }`: calls on pairwise disjoint parts of the data."""
    partition: str
    partition_span: Span
    calls: list[Call]
    keyword_span: Span


@dataclass
class ReleaseBlock(Block):
    items: list[Call | Disjoint] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    kind = "release"


# ------------------------------------------------------------- discrete mechanisms
# (docs/discrete.md; lowered by dslc/ir/lower_mechanism_bounded.py)
@dataclass
class DLap(Expr):
    """`DLap(rate, mean)`: the two-sided geometric distribution on the integers,
    P(k) ∝ e^(−rate·|k − mean|)."""
    rate: Expr
    mean: Expr
    keyword_span: Span


@dataclass
class Flip(Expr):
    """`flip(p)`: 1 with probability p, else 0."""
    prob: Expr
    keyword_span: Span


@dataclass
class Clamp(Expr):
    """`clamp(value, lo, hi)`: the value moved into [lo, hi]."""
    value: Expr
    lo: Expr
    hi: Expr
    keyword_span: Span


@dataclass
class ExpOf(Expr):
    """`e^ε` or `e^(dε)`: e raised to a multiple of ε."""
    exponent: Expr


@dataclass
class CondTruth(Node):
    """A condition that is one expression (`if flip(p) { … }`): true when non-zero."""
    value: Expr


@dataclass
class DomainClaim(Claim):
    """`input in [lo, hi]` (``value`` is lo)."""
    high: Expr | None = None


# ------------------------------------------------------------- several stored variables
@dataclass
class ConjGuardDecl(Node):
    """`insample >= l and insample < r` (or `&&`): a conjunction of comparisons
    (docs/language.md, "Several variables")."""
    literals: list[GuardDecl]
    kind = "and"
    variable = None
    variable_span = None


@dataclass
class CondAnd(Node):
    """`if c1 && c2 { ... }` in a mechanism: a conjunction of comparisons."""
    parts: list[Cond]


@dataclass
class VariablesDecl(Node):
    """`variables l, r` after an automaton's name: its stored variables, declared."""
    names: list[tuple[str, Span]]
