"""Lowering of `mechanism` programs to DiP automata.

The program is compiled to a flat list of instructions with jumps; then every
*step* (one DiPA transition) is found by walking the instructions from a
program point until the step ends (LANGUAGE.md, "Meaning, in DiPA terms"):

* a step holds at most one `read()`, one draw `insample ~ Lap(dε, μ [+ input])`
  that is compared, stored or output, at most one further draw (insample′)
  that is only output, at most one comparison of the draw with the stored
  variable, and one output on each branch;
* a step ends at the next read, draw or output after its output (a draw with
  no output before the next draw or read is a silent step), at `halt`, or at
  the end of the program;
* the program point where the next step starts is the target state.

States are program points; every state and transition keeps the spans of
the statements it came from.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, SILENT, DiPA, Guard, Output, State,
                          Transition, symbol)
from dslc.ir.linear import Linear, NotLinear, constant_resolver, eval_rate, evaluate, not_linear_error
from dslc.source import Span
from dslc.syntax import ast

TERMINAL = -1


# ------------------------------------------------------------------ compile
@dataclass
class Ins:
    op: str                    # assign | output | if | jump | halt | end
    node: ast.Node | None
    loop: Span | None          # innermost enclosing `loop` keyword
    target: int = -1           # jump target / else branch of `if`


def compile_program(block: ast.MechanismBlock) -> list[Ins]:
    code: list[Ins] = []

    def emit(op, node, loop, target=-1) -> int:
        code.append(Ins(op, node, loop, target))
        return len(code) - 1

    def block_(stmts: list[ast.Stmt], loops: list[tuple[Span, list[int]]]):
        loop = loops[-1][0] if loops else None
        for s in stmts:
            if isinstance(s, ast.Assign):
                emit("assign", s, loop)
            elif isinstance(s, ast.Output):
                emit("output", s, loop)
            elif isinstance(s, ast.Halt):
                emit("halt", s, loop)
            elif isinstance(s, ast.Break):
                if not loops:
                    raise DiagnosticError(error("E121", "`break` outside of a loop", s.span,
                                                "not inside any `loop`")
                                          .with_help("use `halt` to stop the mechanism"))
                loops[-1][1].append(emit("jump", s, loop))
            elif isinstance(s, ast.Loop):
                head = len(code)
                breaks: list[int] = []
                block_(s.body, loops + [(s.keyword_span, breaks)])
                emit("jump", s, s.keyword_span, head)
                for b in breaks:
                    code[b].target = len(code)
            elif isinstance(s, ast.If):
                at = emit("if", s, loop)
                block_(s.then, loops)
                if s.orelse is not None:
                    skip = emit("jump", s, loop)
                    code[at].target = len(code)
                    block_(s.orelse, loops)
                    code[skip].target = len(code)
                else:
                    code[at].target = len(code)

    block_(block.body, [])
    code.append(Ins("end", None, None))
    return code


# ------------------------------------------------------------------ steps
@dataclass
class DrawInfo:
    d: Fraction
    mean: Fraction
    uses_input: bool
    span: Span


@dataclass
class Ctx:
    """What one branch of a step has done so far."""
    read: Span | None = None
    draw: DrawInfo | None = None
    prime: DrawInfo | None = None
    guard: Guard = Guard.TRUE
    guard_span: Span | None = None
    output: Output | None = None
    output_span: Span | None = None
    targets: list[tuple[str, Span]] = field(default_factory=list)   # variables given the draw
    locals: dict[str, str] = field(default_factory=dict)             # name -> "read" | "draw"
    version: int = 0

    def copy(self) -> "Ctx":
        return replace(self, targets=list(self.targets), locals=dict(self.locals))

    def touched(self) -> bool:
        return self.read is not None or self.draw is not None or self.output is not None


@dataclass
class BranchEnd:
    ctx: Ctx
    target: int                # pc or TERMINAL
    end_span: Span | None      # the halt / end that made it terminal


@dataclass
class Step:
    pc: int
    ends: list[BranchEnd]
    compared: str | None = None           # the stored variable compared in this step
    compare_span: Span | None = None


class Lowerer:
    def __init__(self, block: ast.MechanismBlock):
        self.block = block
        self.params: dict[str, Fraction] = {}
        self.diags: list[Diagnostic] = []
        self.assigned = set()
        self.stored: str | None = None
        self.stored_span: Span | None = None

    # ---- names
    def collect_params(self) -> None:
        resolve = constant_resolver(self.params)
        for p in self.block.params:
            if p.default is None:
                raise DiagnosticError(error("E119", f"parameter `{p.name}` needs a value", p.span,
                                            "no value given")
                                      .with_help(f"write `{p.name} = 0`; the verdict does not depend on means, "
                                                 "so any value gives the same answer"))
            try:
                value = evaluate(p.default, resolve)
            except NotLinear as exc:
                raise DiagnosticError(not_linear_error(exc, f"value of parameter `{p.name}`")) from None
            if not value.is_const():
                raise DiagnosticError(error("E109", f"parameter `{p.name}` must be an exact constant",
                                            p.default.span, "not a constant"))
            self.params[p.name] = value.const

    def collect_assigned(self, code: list[Ins]) -> None:
        for ins in code:
            if ins.op == "assign":
                self.assigned.add(ins.node.target)

    # ---- expressions
    def eval_draw(self, draw: ast.Draw, ctx: Ctx) -> DrawInfo:
        if draw.prime:
            raise DiagnosticError(error("E118", "`Lap'` is for `automaton` blocks", draw.keyword_span,
                                        "not in a mechanism")
                                  .with_help("in a mechanism a second draw is simply `output Lap(rate, q)`"))
        resolve = constant_resolver(self.params)
        d = eval_rate(draw, resolve)
        reads: list[ast.Read] = []

        def resolve_mean(node: ast.Expr) -> Linear:
            if isinstance(node, ast.Read):
                reads.append(node)
                return Linear(input=Fraction(1))
            if isinstance(node, ast.Name):
                kind = ctx.locals.get(node.name)
                if kind == "read":
                    return Linear(input=Fraction(1))
                if node.name in self.params:
                    return Linear(const=self.params[node.name])
                if kind == "draw":
                    raise DiagnosticError(error("E115", f"the mean of a draw cannot be another draw `{node.name}`",
                                                node.span, "a draw").with_help(
                        "centre the draw on the value read in this step, e.g. `Lap(ε, q)`"))
                raise DiagnosticError(self.name_error(node, "in the mean of a draw"))
            if isinstance(node, ast.Draw):
                raise DiagnosticError(error("E115", "the mean of a draw cannot be a draw", node.span,
                                            "nested draw"))
            raise DiagnosticError(error("E118", "this value cannot be the mean of a draw", node.span))

        try:
            mean = evaluate(draw.mean, resolve_mean)
        except NotLinear as exc:
            raise DiagnosticError(error("E115", "the mean of a draw must be the input read in this step "
                                                "plus a constant", exc.node.span, exc.reason)
                                  .with_help("write e.g. `Lap(ε/4, q)` or `Lap(ε/4, q + 1)`")) from None
        if reads:
            if ctx.read is not None or len(reads) > 1:
                first = ctx.read or reads[0].span
                raise DiagnosticError(error("E114", "this step reads a second input", reads[-1].span,
                                            "second read").secondary(first, "first read of the step")
                                      .with_help("produce an output (ending the step) before reading again"))
            ctx.read = reads[0].span
        if mean.input not in (0, 1) or mean.eps != 0:
            raise DiagnosticError(error("E115", "the mean of a draw must be the input read in this step "
                                                "plus a constant", draw.mean.span,
                                        "the input is scaled" if mean.input not in (0, 1) else "depends on ε")
                                  .with_help("write e.g. `Lap(ε/4, q)` or `Lap(ε/4, q + 1)`"))
        return DrawInfo(d, mean.const, mean.input == 1, draw.span)

    def name_error(self, node: ast.Name, where: str) -> Diagnostic:
        if node.name in self.assigned:
            if node.name == self.stored:
                return (error("E118", f"the stored variable `{node.name}` can only be compared with a fresh draw",
                              node.span, where)
                        .with_help("a DiPA uses the stored value only in the guard `insample >= x` / `insample < x`"))
            return (error("E113", f"`{node.name}` holds a value from an earlier step", node.span,
                          f"used {where} after its step ended")
                    .note("reads and draws live for one step, up to the step's output; only the stored "
                          "variable outlives a step")
                    .with_help("draw afresh in this step, or store the value with `x := ...` and compare with it"))
        return (error("E119", f"unknown name `{node.name}`", node.span, "not defined")
                .with_help("names are parameters, values read or drawn earlier in the same step, "
                           "or the stored variable"))

    # ---- walking one step
    def walk(self, code: list[Ins], pc0: int) -> Step:
        step = Step(pc0, [])
        work: list[tuple[Ctx, int]] = [(Ctx(), pc0)]
        while work:
            ctx, pc = work.pop()
            visited: dict[int, int] = {}
            while True:
                ins = code[pc]
                if visited.get(pc) == ctx.version:
                    raise DiagnosticError(error("E116", "this loop can run forever without reading, "
                                                        "drawing or producing output",
                                                ins.loop or ins.node.span, "a turn of this loop takes no step")
                                          .with_help("read, draw or output something in every turn of the loop"))
                visited[pc] = ctx.version
                op = ins.op
                if op == "jump":
                    pc = ins.target
                    continue
                if op in ("halt", "end"):
                    step.ends.append(BranchEnd(ctx, TERMINAL, ins.node.span if ins.node else self.block.end_span))
                    break
                if op == "assign":
                    if self.assign(ins.node, ctx):
                        ctx.version += 1
                        pc += 1
                        continue
                    step.ends.append(BranchEnd(ctx, pc, None))
                    break
                if op == "output":
                    if self.output(ins.node, ctx):
                        ctx.version += 1
                        pc += 1
                        continue
                    step.ends.append(BranchEnd(ctx, pc, None))
                    break
                if op == "if":
                    outcome = self.compare(ins.node, ctx, step)
                    if outcome is None:
                        step.ends.append(BranchEnd(ctx, pc, None))
                        break
                    g_then, g_else = outcome
                    other = ctx.copy()
                    ctx.guard, other.guard = g_then, g_else
                    ctx.guard_span = other.guard_span = ins.node.cond.span
                    ctx.version += 1
                    other.version += 1
                    work.append((other, ins.target))
                    pc += 1
                    continue
                raise AssertionError(op)
        return step

    def assign(self, s: ast.Assign, ctx: Ctx) -> bool:
        """Apply an assignment; False if it starts the next step."""
        v = s.value
        if isinstance(v, ast.Read):
            if ctx.touched():
                return False
            ctx.read = v.span
            ctx.locals[s.target] = "read"
            return True
        if isinstance(v, ast.Draw):
            if ctx.output is not None or ctx.draw is not None or ctx.guard is not Guard.TRUE:
                return False
            if ctx.read is not None and _has_read(v.mean):
                return self._fail_second_read(v, ctx)
            ctx.draw = self.eval_draw(v, ctx)
            ctx.locals[s.target] = "draw"
            ctx.targets.append((s.target, s.span))
            return True
        if isinstance(v, ast.Name):
            kind = ctx.locals.get(v.name)
            if kind == "draw":
                ctx.targets.append((s.target, s.span))
                ctx.locals[s.target] = "draw"
                return True
            if kind == "read":
                ctx.locals[s.target] = "read"
                return True
            if v.name in self.params:
                raise DiagnosticError(error("E118", f"`{s.target}` is given a constant; the stored variable "
                                                    "holds a draw", s.span, "not a draw")
                                      .with_help(f"draw it: `{s.target} := Lap(ε, {v.name})`"))
            raise DiagnosticError(self.name_error(v, "in an assignment"))
        if _has_read(v) or _has_draw(v):
            raise DiagnosticError(error("E118", "a read or a draw can only be assigned as it is", v.span,
                                        "computed value")
                                  .with_help("put the arithmetic into the mean: `s := Lap(ε, q + 1)`"))
        raise DiagnosticError(error("E118", f"`{s.target}` is given a value that is neither a read nor a draw",
                                    v.span, "not a read or a draw")
                              .with_help("variables hold `read()` or `Lap(rate, mean)`; parameters hold constants"))

    def _fail_second_read(self, v: ast.Expr, ctx: Ctx):
        raise DiagnosticError(error("E114", "this step reads a second input", v.span, "second read")
                              .secondary(ctx.read, "first read of the step")
                              .with_help("produce an output (ending the step) before reading again"))

    def output(self, s: ast.Output, ctx: Ctx) -> bool:
        if ctx.output is not None:
            return False
        v = s.value
        if isinstance(v, ast.Symbol):
            ctx.output, ctx.output_span = symbol(v.name), s.span
            return True
        if isinstance(v, ast.Name):
            kind = ctx.locals.get(v.name)
            if kind == "draw":
                ctx.output, ctx.output_span = OUT_INSAMPLE, s.span
                return True
            if kind == "read":
                raise DiagnosticError(error("E118", f"`output {v.name}` would release the exact input",
                                            v.span, "a raw input value")
                                      .with_help(f"release a noisy value instead: `output Lap(ε, {v.name})`"))
            if v.name in self.params:
                raise DiagnosticError(error("E118", f"`{v.name}` is a parameter, and an output is a symbol "
                                                    "or a noisy value", v.span, "a constant")
                                      .with_help(f'to output the symbol, quote it: `output "{v.name}"`; '
                                                 f"to release the value, add noise: `output Lap(ε, {v.name})`"))
            if v.name in self.assigned:
                raise DiagnosticError(self.name_error(v, "in an output"))
            ctx.output, ctx.output_span = symbol(v.name), s.span
            return True
        if isinstance(v, ast.Draw):
            if ctx.draw is None:
                if ctx.guard is not Guard.TRUE:
                    return False
                if ctx.read is not None and _has_read(v.mean):
                    return self._fail_second_read(v, ctx)
                ctx.draw = self.eval_draw(v, ctx)
                ctx.output, ctx.output_span = OUT_INSAMPLE, s.span
                return True
            if _has_read(v.mean):
                return self._fail_second_read(v, ctx) if ctx.read is not None else False
            prime = self.eval_draw(v, ctx)
            ctx.prime = prime
            ctx.output, ctx.output_span = OUT_INSAMPLE_PRIME, s.span
            return True
        if isinstance(v, ast.Read):
            raise DiagnosticError(error("E118", "`output read()` would release the exact input", v.span,
                                        "a raw input value")
                                  .with_help("release a noisy value instead: `output Lap(ε, read())`"))
        raise DiagnosticError(error("E118", "an output is a symbol (`⊤`, `⊥`, a name, a string), a draw "
                                            "of this step, or a fresh draw `Lap(rate, mean)`",
                                    v.span, "cannot be output")
                              .with_help("DiPA outputs are symbols or the step's noisy values"))

    def compare(self, s: ast.If, ctx: Ctx, step: Step) -> tuple[Guard, Guard] | None:
        """The guards of the two branches, or None if the `if` starts the next step."""
        if ctx.output is not None:
            return None
        cond = s.cond
        sides = (cond.left, cond.right)
        fresh = [isinstance(x, ast.Draw) for x in sides]
        if any(fresh) and (ctx.draw is not None or ctx.guard is not Guard.TRUE):
            return None                       # a new draw: the current step ends silently
        local = [isinstance(x, ast.Name) and ctx.locals.get(x.name) == "draw" for x in sides]
        draw_side = next((i for i in range(2) if fresh[i] or local[i]), None)
        if draw_side is None:
            stale = [x for x in sides if isinstance(x, ast.Name) and x.name in self.assigned
                     and x.name not in ctx.locals and x.name != self.stored]
            if stale and (len(stale) == 2 or self.stored is not None
                          or any(isinstance(x, ast.Name) and x.name == self.stored for x in sides)
                          or all(isinstance(x, ast.Name) and x.name in self.assigned for x in sides)):
                raise DiagnosticError(self.name_error(stale[0], "in a comparison"))
            raise DiagnosticError(error("E111", "a condition must compare a fresh draw with the stored variable",
                                        cond.span, "no draw of this step is compared here")
                                  .with_help("compare a draw with the threshold, e.g. `if Lap(ε/4, q) >= x`"))
        other = sides[1 - draw_side]
        if ctx.guard is not Guard.TRUE or step.compared is not None and ctx.guard_span is not None:
            raise DiagnosticError(error("E110", "this step already compared its draw with the stored variable",
                                        cond.span, "second comparison")
                                  .secondary(ctx.guard_span, "first comparison")
                                  .with_help("output something after the first comparison, so that the "
                                             "second one starts a new step with a fresh draw"))
        if not (isinstance(other, ast.Name) and other.name not in ctx.locals and other.name in self.assigned):
            what = "a constant" if not isinstance(other, ast.Name) or other.name in self.params else \
                ("a value of this step" if isinstance(other, ast.Name) and other.name in ctx.locals
                 else "not the stored variable")
            if isinstance(other, ast.Name) and other.name not in ctx.locals and other.name not in self.params \
                    and other.name not in self.assigned:
                raise DiagnosticError(self.name_error(other, "in a comparison"))
            raise DiagnosticError(error("E111", "a draw can only be compared with the stored variable",
                                        other.span, what)
                                  .with_help("store a noisy threshold first (`x := Lap(ε/2, T)`) and compare "
                                             "with it (`if Lap(ε/4, q) >= x`)"))
        var = other.name
        if self.stored is None:
            self.stored, self.stored_span = var, other.span
        elif var != self.stored:
            raise DiagnosticError(error("E112", f"`{var}` would be a second stored variable", other.span,
                                        "compared here")
                                  .secondary(self.stored_span, f"`{self.stored}` is already the stored variable")
                                  .note("a DiP automaton remembers exactly one value across steps")
                                  .with_help(f"compare with `{self.stored}`, the one stored variable"))
        early = [sp for name, sp in ctx.targets if name == var]
        if early:
            raise DiagnosticError(error("E117", f"`{var}` is overwritten before the step compares with it",
                                        early[0], "assigned here").secondary(cond.span, "compared here")
                                  .with_help("move the assignment after the comparison, into the branch that stores"))
        if fresh[draw_side]:
            draw = sides[draw_side]
            if ctx.read is not None and _has_read(draw.mean):
                self._fail_second_read(draw, ctx)
            ctx.draw = self.eval_draw(draw, ctx)
        step.compared, step.compare_span = var, cond.span
        op = cond.op
        if draw_side == 1:
            op = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}[op]
        if op in (">=", ">"):
            return Guard.GE, Guard.LT
        return Guard.LT, Guard.GE


def _walk_expr(e: ast.Expr):
    stack = [e]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, ast.BinOp):
            stack.extend((x.left, x.right))
        elif isinstance(x, ast.Neg):
            stack.append(x.operand)
        elif isinstance(x, ast.Draw):
            stack.extend((x.rate, x.mean))


def _has_read(e: ast.Expr) -> bool:
    return any(isinstance(x, ast.Read) for x in _walk_expr(e))


def _has_draw(e: ast.Expr) -> bool:
    return any(isinstance(x, ast.Draw) for x in _walk_expr(e))


# ------------------------------------------------------------------ driver
def lower_mechanism(block: ast.MechanismBlock) -> tuple[DiPA | None, list[Diagnostic]]:
    lw = Lowerer(block)
    lw.collect_params()
    code = compile_program(block)
    lw.collect_assigned(code)
    steps: dict[int, Step] = {}
    order: list[int] = []
    queue = deque([0])
    seen = {0}
    while queue:
        pc = queue.popleft()
        step = lw.walk(code, pc)
        steps[pc] = step
        order.append(pc)
        for end in step.ends:
            if end.target != TERMINAL and end.target not in seen:
                seen.add(end.target)
                queue.append(end.target)
    if lw.stored is None:
        first = steps[0].ends[0].ctx.targets if steps[0].ends else []
        if first:
            lw.stored = first[0][0]
    return build_dipa(block, code, steps, order, lw.stored)


def build_dipa(block, code, steps, order, stored) -> tuple[DiPA | None, list[Diagnostic]]:
    dipa = DiPA(block.name, span=block.name_span, kind="mechanism")
    diags: list[Diagnostic] = []
    index = {pc: i for i, pc in enumerate(order)}
    terminal = None

    for i, pc in enumerate(order):
        step = steps[pc]
        ins = code[pc]
        ends = step.ends
        base = ends[0].ctx
        draw = base.draw
        read = base.read
        primes = [e.ctx.prime for e in ends if e.ctx.prime is not None]
        if len(primes) == 2 and (primes[0].d, primes[0].mean, primes[0].uses_input) != \
                (primes[1].d, primes[1].mean, primes[1].uses_input):
            diags.append(error("E120", "the two branches of this step output different second draws",
                               primes[1].span, "this draw").secondary(primes[0].span, "differs from this one")
                         .with_help("use the same `Lap(rate, mean)` on both branches"))
        prime = primes[0] if primes else None
        is_input = read is not None
        for info, what in ((draw, "draw"), (prime, "second draw")):
            if info is None:
                continue
            if is_input and not info.uses_input:
                diags.append(error("E115", f"the {what} of an input step must be centred on the value read",
                                   info.span, "does not use the input read in this step")
                             .secondary(read, "the input read in this step")
                             .note("in a DiPA the input read by a step is added to every draw of that step")
                             .with_help("add the value read to the mean, e.g. `Lap(ε, q)`"))
        name = f"q{i}"
        span = ins.node.span if ins.node is not None else block.end_span
        state = State(name, is_input, draw.d if draw else Fraction(0), draw.mean if draw else Fraction(0),
                      prime.d if prime else Fraction(0), prime.mean if prime else Fraction(0),
                      span=span, name_span=span, draw_span=draw.span if draw else None)
        dipa.add_state(state)
        if ins.loop is not None:
            dipa.loop_spans[i] = ins.loop
    for i, pc in enumerate(order):
        step = steps[pc]
        first_span = dipa.states[i].span
        for end in step.ends:
            ctx = end.ctx
            if end.target == TERMINAL:
                if terminal is None:
                    terminal = dipa.add_state(State("halt", False, Fraction(0), Fraction(0),
                                                    span=end.end_span, name_span=end.end_span, terminal=True))
                target = terminal
            else:
                target = index[end.target]
            stores = [sp for v, sp in ctx.targets if v == stored]
            out = ctx.output or SILENT
            main = ctx.output_span or ctx.guard_span or first_span
            dipa.add_transition(Transition(
                i, ctx.guard, target, out, bool(stores), span=main, guard_span=ctx.guard_span,
                output_span=ctx.output_span, store_span=stores[0] if stores else None,
                target_span=None))
    return dipa, diags
