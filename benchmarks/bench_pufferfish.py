"""Benchmark of the Pufferfish check against the horizon k.

For each model and k = 2 .. 12, the time to decide every direction of every
protected pair with

* ``smt``   — dslc's encoding (one z3 Real per α_t(s), β_t(s), pruning of
              unreachable states and impossible observations),
* ``paper`` — the paper's Algorithm PufferfishCheck literally (nested
              Product/Dot/Select expressions),
* ``enum``  — enumeration of every observation (and action) sequence with
              exact integer arithmetic (depth-first, prefixes shared, no pruning);
* ``pruned``— the pruned enumeration of `dslc check` (``enum``: ratio bound,
              look-ahead, merging of proportional prefixes, both directions
              in one walk);
* ``dp``    — exact dynamic programming over the set of prefixes, keeping one
              prefix per normalised pair of forward vectors (not the default
              engine; shown for comparison).

Each approach stops at the first k that exceeds the time limit (later cells
print "—").  All must agree on the verdict; a disagreement aborts.

    python3 benchmarks/bench_pufferfish.py            # k = 2..12, 60 s per cell
    python3 benchmarks/bench_pufferfish.py --kmax 8 --limit 10
    python3 benchmarks/bench_pufferfish.py --ks 12,16,24,32,48,64 --models symbolic
"""

from __future__ import annotations

import argparse
import datetime
import platform
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dslc.ir.lower_hmm import lower_markov  # noqa: E402
from dataclasses import replace  # noqa: E402
from dslc.ir.hmm import MarkovModel  # noqa: E402
from dslc.bounded.check import check_exact, check_model, enumerate_model, explore_model  # noqa: E402
from dslc.source import SourceFile  # noqa: E402
from dslc.syntax.parser import parse_block  # noqa: E402
from dslc.syntax.split import split_blocks  # noqa: E402


def load(text: str, name: str) -> MarkovModel:
    src = SourceFile(f"<{name}>", text)
    chunks, _ = split_blocks(src)
    chunk = next(c for c in chunks if c.name == name)
    block = parse_block(src, chunk.keyword, chunk.start, chunk.end)
    model, diags = lower_markov(block)
    assert model is not None and not diags, diags
    return model


def models() -> list[tuple[str, MarkovModel]]:
    geo = (ROOT / "examples" / "geometric.dp").read_text(encoding="utf-8")
    geo = geo.replace("param p in (0, 1)", "param p = 1/3")
    survey = (ROOT / "examples" / "survey_interactive.dp").read_text(encoding="utf-8")
    geo_symbolic = (ROOT / "examples" / "geometric.dp").read_text(encoding="utf-8")
    return [
        ("geometric HMM (p = 1/3, ln 2; private)", load(geo, "geometric_independent")),
        ("geometric HMM, symbolic p in (0, 1) (ln 2; private for every p; nonlinear)",
         load(geo_symbolic, "geometric_independent")),
        ("survey MDP (ln 4; private)", load(survey, "survey_interactive_ln4")),
        ("repeated interactive survey MDP (ε = ln 4^(k-1); private)", load(REPEATED, "repeated")),
    ]


# The interactive survey, asked again at every step: the analyst picks L or
# H before each answer, the diagnosis never changes, and each answer state
# remembers the diagnosis.  Every observation carries information, so the
# bound must grow with k: with k observations (k-1 answers) ε = ln 4^(k-1) is
# tight (private), and the analyst must pick H every time to reach it.
REPEATED = """
mdp repeated {
    states pos, neg, pos_yes, pos_no, neg_yes, neg_no
    observations quiet, yes, no
    actions L, H
    prior pos: 1/2, neg: 1/2
    pos on L -> pos_yes: 3/4, pos_no: 1/4
    pos on H -> pos_yes: 4/5, pos_no: 1/5
    pos_yes on L -> pos_yes: 3/4, pos_no: 1/4
    pos_yes on H -> pos_yes: 4/5, pos_no: 1/5
    pos_no on L -> pos_yes: 3/4, pos_no: 1/4
    pos_no on H -> pos_yes: 4/5, pos_no: 1/5
    neg on L -> neg_yes: 1/4, neg_no: 3/4
    neg on H -> neg_yes: 1/5, neg_no: 4/5
    neg_yes on L -> neg_yes: 1/4, neg_no: 3/4
    neg_yes on H -> neg_yes: 1/5, neg_no: 4/5
    neg_no on L -> neg_yes: 1/4, neg_no: 3/4
    neg_no on H -> neg_yes: 1/5, neg_no: 4/5
    pos emits quiet; neg emits quiet
    pos_yes emits yes; neg_yes emits yes
    pos_no emits no; neg_no emits no
    secret positive = {pos}
    secret negative = {neg}
    protect positive, negative
    check ε = ln 4, k = 2
}
"""


def with_k(model: MarkovModel, k: int) -> MarkovModel:
    m = replace(model, horizon=k)
    if m.name == "repeated":
        # every answer multiplies the ratio by at most 4: ε = ln 4^(k-1) is tight (private)
        m = replace(m, epsilon=replace(m.epsilon, ln_base=Fraction(4) ** (k - 1),
                                                               text=f"ln 4^{k - 1}"))
    return m


def run_smt(model: MarkovModel, style: str, limit: float) -> tuple[str, float]:
    t0 = time.perf_counter()
    out = check_model(model, limit, style=style)
    return out.verdict, time.perf_counter() - t0


def run_enum(model: MarkovModel, limit: float) -> tuple[str, float, int]:
    t0 = time.perf_counter()
    v, count, complete = enumerate_model(model, deadline=t0 + limit)
    dt = time.perf_counter() - t0
    if not complete:
        return "unknown", dt, count
    return ("violation" if v else "private"), dt, count


def run_pruned(model: MarkovModel, limit: float) -> tuple[str, float]:
    t0 = time.perf_counter()
    out = check_exact(model, limit, "enum")
    return out.verdict, time.perf_counter() - t0


def run_dp(model: MarkovModel, limit: float) -> tuple[str, float, int]:
    t0 = time.perf_counter()
    v, widest, complete = explore_model(model, deadline=t0 + limit)
    dt = time.perf_counter() - t0
    if not complete:
        return "unknown", dt, widest
    return ("violation" if v else "private"), dt, widest


def fmt_cell(verdict: str, seconds: float, limit: float) -> str:
    if verdict == "unknown" or seconds > limit:
        return f"> {limit:g} s"
    return f"{seconds:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kmin", type=int, default=2)
    ap.add_argument("--kmax", type=int, default=12)
    ap.add_argument("--ks", type=str, default="", help="comma-separated horizons (instead of kmin..kmax)")
    ap.add_argument("--models", type=str, default="", help="only the models whose title contains this")
    ap.add_argument("--limit", type=float, default=60.0, help="seconds per cell (default 60)")
    args = ap.parse_args()
    ks = [int(k) for k in args.ks.split(",")] if args.ks else list(range(args.kmin, args.kmax + 1))
    print(f"# Pufferfish check vs horizon k — {datetime.date.today()} — {platform.platform()}, "
          f"Python {platform.python_version()}, {_cpu()}")
    for title, base in models():
        if args.models not in title:
            continue
        print(f"\n## {title}\n")
        print("| k | sequences | smt (s) | paper encoding (s) | enumeration (s) | pruned enumeration (s) "
              "| exact DP (s) | DP width |")
        print("|---|---|---|---|---|---|---|---|")
        dead = {"smt": False, "paper": False, "enum": False, "pruned": False, "dp": False}
        reached: dict[str, int] = {}
        for k in ks:
            m = with_k(base, k)
            n_seq = len(m.observations) ** k * max(1, len(m.actions)) ** (k - 1)
            cells = {}
            verdicts = {}
            for style in ("smt", "paper"):
                if dead[style]:
                    cells[style] = "—"
                    continue
                v, dt = run_smt(m, "improved" if style == "smt" else "plain", args.limit)
                cells[style] = fmt_cell(v, dt, args.limit)
                if v == "unknown":
                    dead[style] = True
                else:
                    verdicts[style] = v
            symbolic = bool(m.symbolic_params)
            if symbolic:
                cells["enum"] = "n/a"
            elif dead["enum"]:
                cells["enum"] = "—"
            else:
                v, dt, _count = run_enum(m, args.limit)
                cells["enum"] = fmt_cell(v, dt, args.limit)
                if v == "unknown":
                    dead["enum"] = True
                else:
                    verdicts["enum"] = v
            if symbolic:
                cells["pruned"] = "n/a"
            elif dead["pruned"]:
                cells["pruned"] = "—"
            else:
                v, dt = run_pruned(m, args.limit)
                cells["pruned"] = fmt_cell(v, dt, args.limit)
                if v == "unknown":
                    dead["pruned"] = True
                else:
                    verdicts["pruned"] = v
            width = "—"
            if symbolic:
                cells["dp"] = "n/a"
            elif dead["dp"]:
                cells["dp"] = "—"
            else:
                v, dt, widest = run_dp(m, args.limit)
                cells["dp"] = fmt_cell(v, dt, args.limit)
                width = f"{widest:,}"
                if v == "unknown":
                    dead["dp"] = True
                else:
                    verdicts["dp"] = v
            for approach in ("smt", "paper", "enum", "pruned", "dp"):
                if approach in verdicts:
                    reached[approach] = k
            if len(set(verdicts.values())) > 1:
                print(f"DISAGREEMENT at k = {k}: {verdicts}", file=sys.stderr)
                return 1
            print(f"| {k} | {_fmt_count(n_seq)} | {cells['smt']} | {cells['paper']} | {cells['enum']} | {cells['pruned']} "
                  f"| {cells['dp']} | {width} |", flush=True)
        names = {"smt": "smt", "paper": "paper encoding", "enum": "enumeration", "pruned": "pruned enumeration",
                 "dp": "exact DP"}
        parts = []
        for approach, label in names.items():
            if approach not in reached:
                if dead[approach]:
                    parts.append(f"{label}: not even k = {ks[0]}")
                continue
            top = reached[approach]
            if dead[approach]:
                nxt = next((k for k in ks if k > top), top + 1)
                parts.append(f"{label}: up to k = {top} (k = {nxt} took > {args.limit:g} s)")
            else:
                parts.append(f"{label}: every k ≤ {top}")
        print(f"\nWithin {args.limit:g} s per check — " + "; ".join(parts) + ".", flush=True)
    return 0


def _fmt_count(n: int) -> str:
    return f"{n:,}" if n < 10 ** 12 else f"{n:.2e}".replace("e+", "·10^")


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
