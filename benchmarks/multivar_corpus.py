"""dslc's multi-variable checker on DiPAut's 58 corpus files: writes tests/fixtures/dipaut/multivar.json.

    python3 benchmarks/multivar_corpus.py                       # dslc only (keeps recorded DiPAut times)
    python3 benchmarks/multivar_corpus.py --dipaut DIR --dipaut-python PY   # also times DiPAut
    python3 benchmarks/multivar_corpus.py --mrange 1 5 10 20 40 80 [--dipaut ...]

DiPAut's verdicts and d come from expected.json (benchmarks/bench_dipaut.py
corpus); this script adds dslc's answer per file, its agreement with DiPAut
and the reason for every difference (tests/dipaut_format.py: agreement,
REASONS), and --
with --dipaut -- DiPAut's wall time per file (a fresh `python main.py -i FILE`
each).  DiPAut's pinned igraph 0.9.9 does not build for CPython 3.11; with
igraph 0.10.4 its component_graph_builder.py no longer gets `defaultdict`
through `from igraph import *`, so the runner below puts
collections.defaultdict into builtins before running DiPAut's main.py
unchanged.  On the 58 files this reproduces expected.json exactly.

--mrange N...: dslc's time on DiPAut's m_range_examples/N.dipa (read from the
DiPAut folder), and DiPAut's with --dipaut.

--diff N (needs --dipaut and --dipaut-python): N random automata with 2-3
variables (tests/dipa_strategies.multi_dipas, seeded), written as `.dipa`
text (tests/dipaut_format.multi_to_dipaut), decided by both; prints the
counts of (dslc, DiPAut, same d) and every file where they differ (kept in
--out, default a temporary folder).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures" / "dipaut"
OUT = FIXTURES / "multivar.json"
CORPUS_DIRS = ("examples", "simple_examples", "k_min_max_examples", "m_range_examples")
RUNNER = (
    "import builtins, collections, os, runpy, sys\n"
    "builtins.defaultdict = collections.defaultdict\n"
    "os.chdir(sys.argv[1]); sys.path.insert(0, sys.argv[1])\n"
    "sys.argv = ['main.py', '-i', sys.argv[2]]\n"
    "runpy.run_path('main.py', run_name='__main__')\n"
)


def corpus_files() -> list[str]:
    return sorted(p.relative_to(FIXTURES).as_posix() for d in CORPUS_DIRS for p in (FIXTURES / d).rglob("*.dipa"))


def run_dipaut(dipaut: str, python: str, path: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    proc = subprocess.run([python, "-c", RUNNER, dipaut, path], capture_output=True, text=True,
                          env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"}, timeout=3600)
    return time.perf_counter() - t0, proc.stdout


def ours(text: str, name: str):
    from dslc.dipa.multivar import check_multi
    from dslc.ir.dipaut_reader import to_multi
    t0 = time.perf_counter()
    r = check_multi(to_multi(text, name))
    return r, time.perf_counter() - t0


def dipaut_verdict(stdout: str) -> tuple[str, str | None]:
    import re
    found = re.search(r"differentially private and weight is ([0-9/.]+)", stdout)
    if found:
        return "private", str(Fraction(found.group(1).rstrip(".")))
    if "not differentially private" in stdout:
        return "not-private", None
    if "not well-formed" in stdout:
        return "not-well-formed", None
    return "error", None


def differential(args) -> None:
    import random
    import tempfile
    from collections import Counter

    from hypothesis import HealthCheck, given, settings, seed

    from dslc.dipa.multivar import check_multi
    from dslc.ir.dipaut_reader import to_multi
    from tests.dipa_strategies import multi_dipas
    from tests.dipaut_format import multi_to_dipaut
    if not (args.dipaut and args.dipaut_python):
        print("--diff needs --dipaut DIR and --dipaut-python PY")
        return
    out = Path(args.out or tempfile.mkdtemp(prefix="multivar-diff-"))
    out.mkdir(parents=True, exist_ok=True)
    counts: Counter = Counter()
    random.seed(args.seed)

    @seed(args.seed)
    @settings(max_examples=args.diff, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(multi_dipas(max_states=5))
    def one(m):
        text = multi_to_dipaut(m)
        if text is None:
            counts["not writable"] += 1
            return
        r = check_multi(to_multi(text))
        path = out / f"a{sum(counts.values())}.dipa"
        path.write_text(text, encoding="utf-8")
        _, stdout = run_dipaut(args.dipaut, args.dipaut_python, str(path))
        theirs = dipaut_verdict(stdout)
        ours = (r.verdict, None if r.d is None else str(r.d))
        counts[(ours[0], theirs[0], ours[1] == theirs[1])] += 1
        if ours != theirs:
            print(f"{path}: dslc {ours} ({r.reason[:120]}); DiPAut {theirs}", flush=True)

    one()
    for key, n in sorted(counts.items(), key=str):
        print(n, key)


def main() -> None:
    from tests.dipaut_format import agreement
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dipaut")
    ap.add_argument("--dipaut-python")
    ap.add_argument("--mrange", type=int, nargs="*")
    ap.add_argument("--diff", type=int)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.diff:
        differential(args)
        return
    if args.mrange:
        for n in args.mrange:
            src = Path(args.dipaut or "") / "m_range_examples" / f"{n}.dipa"
            r, dt = ours(src.read_text(), f"m_range_{n}")
            line = f"m={n}: dslc {dt:.3f} s ({r.verdict}, d = {r.d}, {r.product_states} product states)"
            if args.dipaut and args.dipaut_python:
                secs, text = run_dipaut(args.dipaut, args.dipaut_python, f"m_range_examples/{n}.dipa")
                line += f"; DiPAut {secs:.3f} s"
            print(line, flush=True)
        return
    expected = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))["files"]
    old = json.loads(OUT.read_text(encoding="utf-8"))["files"] if OUT.exists() else {}
    files, counts = {}, {"agree": 0, "differ": 0, "unknown": 0}
    for rel in corpus_files():
        r, dt = ours((FIXTURES / rel).read_text(encoding="utf-8"), Path(rel).stem)
        verdict, why = agreement(rel, expected[rel], r)
        counts[verdict] += 1
        entry = {"verdict": r.verdict, "d": None if r.d is None else str(r.d), "kinds": sorted(r.subkinds),
                 "route": r.route, "agreement": verdict}
        if why:
            entry["why"] = why
        if args.dipaut and args.dipaut_python:
            secs, _ = run_dipaut(args.dipaut, args.dipaut_python, str(Path(args.dipaut) / rel))
            entry["dipaut_seconds"] = round(secs, 3)
        elif "dipaut_seconds" in old.get(rel, {}):
            entry["dipaut_seconds"] = old[rel]["dipaut_seconds"]
        files[rel] = entry
        print(f"{verdict:8} {rel}: {r.verdict} {r.d or ''} ({dt * 1000:.1f} ms)", flush=True)
    doc = {
        "about": "dslc.dipa.multivar.check_multi on DiPAut's 58 example files (read by "
                 "dslc.ir.dipaut_reader.to_multi), against DiPAut's verdicts in expected.json.  "
                 "'agreement' is agree (same verdict and d; for 'not private', DiPAut's detected condition "
                 "is among dslc's and the ones it found absent are absent), differ or unknown, with 'why'.  "
                 "'dipaut_seconds': DiPAut's wall time for the file (fresh process; see the script).  "
                 "Checked by tests/test_multivar_corpus.py.",
        "produced_by": "python3 benchmarks/multivar_corpus.py --dipaut DIR --dipaut-python PY",
        "dipaut": {"commit": "c25fe4df68f471ed6bb359388098df044b11dd84", "python": "3.11.7",
                   "igraph": "0.10.4 (collections.defaultdict put in builtins: see the script)"},
        "summary": counts,
        "files": files,
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(counts)


if __name__ == "__main__":
    main()
