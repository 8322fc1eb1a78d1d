"""The Pufferfish backend: `hmm` and `mdp` blocks.

Lower to the Markov IR (structural checks, E2xx), prove the symbolic
obligations with z3 (E205/E206/E209/E218/E224), then check every protected
pair with one SMT query per direction, or synthesise the `find` parameters.
"""

from __future__ import annotations

import time

import z3

from dslc.bounded.interrupt import checkpoint, deferred_sigint
from dslc.ir.lower_hmm import lower_markov
from dslc.ir.hmm import MarkovModel, fmt
from dslc.bounded.check import Outcome, check_exact, check_model, choose_engine, find_params
from dslc.bounded.diagnose import (bound_text, eps_text, no_values_diagnostic, private_summary,
                                      unknown_diagnostic, violation_diagnostic)
from dslc.syntax.hmm import MarkovBlock
from dslc.bounded.validate import ValidationTimeout, prove_obligations
from dslc.results import BlockResult, Verdict
from dslc.source import SourceFile

DEFAULT_TIMEOUT = 60.0


def check_markov_block(block: MarkovBlock, source: SourceFile, options: dict | None = None) -> BlockResult:
    with deferred_sigint():          # Ctrl-C ends the check at the next safe point (exit 130)
        return _check_markov_block(block, source, options)


def _check_markov_block(block: MarkovBlock, source: SourceFile, options: dict | None = None) -> BlockResult:
    options = options or {}
    timeout = float(options.get("timeout") or DEFAULT_TIMEOUT)
    # In-process options (no CLI flag): the SMT encoding ("improved" | "plain") and the
    # engine for numeric models ("auto", the default: the pruned enumeration when its
    # work is small, else SMT; "smt"; "dp" exact set-DP; "enum" enumeration).
    style = options.get("pufferfish_encoding", "improved") or "improved"
    requested = options.get("pufferfish_engine") or options.get("engine") or "auto"
    result = BlockResult(block.name, block.kind, block.name_span, Verdict.ERROR)
    start = time.perf_counter()
    model, diags = lower_markov(block)
    if model is None or diags:
        result.diagnostics.extend(diags)
        return result
    result.artifacts["markov"] = model
    _describe(model, result)
    try:
        diags = prove_obligations(model, seconds=timeout)
    except ValidationTimeout:
        checkpoint()
        outcome = Outcome("unknown", reason="the time limit was reached while proving the model well formed",
                          seconds=time.perf_counter() - start)
        return _unknown(model, result, outcome, timeout)
    except z3.Z3Exception as exc:
        outcome = Outcome("unknown", reason=f"z3 failed: {exc}", seconds=time.perf_counter() - start)
        return _unknown(model, result, outcome, timeout)
    if diags:
        result.diagnostics.extend(diags)
        return result
    remaining = timeout - (time.perf_counter() - start)
    if remaining <= 0:
        checkpoint()
        outcome = Outcome("unknown", reason="the time limit was reached while proving the model well formed",
                          seconds=time.perf_counter() - start)
        return _unknown(model, result, outcome, timeout)
    engine, work = choose_engine(model, requested)
    try:
        if model.find:
            outcome = find_params(model, remaining)
        elif engine in ("dp", "enum"):
            outcome = check_exact(model, remaining, engine)
        else:
            outcome = check_model(model, remaining, style=style)
    except z3.Z3Exception as exc:
        outcome = Outcome("unknown", reason=f"z3 failed: {exc}", seconds=time.perf_counter() - start)
    result.artifacts["outcome"] = outcome
    result.extra["seconds"] = round(time.perf_counter() - start, 3)
    result.extra["queries"] = outcome.queries
    result.extra["engine"] = engine
    if work is not None:
        result.extra["enumeration_work"] = work
    if outcome.verdict == "private":
        result.verdict = Verdict.PRIVATE
        result.summary = private_summary(model)
    elif outcome.verdict == "found":
        result.verdict = Verdict.PRIVATE
        assert outcome.found is not None
        result.summary = private_summary(model, outcome.found)
        result.extra["found"] = {k: fmt(v) for k, v in outcome.found.items()}
        result.extra["confirmed_by"] = outcome.confirmed_by
        result.extra["iterations"] = outcome.iterations
    elif outcome.verdict == "violation":
        result.verdict = Verdict.NOT_PRIVATE
        for v in outcome.violations:
            result.diagnostics.append(violation_diagnostic(model, v))
        n = len(outcome.violations)
        result.summary = (f"not ε = {eps_text(model)} Pufferfish private: {n} violating direction"
                          f"{'s' if n > 1 else ''} for k = {model.horizon} ({bound_text(model)})")
    elif outcome.verdict == "none":
        result.verdict = Verdict.NOT_PRIVATE
        result.extra["found"] = None
        result.extra["iterations"] = outcome.iterations
        result.diagnostics.append(no_values_diagnostic(model, outcome))
        result.summary = (f"no values of {', '.join(model.find)} make it ε = {eps_text(model)} Pufferfish "
                          f"private for k = {model.horizon}")
    else:
        if "time limit" in outcome.reason:
            checkpoint()
        return _unknown(model, result, outcome, timeout)
    return result


def _unknown(model: MarkovModel, result: BlockResult, outcome: Outcome, timeout: float) -> BlockResult:
    result.verdict = Verdict.UNKNOWN
    result.diagnostics.append(unknown_diagnostic(model, outcome, timeout))
    result.summary = (f"unknown after {outcome.seconds:.2f} s: {outcome.reason}"
                      if "time limit" in outcome.reason or outcome.queries else f"unknown: {outcome.reason}")
    result.extra["seconds"] = round(outcome.seconds, 3)
    return result


def _describe(model: MarkovModel, result: BlockResult) -> None:
    result.extra.update({
        "epsilon": eps_text(model),
        "bound": bound_text(model),
        "k": model.horizon,
        "states": len(model.states),
        "observations": list(model.observations),
        "pairs": [[model.secrets[p.left].name, model.secrets[p.right].name] for p in model.pairs],
    })
    if model.is_mdp:
        result.extra["actions"] = list(model.actions)
    if model.symbolic_params:
        result.extra["parameters"] = {p: model.params[p].range_text() for p in model.symbolic_params}


# The pipeline's entry point for blocks of this kind (not yet split into phases).
check_block = check_markov_block
