"""`dslc prob` for discrete mechanisms (docs/discrete.md): the exact probability
of an output sequence given the input sequence, in closed form in e^ε."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction

from dslc.commands.common import UsageError


def discrete_prob(args) -> int | None:
    """None when the chosen block is not a discrete mechanism (the DiPA path runs)."""
    from dslc.ir.lower_mechanism_bounded import DiscreteProgram, uses_discrete
    from dslc.pipeline import Options, compile_source, read_source
    from dslc.syntax import ast

    source, problem = read_source(args.file)
    if source is None:
        return None
    blocks = [c for c in compile_source(source, Options()) if c.chunk.keyword == "mechanism"]
    chosen = [c for c in blocks if c.name == args.block] if args.block else blocks
    if len(chosen) != 1:
        return None
    comp = chosen[0]
    block = comp.syntax
    if not isinstance(block, ast.MechanismBlock) or not uses_discrete(block):
        return None
    program, diags = comp.lowered
    if diags or not isinstance(program, DiscreteProgram):
        raise UsageError(f"`{comp.name}` has errors; run `dslc check {args.file}` to see them")
    from dslc.bounded.mechanism import Machine, ProgramFault, output_distributions
    try:
        inputs = tuple(int(v) for v in args.inputs.split(",") if v.strip())
    except ValueError:
        raise UsageError("--inputs takes integers, e.g. --inputs 0,1,1") from None
    bad = [v for v in inputs if not program.lo <= v <= program.hi]
    if bad:
        raise UsageError(f"{bad[0]} is outside the input domain [{program.lo}, {program.hi}]")
    outputs = tuple(v.strip() for v in args.outputs.split(",") if v.strip())
    try:
        eps = Fraction(args.epsilon.strip())
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"--epsilon takes a decimal or a fraction, not {args.epsilon!r}") from None
    try:
        dist = output_distributions(Machine(program), inputs)
    except ProgramFault as fault:
        raise UsageError(fault.message) from None
    from dslc.numbers import fmt_fraction

    def show(v) -> str:
        return fmt_fraction(v) if isinstance(v, Fraction) else str(v)

    pr = next((p for o, p in dist.items() if tuple(show(v) for v in o) == outputs), None)
    closed = "0" if pr is None else pr.text(program.L)
    value = 0.0 if pr is None else _value(pr, float(eps) / program.L)
    if args.format == "json":
        sys.stdout.write(json.dumps({"block": program.name, "inputs": list(inputs), "outputs": list(outputs),
                                     "probability": closed, "epsilon": str(eps), "value": value}) + "\n")
    else:
        print(f"Pr[outputs ({', '.join(outputs)}) | inputs ({', '.join(map(str, inputs))})] = {closed}")
        print(f"at ε = {args.epsilon.strip()}: ≈ {value:.12g}")
    return 0


def _value(pr, x: float) -> float:
    s = math.exp(-x)
    num = sum(float(c) * s ** i for i, c in enumerate(pr.num.coeffs()))
    den = sum(float(c) * s ** i for i, c in enumerate(pr.den.coeffs()))
    return num / den
