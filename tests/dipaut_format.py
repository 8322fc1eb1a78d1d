"""DiPAut's `.dipa` format, single-variable subset: reader and writer.

DiPAut (https://github.com/bhusalb/DiPAut, MIT) is the tool of the DiPA
authors.  Its input language has one state per line:

    (q1:non-input,1/4,0): x:= insample; output oinput; goto q2
    (q2,1/2,0, 1/2,0): if (insample <= x) then output obot; goto q2 elseif (insample >= x) then output insampleprime; goto q3

This module reads that language into our IR (:class:`dslc.ir.dipa.DiPA`) and
writes our IR back as `.dipa` text, for the corpus test
(tests/test_dipaut_corpus.py) and the differential test
(benchmarks/bench_dipaut.py).  It is our own code, written from DiPAut's
parser and checker (core/tokenizer.py, core/parser.py,
builders/graph_builder.py, builders/component_graph_builder.py at commit
c25fe4df68f471ed6bb359388098df044b11dd84), whose meaning it follows:

- A state is `(qN, d, μ)` or `(qN, d, μ, d′, μ′)`; numbers are `N` or `N/M`
  (no sign, no decimals).  States are input states unless written
  `qN:non-input`.  Without d′, μ′ a state may not output `insampleprime`
  (DiPAut raises "Unable to find d' and mean'"); we then take d′ = μ′ = 0.
- State `qN` is vertex N-1 of DiPAut's graph and `q1` is the initial state,
  wherever its line stands.  The vertices are q1..qK with K the number of
  distinct states named (defined or only used as a `goto` target), so the
  numbering must have no gaps.  A state that is only a `goto` target has no
  transitions and no parameters: a terminal state.
- A statement without `if` is one transition with guard `true`.
  `if (c1) then S1 elseif (c2) then S2 ...` is one transition per branch.
  A state with a single guarded branch has that transition only (δ is
  partial: on the other outcome the run stops).
- Guards: DiPAut files a comparison under its first character:
  `insample > x` and `insample >= x` mean the paper's `insample >= x` (G);
  `insample < x` and `insample <= x` mean `insample < x` (L).  They differ
  only on an event of probability 0.
- `x:= insample;` before the output makes the transition an assignment
  transition.  Outputs are `oNAME` (a symbol), `insample`, `insampleprime`
  (our insample′).
- Each line is parsed on its own; a blank line is a parse error in DiPAut.

DiPAut decides *generalised* DiPAs (several stored variables, parallel
assignments `a:= insample, b:= insample`, conjunctions `&&`).  Files outside
the single-variable model of the LICS 2021 paper raise :class:`OutsideModel`
with the reason, and so do files that break Definition 3 (DiPAut does not
check it) -- with one exception that DiPAut's corpus uses and our checker is
about to accept: the initial transition may output `insample` (or
`insample′`), see :attr:`Converted.initial_real_output`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction

from dslc.ir.print_dipa import automaton_text
from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, DiPA, Guard, OutKind, State, Transition,
                          fmt_fraction, fmt_rate, symbol)
from dslc.ir.dipaut_reader import (Branch, DipautSyntaxError, Program, StateLine,  # noqa: F401  (moved)
                                  output_of, parse)


class OutsideModel(ValueError):
    """A valid `.dipa` file outside the single-variable DiPA model (or Definition 3)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------- to our IR
_GUARD = {">=": Guard.GE, ">": Guard.GE, "<": Guard.LT, "<=": Guard.LT}


@dataclass
class Converted:
    dipa: DiPA
    variable: str | None                 # the one stored variable
    initial_real_output: bool            # the initial transition outputs insample/insample′


_output = output_of


def to_dipa(text: str | Program, name: str = "dipaut") -> Converted:
    """The single-variable DiPA a `.dipa` file describes.

    Raises :class:`DipautSyntaxError` for text DiPAut cannot read and
    :class:`OutsideModel` (with ``.reason``) for files outside the model."""
    prog = parse(text) if isinstance(text, str) else text
    variables = sorted(prog.variables)
    general = []
    if len(variables) > 1:
        general.append(f"{len(variables)} stored variables ({', '.join(variables)})")
    conj = sorted({s.number for s in prog.states.values() for b in s.branches if len(b.comparisons) > 1})
    if conj:
        general.append("conjunctions `&&` in " + ", ".join(f"q{k}" for k in conj))
    par = sorted({s.number for s in prog.states.values() for b in s.branches if len(b.assigns) > 1})
    if par:
        general.append("parallel assignments in " + ", ".join(f"q{k}" for k in par))
    if general:
        raise OutsideModel("a generalised DiPA: " + "; ".join(general))
    var = variables[0] if variables else None

    n = len(prog.numbers)
    dipa = DiPA(name)
    zero = Fraction(0)
    for k in range(1, n + 1):
        s = prog.states.get(k)
        if s is None:                     # only a goto target: terminal, no parameters
            dipa.add_state(State(f"q{k}", True, zero, zero, zero, zero))
        else:
            dipa.add_state(State(f"q{k}", not s.non_input, s.d, s.mu,
                                 s.d_prime if s.d_prime is not None else zero,
                                 s.mu_prime if s.mu_prime is not None else zero))
    for k in sorted(prog.states):
        s = prog.states[k]
        seen: dict[Guard, Branch] = {}
        for b in s.branches:
            guard = _GUARD[b.comparisons[0][0]] if b.comparisons else Guard.TRUE
            if guard in seen:
                raise OutsideModel(f"q{k} has two branches with guard `{guard.value}` "
                                   f"({seen[guard].comparisons[0][0]} and {b.comparisons[0][0]}): "
                                   "Definition 3, determinism")
            seen[guard] = b
            dipa.add_transition(Transition(k - 1, guard, b.target - 1, _output(b.output), bool(b.assigns)))
        if s.non_input and s.guarded:
            raise OutsideModel(f"non-input state q{k} compares with {var}: Definition 3, "
                               "non-input transitions")
        if Guard.GE in seen and Guard.LT in seen:
            o1, o2 = seen[Guard.GE].output, seen[Guard.LT].output
            if o1 == o2:
                raise OutsideModel(f"both branches of q{k} output {o1}: Definition 3, output distinction")
            if not o1.startswith("o") and not o2.startswith("o"):
                raise OutsideModel(f"both branches of q{k} output real values ({o1}, {o2}): "
                                   "Definition 3, output distinction")
    init = prog.states[1]
    if init.guarded or len(init.branches) != 1 or not init.branches[0].assigns:
        raise OutsideModel("the initial state q1 must have one transition, guard true, that stores: "
                           "Definition 3, initialization")
    initial_real = not init.branches[0].output.startswith("o")
    return Converted(dipa, var, initial_real)


# ---------------------------------------------------------------- writers
def to_dp_text(dipa: DiPA) -> str:
    """The automaton as a `.dp` `automaton` block (our language)."""
    return automaton_text(dipa)


def _number(q: Fraction) -> str:
    q = Fraction(q)
    if q < 0:
        raise ValueError(f"DiPAut's language has no negative numbers: {q}")
    return fmt_fraction(q)


def bfs_order(automaton) -> tuple[list[int], dict[int, int]]:
    """The reachable states in breadth-first order from the initial one (which comes
    first), and each one's position; for either IR (states, transitions, initial)."""
    out = automaton.out_edges()
    order, index, k = [automaton.initial], {automaton.initial: 0}, 0
    while k < len(order):
        for e in out[order[k]]:
            w = automaton.transitions[e].target
            if w not in index:
                index[w] = len(order)
                order.append(w)
        k += 1
    return order, index


def reachable_part(dipa: DiPA) -> DiPA:
    """The states reachable from the initial one, the initial state first, the
    others in breadth-first order (so every state but q1 is a `goto` target)."""
    out = dipa.out_edges()
    order, index = bfs_order(dipa)
    new = DiPA(dipa.name)
    for q in order:
        s = dipa.states[q]
        new.add_state(State(s.name, s.is_input, s.d, s.mu, s.d_prime, s.mu_prime))
    for q in order:
        for e in out[q]:
            t = dipa.transitions[e]
            new.add_transition(Transition(index[q], t.guard, index[t.target], t.output, t.store))
    return new


def from_dipa(dipa: DiPA) -> str:
    """Our IR as `.dipa` text for DiPAut.

    Only the reachable part is written (DiPAut numbers vertices by name and
    has no way to declare a state without transitions), as q1..qK with the
    initial state q1.  Symbols become `o`-names, the silent output `osilent`.
    Reachable states without transitions become `goto` targets only."""
    dipa = reachable_part(dipa)
    names: dict[str | None, str] = {}
    used: set[str] = set()

    def sym(s: str | None) -> str:
        if s not in names:
            base = {None: "silent", "⊤": "top", "⊥": "bot"}.get(s)
            if base is None:
                base = re.sub(r"[^A-Za-z0-9_]", "_", s) or "sym"
            cand = "o" + base
            i = 1
            while cand in used or cand == "output":
                i += 1
                cand = f"o{base}{i}"
            used.add(cand)
            names[s] = cand
        return names[s]

    out = dipa.out_edges()
    lines = []
    for q, s in enumerate(dipa.states):
        if not out[q]:
            continue
        kind = "" if s.is_input else ":non-input"
        params = f"{_number(s.d)},{_number(s.mu)}"
        if any(dipa.transitions[e].output.kind is OutKind.INSAMPLE_PRIME for e in out[q]) or s.d_prime:
            params += f",{_number(s.d_prime)},{_number(s.mu_prime)}"
        parts = []
        for e in out[q]:
            t = dipa.transitions[e]
            o = {OutKind.INSAMPLE: "insample", OutKind.INSAMPLE_PRIME: "insampleprime"}.get(t.output.kind)
            if o is None:
                o = sym(t.output.symbol)
            stmt = ("x:= insample; " if t.store else "") + f"output {o}; goto q{t.target + 1}"
            if t.guard is Guard.TRUE:
                parts.append(stmt)
            else:
                op = ">=" if t.guard is Guard.GE else "<"
                parts.append(f"(insample {op} x) then {stmt}")
        if dipa.transitions[out[q][0]].guard is Guard.TRUE:
            if len(parts) != 1:
                raise ValueError(f"{s.name}: a `true` transition must be the only one")
            body = parts[0]
        else:
            body = "if " + " elseif ".join(parts)
        lines.append(f"(q{q + 1}{kind},{params}): {body}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- random automata
def random_dipa(rng: random.Random, profile: str, max_states: int = 8):
    """A random DiPA after tests/dipa_strategies.py (profiles "normal", "private", "dense"),
    with non-negative means (DiPAut's language has no signs) and a bias towards the next
    state (so that more of it is reachable); "initreal": the initial transition outputs
    insample (or insample′) as in DiPAut's example 23."""
    rates = [Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2, 9), Fraction(1, 3)]
    symbols = [symbol("⊤"), symbol("⊥"), symbol("a")]
    outputs = symbols + [OUT_INSAMPLE, OUT_INSAMPLE_PRIME]
    dense = profile == "dense"
    private = profile == "private"
    n = rng.randint(2 if dense else 1, 5 if dense else max_states)
    dipa = DiPA("random")
    for i in range(n):
        dipa.add_state(State(f"q{i}", rng.random() < 0.5, rng.choice(rates), Fraction(rng.randint(0, 2)),
                             rng.choice(rates), Fraction(rng.randint(0, 2))))
    store_p = 0.15 if private else 0.5 if dense else 0.4
    real_p = 0.1 if private else 0.6 if dense else 0.3

    def out():
        return rng.choice(outputs) if rng.random() < real_p else rng.choice(symbols)
    for q in range(n):
        state = dipa.states[q]
        # half of the first targets go to the next state, so that most states are reachable
        target = q + 1 if q + 1 < n and rng.random() < 0.5 else rng.randrange(n)
        if q == 0:
            o = rng.choice([OUT_INSAMPLE, OUT_INSAMPLE, OUT_INSAMPLE_PRIME]) if profile == "initreal" \
                else rng.choice(symbols)
            dipa.add_transition(Transition(0, Guard.TRUE, target, o, True))
            continue
        if not state.is_input:
            if rng.random() < 0.5:
                dipa.add_transition(Transition(q, Guard.TRUE, target, out(), rng.random() < store_p))
            continue
        shape = rng.choice(["none", "true", "ge", "lt", "both", "both"])
        if shape == "true":
            dipa.add_transition(Transition(q, Guard.TRUE, target, out(), rng.random() < store_p))
        elif shape in ("ge", "lt"):
            g = Guard.GE if shape == "ge" else Guard.LT
            dipa.add_transition(Transition(q, g, target, out(), rng.random() < store_p))
        elif shape == "both":
            o1 = out()
            o2 = rng.choice([o for o in outputs if o != o1 and not (o.is_real and o1.is_real)])
            dipa.add_transition(Transition(q, Guard.GE, target, o1, rng.random() < store_p))
            dipa.add_transition(Transition(q, Guard.LT, rng.randrange(n), o2, rng.random() < store_p))
    return dipa


# ---------------------------------------------------------------- the multi-variable corpus
KIND = {"Leaking Cycle": "DP001", "Leaking Pair": "DP002", "Disclosing Cycle": "DP003",
        "Privacy Violating Path": "DP004"}

NO_INPUT = ("Every state that draws is a non-input state (the file compares at non-input states, outside "
            "the LICS 2021 model): no output depends on the input, so the automaton is private with d = 0 "
            "(the same output distribution on every input).  DiPAut's {dipaut}.")
REASONS = {
    "simple_examples/two_range_1.dipa":
        "The leaking pair DiPAut reports holds here too (DP002/AG for v: the L_v-cycle at q4, then "
        "q4 -> q5 stores nothing, then the G_v-cycle at q5), but q4's branches 'insample > v && insample < w' "
        "(to q5) and 'insample > v && insample > w' (to q6) both output otop: without output distinction "
        "dslc does not claim that the outputs leak.  DiPAut itself says 'Automata is not well-formed' "
        "(its output-distinction test), not 'not differentially private'."
        " Evidence that the leak is real all the same: dslc's witness search (dslc.dipa.multiprob.witness) finds the leaking pair's witness path"
        ' (q4 looped n times, q4 -> q5 on otop, q5 looped n times); its output event is that one path, '
        'because q6 halts and so the outputs after otop tell q5 from q6.  At ε = 1 its loss grows 0.729, '
        '1.17, 1.63, 2.09 for n = 1..4, above 2ε at n = 4: `dslc prob '
        'tests/fixtures/dipaut/simple_examples/two_range_1.dipa --epsilon 1 --inputs=-1,0,0,0,0,0,0,0,0,0'
        ' --outputs=obot,obot,obot,ocontinue,ocontinue,ocontinue,ocontinue,ocontinue,otop,ocontinue,ocont'
        'inue,ocontinue,ocontinue` (Pr_α 4.23e-6) and the same with `--inputs=0,1,1,1,1,-1,-1,-1,-1,-1` '
        "(Pr_β 5.24e-7), ln ratio 2.088.  dslc still answers unknown: its 'not private' needs output "
        'distinction for the growth to hold for every n, which it does not prove here.',
}


def agreement(rel: str, dipaut: dict, r) -> tuple[str, str]:
    """("agree" | "differ" | "unknown", why) of dslc's check_multi result r against
    DiPAut's recorded verdict on the corpus file rel (its expected.json entry)."""
    if r.verdict == "unknown":
        return "unknown", REASONS.get(rel, r.reason)
    if dipaut["private"]:
        if r.verdict == "private" and r.d == Fraction(dipaut["d"]):
            return "agree", ""
    elif r.verdict == "not-private":
        detected = KIND[dipaut["detected"]] in r.kinds
        absent_ok = all((KIND[n] in r.kinds) == found for n, found in dipaut["reported"])
        if detected and absent_ok:
            return "agree", ""
    if r.verdict == "private" and r.d == 0 and "non_input" in rel:
        said = (f"verdict is 'private, d = {dipaut['d']}' (a valid but larger bound)" if dipaut["private"]
                else f"verdict 'not differentially private' ({dipaut['detected']}) is wrong")
        return "differ", NO_INPUT.format(dipaut=said)
    return "differ", REASONS.get(rel, "UNEXPLAINED")


def multi_to_dipaut(m) -> str | None:
    """A multi-variable automaton (dslc.ir.multi_dipa) as `.dipa` text for DiPAut: its
    reachable part, states renumbered q1..qK in breadth-first order from the initial one,
    each state's exclusive transitions as `if … elseif …` (so first-match reading changes
    nothing), symbols as `o`-names.  None if DiPAut could not read it: a line compares a
    variable no earlier line stores, or a `true` transition has siblings."""
    from dslc.ir.dipa import OutKind as K
    out = m.out_edges()
    order, index = bfs_order(m)
    names: dict[str | None, str] = {}
    lines, stored = [], set()
    for q in order:
        if not out[q]:
            continue
        s = m.states[q]
        head = (f"(q{index[q] + 1}{'' if s.is_input else ':non-input'},{_number(s.d)},{_number(s.mu)},"
                f"{_number(s.d_prime)},{_number(s.mu_prime)})")
        parts = []
        for e in out[q]:
            t = m.transitions[e]
            if any(lit.var not in stored for lit in t.guard):
                return None
            if t.output.kind is K.INSAMPLE:
                word = "insample"
            elif t.output.kind is K.INSAMPLE_PRIME:
                word = "insampleprime"
            else:
                word = names.setdefault(t.output.symbol, f"o{len(names)}")
            body = "".join(f"{v}:= insample" + (", " if i + 1 < len(t.assigns) else "; ")
                           for i, v in enumerate(sorted(t.assigns)))
            parts.append((t.guard, f"{body}output {word}; goto q{index[t.target] + 1}"))
            stored |= t.assigns
        if len(parts) == 1 and not parts[0][0]:
            lines.append(f"{head}: {parts[0][1]}")
        elif any(not g for g, _ in parts):
            return None
        else:
            branches = [f"({' && '.join(f'insample {lit.op} {lit.var}' for lit in g)}) then {b}" for g, b in parts]
            lines.append(f"{head}: if " + " elseif ".join(branches))
    return "\n".join(lines) + "\n"


def distinct_corpus_files(root) -> list[tuple[object, str]]:
    """(path, text) of the `.dipa` files under ``root``, sorted, each text once (the
    corpus repeats some files under two names)."""
    from pathlib import Path
    seen: set[str] = set()
    out = []
    for f in sorted(Path(root).rglob("*.dipa")):
        text = f.read_text(encoding="utf-8")
        if text not in seen:
            seen.add(text)
            out.append((f, text))
    return out
