"""Text of an audit report (`dslc audit`); the JSON is the report's
``to_json``.  Formatting only: every number comes from the report."""

from __future__ import annotations

from dslc.numbers import fmt_fraction


def _p(p: float) -> str:
    return f"{p:.3g}" if p >= 1e-300 else "< 1e-300"


def render_text(report) -> str:
    r = report
    lines = []
    verdict = {"pass": "PASS", "fail": "FAIL", "inconclusive": "INCONCLUSIVE"}[r.verdict]
    lines.append(f"audit of {r.impl} against `{r.block}` ({r.file}) at ε = {fmt_fraction(r.epsilon)}: {verdict}")
    for reason in r.reasons:
        lines.append(f"  {reason}")
    model = f"d = {fmt_fraction(r.model_d)}" if r.model_d is not None else "not private"
    budget = f", budget {fmt_fraction(r.budget)}ε" if r.budget is not None else ""
    if r.threshold is not None:
        lines.append(f"model: {model}{budget}; the implementation must not lose more than "
                     f"{fmt_fraction(r.threshold)}·ε")
    else:
        lines.append(f"model: {model}, no budget declared: the privacy bounds are reported, not judged")
    lines.append("")
    lines.append(f"conformance (Holm-corrected within a look; level {r.alpha / 2:g} over {r.looks} look(s)):")
    for c in r.conformance:
        mark = "REJECT" if c.rejected else "ok"
        lines.append(f"  {mark:<6} inputs {_short(c.inputs)}  ({'; '.join(c.roles)})")
        lines.append(f"         {c.test}, n = {c.samples}: p = {_p(c.p_value)}, adjusted {_p(c.adjusted)}")
        if c.rejected and c.worst:
            for seq, obs, exp in c.worst:
                lines.append(f"         {_short(seq, 60)}: observed {obs}, model expects {exp:g}")
    for d in r.diagnosis:
        lines.append(f"  diagnosis: {d}")
    lines.append("")
    lines.append(f"privacy evidence (Clopper–Pearson; all bounds hold together with confidence "
                 f"{1 - r.alpha / 2:g}):")
    if not r.privacy:
        lines.append("  no witness pair: the checker found no lower-bound witness for this block")
    for p in sorted(r.privacy, key=lambda p: -p.epsilon_lower):
        mark = "EXCEEDS" if p.exceeds else "ok"
        lines.append(f"  {mark:<7} d ≥ {p.epsilon_lower:.3g}   {p.origin}")
        lines.append(f"          α = {_short(p.alpha)}   β = {_short(p.beta)}")
        lines.append(f"          event: {_short(' | '.join(p.event), 70)}")
        model = (f" (model: {p.model_alpha:.3g} vs {p.model_beta:.3g})" if p.model_alpha is not None
                 else "")
        lines.append(f"          hits {p.k_alpha}/{p.samples} vs {p.k_beta}/{p.samples}{model}")
        if p.exceeds:
            lines.append(f"          reproduce: {p.reproduce}")
    lines.append("")
    stop = " (stopped early: the evidence was decisive)" if r.stopped_early else ""
    timed = " (time budget reached)" if r.timed_out else ""
    lines.append(f"{r.samples_total} samples in {r.seconds:.1f} s, {r.samples_per_second:,.0f} samples/s on "
                 f"{r.workers} worker(s) ({r.executor}){stop}{timed}")
    for note in r.notes:
        lines.append(f"note: {note}")
    lines.append(f"reproduce: {r.reproduce}")
    return "\n".join(lines) + "\n"


def _short(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"
