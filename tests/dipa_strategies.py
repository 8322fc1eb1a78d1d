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
