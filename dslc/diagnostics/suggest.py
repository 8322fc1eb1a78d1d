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
    outside it is at least ``limit + 1`` away), so the work is
    ``len(a) * (2 * limit + 1)``, not ``len(a) * len(b)``: a 4,000-letter
    name against another costs milliseconds, not half a minute."""
    if a == b:
        return 0
    n, m = len(a), len(b)
    if limit is None:
        limit = max(n, m)
    if abs(n - m) > limit:
        return limit + 1
    far = limit + 1                        # every value is capped here
    prev2: dict[int, int] = {}
    prev = {j: j for j in range(min(m, limit) + 1)}
    for i in range(1, n + 1):
        if not i & 1023:
            checkpoint()
        cur: dict[int, int] = {0: i} if i <= limit else {}
        best = cur.get(0, far)
        for j in range(max(1, i - limit), min(m, i + limit) + 1):
            v = min(prev.get(j, far) + 1, cur.get(j - 1, far) + 1,
                    prev.get(j - 1, far) + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2.get(j - 2, far) + 1)
            v = min(v, far)
            cur[j] = v
            best = min(best, v)
        if best >= far:
            return far
        prev2, prev = prev, cur
    return prev.get(m, far)


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
        checkpoint()
        d = edit_distance(lower, c.lower(), limit)
        if d < best_d:
            best, best_d = c, d
    if best is not None:
        return best
    if ratio is not None:
        return _close_match(word, options, ratio)
    return None


def _close_match(word: str, options: list[str], cutoff: float) -> str | None:
    """``difflib.get_close_matches(word, options, n=1, cutoff=cutoff)``, the
    same filters and the same choice (the highest ratio, then the greatest
    string), with the time budget checked between candidates."""
    import difflib                       # rarely reached: not imported at start-up
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    found: tuple[float, str] | None = None
    for c in options:
        checkpoint()
        matcher.set_seq1(c)
        if (matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff):
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
