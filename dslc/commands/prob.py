"""`dslc prob FILE --epsilon E --inputs 0,1 --outputs bot,bot,top`

The probability Pr[ε, ρ] of one path of a DiPA block (Section III-C of the
DiPA paper), with an error bound; see docs/witnesses.md.
"""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction

from dslc.ir.dipa import DiPA

SILENT_TOKENS = {"_", "-", "silent"}
TAU_TOKENS = {"τ", "tau"}
SYMBOL_ALIASES = {"bot": "⊥", "top": "⊤"}
PROB_BUDGET = 20_000_000     # terms carried per run (a minute or two)
INF = {"inf", "+inf", "∞", "+∞", "infinity", "+infinity"}
NEG_INF = {"-inf", "-∞", "-infinity"}


class UsageError(Exception):
    """A bad argument: message and optional help line; exit status 2."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.help = help


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
    allow_negative_values(p)
    p.set_defaults(func=run)


# ---------------------------------------------------------------------------
# shared with `dslc run`

def allow_negative_values(parser) -> None:
    """Let `--inputs -1/2,0` pass a value that starts with a minus sign.

    argparse takes such a word for an option unless it looks like a negative
    number to it; widen its notion of a negative number (no option of these
    commands starts with `-` and a digit)."""
    if hasattr(parser, "_negative_number_matcher"):
        parser._negative_number_matcher = re.compile(r"^-[\d.∞]|^-inf")

def fail(exc: UsageError) -> int:
    print(f"dslc: error: {exc}", file=sys.stderr)
    if exc.help:
        print(f"  help: {exc.help}", file=sys.stderr)
    return 2


def parse_number(text: str, what: str) -> Fraction:
    t = text.strip().replace("−", "-")
    try:
        return Fraction(t)
    except (ValueError, ZeroDivisionError):
        raise UsageError(f"{what} `{text.strip()}` is not a number",
                         "write integers, decimals or fractions such as 0.5 or -1/2") from None


def parse_epsilon(text: str) -> Fraction:
    eps = parse_number(text, "ε")
    if eps <= 0:
        raise UsageError(f"ε must be positive, got {text.strip()}", "for example --epsilon 1 or --epsilon 1/2")
    return eps


def split_list(text: str) -> list[str]:
    """Split at commas outside parentheses/brackets."""
    items, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    last = "".join(cur).strip()
    if last or items:
        items.append(last)
    return items


def parse_inputs(text: str, allow_tau: bool = False) -> list[Fraction | None]:
    out: list[Fraction | None] = []
    for k, item in enumerate(split_list(text)):
        if allow_tau and item in TAU_TOKENS:
            out.append(None)
        elif not item:
            raise UsageError(f"input {k + 1} is empty", "separate the inputs by single commas: 0.5,1,-2")
        else:
            out.append(parse_number(item, f"input {k + 1}"))
    return out


def load_dipa(path: str, block: str | None) -> DiPA:
    """The lowered DiPA of a block of ``path``; UsageError if there is none."""
    from dslc.driver import check_source, read_source
    from dslc.results import Verdict

    source, problem = read_source(path)
    if source is None:
        raise UsageError(problem.message if problem else f"cannot read {path}")
    result = check_source(source, {})
    dipas = [b for b in result.blocks if b.kind in ("automaton", "mechanism")]
    if block is None:
        if len(dipas) == 1:
            chosen = dipas[0]
        elif not dipas:
            names = ", ".join(f"`{b.name}`" for b in result.blocks) or "none"
            raise UsageError(f"{path} has no DiPA block (automaton or mechanism); blocks: {names}")
        else:
            names = ", ".join(b.name for b in dipas)
            raise UsageError(f"{path} has {len(dipas)} DiPA blocks: {names}",
                             f"choose one with --block NAME (e.g. --block {dipas[0].name})")
    else:
        matches = [b for b in result.blocks if b.name == block]
        if not matches:
            names = ", ".join(b.name for b in result.blocks) or "none"
            raise UsageError(f"no block named `{block}` in {path}; blocks: {names}")
        chosen = matches[0]
        if chosen.kind not in ("automaton", "mechanism"):
            raise UsageError(f"block `{block}` is a `{chosen.kind}` block, not a DiPA "
                             "(automaton or mechanism)")
    dipa = chosen.artifacts.get("dipa")
    if chosen.verdict is Verdict.ERROR or dipa is None:
        first = next((d for d in chosen.diagnostics if d.is_error), None)
        why = f": {first.code} {first.message}" if first else ""
        raise UsageError(f"block `{chosen.name}` is not a valid DiPA{why}",
                         f"run `dslc check {path}` for the details")
    return dipa


# ---------------------------------------------------------------------------
# outputs → path

def _bound(text: str, what: str) -> Fraction | None:
    t = text.strip().lower().replace("−", "-")
    if t in INF or t in NEG_INF:
        return None
    return parse_number(text, what)


def parse_output(item: str, k: int):
    """A symbol string, "" for silent, or an interval (lo, hi) (None = unbounded)."""
    if not item:
        raise UsageError(f"output {k + 1} is empty", "write `_` for a step that outputs nothing")
    if item[0] in "([" or item[-1] in ")]":
        m = re.fullmatch(r"[(\[]\s*([^,]*)\s*,\s*([^,]*)\s*[)\]]", item)
        if not m:
            raise UsageError(f"output {k + 1} `{item}` is not an interval",
                             "write a real output as (lo,hi), e.g. (0,inf) or (-inf,1/2)")
        lo_t, hi_t = m.group(1), m.group(2)
        lo = _bound(lo_t, f"output {k + 1}: the lower end")
        hi = _bound(hi_t, f"output {k + 1}: the upper end")
        if lo_t.strip().lower().replace("−", "-") in INF or hi_t.strip().lower().replace("−", "-") in NEG_INF:
            raise UsageError(f"output {k + 1} `{item}` is an empty interval")
        return (lo, hi)
    if item in SILENT_TOKENS:
        return ""
    name = item
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
        name = name[1:-1]
    return SYMBOL_ALIASES.get(name, name)


def _symbol_matches(symbol: str | None, want: str) -> bool:
    if symbol is None:
        return want == ""
    s = symbol
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        s = s[1:-1]
    return s == want


def build_path(dipa: DiPA, inputs: list[Fraction | None], outputs: list):
    """Steps of the path with these outputs (Proposition 1: outputs fix the transitions)."""
    from dslc.dipa.prob import Step

    edges = dipa.out_edges()
    q = dipa.initial
    explicit_tau = any(a is None for a in inputs)
    steps = []
    pos = 0
    for k, want in enumerate(outputs):
        state = dipa.states[q]
        taken = None
        for e in edges[q]:
            o = dipa.transitions[e].output
            if isinstance(want, tuple):
                if o.is_real:
                    taken = e
            elif not o.is_real and _symbol_matches(o.symbol, want):
                taken = e
        if taken is None:
            offered = ", ".join(_describe_output(dipa, e) for e in edges[q]) or "nothing (no transition)"
            shown = "(interval)" if isinstance(want, tuple) else (want or "_")
            raise UsageError(f"step {k + 1}: state `{state.name}` has no transition that outputs {shown}",
                             f"from `{state.name}` the automaton outputs: {offered}")
        if state.is_input:
            if pos >= len(inputs) or inputs[pos] is None:
                raise UsageError(_count_message(dipa, outputs, inputs, explicit_tau),
                                 "give one input per step from an input state")
            a = inputs[pos]
            pos += 1
        else:
            a = None
            if explicit_tau:
                if pos >= len(inputs) or inputs[pos] is not None:
                    raise UsageError(f"step {k + 1} (state `{state.name}`) reads no input: write `τ` "
                                     "for it, or leave all τ out")
                pos += 1
        steps.append(Step(taken, a, want if isinstance(want, tuple) else None))
        q = dipa.transitions[taken].target
    if pos != len(inputs):
        raise UsageError(_count_message(dipa, outputs, inputs, explicit_tau),
                         "give one input per step from an input state")
    return steps


def _describe_output(dipa: DiPA, e: int) -> str:
    o = dipa.transitions[e].output
    if o.is_real:
        return f"{o} (write an interval)"
    return o.symbol if o.symbol is not None else "_ (nothing)"


def _count_message(dipa, outputs, inputs, explicit_tau) -> str:
    # count the input steps along the outputs' path as far as it goes
    need = 0
    edges = dipa.out_edges()
    q = dipa.initial
    for want in outputs:
        if dipa.states[q].is_input:
            need += 1
        nxt = None
        for e in edges[q]:
            o = dipa.transitions[e].output
            if (isinstance(want, tuple) and o.is_real) or (not isinstance(want, tuple) and not o.is_real
                                                           and _symbol_matches(o.symbol, want)):
                nxt = e
        if nxt is None:
            break
        q = dipa.transitions[nxt].target
    given = len([a for a in inputs if a is not None])
    return f"the path reads {need} input{'s' if need != 1 else ''}, but {given} {'were' if given != 1 else 'was'} given"


# ---------------------------------------------------------------------------

def run(args) -> int:
    from dslc.dipa.prob import PathError, TooExpensive, path_probability

    try:
        eps = parse_epsilon(args.epsilon)
        inputs = parse_inputs(args.inputs, allow_tau=True)
        outputs = [parse_output(item, k) for k, item in enumerate(split_list(args.outputs))]
        if not outputs:
            raise UsageError("no outputs given", "e.g. --outputs bot,bot,top")
        dipa = load_dipa(args.file, args.block)
        steps = build_path(dipa, inputs, outputs)
        try:
            result = path_probability(dipa, steps, eps, budget=PROB_BUDGET)
        except PathError as exc:
            raise UsageError(str(exc)) from None
        except TooExpensive:
            raise UsageError(f"the path is too expensive to compute exactly (more than {PROB_BUDGET} "
                             "terms carried)", "try a shorter path") from None
    except UsageError as exc:
        return fail(exc)
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json()) + "\n")
    else:
        p = result.probability
        log_p = f"{float(result.log_probability):.17g}" if result.log_probability is not None else "-inf"
        print(f"Pr[ε = {args.epsilon.strip()}, ρ] = {p:.17g}")
        print(f"ln Pr = {log_p}")
        err = result.error
        err_text = f"{float(err):.3g}" if (err == 0 or float(err) != 0) else f"{err:.3g}"
        print(f"error ≤ {err_text}   (closed-form integration; bound on rounding and "
              f"truncation, {result.digits}-digit arithmetic)")
    return 0
