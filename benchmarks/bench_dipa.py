"""Scaling of the DiPA checker: time and peak memory at 10^3 … 10^6 states.

    python3 benchmarks/bench_dipa.py            # IR up to 10^6, CLI up to 10^5
    python3 benchmarks/bench_dipa.py --cli-max 1000000

Every measurement runs in a fresh process.  "IR" times `dslc.dipa.check.check`
on an automaton built in memory; "CLI" times `dslc check FILE` end to end
(reading, splitting, parsing, lowering, validating, checking, printing) on
the automaton written as a `.dp` file.  Both run with the cyclic garbage
collector off, as `dslc check` does.  Peak memory is the process's maximum
resident set size.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

GENERATORS = ["svt_chain", "random_well_formed", "random_ill_formed"]


def one_ir(gen: str, n: int) -> dict:
    import gc
    import gen_dipa
    from dslc.dipa.check import check
    gc.disable()
    dipa = getattr(gen_dipa, gen)(n)
    t0 = time.perf_counter()
    c0 = time.process_time()
    result = check(dipa)
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "states": len(dipa.states), "transitions": len(dipa.transitions),
            "verdict": "private" if result.well_formed else "not-private"}


def one_cli(gen: str, n: int) -> dict:
    import gen_dipa
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{gen}_{n}.dp"
        dipa = getattr(gen_dipa, gen)(n)
        path.write_text(gen_dipa.to_text(dipa), encoding="utf-8")
        size = path.stat().st_size
        del dipa
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "dslc", "check", str(path), "--color", "never"],
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return {"seconds": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
                "bytes": size, "exit": proc.returncode}


def measure(mode: str, gen: str, n: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--one", mode, gen, str(n)],
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", nargs=3, metavar=("MODE", "GEN", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--ir-max", type=int, default=10**6)
    ap.add_argument("--cli-max", type=int, default=10**5)
    ap.add_argument("--generators", default=",".join(GENERATORS))
    args = ap.parse_args()
    if args.one:
        mode, gen, n = args.one
        print(json.dumps(one_ir(gen, int(n)) if mode == "ir" else one_cli(gen, int(n))))
        return
    sizes = [10**3, 10**4, 10**5, 10**6]
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print("| generator | states | IR check (s) | IR peak (MB) | CLI end to end (s) | CLI CPU (s) | CLI peak (MB) | file (MB) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for gen in args.generators.split(","):
        for n in sizes:
            ir = measure("ir", gen, n) if n <= args.ir_max else {}
            cli = measure("cli", gen, n) if n <= args.cli_max else {}
            f = lambda d, k, p=2: (f"{d[k]:.{p}f}" if k in d else "—")  # noqa: E731
            size = f"{cli['bytes'] / 1e6:.1f}" if "bytes" in cli else "—"
            print(f"| {gen} | {n:,} | {f(ir, 'seconds')} | {f(ir, 'peak_mb', 0)} | {f(cli, 'seconds')} "
                  f"| {f(cli, 'cpu')} | {f(cli, 'peak_mb', 0)} | {size} |", flush=True)


if __name__ == "__main__":
    main()
