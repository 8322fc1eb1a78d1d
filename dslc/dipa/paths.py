"""Paths of a DiPA as text: the `--inputs`/`--outputs` of `dslc prob`, both ways.

A path is fixed by its output sequence (Proposition 1 of the DiPA paper:
output distinction makes the transition taken from a state a function of the
output), plus the inputs read on it.  :func:`build_path` turns the text form
into the steps that :func:`dslc.dipa.prob.path_probability` takes;
:func:`output_tokens` and :func:`input_tokens` turn steps back into text.
Witnesses are printed in this form and re-parsed with :func:`build_path`
before they are shown, so every printed `dslc prob` line replays.
"""

from __future__ import annotations

import re
from fractions import Fraction

from dslc.dipa.prob import Step
from dslc.ir.dipa import DiPA, fmt_fraction

SILENT_TOKENS = {"_", "-", "silent"}
TAU_TOKENS = {"τ", "tau"}
SYMBOL_ALIASES = {"bot": "⊥", "top": "⊤"}
INF = {"inf", "+inf", "∞", "+∞", "infinity", "+infinity"}
NEG_INF = {"-inf", "-∞", "-infinity"}
MAX_NUMBER_CHARS = 60          # a number on the command line (exact rationals)
_EXPONENT = re.compile(r"[eE]\s*([+-]?[0-9]+)")


class PathTextError(ValueError):
    """Inputs or outputs that do not describe a path; ``help`` says how to fix them."""

    def __init__(self, message: str, help: str | None = None):
        super().__init__(message)
        self.help = help


def parse_number(text: str, what: str) -> Fraction:
    t = text.strip().replace("−", "-")
    if len(t) > MAX_NUMBER_CHARS:
        raise PathTextError(f"{what} has {len(t)} characters; at most {MAX_NUMBER_CHARS} are accepted",
                            "write the number as a decimal or a fraction such as 0.5 or -1/2")
    if not t.replace("∞", "").isascii():      # Fraction() would read `３` and `٣` as digits
        raise PathTextError(f"{what} `{text.strip()}` is not a number",
                            "write numbers with the digits 0-9, e.g. 0.5 or -1/2")
    m = _EXPONENT.search(t)
    if m and abs(int(m.group(1))) > 40:       # Fraction("1e99999999") takes minutes
        raise PathTextError(f"{what} `{text.strip()}` is out of range",
                            "numbers must lie between 1e-15 and 1e15 in absolute value")
    try:
        value = Fraction(t)
    except (ValueError, ZeroDivisionError):
        raise PathTextError(f"{what} `{text.strip()}` is not a number",
                            "write integers, decimals or fractions such as 0.5 or -1/2") from None
    if value and not (Fraction(1, 10**15) <= abs(value) <= 10**15):
        raise PathTextError(f"{what} `{text.strip()}` is out of range",
                            "numbers must lie between 1e-15 and 1e15 in absolute value")
    return value


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
            raise PathTextError(f"input {k + 1} is empty", "separate the inputs by single commas: 0.5,1,-2")
        else:
            out.append(parse_number(item, f"input {k + 1}"))
    return out


def _bound(text: str, what: str) -> Fraction | None:
    t = text.strip().lower().replace("−", "-")
    if t in INF or t in NEG_INF:
        return None
    return parse_number(text, what)


def parse_output(item: str, k: int):
    """A symbol string, "" for silent, or an interval (lo, hi) (None = unbounded)."""
    if not item:
        raise PathTextError(f"output {k + 1} is empty", "write `_` for a step that outputs nothing")
    if item[0] in "([" or item[-1] in ")]":
        m = re.fullmatch(r"[(\[]\s*([^,]*)\s*,\s*([^,]*)\s*[)\]]", item)
        if not m:
            raise PathTextError(f"output {k + 1} `{item}` is not an interval",
                                "write a real output as (lo,hi), e.g. (0,inf) or (-inf,1/2)")
        lo_t, hi_t = m.group(1), m.group(2)
        lo = _bound(lo_t, f"output {k + 1}: the lower end")
        hi = _bound(hi_t, f"output {k + 1}: the upper end")
        if lo_t.strip().lower().replace("−", "-") in INF or hi_t.strip().lower().replace("−", "-") in NEG_INF:
            raise PathTextError(f"output {k + 1} `{item}` is an empty interval")
        if lo is not None and hi is not None and lo >= hi:
            raise PathTextError(f"output {k + 1} `{item}` is an empty interval",
                                "the lower end must be below the upper end")
        return (lo, hi)
    if item in SILENT_TOKENS:
        return ""
    name = item
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
        name = name[1:-1]
    return SYMBOL_ALIASES.get(name, name)


def parse_outputs(text: str) -> list:
    return [parse_output(item, k) for k, item in enumerate(split_list(text))]


def symbol_matches(symbol: str | None, want: str) -> bool:
    if symbol is None:
        return want == ""
    s = symbol
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "\"'":
        s = s[1:-1]
    return s == want


def _matches(dipa: DiPA, e: int, want) -> bool:
    o = dipa.transitions[e].output
    if isinstance(want, tuple):
        return o.is_real
    return not o.is_real and symbol_matches(o.symbol, want)


def build_path(dipa: DiPA, inputs: list[Fraction | None], outputs: list, first_match: bool = False) -> list[Step]:
    """Steps of the path from the initial state with these outputs and inputs
    (``first_match``: follow the first transition with the output, where an
    automaton with several variables has more than one)."""
    edges = dipa.out_edges()
    q = dipa.initial
    explicit_tau = any(a is None for a in inputs)
    steps = []
    pos = 0
    for k, want in enumerate(outputs):
        state = dipa.states[q]
        taken = [e for e in edges[q] if _matches(dipa, e, want)]
        if first_match and taken:
            taken = taken[:1]
        if len(taken) != 1:
            offered = ", ".join(_describe_output(dipa, e) for e in edges[q]) or "nothing (no transition)"
            shown = "(interval)" if isinstance(want, tuple) else (want or "_")
            what = "no transition" if not taken else "more than one transition"
            raise PathTextError(f"step {k + 1}: state `{state.name}` has {what} that outputs {shown}",
                                f"from `{state.name}` the automaton outputs: {offered}")
        e = taken[0]
        if state.is_input:
            if pos >= len(inputs) or inputs[pos] is None:
                raise PathTextError(_count_message(dipa, outputs, inputs),
                                    "give one input per step from an input state")
            a = inputs[pos]
            pos += 1
        else:
            a = None
            if explicit_tau:
                if pos >= len(inputs) or inputs[pos] is not None:
                    raise PathTextError(f"step {k + 1} (state `{state.name}`) reads no input: write `τ` "
                                        "for it, or leave all τ out")
                pos += 1
        steps.append(Step(e, a, want if isinstance(want, tuple) else None))
        q = dipa.transitions[e].target
    if pos != len(inputs):
        raise PathTextError(_count_message(dipa, outputs, inputs),
                            "give one input per step from an input state")
    return steps


MAX_MATCHING_PATHS = 4096     # paths with one output sequence (automata with several variables)


def matching_paths(dipa, inputs: list[Fraction | None], outputs: list,
                   limit: int = MAX_MATCHING_PATHS) -> list[list[Step]]:
    """Every path from the initial state with these outputs and inputs.

    A DiPA has output distinction, so there is one path at most and this is
    :func:`build_path`.  An automaton with several variables (a
    :class:`dslc.ir.multi_dipa.MultiDiPA`) may split one branch into pieces
    with the same output (``insample < l`` and ``insample >= l && insample >=
    r``, both `outside`): the output sequence is then the event of all its
    paths, whose probabilities add up.  PathTextError when no path fits (the
    message of :func:`build_path` for the first path followed) or when more
    than ``limit`` do."""
    if isinstance(dipa, DiPA):
        return [build_path(dipa, inputs, outputs)]
    edges = dipa.out_edges()
    explicit_tau = any(a is None for a in inputs)
    found: list[list[Step]] = []
    todo = [(dipa.initial, 0, 0, ())]          # state, step, input position, steps so far (reversed links)
    while todo:
        q, k, pos, steps = todo.pop()
        if k == len(outputs):
            if pos == len(inputs):
                path = []
                while steps:
                    steps, step = steps
                    path.append(step)
                found.append(path[::-1])
                if len(found) > limit:
                    raise PathTextError(f"more than {limit} paths of the automaton have these outputs",
                                        "replay a shorter output sequence")
            continue
        want = outputs[k]
        state = dipa.states[q]
        if state.is_input:
            if pos >= len(inputs) or inputs[pos] is None:
                continue
            a, nxt = inputs[pos], pos + 1
        elif explicit_tau:
            if pos >= len(inputs) or inputs[pos] is not None:
                continue
            a, nxt = None, pos + 1
        else:
            a, nxt = None, pos
        for e in reversed(edges[q]):
            if _matches(dipa, e, want):
                todo.append((dipa.transitions[e].target, k + 1, nxt,
                             (steps, Step(e, a, want if isinstance(want, tuple) else None))))
    if not found:
        build_path(dipa, inputs, outputs, first_match=True)     # raises with the reason
        raise PathTextError("no path of the automaton has these outputs and inputs")
    return found


def _describe_output(dipa: DiPA, e: int) -> str:
    o = dipa.transitions[e].output
    if o.is_real:
        return f"{o} (write an interval)"
    return o.symbol if o.symbol is not None else "_ (nothing)"


def _count_message(dipa: DiPA, outputs, inputs) -> str:
    """How many inputs the outputs' path reads (as far as it goes)."""
    need = 0
    edges = dipa.out_edges()
    q = dipa.initial
    for want in outputs:
        if dipa.states[q].is_input:
            need += 1
        nxt = next((e for e in edges[q] if _matches(dipa, e, want)), None)
        if nxt is None:
            break
        q = dipa.transitions[nxt].target
    given = len([a for a in inputs if a is not None])
    return f"the path reads {need} input{'s' if need != 1 else ''}, but {given} {'were' if given != 1 else 'was'} given"


# ---------------------------------------------------------------------------
# steps -> text

def fmt_interval(iv) -> str:
    lo, hi = iv
    return f"({'-inf' if lo is None else fmt_fraction(lo)},{'inf' if hi is None else fmt_fraction(hi)})"


def output_tokens(dipa: DiPA, steps: list[Step]) -> list[str]:
    """The output sequence in the syntax of `dslc prob --outputs` (`_` for silent)."""
    out = []
    for s in steps:
        o = dipa.transitions[s.transition].output
        if o.is_real:
            out.append(fmt_interval(s.interval or (None, None)))
        else:
            out.append(o.symbol if o.symbol is not None else "_")
    return out


def input_tokens(steps: list[Step], tau: bool = True) -> list[str]:
    """The inputs in the syntax of `dslc prob --inputs` (`τ` for a step that reads none)."""
    return [("τ" if s.input is None else fmt_fraction(s.input)) for s in steps if tau or s.input is not None]
