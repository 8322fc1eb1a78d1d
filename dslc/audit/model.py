"""The model's side of an audit: inputs to test, the exact law of the output
sequence on each, privacy pairs and the events that separate them.

The law of the output sequence on inputs a is computed from exact path
probabilities (:func:`dslc.dipa.prob.path_probability`, the function behind
`dslc prob`): every path of the automaton on a is enumerated, and the
probabilities of the paths with the same visible outputs (symbols, ℝ for a
real output, silent steps dropped) are added.  What is not enumerated (paths
longer than :data:`MAX_LENGTH`, more than :data:`MAX_PATHS` paths, a step
where no transition is enabled) is the mass ``rest``.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from fractions import Fraction

from dslc.audit.spec import REAL
from dslc.dipa.prob import PathError, Step, TooExpensive, path_probability
from dslc.ir.dipa import DiPA, fmt_fraction, fmt_rate

MAX_PATHS = 400
MAX_LENGTH = 80
PATH_BUDGET = 2_000_000


class ModelError(Exception):
    """The model cannot be audited on these inputs (exit 2)."""


@dataclass
class Law:
    """The exact distribution of the visible output sequence on some inputs."""
    probs: dict = field(default_factory=dict)       # key -> float probability
    rest: float = 0.0                               # mass of the sequences not enumerated

    def p(self, key) -> float:
        return self.probs.get(key, 0.0)

    def p_of(self, keys) -> float:
        return sum(self.probs.get(k, 0.0) for k in keys)


def empirical(counts: dict, n: int) -> Law:
    """Observed frequencies as a law (to choose events on selection samples)."""
    return Law({k: c / n for k, c in counts.items()}, 0.0)


def key_of(dipa: DiPA, steps: list[Step]) -> tuple:
    key = []
    for s in steps:
        out = dipa.transitions[s.transition].output
        if out.is_real:
            key.append(REAL)
        elif out.symbol:
            key.append(out.symbol)
    return tuple(key)


def paths_on(dipa: DiPA, inputs: list[Fraction]):
    """Every path of the automaton that reads exactly ``inputs`` (None when
    there are more than :data:`MAX_PATHS` or one is longer than :data:`MAX_LENGTH`)."""
    edges = dipa.out_edges()
    out: list[list[Step]] = []
    stack = [(dipa.initial, 0, [])]
    while stack:
        q, pos, steps = stack.pop()
        state = dipa.states[q]
        if not edges[q] or (state.is_input and pos >= len(inputs)):
            out.append(steps)
            if len(out) > MAX_PATHS:
                return None
            continue
        if len(steps) >= MAX_LENGTH:
            return None
        a = Fraction(inputs[pos]) if state.is_input else None
        for e in reversed(edges[q]):
            t = dipa.transitions[e]
            step = Step(e, a, (None, None) if t.output.is_real else None)
            stack.append((t.target, pos + (1 if state.is_input else 0), steps + [step]))
    return out


def law(dipa: DiPA, inputs: list[Fraction], epsilon: Fraction) -> Law:
    paths = paths_on(dipa, inputs)
    result = Law()
    if paths is None:
        raise ModelError(f"the model has more than {MAX_PATHS} paths (or one longer than {MAX_LENGTH} "
                         f"steps) on inputs of length {len(inputs)}; audit shorter inputs")
    total = 0.0
    for steps in paths:
        if not steps:
            continue
        try:
            pr = path_probability(dipa, steps, epsilon, budget=PATH_BUDGET)
        except PathError as exc:
            raise ModelError(f"the model cannot run on these inputs: {exc}") from None
        except TooExpensive:
            continue                      # its mass stays in `rest`
        p = float(pr.probability)
        key = key_of(dipa, steps)
        result.probs[key] = result.probs.get(key, 0.0) + p
        total += p
    if not paths or all(not s for s in paths):
        result.probs[()] = 1.0
        total = 1.0
    result.rest = max(0.0, 1.0 - total)
    return result


def has_real_outputs(dipa: DiPA) -> bool:
    return any(t.output.is_real for t in dipa.transitions)


# ---------------------------------------------------------------------------
# inputs and pairs

@dataclass
class Pair:
    """Adjacent inputs α, β (|α_i − β_i| ≤ Δ) the model says something about."""
    origin: str                      # "lower-bound witness", "violation witness", "… (first N inputs)"
    alpha: list[Fraction]
    beta: list[Fraction]


SEARCH_SECONDS = 1.0       # for the lower bound's witness (it stops early when it is tight)


def pairs_of(dipa: DiPA, check_result, upper: Fraction | None, epsilon: Fraction | None,
             notes: list[str] | None = None) -> tuple[list[Pair], Fraction]:
    """The checker's witnesses for the block, and prefixes of them; the ε they
    were found at (the audit's default ε).  A search cut short by its time
    limit may find another witness on another run: ``notes`` gets a line."""
    from dslc.dipa import lower_bound

    pairs: list[Pair] = []
    chosen = epsilon
    if check_result.well_formed:
        lb = lower_bound.search(dipa, check_result, upper if upper is not None else check_result.weight,
                                SEARCH_SECONDS)
        if lb.cut_short and notes is not None:
            notes.append("the search for the lower bound's witness was cut short by its time limit, so "
                         "another run may audit other inputs: fix them with --pair")
        if lb.witness is not None:
            w = lb.witness
            pairs.append(Pair("lower-bound witness", [s.input for s in w.alpha if s.input is not None],
                              [s.input for s in w.beta if s.input is not None]))
            chosen = chosen or w.epsilon
    else:
        from dslc.dipa.witness import build_witnesses
        for k, outcome in enumerate(build_witnesses(dipa, check_result, epsilon)):
            if outcome.shown is None:
                continue
            inst = outcome.shown.instance
            pairs.append(Pair(f"witness of {outcome.violation.kind}", inst.alpha_inputs, inst.beta_inputs))
            chosen = chosen or outcome.witness.epsilon
            if len(pairs) >= 2:
                break
    # shorter pairs carry less loss but at far larger probabilities: the first
    # m − 1 inputs and the last (the witness's final step), and the first half
    for p in list(pairs):
        n = len(p.alpha)
        for m in sorted({3, n // 2}):
            if 2 <= m < n:
                pairs.append(Pair(f"{p.origin}, first {m - 1} inputs and the last",
                                  p.alpha[:m - 1] + p.alpha[-1:], p.beta[:m - 1] + p.beta[-1:]))
        if 2 <= n // 2 < n:
            pairs.append(Pair(f"{p.origin}, first {n // 2} inputs", p.alpha[:n // 2], p.beta[:n // 2]))
    return pairs, chosen or Fraction(1)


def extra_inputs(dipa: DiPA, pairs: list[Pair], seed: int) -> list[tuple[str, list[Fraction]]]:
    """Inputs at the other side of the guards' boundaries (the witness shifted
    by −Δ) and one random sequence (centre + kΔ/2, k uniform in −4..4)."""
    delta = dipa.sensitivity
    base = pairs[0].alpha if pairs else [Fraction(0)] * 8
    out = [("witness shifted by −Δ", [a - delta for a in base])]
    rng = random.Random(seed)
    out.append(("random", [a + delta * Fraction(rng.randint(-4, 4), 2) for a in base]))
    return out


# ---------------------------------------------------------------------------
# events

@dataclass
class Event:
    keys: frozenset
    model_alpha: float
    model_beta: float


def choose_event(law_a: Law, law_b: Law, n: int, z: float) -> Event | None:
    """The set of output sequences E that gives the largest expected lower
    bound of ln(Pr_α[E]/Pr_β[E]) from n samples of each side (normal
    approximation to the one-sided bounds at z): the sequences are taken in
    decreasing order of the model's ratio, and the best prefix is kept."""
    keys = set(law_a.probs) | set(law_b.probs)
    ranked = sorted(keys, key=lambda k: (-_log_ratio(law_a.p(k), law_b.p(k)), k))
    best, best_score = None, -math.inf
    pa = pb = 0.0
    chosen: list = []
    for k in ranked:
        pa += law_a.p(k)
        pb += law_b.p(k)
        chosen.append(k)
        if pa <= 0:
            continue
        qa, qb = min(pa, 1.0), min(pb, 1.0)
        lo = qa - z * math.sqrt(qa * (1 - qa) / n)
        hi = qb + z * math.sqrt(max(qb, 1.0 / n) * (1 - min(qb, 0.5)) / n) + 1.0 / n
        if lo <= 0:
            continue
        score = math.log(lo / hi)
        if score > best_score:
            best, best_score = Event(frozenset(chosen), pa, pb), score
    return best


def _log_ratio(a: float, b: float) -> float:
    if a <= 0:
        return -math.inf
    if b <= 0:
        return math.inf
    return math.log(a / b)


def key_text(key: tuple) -> str:
    return " ".join(key) if key else "()"


def parse_event(text: str) -> frozenset:
    """``--event``: output sequences separated by `|`, symbols by spaces
    (`bot`/`top` for ⊥/⊤, `R` or `ℝ` for a real output, `()` for no output)."""
    from dslc.dipa.paths import SYMBOL_ALIASES, PathTextError
    keys = set()
    for part in text.split("|"):
        words = part.split()
        if words == ["()"]:
            words = []
        elif not words:
            raise PathTextError(f"--event `{text}` has an empty sequence",
                                "write `()` for the sequence with no output")
        keys.add(tuple(REAL if w in ("R", REAL) else SYMBOL_ALIASES.get(w, w) for w in words))
    return frozenset(keys)


def event_text(keys) -> str:
    return " | ".join(sorted(key_text(k) for k in keys))


# ---------------------------------------------------------------------------
# alternative models, for the diagnosis of a deviation

SCALES = (Fraction(1, 4), Fraction(1, 2), Fraction(2), Fraction(4))


@dataclass
class Alternative:
    description: str            # "the draws of state q1 (line 11) at Lap(ε/2) instead of Lap(ε/4)"
    dipa: DiPA


def alternatives(dipa: DiPA, source_line=None) -> list[Alternative]:
    """The model with one state's noise rate scaled by 1/4, 1/2, 2 or 4, and
    the model with a stored value drawn again before every step that the
    model runs with the value it drew once (a threshold redrawn every turn)."""
    out = _redrawn(dipa, source_line)
    for i, s in enumerate(dipa.states):
        for attr, span_attr, what in (("d", "draw_span", "draw"), ("d_prime", "prime_span", "second draw")):
            d = getattr(s, attr)
            if d <= 0:
                continue
            where = f"state `{s.name}`"
            span = getattr(s, span_attr)
            if span is not None and source_line is not None:
                where += f", line {source_line(span)}"
            for f in SCALES:
                states = list(dipa.states)
                states[i] = replace(s, **{attr: d * f})
                alt = replace(dipa, states=states)
                out.append(Alternative(f"the {what} of {where} is Lap({fmt_rate(d * f)}), "
                                       f"the model says Lap({fmt_rate(d)})", alt))
    return out


def _redrawn(dipa: DiPA, source_line) -> list[Alternative]:
    """For a silent storing transition p → q of a state p that reads no
    input: every other transition into q that does not store goes to p
    instead, so p draws and stores a fresh value before each step of q."""
    out = []
    for e, st in enumerate(dipa.transitions):
        p = dipa.states[st.source]
        if not st.store or p.is_input or st.output.is_real or st.output.symbol:
            continue
        moved = [k for k, t in enumerate(dipa.transitions)
                 if k != e and t.target == st.target and not t.store and t.source != st.source]
        if not moved:
            continue
        transitions = list(dipa.transitions)
        for k in moved:
            transitions[k] = replace(transitions[k], target=st.source)
        where = f"state `{p.name}`"
        if p.draw_span is not None and source_line is not None:
            where += f", line {source_line(p.draw_span)}"
        q = dipa.states[st.target].name
        out.append(Alternative(f"the value stored by {where} (Lap({fmt_rate(p.d)})) is drawn again before "
                               f"every step of state `{q}`; the model draws it once",
                               replace(dipa, transitions=transitions)))
    return out


def fmt_inputs(inputs: list[Fraction]) -> str:
    return ",".join(fmt_fraction(Fraction(a)) for a in inputs)
