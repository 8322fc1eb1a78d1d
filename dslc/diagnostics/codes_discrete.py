"""Codes of discrete mechanisms checked by the bounded checker (docs/discrete.md):
E150–E159 (what cannot be lowered to a finite model) and DP020–DP022 (verdicts)."""

from dslc.diagnostics.codes import register

register("E150", "unbounded-discrete-noise", "A `DLap` draw whose value can be any integer.", """
The bounded checker explores a finite model, so every value a program stores or
outputs must come from a finite set.  `DLap(rate, mean)` can return any
integer: clamp it (`clamp(DLap(ε, q), 0, 5)`, values outside move to the
nearest end), or compare it directly with a value (`if DLap(ε/4, q) >= x`),
whose outcome is exact without a clamp.
""")
register("E151", "continuous-noise-in-discrete", "Continuous `Lap` noise in a mechanism checked by the bounded checker.", """
The bounded checker handles discrete noise (`DLap`, `flip`) only.  A mechanism
that uses `Lap` is checked as a DiP automaton; it cannot also use discrete
noise, declare an input domain, or be given `--backend bounded`.
""")
register("E152", "not-lowerable", "An expression or condition the bounded checker cannot evaluate.", """
A condition is a comparison (`q >= 1`) or a coin (`if flip(1/2) { … }`);
arithmetic is on numbers read, drawn or assigned; output symbols can only be
output.
""")
register("E153", "bad-coin-probability", "A coin's probability is not a fixed expression in e^ε between 0 and 1.", """
`flip(p)` takes a probability written with numbers, parameters and `e^ε`
(`e^(2ε)`, `e^(ε/2)`), e.g. `flip(e^ε / (1 + e^ε))`.  It must lie in [0, 1]
for every ε > 0 (checked exactly).  `ε` and `e^…` may appear nowhere else
except in noise rates.
""")
register("E154", "unassigned-variable", "A variable is used before it is assigned.", """
Every variable of a discrete mechanism must be assigned on every run before it
is read.
""")
register("E155", "bad-discrete-rate", "A `DLap` rate that is not a positive multiple of ε.", """
`DLap(dε, μ)` has P(k) ∝ e^(−dε·|k − μ|); d must be a positive rational.
""")
register("E156", "bad-discrete-parameter", "A mechanism parameter without a numeric value.", """
Parameters of a discrete mechanism are constants: give each one a value
(`mechanism m(T = 2) …`).
""")
register("E157", "unbounded-loop", "A loop that does not read an input, or a misplaced `break`/`read()`.", """
The finite model takes one step per input read.  Every iteration of a loop
must read an input (`q := read()`), each statement reads at most once, and
`break` stays inside a loop.
""")
register("E158", "bad-discrete-declaration", "A malformed input domain, adjacency, horizon or clamp range.", """
`input in [lo, hi]` takes integers with at most 64 values; `adjacent Δ` a
positive integer or `any`; `horizon k` an integer from 1 to 64; `clamp`
integer bounds with lo ≤ hi, and `DLap` an integer mean.
""")
register("E159", "missing-input-domain", "A discrete mechanism without a finite input domain.", """
The bounded checker enumerates every pair of adjacent input sequences, so it
needs the values a `read()` can return: `mechanism m input in [0, 3] { … }`.
""")
register("DP020", "discrete-violation", "Two adjacent input sequences give an output sequence too different probabilities.", """
The bounded checker found two adjacent input sequences α and β and an output
sequence o whose probabilities are not within the required factor: o is
possible under α only, or Pr_α(o)/Pr_β(o) stays above 1 as ε tends to 0 (no
d works), or it exceeds the declared budget e^(dε) at the ε shown.  Both
probabilities are given exactly, in closed form in e^ε; the check is an
exhaustive enumeration of the finite model up to the horizon, so the pair is
a proof.
""")
