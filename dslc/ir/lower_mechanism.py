"""Lowering of `mechanism` programs to DiP automata.

The program is compiled to a flat list of instructions with jumps; then every
*step* (one DiPA transition) is found by executing the instructions
symbolically from a program point until the step ends (LANGUAGE.md, "Meaning,
in DiPA terms"; docs/language.md, "Steps").

The symbolic execution tracks what every variable holds, as one of

* ``read``   — the input read in this step,
* ``draw``   — the step's draw insample ~ Lap(dε, μ [+ input]),
* ``prime``  — the step's second draw insample′ (only ever output),
* ``stored`` — the value the stored variable held when the step began (x),
* ``dead``   — a read or draw of an earlier step (using it is E113),
* ``undef``  — nothing assigned yet (only in the first step).

Every statement form either maps to a part of the step (read, draw,
comparison with x, output, store) or is refused with a located error; there
is no fallback that drops meaning.  In particular the stored variable must,
at the end of every step, hold either its old value or the step's draw —
anything else (a raw input, a constant) cannot be represented by a DiPA and
is E123.

Which variable is *the* stored variable is found by a lenient first pass
(the variable compared with a fresh draw across steps, else the one the
first step gives its draw); the second pass lowers with it fixed.

The translation is validated against :mod:`dslc.dipa.interpret`, a direct
interpreter of the program, on the same inputs and draws
(tests/test_lowering_validation.py).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.diagnostics.suggest import name_help
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, SILENT, DiPA, Guard, Output, State,
                          Transition, symbol)
from dslc.ir.claims import lower_claims
from dslc.ir.linear import Linear, NotLinear, constant_resolver, eval_rate, evaluate, evaluate_reported
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
    """Flatten the statements to instructions with jumps (iteratively: deep
    nesting must not exhaust Python's recursion limit)."""
    code: list[Ins] = []

    def emit(op, node, loop, target=-1) -> int:
        code.append(Ins(op, node, loop, target))
        return len(code) - 1

    # Work items: ("stmts", list, index, loops) or a closure to run after a body.
    work: list = [("stmts", block.body, 0, ())]
    while work:
        item = work.pop()
        if callable(item):
            item()
            continue
        _, stmts, i, loops = item
        if i >= len(stmts):
            continue
        work.append(("stmts", stmts, i + 1, loops))
        s = stmts[i]
        loop = loops[-1][0] if loops else None
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

            def close_loop(s=s, head=head, breaks=breaks):
                emit("jump", s, s.keyword_span, head)
                for b in breaks:
                    code[b].target = len(code)

            work.append(close_loop)
            work.append(("stmts", s.body, 0, loops + ((s.keyword_span, breaks),)))
        elif isinstance(s, ast.If):
            at = emit("if", s, loop)
            if s.orelse is not None:
                def after_then(s=s, at=at, loops=loops, loop=loop):
                    skip = emit("jump", s, loop)
                    code[at].target = len(code)

                    def after_else(skip=skip):
                        code[skip].target = len(code)
                    work.append(after_else)
                    work.append(("stmts", s.orelse, 0, loops))
            else:
                def after_then(at=at):
                    code[at].target = len(code)
            work.append(after_then)
            work.append(("stmts", s.then, 0, loops))
        else:  # pragma: no cover - the parser builds no other statement
            raise DiagnosticError(error("E118", "this statement cannot be lowered", s.span))
    code.append(Ins("end", None, None))
    return code


# ------------------------------------------------------------------ values
@dataclass(frozen=True)
class DrawInfo:
    d: Fraction
    mean: Fraction
    uses_input: bool
    span: Span


@dataclass(frozen=True)
class Val:
    kind: str                      # read | draw | prime | stored | dead | undef
    span: Span | None = None       # where the value was made (read(), Lap(...)) or last assigned
    name: str | None = None        # dead: the variable it was found in


@dataclass
class Branch:
    """What one branch of a step has done so far."""
    env: dict[str, Val]
    read: Span | None = None
    draw: DrawInfo | None = None
    prime: DrawInfo | None = None
    guard: Guard = Guard.TRUE
    guard_span: Span | None = None
    output: Output | None = None
    output_span: Span | None = None
    assigned: dict[str, Span] = field(default_factory=dict)      # this step's assignments
    visited: set = field(default_factory=set)

    def copy(self) -> "Branch":
        return replace(self, env=dict(self.env), assigned=dict(self.assigned), visited=set(self.visited))

    def touched(self) -> bool:
        return self.read is not None or self.draw is not None or self.output is not None

    def progress(self) -> tuple:
        return (self.read is not None, self.draw is not None, self.prime is not None,
                self.guard, self.output is not None)


@dataclass
class BranchEnd:
    branch: Branch
    target: int                # pc or TERMINAL
    end_span: Span | None      # the halt / end that made it terminal
    store: bool = False
    store_span: Span | None = None


@dataclass
class Step:
    pc: int
    ends: list[BranchEnd]


class Lowerer:
    """Symbolic execution of one mechanism's steps (see the module docstring)."""

    def __init__(self, block: ast.MechanismBlock, code: list[Ins], stored: str | None,
                 lenient: bool = False):
        self.block = block
        self.code = code
        self.stored = stored
        self.lenient = lenient
        self.params: dict[str, Fraction | Linear] = {}    # constants, or multiples of ε (`e1 = ε/3`)
        self.variables: dict[str, Span] = {}          # name -> first assignment
        self.compared: dict[str, Span] = {}            # lenient pass: names compared across steps
        self.first_targets: list[str] = []             # lenient pass: first step's draw targets

    # ---- names
    def collect_params(self) -> list[Diagnostic]:
        diags = []
        resolve = constant_resolver(self.params)
        for p in self.block.params:
            if p.name in self.params:
                diags.append(error("E122", f"parameter `{p.name}` is declared twice", p.span, "again here")
                             .with_help("rename one of the parameters"))
                continue
            if p.default is None:
                diags.append(error("E119", f"parameter `{p.name}` needs a value", p.span, "no value given")
                             .with_help(f"write `{p.name} = 0`; the verdict does not depend on means, "
                                        "so any value gives the same answer"))
                continue
            value = evaluate_reported(p.default, resolve, f"value of parameter `{p.name}`", diags)
            if value is None:
                continue
            if value.input != 0:                  # pragma: no cover - a read is refused above
                diags.append(error("E109", f"parameter `{p.name}` must be an exact constant",
                                   p.default.span, "not a constant"))
                continue
            # a constant, or a share of the budget such as `e1 = ε/3` (used as a rate)
            self.params[p.name] = value.const if value.is_const() else value
        return diags

    def collect_variables(self) -> list[Diagnostic]:
        """Every assigned name is a variable; a parameter may not share its name."""
        diags = []
        params = {p.name: p for p in self.block.params}
        for ins in self.code:
            if ins.op != "assign":
                continue
            s: ast.Assign = ins.node
            if s.target in params and s.target not in self.variables:
                diags.append(error("E122", f"`{s.target}` is both a parameter and a variable",
                                   s.target_span, "assigned here")
                             .secondary(params[s.target].span, "declared as a parameter here")
                             .note("a use of the name after the step that assigned it would be "
                                   "ambiguous: the parameter's value or the variable's")
                             .with_help(f"rename the variable (e.g. `{s.target}_now`) or the parameter"))
            self.variables.setdefault(s.target, s.target_span)
        return diags

    def start_env(self, initial: bool) -> dict[str, Val]:
        if initial:
            return {v: Val("undef", name=v) for v in self.variables}
        env = {v: Val("dead", name=v) for v in self.variables}
        if self.stored is not None and not self.lenient:
            env[self.stored] = Val("stored", name=self.stored)
        return env

    # ---- errors
    def fail(self, diag: Diagnostic):
        raise DiagnosticError(diag)

    def dead_error(self, node: ast.Name, val: Val, where: str) -> Diagnostic:
        if node.name == self.stored:
            return (error("E118", f"the stored variable `{node.name}` can only be compared with a fresh draw",
                          node.span, where)
                    .with_help("a DiPA uses the stored value only in the guard `insample >= x` / `insample < x`"))
        diag = error("E113", f"`{node.name}` holds a value from an earlier step", node.span,
                     f"used {where} after its step ended")
        made = self.variables.get(node.name)
        if made is not None and made != node.span:
            diag.secondary(made, f"`{node.name}` is given its value here, in an earlier step")
        return (diag.note("reads and draws live for one step, up to the step's output; only the stored "
                          "variable outlives a step.  A step also ends where a second `read()` (or a "
                          "draw after the step's comparison) begins a new one")
                .with_help("draw afresh in this step, or store the value with `x := ...` and compare with it"))

    def side_values(self, sides, br, strict: bool) -> list[Val | None]:
        """The values of a comparison's two sides (None: a fresh draw, evaluated
        by the caller); ``strict``: an undefined variable is an error here."""
        vals: list[Val | None] = []
        for side in sides:
            if isinstance(side, ast.Draw):
                vals.append(None)
            elif isinstance(side, ast.Name) and side.name in br.env:
                val = br.env[side.name]
                if val.kind == "undef" and strict:
                    self.fail(self.undef_error(side, "in a comparison"))
                vals.append(val)
            elif isinstance(side, ast.Name) and side.name not in self.params:
                self.fail(self.unknown_name(side))
            else:
                vals.append(Val("const" if self.constant(side) else "expr"))
        return vals

    def undef_error(self, node: ast.Name, where: str) -> Diagnostic:
        return (error("E119", f"`{node.name}` has no value here", node.span, f"used {where} before it is assigned")
                .with_help("assign it first (`x := Lap(ε, 0)`), or use a parameter"))

    def unknown_name(self, node: ast.Name) -> Diagnostic:
        diag = error("E119", f"unknown name `{node.name}`", node.span, "not defined")
        close = name_help(node.name, list(self.params) + list(self.variables))
        if close:
            diag.with_help(close)
        return diag.with_help("names are parameters, values read or drawn earlier in the same step, "
                              "or the stored variable")

    def lookup(self, br: Branch, node: ast.Name, where: str) -> Val:
        """The value of a variable (errors for dead and unassigned ones)."""
        val = br.env[node.name]
        if val.kind == "dead":
            if self.lenient:
                return val
            self.fail(self.dead_error(node, val, where))
        if val.kind == "undef":
            self.fail(self.undef_error(node, where))
        return val

    # ---- expressions
    def eval_draw(self, draw: ast.Draw, br: Branch) -> DrawInfo:
        if draw.prime:
            self.fail(error("E118", "`Lap'` is for `automaton` blocks", draw.keyword_span, "not in a mechanism")
                      .with_help("in a mechanism a second draw is simply `output Lap(rate, q)`"))
        d = eval_rate(draw, constant_resolver(self.params))
        reads: list[ast.Read] = []

        def resolve_mean(node: ast.Expr) -> Linear:
            if isinstance(node, ast.Read):
                reads.append(node)
                return Linear(input=Fraction(1))
            if isinstance(node, ast.Name):
                if node.name in br.env:
                    val = self.lookup(br, node, "in the mean of a draw")
                    if val.kind == "read":
                        return Linear(input=Fraction(1))
                    if val.kind == "dead":                 # lenient pass only
                        return Linear()
                    what = {"draw": "a draw", "prime": "a draw", "stored": "the stored value"}[val.kind]
                    self.fail(error("E115", f"the mean of a draw cannot be {what} (`{node.name}`)",
                                    node.span, what)
                              .with_help("centre the draw on the value read in this step, e.g. `Lap(ε, q)`"))
                if node.name in self.params:
                    value = self.params[node.name]
                    return value if isinstance(value, Linear) else Linear(const=value)
                self.fail(self.unknown_name(node))
            if isinstance(node, ast.Draw):
                self.fail(error("E115", "the mean of a draw cannot be a draw", node.span, "nested draw"))
            self.fail(error("E118", "this value cannot be the mean of a draw", node.span, "not a number")
                      .with_help("the mean is a constant, or the input read in this step plus a constant"))

        try:
            mean = evaluate(draw.mean, resolve_mean)
        except NotLinear as exc:
            self.fail(error("E115", "the mean of a draw must be the input read in this step "
                                    "plus a constant", exc.node.span, exc.reason)
                      .with_help("write e.g. `Lap(ε/4, q)` or `Lap(ε/4, q + 1)`"))
        if reads:
            if br.read is not None or len(reads) > 1:
                first = br.read or reads[0].span
                self.fail(error("E114", "this step reads a second input", reads[-1].span, "second read")
                          .secondary(first, "first read of the step")
                          .with_help("read the input once into a variable (`q := read()`) and use `q` "
                                     "in the draw"))
            br.read = reads[0].span
        if mean.input not in (0, 1) or mean.eps != 0:
            self.fail(error("E115", "the mean of a draw must be the input read in this step plus a constant",
                            draw.mean.span, "the input is scaled" if mean.input not in (0, 1) else "depends on ε")
                      .with_help("write e.g. `Lap(ε/4, q)` or `Lap(ε/4, q + 1)`"))
        info = DrawInfo(d, mean.const, mean.input == 1, draw.span)
        if br.read is not None and not info.uses_input and not self.lenient:
            self.fail(error("E115", "a draw of a step that reads must be centred on the value read",
                            info.span, "does not use the input read in this step")
                      .secondary(br.read, "the input read in this step")
                      .note("in a DiPA the input read by a step is added to every draw of that step")
                      .with_help("add the value read to the mean, e.g. `Lap(ε, q)`"))
        return info

    # ---- one step
    def walk(self, pc0: int, initial: bool) -> Step:
        step = Step(pc0, [])
        work: list[tuple[Branch, int]] = [(Branch(self.start_env(initial)), pc0)]
        while work:
            br, pc = work.pop()
            while True:
                ins = self.code[pc]
                key = (pc, br.progress())
                if key in br.visited:
                    self.fail(error("E116", "this loop can run forever without reading, drawing or "
                                            "producing output", ins.loop or ins.node.span,
                                    "a turn of this loop takes no step")
                              .with_help("read, draw or output something in every turn of the loop"))
                br.visited.add(key)
                op = ins.op
                if op == "jump":
                    pc = ins.target
                    continue
                if op in ("halt", "end"):
                    end = ins.node.span if ins.node is not None else self.block.end_span
                    step.ends.append(self.finish(br, TERMINAL, end))
                    break
                if op == "assign":
                    started = self.assign(ins.node, br)
                elif op == "output":
                    started = self.output(ins.node, br)
                else:
                    other = self.compare(ins.node, br)
                    started = other is True
                    if not started:     # the else side: one branch (several: dslc/ir/lower_mechanism_multi.py)
                        for o in (other if isinstance(other, list) else [other]):
                            work.append((o, ins.target))
                if started:                       # the statement begins the next step
                    step.ends.append(self.finish(br, pc, None))
                    break
                pc += 1
        return step

    def finish(self, br: Branch, target: int, end_span: Span | None) -> BranchEnd:
        """The end of a branch: does the transition store the step's draw in x?"""
        end = BranchEnd(br, target, end_span)
        if self.stored is None or self.lenient:
            return end
        val = br.env.get(self.stored)
        if val is None or val.kind in ("stored", "undef"):
            return end
        where = br.assigned.get(self.stored) or val.span
        if val.kind == "draw":
            end.store, end.store_span = True, br.assigned.get(self.stored)
            return end
        self.fail(stored_not_a_draw(self.stored, val, where))

    def assign(self, s: ast.Assign, br: Branch) -> bool:
        """Apply an assignment; True if it starts the next step."""
        v = s.value
        if isinstance(v, ast.Read):
            if br.touched():
                return True
            br.read = v.span
            self.set(br, s, Val("read", v.span))
            return False
        if isinstance(v, ast.Draw):
            if br.output is not None or br.draw is not None or br.guard is not Guard.TRUE:
                return True
            if br.read is not None and _has_read(v.mean):
                return True                      # a second read: the current step ends silently
            br.draw = self.eval_draw(v, br)
            self.set(br, s, Val("draw", v.span))
            return False
        if isinstance(v, ast.Name):
            if v.name in br.env:
                val = self.lookup(br, v, "in an assignment")
                self.set(br, s, replace(val, span=s.span))
                return False
            if v.name in self.params:
                self.fail(error("E118", f"`{s.target}` is given a constant; variables hold reads and draws",
                                s.span, "not a read or a draw")
                          .with_help(f"draw it: `{s.target} := Lap(ε, {v.name})`"))
            self.fail(self.unknown_name(v))
        if _has_read(v) or _has_draw(v):
            self.fail(error("E118", "a read or a draw can only be assigned as it is", v.span, "computed value")
                      .with_help("put the arithmetic into the mean: `s := Lap(ε, q + 1)`"))
        self.fail(error("E118", f"`{s.target}` is given a value that is neither a read nor a draw",
                        v.span, "not a read or a draw")
                  .with_help("variables hold `read()` or `Lap(rate, mean)`; parameters hold constants"))

    def set(self, br: Branch, s: ast.Assign, val: Val) -> None:
        br.env[s.target] = val
        br.assigned[s.target] = s.span

    def output(self, s: ast.Output, br: Branch) -> bool:
        if br.output is not None:
            return True
        v = s.value
        if isinstance(v, ast.Symbol):
            br.output, br.output_span = symbol(v.name), s.span
            return False
        if isinstance(v, ast.Name):
            if v.name in br.env:
                val = self.lookup(br, v, "in an output")
                if val.kind == "draw":
                    br.output, br.output_span = OUT_INSAMPLE, s.span
                    return False
                if val.kind == "dead":                   # lenient pass only
                    br.output, br.output_span = OUT_INSAMPLE, s.span
                    return False
                if val.kind == "read":
                    self.fail(error("E118", f"`output {v.name}` would release the exact input",
                                    v.span, "a raw input value")
                              .with_help(f"release a noisy value instead: `output Lap(ε, {v.name})`"))
                self.fail(error("E118", f"the stored variable `{v.name}` can only be compared with a fresh draw",
                                v.span, "in an output")
                          .with_help("a DiPA uses the stored value only in the guard `insample >= x` / "
                                     "`insample < x`; output the step's draw or a symbol"))
            if v.name in self.params:
                self.fail(error("E118", f"`{v.name}` is a parameter, and an output is a symbol or a noisy value",
                                v.span, "a constant")
                          .with_help(f'to output the symbol, quote it: `output "{v.name}"`; '
                                     f"to release the value, add noise: `output Lap(ε, {v.name})`"))
            br.output, br.output_span = symbol(v.name), s.span
            return False
        if isinstance(v, ast.Draw):
            if _has_read(v.mean) and (br.read is not None or br.draw is not None):
                return True                      # reading again before any output: the next step
            info = self.eval_draw(v, br)
            if br.draw is None:
                br.draw = info
                br.output, br.output_span = OUT_INSAMPLE, s.span
            else:
                br.prime = info
                br.output, br.output_span = OUT_INSAMPLE_PRIME, s.span
            return False
        if isinstance(v, ast.Read):
            self.fail(error("E118", "`output read()` would release the exact input", v.span, "a raw input value")
                      .with_help("release a noisy value instead: `output Lap(ε, read())`"))
        self.fail(error("E118", "an output is a symbol (`⊤`, `⊥`, a name, a string), a draw "
                                "of this step, or a fresh draw `Lap(rate, mean)`", v.span, "cannot be output")
                  .with_help("DiPA outputs are symbols or the step's noisy values"))

    def compare(self, s: ast.If, br: Branch):
        """Split the branch on a comparison of the step's draw with x.

        Returns True if the `if` starts the next step, else the other branch
        (the else side), after setting this branch's guard."""
        if br.output is not None:
            return True
        cond = s.cond
        sides = (cond.left, cond.right)
        fresh = [isinstance(x, ast.Draw) for x in sides]
        reads_again = br.read is not None and any(f and _has_read(x.mean) for f, x in zip(fresh, sides))
        if any(fresh) and (br.draw is not None or br.guard is not Guard.TRUE or reads_again):
            return True                          # a new draw or read: the current step ends silently
        if br.guard is not Guard.TRUE:
            self.fail(error("E110", "this step already compared its draw with the stored variable",
                            cond.span, "second comparison")
                      .secondary(br.guard_span, "first comparison")
                      .with_help("output something after the first comparison, so that the "
                                 "second one starts a new step with a fresh draw"))
        if all(fresh):
            self.fail(error("E111", "a condition must compare a fresh draw with the stored variable",
                            cond.span, "two fresh draws")
                      .with_help("compare a draw with the threshold, e.g. `if Lap(ε/4, q) >= x`"))
        vals = self.side_values(sides, br, strict=True)
        draw_side = next((i for i in range(2) if fresh[i] or (vals[i] is not None and vals[i].kind == "draw")),
                         None)
        if draw_side is None:
            if self.lenient:                    # keep exploring both branches
                return self.fork(s, br, Guard.GE, Guard.LT)
            dead = [i for i in range(2) if vals[i] is not None and vals[i].kind == "dead"]
            if dead:
                self.fail(self.dead_error(sides[dead[0]], vals[dead[0]], "in a comparison"))
            self.fail(error("E111", "a condition must compare a fresh draw with the stored variable",
                            cond.span, "no draw of this step is compared here")
                      .with_help("compare a draw with the threshold, e.g. `if Lap(ε/4, q) >= x`"))
        other, oval = sides[1 - draw_side], vals[1 - draw_side]
        if self.lenient:
            if oval is not None and oval.kind == "dead" and isinstance(other, ast.Name):
                self.compared.setdefault(other.name, other.span)
        elif oval is None or oval.kind != "stored":
            if oval is not None and oval.kind == "dead" and isinstance(other, ast.Name):
                first = self.compared.get(self.stored) if self.stored else None
                if first is None:
                    self.fail(self.dead_error(other, oval, "in a comparison"))
                self.fail(error("E112", f"`{other.name}` would be a second stored variable", other.span,
                                "compared here")
                          .secondary(first, f"`{self.stored}` is already the stored variable")
                          .note("a DiP automaton remembers exactly one value across steps")
                          .with_help(f"compare with `{self.stored}`, the one stored variable"))
            if oval is not None and oval.kind == "draw" and isinstance(other, ast.Name) \
                    and other.name == self.stored and other.name in br.assigned:
                self.fail(error("E117", f"`{other.name}` is overwritten before the step compares with it",
                                br.assigned[other.name], "assigned here")
                          .secondary(cond.span, "compared here")
                          .with_help("move the assignment after the comparison, into the branch "
                                     "that stores"))
            what = {"const": "a constant", "expr": "an expression", "read": "the exact input",
                    "draw": "a value of this step", "prime": "a value of this step"}[
                oval.kind if oval is not None else "draw"]
            self.fail(error("E111", "a draw can only be compared with the stored variable",
                            other.span, what)
                      .with_help("store a noisy threshold first (`x := Lap(ε/2, T)`) and compare "
                                 "with it (`if Lap(ε/4, q) >= x`)"))
        if fresh[draw_side]:
            br.draw = self.eval_draw(sides[draw_side], br)
        op = cond.op
        if draw_side == 1:
            op = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}[op]
        if op in (">=", ">"):
            return self.fork(s, br, Guard.GE, Guard.LT)
        return self.fork(s, br, Guard.LT, Guard.GE)

    def constant(self, e: ast.Expr) -> bool:
        """No read, draw or variable in ``e``."""
        return not any(isinstance(x, (ast.Read, ast.Draw)) or
                       (isinstance(x, ast.Name) and x.name not in self.params) for x in _walk_expr(e))

    def fork(self, s: ast.If, br: Branch, g_then: Guard, g_else: Guard) -> Branch:
        other = br.copy()
        br.guard, other.guard = g_then, g_else
        br.guard_span = other.guard_span = s.cond.span
        return other

    # ---- the lenient first pass
    def discover(self) -> None:
        """Walk every step leniently; record the names compared across steps and
        the variables the first step gives its draw."""
        seen = {0}
        queue = deque([0])
        first = True
        while queue:
            pc = queue.popleft()
            try:
                step = self.walk(pc, first)
            except DiagnosticError:
                first = False           # reported by the strict pass
                continue
            if first:
                for end in step.ends:
                    for name, val in end.branch.env.items():
                        if val.kind == "draw" and name in end.branch.assigned and name not in self.first_targets:
                            self.first_targets.append(name)
                first = False
            for end in step.ends:
                if end.target != TERMINAL and end.target not in seen:
                    seen.add(end.target)
                    queue.append(end.target)


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
def find_stored(block: ast.MechanismBlock, code: list[Ins]) -> tuple[str | None, dict[str, Span]]:
    """The stored variable: the first variable compared with a fresh draw in a
    later step than it was assigned, else the first that the first step gives
    its draw.  Also returns every name compared that way (for E112)."""
    lw = Lowerer(block, code, None, lenient=True)
    lw.collect_params()
    lw.collect_variables()
    lw.discover()
    if lw.compared:
        return next(iter(lw.compared)), lw.compared
    return (lw.first_targets[0] if lw.first_targets else None), {}


def lower_mechanism(block: ast.MechanismBlock) -> tuple[DiPA | None, list[Diagnostic]]:
    code = compile_program(block)
    probe = Lowerer(block, code, None)
    diags = probe.collect_params() + probe.collect_variables()
    if diags:
        return None, diags
    # several stored variables, or a conjunction: dslc/ir/lower_mechanism_multi.py
    from dslc.ir import lower_mechanism_multi as several
    if several.has_conjunction(code) or len(several.find_stored_several(block, code)) > 1:
        return several.lower_several(block, code)
    stored, compared = find_stored(block, code)
    if len(compared) > 1:
        return several.lower_several(block, code)
    lw = Lowerer(block, code, stored)
    lw.collect_params()
    lw.collect_variables()
    lw.compared = compared
    steps, order = walk_steps(lw, diags)
    claims, claim_diags = lower_claims(block.claims, constant_resolver(lw.params))
    diags.extend(claim_diags)
    if diags:
        return None, _dedupe(diags)
    dipa, diags = build_dipa(block, code, steps, order)
    if dipa is not None:
        dipa.budget, dipa.budget_span = claims.budget, claims.budget_span
        dipa.sensitivity, dipa.sensitivity_span = claims.sensitivity, claims.sensitivity_span
    return dipa, diags


def stored_not_a_draw(name: str, val: Val, where: Span | None) -> Diagnostic:
    """E123: the stored variable ``name`` ends a step holding ``val``, which is not the step's draw."""
    what = {"read": "the exact input read in this step", "prime": "a second draw of this step",
            "dead": "a value of an earlier step"}[val.kind]
    diag = error("E123", f"the stored variable `{name}` is given {what}", where,
                 f"`{name}` would keep this past the end of the step")
    diag.note("a DiP automaton stores only the draw that its step compares or outputs "
              f"(`{name} := insample`); any other value cannot be represented, so this "
              "program cannot be checked")
    if val.kind == "read":
        return diag.with_help(f"store a noisy value instead: `{name} := Lap(ε, …)` centred on the input")
    return diag.with_help(f"store the step's own draw in `{name}`")


def walk_steps(lw: Lowerer, diags: list[Diagnostic]) -> tuple[dict[int, Step], list[int]]:
    """Every step reachable from the program's start, breadth first (the order of the
    states); the errors of a step are added to ``diags`` and the independent steps
    keep being lowered, so that every error is reported."""
    steps: dict[int, Step] = {}
    order: list[int] = []
    queue = deque([0])
    seen = {0}
    while queue:
        pc = queue.popleft()
        try:
            step = lw.walk(pc, not order)
        except DiagnosticError as exc:
            diags.extend(exc.diagnostics)
            if not order:
                break
            continue
        steps[pc] = step
        order.append(pc)
        for end in step.ends:
            if end.target != TERMINAL and end.target not in seen:
                seen.add(end.target)
                queue.append(end.target)
    return steps, order


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    out, seen = [], set()
    for d in diags:
        key = (d.code, d.message, d.span.start if d.span else None)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def build_dipa(block, code, steps, order) -> tuple[DiPA | None, list[Diagnostic]]:
    dipa = DiPA(block.name, span=block.name_span, kind="mechanism")
    diags: list[Diagnostic] = []
    index = {pc: i for i, pc in enumerate(order)}
    terminal = None

    for i, pc in enumerate(order):
        step = steps[pc]
        ins = code[pc]
        ends = step.ends
        base = ends[0].branch
        draw = base.draw
        read = base.read
        primes = [e.branch.prime for e in ends if e.branch.prime is not None]
        if len(primes) == 2 and (primes[0].d, primes[0].mean, primes[0].uses_input) != \
                (primes[1].d, primes[1].mean, primes[1].uses_input):
            diags.append(error("E120", "the two branches of this step output different second draws",
                               primes[1].span, "this draw").secondary(primes[0].span, "differs from this one")
                         .with_help("use the same `Lap(rate, mean)` on both branches"))
        prime = primes[0] if primes else None
        name = f"q{i}"
        span = ins.node.span if ins.node is not None else block.end_span
        state = State(name, read is not None, draw.d if draw else Fraction(0), draw.mean if draw else Fraction(0),
                      prime.d if prime else Fraction(0), prime.mean if prime else Fraction(0),
                      span=span, name_span=span, draw_span=draw.span if draw else None,
                      prime_span=prime.span if prime else None)
        dipa.add_state(state)
        if ins.loop is not None:
            dipa.loop_spans[i] = ins.loop
    for i, pc in enumerate(order):
        step = steps[pc]
        first_span = dipa.states[i].span
        for end in step.ends:
            br = end.branch
            if end.target == TERMINAL:
                if terminal is None:
                    terminal = dipa.add_state(State("halt", False, Fraction(0), Fraction(0),
                                                    span=end.end_span, name_span=end.end_span, terminal=True))
                target = terminal
            else:
                target = index[end.target]
            out = br.output or SILENT
            main = br.output_span or br.guard_span or first_span
            dipa.add_transition(Transition(
                i, br.guard, target, out, end.store, span=main, guard_span=br.guard_span,
                output_span=br.output_span, store_span=end.store_span, target_span=None))
    return dipa, diags
