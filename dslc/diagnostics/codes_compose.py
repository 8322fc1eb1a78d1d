"""The codes of programs of mechanisms: imports and releases (docs/composition.md)."""

from __future__ import annotations

from dslc.diagnostics.codes import register

register("E170", "import-not-found", "An import names a file that cannot be read.", """
`import m from "other.dp"` reads `other.dp` relative to the folder of the
importing file.  The file does not exist, is not readable, or is not UTF-8
text.  `import m from stdlib` reads the standard library shipped with dslc
and never needs a path.
""")
register("E171", "import-unknown-name", "An imported name is not defined in the file it is imported from.", """
Every name of `import a, b from …` must be the name of a block defined in
that file (or, for `stdlib`, in one of the standard library's files).
Names a file imports itself are not passed on: import them from where
they are defined.
""")
register("E172", "import-cycle", "Files import each other in a cycle.", """
`a.dp` imports from `b.dp`, which imports (directly or through other
files) from `a.dp`.  A program of mechanisms is read from the files it
imports, so the imports must not loop; move the shared blocks into a
file of their own and import them from there.
""")
register("E173", "import-shadows", "An imported name is already defined in the file, or imported twice.", """
A block name means one block in a file: an import may not bring in a
name that a block of the file defines, or that another import already
brought in.  Rename the local block, or import the name once.
""")
register("E174", "unknown-callee", "A release calls a name that is neither defined nor imported.", """
A call `m(…) with ε/2` in a `release` names a `mechanism` or `automaton`
block of the same file or one brought in by `import`.
""")
register("E175", "bad-call", "A call's arguments cannot instantiate the mechanism.", """
Arguments are written `name = value` and name a parameter of the called
mechanism, once each; a value is an exact constant or a multiple of ε
(the ε of the callee: the share scales it with every rate).  An
`automaton` takes no arguments.  When the instantiated program does not
lower (a rate that becomes negative, say), the callee's own error is
shown with the call.
""")
register("E176", "bad-share", "A call's share of ε is not a positive multiple of ε.", """
`with S` gives the call a share S of the release's ε: every rate of the
callee is multiplied by S (with the parameters that are multiples of ε),
so a callee proven dε-private costs d·S.  S is written like a budget —
`ε/2`, `3/4 ε` — and must be positive.
""")
register("E177", "composition-not-covered", "A call the composition theorems do not cover.", """
Releases add up costs with the sequential composition theorem and take the
maximum with the parallel composition theorem (docs/composition.md).  Both
are theorems about ε-differential privacy of mechanisms that share no
state.  They do not apply to a call of an `hmm`, `mdp` or `chain` block
(Pufferfish privacy does not compose in general), nor to a call of
another `release` (import its mechanisms and call them instead), nor to
a group `on disjoint P` that names the partition of an enclosing group.
dslc refuses such a release rather than add numbers that prove nothing.
""")
register("E178", "bad-release", "A release declaration that cannot be used.", """
A release declares at most a budget (`budget ε`); a sensitivity belongs to
the mechanism whose queries have it.  A release with no call, and a group
`on disjoint P { }` with no call, are this error too.
""")
register("DP030", "callee-not-private", "A release calls a block that is not proven differentially private.", """
Composition adds the proven constants of the calls; a call whose block is
not differentially private (or could not be checked) has none, so the
release is not proven private either.  The callee's own report says why.
""")
