"""One chunk of samples, run in a worker process (or a Ray/Dask worker).

A chunk is identified by (seed, stream, index): ``stream`` numbers the input
sequence, ``index`` the chunk.  Its generator is seeded with
``numpy.random.SeedSequence(seed, spawn_key=(stream, index))`` — the child
that ``SeedSequence(seed).spawn`` gives for ``stream``, spawned again for
``index`` — so a chunk draws the same numbers wherever and whenever it runs,
and the merged result (chunks in index order) does not depend on how many
processes or machines ran them.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from dslc.audit.spec import REAL, Adapter, FunctionSpec, ImplError, load_function, to_model

MAX_REALS = 5_000          # real values kept per output position and chunk


@dataclass
class ChunkResult:
    stream: int
    index: int
    samples: int
    counts: dict = field(default_factory=dict)     # key -> count
    reals: dict = field(default_factory=dict)      # (key, position) -> [float]
    seconds: float = 0.0
    error: str | None = None
    event_hits: int = 0                            # runs whose outputs are in the given event


@dataclass(frozen=True)
class ImplTask:
    impl: FunctionSpec
    adapter: Adapter
    inputs: tuple            # floats
    epsilon: float
    seed: int
    event: FunctionSpec | None = None     # `--event-function`: event(returned, epsilon) -> bool


@dataclass(frozen=True)
class ModelTask:
    dipa: object             # dslc.ir.dipa.DiPA
    program: object          # the mechanism's AST (runs as written) or None (the automaton runs)
    inputs: tuple            # Fractions
    epsilon: object          # Fraction
    seed: int


def seed_sequence(seed: int, stream: int, index: int):
    import numpy as np
    return np.random.SeedSequence(seed, spawn_key=(stream, index))


def _record(res: ChunkResult, key: tuple, reals: list[float]) -> None:
    res.counts[key] = res.counts.get(key, 0) + 1
    if reals:
        j = 0
        for pos, sym in enumerate(key):
            if sym == REAL:
                bucket = res.reals.setdefault((key, pos), [])
                if len(bucket) < MAX_REALS:
                    bucket.append(reals[j])
                j += 1


def impl_chunk(task: ImplTask, stream: int, index: int, size: int) -> ChunkResult:
    """``size`` runs of the implementation on ``task.inputs``."""
    import numpy as np

    res = ChunkResult(stream, index, size)
    start = time.perf_counter()
    try:
        fn = load_function(task.impl)
        event = load_function(task.event) if task.event is not None else None
        rng = np.random.Generator(np.random.PCG64(seed_sequence(task.seed, stream, index)))
        inputs = list(task.inputs)
        for _ in range(size):
            try:
                returned = fn(list(inputs), rng, task.epsilon)
            except Exception as exc:  # noqa: BLE001 - the user's code
                raise ImplError(f"the implementation raised {type(exc).__name__}: {exc}") from None
            key, reals = to_model(returned, task.adapter)
            _record(res, key, reals)
            if event is not None:
                try:
                    res.event_hits += bool(event(returned, task.epsilon))
                except Exception as exc:  # noqa: BLE001 - the user's code
                    raise ImplError(f"the event function raised {type(exc).__name__}: {exc}") from None
    except ImplError as exc:
        res.error = str(exc)
    res.seconds = time.perf_counter() - start
    return res


def model_outputs(outputs) -> tuple[tuple, list[float]]:
    key, reals = [], []
    for o in outputs:
        if isinstance(o, str):
            if o:
                key.append(o)
        else:
            key.append(REAL)
            reals.append(float(o))
    return tuple(key), reals


def model_chunk(task: ModelTask, stream: int, index: int, size: int) -> ChunkResult:
    """``size`` runs of the model (`dslc run`'s interpreter) on ``task.inputs``."""
    import random

    from dslc.dipa.interpret import run_program
    from dslc.dipa.sampler import Noise, run_once

    res = ChunkResult(stream, index, size)
    start = time.perf_counter()
    state = seed_sequence(task.seed, stream, index).generate_state(4)
    rng = random.Random(int.from_bytes(bytes(state.view("uint8")), "little"))
    inputs = list(task.inputs)
    for _ in range(size):
        if task.program is not None:
            run = run_program(task.program, inputs, task.epsilon, Noise(rng))
        else:
            run = run_once(task.dipa, inputs, task.epsilon, Noise(rng))
        key, reals = model_outputs(run.outputs)
        _record(res, key, reals)
    res.seconds = time.perf_counter() - start
    return res
