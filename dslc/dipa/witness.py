"""Counterexamples for DiPA violations (Appendix B of the DiPA paper).

For every violation the checker finds, build the witness family of the
matching lemma: an abstract path (a prefix from the initial state, a cycle
repeated ℓ times, and the rest), two adjacent input sequences α(ℓ), β(ℓ) and
the output sequence (with intervals for real outputs), then compute
ln(Pr[ε, ρ_α(ℓ)] / Pr[ε, ρ_β(ℓ)]) with :mod:`dslc.dipa.prob` for growing ℓ.
A ratio that grows without bound in ℓ exceeds e^{dε} for every d.

- DP001 leaking cycle (Lemma 6): α makes every comparison likely (the mean of
  each compared draw is 1 above / below the mean of the draw stored last);
  β swaps the inputs of the storing and the comparing step of each turn.
- DP002 leaking pair (Lemma 7): inside both loops α puts the compared draws'
  means at +½ for `insample >= x` and −½ for `insample < x`; β the reverse.
- DP003 disclosing cycle (Lemma 8): α centres every draw at 0; β moves the
  released draw by 1 away from the output interval (0, ∞) (or (−∞, 0)).
- DP004 privacy-violating path (Lemma 9 and its mirror cases): the released
  value, restricted to (−∞, 0) or (0, ∞), pins the side of x; β moves the
  loop's comparisons on that side by 1.

Nothing here prints: :func:`attach_witnesses` adds data and notes to the
backend's diagnostics.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction

from dslc import limits
from dslc.diagnostics.model import Verbatim
from dslc.dipa.check import (DISCLOSING_CYCLE, LEAKING_CYCLE, LEAKING_PAIR, VIOLATING_PATH,
                             CheckResult, Violation)
from dslc.dipa.paths import (build_path, input_tokens, output_tokens, parse_inputs, parse_number,
                             parse_outputs)
from dslc.dipa.prob import PathError, Step, TooExpensive, fmt_probability, path_probability
from dslc.dipa import program_terms
from dslc.ir.dipa import DiPA, Guard, OutKind, fmt_fraction

HALF = Fraction(1, 2)
TABLE_LENGTHS = (1, 2, 4, 8, 16, 32, 64)
TEXT_LENGTHS = (1, 2, 4, 8)
EPSILON_CANDIDATES = (Fraction(1), Fraction(2), Fraction(4), Fraction(8))
MAX_STEPS = 400            # longest path whose probability the table computes
MAX_ASSIGNMENTS = 160      # most assignment steps on it (the cost grows like their cube)
BUDGET = 400_000           # terms carried per probability run (about 2 s at most)
SHOW_LENGTH = 2            # ℓ of the instance written out in full

LEMMA = {LEAKING_CYCLE: "Lemma 6", LEAKING_PAIR: "Lemma 7", DISCLOSING_CYCLE: "Lemma 8",
         VIOLATING_PATH: "Lemma 9"}


@dataclass
class Position:
    transition: int
    segment: str          # "prefix", "cycle", "path", "cycle2"
    turn: int             # repetition number inside a repeated segment (0 elsewhere)
    index: int            # position inside the segment


@dataclass
class Instance:
    """The witness for one ℓ: two equivalent paths on adjacent inputs."""

    length: int
    alpha: list[Step]
    beta: list[Step]

    @property
    def alpha_inputs(self) -> list[Fraction]:
        return [s.input for s in self.alpha if s.input is not None]

    @property
    def beta_inputs(self) -> list[Fraction]:
        return [s.input for s in self.beta if s.input is not None]


@dataclass
class Row:
    length: int
    log_alpha: float
    log_beta: float
    log_ratio: float
    error: float          # bound on the error of log_ratio (from the probabilities' bounds)

    def to_json(self) -> dict:
        return {"l": self.length, "log_pr_alpha": self.log_alpha, "log_pr_beta": self.log_beta,
                "log_ratio": self.log_ratio, "error": self.error}


@dataclass
class Witness:
    kind: str
    segments: list[tuple[str, list[int], bool]]      # (name, transitions, repeated ℓ times)
    rule: str                                         # how α and β are built, in words
    builder: object = field(repr=False, default=None)
    epsilon: Fraction | None = None
    epsilon_chosen: bool = True
    rows: list[Row] = field(default_factory=list)
    omitted: list[int] = field(default_factory=list)  # lengths left out (path too long)
    problem: str | None = None
    program_rule: str | None = None                   # `rule` in a mechanism's terms

    def instance(self, length: int) -> Instance:
        return self.builder(length)

    @property
    def grows(self) -> bool:
        """The table's last value is at least 4 times the one at ℓ = 8 and above 5."""
        by = {r.length: r.log_ratio for r in self.rows}
        last = max(by) if by else 0
        return 8 in by and last > 8 and by[last] > 5 and by[last] >= 4 * by[8]


# ---------------------------------------------------------------------------
# paths

def unroll(segments: list[tuple[str, list[int], bool]], length: int) -> list[Position]:
    out = []
    for name, trans, repeated in segments:
        for turn in range(length if repeated else 1):
            for index, e in enumerate(trans):
                out.append(Position(e, name, turn, index))
    return out


def _steps(dipa: DiPA, positions: list[Position], inputs: list[Fraction | None],
           intervals: list[tuple | None]) -> list[Step]:
    return [Step(p.transition, inputs[k], intervals[k]) for k, p in enumerate(positions)]


def _default_intervals(dipa: DiPA, positions: list[Position]) -> list[tuple | None]:
    return [(None, None) if dipa.transitions[p.transition].output.is_real else None for p in positions]


def _is_input(dipa: DiPA, e: int) -> bool:
    return dipa.states[dipa.transitions[e].source].is_input


def _mu(dipa: DiPA, e: int) -> Fraction:
    return Fraction(dipa.states[dipa.transitions[e].source].mu)


# ---------------------------------------------------------------------------
# the four constructions

def _leaking_cycle(dipa: DiPA, v: Violation) -> Witness:
    ts = dipa.transitions
    segments = [("prefix", list(v.prefix), False), ("cycle", list(v.cycle), True)]
    cyc = v.cycle
    # j: the first comparison after the cycle's first step; i: the last assignment before j
    j = next(k for k in range(1, len(cyc)) if ts[cyc[k]].guard is not Guard.TRUE)
    i = max(k for k in range(j) if ts[cyc[k]].store)
    swap = _is_input(dipa, cyc[i])
    # with a non-input storing step the stored mean cannot move: place the
    # compared draw ½ above/below it in α and ½ below/above in β instead
    gap_j = Fraction(1) if swap else HALF

    def build(length: int) -> Instance:
        pos = unroll(segments, length)
        a: list[Fraction | None] = []
        nu_stored = None
        for p in pos:
            t = ts[p.transition]
            mu = _mu(dipa, p.transition)
            if not _is_input(dipa, p.transition):
                a.append(None)
                nu = mu
            else:
                if t.guard is Guard.TRUE or nu_stored is None:
                    nu = mu
                else:
                    gap = gap_j if (p.segment == "cycle" and p.index == j) else Fraction(1)
                    nu = nu_stored + gap if t.guard is Guard.GE else nu_stored - gap
                a.append(nu - mu)
            if t.store:
                nu_stored = nu
        b = list(a)
        index = {(p.segment, p.turn, p.index): k for k, p in enumerate(pos)}
        for turn in range(length):
            ki, kj = index[("cycle", turn, i)], index[("cycle", turn, j)]
            mu_i, mu_j = _mu(dipa, cyc[i]), _mu(dipa, cyc[j])
            if swap:
                b[ki] = a[kj] + mu_j - mu_i
                b[kj] = a[ki] + mu_i - mu_j
            else:
                b[kj] = a[kj] - 1 if ts[cyc[j]].guard is Guard.GE else a[kj] + 1
        iv = _default_intervals(dipa, pos)
        return Instance(length, _steps(dipa, pos, a, iv), _steps(dipa, pos, b, iv))

    if swap:
        rule = ("α: every compared draw has its mean 1 above (for `insample >= x`) or 1 below "
                "(for `insample < x`) the mean of the draw stored last, so every comparison is "
                "likely; β: in every turn the storing and the comparing step swap their inputs, "
                "so every turn's comparison is unlikely")
        program = ("α: a draw that must come out at or above `x` has its mean 1 above the mean of "
                   "the draw stored in `x` last, one that must come out below `x` 1 below it, so "
                   "every comparison is likely; β: in every turn the input of the draw stored in "
                   "`x` and that of the draw compared with it are swapped, so every turn's "
                   "comparison is unlikely")
    else:
        rule = ("α: every compared draw has its mean 1 above (`>=`) or 1 below (`<`) the draw "
                "stored last (½ at the cycle's comparison); β: the cycle's comparison moves by 1 "
                "to the unlikely side in every turn")
        program = ("α: a draw that must come out at or above `x` has its mean 1 above the draw "
                   "stored in `x` last, one that must come out below `x` 1 below it (½ at the "
                   "loop's comparison); β: in every turn the loop's comparison has its input moved "
                   "by 1 to the unlikely side")
    return Witness(LEAKING_CYCLE, segments, rule, build, program_rule=program)


def _leaking_pair(dipa: DiPA, v: Violation) -> Witness:
    ts = dipa.transitions
    segments = [("prefix", list(v.prefix), False), ("cycle", list(v.cycle), True),
                ("path", list(v.path), False), ("cycle2", list(v.cycle2), True)]

    def build(length: int) -> Instance:
        pos = unroll(segments, length)
        a: list[Fraction | None] = []
        b: list[Fraction | None] = []
        for p in pos:
            e = p.transition
            if not _is_input(dipa, e):
                a.append(None)
                b.append(None)
                continue
            g = ts[e].guard
            mu = _mu(dipa, e)
            if p.segment in ("cycle", "cycle2") and g is not Guard.TRUE:
                sign = 1 if g is Guard.GE else -1
                a.append(sign * HALF - mu)
                b.append(-sign * HALF - mu)
            else:
                a.append(Fraction(0))
                b.append(Fraction(0))
        iv = _default_intervals(dipa, pos)
        return Instance(length, _steps(dipa, pos, a, iv), _steps(dipa, pos, b, iv))

    rule = ("α: inside both loops a draw compared by `insample >= x` has mean +½ and one "
            "compared by `insample < x` has mean −½; β: the reverse; every other input is 0. "
            "Whatever x holds, one of the two loops favours α by a constant factor per turn")
    program = ("α: inside both loops a draw that must come out at or above `x` has mean +½ and "
               "one that must come out below `x` has mean −½; β: the reverse; every other input "
               "is 0. Whatever `x` holds, one of the two loops favours α by a constant factor per turn")
    return Witness(LEAKING_PAIR, segments, rule, build, program_rule=program)


def _centre_inputs(dipa: DiPA, pos: list[Position]) -> list[Fraction | None]:
    """Inputs that put every draw's mean at 0."""
    return [(-_mu(dipa, p.transition)) if _is_input(dipa, p.transition) else None for p in pos]


def _disclosing_cycle(dipa: DiPA, v: Violation) -> Witness:
    ts = dipa.transitions
    segments = [("prefix", list(v.prefix), False), ("cycle", list(v.cycle), True)]
    e_d = v.disclose
    k_d = v.cycle.index(e_d)
    t_d = ts[e_d]
    s_d = dipa.states[t_d.source]
    prime = t_d.output.kind is OutKind.INSAMPLE_PRIME
    below = t_d.guard is Guard.LT           # release restricted to (−∞, 0), β moved up
    interval = (None, Fraction(0)) if below else (Fraction(0), None)
    shift = Fraction(1) if below else Fraction(-1)

    def build(length: int) -> Instance:
        pos = unroll(segments, length)
        a = _centre_inputs(dipa, pos)
        iv = _default_intervals(dipa, pos)
        for k, p in enumerate(pos):
            if p.segment == "cycle" and p.index == k_d:
                if prime:
                    a[k] = -Fraction(s_d.mu_prime)
                iv[k] = interval
        b = list(a)
        for k, p in enumerate(pos):
            if p.segment == "cycle" and p.index == k_d:
                b[k] = a[k] + shift
        return Instance(length, _steps(dipa, pos, a, iv), _steps(dipa, pos, b, iv))

    side = "(−∞, 0)" if below else "(0, ∞)"
    rule = (f"α: every draw has mean 0; the released value `{t_d.output}` must lie in {side}; "
            f"β: the released draw's input is moved by 1 away from that interval in every turn, "
            "so each turn multiplies the probability ratio by about e^{dε}")
    program = (f"α: every draw has mean 0; {program_terms.release_words(dipa, e_d)} must lie in "
               f"{side}; β: the input of that released draw is moved by 1 away from that interval "
               "in every turn, so each turn multiplies the probability ratio by about e^{dε}")
    return Witness(DISCLOSING_CYCLE, segments, rule, build, program_rule=program)


def _violating_path(dipa: DiPA, v: Violation) -> Witness:
    ts = dipa.transitions
    g_side = v.g_side                      # the loop involved is a G-cycle (else an L-cycle)
    loop_guard = Guard.GE if g_side else Guard.LT
    shift = Fraction(-1) if g_side else Fraction(1)
    interval = (Fraction(0), None) if g_side else (None, Fraction(0))
    if v.case == "c":
        segments = [("prefix", list(v.prefix), False), ("cycle", list(v.cycle), True),
                    ("path", list(v.path), False)]
        released = ("path", len(v.path) - 1)
    else:
        segments = [("prefix", list(v.prefix), False), ("path", list(v.path), False),
                    ("cycle", list(v.cycle), True)]
        released = ("path", 0)

    def build(length: int) -> Instance:
        pos = unroll(segments, length)
        a = _centre_inputs(dipa, pos)
        iv = _default_intervals(dipa, pos)
        b = list(a)
        for k, p in enumerate(pos):
            if (p.segment, p.index) == released:
                iv[k] = interval
            if p.segment == "cycle" and ts[p.transition].guard is loop_guard and a[k] is not None:
                b[k] = a[k] + shift
        return Instance(length, _steps(dipa, pos, a, iv), _steps(dipa, pos, b, iv))

    side = "(0, ∞)" if g_side else "(−∞, 0)"
    where = "last" if v.case == "c" else "first"
    rule = (f"α: every draw has mean 0; the {where} step's released `insample` must lie in "
            f"{side}, which puts x {'above' if g_side else 'below'} 0 while the loop runs; "
            f"β: every `{loop_guard.value}` comparison of the loop has its input moved by 1 "
            f"({'down' if g_side else 'up'}), which costs a factor e^{{dε}} per comparison")
    e_released = v.path[-1] if v.case == "c" else v.path[0]
    program = (f"α: every draw has mean 0; {program_terms.release_words(dipa, e_released)} must lie "
               f"in {side}, which puts `x` {'above' if g_side else 'below'} 0 while the loop runs; "
               f"β: in every turn of the loop, a draw that must come out "
               f"{'at or above' if g_side else 'below'} `x` has its input moved by 1 "
               f"({'down' if g_side else 'up'}), which costs a factor e^{{dε}} per such draw")
    return Witness(VIOLATING_PATH, segments, rule, build, program_rule=program)


BUILDERS = {LEAKING_CYCLE: _leaking_cycle, LEAKING_PAIR: _leaking_pair,
            DISCLOSING_CYCLE: _disclosing_cycle, VIOLATING_PATH: _violating_path}


def construct(dipa: DiPA, v: Violation) -> Witness:
    """The witness family of a violation (no probabilities yet)."""
    return BUILDERS[v.kind](dipa, v)


# ---------------------------------------------------------------------------
# probabilities

def log_ratio(dipa: DiPA, inst: Instance, epsilon: Fraction) -> Row:
    pa = path_probability(dipa, inst.alpha, epsilon, budget=BUDGET)
    pb = path_probability(dipa, inst.beta, epsilon, budget=BUDGET)
    if pa.log_probability is None or pb.log_probability is None:
        raise PathError("a witness path has probability 0")
    # |Δ ln p| ≤ err/p (to first order; the errors are ~1e-20 relative)
    err = float(pa.error / pa.probability) + float(pb.error / pb.probability)
    return Row(inst.length, float(pa.log_probability), float(pb.log_probability),
               float(pa.log_probability - pb.log_probability), err)


def _path_length(w: Witness, length: int) -> int:
    return sum(len(t) * (length if rep else 1) for _, t, rep in w.segments)


def _too_long(dipa: DiPA, w: Witness, length: int) -> bool:
    if _path_length(w, length) > MAX_STEPS:
        return True
    stores = sum(sum(dipa.transitions[e].store for e in t) * (length if rep else 1)
                 for _, t, rep in w.segments)
    return stores > MAX_ASSIGNMENTS


class _Rows:
    """Table rows computed once per (ℓ, ε)."""

    def __init__(self, dipa: DiPA, w: Witness):
        self.dipa, self.w, self.cache = dipa, w, {}

    def get(self, length: int, eps: Fraction) -> Row:
        key = (length, eps)
        if key not in self.cache:
            self.cache[key] = log_ratio(self.dipa, self.w.instance(length), eps)
        return self.cache[key]


def _choose_epsilon(dipa: DiPA, w: Witness, rows: _Rows) -> Fraction:
    """The smallest candidate ε at which the ratio visibly grows linearly in ℓ."""
    if _too_long(dipa, w, 16):
        return EPSILON_CANDIDATES[0]
    for eps in EPSILON_CANDIDATES:
        try:
            v8 = rows.get(8, eps).log_ratio
            v16 = rows.get(16, eps).log_ratio
        except TooExpensive:
            continue
        slope = (v16 - v8) / 8
        v64 = v16 + 48 * slope
        if slope > 0 and v64 > 6 and v64 >= 5 * v8:
            return eps
    return EPSILON_CANDIDATES[-1]


def evaluate(dipa: DiPA, w: Witness, epsilon: Fraction | None = None,
             lengths=TABLE_LENGTHS) -> Witness:
    """Fill in ε and the table of ln(Pr_α/Pr_β)."""
    rows = _Rows(dipa, w)
    try:
        if epsilon is None:
            w.epsilon, w.epsilon_chosen = _choose_epsilon(dipa, w, rows), True
        else:
            w.epsilon, w.epsilon_chosen = Fraction(epsilon), False
        for length in lengths:
            if w.omitted or _too_long(dipa, w, length):
                w.omitted.append(length)
                continue
            try:
                w.rows.append(rows.get(length, w.epsilon))
            except TooExpensive:
                w.omitted.append(length)
    except (PathError, ArithmeticError) as exc:
        w.problem = str(exc)
    return w


# ---------------------------------------------------------------------------
# checking a witness before it is shown

class WitnessError(AssertionError):
    """A constructed witness is not a pair of equivalent paths on adjacent inputs
    (a bug in the construction: such a witness is never printed)."""


def verify_instance(dipa: DiPA, inst: Instance) -> None:
    """α and β are one path of the automaton from its initial state, read an
    input exactly at its input states, differ by at most 1 per input
    (Definition 1) and produce the same outputs."""
    ts, states = dipa.transitions, dipa.states
    if len(inst.alpha) != len(inst.beta) or not inst.alpha:
        raise WitnessError("α and β have different lengths or are empty")
    q = dipa.initial
    for k, (a, b) in enumerate(zip(inst.alpha, inst.beta)):
        if a.transition != b.transition or a.interval != b.interval:
            raise WitnessError(f"step {k + 1}: α and β take different transitions or outputs")
        if not 0 <= a.transition < len(ts) or ts[a.transition].source != q:
            raise WitnessError(f"step {k + 1}: the transition does not leave state `{states[q].name}`")
        t = ts[a.transition]
        reads = states[q].is_input
        if (a.input is None) == reads or (b.input is None) == reads:
            raise WitnessError(f"step {k + 1}: an input where `{states[q].name}` reads none, or the reverse")
        if reads and abs(Fraction(a.input) - Fraction(b.input)) > 1:
            raise WitnessError(f"step {k + 1}: α and β differ by more than 1 (not adjacent)")
        if (a.interval is not None) != t.output.is_real:
            raise WitnessError(f"step {k + 1}: an interval must be given exactly for a real output")
        q = t.target


def replay(dipa: DiPA, inst: Instance) -> tuple[list[Step], list[Step]]:
    """The two paths as `dslc prob` would read them from the printed text."""
    outputs = parse_outputs(",".join(output_tokens(dipa, inst.alpha)))
    pa = build_path(dipa, parse_inputs(",".join(input_tokens(inst.alpha)), allow_tau=True), outputs)
    pb = build_path(dipa, parse_inputs(",".join(input_tokens(inst.beta)), allow_tau=True), outputs)
    if [(s.transition, s.input, s.interval) for s in pa] != \
            [(s.transition, Fraction(s.input) if s.input is not None else None, s.interval) for s in inst.alpha] \
            or [s.transition for s in pb] != [s.transition for s in inst.beta]:
        raise WitnessError("the printed outputs and inputs do not give back the witness's path")
    return pa, pb


@dataclass
class Shown:
    """The instance written out in full, recomputed from its printed form."""
    length: int
    instance: Instance
    pr_alpha: object          # dslc.dipa.prob.Probability
    pr_beta: object
    log_ratio: float
    error: float


def show(dipa: DiPA, w: Witness) -> Shown | None:
    """The first ℓ of the table whose loss exceeds 2ε (else the last ℓ),
    replayed from text and recomputed; WitnessError if it does not match."""
    if not w.rows or w.epsilon is None:
        return None
    eps = float(w.epsilon)
    row = next((r for r in w.rows if r.log_ratio > 2 * eps), w.rows[-1])
    inst = w.instance(row.length)
    verify_instance(dipa, inst)
    pa_steps, pb_steps = replay(dipa, inst)
    pa = path_probability(dipa, pa_steps, w.epsilon)
    pb = path_probability(dipa, pb_steps, w.epsilon)
    if pa.log_probability is None or pb.log_probability is None:
        raise WitnessError("a witness path has probability 0")
    ratio = float(pa.log_probability - pb.log_probability)
    err = float(pa.error / pa.probability) + float(pb.error / pb.probability)
    if abs(ratio - row.log_ratio) > 1e-9 * max(1.0, abs(ratio)) + err + row.error:
        raise WitnessError(f"the table says {row.log_ratio}, the replay {ratio}")
    return Shown(row.length, inst, pa, pb, ratio, err)


def prob_command(path: str | None, block: str, epsilon: Fraction, steps: list[Step], outputs: list[str]) -> str:
    inputs = ",".join(input_tokens(steps, tau=False))
    import shlex                         # only for printed commands: not at start-up
    return " ".join(["dslc", "prob", shlex.quote(path or "FILE"), "--block", shlex.quote(block),
                     "--epsilon", fmt_fraction(epsilon), shlex.quote(f"--inputs={inputs}"),
                     shlex.quote(f"--outputs={','.join(outputs)}")])


# ---------------------------------------------------------------------------
# presentation

def _fmt_input(a: Fraction | None) -> str:
    return "τ" if a is None else fmt_fraction(a)


def _path_text(dipa: DiPA, w: Witness) -> str:
    parts = []
    for name, trans, rep in w.segments:
        if not trans:
            continue
        names = " → ".join(dipa.states[dipa.transitions[e].target].name for e in trans)
        parts.append(f"[→ {names}]^ℓ" if rep else f"→ {names}")
    first = w.segments[0][1] or w.segments[1][1]
    start = dipa.states[dipa.transitions[first[0]].source].name if first else "?"
    return start + " " + " ".join(parts)


def _short(items: list[str], limit: int = 16) -> str:
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit - 4]) + ", …, " + ", ".join(items[-3:])


def _fmt_log(x: float) -> str:
    return f"{x:.3g}" if abs(x) < 100 else f"{x:.1f}"


def _fmt_pr(p) -> str:
    """As `dslc prob` prints it."""
    return fmt_probability(p.probability)


def program_run(program, dipa: DiPA, w: Witness, shown: Shown | None) -> tuple[object, str | None]:
    """The program's own run on the shown instance (a
    :class:`~dslc.dipa.program_run.WitnessRun`), or (None, a note that says
    why it is not shown).  Neither a problem nor the time limit costs the
    witness or the verdict."""
    if program is None or not program_terms.is_program(dipa):
        return None, None
    inst = shown.instance if shown is not None else w.instance(SHOW_LENGTH)
    return checked_run(program, dipa, inst.alpha, inst.beta, w.epsilon or Fraction(1))


def run_note(run) -> str:
    """The note that tells a witness's run of the program, statement by statement."""
    return ("the program's run on α and β, step by step (each `read()` gives its α | β "
            "value; the draws take values that follow this path):\n"
            + "\n".join(program_terms.fact_lines(run.facts)))


def checked_run(program, dipa, alpha, beta, epsilon: Fraction) -> tuple[object, str | None]:
    """The program's own run on α and β (steps of ``dipa``, one variable or
    several), or (None, why it is not shown)."""
    from dslc.dipa.program_run import witness_run
    try:
        return witness_run(program, dipa, alpha, beta, epsilon), None
    except limits.Cancelled as exc:
        if exc.reason != "timeout":
            raise
        return None, "the step-by-step run is not shown: the time limit was reached first"
    except Exception as exc:  # noqa: BLE001 - a wrong sentence is never shown, the witness stays
        if os.environ.get("DSLC_DEBUG"):
            raise
        return None, (f"the step-by-step run is not shown: the program's own run does not match the "
                      f"witness (internal problem: {exc}); please report it")


def witness_json(dipa: DiPA, w: Witness, shown: Shown | None = None, path: str | None = None,
                 block: str | None = None, run=None, run_problem: str | None = None) -> dict:
    inst = shown.instance if shown is not None else w.instance(SHOW_LENGTH)
    data = {
        "construction": f"{LEMMA[w.kind]} of the DiPA paper",
        "path": _path_text(dipa, w),
        "program_path": program_terms.path_words(dipa, w.segments) if program_terms.is_program(dipa) else None,
        "segments": [{"name": name, "repeated": rep,
                      "transitions": [dipa.describe_transition(e) for e in trans]}
                     for name, trans, rep in w.segments],
        "rule": w.rule,
        "program_rule": w.program_rule if program_terms.is_program(dipa) else None,
        "l": shown.length if shown is not None else SHOW_LENGTH,
        "alpha": [_fmt_input(s.input) for s in inst.alpha],
        "beta": [_fmt_input(s.input) for s in inst.beta],
        "outputs": output_tokens(dipa, inst.alpha),
        "epsilon": fmt_fraction(w.epsilon) if w.epsilon is not None else None,
        "epsilon_chosen": w.epsilon_chosen,
        "table": [r.to_json() for r in w.rows],
        "grows": w.grows,
    }
    if run is not None:
        data["program_steps"] = program_terms.fact_lines(run.facts)
        data["program_run"] = run.to_json()
    elif run_problem is not None:
        data["program_run_problem"] = run_problem
    if shown is not None:
        outs = output_tokens(dipa, inst.alpha)
        data.update({
            "pr_alpha": _fmt_pr(shown.pr_alpha), "pr_beta": _fmt_pr(shown.pr_beta),
            "error_alpha": f"{float(shown.pr_alpha.error):.3g}", "error_beta": f"{float(shown.pr_beta.error):.3g}",
            "log_ratio": shown.log_ratio, "exceeds_2_epsilon": shown.log_ratio > 2 * float(w.epsilon),
            "commands": [prob_command(path, block or dipa.name, w.epsilon, inst.alpha, outs),
                         prob_command(path, block or dipa.name, w.epsilon, inst.beta, outs)],
        })
    if w.omitted:
        data["omitted_lengths"] = list(w.omitted)
    if w.problem:
        data["problem"] = w.problem
    return data


def witness_notes(dipa: DiPA, w: Witness, shown: Shown | None = None, path: str | None = None,
                  block: str | None = None, others: set[str] | None = None, run=None,
                  run_problem: str | None = None) -> list[str]:
    eps = fmt_fraction(w.epsilon) if w.epsilon is not None else "?"
    how = "chosen" if w.epsilon_chosen else "from --epsilon"
    length = shown.length if shown is not None else SHOW_LENGTH
    inst = shown.instance if shown is not None else w.instance(SHOW_LENGTH)
    if program_terms.is_program(dipa):
        notes = [f"witness ({LEMMA[w.kind]}): the program runs {program_terms.path_words(dipa, w.segments)}; "
                 f"{w.program_rule or w.rule}"]
    else:
        notes = [f"witness ({LEMMA[w.kind]}): path {_path_text(dipa, w)}; {w.rule}"]
    if w.problem:
        notes.append(f"the probabilities could not be computed: {w.problem}")
        return notes
    shown_rows = [r for r in w.rows if r.length in TEXT_LENGTHS]
    table = ", ".join(f"ℓ={r.length}: {_fmt_log(r.log_ratio)}" for r in shown_rows)
    last = w.rows[-1] if w.rows else None
    tail = f" … ℓ={last.length}: {_fmt_log(last.log_ratio)}" if last and last.length not in TEXT_LENGTHS else ""
    notes.append(f"ln(Pr_α/Pr_β) at ε = {eps} ({how}): {table}{tail}")
    outs = output_tokens(dipa, inst.alpha)
    if shown is not None:
        above = shown.log_ratio > 2 * float(w.epsilon)
        notes.append(f"at ℓ = {length} the loss {_fmt_log(shown.log_ratio)} "
                     + (f"exceeds 2ε = {fmt_fraction(2 * w.epsilon)}:" if above
                        else f"(the largest ℓ computed) is the largest shown:"))
    else:
        notes.append(f"written out for ℓ = {length}:")
    if program_terms.is_program(dipa):
        # the inputs are the values of the `read()` calls, in order
        notes += [f"α = {_short([fmt_fraction(s.input) for s in inst.alpha if s.input is not None])}",
                  f"β = {_short([fmt_fraction(s.input) for s in inst.beta if s.input is not None])}",
                  f"outputs = {_short(outs)}   (_: a step that outputs nothing)"]
        if run is not None:
            notes.append(run_note(run))
        elif run_problem is not None:
            notes.append(run_problem)
    else:
        notes += [f"α = {_short([_fmt_input(s.input) for s in inst.alpha])}",
                  f"β = {_short([_fmt_input(s.input) for s in inst.beta])}",
                  f"outputs = {_short(outs)}   (τ: a step that reads no input; _: no output)"]
    if shown is not None:
        notes.append(f"Pr_α = {_fmt_pr(shown.pr_alpha)} (error ≤ {float(shown.pr_alpha.error):.3g}), "
                     f"Pr_β = {_fmt_pr(shown.pr_beta)} (error ≤ {float(shown.pr_beta.error):.3g})")
        notes.append(Verbatim("replay: " + prob_command(path, block or dipa.name, w.epsilon, inst.alpha, outs)))
        notes.append(Verbatim("replay: " + prob_command(path, block or dipa.name, w.epsilon, inst.beta, outs)))
    if w.omitted:
        notes.append(f"ℓ = {', '.join(map(str, w.omitted))} left out: the path is too long or too "
                     "costly to compute exactly")
    if w.grows:
        notes.append("the log-ratio grows linearly in ℓ, so it passes d·ε for every d: "
                     "no d makes this mechanism dε-private")
    else:
        earlier = sorted(k for k in (others or set()) if k < w.kind)
        if earlier:
            notes.append(f"this table does not show growth: {LEMMA[w.kind]}'s construction assumes the "
                         f"automaton has no violation of an earlier kind, but it also has "
                         f"{', '.join(earlier)}; that violation's witness shows the unbounded loss")
        else:
            notes.append("this table does not show growth at this ε; the violation itself is proven "
                         "by Theorem 2 of the DiPA paper (please report this witness)")
    return notes


@dataclass
class Outcome:
    """The witness of one violation, checked (or why none could be built)."""
    violation: Violation
    witness: Witness | None = None
    shown: Shown | None = None
    problem: str | None = None          # an internal problem: the witness is not shown
    timed_out: bool = False             # no witness within --timeout (not a bug)


def parse_epsilon_option(raw) -> tuple[Fraction | None, str | None]:
    """``--epsilon`` for witness tables: (ε, None), or (None, why it was ignored)."""
    if raw is None:
        return None, None
    try:
        epsilon = parse_number(str(raw), "--epsilon")
        if epsilon <= 0:
            raise ValueError
        return epsilon, None
    except (ValueError, ZeroDivisionError):
        return None, f"--epsilon {raw!r} is not a positive number; ε was chosen instead"


def build_witnesses(dipa: DiPA, found: CheckResult, epsilon: Fraction | None = None) -> list[Outcome]:
    """A witness for every violation the checker found, each checked before
    it may be shown (a path of the automaton, adjacent inputs, the printed
    text replays to the printed probabilities); one that fails is a bug,
    kept as a problem and never shown."""
    out = []
    for k, v in enumerate(found.violations):
        try:
            w = evaluate(dipa, construct(dipa, v), epsilon)
            for r in w.rows:
                verify_instance(dipa, w.instance(r.length))
            out.append(Outcome(v, w, show(dipa, w)))
        except limits.Cancelled as exc:
            if exc.reason != "timeout":
                raise
            # the verdict stands; the witnesses still missing are said to be missing
            out += [Outcome(u, problem="the time limit was reached before its witness was computed",
                            timed_out=True) for u in found.violations[k:]]
            break
        except Exception as exc:  # noqa: BLE001 - one bad witness must not lose the verdict
            if os.environ.get("DSLC_DEBUG"):
                raise
            out.append(Outcome(v, problem=f"{type(exc).__name__}: {exc}"))
    return out


def attach(diag, outcome: Outcome, dipa: DiPA, kinds: set[str], path: str | None, block: str,
           program=None) -> None:
    """The witness's notes and JSON data on its diagnostic (presentation only)."""
    if outcome.witness is None:
        if outcome.timed_out:
            diag.note("no witness: the time limit was reached first (raise it with `--timeout`); "
                      "the violation itself is proven")
        else:
            diag.note(f"no witness could be built for this violation (internal problem: "
                      f"{outcome.problem}); please report it")
        return
    w, shown = outcome.witness, outcome.shown
    run, run_problem = program_run(program, dipa, w, shown)
    data = diag.data.setdefault("witness", {})
    data.update(witness_json(dipa, w, shown, path, block, run, run_problem))
    for note in witness_notes(dipa, w, shown, path, block, kinds - {outcome.violation.kind}, run, run_problem):
        diag.note(note)
