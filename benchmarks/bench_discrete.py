"""Time of `dslc check` per horizon for the discrete examples (docs/benchmarks.md).

    python3 benchmarks/bench_discrete.py [--timeout SECONDS]
"""

import argparse
import json
import subprocess
import sys
import time

FILES = ["examples/discrete/randomized_response.dp", "examples/discrete/geometric.dp",
         "examples/discrete/noisy_max.dp", "examples/discrete/svt.dp"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", default="60")
    ap.add_argument("--ks", default="4,8,16")
    args = ap.parse_args()
    for k in args.ks.split(","):
        for f in FILES:
            start = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "dslc", "check", "--format", "json", "--horizon", k,
                                  "--timeout", args.timeout, f], capture_output=True, text=True)
            wall = time.perf_counter() - start
            for b in json.loads(out.stdout)["files"][0]["blocks"]:
                details = b.get("details", {})
                print(f"k={k} {b['name']}: {b['verdict']} d={b.get('d')} pairs={details.get('pairs')} "
                      f"check {details.get('seconds')}s, file wall {wall:.2f}s", flush=True)


if __name__ == "__main__":
    main()
