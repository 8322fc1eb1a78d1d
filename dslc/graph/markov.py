"""The picture of an `hmm` or `mdp` block: states (with prior and secrets),
observations, transition probabilities and the emission row of every state,
exact.  For a violation (DP101) the transitions and emissions that can
produce its observation sequence from the secret under which it is likelier
are marked, and so are the observations of the sequence.

Reads the Markov IR and the checker's outcome (the block's ``ir`` and
``analysis``); changes nothing in them."""

from __future__ import annotations

import networkx as nx

from dslc.graph import mark, new_graph, verdict_text, violation_title
from dslc.numbers import fmt_fraction
from dslc.results import BlockResult


def _p(poly) -> str:
    return str(poly)


def markov_graph(block: BlockResult, model, outcome=None) -> nx.MultiDiGraph:
    title = (f"{block.kind} {block.name}: {verdict_text(block)}; "
             f"check ε = {' '.join(model.epsilon.text.split())}, k = {model.horizon}")
    pairs = ", ".join(f"{model.secrets[p.left].name}/{model.secrets[p.right].name}" for p in model.pairs)
    g = new_graph(block, title, [f"protected pairs: {pairs}"] if pairs else [])
    n = len(model.states)
    secrets_of: dict[int, list[str]] = {}
    for sec in model.secrets:
        for s in sec.states:
            secrets_of.setdefault(s, []).append(sec.name)
    for s, name in enumerate(model.states):
        label = [name]
        prior = model.prior.get(s)
        if prior is not None and not prior.is_zero:
            label.append(f"prior {_p(prior)}")
        if s in secrets_of:
            label.append("secret " + ", ".join(secrets_of[s]))
        g.add_node(f"s{s}", name=name, label=label, role="state",
                   initial=prior is not None and not prior.is_zero, terminal=False, classes=[],
                   line=_line(model.state_spans[s]) if s < len(model.state_spans) else None,
                   prior=_p(prior) if prior is not None else None, secrets=secrets_of.get(s, []))
    for o, name in enumerate(model.observations):
        g.add_node(f"o{o}", name=name, label=[name], role="observation", initial=False, terminal=False,
                   classes=[], line=_line(model.observation_spans[o]) if o < len(model.observation_spans) else None)

    # transitions: one edge per (action, state, target); a row that is the
    # same for every action is drawn once, without an action
    keys: dict[tuple[int, int, int], str] = {}     # (action, s, t) -> edge key
    count = 0
    n_actions = len(model.trans)
    for s in range(n):
        rows = [model.trans[a][s] for a in range(n_actions)]
        shared = all(r == rows[0] for r in rows)
        for a in ([None] if shared else range(n_actions)):
            row = rows[0] if a is None else rows[a]
            for t, p in row.items():
                if p.is_zero:
                    continue
                key = f"t{count}"
                count += 1
                action = None if a is None else model.actions[a]
                label = _p(p) if action is None else f"{action}: {_p(p)}"
                span = model.trans_spans[a or 0][s] if _has(model.trans_spans, a or 0, s) else None
                g.add_edge(f"s{s}", f"s{t}", key=key, id=key, label=[label], role="transition",
                           classes=[], line=_line(span), probability=_p(p), action=action)
                for b in (range(n_actions) if a is None else [a]):
                    keys[(b, s, t)] = key
    emit_keys: dict[tuple[int, int], str] = {}
    for s in range(n):
        for o, p in model.emit[s].items():
            if p.is_zero:
                continue
            key = f"e{len(emit_keys)}"
            emit_keys[(s, o)] = key
            g.add_edge(f"s{s}", f"o{o}", key=key, id=key, label=[_p(p)], role="emission", classes=[],
                       line=_line(model.emit_spans[s]) if s < len(model.emit_spans) else None,
                       probability=_p(p), action=None)

    if outcome is not None and getattr(outcome, "verdict", None) == "violation":
        for v in outcome.violations:
            _mark_violation(g, model, v, keys, emit_keys)
    found = getattr(outcome, "found", None) if outcome is not None else None
    if found:
        g.graph["notes"].append("found: " + ", ".join(f"{k} = {fmt_fraction(x)}" for k, x in found.items()))
    return g


def _has(spans, a: int, s: int) -> bool:
    return a < len(spans) and s < len(spans[a])


def _line(span) -> int | None:
    return span.start_line_col[0] if span is not None else None


def _mark_violation(g: nx.MultiDiGraph, model, v, keys: dict, emit_keys: dict) -> None:
    obs = list(v.observations)
    acts = list(v.actions) if v.actions else [0] * max(0, len(obs) - 1)
    left, right = model.secrets[v.left], model.secrets[v.right]
    edges: list[tuple[str, str, str]] = []
    try:
        num = model.numeric(dict(v.params or {}))
    except (KeyError, ZeroDivisionError, AssertionError):
        num = None
    if num is not None and obs:         # the runs of the likelier secret that produce ω
        edges = _support(num, left.states, obs, acts, keys, emit_keys)
    edges = list(dict.fromkeys(edges))
    mark(g, edges, "DP101")
    for o in obs:
        cls = g.nodes[f"o{o}"]["classes"]
        if "DP101" not in cls:
            cls.append("DP101")
    names = [model.observations[o] for o in obs]
    actions = [model.actions[a] for a in v.actions] if model.actions and v.actions else []
    message = (f"ω = ({', '.join(names)}): Pr[ω | {left.name}] = {fmt_fraction(v.p_left)}, "
               f"Pr[ω | {right.name}] = {fmt_fraction(v.p_right)}")
    if actions:
        message = f"actions ({', '.join(actions)}), " + message
    if v.params:
        message += " when " + ", ".join(f"{k} = {fmt_fraction(x)}" for k, x in v.params.items())
    g.graph["notes"].append(f"DP101 {violation_title('DP101')} (red): {message}")
    g.graph["violations"].append({
        "code": "DP101", "message": message, "observations": names, "actions": actions,
        "left": left.name, "right": right.name, "p_left": fmt_fraction(v.p_left),
        "p_right": fmt_fraction(v.p_right),
        "params": {k: fmt_fraction(x) for k, x in (v.params or {}).items()},
        "edges": [k for _, _, k in edges],
    })


def _support(num, secret_states, obs: list[int], acts: list[int], keys: dict,
             emit_keys: dict) -> list[tuple[str, str, str]]:
    """The transitions and emissions on some run that starts in the secret and
    produces ``obs`` with positive probability (forward and backward reachability)."""
    k = len(obs)

    def emits(s: int, t: int) -> bool:
        return num.emit[s].get(obs[t], 0) > 0

    fwd = [set() for _ in range(k)]
    fwd[0] = {s for s in secret_states if num.prior[s] > 0 and emits(s, 0)}
    for t in range(1, k):
        rows = num.trans[acts[t - 1]]
        fwd[t] = {s2 for s in fwd[t - 1] for s2, p in rows[s].items() if p > 0 and emits(s2, t)}
    bwd = [set() for _ in range(k)]
    bwd[k - 1] = set(fwd[k - 1])
    for t in range(k - 2, -1, -1):
        rows = num.trans[acts[t]]
        bwd[t] = {s for s in fwd[t] if any(p > 0 and s2 in bwd[t + 1] for s2, p in rows[s].items())}
    out: list[tuple[str, str, str]] = []
    for t in range(k):
        for s in sorted(bwd[t]):
            key = emit_keys.get((s, obs[t]))
            if key is not None:
                out.append((f"s{s}", f"o{obs[t]}", key))
            if t + 1 < k:
                for s2, p in num.trans[acts[t]][s].items():
                    if p > 0 and s2 in bwd[t + 1] and (acts[t], s, s2) in keys:
                        out.append((f"s{s}", f"s{s2}", keys[(acts[t], s, s2)]))
    return out


__all__ = ["markov_graph"]
