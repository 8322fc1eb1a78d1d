"""Definition 3 of the DiPA paper, checked on the IR (both block forms).

Determinism, output distinction, initialization and non-input transitions.
Every breach is an E1xx error pointing at the transitions involved.
"""

from __future__ import annotations

from dslc.diagnostics.model import Diagnostic, error
from dslc.ir.dipa import DiPA, Guard, OutKind, Transition


def _who(dipa: DiPA, state) -> str:
    """A state as its author knows it: by name in an automaton, by the line
    where its step starts in a mechanism (whose states have no names)."""
    if getattr(dipa, "kind", "automaton") == "mechanism" and state.span is not None:
        return f"the step at line {state.span.file.line_col(state.span.start)[0]}"
    return f"state `{state.name}`"


def _where(t: Transition):
    return t.guard_span or t.span


def validate_dipa(dipa: DiPA) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    # A flat DiPA (dslc/ir/flat_dipa.py) names the states that may break a
    # rule (a superset, found column by column); the rest are not visited.
    narrowed = dipa.suspects() if hasattr(dipa, "suspects") else None
    if narrowed is None:
        edges = dipa.out_edges()
        out_of = edges.__getitem__
        states, rate_states = range(len(edges)), range(len(edges))
        compares = any(t.guard is not Guard.TRUE for t in dipa.transitions)
    else:
        states, rate_states, compares = narrowed
        out_of = dipa.edges_of
    for q in states:
        out = out_of(q)
        state = dipa.states[q]
        ts = [dipa.transitions[i] for i in out]
        by_guard: dict[Guard, list[Transition]] = {}
        for t in ts:
            by_guard.setdefault(t.guard, []).append(t)
        # determinism
        for guard, group in by_guard.items():
            if len(group) > 1:
                diag = error("E103", f"{_who(dipa, state)} has {len(group)} transitions with guard `{guard.value}`",
                             _where(group[1]), "second transition with the same guard")
                diag.secondary(_where(group[0]), "first one here")
                diag.note("Definition 3 (determinism): at most one transition per guard")
                diag.with_help("merge the transitions or give them different guards")
                diags.append(diag)
        if Guard.TRUE in by_guard and (Guard.GE in by_guard or Guard.LT in by_guard):
            other = (by_guard.get(Guard.GE) or by_guard[Guard.LT])[0]
            diag = error("E103", f"{_who(dipa, state)} has a `true` transition and a comparison",
                         _where(other), "this comparison overlaps the `true` guard")
            diag.secondary(_where(by_guard[Guard.TRUE][0]), "always enabled")
            diag.note("Definition 3 (determinism): if `true` is a guard of a state, it is the only one")
            diag.with_help("use `insample >= x` and `insample < x` for the two branches")
            diags.append(diag)
        # output distinction
        if Guard.GE in by_guard and Guard.LT in by_guard:
            ge, lt = by_guard[Guard.GE][0], by_guard[Guard.LT][0]
            if ge.output == lt.output:
                diag = error("E104", f"both branches of {_who(dipa, state)} output {ge.output}",
                             ge.output_span or _where(ge), "same output")
                diag.secondary(lt.output_span or _where(lt), "as this branch")
                diag.note("Definition 3 (output distinction): the two branches of a comparison "
                          "must produce different outputs")
                diag.with_help("output different symbols, e.g. `⊤` and `⊥`")
                diags.append(diag)
            elif ge.output.is_real and lt.output.is_real:
                diag = error("E104", f"both branches of {_who(dipa, state)} output a real value",
                             ge.output_span or _where(ge), f"outputs {ge.output}")
                diag.secondary(lt.output_span or _where(lt), f"outputs {lt.output}")
                diag.note("Definition 3 (output distinction): at most one branch may output a real value")
                diag.with_help("output a symbol on one of the branches")
                diags.append(diag)
        # non-input transitions
        if not state.is_input:
            for t in ts:
                if t.guard is not Guard.TRUE:
                    diag = error("E106", f"{_who(dipa, state)} reads no input but compares with `x`",
                                 _where(t), "comparison in a `noinput` state")
                    if state.name_span is not None and dipa.kind == "automaton":
                        diag.secondary(state.name_span, "declared `noinput` here")
                    diag.note("Definition 3 (non-input transitions): a non-input state has only a `true` transition")
                    diag.with_help("declare the state `input`, or use the guard `true`")
                    diags.append(diag)
                    break
    # initialization
    if dipa.states:
        init = dipa.initial
        ts = [dipa.transitions[i] for i in out_of(init)]
        state = dipa.states[init]
        where = state.name_span or state.span
        problem = None
        if len(ts) != 1:
            problem = (f"the initial state `{state.name}` has {len(ts)} transitions; it must have exactly one",
                       ts[1] if len(ts) > 1 else None)
        elif ts[0].guard is not Guard.TRUE:
            problem = ("the first transition must have guard `true`", ts[0])
        elif not ts[0].store:
            problem = ("the first transition must store the draw in `x`", ts[0])
        if problem:
            message, t = problem
            span = (_where(t) if t is not None else None) or where
            diag = error("E105", message, span, "breaks the initialization condition")
            if t is not None and where is not None and where != span:
                diag.secondary(where, "the initial state")
            diag.note("Definition 3 (initialization): the initial state has one transition, "
                      "with guard `true`, and it stores `insample` in `x`")
            if dipa.kind == "mechanism":
                diag.with_help("begin the mechanism with a plain draw of the threshold, e.g. `x := Lap(ε/2, 0)`")
            else:
                diag.with_help(f"give `{state.name}` the single transition `true -> NEXT store`")
            diags.append(diag)
    diags.extend(_rate_zero(dipa, out_of, rate_states, compares))
    return diags


def _rate_zero(dipa: DiPA, out_of, states, compares: bool) -> list[Diagnostic]:
    """E124: a draw with rate 0 has no distribution (its density dε/2·e^{-dε|z-μ|}
    is 0), so a step that uses it cannot run and its probabilities are
    undefined.  Allowed only where the value is never used: a draw nobody
    compares or outputs, stored only when no transition ever compares with x."""
    diags: list[Diagnostic] = []
    for q in states:
        out = out_of(q)
        state = dipa.states[q]
        ts = [dipa.transitions[i] for i in out]
        if state.d == 0:
            use = next((t for t in ts if t.guard is not Guard.TRUE), None)
            why = "compares it with `x`"
            if use is None:
                use = next((t for t in ts if t.output.kind is OutKind.INSAMPLE), None)
                why = "outputs it"
            if use is None and compares:
                use = next((t for t in ts if t.store), None)
                why = "stores it in `x`, which a later step compares with"
            if use is not None:
                span = state.draw_span or state.name_span or state.span
                if dipa.kind == "mechanism":
                    why = why.replace("it", "the draw", 1)
                    message = f"this draw has rate 0, and the step {why}"
                else:
                    message = f"{_who(dipa, state)} draws `insample` with rate 0 and {why}"
                diag = error("E124", message, span, "rate 0: no distribution")
                where = _where(use) if use.guard is not Guard.TRUE else (use.output_span or use.store_span or use.span)
                if where is not None and where != span:
                    diag.secondary(where, "the value is used here")
                diag.note("`Lap(0, μ)` has density 0 everywhere: it is not a distribution, so the step "
                          "cannot be run and its probabilities are undefined")
                diag.with_help("give the draw a positive rate, e.g. `Lap(ε, 0)`")
                diags.append(diag)
        if state.d_prime == 0:
            use = next((t for t in ts if t.output.kind is OutKind.INSAMPLE_PRIME), None)
            if use is not None:
                span = use.output_span or use.span
                if dipa.kind == "mechanism":
                    diag = error("E124", "this second draw has rate 0 and is output", span,
                                 "no distribution")
                    diag.with_help("give the draw a positive rate, e.g. `output Lap(ε/9, q)`")
                elif state.prime_span is None:
                    diag = error("E124", f"{_who(dipa, state)} outputs `insample'` but declares no `Lap'`",
                                 span, "insample′ has no distribution here")
                    if state.name_span is not None and dipa.kind == "automaton":
                        diag.secondary(state.name_span, "declared without `Lap'(rate, mean)`")
                    diag.with_help(f"declare the second draw: `state {state.name} input Lap(…), Lap'(ε/9, 0) {{ … }}`")
                else:
                    diag = error("E124", f"{_who(dipa, state)} outputs `insample'` drawn with rate 0",
                                 span, "insample′ has no distribution here")
                    diag.secondary(state.prime_span, "rate 0")
                    diag.with_help("give the second draw a positive rate, e.g. `Lap'(ε/9, 0)`")
                diag.note("without a rate, insample′ is not a random value (`Lap'(0, μ)` has density 0), "
                          "so the output cannot be run or priced")
                diags.append(diag)
    return diags
