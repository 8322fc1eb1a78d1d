"""Witnesses and lower bounds of dslc.dipa.multiprob on DiPAut's corpus (docs/multivariable.md).

    python3 benchmarks/multiprob_corpus.py [--work 1000000] [--lower-work 150000] [--random 0]

For every distinct file of tests/fixtures/dipaut: "not private" gets a
witness per violation (found or not, n, ε, the proven lower end of the loss,
seconds); "private" with d > 0 (files that read input) gets d_lower.  With
--random N it also runs N random automata with 2-3 variables, half of them
with branches split into pieces with equal outputs
(tests/dipa_strategies.split_multi_dipas), counts the violations of the "not
private" ones whose witness is found (each an output event) and checks
d_lower <= d.  Work is counted, so the results do not depend on the machine;
the seconds do.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=int, default=None, help="witness work per violation (default: the module's)")
    ap.add_argument("--lower-work", type=int, default=None, help="lower-bound work (default: the module's)")
    ap.add_argument("--random", type=int, default=0, help="also run this many random automata")
    args = ap.parse_args()

    from dslc.dipa import multiprob as mp
    from dslc.dipa.multivar import NOT_PRIVATE, PRIVATE, check_multi
    from dslc.ir.dipaut_reader import to_multi
    from tests.dipaut_format import distinct_corpus_files
    work = args.work or mp.WITNESS_WORK
    lower_work = args.lower_work or mp.LOWER_WORK

    found = total = 0
    start = time.perf_counter()
    for f, text in distinct_corpus_files(ROOT / "tests" / "fixtures" / "dipaut"):
        m = to_multi(text)
        r = check_multi(m)
        name = str(f.relative_to(ROOT / "tests" / "fixtures" / "dipaut"))
        if r.verdict == NOT_PRIVATE:
            for v in r.violations:
                t = time.perf_counter()
                w = mp.witness(m, v, work)
                total += 1
                found += w.found
                if w.found:
                    what = f"n={w.length} ε={w.loss.epsilon} loss≥{float(w.loss.lower):.3f}"
                else:
                    last = w.rows[-1] if w.rows else None
                    what = f"{w.reason}; best row {last}"
                print(f"{name:58} {v.subkind:11} {'found' if w.found else 'NOT found':9} {what} "
                      f"({time.perf_counter() - t:.1f} s)", flush=True)
        elif r.verdict == PRIVATE and r.d and any(s.is_input for s in m.states):
            t = time.perf_counter()
            lb = mp.lower_bound(m, r, lower_work)
            if lb.d_lower > r.d:
                raise SystemExit(f"{name}: d_lower {lb.d_lower} exceeds d {r.d}")
            print(f"{name:58} private    d={r.d} d_lower={lb.d_lower} ({time.perf_counter() - t:.1f} s)", flush=True)
    print(f"corpus: witnesses for {found} of {total} violations; {time.perf_counter() - start:.1f} s")

    if args.random:
        from hypothesis import HealthCheck, Phase, given, settings
        from tests.dipa_strategies import split_multi_dipas
        counts = {"not private": 0, "violations": 0, "found": 0, "not an event": 0,
                  "private": 0, "d_lower > 0": 0}
        seconds: list[float] = []

        @settings(max_examples=args.random, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate])
        @given(split_multi_dipas(max_states=4))
        def run(m):
            r = check_multi(m)
            if r.verdict == NOT_PRIVATE:
                counts["not private"] += 1
                t = time.perf_counter()
                for v in r.violations:
                    w = mp.witness(m, v, work)
                    counts["violations"] += 1
                    counts["found"] += w.found
                    counts["not an event"] += w.reason == mp.NOT_AN_EVENT
                    if w.found and not w.loss.observable:
                        raise SystemExit("a witness that is not an output event")
                seconds.append(time.perf_counter() - t)
            elif r.verdict == PRIVATE and r.d:
                counts["private"] += 1
                lb = mp.lower_bound(m, r, lower_work)
                if lb.d_lower > r.d:
                    raise SystemExit(f"d_lower {lb.d_lower} exceeds d {r.d}")
                counts["d_lower > 0"] += lb.d_lower > 0
        run()
        seconds.sort()
        print("random:", counts)
        if seconds:
            print(f"seconds per not-private automaton: median {seconds[len(seconds) // 2]:.2f}, "
                  f"max {seconds[-1]:.2f}")


if __name__ == "__main__":
    main()
