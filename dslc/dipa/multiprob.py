"""Path probabilities, witnesses and lower bounds for DiP automata with several
stored variables (docs/multivariable.md, "Probabilities and evidence").

Probability of a path
---------------------
A path is a list of :class:`dslc.dipa.prob.Step` (transition, input, interval)
of a :class:`MultiDiPA`.  Step k draws z_k ~ Lap(a_k + μ_k, 1/(d_k ε)); a
variable holds the draw of the last step that stored it; a literal
``insample >= v`` of step k says z_j < z_k (j the step whose draw v holds),
``insample < v`` says z_k < z_j; an output ``insample`` with interval (lo, hi)
says lo < z_k < hi; an output ``insample′`` multiplies by the mass of its own
independent draw in its interval.  So

    Pr = Π(insample′ masses) · ∫ Π_k f_k(z_k) · 1[the order constraints] dz

over the draws that some constraint or interval mentions (the others
integrate to 1), f_k the Laplace density restricted to its interval.  The
constraints form a graph on the draws.  It is integrated exactly:

1. *Pendant draws are folded in* (as for one variable): a draw with one
   neighbour j contributes the function x ↦ ∫_{z > x} f_k(z) g_k(z) dz (or
   z < x) of z_j, g_k the product of what was folded into it before; an
   isolated draw contributes its total mass.  With one variable the graph is
   a forest and this is exactly the recursion of :mod:`dslc.dipa.prob`.
2. *The rest (the 2-core) is summed over its orders*: for a down-closed set I
   of draws, G_I(x) is the integral over the draws of I all below x, in an
   order the constraints allow; G_{I ∪ {e}}(x) = Σ ∫_{z < x} f_e(z) G_I(z) dz
   over the ways of adding a maximal e.  The result is G_all(∞).  A directed
   cycle of constraints leaves G_all empty: probability 0.

Every function met is piecewise exponential-polynomial with exact rational
breakpoints and rates (prob.py's engine: :class:`dslc.dipa.prob.PW`), so the
only error is the rounding of the Decimal coefficients.  As in prob.py the
computation runs at P and 2P significant digits, P doubling until they agree
to ``rel_tol``; the error reported is their difference.  Step 2 is
exponential in the width of the 2-core (2^n orders for n draws all compared
with the same two variables): its work (terms carried, down-sets visited) is
counted and :class:`TooExpensive` is raised past the budget — never a guess.

Output events
-------------
Evidence is about outputs.  The *output event* of a path is the set of runs
on its inputs whose outputs are the path's; :func:`loss` sums the
probabilities of the paths of the automaton in it (those that print the same
outputs while reading the same inputs: disjoint, since a state's guards are
exclusive) with :func:`dslc.dipa.multievent.event_probability` -- the
function `dslc prob` replays with -- on the automaton with the pieces of
split branches merged back (:func:`dslc.ir.multi_dipa.merged_pieces`).  When
the outputs determine the path that is the path alone; when there are more
than MAX_EVENT_PATHS paths the sum is not attempted, the loss is marked
``observable=False`` and is never used as evidence.

Witnesses and lower bounds
--------------------------
:func:`witness` builds, for a "not private" answer of
:func:`dslc.dipa.multivar.check_multi`, a path of the order product P of the
shape of the violated condition (prefix · cycle^n · middle · cycle2^n ·
suffix), adjacent inputs α, β and outputs.  Per attempt (shape, ε ∈ {1, 4})
coordinate ascent chooses the inputs for the growth of the output event's
loss from n = 1 to 3 (a third of the work); the growth, continued linearly,
orders the attempts (those within FAST_TURNS turns at once, the others by
the turns they need) and picks the next n to compute (:func:`_next_length`),
until the proven lower end of the loss exceeds 2ε; that instance is checked
(adjacent, an output event) and returned.  "Not found within the work
budget" means only that no instance tried got there before the counted work
ran out.  :func:`lower_bound` searches short paths of P for a "private"
answer.  Both are bounded by counted work, never the clock; the lower bound
recomputes what it returns from scratch (:func:`verify`).  The replay data of
either is ``loss.alpha`` / ``loss.beta``: plain :class:`Step` lists
(transition, input, interval).
"""

from __future__ import annotations

import decimal
import math
from collections import deque
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from dslc import limits
from dslc.dipa.lower_bound import WitnessError, check_adjacent   # one definition, duck-typed
from dslc.dipa.prob import (PW, PathError, Probability, Step, TooExpensive, _Engine, input_shift,
                            _integrate, _lcm_den, _mass, _mul_density, _multiply, _prune, _restrict,
                            _scale)
from dslc.ir.dipa import OutKind
from dslc.ir.multi_dipa import GE, MultiDiPA, merged_pieces

HALF = Fraction(1, 2)
PROB_BUDGET = 300_000         # terms carried by one probability computation (both precisions)
MAX_DOWNSETS = 4_000          # down-sets of the 2-core visited by one computation


# =========================================================================== probabilities
@dataclass
class _Draw:
    step: int
    rate: Fraction
    mean: Fraction
    lo: Fraction | None = None
    hi: Fraction | None = None


@dataclass
class _Problem:
    """The integral of one path: draws, order constraints (j, k): z_j < z_k,
    constant factors (insample′ masses), and whether some constraint is
    contradictory (z_j < z_k and z_k < z_j: probability 0)."""
    draws: dict[int, _Draw]
    below: set[tuple[int, int]]
    primes: list[tuple[Fraction, Fraction, Fraction | None, Fraction | None]]   # rate, mean, lo, hi


def _frac(v) -> Fraction | None:
    return None if v is None else Fraction(v)


def _setup(m: MultiDiPA, steps: list[Step]) -> _Problem:
    if not steps:
        raise PathError("the path is empty")
    holder: dict[str, int] = {}
    draws: dict[int, _Draw] = {}
    used: set[int] = set()
    below: set[tuple[int, int]] = set()
    primes = []
    prev_target = None
    for k, step in enumerate(steps):
        if not 0 <= step.transition < len(m.transitions):
            raise PathError(f"no transition {step.transition}")
        t = m.transitions[step.transition]
        s = m.states[t.source]
        if prev_target is not None and t.source != prev_target:
            raise PathError(f"step {k + 1} does not start where step {k} ended")
        prev_target = t.target
        shift = input_shift(s, step)
        lo = hi = None
        if step.interval is not None:
            if not t.output.is_real:
                raise PathError(f"step {k + 1}: an interval for a step that outputs a symbol")
            lo, hi = (_frac(v) for v in step.interval)
        draw = _Draw(k, Fraction(s.d), Fraction(s.mu) + shift)
        draws[k] = draw
        for lit in t.guard:
            j = holder.get(lit.var)
            if j is None:
                raise PathError(f"step {k + 1} compares {lit.var}, which the path has not stored")
            below.add((j, k) if lit.op == GE else (k, j))
            used.update((j, k))
        if t.output.kind is OutKind.INSAMPLE and (lo is not None or hi is not None):
            draw.lo, draw.hi = lo, hi
            used.add(k)
        if t.output.kind is OutKind.INSAMPLE_PRIME and (lo is not None or hi is not None):
            if s.d_prime <= 0:
                raise PathError(f"state `{s.name}` releases insample′ drawn with rate 0")
            primes.append((Fraction(s.d_prime), Fraction(s.mu_prime) + shift, lo, hi))
        for v in t.assigns:
            holder[v] = k
    for k in used:
        if draws[k].rate <= 0:
            raise PathError(f"step {k + 1} draws insample with rate 0, which has no distribution")
    return _Problem({k: draws[k] for k in sorted(used)}, below, primes)


class _Counter:
    def __init__(self, budget: int | None, meter: list[int] | None):
        self.budget, self.meter, self.work = budget, meter, 0

    def add(self, f: PW) -> PW:
        _prune(f)
        n = sum(len(t) for t in f.pieces)
        self.work += n
        if self.meter is not None:
            self.meter[0] += n
        if self.budget is not None and self.work > self.budget:
            raise TooExpensive("the path's integral needs more work than its budget")
        return f


def _value_at_infinity(f: PW) -> Decimal:
    """lim_{x→∞} f(x) for a function whose last piece tends to a constant."""
    return f.pieces[-1].get((0, 0), Decimal(0))


def _integral(prob: _Problem, epsilon: Fraction, prec: int, counter: _Counter) -> Decimal:
    draws = prob.draws
    rates = [d.rate for d in draws.values()] + [p[0] for p in prob.primes]
    points = [p for d in draws.values() for p in (d.mean, d.lo, d.hi) if p is not None]
    points += [p for pr in prob.primes for p in pr[1:] if p is not None]
    R, B = _lcm_den(rates or [1]), _lcm_den(points or [0])
    en = _Engine(epsilon, prec, R, B)

    def pt(v):
        return None if v is None else int(v * B)

    with decimal.localcontext(en.ctx):
        total = Decimal(1)
        for rate, mean, lo, hi in prob.primes:
            total *= _mass(en, int(rate * R), pt(mean), pt(lo), pt(hi))
        if any((k, j) in prob.below for j, k in prob.below):
            return Decimal(0)
        weight: dict[int, PW] = {}
        sig: dict[int, tuple | None] = {k: (d.rate, d.mean, d.lo, d.hi) for k, d in draws.items()}
        for k, d in draws.items():
            rho = int(d.rate * R)
            f = _mul_density(PW.const(Decimal(1)), rho, pt(d.mean), en.S(rho) / 2, en)
            weight[k] = counter.add(_restrict(f, pt(d.lo), pt(d.hi), en))
        nbr: dict[int, set[int]] = {k: set() for k in draws}
        for j, k in prob.below:
            nbr[j].add(k)
            nbr[k].add(j)
        # 1. fold pendant draws into their neighbour
        todo = deque(k for k in draws if len(nbr[k]) <= 1)
        alive = set(draws)
        while todo:
            k = todo.popleft()
            if k not in alive or len(nbr[k]) > 1:
                continue
            limits.checkpoint()
            alive.discard(k)
            if not nbr[k]:
                total *= _integrate(weight[k], "all", en).pieces[0].get((0, 0), Decimal(0))
                continue
            (j,) = nbr[k]
            msg = counter.add(_integrate(weight[k], "ge" if (j, k) in prob.below else "lt", en))
            weight[j] = counter.add(_multiply(weight[j], msg, en))
            sig[j] = None
            nbr[j].discard(k)
            nbr[k].clear()
            if len(nbr[j]) <= 1:
                todo.append(j)
        # 2. the 2-core, one connected part at a time, summed over its orders
        import networkx as nx
        core = nx.Graph()
        core.add_nodes_from(alive)
        core.add_edges_from((a, b) for a in alive for b in nbr[a])
        for part in sorted(nx.connected_components(core), key=min):
            total *= _orders(set(part), prob.below, weight, sig, en, counter)
        return +total


def _orders(part: set[int], below: set[tuple[int, int]], weight: dict[int, PW], sig: dict[int, tuple],
            en: _Engine, counter: _Counter) -> Decimal:
    """∫ over the draws of ``part`` of Π weight · 1[constraints], summed over the orders
    the constraints allow, by down-sets.  *Twins* (draws with the same distribution,
    interval and neighbours, nothing folded in) are interchangeable: a down-set is
    a count per class of twins, and adding one of c twins counts c times."""
    preds = {k: frozenset(j for j, kk in below if kk == k and j in part) for k in part}
    succs = {k: frozenset(kk for j, kk in below if j == k and kk in part) for k in part}
    groups: dict[tuple, list[int]] = {}
    for k in sorted(part):
        key = (sig[k], preds[k], succs[k]) if sig[k] is not None else (k,)
        groups.setdefault(key, []).append(k)
    classes = list(groups.values())
    cls_of = {k: i for i, ks in enumerate(classes) for k in ks}
    need = [frozenset(cls_of[j] for j in preds[ks[0]]) for ks in classes]
    size = [len(ks) for ks in classes]
    start = tuple(0 for _ in classes)
    level: dict[tuple, PW] = {start: PW.const(Decimal(1))}
    visited = 0
    for _ in range(len(part)):
        nxt: dict[tuple, PW] = {}
        for counts, g in level.items():
            for i, ks in enumerate(classes):
                if counts[i] == size[i] or any(counts[j] < size[j] for j in need[i]):
                    continue
                visited += 1
                if visited > MAX_DOWNSETS:
                    raise TooExpensive("the constraints allow too many orders of the draws")
                limits.checkpoint()
                key = counts[:i] + (counts[i] + 1,) + counts[i + 1:]
                h = counter.add(_integrate(counter.add(_multiply(weight[ks[0]], g, en)), "lt", en))
                if key[i] > 1:
                    h = _scale(h, Decimal(key[i]))
                nxt[key] = counter.add(_add(nxt[key], h, en)) if key in nxt else h
        level = nxt
    g = level.get(tuple(size))
    return Decimal(0) if g is None else _value_at_infinity(g)


def _add(f: PW, g: PW, en: _Engine) -> PW:
    """f + g (via prob.py's refinement: multiply by 1 keeps the pieces)."""
    from dslc.dipa.prob import _merge_bps, _refine
    bps = _merge_bps(f.bps, g.bps)
    out = []
    for a, b in zip(_refine(f, bps, en), _refine(g, bps, en)):
        terms = dict(a)
        for key, v in b.items():
            terms[key] = terms.get(key, Decimal(0)) + v
        out.append(terms)
    return PW(bps, out)


def path_probability(m: MultiDiPA, steps: list[Step], epsilon: Fraction, rel_tol: float = 1e-20,
                     start_digits: int = 30, max_digits: int = 960, budget: int | None = PROB_BUDGET,
                     meter: list[int] | None = None) -> Probability:
    """Pr[ε, ρ] of the path ``steps`` of ``m`` (module docstring) with an error bound.

    Raises PathError when the path does not fit the automaton (or compares a
    variable it has not stored), TooExpensive past ``budget`` terms (summed over
    both precisions) or :data:`MAX_DOWNSETS` orders."""
    epsilon = Fraction(epsilon)
    if epsilon <= 0:
        raise PathError("ε must be positive")
    prob = _setup(m, steps)
    counter = _Counter(budget, meter)
    digits = start_digits
    tol = Decimal(rel_tol)
    low = _integral(prob, epsilon, digits, counter)
    while True:
        high = _integral(prob, epsilon, 2 * digits, counter)
        err = abs(high - low)
        if err <= tol * abs(high) or 2 * digits >= max_digits or (high == 0 and err == 0):
            break
        digits *= 2
        low = high
    ctx = decimal.Context(prec=2 * digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    if high < 0:
        high = Decimal(0)
    return Probability(high, err, 2 * digits, ctx.ln(high) if high > 0 else None)


# =========================================================================== losses
MAX_EVENT_PATHS = 64          # paths of one output sequence summed exactly (else: not an event)


@dataclass
class Loss:
    """ln(Pr_α(E) / Pr_β(E)) at ε and a proven lower end, E the *output event* of
    the path: the runs on the path's inputs whose first outputs are the path's
    (a symbol, or a real output in the step's interval).

    ``alpha`` and ``beta`` are the replay data: step k is transition
    ``alpha[k].transition`` with inputs ``alpha[k].input`` / ``beta[k].input``
    (None at a state that reads none) and, for a real output, the interval
    ``alpha[k].interval`` (the same in β); they are plain
    :class:`dslc.dipa.prob.Step` values, so ``[(a.transition, a.input, b.input,
    a.interval) for a, b in zip(loss.alpha, loss.beta)]`` is the whole witness.

    ``paths`` is the number of paths of the automaton in E (1: the outputs
    determine the path); ``pr_alpha``/``pr_beta`` are the sums over them.
    ``observable`` is False only when E could not be summed exactly (more than
    :data:`MAX_EVENT_PATHS` paths, or paths that read input at other steps): then
    the numbers are those of the one path (a loss of paths, Definition 5, not
    of the outputs), and no witness or lower bound is ever made of it."""
    epsilon: Fraction
    alpha: list[Step]
    beta: list[Step]
    pr_alpha: Probability
    pr_beta: Probability
    value: Decimal                 # ln Pr_α − ln Pr_β (the computed values)
    lower: Decimal                 # ln(Pr_α − err_α) − ln(Pr_β + err_β), rounded down
    observable: bool = True        # the numbers are the output event's (see above)
    paths: int = 1                 # paths of the automaton summed (0: not summed, observable False)

    def to_json(self) -> dict:
        return {"epsilon": str(self.epsilon), "loss": float(self.value), "loss_lower": float(self.lower),
                "observable": self.observable, "paths": self.paths,
                "pr_alpha": float(self.pr_alpha.probability), "pr_beta": float(self.pr_beta.probability),
                "inputs_alpha": [None if s.input is None else str(s.input) for s in self.alpha],
                "inputs_beta": [None if s.input is None else str(s.input) for s in self.beta]}


def loss(m: MultiDiPA, alpha: list[Step], beta: list[Step], epsilon: Fraction,
         meter: list[int] | None = None, event_only: bool = False, merged=None, **kw) -> Loss | None:
    """The verified loss of one witness candidate on its output event (see
    :class:`Loss`): :func:`dslc.dipa.multievent.event_probability` sums the
    paths with its inputs and outputs on the automaton with its pieces merged
    (``merged``: the result of :func:`merged_pieces`, when the caller has it).
    None when Pr_α's lower end is 0 or Pr_β is 0 (no finite proven bound), or,
    with ``event_only``, when the output event has more than MAX_EVENT_PATHS
    paths (the searches never score anything else; otherwise the numbers are
    then the path's own, marked ``observable=False``)."""
    from dslc.dipa.multievent import event_probability, inputs_of, parsed_outputs
    from dslc.dipa.paths import PathTextError
    if len(alpha) != len(beta) or any(a.transition != b.transition for a, b in zip(alpha, beta)):
        raise PathError("α and β are not one path")
    for s in alpha:
        if not 0 <= s.transition < len(m.transitions):
            raise PathError(f"no transition {s.transition}")
    mm = (merged if merged is not None else merged_pieces(m))[0]
    outputs = parsed_outputs(m, alpha)
    try:
        pa, paths = event_probability(mm, inputs_of(alpha), outputs, epsilon, meter=meter,
                                      limit=MAX_EVENT_PATHS, merged=True, **kw)
        pb, _ = event_probability(mm, inputs_of(beta), outputs, epsilon, meter=meter, limit=MAX_EVENT_PATHS,
                                  merged=True, **kw)
    except PathTextError:                 # more paths than MAX_EVENT_PATHS
        if event_only:
            return None
        pa = path_probability(m, alpha, epsilon, meter=meter, **kw)
        pb = path_probability(m, beta, epsilon, meter=meter, **kw)
        paths = 0
    ctx = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                          rounding=decimal.ROUND_FLOOR)
    low_a = ctx.subtract(pa.probability, pa.error)
    high_b = ctx.add(pb.probability, pb.error)
    if low_a <= 0 or high_b <= 0 or pa.log_probability is None or pb.log_probability is None:
        return None
    lower = ctx.subtract(ctx.subtract(ctx.ln(low_a), ctx.ln(high_b)), Decimal("1e-40"))
    return Loss(Fraction(epsilon), alpha, beta, pa, pb, pa.log_probability - pb.log_probability, lower,
                paths > 0, paths)


def summable(m: MultiDiPA, steps: list[Step], merged=None) -> bool:
    """Whether the output event of ``steps`` has at most MAX_EVENT_PATHS paths
    (on the automaton with its pieces merged)."""
    from dslc.dipa.multievent import inputs_of, parsed_outputs
    from dslc.dipa.paths import PathTextError, matching_paths
    mm = (merged if merged is not None else merged_pieces(m))[0]
    try:
        matching_paths(mm, inputs_of(steps), parsed_outputs(m, steps), limit=MAX_EVENT_PATHS)
    except PathTextError:
        return False
    return True


def observable(m: MultiDiPA, steps: list[Step]) -> bool:
    """Whether the outputs of the path determine it: at every step, no other
    transition of the state has the same output (pieces of one first-match
    branch, split by dslc.ir.dipaut_reader, have the same output).  A path that
    is not observable still has an output event, which :func:`loss` sums."""
    edges = m.out_edges()
    for s in steps:
        t = m.transitions[s.transition]
        if any(i != s.transition and m.transitions[i].output == t.output for i in edges[t.source]):
            return False
    return True


def verify(m: MultiDiPA, alpha: list[Step], beta: list[Step], epsilon: Fraction,
           meter: list[int] | None = None, budget: int | None = PROB_BUDGET,
           rel_tol: float = 1e-20, start_digits: int = 30) -> Loss | None:
    """Check adjacency and recompute the loss of the output event from scratch
    (relative tolerance ``rel_tol``; the proven lower end accounts for the error)."""
    check_adjacent(m, alpha, beta, Fraction(1))     # sensitivity 1, as in the checker
    return loss(m, alpha, beta, epsilon, meter=meter, budget=budget, rel_tol=rel_tol,
                start_digits=start_digits)


# =========================================================================== shapes on P
# Inputs are chosen per *slot* (a position of a transition in a segment): at
# turn j of a repeated segment α = a0 + drift·j and β = α + δ, so one choice
# describes the whole family n = 1, 2, ….  Real outputs get an interval.
DRIFTS = (Fraction(0), Fraction(1), Fraction(-1))
OFFSETS = (Fraction(0), HALF, -HALF, Fraction(1), Fraction(-1))
INTERVALS = ((Fraction(0), None), (None, Fraction(0)), (None, None))


@dataclass
class Shape:
    """segments: (name, transitions, repeated); the path at n is every segment
    once, the repeated ones n times."""
    segments: list[tuple[str, list[int], bool]]

    def positions(self, n: int) -> list[tuple[int, int, int]]:
        """(segment index, position, turn) per step."""
        out = []
        for si, (_, ts, rep) in enumerate(self.segments):
            for turn in range(n if rep else 1):
                out.extend((si, i, turn) for i in range(len(ts)))
        return out

    def slots(self) -> list[tuple[int, int]]:
        return [(si, i) for si, (_, ts, _) in enumerate(self.segments) for i in range(len(ts))]


@dataclass
class Choice:
    """Per slot: indices into DRIFTS, OFFSETS (a0), OFFSETS (δ) and INTERVALS."""
    drift: dict[tuple[int, int], int] = field(default_factory=dict)
    a0: dict[tuple[int, int], int] = field(default_factory=dict)
    delta: dict[tuple[int, int], int] = field(default_factory=dict)
    interval: dict[tuple[int, int], int] = field(default_factory=dict)

    def copy(self) -> "Choice":
        return Choice(dict(self.drift), dict(self.a0), dict(self.delta), dict(self.interval))


def instantiate(m: MultiDiPA, shape: Shape, choice: Choice, n: int) -> tuple[list[Step], list[Step]]:
    alpha, beta = [], []
    for si, i, turn in shape.positions(n):
        slot = (si, i)
        ti = shape.segments[si][1][i]
        t = m.transitions[ti]
        interval = INTERVALS[choice.interval.get(slot, 0)] if t.output.is_real else None
        if m.states[t.source].is_input:
            a = OFFSETS[choice.a0.get(slot, 0)] + DRIFTS[choice.drift.get(slot, 0)] * turn
            b = a + OFFSETS[choice.delta.get(slot, 0)]
        else:
            a = b = None
        alpha.append(Step(ti, a, interval))
        beta.append(Step(ti, b, interval))
    return alpha, beta


def _seeds(m: MultiDiPA, shape: Shape, variable: str | None) -> list[Choice]:
    """Starting points of the search: all zero; the comparisons of the variable
    made unlikely in β (δ = ∓1) or pushed apart (a0 = ±½, δ = ∓1); the
    leaking-cycle family (means drifting with the stored chain, stores and
    comparisons swapped in β)."""
    zero, push, apart, chain = Choice(), Choice(), Choice(), Choice()
    for si, (_, ts, rep) in enumerate(shape.segments):
        for i, ti in enumerate(ts):
            t = m.transitions[ti]
            if not m.states[t.source].is_input:
                continue
            slot = (si, i)
            ops = [lit.op for lit in t.guard if variable is None or lit.var == variable]
            if t.output.kind is OutKind.INSAMPLE:
                push.delta[slot] = apart.delta[slot] = 4               # −1: away from (0, ∞)
            if not ops:
                continue
            up = ops[0] == GE
            push.delta[slot] = 4 if up else 3
            apart.a0[slot], apart.delta[slot] = (1, 4) if up else (2, 3)
            if rep:
                chain.drift[slot] = 1 if up else 2
                chain.a0[slot] = 3 if up else 4
                chain.delta[slot] = 4 if up else 3
                if variable in t.assigns:
                    chain.a0[slot] = 0
                    chain.delta[slot] = 3 if up else 4
    return [zero, push, apart, chain]


def _edge_path(p, sources: set[int], targets: set[int], ok=lambda e: True) -> list[int] | None:
    """Shortest list of P edges from a node of ``sources`` to one of ``targets``."""
    parent = {s: None for s in sources}
    todo = deque(sorted(sources))
    while todo:
        a = todo.popleft()
        if a in targets:
            out = []
            while parent[a] is not None:
                e = parent[a]
                out.append(e)
                a = p.edges[e][0]
            return out[::-1]
        for e in p.out[a]:
            if ok(e):
                b = p.edges[e][2]
                if b not in parent:
                    parent[b] = e
                    todo.append(b)
    return None


def _cycle_through(p, e: int) -> list[int] | None:
    """A cycle of P (edges) that starts with the internal edge e."""
    a, _, b = p.edges[e]
    back = _edge_path(p, {b}, {a}, lambda x: p.internal[x])
    return None if back is None else [e] + back


def _cycle_with(p, edges: list[int]) -> list[int] | None:
    """A cycle of P through all of ``edges`` (internal, in one component), chained."""
    if not edges:
        return None
    cyc = [edges[0]]
    for e in edges[1:]:
        a = p.edges[cyc[-1]][2]
        link = _edge_path(p, {a}, {p.edges[e][0]}, lambda x: p.internal[x])
        if link is None:
            return None
        cyc += link + [e]
    back = _edge_path(p, {p.edges[cyc[-1]][2]}, {p.edges[cyc[0]][0]}, lambda x: p.internal[x])
    return None if back is None else cyc + back


MAX_TRIES = 24                # cycle edges tried per end of a condition's path


def _link(p, start: int, goal: int, ok, free_start: bool) -> list[int] | None:
    """Edges from node ``start`` to node ``goal``: (if ``free_start``) any edges inside
    start's component, then edges with ok(e), then any edges inside goal's component
    -- the paths of the conditions, which start anywhere in a cycle's component and
    reach any node of the other's."""
    c0, c2 = p.comp[start], p.comp[goal]
    first = (start, 0 if free_start else 1)
    parent = {first: None}
    todo = deque([first])
    while todo:
        node, phase = cur = todo.popleft()
        if len(parent) % 1024 == 0:
            limits.checkpoint()
        if node == goal:
            out = []
            while parent[cur] is not None:
                cur, e = parent[cur]
                out.append(e)
            return out[::-1]
        moves = []
        for e in p.out[node]:
            b = p.edges[e][2]
            if phase == 0 and p.internal[e] and p.comp[node] == c0:
                moves.append(((b, 0), e))
            if phase <= 1 and ok(e):
                moves.append(((b, 1), e))
            if p.internal[e] and p.comp[node] == c2:
                moves.append(((b, 2), e))
        for key, e in moves:
            if key not in parent:
                parent[key] = (cur, e)
                todo.append(key)
    return None


def _shapes(m: MultiDiPA, p, violation) -> list[Shape]:
    """Paths of P of the violated condition's form (docs/multivariable.md)."""
    from dslc.dipa.multivar import DISCLOSING_CYCLE, LEAKING_CYCLE, LEAKING_PAIR, VIOLATING_PATH
    ts, st = m.transitions, m.states
    v = violation.variable
    inner = [e for e, yes in enumerate(p.internal) if yes]

    def tr(e):
        return ts[p.edges[e][1]]

    def inp(e):
        return st[tr(e).source].is_input

    def edges_of(path):
        return [p.edges[e][1] for e in path]

    def prefix_to(node):
        return _edge_path(p, {0}, {node})

    def cycle_shape(cyc, after=()):
        pre = prefix_to(p.edges[cyc[0]][0])
        if pre is None:
            return None
        segs = [("prefix", edges_of(pre), False), ("cycle", edges_of(cyc), True)]
        segs += [(name, list(x), rep) for name, x, rep in after]
        return Shape(segs)

    out: list[Shape] = []
    by_comp: dict[int, list[int]] = {}
    for e in inner:
        by_comp.setdefault(p.comp[p.edges[e][0]], []).append(e)
    kind, sub = violation.kind, violation.subkind
    if kind == DISCLOSING_CYCLE:
        for e in inner:
            if inp(e) and tr(e).output.kind is not OutKind.SYMBOL:
                cyc = _cycle_through(p, e)
                if cyc:
                    out.append(cycle_shape(cyc))
                if len(out) >= 3:
                    break
    elif kind == LEAKING_CYCLE:
        for c, es in by_comp.items():
            stores = [e for e in es if v in tr(e).assigns]
            cmps = [e for e in es if inp(e) and v in tr(e).compares()]
            for s in stores[:2]:
                for k in cmps[:2]:
                    cyc = _cycle_with(p, [s, k])
                    if cyc:
                        out.append(cycle_shape(cyc))
    elif kind in (LEAKING_PAIR, VIOLATING_PATH):
        from dslc.ir.multi_dipa import LT, Literal
        ge, lt = Literal(v, GE), Literal(v, LT)
        g_edges = [e for e in inner if inp(e) and ge in tr(e).guard]
        l_edges = [e for e in inner if inp(e) and lt in tr(e).guard]

        def ag(e):
            return v not in tr(e).assigns or ge in tr(e).guard

        def al(e):
            return v not in tr(e).assigns or lt in tr(e).guard

        if kind == LEAKING_PAIR:
            first, second, ok = (l_edges, g_edges, ag) if sub.endswith("AG") else (g_edges, l_edges, al)
            for e1 in first[:MAX_TRIES]:
                c1 = _cycle_through(p, e1)
                for e2 in second[:MAX_TRIES]:
                    c2 = _cycle_through(p, e2) if c1 else None
                    mid = _link(p, p.edges[e1][0], p.edges[e2][0], ok, True) if c2 else None
                    if mid is not None:
                        sh = cycle_shape(c1, [("middle", edges_of(mid), False), ("cycle2", edges_of(c2), True)])
                        if sh:
                            out.append(sh)
                    if len(out) >= 3:
                        break
                if len(out) >= 3:
                    break
        else:
            for e, (a, ti, b) in enumerate(p.edges):
                t = ts[ti]
                if ti not in violation.transitions or t.output.kind is not OutKind.INSAMPLE or len(out) >= 3:
                    continue
                if "/c/" in sub:        # a cycle, a path to the release, the release
                    cyc_edges, ok = (l_edges, ag) if sub.endswith("AG") else (g_edges, al)
                    for e1 in cyc_edges[:MAX_TRIES]:
                        c1 = _cycle_through(p, e1)
                        mid = _link(p, p.edges[e1][0], a, ok, True) if c1 else None
                        if mid is not None:
                            sh = cycle_shape(c1, [("middle", edges_of(mid), False), ("release", [ti], False)])
                            if sh:
                                out.append(sh)
                                break
                else:                   # the release, a path to a cycle
                    cyc_edges, ok = (g_edges, ag) if sub.endswith("AG") else (l_edges, al)
                    pre = prefix_to(a)
                    for e2 in cyc_edges[:MAX_TRIES] if pre is not None else []:
                        c2 = _cycle_through(p, e2)
                        mid = _link(p, b, p.edges[e2][0], ok, False) if c2 else None
                        if mid is not None:
                            out.append(Shape([("prefix", edges_of(pre), False), ("release", [ti], False),
                                              ("middle", edges_of(mid), False),
                                              ("cycle", edges_of(c2), True)]))
                            break
    seen, uniq = set(), []
    for sh in out:
        if sh is None:
            continue
        key = tuple((n, tuple(x), r) for n, x, r in sh.segments)
        if key not in seen:
            seen.add(key)
            uniq.append(sh)
    return uniq[:4]


# =========================================================================== the search
class _Spent(Exception):
    pass


class _Search:
    """Scores candidates by their verified loss; every probability's terms and a
    fixed cost per candidate count against ``work``."""

    def __init__(self, m: MultiDiPA, work: int):
        self.m, self.work, self.meter = m, work, [0]
        self.limit = work                   # the current attempt's share
        self.unsummable = 0                 # candidates whose output event was not summable
        self.merged = merged_pieces(m)

    def score(self, shape: Shape, choice: Choice, n: int, eps: Fraction) -> Loss | None:
        self.meter[0] += 200
        limit = min(self.limit, self.work)
        if self.meter[0] > limit:
            raise _Spent()
        alpha, beta = instantiate(self.m, shape, choice, n)
        try:
            if not summable(self.m, alpha, self.merged):
                self.unsummable += 1        # not an event of outputs: never scored
                return None
            return loss(self.m, alpha, beta, eps, meter=self.meter, rel_tol=1e-6, start_digits=12,
                        budget=max(1, limit - self.meter[0]), event_only=True, merged=self.merged)
        except TooExpensive:
            if self.meter[0] > limit:
                raise _Spent()
            return None
        except (PathError, ArithmeticError):
            return None

    def improve(self, shape: Shape, seeds: list[Choice], objective, passes: int = 2
                ) -> tuple[Choice, Decimal | None]:
        """Coordinate ascent over each slot's drift, a0, δ and interval, from the
        best seed; then pairs of opposite δ.  Stops with the best so far when the
        attempt's share of the work is spent."""
        state = {"best": None, "choice": seeds[0]}
        try:
            self._ascend(shape, seeds, objective, passes, state)
        except _Spent:
            pass
        return state["choice"], state["best"]

    def _ascend(self, shape, seeds, objective, passes, state) -> None:
        def consider(cand) -> bool:
            val = objective(cand)
            if val is not None and (state["best"] is None or val > state["best"]):
                state["best"], state["choice"] = val, cand
                return True
            return False

        for seed in seeds:
            consider(seed)
        slots = shape.slots()
        inputs = [s for s in slots
                  if self.m.states[self.m.transitions[shape.segments[s[0]][1][s[1]]].source].is_input]
        for _ in range(passes):
            changed = False
            for slot in slots:
                si, i = slot
                t = self.m.transitions[shape.segments[si][1][i]]
                options = []
                if slot in inputs:
                    options += [("a0", k) for k in range(len(OFFSETS))]
                    options += [("delta", k) for k in range(len(OFFSETS))]
                    if shape.segments[si][2]:
                        options += [("drift", k) for k in range(len(DRIFTS))]
                if t.output.is_real:
                    options += [("interval", k) for k in range(len(INTERVALS))]
                for where, k in options:
                    if getattr(state["choice"], where).get(slot, 0) == k:
                        continue
                    cand = state["choice"].copy()
                    getattr(cand, where)[slot] = k
                    changed |= consider(cand)
            for x in range(len(inputs)):
                for y in range(x + 1, len(inputs)):
                    for dx, dy in ((3, 4), (4, 3)):
                        cand = state["choice"].copy()
                        cand.delta[inputs[x]], cand.delta[inputs[y]] = dx, dy
                        changed |= consider(cand)
            if not changed:
                break


# =========================================================================== witnesses
WITNESS_WORK = 1_000_000       # counted work per violation (0.1–1.4 s here; docs/multivariable.md)
MAX_LENGTH = 16                # turns of a repeated segment at most
WITNESS_EPSILONS = (Fraction(1), Fraction(4))


NOT_FOUND = "no witness found within the work budget"
NOT_AN_EVENT = ("no witness found: the paths of the condition's form that were tried are not determined "
                "by their outputs, and the probabilities of their output sequences could not be summed "
                "exactly")
SOME_NOT_EVENTS = (" (some longer instances are not determined by their outputs, and the probabilities "
                   "of their output sequences could not be summed exactly)")


@dataclass
class MultiWitness:
    """The evidence for one violated condition."""
    kind: str
    subkind: str
    variable: str | None
    found: bool
    shape: Shape | None = None
    rows: list[tuple[int, float, float]] = field(default_factory=list)   # (n, loss, proven lower end)
    loss: Loss | None = None        # the first verified instance with lower end > 2ε
    length: int | None = None
    reason: str = ""                # when not found: why

    def to_json(self) -> dict:
        out = {"kind": self.kind, "subkind": self.subkind, "variable": self.variable, "found": self.found,
               "rows": [{"n": n, "loss": a, "loss_lower": b} for n, a, b in self.rows]}
        if self.shape is not None:
            out["segments"] = [{"name": n, "transitions": ts, "repeated": r} for n, ts, r in self.shape.segments]
        if self.loss is not None:
            out["n"] = self.length
            out.update(self.loss.to_json())
        if not self.found:
            out["reason"] = self.reason
        return out


def witness(m: MultiDiPA, violation, work: int = WITNESS_WORK) -> MultiWitness:
    """A witness for one violation of ``check_multi(m)`` (module docstring).

    Returns ``found=False`` with a reason when no instance with a proven loss
    above 2ε turns up within ``work`` — never an unverified claim."""
    from dslc.dipa.multivar import build_product
    out = MultiWitness(violation.kind, violation.subkind, violation.variable, False)
    try:
        p = build_product(m)
    except Exception as exc:            # noqa: BLE001 - the checker refused it already
        out.reason = f"the order product could not be built ({type(exc).__name__})"
        return out
    shapes = _shapes(m, p, violation)
    if not shapes:
        out.reason = "no path of the condition's form was found in the order product"
        return out
    search = _Search(m, work)
    attempts = [(shape, eps) for shape in shapes for eps in WITNESS_EPSILONS]
    best: list = [None]                    # (shape, rows) with the highest last lower end
    chosen: dict[int, Choice] = {}         # per shape: the inputs chosen at the previous ε
    later: list[tuple[float, int, Shape, Fraction, Choice, list[Loss]]] = []
    spent_choosing = 0
    # 1. per attempt (shape, ε): inputs that make the loss grow from one turn to
    #    three (a third of the work in all); the rows at once when the growth,
    #    continued, passes 2ε within FAST_TURNS turns, else later
    for index, (shape, eps) in enumerate(attempts):
        left = work // 3 - spent_choosing
        if left <= 0 or search.meter[0] >= work:
            break
        before = search.meter[0]
        search.limit = before + left // (len(attempts) - index)
        seen: dict[tuple, tuple[Loss, Loss]] = {}

        def growth(c, shape=shape, eps=eps, seen=seen):
            a = search.score(shape, c, 1, eps)
            b = search.score(shape, c, 3, eps) if a is not None else None
            if a is None or b is None:
                return None
            seen[_key(c)] = (a, b)
            return b.lower - a.lower + b.lower / 8

        seeds = _seeds(m, shape, violation.variable) + ([chosen[id(shape)]] if id(shape) in chosen else [])
        choice, g = search.improve(shape, seeds, growth)
        spent_choosing += search.meter[0] - before
        if g is None or g <= 0 or _key(choice) not in seen:
            continue
        chosen[id(shape)] = choice
        r1, r3 = seen[_key(choice)]
        turns = _turns(r1, r3, eps)
        if turns <= FAST_TURNS:
            search.limit = search.meter[0] + (work - search.meter[0]) // (len(attempts) - index)
            if _rows(m, search, shape, eps, choice, [r1, r3], out, best):
                return out
        elif turns < math.inf:
            later.append((turns, index, shape, eps, choice, [r1, r3]))
    # 2. the others, the one that needs the fewest turns (extrapolated) first,
    #    with half of what is left (the last one: all of it)
    later.sort(key=lambda x: x[:2])
    for index, (turns, _, shape, eps, choice, done) in enumerate(later):
        left = work - search.meter[0]
        if left <= 0:
            break
        search.limit = search.meter[0] + (left if index == len(later) - 1 else left // 2)
        if _rows(m, search, shape, eps, choice, done, out, best):
            return out
    if best[0] is not None:
        out.shape, out.rows = best[0]
    out.reason = NOT_FOUND
    if search.unsummable:
        out.reason = NOT_AN_EVENT if best[0] is None else NOT_FOUND + SOME_NOT_EVENTS
    return out


FAST_TURNS = 6                 # rows computed at once when the growth reaches 2ε within these turns


def _turns(r1: Loss, r3: Loss, eps: Fraction) -> float:
    """The turns after which the lower end, growing as from n = 1 to 3, passes 2ε."""
    if r1.lower > 2 * _dec(eps):
        return 1
    slope = (float(r3.lower) - float(r1.lower)) / 2
    return 1 + (2 * float(eps) - float(r1.lower)) / slope if slope > 0 else math.inf


def _rows(m: MultiDiPA, search: "_Search", shape: Shape, eps: Fraction, choice: Choice, done: list[Loss],
          out: MultiWitness, best: list) -> bool:
    """n = 1, 3 (``done``), then :func:`_next_length` until a confirmed witness
    (filled into ``out``: True), the growth stops, or the attempt's work is spent."""
    rows: list[tuple[int, float, float]] = []
    todo = [1, 3]
    try:
        while todo:
            n = todo.pop(0)
            r = done.pop(0) if done else search.score(shape, choice, n, eps)
            if r is None:
                break
            rows.append((n, float(r.value), float(r.lower)))
            if r.lower > 2 * _dec(eps):
                found = _confirm(m, r, eps)
                if found is not None:
                    out.found, out.shape, out.rows, out.loss, out.length = True, shape, rows, found, n
                    return True
                break
            if not todo:
                nxt = _next_length(rows, 2 * float(eps))
                todo = [] if nxt is None else [nxt]
    except _Spent:
        pass
    if rows and (best[0] is None or rows[-1][2] > best[0][1][-1][2]):
        best[0] = (shape, rows)
    return False


def _key(c: Choice) -> tuple:
    return tuple(tuple(sorted(d.items())) for d in (c.drift, c.a0, c.delta, c.interval))


def _confirm(m: MultiDiPA, r: Loss, eps: Fraction) -> Loss | None:
    """``r`` when it is a witness: adjacent inputs on one path from the initial
    state (check_adjacent), the loss of an output event, a proven lower end > 2ε.
    Its numbers are kept: recomputing them at a higher precision costs as much
    again (the work is in the terms, not the digits), and the proven lower end
    already accounts for the error (tests replay every witness with verify)."""
    try:
        check_adjacent(m, r.alpha, r.beta, Fraction(1))
    except WitnessError:
        return None
    if r.observable and r.lower > 2 * _dec(eps):
        return r
    return None


def _next_length(rows: list[tuple[int, float, float]], goal: float) -> int | None:
    """The next number of turns to compute: 2 after 1, then where the growth of
    the last two rows' lower ends, continued linearly, passes ``goal`` (at least
    one more turn, at most MAX_LENGTH) -- the order sums of the turns skipped
    are the expensive part.  None: the lower end stopped growing, or MAX_LENGTH
    is reached."""
    n, _, low = rows[-1]
    if n >= MAX_LENGTH:
        return None
    if len(rows) == 1:
        return n + 1
    n0, _, low0 = rows[-2]
    slope = (low - low0) / (n - n0)
    if slope <= 0:
        return None
    need = math.ceil((goal - low) / slope) if goal > low else 1
    return min(MAX_LENGTH, n + max(1, need))


def witnesses(m: MultiDiPA, result, work: int = WITNESS_WORK) -> list[MultiWitness]:
    """One :class:`MultiWitness` per violation of a "not private" result."""
    from dslc.dipa.multivar import NOT_PRIVATE
    if result.verdict != NOT_PRIVATE:
        return []
    return [witness(m, v, work) for v in result.violations]


def _dec(x: Fraction) -> Decimal:
    with decimal.localcontext(decimal.Context(prec=60)):
        return Decimal(x.numerator) / Decimal(x.denominator)


# =========================================================================== lower bounds
LOWER_WORK = 100_000
LOWER_PATHS = 12                # candidate paths of P scored
LOWER_MAX_STEPS = 6            # steps from the first that reads input
LOWER_MAX_PREFIX = 400         # steps before it
LOWER_MAX_POPS = 20_000        # partial paths the breadth-first enumeration visits
LOWER_EPSILONS = (Fraction(1), Fraction(4))
SIGNIFICANT = 3


@dataclass
class MultiLowerBound:
    d_lower: Fraction               # rounded down; 0 when nothing better was verified
    loss: Loss | None = None        # the verified witness of d_lower (None: d_lower = 0)
    work: int = 0
    reason: str = ""

    def to_json(self) -> dict:
        out = {"d_lower": str(self.d_lower), "work": self.work}
        if self.loss is not None:
            out.update(self.loss.to_json())
        if self.reason:
            out["reason"] = self.reason
        return out


def _round_down(x: Decimal) -> Fraction:
    if x <= 0:
        return Fraction(0)
    q = Decimal(1).scaleb(x.adjusted() - SIGNIFICANT + 1)
    return Fraction(x.quantize(q, rounding=decimal.ROUND_FLOOR))


def _candidate_paths(m: MultiDiPA, p) -> list[list[int]]:
    """Paths of P from its start (transition lists) that read input, breadth first:
    maximal among those of at most 6 steps or, if none reads input, at most 6
    steps past the first step that reads input (automata that start with many
    non-input steps); those reading the most input first, at most LOWER_PATHS."""
    def reads(ti):
        return m.states[m.transitions[ti].source].is_input

    def paths(steps: int, counted_from_start: bool = False) -> list[list[int]]:
        out: list[list[int]] = []
        todo = deque([(0, [], None)])
        pops = 0
        while todo and len(out) < 4 * LOWER_PATHS and pops < LOWER_MAX_POPS:
            node, path, first = todo.popleft()
            pops += 1
            if len(path) > LOWER_MAX_PREFIX + steps:
                continue
            start = 0 if counted_from_start else first
            ext = p.out[node] if start is None or len(path) < start + steps else []
            if not ext and first is not None:
                out.append(path)
            for e in ext:
                ti = p.edges[e][1]
                todo.append((p.edges[e][2], path + [ti],
                             first if first is not None else (len(path) if reads(ti) else None)))
        out.sort(key=lambda x: -sum(1 for t in x if reads(t)))
        return out

    merged = paths(LOWER_MAX_STEPS, counted_from_start=True)
    if not merged:
        merged = paths(LOWER_MAX_STEPS)
    return merged[:LOWER_PATHS]


def lower_bound(m: MultiDiPA, result, work: int = LOWER_WORK) -> MultiLowerBound:
    """d_lower ≤ d* ≤ d for a "private" result of ``check_multi(m)``: the best
    loss/ε verified on short paths of P, rounded down to 3 significant digits."""
    from dslc.dipa.multivar import PRIVATE, build_product
    if result.verdict != PRIVATE:
        return MultiLowerBound(Fraction(0), reason="not a private result")
    if not result.d:
        return MultiLowerBound(Fraction(0), reason="d = 0")
    try:
        p = build_product(m)
    except Exception as exc:            # noqa: BLE001
        return MultiLowerBound(Fraction(0), reason=f"the order product could not be built ({type(exc).__name__})")
    search = _Search(m, work)
    best: tuple[Decimal, Shape, Choice, Fraction] | None = None
    try:
        for path in _candidate_paths(m, p):
            shape = Shape([("path", path, False)])
            for eps in LOWER_EPSILONS:
                def per_eps(c, shape=shape, eps=eps):
                    r = search.score(shape, c, 1, eps)
                    return None if r is None else r.lower / _dec(eps)
                choice, val = search.improve(shape, _seeds(m, shape, None), per_eps, passes=1)
                if val is not None and (best is None or val > best[0]):
                    best = (val, shape, choice, eps)
    except _Spent:
        pass
    if best is None or best[0] <= 0:
        return MultiLowerBound(Fraction(0), work=search.meter[0], reason="no positive loss verified")
    _, shape, choice, eps = best
    alpha, beta = instantiate(m, shape, choice, 1)
    final = verify(m, alpha, beta, eps)
    if final is None or not final.observable or final.lower <= 0:
        return MultiLowerBound(Fraction(0), work=search.meter[0], reason="no positive loss verified")
    with decimal.localcontext(decimal.Context(prec=60, rounding=decimal.ROUND_FLOOR)):
        d_low = _round_down(final.lower / _dec(eps))
    return MultiLowerBound(d_low, final, search.meter[0])


__all__ = ["Loss", "MultiLowerBound", "MultiWitness", "PathError", "Step", "TooExpensive",
           "WitnessError", "NOT_AN_EVENT", "NOT_FOUND", "check_adjacent", "loss", "lower_bound", "observable",
           "merged_pieces", "path_probability", "summable", "verify",
           "witness", "witnesses"]
