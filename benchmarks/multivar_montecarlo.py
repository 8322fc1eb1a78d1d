"""Sampling check of the multi-variable checker's "private, d" answers (docs/multivariable.md).

    python3 benchmarks/multivar_montecarlo.py [--examples 150] [--samples 60000] [--seed 1]

For random automata with 2-3 variables (tests/dipa_strategies.multi_dipas)
that dslc.dipa.multivar.check_multi calls private with d, it draws random
paths of positive probability (paths of the order product) and adjacent
inputs a, a' (each input step moved by ±1), estimates Pr[path | a] and
Pr[path | a'] by sampling the Laplace draws (numpy), and reports every case
with Pr[path | a'] < e^(-d ε) Pr[path | a] beyond four standard errors.
Then, to show the harness can fail, it runs the same estimate on SVT* (a
leaking pair; not private), where the ratio over ten steps exceeds e^ε.

Evidence, not proof: sampling sees only short paths and moderate
probabilities.  Needs numpy.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", type=int, default=150)
    ap.add_argument("--samples", type=int, default=60000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    try:
        import numpy as np
    except ImportError:
        print("numpy is not installed: nothing to do")
        return
    from hypothesis import HealthCheck, given, settings

    from dslc.dipa.multivar import build_product, check_multi
    from dslc.ir.dipaut_reader import to_multi
    from tests.dipa_strategies import multi_dipas

    gen = np.random.default_rng(args.seed)
    rnd = random.Random(args.seed)
    n = args.samples

    def prob(m, path, inputs, eps):
        ok = np.ones(n, bool)
        held = {}
        for k, ti in enumerate(path):
            t = m.transitions[ti]
            s = m.states[t.source]
            x = inputs[k] + float(s.mu) + gen.laplace(0, 1 / (float(s.d) * eps), n)
            for lit in t.guard:
                ok &= (x >= held[lit.var]) if lit.op == ">=" else (x < held[lit.var])
            for v in t.assigns:
                held[v] = x
        return ok.mean()

    stats = {"private": 0, "checked": 0, "failed": 0}

    @settings(max_examples=args.examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(multi_dipas(max_states=4))
    def run(m):
        r = check_multi(m, general=True)
        if r.verdict != "private":
            return
        stats["private"] += 1
        p = build_product(m)
        for _ in range(4):
            k, path = 0, []
            for _ in range(rnd.randint(2, 7)):
                if not p.out[k]:
                    break
                e = rnd.choice(p.out[k])
                path.append(p.edges[e][1])
                k = p.edges[e][2]
            if not path:
                continue
            eps = rnd.choice([1.0, 2.0])
            inp = [m.states[m.transitions[t].source].is_input for t in path]
            a = [rnd.choice([-1.5, -0.5, 0, 0.5, 1.5]) if i else 0 for i in inp]
            b = [x + (rnd.choice([-1, 1]) if i else 0) for x, i in zip(a, inp)]
            pa, pb = prob(m, path, a, eps), prob(m, path, b, eps)
            if pa < 0.01:
                continue
            stats["checked"] += 1
            slack = 4 * math.sqrt(pa / n) + 4 * math.sqrt(max(pb, 1e-9) / n)
            if pb < math.exp(-float(r.d) * eps) * pa - slack:
                stats["failed"] += 1
                print(f"FAILED: d = {r.d}, ε = {eps}: Pr = {pa:.4f} vs {pb:.4f} on",
                      " ; ".join(m.describe(t) for t in path), a, b)

    run()
    print(f"{stats['private']} private automata, {stats['checked']} (path, inputs) pairs checked, "
          f"{stats['failed']} beyond e^(dε)")
    svt_star = to_multi("(q1:non-input,1/2,0): x:= insample; output oa; goto q2\n"
                        "(q2,1/4,0): if (insample < x) then output ob; goto q2 elseif (insample >= x) then "
                        "output oc; goto q3\n"
                        "(q3,1/4,0): if (insample >= x) then output oc; goto q3 elseif (insample < x) then "
                        "output od; goto q4\n")
    path = [0] + [1] * 4 + [2] + [3] * 4
    pa = prob(svt_star, path, [0] + [-0.5] * 4 + [0] + [0.5] * 4, 1.0)
    pb = prob(svt_star, path, [0] + [0.5] * 4 + [0] + [-0.5] * 4, 1.0)
    print(f"harness check, SVT* ({check_multi(svt_star).verdict}): ratio {pa / pb:.2f} over 10 steps "
          f"at ε = 1 (e^ε = {math.e:.2f})")


if __name__ == "__main__":
    main()
