"""The engine choice of the Pufferfish check (issue 14) on small random MDPs.

For k = 2 … KMAX and a few random MDPs (4 states, 3 observations, 2 actions,
30 % zero entries, ε = ln 1000 — the shape of issue 14's report; and a
"dense" family whose observation rows have no zeros, so that most models
are private and every sequence must be looked at), the time of

* ``auto`` — what `dslc check` does: the pruned integer enumeration when its
  work, counted beforehand, is at most ENUM_WORK_LIMIT, else SMT;
* ``smt``  — the SMT query alone (the default before);
* ``enum`` — the pruned enumeration alone;

and the engine ``auto`` chose.  Verdicts must agree (a disagreement aborts).
Target: every small numeric model at k ≤ 8 decided within 1 s.

    python3 benchmarks/bench_bounded_engines.py                 # k = 2..8, 30 s per SMT cell
    python3 benchmarks/bench_bounded_engines.py --kmax 4 --limit 5 --seeds 2     # CI-sized smoke run
"""

from __future__ import annotations

import argparse
import datetime
import platform
import random
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dslc.bounded.check import ENUM_WORK_LIMIT, check_exact, check_model, choose_engine  # noqa: E402
from dslc.ir.lower_hmm import lower_markov  # noqa: E402
from dslc.source import SourceFile  # noqa: E402
from dslc.syntax.parser import parse_block  # noqa: E402
from dslc.syntax.split import split_blocks  # noqa: E402


def random_mdp(seed: int, k: int, n: int = 4, eps: str = "ln 1000", zero_emit: float = 0.3) -> str:
    rng = random.Random(seed)
    st, ob = [f"s{i}" for i in range(n)], ["o0", "o1", "o2"]

    def row(m: int, zero: float) -> list[Fraction]:
        w = [0 if rng.random() < zero else rng.randint(1, 6) for _ in range(m)]
        if not any(w):
            w[rng.randrange(m)] = 1
        return [Fraction(x, sum(w)) for x in w]

    def fmt(names, probs):
        return ", ".join(f"{nm}: {p}" for nm, p in zip(names, probs) if p)
    lines = [f"mdp r{seed} {{", "states " + ", ".join(st), "observations " + ", ".join(ob), "actions A0, A1",
             "prior " + fmt(st, row(n, 0))]
    for s in st:
        for a in ("A0", "A1"):
            lines.append(f"{s} on {a} -> " + fmt(st, row(n, 0.3)))
        lines.append(f"{s} emits " + fmt(ob, row(3, zero_emit)))
    lines += ["secret a = {s0}", "secret b = {s1}", "protect a, b", f"check ε = {eps}, k = {k}", "}"]
    return "\n".join(lines)


def load(text: str):
    src = SourceFile("<bench>", text)
    chunks, _ = split_blocks(src)
    block = parse_block(src, chunks[0].keyword, chunks[0].start, chunks[0].end)
    model, diags = lower_markov(block)
    assert model is not None and not diags, diags
    return model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kmax", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--limit", type=float, default=30.0, help="seconds per SMT / enumeration cell")
    args = ap.parse_args()
    print(f"# Pufferfish engine choice — {datetime.date.today()} — {platform.platform()}, "
          f"Python {platform.python_version()}")
    print(f"target: every model at k ≤ 8 decided within 1 s by `auto` (ENUM_WORK_LIMIT = {ENUM_WORK_LIMIT:,})\n")
    print("| family | k | seed | verdict | auto engine | work | auto (s) | smt (s) | enum (s) |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|")
    worst: dict[int, float] = {}
    for family, zero_emit, k, seed in [(f, z, k, seed) for f, z in (("sparse", 0.3), ("dense", 0.0))
                                       for k in range(2, args.kmax + 1) for seed in range(args.seeds)]:
        if True:
            model = load(random_mdp(seed, k, zero_emit=zero_emit))
            t0 = time.perf_counter()
            engine, work = choose_engine(model)
            auto = (check_exact(model, args.limit, "enum") if engine == "enum"
                    else check_model(model, args.limit))
            t_auto = time.perf_counter() - t0
            t0 = time.perf_counter()
            smt = check_model(model, args.limit)
            t_smt = time.perf_counter() - t0
            t0 = time.perf_counter()
            enum = check_exact(model, args.limit, "enum")
            t_enum = time.perf_counter() - t0
            verdicts = {x.verdict for x in (auto, smt, enum)} - {"unknown"}
            if len(verdicts) > 1:
                print(f"DISAGREEMENT at k = {k}, seed {seed}: {auto.verdict} {smt.verdict} {enum.verdict}",
                      file=sys.stderr)
                return 1

            def cell(out, t):
                return f"> {args.limit:g}" if out.verdict == "unknown" else f"{t:.3f}"
            worst[k] = max(worst.get(k, 0.0), t_auto if auto.verdict != "unknown" else float("inf"))
            print(f"| {family} | {k} | {seed} | {next(iter(verdicts), 'unknown')} | {engine} | "
                  f"{work if work is not None else '—'} | {cell(auto, t_auto)} | {cell(smt, t_smt)} | "
                  f"{cell(enum, t_enum)} |", flush=True)
    print("\nworst `auto` time per k: " + ", ".join(f"k = {k}: {t:.3f} s" for k, t in worst.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
