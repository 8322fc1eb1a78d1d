"""`dslc check` in each output format on large automata, and `chain` blocks
of growing size.

    python3 benchmarks/bench_render.py formats --sizes 100000 1000000 --repeat 3
    python3 benchmarks/bench_render.py chains --sizes 50 100 200 --repeat 3
    python3 benchmarks/bench_render.py formats --sizes 200 --repeat 1      # a smoke run

``formats`` writes each automaton with benchmarks/gen_dipa.py and runs
`dslc check --format F FILE` for F = text, json, sarif (and json with
`--explain`, the per-transition list, up to ``--explain-max`` states) in a
fresh process: the best wall and CPU times of ``--repeat`` runs, the size
of the output and the ratio of CPU times to the text format.  Target: json
and sarif within 1.5× of text at 10^6 states.

``chains`` writes a random `chain` block of k states (every state moves to
itself, to the next state and, with probability 0.3, to any other state,
with weights 0..5; the stationary start) and runs `dslc check` on it.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

GENERATORS = ["svt_chain", "random_well_formed", "random_ill_formed"]
FORMATS = [("text", []), ("json", []), ("sarif", []), ("json --explain", ["--explain"])]


def timed(argv: list[str], out_path: Path) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds (user + system), exit status, bytes
    written) of one fresh process."""
    with open(out_path, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=subprocess.PIPE)
        err = proc.stderr.read()
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {err.decode()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, proc.returncode, out_path.stat().st_size


def best(argv: list[str], out_path: Path, repeat: int) -> tuple[float, float, int, int]:
    """The best wall and the best CPU time of ``repeat`` runs."""
    runs = [timed(argv, out_path) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), runs[0][2], runs[0][3]


def formats(sizes: list[int], repeat: int, tmp: Path, explain_max: int) -> None:
    import gen_dipa
    print(f"load average {os.getloadavg()[0]:.1f}; best of {repeat}")
    print("| generator | states | format | wall (s) | CPU (s) | CPU × text | output (bytes) |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for n in sizes:
        for gen in GENERATORS:
            path = tmp / f"{gen}_{n}.dp"
            gen_dipa.write_text(gen, n, path)
            text_cpu = None
            for name, extra in FORMATS:
                if extra and n > explain_max:
                    continue
                fmt = name.split()[0]
                argv = [sys.executable, "-m", "dslc", "check", "-q", "--format", fmt, *extra, str(path)]
                wall, cpu, _status, size = best(argv, tmp / "out", repeat)
                text_cpu = text_cpu or cpu
                print(f"| {gen} | {n:,} | {name} | {wall:.2f} | {cpu:.2f} | {cpu / text_cpu:.2f} | {size:,} |",
                      flush=True)
            path.unlink()


def random_chain(k: int, seed: int = 1) -> list[list[Fraction]]:
    """A k-state transition matrix: every state moves to itself, to the next
    state and, with probability 0.3, to any other state (weights 0..5);
    irreducible and aperiodic."""
    rnd = random.Random(seed)
    P = []
    for i in range(k):
        w = [rnd.randint(0, 5) if rnd.random() < 0.3 else 0 for _ in range(k)]
        w[i] += 1
        w[(i + 1) % k] += 1
        P.append([Fraction(x, sum(w)) for x in w])
    return P


def chain_text(k: int, seed: int = 1) -> str:
    rows = ["[" + ", ".join(map(str, row)) + "]" for row in random_chain(k, seed)]
    states = ", ".join(f"s{i}" for i in range(k))
    return (f"chain c{k} {{\n    states = [{states}]\n    initial = stationary\n"
            f"    transition = [{(',' + chr(10) + '                  ').join(rows)}]\n"
            f"    length = 100\n    query = count(s0)\n    ε = 1\n}}\n")


def chains(sizes: list[int], repeat: int, tmp: Path, timeout: float) -> None:
    print(f"load average {os.getloadavg()[0]:.1f}; best of {repeat}")
    print("| states | wall (s) | CPU (s) | verdict |")
    print("|---:|---:|---:|---|")
    for k in sizes:
        path = tmp / f"chain{k}.dp"
        path.write_text(chain_text(k), encoding="utf-8")
        argv = [sys.executable, "-m", "dslc", "check", "-q", "--timeout", str(timeout), str(path)]
        wall, cpu, _status, _ = best(argv, tmp / "out", repeat)
        out = (tmp / "out").read_text(encoding="utf-8")
        verdict = "private" if "ε-Pufferfish private" in out else out.strip().splitlines()[-1]
        print(f"| {k} | {wall:.2f} | {cpu:.2f} | {verdict} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("formats", "chains"))
    ap.add_argument("--sizes", type=int, nargs="+", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600, help="--timeout of each chain check")
    ap.add_argument("--explain-max", type=int, default=100_000,
                    help="time `--format json --explain` up to this many states (default 100000)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.what == "formats":
            formats(args.sizes, args.repeat, Path(tmp), args.explain_max)
        else:
            chains(args.sizes, args.repeat, Path(tmp), args.timeout)


if __name__ == "__main__":
    main()
