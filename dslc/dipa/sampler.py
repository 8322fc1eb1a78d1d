"""An interpreter of the DiPA IR: run the mechanism once on given inputs.

Semantics (Section III of the DiPA paper): in each step the current state
draws insample ~ Lap(dε, μ + a) and insample′ ~ Lap(d′ε, μ′ + a), where a
is the next input for an input state and 0 for a non-input state; the
enabled transition (guard `true`, `insample >= x` or `insample < x`) is
taken, its output emitted, and `x := insample` when it stores.  The run
stops when an input state finds no input left, when no transition is
enabled, or at a state without transitions.  Draws are reals: they are
Python floats (inherently real quantities), made from a seeded
:class:`random.Random` by inverting the Laplace distribution function.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from fractions import Fraction

from dslc.ir.dipa import DiPA, Guard, OutKind

MAX_SILENT_STEPS = 10_000      # steps without reading input before the run is cut


class RunError(ValueError):
    """The mechanism cannot be run (a draw of rate 0 is needed)."""


@dataclass
class RunResult:
    outputs: list[str | float]           # symbols ("" for silent) and real values
    transitions: list[int]
    states: list[str]                    # the states visited, from the initial one
    inputs_used: int
    stopped: str                         # why the run ended


def laplace(rng: random.Random, rate: float, mean: float) -> float:
    """A draw from Lap(rate, mean): density rate/2 · e^{−rate|z − mean|}."""
    u = rng.random() - 0.5              # in [−½, ½)
    mag = -math.log(1.0 - 2.0 * abs(u)) / rate if u != -0.5 else math.inf
    return mean + (mag if u >= 0 else -mag)


def run_once(dipa: DiPA, inputs: list[Fraction], epsilon: Fraction, rng: random.Random) -> RunResult:
    eps = float(epsilon)
    edges = dipa.out_edges()
    q = dipa.initial
    x: float | None = None
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
            a = float(inputs[pos])
            pos += 1
            silent = 0
        else:
            a = 0.0
            silent += 1
            if silent > MAX_SILENT_STEPS:
                res.stopped = f"cut after {MAX_SILENT_STEPS} steps that read no input"
                break
        d = Fraction(state.d)
        insample = laplace(rng, float(d) * eps, float(state.mu) + a) if d > 0 else None
        insample_p = None
        if Fraction(state.d_prime) > 0:
            insample_p = laplace(rng, float(state.d_prime) * eps, float(state.mu_prime) + a)
        taken = None
        for e in out:
            t = dipa.transitions[e]
            if t.guard is Guard.TRUE:
                taken = e
                break
            if insample is None or x is None:
                raise RunError(f"state `{state.name}` compares insample with x, but "
                               + ("its draw has rate 0" if insample is None else "x holds no value yet"))
            if (t.guard is Guard.GE) == (insample >= x):
                taken = e
                break
        if taken is None:
            res.stopped = f"no transition of `{state.name}` is enabled"
            break
        t = dipa.transitions[taken]
        if t.output.kind is OutKind.INSAMPLE or (t.store and insample is None):
            if insample is None:
                raise RunError(f"state `{state.name}` uses insample, but its draw has rate 0")
        if t.output.kind is OutKind.INSAMPLE:
            res.outputs.append(insample)
        elif t.output.kind is OutKind.INSAMPLE_PRIME:
            if insample_p is None:
                raise RunError(f"state `{state.name}` outputs insample′, but its rate is 0")
            res.outputs.append(insample_p)
        else:
            res.outputs.append(t.output.symbol or "")
        if t.store:
            x = insample
        res.transitions.append(taken)
        q = t.target
        res.states.append(dipa.states[q].name)
    res.inputs_used = pos
    return res


@dataclass
class Histogram:
    counts: dict[tuple, int] = field(default_factory=dict)
    samples: int = 0

    def add(self, outputs: list) -> None:
        key = tuple("ℝ" if isinstance(o, float) else o for o in outputs)
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
