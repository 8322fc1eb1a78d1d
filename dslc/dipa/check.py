"""Well-formedness (Definition 11) and weight of a DiPA in linear time.

This follows the proof of Corollary 4 of the DiPA paper: strongly connected
components of the reachable transition graph give the G-/L-cycle states,
leaking and disclosing cycles; breadth-first searches over the AG- and
AL-subgraphs give leaking pairs and privacy-violating paths; the longest
path in the DAG of components, weighted by the costs of critical
transitions, gives wt(A).  Everything is iterative over flat arrays, so a
million states neither recurse nor allocate per-edge objects.

The result is data (:class:`CheckResult`); turning it into diagnostics is
:mod:`dslc.dipa.diagnose`'s job.
"""

from __future__ import annotations

from array import array
from collections import Counter, deque
from dataclasses import dataclass, field
from functools import cached_property
from fractions import Fraction
from itertools import compress, filterfalse, repeat
from math import lcm
from operator import add, and_, eq, ge, le, mul, ne, sub, xor
from collections.abc import Sequence

from dslc.ir.dipa import DiPA, Guard, OutKind
from dslc.ir.flat_dipa import columns, table

from dslc.native import module as _native      # the same loops in C, or None

TRUE, GE, LT = 0, 1, 2
_GUARD_CODE = {Guard.TRUE: TRUE, Guard.GE: GE, Guard.LT: LT}

LEAKING_CYCLE = "DP001"
LEAKING_PAIR = "DP002"
DISCLOSING_CYCLE = "DP003"
VIOLATING_PATH = "DP004"

MAX_PER_KIND = 10
# Components larger than this get witness paths through a hub state (two BFS
# trees per component) instead of one shortest-path search per witness.
HUB_THRESHOLD = 5_000


@dataclass
class Violation:
    """One witness of a violated condition.

    All lists hold transition indices.  ``prefix`` leads from the initial
    state to the start of the witness.
    - DP001: ``cycle`` starts with an assignment transition and contains a
      comparison at ``compare``.
    - DP002: ``cycle`` is the first cycle (an L-cycle if ``first_is_l``),
      ``path`` an AG-path (AL-path) to ``cycle2``; ``path`` may be empty and
      ``cycle2`` may equal ``cycle``.
    - DP003: ``cycle`` contains the disclosing transition ``disclose``.
    - DP004: ``case`` is "a", "b" or "c" (the three cases of Definition 10);
      ``path`` is ρ; ``cycle`` is the G-/L-cycle at its end (a, b) or start (c).
    """

    kind: str
    prefix: list[int] = field(default_factory=list)
    cycle: list[int] = field(default_factory=list)
    path: list[int] = field(default_factory=list)
    cycle2: list[int] = field(default_factory=list)
    store: int | None = None
    compare: int | None = None
    disclose: int | None = None
    case: str | None = None
    first_is_l: bool = True      # DP002: C is an L-cycle and C' a G-cycle (else the mirror)
    g_side: bool = True          # DP004: the cycle involved is a G-cycle (else an L-cycle)
    via: str = ""                # DP002/DP004: "AG" or "AL", the kind of connecting path

    @property
    def subkind(self) -> str:
        """The condition of the definition this witnesses, e.g. "DP004/c/AG"."""
        if self.kind == "DP002":
            return f"DP002/{self.via}"
        if self.kind == "DP004":
            return f"DP004/{self.case}/{self.via}"
        return self.kind


class Pairs:
    """(transition, scaled cost) pairs kept as two columns (a million critical
    transitions would otherwise be a million tuples); a read-only sequence."""

    def __init__(self, edges: list[int], costs: list[int]):
        self.edges, self.costs = edges, costs

    def __len__(self) -> int:
        return len(self.edges)

    def __iter__(self):
        return zip(self.edges, self.costs)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(zip(self.edges[i], self.costs[i]))
        return self.edges[i], self.costs[i]

    def __eq__(self, other) -> bool:
        try:
            return len(self) == len(other) and all(a == tuple(b) for a, b in zip(self, other))
        except TypeError:
            return NotImplemented

    def __repr__(self) -> str:
        return f"Pairs({list(self)!r})"


class Heaviest:
    """The critical transitions of a heaviest path, in order: followed back
    from the component where the longest path ends, on first use (a chain of
    a million states has a path of a million transitions, which a plain
    verdict never prints).  Behaves as a read-only list."""

    def __init__(self, best_in: list[int], end: int, comp_of_source):
        self._args = (best_in, end, comp_of_source)
        self._path: list[int] | None = None

    @property
    def path(self) -> list[int]:
        if self._path is None:
            best_in, c, comp_of_source = self._args
            path = []
            while c >= 0 and best_in[c] >= 0:
                e = best_in[c]
                path.append(e)
                c = comp_of_source(e)
            path.reverse()
            self._path, self._args = path, None
        return self._path

    def __iter__(self):
        return iter(self.path)

    def __len__(self) -> int:
        return len(self.path)

    def __getitem__(self, i):
        return self.path[i]

    def __contains__(self, e) -> bool:
        return e in self.path

    def __bool__(self) -> bool:
        return bool(self.path)

    def __eq__(self, other) -> bool:
        try:
            return self.path == list(other)
        except TypeError:
            return NotImplemented

    def __repr__(self) -> str:
        return repr(self.path)


class ViolationKinds:
    """The kinds (DP001…) and subkinds (DP002/AG, …) of a result's ``violations``;
    shared by the one-variable and the several-variable results."""
    violations: list

    @property
    def kinds(self) -> set[str]:
        return {v.kind for v in self.violations}

    @property
    def subkinds(self) -> set[str]:
        return {v.subkind for v in self.violations}


@dataclass
class CheckResult(ViolationKinds):
    reachable: list[bool]
    violations: list[Violation]
    truncated: dict[str, int]                 # kind -> witnesses not listed
    weight: Fraction | None                   # wt(A) when well-formed
    critical_scaled: Sequence[tuple[int, int]]   # reachable critical transitions, cost × cost_denominator
    cost_denominator: int
    heaviest: Sequence[int]                   # critical transitions on a heaviest path
    on_cycle: Sequence[int]                   # per transition (reachable part): 1 on a cycle, else 0
    # per state: its strongly connected component (-1 unreachable); ids in Tarjan's
    # completion order, so every critical transition goes to a smaller id
    component: Sequence[int] = field(default_factory=list)

    @cached_property
    def critical(self) -> list[tuple[int, Fraction]]:
        """Reachable critical transitions with their exact costs (built on first use:
        a million Fractions cost seconds, and most runs never look at them)."""
        d = self.cost_denominator
        scaled = {c: Fraction(c, d) for c in set(self.critical_scaled.costs)} \
            if isinstance(self.critical_scaled, Pairs) else None
        if scaled is not None:
            return list(zip(self.critical_scaled.edges, map(scaled.__getitem__, self.critical_scaled.costs)))
        return [(e, Fraction(c, d)) for e, c in self.critical_scaled]

    @property
    def well_formed(self) -> bool:
        return not self.violations



def transition_cost(dipa: DiPA, t_index: int) -> Fraction:
    """cost(t) of Section IV for a critical transition."""
    t = dipa.transitions[t_index]
    s = dipa.states[t.source]
    if not s.is_input:
        return s.d
    cost = 2 * s.d
    if t.output.kind is OutKind.INSAMPLE_PRIME:
        cost += s.d_prime
    return cost


# Per-transition predicates over the transition codes of dslc.ir.flat_dipa
# (guard 0 true, 1 >=, 2 <; output kind 0 symbol, 1 insample, 2 insample').
_GUARD = bytes(c & 3 for c in range(256))
_STORE = table(lambda g, st, o: st)
_OUT_INS = table(lambda g, st, o: o == 1)
_OUT_REAL = table(lambda g, st, o: o != 0)
_OUT_PRIME = table(lambda g, st, o: o == 2)
_COMPARES = table(lambda g, st, o: g != TRUE)
_IS_GE = table(lambda g, st, o: g == GE)
_IS_LT = table(lambda g, st, o: g == LT)
_AG_OK = table(lambda g, st, o: not st or g == GE)
_AL_OK = table(lambda g, st, o: not st or g == LT)
_GE_INS = table(lambda g, st, o: g == GE and o == 1)
_LT_INS = table(lambda g, st, o: g == LT and o == 1)


def _filled(value: int, size: int) -> array:
    return array("i", [value]) * size


def _and(a: bytes, b: bytes) -> bytes:
    """Bytewise AND of two masks of 0/1 bytes (as big integers: memory speed)."""
    return (int.from_bytes(a, "little") & int.from_bytes(b, "little")).to_bytes(len(a), "little")


def _group(n: int, key: array, edges: array | None, m: int) -> tuple[array, array]:
    """A CSR index of ``edges`` (all m if None) grouped by ``key[e]`` in 0..n-1,
    stable: (start, order), the edges of group v being order[start[v]:start[v+1]]."""
    count = m if edges is None else len(edges)
    start = _filled(0, n + 1)
    order = _filled(0, count)
    if _native is not None:
        _native.group(n, key, edges, start, order)
        return start, order
    every = range(m) if edges is None else edges
    for e in every:
        start[key[e] + 1] += 1
    for v in range(n):
        start[v + 1] += start[v]
    fill = start[:-1]
    for e in every:
        t = key[e]
        order[fill[t]] = e
        fill[t] += 1
    return start, order


_INT64 = 1 << 63


def _where(mask: bytes) -> array:
    """The indices of the nonzero bytes of ``mask``, increasing, as an array('i')."""
    out = array("i")
    if _native is not None:
        out.frombytes(_native.where(mask))
    else:
        out.extend(compress(range(len(mask)), mask))
    return out


def _take(values: array, index: array) -> array:
    """values[i] for every i in index, as an array('i')."""
    out = array("i")
    if _native is not None:
        out.frombytes(_native.take(values, index))
    else:
        out.extend(map(values.__getitem__, index))
    return out


def _weigh_natively(cols, comp: array, ncomp: int, init: int, code: bytes):
    """The weight section of :func:`check` in C: (critical, denom, weight,
    heaviest), the same values, or None when a cost or a sum could leave 64
    bits (then the Python integers of :func:`check` take over)."""
    found, used = _native.critical(cols.src, cols.dst, comp, cols.rate, len(cols.rates))
    crit = array("i")
    crit.frombytes(found)
    del found
    denom = 1
    for k in {f.denominator for c in compress(range(len(used)), used) for f in cols.rates[c]}:
        denom = lcm(denom, k)
    plain = [0] * (2 * len(cols.rates))
    extra = [0] * len(cols.rates)
    for c in compress(range(len(used)), used):
        d, d2 = cols.rates[c]
        plain[2 * c] = int(d * denom)
        plain[2 * c + 1] = 2 * int(d * denom)
        extra[c] = int(d2 * denom)
    if max(plain + extra, default=0) * 2 >= _INT64:
        return None
    costs = array("q", bytes(8 * len(crit)))
    dist = array("q", bytes(8 * ncomp))
    best_in = _filled(-1, ncomp)
    if not _native.weigh(crit, cols.src, cols.dst, comp, cols.rate, cols.is_input, code.translate(_OUT_PRIME),
                         array("q", plain), array("q", extra), ncomp, comp[init], costs, dist, best_in):
        return None
    best = dist.index(max(dist))              # the first component of largest distance
    return (Pairs(crit, costs), denom, Fraction(dist[best], denom),
            Heaviest(best_in, best, lambda e: comp[cols.src[e]]))


def check(dipa: DiPA, max_per_kind: int = MAX_PER_KIND) -> CheckResult:  # noqa: C901
    cols = columns(dipa)
    n, m = cols.n, cols.m
    src, dst, code = cols.src, cols.dst, cols.code
    is_input = cols.is_input
    guard = code.translate(_GUARD)
    out_ins = code.translate(_OUT_INS)

    # CSR adjacency: out-edges of v are order[start[v]:start[v+1]], their targets adj[...]
    if cols.start is not None:               # transitions grouped by source: the identity
        start = cols.start
        order: Sequence[int] = range(m)
        adj = dst
    else:
        start, order = _group(n, src, None, m)
        adj = array("i", map(dst.__getitem__, order))
    native = _native
    csr_order = None if isinstance(order, range) else order

    def in_csr(mask: bytes) -> bytes:
        """A per-transition mask in CSR order."""
        return mask if isinstance(order, range) else bytes(map(mask.__getitem__, order))

    init = dipa.initial
    # Breadth-first tree from the initial state (shortest prefixes), grown on
    # demand: far enough to reach the states that witnesses start from.
    reach = {"parent": None, "queue": None, "next": 0}

    def reach_parent(q: int) -> array:
        parent = reach["parent"]
        if parent is None and native is not None:
            # the whole tree at once: the same parents the lazy search gives
            parent = reach["parent"] = _filled(-2, n)
            parent[init] = -1
            queue = _filled(init, n)
            native.bfs(start, adj, csr_order, None, None, 0, parent, None, queue, 1, m)
            reach["queue"] = []
            return parent
        if parent is None:
            parent = reach["parent"] = _filled(-2, n)      # -2 unreached, -1 root, else a transition
            parent[init] = -1
            reach["queue"] = [init]
        queue, i = reach["queue"], reach["next"]
        while parent[q] == -2 and i < len(queue):
            v = queue[i]
            i += 1
            for k in range(start[v], start[v + 1]):
                w = adj[k]
                if parent[w] == -2:
                    parent[w] = order[k]
                    queue.append(w)
        reach["next"] = i
        return parent

    def trace(parent, q: int) -> list[int]:
        """The transitions from a search's root to q, following parent edges."""
        path = []
        while parent[q] >= 0:
            e = parent[q]
            path.append(e)
            q = src[e]
        path.reverse()
        return path

    def prefix_to(q: int) -> list[int]:
        return trace(reach_parent(q), q)

    # ---- strongly connected components of the part reachable from the initial
    # state, numbered in the order Tarjan's algorithm completes them; a state is
    # reachable iff it gets a component
    comp = _filled(-1, n)
    ncomp = 0
    # Transitions that all go forward or stay (generated chains and DAGs): the
    # components are single states and Tarjan's order is the depth-first
    # postorder, found without low links.
    forward = all(map(le, src, dst))
    if n and native is not None:
        if forward:
            ncomp = native.postorder(start, adj, init, comp)
            reached_all = ncomp == n
        else:
            ncomp, counter = native.tarjan(start, adj, init, comp)
            reached_all = counter == n
    elif n and forward:
        seen = bytearray(n)
        ptr = start[:-1]
        work = [init]
        seen[init] = 1
        while work:
            v = work[-1]
            k = ptr[v]
            end = start[v + 1]
            while k < end:
                w = adj[k]
                k += 1
                if not seen[w]:
                    break
            else:
                work.pop()
                comp[v] = ncomp
                ncomp += 1
                continue
            ptr[v] = k
            seen[w] = 1
            work.append(w)
        del seen, ptr, work
        reached_all = ncomp == n
    elif n:
        index = _filled(-1, n)
        low = _filled(0, n)
        on_stack = bytearray(n)
        ptr = start[:-1]                     # next out-edge to explore, per state
        stack: list[int] = [init]
        work = [init]
        index[init] = low[init] = 0
        on_stack[init] = 1
        counter = 1
        while work:
            v = work[-1]
            k = ptr[v]
            end = start[v + 1]
            lv = low[v]
            while k < end:
                w = adj[k]
                k += 1
                iw = index[w]
                if iw < 0:
                    break
                if iw < lv and on_stack[w]:
                    lv = iw
            else:
                # every out-edge of v is explored: v is finished
                work.pop()
                if work:
                    u = work[-1]
                    if lv < low[u]:
                        low[u] = lv
                if lv == index[v]:
                    while True:
                        w = stack.pop()
                        on_stack[w] = 0
                        comp[w] = ncomp
                        if w == v:
                            break
                    ncomp += 1
                else:
                    low[v] = lv
                continue
            ptr[v] = k
            low[v] = lv
            index[w] = low[w] = counter
            counter += 1
            stack.append(w)
            on_stack[w] = 1
            work.append(w)
        reached_all = counter == n
        del index, low, on_stack, ptr, stack, work
    else:
        reached_all = True
    comp_of = comp.__getitem__

    # ---- per-component facts from internal (cycle) edges
    if forward:                              # only loops lie on cycles
        cs = None
        on_cycle_mask = bytes(map(eq, src, dst))
        if not reached_all:
            on_cycle_mask = bytes(map(and_, on_cycle_mask, map(le, repeat(0, m), map(comp_of, src))))
    else:
        cs = _take(comp, src)                # component of each transition's source (-1 unreachable)
        cd = _take(comp, dst)
        if native is not None:
            on_cycle_mask = native.same_component(cs, cd)
        else:
            on_cycle_mask = bytes(map(and_, map(eq, cs, cd), map(le, repeat(0, m), cs)))

    def comps_of(edges) -> map:
        """The component of each edge's source."""
        return map(cs.__getitem__, edges) if cs is not None else map(comp_of, map(src.__getitem__, edges))

    internal = _where(on_cycle_mask)

    def marked(mask: bytes) -> array:
        """The internal edges marked in ``mask``, in increasing order."""
        return _where(_and(mask, on_cycle_mask))

    def firsts(edges: array) -> dict[int, int]:
        """component -> the first of ``edges`` (increasing) in it."""
        if native is not None:
            return native.firsts(comp, src, edges, ncomp)
        return dict(zip(reversed(list(comps_of(edges))), reversed(edges)))

    # DP001 needs an internal assignment and an internal comparison in one
    # component; comparisons are looked at only in components with an assignment.
    c_store = firsts(marked(code.translate(_STORE)))
    c_cmp: dict[int, int] = {}
    c_cmp2: dict[int, int] = {}
    if c_store:
        cmp_edges = marked(code.translate(_COMPARES))
        if native is not None:               # the first and second comparison of each such component
            keep = bytearray(ncomp)
            for c in c_store:
                keep[c] = 1
            c_cmp = native.firsts(comp, src, cmp_edges, ncomp, 1, keep)
            c_cmp2 = native.firsts(comp, src, cmp_edges, ncomp, 2, keep)
        else:
            cmp_edges = array("i", compress(cmp_edges, map(c_store.__contains__, comps_of(cmp_edges))))
            c_cmp = firsts(cmp_edges)
            c_cmp2 = firsts(array("i", filterfalse(set(c_cmp.values()).__contains__, cmp_edges)))   # a second one
        del cmp_edges
    real = marked(code.translate(_OUT_REAL))
    c_disc = firsts(array("i", compress(real, map(is_input.__getitem__, map(src.__getitem__, real)))))
    del real
    # G-/L-cycle states, and the first internal `>=` (`<`) edge of a state's component
    ge_edges = marked(code.translate(_IS_GE))
    lt_edges = marked(code.translate(_IS_LT))
    if forward:
        # single-state components: a state's internal edges are its own loops
        def on_cycles(edges: list[int]) -> bytearray:
            mask = bytearray(n)
            for e in edges:
                mask[src[e]] = 1
            return mask

        def first_internal(kind: bytes):
            def first(q: int) -> int:
                for k in range(start[q], start[q + 1]):
                    e = order[k]
                    if adj[k] == q and kind[code[e]]:
                        return e
                raise KeyError(q)
            return first
        on_g, on_l = on_cycles(ge_edges), on_cycles(lt_edges)
        first_ge, first_lt = first_internal(_IS_GE), first_internal(_IS_LT)
    else:
        c_ge, c_lt = firsts(ge_edges), firsts(lt_edges)
        on_g = bytes(map(set(c_ge).__contains__, comp)) if c_ge else bytes(n)
        on_l = bytes(map(set(c_lt).__contains__, comp)) if c_lt else bytes(n)
        first_ge = lambda q: c_ge[comp[q]]      # noqa: E731
        first_lt = lambda q: c_lt[comp[q]]      # noqa: E731
    del ge_edges, lt_edges

    comp_sizes: list = []

    def comp_size(c: int) -> int:
        if not comp_sizes:
            comp_sizes.append(Counter(comp))
        return comp_sizes[0][c]

    hubs: dict[int, tuple[int, array, array]] = {}
    rev: list[tuple[array, array]] = []

    def hub_trees(c: int, a: int):
        """For a large component: BFS trees from and to one hub state, built once,
        so that every witness path costs its length instead of a search."""
        if c not in hubs:
            if not rev:
                # reverse CSR of the edges inside components
                rev.append(_group(n, dst, internal, m))
            rstart, rorder = rev[0]
            fwd = _filled(-2, n)
            fwd[a] = -1
            if native is not None:
                bwd = _filled(-2, n)
                bwd[a] = -1
                queue = _filled(a, n)
                native.bfs(start, adj, csr_order, None, comp, c, fwd, None, queue, 1, m)
                queue[0] = a
                native.bfs(rstart, _take(src, rorder), rorder, None, None, 0,
                           bwd, None, queue, 1, m)
                hubs[c] = (a, fwd, bwd)
                return hubs[c]
            queue = [a]
            for v in queue:
                for k in range(start[v], start[v + 1]):
                    w = adj[k]
                    if fwd[w] == -2 and comp[w] == c:
                        fwd[w] = order[k]
                        queue.append(w)
            bwd = _filled(-2, n)
            bwd[a] = -1
            queue = [a]
            for v in queue:
                for k in range(rstart[v], rstart[v + 1]):
                    e = rorder[k]
                    w = src[e]
                    if bwd[w] == -2:
                        bwd[w] = e
                        queue.append(w)
            hubs[c] = (a, fwd, bwd)
        return hubs[c]

    def path_within(a: int, b: int, c: int) -> list[int]:
        """A path of transitions from a to b inside component c: the shortest one in
        components of up to HUB_THRESHOLD states, else one through the component's hub."""
        if a == b:
            return []
        if comp_size(c) > HUB_THRESHOLD:
            hub, fwd, bwd = hub_trees(c, a)
            out = []
            v = a
            while v != hub:                       # a -> hub along the backward tree
                e = bwd[v]
                out.append(e)
                v = dst[e]
            back = []
            v = b
            while v != hub:                       # hub -> b along the forward tree
                e = fwd[v]
                back.append(e)
                v = src[e]
            return out + back[::-1]
        parent = {a: -1}
        queue = deque([a])
        while queue:
            v = queue.popleft()
            for k in range(start[v], start[v + 1]):
                w = adj[k]
                if comp[w] == c and w not in parent:
                    e = order[k]
                    parent[w] = e
                    if w == b:
                        path = []
                        while w != a:
                            e = parent[w]
                            path.append(e)
                            w = src[e]
                        path.reverse()
                        return path
                    queue.append(w)
        raise AssertionError("states of one component are mutually reachable")

    def cycle_through(e: int) -> list[int]:
        """A cycle that starts with transition e."""
        return [e] + path_within(dst[e], src[e], comp[src[e]])

    def cycle_at(q: int, e: int) -> list[int]:
        """A cycle from state q through transition e (same component) back to q."""
        c = comp[q]
        return path_within(q, src[e], c) + [e] + path_within(dst[e], q, c)

    violations: list[Violation] = []
    truncated: dict[str, int] = {}

    counts: dict[str, int] = {}

    def full(kind: str) -> bool:
        """True (and counted as left out) once a kind has MAX_PER_KIND witnesses."""
        if counts.get(kind, 0) >= max_per_kind:
            truncated[kind] = truncated.get(kind, 0) + 1
            return True
        return False

    def record(v: Violation) -> None:
        counts[v.kind] = counts.get(v.kind, 0) + 1
        violations.append(v)

    # ---- DP001 leaking cycles, DP003 disclosing cycles
    for c in sorted(c_store.keys() & c_cmp.keys()):
        if not full(LEAKING_CYCLE):
            e1 = c_store[c]
            e2 = c_cmp[c] if c_cmp[c] != e1 else c_cmp2.get(c, -1)
            if e2 >= 0:
                cyc = [e1] + path_within(dst[e1], src[e2], c) + [e2] + path_within(dst[e2], src[e1], c)
            else:
                # the storing transition is the only comparison: going round twice
                # compares with the value stored on the first turn
                e2 = e1
                cyc = cycle_through(e1) * 2
            record(Violation(LEAKING_CYCLE, prefix=prefix_to(src[e1]), cycle=cyc, store=e1, compare=e2))
    for c in sorted(c_disc):
        if not full(DISCLOSING_CYCLE):
            e = c_disc[c]
            record(Violation(DISCLOSING_CYCLE, prefix=prefix_to(src[e]), cycle=cycle_through(e), disclose=e))

    ag_ok = in_csr(code.translate(_AG_OK))               # in CSR order
    al_ok = in_csr(code.translate(_AL_OK))

    def bfs(roots, tags, ok: bytes):
        """Multi-source BFS over admissible edges (``ok`` in CSR order).

        ``roots`` are states with their ``tags``, or a mask of states that
        are their own tags.  Returns the parent edge per state (-1 at a root,
        -2 unreached) and the tag of the root each state was reached from."""
        if isinstance(roots, (bytes, bytearray)) and native is not None:
            parent, tag, queue = _filled(0, n), _filled(0, n), _filled(0, n)
            qlen = native.seed(roots, parent, tag, queue)
            native.bfs(start, adj, csr_order, ok, None, 0, parent, tag, queue, qlen, m)
            return parent, tag
        if isinstance(roots, (bytes, bytearray)):
            parent = array("i", map(add, repeat(-2, n), roots))
            tag = array("i", map(sub, map(mul, range(n), roots), map(xor, roots, repeat(1, n))))
            queue = list(compress(range(n), roots))
        else:
            parent = _filled(-2, n)
            tag = _filled(-1, n)
            queue = []
            for q, t in zip(roots, tags):
                if parent[q] == -2:
                    parent[q] = -1
                    tag[q] = t
                    queue.append(q)
        if native is not None:
            qlen = len(queue)
            queue = array("i", queue)
            queue.extend(repeat(0, n - qlen))
            native.bfs(start, adj, csr_order, ok, None, 0, parent, tag, queue, qlen, m)
            return parent, tag
        for v in queue:
            tv = tag[v]
            for k in range(start[v], start[v + 1]):
                if ok[k]:
                    w = adj[k]
                    if parent[w] == -2:
                        parent[w] = order[k]
                        tag[w] = tv
                        queue.append(w)
        return parent, tag

    def reached(parent: array, among: bytes) -> list[int]:
        """The states marked in ``among`` that a search reached, in increasing order."""
        return list(compress(range(n), map(and_, among, map(ne, parent, repeat(-2, n)))))

    reported_pairs: set[tuple[int, int]] = set()
    for first_is_l in (True, False):
        first_on, second_on = (on_l, on_g) if first_is_l else (on_g, on_l)
        ok = ag_ok if first_is_l else al_ok
        first_edge = first_lt if first_is_l else first_ge
        second_edge = first_ge if first_is_l else first_lt
        outputs_compared = code.translate(_GE_INS if first_is_l else _LT_INS)
        if not any(first_on) or not (any(second_on) or any(outputs_compared)):
            continue                         # nothing the search could find
        parent, tag = bfs(first_on, None, ok)
        # DP002: a state of a second-kind cycle reached from a first-kind cycle.
        # the first reached state of each component, in increasing order
        if native is not None:
            firsts_reached = native.first_reached(parent, second_on, comp)
        else:
            found = reached(parent, second_on)
            firsts_reached = sorted(dict(zip(reversed(list(map(comp.__getitem__, found))), reversed(found))).values())
        for q in firsts_reached:
            root = tag[q]
            key = (first_is_l, comp[root], comp[q])
            if key in reported_pairs or full(LEAKING_PAIR):
                continue
            reported_pairs.add(key)
            path = trace(parent, q)
            record(Violation(LEAKING_PAIR, prefix=prefix_to(root),
                          cycle=cycle_at(root, first_edge(root)), path=path,
                          cycle2=cycle_at(q, second_edge(q)), first_is_l=first_is_l,
                          via="AG" if first_is_l else "AL"))
        # DP004 (c): from an L-cycle (G-cycle) along an AG-path (AL-path) to a
        # transition with guard >= (<) that outputs insample.
        for e in compress(range(m), outputs_compared):
            if parent[src[e]] == -2 or full(VIOLATING_PATH):
                continue
            root = tag[src[e]]
            rho = trace(parent, src[e]) + [e]
            record(Violation(VIOLATING_PATH, prefix=prefix_to(root), path=rho, case="c",
                          cycle=cycle_at(root, first_edge(root)), g_side=not first_is_l,
                          via="AG" if first_is_l else "AL"))

    # DP004 (a), (b): a transition that outputs insample, followed by an AG-path
    # (AL-path) to a G-cycle (L-cycle).
    # One search per case and side: roots of different cases that start at the
    # same state must not hide each other.
    outputs_insample = [e for e in compress(range(m), out_ins) if comp[src[e]] >= 0]
    for g_side in (True, False):
        ok = ag_ok if g_side else al_ok
        target_on = on_g if g_side else on_l
        cyc_edge = first_ge if g_side else first_lt
        bad_guard = LT if g_side else GE
        for case in ("a", "b"):
            roots = []
            for e in outputs_insample:
                if case == "a" and code[e] & 4:                           # tail(ρ) is AG (AL)
                    roots.append(e)
                elif case == "b" and not code[e] & 4 and guard[e] == bad_guard:   # ρ is AG (AL)
                    roots.append(e)
            if not roots:
                continue
            parent, tag = bfs(list(map(dst.__getitem__, roots)), roots, ok)
            done_roots: set[int] = set()
            for q in reached(parent, target_on):
                e = tag[q]
                if e in done_roots:
                    continue
                done_roots.add(e)
                if full(VIOLATING_PATH):
                    continue
                record(Violation(VIOLATING_PATH, prefix=prefix_to(src[e]), path=[e] + trace(parent, q),
                              case=case, cycle=cycle_at(q, cyc_edge(q)),
                              g_side=g_side, via="AG" if g_side else "AL"))

    # ---- weight: longest path in the DAG of components over critical transitions
    critical: Sequence[tuple[int, int]] = Pairs([], [])
    denom = 1
    weight = None
    heaviest: Sequence[int] = []
    weighed = n and native is not None and _weigh_natively(cols, comp, ncomp, init, code)
    if weighed:
        critical, denom, weight, heaviest = weighed
    elif n:
        # Costs are exact: scale every rate by the lcm of the denominators so the
        # longest-path search adds integers.  Rates come in classes (equal rates
        # share one), so a million states hash no Fraction.
        crossing = map(ne, src, dst) if forward else map(ne, cs, cd)
        if not reached_all:
            crossing = map(and_, crossing, map(le, repeat(0, m), cs if cs is not None else map(comp_of, src)))
        crit = array("i", compress(range(m), crossing))
        crit_src = array("i", map(src.__getitem__, crit))
        rate = cols.rate
        used = set(map(rate.__getitem__, crit_src))
        for k in {f.denominator for c in used for f in cols.rates[c]}:
            denom = lcm(denom, k)
        # cost by rate class and input flag: d (non-input), 2d (input), + d′ when
        # an input transition outputs insample′
        plain = [0] * (2 * len(cols.rates))
        extra = [0] * len(cols.rates)
        for c in used:
            d, d2 = cols.rates[c]
            plain[2 * c] = int(d * denom)
            plain[2 * c + 1] = 2 * int(d * denom)
            extra[c] = int(d2 * denom)
        costs = list(map(plain.__getitem__, map(add, map(mul, map(rate.__getitem__, crit_src), repeat(2)),
                                                map(is_input.__getitem__, crit_src))))
        prime = code.translate(_OUT_PRIME)
        for i in compress(range(len(crit)), map(prime.__getitem__, crit)):
            q = crit_src[i]
            if is_input[q]:
                costs[i] += extra[rate[q]]
        critical = Pairs(crit, costs)
        # the components in topological order (decreasing id), each one's edges in
        # increasing order: a stable sort by source component, unless already so
        ccomp = array("i", map(comp_of, crit_src))
        tcomp = array("i", map(comp_of, map(dst.__getitem__, crit)))
        del crit_src
        if all(map(ge, ccomp, ccomp[1:])):
            steps = zip(ccomp, tcomp, costs, crit)
        else:
            sequence = sorted(range(len(crit)), key=ccomp.__getitem__, reverse=True)
            steps = zip(map(ccomp.__getitem__, sequence), map(tcomp.__getitem__, sequence),
                        map(costs.__getitem__, sequence), map(crit.__getitem__, sequence))
        dist = [-1] * ncomp
        best_in = _filled(-1, ncomp)
        dist[comp[init]] = 0
        for c, t, cost, e in steps:
            dc = dist[c]
            if dc < 0:
                continue
            cand = dc + cost
            if cand > dist[t]:
                dist[t] = cand
                best_in[t] = e
        del ccomp, tcomp
        best = dist.index(max(dist)) if ncomp else -1        # the first component of largest distance
        weight = Fraction(dist[best], denom) if ncomp else Fraction(0)
        heaviest = Heaviest(best_in, best, lambda e: comp[src[e]])

    return CheckResult(list(map(le, repeat(0, n), comp)), violations, truncated,
                       weight if not violations else None, critical, denom, heaviest,
                       on_cycle_mask, comp)
