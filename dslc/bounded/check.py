"""The Pufferfish check of a Markov model: verdicts from SMT queries.

``check_model``
    For every protected pair (a, b), both directions: is there an
    observation sequence ω of length k (and, for an `mdp`, an action
    sequence) with Pr(ω | a) > e^ε · Pr(ω | b)?  One SMT query per direction
    (Algorithm PufferfishCheck).  "private" only when every query is unsat;
    a satisfiable query gives a witness that is re-computed with exact
    rational arithmetic and reported only if its ratio really exceeds e^ε.

``find_params``
    Values of the `find` parameters for which the model is private: a
    counterexample-guided loop.  A candidate must satisfy the constraints and
    the bound on every sequence met so far; it is made rational, then checked
    with ``check_model`` at exactly those values.  A violating sequence joins
    the set and the loop goes on; when no candidate is left, no values exist.

Soundness of the bound e^ε (docs/pufferfish.md): when e^ε is rational
(`ε = ln R`, or ε = 0) it is used exactly.  Otherwise, with rationals
lo < e^ε < hi: "α > lo·β" unsat proves privacy (every ratio ≤ lo < e^ε); a
witness is a violation only after its exact ratio is shown > e^ε; a witness
of "α > hi·β" is a violation outright (and is still re-checked).  If neither
decides, the bounds are tightened; after the last level the answer is
"unknown".
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

import z3

from dslc import limits
from dslc.bounded.interrupt import checkpoint
from dslc.ir.hmm import MarkovModel, NumericModel, Poly, SecretPair
from dslc.bounded.exact import (Lookahead, enumerate_check, enumeration_work, exceeds, exp_bounds, explore_check,
                                pruned_check)
from dslc.bounded import isolate, smt
from dslc.bounded.smt import (Encoder, Query, make_solver, poly_to_z3, rv, solver_gave_up, z3_approx,
                              z3_value)

BOUND_LEVELS = (64, 256, 1024)     # bits of the rational bounds of e^ε, tried in turn
ENUM_CONFIRM_LIMIT = 20000          # re-check a found parameter set by enumeration up to this many sequences
# The automatic engine choice for numeric models (docs/pufferfish.md §3.5): the
# pruned enumeration is used when an upper bound of its work — counted
# beforehand, in elementary integer operations — is at most ENUM_WORK_LIMIT
# (about 10 s of CPython at ENUM_RATE operations a second) and would take at
# most half of the block's time limit.  Otherwise the pruned enumeration is
# tried with at most ENUM_PROBE_WORK operations and what ENUM_RATE gets
# through in a quarter of the time limit (PROBE_SHARE), and the directions it
# leaves undecided go to SMT.  Both bounds are counted work, so the choice and
# the report are a function of the model and the options; the clock stops the
# probe only as a safety net (PROBE_DEADLINE_SHARE of its time, on a machine
# far slower than ENUM_RATE).  ENUM_WORK_LIMIT = 0 turns the enumeration off.
ENUM_WORK_LIMIT = 100_000_000
ENUM_RATE = 10_000_000
ENUM_PROBE_WORK = 10_000_000
PROBE_SHARE = 0.25
PROBE_DEADLINE_SHARE = 0.75


@dataclass
class Violation:
    pair: SecretPair
    left: int                        # secret index: the side that is more likely
    right: int
    observations: list[int]
    actions: list[int]
    p_left: Fraction
    p_right: Fraction
    params: dict[str, Fraction] = field(default_factory=dict)   # symbolic parameters at the witness

    @property
    def ratio(self) -> Fraction | None:
        return None if self.p_right == 0 else self.p_left / self.p_right


@dataclass
class Outcome:
    verdict: str                     # "private" | "violation" | "unknown" | "found" | "none"
    violations: list[Violation] = field(default_factory=list)
    found: dict[str, Fraction] | None = None
    reason: str = ""                 # why "unknown"
    bug: bool = False                # a witness failed its exact re-check
    seconds: float = 0.0
    queries: int = 0
    iterations: int = 0              # find: candidates tried
    confirmed_by: list[str] = field(default_factory=list)


class _Unknown(Exception):
    def __init__(self, reason: str, bug: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.bug = bug


class _Budget:
    """The time of one check: ``seconds`` from now, and never beyond the
    block's budget (:func:`dslc.limits.current`), which z3 is given as its
    own time-out.  When the block's budget is spent, :class:`limits.Cancelled`
    propagates (verdict unknown, E014)."""

    def __init__(self, seconds: float):
        self.start = time.perf_counter()
        self.deadline = self.start + seconds
        self.queries = 0

    def remaining_ms(self) -> int:
        checkpoint()
        left = self.deadline - time.perf_counter()
        if left <= 0:
            raise _Unknown("the time limit was reached")
        return limits.current().remaining_ms(left)

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


def directions(model: MarkovModel) -> list[tuple[SecretPair, int, int]]:
    out = []
    for pair in model.pairs:
        out.append((pair, pair.left, pair.right))
        out.append((pair, pair.right, pair.left))
    return out


def bound_levels(model: MarkovModel) -> list[tuple[Fraction, Fraction]]:
    exact = model.epsilon.exact_bound
    if exact is not None:
        return [(exact, exact)]
    return [exp_bounds(model.epsilon.value, bits) for bits in BOUND_LEVELS]


# ------------------------------------------------------------------ check
def check_model(model: MarkovModel, timeout: float = 60.0, *, style: str = "improved",
                env: dict[str, Fraction] | None = None, budget: _Budget | None = None,
                stop_at_first: bool = False, dirs: list | None = None) -> Outcome:
    """Check every direction of every pair (or those in ``dirs``) with SMT;
    parameters in ``env`` are fixed."""
    budget = budget or _Budget(timeout)
    outcome = Outcome("private")
    unknown: _Unknown | None = None
    enc = Encoder(model, env=env, style=style)
    for pair, left, right in (directions(model) if dirs is None else dirs):
        try:
            found = _check_direction(model, enc, pair, left, right, budget)
        except _Unknown as exc:
            unknown = unknown or exc
            if stop_at_first:
                break
            continue
        if found is not None:
            outcome.violations.append(found)
            if stop_at_first:
                break
    outcome.seconds = budget.elapsed()
    outcome.queries = budget.queries
    if outcome.violations:
        outcome.verdict = "violation"
    elif unknown is not None:
        outcome.verdict = "unknown"
        outcome.reason = unknown.reason
        outcome.bug = unknown.bug
    return outcome


def _solve(query: Query, symbolic: bool, budget: _Budget, size: int = 0):
    """(result, solver, witness): witness is (w, a) when a large query was
    solved in a child process (:mod:`dslc.bounded.isolate`), else None."""
    solver = make_solver(query, symbolic, budget.remaining_ms())
    budget.queries += 1
    if size > isolate.ISOLATE_TERMS and isolate.available():
        try:
            result, reason, witness = isolate.check(solver, query.w, query.a, budget.deadline + 1.0)
        except isolate.Gave:
            raise _Unknown("the time limit was reached") from None
        if result == z3.unknown:
            if "interrupted" in reason:
                raise KeyboardInterrupt
            checkpoint()
            if "timeout" in reason or "canceled" in reason or budget.deadline <= time.perf_counter():
                raise _Unknown("the time limit was reached")
            raise _Unknown(f"z3 answered unknown ({reason})")
        return result, solver, witness
    result = solver.check()
    if result == z3.unknown:
        _gave_up(solver, budget)
    return result, solver, None


def _gave_up(solver: z3.Solver, budget: _Budget) -> None:
    """z3 answered unknown: Ctrl-C → KeyboardInterrupt, the block's budget
    spent → Cancelled, else :class:`_Unknown` with z3's reason."""
    reason = solver_gave_up(solver)
    if "timeout" in reason or "canceled" in reason or budget.deadline <= time.perf_counter():
        raise _Unknown("the time limit was reached")
    raise _Unknown(f"z3 answered unknown ({reason})")


def _check_direction(model: MarkovModel, enc: Encoder, pair: SecretPair, left: int, right: int,
                     budget: _Budget) -> Violation | None:
    size = enc.query_size(left, right)
    if size > smt.MAX_QUERY_TERMS:
        raise _Unknown(f"the SMT query would have about {size:,} terms, more than the limit of "
                       f"{smt.MAX_QUERY_TERMS:,} (memory); lower k or the number of states")
    exact = model.epsilon.exact_bound
    for lo, hi in bound_levels(model):
        result, solver, witness = _solve(enc.violation(left, right, lo), enc.symbolic, budget, size)
        if result == z3.unsat:
            return None
        v = _confirm(model, enc, solver, pair, left, right, budget, witness)
        if v is not None:
            return v
        if exact is not None:
            raise _Unknown("a witness of the solver failed its exact re-check", bug=True)
        # The witness's ratio lies in (lo, e^ε]: try the upper bound.
        result, solver, witness = _solve(enc.violation(left, right, hi), enc.symbolic, budget, size)
        if result == z3.sat:
            v = _confirm(model, enc, solver, pair, left, right, budget, witness)
            if v is None:
                raise _Unknown("a witness of the solver failed its exact re-check", bug=True)
            return v
    raise _Unknown(f"the largest ratio lies within a factor 1 ± 2^-{BOUND_LEVELS[-1]} of "
                   f"e^ε = e^{model.epsilon.text}")


def _confirm(model: MarkovModel, enc: Encoder, solver: z3.Solver, pair: SecretPair, left: int, right: int,
             budget: _Budget, witness: tuple | None = None) -> Violation | None:
    """Turn a model of the violation query into an exactly re-checked Violation
    (None if the exact ratio does not exceed e^ε).  ``witness`` = (w, a) when
    the query was solved in a child process."""
    if witness is not None:
        w, a = list(witness[0]), list(witness[1]) if model.n_actions > 1 else []
        query_model = None
        if enc.symbolic:            # the parameters: fix the sequence and ask this process's solver
            var = (lambda n: z3.Real(n, enc.ctx))
            for t, o in enumerate(w):
                solver.add(var(f"w_{t}") == o)
            for t, act in enumerate(a):
                solver.add(var(f"a_{t}") == act)
            solver.set("timeout", budget.remaining_ms())
            r = solver.check()
            if r == z3.unknown:
                _gave_up(solver, budget)
            if r != z3.sat:
                raise _Unknown("a witness of the solver failed its exact re-check", bug=True)
            query_model = solver.model()
    else:
        query_model = solver.model()
        # The query the solver answered is the last one built; re-read its variables by name.
        w = [_index(query_model, z3.Real(f"w_{t}", enc.ctx) if enc.symbolic else z3.Int(f"w_{t}", enc.ctx))
             for t in range(model.horizon)]
        a = []
        if model.n_actions > 1:
            a = [_index(query_model, z3.Real(f"a_{t}", enc.ctx) if enc.symbolic else z3.Int(f"a_{t}", enc.ctx))
                 for t in range(model.horizon - 1)]
    values = dict(enc.env)
    if enc.symbolic:
        values.update(_rational_params(model, enc, solver, query_model, w, a, budget))
    return _exact_violation(model, pair, left, right, w, a, values, enc.env)


def _index(m: z3.ModelRef, var) -> int:
    return int(z3_approx(m.eval(var, model_completion=True)))


def _exact_violation(model: MarkovModel, pair: SecretPair, left: int, right: int, w: list[int], a: list[int],
                     values: dict[str, Fraction], fixed: dict[str, Fraction]) -> Violation | None:
    if not all(c.holds(values) for c in model.constraints if c.left.variables() | c.right.variables()):
        return None
    num = model.numeric(values)
    for side in (left, right):
        if sum((num.prior[s] for s in model.secrets[side].states), Fraction(0)) <= 0:
            return None
    p_left = num.forward(num.conditioned(model.secrets[left].states), w, a)
    p_right = num.forward(num.conditioned(model.secrets[right].states), w, a)
    if not exceeds(p_left, p_right, model.epsilon.exact_bound, model.epsilon.value):
        return None
    shown = {k: v for k, v in values.items() if k not in fixed or k in model.find}
    return Violation(pair, left, right, w, a, p_left, p_right, shown)


def _simple_fractions(max_den: int = 8) -> list[Fraction]:
    out: list[Fraction] = []
    for d in range(1, max_den + 1):
        for n in range(0, d + 1):
            f = Fraction(n, d)
            if f not in out:
                out.append(f)
    return out


_SIMPLE = _simple_fractions()


def _candidates(value: z3.ExprRef, lo: Fraction | None = None, hi: Fraction | None = None) -> list[Fraction]:
    """Rationals to try for a parameter: the model value if it is simple, simple
    fractions inside the declared range, then rationals ever closer to the model value."""
    exact = z3_value(value)
    approx = z3_approx(value, 40)
    out: list[Fraction] = []
    if exact is not None and exact.denominator <= 8:
        out.append(exact)
    if lo is not None and hi is not None:
        for f in _SIMPLE:
            f = lo + (hi - lo) * f
            if lo <= f <= hi and f not in out:
                out.append(f)
    for d in (2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 32, 64, 100, 128, 1000, 1024, 10 ** 6, 2 ** 30):
        f = Fraction(round(approx * d), d)
        if f not in out:
            out.append(f)
    if exact is not None and exact not in out:
        out.append(exact)
    for digits in (10, 20, 40):
        f = z3_approx(value, digits)
        if f not in out:
            out.append(f)
    return out


def _range(model: MarkovModel, name: str) -> tuple[Fraction | None, Fraction | None]:
    p = model.params.get(name)
    return (p.lo, p.hi) if p is not None else (None, None)


def _rational_params(model: MarkovModel, enc: Encoder, solver: z3.Solver, m: z3.ModelRef,
                     w: list[int], a: list[int], budget: _Budget) -> dict[str, Fraction]:
    """Fix the witness's sequence, then each parameter in turn to a rational
    value (simple ones first) such that the query stays satisfiable."""
    ctx = enc.ctx
    var = (lambda n: z3.Real(n, ctx)) if enc.symbolic else (lambda n: z3.Int(n, ctx))
    for t, o in enumerate(w):
        solver.add(var(f"w_{t}") == o)
    for t, act in enumerate(a):
        solver.add(var(f"a_{t}") == act)
    values: dict[str, Fraction] = {}
    current = m
    for name, pvar in enc.params.items():
        chosen = None
        for cand in _candidates(current.eval(pvar, model_completion=True), *_range(model, name)):
            solver.push()
            solver.add(pvar == rv(cand, ctx))
            solver.set("timeout", budget.remaining_ms())
            budget.queries += 1
            r = solver.check()
            if r == z3.unknown:
                solver_gave_up(solver)
            if r == z3.sat:
                chosen = cand
                current = solver.model()
                break
            solver.pop()
        if chosen is None:
            raise _Unknown(f"no rational value of `{name}` was found for the solver's witness")
        values[name] = chosen
    return values


# ------------------------------------------------------------------ find
def forward_poly(model: MarkovModel, weights: dict[int, Poly], w: list[int], a: list[int],
                 env: dict[str, Fraction]) -> Poly:
    """Unnormalised Pr(w | weights) as a polynomial in the free parameters."""
    sub = (lambda p: p.substitute(env)) if env else (lambda p: p)
    n = len(model.states)
    zero = Poly.const(0)
    alpha = [zero] * n
    for s, p in weights.items():
        e = model.emit[s].get(w[0])
        if e is not None:
            alpha[s] = sub(p) * sub(e)
    for t in range(1, len(w)):
        checkpoint()
        rows = model.trans[a[t - 1] if a else 0]
        nxt = [zero] * n
        for s in range(n):
            if alpha[s].is_zero:
                continue
            for s2, p in rows[s].items():
                nxt[s2] = nxt[s2] + alpha[s] * sub(p)
        alpha = [nxt[s] * sub(model.emit[s][w[t]]) if w[t] in model.emit[s] and not nxt[s].is_zero else zero
                 for s in range(n)]
    total = zero
    for p in alpha:
        total = total + p
    return total


def find_params(model: MarkovModel, timeout: float = 60.0, max_iterations: int = 500) -> Outcome:
    budget = _Budget(timeout)
    outcome = Outcome("unknown")
    ctx = z3.Context()
    targets = list(model.find)
    tvars = {p: z3.Real(p, ctx) for p in targets}
    cand = z3.SolverFor("QF_NRA", ctx=ctx)
    for c in model.constraints:
        vars_ = c.left.variables() | c.right.variables()
        if vars_ and vars_ <= set(targets):
            left, right = poly_to_z3(c.left, tvars, ctx), poly_to_z3(c.right, tvars, ctx)
            cand.add({"=": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
                      ">": left > right, ">=": left >= right}[c.op])
    levels = bound_levels(model)
    level = 0
    seen: set[tuple] = set()
    last: Violation | None = None
    try:
        for iteration in range(1, max_iterations + 1):
            outcome.iterations = iteration
            cand.set("timeout", budget.remaining_ms())
            budget.queries += 1
            r = cand.check()
            if r == z3.unsat:
                outcome.verdict = "none"
                if last is not None:
                    outcome.violations = [last]
                break
            if r == z3.unknown:
                _gave_up(cand, budget)
            theta = _rational_candidate(model, cand, tvars, ctx, budget)
            verify = check_model(model, env=theta, budget=budget, stop_at_first=True)
            if verify.verdict == "private":
                if _confirm_found(model, theta, outcome):
                    outcome.verdict = "found"
                    outcome.found = theta
                    break
                raise _Unknown("the parameter values found failed their exact re-check", bug=True)
            if verify.verdict == "unknown":
                raise _Unknown(verify.reason, verify.bug)
            v = verify.violations[0]
            last = v
            key = (v.left, v.right, tuple(v.observations), tuple(v.actions),
                   tuple(sorted((k, x) for k, x in v.params.items() if k not in theta)))
            if key in seen:
                # The bound used for candidates is too loose for this sequence: tighten it.
                level += 1
                if level >= len(levels):
                    raise _Unknown("a ratio lies too close to e^ε to be separated")
            seen.add(key)
            env = {**{k: x for k, x in v.params.items() if k not in theta}}
            lhs = forward_poly(model, model.secret_weights(v.left), v.observations, v.actions, env)
            rhs = forward_poly(model, model.secret_weights(v.right), v.observations, v.actions, env)
            z_l = _mass(model, v.left, env)
            z_r = _mass(model, v.right, env)
            hi = levels[level][1]
            cand.add(poly_to_z3(lhs * z_r, tvars, ctx) <= rv(hi, ctx) * poly_to_z3(rhs * z_l, tvars, ctx))
        else:
            raise _Unknown(f"no answer after {max_iterations} candidates")
    except _Unknown as exc:
        outcome.verdict = "unknown"
        outcome.reason = exc.reason
        outcome.bug = exc.bug
    outcome.seconds = budget.elapsed()
    outcome.queries = budget.queries
    return outcome


def _mass(model: MarkovModel, secret: int, env: dict[str, Fraction]) -> Poly:
    total = Poly.const(0)
    for p in model.secret_weights(secret).values():
        total = total + (p.substitute(env) if env else p)
    return total


def _rational_candidate(model: MarkovModel, cand: z3.Solver, tvars: dict[str, z3.ArithRef], ctx: z3.Context,
                        budget: _Budget) -> dict[str, Fraction]:
    m = cand.model()
    values: dict[str, Fraction] = {}
    depth = 0
    try:
        for name, var in tvars.items():
            chosen = None
            for c in _candidates(m.eval(var, model_completion=True), *_range(model, name)):
                cand.push()
                depth += 1
                cand.add(var == rv(c, ctx))
                cand.set("timeout", budget.remaining_ms())
                budget.queries += 1
                r = cand.check()
                if r == z3.unknown:
                    solver_gave_up(cand)
                if r == z3.sat:
                    chosen = c
                    m = cand.model()
                    break
                cand.pop()
                depth -= 1
            if chosen is None:
                raise _Unknown(f"no rational value of `{name}` was found")
            values[name] = chosen
    finally:
        if depth:
            cand.pop(depth)
    return values


def _confirm_found(model: MarkovModel, theta: dict[str, Fraction], outcome: Outcome) -> bool:
    """Re-check found values concretely: constraints hold exactly, and, when the
    number of sequences is small, every sequence is enumerated exactly."""
    if not all(c.holds(theta) for c in model.constraints if (c.left.variables() | c.right.variables())
               <= set(theta)):
        return False
    outcome.confirmed_by.append("smt")
    if model.symbolic_params and set(model.symbolic_params) - set(theta):
        return True          # other parameters stay symbolic: the SMT check covers them
    num = model.numeric(theta)
    count = num.n_obs ** model.horizon * num.n_actions ** max(0, model.horizon - 1)
    if count > ENUM_CONFIRM_LIMIT:
        return True
    for pair, left, right in directions(model):
        res = enumerate_check(num, num.conditioned(model.secrets[left].states),
                              num.conditioned(model.secrets[right].states), model.horizon,
                              model.epsilon.exact_bound, model.epsilon.value, prune=True)
        if res.violation is not None:
            return False
    outcome.confirmed_by.append("enumeration")
    return True


def _rechecked(model: MarkovModel, env: dict[str, Fraction] | None, pair: SecretPair, left: int, right: int,
               w: list[int], a: list[int], p_left: Fraction, p_right: Fraction) -> Violation:
    """A violation found by an exact engine, computed again by the plain forward
    recursion over rationals (:func:`_exact_violation`, as for SMT's witnesses)
    before anything prints it; a mismatch is a bug in dslc, never a verdict."""
    values = dict(env or {})
    v = _exact_violation(model, pair, left, right, w, a, values, values)
    if v is None or (v.p_left, v.p_right) != (p_left, p_right):
        raise RuntimeError("a witness of the exact enumeration failed its exact re-check")
    return v


def enumerate_model(model: MarkovModel, env: dict[str, Fraction] | None = None,
                    deadline: float | None = None, prune: bool = False,
                    dirs: list | None = None) -> tuple[Violation | None, int, bool]:
    """The enumeration baseline over every direction (numeric models)."""
    num: NumericModel = model.numeric(env or {})
    total = 0
    for pair, left, right in dirs or directions(model):
        res = enumerate_check(num, num.conditioned(model.secrets[left].states),
                              num.conditioned(model.secrets[right].states), model.horizon,
                              model.epsilon.exact_bound, model.epsilon.value, prune=prune, deadline=deadline)
        total += res.sequences
        if not res.complete:
            return None, total, False
        if res.violation is not None:
            return _rechecked(model, env, pair, left, right, *res.violation), total, True
    return None, total, True


def explore_model(model: MarkovModel, env: dict[str, Fraction] | None = None,
                  deadline: float | None = None, dirs: list | None = None) -> tuple[Violation | None, int, bool]:
    """The exact set-DP engine over every direction (numeric models)."""
    num: NumericModel = model.numeric(env or {})
    widest = 0
    for pair, left, right in dirs or directions(model):
        res = explore_check(num, num.conditioned(model.secrets[left].states),
                            num.conditioned(model.secrets[right].states), model.horizon,
                            model.epsilon.exact_bound, model.epsilon.value, deadline=deadline)
        widest = max(widest, res.widest)
        if not res.complete:
            return None, widest, False
        if res.violation is not None:
            return _rechecked(model, env, pair, left, right, *res.violation), widest, True
    return None, widest, True


@dataclass
class PruneStats:
    """What the pruned enumeration did over every pair of a model."""
    work: int = 0                  # node_cost × prefixes expanded
    nodes: int = 0
    sequences: int = 0
    cut: int = 0
    merged: int = 0
    complete: bool = True


def prune_model(model: MarkovModel, env: dict[str, Fraction] | None = None, *, deadline: float | None = None,
                max_work: int | None = None, **options) -> tuple[list, list, PruneStats]:
    """The pruned enumeration (:func:`dslc.bounded.exact.pruned_check`: both
    directions of a pair in one walk, ratio bounds, look-ahead, merging) over
    every pair.  Returns (decided, undecided, stats): ``decided`` lists
    (direction, Violation or None) and ``undecided`` the directions left
    open when ``max_work`` or ``deadline`` stopped the walk, both in the order of
    :func:`directions`."""
    num: NumericModel = model.numeric(env or {})
    stats = PruneStats()
    decided: list = []
    undecided: list = []
    look = Lookahead(num, model.horizon - 1)
    for pair in model.pairs:
        x, y = pair.left, pair.right
        left_over = None if max_work is None else max(0, max_work - stats.work)
        res = pruned_check(num, num.conditioned(model.secrets[x].states), num.conditioned(model.secrets[y].states),
                           model.horizon, model.epsilon.exact_bound, model.epsilon.value, deadline=deadline,
                           max_work=left_over, bounds=look, **options)
        stats.work += res.work
        stats.nodes += res.nodes
        stats.sequences += res.sequences
        stats.cut += res.cut
        stats.merged += res.merged
        stats.complete = stats.complete and res.complete
        for (left, right), hit in zip(((x, y), (y, x)), res.violations):
            if hit is not None:
                decided.append(((pair, left, right), _rechecked(model, env, pair, left, right, *hit)))
            elif res.complete:
                decided.append(((pair, left, right), None))
            else:
                undecided.append((pair, left, right))
    return decided, undecided, stats


def enumeration_estimate(model: MarkovModel, limit: int | None = None) -> int | None:
    """An upper bound of the work of the pruned enumeration over every pair
    (:func:`dslc.bounded.exact.enumeration_work`: the prefixes with α ≠ 0,
    counted exactly, plus those with β ≠ 0 — the walk expands no other), or
    None when the model is symbolic or the bound exceeds ``limit`` (default
    :data:`ENUM_WORK_LIMIT`)."""
    if limit is None:
        limit = ENUM_WORK_LIMIT
    if model.symbolic_params or model.find or limit <= 0:
        return None
    num = model.numeric({})
    total = 0
    for _pair, left, _right in directions(model):
        work = enumeration_work(num, num.conditioned(model.secrets[left].states), model.horizon,
                                limit - total)
        if work is None:
            return None
        total += work
    return total


def choose_engine(model: MarkovModel, requested: str = "auto") -> tuple[str, int | None]:
    """The engine for a `check` of ``model``: ``requested`` unless it is
    "auto"; then, for numeric models, "enum" (the pruned enumeration) when
    the bound of its work (:func:`enumeration_estimate`) is at most
    :data:`ENUM_WORK_LIMIT` and half of what :data:`ENUM_RATE` gets through
    in the block's time limit (``--timeout``); "probe" (the pruned enumeration under a
    work cap, then SMT for what it leaves open, :func:`check_probe`) when the
    bound is larger; "smt" for symbolic parameters, `find`, or
    ENUM_WORK_LIMIT ≤ 0.  Returns (engine, the bound or None)."""
    if model.find or model.symbolic_params:
        return "smt", None
    if requested in ("smt", "dp", "enum", "enum-plain", "probe"):
        return requested, None
    if ENUM_WORK_LIMIT <= 0:
        return "smt", None
    # the block's time limit, not the time left: the choice (which the report
    # names) is a function of the model and the options, never of the clock
    total = limits.current().seconds
    limit = ENUM_WORK_LIMIT if total is None else min(ENUM_WORK_LIMIT, int(ENUM_RATE * total / 2))
    work = enumeration_estimate(model, limit)
    return ("enum" if work is not None else "probe"), work


def check_exact(model: MarkovModel, timeout: float = 60.0, engine: str = "dp") -> Outcome:
    """Decide a numeric model without SMT: ``enum`` (the pruned enumeration,
    :func:`prune_model`), ``enum-plain`` (every sequence with a positive
    probability under the left side, one direction at a time — the
    enumeration before the ratio pruning) or ``dp`` (exact set-DP).  Same
    verdicts as :func:`check_model`; "unknown" when the time runs out."""
    start = time.perf_counter()
    deadline = start + timeout
    outcome = Outcome("private")
    if engine == "enum":
        decided, undecided, _stats = prune_model(model, deadline=deadline)
        if undecided:
            checkpoint()             # the block's budget spent: E014, like every block
            outcome.verdict = "unknown"
            outcome.reason = "the time limit was reached"
        outcome.violations = [v for _d, v in decided if v is not None]
    else:
        for pair, left, right in directions(model):
            one = [(pair, left, right)]
            if engine == "dp":
                v, _w, complete = explore_model(model, deadline=deadline, dirs=one)
            else:
                v, _n, complete = enumerate_model(model, deadline=deadline, dirs=one, prune=True)
            if not complete:
                checkpoint()
                outcome.verdict = "unknown"
                outcome.reason = "the time limit was reached"
                continue
            if v is not None:
                outcome.violations.append(v)
    if outcome.violations:
        outcome.verdict = "violation"
    outcome.seconds = time.perf_counter() - start
    return outcome


def probe_work(timeout: float) -> int:
    """The work cap of the probe for a block whose time limit is ``timeout``
    seconds (the limit, not the time left: the cap, and so the report, is a
    function of the model and the options)."""
    return min(ENUM_PROBE_WORK, ENUM_WORK_LIMIT, int(ENUM_RATE * timeout * PROBE_SHARE))


def check_probe(model: MarkovModel, timeout: float = 60.0, *, style: str = "improved",
                max_work: int | None = None) -> tuple[Outcome, str, PruneStats]:
    """The pruned enumeration with at most ``max_work`` operations (default
    :data:`ENUM_PROBE_WORK`, :func:`probe_work`; the clock only as a safety net); the
    directions it leaves undecided are checked with SMT in the time left.  A
    violation or a complete walk is final, so the verdict is that of SMT
    alone.  Returns (outcome, "enum" when SMT was not needed else "smt",
    what the enumeration did)."""
    start = time.perf_counter()
    if max_work is None:
        max_work = probe_work(timeout)
    if max_work > 0:
        decided, undecided, stats = prune_model(model, deadline=start + timeout * PROBE_DEADLINE_SHARE,
                                                max_work=max_work)
    else:
        decided, undecided, stats = [], directions(model), PruneStats(complete=False)
    if not undecided:
        outcome = Outcome("private", violations=[v for _d, v in decided if v is not None])
        if outcome.violations:
            outcome.verdict = "violation"
        outcome.seconds = time.perf_counter() - start
        return outcome, "enum", stats
    rest = timeout - (time.perf_counter() - start)
    smt = check_model(model, max(rest, 0.001), style=style, dirs=undecided)
    # merge, in the order of directions(): the enumeration's violations and SMT's answers
    by_dir = {(id(p), a, b): v for (p, a, b), v in decided}
    smt_found = {(id(v.pair), v.left, v.right): v for v in smt.violations}
    outcome = Outcome("private", queries=smt.queries)
    for pair, left, right in directions(model):
        key = (id(pair), left, right)
        v = by_dir.get(key) or smt_found.get(key)
        if v is not None:
            outcome.violations.append(v)
    if outcome.violations:
        outcome.verdict = "violation"
    elif smt.verdict == "unknown":
        outcome.verdict, outcome.reason, outcome.bug = "unknown", smt.reason, smt.bug
    outcome.seconds = time.perf_counter() - start
    return outcome, "smt", stats
