"""Exact evaluation of `.dp` expressions to linear forms.

A rate must be a non-negative rational multiple of ε; a mean is a rational
constant, or in a mechanism the value read in the step plus a constant.  Both
are evaluated to ``c + e·ε + i·input`` with exact rationals.  Evaluation is
iterative, so a long expression cannot exhaust Python's recursion limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from dslc.diagnostics.model import DiagnosticError, error
from dslc.syntax import ast

ZERO = Fraction(0)


@dataclass(frozen=True)
class Linear:
    const: Fraction = ZERO
    eps: Fraction = ZERO
    input: Fraction = ZERO

    def is_const(self) -> bool:
        return self.eps == 0 and self.input == 0

    def __add__(self, o: "Linear") -> "Linear":
        return Linear(self.const + o.const, self.eps + o.eps, self.input + o.input)

    def scale(self, k: Fraction) -> "Linear":
        return Linear(self.const * k, self.eps * k, self.input * k)


class NotLinear(Exception):
    def __init__(self, node: ast.Expr, reason: str):
        super().__init__(reason)
        self.node = node
        self.reason = reason


Resolver = Callable[[ast.Expr], Linear]


def evaluate(expr: ast.Expr, resolve: Resolver) -> Linear:
    """Evaluate ``expr``; ``resolve`` handles names, reads, draws and symbols.

    Raises :class:`NotLinear` for products of two non-constants, division by
    a non-constant or by zero.
    """
    stack: list[tuple[ast.Expr, bool]] = [(expr, False)]
    values: list[Linear] = []
    while stack:
        node, done = stack.pop()
        if isinstance(node, ast.Num):
            values.append(Linear(const=node.value))
        elif isinstance(node, ast.Eps):
            values.append(Linear(eps=Fraction(1)))
        elif isinstance(node, ast.Neg):
            if done:
                values.append(values.pop().scale(Fraction(-1)))
            else:
                stack.append((node, True))
                stack.append((node.operand, False))
        elif isinstance(node, ast.BinOp):
            if not done:
                stack.append((node, True))
                stack.append((node.right, False))
                stack.append((node.left, False))
                continue
            right = values.pop()
            left = values.pop()
            values.append(_binop(node, left, right))
        else:
            values.append(resolve(node))
    return values[0]


def _binop(node: ast.BinOp, left: Linear, right: Linear) -> Linear:
    op = node.op
    if op == "+":
        return left + right
    if op == "-":
        return left + right.scale(Fraction(-1))
    if op == "*":
        if left.is_const():
            return right.scale(left.const)
        if right.is_const():
            return left.scale(right.const)
        raise NotLinear(node, "a product of two quantities that are not constants")
    if op == "/":
        if not right.is_const():
            raise NotLinear(node, "a division by a quantity that is not a constant")
        if right.const == 0:
            raise DiagnosticError(error("E008", "division by zero", node.span, "the divisor is 0")
                                  .with_help("numbers are exact rationals; a fraction needs a non-zero denominator"))
        return left.scale(1 / right.const)
    raise NotLinear(node, f"the operator `{op}`")


def constant_resolver(params: dict[str, Fraction] | None = None) -> Resolver:
    """Resolver for contexts where only numbers, ε and parameters may appear."""
    params = params or {}

    def resolve(node: ast.Expr) -> Linear:
        if isinstance(node, ast.Name) and node.name in params:
            return Linear(const=params[node.name])
        if isinstance(node, ast.Name):
            raise DiagnosticError(error("E119", f"unknown name `{node.name}`", node.span,
                                        "not defined here")
                                  .with_help("only numbers, `ε` and the block's parameters may appear here"))
        raise NotLinear(node, "a value that is not a number")

    return resolve


def eval_rate(draw: ast.Draw, resolve: Resolver) -> Fraction:
    """The d of `Lap(dε, μ)`; raises E107 with a help line otherwise."""
    try:
        value = evaluate(draw.rate, resolve)
    except NotLinear as exc:
        raise DiagnosticError(_rate_error(draw, exc.reason)) from None
    if value.input != 0 or value.const != 0 or value.eps < 0:
        reason = ("it is negative" if value.eps < 0 and value.const == 0 and value.input == 0
                  else "it is not a multiple of ε")
        raise DiagnosticError(_rate_error(draw, reason))
    return value.eps


def _rate_error(draw: ast.Draw, reason: str):
    text = draw.rate.span.text
    diag = error("E107", f"the rate of `Lap` must be a non-negative multiple of ε, but `{text}` is not",
                 draw.rate.span, f"{reason}")
    diag.note("`Lap(rate, mean)` takes the RATE dε (scale 1/(dε)), as in the DiPA paper")
    if "/" in text and ("ε" in text.split("/", 1)[1] or "eps" in text.split("/", 1)[1]):
        num = text.split("/", 1)[0].strip() or "1"
        diag.with_help(f"`.dp` takes the rate, not the scale: a scale `{text}` is the rate `ε/{num}`")
    else:
        diag.with_help("write the rate as a multiple of ε, such as `ε/4`, `2ε/9` or `0.25*ε`")
    return diag


def not_linear_error(exc: NotLinear, what: str):
    return error("E109", f"the {what} is not an exact constant", exc.node.span,
                 exc.reason).with_help("use numbers, fractions and parameters, e.g. `0`, `-1/2`, `T + 1`")
