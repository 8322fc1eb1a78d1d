"""The `chain` backend: validate the block (E24x/E25x), calibrate the noise
of the Markov Quilt, Wasserstein and group-DP mechanisms, and report the
recommended one.  A valid block is "private": dslc releases it with the
calibrated noise, which is ε-Pufferfish private for the declared Θ."""

from __future__ import annotations

from dslc.correlated.calibrate import Calibration, calibrate
from dslc.ir.chain import ChainIR
from dslc.ir.lower_chain import lower_chain
from dslc.numbers import fmt_fraction as fmt_q
from dslc.syntax.chain import ChainBlock
from dslc.results import BlockResult, Verdict


def lower(block: ChainBlock):
    """Phase 1: the chain IR with its structural checks (E24x/E25x)."""
    return lower_chain(block)


def analyse(ir: ChainIR, options=None) -> Calibration:
    """Phase 2: the noise scale of every mechanism that applies (no text)."""
    return calibrate(ir)


def report(ir: ChainIR, cal: Calibration, result: BlockResult, options=None, path: str | None = None) -> None:
    """Phase 3: the verdict and its one-line summary (a valid block is private:
    dslc releases it with the calibrated noise)."""
    result.ir, result.analysis = ir, cal
    result.verdict = Verdict.PRIVATE
    best = cal.recommended
    result.summary = (f"{_title(best.key)}: Lap(scale {best.scale_text}) is ε-Pufferfish private "
                      f"for ε = {fmt_q(ir.epsilon)}")
    if best.key != "group_dp":
        result.summary += f" (group DP: {cal.mechanism('group_dp').scale_text})"
    result.details["calibration"] = cal.to_json()


def _title(key: str) -> str:
    return {"markov_quilt": "Markov Quilt mechanism",
            "markov_quilt_approx": "Markov Quilt mechanism (eigen-gap bound)",
            "markov_quilt_combined": "Markov Quilt mechanism",
            "wasserstein": "Wasserstein mechanism",
            "group_dp": "group differential privacy"}.get(key, key)

