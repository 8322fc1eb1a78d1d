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


def edit_distance(a: str, b: str, limit: int | None = None) -> int:
    """Optimal-string-alignment distance (Damerau–Levenshtein without
    repeated edits of one substring): insertions, deletions, substitutions
    and transpositions of neighbours each cost 1.  With ``limit``, any
    distance above it may be reported as ``limit + 1``."""
    if a == b:
        return 0
    if limit is not None and abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        best = cur[0]
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
            best = min(best, v)
        if limit is not None and best > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


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
    best, best_d = None, limit + 1
    for c in options:
        d = edit_distance(lower, c.lower(), limit)
        if d < best_d:
            best, best_d = c, d
    if best is not None:
        return best
    if ratio is not None:
        import difflib                   # rarely reached: not imported at start-up
        close = difflib.get_close_matches(word, options, n=1, cutoff=ratio)
        if close:
            return close[0]
    return None


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
