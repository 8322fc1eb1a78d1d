"""The bounded check of a discrete mechanism (docs/discrete.md).

The program of :mod:`dslc.ir.lower_mechanism_bounded` is a finite Markov
decision process: a hidden state is a program location with the store, an
action is the value the next `read()` returns (chosen by the adversary), an
observation is what the program outputs until the next read.  Probabilities
are exact rational functions of s = e^(−ε/L) (:mod:`dslc.bounded.ratfunc`).

:func:`check` enumerates every pair of adjacent input sequences of length k
(the horizon) and every output sequence, computes Pr_α(o) and Pr_β(o)
exactly, and finds the least d (a multiple of 1/L) such that
Pr_α(o) ≤ e^(dε)·Pr_β(o) for every ε > 0, each inequality decided exactly
on s ∈ (0, 1) (Sturm's theorem).  Exhaustive enumeration of a finite model
is the whole proof; the time budget turns an enumeration too large into
"unknown".
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor

from flint import fmpq_poly

from dslc import limits
from dslc.bounded.ratfunc import RatFunc, nonneg_on_unit
from dslc.ir.lower_mechanism_bounded import DiscreteProgram, eps_multiple
from dslc.source import Span
from dslc.syntax import ast

HALTED = -1
MAX_SEGMENT_STEPS = 10_000
ONE = RatFunc.const(1)
ZERO = RatFunc.const(0)


class ProgramFault(Exception):
    """A run of the program does something the finite model cannot hold."""

    def __init__(self, code: str, message: str, span: Span, label: str, help_: str):
        super().__init__(message)
        self.code, self.message, self.span, self.label, self.help = code, message, span, label, help_


Config = tuple          # (pc, store values) or (HALTED,)


# ------------------------------------------------------------------ one run
class Machine:
    """Runs the program exactly: a segment is what happens from one read to the next."""

    def __init__(self, program: DiscreteProgram):
        self.p = program
        self.index = {v: i for i, v in enumerate(program.variables)}
        self.segments: dict[tuple[Config, int | None], list[tuple[tuple, Config, RatFunc]]] = {}
        self._dlap: dict[tuple, list] = {}
        self._probs: dict[int, RatFunc] = {}
        self.live = _live_variables(program, self.index)

    def waiting(self, pc: int, store: tuple) -> Config:
        """The configuration waiting at the read of ``pc``, with the variables
        that are dead there forgotten (they cannot change what follows)."""
        live = self.live[pc]
        return (pc, tuple(v if i in live else None for i, v in enumerate(store)))

    def start(self) -> list[tuple[tuple, Config, RatFunc]]:
        return self.segment((0, (None,) * len(self.p.variables)), None)

    def segment(self, config: Config, value: int | None) -> list[tuple[tuple, Config, RatFunc]]:
        """From a configuration waiting at a read (or the start), with the read's
        value: the distribution of (outputs, next configuration)."""
        key = (config, value)
        found = self.segments.get(key)
        if found is not None:
            return found
        if config[0] == HALTED:
            out = [((), config, ONE)]
            self.segments[key] = out
            return out
        acc: dict[tuple, RatFunc] = {}
        work = [(config[0], config[1], (), ONE, value, 0)]
        while work:
            limits.checkpoint()
            pc, store, outs, prob, pending, steps = work.pop()
            if steps > MAX_SEGMENT_STEPS:
                ins = self.p.code[pc]
                raise ProgramFault("E157", "the program runs too long without reading an input", ins.span,
                                   "still running here", "make every loop read an input on each iteration")
            ins = self.p.code[pc]
            if ins.reads and pending is None:
                k = (outs, self.waiting(pc, store))
                acc[k] = acc[k] + prob if k in acc else prob
                continue
            inp = pending if ins.reads else None
            rest = None if ins.reads else pending
            if ins.op == "halt":
                k = (outs, (HALTED,))
                acc[k] = acc[k] + prob if k in acc else prob
            elif ins.op == "jump":
                work.append((ins.jump, store, outs, prob, rest, steps + 1))
            elif ins.op == "assign":
                for v, q in self.value(ins.expr, store, inp):
                    st = list(store)
                    st[self.index[ins.target]] = v
                    work.append((pc + 1, tuple(st), outs, prob * q if q is not ONE else prob, rest, steps + 1))
            elif ins.op == "output":
                for v, q in self.value(ins.expr, store, inp):
                    work.append((pc + 1, store, outs + (v,), prob * q if q is not ONE else prob, rest, steps + 1))
            elif ins.op == "branch":
                for truth, q in self.truth(ins.expr, store, inp):
                    nxt = pc + 1 if truth else ins.jump
                    work.append((nxt, store, outs, prob * q if q is not ONE else prob, rest, steps + 1))
        out = [(o, c, p) for (o, c), p in acc.items() if not p.is_zero]
        self.segments[key] = out
        return out

    # ---- expressions: a list of (value, probability)
    def value(self, e, store, inp) -> list[tuple[object, RatFunc]]:
        if isinstance(e, ast.Num):
            return [(_int(e.value), ONE)]
        if isinstance(e, ast.Symbol):
            return [(e.name, ONE)]
        if isinstance(e, ast.Read):
            return [(inp, ONE)]
        if isinstance(e, ast.Name):
            if e.name in self.p.constants:
                return [(_int(self.p.constants[e.name]), ONE)]
            v = store[self.index[e.name]]
            if v is None:
                raise ProgramFault("E154", f"`{e.name}` is read before it is assigned on some run", e.span,
                                   "not assigned on this path", f"assign `{e.name}` before every use")
            return [(v, ONE)]
        if isinstance(e, ast.Neg):
            return [(-v, q) for v, q in self.value(e.operand, store, inp)]
        if isinstance(e, ast.BinOp):
            out: dict[object, RatFunc] = {}
            for (a, p), (b, q) in itertools.product(self.value(e.left, store, inp), self.value(e.right, store, inp)):
                if isinstance(a, str) or isinstance(b, str):
                    raise ProgramFault("E152", "arithmetic on an output symbol", e.span, "a symbol here",
                                       "symbols such as ⊤ can only be output")
                if e.op == "/" and b == 0:
                    raise ProgramFault("E008", "division by zero on some run", e.span, "divides by zero",
                                       "make sure the divisor is never zero")
                v = _int({"+": a + b, "-": a - b, "*": a * b, "/": Fraction(a) / b if e.op == "/" else None}[e.op])
                pq = p * q if not (p is ONE and q is ONE) else ONE
                out[v] = out[v] + pq if v in out else pq
            return list(out.items())
        if isinstance(e, ast.Flip):
            p = self.flip_prob(e)
            return [(1, p), (0, ONE - p)]
        if isinstance(e, ast.Clamp):
            lo, hi = self.int_value(e.lo, store, inp), self.int_value(e.hi, store, inp)
            if lo > hi:
                raise ProgramFault("E158", f"`clamp` with lower end {lo} above upper end {hi}", e.span,
                                   "empty range", "make the first bound at most the second")
            if isinstance(e.value, ast.DLap):
                mu = self.int_value(e.value.mean, store, inp)
                return self.clamped_dlap(e.value, mu, lo, hi)
            out = {}
            for v, q in self.value(e.value, store, inp):
                w = min(max(v, lo), hi)
                out[w] = out[w] + q if w in out else q
            return list(out.items())
        raise ProgramFault("E152", "this expression cannot be evaluated by the bounded checker", e.span,
                           "here", "use numbers, variables, read(), DLap, flip and clamp")

    def int_value(self, e, store, inp) -> int:
        vals = self.value(e, store, inp)
        if len(vals) != 1 or isinstance(vals[0][0], str) or Fraction(vals[0][0]).denominator != 1:
            raise ProgramFault("E158", "this must be a fixed integer on every run", e.span,
                               "random or not an integer", "DLap means and clamp bounds are integers")
        return int(vals[0][0])

    def a(self, rate_expr) -> int:
        """The exponent of s for e^(−rate): rate·L (an integer by the choice of L)."""
        return int(eps_multiple(rate_expr, self.p.constants) * self.p.L)

    def clamped_dlap(self, d: ast.DLap, mu: int, lo: int, hi: int) -> list[tuple[object, RatFunc]]:
        key = (id(d), mu, lo, hi)
        found = self._dlap.get(key)
        if found is not None:
            return found
        r = self.a(d.rate)
        out = []
        for k in range(lo, hi + 1):
            if lo == hi:
                p = ONE
            elif k == lo:
                p = ONE - tail_ge(r, lo + 1 - mu)
            elif k == hi:
                p = tail_ge(r, hi - mu)
            else:
                p = point(r, k - mu)
            if not p.is_zero:
                out.append((k, p))
        self._dlap[key] = out
        return out

    def flip_prob(self, e: ast.Flip) -> RatFunc:
        found = self._probs.get(id(e))
        if found is None:
            found = self.prob_expr(e.prob)
            for q in (found, ONE - found):
                if not nonneg_on_unit(q.num * q.den)[0]:
                    raise ProgramFault("E153", f"the coin `{e.span.text}` has no probability in [0, 1] for some ε > 0",
                                       e.span, "below 0 or above 1 for some ε",
                                       "a coin's probability must lie in [0, 1] for every ε, "
                                       "e.g. `e^ε / (1 + e^ε)`")
            self._probs[id(e)] = found
        return found

    def prob_expr(self, e) -> RatFunc:
        if isinstance(e, ast.Num):
            return RatFunc.const(e.value)
        if isinstance(e, ast.Name):
            return RatFunc.const(self.p.constants[e.name])
        if isinstance(e, ast.Neg):
            return -self.prob_expr(e.operand)
        if isinstance(e, ast.ExpOf):
            return RatFunc.power(-self.a(e.exponent))
        if isinstance(e, ast.BinOp):
            a, b = self.prob_expr(e.left), self.prob_expr(e.right)
            if e.op == "/" and b.is_zero:
                raise ProgramFault("E008", "division by zero", e.span, "divides by zero", "fix the probability")
            return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[e.op]()
        raise ProgramFault("E153", "a coin's probability must be an expression in e^ε", e.span, "here",
                           "use numbers, parameters and `e^ε`")

    def truth(self, cond, store, inp) -> list[tuple[bool, RatFunc]]:
        if isinstance(cond, ast.CondTruth):
            return [(v != 0, q) for v, q in self.value(cond.value, store, inp)]
        left, right, op = cond.left, cond.right, cond.op
        if isinstance(right, ast.DLap):       # x op DLap  ⇔  DLap op' x
            left, right = right, left
            op = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}[op]
        out: dict[bool, RatFunc] = {}
        if isinstance(left, ast.DLap):
            mu = self.int_value(left.mean, store, inp)
            r = self.a(left.rate)
            for x, q in self.value(right, store, inp):
                # μ + Z op x with Z integer: Z >= n or Z <= n
                if op in (">=", ">"):
                    n = ceil(x - mu) if op == ">=" else floor(x - mu) + 1
                    p = tail_ge(r, n)
                else:
                    n = floor(x - mu) if op == "<=" else ceil(x - mu) - 1
                    p = ONE - tail_ge(r, n + 1)
                for truth, pq in ((True, p * q), (False, (ONE - p) * q)):
                    if not pq.is_zero:
                        out[truth] = out[truth] + pq if truth in out else pq
            return list(out.items())
        for (a, p), (b, q) in itertools.product(self.value(left, store, inp), self.value(right, store, inp)):
            if isinstance(a, str) or isinstance(b, str):
                raise ProgramFault("E152", "a comparison with an output symbol", cond.span, "a symbol here",
                                   "symbols such as ⊤ can only be output")
            t = {">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]
            pq = p * q
            out[t] = out[t] + pq if t in out else pq
        return list(out.items())


def _live_variables(program: DiscreteProgram, index: dict[str, int]) -> list[set[int]]:
    """Live-in variables of every instruction (backward data flow to a fixed point)."""
    from dslc.ir.lower_mechanism_bounded import walk
    code = program.code
    uses = [{index[n.name] for n in walk(ins.expr) if isinstance(n, ast.Name) and n.name in index}
            if ins.expr is not None else set() for ins in code]
    defs = [{index[ins.target]} if ins.op == "assign" else set() for ins in code]
    succ = []
    for pc, ins in enumerate(code):
        if ins.op == "halt":
            succ.append([])
        elif ins.op == "jump":
            succ.append([ins.jump])
        elif ins.op == "branch":
            succ.append([pc + 1, ins.jump])
        else:
            succ.append([pc + 1])
    live: list[set[int]] = [set() for _ in code]
    changed = True
    while changed:
        changed = False
        for pc in range(len(code) - 1, -1, -1):
            out: set[int] = set()
            for nx in succ[pc]:
                out |= live[nx]
            new = uses[pc] | (out - defs[pc])
            if new != live[pc]:
                live[pc], changed = new, True
    return live


def _int(v):
    """Integral values as Python ints (hashed fast), others as Fractions."""
    if isinstance(v, Fraction) and v.denominator == 1:
        return int(v.numerator)
    return v


def point(r: int, j: int) -> RatFunc:
    """P(Z = j) for the two-sided geometric Z with a = s^r: (1−a)/(1+a)·a^|j|."""
    a = RatFunc(fmpq_poly([0] * r + [1]))
    return (ONE - a) / (ONE + a) * RatFunc.power(r * abs(j))


def tail_ge(r: int, n: int) -> RatFunc:
    """P(Z ≥ n): a^n/(1+a) for n ≥ 1, 1 − a^(1−n)/(1+a) for n ≤ 0."""
    a = RatFunc(fmpq_poly([0] * r + [1]))
    if n >= 1:
        return RatFunc.power(r * n) / (ONE + a)
    return ONE - RatFunc.power(r * (1 - n)) / (ONE + a)


# ------------------------------------------------------------------ the check
@dataclass
class Witness:
    alpha: tuple[int, ...]
    beta: tuple[int, ...]
    outputs: tuple
    pr_alpha: RatFunc
    pr_beta: RatFunc
    epsilon_base: Fraction | None = None     # e^(ε/L) where the ratio exceeds the bound (exact point)
    kind: str = "bound"                       # "support" | "small-eps" | "bound" | "lower"


@dataclass
class DiscreteAnalysis:
    program: DiscreteProgram
    horizon: int
    status: str                     # private | not-private | unknown
    d: Fraction | None = None       # least d proven (a multiple of 1/L)
    d_lower: Fraction | None = None
    d_lower_strict: bool = False    # d* > d_lower (else d* ≥ d_lower)
    witness: Witness | None = None  # the pair behind d_lower, or the violation
    lower_witness: Witness | None = None
    pairs: int = 0                  # pairs of adjacent input sequences
    comparisons: int = 0            # distinct (Pr_α, Pr_β) pairs decided
    states: int = 0                 # configurations of the finite model
    halts_within: bool = False      # every run halts within the horizon
    fault: ProgramFault | None = None
    horizon_effective: int | None = None   # reads after which every run has halted (≤ horizon)
    stateless: bool = False                # checked by independence (STATELESS)
    reason: str = ""
    seconds: float = 0.0
    cases: list = None                     # the distinct (Pr_α(o), Pr_β(o)) pairs, as Witnesses
    at_epsilon: tuple | None = None        # (ε, lower, upper): the enclosure of the least d at that ε


def output_distributions(machine: Machine, inputs: tuple[int, ...], halted: list | None = None) -> dict[tuple, RatFunc]:
    """Pr(outputs | inputs) for one input sequence (the run stops at the next read).
    ``halted`` (a one-element list) is cleared when some run is still going."""
    dist: dict[tuple, RatFunc] = {}
    layer = [(o, c, p) for o, c, p in machine.start()]
    for v in inputs:
        nxt: dict[tuple, RatFunc] = {}
        for o, c, p in layer:
            for o2, c2, q in machine.segment(c, v):
                k = (o + o2, c2)
                pq = p * q
                nxt[k] = nxt[k] + pq if k in nxt else pq
        layer = [(o, c, p) for (o, c), p in nxt.items()]
    for o, c, p in layer:
        if halted is not None and c[0] != HALTED:
            halted[0] = False
        dist[o] = dist[o] + p if o in dist else p
    return dist


def _advance(machine: Machine, layer: list, v: int) -> list:
    nxt: dict[tuple, RatFunc] = {}
    for o, c, p in layer:
        for o2, c2, q in machine.segment(c, v):
            key = (o + o2, c2)
            pq = p * q if q is not ONE else p
            nxt[key] = nxt[key] + pq if key in nxt else pq
    return [(o, c, p) for (o, c), p in nxt.items()]


def adjacent_sequences(program: DiscreteProgram, alpha: tuple[int, ...]):
    dom = program.domain
    if program.adjacent is None:
        for i, a in enumerate(alpha):
            for b in dom:
                if b != a:
                    yield alpha[:i] + (b,) + alpha[i + 1:]
        return
    choices = [[b for b in dom if abs(b - a) <= program.adjacent] for a in alpha]
    for beta in itertools.product(*choices):
        if beta != alpha:
            yield beta


def check(program: DiscreteProgram, horizon: int | None = None) -> DiscreteAnalysis:
    k = horizon or program.horizon
    out = DiscreteAnalysis(program, k, "unknown")
    machine = Machine(program)
    try:
        if k > 1 and _stateless(program, machine):
            _check_stateless(program, machine, k, out)
        else:
            _check(program, machine, k, out)
    except ProgramFault as fault:
        out.status, out.fault = "error", fault
    out.states = len({c for (c, _v) in machine.segments})
    return out


def _stateless(program: DiscreteProgram, machine: Machine) -> bool:
    """One configuration waits at every read (dead variables forgotten), every
    step returns to it, and no run halts: the reads are answered independently."""
    start = machine.start()
    if len(start) != 1 or start[0][0] != ():      # a start that outputs or draws: not a product
        return False
    c = start[0][1]
    if c[0] == HALTED:
        return False
    return all(c2 == c for v in program.domain for _o, c2, _q in machine.segment(c, v))


STATELESS = ("one configuration waits at every read and every step returns to it, so the outputs of "
             "different reads are independent: Pr[o | α] is a product over the reads, and the "
             "check of one read gives d for k reads (d_k = d_1 for `adjacent any`, d_k = k·d_1 for "
             "`adjacent Δ`, where every read may differ)")


def _check_stateless(program: DiscreteProgram, machine: Machine, k: int, out: DiscreteAnalysis) -> None:
    """The horizon-1 check, lifted to k reads by independence (see STATELESS)."""
    _check(program, machine, 1, out, use_budget=program.adjacent is None)
    out.horizon, out.horizon_effective, out.stateless = k, k, True
    factor = 1 if program.adjacent is None else k
    if out.d is not None:
        out.d *= factor
    if out.d_lower is not None:
        out.d_lower *= factor
    for name in ("witness", "lower_witness"):
        w = getattr(out, name)
        if w is not None:
            setattr(out, name, _repeat(w, k, program.adjacent is None))
    budget = program.budget
    if program.adjacent is not None and out.status == "private" and budget is not None and out.d > budget:
        # every read may differ: the pair at every read, against the budget of k reads
        w = out.lower_witness
        ok, s0 = _holds(w, int(budget * program.L))
        if ok:
            out.status = "unknown"
            out.reason = (f"d ≤ {out.d} is above the budget, and the repeated pair stays within it")
        else:
            s0 = _nice_point(w, int(budget * program.L)) or s0
            out.status = "not-private"
            out.witness = Witness(w.alpha, w.beta, w.outputs, w.pr_alpha, w.pr_beta, 1 / s0, "bound")
            out.reason = "the ratio exceeds the budget's bound"


def _repeat(w: Witness, k: int, one_differs: bool) -> Witness:
    """A one-read witness as k reads: the pair at every read (adjacent Δ), or at
    the first read with α's value at the others (adjacent any)."""
    a, b, o = w.alpha[0], w.beta[0], w.outputs
    if one_differs:
        pa = pb_rest = w.pr_alpha
        pr_a, pr_b = w.pr_alpha, w.pr_beta
        for _ in range(k - 1):
            pr_a, pr_b = pr_a * pa, pr_b * pb_rest
        return Witness((a,) * k, (b,) + (a,) * (k - 1), o * k, pr_a, pr_b, w.epsilon_base, w.kind)
    pr_a, pr_b = w.pr_alpha, w.pr_beta
    for _ in range(k - 1):
        pr_a, pr_b = pr_a * w.pr_alpha, pr_b * w.pr_beta
    return Witness((a,) * k, (b,) * k, o * k, pr_a, pr_b, w.epsilon_base, w.kind)


def _check(program: DiscreteProgram, machine: Machine, k: int, out: DiscreteAnalysis,
           use_budget: bool = True) -> None:
    L = program.L
    dists: dict[tuple, dict] = {}
    intern: dict[tuple, int] = {}          # output sequence → a small id (hashed once)
    ids: dict[tuple, int] = {ZERO.key(): 0}   # probability → a small id
    halted = [True]
    # reads after every run has halted change nothing: check only up to that depth
    configs = {c for _o, c, _p in machine.start()}
    for depth in range(k + 1):
        live = {c for c in configs if c[0] != HALTED}
        if not live:
            if depth < k:
                k = depth
            break
        if depth == k:
            break
        configs = {c2 for c in live for v in program.domain for _o, c2, _q in machine.segment(c, v)}
        limits.checkpoint()
    out.horizon_effective = k
    # depth-first over input sequences: each prefix's layer is computed once
    start = [(o, c, p) for o, c, p in machine.start()]
    stack = [((), start)]
    while stack:
        limits.checkpoint()
        prefix, layer = stack.pop()
        if len(prefix) == k:
            dist: dict[tuple, RatFunc] = {}
            for o, c, p in layer:
                if c[0] != HALTED:
                    halted[0] = False
                dist[o] = dist[o] + p if o in dist else p
            dists[prefix] = {intern.setdefault(o, len(intern)): (ids.setdefault(p.key(), len(ids)), p)
                             for o, p in dist.items()}
            continue
        for v in reversed(program.domain):
            stack.append((prefix + (v,), _advance(machine, layer, v)))
    out.halts_within = halted[0]
    # every distinct (Pr_α(o), Pr_β(o)) with the first pair that shows it
    cases: dict[tuple, Witness] = {}
    zero = (0, ZERO)
    for alpha, da in dists.items():
        for beta in adjacent_sequences(program, alpha):
            limits.checkpoint()
            out.pairs += 1
            db = dists[beta]
            for o, (ka, pa) in da.items():
                kb, pb = db.get(o, zero)
                key = (ka, kb)
                if key not in cases:
                    cases[key] = Witness(alpha, beta, o, pa, pb)
    out.comparisons = len(cases)
    out.cases = list(cases.values())
    names = {i: o for o, i in intern.items()}
    for w in cases.values():
        w.outputs = names[w.outputs]
    # an output possible under α only: no d at all
    for w in cases.values():
        if w.pr_beta.is_zero:
            w.kind = "support"
            out.status, out.witness = "not-private", w
            out.reason = "an output sequence is possible under one input sequence and impossible under the other"
            return
    # as ε → 0 (s → 1) every bound e^(dε) tends to 1
    for w in cases.values():
        a1, b1 = w.pr_alpha.at(Fraction(1)), w.pr_beta.at(Fraction(1))
        if a1 is not None and b1 is not None and a1 > b1:
            w.kind = "small-eps"
            out.status, out.witness = "not-private", w
            out.reason = "the two probabilities stay apart as ε tends to 0, so no e^(dε) bounds their ratio"
            return
    # the least m (d = m/L) with s^m·Pr_α ≤ Pr_β on (0, 1), pair by pair
    asym = {key: w.pr_beta.valuation() - w.pr_alpha.valuation() for key, w in cases.items()}
    m = max(0, max(asym.values(), default=0))
    lower_key = max(asym, key=asym.get) if asym else None
    strict_witness = None
    for key, w in sorted(cases.items(), key=lambda kv: -asym[kv[0]]):
        limits.checkpoint()
        ok, s0 = _holds(w, m)
        if ok:
            continue
        # double, then bisect, the exponent for this pair
        lo_m, hi_m = m, max(m * 2, m + 1)
        while not _holds(w, hi_m)[0]:
            limits.checkpoint()
            lo_m, hi_m = hi_m, hi_m * 2
            if hi_m > 4096 * L:
                out.status, out.witness = "unknown", w
                out.reason = f"no d up to {4096} bounds this pair's ratio"
                return
        while hi_m - lo_m > 1:
            mid = (lo_m + hi_m) // 2
            if _holds(w, mid)[0]:
                hi_m = mid
            else:
                lo_m = mid
        m = hi_m
        s0 = _nice_point(w, m - 1) or _holds(w, m - 1)[1]
        strict_witness = Witness(w.alpha, w.beta, w.outputs, w.pr_alpha, w.pr_beta, 1 / s0, "lower")
    out.d = Fraction(m, L)
    lw = cases[lower_key] if lower_key is not None else None
    if lw is not None and asym[lower_key] == m:
        out.d_lower, out.lower_witness = Fraction(m, L), lw
        lw.kind = "lower"
    elif strict_witness is not None:
        out.d_lower, out.d_lower_strict, out.lower_witness = Fraction(m - 1, L), True, strict_witness
    elif lw is not None:
        out.d_lower, out.lower_witness = Fraction(max(0, asym[lower_key]), L), lw
    out.status = "private"
    if use_budget and program.budget is not None and out.d > program.budget:
        bm = int(program.budget * L)
        for w in sorted(cases.values(), key=lambda w: -(w.pr_beta.valuation() - w.pr_alpha.valuation())):
            limits.checkpoint()
            ok, s0 = _holds(w, bm)
            if not ok:
                s0 = _nice_point(w, bm) or s0
                out.status = "not-private"
                out.witness = Witness(w.alpha, w.beta, w.outputs, w.pr_alpha, w.pr_beta, 1 / s0, "bound")
                out.reason = "the ratio exceeds the budget's bound"
                return


def _nice_point(w: Witness, m: int) -> Fraction | None:
    """A simple s (e^(ε/L) = 2, 3, 4, 10, …) where s^m·Pr_α(s) > Pr_β(s), if one is."""
    for base in (2, 3, 4, 10, 100, 1000):
        s = Fraction(1, base)
        a, b = w.pr_alpha.at(s), w.pr_beta.at(s)
        if a is not None and b is not None and s ** m * a > b:
            return s
    return None


def d_at_epsilon(out: DiscreteAnalysis, epsilon: Fraction) -> tuple[Fraction, Fraction] | None:
    """The least d with Pr_α(o) ≤ e^(dε)·Pr_β(o) for every pair at this one ε:
    max ln(Pr_α/Pr_β)/ε, enclosed by ball arithmetic (python-flint's arb, 200
    bits) and returned as rational bounds.  None when some Pr_β(o) is 0."""
    from flint import arb, ctx
    if not out.cases:
        return None
    old = ctx.prec
    ctx.prec = 200
    try:
        L = out.program.L
        eps = arb(epsilon.numerator) / epsilon.denominator
        s = (-eps / L).exp()
        lo = hi = None
        for w in out.cases:
            limits.checkpoint()
            if w.pr_beta.is_zero:
                return None
            a = _arb_eval(w.pr_alpha, s)
            b = _arb_eval(w.pr_beta, s)
            d = (a / b).log() / eps
            dl, dh = _frac_of(d.lower()), _frac_of(d.upper())
            lo = dl if lo is None else max(lo, dl)
            hi = dh if hi is None else max(hi, dh)
        factor = 1 if (not out.stateless or out.program.adjacent is None) else out.horizon
        return max(Fraction(0), lo) * factor, max(Fraction(0), hi) * factor
    finally:
        ctx.prec = old


def _arb_eval(r: RatFunc, s):
    from flint import arb
    num = arb(0)
    for c in reversed(r.num.coeffs()):
        num = num * s + arb(int(c.p)) / int(c.q)
    den = arb(0)
    for c in reversed(r.den.coeffs()):
        den = den * s + arb(int(c.p)) / int(c.q)
    return num / den


def _frac_of(x) -> Fraction:
    """An arb that is exact (an endpoint) as a Fraction."""
    m, e = x.mid().man_exp()
    return Fraction(int(m)) * (Fraction(2) ** int(e))


def _holds(w: Witness, m: int) -> tuple[bool, Fraction | None]:
    """s^m·Pr_α(s) ≤ Pr_β(s) for every s in (0, 1)?"""
    a, b = w.pr_alpha, w.pr_beta
    poly = b.num * a.den - fmpq_poly([0] * m + [1]) * a.num * b.den
    return nonneg_on_unit(poly)


# ------------------------------------------------------------------ the step list of a witness
MAX_TRACE_PATHS = 100_000


def likeliest_path(machine: Machine, inputs: tuple[int, ...], outputs: tuple, s: Fraction):
    """The likeliest run (at s = e^(−ε/L)) on ``inputs`` that outputs ``outputs``:
    a list of (instruction, what happened, probability of that step) or None."""
    best: list = [None, Fraction(-1)]
    code = machine.p.code
    stack = [(0, (None,) * len(machine.p.variables), (), 0, Fraction(1), ())]
    seen = 0
    while stack:
        limits.checkpoint()
        pc, store, outs, used, prob, trace = stack.pop()
        seen += 1
        if seen > MAX_TRACE_PATHS:
            break
        if outs != outputs[:len(outs)]:
            continue
        ins = code[pc]
        if ins.reads and used == len(inputs):
            ins = None
        if ins is None or ins.op == "halt":
            if outs == outputs and prob > best[1]:
                best[:] = [trace, prob]
            continue
        inp = inputs[used] if ins.reads else None
        nused = used + (1 if ins.reads else 0)
        if ins.op == "jump":
            stack.append((ins.jump, store, outs, nused, prob, trace))
            continue
        if ins.op == "branch":
            options = [(pc + 1 if t else ins.jump, store, outs, q, f"{'true' if t else 'false'}") for t, q in
                       machine.truth(ins.expr, store, inp)]
        elif ins.op == "assign":
            options = []
            for v, q in machine.value(ins.expr, store, inp):
                st = list(store)
                st[machine.index[ins.target]] = v
                options.append((pc + 1, tuple(st), outs, q, f"{ins.target} = {_show(v)}"))
        else:
            options = [(pc + 1, store, outs + (v,), q, f"outputs {_show(v)}")
                       for v, q in machine.value(ins.expr, store, inp)]
        for nxt, st, o, q, what in options:
            p = q.at(s)
            if p:
                read = f"reads {inp}, " if ins.reads else ""
                stack.append((nxt, st, o, nused, prob * p, trace + ((ins, read + what, q),)))
    return best[0]


def _show(v) -> str:
    if isinstance(v, Fraction):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return str(v)
