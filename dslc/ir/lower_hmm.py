"""Lower an `hmm` / `mdp` block to the Markov IR and check its structure.

Everything that can be decided without a solver is checked here: unknown or
duplicate names, missing rows, numeric rows that do not sum to 1, negative
numbers, secrets of probability 0, a pair of a secret with itself, the form
of ε and k.  Facts about *symbolic* probabilities (a row sums to 1 under the
declared constraints, an entry is never negative, a secret has positive
probability) become :class:`Obligation` s that the Pufferfish backend proves
with z3.  Each problem is one `E2xx` diagnostic pointing at its row or
declaration; all problems of a block are reported, not just the first.
"""

from __future__ import annotations

from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.diagnostics.suggest import did_you_mean
from dslc.ir.hmm import (Constraint, Epsilon, MarkovModel, Obligation, ParamDecl, Poly, Secret,
                            SecretPair, fmt)
from dslc.ir.evaluate import evaluate, fraction_bits
from dslc.syntax import hmm as ms
from dslc.source import Span
from dslc.syntax import ast

MAX_HORIZON = 200


class _Bad(Exception):
    """An expression that cannot be lowered (a diagnostic was recorded)."""


class _PolyDomain:
    """Polynomials in the block's parameters, for :func:`dslc.ir.evaluate.evaluate`."""

    def __init__(self, lowerer: "_Lowerer", what: str, allow_params: bool):
        self.lw, self.what, self.allow_params = lowerer, what, allow_params

    def leaf(self, expr: ast.Expr) -> Poly:
        lw, what = self.lw, self.what
        if isinstance(expr, ast.Num):
            return Poly.const(expr.value)
        if isinstance(expr, ast.Name):
            name = expr.name
            if name in lw.fixed:
                return Poly.const(lw.fixed[name])
            if name in lw.params:
                if not self.allow_params:
                    lw.err("E213", f"{what} must be a number, not the parameter `{name}`", expr.span,
                           "a symbolic parameter", help="write a number here, or give the parameter a "
                           "value with `param NAME = VALUE`")
                    raise _Bad
                return Poly.var(name)
            lw.err("E212", f"unknown parameter `{name}`", expr.span, "not declared",
                   help=f"declare it with `param {name} in (0, 1)` or `param {name} = VALUE`")
            raise _Bad
        kind = {ast.Eps: "ε", ast.Draw: "a Laplace draw", ast.Read: "`read()`",
                ast.Symbol: "an output symbol"}.get(type(expr), "this expression")
        lw.err("E213", f"{kind} cannot appear in {what}", expr.span, "not allowed here",
               help="probabilities are numbers such as `3/4`, parameters and `+ - * /` of them")
        raise _Bad

    def add(self, a: Poly, b: Poly) -> Poly:
        return a + b

    def neg(self, a: Poly) -> Poly:
        return -a

    def mul(self, node: ast.BinOp, a: Poly, b: Poly) -> Poly:
        return a * b

    def div(self, node: ast.BinOp, a: Poly, b: Poly) -> Poly:
        if not b.is_const:
            self.lw.err("E213", f"{self.what} divides by a parameter", node.right.span,
                        "a divisor that depends on a parameter",
                        help="probabilities are polynomials in the parameters; multiply out, or "
                             "introduce a new parameter with an `assume` constraint")
            raise _Bad
        return a.scale(1 / b.value)

    def is_zero(self, a: Poly) -> bool:
        return a.is_zero

    def bits(self, a: Poly) -> int:
        return max((fraction_bits(c) for c in a.terms.values()), default=0)


class _Lowerer:
    def __init__(self, block: ms.MarkovBlock):
        self.block = block
        self.kind = block.kind
        self.diags: list[Diagnostic] = []
        self.params: dict[str, ParamDecl] = {}
        self.fixed: dict[str, Fraction] = {}

    # ------------------------------------------------------------ helpers
    def err(self, code: str, message: str, span: Span, label: str = "", help: str | None = None) -> Diagnostic:
        d = error(code, message, span, label)
        if help:
            d.with_help(help)
        self.diags.append(d)
        return d

    def poly(self, expr: ast.Expr, what: str, allow_params: bool = True) -> Poly:
        """Lower an expression to a polynomial (the one evaluator, in the domain
        of polynomials); raises _Bad after recording a diagnostic."""
        try:
            return evaluate(expr, _PolyDomain(self, what, allow_params))
        except DiagnosticError as exc:            # E008, E011, E012 from the evaluator
            self.diags.extend(exc.diagnostics)
            raise _Bad from None

    def const(self, expr: ast.Expr, what: str) -> Fraction:
        return self.poly(expr, what, allow_params=False).value

    # ------------------------------------------------------------ main
    def lower(self) -> MarkovModel | None:
        block = self.block
        items = block.items
        is_mdp = self.kind == "mdp"

        # -- names: states, observations, actions
        names: dict[str, dict[str, Span]] = {"states": {}, "observations": {}, "actions": {}}
        first_decl: dict[str, ms.MDeclare] = {}
        for item in items:
            if isinstance(item, ms.MDeclare):
                if item.what == "actions" and not is_mdp:
                    self.err("E221", "an `hmm` has no actions", item.keyword_span, "actions need an `mdp`",
                             help="write `mdp NAME { ... }` for a model whose transitions depend on "
                                  "actions chosen by the analyst")
                    continue
                first_decl.setdefault(item.what, item)
                table = names[item.what]
                for lab in item.labels:
                    if lab.name in table:
                        self.err("E204", f"{_singular(item.what)} `{lab.name}` is declared twice", lab.span,
                                 "second declaration", help="remove one of the two, or rename it")\
                            .secondary(table[lab.name], "first declared here")
                    else:
                        table[lab.name] = lab.span
        states = list(names["states"])
        observations = list(names["observations"])
        actions = list(names["actions"])
        if not states:
            self.err("E222", f"the {self.kind} `{block.name}` declares no states", block.name_span,
                     "no `states` line", help="list the hidden states: `states s1, s2, ...`")
        if not observations:
            self.err("E222", f"the {self.kind} `{block.name}` declares no observations", block.name_span,
                     "no `observations` line", help="list what can be observed: `observations yes, no`")
        if is_mdp and not actions:
            self.err("E221", f"the mdp `{block.name}` declares no actions", block.name_span,
                     "no `actions` line", help="list the analyst's actions: `actions L, H` (or write "
                     "`hmm` if there are none)")
        s_index = {n: i for i, n in enumerate(states)}
        o_index = {n: i for i, n in enumerate(observations)}
        a_index = {n: i for i, n in enumerate(actions)}
        n_actions = max(1, len(actions))

        # -- parameters (in order: a parameter's value may use earlier ones? no: constants only)
        for item in items:
            if isinstance(item, ms.MParam):
                self._param(item)

        constraints: list[Constraint] = []
        for p in self.params.values():
            if p.lo is not None:
                constraints.append(Constraint(Poly.var(p.name), ">" if p.lo_open else ">=",
                                              Poly.const(p.lo), p.span))
                constraints.append(Constraint(Poly.var(p.name), "<" if p.hi_open else "<=",
                                              Poly.const(p.hi), p.span))
        for item in items:
            if isinstance(item, ms.MAssume):
                try:
                    left = self.poly(item.left, "a constraint")
                    right = self.poly(item.right, "a constraint")
                except _Bad:
                    continue
                c = Constraint(left, item.op, right, item.span)
                if (left - right).is_const and not c.holds({}):
                    self.err("E218", "this constraint is false", item.span, "never holds",
                             help="remove it, or correct the numbers")
                constraints.append(c)

        obligations: list[Obligation] = []

        def state_of(lab: ms.MLabel) -> int | None:
            if lab.name in s_index:
                return s_index[lab.name]
            d = self.err("E201", f"unknown state `{lab.name}`", lab.span, "not a declared state",
                         help=_did_you_mean(lab.name, states, "states"))
            if "states" in first_decl:
                d.secondary(first_decl["states"].span, "states are declared here")
            return None

        def obs_of(lab: ms.MLabel) -> int | None:
            if lab.name in o_index:
                return o_index[lab.name]
            d = self.err("E202", f"unknown observation `{lab.name}`", lab.span, "not a declared observation",
                         help=_did_you_mean(lab.name, observations, "observations"))
            if "observations" in first_decl:
                d.secondary(first_decl["observations"].span, "observations are declared here")
            return None

        def dist(entries: list[ms.MEntry], resolve, what: str, span: Span, owner: str) -> dict[int, Poly] | None:
            """Lower a distribution; numeric checks now, symbolic ones as obligations."""
            out: dict[int, Poly] = {}
            seen: dict[int, Span] = {}
            ok = True
            for e in entries:
                target = resolve(e.label)
                prob: Poly | None
                try:
                    prob = Poly.const(1) if e.prob is None else self.poly(e.prob, "a probability")
                except _Bad:
                    prob = None
                    ok = False
                if target is None:
                    ok = False
                    continue
                if target in seen:
                    self.err("E208", f"`{e.label.name}` appears twice in {owner}", e.label.span,
                             "second entry", help="give each target once, with the total probability")\
                        .secondary(seen[target], "first entry")
                    ok = False
                    continue
                seen[target] = e.label.span
                if prob is None:
                    continue
                if prob.is_const:
                    if prob.value < 0:
                        self.err("E206", f"negative probability {fmt(prob.value)} for `{e.label.name}` in {owner}",
                                 e.span, "a probability is between 0 and 1",
                                 help="probabilities are between 0 and 1 and each row sums to 1")
                        ok = False
                else:
                    obligations.append(Obligation("nonneg", prob, e.span,
                                                  f"the probability of `{e.label.name}` in {owner}"))
                out[target] = prob
            if not ok:
                return None
            total = Poly.const(0)
            for p in out.values():
                total = total + p
            if total.is_const:
                if total.value != 1:
                    self.err("E205", f"{owner} sums to {fmt(total.value)}, not 1", span,
                             f"sums to {fmt(total.value)}",
                             help=_sum_help(total.value, what))
                    return None
            else:
                obligations.append(Obligation("sum-one", total, span, owner))
            return out

        # -- prior
        prior: dict[int, Poly] | None = None
        prior_ok = False
        prior_span = block.name_span
        for item in items:
            if isinstance(item, ms.MPrior):
                if prior is not None or prior_span is not block.name_span:
                    self.err("E208", "a second `prior`", item.keyword_span, "the prior is given twice",
                             help="give the whole initial distribution on one `prior` line")\
                        .secondary(prior_span, "first prior")
                    continue
                prior_span = item.span
                prior = dist(item.entries, state_of, "prior", item.span, "the prior")
                prior_ok = prior is not None
                prior = prior or {}
        if prior_span is block.name_span:
            self.err("E207", f"the {self.kind} `{block.name}` has no `prior`", block.name_span, "no prior",
                     help="give the initial distribution: `prior s1: 1/2, s2: 1/2`")
            prior = {}

        # -- transition rows
        trans: list[list[dict[int, Poly]]] = [[{} for _ in states] for _ in range(n_actions)]
        trans_spans: list[list[Span | None]] = [[None for _ in states] for _ in range(n_actions)]
        row_seen: dict[tuple[int, int | None], Span] = {}
        for item in items:
            if not isinstance(item, ms.MRow):
                continue
            s = state_of(item.source)
            act: int | None = None
            if item.action is not None:
                if not is_mdp:
                    # reported once; the row still counts as the state's row (no cascade of E207)
                    self.err("E221", "an `hmm` has no actions", item.action.span, "`on ACTION` needs an `mdp`",
                             help="drop `on ...`, or write `mdp NAME { ... }` and declare `actions`")
                elif item.action.name not in a_index:
                    self.err("E203", f"unknown action `{item.action.name}`", item.action.span,
                             "not a declared action", help=_did_you_mean(item.action.name, actions, "actions"))
                    continue
                else:
                    act = a_index[item.action.name]
            owner = f"the row of `{item.source.name}`" + (f" on `{item.action.name}`" if item.action else "")
            row = dist(item.entries, state_of, "row", item.span, owner)
            if s is None:
                continue
            clash = [k for k in row_seen if k[0] == s and (k[1] is None or act is None or k[1] == act)]
            if clash:
                what = f"`{item.source.name}`" + (f" on `{item.action.name}`" if item.action else "")
                d = self.err("E208", f"a second transition row for {what}", item.span, "second row",
                             help=None if is_mdp else "merge the two rows into one")
                d.secondary(row_seen[clash[0]], "first row")
                if is_mdp:
                    d.with_help("a state has either one row for every action (`s -> ...`) or one row "
                                "per action (`s on L -> ...`)")
                continue
            row_seen[(s, act)] = item.span
            targets = range(n_actions) if act is None else [act]
            for a in targets:
                trans_spans[a][s] = item.span
                if row is not None:
                    trans[a][s] = row
        for s, name in enumerate(states):
            missing = [a for a in range(n_actions) if trans_spans[a][s] is None]
            if not missing:
                continue
            if not is_mdp or len(missing) == n_actions:
                self.err("E207", f"state `{name}` has no transition row", names["states"][name],
                         "no `" + name + " -> ...` row",
                         help=f"every state needs a row; a state that stays put: `{name} -> {name}`")
            else:
                acts = ", ".join(f"`{actions[a]}`" for a in missing)
                self.err("E207", f"state `{name}` has no transition row for action{'s' if len(missing) > 1 else ''} {acts}",
                         names["states"][name], "rows missing",
                         help=f"add `{name} on {actions[missing[0]]} -> ...`, or give one row for every "
                              f"action: `{name} -> ...`")

        # -- observation rows
        emit: list[dict[int, Poly]] = [{} for _ in states]
        emit_spans: list[Span | None] = [None for _ in states]
        for item in items:
            if not isinstance(item, ms.MEmits):
                continue
            s = state_of(item.source)
            owner = f"the `emits` row of `{item.source.name}`"
            row = dist(item.entries, obs_of, "emits", item.span, owner)
            if s is None:
                continue
            if emit_spans[s] is not None:
                self.err("E208", f"a second `emits` row for `{item.source.name}`", item.span, "second row",
                         help="merge the two rows into one")\
                    .secondary(emit_spans[s], "first row")
                continue
            emit_spans[s] = item.span
            if row is not None:
                emit[s] = row
        for s, name in enumerate(states):
            if emit_spans[s] is None:
                obs_hint = observations[0] if observations else "OBS"
                self.err("E207", f"state `{name}` has no observation row", names["states"][name],
                         f"no `{name} emits ...` row",
                         help=f"every state emits an observation at every step: `{name} emits {obs_hint}`")

        # -- secrets and pairs
        secrets: list[Secret] = []
        s_by_name: dict[str, int] = {}
        for item in items:
            if not isinstance(item, ms.MSecret):
                continue
            if item.name in s_by_name:
                self.err("E204", f"secret `{item.name}` is declared twice", item.name_span, "second declaration",
                         help="give the second secret another name")\
                    .secondary(secrets[s_by_name[item.name]].name_span, "first declared here")
                continue
            members: list[int] = []
            ok = True
            for lab in item.states:
                s = state_of(lab)
                if s is None:
                    ok = False
                elif s not in members:
                    members.append(s)
            s_by_name[item.name] = len(secrets)
            secrets.append(Secret(item.name, item.span, item.name_span, members))
            if not ok or prior is None or not prior_ok:
                continue
            mass = Poly.const(0)
            for s in members:
                mass = mass + prior.get(s, Poly.const(0))
            if mass.is_const:
                if mass.value <= 0:
                    self.err("E209", f"secret `{item.name}` has prior probability 0", item.span,
                             "no initial state of this secret has positive prior probability",
                             help="each side of a pair is the prior conditioned on its secret, which needs "
                                  "probability > 0; change the prior or the secret")\
                        .secondary(prior_span, "the prior")
            else:
                obligations.append(Obligation("positive", mass, item.span, f"the prior probability of secret `{item.name}`"))

        pairs: list[SecretPair] = []
        for item in items:
            if not isinstance(item, ms.MProtect):
                continue
            ok = True
            for nm, sp in ((item.left, item.left_span), (item.right, item.right_span)):
                if nm not in s_by_name:
                    self.err("E211", f"unknown secret `{nm}`", sp, "not a declared secret",
                             help=_did_you_mean(nm, list(s_by_name), "secrets") + "; declare it with "
                                  f"`secret {nm} = {{state, ...}}`")
                    ok = False
            if not ok:
                continue
            if item.left == item.right:
                self.err("E210", f"the pair protects `{item.left}` from itself", item.span,
                         "a secret paired with itself",
                         help="a pair names two different secrets that must be indistinguishable, "
                              "e.g. `protect sick, healthy`")
                continue
            pairs.append(SecretPair(s_by_name[item.left], s_by_name[item.right], item.span))
        if not any(isinstance(i, ms.MProtect) for i in items):
            self.err("E217", f"the {self.kind} `{block.name}` protects no secret pair", block.name_span,
                     "no `protect` line", help="declare secrets and the pair to protect: "
                     "`secret a = {s1}`, `secret b = {s2}`, `protect a, b`")

        # -- check and find
        checks = [i for i in items if isinstance(i, ms.MCheck)]
        epsilon: Epsilon | None = None
        horizon: int | None = None
        check_span = block.name_span
        if not checks:
            self.err("E216", f"the {self.kind} `{block.name}` has no `check` line", block.name_span,
                     "nothing to check", help="say what to check: `check ε = ln 3, k = 2`")
        for extra in checks[1:]:
            self.err("E216", "a second `check` line", extra.keyword_span, "one check per block")\
                .secondary(checks[0].keyword_span, "first check")\
                .with_help("put each check in its own block")
        if checks:
            chk = checks[0]
            check_span = chk.span
            epsilon = self._epsilon(chk.epsilon)
            horizon = self._horizon(chk)

        find: list[str] = []
        find_span = None
        for item in items:
            if not isinstance(item, ms.MFind):
                continue
            if find_span is not None:
                self.err("E220", "a second `find` line", item.span, "one `find` per block")\
                    .secondary(find_span, "first `find`").with_help("list every parameter on one `find` line")
                continue
            find_span = item.span
            for nm, sp in item.names:
                p = self.params.get(nm)
                if p is None:
                    self.err("E220", f"`find` names `{nm}`, which is not a parameter", sp, "not declared",
                             help=f"declare it: `param {nm} in (0, 1)`")
                elif not p.symbolic:
                    self.err("E220", f"`find` names `{nm}`, which has a fixed value", sp, "fixed by `param`",
                             help="a parameter to find is declared with a range: "
                                  f"`param {nm} in (0, 1)`").secondary(p.span, "given a value here")
                elif nm not in find:
                    find.append(nm)

        if self.diags:
            return None
        assert prior is not None and epsilon is not None and horizon is not None
        return MarkovModel(
            name=block.name, kind=self.kind, name_span=block.name_span, span=block.span,
            states=states, state_spans=list(names["states"].values()),
            observations=observations, observation_spans=list(names["observations"].values()),
            actions=actions, action_spans=list(names["actions"].values()),
            params=self.params, constraints=constraints, prior=prior, prior_span=prior_span,
            trans=trans, trans_spans=trans_spans,  # type: ignore[arg-type]
            emit=emit, emit_spans=emit_spans,  # type: ignore[arg-type]
            secrets=secrets, pairs=pairs, epsilon=epsilon, horizon=horizon, check_span=check_span,
            find=find, find_span=find_span, obligations=obligations)

    # ------------------------------------------------------------ parts
    def _param(self, item: ms.MParam) -> None:
        if item.name in self.params:
            self.err("E204", f"parameter `{item.name}` is declared twice", item.name_span, "second declaration",
                     help="declare each parameter once")\
                .secondary(self.params[item.name].name_span, "first declared here")
            return
        decl = ParamDecl(item.name, item.span, item.name_span)
        try:
            if item.value is not None:
                decl.value = self.const(item.value, "the value of a parameter")
            elif item.range is not None:
                r = item.range
                decl.lo = self.const(r.lo, "a parameter bound")
                decl.hi = self.const(r.hi, "a parameter bound")
                decl.lo_open, decl.hi_open = r.lo_open, r.hi_open
                if decl.lo > decl.hi or (decl.lo == decl.hi and (r.lo_open or r.hi_open)):
                    self.err("E219", f"the range {decl.range_text()} of `{item.name}` is empty", r.span,
                             "no value lies in this range", help="write the lower bound first: `in (0, 1)`")
        except _Bad:
            pass
        self.params[item.name] = decl
        if decl.value is not None:
            self.fixed[item.name] = decl.value

    def _epsilon(self, eps: ms.MEpsilon) -> Epsilon | None:
        text = eps.span.text
        if eps.ambiguous:
            self.err("E214", f"`{text}` is ambiguous", eps.span, "ln of a fraction, or a fraction of ln?",
                     help="write `ln(3/2)` for the logarithm of 3/2; ε must be `ln R` or a number")
            return None
        try:
            if eps.ln_of is not None:
                base = self.const(eps.ln_of, "ε")
                if base < 1:
                    self.err("E214", f"ε = {text} is negative" if base > 0 else f"ln of {fmt(base)} is undefined",
                             eps.span, "ε must be ≥ 0", help="write `ε = ln R` with R ≥ 1, e.g. `ε = ln 3`")
                    return None
                return Epsilon(text, eps.span, ln_base=base)
            assert eps.value is not None
            value = self.const(eps.value, "ε")
            if value < 0:
                self.err("E214", f"ε = {text} is negative", eps.span, "ε must be ≥ 0",
                         help="privacy levels are non-negative: `ε = 1/2` or `ε = ln 3`")
                return None
            return Epsilon(text, eps.span, value=value)
        except _Bad:
            return None

    def _horizon(self, chk: ms.MCheck) -> int | None:
        if not chk.horizons:
            self.err("E215", "the check gives no horizon `k`", chk.span, "how many observations?",
                     help="add the length of the observation sequences: `check ε = ln 3, k = 2`")
            return None
        for _text, span in chk.horizons[1:]:
            self.err("E215", "`k` is given twice", span, "second `k`")
        text, span = chk.horizons[0]
        try:
            value = Fraction(text)
        except (ValueError, ZeroDivisionError):
            value = Fraction(-1)
        if value.denominator != 1 or value < 1 or "." in text:
            self.err("E215", f"the horizon k = {text} is not a positive integer", span,
                     "k counts observations (t = 0 .. k-1)", help="write `k = 2` for two observations")
            return None
        if value > MAX_HORIZON:
            self.err("E215", f"the horizon k = {text} is larger than {MAX_HORIZON}", span, "too long",
                     help=f"dslc checks sequences of up to {MAX_HORIZON} observations")
            return None
        return int(value)


def lower_markov(block: ms.MarkovBlock) -> tuple[MarkovModel | None, list[Diagnostic]]:
    low = _Lowerer(block)
    model = low.lower()
    return model, low.diags


# ------------------------------------------------------------------ words
def _singular(what: str) -> str:
    return {"states": "state", "observations": "observation", "actions": "action"}[what]


def _did_you_mean(name: str, options: list[str], what: str) -> str:
    return did_you_mean(name, options, what)


def _sum_help(total: Fraction, what: str) -> str:
    if what == "prior":
        return "the prior is a distribution over the initial states: its entries sum to 1"
    if what == "emits":
        return "each state emits one observation per step: the probabilities of its row sum to 1"
    return "each row is a distribution over next states: its probabilities sum to 1 " \
           "(a state that stays put: `s -> s`)"
