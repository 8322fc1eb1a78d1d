"""`dslc run FILE --epsilon E --inputs 0.5,1,-2 [--seed S] [--samples N]`

Run a DiPA block once on the given inputs and print its outputs, or run it N
times and print a histogram of the output sequences.
"""

from __future__ import annotations

import json
import sys

from dslc import limits
from dslc.commands.common import (UsageError, add_timeout, allow_negative_values, fail, load_dipa_block,
                                  parse_epsilon, time_budget)
from dslc.dipa.paths import PathTextError, parse_inputs


def add_parser(sub) -> None:
    p = sub.add_parser("run", help="run a DiPA block on inputs (sampler)",
                       description="Run the mechanism of a DiPA block on the given inputs, drawing "
                                   "the Laplace noise at the given ε, and print the outputs.")
    p.add_argument("file", metavar="FILE", help=".dp file")
    p.add_argument("--epsilon", required=True, metavar="E", help="ε > 0 (a decimal or fraction)")
    p.add_argument("--inputs", default="", metavar="A,B,...", help="the input sequence, e.g. 0.5,1,-2")
    p.add_argument("--seed", default=None, metavar="S", help="seed of the random draws (an integer)")
    p.add_argument("--samples", default=None, metavar="N",
                   help="run N times and print a histogram of the output sequences")
    p.add_argument("--block", default=None, metavar="NAME", help="the block (default: the only DiPA block)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_timeout(p, "all the runs together")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display on the terminal")
    allow_negative_values(p)
    p.set_defaults(func=run)


def _int(text: str | None, what: str, minimum: int | None = None) -> int | None:
    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        raise UsageError(f"{what} `{text}` is not an integer") from None
    if minimum is not None and value < minimum:
        raise UsageError(f"{what} must be at least {minimum}, got {value}")
    return value


def _show(o) -> str:
    if not isinstance(o, str):
        return repr(float(o))
    return o if o else "_"


def _json_value(o):
    return o if isinstance(o, str) and o else (None if isinstance(o, str) else float(o))


def _sample(once, samples: int, quiet: bool):
    """``samples`` runs into a histogram, with progress on a terminal and the
    time budget checked between runs."""
    from dslc.commands.progress import progress_display
    from dslc.dipa.sampler import Histogram

    hist = Histogram()
    step = max(1, min(10_000, samples // 100))
    with progress_display(not quiet, "sampling", total=samples) as show:
        for i in range(samples):
            hist.add(once().outputs)
            if (i + 1) % step == 0:
                limits.checkpoint()
                show(advance=step)
    return hist


def run(args) -> int:
    import random

    from dslc.dipa.interpret import run_program
    from dslc.dipa.sampler import Noise, RunError, run_once

    try:
        eps = parse_epsilon(args.epsilon)
        inputs = parse_inputs(args.inputs)
        seed = _int(args.seed, "--seed")
        samples = _int(args.samples, "--samples", minimum=1)
        with time_budget(args.timeout, "the run"):
            chosen = load_dipa_block(args.file, args.block, several_ok=True)   # run_once runs a MultiDiPA too
            dipa, program = chosen.ir, chosen.syntax
            if chosen.kind != "mechanism":
                program = None
            rng = random.Random(seed)

            def once():
                # a mechanism runs as written (its direct interpreter); an automaton as the IR
                if program is not None:
                    return run_program(program, inputs, eps, Noise(rng))
                return run_once(dipa, inputs, eps, Noise(rng))

            try:
                if samples is None:
                    res = once()
                else:
                    hist = _sample(once, samples, quiet=args.quiet)
            except RunError as exc:
                raise UsageError(str(exc)) from None
    except PathTextError as exc:
        return fail(exc)
    if samples is None:
        states = getattr(res, "states", None)
        if args.format == "json":
            doc = {"outputs": [_json_value(o) for o in res.outputs], "inputs_used": res.inputs_used,
                   "stopped": res.stopped, "form": "program" if program is not None else "automaton"}
            if states is not None:
                doc["states"] = states
            sys.stdout.write(json.dumps(doc, ensure_ascii=False) + "\n")
        else:
            print(" ".join(_show(o) for o in res.outputs) if res.outputs else "(no output)")
            extra = f"; {len(inputs) - res.inputs_used} input(s) not read" if res.inputs_used < len(inputs) else ""
            where = f"states: {' → '.join(states)}; " if states is not None else ""
            print(f"# {where}stopped: {res.stopped}{extra}", file=sys.stderr)
        return 0
    rows = hist.rows()
    if args.format == "json":
        sys.stdout.write(json.dumps({"samples": hist.samples,
                                     "histogram": [{"outputs": [o or None for o in key], "count": n}
                                                   for key, n in rows]}, ensure_ascii=False) + "\n")
    else:
        width = max(len(" ".join(_show(o) for o in key)) for key, _ in rows)
        for key, n in rows:
            text = " ".join(_show(o) for o in key) or "(no output)"
            print(f"{text:<{width}}  {n:>8}  {n / hist.samples:.4f}")
        print(f"# {hist.samples} runs; real outputs counted as ℝ", file=sys.stderr)
    return 0
