"""`dslc audit FILE --block NAME --impl module.py:function`

Test a Python implementation of a DiPA block against the checked model:
conformance of its output distribution, and a statistical lower bound on
its privacy loss; see docs/audit.md.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from contextlib import ExitStack

from dslc.commands.common import (UsageError, add_timeout, fail, load_dipa_block, parse_epsilon,
                                  time_budget)
from dslc.dipa.paths import PathTextError

EXIT = {"pass": 0, "fail": 1, "inconclusive": 3}


def add_parser(sub) -> None:
    p = sub.add_parser("audit", help="test a Python implementation against a DiPA block (statistics)",
                       description="Run a Python implementation of a DiPA block on inputs chosen from "
                                   "the checker's witnesses and compare it with the model: exact output "
                                   "probabilities (G-test), real outputs (two-sample KS), and a "
                                   "Clopper–Pearson lower bound on its privacy loss.  Exit 0 pass, 1 fail, "
                                   "2 error, 3 inconclusive (time budget).")
    p.add_argument("file", metavar="FILE", help=".dp file")
    p.add_argument("--block", default=None, metavar="NAME", help="the block (default: the only DiPA block)")
    p.add_argument("--impl", required=True, metavar="MODULE:FUNCTION",
                   help="path/to/module.py:function or package.module:function, called as "
                        "function(inputs, rng, epsilon) with rng a numpy.random.Generator")
    p.add_argument("--adapter", default=None, metavar="SPEC",
                   help="how its outputs are the model's: VALUE=SYMBOL,... (default True=⊤,False=⊥; "
                        "`_` drops a value) or module.py:function")
    p.add_argument("--epsilon", default=None, metavar="E",
                   help="ε of the audit (default: the ε of the checker's witness)")
    p.add_argument("--samples", default="100000", metavar="N", help="samples per input sequence (default 100000)")
    p.add_argument("--chunk", default="1000", metavar="N", help="samples per chunk (default 1000)")
    p.add_argument("--seed", default="0", metavar="S", help="seed (default 0): same seed, same numbers")
    p.add_argument("--alpha", default="0.05", metavar="A",
                   help="false-alarm level of the whole audit (default 0.05)")
    p.add_argument("-j", "--jobs", default=None, metavar="N",
                   help="worker processes (default: the number of CPUs)")
    p.add_argument("--executor", default=None, metavar="WHERE",
                   help="local (default), ray, ray://HOST:PORT or dask://HOST:PORT "
                        "(pip install 'dslc[cluster]')")
    p.add_argument("--time-budget", default="600", metavar="SECONDS",
                   help="time for the sampling (default 600); past it the audit is inconclusive unless "
                        "it already failed")
    p.add_argument("--pair", default=None, metavar="'A,B,...;C,D,...'",
                   help="audit only these adjacent inputs α;β (instead of the checker's witnesses)")
    p.add_argument("--event", default=None, metavar="'SEQ|SEQ'",
                   help="with --pair: the event, output sequences separated by | and symbols by "
                        "spaces, e.g. 'bot bot top|bot top'")
    p.add_argument("--event-function", default=None, metavar="MODULE:FUNCTION",
                   help="with --pair: the event as a function event(returned, epsilon) -> bool of what the "
                        "implementation returned (run in the workers)")
    p.add_argument("--fail-fast", action="store_true",
                   help="stop at the first look with any failure (by default only a privacy bound above "
                        "the limit stops the sampling early)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress display on the terminal")
    add_timeout(p, "load the model and plan the audit")
    p.set_defaults(func=run)


def _number(text: str, what: str, kind=int, minimum=None, maximum=None):
    try:
        value = kind(text.strip())
    except ValueError:
        raise UsageError(f"{what} `{text}` is not {'an integer' if kind is int else 'a number'}") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum) or value != value:
        bounds = f"at least {minimum}" if maximum is None else f"between {minimum} and {maximum}"
        raise UsageError(f"{what} must be {bounds}, got {text.strip()}")
    return value


def _pair(text: str, delta):
    from fractions import Fraction

    from dslc.dipa.paths import parse_inputs
    from dslc.numbers import fmt_fraction
    parts = text.split(";")
    if len(parts) != 2:
        raise UsageError(f"--pair `{text}` is not α;β", "e.g. --pair '0,0,0;1,1,-1'")
    alpha, beta = parse_inputs(parts[0]), parse_inputs(parts[1])
    if len(alpha) != len(beta) or not alpha:
        raise UsageError(f"--pair: α has {len(alpha)} inputs and β {len(beta)}",
                         "adjacent inputs have the same length")
    for k, (a, b) in enumerate(zip(alpha, beta)):
        if abs(Fraction(a) - Fraction(b)) > delta:
            raise UsageError(f"--pair: input {k + 1} differs by more than the sensitivity {fmt_fraction(delta)}",
                             "adjacent inputs differ by at most the sensitivity at every position")
    return alpha, beta


def reproducer(args, report, pair=None) -> str:
    words = ["dslc", "audit", args.file, "--block", report.block, "--impl", args.impl]
    if pair is not None:
        words += ["--pair", f"{pair.alpha};{pair.beta}"]
        words += (["--event-function", args.event_function] if args.event_function is not None
                  else ["--event", " | ".join(pair.event)])
    elif args.pair is not None:
        words += ["--pair", args.pair] + (["--event", args.event] if args.event is not None else [])
        words += ["--event-function", args.event_function] if args.event_function is not None else []
    if args.adapter is not None:
        words += ["--adapter", args.adapter]
    from dslc.numbers import fmt_fraction
    words += ["--epsilon", fmt_fraction(report.epsilon), "--samples", str(report.samples_per_input),
              "--chunk", args.chunk.strip(), "--seed", str(report.seed)]
    if args.alpha.strip() != "0.05":
        words += ["--alpha", args.alpha.strip()]
    return " ".join(shlex.quote(w) for w in words)


def run(args) -> int:
    from dslc.audit.executor import parse_executor
    from dslc.audit.model import ModelError
    from dslc.audit.run import AuditError, Options, audit
    from dslc.audit.spec import parse_adapter, parse_impl
    from dslc.commands.progress import progress_display
    from dslc.pipeline import read_source

    try:
        try:
            import numpy  # noqa: F401
            import scipy  # noqa: F401
        except ImportError:
            raise UsageError("dslc audit needs NumPy and SciPy", "pip install 'dslc[audit]'") from None
        impl = parse_impl(args.impl)
        adapter = parse_adapter(args.adapter)
        try:
            parse_executor(args.executor)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        options = Options(
            impl, adapter,
            samples=_number(args.samples, "--samples", minimum=1),
            chunk=_number(args.chunk, "--chunk", minimum=1),
            seed=_number(args.seed, "--seed", minimum=0),
            alpha=_number(args.alpha, "--alpha", float, 1e-12, 0.5),
            epsilon=parse_epsilon(args.epsilon) if args.epsilon is not None else None,
            time_budget=_number(args.time_budget, "--time-budget", float, 0.001, 1e9),
            executor=args.executor,
            fail_fast=args.fail_fast,
            jobs=_number(args.jobs, "-j", minimum=1, maximum=1024) if args.jobs is not None else (os.cpu_count() or 1),
        )
        if args.event is not None and args.pair is None:
            raise UsageError("--event needs --pair", "e.g. --pair '0,0,0;1,1,-1' --event 'bot bot top'")
        if args.event_function is not None:
            if args.pair is None or args.event is not None:
                raise UsageError("--event-function needs --pair, and excludes --event",
                                 "e.g. --pair '0;1' --event-function module.py:in_event")
            from dslc.audit.spec import parse_function
            options.event_function = parse_function(args.event_function, "--event-function")
        with time_budget(args.timeout, "loading the model"):
            chosen = load_dipa_block(args.file, args.block)
        if args.pair is not None:
            options.pair = _pair(args.pair, chosen.ir.sensitivity)
        if args.event is not None:
            from dslc.audit.model import parse_event
            options.event = parse_event(args.event)
        source, _ = read_source(args.file)
        line = (lambda span: source.line_col(span.start)[0]) if source is not None else None
        with ExitStack() as stack:
            shown = []

            def progress(done: int, total: int, rate: float) -> None:
                # the bar opens at the first chunk: only then is the total known
                if not shown:
                    shown.append(stack.enter_context(progress_display(not args.quiet, "auditing", total=total)))
                shown[0](f"{rate:,.0f} samples/s", completed=done)
            try:
                report = audit(args.file, chosen, options, progress, line)
            except (AuditError, ModelError) as exc:
                raise UsageError(str(exc)) from None
    except PathTextError as exc:
        return fail(exc)
    report.reproduce = reproducer(args, report)
    for p in report.privacy:
        p.reproduce = reproducer(args, report, p)
    if args.format == "json":
        sys.stdout.write(json.dumps(report.to_json(), ensure_ascii=False) + "\n")
    else:
        from dslc.diagnostics.render.audit import render_text
        sys.stdout.write(render_text(report))
    return EXIT[report.verdict]
