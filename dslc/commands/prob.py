"""`dslc prob FILE --epsilon E --inputs 0,1 --outputs bot,bot,top`

The probability Pr[ε, ρ] of one path of a DiPA block (Section III-C of the
DiPA paper), with an error bound; see docs/witnesses.md.  For a block with
several stored variables, the probability of the output sequence: the sum
over the paths that print it (dslc/dipa/multievent.py).
"""

from __future__ import annotations

import json
import sys

from dslc.commands.common import (UsageError, add_timeout, allow_negative_values, fail, load_dipa_block,
                                  parse_epsilon, time_budget)
from dslc.dipa.paths import PathTextError, build_path, parse_inputs, parse_outputs
from dslc.ir.dipa import DiPA

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
    from dslc.dipa.multievent import event_probability
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
            dipa = load_dipa_block(args.file, args.block, several_ok=True).ir
            paths = 1
            try:
                if isinstance(dipa, DiPA):
                    result = path_probability(dipa, build_path(dipa, inputs, outputs), eps, budget=PROB_BUDGET)
                else:           # several variables: the event of every path with these outputs
                    result, paths = event_probability(dipa, inputs, outputs, eps, budget=PROB_BUDGET)
            except PathError as exc:
                raise UsageError(str(exc)) from None
            except TooExpensive:
                raise UsageError(f"the path is too expensive to compute exactly (more than {PROB_BUDGET} "
                                 "terms carried)", "try a shorter path") from None
    except PathTextError as exc:
        return fail(exc)
    if args.format == "json":
        out = result.to_json()
        if not isinstance(dipa, DiPA):
            out["paths"] = paths
        sys.stdout.write(json.dumps(out) + "\n")
    else:
        log_p = f"{float(result.log_probability):.17g}" if result.log_probability is not None else "-inf"
        print(f"Pr[ε = {args.epsilon.strip()}, ρ] = {fmt_probability(result.probability)}")
        print(f"ln Pr = {log_p}")
        err = result.error
        err_text = f"{float(err):.3g}" if (err == 0 or float(err) != 0) else f"{err:.3g}"
        print(f"error ≤ {err_text}   (closed-form integration; bound on rounding and "
              f"truncation, {result.digits}-digit arithmetic)")
        if paths > 1:
            print(f"the sum over the {paths} paths of the automaton with these outputs "
                  "(several variables: one branch may be split into pieces with the same output)")
    return 0
