"""The phases of a `mechanism` block checked by the bounded checker
(docs/discrete.md): ``lower`` (:mod:`dslc.ir.lower_mechanism_bounded`),
``analyse`` (:mod:`dslc.bounded.mechanism`), ``report`` (verdict, summary,
the counterexample with both probabilities in closed form)."""

from __future__ import annotations

import time
from fractions import Fraction

from dslc.bounded.mechanism import DiscreteAnalysis, Witness, check
from dslc.diagnostics.model import Verbatim, error
from dslc.ir.lower_mechanism_bounded import DiscreteProgram, lower_discrete
from dslc.numbers import fmt_fraction
from dslc.results import BlockResult, Verdict
from dslc.syntax import ast

from dslc.bounded.mechanism import STATELESS  # noqa: E402

THEOREM = ("exhaustive enumeration of the finite model: every pair of adjacent input sequences of "
           "length k and every output sequence, each inequality decided exactly for every ε > 0 "
           "(Sturm's theorem in s = e^(−ε/L))")


def lower(block: ast.Block):
    if not isinstance(block, ast.MechanismBlock):
        return None, [error("E151", "only `mechanism` blocks can be checked by the bounded checker here",
                            block.name_span, "not a mechanism")
                      .with_help("check `hmm` and `mdp` blocks as they are; drop `--backend bounded`")]
    return lower_discrete(block)


def analyse(program: DiscreteProgram, options) -> DiscreteAnalysis:
    start = time.perf_counter()
    horizon = getattr(options, "horizon", None)
    analysis = check(program, horizon)
    epsilon = getattr(options, "epsilon", None)
    if epsilon and analysis.status in ("private", "not-private"):
        from dslc.bounded.mechanism import d_at_epsilon
        try:
            eps = Fraction(str(epsilon).strip())
        except (ValueError, ZeroDivisionError):
            eps = None
        if eps is not None and eps > 0:
            found = d_at_epsilon(analysis, eps)
            if found is not None:
                analysis.at_epsilon = (eps, *found)
    analysis.seconds = time.perf_counter() - start
    return analysis


def _d_text(d: Fraction) -> str:
    return "ε" if d == 1 else f"{fmt_fraction(d)}ε"


def _seq(values) -> str:
    return "(" + ", ".join(fmt_fraction(v) if isinstance(v, (int, Fraction)) else str(v) for v in values) + ")"


def _at(r, base: Fraction, L: int) -> Fraction | None:
    """The value at e^(ε/L) = base."""
    return r.at(1 / base)


def _eps_text(base: Fraction, L: int) -> str:
    return f"ln {fmt_fraction(base ** L)}"


def witness_lines(program: DiscreteProgram, w: Witness, path: str | None) -> list[str]:
    L = program.L
    base = w.epsilon_base if w.epsilon_base is not None else Fraction(2)
    pa, pb = _at(w.pr_alpha, base, L), _at(w.pr_beta, base, L)
    eps = _eps_text(base, L)
    lines = [f"inputs α = {_seq(w.alpha)}, β = {_seq(w.beta)} (adjacent: {program.adjacency_text()})",
             f"outputs o = {_seq(w.outputs)}",
             f"Pr[o | α] = {w.pr_alpha.text(L)}",
             f"Pr[o | β] = {w.pr_beta.text(L)}",
             f"at ε = {eps}: Pr[o | α] = {fmt_fraction(pa)} ≈ {float(pa):.6g}, "
             f"Pr[o | β] = {fmt_fraction(pb)} ≈ {float(pb):.6g}"]
    if w.kind == "bound" and program.budget is not None:
        lines.append(f"ratio at ε = {eps}: {fmt_fraction(pa / pb)} > e^{_d_text(program.budget)} = "
                     f"{fmt_fraction(base ** int(program.budget * L))}")
    from dslc.bounded.mechanism import Machine, likeliest_path
    steps = likeliest_path(Machine(program), w.alpha, w.outputs, 1 / base)
    if steps:
        lines.append(f"the likeliest run of α with these outputs (at ε = {eps}):")
        for ins, what, q in steps[:MAX_STEPS]:
            line = ins.span.file.line_col(ins.span.start)[0]
            prob = "" if q.is_const and q.at(Fraction(1, 2)) == 1 else f" (probability {q.text(L)})"
            text = _first_line(ins.span.text)
            shown = f"`if {text}` is {what}" if ins.op == "branch" else f"`{text}` {what}"
            lines.append(f"  line {line}: {shown}{prob}")
        if len(steps) > MAX_STEPS:
            lines.append(f"  … {len(steps) - MAX_STEPS} more steps")
    target = path or "FILE"
    outs = ','.join(str(_plain(v)) for v in w.outputs)
    for seq in (w.alpha, w.beta):
        lines.append(Verbatim(f"replay: dslc prob {target} --block {program.name} --epsilon 1 --inputs "
                              f"{','.join(str(v) for v in seq)} --outputs {outs}"))
    return lines


MAX_STEPS = 24


def _first_line(text: str) -> str:
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 60 else first[:57] + "…"


def _plain(v):
    return fmt_fraction(v) if isinstance(v, Fraction) else v


def report(program: DiscreteProgram, analysis: DiscreteAnalysis, result: BlockResult, options=None,
           path: str | None = None) -> None:
    result.ir, result.analysis = program, analysis
    k = analysis.horizon
    result.details.update({
        "checker": "bounded",
        "horizon": k,
        "input_domain": [program.lo, program.hi],
        "adjacent": "any" if program.adjacent is None else program.adjacent,
        "pairs": analysis.pairs,
        "comparisons": analysis.comparisons,
        "states": analysis.states,
        "halts_within_horizon": analysis.halts_within,
        "theorem": THEOREM + ("; " + STATELESS if analysis.stateless else ""),
        "seconds": round(analysis.seconds, 3),
    })
    result.details["stateless"] = analysis.stateless
    if analysis.horizon_effective is not None and analysis.horizon_effective < k:
        result.details["halts_after_reads"] = analysis.horizon_effective
    scope = (f"for every ε > 0 and every pair of adjacent input sequences of length {k}"
             + (" (every run halts by then: this holds for the whole mechanism)" if analysis.halts_within
                else f" (horizon {k} reads)"))
    if analysis.status == "error" and analysis.fault is not None:
        f = analysis.fault
        result.verdict = Verdict.ERROR
        result.diagnostics.append(error(f.code, f.message, f.span, f.label).with_help(f.help))
        return
    if analysis.status == "private":
        result.verdict = Verdict.PRIVATE
        result.d = analysis.d
        lower = analysis.d_lower
        tight = lower == analysis.d and not analysis.d_lower_strict
        result.summary = (f"{_d_text(analysis.d)}-differentially private {scope}; "
                          + ("the bound is tight" if tight else
                             f"d* {'>' if analysis.d_lower_strict else '≥'} {fmt_fraction(lower)}")
                          + (" (bounded check of one read, exact; the reads are independent)"
                             if analysis.stateless else " (bounded check: exhaustive and exact)"))
        result.bounds = {"d_upper": str(analysis.d), "d_lower": str(lower),
                         "d_lower_strict": analysis.d_lower_strict}
        if analysis.at_epsilon is not None:
            eps, lo, hi = analysis.at_epsilon
            result.summary += (f"; at ε = {fmt_fraction(eps)} alone the loss is d·ε with "
                               f"d ∈ [{_dec(lo, False)}, {_dec(hi, True)}]")
            result.details["at_epsilon"] = {"epsilon": str(eps), "d_lower": _dec(lo, False),
                                            "d_upper": _dec(hi, True)}
        if analysis.lower_witness is not None:
            w = analysis.lower_witness
            result.bounds["d_lower_witness"] = _witness_json(program, w)
        if program.budget is not None:
            result.details["budget"] = str(program.budget)
        return
    if analysis.status == "not-private":
        result.verdict = Verdict.NOT_PRIVATE
        w = analysis.witness
        if w.kind == "support":
            msg = f"the output {_seq(w.outputs)} is possible under α and impossible under an adjacent β"
        elif w.kind == "small-eps":
            msg = (f"the output {_seq(w.outputs)} has probabilities that stay apart as ε → 0: "
                   f"no dε bounds `{program.name}`")
        else:
            msg = (f"the output {_seq(w.outputs)} is more than e^{_d_text(program.budget)} times as likely "
                   f"under α as under β")
        span = program.budget_span if (w.kind == "bound" and program.budget_span) else program.name_span
        diag = error("DP020", msg, span, "not private" if w.kind != "bound" else "this budget is exceeded")
        for line in witness_lines(program, w, path):
            diag.note(line)
        diag.note(f"verdict rests on {THEOREM}" + (f"; {STATELESS}" if analysis.stateless else ""))
        diag.with_help("add noise, or fix the probabilities so that adjacent inputs give close distributions")
        result.diagnostics.append(diag)
        result.summary = (f"not {'differentially private' if w.kind != 'bound' else _d_text(program.budget) + '-differentially private'}"
                          f" for adjacent input sequences of length {k}: {analysis.reason}")
        result.details["witness"] = _witness_json(program, w)
        return
    result.verdict = Verdict.UNKNOWN
    result.summary = f"unknown: {analysis.reason}"
    result.diagnostics.append(error("E230", f"no verdict for `{program.name}`: {analysis.reason}",
                                    program.name_span, "unknown").with_help("lower the horizon or the domain"))


def _dec(x: Fraction, up: bool) -> str:
    """x rounded outwards to 6 decimals (down for a lower end, up for an upper end)."""
    import math
    scaled = x * 10 ** 6
    n = math.ceil(scaled) if up else math.floor(scaled)
    sign, n = ("-", -n) if n < 0 else ("", n)
    return f"{sign}{n // 10 ** 6}.{n % 10 ** 6:06d}"


def _witness_json(program: DiscreteProgram, w: Witness) -> dict:
    L = program.L
    base = w.epsilon_base if w.epsilon_base is not None else Fraction(2)
    return {"alpha": list(w.alpha), "beta": list(w.beta), "outputs": [str(_plain(v)) for v in w.outputs],
            "pr_alpha": w.pr_alpha.text(L), "pr_beta": w.pr_beta.text(L),
            "epsilon": _eps_text(base, L),
            "pr_alpha_value": str(_at(w.pr_alpha, base, L)), "pr_beta_value": str(_at(w.pr_beta, base, L))}
