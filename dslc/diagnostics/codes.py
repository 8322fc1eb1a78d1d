"""The registry of diagnostic codes.

Codes are never renumbered.  Every code has a title (SARIF rule name, one
line), a summary and a long explanation (``dslc explain CODE``).
The codes of `hmm`/`mdp` blocks (E2xx) and `chain` blocks (E24x–E26x) live
in :mod:`codes_hmm` and :mod:`codes_chain`, imported at the end of this
module: importing the registry gives every code, with no side effect of a
backend import.
"""

from __future__ import annotations

from dataclasses import dataclass

DOCS_URL = "https://dslc.dev/docs/codes#{code}"


@dataclass(frozen=True)
class CodeInfo:
    code: str
    title: str
    summary: str
    explanation: str = ""

    @property
    def url(self) -> str:
        return DOCS_URL.format(code=self.code.lower())


REGISTRY: dict[str, CodeInfo] = {}


def register(code: str, title: str, summary: str, explanation: str = "") -> CodeInfo:
    info = CodeInfo(code, title, summary, explanation.strip())
    REGISTRY[code] = info
    return info


def lookup(code: str) -> CodeInfo | None:
    return REGISTRY.get(code.upper())


# --------------------------------------------------------------------------
# E0xx: reading and parsing
register("E000", "internal-error", "A bug in dslc, not in the checked file.", """
dslc met a situation it does not handle.  The message says where; please
report it with the file that triggered it (`DSLC_DEBUG=1` shows the Python
traceback).
""")
register("E001", "syntax-error", "The text does not follow the grammar of `.dp`.", """
The parser met a token it did not expect.  The message says what it expected
at that spot in words ("a guard such as `insample >= x`"), and the caret
points at the first token that could not be read.

After a syntax error the parser repairs the text in its mind — inserting the
expected token, or skipping to the next statement, transition or `}` — and
reads on, so every independent mistake of a block is reported (at most 20),
each once: errors within three tokens of a repair are taken to be its
echoes and not reported.  A block with a syntax error gets no verdict; the
other blocks of the file are still checked.  Misspelled keywords (E020),
look-alike characters (E021) and constructs of other languages (E022) have
codes of their own.
""")
register("E002", "unexpected-end", "The block ends before it is complete.", """
The file (or the block) ended while the parser still expected something,
most often a closing `}`.  The caret points at the `{` that is not closed:
when a later `}` is indented like an outer line, it is taken to close that
line's `{`, and the `{` it skipped is named (the label says which `}` lines
up with which line).  A block also ends where the next block starts at the
beginning of a line, so a missing `}` does not swallow the blocks after it.
""")
register("E003", "invalid-character", "A character or token that `.dp` does not know.", """
The lexer met a character that starts no token of the language, or a
comment or string that is never closed (the caret points at the `/*` or `"`
that opens it).  `.dp` accepts ASCII and the Unicode spellings
`ε ≥ ≤ ⊤ ⊥ → ′ ·`; characters that merely look like them are E021.
""")
register("E004", "unreadable-file", "The file could not be read as UTF-8 text.", """
The path does not exist, is not readable, is not a regular file (a FIFO, a
device such as `/dev/zero`, a socket: these are refused without being read,
so they can neither block nor fill the memory; pipe them through `-`
instead), or holds binary data (a NUL byte or bytes that are not UTF-8).
`.dp` files are UTF-8 text.

Under a folder given to `dslc check`, a sub-folder that cannot be listed,
a broken symbolic link and a link that loops back to a folder containing
it are E004 too: a check never passes on files it did not read.  Make
them readable (or fix the link), or leave that folder out of the paths.
""")
register("E005", "nesting-too-deep", "Blocks are nested deeper than the limit.", """
`dslc` accepts up to 200 levels of nested `{ }`.  Deeper nesting is almost
certainly a generated or damaged file; flatten the program.
""")
register("E006", "no-blocks", "The file holds no block to check.", """
A `.dp` file holds one or more blocks: `automaton`, `mechanism`, `hmm`,
`mdp` or `chain`.  This file has none (it is empty or only comments).
""")
register("E007", "stray-text", "Text outside of any block.", """
Everything in a `.dp` file must be inside a block such as
`automaton NAME { ... }` or `mechanism NAME(...) { ... }`, or a comment.
""")
register("E008", "invalid-number", "A number that cannot be read exactly.", """
Numbers are integers, decimals or fractions (`3`, `0.25`, `-1/2`) and are kept
exact.  Division by zero and exponents are not allowed.  A decimal that goes
on (`0.3333…`, `0.333...`) has no exact value: write the fraction (`1/3`;
the help line computes it from the repeating digits).
""")
register("E009", "duplicate-block", "Two blocks of one file have the same name.", """
Block names identify results in the JSON output and in editors; each block of
a file needs its own name.
""")

# --------------------------------------------------------------------------
# E1xx: not a DiPA
register("E010", "input-too-large", "An input file is larger than the size limit.", """
`dslc` reads inputs of at most 256 MiB (a DiP automaton of a million states
is about 134 MB).  Larger files are refused before they are read, so a wrong
path cannot fill the memory.  Split the input into several files.
""")
register("E011", "number-too-large", "A number has too many digits to be handled exactly.", """
Every number is an exact rational.  A literal may have at most 1,000 digits,
and a value computed from the source (a product of rates, a sum of
probabilities) at most 40,000 bits in its numerator and denominator; beyond
that, arithmetic on it would take longer than any check should.  Write the
number with fewer digits, or simplify the expression.
""")
register("E012", "expression-too-long", "An expression has more operators than the limit.", """
One expression may hold at most 200,000 operators.  Longer expressions come
from generated files gone wrong; split the computation or generate the value.
""")
register("E013", "model-too-large", "A block is too large to be checked within the limits.", """
The block would need more memory (or more states, rows or time per step)
than the limits allow.  Split the model, lower its size or horizon, or check
it on a larger machine.
""")
register("E014", "time-limit", "No verdict within the time limit (`--timeout`).", """
Checking the block did not finish within `--timeout` seconds (60 by
default), so its verdict is "unknown" and the exit status 2: nothing is
claimed about its privacy.  Raise the limit with `--timeout SECONDS`, or make
the block smaller.  The other blocks and files are checked as usual.
""")

register("E020", "misspelled-keyword", "A word close to a keyword, where that keyword is expected.", """
The parser expected a keyword (`output`, `loop`, `halt`, `read`, `state`,
`noinput`, `mechanism`, ...) and found a word one or two letters away from
it: `ouput`, `lopo`, `hlat`, `raed`, `stae`, `mechansim`.  The message names
the keyword; the block is read on as if it had been written, so the other
mistakes of the block are reported too.  Keywords are written in lower case.
""")
register("E021", "look-alike-character", "A Unicode character that looks like a `.dp` symbol but is another.", """
`.dp` accepts ASCII and the Unicode spellings `ε ≥ ≤ ⊤ ⊥ → ′ ·` (and the
no-break space as a space).  Characters that look like them are refused,
with their Unicode name and what to write instead:

- `ϵ` (U+03F5 GREEK LUNATE EPSILON SYMBOL, what LaTeX's `\\epsilon`
  gives), `ɛ`, `∊`: write `ε` (U+03B5) or `eps`;
- `⩾` `⩽` `≧` `≦`: write `>=`/`≥`, `<=`/`≤`;
- `−` (U+2212 MINUS SIGN), `–`, `—`: write `-`;
- `≔`: write `:=`; `⟶`, `⇒`: write `->`; `×`, `∗`: write `*`; `÷`: write `/`;
- curly quotes `“ ”` around a string: write `"`; `’` after `insample` or
  `Lap`: write `'` or `′`;
- fullwidth characters (`（`, `ｏｕｔｐｕｔ`): write the ASCII ones;
- unusual spaces (thin, zero-width, ideographic): write an ordinary space.

The parser reads on as if the intended character had been written.
""")
register("E022", "foreign-construct", "A construct of another programming language.", """
A mechanism is not a general program; some familiar constructs do not exist
and the message says what `.dp` has instead:

- `x = e` assigns in many languages: `.dp` writes `x := e` (`=` only gives
  parameters their values, `mechanism m(T = 0)`);
- `==`, `!=`, `=` in a comparison: a continuous draw equals a value with
  probability 0, so `.dp` compares only with `>=`, `<`, `>` and `<=`;
- `while`, `for`: `loop { ... }` repeats once per input, as long as input
  lasts; leave it with `break` or stop with `halt`;
- `return`, `print`: a mechanism releases values with `output VALUE` and
  stops with `halt`;
- `elif`, `elsif`: write `else if`; an `else` must follow the `}` of its `if`;
- `if COND:` and indentation, `then`, `end`: bodies are written in braces,
  `if COND { ... }`;
- `let`, `var`: variables come into being when they are assigned;
- `and`, `or`, `&&`, `||`: a condition is one comparison; nest `if`s;
- `=>` between a guard and its target: write `->`.
""")

register("E101", "unknown-state", "A transition goes to a state that is not declared.", """
Every transition target of an `automaton` must be a state declared with
`state NAME ...` in the same block.
""")
register("E102", "duplicate-state", "A state is declared twice.", """
State names in an `automaton` block must be unique.
""")
register("E103", "determinism", "A state has overlapping guards (DiPA determinism).", """
Definition 3 (determinism): a state either has one transition with guard
`true`, or at most one transition with `insample >= x` and at most one with
`insample < x`.  Two transitions whose guards can hold at once make the
automaton non-deterministic, which a DiPA cannot be.
""")
register("E104", "output-distinction", "Two transitions of a state cannot be told apart by their output.", """
Definition 3 (output distinction): the `insample >= x` and the `insample < x`
transitions of a state must have different outputs, and at most one of them
may output a real value (`insample` or `insample'`).  Otherwise an observer
could not tell which branch was taken and the paper's path semantics breaks.
""")
register("E105", "initialization", "The first step does not store a draw with guard `true`.", """
Definition 3 (initialization): the initial state has exactly one transition,
its guard is `true` and it stores `insample` in `x`.  In a `mechanism`, the
first step must be a plain assignment of a draw to the stored variable, such
as `x := Lap(ε/2, T)`.  The first transition may output a symbol or the
stored draw itself (`output insample`): dslc follows the DiPA authors' tool
here, where the paper's wording ("an output symbol") is narrower.
""")
register("E106", "non-input-guard", "A state that reads no input compares with `x`.", """
Definition 3 (non-input transitions): a `noinput` state has at most one
transition, with guard `true`.  Make the state `input`, or remove the
comparison.
""")
register("E107", "rate-not-multiple-of-epsilon", "The first argument of `Lap` is not a rate `dε`.", """
`Lap(rate, mean)` takes the RATE `dε` (density `dε/2 · e^{-dε|z-μ|}`, scale
`1/(dε)`), a non-negative rational multiple of ε such as `ε/4`, `2ε/9`,
`0.25*eps` or `0`.  A scale such as `2/ε` must be written as the rate `ε/2`.
""")
register("E108", "invalid-guard", "A guard that is not `true`, `insample >= x` or `insample < x`.", """
Guards compare the fresh draw `insample` with the stored variable `x`.
""")
register("E109", "invalid-mean", "The mean of a draw is not a constant.", """
The mean of a Laplace draw is an exact rational constant (parameters allowed);
in a `mechanism` it may also be the value read in the same step plus a
constant (`Lap(ε/4, q + 1)`).
""")
register("E110", "two-comparisons", "One step compares with the stored variable twice.", """
A DiPA step makes at most one comparison of its fresh draw with the stored
variable.  Split the step: produce an output after the first comparison, so
that the second comparison starts a new step with a fresh draw.
""")
register("E111", "comparison-not-with-stored", "A comparison that is not `fresh draw` vs `stored variable`.", """
Conditions in a `mechanism` compare the draw of the current step
(`Lap(...)` or a variable holding it) with the one stored variable.  Compare
with the stored variable, or store the other value first.
""")
register("E112", "second-stored-variable", "The mechanism remembers two values across steps.", """
A DiPA of the one-variable model has exactly one stored variable.  A
mechanism that keeps several noisy values across steps is now lowered to an
automaton with several variables (docs/language.md, "Several stored
variables") and checked by the checker of docs/multivariable.md, so this
code is no longer reported; it stays registered for older tooling.
""")
register("E113", "value-used-across-steps", "A read value or a draw is used after its step ended.", """
Reads and draws live for one step (up to the step's output).  Only the
stored variable outlives a step.  Draw afresh in the later step, or store the
draw with `x := s` in the step that made it.
""")
register("E114", "two-reads", "One step reads two inputs.", """
A step reads at most one input.  A `read()` in a later statement before the
step's output ends the step there (a silent step) and starts the next one;
two reads in one expression, as in `Lap(ε, read() + read())`, cannot be
split and are this error.  Read the input once into a variable
(`q := read()`) and use the variable.
""")
register("E115", "mean-not-input-plus-constant", "A draw's mean is not `input + constant`.", """
In an input step, a draw is centred on the value read in that step plus a
constant: `Lap(ε, q)`, `Lap(ε, q + 1)`.  The input cannot be scaled and the
draw cannot ignore the value read.
""")
register("E116", "silent-loop", "A loop can run forever without reading, drawing or output.", """
Each iteration of a `loop` must take at least one step (read, draw or output);
otherwise the program would spin without end.
""")
register("E117", "stored-overwritten-before-compare", "The stored variable is overwritten before the step compares with it.", """
In a DiPA step the comparison uses the old stored value and the assignment
`x := insample` happens with the output.  Move the assignment after the
comparison, into the branch that should store.
""")
register("E118", "unsupported-construct", "A statement or expression the DiPA fragment cannot express.", """
`mechanism` programs are lowered to DiP automata.  Only draws, reads, one
stored variable, comparisons of the draw with it, outputs of symbols or of the
draws, `loop`, `break` and `halt` are available.
""")
register("E119", "unknown-name", "A name that is not defined.", """
Names in a `mechanism` are its parameters (which need a value, `T = 0`),
variables assigned earlier in the same step, or the stored variable.
""")
register("E120", "conflicting-second-draw", "The branches of a step output different second draws.", """
A DiPA state samples one `insample'` distribution; both branches of a step
must use the same `Lap(rate, mean)` when they output a second draw.
""")
register("E121", "break-outside-loop", "`break` outside of a `loop`.", """
`break` leaves the innermost `loop`; use `halt` to stop the mechanism.
""")

# --------------------------------------------------------------------------
# DPxxx: privacy violations
register("DP001", "leaking-cycle", "A reachable cycle stores a draw and later compares with it.", """
Definition 6 of the DiPA paper: a leaking cycle is a cycle with an assignment
transition (`store`, `x := s`) followed by a transition whose guard compares
with `x`.  Each turn of the loop compares a fresh noisy value with the last
one, so an adversary choosing adjacent inputs gains a constant factor of
probability per turn: the privacy loss grows without bound with the number
of iterations (Lemma 6).  No constant d makes the mechanism dε-private.

Fix: keep the compared value fixed inside the loop (store only outside the
loop, as the sparse vector technique does), or leave the loop after storing.
""")
register("DP002", "leaking-pair", "An L-cycle and a G-cycle are connected so both outcomes repeat.", """
Definition 8: a leaking pair is an L-cycle (a loop with an `insample < x`
transition) from which a G-cycle (`insample >= x`) is reachable along a path
whose assignments all have guard `insample >= x` (an AG-path), or the mirror
case.  Whatever the stored threshold is, one of the two loops lets an
adversary gain a constant factor per iteration (Lemma 7).

Fix: after the first `insample >= x` outcome, stop (`halt`) or store a new
threshold before looping on the opposite comparison.
""")
register("DP003", "disclosing-cycle", "A reachable cycle outputs a noisy input value.", """
Definition 9: a cycle containing an input transition that outputs `insample`
or `insample'` releases a fresh noisy value of the input on every turn; the
privacy cost adds up without bound (Lemma 8).

Fix: output a symbol inside the loop and release a numeric value only on a
transition that leaves the loop.
""")
register("DP004", "privacy-violating-path", "A real output reveals the stored threshold next to a loop that depends on it.", """
Definition 10: a privacy-violating path links a transition that outputs
`insample` with a G-cycle or L-cycle through an AG- or AL-path, so that the
released value tells which side of the stored threshold the loop ran on
(Lemma 9).  Numeric Sparse avoids this by releasing a second, independent
draw `insample'` instead of the compared value.

Fix: output a fresh draw (`output Lap(rate, q)`) instead of the compared one.
""")
register("DP101", "pufferfish-violation", "An observation sequence distinguishes a secret pair by more than e^ε.", """
The Pufferfish check found an observation sequence (and, for an `mdp`, a
choice of actions) whose probability under one secret exceeds e^ε times its
probability under the other secret of a protected pair.
""")

# --------------------------------------------------------------------------
# Warnings
register("E122", "parameter-shadowed", "A parameter and a variable share a name.", """
A name declared as a parameter (`mechanism m(q = 0)`) is also assigned in the
body (`q := read()`).  Every later use would be ambiguous — the parameter's
value or the variable's — and a lowering that picked one silently could hide
a leak.  Rename one of the two.
""")

register("E123", "stored-not-a-draw", "The stored variable is given something other than the step's draw.", """
A DiP automaton keeps exactly one value between steps, `x`, and the only
thing it can store there is the draw of the step (`x := insample`).  A
mechanism that puts the exact input (`x := read()`, `x := q`) or another
value into its stored variable has no DiPA: its comparisons would use a value
the automaton cannot hold.  Store a noisy value instead
(`x := Lap(ε, read())` in a step of its own).
""")

register("E124", "rate-zero-draw", "A draw with rate 0 is compared, output or stored.", """
`Lap(0, μ)` has density 0 everywhere: it is not a probability distribution,
so a step that compares, outputs or stores its value can neither be run nor
priced.  A state of an `automaton` that outputs `insample'` must declare
`Lap'(rate, mean)` with a positive rate.  A rate-0 draw is allowed only where
its value is never used (`x := Lap(0, 0)` in a mechanism that never compares
with `x`).
""")

register("W001", "unreachable-state", "A state cannot be reached from the initial state.", """
Unreachable states never run; they do not affect the verdict (Definition 11
only counts reachable cycles and paths).
""")

register("W002", "inexact-decimal", "A decimal that looks like a repeating decimal cut short.", """
Numbers are exact: `0.3333` is 3333/10000, not 1/3, and `0.6667` is
6667/10000, not 2/3.  A rate `Lap(0.3333ε, 0)` then gives d = 3333/10000
exactly.  When the digits repeat (or repeat and round), dslc warns and
names the fraction they suggest; write it (`1/3`) if that is the value you
mean.  The verdict is computed for the number as written.
""")


# The codes of the other block kinds (imported last: they call register()).
from dslc.diagnostics import codes_chain as _codes_chain  # noqa: E402,F401
from dslc.diagnostics import codes_hmm as _codes_hmm  # noqa: E402,F401
from dslc.diagnostics import codes_discrete as _codes_discrete  # noqa: E402,F401
from dslc.diagnostics import codes_budget as _codes_budget  # noqa: E402,F401
from dslc.diagnostics import codes_config as _codes_config  # noqa: E402,F401
from dslc.diagnostics import codes_compose as _codes_compose  # noqa: E402,F401
from dslc.diagnostics import codes_multivar as _codes_multivar  # noqa: E402,F401
