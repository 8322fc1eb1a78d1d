"""Lowering of `automaton` blocks to the DiPA IR (names resolved, numbers exact)."""

from __future__ import annotations

from array import array
from fractions import Fraction
from itertools import accumulate, chain, compress, repeat
from operator import eq

from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, DiPA, Guard, OutKind, Output, State,
                          Transition, symbol, SILENT)
from dslc.ir.claims import lower_claims
from dslc.ir.flat_dipa import FlatDiPA, lookup
from dslc.ir.linear import NotLinear, constant_resolver, eval_rate, evaluate, not_linear_error
from dslc.source import Span
from dslc.syntax import ast

from dslc.native import module as _native      # name resolution in C, or None


def lower_automaton(block: ast.AutomatonBlock) -> tuple[DiPA | None, list[Diagnostic]]:
    if getattr(block, "flat", None) is not None:
        lowered = _lower_flat(block)
        if lowered is not None:
            return lowered
    from dslc.ir.lower_multi import lower_multi_automaton, uses_several_variables
    if uses_several_variables(block):     # several variables: dslc/ir/lower_multi.py
        return lower_multi_automaton(block)
    diags: list[Diagnostic] = []
    dipa = DiPA(block.name, span=block.name_span, kind="automaton")
    index: dict[str, int] = {}
    resolve = constant_resolver()
    claims, claim_diags = lower_claims(block.claims, resolve)
    diags.extend(claim_diags)
    _set_claims(dipa, claims)
    if not block.states:
        diags.append(error("E105", f"automaton `{block.name}` has no states", block.name_span,
                           "declare at least an initial state")
                     .with_help("add `state q0 noinput Lap(ε, 0) { true -> q1 store }` as the first state"))
        return None, diags
    for decl in block.states:
        if decl.name in index:
            diags.append(duplicate_state(decl, dipa.states[index[decl.name]].name_span))
            continue
        d, mu, d2, mu2, draw_span, prime_span = state_draws(decl, resolve, diags)
        index[decl.name] = dipa.add_state(State(decl.name, decl.is_input, d, mu, d2, mu2,
                                                span=decl.span, name_span=decl.name_span,
                                                draw_span=draw_span, prime_span=prime_span))
    seen: set[int] = set()
    for decl in block.states:
        src = index[decl.name]
        if src in seen:        # a duplicate declaration: already reported
            continue
        seen.add(src)
        for t in decl.transitions:
            guard = _guard(t.guard, diags)
            if t.target not in index:
                from dslc.diagnostics.suggest import did_you_mean  # only on this error (start-up)
                diag = error("E101", f"unknown state `{t.target}`", t.target_span, "no state has this name")
                diag.with_help(did_you_mean(t.target, index)
                               or f"declare it: `state {t.target} input Lap(ε, 0) {{ }}`")
                diags.append(diag)
                continue
            if guard is None:
                continue
            out = SILENT
            if t.output is not None:
                out = {"insample": OUT_INSAMPLE, "insample'": OUT_INSAMPLE_PRIME}.get(t.output.kind) \
                    or symbol(t.output.symbol or "")
            dipa.add_transition(Transition(
                src, guard, index[t.target], out, t.store, span=t.span, guard_span=t.guard.span,
                output_span=t.output.span if t.output else None, store_span=t.store_span,
                target_span=t.target_span))
    return dipa, diags


_ZERO = Fraction(0)


def duplicate_state(decl: ast.StateDecl, first: Span | None) -> Diagnostic:
    """E102: a second declaration of a state name (``first``: the first one's name)."""
    return (error("E102", f"state `{decl.name}` is declared twice", decl.name_span, "declared again here")
            .secondary(first, "first declared here")
            .with_help("rename one of the two states"))


def state_draws(decl: ast.StateDecl, resolve, diags: list[Diagnostic]):
    """(d, μ, d′, μ′, span of the draw, span of the second draw) of a state
    declaration; its problems are added to ``diags`` (then the parameters are 0)."""
    d = mu = d2 = mu2 = _ZERO
    draw_span = prime_span = None
    try:
        draws = decl.draws
        if draws[0].prime or (len(draws) > 1 and not draws[1].prime):
            bad = draws[0] if draws[0].prime else draws[1]
            raise DiagnosticError(error(
                "E118", "a state draws `Lap(rate, mean)` and optionally `Lap'(rate, mean)`, in that order",
                bad.span, "unexpected draw here")
                .with_help("write `state q input Lap(ε/4, 0), Lap'(ε/9, 0) { ... }`"))
        d, mu = _draw_params(draws[0], resolve)
        draw_span = draws[0].span
        if len(draws) > 1:
            d2, mu2 = _draw_params(draws[1], resolve)
            prime_span = draws[1].span
    except DiagnosticError as exc:
        diags.extend(exc.diagnostics)
    return d, mu, d2, mu2, draw_span, prime_span


def _lower_flat(block) -> tuple[DiPA, list[Diagnostic]] | None:
    """A block read flat (:class:`dslc.syntax.fast_automaton.FlatAutomatonBlock`)
    lowered column by column to a :class:`FlatDiPA`: the draws, guards and
    outputs of each distinct shape of state are evaluated once, names are
    resolved with one dictionary.  None when anything needs a diagnostic;
    the caller then lowers the block state by state (same code, same
    messages)."""
    cols = block.flat
    n = len(cols.names)
    if n == 0 or (cols.targets is None and cols.target_spans is None):    # lowered before: targets dropped
        return None
    resolve = constant_resolver()
    claims, claim_diags = lower_claims(block.claims, resolve)
    if claim_diags:
        return None
    classes: dict[tuple[Fraction, Fraction, Fraction, Fraction], int] = {}
    kinds: dict[tuple[Guard, Output, bool], int] = {}
    shape_class, shape_input, shape_kinds, shape_rules, shape_rate = [], [], [], [], []
    for shape in cols.shapes:
        draws = shape.draws
        if draws[0].prime or (len(draws) > 1 and not draws[1].prime):
            return None
        try:
            d, mu = _draw_params(draws[0], resolve)
            d2, mu2 = _draw_params(draws[1], resolve) if len(draws) > 1 else (_ZERO, _ZERO)
        except DiagnosticError:
            return None
        shape_class.append(classes.setdefault((d, mu, d2, mu2), len(classes)))
        shape_input.append(1 if shape.is_input else 0)
        ids, ts = [], []
        for guard_decl, out_decl, store in shape.transitions:
            problems: list[Diagnostic] = []
            guard = _guard(guard_decl, problems)
            if guard is None or problems:
                return None
            out = SILENT
            if out_decl is not None:
                out = {"insample": OUT_INSAMPLE, "insample'": OUT_INSAMPLE_PRIME}.get(out_decl.kind) \
                    or symbol(out_decl.symbol or "")
            ids.append(kinds.setdefault((guard, out, store), len(kinds)))
            ts.append((guard, out))
        shape_kinds.append(tuple(ids))
        # Definition 3 (dslc/ir/validate.py) looks only at states of shapes that may break it
        guards = [g for g, _o in ts]
        pair_ok = len(ts) < 2 or (set(guards) == {Guard.GE, Guard.LT} and ts[0][1] != ts[1][1]
                                  and not (ts[0][1].is_real and ts[1][1].is_real))
        shape_rules.append(0 if pair_ok and (shape.is_input or all(g is Guard.TRUE for g in guards)) else 1)
        shape_rate.append(1 if d == 0 or (d2 == 0 and any(o.kind is OutKind.INSAMPLE_PRIME for _g, o in ts)) else 0)
    shape_id = cols.shape_id
    counts = bytes(map(len, shape_kinds))
    if cols.target_spans is not None:         # read in C: names and targets are offsets
        dst = _resolve_spans(cols.source.text, cols.names.spans, cols.target_spans)
    else:
        dst = _resolve(cols.names, cols.target_ids, cols.targets)
    if dst is None:                           # a name declared twice (E102) or unknown (E101)
        return None
    cols.targets = cols.target_ids = cols.target_spans = None     # not needed again
    dipa = FlatDiPA.build(block, cols.names,
                          lookup(shape_input, shape_id, bytes), lookup(shape_class, shape_id, array),
                          list(classes), lookup(counts, shape_id, bytes), dst,
                          _kind_ids(shape_kinds, shape_id), list(kinds),
                          shape_id, shape_rules, shape_rate)
    _set_claims(dipa, claims)
    return dipa, []


def _kind_ids(shape_kinds: list[tuple[int, ...]], shape_id: array) -> array:
    """The kind of every transition: those of its state's shape, state after state."""
    if _native is not None:
        start = array("i", [0])
        start.extend(accumulate(map(len, shape_kinds)))
        out = array("i")
        out.frombytes(_native.spread(array("i", chain.from_iterable(shape_kinds)), start, shape_id))
        return out
    return array("i", chain.from_iterable(map(shape_kinds.__getitem__, shape_id)))


def _resolve_spans(text: str, names: array, targets: array) -> array | None:
    """:func:`_resolve` for names and targets given as (start, end) offsets
    into ``text`` (the C reader's form; resolved in C from the characters)."""
    status, filled = _native.resolve_spans(text, names, targets)
    if status:                    # 1: a name declared twice, 2: a target not declared
        return None
    dst = array("i")
    dst.frombytes(filled)
    return dst


def _resolve(names: list[str], ids: array, targets: list[str]) -> array | None:
    """The index of every target, or None if a name is declared twice or a
    target is unknown.  The reader found most targets near their state
    (``ids``, -1 where not); the rest (``targets``, in order) are looked up
    in a dictionary of every name.  (With the C module the reader gives
    offsets instead, and :func:`_resolve_spans` resolves them.)"""
    n = len(names)
    if len(set(names)) != n:
        return None
    if not targets:
        return ids
    index = dict(zip(names, range(n)))
    try:
        if len(targets) == len(ids):
            return array("i", map(index.__getitem__, targets))
        dst = array("i", ids)
        for e, name in zip(compress(range(len(ids)), map(eq, ids, repeat(-1))), targets):
            dst[e] = index[name]
        return dst
    except KeyError:
        return None


def _set_claims(dipa: DiPA, claims) -> None:
    dipa.budget, dipa.budget_span = claims.budget, claims.budget_span
    dipa.sensitivity, dipa.sensitivity_span = claims.sensitivity, claims.sensitivity_span
_PARAMS_CACHE: dict[tuple[str, str], tuple[Fraction, Fraction]] = {}


def _draw_params(draw: ast.Draw, resolve) -> tuple[Fraction, Fraction]:
    """(d, μ) of a draw; cached by the text of its arguments (large automata repeat them)."""
    key = (draw.rate.span.text, draw.mean.span.text)
    hit = _PARAMS_CACHE.get(key)
    if hit is not None:
        return hit
    value = _draw_params_uncached(draw, resolve)
    if len(_PARAMS_CACHE) < 10_000:
        _PARAMS_CACHE[key] = value
    return value


def _draw_params_uncached(draw: ast.Draw, resolve) -> tuple[Fraction, Fraction]:
    d = eval_rate(draw, resolve)
    try:
        mean = evaluate(draw.mean, resolve)
    except NotLinear as exc:
        raise DiagnosticError(not_linear_error(exc, "mean of the draw")) from None
    if not mean.is_const():
        node = draw.mean
        raise DiagnosticError(error("E109", "the mean of a draw in an automaton is an exact constant",
                                    node.span, "this is not a constant")
                              .with_help("the input is added to the draw by the state itself; write e.g. `0`"))
    return d, mean.const


def _guard(g: ast.GuardDecl, diags: list[Diagnostic]) -> Guard | None:
    if g.kind == "true":
        return Guard.TRUE
    ok = True
    if g.variable != "x":
        diags.append(error("E108", f"a guard compares `insample` with the stored variable `x`, not `{g.variable}`",
                           g.variable_span, "unknown variable").with_help("write `insample >= x` or `insample < x`"))
        ok = False
    if g.kind not in (">=", "<"):
        better = {">": ">=", "<=": "<"}[g.kind]
        diags.append(error("E108", f"a DiPA guard is `insample >= x` or `insample < x`, not `insample {g.kind} x`",
                           g.span, "not a DiPA guard")
                     .with_help(f"write `insample {better} x` (the two differ only on an event of probability 0)"))
        ok = False
    if not ok:
        return None
    return Guard.GE if g.kind == ">=" else Guard.LT
