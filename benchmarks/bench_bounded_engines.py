"""The engine choice of the Pufferfish check (issue 14) on small random MDPs.

For k = KMIN … KMAX and a few random MDPs (4 states, 3 observations, 2 actions,
30 % zero entries, ε = ln 1000 — the shape of issue 14's report; and a
"dense" family whose observation rows have no zeros, so that most models
are private and every sequence must be looked at), the time of

* ``auto``  — what `dslc check` does (``choose_engine``): the pruned
  enumeration (ratio bound, look-ahead, merging; both directions in one
  walk) when the bound of its work is at most ENUM_WORK_LIMIT, else the
  same under a work cap followed by SMT for what it leaves open;
* ``smt``   — the SMT query alone;
* ``plain`` — the enumeration before the ratio pruning (``enum-plain``:
  every sequence of positive probability under the left side, one
  direction at a time) — what ``auto`` ran before;

with the engine ``auto`` chose.  ``auto`` is timed best of --repeat runs;
verdicts and violating directions must agree (a disagreement aborts).
Target: every small numeric model at k ≤ 8 decided within 1 s.

    python3 benchmarks/bench_bounded_engines.py                 # k = 4..8, 20 s per SMT cell
    python3 benchmarks/bench_bounded_engines.py --kmax 4 --limit 5 --seeds 2     # CI-sized smoke run
    python3 benchmarks/bench_bounded_engines.py --sweep 500     # random shapes, the slowest `auto` runs
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

from dslc.bounded.check import (ENUM_WORK_LIMIT, check_exact, check_model, check_probe,  # noqa: E402
                                choose_engine)
from dslc.ir.lower_hmm import lower_markov  # noqa: E402
from dslc.source import SourceFile  # noqa: E402
from dslc.syntax.parser import parse_block  # noqa: E402
from dslc.syntax.split import split_blocks  # noqa: E402


def _row(rng: random.Random, m: int, zero: float) -> list[Fraction]:
    """A random probability row of m entries, each 0 with probability ``zero``."""
    w = [0 if rng.random() < zero else rng.randint(1, 6) for _ in range(m)]
    if not any(w):
        w[rng.randrange(m)] = 1
    return [Fraction(x, sum(w)) for x in w]


def _fmt(names, probs) -> str:
    return ", ".join(f"{nm}: {p}" for nm, p in zip(names, probs) if p)


def random_mdp(seed: int, k: int, n: int = 4, eps: str = "ln 1000", zero_emit: float = 0.3) -> str:
    rng = random.Random(seed)
    st, ob = [f"s{i}" for i in range(n)], ["o0", "o1", "o2"]

    def row(m: int, zero: float) -> list[Fraction]:
        return _row(rng, m, zero)
    fmt = _fmt
    lines = [f"mdp r{seed} {{", "states " + ", ".join(st), "observations " + ", ".join(ob), "actions A0, A1",
             "prior " + fmt(st, row(n, 0))]
    for s in st:
        for a in ("A0", "A1"):
            lines.append(f"{s} on {a} -> " + fmt(st, row(n, 0.3)))
        lines.append(f"{s} emits " + fmt(ob, row(3, zero_emit)))
    lines += ["secret a = {s0}", "secret b = {s1}", "protect a, b", f"check ε = {eps}, k = {k}", "}"]
    return "\n".join(lines)


def random_model(seed: int, k: int) -> str:
    """A random small model of a random shape (the --sweep family): 2–5 states,
    2–4 observations, 1–3 actions, 0–70 % zero transition entries, 0–50 %
    zero observation entries, a random ε, disjoint or overlapping secrets."""
    rng = random.Random(seed)
    n, n_obs, n_act = rng.randint(2, 5), rng.randint(2, 4), rng.choice([1, 1, 2, 2, 3])
    zt, ze = rng.choice([0, 0.3, 0.5, 0.7]), rng.choice([0, 0.3, 0.5])
    eps = rng.choice(["ln 2", "ln 10", "ln 1000", "1", "ln(3/2)", "3", "ln 1"])
    st, ob, acts = [f"s{i}" for i in range(n)], [f"o{i}" for i in range(n_obs)], [f"A{i}" for i in range(n_act)]

    def row(m: int, zero: float) -> list[Fraction]:
        return _row(rng, m, zero)
    fmt = _fmt
    kind = "mdp" if n_act > 1 else "hmm"
    lines = [f"{kind} m{seed} {{", "states " + ", ".join(st), "observations " + ", ".join(ob),
             "prior " + fmt(st, row(n, 0))]
    if n_act > 1:
        lines.append("actions " + ", ".join(acts))
    for s in st:
        if n_act > 1:
            for a in acts:
                lines.append(f"{s} on {a} -> " + fmt(st, row(n, zt)))
        else:
            lines.append(f"{s} -> " + fmt(st, row(n, zt)))
        lines.append(f"{s} emits " + fmt(ob, row(n_obs, ze)))
    split = rng.randint(1, n - 1)
    right = st[split:] if rng.random() < 0.7 else st[split - 1:]
    lines += ["secret a = {" + ", ".join(st[:split]) + "}", "secret b = {" + ", ".join(right) + "}",
              "protect a, b", f"check ε = {eps}, k = {k}", "}"]
    return "\n".join(lines)


def sweep(count: int, kmax: int, limit: float) -> int:
    """`auto` on ``count`` random models of random shapes at k = 2..kmax, each
    cross-checked against the plain enumeration when that is small enough."""
    times = []
    checked = 0
    for i in range(count):
        k = 2 + i % (kmax - 1)
        text = random_model(10_000 + i, k)
        model = load(text)
        (auto, engine, work), t = timed(lambda: run_auto(model, limit), 2)
        plain = check_exact(model, limit, "enum-plain") if work is not None and work <= 3 * 10 ** 7 else None
        if plain is not None and plain.verdict != "unknown" and (
                plain.verdict != auto.verdict or {(v.left, v.right) for v in plain.violations}
                != {(v.left, v.right) for v in auto.violations}):
            print(f"DISAGREEMENT on model {10_000 + i}, k = {k}:\n{text}", file=sys.stderr)
            return 1
        checked += plain is not None and plain.verdict != "unknown"
        times.append((t, k, 10_000 + i, engine, auto.verdict, model.n_actions, len(model.states)))
    times.sort(reverse=True)
    engines: dict[str, int] = {}
    for _t, _k, _seed, e, *_rest in times:
        engines[e] = engines.get(e, 0) + 1
    print(f"{count} random models, k = 2..{kmax}: `auto` above 1 s: {sum(t > 1 for t, *_ in times)}; "
          f"above 0.1 s: {sum(t > 0.1 for t, *_ in times)}; median {times[len(times) // 2][0]:.3f} s; "
          f"cross-checked: {checked}; engines: " + ", ".join(f"{e}: {c}" for e, c in sorted(engines.items())))
    print("slowest: " + "; ".join(f"{t:.3f} s (seed {seed}, k = {k}, {n} states, {a} actions, {e}, {v})"
                                  for t, k, seed, e, v, a, n in times[:8]))
    return 0


def load(text: str):
    src = SourceFile("<bench>", text)
    chunks, _ = split_blocks(src)
    block = parse_block(src, chunks[0].keyword, chunks[0].start, chunks[0].end)
    model, diags = lower_markov(block)
    assert model is not None and not diags, diags
    return model


def run_auto(model, limit: float):
    engine, work = choose_engine(model)
    if engine == "enum":
        return check_exact(model, limit, "enum"), engine, work
    if engine == "probe":
        outcome, engine, _stats = check_probe(model, limit)
        return outcome, engine + " (probe)", work
    return check_model(model, limit), engine, work


def timed(fn, repeat: int = 1):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return out, best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kmin", type=int, default=4)
    ap.add_argument("--kmax", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--limit", type=float, default=20.0, help="seconds per SMT / plain-enumeration cell")
    ap.add_argument("--repeat", type=int, default=3, help="runs of `auto` (the best is shown)")
    ap.add_argument("--no-smt", action="store_true", help="skip the SMT column")
    ap.add_argument("--sweep", type=int, default=0, metavar="N",
                    help="instead: `auto` on N random models of random shapes (k = 2..KMAX), the slowest listed")
    args = ap.parse_args()
    if args.sweep:
        return sweep(args.sweep, args.kmax, args.limit)
    print(f"# Pufferfish engine choice — {datetime.date.today()} — {platform.platform()}, "
          f"Python {platform.python_version()}, load {_load()}")
    print(f"target: every model at k ≤ 8 decided within 1 s by `auto` (ENUM_WORK_LIMIT = {ENUM_WORK_LIMIT:,})\n")
    print("| family | k | seed | verdict | auto engine | work bound | auto (s) | smt (s) | plain enum (s) |")
    print("|---|---:|---:|---|---|---:|---:|---:|---:|")
    cells: dict[tuple[str, int], dict[str, list]] = {}
    for family, zero_emit, k, seed in [(f, z, k, seed) for f, z in (("sparse", 0.3), ("dense", 0.0))
                                       for k in range(args.kmin, args.kmax + 1) for seed in range(args.seeds)]:
        model = load(random_mdp(seed, k, zero_emit=zero_emit))
        (auto, engine, work), t_auto = timed(lambda: run_auto(model, args.limit), args.repeat)
        outs = {"auto": (auto, t_auto)}
        if not args.no_smt:
            outs["smt"] = timed(lambda: check_model(model, args.limit))
        outs["plain"] = timed(lambda: check_exact(model, args.limit, "enum-plain"))
        decided = {name: out for name, (out, _t) in outs.items() if out.verdict != "unknown"}
        if len({o.verdict for o in decided.values()}) > 1 or \
                len({frozenset((v.left, v.right) for v in o.violations) for o in decided.values()}) > 1:
            print(f"DISAGREEMENT at k = {k}, seed {seed}: " +
                  ", ".join(f"{n}: {o.verdict}" for n, (o, _t) in outs.items()), file=sys.stderr)
            return 1

        def cell(name):
            if name not in outs:
                return "—"
            out, t = outs[name]
            return f"> {args.limit:g}" if out.verdict == "unknown" else f"{t:.3f}"
        row = cells.setdefault((family, k), {})
        for name, (out, t) in outs.items():
            row.setdefault(name, []).append(float("inf") if out.verdict == "unknown" else t)
        verdict = next(iter({o.verdict for o in decided.values()}), "unknown")
        print(f"| {family} | {k} | {seed} | {verdict} | {engine} | {work if work is not None else '—'} | "
              f"{cell('auto')} | {cell('smt')} | {cell('plain')} |", flush=True)

    def span(ts: list) -> str:
        lo, hi = min(ts), max(ts)
        fmt = (lambda t: f"> {args.limit:g}" if t == float("inf") else (f"{t:.3f}" if t < 0.1 else f"{t:.2f}"))
        return fmt(lo) if fmt(lo) == fmt(hi) else f"{fmt(lo)}–{fmt(hi)}"
    print("\n| k | sparse: auto (s) | sparse: SMT (s) | sparse: plain enum (s) | dense: auto (s) | dense: SMT (s) "
          "| dense: plain enum (s) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k in range(args.kmin, args.kmax + 1):
        parts = []
        for family in ("sparse", "dense"):
            row = cells[(family, k)]
            parts += [span(row["auto"]), span(row["smt"]) if "smt" in row else "—", span(row["plain"])]
        print(f"| {k} | " + " | ".join(parts) + " |")
    worst = {k: max(max(cells[(f, k)]["auto"]) for f in ("sparse", "dense")) for k in range(args.kmin, args.kmax + 1)}
    print("\nworst `auto` time per k: " + ", ".join(f"k = {k}: {t:.3f} s" for k, t in worst.items()))
    return 0


def _load() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
