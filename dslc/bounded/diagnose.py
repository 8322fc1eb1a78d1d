"""Diagnostics and summaries for Pufferfish outcomes (no printing here)."""

from __future__ import annotations

import math
from fractions import Fraction

from dslc.diagnostics.model import Diagnostic, error
from dslc.ir.hmm import MarkovModel, fmt
from dslc.bounded.check import Outcome, Violation


def bound_text(model: MarkovModel) -> str:
    """`e^ε = 3`, or `e^ε = e^(1/2) ≈ 1.64872` (the float is for reading only)."""
    exact = model.epsilon.exact_bound
    if exact is not None:
        return f"e^ε = {fmt(exact)}"
    value = model.epsilon.value
    return f"e^ε = e^{_paren(fmt(value))} ≈ {math.exp(value):.6g}"


def _paren(text: str) -> str:
    return f"({text})" if "/" in text else text


def eps_text(model: MarkovModel) -> str:
    return " ".join(model.epsilon.text.split())


def seq_text(names: list[str]) -> str:
    return "(" + ", ".join(names) + ")"


def _params_text(values: dict[str, Fraction]) -> str:
    return ", ".join(f"{k} = {fmt(v)}" for k, v in values.items())


def _actions(model: MarkovModel, v: Violation) -> list[str]:
    if model.is_mdp and not v.actions and model.actions:
        return [model.actions[0]] * (model.horizon - 1)      # an mdp with a single action
    return model.action_names(v.actions)


def violation_diagnostic(model: MarkovModel, v: Violation) -> Diagnostic:
    left = model.secrets[v.left]
    right = model.secrets[v.right]
    obs = model.observation_names(v.observations)
    acts = _actions(model, v)
    ratio = v.ratio
    bound = bound_text(model)
    where = f" when {_params_text(v.params)}" if v.params else ""
    if ratio is None:
        message = (f"the observations {seq_text(obs)} are possible under secret `{left.name}` but impossible "
                   f"under `{right.name}`{where}")
        ratio_text = "infinite"
    else:
        message = (f"the observations {seq_text(obs)} are {fmt(ratio)} times as likely under secret "
                   f"`{left.name}` as under `{right.name}`{where}, more than {bound}")
        ratio_text = fmt(ratio)
    if acts:
        message = message.replace(f"the observations {seq_text(obs)}",
                                  f"with actions {seq_text(acts)}, the observations {seq_text(obs)}", 1)
    d = error("DP101", message, v.pair.span,
              f"`{left.name}` and `{right.name}` are not ε = {eps_text(model)} indistinguishable")
    d.secondary(left.span, f"Pr[ω | {left.name}] = {fmt(v.p_left)}")
    d.secondary(right.span, f"Pr[ω | {right.name}] = {fmt(v.p_right)}")
    d.secondary(model.check_span, f"{bound}, k = {model.horizon}")
    d.note(f"observation sequence ω (t = 0 .. {model.horizon - 1}): {', '.join(obs)}")
    if acts:
        d.note(f"actions chosen by the analyst (step t -> t+1, t = 0 .. {model.horizon - 2}): {', '.join(acts)}")
    if ratio is None:
        d.note(f"Pr[ω | {left.name}] = {fmt(v.p_left)} > 0 = Pr[ω | {right.name}]")
    else:
        d.note(f"Pr[ω | {left.name}] = {fmt(v.p_left)}, Pr[ω | {right.name}] = {fmt(v.p_right)}, "
               f"ratio {fmt(ratio)} > {bound}")
    if v.params:
        d.note(f"parameter values of this witness (allowed by the constraints): {_params_text(v.params)}")
    d.note("re-checked by exact forward computation with rational arithmetic")
    d.with_help("add noise (make the observation rows of the two sides closer), or protect a weaker "
                "pair / use a larger ε")
    d.data = {
        "pair": [model.secrets[v.pair.left].name, model.secrets[v.pair.right].name],
        "direction": [left.name, right.name],
        "observations": obs,
        "actions": acts,
        "probabilities": {left.name: fmt(v.p_left), right.name: fmt(v.p_right)},
        "ratio": ratio_text,
        "bound": bound,
        "epsilon": eps_text(model),
        "k": model.horizon,
    }
    if v.params:
        d.data["parameters"] = {k: fmt(x) for k, x in v.params.items()}
    return d


def no_values_diagnostic(model: MarkovModel, outcome: Outcome) -> Diagnostic:
    names = ", ".join(f"`{p}`" for p in model.find)
    span = model.pairs[0].span
    if outcome.violations:
        span = outcome.violations[0].pair.span
    d = error("DP101", f"no values of {names} allowed by the constraints make `{model.name}` "
                       f"ε = {eps_text(model)} Pufferfish private for k = {model.horizon}", span,
              "this pair cannot be protected")
    if model.find_span is not None:
        d.secondary(model.find_span, "nothing to find")
    d.note(f"z3 proved that the constraints and the bound on the {outcome.iterations - 1} observation "
           f"sequence(s) tried cannot all hold")
    if outcome.violations:
        v = outcome.violations[0]
        obs = model.observation_names(v.observations)
        acts = _actions(model, v)
        r = "infinite" if v.ratio is None else fmt(v.ratio)
        text = f"for example, at {_params_text(v.params)} the observations {seq_text(obs)}"
        if acts:
            text += f" with actions {seq_text(acts)}"
        text += (f" have Pr = {fmt(v.p_left)} under `{model.secrets[v.left].name}` and {fmt(v.p_right)} under "
                 f"`{model.secrets[v.right].name}` (ratio {r})")
        d.note(text)
    d.with_help("widen the parameter ranges, relax the `assume` lines, or use a larger ε")
    d.data = {"found": None, "epsilon": eps_text(model), "k": model.horizon, "bound": bound_text(model)}
    return d


def unknown_diagnostic(model: MarkovModel, outcome: Outcome, timeout: float) -> Diagnostic:
    if outcome.bug:
        d = error("E231", f"could not decide `{model.name}`: {outcome.reason}", model.check_span,
                  "no verdict")
        d.with_help("this is a bug in dslc; please report it with this file")
    elif "time limit" in outcome.reason or outcome.queries:
        d = error("E230", f"could not decide `{model.name}` within {timeout:g} s: {outcome.reason}",
                  model.check_span, f"unknown after {outcome.seconds:.2f} s")
        d.with_help("raise the limit with `--timeout SECONDS`, lower `k`, or give symbolic parameters values")
    else:                                   # refused before any query (e.g. too large to build)
        d = error("E230", f"could not decide `{model.name}`: {outcome.reason}", model.check_span,
                  "no verdict")
        d.with_help("lower `k` or the number of states; nothing is claimed about this block")
        d.data = {"seconds": round(outcome.seconds, 3), "reason": outcome.reason}
        return d
    d.note(f"time spent: {outcome.seconds:.2f} s, {outcome.queries} solver queries")
    d.data = {"seconds": round(outcome.seconds, 3), "reason": outcome.reason}
    return d


def private_summary(model: MarkovModel, found: dict[str, Fraction] | None = None) -> str:
    pairs = ", ".join(f"{model.secrets[p.left].name}/{model.secrets[p.right].name}" for p in model.pairs)
    text = (f"ε = {eps_text(model)} Pufferfish private for every observation sequence of length "
            f"{model.horizon} (pairs {pairs}, both directions; {bound_text(model)})")
    if model.is_mdp:
        text += ", whatever actions the analyst picks"
    free = [p for p in model.symbolic_params if not found or p not in found]
    if found:
        text = f"private for {_params_text(found)} (found, and re-checked with these values): " + text
    if free:
        ranges = ", ".join(f"{p} in {model.params[p].range_text()}" for p in free)
        param_spans = {(p.span.start, p.span.end) for p in model.params.values()}
        assumed = any((c.span.start, c.span.end) not in param_spans for c in model.constraints)
        extra = " satisfying the `assume` lines" if assumed else ""
        text += f", for every {ranges}{extra}"
    return text
