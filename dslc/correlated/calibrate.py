"""Calibration of a `chain` block: the noise scale of every applicable
mechanism, which one to use, and why.

    group DP            T·L/ε                        exact rational
    Markov Quilt        L·σ_max (exact max-influences, Section 4.3)
    Markov Quilt (gap)  L·σ_max (eigen-gap bound, Section 4.4)
    Wasserstein         W/ε                           exact rational

Scales that involve a logarithm are floats rounded *up* to 6 significant
digits (dslc.correlated.numeric); the printed value is the one `dslc release`
uses.  Nothing here prints.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from dslc.ir.chain import ChainIR
from dslc.correlated import wasserstein as wmod
from dslc.correlated.influence import EigenGap, ModelTables, NodeTables
from dslc.correlated.mqm import (DistanceInfluence, SearchResult, _node_ratio, search_distances,
                            search_nodes)
from dslc.correlated.numeric import U, fmt_float, fmt_q, fmt_up

PER_NODE_MAX_T = 100      # exact per-node max-influences up to this length (non-stationary Θ)
PER_NODE_WORK = 200_000   # ... and while T·k³·|Θ| (the exact matrix powers) is at most this


@dataclass
class Mechanism:
    key: str                   # group_dp | markov_quilt | markov_quilt_approx | markov_quilt_combined | wasserstein
    title: str
    applicable: bool
    scale_exact: Fraction | None = None
    scale_float: float | None = None   # an upper bound of the exact scale
    reason: str = ""
    details: dict = field(default_factory=dict)

    @property
    def scale_text(self) -> str:
        if self.scale_exact is not None:
            return fmt_q(self.scale_exact)
        if self.scale_float is not None:
            return fmt_up(self.scale_float)
        return "—"

    @property
    def scale_value(self) -> float:
        """The scale `dslc release` uses: the printed number."""
        if self.scale_exact is not None:
            return float(self.scale_exact)
        return float(self.scale_text)

    def sort_key(self) -> Fraction:
        if self.scale_exact is not None:
            return self.scale_exact
        return Fraction(self.scale_text)


@dataclass
class Calibration:
    ir: ChainIR
    mechanisms: list[Mechanism]
    recommended: Mechanism
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # in-memory products for `calibrate --node`
    node_tables: list[NodeTables] | None = None
    distance_influence: DistanceInfluence | None = None

    def mechanism(self, key: str) -> Mechanism | None:
        return next((m for m in self.mechanisms if m.key == key), None)

    def to_json(self) -> dict:
        ir = self.ir
        return {
            "T": ir.length,
            "epsilon": fmt_q(ir.epsilon),
            "states": [s.label for s in ir.states],
            "models": [m.name for m in ir.models],
            "query": {"kind": ir.query.kind, "description": ir.query.describe(ir.states),
                      "lipschitz": fmt_q(ir.query.lipschitz), "vector": ir.query.vector},
            "method": ir.method,
            "mechanisms": [_mech_json(m) for m in self.mechanisms],
            "recommended": self.recommended.key,
            "recommended_scale": self.recommended.scale_text,
            "notes": list(self.notes),
        }


def _mech_json(m: Mechanism) -> dict:
    out = {"key": m.key, "title": m.title, "applicable": m.applicable}
    if m.applicable:
        out["scale"] = m.scale_text
        out["exact"] = m.scale_exact is not None
        out["scale_value"] = m.scale_value
    else:
        out["reason"] = m.reason
    if m.details:
        out.update(m.details)
    return out


def calibrate(ir: ChainIR) -> Calibration:
    start = time.perf_counter()
    T, eps, L = ir.length, ir.epsilon, ir.query.lipschitz
    notes: list[str] = []
    mechs: list[Mechanism] = []

    group = Mechanism("group_dp", "group differential privacy", True, scale_exact=T * L / eps,
                      details={"formula": "T·L/ε"})

    ergodic = all(m.ergodic for m in ir.models)
    gaps = None
    if ir.method in ("auto", "approx"):
        if ergodic:
            gaps = [EigenGap(m) for m in ir.models]
    use_exact = ir.method in ("auto", "exact")
    cap = _cap(ir)

    node_tables = None
    dist_infl = None
    exact_res: SearchResult | None = None
    exact_path = ""
    tables: list[ModelTables] = []
    if use_exact:
        all_stationary = all(m.stationary_start for m in ir.models)
        if not all_stationary and T <= PER_NODE_MAX_T and T * ir.k ** 3 * len(ir.models) <= PER_NODE_WORK:
            node_tables = [NodeTables(m, T) for m in ir.models]
            exact_res = search_nodes(T, eps, node_tables, None)
            exact_path = "exact max-influences, every node (exact marginals)"
        else:
            tables = [ModelTables(m, cap) for m in ir.models]
            dist_infl = DistanceInfluence(tables, None)
            exact_res = search_distances(T, eps, dist_infl, cap)
            exact_path = ("exact max-influences per distance (stationary start: every node alike)"
                          if all_stationary else
                          "upper bounds per distance (backward ratio bounded without the marginals "
                          "of X_i; exact per node only up to T = %d and T·k³·|Θ| ≤ %d)"
                          % (PER_NODE_MAX_T, PER_NODE_WORK))
            floated = [t.float_from for t in tables if t.float_from is not None]
            if floated:
                notes.append(f"matrix powers are exact integers below distance {min(floated)}, then "
                             "binary64 with a certified relative error bound")
            stopped = [t.stopped_at for t in tables if t.stopped_at is not None]
            if stopped:
                notes.append(f"binary64 matrix powers underflow beyond distance {min(stopped)}; "
                             "larger quilts are not used")
    approx_res = None
    approx_infl = None
    if gaps is not None:
        approx_infl = DistanceInfluence(None, gaps)
        approx_res = search_distances(T, eps, approx_infl, max(cap, 10 ** 6))

    if exact_res is not None:
        title = ("Markov Quilt mechanism (exact)" if node_tables is not None
                 or all(m.stationary_start for m in ir.models)
                 else "Markov Quilt mechanism (exact-rational bound)")
        m = _mqm_mechanism("markov_quilt", title, exact_res, ir, exact_path, node_tables, dist_infl)
        m.details["influence_is_exact"] = (node_tables is not None
                                           or all(mm.stationary_start for mm in ir.models))
        mechs.append(m)
    elif ir.method == "approx":
        mechs.append(Mechanism("markov_quilt", "Markov Quilt mechanism (exact)", False,
                               reason="not computed: `method = approx`"))
    if approx_res is not None:
        m = _mqm_mechanism("markov_quilt_approx", "Markov Quilt mechanism (eigen-gap bound)",
                           approx_res, ir, "eigen-gap upper bound of max-influence", None, approx_infl)
        m.details["eigen_gap"] = {
            m2.name: {"s2_bound": fmt_q(g.mu), "gap": fmt_q(1 - g.mu), "pi_min": fmt_q(g.pi_min),
                      "certificate": g.certificate}
            for m2, g in zip(ir.models, gaps)}
        mechs.append(m)
    elif ir.method != "exact":
        why = next((f"`{m.name}` is reducible" if not m.irreducible else
                    f"`{m.name}` is periodic (period {m.period})" for m in ir.models if not m.ergodic),
                   "not requested")
        mechs.append(Mechanism("markov_quilt_approx", "Markov Quilt mechanism (eigen-gap bound)", False,
                               reason=f"needs an irreducible, aperiodic chain: {why}"))
    # Both bounds per quilt, when the exact path only has upper bounds.
    if (exact_res is not None and approx_res is not None and dist_infl is not None
            and not all(m.stationary_start for m in ir.models)):
        both = DistanceInfluence(tables, gaps)
        res = search_distances(T, eps, both, cap)
        m = _mqm_mechanism("markov_quilt_combined", "Markov Quilt mechanism (smaller bound per quilt)",
                           res, ir, "per quilt, the smaller of the two upper bounds", None, both)
        mechs.append(m)

    reason = wmod.applicable(ir)
    if reason is None:
        try:
            w = wmod.wasserstein(ir)
            mechs.append(Mechanism("wasserstein", "Wasserstein mechanism", True, scale_exact=w.W / eps,
                                   details={"W": fmt_q(w.W), "formula": "W/ε",
                                            "witness": {"model": w.model, "node": w.node,
                                                        "secrets": [ir.states[w.pair[0]].label,
                                                                    ir.states[w.pair[1]].label]}}))
        except wmod.TooLarge:
            mechs.append(Mechanism("wasserstein", "Wasserstein mechanism", False,
                                   reason="the model is too large to enumerate exactly"))
    else:
        mechs.append(Mechanism("wasserstein", "Wasserstein mechanism", False, reason=reason))
    mechs.append(group)

    usable = [m for m in mechs if m.applicable]
    order = {"wasserstein": 0, "markov_quilt": 1, "markov_quilt_combined": 2,
             "markov_quilt_approx": 3, "group_dp": 4}
    best = min(usable, key=lambda m: (m.sort_key(), order.get(m.key, 9)))
    # A Markov Quilt scale equal to group DP's brings nothing: say group DP.
    if best.key.startswith("markov_quilt") and best.sort_key() >= group.sort_key():
        best = group
    return Calibration(ir, mechs, best, notes, time.perf_counter() - start, node_tables, dist_infl)


def _cap(ir: ChainIR) -> int:
    k = ir.k
    work = k ** 3 * len(ir.models)
    return max(1000, min(200_000, 3_000_000 // work))


def _mqm_mechanism(key, title, res: SearchResult, ir: ChainIR, path: str,
                   node_tables, infl: DistanceInfluence | None) -> Mechanism:
    L, eps = ir.query.lipschitz, ir.epsilon
    q = res.worst
    if res.sigma_exact is not None:
        scale_exact, scale_float = L * res.sigma_exact, None
    else:
        scale_exact = None
        scale_float = float(L) * (1 + U) * res.sigma * (1 + 2 * U)
    ratio = None
    if q.a or q.b:
        if node_tables is not None:
            ratio = _node_ratio(node_tables, q.node, q.a, q.b)
        elif infl is not None and infl.tables and infl.exact(q.a, q.b) <= q.influence * (1 + 1e-12) + 1e-15:
            ratios = [t.exact_ratio(q.a, q.b) for t in infl.tables]
            ratio = None if any(r is None for r in ratios) else max(ratios)
    else:
        ratio = Fraction(1)
    active = {
        "node": q.node,
        "quilt": q.describe(),
        "left": q.left, "right": q.right,
        "nearby": q.nearby(),
        "card": q.card,
        "max_influence": _influence_text(ratio, q.influence),
        "max_influence_value": round(q.influence, 12),
        "max_influence_exact_ratio": fmt_q(ratio) if ratio is not None and len(fmt_q(ratio)) <= 200 else None,
        "score": fmt_q(q.exact_score) if q.exact_score is not None else fmt_up(q.score),
    }
    details = {"sigma_max": fmt_q(res.sigma_exact) if res.sigma_exact is not None else fmt_up(res.sigma),
               "formula": "L·σ_max", "path": path, "search": res.path,
               "worst_node": q.node, "nodes_at_max": res.nodes_at_max, "active_quilt": active,
               "searched_distance": res.searched, "distances_searched": res.distances}
    if res.notes:
        details["notes"] = list(res.notes)
    return Mechanism(key, title, True, scale_exact=scale_exact, scale_float=scale_float, details=details)


def _influence_text(ratio: Fraction | None, value: float) -> str:
    if ratio is not None:
        if ratio == 1:
            return "0"
        text = fmt_q(ratio)
        if len(text) <= 40:
            return f"log({text})"
    return f"≤ {fmt_float(value, 6)}"
