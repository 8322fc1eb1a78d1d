"""A proven lower bound on the privacy constant of a private DiPA.

The checker proves an upper bound: the block is dε-private for every ε with
d = Δ·wt(A) (Δ the declared sensitivity, 1 by default).  The best constant
is d* = inf{D : the block is Dε-private for every ε}, and d* ≤ d; wt(A) can
be loose (a single Laplace release gets 2, its d* is 1).  This module finds
a number d_lower ≤ d* with a *witness*: ε, two adjacent input sequences α
and β (|α_i − β_i| ≤ Δ) and one output sequence (symbols, and real outputs
as intervals) such that

    ln(Pr[ε, α, ρ] / Pr[ε, β, ρ]) / ε ≥ d_lower,

the probabilities being exact path probabilities (:mod:`dslc.dipa.prob`).
If the block were Dε-private with D < d_lower, this pair and this event would
contradict it at this ε; so d_lower ≤ d* ≤ d.  Soundness rests on the
probabilities only: the bound is computed from the lower end of Pr_α's error
interval and the upper end of Pr_β's, and rounded down.

The search is bounded by counted work, not by the clock, so that d_lower is a
function of the program (:data:`SEARCH_WORK` per block by default; see
"Work" below):

1. *Routes*: sequences of critical transitions through the DAG of strongly
   connected components, heaviest first (the heaviest is the path whose
   cost is wt(A)).
2. *Paths*: a route becomes a path of the automaton from the initial state,
   with k turns of a shortest cycle in every component it passes
   (k = 0, 1, 3, 8, 16; at most :data:`MAX_STEPS` steps).  Turns of a loop
   on `insample < x` pin the stored threshold, which is how the sparse vector
   technique's lower bound approaches its upper bound.
3. *Inputs*: every draw of α is centred on the stored value's mean; β moves
   each input by ±Δ in the direction that makes the step less likely in β
   (`>=` down, `<` up, a released value up with the output interval below
   its mean, a store towards the side its later comparisons favour).
4. ε ∈ {1, 4}; then a local search from the best candidate (offsets of
   α, single directions, loop turns, ε) while work is left.

Candidates are scored with fast, lower-precision probabilities; the best is
recomputed at full precision, checked (a path from the initial state, inputs
exactly at input states, adjacent, the printed text replays to the same
path) and only then reported.

Work: scoring a candidate costs :data:`CANDIDATE_WORK` units, :data:`STEP_WORK`
per step of its path, plus the terms its probability computations carry (:func:`dslc.dipa.prob.path_probability`'s
meter), so a long or varied path costs more than a short one.  The search
stops before a candidate once the work done reaches its allowance, and
reports the best candidate so far: the same on every machine, under any
load.  The block's time limit (``--timeout``) still bounds it as a safety
net: if half of the time left runs out first, no lower bound is reported
("not searched to its end"), never one that depends on the speed of the
machine.
"""

from __future__ import annotations

import decimal
import heapq
import math
import os
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction

from dslc import limits
from dslc.diagnostics.model import Verbatim
from dslc.dipa.check import CheckResult
from dslc.dipa.paths import build_path, input_tokens, output_tokens, parse_inputs, parse_outputs
from dslc.dipa.prob import PathError, Probability, Step, TooExpensive, fmt_probability, path_probability
from dslc.ir.dipa import DiPA, Guard, OutKind, fmt_fraction

SEARCH_WORK = 40_000           # default work for the search, per block (verification comes on top)
BUDGET_SEARCH_WORK = 25 * SEARCH_WORK   # when a budget is declared and the upper bound exceeds it
CANDIDATE_WORK = 200           # work of scoring one candidate, besides the terms it carries
STEP_WORK = 50                 # and per step of its path
WORK_PER_SECOND = 333_333       # converts the deprecated --lower-bound-time SECONDS (0.12 s: the default)
MAX_STATES = 50_000            # larger automata are not searched (said in the summary)
MAX_STEPS = 40                 # longest candidate path
VERIFIED_PROBE_STATES = 50     # in blocks this small the first candidate is scored by its full verification
MAX_ROUTES = 6
TURNS = (0, 1, 3, 8, 16)
EPSILONS = (Fraction(1), Fraction(4))
TIGHT = Fraction(95, 100)      # "tight": d_lower ≥ 95% of d
SIGNIFICANT = 3                # digits of d_lower (rounded down)
FAST = {"rel_tol": 1e-6, "start_digits": 16, "budget": 60_000}
FULL_BUDGET = 400_000

HALF = Fraction(1, 2)
EPSILON_RANGE = (Fraction(1, 16), Fraction(64))   # the local search keeps ε inside


@dataclass
class Candidate:
    path: list[int]                 # transitions from the initial state
    signs: list[int]                # per step: β − α in units of Δ (−1, 0, +1)
    offsets: list[Fraction]         # per step: α's draw mean relative to the stored value's, in units of Δ
    epsilon: Fraction

    def key(self) -> tuple:
        return (tuple(self.path), tuple(self.signs), tuple(self.offsets), self.epsilon)


@dataclass
class Witness:
    """A checked witness of d_lower."""
    epsilon: Fraction
    alpha: list[Step]
    beta: list[Step]
    pr_alpha: Probability
    pr_beta: Probability
    log_ratio: Decimal              # ln(Pr_α/Pr_β) (central value)
    bound: Decimal                  # the proven lower bound of ln(Pr_α/Pr_β)/ε, before rounding


@dataclass
class LowerBound:
    value: Decimal = Decimal(0)     # d_lower, rounded down to SIGNIFICANT digits
    witness: Witness | None = None
    searched: bool = True
    reason: str | None = None       # why the search was skipped or cut short
    evaluations: int = 0
    work: int = 0                   # the work done (CANDIDATE_WORK per candidate plus terms carried)
    seconds: float = 0.0            # (timing only: nothing printed depends on it)
    spent: bool = False             # the work allowance ran out (the best so far is reported)
    cut_short: bool = False         # the block's time limit stopped the search (nothing is reported)
    problem: str | None = None      # an internal problem (never expected)

    @property
    def text(self) -> str:
        return fmt_decimal(self.value)

    def tight(self, upper: Fraction) -> bool:
        if upper == 0:
            return True
        return self.witness is not None and Fraction(self.value) >= TIGHT * upper

    def exceeds(self, limit: Fraction) -> bool:
        """The witness's verified bound (before rounding) is above ``limit``."""
        return self.witness is not None and Fraction(self.witness.bound) > limit

    def shown_above(self, limit: Fraction) -> "LowerBound":
        """This bound with ``value`` rounded down to the fewest digits (at least
        :data:`SIGNIFICANT`) that still exceed ``limit``; itself if it does not
        exceed it."""
        if not self.exceeds(limit) or Fraction(self.value) > limit:
            return self
        return replace(self, value=round_down_above(self.witness.bound, limit))


def fmt_decimal(value: Decimal) -> str:
    if value == 0:
        return "0"
    text = format(value.normalize(decimal.Context(prec=max(28, len(value.as_tuple().digits)))), "f")
    return text


def round_down(value: Decimal, digits: int = SIGNIFICANT) -> Decimal:
    if value <= 0:
        return Decimal(0)
    exp = value.adjusted() - digits + 1
    ctx = decimal.Context(prec=max(digits, decimal.getcontext().prec))
    return value.quantize(Decimal(1).scaleb(exp), rounding=decimal.ROUND_FLOOR, context=ctx)


def round_down_above(value: Decimal, limit: Fraction) -> Decimal:
    """``value`` rounded down to the fewest significant digits (at least
    :data:`SIGNIFICANT`) that keep it above ``limit`` (``value`` > ``limit``)."""
    digits = SIGNIFICANT
    while True:
        shown = round_down(value, digits)
        if Fraction(shown) > limit or shown == value:
            return shown
        digits += 1


# ---------------------------------------------------------------------------
# structure: components, routes, paths

class _Graph:
    def __init__(self, dipa: DiPA, found: CheckResult):
        self.dipa = dipa
        self.ts = dipa.transitions
        self.comp = found.component
        self.out = dipa.out_edges()
        self.init = dipa.initial
        ncomp = max(self.comp) + 1 if self.comp else 0
        self.cost: dict[int, int] = dict(found.critical_scaled)
        self.crit_out: list[list[int]] = [[] for _ in range(ncomp)]
        for e in self.cost:
            self.crit_out[self.comp[self.ts[e].source]].append(e)
        # the heaviest continuation from each component, successors first (Kahn's
        # algorithm on the reversed DAG of components: no assumption on the ids)
        self.best_from = [0] * ncomp
        pending = [len(out) for out in self.crit_out]
        preds: list[list[int]] = [[] for _ in range(ncomp)]
        for c, out in enumerate(self.crit_out):
            for e in out:
                preds[self.comp[self.ts[e].target]].append(c)
        ready = [c for c in range(ncomp) if not pending[c]]
        for c in ready:                              # grows while it is walked
            best = 0
            for e in self.crit_out[c]:
                v = self.cost[e] + self.best_from[self.comp[self.ts[e].target]]
                if v > best:
                    best = v
            self.best_from[c] = best
            for p in preds[c]:
                pending[p] -= 1
                if not pending[p]:
                    ready.append(p)
        self._cycles: dict[int, list[int]] = {}

    def routes(self, limit: int = MAX_ROUTES, max_pops: int = 4000):
        """Routes (lists of critical transitions) from the initial component,
        in order of decreasing total cost."""
        if not self.comp or self.comp[self.init] < 0:
            return
        start = self.comp[self.init]
        counter = 0
        # (−potential, not final, −length, counter): equal potentials pop finished
        # routes first, then the deepest partial one (an exact heuristic then walks
        # straight down a heaviest route)
        heap = [(-self.best_from[start], 1, 0, counter, start, None, 0)]
        found = 0
        pops = 0
        while heap and found < limit and pops < max_pops:
            _, not_final, neg_len, _, c, node, cost = heapq.heappop(heap)
            pops += 1
            if not not_final:
                route = []
                while node is not None:
                    route.append(node[0])
                    node = node[1]
                route.reverse()
                yield route
                found += 1
                continue
            counter += 1
            if -neg_len >= MAX_STEPS:        # long enough: a prefix of a heaviest route, ranked as one
                heapq.heappush(heap, (-(cost + self.best_from[c]), 0, neg_len, counter, c, node, cost))
                continue
            heapq.heappush(heap, (-cost, 0, neg_len, counter, c, node, cost))
            for e in self.crit_out[c]:
                t = self.comp[self.ts[e].target]
                nc = cost + self.cost[e]
                counter += 1
                heapq.heappush(heap, (-(nc + self.best_from[t]), 1, neg_len - 1, counter, t, (e, node), nc))

    def path_within(self, a: int, b: int) -> list[int] | None:
        """A shortest path from a to b inside a's component."""
        if a == b:
            return []
        c = self.comp[a]
        parent = {a: -1}
        queue = [a]
        for v in queue:
            for e in self.out[v]:
                w = self.ts[e].target
                if self.comp[w] == c and w not in parent:
                    parent[w] = e
                    if w == b:
                        path = []
                        while w != a:
                            e = parent[w]
                            path.append(e)
                            w = self.ts[e].source
                        return path[::-1]
                    queue.append(w)
        return None

    def cycle_at(self, q: int) -> list[int]:
        """A shortest cycle through q inside its component ([] if q is on none)."""
        if q in self._cycles:
            return self._cycles[q]
        best: list[int] = []
        c = self.comp[q]
        for e in self.out[q]:
            w = self.ts[e].target
            if self.comp[w] != c:
                continue
            back = self.path_within(w, q)
            if back is not None and (not best or 1 + len(back) < len(best)):
                best = [e] + back
        self._cycles[q] = best
        return best

    def realise(self, route: list[int], turns: int) -> list[int] | None:
        """The route as a path from the initial state, with ``turns`` turns of a
        cycle in every component it passes; cut at MAX_STEPS."""
        path: list[int] = []
        cur = self.init
        for e in route + [None]:
            if turns:
                cyc = self.cycle_at(cur)
                path += cyc * turns
            if e is None:
                break
            inner = self.path_within(cur, self.ts[e].source)
            if inner is None:
                return None
            path += inner + [e]
            cur = self.ts[e].target
            if len(path) > MAX_STEPS:
                break
        return path[:MAX_STEPS] if path else None


# ---------------------------------------------------------------------------
# inputs

def default_signs(dipa: DiPA, path: list[int], stores_follow_guard: bool = True) -> list[int]:
    ts, states = dipa.transitions, dipa.states
    signs = []
    for k, e in enumerate(path):
        t = ts[e]
        if not states[t.source].is_input:
            signs.append(0)
            continue
        guard_sign = {Guard.GE: -1, Guard.LT: 1}.get(t.guard, 0)
        if t.store and (guard_sign == 0 or not stores_follow_guard):
            signs.append(_ahead(dipa, path, k) or guard_sign or (1 if t.output.is_real else 0))
        elif guard_sign:
            signs.append(guard_sign)
        else:
            signs.append(1 if t.output.is_real else 0)
    return signs


def _ahead(dipa: DiPA, path: list[int], k: int) -> int:
    """+1 if the value stored at step k is compared by more `>=` than `<` guards
    before the next store (a higher x in β makes them less likely there), −1 for
    the reverse, 0 if it is not compared."""
    votes = 0
    for e in path[k + 1:]:
        t = dipa.transitions[e]
        votes += {Guard.GE: 1, Guard.LT: -1}.get(t.guard, 0)
        if t.store:
            break
    return (votes > 0) - (votes < 0)


def instantiate(dipa: DiPA, cand: Candidate, delta: Fraction) -> tuple[list[Step], list[Step]]:
    """α, β and the output intervals of a candidate."""
    ts, states = dipa.transitions, dipa.states
    ref: Fraction | None = None
    alpha, beta = [], []
    for k, e in enumerate(cand.path):
        t = ts[e]
        s = states[t.source]
        sign = cand.signs[k]
        if s.is_input:
            level = (ref if ref is not None else Fraction(0)) + cand.offsets[k] * delta
            a = level - s.mu
            b = a + sign * delta
            mean = level
        else:
            a = b = None
            mean = Fraction(s.mu)
            sign = 0
        interval = None
        if t.output.is_real:
            m = mean if t.output.kind is OutKind.INSAMPLE else Fraction(s.mu_prime) + (a or 0)
            interval = (None, m) if sign > 0 else (m, None) if sign < 0 else (None, None)
        if t.store:
            ref = mean
        alpha.append(Step(e, a, interval))
        beta.append(Step(e, b, interval))
    return alpha, beta


# ---------------------------------------------------------------------------
# scoring

class _Spent(Exception):
    """The search's work allowance is used up."""


class _Scorer:
    def __init__(self, dipa: DiPA, delta: Fraction, work: int = SEARCH_WORK):
        self.dipa, self.delta = dipa, delta
        self.cache: dict[tuple, float | None] = {}
        self.evaluations = 0
        self.meter = [0]                # work done (see the module docstring)
        self.allowance = work
        self.best: tuple[float, Candidate] | None = None
        self.goal = lambda: float("inf")
        self.verified: dict[tuple, Witness] = {}

    def _charge(self, cand: Candidate) -> None:
        """Count one more candidate, or stop the search when the work is spent."""
        if self.meter[0] >= self.allowance:
            raise _Spent
        limits.checkpoint()
        self.evaluations += 1
        self.meter[0] += CANDIDATE_WORK + STEP_WORK * len(cand.path)

    def score_verified(self, cand: Candidate) -> float | None:
        """The score of a candidate that is likely the answer: its verified
        bound (:func:`verify`, as the final witness is computed) instead of the
        fast estimate, so that when it is the answer it is computed once."""
        key = cand.key()
        if key in self.cache:
            return self.cache[key]
        self._charge(cand)
        try:
            witness = verify(self.dipa, cand, self.delta, self.meter)
        except (PathError, TooExpensive, ArithmeticError, decimal.DecimalException):
            witness = None
        value = None if witness is None else float(witness.bound)
        if witness is not None:
            self.verified[key] = witness
        self.cache[key] = value
        return value

    def score(self, cand: Candidate) -> float | None:
        key = cand.key()
        if key in self.cache:
            return self.cache[key]
        self._charge(cand)
        value = None
        try:
            alpha, beta = instantiate(self.dipa, cand, self.delta)
            pa = path_probability(self.dipa, alpha, cand.epsilon, meter=self.meter, **FAST)
            pb = path_probability(self.dipa, beta, cand.epsilon, meter=self.meter, **FAST)
            if pa.log_probability is not None and pb.log_probability is not None:
                # (ε stays within EPSILON_RANGE: its float is exact enough and finite)
                value = _float(pa.log_probability - pb.log_probability) / float(cand.epsilon)
        except (PathError, TooExpensive, ArithmeticError, decimal.DecimalException):
            value = None
        self.cache[key] = value
        return value


def _moves(dipa: DiPA, cand: Candidate):
    """Neighbours of a candidate for the local search."""
    states, ts = dipa.states, dipa.transitions
    if cand.epsilon * 2 <= EPSILON_RANGE[1]:
        yield Candidate(cand.path, cand.signs, cand.offsets, cand.epsilon * 2)
    if cand.epsilon / 2 >= EPSILON_RANGE[0]:
        yield Candidate(cand.path, cand.signs, cand.offsets, cand.epsilon / 2)
    for k, e in enumerate(cand.path):
        if not states[ts[e].source].is_input:
            continue
        for d in (HALF, -HALF, Fraction(1), Fraction(-1)):
            offsets = list(cand.offsets)
            offsets[k] += d
            yield Candidate(cand.path, cand.signs, offsets, cand.epsilon)
        for s in (-1, 0, 1):
            if s != cand.signs[k]:
                signs = list(cand.signs)
                signs[k] = s
                yield Candidate(cand.path, signs, cand.offsets, cand.epsilon)


# ---------------------------------------------------------------------------
# the search

# Searches already done in this process, by the automaton's structure and
# numbers (names and spans left out: the witness's steps are transition
# indices, inputs and intervals, and its probabilities depend on nothing
# else) and the work allowed.  A file or an editor's document often repeats a
# block under other names; the second one reuses the first one's verified
# witness, which is what its own search would find (the search is a function
# of these).  Searches that the time limit stopped or that met a problem are
# not kept, and only small automata are.
_MEMO: dict[tuple, LowerBound] = {}
MEMO_ENTRIES = 1024
MEMO_MAX_TRANSITIONS = 400


def _memo_key(dipa: DiPA, upper: Fraction, work: int, target: Fraction | None) -> tuple | None:
    if len(dipa.transitions) > MEMO_MAX_TRANSITIONS:
        return None
    states = tuple((s.is_input, s.d, s.mu, s.d_prime, s.mu_prime, s.terminal) for s in dipa.states)
    moves = tuple((t.source, t.guard, t.target, t.output.kind, t.output.symbol, t.store)
                  for t in dipa.transitions)
    return (dipa.initial, dipa.sensitivity, upper, work, target, states, moves)


def search(dipa: DiPA, found: CheckResult, upper: Fraction, work: int = SEARCH_WORK,
           target: Fraction | None = None) -> LowerBound:
    """The best lower bound found with ``work`` units of work (stops early once
    it is tight, or, with ``target``, once a witness beats it).  The same
    automaton under other names gets the result of its first search (see _MEMO)."""
    key = _memo_key(dipa, upper, work, target) if work > 0 else None
    if key is not None:
        kept = _MEMO.get(key)
        if kept is not None:
            return replace(kept, seconds=0.0, evaluations=0, work=0)
    result = _search_bound(dipa, found, upper, work, target)
    if key is not None and result.searched and not result.cut_short and result.problem is None:
        if len(_MEMO) >= MEMO_ENTRIES:
            _MEMO.clear()
        _MEMO[key] = result
    return result


def work_option(work: int | None, seconds: float | None) -> int | None:
    """The work of a search from the options: ``lower_bound_work``, else the
    deprecated ``lower_bound_time`` converted at :data:`WORK_PER_SECOND` (a
    fixed rate: the search still never looks at the clock), else None (the
    default)."""
    if work is not None:
        return max(0, int(work))
    if seconds is not None:
        return max(0, round(seconds * WORK_PER_SECOND))
    return None


TIME_RAN_OUT = "not searched to its end: the block's time limit (--timeout) ran out"


def _search_bound(dipa: DiPA, found: CheckResult, upper: Fraction, work: int,
                  target: Fraction | None) -> LowerBound:
    result = LowerBound()
    n = len(dipa.states)
    if upper == 0:
        result.searched = False
        result.reason = "d = 0"
        return result
    if n > MAX_STATES:
        result.searched = False
        result.reason = f"not searched: {n:,} states (more than {MAX_STATES:,})"
        return result
    reach = _reach(found, upper)
    if reach is not None and reach < upper * TIGHT and (target is None or reach <= target):
        # every candidate has at most MAX_STEPS transitions, and a path loses at
        # most the sum of its critical costs: such a search could neither be
        # tight nor beat the budget, and on large automata it is the slowest part
        result.searched = False
        result.reason = (f"not searched: a path of at most {MAX_STEPS} steps loses at most "
                         f"{fmt_decimal(round_down(_decimal(reach)))}·ε, less than {int(TIGHT * 100)}% of d")
        return result
    if work <= 0:
        result.searched = False
        result.reason = "not searched"
        return result
    outer = limits.current()
    left = outer.remaining()
    if left is not None and left < 0.05:
        result.searched = False
        result.reason = "not searched (no time left)"
        return result
    # the clock only as a safety net: half of the block's time left
    deadline = limits.Deadline(None if left is None else left / 2, outer.cancelled)
    delta = Fraction(dipa.sensitivity)
    scorer = _Scorer(dipa, delta, work)
    tight_goal = _float(upper * Fraction(999, 1000))
    if target is None:
        scorer.goal = lambda: tight_goal
    else:
        # a budget to beat: the usual search first, then stop at the first witness above it
        beat = _float(target * Fraction(10001, 10000)) + 1e-9
        scorer.goal = lambda: tight_goal if scorer.meter[0] < SEARCH_WORK else beat
    try:
        with limits.scope(deadline):
            _search(dipa, found, scorer)
    except _Spent:
        result.spent = True
    except limits.Cancelled as exc:
        if exc.reason != "timeout":
            raise
        return _time_ran_out(result, deadline)
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:  # noqa: BLE001 - a lower bound must never cost the verdict
        if os.environ.get("DSLC_DEBUG"):
            raise
        result.problem = f"{type(exc).__name__}: {exc}"
        return result
    result.evaluations = scorer.evaluations
    result.work = scorer.meter[0]
    result.seconds = deadline.elapsed()
    best = scorer.best
    if best is None or best[0] <= 0:
        return result
    try:
        witness = scorer.verified.get(best[1].key()) or verify(dipa, best[1], delta)
    except limits.Cancelled as exc:
        if exc.reason != "timeout":
            raise
        return _time_ran_out(result, deadline)
    except Exception as exc:  # noqa: BLE001 - a lower bound must never cost the verdict
        if os.environ.get("DSLC_DEBUG"):
            raise
        result.problem = f"{type(exc).__name__}: {exc}"
        return result
    if witness is None:
        return result
    value = round_down(witness.bound)
    if value <= 0:
        return result
    if Fraction(witness.bound) > upper:
        # d_lower ≤ d* ≤ d is a theorem: this would be a bug in dslc
        result.problem = (f"the witness gives {fmt_decimal(value)}, above the upper bound "
                          f"{fmt_fraction(upper)}")
        return result
    result.value, result.witness = value, witness
    result.seconds = deadline.elapsed()
    return result


def _time_ran_out(result: LowerBound, deadline: limits.Deadline) -> LowerBound:
    """The time limit stopped the search: no bound (one found so far would
    depend on the speed of the machine), said as such."""
    result.searched = False
    result.cut_short = True
    result.reason = TIME_RAN_OUT
    result.seconds = deadline.elapsed()
    return result


def _reach(found: CheckResult, upper: Fraction) -> Fraction | None:
    """An upper bound on the loss (in units of ε, like ``upper``) of any path of at
    most MAX_STEPS transitions: MAX_STEPS times the largest critical cost."""
    if not found.weight:
        return None
    pairs = found.critical_scaled
    costs = getattr(pairs, "costs", None)
    if costs is None:
        costs = [c for _, c in pairs]
    if not costs:
        return None
    return MAX_STEPS * Fraction(max(costs), found.cost_denominator) * upper / found.weight


def _float(value: Fraction | Decimal) -> float:
    """``value`` as a float for the search's scores, which only rank
    candidates: a value beyond the float range is ±inf, one below it 0 (a
    rate of 10^320 ε must not stop the search with an OverflowError)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _decimal(value: Fraction) -> Decimal:
    """``value`` as a Decimal of the current context's precision (exact
    integers divided, so no float is made on the way)."""
    return Decimal(value.numerator) / Decimal(value.denominator)


def _search(dipa: DiPA, found: CheckResult, scorer: _Scorer) -> None:
    """Fills in ``scorer.best``; returns early at ``scorer.goal()`` (or raises
    _Spent when the work allowance is used up)."""
    graph = _Graph(dipa, found)

    def consider(cand: Candidate, verified: bool = False) -> bool:
        v = scorer.score_verified(cand) if verified else scorer.score(cand)
        if v is not None and (scorer.best is None or v > scorer.best[0]):
            scorer.best = (v, cand)
        return scorer.best is not None and scorer.best[0] >= scorer.goal()

    for route in graph.routes():
        # the likeliest tight candidate first (most turns, ε = 1): a block whose
        # bound is tight there stops after one evaluation; otherwise it is
        # cached and met again below
        probe = graph.realise(route, TURNS[-1])
        if probe is not None and consider(Candidate(probe, default_signs(dipa, probe, True),
                                                    [Fraction(0)] * len(probe), EPSILONS[0]),
                                          verified=len(dipa.states) <= VERIFIED_PROBE_STATES):
            return
        for turns in TURNS:
            path = graph.realise(route, turns)
            if path is None:
                break
            for eps in EPSILONS:
                for follow in (True, False):
                    signs = default_signs(dipa, path, follow)
                    if not follow and signs == default_signs(dipa, path, True):
                        continue
                    if consider(Candidate(path, signs, [Fraction(0)] * len(path), eps)):
                        return
            if len(path) >= MAX_STEPS:
                break
    # local search from the best candidate, while work is left
    improved = scorer.best is not None
    while improved:
        improved = False
        base_value, base = scorer.best
        for cand in _moves(dipa, base):
            if consider(cand):
                return
            if scorer.best[0] > base_value + 1e-9:
                improved = True
                break


# ---------------------------------------------------------------------------
# verification

class WitnessError(AssertionError):
    """A lower-bound witness that is not what it claims (a bug in dslc)."""


def verify(dipa: DiPA, cand: Candidate, delta: Fraction, meter: list[int] | None = None) -> Witness | None:
    """Recompute a candidate at full precision from its printed form and check it."""
    alpha, beta = instantiate(dipa, cand, delta)
    check_adjacent(dipa, alpha, beta, delta)
    # replay from text, as `dslc prob` reads it
    outputs = parse_outputs(",".join(output_tokens(dipa, alpha)))
    pa_steps = build_path(dipa, parse_inputs(",".join(input_tokens(alpha)), allow_tau=True), outputs)
    pb_steps = build_path(dipa, parse_inputs(",".join(input_tokens(beta)), allow_tau=True), outputs)
    if [s.transition for s in pa_steps] != cand.path or [s.transition for s in pb_steps] != cand.path:
        raise WitnessError("the printed witness does not give back its path")
    pa = path_probability(dipa, pa_steps, cand.epsilon, budget=FULL_BUDGET, meter=meter)
    pb = path_probability(dipa, pb_steps, cand.epsilon, budget=FULL_BUDGET, meter=meter)
    if pa.log_probability is None or pb.log_probability is None:
        return None
    ctx = decimal.Context(prec=60, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    low_a = ctx.subtract(pa.probability, pa.error)
    high_b = ctx.add(pb.probability, pb.error)
    if low_a <= 0 or high_b <= 0:
        return None
    eps = ctx.divide(Decimal(cand.epsilon.numerator), Decimal(cand.epsilon.denominator))
    bound = ctx.divide(ctx.subtract(ctx.ln(low_a), ctx.ln(high_b)), eps)
    bound = ctx.subtract(bound, Decimal("1e-40"))        # the last digits of ln and ÷ are not exact
    return Witness(cand.epsilon, pa_steps, pb_steps, pa, pb,
                   ctx.subtract(pa.log_probability, pb.log_probability), bound)


def check_adjacent(dipa: DiPA, alpha: list[Step], beta: list[Step], delta: Fraction) -> None:
    """α and β are one path from the initial state with inputs exactly at input
    states, differing by at most Δ per input, with the same outputs."""
    ts, states = dipa.transitions, dipa.states
    q = dipa.initial
    if len(alpha) != len(beta) or not alpha:
        raise WitnessError("α and β have different lengths or are empty")
    for k, (a, b) in enumerate(zip(alpha, beta)):
        t = ts[a.transition]
        if a.transition != b.transition or a.interval != b.interval or t.source != q:
            raise WitnessError(f"step {k + 1} is not a step of one path from the initial state")
        reads = states[q].is_input
        if (a.input is None) == reads or (b.input is None) == reads:
            raise WitnessError(f"step {k + 1}: an input where `{states[q].name}` reads none, or the reverse")
        if reads and abs(Fraction(a.input) - Fraction(b.input)) > delta:
            raise WitnessError(f"step {k + 1}: α and β differ by more than {fmt_fraction(delta)}")
        if (a.interval is not None) != t.output.is_real:
            raise WitnessError(f"step {k + 1}: an interval must be given exactly for a real output")
        q = t.target


# ---------------------------------------------------------------------------
# presentation

def witness_json(dipa: DiPA, w: Witness, path: str | None, block: str) -> dict:
    from dslc.dipa.witness import prob_command
    outs = output_tokens(dipa, w.alpha)
    fmt_in = lambda s: "τ" if s.input is None else fmt_fraction(Fraction(s.input))  # noqa: E731
    return {
        "epsilon": fmt_fraction(w.epsilon),
        "alpha": [fmt_in(s) for s in w.alpha],
        "beta": [fmt_in(s) for s in w.beta],
        "outputs": outs,
        "pr_alpha": fmt_probability(w.pr_alpha.probability),
        "pr_beta": fmt_probability(w.pr_beta.probability),
        "error_alpha": f"{float(w.pr_alpha.error):.3g}",
        "error_beta": f"{float(w.pr_beta.error):.3g}",
        "log_ratio": float(w.log_ratio),
        "commands": [prob_command(path, block, w.epsilon, w.alpha, outs),
                     prob_command(path, block, w.epsilon, w.beta, outs)],
    }


def _short(items: list[str], limit: int = 12) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit - 4]) + ", …, " + ", ".join(items[-3:])


def witness_notes(dipa: DiPA, lb: LowerBound, path: str | None, block: str) -> list[str]:
    """Notes that show the lower bound's witness (for --explain and DP006)."""
    w = lb.witness
    if w is None:
        return []
    from dslc.dipa.witness import prob_command
    outs = output_tokens(dipa, w.alpha)
    fmt_in = lambda s: "τ" if s.input is None else fmt_fraction(Fraction(s.input))  # noqa: E731
    eps = fmt_fraction(w.epsilon)
    # one digit more than d_lower has, so that a loss shown above a budget reads as above it
    digits = max(4, len(lb.value.as_tuple().digits) + 1)
    return [
        f"lower bound d ≥ {lb.text}: at ε = {eps}, ln(Pr_α/Pr_β) = {float(w.log_ratio):.{digits}g} "
        f"on these adjacent inputs (each pair differs by at most {fmt_fraction(dipa.sensitivity)}):",
        f"α = {_short([fmt_in(s) for s in w.alpha])}",
        f"β = {_short([fmt_in(s) for s in w.beta])}",
        f"outputs = {_short(outs)}   (τ: a step that reads no input; _: no output)",
        f"Pr_α = {fmt_probability(w.pr_alpha.probability)}, Pr_β = {fmt_probability(w.pr_beta.probability)}",
        Verbatim("replay: " + prob_command(path, block, w.epsilon, w.alpha, outs)),
        Verbatim("replay: " + prob_command(path, block, w.epsilon, w.beta, outs)),
    ]
