"""The `chain` backend: validate the block (E24x/E25x), calibrate the noise
of the Markov Quilt, Wasserstein and group-DP mechanisms, and report the
recommended one.  A valid block is "private": dslc releases it with the
calibrated noise, which is ε-Pufferfish private for the declared Θ."""

from __future__ import annotations

from dslc.driver import register_backend
from dslc.quilt import codes as _codes  # noqa: F401  (registers E240–E279)
from dslc.quilt.calibrate import calibrate
from dslc.quilt.lower import lower_chain
from dslc.quilt.numeric import fmt_q
from dslc.quilt.syntax import ChainBuilder, ChainBlock
from dslc.results import BlockResult, Verdict
from dslc.source import SourceFile
from dslc.syntax import parser as _parser

_parser.register_block_kind("chain", "chain_block", ChainBuilder)
for _tok, _words in {"LSQB": "`[`", "RSQB": "`]`", "CHAIN_STATIONARY": "`stationary`",
                     "CHAIN_SUM": "`sum`", "CHAIN_HISTOGRAM": "`histogram`",
                     "CHAIN_COUNT": "`count(S)`", "CHAIN_LIPSCHITZ": "`lipschitz(L)`"}.items():
    _parser.TOKEN_WORDS.setdefault(_tok, _words)


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


register_backend("chain", check_chain_block)
