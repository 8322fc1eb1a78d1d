"""The `chain` backend: validate the block (E24x/E25x), calibrate the noise
of the Markov Quilt, Wasserstein and group-DP mechanisms, and report the
recommended one.  A valid block is "private": dslc releases it with the
calibrated noise, which is ε-Pufferfish private for the declared Θ."""

from __future__ import annotations

from dslc.correlated.calibrate import calibrate
from dslc.ir.lower_chain import lower_chain
from dslc.numbers import fmt_fraction as fmt_q
from dslc.syntax.chain import ChainBlock
from dslc.results import BlockResult, Verdict
from dslc.source import SourceFile



def check_chain_block(block: ChainBlock, source: SourceFile, options: dict | None = None) -> BlockResult:
    result = BlockResult(block.name, "chain", block.name_span, Verdict.ERROR)
    ir, diags = lower_chain(block)
    if ir is None:
        result.diagnostics.extend(diags)
        return result
    cal = calibrate(ir)
    result.artifacts["chain"] = ir
    result.artifacts["calibration"] = cal
    result.verdict = Verdict.PRIVATE
    best = cal.recommended
    result.summary = (f"{_title(best.key)}: Lap(scale {best.scale_text}) is ε-Pufferfish private "
                      f"for ε = {fmt_q(ir.epsilon)}")
    if best.key != "group_dp":
        result.summary += f" (group DP: {cal.mechanism('group_dp').scale_text})"
    result.extra["calibration"] = cal.to_json()
    return result


def _title(key: str) -> str:
    return {"markov_quilt": "Markov Quilt mechanism",
            "markov_quilt_approx": "Markov Quilt mechanism (eigen-gap bound)",
            "markov_quilt_combined": "Markov Quilt mechanism",
            "wasserstein": "Wasserstein mechanism",
            "group_dp": "group differential privacy"}.get(key, key)


# The pipeline's entry point for blocks of this kind (not yet split into phases).
check_block = check_chain_block
