"""Time and peak memory of `dslc check` on large automata, and its start-up.

    python3 benchmarks/bench_dipa.py                    # 10^3 … 10^6 states, start-up
    python3 benchmarks/bench_dipa.py --max 10000000     # and 10^7 (files of about 1 GB)
    python3 benchmarks/bench_dipa.py --ir --repeat 3    # the checker alone too; best of 3 runs
    python3 benchmarks/bench_dipa.py --sizes 200 --startup-runs 3     # a smoke run

Every measurement is a fresh process.  "CLI" runs `dslc check FILE` end to
end (reading, splitting, parsing, lowering, Definition 3, the check, the
output) on an automaton written by benchmarks/gen_dipa.py; wall time,
CPU time (user + system) and the peak resident set size come from the
process's own rusage.  "IR" times `dslc.dipa.check.check` on the automaton
built in memory.  Start-up is `dslc check` on two small files against
`python -c pass`, the median of several runs.  The load average of the
machine is printed with the table: on a shared machine every figure moves
with it.

Targets (issue 14): 10^6 states through the CLI in at most 5 s and 1 GB, for
chains and random automata; 10^7 states in at most 60 s; `dslc check` on a
small file within 3× bare Python start-up.  Each row says whether its target
is met.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

GENERATORS = ["svt_chain", "random_well_formed", "random_ill_formed"]
EXPECTED = {"svt_chain": "private", "random_well_formed": "private", "random_ill_formed": "not-private"}
TARGETS = {10**6: (5.0, 1024.0), 10**7: (60.0, None)}      # states: (seconds, MB)
STARTUP_FACTOR = 3.0

SMALL = """automaton svt {
  state q0 noinput Lap(ε/2, 0) { true -> q1 store }
  state q1 input Lap(ε/4, 0) { insample < x -> q1 output ⊥; insample >= x -> q2 output ⊤ }
  state q2 input Lap(ε/4, 0) { }
}
"""


def run_child(argv: list[str], cwd: Path = ROOT) -> dict:
    """Run ``argv`` in a fresh process: wall and CPU seconds and peak RSS of
    that process alone (os.wait4), exit status, output."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"seconds": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
            "exit": proc.returncode, "stdout": out.decode("utf-8", "replace"),
            "stderr": err.decode("utf-8", "replace")}


def dslc_command() -> list[str]:
    """The installed `dslc` entry point next to this Python, else `python -m dslc`."""
    script = Path(sys.executable).with_name("dslc")
    if script.exists():
        return [str(script)]
    found = shutil.which("dslc")
    return [found] if found else [sys.executable, "-m", "dslc"]


def verdict_of(output: str) -> str:
    for line in output.splitlines():
        if line.startswith("✓ "):
            return "private"
        if line.startswith("✗ "):
            return "not-private"
        if line.startswith("? "):
            return "unknown"
        if line.startswith("! "):
            return "error"
    return "no verdict"


def one_cli(gen: str, n: int, folder: Path, repeat: int = 1) -> dict:
    """The fastest of ``repeat`` runs (and the median wall time of all)."""
    import gen_dipa
    path = folder / f"{gen}_{n}.dp"
    if not path.exists():
        gen_dipa.write_text(gen, n, path)
    size = path.stat().st_size
    runs = [run_child(dslc_command() + ["check", str(path), "--color", "never",
                                        "--max-file-size", str(max(size + 1, 256 * 2**20))])
            for _ in range(repeat)]
    r = min(runs, key=lambda x: x["seconds"])
    r["median"] = statistics.median(x["seconds"] for x in runs)
    r["peak_mb"] = max(x["peak_mb"] for x in runs)
    r["bytes"] = size
    r["verdict"] = verdict_of(r["stdout"])
    return r


def one_ir(gen: str, n: int) -> dict:
    """The checker alone on the automaton built in memory (in a child process)."""
    code = (f"import gc, json, sys, time, resource; sys.path[:0] = [{str(HERE)!r}, {str(ROOT)!r}]\n"
            f"import gen_dipa; from dslc.dipa.check import check; gc.disable()\n"
            f"d = gen_dipa.{gen}({n}); t0 = time.perf_counter(); r = check(d)\n"
            f"print(json.dumps({{'seconds': time.perf_counter() - t0, "
            f"'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))")
    r = run_child([sys.executable, "-c", code])
    if r["exit"] != 0:
        return {"error": r["stderr"].strip().splitlines()[-1:]}
    return json.loads(r["stdout"])


def startup(runs: int, folder: Path) -> list[dict]:
    small = folder / "small.dp"
    small.write_text(SMALL, encoding="utf-8")
    cases = [("python -c pass", [sys.executable, "-c", "pass"]),
             ("dslc check (automaton)", dslc_command() + ["check", str(small)]),
             ("dslc check examples/svt.dp (mechanism + automaton)",
              dslc_command() + ["check", str(ROOT / "examples" / "svt.dp")])]
    for _, argv in cases:                   # once each: byte-code and the grammar cache are written
        run_child(argv)
    rows = []
    for name, argv in cases:
        times = [run_child(argv)["seconds"] for _ in range(runs)]
        rows.append({"name": name, "median": statistics.median(times), "min": min(times)})
    return rows


def fmt(value, digits=2) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", help="numbers of states (default 10^3 … --max)")
    ap.add_argument("--max", type=int, default=10**6, help="largest size of the default list (10^6)")
    ap.add_argument("--generators", default=",".join(GENERATORS))
    ap.add_argument("--ir", action="store_true", help="also time the checker on the IR built in memory")
    ap.add_argument("--repeat", type=int, default=1, help="CLI runs per cell: the fastest is shown, and the median")
    ap.add_argument("--startup-runs", type=int, default=20, help="runs per start-up case (0: none)")
    ap.add_argument("--keep", help="write the generated files here and keep them (reused when present)")
    args = ap.parse_args()
    sizes = args.sizes or [n for n in (10**3, 10**4, 10**5, 10**6, 10**7) if n <= args.max]
    load0 = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} at the start")
    folder_ctx = tempfile.TemporaryDirectory() if not args.keep else None
    folder = Path(args.keep or folder_ctx.name)
    folder.mkdir(parents=True, exist_ok=True)
    ok = True
    try:
        columns = ["generator", "states", "file (MB)", "CLI wall (s)", "CLI CPU (s)", "CLI peak (MB)", "verdict"]
        if args.repeat > 1:
            columns[3:4] = [f"CLI wall, best of {args.repeat} (s)", "median (s)"]
        if args.ir:
            columns += ["IR check (s)", "IR peak (MB)"]
        columns.append("target")
        print("| " + " | ".join(columns) + " |")
        print("|" + "|".join("---" if c in ("generator", "verdict", "target") else "---:" for c in columns) + "|")
        for gen in args.generators.split(","):
            for n in sizes:
                cli = one_cli(gen, n, folder, args.repeat)
                ir = one_ir(gen, n) if args.ir else {}
                verdict = cli["verdict"] if cli["verdict"] == EXPECTED[gen] else \
                    f"{cli['verdict']} (expected {EXPECTED[gen]}; exit {cli['exit']})"
                ok &= cli["verdict"] == EXPECTED[gen]
                target = ""
                if n in TARGETS:
                    secs, mb = TARGETS[n]
                    met = cli["seconds"] <= secs and (mb is None or cli["peak_mb"] <= mb)
                    target = (f"≤ {secs:g} s" + (f", ≤ {mb:g} MB" if mb else "") + (": met" if met else ": **not met**"))
                wall = fmt(cli["seconds"]) + (f" | {fmt(cli['median'])}" if args.repeat > 1 else "")
                row = (f"| {gen} | {n:,} | {cli['bytes'] / 1e6:.1f} | {wall} | {fmt(cli['cpu'])} "
                       f"| {fmt(cli['peak_mb'], 0)} | {verdict} |")
                if args.ir:
                    row += f" {fmt(ir.get('seconds'))} | {fmt(ir.get('peak_mb'), 0)} |"
                print(row + f" {target} |", flush=True)
                if not args.keep:
                    (folder / f"{gen}_{n}.dp").unlink(missing_ok=True)
        if args.startup_runs:
            rows = startup(args.startup_runs, folder)
            bare = rows[0]["median"]
            print()
            print(f"| start-up ({args.startup_runs} runs) | median (ms) | min (ms) | × bare Python | target |")
            print("|---|---:|---:|---:|---|")
            for r in rows:
                factor = r["median"] / bare
                target = "" if r is rows[0] else \
                    f"≤ {STARTUP_FACTOR:g}×: " + ("met" if factor <= STARTUP_FACTOR else "**not met**")
                print(f"| {r['name']} | {r['median'] * 1000:.0f} | {r['min'] * 1000:.0f} | {factor:.1f} | {target} |")
    finally:
        if folder_ctx is not None:
            folder_ctx.cleanup()
    load1 = os.getloadavg()
    print(f"\nload average {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} at the end")
    if not ok:
        sys.exit("a verdict differs from the expected one")


if __name__ == "__main__":
    main()
