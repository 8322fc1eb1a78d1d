"""Releases: calls of mechanisms with shares of ε, composed against a budget.

    release census budget ε {
        above_threshold(T = 10) with ε/4      // sequential: costs add
        noisy_answer with ε/4
        on disjoint regions {                 // parallel: the maximum
            noisy_answer with ε/2
        }
    }

A call ``m(P = v) with S`` instantiates the parameters of ``m`` and runs it at
the share S of the release's ε: every rate of the callee is multiplied by S,
so a callee proven dε-private costs d·S (exactly: the checker's constant is
linear in the rates).  The instantiated, scaled automaton is checked like a
block of its own (:func:`instantiate`), which gives its proven constant and
its lower bound.

Composition (docs/composition.md): the calls of a release run one after
another on the same data, so their costs add (sequential composition);
the calls of a group ``on disjoint P`` read pairwise disjoint parts of the
data, so the group costs the largest of its calls (parallel composition).
A lower bound of the release is the largest lower bound of a call (the
release's output contains that call's output).

The IR keeps each call's instantiated automaton (:attr:`CallIR.dipa`) and
its place in the composition; :mod:`dslc.compose.inline` runs the calls in
order as one automaton with one stored variable per call and decides it, and
its d is reported beside the composed bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction

from dslc.compose.program import Definition, Module
from dslc.diagnostics.model import Diagnostic, error
from dslc.diagnostics.suggest import name_help
from dslc.ir.claims import lower_claims
from dslc.ir.dipa import DiPA
from dslc.ir.linear import constant_resolver, evaluate, evaluate_reported
from dslc.numbers import fmt_fraction, fmt_rate
from dslc.source import Span
from dslc.syntax import ast

CALLABLE = ("mechanism", "automaton")


@dataclass
class CallIR:
    index: int                         # place in the release (0, 1, … in the order of the text)
    callee: str
    span: Span                         # the whole call
    callee_span: Span
    share: Fraction                    # S of `with Sε`
    share_span: Span
    definition: Definition
    args: list[ast.CallArg] = field(default_factory=list)
    group: int | None = None           # the index of its `on disjoint` group in ReleaseIR.steps
    dipa: DiPA | None = None           # the instantiated automaton, every rate × share
    analysis: object = None            # dslc.dipa.backend.Analysis of ``dipa``

    @property
    def text(self) -> str:
        return self.span.text

    @property
    def head(self) -> str:
        """The call as written up to `with` (`above_threshold(T = 10)`)."""
        text = self.span.file.text[self.span.start:self.share_span.start].rstrip()
        return text[:-4].rstrip() if text.endswith("with") else text

    @property
    def d(self) -> Fraction | None:
        return proven_d(self.analysis)

    @property
    def lower(self):
        return self.analysis.lower if self.d is not None else None

    @property
    def d_lower(self) -> Decimal | None:
        lb = self.lower
        if lb is None or not lb.searched or lb.problem:
            return None
        return lb.value


def proven_d(analysis) -> Fraction | None:
    """A callee's proven constant: Δ·wt(A) of a one-variable automaton
    (dslc.dipa.backend), d of one with several variables (dslc.dipa.multi_backend);
    None when it is not proven private."""
    if analysis is None:
        return None
    found = analysis.check
    if hasattr(found, "well_formed"):
        return analysis.upper if found.well_formed else None
    return found.d if found.verdict == "private" else None


def unproven(analysis) -> str:
    """Why a checked callee has no proven constant: "not-private" or "unknown"."""
    return "unknown" if getattr(analysis.check, "verdict", None) == "unknown" else "not-private"


@dataclass
class GroupIR:
    """`on disjoint P { calls }`: parallel composition."""
    partition: str
    span: Span
    keyword_span: Span
    calls: list[CallIR] = field(default_factory=list)


Step = CallIR | GroupIR


@dataclass
class ReleaseIR:
    name: str
    span: Span                          # the name
    steps: list[Step] = field(default_factory=list)
    budget: Fraction | None = None      # D of `budget Dε`
    budget_span: Span | None = None
    module: Module | None = None
    project_budget: tuple | None = None   # (D, pyproject.toml path) of `[tool.dslc] budget`

    def calls(self) -> list[CallIR]:
        out: list[CallIR] = []
        for s in self.steps:
            out.extend(s.calls if isinstance(s, GroupIR) else [s])
        return out


# ------------------------------------------------------------------ lowering
def lower_release(block: ast.ReleaseBlock, module: Module) -> tuple[ReleaseIR | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    ir = ReleaseIR(block.name, block.name_span, module=module)
    claims, claim_diags = lower_claims(block.claims, constant_resolver({}))
    diags.extend(claim_diags)
    for c in block.claims:
        if c.kind == "sensitivity":
            diags.append(error("E178", "a release has no sensitivity of its own", c.span, "declared here")
                         .with_help("declare `sensitivity Δ` on the mechanism whose queries have it"))
    ir.budget, ir.budget_span = claims.budget, claims.budget_span
    if not block.items:
        diags.append(error("E178", f"release `{block.name}` calls no mechanism", block.name_span, "empty release")
                     .with_help("list calls such as `noisy_answer with ε/2` inside the braces"))
    index = 0
    partitions: dict[str, Span] = {}
    for item in block.items:
        if isinstance(item, ast.Disjoint):
            group = GroupIR(item.partition, item.span, item.keyword_span)
            if not item.calls:
                diags.append(error("E178", f"`on disjoint {item.partition}` holds no call", item.span, "empty group")
                             .with_help("put the calls that read the disjoint parts inside the braces"))
            for call in item.calls:
                c = _lower_call(call, index, module, block.name, diags)
                index += 1
                if c is not None:
                    c.group = len(ir.steps)
                    group.calls.append(c)
            partitions.setdefault(item.partition, item.partition_span)
            ir.steps.append(group)
        else:
            c = _lower_call(item, index, module, block.name, diags)
            index += 1
            if c is not None:
                ir.steps.append(c)
    return (None if diags else ir), diags


def _lower_call(call: ast.Call, index: int, module: Module, release: str,
                diags: list[Diagnostic]) -> CallIR | None:
    share = _share(call, diags)
    defn = module.lookup(call.callee)
    if defn is None:
        diag = error("E174", f"`{call.callee}` is neither defined in this file nor imported", call.callee_span,
                     "unknown mechanism")
        close = name_help(call.callee, [n for n in module.names() if n != release])
        diag.with_help(close or f"define `mechanism {call.callee} {{ … }}`, or import it: "
                                f"`import {call.callee} from stdlib`")
        diags.append(diag)
        return None
    kind = defn.chunk.keyword
    if call.callee == release and defn.imported_at is None:
        diags.append(error("E177", f"release `{release}` calls itself", call.callee_span, "this call")
                     .with_help("a release calls mechanisms"))
        return None
    if kind not in CALLABLE:
        why = ("Pufferfish privacy, which these blocks are checked for, does not compose in general"
               if kind in ("hmm", "mdp", "chain") else
               "a release is composed of mechanisms: call the mechanisms of that release here instead")
        diags.append(error("E177", f"`{call.callee}` is a `{kind}` block, and the composition theorems do not "
                                   f"cover calls of it", call.callee_span, f"a call of a `{kind}`")
                     .secondary(defn.span, "defined here").note(why)
                     .with_help("call `mechanism` or `automaton` blocks only"))
        return None
    if share is None:
        return None
    c = CallIR(index, call.callee, call.span, call.callee_span, share, call.share.span, defn, list(call.args))
    _check_args(c, defn, diags)
    return c


def _share(call: ast.Call, diags: list[Diagnostic]) -> Fraction | None:
    value = evaluate_reported(call.share, constant_resolver({}), "share of ε", diags)
    if value is None:
        return None
    if value.const != 0 or value.input != 0 or value.eps <= 0:
        reason = "it is not a multiple of ε" if value.const != 0 or value.input != 0 else "it is not positive"
        diags.append(error("E176", f"a share is a positive multiple of ε, but `{call.share.span.text}` is not",
                           call.share.span, reason)
                     .note("`with S` runs the mechanism with every rate multiplied by S")
                     .with_help("write e.g. `with ε/2` or `with 3/4 ε`"))
        return None
    return value.eps


def _check_args(c: CallIR, defn: Definition, diags: list[Diagnostic]) -> None:
    tree = defn.syntax()
    params = [p.name for p in tree.params] if isinstance(tree, ast.MechanismBlock) else []
    seen: dict[str, Span] = {}
    for arg in c.args:
        if arg.name in seen:
            diags.append(error("E175", f"argument `{arg.name}` is given twice", arg.name_span, "again here")
                         .secondary(seen[arg.name], "first given here").with_help("give each argument once"))
            continue
        seen[arg.name] = arg.name_span
        if arg.name not in params:
            what = (f"`{c.callee}` has no parameter `{arg.name}`" if params or tree is None
                    or isinstance(tree, ast.MechanismBlock) else f"`{c.callee}` is an automaton and takes no arguments")
            diag = error("E175", what, arg.name_span, "no such parameter").secondary(defn.span, "defined here")
            close = name_help(arg.name, params)
            diag.with_help(close or (f"its parameters are {', '.join(f'`{p}`' for p in params)}" if params
                                     else "call it without arguments"))
            diags.append(diag)
            continue
        evaluate_reported(arg.value, constant_resolver({}), f"argument `{arg.name}`", diags)


# ------------------------------------------------------------------ instantiation
def instantiate(defn: Definition, args: list[ast.CallArg], share: Fraction) -> tuple[DiPA | None, list[Diagnostic]]:
    """The callee with its parameters set by ``args`` and every rate × ``share``
    (its own `budget` dropped: the release's budget applies)."""
    from dslc.dipa.backend import lower
    tree = defn.syntax()
    if tree is None:
        return None, defn.module.syntax_errors(defn.chunk)
    if isinstance(tree, ast.MechanismBlock):
        given = {a.name: a.value for a in args}
        params = [replace(p, default=given[p.name]) if p.name in given else p for p in tree.params]
        tree = replace(tree, params=params, claims=[c for c in tree.claims if c.kind != "budget"])
    else:
        tree = replace(tree, claims=[c for c in tree.claims if c.kind != "budget"])
    dipa, diags = lower(tree)
    if dipa is None or diags:
        return None, diags
    for s in dipa.states:
        s.d *= share
        s.d_prime *= share
    dipa.budget, dipa.budget_span = None, None
    return dipa, []


def _arg_key(args: list[ast.CallArg]) -> tuple:
    out = []
    for a in args:
        try:
            v = evaluate(a.value, constant_resolver({}))
        except Exception:  # noqa: BLE001 - refused before (E175)
            v = a.value.span.text
        out.append((a.name, repr(v)))
    return tuple(sorted(out))


# ------------------------------------------------------------------ analysis
@dataclass
class Composition:
    d: Fraction | None                  # the composed constant (None when a call has none)
    d_lower: Decimal | None             # the largest lower bound of a call
    step_costs: list[Fraction | None]
    # calls without a d, and why: "errors", "not-private" or "unknown"
    failed: list[tuple[CallIR, list[Diagnostic], str]] = field(default_factory=list)
    budget: object = None               # dslc.dipa.budget.Budget
    status: str | None = None           # met | exceeded | not-proven
    overflow: CallIR | None = None      # the call that takes the release over its budget
    inlined: object = None              # dslc.compose.inline.Inlined: the calls run as one automaton


def analyse_release(ir: ReleaseIR, options, project_budget: Fraction | None = None) -> Composition:
    from dslc.dipa import backend as dipa_backend
    call_options = replace(options, max_d=None, witness=False)
    failed = []
    for c in ir.calls():
        key = (c.definition.chunk.start, _arg_key(c.args), c.share,
               call_options.lower_bound_work, call_options.lower_bound_time)
        memo = c.definition.module.memo
        if key not in memo:
            dipa, diags = instantiate(c.definition, c.args, c.share)
            analysis = dipa_backend.analyse(dipa, call_options) if dipa is not None else None
            memo[key] = (dipa, diags, analysis)
        c.dipa, diags, c.analysis = memo[key]
        if c.dipa is None:
            failed.append((c, diags, "errors"))
        elif c.d is None:
            failed.append((c, [], unproven(c.analysis)))
    costs = [step_cost(s) for s in ir.steps]
    total = None if failed or any(x is None for x in costs) else sum(costs, Fraction(0))
    lowers = [c.d_lower for c in ir.calls() if c.d_lower is not None]
    comp = Composition(total, max(lowers) if lowers else None, costs, failed)
    comp.budget = effective_budget(ir, getattr(options, "max_d", None), project_budget)
    if total is not None and comp.budget is not None:
        limit = comp.budget.limit
        if total <= limit:
            comp.status = "met"
        else:
            exceeding = [c for c in ir.calls() if c.lower is not None and c.lower.exceeds(limit)]
            if exceeding:
                comp.status, comp.overflow = "exceeded", exceeding[0]
            else:
                comp.status, comp.overflow = "not-proven", overflowing_call(ir, limit)
    from dslc.compose.inline import inline_release
    comp.inlined = inline_release(ir, comp)
    return comp


def step_cost(step: Step) -> Fraction | None:
    """A call's proven constant; a group's: the largest of its calls (parallel composition)."""
    if isinstance(step, GroupIR):
        costs = [c.d for c in step.calls]
        return None if not costs or any(x is None for x in costs) else max(costs)
    return step.d


def compose(steps: list[Step]) -> Fraction:
    """Sequential composition of the steps' costs."""
    return sum((step_cost(s) for s in steps), Fraction(0))


def overflowing_call(ir: ReleaseIR, limit: Fraction) -> CallIR:
    """The call at which the running total first goes above ``limit`` (in a
    group, its most expensive call)."""
    running = Fraction(0)
    last = None
    for s in ir.steps:
        running += step_cost(s)
        call = max(s.calls, key=lambda c: c.d) if isinstance(s, GroupIR) else s
        last = call
        if running > limit:
            return call
    return last


@dataclass
class ReleaseBudget:
    limit: Fraction
    source: str              # "declaration", "project" or "--max-d"
    span: Span | None
    project_file: str | None = None

    @property
    def text(self) -> str:
        return fmt_rate(self.limit) if self.limit else "0"


def effective_budget(ir: ReleaseIR, max_d: Fraction | None, project: tuple | Fraction | None) -> ReleaseBudget | None:
    """The tightest of the release's `budget`, the project's `[tool.dslc] budget`
    and `--max-d` (a tie goes to the declaration, then the project)."""
    options = []
    if ir.budget is not None:
        options.append(ReleaseBudget(ir.budget, "declaration", ir.budget_span))
    if project is not None:
        value, where = project if isinstance(project, tuple) else (project, None)
        options.append(ReleaseBudget(value, "project", None, where))
    if max_d is not None:
        options.append(ReleaseBudget(Fraction(max_d), "--max-d", None))
    best = None
    for b in options:
        if best is None or b.limit < best.limit:
            best = b
    return best


def rebalanced(ir: ReleaseIR, total: Fraction, limit: Fraction) -> str:
    """The help line: every share × limit/total fits the budget exactly."""
    if limit == 0:
        return "only calls whose mechanisms cost nothing fit a budget of 0"
    k = limit / total
    parts = [f"`{c.head} with {fmt_rate(c.share * k)}`" for c in ir.calls()]
    more = f" (and {len(parts) - 4} more)" if len(parts) > 4 else ""
    return f"to fit the budget, multiply every share by {fmt_fraction(k)}: write " + ", ".join(parts[:4]) + more
