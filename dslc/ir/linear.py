"""Exact evaluation of `.dp` expressions to linear forms.

A rate must be a non-negative rational multiple of ε; a mean is a rational
constant, or in a mechanism the value read in the step plus a constant.  Both
are evaluated to ``c + e·ε + i·input`` with exact rationals, by the one
evaluator of :mod:`dslc.ir.evaluate` (iterative: a long expression cannot
exhaust Python's recursion limit).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from collections.abc import Callable

from dslc.diagnostics.model import DiagnosticError, error
from dslc.diagnostics.suggest import name_help
from dslc.ir.evaluate import evaluate as fold
from dslc.ir.evaluate import fraction_bits
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


class LinearDomain:
    """The value domain of :func:`dslc.ir.evaluate.evaluate` for rates and means."""

    def __init__(self, resolve: Resolver):
        self.resolve = resolve

    def leaf(self, node: ast.Expr) -> Linear:
        if isinstance(node, ast.Num):
            return Linear(const=node.value)
        if isinstance(node, ast.Eps):
            return Linear(eps=Fraction(1))
        return self.resolve(node)

    def add(self, a: Linear, b: Linear) -> Linear:
        return a + b

    def neg(self, a: Linear) -> Linear:
        return a.scale(Fraction(-1))

    def mul(self, node: ast.BinOp, a: Linear, b: Linear) -> Linear:
        if a.is_const():
            return b.scale(a.const)
        if b.is_const():
            return a.scale(b.const)
        raise NotLinear(node, "a product of two quantities that are not constants")

    def div(self, node: ast.BinOp, a: Linear, b: Linear) -> Linear:
        if not b.is_const():
            raise NotLinear(node, "a division by a quantity that is not a constant")
        return a.scale(1 / b.const)

    def is_zero(self, a: Linear) -> bool:
        return a.const == 0 and a.eps == 0 and a.input == 0

    def bits(self, a: Linear) -> int:
        return max(fraction_bits(a.const), fraction_bits(a.eps), fraction_bits(a.input))


def evaluate(expr: ast.Expr, resolve: Resolver) -> Linear:
    """Evaluate ``expr``; ``resolve`` handles names, reads, draws and symbols.

    Raises :class:`NotLinear` for products of two non-constants or a division
    by a non-constant, E008 for a division by zero (the one evaluator,
    :mod:`dslc.ir.evaluate`)."""
    return fold(expr, LinearDomain(resolve))


def constant_resolver(params: dict[str, Fraction | Linear] | None = None) -> Resolver:
    """Resolver for contexts where only numbers, ε and parameters may appear
    (a parameter's value is a constant or, as in `e1 = ε/3`, a multiple of ε)."""
    params = params or {}

    def resolve(node: ast.Expr) -> Linear:
        if isinstance(node, ast.Name) and node.name in params:
            value = params[node.name]
            return value if isinstance(value, Linear) else Linear(const=value)
        if isinstance(node, ast.Name):
            diag = error("E119", f"unknown name `{node.name}`", node.span, "not defined here")
            close = name_help(node.name, list(params))
            if close:
                diag.with_help(close)
            raise DiagnosticError(diag.with_help("only numbers, `ε` and the block's parameters may appear here"))
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


def evaluate_reported(expr: ast.Expr, resolve: Resolver, what: str, diags: list) -> Linear | None:
    """:func:`evaluate`, with a failure appended to ``diags`` as its diagnostics
    (E109 for a value that is not linear, named by ``what``) and None returned."""
    try:
        return evaluate(expr, resolve)
    except NotLinear as exc:
        diags.append(not_linear_error(exc, what))
    except DiagnosticError as exc:
        diags.extend(exc.diagnostics)
    return None
