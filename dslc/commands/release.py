"""`dslc release FILE --data series.csv [--seed S]`: release the query of a
series with the noise `dslc calibrate` recommends for the block.

Only the noisy value is printed, never the exact query value.  Errors (bad
block, unreadable or malformed data, states outside the space, wrong length)
are diagnostics with codes E260–E266 and exit status 2.
"""

from __future__ import annotations

import json
import sys

from rich.text import Text

from dslc import limits
from dslc.commands.calibrate import add_timeout, select_blocks
from dslc.commands.check import console
from dslc.diagnostics.model import Diagnostic, DiagnosticError, error
from dslc.diagnostics.render.json import diagnostic_json
from dslc.diagnostics.render.text import render_diagnostic
from dslc.pipeline import Options, check_path
from dslc.results import Verdict

MECHANISMS = ("recommended", "markov_quilt", "markov_quilt_approx", "markov_quilt_combined",
              "wasserstein", "group_dp")


def add_parser(sub) -> None:
    p = sub.add_parser("release", help="release the query of a series with calibrated Laplace noise",
                       description="Read a series (one state per line) for the `chain` block of FILE, "
                                   "compute the block's query, add the Laplace noise of the "
                                   "recommended mechanism (see `dslc calibrate`) and print the released "
                                   "value. Without --seed the noise comes from the operating system's "
                                   "randomness. Exit status 0, or 2 on any error.")
    p.add_argument("file", metavar="FILE", help=".dp file with the `chain` block")
    p.add_argument("--data", required=True, metavar="CSV", help="the series: one record per line")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="seed for a reproducible release (Mersenne Twister); default: OS randomness")
    p.add_argument("--block", metavar="NAME", help="the chain block (needed when FILE has several)")
    p.add_argument("--column", metavar="COL", default=None,
                   help="column holding the state: a number from 1, or a name with --header (default 1)")
    p.add_argument("--header", action="store_true", help="the first line of the data holds column names")
    p.add_argument("--mechanism", choices=MECHANISMS, default="recommended",
                   help="mechanism whose noise to add (default: the recommended one)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    add_timeout(p)
    p.set_defaults(func=run)


def _fail(args, diags: list[Diagnostic]) -> int:
    if args.format == "json":
        sys.stdout.write(json.dumps({"released": None,
                                     "diagnostics": [diagnostic_json(d) for d in diags]},
                                    ensure_ascii=False, indent=2) + "\n")
    else:
        text = Text()
        for d in diags:
            render_diagnostic(d, text)
            text.append("\n")
        console(args.color, sys.stderr).print(text, end="")
    return 2


def run(args) -> int:
    import dslc.correlated.backend  # noqa: F401  (registers the `chain` block kind)
    from dslc.correlated import release as rel

    result = check_path(args.file, Options(timeout=args.timeout))
    if result.source is None:
        return _fail(args, result.diagnostics)
    blocks, problems = select_blocks(result, args.block)
    if problems:
        return _fail(args, result.diagnostics + problems)
    if len(blocks) > 1:
        return _fail(args, [error("E264", f"{args.file} has {len(blocks)} chain blocks; choose one with "
                                          "`--block NAME`")
                            .with_help("chain blocks: " + ", ".join(b.name for b in blocks))])
    block = blocks[0]
    if block.verdict is Verdict.UNKNOWN:
        return _fail(args, block.diagnostics + [
            error("E264", f"chain block `{block.name}` could not be calibrated within the time limit; "
                          "nothing is released", block.span, "this block")
            .with_help("raise the limit with `--timeout SECONDS`")])
    if block.verdict is not Verdict.PRIVATE:
        return _fail(args, block.diagnostics + [
            error("E264", f"chain block `{block.name}` has errors; nothing is released", block.span,
                  "this block").with_help("fix the block first (`dslc check " + args.file + "`)")])
    cal = block.analysis
    ir = cal.ir
    if ir.query.kind == "lipschitz":
        return _fail(args, [error("E265", f"`{ir.name}` declares its query only by a Lipschitz constant; "
                                          "dslc cannot compute it from the series", ir.query.span,
                                  "`lipschitz(L)`")
                            .with_help(f"add Lap({cal.recommended.scale_text}) noise to your own query "
                                       "value, or declare `sum`, `count(S)` or `histogram`")])
    mech = cal.recommended if args.mechanism == "recommended" else cal.mechanism(args.mechanism)
    if mech is None or not mech.applicable:
        usable = ", ".join(m.key for m in cal.mechanisms if m.applicable)
        why = f": {mech.reason}" if mech is not None and mech.reason else ""
        return _fail(args, [error("E266", f"the mechanism `{args.mechanism}` does not apply to "
                                          f"`{ir.name}`{why}", block.span, "this block")
                            .with_help(f"applicable here: {usable}")])
    try:
        with limits.scope(limits.Deadline(args.timeout)):
            series = rel.read_series(args.data, ir, args.column, args.header, rel.MAX_DATA_BYTES)
            values = rel.evaluate(ir, series.states)
    except DiagnosticError as exc:
        return _fail(args, exc.diagnostics)
    except limits.Cancelled:
        return _fail(args, [error("E014", f"the data file {args.data} was not read within the time limit "
                                          f"of {args.timeout:g} s; nothing is released")
                            .with_help("raise the limit with `--timeout SECONDS`")])
    rng = rel.make_rng(args.seed)
    released = rel.release(values, mech.scale_value, rng)
    labels = [s.label for s in ir.states]
    if args.format == "json":
        out = {"block": ir.name, "query": ir.query.describe(ir.states), "records": len(series.states),
               "mechanism": mech.key, "scale": mech.scale_text, "seed": args.seed,
               "randomness": "os" if args.seed is None else "mersenne-twister",
               "released": (dict(zip(labels, released)) if ir.query.vector else released[0]),
               "diagnostics": []}
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return 0
    if ir.query.vector:
        for label, v in zip(labels, released):
            print(f"{label}\t{v!r}")
    else:
        print(repr(released[0]))
    source = "OS randomness" if args.seed is None else f"seed {args.seed}"
    print(f"// {ir.query.describe(ir.states)} of {len(series.states)} records + Lap(scale {mech.scale_text}) "
          f"({mech.title}, {source})", file=sys.stderr)
    return 0
