"""Diagnostic codes of `hmm` / `mdp` blocks (E200–E239).

`DP101` (a Pufferfish violation) is registered with the shared codes.
"""

from __future__ import annotations

from dslc.diagnostics.codes import register

register("E201", "unknown-state", "A row, prior or secret names a state that is not declared.", """
Every state used in a transition row, an `emits` row, the prior or a secret
must be listed on a `states` line first:

    states pos, neg, said_yes, said_no
""")
register("E202", "unknown-observation", "An `emits` row names an observation that is not declared.", """
The observations a model can emit are listed on an `observations` line;
every `emits` row uses only those names.
""")
register("E203", "unknown-action", "A row of an `mdp` names an action that is not declared.", """
The actions of an `mdp` are listed on an `actions` line; a row for one action
is written `state on ACTION -> ...`.
""")
register("E204", "duplicate-declaration", "A state, observation, action, parameter or secret is declared twice.", """
Names of one kind must be distinct within a block.
""")
register("E205", "row-not-distribution", "A row of probabilities does not sum to 1.", """
The prior, every transition row and every `emits` row is a probability
distribution: its entries sum to exactly 1.  Numbers are exact rationals, so
`0.33, 0.33, 0.34` sums to 1 but `1/3, 1/3, 0.33` does not.  When the row
uses symbolic parameters, z3 must prove that it sums to 1 for every value
allowed by the `param` ranges and `assume` lines; the message then gives
parameter values for which it does not.
""")
register("E206", "negative-probability", "A probability is (or can be) negative.", """
Probabilities lie between 0 and 1.  For a symbolic probability such as
`1 - 2*p`, z3 must prove it is ≥ 0 under the declared constraints; the
message gives parameter values for which it is negative.  Add a constraint
(`param p in (0, 1/2)` or `assume 2*p <= 1`) or correct the expression.
""")
register("E207", "missing-row", "A state has no transition row, no observation row, or there is no prior.", """
Every state needs a transition row (`s -> t: p, ...`; a state that stays
put: `s -> s`) and an observation row (`s emits o: p, ...`), and the model
needs a `prior`.  In an `mdp` a state has either one row for every action
(`s -> ...`) or one row per action (`s on L -> ...`).
""")
register("E208", "duplicate-row", "A row, an entry of a row, or the prior is given twice.", """
Each state has one transition row (per action) and one `emits` row, each
target appears once per row, and the prior is given once.
""")
register("E209", "secret-zero-probability", "A secret has prior probability 0.", """
Each side of a protected pair is the prior conditioned on its secret, which
is undefined when the secret has probability 0.  For a symbolic prior, z3
must prove the secret's probability is positive under the constraints.
""")
register("E210", "pair-with-itself", "A protected pair names the same secret twice.", """
`protect a, b` asks that no observation sequence tells secret `a` from
secret `b` by more than e^ε; `a` and `b` must be different secrets.
""")
register("E211", "unknown-secret", "`protect` names a secret that is not declared.", """
Declare secrets as events on the initial state before pairing them:

    secret sick = {pos}
    secret healthy = {neg}
    protect sick, healthy
""")
register("E212", "unknown-parameter", "An expression uses a name that is not a declared parameter.", """
Names inside probabilities are parameters: `param p in (0, 1)` (symbolic,
with a range) or `param q = 1/3` (a fixed value).
""")
register("E213", "invalid-probability-expression", "An expression that cannot be a probability here.", """
Probabilities are exact numbers, parameters, and `+ - * /` of them, where
division is by a number only (so every probability is a polynomial in the
parameters).  ε, `Lap(...)`, `read()` and output symbols are not allowed,
and bounds, fixed values and ε must be numbers.
""")
register("E214", "invalid-epsilon", "ε is negative or not a number.", """
`check ε = ln R` (R ≥ 1, rational) makes e^ε = R exact.  `check ε = r` with a
rational r ≥ 0 is also accepted; e^ε is then irrational and is compared
through exact rational bounds (see docs/pufferfish.md).
""")
register("E215", "invalid-horizon", "The horizon `k` is missing or not a positive integer.", """
`k` is the number of observations checked: the model emits at t = 0 .. k-1
(`check ε = ln 3, k = 2`).  It must be an integer between 1 and 200.
""")
register("E216", "missing-check", "The block has no `check` line, or more than one.", """
Each `hmm` / `mdp` block says once what to check: `check ε = ln 3, k = 2`.
""")
register("E217", "no-secret-pair", "The block protects no pair of secrets.", """
Pufferfish privacy is about pairs of secrets: declare them and the pairs to
protect with `secret` and `protect` lines.
""")
register("E218", "unsatisfiable-constraints", "The parameter constraints cannot all hold.", """
No parameter values satisfy the `param` ranges and `assume` lines together.
Every property would then hold vacuously, so dslc refuses to give a verdict.
""")
register("E219", "empty-range", "A parameter range is empty.", """
`param p in (lo, hi)` needs lo < hi (lo ≤ hi for a closed range `[lo, hi]`).
""")
register("E220", "invalid-find", "`find` names something that is not a symbolic parameter.", """
`find p, q` asks for values of parameters declared with a range
(`param p in (0, 1)`); a parameter with a fixed value cannot be searched for.
""")
register("E221", "actions-mismatch", "Actions in an `hmm`, or an `mdp` without actions.", """
Only an `mdp` has actions (chosen by the analyst, `actions L, H`, rows
`s on L -> ...`); an `hmm` has none.
""")
register("E222", "empty-model", "The model declares no states or no observations.", """
A model lists its hidden states (`states ...`) and its observations
(`observations ...`).
""")
register("E224", "cannot-prove-well-formed", "z3 could not decide whether a symbolic row is a distribution.", """
A symbolic probability or row could not be proved non-negative / summing to
1 (or a secret's probability positive) within the time limit.  dslc will not
check a model it cannot show to be well formed.  Simplify the expressions or
add constraints.
""")
register("E230", "solver-unknown", "The SMT solver gave up (`unknown`, or a query too large to build).", """
z3 answered `unknown` for a reason other than the block's time limit (this
can happen with symbolic parameters: nonlinear real arithmetic), the check's
own limit ran out, or the SMT query would be too large to build (more than
100,000 terms, about half a gigabyte: many states and a long horizon).  The
verdict is "unknown" and the exit status 2; nothing is claimed about privacy.
When the block's time limit (`--timeout`) is spent the code is E014, as for
every block.  Lower `k` or the number of states, or give parameters values.
""")
register("E231", "witness-not-confirmed", "A solver witness failed its exact re-check.", """
Every counterexample and every synthesised parameter value is re-checked with
exact rational arithmetic before it is reported.  This one did not pass, so
the verdict is "unknown".  This points at a bug in dslc: please report it.
""")
