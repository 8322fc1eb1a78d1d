"""Lowering a Pufferfish check to SMT (z3).

Algorithm PufferfishCheck of the HMM paper: observation variables w_t
(t = 0 .. k-1), Select(w_t, o(s, ·)) by if-then-else, the forward sums α
(left secret) and β (right secret), and the query Σα_{k-1} > c · Σβ_{k-1},
which is satisfiable iff some observation sequence of length k violates
Pr(ω | left) ≤ c · Pr(ω | right).  For an `mdp` the adversary's actions are
variables a_t (t = 0 .. k-2) shared by both sides; the step from t to t+1
uses the row of action a_t.

Two encodings:

``improved`` (the default)
    one z3 Real variable per α_t(s) and β_t(s), defined by an equality, so the
    formula has O(k·|S|²) size; states unreachable at step t from the support
    of a side are left out, and w_t ranges only over observations that some
    reachable state can emit.  With numeric probabilities the query is linear
    (QF_LRA with if-then-else); with symbolic parameters it is polynomial
    (QF_NRA; the observation and action variables are reals restricted to
    0, 1, …, so the whole query stays in the theory that z3's nlsat decides).

``plain``
    the paper's algorithm literally: α and β are nested expressions
    (Product/Dot/Select) without auxiliary variables and without pruning.
    Used by the benchmark as a baseline.

With symbolic parameters the two sides are not normalised (that would divide
by a symbolic probability); the comparison is cross-multiplied instead:
α_un · Z_right > c · β_un · Z_left, where Z is the prior mass of a secret
(proved positive before any check runs).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import z3

from dslc import limits
from dslc.bounded.interrupt import checkpoint
from dslc.ir.hmm import MarkovModel, NumericModel, Poly

# The largest SMT query built (terms, see Encoder.query_size): about 0.5 GB and
# 20 s of building; beyond, the verdict is "unknown" at once (E230) rather than
# after the time limit with gigabytes of memory.
MAX_QUERY_TERMS = 100_000


def rv(value: Fraction, ctx: z3.Context) -> z3.ArithRef:
    value = Fraction(value)
    return z3.RealVal(f"{value.numerator}/{value.denominator}", ctx)


def poly_to_z3(poly: Poly, variables: dict[str, z3.ArithRef], ctx: z3.Context) -> z3.ArithRef:
    terms = []
    for mono, coeff in poly.terms.items():
        factors = [variables[name] ** power if power > 1 else variables[name] for name, power in mono]
        if coeff != 1 or not factors:
            factors.insert(0, rv(coeff, ctx))
        terms.append(factors[0] if len(factors) == 1 else z3.Product(*factors))
    if not terms:
        return rv(Fraction(0), ctx)
    return terms[0] if len(terms) == 1 else z3.Sum(*terms)


def z3_value(value: z3.ExprRef) -> Fraction | None:
    """A model value as an exact rational, or None if it is irrational (algebraic)."""
    if z3.is_rational_value(value):
        return Fraction(value.numerator_as_long(), value.denominator_as_long())
    if z3.is_int_value(value):
        return Fraction(value.as_long())
    return None


def z3_approx(value: z3.ExprRef, digits: int = 30) -> Fraction:
    """A rational approximation of a model value (exact if rational)."""
    exact = z3_value(value)
    if exact is not None:
        return exact
    if z3.is_algebraic_value(value):
        return z3_value(value.approx(digits)) or Fraction(0)
    return Fraction(0)


@dataclass
class Query:
    """The assertions of one check direction and its free variables."""
    assertions: list[z3.BoolRef]
    w: list[z3.ArithRef]            # observation variables (reals or ints holding an index)
    a: list[z3.ArithRef]            # action variables (mdp, k-1 of them)
    params: dict[str, z3.ArithRef]  # symbolic parameters still free
    ctx: z3.Context


class Encoder:
    """Builds the violation query `left over right` for one model.

    ``env`` fixes parameters (a `find` candidate being verified); any other
    symbolic parameter becomes a z3 Real constrained by the declarations.
    """

    def __init__(self, model: MarkovModel, *, env: dict[str, Fraction] | None = None,
                 style: str = "improved", ctx: z3.Context | None = None):
        self.model = model
        self.env = dict(env or {})
        self.style = style
        self.ctx = ctx or z3.Context()
        self.free = [p for p in model.symbolic_params if p not in self.env]
        self.symbolic = bool(self.free)
        self.params = {p: z3.Real(p, self.ctx) for p in self.free}
        self.numeric: NumericModel | None = None if self.symbolic else model.numeric(self.env)
        self._consts: dict[Fraction, z3.ArithRef] = {}

    # -- pieces
    def constraints(self) -> list[z3.BoolRef]:
        out = []
        for c in self.model.constraints:
            if not (c.left.variables() | c.right.variables()) & set(self.free):
                continue
            left = self.coef(c.left)
            right = self.coef(c.right)
            out.append({"=": left == right, "!=": left != right, "<": left < right, "<=": left <= right,
                        ">": left > right, ">=": left >= right}[c.op])
        return out

    def coef(self, poly: Poly) -> z3.ArithRef:
        if self.env:
            poly = poly.substitute(self.env)
        return poly_to_z3(poly, self.params, self.ctx)

    def _num(self, value) -> z3.ArithRef:
        value = Fraction(value)
        expr = self._consts.get(value)
        if expr is None:
            expr = self._consts[value] = rv(value, self.ctx)
        return expr

    def _var(self, name: str) -> z3.ArithRef:
        return z3.Real(name, self.ctx) if self.symbolic else z3.Int(name, self.ctx)

    def _index_domain(self, var: z3.ArithRef, allowed: list[int]) -> z3.BoolRef:
        if self.symbolic:
            return z3.Or(*[var == i for i in allowed]) if len(allowed) > 1 else var == allowed[0]
        if allowed == list(range(allowed[0], allowed[-1] + 1)):
            return z3.And(var >= allowed[0], var <= allowed[-1])
        return z3.Or(*[var == i for i in allowed])

    # -- the two distributions
    def side(self, secret: int) -> tuple[dict[int, z3.ArithRef], dict[int, Fraction | Poly], z3.ArithRef]:
        """Initial values (z3), their sparse source values, and the normaliser Z."""
        m = self.model
        if self.numeric is not None:
            dist = self.numeric.conditioned(m.secrets[secret].states)
            init = {s: p for s, p in enumerate(dist) if p}
            return {s: self._num(p) for s, p in init.items()}, init, self._num(Fraction(1))
        weights = {s: (p.substitute(self.env) if self.env else p) for s, p in m.secret_weights(secret).items()}
        weights = {s: p for s, p in weights.items() if not p.is_zero}
        z = Poly.const(0)
        for p in weights.values():
            z = z + p
        return {s: self.coef(p) for s, p in weights.items()}, weights, self.coef(z)

    def _prob(self, table_value) -> z3.ArithRef:
        return self._num(table_value) if isinstance(table_value, Fraction) else self.coef(table_value)

    def _rows(self):
        """trans[a][s] -> {t: value}, emit[s] -> {o: value} with zero entries removed."""
        if self.numeric is not None:
            return self.numeric.trans, self.numeric.emit
        sub = (lambda p: p.substitute(self.env)) if self.env else (lambda p: p)
        trans = [[{t: sub(p) for t, p in row.items() if not sub(p).is_zero} for row in rows] for rows in self.model.trans]
        emit = [{o: sub(p) for o, p in row.items() if not sub(p).is_zero} for row in self.model.emit]
        return trans, emit

    def query_size(self, left: int, right: int, k: int | None = None) -> int:
        """An upper bound of the number of terms of :meth:`violation`'s query,
        computed without building it (each term costs a few z3 objects, about
        5 KB of memory and 0.2 ms in all)."""
        k = k or self.model.horizon
        m = self.model
        n_act = m.n_actions
        if self.style == "plain":
            n = len(m.states)
            return 2 * k * n * (n * n_act + len(m.observations))
        trans, emit = self._rows()
        fan_in = [0] * len(m.states)
        for a in range(n_act):
            for row in trans[a]:
                for s2 in row:
                    fan_in[s2] += 1
        total = 0
        for secret in (left, right):
            if self.numeric is not None:
                reach = {s for s in m.secrets[secret].states if self.numeric.prior[s]}
            else:
                reach = set(m.secret_weights(secret))
            for _t in range(k):
                checkpoint()
                total += sum(fan_in[s] + len(emit[s]) + 1 for s in reach)
                nxt = set()
                for s in reach:
                    for a in range(n_act):
                        nxt.update(trans[a][s])
                reach = nxt
        return total

    def violation(self, left: int, right: int, c: Fraction, k: int | None = None) -> Query:
        """Assertions satisfiable iff some (observation, action) sequence of length k has
        Pr(ω | left) > c · Pr(ω | right)."""
        k = k or self.model.horizon
        if self.style == "plain":
            return self._plain(left, right, c, k)
        m = self.model
        ctx = self.ctx
        trans, emit = self._rows()
        n_act = m.n_actions
        a_vars = [self._var(f"a_{t}") for t in range(k - 1)] if n_act > 1 else []
        w_vars = [self._var(f"w_{t}") for t in range(k)]
        out: list[z3.BoolRef] = list(self.constraints())
        sums = []
        reach_all: list[set[int]] = [set() for _ in range(k)]
        sides = []
        for tag, secret in (("alpha", left), ("beta", right)):
            init, _src, z = self.side(secret)
            # states that can have positive mass at step t
            reach = [set(init)]
            for t in range(1, k):
                checkpoint()
                nxt = set()
                for s in reach[-1]:
                    for a in range(n_act):
                        nxt.update(trans[a][s])
                reach.append(nxt)
            for t in range(k):
                reach_all[t] |= reach[t]
            sides.append((tag, init, z, reach))
        # observation domains: what a reachable state can emit at step t
        for t in range(k):
            allowed = sorted({o for s in reach_all[t] for o in emit[s]})
            if not allowed:
                # no state can be reached: every sequence has probability 0 on both sides
                return Query([z3.BoolVal(False, ctx)], w_vars, a_vars, self.params, ctx)
            out.append(self._index_domain(w_vars[t], allowed))
        for t in range(k - 1 if n_act > 1 else 0):
            out.append(self._index_domain(a_vars[t], list(range(n_act))))

        zero = self._num(Fraction(0))
        rows = {s: sorted(emit[s].items()) for s in range(len(emit))}
        is_obs: dict[tuple[int, int], z3.BoolRef] = {}

        def obs_is(t: int, o: int) -> z3.BoolRef:
            cond = is_obs.get((t, o))
            if cond is None:
                cond = is_obs[(t, o)] = w_vars[t] == o
            return cond

        def select(t: int, s: int, mass: z3.ArithRef) -> z3.ArithRef:
            expr = zero
            row = rows[s]
            if len(row) == 1 and self.numeric is not None and row[0][1] == 1:
                return z3.If(obs_is(t, row[0][0]), mass, expr)
            for o, p in row:
                expr = z3.If(obs_is(t, o), self._prob(p) * mass, expr)
            return expr

        # predecessors: pred[a][s2] = [(s, p)] sorted by s
        pred: list[dict[int, list]] = []
        for a in range(n_act):
            checkpoint()
            into: dict[int, list] = {}
            for s, row in enumerate(trans[a]):
                for s2, p in row.items():
                    into.setdefault(s2, []).append((s, p))
            pred.append(into)

        for tag, init, z, reach in sides:
            prev: dict[int, z3.ArithRef] = {}
            for s, p in init.items():
                v = z3.Real(f"{tag}_0_{s}", ctx)
                out.append(v == select(0, s, p))
                prev[s] = v
            for t in range(1, k):
                cur: dict[int, z3.ArithRef] = {}
                for s2 in sorted(reach[t]):
                    checkpoint()
                    per_action = []
                    for a in range(n_act):
                        terms = [self._prob(p) * prev[s] for s, p in pred[a].get(s2, ()) if s in prev]
                        per_action.append(z3.Sum(*terms) if len(terms) > 1 else
                                          (terms[0] if terms else self._num(Fraction(0))))
                    if n_act > 1 and any(not per_action[0].eq(x) for x in per_action[1:]):
                        dot = per_action[-1]
                        for a in range(n_act - 2, -1, -1):
                            dot = z3.If(a_vars[t - 1] == a, per_action[a], dot)
                    else:
                        dot = per_action[0]
                    v = z3.Real(f"{tag}_{t}_{s2}", ctx)
                    out.append(v == select(t, s2, dot))
                    cur[s2] = v
                prev = cur
            total = z3.Sum(*prev.values()) if len(prev) > 1 else (next(iter(prev.values())) if prev
                                                                  else self._num(Fraction(0)))
            sums.append((total, z))
        (sum_l, z_l), (sum_r, z_r) = sums
        cval = self._num(c)
        if self.numeric is not None:
            out.append(sum_l > cval * sum_r)
        else:
            out.append(sum_l * z_r > cval * sum_r * z_l)
        return Query(out, w_vars, a_vars, self.params, ctx)

    # -- the paper's encoding, literally
    def _plain(self, left: int, right: int, c: Fraction, k: int) -> Query:
        m = self.model
        ctx = self.ctx
        n = len(m.states)
        n_obs = len(m.observations)
        n_act = m.n_actions
        trans, emit = self._rows()
        w_vars = [self._var(f"w_{t}") for t in range(k)]
        a_vars = [self._var(f"a_{t}") for t in range(k - 1)] if n_act > 1 else []
        zero = self._num(Fraction(0))

        def table(value) -> z3.ArithRef:
            return zero if value is None else self._prob(value)

        def select(var, options: list[z3.ArithRef]) -> z3.ArithRef:
            # ite(w = o_1, v_1, ite(w = o_2, v_2, ... ite(w = o_m, v_m, w)))
            expr = z3.ToReal(var) if z3.is_int(var) else var
            for i in range(len(options) - 1, -1, -1):
                expr = z3.If(var == i, options[i], expr)
            return expr

        def obs_select(t, s):
            return select(w_vars[t], [table(emit[s].get(o)) for o in range(n_obs)])

        sides = []
        for secret in (left, right):
            init_z3, _src, z = self.side(secret)
            alpha = [z3.Product(init_z3.get(s, zero), obs_select(0, s)) for s in range(n)]
            for t in range(1, k):
                nxt = []
                for s2 in range(n):
                    checkpoint()
                    if n_act > 1:
                        dot = z3.Sum(*[z3.Product(alpha[s], select(a_vars[t - 1], [table(trans[a][s].get(s2))
                                                                                  for a in range(n_act)]))
                                       for s in range(n)])
                    else:
                        dot = z3.Sum(*[z3.Product(alpha[s], table(trans[0][s].get(s2))) for s in range(n)])
                    nxt.append(z3.Product(dot, obs_select(t, s2)))
                alpha = nxt
            sides.append((z3.Sum(*alpha), z))
        out: list[z3.BoolRef] = list(self.constraints())
        for w in w_vars:
            out.append(self._index_domain(w, list(range(n_obs))))
        for a in a_vars:
            out.append(self._index_domain(a, list(range(n_act))))
        (sum_l, z_l), (sum_r, z_r) = sides
        if self.numeric is not None:
            out.append(sum_l > self._num(c) * sum_r)
        else:
            out.append(sum_l * z_r > self._num(c) * sum_r * z_l)
        return Query(out, w_vars, a_vars, self.params, ctx)


def solver_gave_up(solver: z3.Solver) -> str:
    """After an `unknown` answer: raise KeyboardInterrupt when z3 stopped on
    Ctrl-C (z3 catches SIGINT during a check and answers "unknown
    (interrupted from keyboard)"), raise :class:`limits.Cancelled` when the
    block's time budget is (all but) spent, else return z3's reason."""
    reason = solver.reason_unknown()
    if "interrupted" in reason:
        raise KeyboardInterrupt
    budget = limits.current()
    left = budget.remaining()
    if left is not None and left < 0.1 and ("timeout" in reason or "canceled" in reason or left <= 0):
        raise limits.Cancelled("timeout", budget.seconds)
    budget.check()
    return reason


def make_solver(query: Query, symbolic: bool, timeout_ms: int) -> z3.Solver:
    solver = z3.SolverFor("QF_NRA", ctx=query.ctx) if symbolic else z3.Solver(ctx=query.ctx)
    solver.set("timeout", max(1, int(timeout_ms)))
    solver.add(*query.assertions)
    return solver

