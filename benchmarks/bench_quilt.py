"""Benchmarks and tables for `chain` blocks (docs/correlated.md).

    python3 benchmarks/bench_quilt.py scaling      # calibrate time vs T
    python3 benchmarks/bench_quilt.py length       # T = 10^3 … 10^12, sum and count: time independent of T
    python3 benchmarks/bench_quilt.py states       # random chains of 10 … 100 states (time-outs included)
    python3 benchmarks/bench_quilt.py grid         # binary chains, T = 100, ε = 1
    python3 benchmarks/bench_quilt.py all

`scaling` times the whole `dslc calibrate` pipeline in-process (parse,
validate, both Markov Quilt searches, Wasserstein when small) for chains of
length T = 10^2 … 10^6, best of 3 runs; `grid` prints the Markov Quilt noise
next to group DP's for binary chains over a grid of transition probabilities.
"""

from __future__ import annotations

import platform
import sys
import time
from fractions import Fraction

from dslc.pipeline import check_source
from dslc.source import SourceFile

CHAINS = {
    "binary fast (p=1/10, q=1/5), stationary":
        ("[0, 1]", "stationary", "[[9/10, 1/10], [1/5, 4/5]]", "sum"),
    "binary slow (p=q=1/100), stationary":
        ("[0, 1]", "stationary", "[[99/100, 1/100], [1/100, 99/100]]", "sum"),
    "binary fast, starts in state 0":
        ("[0, 1]", "[1, 0]", "[[9/10, 1/10], [1/5, 4/5]]", "sum"),
    "3 states, histogram, stationary":
        ("[a, b, c]", "stationary", "[[17/20, 1/10, 1/20], [1/5, 7/10, 1/10], [1/10, 3/10, 3/5]]",
         "histogram"),
    "binary periodic (alternating)":
        ("[0, 1]", "[1/2, 1/2]", "[[0, 1], [1, 0]]", "sum"),
}


def block(states, initial, transition, query, T, eps="1", name="c") -> str:
    return (f"chain {name} {{\n states = {states}\n initial = {initial}\n transition = {transition}\n"
            f" length = {T}\n query = {query}\n ε = {eps}\n}}\n")


def calibrate_text(text: str):
    res = check_source(SourceFile("bench.dp", text))
    b = res.blocks[0]
    assert b.verdict.value == "private", [d.message for d in b.diagnostics]
    return b.analysis                     # the Calibration (dslc.correlated.backend.report)


def time_it(text: str, repeat: int = 3) -> tuple[float, object]:
    best = float("inf")
    cal = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        cal = calibrate_text(text)
        best = min(best, time.perf_counter() - t0)
    return best, cal


def scaling() -> None:
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}")
    print("| chain | T | seconds | Markov Quilt scale | group DP scale |")
    print("|---|---:|---:|---:|---:|")
    for name, (states, initial, transition, query) in CHAINS.items():
        for T in (100, 1000, 10_000, 100_000, 1_000_000):
            secs, cal = time_it(block(states, initial, transition, query, T))
            mq = cal.mechanism("markov_quilt")
            gd = cal.mechanism("group_dp")
            print(f"| {name} | {T:,} | {secs:.3f} | {mq.scale_text} | {gd.scale_text} |")
            sys.stdout.flush()


def length(smoke: bool = False) -> None:
    """calibrate time for T = 10^3 … 10^12 (issue 14: "chains of any length in
    constant time"); target: no growth with T, every cell well under 1 s."""
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}")
    print("target: time independent of T (each cell < 1 s)")
    print("| chain | query | " + " | ".join(f"T = 10^{e}" for e in range(3, 13, 3)) + " |")
    print("|---|---|" + "---:|" * 4)
    cases = [("binary fast, stationary", "[[9/10, 1/10], [1/5, 4/5]]", "stationary"),
             ("binary fast, starts in 0", "[[9/10, 1/10], [1/5, 4/5]]", "[1, 0]"),
             ("binary slow, stationary", "[[99/100, 1/100], [1/100, 99/100]]", "stationary")]
    for name, transition, initial in cases[:1] if smoke else cases:
        for query in ("sum", "count(1)"):
            cells = []
            for e in range(3, 13, 3):
                secs, cal = time_it(block("[0, 1]", initial, transition, query, 10 ** e), repeat=1 if smoke else 3)
                cells.append(f"{secs:.3f} s ({cal.recommended.scale_text})")
            print(f"| {name} | {query} | " + " | ".join(cells) + " |")
            sys.stdout.flush()


def states(timeout: float = 20.0) -> None:
    """Random chains of n states (entries 1..9 / row sum), T = 1000, stationary and
    not, within a time budget per block (issue 10: 40 states took 46 s, 100
    states > 200 s, without a limit)."""
    import random
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d')}, --timeout {timeout:g}")
    print("| states | initial | T | seconds | verdict | recommended scale |")
    print("|---:|---|---:|---:|---|---:|")
    for n in (10, 20, 30, 40, 50, 100):
        for initial in ("stationary", "random"):
            rng = random.Random(n)
            rows = []
            for _ in range(n):
                w = [rng.randint(1, 9) for _ in range(n)]
                rows.append("[" + ", ".join(str(Fraction(x, sum(w))) for x in w) + "]")
            init = initial
            if initial == "random":
                w = [rng.randint(1, 9) for _ in range(n)]
                init = "[" + ", ".join(str(Fraction(x, sum(w))) for x in w) + "]"
            T = 1000 if initial == "stationary" else 100
            text = block("[" + ", ".join(map(str, range(n))) + "]", init, "[" + ", ".join(rows) + "]", "sum", T)
            t0 = time.perf_counter()
            res = check_source(SourceFile("bench.dp", text), {"timeout": timeout})
            secs = time.perf_counter() - t0
            b = res.blocks[0]
            cal = b.analysis
            print(f"| {n} | {initial} | {T} | {secs:.2f} | {b.verdict.value} "
                  f"| {cal.recommended.scale_text if cal else '—'} |")
            sys.stdout.flush()


GRID = [Fraction(1, 100), Fraction(1, 20), Fraction(1, 10), Fraction(1, 5), Fraction(2, 5),
        Fraction(1, 2), Fraction(4, 5), Fraction(19, 20)]


def grid(T: int = 100, eps: str = "1") -> list[tuple]:
    """Markov Quilt (exact and eigen-gap) vs group DP for binary chains
    P = [[1−p, p], [q, 1−q]] started in their stationary distribution."""
    rows = []
    for p in GRID:
        for q in GRID:
            text = block("[0, 1]", "stationary", f"[[{1 - p}, {p}], [{q}, {1 - q}]]", "sum", T, eps)
            cal = calibrate_text(text)
            rows.append((p, q, cal.mechanism("markov_quilt"), cal.mechanism("markov_quilt_approx"),
                         cal.mechanism("group_dp")))
    return rows


def print_grid() -> None:
    rows = grid()
    print("Markov Quilt noise scale (exact) for T = 100, ε = 1, query = sum (group DP: 100)")
    print("| p \\ q | " + " | ".join(str(q) for q in GRID) + " |")
    print("|---|" + "---:|" * len(GRID))
    for p in GRID:
        cells = [m.scale_text for (pp, q, m, a, g) in rows if pp == p]
        print(f"| {p} | " + " | ".join(cells) + " |")
    print()
    print("Eigen-gap bound (MQMApprox) for the same chains")
    print("| p \\ q | " + " | ".join(str(q) for q in GRID) + " |")
    print("|---|" + "---:|" * len(GRID))
    for p in GRID:
        cells = [a.scale_text if a.applicable else "n/a" for (pp, q, m, a, g) in rows if pp == p]
        print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("grid", "all"):
        print_grid()
        print()
    if what in ("scaling", "all"):
        scaling()
    if what in ("length", "all"):
        print()
        length()
    if what == "length-smoke":
        length(smoke=True)
    if what in ("states", "all"):
        print()
        states()
