"""Did-you-mean: the one helper every phase uses to suggest a name or keyword.

A candidate is close to a word when they differ only in case, or by a small
number of single-character edits (insertion, deletion, substitution, or
swapping two neighbours: ``hlat`` → ``halt``), scaled with the length of the
word; longer words may also match by their similarity ratio (difflib), as
``dslc`` did before this module existed.  Ties go to the candidate listed
first, so callers list the likeliest first.
"""

from __future__ import annotations

from collections.abc import Iterable

from dslc.limits import checkpoint


def edit_distance(a: str, b: str, limit: int | None = None) -> int:
    """Optimal-string-alignment distance (Damerau–Levenshtein without
    repeated edits of one substring): insertions, deletions, substitutions
    and transpositions of neighbours each cost 1.  With ``limit``, any
    distance above it is reported as ``limit + 1``.

    Only the band of cells with ``|i - j| <= limit`` is computed (a cell
    outside it is more than ``limit`` away, and every value is capped at
    ``limit + 1``), so the work is at most ``len(a) * (2 * limit + 1)``
    cells, not ``len(a) * len(b)``: a 4,000-letter name against another
    costs milliseconds, not half a minute."""
    return _distance(a, b, limit)[0]


def _distance(a: str, b: str, limit: int | None) -> tuple[int, int]:
    """:func:`edit_distance` and the number of rows of the table it computed."""
    if a == b:
        return 0, 0
    n, m = len(a), len(b)
    if limit is None:
        limit = max(n, m)
    if abs(n - m) > limit:
        return limit + 1, 0
    far = limit + 1
    prev2: list[int] = []
    prev = [min(j, far) for j in range(m + 1)]
    for i in range(1, n + 1):
        if not i & 1023:
            checkpoint()
        cur = [far] * (m + 1)
        if i < far:
            cur[0] = i
        best = cur[0]
        x = a[i - 1]
        for j in range(max(1, i - limit), min(m, i + limit) + 1):
            v = prev[j - 1] if x == b[j - 1] else prev[j - 1] + 1     # match or substitution
            if prev[j] + 1 < v:                                        # deletion
                v = prev[j] + 1
            if cur[j - 1] + 1 < v:                                     # insertion
                v = cur[j - 1] + 1
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == b[j - 1] and prev2[j - 2] + 1 < v:
                v = prev2[j - 2] + 1                                   # transposition
            if v > far:
                v = far
            cur[j] = v
            if v < best:
                best = v
        if best >= far:
            return far, i
        prev2, prev = prev, cur
    return prev[m], n


def max_edits(word: str) -> int:
    """How many edits still make a typo of ``word`` (0 for one- and two-letter words)."""
    n = len(word)
    if n <= 2:
        return 0
    if n <= 4:
        return 1
    if n <= 8:
        return 2
    return 3


def closest(word: str, candidates: Iterable[str], ratio: float | None = 0.6) -> str | None:
    """The candidate closest to ``word``, or None when none is close.

    ``ratio``: also accept a candidate whose difflib similarity is at least
    this (None: edits only; keywords use edits only, so that a name is not
    taken for a keyword it merely resembles)."""
    options = [c for c in dict.fromkeys(candidates) if c and c != word]
    if not options or not word:
        return None
    lower = word.lower()
    for c in options:
        if c.lower() == lower:
            return c
    limit = max_edits(word)
    work = MAX_WORK
    letters = set(lower)
    best, best_d = None, limit + 1
    for c in options:
        checkpoint()
        other = c.lower()
        # cheap lower bounds first: the lengths, and the letters (one edit
        # changes the set of letters by at most two)
        if abs(len(other) - len(lower)) > limit or len(letters.symmetric_difference(other)) > 2 * limit:
            continue
        d, rows = _distance(lower, other, limit)
        work -= rows * (2 * limit + 1)
        if work < 0:
            return None
        if d < best_d:
            best, best_d = c, d
    if best is not None:
        return best
    if ratio is not None:
        return _close_match(word, options, ratio, work)
    return None


# Cells of edit-distance tables (and difflib's comparable work) one
# suggestion may cost: about a second.  Past it no suggestion is made —
# the same for the same input on every machine, where a time limit would
# make the help line depend on the machine's speed.
MAX_WORK = 1_000_000


def _close_match(word: str, options: list[str], cutoff: float, work: int = MAX_WORK) -> str | None:
    """``difflib.get_close_matches(word, options, n=1, cutoff=cutoff)``, the
    same filters and the same choice (the highest ratio, then the greatest
    string), with the time budget checked between candidates and at most
    ``work`` (about ``len(a) * len(b)`` per full comparison)."""
    import difflib                       # rarely reached: not imported at start-up
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    found: tuple[float, str] | None = None
    for c in options:
        checkpoint()
        matcher.set_seq1(c)
        if matcher.real_quick_ratio() < cutoff:
            continue
        work -= len(c) + len(word)
        if work < 0:
            return None
        if matcher.quick_ratio() < cutoff:
            continue
        work -= len(c) * len(word)
        if work < 0:
            return None
        score = matcher.ratio()
        if score >= cutoff and (found is None or (score, c) > found):
            found = (score, c)
    return None if found is None else found[1]


def did_you_mean(word: str, candidates: Iterable[str], what: str | None = None,
                 ratio: float | None = 0.6) -> str | None:
    """A help line: "did you mean `x`?"; without a close candidate, the list
    of ``what`` that exist ("the declared states are `a`, `b`"), or None
    when ``what`` is not given."""
    options = list(dict.fromkeys(candidates))
    best = closest(word, options, ratio)
    if best is not None:
        return f"did you mean `{best}`?"
    if what is None:
        return None
    if not options:
        return f"no {what} are declared"
    shown = ", ".join(f"`{o}`" for o in options[:8]) + (", ..." if len(options) > 8 else "")
    return f"the declared {what} are {shown}"


_EPSILON_WORDS = {"epsilon", "varepsilon", "epsi", "eps0", "e", "ϵ", "ɛ"}


def name_help(name: str, known) -> str | None:
    """A help line for an unknown name: ε written as a word (`epsilon`), or
    the closest known name; None when neither applies."""
    if name.lower() in _EPSILON_WORDS:
        return "ε is written `ε` or `eps`"
    best = closest(name, known)
    return f"did you mean `{best}`?" if best is not None else None


__all__ = ["edit_distance", "max_edits", "closest", "did_you_mean", "name_help"]
