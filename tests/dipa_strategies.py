"""Hypothesis strategies: random DiP automata that satisfy Definition 3."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import strategies as st

from dslc.ir.dipa import (OUT_INSAMPLE, OUT_INSAMPLE_PRIME, DiPA, Guard, State, Transition,
                          symbol)

# Positive rates only: a draw of rate 0 that is compared, stored or output is
# E124 (no distribution); validation tests cover rate 0 separately.
RATES = [Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2, 9), Fraction(1, 3)]
SYMBOLS = [symbol("⊤"), symbol("⊥"), symbol("a")]
OUTPUTS = SYMBOLS + [OUT_INSAMPLE, OUT_INSAMPLE_PRIME]


@st.composite
def dipas(draw, max_states: int = 8, private_bias: bool = False, dense: bool = False) -> DiPA:
    n = draw(st.integers(1 if not dense else 2, max_states))
    dipa = DiPA("random")
    for i in range(n):
        dipa.add_state(State(f"q{i}", draw(st.booleans()), draw(st.sampled_from(RATES)),
                             Fraction(draw(st.integers(-2, 2))), draw(st.sampled_from(RATES)), Fraction(0)))
    store_p = 0.15 if private_bias else 0.5 if dense else 0.4
    real_p = 0.1 if private_bias else 0.6 if dense else 0.3
    for q in range(n):
        state = dipa.states[q]
        target = lambda: draw(st.integers(0, n - 1))  # noqa: E731
        if q == 0:
            # the initial transition may release its draw (as the DiPA authors' tool allows)
            first = draw(st.sampled_from(OUTPUTS)) if draw(st.floats(0, 1)) < real_p else draw(st.sampled_from(SYMBOLS))
            dipa.add_transition(Transition(0, Guard.TRUE, target(), first, True))
            continue
        if not state.is_input:
            if draw(st.booleans()):
                out = draw(st.sampled_from(OUTPUTS)) if draw(st.floats(0, 1)) < real_p else draw(st.sampled_from(SYMBOLS))
                dipa.add_transition(Transition(q, Guard.TRUE, target(), out, draw(st.floats(0, 1)) < store_p))
            continue
        shape = draw(st.sampled_from(["none", "true", "ge", "lt", "both", "both"]))
        if shape == "true":
            out = draw(st.sampled_from(OUTPUTS)) if draw(st.floats(0, 1)) < real_p else draw(st.sampled_from(SYMBOLS))
            dipa.add_transition(Transition(q, Guard.TRUE, target(), out, draw(st.floats(0, 1)) < store_p))
        elif shape in ("ge", "lt"):
            g = Guard.GE if shape == "ge" else Guard.LT
            out = draw(st.sampled_from(OUTPUTS)) if draw(st.floats(0, 1)) < real_p else draw(st.sampled_from(SYMBOLS))
            dipa.add_transition(Transition(q, g, target(), out, draw(st.floats(0, 1)) < store_p))
        elif shape == "both":
            o1 = draw(st.sampled_from(OUTPUTS)) if draw(st.floats(0, 1)) < real_p else draw(st.sampled_from(SYMBOLS))
            # output distinction: different outputs, not both real
            choices = [o for o in OUTPUTS if o != o1 and not (o.is_real and o1.is_real)]
            o2 = draw(st.sampled_from(choices))
            dipa.add_transition(Transition(q, Guard.GE, target(), o1, draw(st.floats(0, 1)) < store_p))
            dipa.add_transition(Transition(q, Guard.LT, target(), o2, draw(st.floats(0, 1)) < store_p))
    return dipa


# ---------------------------------------------------------------- several variables
def _tree_guards(draw, variables, depth):
    """Exclusive conjunctions: the leaves of a random decision tree over the variables."""
    from dslc.ir.multi_dipa import GE, LT, Literal
    if depth == 0 or not draw(st.booleans()):
        return [()]
    v = draw(st.sampled_from(variables))
    out = []
    for op in (GE, LT):
        for rest in _tree_guards(draw, [w for w in variables if w != v] or [v], depth - 1):
            if Literal(v, GE if op == LT else LT) not in rest:
                out.append(tuple(sorted({Literal(v, op), *rest})))
    return out


@st.composite
def multi_dipas(draw, max_states: int = 5, max_vars: int = 3, input_p: float = 0.7):
    """Random automata of dslc.ir.multi_dipa with 2..max_vars variables: per state a
    decision tree of depth <= 2 (exclusive guards), some leaves dropped (the run stops
    there), random stores, outputs distinct per state."""
    from dslc.ir.multi_dipa import MState, MTransition, MultiDiPA
    nv = draw(st.integers(2, max_vars))
    variables = ["abc"[i] for i in range(nv)]
    n = draw(st.integers(2, max_states))
    m = MultiDiPA("random")
    for i in range(n):
        m.states.append(MState(f"q{i}", draw(st.floats(0, 1)) < input_p, draw(st.sampled_from(RATES)),
                               Fraction(0), draw(st.sampled_from(RATES))))
    first = frozenset(variables) if draw(st.booleans()) else frozenset(
        draw(st.lists(st.sampled_from(variables), min_size=1, unique=True)))
    m.transitions.append(MTransition(0, (), draw(st.integers(0, n - 1)), draw(st.sampled_from(SYMBOLS)), first))
    for q in range(1, n):
        guards = _tree_guards(draw, variables, 2)
        outs = list(OUTPUTS)
        for g in guards:
            if len(guards) > 1 and draw(st.floats(0, 1)) < 0.25:
                continue
            real = draw(st.floats(0, 1)) < 0.2
            pool = [o for o in outs if o.is_real == real] or outs
            out = draw(st.sampled_from(pool))
            outs.remove(out)
            stores = frozenset(draw(st.lists(st.sampled_from(variables), max_size=2, unique=True))) \
                if draw(st.floats(0, 1)) < 0.35 else frozenset()
            m.transitions.append(MTransition(q, g, draw(st.integers(0, n - 1)), out, stores))
    return m


def split_pieces(draw, m):
    """Up to two transitions of ``m`` (not the first) split into two pieces on a
    variable the first transition stores: the same output, target and stores, as
    DiPAut's reader splits `if … elseif …` branches, so the output no longer
    determines the piece taken.  Changes and returns ``m``."""
    from dslc.ir.multi_dipa import GE, LT, Literal, MTransition
    stored = sorted(m.transitions[0].assigns)
    for _ in range(draw(st.integers(1, 2))):
        if len(m.transitions) < 2:
            break
        i = draw(st.integers(1, len(m.transitions) - 1))
        t = m.transitions[i]
        free = [v for v in stored if v not in t.compares()]
        if not free:
            continue
        v = draw(st.sampled_from(free))
        m.transitions[i] = MTransition(t.source, tuple(sorted(t.guard + (Literal(v, GE),))), t.target,
                                       t.output, t.assigns)
        m.transitions.append(MTransition(t.source, tuple(sorted(t.guard + (Literal(v, LT),))), t.target,
                                         t.output, t.assigns))
    return m


@st.composite
def split_multi_dipas(draw, max_states: int = 5, split_p: float = 0.5):
    """multi_dipas, with probability ``split_p`` with branches split (split_pieces)."""
    m = draw(multi_dipas(max_states=max_states))
    return split_pieces(draw, m) if draw(st.floats(0, 1)) < split_p else m
