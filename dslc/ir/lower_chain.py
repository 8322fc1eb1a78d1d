"""Lower a `chain` AST to :class:`dslc.ir.chain.ChainIR`, validating it.

Every problem becomes an E24x/E25x diagnostic pointing at the setting,
row or entry at fault; all problems of a block are reported together.
"""

from __future__ import annotations

from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.diagnostics.suggest import did_you_mean
from dslc.ir.evaluate import Constants, NotConstant, evaluate
from dslc.ir.chain import ChainIR, ChainModel, ChainQuery, ChainState
from dslc.ir import chain_structure as markov
from dslc.numbers import fmt_fraction as fmt_q
from dslc.syntax.chain import ChainBlock, ChainList, ChainMatrix, ChainQueryKind, ChainSetting
from dslc.source import Span
from dslc.syntax import ast

MAX_LENGTH = 10 ** 12
METHODS = ("auto", "exact", "approx")
KEY_WORDS = {"states": "`states`", "initial": "`initial`", "transition": "`transition`",
             "length": "`length`", "query": "`query`", "epsilon": "`ε`", "method": "`method`"}


class _Bad(Exception):
    def __init__(self, diag: Diagnostic):
        self.diag = diag


def const(expr: ast.Expr) -> Fraction:
    """Exact value of a constant expression (the one evaluator, over plain
    rationals); raises _Bad otherwise: E242 for what is not a number, E008
    for a division by zero, E011/E012 for values or expressions too large."""
    try:
        return evaluate(expr, Constants())
    except NotConstant as exc:
        node = exc.node
        what = {ast.Eps: "`ε`", ast.Name: "a name", ast.Draw: "a draw", ast.Read: "`read()`",
                ast.Symbol: "a symbol"}.get(type(node), "this expression")
        raise _Bad(error("E242", f"expected an exact rational number, found {what}", node.span,
                         "not a number")
                   .with_help("write numbers such as `1/7`, `0.25` or `1 - 1/7`")) from None
    except DiagnosticError as exc:
        raise _Bad(exc.diagnostics[0]) from None


def lower_chain(block: ChainBlock) -> tuple[ChainIR | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []

    def guard(fn, *args):
        try:
            return fn(*args)
        except _Bad as bad:
            diags.append(bad.diag)
            return None

    top = _settings(block.settings, diags, allowed=None)
    states = guard(_states, top.get("states"), block)
    length, length_span = guard(_length, top.get("length"), block) or (None, None)
    eps, eps_span = guard(_epsilon, top.get("epsilon"), block) or (None, None)
    method, method_span = guard(_method, top.get("method")) or ("auto", None)

    models: list[ChainModel] = []
    if states is not None:
        k = len(states)
        if block.models and ("transition" in top or "initial" in top):
            first = top.get("transition") or top.get("initial")
            diags.append(error("E253", "a block with `model` blocks cannot also have a top-level "
                                       f"{KEY_WORDS[first.key]}", first.key_span, "top-level setting")
                         .secondary(block.models[0].name_span, "model declared here")
                         .with_help("move the top-level `initial`/`transition` into a `model`, "
                                    "or remove the `model` blocks"))
        elif block.models:
            seen: dict[str, Span] = {}
            for decl in block.models:
                if decl.name in seen:
                    diags.append(error("E253", f"model `{decl.name}` is declared twice",
                                       decl.name_span, "second declaration")
                                 .secondary(seen[decl.name], "first declared here")
                                 .with_help("give each model of Θ its own name"))
                    continue
                seen[decl.name] = decl.name_span
                settings = _settings(decl.settings, diags, allowed={"initial", "transition"})
                model = guard(_model, decl.name, decl.span, decl.name_span, settings, k, True)
                if model is not None:
                    models.append(model)
        else:
            model = guard(_model, block.name, block.span, block.name_span, top, k, False)
            if model is not None:
                models.append(model)

    query = None
    if states is not None:
        query = guard(_query, top.get("query"), block, states)

    if method == "approx":
        for m in models:
            if not m.ergodic:
                what = ("reducible (not every state can reach every other)" if not m.irreducible
                        else f"periodic (period {m.period})")
                diags.append(error("E251", f"`method = approx` needs an irreducible, aperiodic chain; "
                                           f"`{m.name}` is {what}", m.transition_span,
                                   "this chain")
                             .secondary(method_span, "the eigen-gap bound is requested here")
                             .with_help("use `method = exact` or `method = auto`; they work for "
                                        "every chain"))

    if diags or states is None or query is None or length is None or eps is None or not models:
        return None, diags
    ir = ChainIR(block.name, block.name_span, block.span, states, models, length, length_span,
                 query, eps, eps_span, method, method_span)
    problem = _out_of_range(ir)
    if problem is not None:
        return None, [problem]
    return ir, []


RANGE = Fraction(10) ** 300      # noise scales and released values are binary64 numbers


def _out_of_range(ir: ChainIR) -> Diagnostic | None:
    """E254 when ε, a noise scale or a query value would leave the range of
    binary64 (the Markov Quilt search, the printed scales and the sampler of
    `dslc release` are floating point): 10^-300 < ε < 10^300,
    T·L/ε ≤ 10^300 and T·max|value| ≤ 10^300."""
    eps, T, L = ir.epsilon, ir.length, ir.query.lipschitz
    biggest = max((abs(v) for v in ir.state_values() or []), default=Fraction(0))
    if not (1 / RANGE < eps < RANGE):
        what, span = f"ε = {fmt_q(eps, short=True)} is outside the range 10^-300 … 10^300", ir.epsilon_span
    elif T * L / eps > RANGE:
        what, span = f"the group-DP noise scale T·L/ε = {fmt_q(T * L / eps, short=True)} is above 10^300", \
            ir.epsilon_span
    elif T * biggest > RANGE:
        what, span = f"the query can reach {fmt_q(T * biggest, short=True)}, above 10^300", ir.query.span
    else:
        return None
    return (error("E254", f"cannot calibrate `{ir.name}`: {what}", span, "out of range")
            .note("noise scales, the Markov Quilt search and released values are binary64 numbers")
            .with_help("use ε, state values and a Lipschitz constant of reasonable size"))


# --------------------------------------------------------------- settings
def _settings(settings: list[ChainSetting], diags, allowed) -> dict[str, ChainSetting]:
    out: dict[str, ChainSetting] = {}
    for s in settings:
        if allowed is not None and s.key not in allowed:
            continue
        if s.key in out:
            diags.append(error("E241", f"{KEY_WORDS[s.key]} is given twice", s.key_span, "again here")
                         .secondary(out[s.key].key_span, "first given here")
                         .with_help("keep one of the two"))
            continue
        out[s.key] = s
    return out


def _missing(key: str, block: ChainBlock, hint: str) -> _Bad:
    return _Bad(error("E240", f"chain block `{block.name}` has no {KEY_WORDS.get(key, key)}",
                      block.name_span, f"{KEY_WORDS.get(key, key)} missing").with_help(hint))


def _states(setting: ChainSetting | None, block: ChainBlock) -> list[ChainState]:
    if setting is None:
        raise _missing("states", block, "list the state space, e.g. `states = [0, 1]` or "
                                        "`states = [sit, walk, run]`")
    lst = setting.value
    assert isinstance(lst, ChainList)
    if not lst.entries:
        raise _Bad(error("E243", "the state space is empty", lst.span, "no states")
                   .with_help("list at least one state, e.g. `states = [0, 1]`"))
    states: list[ChainState] = []
    seen: dict[str, Span] = {}
    for entry in lst.entries:
        if isinstance(entry.value, ast.Name):
            label = entry.value.name
            value = const(entry.assigned) if entry.assigned is not None else None
        else:
            if entry.assigned is not None:
                raise _Bad(error("E243", "a numeric state cannot be given another value",
                                 entry.span, "numeric state with `=`")
                           .with_help("write `name = value`, e.g. `walk = 1`"))
            try:
                value = const(entry.value)
            except _Bad:
                raise _Bad(error("E243", "a state is a name or a number", entry.value.span,
                                 "not a state")
                           .with_help("write states as names (`sit`) or numbers (`0`, `-1/2`)")) from None
            label = fmt_q(value)
        if label in seen:
            raise _Bad(error("E243", f"state `{label}` is declared twice", entry.span, "again here")
                       .secondary(seen[label], "first declared here")
                       .with_help("each state of the space is listed once"))
        seen[label] = entry.span
        states.append(ChainState(label, value, entry.span))
    return states


def _length(setting: ChainSetting | None, block: ChainBlock) -> tuple[int, Span]:
    if setting is None:
        raise _missing("length", block, "give the number of records, e.g. `length = 100`")
    try:
        value = Fraction(str(setting.value))
    except (ValueError, ZeroDivisionError):  # pragma: no cover - the grammar only lets numbers in
        value = Fraction(-1)
    if value.denominator != 1 or value < 1 or value > MAX_LENGTH:
        raise _Bad(error("E249", f"the length must be a positive integer, not {setting.value}",
                         setting.value_span, "not a positive integer")
                   .with_help(f"`length = T` counts the records X_1, …, X_T (1 ≤ T ≤ 10^12)"))
    return int(value), setting.value_span


def _epsilon(setting: ChainSetting | None, block: ChainBlock) -> tuple[Fraction, Span]:
    if setting is None:
        raise _missing("epsilon", block, "give the privacy parameter, e.g. `ε = 1`")
    value = const(setting.value)
    if value <= 0:
        raise _Bad(error("E248", f"ε must be positive, not {fmt_q(value)}", setting.value_span,
                         "ε ≤ 0")
                   .with_help("ε-Pufferfish privacy needs ε > 0, e.g. `ε = 1`"))
    return value, setting.value_span


def _method(setting: ChainSetting | None) -> tuple[str, Span | None]:
    if setting is None:
        return "auto", None
    if setting.value not in METHODS:
        close = did_you_mean(str(setting.value), METHODS)
        raise _Bad(error("E252", f"unknown method `{setting.value}`", setting.value_span,
                         close or "not a method")
                   .with_help("write `method = auto` (default), `exact` or `approx`"))
    return str(setting.value), setting.value_span


def _rational_list(lst: ChainList, k: int, what: str) -> list[Fraction]:
    if len(lst.entries) != k:
        raise _Bad(error("E244", f"{what} has {len(lst.entries)} entr{'y' if len(lst.entries) == 1 else 'ies'}, "
                                 f"but there are {k} states", lst.span,
                         f"{len(lst.entries)} entries")
                   .with_help("give one entry per state, in the order of `states`"))
    out = []
    for entry in lst.entries:
        if entry.assigned is not None:
            raise _Bad(error("E242", "`=` is only used in `states`", entry.span, "unexpected `=`")
                       .with_help("write the probabilities in the order of `states`"))
        out.append(const(entry.value))
    return out


def _model(name: str, span: Span, name_span: Span, settings: dict[str, ChainSetting],
           k: int, in_model: bool) -> ChainModel:
    trans = settings.get("transition")
    init = settings.get("initial")
    if trans is None:
        raise _Bad(error("E253" if in_model else "E240",
                         f"`{name}` has no transition matrix", name_span, "no `transition`")
                   .with_help("add `transition = [[...], ...]` with one row per state"))
    matrix = trans.value
    assert isinstance(matrix, ChainMatrix)
    if len(matrix.rows) != k:
        raise _Bad(error("E244", f"the transition matrix has {len(matrix.rows)} rows, but there are "
                                 f"{k} states", matrix.span, f"{len(matrix.rows)} rows")
                   .with_help("give one row per state, in the order of `states`"))
    P = []
    for idx, row in enumerate(matrix.rows):
        values = _rational_list(row, k, f"row {idx + 1} of the transition matrix")
        for entry, v in zip(row.entries, values):
            if v < 0:
                raise _Bad(error("E245", f"a transition probability is negative ({fmt_q(v)})",
                                 entry.span, "negative").with_help("probabilities are between 0 and 1"))
        total = sum(values, Fraction(0))
        if total != 1:
            raise _Bad(error("E245", f"row {idx + 1} of the transition matrix sums to {fmt_q(total)}, not 1",
                             row.span, f"sums to {fmt_q(total)}")
                       .with_help("each row is a distribution over the next state; use exact "
                                  "fractions such as `1/3` (sums are computed exactly)"))
        P.append(values)
    irreducible = markov.is_irreducible(P)
    per = markov.period(P) if irreducible else None
    pi = markov.stationary(P)
    if init is None:
        raise _Bad(error("E240", f"`{name}` has no initial distribution", name_span, "no `initial`")
                   .with_help("add `initial = [...]` (one probability per state) or "
                              "`initial = stationary`"))
    if init.value == "stationary":
        if pi is None:
            raise _Bad(error("E247", "`initial = stationary`, but this chain has more than one "
                                     "stationary distribution", init.value_span, "not unique")
                       .secondary(trans.value_span, "this chain has several closed classes")
                       .with_help("give the initial distribution explicitly"))
        q = pi
        declared = True
    else:
        lst = init.value
        assert isinstance(lst, ChainList)
        q = _rational_list(lst, k, "the initial distribution")
        for entry, v in zip(lst.entries, q):
            if v < 0:
                raise _Bad(error("E246", f"an initial probability is negative ({fmt_q(v)})",
                                 entry.span, "negative").with_help("probabilities are between 0 and 1"))
        total = sum(q, Fraction(0))
        if total != 1:
            raise _Bad(error("E246", f"the initial distribution sums to {fmt_q(total)}, not 1",
                             lst.span, f"sums to {fmt_q(total)}")
                       .with_help("P(X_1 = x) over all states sums to 1; or write `initial = stationary`"))
        declared = False
    stationary_start = pi is not None and list(q) == list(pi)
    return ChainModel(name, span, P, trans.value_span, [r.span for r in matrix.rows], list(q),
                      init.value_span, stationary_start, declared, irreducible, per, pi)


def _query(setting: ChainSetting | None, block: ChainBlock, states: list[ChainState]) -> ChainQuery:
    if setting is None:
        raise _missing("query", block, "say what is released: `query = sum`, `histogram`, "
                                       "`count(S)` or `lipschitz(L)`")
    q = setting.value
    assert isinstance(q, ChainQueryKind)
    k = len(states)
    if q.kind == "sum":
        for s in states:
            if s.value is None:
                raise _Bad(error("E250", f"`query = sum` needs a numeric value for state `{s.label}`",
                                 s.span, "no value")
                           .secondary(q.span, "the sum is asked for here")
                           .with_help(f"write `{s.label} = 1` (a value) in `states`, or use "
                                      "`count(S)` / `histogram`"))
        values = [s.value for s in states]
        return ChainQuery("sum", q.span, max(values) - min(values))  # type: ignore[type-var, operator]
    if q.kind == "histogram":
        return ChainQuery("histogram", q.span, Fraction(2 if k > 1 else 0), vector=True)
    if q.kind == "count":
        arg = q.arg
        label = None
        if isinstance(arg, ast.Name):
            label = arg.name
        else:
            try:
                label = fmt_q(const(arg))
            except _Bad:
                label = None
        index = next((i for i, s in enumerate(states) if s.label == label), None)
        if index is None:
            raise _Bad(error("E250", f"`count({arg.span.text})` names no declared state", arg.span,
                             "not a state")
                       .with_help("count one of: " + ", ".join(s.label for s in states)))
        return ChainQuery("count", q.span, Fraction(1), count_state=index)
    # lipschitz
    value = const(q.arg)
    if value < 0:
        raise _Bad(error("E250", f"a Lipschitz constant is at least 0, not {fmt_q(value)}",
                         q.arg.span, "negative")
                   .with_help("L bounds |F(x) − F(x′)| when one record changes"))
    return ChainQuery("lipschitz", q.span, value)
