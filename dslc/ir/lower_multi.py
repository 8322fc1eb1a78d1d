"""Lowering of `automaton` blocks with several stored variables to the
multi-variable IR (:mod:`dslc.ir.multi_dipa`; docs/language.md, "Several
variables").

A block goes here only if it uses what a one-variable automaton cannot say:
a conjunctive guard, a comparison with a variable other than `x`, or a store
into a variable other than `x` (:func:`uses_several_variables`).  Every other
automaton keeps the one-variable lowering, IR and checker.

Variables are declared by use: a variable exists because some transition
stores into it (`store l, r`; plain `store` is `store x`).  A comparison with
a variable that nothing stores is E130.
"""

from __future__ import annotations

from dslc.diagnostics.model import Diagnostic, error
from dslc.ir.dipa import OUT_INSAMPLE, OUT_INSAMPLE_PRIME, SILENT, OutKind, symbol
from dslc.ir.claims import lower_claims
from dslc.ir.linear import constant_resolver
from dslc.ir.multi_dipa import GE, LT, Literal, MState, MTransition, MultiDiPA, exclusive
from dslc.syntax import ast

STORED = "x"          # what a plain `store` stores


def uses_several_variables(block: ast.AutomatonBlock) -> bool:
    if block.variables_decl is not None:
        return True
    for s in block.states:
        for t in s.transitions:
            g = t.guard
            if isinstance(g, ast.ConjGuardDecl) or (g.variable is not None and g.variable != STORED):
                return True
            if any(name != STORED for name, _ in t.store_vars):
                return True
    return False


def _literal(g: ast.GuardDecl, diags: list[Diagnostic]) -> Literal | None:
    if g.kind not in (">=", "<"):
        better = {">": ">=", "<=": "<"}[g.kind]
        diags.append(error("E108", f"a guard compares with `insample >= v` or `insample < v`, not "
                                   f"`insample {g.kind} {g.variable}`", g.span, "not a DiPA comparison")
                     .with_help(f"write `insample {better} {g.variable}` (the two differ only on an event "
                                "of probability 0)"))
        return None
    return Literal(g.variable, GE if g.kind == ">=" else LT)


def set_claims(m: MultiDiPA, claims: list[ast.Claim], resolve) -> list[Diagnostic]:
    """A block's `budget` on ``m``; `sensitivity` is refused (E133) for several variables."""
    lowered, diags = lower_claims(claims, resolve)
    m.budget, m.budget_span = lowered.budget, lowered.budget_span
    for claim in claims:
        if claim.kind == "sensitivity":
            diags.append(error("E133", "`sensitivity` is not supported yet on a block with several stored "
                                       "variables", claim.keyword_span, "declared here")
                         .with_help("remove the declaration and divide the queries by their sensitivity, "
                                    "or multiply every rate by it (the verdict's d then holds for "
                                    "inputs that differ by at most the sensitivity)"))
    return diags


def lower_multi_automaton(block: ast.AutomatonBlock) -> tuple[MultiDiPA | None, list[Diagnostic]]:
    from dslc.ir.lower_automaton import duplicate_state, state_draws   # one reading of a state
    diags: list[Diagnostic] = []
    m = MultiDiPA(block.name, span=block.name_span, kind="automaton")
    diags.extend(set_claims(m, block.claims, constant_resolver()))
    if not block.states:
        diags.append(error("E105", f"automaton `{block.name}` has no states", block.name_span,
                           "declare at least an initial state")
                     .with_help("add `state q0 noinput Lap(ε, 0) { true -> q1 store l }` as the first state"))
        return None, diags
    resolve = constant_resolver()
    index: dict[str, int] = {}
    for decl in block.states:
        if decl.name in index:
            diags.append(duplicate_state(decl, m.states[index[decl.name]].name_span))
            continue
        d, mu, d2, mu2, draw_span, prime_span = state_draws(decl, resolve, diags)
        index[decl.name] = len(m.states)
        m.states.append(MState(decl.name, decl.is_input, d, mu, d2, mu2, span=decl.span,
                               name_span=decl.name_span, draw_span=draw_span, prime_span=prime_span))
    stored: set[str] = set()
    compared: list[tuple[str, object]] = []
    seen: set[int] = set()
    for decl in block.states:
        src = index[decl.name]
        if src in seen:
            continue
        seen.add(src)
        mine: list[int] = []
        for t in decl.transitions:
            parts = t.guard.literals if isinstance(t.guard, ast.ConjGuardDecl) else \
                ([] if t.guard.kind == "true" else [t.guard])
            lits = [_literal(g, diags) for g in parts]
            if t.target not in index:
                from dslc.diagnostics.suggest import did_you_mean
                diags.append(error("E101", f"unknown state `{t.target}`", t.target_span, "no state has this name")
                             .with_help(did_you_mean(t.target, index)
                                        or f"declare it: `state {t.target} input Lap(ε, 0) {{ }}`"))
                continue
            if any(lit is None for lit in lits):
                continue
            guard = tuple(sorted(set(lits)))
            if any(lit.negated() in guard for lit in guard):
                var = next(lit.var for lit in guard if lit.negated() in guard)
                diags.append(error("E131", f"this guard asks `insample >= {var}` and `insample < {var}`: "
                                           "it never holds", t.guard.span, "contradictory")
                             .with_help("remove the transition, or compare with another variable"))
                continue
            compared.extend((g.variable, g.variable_span) for g in parts)
            names = [n for n, _ in t.store_vars] or ([STORED] if t.store else [])
            stored.update(names)
            out = SILENT
            if t.output is not None:
                out = {"insample": OUT_INSAMPLE, "insample'": OUT_INSAMPLE_PRIME}.get(t.output.kind) \
                    or symbol(t.output.symbol or "")
            mine.append(len(m.transitions))
            m.transitions.append(MTransition(src, guard, index[t.target], out, frozenset(names),
                                             label=f"{decl.name} → {t.target}", span=t.span,
                                             guard_span=t.guard.span if parts else None,
                                             output_span=t.output.span if t.output else None,
                                             store_span=t.store_span))
        diags.extend(_overlaps(m, decl, mine))
        diags.extend(_rates(m, src, mine))
    reported: set[str] = set()
    decl = block.variables_decl
    if decl is not None:
        declared = {n for n, _ in decl.names}
        for s in block.states:
            for t in s.transitions:
                parts = t.guard.literals if isinstance(t.guard, ast.ConjGuardDecl) else [t.guard]
                uses = [(g.variable, g.variable_span) for g in parts if g.variable is not None]
                uses += t.store_vars or ([(STORED, t.store_span)] if t.store else [])
                for name, span in uses:
                    if name not in declared and name not in reported:
                        reported.add(name)
                        from dslc.diagnostics.suggest import did_you_mean
                        diags.append(error("E130", f"`{name}` is not declared in `variables`", span,
                                           "not declared")
                                     .secondary(decl.span, "the declared variables")
                                     .with_help(did_you_mean(name, sorted(declared))
                                                or f"add it: `variables {', '.join(sorted(declared | {name}))}`"))
    for name, span in compared:
        if name not in stored and name not in reported:
            reported.add(name)
            from dslc.diagnostics.suggest import did_you_mean
            diags.append(error("E130", f"`{name}` is compared but no transition stores it", span,
                               "never stored")
                         .with_help(did_you_mean(name, sorted(stored))
                                    or f"store the draw first, e.g. `true -> q1 store {name}`"))
    return m, diags


def _overlaps(m: MultiDiPA, decl: ast.StateDecl, mine: list[int]) -> list[Diagnostic]:
    out = []
    for i, a in enumerate(mine):
        for b in mine[i + 1:]:
            ta, tb = m.transitions[a], m.transitions[b]
            if not exclusive(ta.guard, tb.guard):
                out.append(error("E132", f"state `{decl.name}` has two transitions that one draw can both enable",
                                 tb.guard_span or tb.span, "overlaps")
                           .secondary(ta.guard_span or ta.span, "with this guard")
                           .note("the guards of a state must exclude each other: some variable `v` "
                                 "with `insample >= v` in one and `insample < v` in the other")
                           .with_help("split the cases, e.g. `insample >= l and insample < r`, "
                                      "`insample < l`, `insample >= l and insample >= r`"))
                return out
    return out


def _rates(m: MultiDiPA, q: int, mine: list[int]) -> list[Diagnostic]:
    s = m.states[q]
    if mine and s.d <= 0:
        return [error("E124", f"state `{s.name}` draws with rate 0 and has transitions", s.draw_span or s.name_span,
                      "rate 0: no distribution")
                .with_help("give the draw a positive rate, e.g. `Lap(ε, 0)`")]
    if any(m.transitions[i].output.kind is OutKind.INSAMPLE_PRIME for i in mine) and s.d_prime <= 0:
        return [error("E124", f"state `{s.name}` outputs `insample'` but declares no `Lap'` with a positive rate",
                      s.prime_span or s.name_span, "no second draw")
                .with_help("declare it: `Lap(ε/4, 0), Lap'(ε/9, 0)`")]
    return []
