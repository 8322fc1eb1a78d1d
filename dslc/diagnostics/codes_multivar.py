"""The codes of automata and mechanisms with several stored variables
(docs/language.md, "Several variables"; docs/multivariable.md)."""

from __future__ import annotations

from dslc.diagnostics.codes import register

register("E130", "variable-never-stored", "A guard compares with a variable that no transition stores.", """
In an automaton with several variables, a variable exists because some
transition stores into it (`store l`, `store l, r`; plain `store` is
`store x`).  A comparison with a name that no transition stores has no value
to compare with — usually a typo.  Store the variable first, or compare with
one that is stored.
""")
register("E131", "contradictory-guard", "A conjunctive guard can never hold.", """
`insample >= l and insample < l` asks the draw to be both at least and below
the same variable: no draw satisfies it, so the transition can never be
taken.  Remove the transition, or compare with two different variables.
""")
register("E132", "overlapping-guards", "Two transitions of a state can be enabled by the same draw.", """
With several variables, the guards of one state's transitions must exclude
each other: for each pair some variable `v` with `insample >= v` in one and
`insample < v` in the other (a `true` guard is only allowed alone).  Guards
such as `insample >= l` and `insample < r` overlap (a draw can satisfy both
when l < r), so the automaton would not be deterministic.  Split the guards
into exclusive cases, e.g. `insample >= l and insample < r`,
`insample < l`, `insample >= l and insample >= r`.
""")
register("E133", "not-lowerable-several-variables", "A construct with several variables that cannot be represented faithfully.", """
An automaton with several variables stores only the step's draw
(`l := insample`), compares the draw with stored variables, and outputs a
symbol, the draw or a second draw.  Some programs cannot be written that way
and are refused rather than approximated: copying one stored variable into
another (`l := r`), comparing two stored variables with each other, a
comparison that mixes several draws, or a `sensitivity` declaration on a
block with several variables (not supported yet; a `budget` is).
""")
register("E134", "dipaut-syntax", "A `.dipa` file that DiPAut's language cannot read.", """
`dslc check FILE.dipa` and `dslc import FILE.dipa` read the language of
DiPAut, the DiPA authors' tool: one state per line,
`(q1:non-input,1/4,0): l:= insample; output obot; goto q2`, guards with
`insample >= l && insample < r`, `if … then … elseif …`.  The error says
where (line and column) and what was expected.  DiPAut rejects the same
text.
""")
register("DP010", "unknown-several-variables", "No verdict for an automaton with several variables.", """
For automata with several variables dslc decides privacy by the
generalised conditions and the shift coupling of docs/multivariable.md.
Where neither applies — the coupling fails on a path that no condition
explains, the conditions hold without output distinction, a comparison
with a variable that the path has not stored, or the order product
outgrows its size or time limit — the answer is "unknown" with the reason,
never a guess.  The diagnostic points at the transitions of the failing
path when there is one.
""")
