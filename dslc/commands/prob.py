"""`dslc prob FILE --epsilon E --inputs 0,1 --outputs bot,bot,top`

The probability Pr[ε, ρ] of one path of a DiPA block (Section III-C of the
DiPA paper), with an error bound; see docs/witnesses.md.
"""

from __future__ import annotations

import json
import sys

from dslc.commands.common import (UsageError, add_timeout, allow_negative_values, fail, load_dipa,
                                  parse_epsilon, time_budget)
from dslc.dipa.paths import PathTextError, build_path, parse_inputs, parse_outputs

PROB_BUDGET = 20_000_000     # terms carried per run (a minute or two)


def add_parser(sub) -> None:
    p = sub.add_parser("prob", help="probability of one path of a DiPA block",
                       description="Compute Pr[ε, ρ] for the path of a DiPA block given by its "
                                   "inputs and outputs (Section III-C of the DiPA paper), with an "
                                   "error bound.")
    p.add_argument("file", metavar="FILE", help=".dp file")
    p.add_argument("--epsilon", required=True, metavar="E", help="ε > 0 (a decimal or fraction)")
    p.add_argument("--inputs", default="", metavar="A,B,...",
                   help="the inputs read, in order (τ steps read none; `τ` may be written for them)")
    p.add_argument("--outputs", required=True, metavar="O,O,...",
                   help="one output per step: a symbol (`bot`/`⊥`, `top`/`⊤`, a name), `_` for a "
                        "step that outputs nothing, or an interval `(lo,hi)` for a real output")
    p.add_argument("--block", default=None, metavar="NAME", help="the block (default: the only DiPA block)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_timeout(p, "the computation")
    allow_negative_values(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from dslc.dipa.prob import PathError, TooExpensive, fmt_probability, path_probability

    try:
        from dslc.commands.prob_discrete import discrete_prob
        done = discrete_prob(args)
        if done is not None:
            return done
    except PathTextError as exc:
        return fail(exc)
    try:
        eps = parse_epsilon(args.epsilon)
        inputs = parse_inputs(args.inputs, allow_tau=True)
        outputs = parse_outputs(args.outputs)
        if not outputs:
            raise UsageError("no outputs given", "e.g. --outputs bot,bot,top")
        with time_budget(args.timeout, "the probability"):
            dipa = load_dipa(args.file, args.block)
            steps = build_path(dipa, inputs, outputs)
            try:
                result = path_probability(dipa, steps, eps, budget=PROB_BUDGET)
            except PathError as exc:
                raise UsageError(str(exc)) from None
            except TooExpensive:
                raise UsageError(f"the path is too expensive to compute exactly (more than {PROB_BUDGET} "
                                 "terms carried)", "try a shorter path") from None
    except PathTextError as exc:
        return fail(exc)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json()) + "\n")
    else:
        log_p = f"{float(result.log_probability):.17g}" if result.log_probability is not None else "-inf"
        print(f"Pr[ε = {args.epsilon.strip()}, ρ] = {fmt_probability(result.probability)}")
        print(f"ln Pr = {log_p}")
        err = result.error
        err_text = f"{float(err):.3g}" if (err == 0 or float(err) != 0) else f"{err:.3g}"
        print(f"error ≤ {err_text}   (closed-form integration; bound on rounding and "
              f"truncation, {result.digits}-digit arithmetic)")
    return 0
