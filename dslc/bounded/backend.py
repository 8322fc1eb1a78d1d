"""The Pufferfish backend: `hmm` and `mdp` blocks.

Lower to the Markov IR (structural checks, E2xx), prove the symbolic
obligations with z3 (E205/E206/E209/E218/E224), then check every protected
pair with one SMT query per direction, or synthesise the `find` parameters.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import z3

from dslc.bounded.interrupt import checkpoint, deferred_sigint
from dslc.ir.lower_hmm import lower_markov
from dslc.ir.hmm import MarkovModel, fmt
from dslc.bounded.check import (Outcome, check_exact, check_model, check_probe, choose_engine, find_params,
                                 probe_work)
from dslc.bounded.diagnose import (bound_text, eps_text, no_values_diagnostic, private_summary,
                                      unknown_diagnostic, violation_diagnostic)
from dslc.syntax.hmm import MarkovBlock
from dslc.bounded.validate import ValidationTimeout, prove_obligations
from dslc.results import BlockResult, Verdict

DEFAULT_TIMEOUT = 60.0


@dataclass
class Analysis:
    """What the bounded check found, before any text: the model's symbolic
    obligations that failed (E2xx, found by z3), or the engine's outcome."""
    outcome: Outcome | None = None
    diagnostics: list = field(default_factory=list)     # obligations z3 refuted
    engine: str | None = None
    work: int | None = None                             # the bound of the enumeration's work ("enum")
    probe: dict | None = None                           # what the capped enumeration did (auto, large models)
    seconds: float = 0.0
    timeout: float = DEFAULT_TIMEOUT


def lower(block: MarkovBlock):
    """Phase 1: the Markov IR with its structural checks (E2xx)."""
    return lower_markov(block)


def analyse(model: MarkovModel, options=None) -> Analysis:
    """Phase 2: prove the model's obligations, then run the engine the model
    calls for (pruned enumeration, exact set-DP or SMT; `find` synthesis).
    Ctrl-C ends it at the next safe point (exit 130)."""
    with deferred_sigint():
        return _analyse(model, options)


def _analyse(model: MarkovModel, options=None) -> Analysis:
    options = options or {}
    timeout = float(options.get("timeout") or DEFAULT_TIMEOUT)
    # In-process options (no CLI flag): the SMT encoding ("improved" | "plain") and the
    # engine for numeric models ("auto", the default: the pruned enumeration when the
    # bound of its work is small, else the enumeration under a work cap and SMT for
    # what it leaves open; "smt"; "dp" exact set-DP; "enum" pruned enumeration;
    # "enum-plain" the enumeration without ratio pruning; "probe").
    style = options.get("pufferfish_encoding", "improved") or "improved"
    requested = options.get("pufferfish_engine") or options.get("engine") or "auto"
    start = time.perf_counter()
    out = Analysis(timeout=timeout)

    def unknown(reason: str) -> Analysis:
        out.outcome = Outcome("unknown", reason=reason, seconds=time.perf_counter() - start)
        out.seconds = out.outcome.seconds
        return out

    try:
        diags = prove_obligations(model, seconds=timeout)
    except ValidationTimeout:
        checkpoint()
        return unknown("the time limit was reached while proving the model well formed")
    except z3.Z3Exception as exc:
        return unknown(f"z3 failed: {exc}")
    if diags:
        out.diagnostics = diags
        return out
    remaining = timeout - (time.perf_counter() - start)
    if remaining <= 0:
        checkpoint()
        return unknown("the time limit was reached while proving the model well formed")
    out.engine, out.work = choose_engine(model, requested)
    try:
        if model.find:
            out.outcome = find_params(model, remaining)
        elif out.engine in ("dp", "enum", "enum-plain"):
            out.outcome = check_exact(model, remaining, out.engine)
        elif out.engine == "probe":
            out.outcome, out.engine, stats = check_probe(model, remaining, style=style,
                                                         max_work=probe_work(timeout))
            out.probe = {"work": stats.work, "complete": stats.complete}
        else:
            out.outcome = check_model(model, remaining, style=style)
    except z3.Z3Exception as exc:
        out.outcome = Outcome("unknown", reason=f"z3 failed: {exc}", seconds=time.perf_counter() - start)
    out.seconds = time.perf_counter() - start
    if out.outcome.verdict not in ("private", "found", "violation", "none") and "time limit" in out.outcome.reason:
        checkpoint()
    return out


def report(model: MarkovModel, analysis: Analysis, result: BlockResult, options=None,
           path: str | None = None) -> None:
    """Phase 3: verdict, summary, diagnostics and JSON details."""
    result.ir, result.analysis = model, analysis
    _describe(model, result)
    if analysis.diagnostics:
        result.verdict = Verdict.ERROR
        result.diagnostics.extend(analysis.diagnostics)
        return
    outcome = analysis.outcome
    if outcome.verdict == "unknown" and analysis.engine is None:
        _unknown(model, result, outcome, analysis.timeout)
        return
    result.details["seconds"] = round(analysis.seconds, 3)
    result.details["queries"] = outcome.queries
    result.details["engine"] = analysis.engine
    if analysis.work is not None:
        result.details["enumeration_work"] = analysis.work
    if analysis.probe is not None:
        result.details["enumeration_probe"] = analysis.probe
    if outcome.verdict == "private":
        result.verdict = Verdict.PRIVATE
        result.summary = private_summary(model)
    elif outcome.verdict == "found":
        result.verdict = Verdict.PRIVATE
        assert outcome.found is not None
        result.summary = private_summary(model, outcome.found)
        result.details["found"] = {k: fmt(v) for k, v in outcome.found.items()}
        result.details["confirmed_by"] = outcome.confirmed_by
        result.details["iterations"] = outcome.iterations
    elif outcome.verdict == "violation":
        result.verdict = Verdict.NOT_PRIVATE
        for v in outcome.violations:
            result.diagnostics.append(violation_diagnostic(model, v))
        n = len(outcome.violations)
        result.summary = (f"not ε = {eps_text(model)} Pufferfish private: {n} violating direction"
                          f"{'s' if n > 1 else ''} for k = {model.horizon} ({bound_text(model)})")
    elif outcome.verdict == "none":
        result.verdict = Verdict.NOT_PRIVATE
        result.details["found"] = None
        result.details["iterations"] = outcome.iterations
        result.diagnostics.append(no_values_diagnostic(model, outcome))
        result.summary = (f"no values of {', '.join(model.find)} make it ε = {eps_text(model)} Pufferfish "
                          f"private for k = {model.horizon}")
    else:
        _unknown(model, result, outcome, analysis.timeout)


def _unknown(model: MarkovModel, result: BlockResult, outcome: Outcome, timeout: float) -> BlockResult:
    result.verdict = Verdict.UNKNOWN
    result.diagnostics.append(unknown_diagnostic(model, outcome, timeout))
    result.summary = (f"unknown after {outcome.seconds:.2f} s: {outcome.reason}"
                      if "time limit" in outcome.reason or outcome.queries else f"unknown: {outcome.reason}")
    result.details["seconds"] = round(outcome.seconds, 3)
    return result


def _describe(model: MarkovModel, result: BlockResult) -> None:
    result.details.update({
        "epsilon": eps_text(model),
        "bound": bound_text(model),
        "k": model.horizon,
        "states": len(model.states),
        "observations": list(model.observations),
        "pairs": [[model.secrets[p.left].name, model.secrets[p.right].name] for p in model.pairs],
    })
    if model.is_mdp:
        result.details["actions"] = list(model.actions)
    if model.symbolic_params:
        result.details["parameters"] = {p: model.params[p].range_text() for p in model.symbolic_params}

