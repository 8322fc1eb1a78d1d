"""A witness's run of a `mechanism`, as the program itself runs it.

A witness of a violation is a path of the automaton a mechanism lowers to,
with two adjacent input sequences α and β.  Its step-by-step account for the
program's author is not derived from the automaton: it is what the direct
interpreter (:mod:`dslc.dipa.interpret`) does when it runs the program on α
and on β with draws that follow the path — which `read()` took which value,
which comparison held or failed, which line output what.

1. :func:`path_draws` chooses a value for every draw of the path (in the
   order the automaton draws them, which is the program's order): each
   comparison of the path holds with a margin and each released value lies
   inside its interval.  These are linear inequalities between the draws
   (`insample >= x` relates a step's draw to the draw stored last), solved
   as difference constraints (Bellman–Ford, exact fractions).
2. :func:`witness_run` runs the program on α and on β with those values,
   traced, and checks that both runs produce the witness's outputs (the same
   symbols, real outputs inside their intervals), read all of α and β, and
   make the same statements with the same outcomes.  Any difference is a bug
   in dslc (:class:`RunMismatch`); the sentences are then not shown.

The sentences themselves are rendered from the merged facts by
:func:`dslc.dipa.program_terms.fact_lines`.  Nothing here prints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from dslc import limits
from dslc.dipa.interpret import Fact, run_program
from dslc.dipa.paths import output_tokens, parse_output, symbol_matches
from dslc.dipa.sampler import RunError
from dslc.ir.dipa import DiPA, Guard, OutKind
from dslc.numbers import fmt_fraction

MARGINS = tuple(Fraction(1, 2 ** k) for k in range(0, 40, 3))   # tried in turn: 1, 1/8, 1/64, …
MAX_STATEMENTS = 20_000


class RunMismatch(AssertionError):
    """The program, run on the witness's inputs and draws, does not do what
    the witness says (a bug in dslc: its sentences are not shown)."""


@dataclass
class StepFact:
    """One statement of the run on α and β (the same in both but for the values read)."""
    kind: str                      # "assign", "compare", "output", "break", "halt"
    line: int
    code: str
    loops: tuple                   # ((line of the `loop`, turn), ...), outermost first
    reads: list                    # (α value, β value) per `read()`
    draws: list                    # the `Lap(…)` texts drawn
    held: bool | None = None       # compare
    target: str | None = None      # assign
    output: str | None = None      # output: the symbol, or the interval of a released value

    def to_json(self) -> dict:
        out = {"kind": self.kind, "line": self.line, "code": self.code,
               "loops": [{"line": a, "turn": b} for a, b in self.loops],
               "reads": [[fmt_fraction(a), fmt_fraction(b)] for a, b in self.reads],
               "draws": list(self.draws)}
        if self.held is not None:
            out["held"] = self.held
        if self.target is not None:
            out["target"] = self.target
        if self.output is not None:
            out["output"] = self.output
        return out


@dataclass
class WitnessRun:
    draws: list[Fraction]                      # the values of the path's draws, in order
    facts: list[StepFact] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"draws": [fmt_fraction(v) for v in self.draws], "facts": [f.to_json() for f in self.facts]}


# ---------------------------------------------------------------------------
# draws that follow the path

def _constraints(dipa, steps, margin: Fraction) -> tuple[list, int, list]:
    """Difference constraints v[a] − v[b] ≥ c over the path's draws (index −1 is
    the constant 0) and, per step, (index of its insample or None, its insample′
    value or None).  ``dipa`` has one stored variable (a DiPA) or several (a
    :class:`~dslc.ir.multi_dipa.MultiDiPA`: each literal relates the step's draw
    to the draw its variable holds)."""
    ts, states = dipa.transitions, dipa.states
    cons: list[tuple[int, int, Fraction]] = []
    slots: list[tuple[int | None, Fraction | None]] = []
    held: dict[str, int] = {}            # variable -> the draw it holds
    n = 0
    for k, s in enumerate(steps):
        t = ts[s.transition]
        st = states[t.source]
        mine = None
        if st.d > 0:
            mine, n = n, n + 1
        for var, ge in _literals(t):
            if mine is None or var not in held:
                raise RunMismatch(f"step {k + 1} compares a draw of rate 0 or an unset `{var}`")
            if ge:
                cons.append((mine, held[var], margin))
            else:
                cons.append((held[var], mine, margin))
        prime = None
        if t.output.kind is OutKind.INSAMPLE:
            if mine is None:
                raise RunMismatch(f"step {k + 1} releases a draw of rate 0")
            lo, hi = s.interval or (None, None)
            if lo is not None:
                cons.append((mine, -1, Fraction(lo) + margin))
            if hi is not None:
                cons.append((-1, mine, margin - Fraction(hi)))
        elif t.output.kind is OutKind.INSAMPLE_PRIME:
            lo, hi = s.interval or (None, None)
            lo = None if lo is None else Fraction(lo)
            hi = None if hi is None else Fraction(hi)
            if lo is not None and hi is not None:
                prime = (lo + hi) / 2
            else:
                prime = lo + 1 if lo is not None else hi - 1 if hi is not None else Fraction(0)
        for var in _stores(t):
            if mine is not None:
                held[var] = mine
        slots.append((mine, prime))
    return cons, n, slots


def _literals(t) -> list[tuple[str, bool]]:
    """(variable, is `>=`) per comparison of a transition's guard."""
    if isinstance(t.guard, Guard):
        return [] if t.guard is Guard.TRUE else [("x", t.guard is Guard.GE)]
    return [(lit.var, lit.op == ">=") for lit in t.guard]


def _stores(t) -> frozenset[str]:
    if isinstance(t.guard, Guard):
        return frozenset(["x"]) if t.store else frozenset()
    return t.assigns


def _solve(cons: list, n: int) -> list[Fraction] | None:
    """A solution of v[a] − v[b] ≥ c (v[−1] = 0), or None: Bellman–Ford on the
    edges a → b of weight −c (v[b] ≤ v[a] − c), from a source at distance 0."""
    dist = [Fraction(0)] * (n + 1)            # the last slot is the constant
    edges = [(a if a >= 0 else n, b if b >= 0 else n, -c) for a, b, c in cons]
    for _ in range(n + 2):
        limits.checkpoint()
        changed = False
        for a, b, w in edges:
            if dist[a] + w < dist[b]:
                dist[b] = dist[a] + w
                changed = True
        if not changed:
            zero = dist[n]
            return [d - zero for d in dist[:n]]
    return None


def path_draws(dipa: DiPA, steps) -> list[Fraction]:
    """Values of the path's draws, in drawing order, that take exactly the
    path's transitions with its real outputs inside their intervals."""
    for margin in MARGINS:
        cons, n, slots = _constraints(dipa, steps, margin)
        values = _solve(cons, n)
        if values is None:
            continue
        def at(i: int) -> Fraction:
            return values[i] if i >= 0 else Fraction(0)
        if any(at(a) - at(b) < c for a, b, c in cons):
            raise RunMismatch("the draws found do not satisfy the path")   # pragma: no cover
        out: list[Fraction] = []
        for mine, prime in slots:
            if mine is not None:
                out.append(values[mine])
            if prime is not None:
                out.append(prime)
        return out
    raise RunMismatch("no draws follow the path")


# ---------------------------------------------------------------------------
# the run on α and β

def _trace(program, inputs: list[Fraction], epsilon: Fraction, draws: list[Fraction]):
    try:
        return run_program(program, inputs, epsilon, None, MAX_STATEMENTS, trace=True, values=draws)
    except RunError as exc:
        raise RunMismatch(f"the program cannot run the witness: {exc}") from None


def _same(a: Fact, b: Fact) -> bool:
    return (a.kind, a.line, a.code, a.loops, a.draws, a.held, a.target, a.value) == \
        (b.kind, b.line, b.code, b.loops, b.draws, b.held, b.target, b.value)


def witness_run(program, dipa: DiPA, alpha, beta, epsilon: Fraction) -> WitnessRun:
    """Run ``program`` on the witness's α and β (lists of steps of ``dipa``)
    with draws that follow its path; the merged facts, checked against the
    witness's outputs and inputs."""
    draws = path_draws(dipa, alpha)
    if path_draws(dipa, beta) != draws:
        raise RunMismatch("α and β take different paths")
    a_in = [Fraction(s.input) for s in alpha if s.input is not None]
    b_in = [Fraction(s.input) for s in beta if s.input is not None]
    ra = _trace(program, a_in, epsilon, draws)
    rb = _trace(program, b_in, epsilon, draws)
    # the witness's outputs: symbols, and released values inside their intervals
    tokens = output_tokens(dipa, alpha)
    wanted = [(tok, s.interval) for tok, s in zip(tokens, alpha) if tok != "_"]
    facts: list[StepFact] = []
    outputs = 0
    for fa, fb in zip(ra.facts, rb.facts):
        if not _same(fa, fb) or len(fa.reads) != len(fb.reads):
            raise RunMismatch(f"line {fa.line}: the runs on α and β differ")
        token = None
        if fa.kind == "output":
            if outputs == len(wanted):
                break                       # the program goes on past the witness's path
            token, interval = wanted[outputs]
            outputs += 1
            if interval is None:
                if not isinstance(fa.value, str) or not symbol_matches(fa.value, parse_output(token, 0)):
                    raise RunMismatch(f"line {fa.line} outputs {fa.value}, the witness {token}")
            else:
                lo, hi = interval
                v = fa.value
                if isinstance(v, str) or (lo is not None and not v > lo) or (hi is not None and not v < hi):
                    raise RunMismatch(f"line {fa.line} outputs {v}, outside the witness's {token}")
        facts.append(StepFact(fa.kind, fa.line, fa.code, fa.loops, list(zip(fa.reads, fb.reads)),
                              list(fa.draws), fa.held, fa.target, token))
    if outputs != len(wanted):
        raise RunMismatch(f"the program outputs {outputs} values, the witness {len(wanted)}")
    read = sum(len(f.reads) for f in facts)
    if read != len(a_in) or len(a_in) != len(b_in) or ra.inputs_used != len(a_in) \
            or rb.inputs_used != len(b_in):
        raise RunMismatch(f"the program reads {read} inputs, the witness has {len(a_in)}")
    return WitnessRun(draws, facts)
