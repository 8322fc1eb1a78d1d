"""The codes of privacy budgets (docs/checker.md, "Budgets and the lower bound")."""

from __future__ import annotations

from dslc.diagnostics.codes import register

register("E125", "invalid-declaration", "A `budget` or `sensitivity` declaration that cannot be used.", """
A DiPA block may declare, between its name (and parameters) and its body,

    mechanism svt(T = 0) budget ε { … }
    automaton a sensitivity 2 budget 3/2 ε { … }

`budget Dε` is a non-negative rational multiple of ε (`ε`, `3/2 ε`, `2*e1`
for a parameter `e1 = ε/2`); `sensitivity Δ` is a positive rational
constant (adjacent inputs differ by at most Δ).  Each may appear once.  A
budget written without ε (`budget 1`), a negative one, a sensitivity that
depends on ε or is not positive, and a second declaration of either are
this error.
""")
register("DP005", "budget-not-proven", "The block's proven bound d is above its privacy budget.", """
The block is differentially private — dε-private for every ε with the
proven constant d = Δ·wt(A) — but d is larger than its budget D (declared
with `budget Dε`, or given by `dslc check --max-d D`), and no pair of
adjacent inputs was found that loses more than Dε.

d is an upper bound: the best constant d* may be smaller (a single Laplace
release is charged 2d but leaks d).  The report gives both bounds,
d_lower ≤ d* ≤ d, the critical transitions whose costs make up d, and the
rates that would fit the budget (every rate multiplied by D/d).  A longer
search (`--lower-bound-work N`) may turn this into DP006; a budget is
only met when it is proven.
""")
register("DP006", "budget-exceeded", "Adjacent inputs lose more privacy than the budget allows.", """
A concrete witness — ε, two adjacent input sequences α and β and one output
sequence — has ln(Pr_α/Pr_β) > Dε, computed from exact path probabilities
(the lower end of Pr_α's error interval against the upper end of Pr_β's).
So the block is not Dε-differentially private, whatever a proof says: the
budget D is exceeded.  The two `dslc prob` lines replay the two
probabilities.

Lee and Clifton's sparse vector (Lyu, Su, Li, VLDB 2017, Alg. 4: threshold
Lap(ε/4), queries Lap(3ε/4)) was published as ε-private; its d is 7/4 and
queries that are all shifted against the threshold lose about 1.74ε.

Fix: lower the rates (the help line gives rates that fit), or declare the
budget the mechanism really has.
""")
