"""A direct interpreter of `mechanism` programs (their operational semantics).

This runs the program as written — statements in order, variables holding
exact rational values, `read()` taking the next input, `Lap(rate, mean)`
drawing afresh — and knows nothing about steps, states or the lowering to a
DiP automaton.  It is the reference the lowering is validated against
(tests/test_lowering_validation.py: the program and its automaton, run on the
same inputs with the same draws, must produce the same outputs), and what
`dslc run` executes for a `mechanism` block, so users run what they wrote.

Semantics:
- `v := e` evaluates `e` and binds `v`; `read()` takes the next input, and
  when the input is used up the run ends there (a loop "runs while input
  lasts");
- `Lap(r, m)` with r = dε > 0 draws m + u/(dε), u the next standard Laplace
  sample of the :class:`~dslc.dipa.sampler.Noise` (the same source the
  automaton interpreter uses, one sample per draw, in program order);
- `output e` emits a symbol (`⊤`, `⊥`, a string, or a name that is neither a
  variable nor a parameter) or the value of `e`;
- `if`, `loop`, `break`, `halt` as usual; a comparison `>` or `>=` is the
  exact comparison of rationals; `c1 && c2` (or `and`) evaluates left to
  right and skips the rest once a comparison fails.
Everything is iterative: deep nesting and long expressions do not recurse.

A run can also be *traced* (``trace=True``): every statement executed leaves
a :class:`Fact` — its line, the loop turns it runs in, the values it read,
the draws it made, whether a condition held, what it output.  A witness's
step-by-step sentences are rendered from these facts
(:mod:`dslc.dipa.program_run`), so they say what the program does.  Instead
of the noise source, a run may take the draws' values themselves
(``values``): each `Lap` then takes the next value, and the run ends when
they are used up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dslc.dipa.sampler import NO_VALUE, Noise, RunError
from dslc.syntax import ast

MAX_STATEMENTS = 100_000       # statements executed before a run is cut


class _Stop(Exception):
    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Fact:
    """What one executed statement did (a traced run)."""
    kind: str                      # "assign", "compare", "output", "break", "halt"
    line: int                      # the statement's line (an `if`: its condition's)
    code: str                      # the statement (an `if`: its condition), blanks collapsed
    loops: tuple = ()              # ((line of the `loop`, turn), ...), outermost first
    reads: list = field(default_factory=list)      # the values read, in order
    draws: list = field(default_factory=list)      # the `Lap(…)` texts drawn, in order
    held: bool | None = None       # compare: the condition held
    target: str | None = None      # assign: the variable
    value: object = None           # output: the symbol or the exact value


@dataclass
class ProgramRun:
    outputs: list[str | Fraction] = field(default_factory=list)
    inputs_used: int = 0
    stopped: str = ""
    cut: bool = False             # stopped by MAX_STATEMENTS, not by the program
    facts: list[Fact] = field(default_factory=list)     # a traced run's statements


def _variables(block: ast.MechanismBlock) -> set[str]:
    names: set[str] = set()
    stack: list[ast.Stmt] = list(block.body)
    while stack:
        s = stack.pop()
        if isinstance(s, ast.Assign):
            names.add(s.target)
        elif isinstance(s, ast.If):
            stack.extend(s.then)
            stack.extend(s.orelse or [])
        elif isinstance(s, ast.Loop):
            stack.extend(s.body)
    return names


def _line(node) -> int:
    return node.span.file.line_col(node.span.start)[0]


def _code(node) -> str:
    return " ".join(node.span.text.split())


class Interpreter:
    def __init__(self, block: ast.MechanismBlock, inputs: list[Fraction], epsilon: Fraction, noise: Noise | None,
                 max_statements: int = MAX_STATEMENTS, trace: bool = False,
                 values: list[Fraction] | None = None):
        self.block = block
        self.inputs = [Fraction(a) for a in inputs]
        self.eps = Fraction(epsilon)
        self.noise = noise
        self.max_statements = max_statements
        self.variables = _variables(block)
        self.env: dict[str, Fraction] = {}
        self.params: dict[str, Fraction] = {}
        self.pos = 0
        self.run = ProgramRun()
        self.trace = trace
        self.values = None if values is None else [Fraction(v) for v in values]
        self.drawn = 0
        self.reads: list[Fraction] = []        # this statement's reads and draws (traced runs)
        self.draw_texts: list[str] = []

    # ---- expressions
    def value(self, expr: ast.Expr) -> Fraction:
        """Evaluate left to right (reads and draws happen in that order)."""
        stack: list[tuple[ast.Expr, int]] = [(expr, 0)]
        vals: list[Fraction] = []
        while stack:
            node, stage = stack.pop()
            if isinstance(node, ast.Num):
                vals.append(node.value)
            elif isinstance(node, ast.Eps):
                vals.append(self.eps)
            elif isinstance(node, ast.Name):
                vals.append(self.lookup(node))
            elif isinstance(node, ast.Read):
                vals.append(self.read())
            elif isinstance(node, ast.Symbol):
                raise RunError(f"the symbol `{node.name}` is not a number")
            elif isinstance(node, ast.Neg):
                if stage == 0:
                    stack.append((node, 1))
                    stack.append((node.operand, 0))
                else:
                    vals.append(-vals.pop())
            elif isinstance(node, ast.BinOp):
                if stage == 0:
                    stack.append((node, 1))
                    stack.append((node.right, 0))
                    stack.append((node.left, 0))
                else:
                    b, a = vals.pop(), vals.pop()
                    vals.append(self.binop(node.op, a, b))
            elif isinstance(node, ast.Draw):
                if stage == 0:
                    stack.append((node, 1))
                    stack.append((node.mean, 0))
                    stack.append((node.rate, 0))
                else:
                    mean, rate = vals.pop(), vals.pop()
                    if rate is NO_VALUE or mean is NO_VALUE:
                        raise RunError(f"`{node.span.text}` uses a draw of rate 0, which has no value")
                    if rate < 0:
                        raise RunError(f"`{node.span.text}` has a negative rate")
                    # rate 0: no distribution; the value may be stored but never used
                    vals.append(NO_VALUE if rate == 0 else self.draw(node, rate, mean))
            else:  # pragma: no cover - the parser builds no other expression
                raise RunError(f"cannot evaluate `{node.span.text}`")
        return vals[0]

    def draw(self, node: ast.Draw, rate: Fraction, mean: Fraction) -> Fraction:
        if self.values is not None:
            if self.drawn >= len(self.values):
                raise _Stop("the draws are used up")
            value = self.values[self.drawn]
        else:
            value = mean + self.noise.next() / rate
        self.drawn += 1
        if self.trace:
            self.draw_texts.append(_code(node))
        return value

    @staticmethod
    def binop(op: str, a: Fraction, b: Fraction) -> Fraction:
        if a is NO_VALUE or b is NO_VALUE:
            raise RunError("a draw of rate 0 has no value to compute with")
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if b == 0:
            raise RunError("division by zero")
        return a / b

    def lookup(self, node: ast.Name) -> Fraction:
        if node.name in self.variables:
            if node.name not in self.env:
                raise RunError(f"`{node.name}` is used before it has a value")
            return self.env[node.name]
        if node.name in self.params:
            return self.params[node.name]
        raise RunError(f"unknown name `{node.name}`")

    def read(self) -> Fraction:
        if self.pos >= len(self.inputs):
            raise _Stop("the input is used up")
        self.pos += 1
        if self.trace:
            self.reads.append(self.inputs[self.pos - 1])
        return self.inputs[self.pos - 1]

    def note(self, kind: str, node, frames: list, **what) -> None:
        """Record a traced statement with the reads and draws it made."""
        loops = tuple((f[3], f[4]) for f in frames if f[2])
        self.run.facts.append(Fact(kind, _line(node), _code(node), loops, self.reads, self.draw_texts,
                                   **what))
        self.reads, self.draw_texts = [], []

    def out(self, s: ast.Output) -> None:
        v = s.value
        if isinstance(v, ast.Symbol):
            self.run.outputs.append(v.name)
        elif isinstance(v, ast.Name) and v.name not in self.variables and v.name not in self.params:
            self.run.outputs.append(v.name)
        else:
            value = self.value(v)
            if value is NO_VALUE:
                raise RunError("a draw of rate 0 has no value to output")
            self.run.outputs.append(value)

    @staticmethod
    def holds(op: str, a: Fraction, b: Fraction) -> bool:
        if a is NO_VALUE or b is NO_VALUE:
            raise RunError("a draw of rate 0 has no value to compare")
        return {">=": a >= b, ">": a > b, "<": a < b, "<=": a <= b}[op]

    # ---- statements
    def execute(self) -> ProgramRun:
        for p in self.block.params:
            if p.default is None:
                raise RunError(f"parameter `{p.name}` has no value")
            self.params[p.name] = self.value(p.default)
        # frames: [statements, next index, is_loop, line of the `loop`, turn]
        frames: list[list] = [[self.block.body, 0, False, 0, 0]]
        count = 0
        try:
            while frames:
                frame = frames[-1]
                stmts, i, is_loop = frame[0], frame[1], frame[2]
                if i >= len(stmts):
                    if not is_loop:
                        frames.pop()
                    elif not stmts:
                        raise _Stop("cut")     # an empty loop never ends
                    else:
                        frame[1] = 0           # the next turn
                        frame[4] += 1
                    continue
                frame[1] = i + 1
                count += 1
                if count > self.max_statements:
                    raise _Stop("cut")
                s = stmts[i]
                if isinstance(s, ast.Assign):
                    self.env[s.target] = self.value(s.value)
                    if self.trace:
                        self.note("assign", s, frames, target=s.target)
                elif isinstance(s, ast.Output):
                    self.out(s)
                    if self.trace:
                        self.note("output", s, frames, value=self.run.outputs[-1])
                elif isinstance(s, ast.If):
                    held = True
                    # `c1 && c2`: left to right, the rest skipped once one fails
                    for c in (s.cond.parts if isinstance(s.cond, ast.CondAnd) else [s.cond]):
                        a = self.value(c.left)
                        b = self.value(c.right)
                        held = self.holds(c.op, a, b)
                        if not held:
                            break
                    if self.trace:
                        self.note("compare", s.cond, frames, held=held)
                    branch = s.then if held else (s.orelse or [])
                    frames.append([branch, 0, False, 0, 0])
                elif isinstance(s, ast.Loop):
                    frames.append([s.body, 0, True, s.keyword_span.file.line_col(s.keyword_span.start)[0], 1])
                elif isinstance(s, ast.Break):
                    if self.trace:
                        self.note("break", s, frames)
                    while frames and not frames[-1][2]:
                        frames.pop()
                    if not frames:
                        raise RunError("`break` outside of a loop")
                    frames.pop()
                elif isinstance(s, ast.Halt):
                    if self.trace:
                        self.note("halt", s, frames)
                    raise _Stop("halt")
            self.run.stopped = "the end of the program"
        except _Stop as stop:
            self.run.stopped = stop.reason
            self.run.cut = stop.reason == "cut"
        self.run.inputs_used = self.pos
        return self.run


def run_program(block: ast.MechanismBlock, inputs: list[Fraction], epsilon: Fraction, noise: Noise | None,
                max_statements: int = MAX_STATEMENTS, trace: bool = False,
                values: list[Fraction] | None = None) -> ProgramRun:
    """Run a mechanism once on ``inputs`` with the draws of ``noise`` (or the
    draws' own ``values``); ``trace`` records a :class:`Fact` per statement."""
    return Interpreter(block, inputs, epsilon, noise, max_statements, trace, values).execute()
