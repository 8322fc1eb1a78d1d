"""An interpreter of the DiPA IR: run the mechanism once on given inputs.

Semantics (Section III of the DiPA paper): in each step the current state
draws insample ~ Lap(dε, μ + a) and insample′ ~ Lap(d′ε, μ′ + a), where a
is the next input for an input state and 0 for a non-input state; the
enabled transition (guard `true`, `insample >= x` or `insample < x`) is
taken, its output emitted, and `x := insample` when it stores.  An automaton
with several variables (:class:`~dslc.ir.multi_dipa.MultiDiPA`) runs the
same way, its guards conjunctions and its stores sets of variables.  The run
stops when an input state finds no input left, when no transition is
enabled, or at a state without transitions.  Draws come from a
:class:`Noise` source: standard Laplace samples (from a seeded
:class:`random.Random`, by inverting the distribution function) converted
exactly to rationals, so every value and comparison after them is exact.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction

from dslc.ir.dipa import DiPA, Guard, OutKind
from dslc.ir.multi_dipa import GE, MultiDiPA

MAX_SILENT_STEPS = 10_000      # steps without reading input before the run is cut


class RunError(ValueError):
    """The mechanism cannot be run (a draw of rate 0 is needed)."""


@dataclass
class RunResult:
    outputs: list[str | Fraction]        # symbols ("" for silent) and real values (exact)
    transitions: list[int]
    states: list[str]                    # the states visited, from the initial one
    inputs_used: int
    stopped: str                         # why the run ended
    cut: bool = False                    # stopped by the step limit, not by the automaton


NO_VALUE = None      # the "value" of a draw of rate 0 (no distribution): an error when used


class Noise:
    """Standard Laplace samples u (density ½·e^{−|u|}) as exact rationals, in order.

    A draw Lap(dε, μ) is μ + u/(dε).  The automaton interpreter below and the
    direct interpreter of mechanisms (:mod:`dslc.dipa.interpret`) take their
    draws from this source one at a time, in the order they draw, so the two
    can be run on the *same* draws and compared exactly.  A float sample is
    converted to a Fraction exactly, so all arithmetic after it is exact."""

    def __init__(self, rng: random.Random | None = None, samples: list | None = None):
        self.rng = rng if rng is not None else random.Random()
        self.samples = list(samples) if samples is not None else None
        self.used = 0

    def next(self) -> Fraction:
        self.used += 1
        if self.samples is not None:
            return Fraction(self.samples[self.used - 1])
        while True:
            u = self.rng.random() - 0.5          # in [−½, ½)
            if u != -0.5:
                break
        mag = -math.log(1.0 - 2.0 * abs(u))
        return Fraction(mag if u >= 0 else -mag)


def laplace(rng: random.Random, rate: float, mean: float) -> float:
    """A float draw from Lap(rate, mean): density rate/2 · e^{−rate|z − mean|}."""
    return mean + float(Noise(rng).next()) / rate


def run_once(dipa: DiPA, inputs: list[Fraction], epsilon: Fraction, rng: random.Random | Noise,
             max_steps: int = MAX_SILENT_STEPS) -> RunResult:
    """One run on ``inputs``: exact rational values, draws from ``rng`` (a
    :class:`Noise`, or a :class:`random.Random` to make one).  insample is drawn
    in every step of a state with a positive rate; insample′ only when the
    transition taken outputs it (it is independent of everything else, so
    drawing it only then changes no distribution)."""
    noise = rng if isinstance(rng, Noise) else Noise(rng)
    eps = Fraction(epsilon)
    edges = dipa.out_edges()
    q = dipa.initial
    several = isinstance(dipa, MultiDiPA)     # several variables: x maps each variable to its value
    x = {} if several else NO_VALUE
    pos = 0
    silent = 0
    res = RunResult([], [], [dipa.states[q].name], 0, "")
    while True:
        state = dipa.states[q]
        out = edges[q]
        if not out:
            res.stopped = f"state `{state.name}` has no transition"
            break
        if state.is_input:
            if pos >= len(inputs):
                res.stopped = "the input is used up"
                break
            a = Fraction(inputs[pos])
            pos += 1
            silent = 0
        else:
            a = Fraction(0)
            silent += 1
            if silent > max_steps:
                res.stopped = f"cut after {max_steps} steps that read no input"
                res.cut = True
                break
        d = Fraction(state.d)
        insample = state.mu + a + noise.next() / (d * eps) if d > 0 else NO_VALUE
        taken = None
        for e in out:
            t = dipa.transitions[e]
            if several:
                if _holds(t.guard, insample, x, state.name):
                    taken = e
                    break
                continue
            if t.guard is Guard.TRUE:
                taken = e
                break
            if insample is NO_VALUE or x is NO_VALUE:
                raise RunError(f"state `{state.name}` compares insample with x, but "
                               + ("its draw has rate 0" if insample is NO_VALUE else "x holds no value"))
            if (t.guard is Guard.GE) == (insample >= x):
                taken = e
                break
        if taken is None:
            res.stopped = f"no transition of `{state.name}` is enabled"
            break
        t = dipa.transitions[taken]
        if t.output.kind is OutKind.INSAMPLE:
            if insample is NO_VALUE:
                raise RunError(f"state `{state.name}` outputs insample, but its draw has rate 0")
            res.outputs.append(insample)
        elif t.output.kind is OutKind.INSAMPLE_PRIME:
            dp = Fraction(state.d_prime)
            if dp <= 0:
                raise RunError(f"state `{state.name}` outputs insample′, but its rate is 0")
            res.outputs.append(state.mu_prime + a + noise.next() / (dp * eps))
        else:
            res.outputs.append(t.output.symbol or "")
        if several:
            for v in t.assigns:
                x[v] = insample
        elif t.store:
            x = insample
        res.transitions.append(taken)
        q = t.target
        res.states.append(dipa.states[q].name)
    res.inputs_used = pos
    return res


def _holds(guard, insample, values: dict, state: str) -> bool:
    """A conjunctive guard of a :class:`MultiDiPA` transition, exactly."""
    for lit in guard:
        if insample is NO_VALUE:
            raise RunError(f"state `{state}` compares insample, but its draw has rate 0")
        if lit.var not in values:
            raise RunError(f"state `{state}` compares insample with `{lit.var}`, which holds no value")
        if (lit.op == GE) != (insample >= values[lit.var]):
            return False
    return True


@dataclass
class Histogram:
    counts: dict[tuple, int] = field(default_factory=dict)
    samples: int = 0

    def add(self, outputs: list) -> None:
        key = tuple("ℝ" if not isinstance(o, str) else o for o in outputs)
        self.counts[key] = self.counts.get(key, 0) + 1
        self.samples += 1

    def rows(self) -> list[tuple[tuple, int]]:
        return sorted(self.counts.items(), key=lambda kv: (-kv[1], kv[0]))


def sample(dipa: DiPA, inputs: list[Fraction], epsilon: Fraction, samples: int,
           seed: int | None = None) -> Histogram:
    """Run ``samples`` times; real outputs are counted as `ℝ`."""
    rng = random.Random(seed)
    hist = Histogram()
    for _ in range(samples):
        hist.add(run_once(dipa, inputs, epsilon, rng).outputs)
    return hist


def path_frequency(dipa: DiPA, steps, epsilon: Fraction, samples: int, seed: int | None = None) -> float:
    """Fraction of runs on the path's inputs that follow the path (its
    transitions, and real outputs inside their intervals): a Monte Carlo
    estimate of Pr[ε, ρ], for cross-checks where the probability is not tiny."""
    rng = random.Random(seed)
    inputs = [s.input for s in steps if s.input is not None]
    hits = 0
    for _ in range(samples):
        res = run_once(dipa, inputs, epsilon, rng)
        if len(res.transitions) < len(steps):
            continue
        ok = True
        for k, s in enumerate(steps):
            if res.transitions[k] != s.transition:
                ok = False
                break
            if s.interval is not None:
                lo, hi = s.interval
                v = res.outputs[k]
                if (lo is not None and not v > lo) or (hi is not None and not v < hi):
                    ok = False
                    break
        hits += ok
    return hits / samples
