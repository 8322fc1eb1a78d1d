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

from dslc.dipa.check import (DISCLOSING_CYCLE, LEAKING_CYCLE, LEAKING_PAIR, VIOLATING_PATH,
                             CheckResult, Violation)
from dslc.dipa.prob import PathError, Step, TooExpensive, path_probability
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
    else:
        rule = ("α: every compared draw has its mean 1 above (`>=`) or 1 below (`<`) the draw "
                "stored last (½ at the cycle's comparison); β: the cycle's comparison moves by 1 "
                "to the unlikely side in every turn")
    return Witness(LEAKING_CYCLE, segments, rule, build)


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
    return Witness(LEAKING_PAIR, segments, rule, build)


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
    return Witness(DISCLOSING_CYCLE, segments, rule, build)


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
    return Witness(VIOLATING_PATH, segments, rule, build)


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
# presentation

def _fmt_input(a: Fraction | None) -> str:
    return "τ" if a is None else fmt_fraction(a)


def _fmt_interval(iv) -> str:
    lo, hi = iv
    return f"({'-inf' if lo is None else fmt_fraction(lo)},{'inf' if hi is None else fmt_fraction(hi)})"


def output_tokens(dipa: DiPA, steps: list[Step]) -> list[str]:
    """The output sequence in the syntax of `dslc prob --outputs` (`_` for silent)."""
    out = []
    for s in steps:
        o = dipa.transitions[s.transition].output
        if o.is_real:
            out.append(_fmt_interval(s.interval or (None, None)))
        else:
            out.append(o.symbol if o.symbol is not None else "_")
    return out


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


def witness_json(dipa: DiPA, w: Witness) -> dict:
    inst = w.instance(SHOW_LENGTH)
    data = {
        "construction": f"{LEMMA[w.kind]} of the DiPA paper",
        "path": _path_text(dipa, w),
        "segments": [{"name": name, "repeated": rep,
                      "transitions": [dipa.describe_transition(e) for e in trans]}
                     for name, trans, rep in w.segments],
        "rule": w.rule,
        "l": SHOW_LENGTH,
        "alpha": [_fmt_input(s.input) for s in inst.alpha],
        "beta": [_fmt_input(s.input) for s in inst.beta],
        "outputs": output_tokens(dipa, inst.alpha),
        "epsilon": fmt_fraction(w.epsilon) if w.epsilon is not None else None,
        "epsilon_chosen": w.epsilon_chosen,
        "table": [r.to_json() for r in w.rows],
        "grows": w.grows,
    }
    if w.omitted:
        data["omitted_lengths"] = list(w.omitted)
    if w.problem:
        data["problem"] = w.problem
    return data


def witness_notes(dipa: DiPA, w: Witness) -> list[str]:
    inst = w.instance(SHOW_LENGTH)
    eps = fmt_fraction(w.epsilon) if w.epsilon is not None else "?"
    how = "chosen" if w.epsilon_chosen else "from --epsilon"
    notes = [f"witness ({LEMMA[w.kind]}): path {_path_text(dipa, w)}; written out for ℓ = {SHOW_LENGTH}:",
             f"α = {_short([_fmt_input(s.input) for s in inst.alpha])}",
             f"β = {_short([_fmt_input(s.input) for s in inst.beta])}",
             f"outputs = {_short(output_tokens(dipa, inst.alpha))}   (τ: a step that reads no input)"]
    if w.problem:
        notes.append(f"the probabilities could not be computed: {w.problem}")
        return notes
    shown = [r for r in w.rows if r.length in TEXT_LENGTHS]
    table = ", ".join(f"ℓ={r.length}: {_fmt_log(r.log_ratio)}" for r in shown)
    last = w.rows[-1] if w.rows else None
    tail = f" … ℓ={last.length}: {_fmt_log(last.log_ratio)}" if last and last.length not in TEXT_LENGTHS else ""
    notes.append(f"ln(Pr_α/Pr_β) at ε = {eps} ({how}): {table}{tail}")
    if w.omitted:
        notes.append(f"ℓ = {', '.join(map(str, w.omitted))} left out: the path is too long or too "
                     "costly to compute exactly")
    if w.grows:
        notes.append("the log-ratio grows linearly in ℓ, so it passes d·ε for every d: "
                     "no d makes this mechanism dε-private")
    else:
        notes.append("this table does not show clear growth at this ε "
                     "(try a larger --epsilon; the lemma needs ε large enough)")
    return notes


def attach_witnesses(dipa: DiPA, found: CheckResult, result, options: dict | None = None) -> None:
    """Add a witness to every violation diagnostic (DP001–DP004) of ``result``."""
    options = options or {}
    epsilon = None
    raw = options.get("epsilon")
    eps_problem = None
    if raw is not None:
        try:
            epsilon = Fraction(str(raw).strip())
            if epsilon <= 0:
                raise ValueError
        except (ValueError, ZeroDivisionError):
            eps_problem = f"--epsilon {raw!r} is not a positive number; ε was chosen instead"
            epsilon = None
    codes = {LEAKING_CYCLE, LEAKING_PAIR, DISCLOSING_CYCLE, VIOLATING_PATH}
    diags = [d for d in result.diagnostics if d.code in codes]
    for diag, v in zip(diags, found.violations):
        try:
            w = evaluate(dipa, construct(dipa, v), epsilon)
        except Exception as exc:  # noqa: BLE001 - one bad witness must not lose the verdict
            if os.environ.get("DSLC_DEBUG"):
                raise
            diag.note(f"no witness could be built for this violation (internal problem: "
                      f"{type(exc).__name__}: {exc}); please report it")
            continue
        data = diag.data.setdefault("witness", {})
        data.update(witness_json(dipa, w))
        for note in witness_notes(dipa, w):
            diag.note(note)
        if eps_problem:
            diag.note(eps_problem)
