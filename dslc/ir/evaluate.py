"""The one exact evaluator of `.dp` expressions.

Every block kind evaluates the same expression trees (numbers, ε, names,
``+ - * /``, unary minus, and the leaves `Lap(…)`, `read()` and symbols) in
its own *value domain*:

- :class:`dslc.ir.linear.Linear` — ``c + e·ε + i·input`` (rates and means of
  DiPA blocks);
- :class:`dslc.ir.hmm.Poly` — polynomials in symbolic parameters
  (probabilities of `hmm`/`mdp` blocks);
- :class:`fractions.Fraction` — plain constants (`chain` blocks).

:func:`evaluate` folds the tree without recursion (a sum of 100,000 terms or
10,000 nested parentheses is fine) and applies the faults common to every
domain, each with one code: a division by zero is E008, a value too large to
handle exactly E011 (:data:`dslc.limits.MAX_EXACT_BITS`), an expression with
too many operators E012 (:data:`dslc.limits.MAX_TERMS`).  What a domain
cannot represent (a product of two non-constants in `Linear`, a division by
a parameter in `Poly`, a name in a constant) is the domain's own error.
"""

from __future__ import annotations

from fractions import Fraction
from collections.abc import Callable

from dslc import limits
from dslc.diagnostics.model import DiagnosticError, error
from dslc.syntax import ast

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from typing import TypeVar
    V = TypeVar("V")


class Domain:
    """What :func:`evaluate` needs of a domain of values V (a protocol: the
    domains do not inherit from it)."""

    def leaf(self, node: ast.Expr) -> V: ...              # Num, Eps, Name, Read, Draw, Symbol
    def add(self, a: V, b: V) -> V: ...
    def neg(self, a: V) -> V: ...
    def mul(self, node: ast.BinOp, a: V, b: V) -> V: ...
    def div(self, node: ast.BinOp, a: V, b: V) -> V: ...  # called with b != 0 (see is_zero)
    def is_zero(self, a: V) -> bool: ...
    def bits(self, a: V) -> int: ...                       # size of the exact value


def evaluate(expr: ast.Expr, domain: Domain[V]) -> V:
    """The value of ``expr`` in ``domain`` (iterative: no recursion)."""
    stack: list[tuple[ast.Expr, bool]] = [(expr, False)]
    values: list = []
    operators = 0
    while stack:
        node, done = stack.pop()
        if isinstance(node, ast.BinOp):
            if not done:
                operators += 1
                if operators > limits.MAX_TERMS:
                    raise DiagnosticError(error("E012", f"this expression has more than {limits.MAX_TERMS} "
                                                        "operators", expr.span, "too long")
                                          .with_help("split the computation, or write its value"))
                stack.append((node, True))
                stack.append((node.right, False))
                stack.append((node.left, False))
                continue
            right = values.pop()
            left = values.pop()
            values.append(_check_size(node, domain, _binop(node, left, right, domain)))
        elif isinstance(node, ast.Neg):
            if not done:
                stack.append((node, True))
                stack.append((node.operand, False))
            else:
                values.append(domain.neg(values.pop()))
        else:
            values.append(_check_size(node, domain, domain.leaf(node)))
    return values[0]


def _binop(node: ast.BinOp, left, right, domain: Domain):
    op = node.op
    if op == "+":
        return domain.add(left, right)
    if op == "-":
        return domain.add(left, domain.neg(right))
    if op == "*":
        return domain.mul(node, left, right)
    if op == "/":
        if domain.is_zero(right):
            raise DiagnosticError(error("E008", "division by zero", node.right.span, "this is 0")
                                  .with_help("numbers are exact rationals; a fraction needs a non-zero "
                                             "denominator"))
        return domain.div(node, left, right)
    raise DiagnosticError(error("E001", f"unknown operator `{op}`", node.span))  # pragma: no cover


def _check_size(node: ast.Expr, domain: Domain, value):
    if domain.bits(value) > limits.MAX_EXACT_BITS:
        raise DiagnosticError(error("E011", "this value is too large to be computed exactly", node.span,
                                    f"more than {limits.MAX_EXACT_BITS} bits")
                              .with_help("write the number with fewer digits, or simplify the expression"))
    return value


def fraction_bits(q: Fraction) -> int:
    return max(q.numerator.bit_length(), q.denominator.bit_length())


# ------------------------------------------------------------------ constants
class NotConstant(Exception):
    """A leaf that is not a number (the caller turns it into its own diagnostic)."""

    def __init__(self, node: ast.Expr):
        super().__init__(node.span.text)
        self.node = node


class Constants:
    """Plain exact rationals; ``names`` resolves a name to a value (or raises)."""

    def __init__(self, names: Callable[[ast.Name], Fraction] | None = None):
        self.names = names

    def leaf(self, node: ast.Expr) -> Fraction:
        if isinstance(node, ast.Num):
            return node.value
        if isinstance(node, ast.Name) and self.names is not None:
            return self.names(node)
        raise NotConstant(node)

    def add(self, a, b):
        return a + b

    def neg(self, a):
        return -a

    def mul(self, node, a, b):
        return a * b

    def div(self, node, a, b):
        return a / b

    def is_zero(self, a) -> bool:
        return a == 0

    def bits(self, a) -> int:
        return fraction_bits(a)
