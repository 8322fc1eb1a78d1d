"""DiP automata with several stored variables (docs/multivariable.md).

A state stores its draw into any set of real variables, and a guard is a
conjunction of comparisons ``insample >= v`` / ``insample < v`` with any of
them (the empty conjunction is ``true``).  Parameters (d, μ, d′, μ′) are exact
multiples of ε, outputs are the single-variable IR's :class:`Output`.

The guards of one state's transitions must be pairwise *exclusive*: for each
pair some variable ``v`` with ``insample >= v`` in one and ``insample < v`` in
the other, so that at most one transition is enabled (readers of
``if … elseif …`` text split the branches into exclusive pieces first,
``dslc/ir/dipaut_reader.py``).  :func:`problems` lists what breaks this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dslc.ir.dipa import DiPA, Guard, Output, OutKind
from dslc.source import Span

GE = ">="
LT = "<"


@dataclass(frozen=True, order=True)
class Literal:
    """``insample >= var`` (op ``>=``) or ``insample < var`` (op ``<``)."""
    var: str
    op: str

    def __post_init__(self):
        if self.op not in (GE, LT):
            raise ValueError(f"comparison {self.op!r}: only >= and < are literals")

    def negated(self) -> "Literal":
        return Literal(self.var, LT if self.op == GE else GE)

    def __str__(self) -> str:
        return f"insample {self.op} {self.var}"


@dataclass
class MState:
    name: str
    is_input: bool
    d: Fraction
    mu: Fraction = Fraction(0)
    d_prime: Fraction = Fraction(0)
    mu_prime: Fraction = Fraction(0)
    # where it was written (None for automata built in code): the declaration or the
    # step's first statement, its name, its draws; a halt state made by lowering
    span: Span | None = None
    name_span: Span | None = None
    draw_span: Span | None = None
    prime_span: Span | None = None
    terminal: bool = False


@dataclass
class MTransition:
    source: int
    guard: tuple[Literal, ...]          # a conjunction; () is `true`
    target: int
    output: Output
    assigns: frozenset[str] = frozenset()
    label: str = ""                     # where it came from (e.g. "q3 branch 2")
    # source spans (None for automata built in code), as dslc.ir.dipa.Transition's
    span: Span | None = None
    guard_span: Span | None = None
    output_span: Span | None = None
    store_span: Span | None = None

    def compares(self) -> set[str]:
        return {lit.var for lit in self.guard}


@dataclass
class MultiDiPA:
    name: str
    states: list[MState] = field(default_factory=list)
    transitions: list[MTransition] = field(default_factory=list)
    initial: int = 0
    # as dslc.ir.dipa.DiPA: the block's name span, "automaton" | "mechanism" | "dipaut",
    # the `loop` keyword of a mechanism's state
    span: Span | None = None
    kind: str = "automaton"
    loop_spans: dict[int, Span] = field(default_factory=dict)
    # `budget Dε` (docs/multivariable.md, "Budgets"); adjacent inputs differ by at most 1
    budget: Fraction | None = None
    budget_span: Span | None = None
    sensitivity: Fraction = Fraction(1)

    @property
    def variables(self) -> list[str]:
        out: set[str] = set()
        for t in self.transitions:
            out |= t.assigns | t.compares()
        return sorted(out)

    def out_edges(self) -> list[list[int]]:
        edges: list[list[int]] = [[] for _ in self.states]
        for i, t in enumerate(self.transitions):
            edges[t.source].append(i)
        return edges

    def describe(self, i: int) -> str:
        t = self.transitions[i]
        guard = " && ".join(map(str, t.guard)) or "true"
        store = (", " + ", ".join(f"{v} := insample" for v in sorted(t.assigns))) if t.assigns else ""
        return f"{self.states[t.source].name} --[{guard} / {t.output}{store}]--> {self.states[t.target].name}"

    def is_single_variable_model(self) -> bool:
        """Inside the LICS 2021 model (Definition 3): at most one variable, at most one
        literal per guard, non-input states only with guard true."""
        if len(self.variables) > 1:
            return False
        return all(len(t.guard) <= 1 and (not t.guard or self.states[t.source].is_input)
                   for t in self.transitions)


def output_distinction(m: MultiDiPA) -> list[str]:
    """Where an observer cannot tell a state's transitions apart (Definition 3's output
    distinction, for transitions split into pieces): two transitions with the same output
    but a different target or store, or two different real outputs."""
    out = []
    for q, edges in enumerate(m.out_edges()):
        seen: dict[object, tuple] = {}
        real = set()
        for i in edges:
            t = m.transitions[i]
            key = (t.target, t.assigns)
            if seen.setdefault(t.output, key) != key:
                out.append(f"{m.states[q].name}: two transitions output {t.output}")
            if t.output.is_real:
                real.add(t.output)
        if len(real) > 1:
            out.append(f"{m.states[q].name}: transitions output {' and '.join(sorted(map(str, real)))}")
    return out


def exclusive(g1: tuple[Literal, ...], g2: tuple[Literal, ...]) -> bool:
    """No sample satisfies both conjunctions, whatever the stored values."""
    return any(lit.negated() in g2 for lit in g1)


def problems(m: MultiDiPA) -> list[str]:
    """Why ``m`` is not a well-defined automaton of this IR (empty: it is)."""
    out = []
    n = len(m.states)
    if not 0 <= m.initial < n:
        out.append(f"initial state {m.initial} does not exist")
    for i, t in enumerate(m.transitions):
        if not (0 <= t.source < n and 0 <= t.target < n):
            out.append(f"transition {i} names a state that does not exist")
        elif any(lit.negated() in t.guard for lit in t.guard):
            out.append(f"the guard of {m.describe(i)} is contradictory")
    for q, edges in enumerate(m.out_edges()):
        for a in range(len(edges)):
            for b in range(a + 1, len(edges)):
                if not exclusive(m.transitions[edges[a]].guard, m.transitions[edges[b]].guard):
                    out.append(f"{m.states[q].name}: the guards of {m.describe(edges[a])} and "
                               f"{m.describe(edges[b])} are not exclusive")
    for q, edges in enumerate(m.out_edges()):
        s = m.states[q]
        uses = any(m.transitions[i].guard or m.transitions[i].assigns
                   or m.transitions[i].output.kind is OutKind.INSAMPLE for i in edges)
        if uses and s.d <= 0:     # a draw that is compared, stored or output
            out.append(f"{s.name}: a draw needs a positive d (Lap(μ, 1/(dε)))")
        if any(m.transitions[i].output.kind is OutKind.INSAMPLE_PRIME for i in edges) and s.d_prime <= 0:
            out.append(f"{s.name}: insample′ needs a positive d′")
    return out


_LITERAL = {Guard.GE: (Literal("x", GE),), Guard.LT: (Literal("x", LT),), Guard.TRUE: ()}


def from_dipa(dipa: DiPA, variable: str = "x") -> MultiDiPA:
    """A single-variable DiPA (dslc.ir.dipa) in this IR, state and transition numbers kept."""
    m = MultiDiPA(dipa.name, initial=dipa.initial)
    for s in dipa.states:
        m.states.append(MState(s.name, s.is_input, Fraction(s.d), Fraction(s.mu),
                               Fraction(s.d_prime), Fraction(s.mu_prime)))
    for i, t in enumerate(dipa.transitions):
        guard = tuple(Literal(variable, lit.op) for lit in _LITERAL[t.guard])
        m.transitions.append(MTransition(t.source, guard, t.target, t.output,
                                         frozenset([variable]) if t.store else frozenset(), f"t{i}"))
    return m


def stored_on_arrival(m: MultiDiPA) -> list[frozenset[str]]:
    """Per state, the variables stored on every path from the initial state to it
    (a forward must-analysis: the meet over incoming transitions, from "all")."""
    every = frozenset(m.variables)
    out: list[frozenset[str]] = [every] * len(m.states)
    if not m.states:
        return out
    out[m.initial] = frozenset()
    changed = True
    while changed:
        changed = False
        for t in m.transitions:
            new = out[t.target] & (out[t.source] | t.assigns)
            if t.target == m.initial:
                new = frozenset()
            if new != out[t.target]:
                out[t.target] = new
                changed = True
    return out


def merged_pieces(m: MultiDiPA) -> tuple[MultiDiPA, list[int]]:
    """``m`` with its pieces merged, and per transition of ``m`` the index of the
    merged transition it is part of.  Two transitions of a state with the same
    output, target and stores whose guards are g ∧ L and g ∧ ¬L (the pieces a
    first-match branch is split into, dslc.ir.dipaut_reader) become one with
    guard g, repeatedly, when the variable of L is stored on every path to the
    state (:func:`stored_on_arrival`).  It is the same automaton: whatever the
    variable holds, the runs that take either piece are those that take the
    merged transition.  Output events then sum fewer paths (one per branch
    instead of one per piece: 2^n fewer for n turns of a split cycle), and the
    checker sees no condition that only the pieces' paths have."""
    stored = stored_on_arrival(m)
    groups: dict[tuple, list[tuple[frozenset, list[int]]]] = {}
    for i, t in enumerate(m.transitions):
        groups.setdefault((t.source, t.output, t.target, t.assigns), []).append((frozenset(t.guard), [i]))
    merges = 0
    for key, items in groups.items():
        again = True
        while again:
            again = False
            for a in range(len(items)):
                for b in range(a + 1, len(items)):
                    da, db = items[a][0] - items[b][0], items[b][0] - items[a][0]
                    if (len(da) == 1 and len(db) == 1 and next(iter(da)).negated() == next(iter(db))
                            and next(iter(da)).var in stored[key[0]]):
                        joined = (items[a][0] & items[b][0], sorted(items[a][1] + items[b][1]))
                        items = [x for k, x in enumerate(items) if k not in (a, b)] + [joined]
                        again = True
                        merges += 1
                        break
                if again:
                    break
        groups[key] = items
    if not merges:
        return m, list(range(len(m.transitions)))
    out = MultiDiPA(m.name, list(m.states), [], m.initial, span=m.span, kind=m.kind)
    index = [0] * len(m.transitions)
    for (source, output, target, assigns), guard, members in sorted(
            ((k, g, ms) for k, items in groups.items() for g, ms in items), key=lambda x: x[2][0]):
        for i in members:
            index[i] = len(out.transitions)
        out.transitions.append(MTransition(source, tuple(sorted(guard)), target, output, assigns,
                                           "+".join(m.transitions[i].label or f"t{i}" for i in members)))
    return out, index


__all__ = ["GE", "LT", "Literal", "MState", "MTransition", "MultiDiPA", "Output", "OutKind",
           "exclusive", "output_distinction", "problems", "from_dipa", "merged_pieces"]
