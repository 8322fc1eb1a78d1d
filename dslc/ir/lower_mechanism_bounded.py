"""Lowering of a `mechanism` block with discrete noise to a finite program for
the bounded checker (docs/discrete.md).

The statements become a flat list of instructions (a program location is an
index into it); the header declares the inputs' finite domain (`input in
[lo, hi]`), adjacency (`adjacent Δ`: every read may differ by at most Δ;
`adjacent any`: one read differs, arbitrarily) and the horizon (`horizon k`:
the number of reads).  Everything that cannot be lowered is an error at its
source span (E150–E159).  The finite Markov model itself (locations × stores,
inputs as the adversary's actions, outputs as observations) is explored by
:mod:`dslc.bounded.mechanism` from this program.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm

from dslc.diagnostics.model import Diagnostic, error
from dslc.source import Span
from dslc.syntax import ast

DISCRETE_NODES = (ast.DLap, ast.Flip, ast.Clamp, ast.ExpOf, ast.CondTruth)
DISCRETE_CLAIMS = ("input", "adjacent", "horizon")
DEFAULT_HORIZON = 4
MAX_DOMAIN = 64
MAX_HORIZON = 64


@dataclass
class Instr:
    op: str                         # assign | branch | jump | output | halt
    span: Span
    target: str | None = None       # assign: the variable
    expr: object = None             # assign/output: ast.Expr; branch: ast.Cond | ast.CondTruth
    jump: int = -1                  # branch: where to go when false; jump: where to go
    reads: bool = False             # the instruction calls read()


@dataclass
class DiscreteProgram:
    name: str
    name_span: Span
    span: Span
    code: list[Instr]
    variables: list[str]
    constants: dict[str, Fraction]
    lo: int
    hi: int
    adjacent: int | None            # Δ, or None for `adjacent any`
    horizon: int
    horizon_declared: bool
    L: int                          # s = e^(−ε/L): every rate is a multiple of 1/L
    budget: Fraction | None = None
    budget_span: Span | None = None
    claim_spans: dict[str, Span] = field(default_factory=dict)

    @property
    def domain(self) -> list[int]:
        return list(range(self.lo, self.hi + 1))

    def adjacency_text(self) -> str:
        if self.adjacent is None:
            return "one read differs, arbitrarily (adjacent any)"
        return f"every read may differ by at most {self.adjacent} (adjacent {self.adjacent})"


def walk(node):
    """Every AST node below ``node`` (statements, conditions, expressions)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(n)
            continue
        if not isinstance(n, ast.Node):
            continue
        yield n
        for v in vars(n).values():
            if isinstance(v, (ast.Node, list)):
                stack.append(v)


def uses_discrete(block: ast.MechanismBlock) -> bool:
    """The block uses discrete noise or declares a finite input domain:
    it goes to the bounded checker."""
    if any(c.kind in DISCRETE_CLAIMS for c in block.claims):
        return True
    return any(isinstance(n, DISCRETE_NODES) for n in walk(block.body))


class _Lowering:
    def __init__(self, block: ast.MechanismBlock):
        self.block = block
        self.diags: list[Diagnostic] = []
        self.code: list[Instr] = []
        self.variables: list[str] = []
        self.constants: dict[str, Fraction] = {}
        self.rates: list[Fraction] = []
        self.bad_params: set[str] = set()      # reported once (E156), not again as unassigned

    def err(self, code: str, message: str, span: Span, label: str, help_: str) -> None:
        self.diags.append(error(code, message, span, label).with_help(help_))

    # ---- statements
    def emit(self, instr: Instr) -> int:
        self.code.append(instr)
        return len(self.code) - 1

    def stmts(self, body: list[ast.Stmt], loops: list[list[int]]) -> None:
        for st in body:
            self.stmt(st, loops)

    def stmt(self, st: ast.Stmt, loops: list[list[int]]) -> None:
        if isinstance(st, ast.Assign):
            self.expr(st.value)
            if st.target in self.constants:
                self.err("E156", f"`{st.target}` is a parameter of the mechanism and cannot be assigned",
                         st.target_span, "assigned here", "use another name for the variable")
            if st.target not in self.variables:
                self.variables.append(st.target)
            self.emit(Instr("assign", st.span, st.target, st.value, reads=self.reads(st.value)))
        elif isinstance(st, ast.Output):
            self.expr(st.value)
            self.emit(Instr("output", st.span, expr=st.value, reads=self.reads(st.value)))
        elif isinstance(st, ast.Halt):
            self.emit(Instr("halt", st.span))
        elif isinstance(st, ast.Break):
            if not loops:
                self.err("E157", "`break` outside a loop", st.span, "not inside `loop { … }`",
                         "remove the `break`, or use `halt` to end the mechanism")
                return
            loops[-1].append(self.emit(Instr("jump", st.span)))
        elif isinstance(st, ast.If):
            self.cond(st.cond)
            reads = self.reads(st.cond)
            branch = self.emit(Instr("branch", st.cond.span, expr=st.cond, reads=reads))
            self.stmts(st.then, loops)
            if st.orelse is not None:
                skip = self.emit(Instr("jump", st.keyword_span))
                self.code[branch].jump = len(self.code)
                self.stmts(st.orelse, loops)
                self.code[skip].jump = len(self.code)
            else:
                self.code[branch].jump = len(self.code)
        elif isinstance(st, ast.Loop):
            start = len(self.code)
            breaks: list[int] = []
            self.stmts(st.body, loops + [breaks])
            self.emit(Instr("jump", st.end_span, jump=start))
            for b in breaks:
                self.code[b].jump = len(self.code)
            if not any(isinstance(n, ast.Read) for n in walk(st.body)):
                self.err("E157", "this loop never reads an input", st.keyword_span, "a loop without `read()`",
                         "every iteration of a loop must read an input (`q := read()`), or the loop "
                         "would run for ever between two reads")

    def reads(self, node) -> bool:
        count = sum(1 for n in walk(node) if isinstance(n, ast.Read))
        if count > 1:
            self.err("E157", "two `read()` calls in one statement", node.span, "reads twice",
                     "read each input into a variable first (`q := read()`)")
        return count > 0

    def cond(self, cond) -> None:
        if isinstance(cond, ast.CondTruth):
            if not isinstance(cond.value, ast.Flip):
                self.err("E152", "a condition without a comparison must be a coin `flip(p)`",
                         cond.span, "not a comparison", "compare two values (`q >= 1`) or flip a coin (`flip(1/2)`)")
            self.expr(cond.value)
        else:
            self.expr(cond.left)
            self.expr(cond.right)
            # a bare DLap in a comparison has a finite outcome: allowed on one side
            bare = [x for x in (cond.left, cond.right) if isinstance(x, ast.DLap)]
            if len(bare) == 2:
                self.err("E150", "two unclamped `DLap` draws compared with each other", cond.span,
                         "both sides are unbounded", "clamp one of them: `clamp(DLap(ε, q), lo, hi)`")

    # ---- expressions
    def expr(self, e, allowed_dlap: bool = False, prob: bool = False) -> None:
        stack = [(e, allowed_dlap)]
        while stack:
            n, ok_dlap = stack.pop()
            if isinstance(n, ast.DLap):
                if not ok_dlap and not self._in_comparison(n):
                    self.err("E150", "`DLap` draws an integer from an unbounded range", n.span,
                             "unbounded noise", "clamp it to a finite range, e.g. "
                             f"`clamp({n.span.text}, 0, 10)`, or compare it directly (`if {n.span.text} >= x`)")
                self.rate(n.rate)
                stack.append((n.mean, False))
            elif isinstance(n, ast.Clamp):
                stack.append((n.value, True))
                stack.append((n.lo, False))
                stack.append((n.hi, False))
            elif isinstance(n, ast.Flip):
                self.probability(n.prob)
            elif isinstance(n, ast.Draw):
                self.err("E151", "continuous Laplace noise cannot be checked by the bounded checker",
                         n.keyword_span, "continuous noise",
                         "use `DLap(rate, mean)` for integer-valued noise, or drop the discrete parts "
                         "(and `--backend bounded`) to check the mechanism as a DiP automaton")
            elif isinstance(n, ast.ExpOf):
                self.err("E153", "`e^…` is allowed only inside a coin's probability `flip(…)`", n.span,
                         "here", "write the probability of a coin with it, e.g. `flip(e^ε / (1 + e^ε))`")
            elif isinstance(n, ast.Eps):
                self.err("E153", "ε is allowed only in noise rates and in `e^…` of a coin's probability",
                         n.span, "here", "a value computed by the program cannot depend on ε")
            elif isinstance(n, ast.Name):
                if n.name not in self.constants and n.name not in self.variables and n.name not in self.bad_params:
                    self.err("E154", f"`{n.name}` is used before it is assigned", n.span, "not assigned yet",
                             f"assign `{n.name}` first (`{n.name} := …`) or declare it as a parameter")
            elif isinstance(n, (ast.BinOp,)):
                stack.append((n.left, False))
                stack.append((n.right, False))
            elif isinstance(n, ast.Neg):
                stack.append((n.operand, False))

    def _in_comparison(self, n: ast.DLap) -> bool:
        return id(n) in self.comparable

    def rate(self, e: ast.Expr) -> None:
        value = self.eps_multiple(e)
        if value is None or value <= 0:
            self.err("E155", "a noise rate must be a positive multiple of ε", e.span, "not a positive multiple of ε",
                     "write e.g. `DLap(ε, q)` or `DLap(ε/2, q)`")
            return
        self.rates.append(value)

    def eps_multiple(self, e) -> Fraction | None:
        return eps_multiple(e, self.constants)

    def probability(self, e) -> None:
        for n in walk(e):
            if isinstance(n, ast.ExpOf):
                k = self.eps_multiple(n.exponent)
                if k is None:
                    self.err("E153", "the exponent of `e^…` must be a multiple of ε", n.exponent.span,
                             "not a multiple of ε", "write `e^ε` or `e^(2ε)`")
                else:
                    self.rates.append(abs(k) if k else Fraction(1))
            elif isinstance(n, (ast.DLap, ast.Flip, ast.Read, ast.Draw, ast.Clamp)):
                self.err("E153", "a coin's probability must be a fixed number or an expression in e^ε",
                         n.span, "random or read here", "compute the probability from numbers and `e^ε`")
            elif isinstance(n, ast.Name) and n.name not in self.constants:
                self.err("E153", "a coin's probability must be a fixed number or an expression in e^ε",
                         n.span, "a variable of the program", "use numbers, parameters and `e^ε` only")

    def run(self) -> DiscreteProgram | None:
        b = self.block
        self.bad_params = {p.name for p in b.params}
        for p in b.params:
            if p.default is None or not isinstance(p.default, (ast.Num, ast.Neg)):
                self.err("E156", f"the parameter `{p.name}` needs a numeric value for the bounded checker",
                         p.span, "no value", f"give it one: `{p.name} = 0`")
                continue
            v = p.default.value if isinstance(p.default, ast.Num) else (
                -p.default.operand.value if isinstance(p.default.operand, ast.Num) else None)
            if v is None:
                self.err("E156", f"the parameter `{p.name}` needs a numeric value", p.span, "not a number",
                         f"give it one: `{p.name} = 0`")
                continue
            self.constants[p.name] = v
            self.bad_params.discard(p.name)
        # DLap draws compared directly (one side of a comparison) need no clamp
        self.comparable = {id(x) for n in walk(b.body) if isinstance(n, ast.Cond)
                           for x in (n.left, n.right) if isinstance(x, ast.DLap)}
        lo = hi = None
        adjacent: int | None = 1
        horizon, declared = DEFAULT_HORIZON, False
        budget = budget_span = None
        spans: dict[str, Span] = {}
        for c in b.claims:
            if c.kind in spans:
                self.err("E125", f"`{c.kind}` is declared twice", c.span, "declared again here",
                         f"keep one `{c.kind}` declaration")
                continue
            spans[c.kind] = c.span
            if c.kind == "input":
                lo, hi = self.integer(c.value), self.integer(c.high)
                if lo is not None and hi is not None and not (lo <= hi and hi - lo < MAX_DOMAIN):
                    self.err("E158", f"the input domain [{lo}, {hi}] is empty or has more than {MAX_DOMAIN} values",
                             c.span, "domain", "declare a small integer range, e.g. `input in [0, 3]`")
                    lo = None
            elif c.kind == "adjacent":
                if isinstance(c.value, ast.Name) and c.value.name == "any":
                    adjacent = None
                else:
                    adjacent = self.integer(c.value)
                    if adjacent is not None and adjacent < 1:
                        self.err("E158", "adjacency is a positive integer Δ or `any`", c.value.span, "not positive",
                                 "write `adjacent 1` or `adjacent any`")
            elif c.kind == "horizon":
                k = self.integer(c.value)
                if k is not None and not 1 <= k <= MAX_HORIZON:
                    self.err("E158", f"the horizon must be between 1 and {MAX_HORIZON}", c.value.span,
                             "out of range", "write e.g. `horizon 4`")
                elif k is not None:
                    horizon, declared = k, True
            elif c.kind == "budget":
                d = self.eps_multiple(c.value)
                if d is None or d < 0:
                    self.err("E125", f"a budget is a non-negative multiple of ε, but `{c.value.span.text}` is not",
                             c.value.span, "not a multiple of ε", "write e.g. `budget ε` or `budget 3/2 ε`")
                else:
                    budget, budget_span = d, c.span
                    self.rates.append(d) if d else None
            elif c.kind == "sensitivity":
                self.err("E158", "`sensitivity` is for DiP automata; a discrete mechanism declares `adjacent Δ`",
                         c.span, "not for discrete mechanisms", "write `adjacent 1` (or `adjacent any`)")
        if lo is None and "input" not in spans:
            self.err("E159", f"`{b.name}` needs a finite input domain for the bounded checker", b.name_span,
                     "no `input in [lo, hi]`", f"declare the values a read can return: "
                     f"`mechanism {b.name} input in [0, 3] {{ … }}`")
        self.stmts(b.body, [])
        self.emit(Instr("halt", b.end_span or b.span))
        if self.diags or lo is None:
            return None
        L = 1
        for r in self.rates:
            L = lcm(L, r.denominator)
        return DiscreteProgram(b.name, b.name_span, b.span, self.code, self.variables, self.constants,
                               lo, hi, adjacent, horizon, declared, L, budget, budget_span, spans)

    def integer(self, e) -> int | None:
        v = None
        if isinstance(e, ast.Num):
            v = e.value
        elif isinstance(e, ast.Neg) and isinstance(e.operand, ast.Num):
            v = -e.operand.value
        elif isinstance(e, ast.Name) and e.name in self.constants:
            v = self.constants[e.name]
        if v is None or v.denominator != 1:
            self.err("E158", f"`{e.span.text}` must be an integer", e.span, "not an integer",
                     "write a whole number here")
            return None
        return int(v)


def eps_multiple(e, constants: dict[str, Fraction]) -> Fraction | None:
    """d for an expression d·ε (numbers, parameters, ε, + − * /); None otherwise."""
    def ev(n):
        if isinstance(n, ast.Num):
            return (n.value, Fraction(0))
        if isinstance(n, ast.Eps):
            return (Fraction(0), Fraction(1))
        if isinstance(n, ast.Name) and n.name in constants:
            return (constants[n.name], Fraction(0))
        if isinstance(n, ast.Neg):
            c, k = ev(n.operand)
            return (-c, -k)
        if isinstance(n, ast.BinOp):
            (c1, k1), (c2, k2) = ev(n.left), ev(n.right)
            if n.op == "+":
                return (c1 + c2, k1 + k2)
            if n.op == "-":
                return (c1 - c2, k1 - k2)
            if n.op == "*":
                if k1 and k2:
                    raise ValueError
                return (c1 * c2, c1 * k2 + k1 * c2)
            if n.op == "/":
                if k2 or c2 == 0:
                    raise ValueError
                return (c1 / c2, k1 / c2)
        raise ValueError
    try:
        c, k = ev(e)
    except ValueError:
        return None
    return k if c == 0 else None


def lower_discrete(block: ast.MechanismBlock) -> tuple[DiscreteProgram | None, list[Diagnostic]]:
    low = _Lowering(block)
    program = low.run()
    return program, low.diags
