"""Benchmarks of `dslc audit` (docs/benchmarks.md, "dslc audit").

    python benchmarks/bench_audit.py speed          # samples/s: plain loop, -j 1, -j 2, Dask
    python benchmarks/bench_audit.py false-alarms   # the correct SVT audited 100 times
    python benchmarks/bench_audit.py ray            # a local Ray gives the numbers of -j 2 (needs ray)

`speed` times one input sequence (the sparse vector's witness pair, 8
queries) in three ways: a plain Python loop calling the implementation with a
NumPy generator (no harness), `dslc audit -j 1`, `-j 2`, and a local Dask
cluster of 2 worker processes.  `false-alarms` audits the correct
implementation (examples/audit/svt_numpy.py) with seeds 1..100 and counts
the audits that fail; the audit's level is 0.05.
"""

from __future__ import annotations

import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.chdir(ROOT)

from dslc.audit.run import Options, audit  # noqa: E402
from dslc.audit.spec import parse_adapter, parse_impl  # noqa: E402
from dslc.commands.common import load_dipa_block  # noqa: E402

IMPL = "examples/audit/svt_numpy.py:svt"
PAIR = ([0] * 8, [1] * 7 + [-1])


def plain_loop(n: int) -> float:
    import importlib.util

    import numpy as np
    spec = importlib.util.spec_from_file_location("svt_numpy", "examples/audit/svt_numpy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(0)
    inputs = [float(a) for a in PAIR[0]]
    start = time.perf_counter()
    for _ in range(n):
        module.svt(list(inputs), rng, 1.0)
    return n / (time.perf_counter() - start)


def harness(n: int, jobs: int, executor=None) -> tuple[float, float]:
    """(samples/s of the wall time of the sampling, samples/s per busy worker second)."""
    from fractions import Fraction
    chosen = load_dipa_block("examples/svt.dp", "svt")
    opts = Options(parse_impl(IMPL), parse_adapter(None), samples=n, chunk=5000, seed=1, jobs=jobs,
                   pair=([Fraction(a) for a in PAIR[0]], [Fraction(a) for a in PAIR[1]]),
                   event=frozenset({("⊥",) * 8}), executor=executor)
    report = audit("examples/svt.dp", chosen, opts)
    return report.samples_total / report.seconds, report.samples_total / report.worker_seconds


def speed() -> None:
    n = 200_000
    print(f"plain loop, 1 core: {plain_loop(n // 4):,.0f} samples/s")
    for jobs in (1, 2):
        wall, per_core = harness(n, jobs)
        print(f"dslc audit -j {jobs}: {wall:,.0f} samples/s wall, {per_core:,.0f} samples/s per worker")
    try:
        import distributed
    except ImportError:
        print("Dask is not installed: no cluster measurement")
        return
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, host="127.0.0.1") as cluster:
        wall, per_core = harness(n, 2, cluster.scheduler_address)
        print(f"dslc audit on a local Dask cluster (2 workers): {wall:,.0f} samples/s wall, "
              f"{per_core:,.0f} samples/s per worker")


def false_alarms(runs: int = 100, samples: int = 4000) -> None:
    from dslc.audit.executor import LocalExecutor
    chosen = load_dipa_block("examples/svt.dp", "svt")
    executor = LocalExecutor(2)
    fails = []
    start = time.perf_counter()
    try:
        for seed in range(1, runs + 1):
            opts = Options(parse_impl(IMPL), parse_adapter(None), samples=samples, chunk=1000, seed=seed)
            report = audit("examples/svt.dp", chosen, opts, executor=executor)
            if report.verdict != "pass":
                fails.append((seed, report.reasons))
    finally:
        executor.close()
    from scipy.stats import binomtest
    ci = binomtest(len(fails), runs).proportion_ci(confidence_level=0.95, method="exact")
    print(f"{runs} audits of the correct SVT ({samples} samples per input, level 0.05): {len(fails)} failed "
          f"(rate {len(fails) / runs:.2f}, 95% Clopper–Pearson interval [{ci.low:.3f}, {ci.high:.3f}]) "
          f"in {time.perf_counter() - start:.0f} s")
    for seed, reasons in fails:
        print(f"  seed {seed}: {'; '.join(reasons)}")


def ray_same_numbers() -> None:
    import json
    import subprocess
    args = [sys.executable, "-m", "dslc", "audit", "examples/svt.dp", "--block", "svt", "--impl", IMPL,
            "--pair", "0,0,0,0;1,1,1,-1", "--samples", "3000", "--chunk", "500", "--seed", "7", "-q",
            "--format", "json"]
    where = ("executor", "workers", "seconds", "samples_per_second", "reproduce")
    docs = []
    for extra in (["-j", "2"], ["--executor", "ray"]):
        start = time.perf_counter()
        out = subprocess.run(args + extra, capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
        doc = json.loads(out.stdout)
        print(f"{doc['executor']}: {doc['workers']} worker(s), {time.perf_counter() - start:.1f} s in all")
        docs.append({k: v for k, v in doc.items() if k not in where})
    print("same numbers" if docs[0] == docs[1] else "DIFFERENT numbers")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "speed"
    if what == "speed":
        speed()
    elif what == "false-alarms":
        false_alarms(int(sys.argv[2]) if len(sys.argv) > 2 else 100)
    elif what == "ray":
        ray_same_numbers()
    else:
        sys.exit(f"unknown benchmark {what}: speed, false-alarms or ray")
