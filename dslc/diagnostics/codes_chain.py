"""Diagnostic codes of `chain` blocks and of `dslc release` (E240–E279).

E200–E239 belong to the `hmm`/`mdp` backend; codes are never renumbered.
"""

from __future__ import annotations

from dslc.diagnostics.codes import register

register("E240", "chain-missing-setting", "A `chain` block lacks a required setting.", """
A `chain` block needs `states`, a transition matrix (at top level or in each
`model`), `length`, `query` and `ε`.  The message names the missing one.
See docs/correlated.md for the syntax:

    chain walk {
        states = [0, 1]
        initial = stationary
        transition = [[9/10, 1/10], [1/5, 4/5]]
        length = 100
        query = sum
        ε = 1
    }
""")
register("E241", "chain-duplicate-setting", "A setting of a `chain` block is given twice.", """
Each setting (`states`, `initial`, `transition`, `length`, `query`, `ε`,
`method`) may appear once per block (or once per `model`).  Remove one.
""")
register("E242", "chain-not-a-number", "A value that must be an exact rational is not one.", """
Probabilities, ε, Lipschitz constants and state values are exact rationals
written as numbers and arithmetic on numbers (`1/7`, `0.25`, `1 - 1/7`).
Names, `ε` and draws are not allowed there; division by zero is an error.
""")
register("E243", "chain-bad-states", "The state space is empty or a state is declared twice.", """
`states = [...]` lists the finite state space: names (`sit`), numbers (`0`,
`-1/2`), or names with a numeric value (`walk = 1`), each once.  A numeric
value is needed for `query = sum`.
""")
register("E244", "chain-shape", "A distribution or matrix does not match the number of states.", """
The initial distribution has one entry per state and the transition matrix
one row per state, each row with one entry per state, in the order of
`states`.
""")
register("E245", "chain-not-stochastic", "A row of the transition matrix is not a probability distribution.", """
Row `x` of the transition matrix is P(X_{t+1} = · | X_t = x): its entries are
non-negative and sum to exactly 1 (the sum is computed exactly; `0.33` three
times is not 1 — write `1/3`).
""")
register("E246", "chain-bad-initial", "The initial distribution is not a probability distribution.", """
`initial = [...]` gives P(X_1 = x) for every state: non-negative entries that
sum to exactly 1.  `initial = stationary` starts the chain in its stationary
distribution instead.
""")
register("E247", "chain-no-unique-stationary", "`initial = stationary` on a chain without a unique stationary distribution.", """
A chain with two or more closed classes (a reducible chain, e.g. with two
absorbing states) has many stationary distributions, so `stationary` does not
name one.  Give the initial distribution explicitly, or make the chain
irreducible.
""")
register("E248", "chain-bad-epsilon", "ε must be a positive rational.", """
The privacy parameter ε of a `chain` block is a rational number greater than
0 (`ε = 1`, `ε = 1/2`).
""")
register("E249", "chain-bad-length", "The series length must be a positive integer.", """
`length = T` (or `T = ...`) is the number of records X_1, …, X_T; it is an
integer between 1 and 10^12.
""")
register("E250", "chain-bad-query", "The query cannot be computed on this state space.", """
`query = sum` needs a numeric value for every state (`states = [0, 1]` or
`states = [sit = 0, walk = 1]`); `query = count(S)` needs a declared state
S; `query = lipschitz(L)` needs L ≥ 0; `histogram` always works (L = 2 in the
L1 norm).
""")
register("E251", "chain-not-ergodic", "The chosen method needs an irreducible, aperiodic chain.", """
The eigen-gap bound of the Markov Quilt mechanism (`method = approx`) holds
for irreducible and aperiodic chains only: it needs a stationary
distribution with full support and a spectral gap.  A periodic chain (for
example one that alternates between two states) or a reducible one has
neither.  Use `method = exact` (or `auto`), which works for every chain —
though for a periodic chain the exact mechanism can do no better than group
differential privacy.
""")
register("E252", "chain-unknown-method", "`method` is not `auto`, `exact` or `approx`.", """
`method = exact` computes max-influences from the chain (exact rationals);
`method = approx` uses the eigen-gap upper bound only; `method = auto` (the
default) computes both and keeps the smaller valid bound for every quilt.
""")
register("E253", "chain-models", "The class Θ of chains is declared inconsistently.", """
Θ is either one chain given by top-level `initial` and `transition`, or one
or more `model NAME { initial = ...; transition = ... }` blocks — not both.
Every model needs a transition matrix; model names are distinct.
""")
register("E254", "chain-out-of-range", "ε, a noise scale or a query value is too large or too small.", """
Noise scales, the Markov Quilt search and released values are binary64
floating-point numbers, so a `chain` block is calibrated only when
10^-300 < ε < 10^300, the group-DP scale T·L/ε is at most 10^300, and the
query stays within 10^300 (T times the largest state value).  Beyond, the
noise could not be represented; use numbers of reasonable size.
""")
register("E260", "release-data-unreadable", "The data file cannot be read.", """
`dslc release FILE --data series.csv` reads the series from a UTF-8 text
file; the path does not exist, is a folder, is not readable or is not text.
""")
register("E261", "release-bad-csv", "The data file is not a series of records.", """
The data file holds one record per line (comma-separated fields; the state is
taken from the column chosen with `--column`, the first by default).  Blank
lines are skipped; `--header` skips a first line of column names.
""")
register("E262", "release-state-outside-space", "A record is not a state of the declared space.", """
Every record must be one of the `states` of the chain block (names compare as
text, numbers exactly: `1`, `1.0` and `2/2` are the same state).  Data with
other values would make the calibrated noise meaningless, so nothing is
released.
""")
register("E263", "release-length-mismatch", "The series does not have the declared length.", """
The noise was calibrated for a series of exactly `length` records; a series
of another length needs its own calibration.  Fix the data or set `length`.
""")
register("E264", "release-no-block", "No valid `chain` block to release with.", """
`dslc release` needs exactly one valid `chain` block in the file, or
`--block NAME` naming one.  Blocks with errors cannot be used: fix them first
(`dslc check FILE`).
""")
register("E265", "release-query-not-computable", "The query is only declared by its Lipschitz constant.", """
With `query = lipschitz(L)` dslc knows how much noise to add but not how to
compute the query.  Use `dslc calibrate` for the scale and add the noise
yourself, or declare `sum`, `count(S)` or `histogram`.
""")
register("E266", "release-mechanism-not-applicable", "The requested mechanism does not apply to this block.", """
`--mechanism` names one of the mechanisms that `dslc calibrate` lists as
applicable for the block (for example the Wasserstein mechanism is only
available for small models with a scalar query).
""")
register("E267", "release-impossible-series", "The series has probability 0 under every chain of Θ.", """
The noise of a `chain` block is calibrated for the series that the declared
class Θ of chains can produce.  A series that no θ ∈ Θ allows — a first
record with initial probability 0, or two consecutive records joined by a
transition of probability 0 — is outside that guarantee (for example
`1, 1, 1, 1` for a chain that starts in state 0 and never leaves it), so
`dslc release` refuses it instead of releasing a value whose privacy nothing
backs.  Fix the data, or declare the model (`initial`, `transition`, or more
`model` blocks) under which it is possible.
""")
