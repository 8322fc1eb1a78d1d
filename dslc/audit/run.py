"""An audit from start to end: plan, sample in chunks, test, report.

Levels.  The audit's overall false-alarm level is ``alpha`` (default 0.05):
half for conformance (α_conf), half for privacy (α_priv).  Samples are
looked at four times (after 1/8, 1/4, 1/2 and all of the sample budget);
look k spends the share :data:`SPENDING`[k] of each half (1/8, 1/8, 1/4,
1/2: Bonferroni over the looks, an alpha-spending plan fixed in advance), so
stopping at the first look that is decisive is sound.  Within a look the
conformance p-values are corrected by Holm's method; each privacy bound is a
pair of one-sided Clopper–Pearson bounds at α_priv·share/(2·P) for the
P = 4 × pairs events fixed in advance (per pair: both directions, and for
each the event the model's exact probabilities choose and the event chosen
on separate selection samples), so all of them hold together with
confidence 1 − α_priv.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from dslc.audit import model as M
from dslc.audit import stats
from dslc.audit.spec import Adapter, FunctionSpec
from dslc.audit.worker import ChunkResult, ImplTask, ModelTask, impl_chunk, model_chunk

LOOK_AT = (1, 2, 4, 8)       # looks after 1/8, 1/4, 1/2 and all of the sample budget
SPENDING = (Fraction(1, 8), Fraction(1, 8), Fraction(1, 4), Fraction(1, 2))   # share of α spent at each look
SELECT_STREAM = 2_000        # the selection samples' streams are numbered from here
MODEL_SAMPLES = 10_000       # most model samples per input (for the two-sample tests of real outputs)
MODEL_STREAM = 1_000         # model streams are numbered from here


class AuditError(Exception):
    """The audit could not run (exit 2): the message says why."""


@dataclass
class Options:
    impl: FunctionSpec
    adapter: Adapter
    samples: int = 100_000          # per input sequence
    chunk: int = 1_000
    seed: int = 0
    alpha: float = 0.05
    epsilon: Fraction | None = None
    time_budget: float = 600.0
    executor: str | None = None
    jobs: int = 1
    fail_fast: bool = False      # stop at the first look with any failure (not only a privacy one)
    pair: tuple | None = None    # (α, β) given by the user: only these inputs are audited
    event: frozenset | None = None   # the event given by the user (with ``pair``)
    event_function: FunctionSpec | None = None   # or a predicate on what the implementation returns


@dataclass
class Stream:
    index: int
    inputs: list[Fraction]
    roles: list[str]
    law: M.Law | None = None
    counts: dict = field(default_factory=dict)
    reals: dict = field(default_factory=dict)
    model_reals: dict = field(default_factory=dict)
    n: int = 0
    model_n: int = 0
    event_hits: int = 0


@dataclass
class Conformance:
    stream: int
    inputs: str
    roles: list[str]
    test: str                      # "G-test", "two-sample KS at output k of …"
    samples: int
    p_value: float
    adjusted: float = 1.0
    rejected: bool = False
    worst: list = field(default_factory=list)    # [(sequence, observed, expected)] largest deviations

    def to_json(self) -> dict:
        return {"inputs": self.inputs, "roles": self.roles, "test": self.test, "samples": self.samples,
                "p_value": self.p_value, "p_adjusted": self.adjusted, "rejected": self.rejected,
                "largest_deviations": [{"outputs": s, "observed": o, "expected": e} for s, o, e in self.worst]}


@dataclass
class Privacy:
    origin: str
    alpha: str
    beta: str
    event: list[str]               # output sequences
    samples: int
    k_alpha: int
    k_beta: int
    model_alpha: float | None      # the model's exact Pr (None: an event given as a function)
    model_beta: float | None
    epsilon_lower: float           # lower bound on the implementation's ε / audit ε (units of ε)
    confidence: float
    exceeds: bool = False
    reproduce: str = ""            # a command that audits this pair and event alone

    def to_json(self) -> dict:
        return {"origin": self.origin, "alpha": self.alpha, "beta": self.beta, "event": self.event,
                "samples": self.samples, "hits_alpha": self.k_alpha, "hits_beta": self.k_beta,
                "model_pr_alpha": self.model_alpha, "model_pr_beta": self.model_beta,
                "d_lower": self.epsilon_lower, "confidence": self.confidence, "exceeds": self.exceeds,
                "reproduce": self.reproduce}


@dataclass
class AuditReport:
    file: str
    block: str
    impl: str
    adapter: str
    epsilon: Fraction
    seed: int
    alpha: float
    event_function: str | None = None
    verdict: str = "pass"            # "pass", "fail", "inconclusive"
    reasons: list[str] = field(default_factory=list)
    model_d: Fraction | None = None   # the model's proven d (None: not private)
    budget: Fraction | None = None
    threshold: Fraction | None = None  # the d the implementation must not exceed
    conformance: list[Conformance] = field(default_factory=list)
    privacy: list[Privacy] = field(default_factory=list)
    diagnosis: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    samples_per_input: int = 0
    samples_planned: int = 0
    samples_total: int = 0
    looks: int = 0
    stopped_early: bool = False
    timed_out: bool = False
    executor: str = "local"
    workers: int = 1
    seconds: float = 0.0
    worker_seconds: float = 0.0
    reproduce: str = ""

    @property
    def samples_per_second(self) -> float:
        return self.samples_total / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict:
        from dslc.numbers import fmt_fraction
        f = lambda v: None if v is None else fmt_fraction(v)  # noqa: E731
        return {
            "file": self.file, "block": self.block, "impl": self.impl, "adapter": self.adapter,
            "epsilon": fmt_fraction(self.epsilon), "seed": self.seed, "alpha": self.alpha,
            "event_function": self.event_function,
            "verdict": self.verdict, "reasons": self.reasons,
            "model_d": f(self.model_d), "budget": f(self.budget), "d_limit": f(self.threshold),
            "conformance": [c.to_json() for c in self.conformance],
            "privacy": [p.to_json() for p in self.privacy],
            "diagnosis": self.diagnosis, "notes": self.notes,
            "samples_per_input": self.samples_per_input, "samples_planned": self.samples_planned,
            "samples": self.samples_total, "looks": self.looks, "stopped_early": self.stopped_early,
            "timed_out": self.timed_out, "executor": self.executor, "workers": self.workers,
            "seconds": round(self.seconds, 3), "samples_per_second": round(self.samples_per_second, 1),
            "reproduce": self.reproduce,
        }


def _plan_streams(pairs: list[M.Pair], extra) -> tuple[list[Stream], list[tuple[M.Pair, int, int]]]:
    streams: list[Stream] = []
    by_inputs: dict[tuple, Stream] = {}

    def stream_of(inputs, role) -> int:
        key = tuple(inputs)
        s = by_inputs.get(key)
        if s is None:
            s = by_inputs[key] = Stream(len(streams), list(inputs), [])
            streams.append(s)
        if role not in s.roles:
            s.roles.append(role)
        return s.index

    links = []
    for p in pairs:
        a = stream_of(p.alpha, f"α of {p.origin}")
        b = stream_of(p.beta, f"β of {p.origin}")
        links.append((p, a, b))
    for role, inputs in extra:
        stream_of(inputs, role)
    return streams, links


def audit(path: str, chosen, options: Options, progress=None, source_line=None, executor=None) -> AuditReport:
    """Audit ``options.impl`` against the checked block ``chosen`` (a BlockResult
    of a DiPA block).  ``progress(done, total, samples_per_second)`` is called
    as chunks come back.  ``executor`` (optional) is one to reuse; it is then
    not closed."""
    from dslc.audit.executor import ExecutorError, make_executor
    from dslc.dipa import budget as budgets

    dipa, found = chosen.ir, chosen.analysis
    program = chosen.syntax if chosen.kind == "mechanism" else None
    upper = found.weight * dipa.sensitivity if found.well_formed else None
    notes: list[str] = []
    if options.pair is not None:
        pairs, eps = [M.Pair("given pair", list(options.pair[0]), list(options.pair[1]))], options.epsilon
    else:
        pairs, eps = M.pairs_of(dipa, found, upper, options.epsilon, notes)
    eps = options.epsilon or eps or Fraction(1)
    budget = budgets.effective_budget(dipa, None)
    limit = None
    if upper is not None:
        limit = upper if budget is None else min(upper, budget.limit)
    elif budget is not None:
        limit = budget.limit
    report = AuditReport(path, chosen.name, options.impl.text, options.adapter.text, eps, options.seed,
                         options.alpha, options.event_function.text if options.event_function else None,
                         model_d=upper, budget=budget.limit if budget else None,
                         threshold=limit, samples_per_input=options.samples, notes=notes)
    extra = M.extra_inputs(dipa, pairs, options.seed) if options.pair is None else []
    streams, links = _plan_streams(pairs, extra)
    for s in streams:
        s.law = M.law(dipa, s.inputs, eps)
    reals = M.has_real_outputs(dipa)

    n_total = options.samples
    chunks_total = math.ceil(n_total / options.chunk)
    looks = [max(1, math.ceil(chunks_total * k / 8)) for k in LOOK_AT]
    a_conf, a_priv = options.alpha / 2, options.alpha / 2
    n_events = 2 * 2 * len(links)          # per pair: 2 directions × (model's event, data's event)
    given = options.event is not None or options.event_function is not None
    if given:
        n_events = 1
    z = _z(a_priv * SPENDING[-1] / (2 * max(1, n_events)))
    events = []
    if options.event is not None:
        p, a, b = links[0]
        keys = frozenset(options.event)
        events.append((p, "α/β", a, b, M.Event(keys, streams[a].law.p_of(keys), streams[b].law.p_of(keys)),
                       "given"))
    elif options.event_function is not None:
        p, a, b = links[0]
        events.append((p, "α/β", a, b, M.Event(frozenset(), None, None), "function"))
    for p, a, b in (links if not given else []):
        for direction, (x, y) in (("α/β", (a, b)), ("β/α", (b, a))):
            ev = M.choose_event(streams[x].law, streams[y].law, n_total, z)
            if ev is not None:
                events.append((p, direction, x, y, ev, "model"))
    pair_streams = sorted({i for _, a, b in links for i in (a, b)}) if not given else []
    select_chunks = math.ceil(max(1, n_total // 8) / options.chunk)
    report.samples_planned = n_total * len(streams) + select_chunks * options.chunk * len(pair_streams)

    def size(c: int) -> int:
        return min(options.chunk, n_total - c * options.chunk)

    start = time.perf_counter()
    deadline = start + options.time_budget
    own = executor is None
    try:
        executor = executor or make_executor(options.executor, options.jobs)
    except ExecutorError as exc:
        raise AuditError(str(exc)) from None
    report.executor, report.workers = executor.name, executor.workers
    float_inputs = [tuple(float(a) for a in s.inputs) for s in streams]
    impl_tasks = [ImplTask(options.impl, options.adapter, float_inputs[s.index], float(eps), options.seed,
                           options.event_function) for s in streams]
    model_tasks = [ModelTask(dipa, program, tuple(s.inputs), eps, options.seed) for s in streams]
    model_chunks = math.ceil(min(n_total, MODEL_SAMPLES) / options.chunk)
    done = {"samples": 0}

    def collect(handles) -> list[ChunkResult] | None:
        """The chunks' results, or None when the time budget ran out."""
        results = []
        for h in handles:
            remaining = deadline - time.perf_counter()
            try:
                res = executor.result(h, timeout=max(remaining, 0.001))
            except Exception as exc:  # noqa: BLE001 - a worker or cluster failure, or the time budget
                if "timeout" in type(exc).__name__.lower() or remaining <= 0:
                    for other in handles:
                        executor.cancel(other)
                    report.timed_out = True
                    return None
                raise AuditError(f"a worker failed: {type(exc).__name__}: {exc}") from None
            if res.error:
                raise AuditError(f"on inputs {M.fmt_inputs(streams[res.stream % MODEL_STREAM].inputs)}: "
                                 f"{res.error}")
            results.append(res)
            report.worker_seconds += res.seconds
            if res.stream < MODEL_STREAM or res.stream >= SELECT_STREAM:
                done["samples"] += res.samples
                if progress is not None:
                    elapsed = time.perf_counter() - start
                    progress(done["samples"], report.samples_planned,
                             done["samples"] / elapsed if elapsed else 0.0)
        return sorted(results, key=lambda r: (r.stream, r.index))

    try:
        # selection: fresh samples of the pairs' inputs, used only to choose a
        # second event per pair and direction (never in its estimate)
        handles = [executor.submit(impl_chunk, impl_tasks[i], SELECT_STREAM + i, c,
                                   min(options.chunk, max(1, n_total // 8) - c * options.chunk))
                   for i in pair_streams for c in range(select_chunks)]
        results = collect(handles)
        if results is not None and not given:
            seen: dict[int, tuple[dict, int]] = {}
            for res in results:
                counts, n = seen.get(res.stream - SELECT_STREAM, ({}, 0))
                for key, c in res.counts.items():
                    counts[key] = counts.get(key, 0) + c
                seen[res.stream - SELECT_STREAM] = (counts, n + res.samples)
            for p, a, b in links:
                for direction, (x, y) in (("α/β", (a, b)), ("β/α", (b, a))):
                    ev = M.choose_event(M.empirical(*seen[x]), M.empirical(*seen[y]), n_total, z)
                    if ev is not None:
                        ev = M.Event(ev.keys, streams[x].law.p_of(ev.keys), streams[y].law.p_of(ev.keys))
                        if not any(e[2:5] == (x, y, ev) for e in events):
                            events.append((p, direction, x, y, ev, "data"))
        done_chunks = 0
        for look_no, upto in enumerate(looks):
            if report.timed_out:
                break
            handles = []
            for st in streams:
                for c in range(done_chunks, upto):
                    handles.append(executor.submit(impl_chunk, impl_tasks[st.index], st.index, c, size(c)))
                    if reals and c < model_chunks:
                        handles.append(executor.submit(model_chunk, model_tasks[st.index],
                                                       MODEL_STREAM + st.index, c, size(c)))
            results = collect(handles)
            if results is None:
                break
            for res in results:
                model_side = res.stream >= MODEL_STREAM
                st = streams[res.stream - MODEL_STREAM if model_side else res.stream]
                if model_side:
                    st.model_n += res.samples
                    _merge_reals(st.model_reals, res.reals)
                else:
                    st.n += res.samples
                    st.event_hits += res.event_hits
                    for key, c in res.counts.items():
                        st.counts[key] = st.counts.get(key, 0) + c
                    _merge_reals(st.reals, res.reals)
            done_chunks = upto
            report.looks = look_no + 1
            _evaluate(report, streams, events, a_conf * SPENDING[look_no], a_priv * SPENDING[look_no],
                      max(1, n_events), eps, limit)
            decisive = any(p.exceeds for p in report.privacy) or (options.fail_fast and report.verdict == "fail")
            if decisive:
                report.stopped_early = upto < chunks_total
                break
    finally:
        if own:
            executor.close(now=report.timed_out)
    report.samples_total = sum(st.n for st in streams)
    report.seconds = time.perf_counter() - start
    if report.timed_out and report.verdict != "fail":
        report.verdict = "inconclusive"
        report.reasons.append(f"the time budget ran out after {report.samples_total} of "
                              f"{report.samples_planned} samples")
    if any(c.rejected for c in report.conformance):
        report.diagnosis = _diagnose(dipa, streams, report, a_conf * SPENDING[max(0, report.looks - 1)],
                                     source_line)
    return report


def _merge_reals(into: dict, new: dict) -> None:
    for k, values in new.items():
        bucket = into.setdefault(k, [])
        bucket.extend(values)


def _z(alpha: float) -> float:
    from scipy.stats import norm
    return float(norm.isf(alpha))


def _evaluate(report: AuditReport, streams, events, a_conf: float, a_priv: float, n_events: int,
              eps: Fraction, limit: Fraction | None) -> None:
    conf: list[Conformance] = []
    for s in streams:
        p, _, _ = stats.g_test(s.counts, s.law.probs, s.law.rest, s.n)
        worst = sorted(((M.key_text(k), s.counts.get(k, 0), s.law.p(k) * s.n)
                        for k in set(s.law.probs) | set(s.counts)),
                       key=lambda r: -abs(r[1] - r[2]) / math.sqrt(max(r[2], 1.0)))[:3]
        conf.append(Conformance(s.index, M.fmt_inputs(s.inputs), s.roles, "G-test of the output sequences",
                                s.n, p, worst=[(a, b, round(c, 1)) for a, b, c in worst]))
        for (key, pos), values in sorted(s.reals.items()):
            p = stats.two_sample(values, s.model_reals.get((key, pos), []))
            if p is not None:
                conf.append(Conformance(s.index, M.fmt_inputs(s.inputs), s.roles,
                                        f"two-sample KS of real output {pos + 1} of {M.key_text(key)}",
                                        len(values), p))
    adjusted = stats.holm([c.p_value for c in conf], 1.0)
    for c, adj in zip(conf, adjusted):
        c.adjusted = adj
        c.rejected = adj <= a_conf
    per_bound = a_priv / (2 * n_events)
    priv: list[Privacy] = []
    for p, direction, x, y, ev, chosen_by in events:
        sx, sy = streams[x], streams[y]
        if chosen_by == "function":
            kx, ky = sx.event_hits, sy.event_hits
            shown = [f"{report.event_function} is true"]
        else:
            kx = sum(sx.counts.get(k, 0) for k in ev.keys)
            ky = sum(sy.counts.get(k, 0) for k in ev.keys)
            shown = sorted(M.key_text(k) for k in ev.keys)
        d_low = stats.epsilon_lower(kx, ky, sx.n, sy.n, per_bound, float(eps))
        first, second = (p.alpha, p.beta) if direction == "α/β" else (p.beta, p.alpha)
        priv.append(Privacy(p.origin + ("" if direction == "α/β" else " (β, α swapped)")
                            + (", event chosen on separate samples" if chosen_by == "data" else ""),
                            M.fmt_inputs(first), M.fmt_inputs(second),
                            shown, sx.n, kx, ky, ev.model_alpha,
                            ev.model_beta, d_low, 1 - report.alpha / 2,
                            exceeds=limit is not None and d_low > float(limit)))
    report.conformance, report.privacy = conf, priv
    report.reasons = []
    failed_c = [c for c in conf if c.rejected]
    failed_p = [p for p in priv if p.exceeds]
    if failed_c:
        report.reasons.append(f"{len(failed_c)} conformance test(s) reject the model's distribution")
    if failed_p:
        best = max(failed_p, key=lambda p: p.epsilon_lower)
        report.reasons.append(f"the implementation loses at least {best.epsilon_lower:.3g}·ε "
                              f"(confidence {1 - report.alpha / 2:g}), more than the limit "
                              f"{_fmt(limit)}·ε")
    report.verdict = "fail" if failed_c or failed_p else "pass"


def _fmt(v) -> str:
    from dslc.numbers import fmt_fraction
    return fmt_fraction(v)


def _diagnose(dipa, streams, report: AuditReport, level: float, source_line) -> list[str]:
    """The alternative model (one state's rate scaled) that explains the
    failing input with the smallest p-value best, if it fits there."""
    failing = [c for c in report.conformance if c.rejected and c.test.startswith("G-test")]
    if not failing:
        return []
    worst = min(failing, key=lambda c: (c.p_value, len(streams[c.stream].inputs)))
    s = streams[worst.stream]
    best, best_p = None, -1.0
    for alt in M.alternatives(dipa, source_line):
        try:
            law = M.law(alt.dipa, s.inputs, report.epsilon)
        except M.ModelError:
            continue
        p, _, _ = stats.g_test(s.counts, law.probs, law.rest, s.n)
        if p > best_p:
            best, best_p = alt, p
    if best is None:
        return []
    if best_p > level:
        return [f"on inputs {worst.inputs} the outputs fit this change of the model (G-test p = "
                f"{best_p:.3g}): {best.description}"]
    return [f"none of the changes tried (one noise rate ×1/4, ×1/2, ×2 or ×4; a stored value drawn "
            f"again) explains the outputs on inputs {worst.inputs} (closest: {best.description}, "
            f"p = {best_p:.3g})"]

