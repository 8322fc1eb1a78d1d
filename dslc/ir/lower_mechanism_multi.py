"""Lowering of `mechanism` programs with several stored variables to the
multi-variable IR (:mod:`dslc.ir.multi_dipa`; docs/language.md, "Several
variables").

A program goes here when it compares fresh draws with two or more variables
across steps (`l := Lap(ε/4, 0); r := Lap(ε/4, 1)` … `if s >= l && s < r`),
or uses a conjunction `&&` / `and` in a condition.  Every other program keeps
the one-variable lowering of :mod:`dslc.ir.lower_mechanism`, whose symbolic
execution of steps this module reuses (:class:`MultiLowerer` changes only
what the stored value is):

* the *stored variables* are the variables compared with a fresh draw in a
  later step than they were assigned; at the start of every step each holds
  its own old value (``Val("stored", name=v)``);
* a comparison of the step's draw with a stored variable is a literal
  ``insample >= v`` / ``insample < v``; the comparisons of one step (a
  conjunction, or nested `if`s before the output) make a conjunctive guard.
  The else side of `c1 && c2` is split into exclusive conjunctions
  (¬c1, or c1 ∧ ¬c2), so the guards of a state exclude each other;
* at the end of a step each stored variable holds its old value or the
  step's draw (a store); anything else (a raw input, another stored
  variable's value) cannot be represented and is refused with a located
  error, never approximated.

The lowering is validated against the direct interpreter
(:mod:`dslc.dipa.interpret`) on the same draws
(tests/test_lowering_validation.py).
"""

from __future__ import annotations

from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, error
from dslc.ir.dipa import Guard
from dslc.ir.linear import constant_resolver
from dslc.ir.lower_mechanism import (BranchEnd, Ins, Lowerer, Val, _dedupe, _has_read, build_dipa,
                                     stored_not_a_draw, walk_steps)
from dslc.ir.lower_multi import set_claims
from dslc.ir.multi_dipa import GE, LT, Literal, MState, MTransition, MultiDiPA
from dslc.syntax import ast


def has_conjunction(code: list[Ins]) -> bool:
    return any(ins.op == "if" and isinstance(ins.node.cond, ast.CondAnd) for ins in code)


def _conds(s: ast.If) -> list[ast.Cond]:
    return list(s.cond.parts) if isinstance(s.cond, ast.CondAnd) else [s.cond]


class MultiLowerer(Lowerer):
    """:class:`Lowerer` with a set of stored variables and conjunctive guards
    (``Branch.guard`` is ``Guard.TRUE`` or a tuple of :class:`Literal`)."""

    def __init__(self, block, code, stored: set[str], lenient: bool = False):
        super().__init__(block, code, None, lenient)
        self.several = set(stored)

    def start_env(self, initial: bool) -> dict[str, Val]:
        env = super().start_env(initial)
        if not initial and not self.lenient:
            for v in self.several:
                env[v] = Val("stored", name=v)
        return env

    # ---- comparisons
    def compare(self, s: ast.If, br):
        if br.output is not None:
            return True
        conds = _conds(s)
        draws = [x for c in conds for x in (c.left, c.right) if isinstance(x, ast.Draw)]
        if draws:
            reads_again = br.read is not None and any(_has_read(x.mean) for x in draws)
            if br.draw is not None or br.guard is not Guard.TRUE or reads_again:
                return True                  # a new draw or read: the current step ends silently
            if len(conds) > 1:
                self.fail(error("E133", "a conjunction compares one draw of the step, drawn before it",
                                draws[0].span, "a draw inside `&&`")
                          .with_help("draw first, then compare: `s := Lap(ε/4, q); if s >= l && s < r { … }`"))
        lits = [self.literal(c, br) for c in conds]
        lits = [lit for lit in lits if lit is not None]
        guard = () if br.guard is Guard.TRUE else tuple(br.guard)
        then = _conj(guard + tuple(lits))
        if then is None:
            if self.lenient:
                then = guard
            else:
                self.fail(error("E131", "this condition contradicts a comparison made earlier in the step: "
                                        "its branch never runs", s.cond.span, "never holds")
                          .secondary(br.guard_span, "earlier comparison")
                          .with_help("remove the branch, or compare with another variable"))
        others = []
        for i in range(len(lits)):
            piece = _conj(guard + tuple(lits[:i]) + (lits[i].negated(),))
            if piece is not None:                # a contradictory piece never runs: no branch
                other = br.copy()
                other.guard = piece
                other.guard_span = s.cond.span
                others.append(other)
        if not lits:                             # lenient pass: explore both sides
            others.append(br.copy())
        br.guard = then if then else Guard.TRUE
        br.guard_span = s.cond.span
        return others

    def literal(self, c: ast.Cond, br) -> Literal | None:
        """The literal of one comparison of the step's draw with a stored variable."""
        sides = (c.left, c.right)
        vals = self.side_values(sides, br, strict=not self.lenient)
        draw_side = next((i for i in range(2) if vals[i] is None or vals[i].kind == "draw"), None)
        if self.lenient:
            if draw_side is None:
                return None
            other = sides[1 - draw_side]
            if isinstance(other, ast.Name) and vals[1 - draw_side] is not None \
                    and vals[1 - draw_side].kind == "dead":
                self.compared.setdefault(other.name, other.span)
            if vals[draw_side] is None:
                br.draw = self.eval_draw(sides[draw_side], br)
            return None
        if draw_side is None:
            dead = [i for i in range(2) if vals[i] is not None and vals[i].kind == "dead"]
            if dead:
                self.fail(self.dead_error(sides[dead[0]], vals[dead[0]], "in a comparison"))
            if all(v is not None and v.kind == "stored" for v in vals):
                self.fail(error("E133", "two stored variables are compared with each other", c.span,
                                "no draw of this step here")
                          .note("an automaton compares only the step's draw with stored variables")
                          .with_help("compare a fresh draw with each of them, e.g. `if s >= l && s < r`"))
            self.fail(error("E111", "a condition must compare a draw of this step with a stored variable",
                            c.span, "no draw of this step is compared here")
                      .with_help("compare a draw with a threshold, e.g. `if Lap(ε/4, q) >= l`"))
        other, oval = sides[1 - draw_side], vals[1 - draw_side]
        if oval is None or oval.kind != "stored":
            if isinstance(other, ast.Name) and other.name in self.several and other.name in br.assigned:
                self.fail(error("E117", f"`{other.name}` is overwritten before the step compares with it",
                                br.assigned[other.name], "assigned here")
                          .secondary(c.span, "compared here")
                          .with_help("move the assignment after the comparison, into the branch that stores"))
            if oval is not None and oval.kind == "dead" and isinstance(other, ast.Name):
                self.fail(self.dead_error(other, oval, "in a comparison"))
            what = {"const": "a constant", "expr": "an expression", "read": "the exact input",
                    "draw": "a value of this step", "prime": "a value of this step"}[
                oval.kind if oval is not None else "draw"]
            self.fail(error("E111", "a draw can only be compared with a stored variable", other.span, what)
                      .with_help("store a noisy threshold first (`l := Lap(ε/4, 0)`) and compare with it"))
        if vals[draw_side] is None:
            br.draw = self.eval_draw(sides[draw_side], br)
        op = c.op
        if draw_side == 1:
            op = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}[op]
        return Literal(oval.name, GE if op in (">=", ">") else LT)

    # ---- the end of a branch: which stored variables take the step's draw
    def finish(self, br, target: int, end_span) -> BranchEnd:
        end = BranchEnd(br, target, end_span)
        if self.lenient:
            return end
        stores = []
        for v in sorted(self.several):
            val = br.env.get(v)
            if val is None or val.kind == "undef" or (val.kind == "stored" and val.name == v):
                continue
            where = br.assigned.get(v) or val.span
            if val.kind == "draw":
                stores.append(v)
                continue
            if val.kind == "stored":
                self.fail(error("E133", f"the stored variable `{v}` is given the value of `{val.name}`",
                                where, f"`{v}` would keep a copy of `{val.name}`")
                          .note("an automaton stores only the step's draw into its variables "
                                "(`v := insample`); a copy of another variable cannot be represented")
                          .with_help(f"store the step's draw in both, or compare with `{val.name}` directly"))
            self.fail(stored_not_a_draw(v, val, where))
        if stores:
            end.store = frozenset(stores)
            end.store_span = next((br.assigned[v] for v in stores if v in br.assigned), None)
        return end


def _conj(lits: tuple[Literal, ...]) -> tuple[Literal, ...] | None:
    unique = tuple(sorted(set(lits)))
    if any(lit.negated() in unique for lit in unique):
        return None
    return unique


def find_stored_several(block, code) -> dict[str, object]:
    """The variables compared with a fresh draw in a later step than they were assigned
    (a lenient walk that allows several comparisons per step)."""
    lw = MultiLowerer(block, code, set(), lenient=True)
    lw.collect_params()
    lw.collect_variables()
    lw.discover()
    return lw.compared


def lower_several(block: ast.MechanismBlock, code: list[Ins]) -> tuple[MultiDiPA | None, list[Diagnostic]]:
    compared = find_stored_several(block, code)
    lw = MultiLowerer(block, code, set(compared))
    diags = lw.collect_params() + lw.collect_variables()
    steps, order = walk_steps(lw, diags)
    claimed = MultiDiPA(block.name)
    diags.extend(set_claims(claimed, block.claims, constant_resolver(lw.params)))
    if diags:
        return None, _dedupe(diags)
    dipa, diags = build_dipa(block, code, steps, order)
    if diags:
        return None, diags
    m = _to_multi(dipa)
    m.budget, m.budget_span = claimed.budget, claimed.budget_span
    return m, []


def _to_multi(dipa) -> MultiDiPA:
    """The automaton :func:`build_dipa` made, whose guards are conjunctions and whose
    stores are sets of variables (this module's branches), in the multi-variable IR."""
    m = MultiDiPA(dipa.name, initial=dipa.initial, span=dipa.span, kind="mechanism",
                  loop_spans=dict(dipa.loop_spans))
    for s in dipa.states:
        m.states.append(MState(s.name, s.is_input, Fraction(s.d), Fraction(s.mu), Fraction(s.d_prime),
                               Fraction(s.mu_prime), span=s.span, name_span=s.name_span,
                               draw_span=s.draw_span, prime_span=s.prime_span, terminal=s.terminal))
    for t in dipa.transitions:
        guard = () if t.guard is Guard.TRUE else tuple(t.guard)
        assigns = frozenset(t.store) if t.store else frozenset()
        m.transitions.append(MTransition(t.source, guard, t.target, t.output, assigns,
                                         label=f"{dipa.states[t.source].name} → {dipa.states[t.target].name}",
                                         span=t.span, guard_span=t.guard_span, output_span=t.output_span,
                                         store_span=t.store_span))
    return m
